"""Timings and route tables of mipcore.guarantees (privacy guarantees in attacker terms).

Prints:
1. the time of one DP-SGD conversion, ``eta_from_dpsgd(1.1, 0.01, 10_000)`` (target <= 2 s),
   and of its inverse, ``dpsgd_noise_for_eta(0.1, 0.01, 10_000)`` (target <= 10 s): the first
   (cold) call and the median of warm calls; for reference also the rich result
   ``dpsgd_attacker_bound`` and the TPR inverse ``dpsgd_noise_for_tpr`` (no target);
2. the route table (every route's η side by side, and TPR at FPR 0.001 / 0.01 / 0.1) for two
   presets:
   * CIFAR-10-like: noise multiplier 1.1, batch 256 of 50 000 (q = 256/50 000), 50 epochs;
   * LLM fine-tune-like: the E2E table-to-text setting of Li, Tramèr, Liang, Hashimoto,
     *Large Language Models Can Be Strong Differentially Private Learners* (ICLR 2022,
     arXiv:2110.05679; their example script): 42 061 training examples (the E2E train split
     of Novikova et al. 2017), batch 1024 (16 × 64 gradient accumulation), 10 epochs, target
     (ε, δ) = (8, 8·10⁻⁶). The script calibrates the noise by target ε, so the noise
     multiplier is recomputed here the same way: ``dp_accounting``'s add/remove RDP
     accountant, calibrated to ε = 8 at δ = 8·10⁻⁶.

3. the risk calculator page's requests: one ``route_curves`` per guarantee kind (every route
   and its ROC curve; DP-SGD at the page's presets, ``CIFAR10`` and ``E2E``) and the solve
   mode's ``dpsgd_noise_and_eta`` at the CIFAR-10 preset's q and T (the
   page runs the heavy ones in their own process; targets as for item 1: the DP-SGD report
   <= 2 s, the solve <= 10 s).

Never asserts; exits 0. Run: ``python benchmarks/guarantees.py``.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mipcore import guarantees as G  # noqa: E402


def timed(fn, repeats: int):
    """(first call, median of ``repeats`` further calls, last result) in seconds."""
    t0 = time.perf_counter()
    result = fn()
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times), result


def show_timing(label: str, fn, repeats: int, target: float | None) -> None:
    first, median, result = timed(fn, repeats)
    goal = "" if target is None else f"  (target <= {target:g} s)"
    print(f"{label:<52} first {first:7.3f} s  median of {repeats} {median:7.3f} s{goal}")
    if isinstance(result, float):
        print(f"{'':<52} result {result:.6g}")


def route_table(name: str, sigma: float, q: float, steps: int) -> None:
    t0 = time.perf_counter()
    b = G.dpsgd_attacker_bound(sigma, q, steps)
    dt = time.perf_counter() - t0
    print(f"\n{name}: noise multiplier {sigma:.4g}, sampling rate {q:.5g}, {steps} steps")
    print(f"  (dpsgd_attacker_bound took {dt:.2f} s; PLD interval {b.pld_interval})")
    print(
        f"  {'route':<24} {'valid':<6} {'eta':>9} {'accuracy':>9} {'x tightest':>10}  (eps, delta)"
    )
    for r in sorted(b.routes, key=lambda r: r.eta):
        ratio = r.eta / b.eta if b.eta > 0 else math.inf
        point = "" if r.epsilon is None else f"({r.epsilon:.4g}, {r.delta:.3g})"
        print(
            f"  {r.route.value:<24} {'yes' if r.valid else 'NO':<6} {r.eta:9.5f} "
            f"{0.5 + r.eta:9.5f} {ratio:10.3f}  {point}"
        )
    print(
        f"  tightest: {b.route.value}, eta = {b.eta:.5f}, looseness of the valid routes x{b.looseness:.3f}"
    )
    tprs = ", ".join(
        f"TPR <= {t:.4g} at FPR {f:g}" for f, t in zip(b.fpr_levels, b.tpr_at_fpr, strict=True)
    )
    print(f"  {tprs}")


def e2e_noise_multiplier(q: float, steps: int) -> float:
    import dp_accounting
    from dp_accounting import mechanism_calibration
    from dp_accounting.rdp import rdp_privacy_accountant

    def event(sigma: float):
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
        )

    return float(
        mechanism_calibration.calibrate_dp_mechanism(
            rdp_privacy_accountant.RdpAccountant,
            event,
            target_epsilon=8.0,
            target_delta=8e-6,
            bracket_interval=mechanism_calibration.ExplicitBracketInterval(0.3, 5.0),
            tol=1e-4,
        )
    )


def main() -> int:
    print("1. Timings")
    show_timing(
        "eta_from_dpsgd(1.1, 0.01, 10_000)", lambda: G.eta_from_dpsgd(1.1, 0.01, 10_000), 5, 2.0
    )
    show_timing(
        "dpsgd_noise_for_eta(0.1, 0.01, 10_000)",
        lambda: G.dpsgd_noise_for_eta(0.1, 0.01, 10_000),
        3,
        10.0,
    )
    show_timing(
        "dpsgd_attacker_bound(1.1, 0.01, 10_000)",
        lambda: G.dpsgd_attacker_bound(1.1, 0.01, 10_000),
        3,
        None,
    )
    show_timing(
        "dpsgd_noise_for_tpr(0.05, 0.01, 0.01, 10_000)",
        lambda: G.dpsgd_noise_for_tpr(0.05, 0.01, 0.01, 10_000),
        1,
        None,
    )

    print("\n2. Route tables (all routes are for MIP's replace-one game unless marked NO)")
    n, batch, epochs = 50_000, 256, 50
    route_table("CIFAR-10-like", 1.1, batch / n, round(epochs * n / batch))
    n, batch, epochs = 42_061, 1024, 10
    q, steps = batch / n, math.ceil(epochs * n / batch)
    sigma = e2e_noise_multiplier(q, steps)
    print(
        f"\n(E2E noise multiplier calibrated to add/remove RDP eps = 8 at delta = 8e-6: {sigma:.4f})"
    )
    route_table("LLM fine-tune-like (E2E, Li et al. 2022)", sigma, q, steps)

    print("\n3. The risk calculator's requests (mipcore.guarantees.route_curves)")
    ar = G.Relation.ADD_OR_REMOVE_ONE
    rdp = ((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0))
    requests = [
        ("(eps, delta) = (1, 1e-5)", G.EpsDelta(1.0, 1e-5), None),
        ("(eps, delta) = (1, 1e-5), add/remove", G.EpsDelta(1.0, 1e-5, ar), None),
        ("mu-GDP, mu = 1", G.Gdp(1.0), None),
        ("rho-zCDP, rho = 0.5, add/remove", G.Zcdp(0.5, ar), None),
        ("Renyi DP, 5 orders, add/remove", G.Rdp(*rdp, ar), None),
        ("DP-SGD, CIFAR-10 preset", None, G.CIFAR10),
        ("DP-SGD, E2E preset", None, G.E2E),
    ]
    for label, g, preset in requests:
        if preset is not None:
            g = G.DpSgd(preset.noise_multiplier, preset.sampling_rate, preset.steps)
        show_timing(
            f"route_curves: {label}",
            lambda g=g: G.route_curves(g),
            1,
            2.0 if isinstance(g, G.DpSgd) else None,
        )
    q, steps = G.CIFAR10.sampling_rate, G.CIFAR10.steps
    show_timing(
        f"dpsgd_noise_and_eta(0.1, {q:g}, {steps})",
        lambda: G.dpsgd_noise_and_eta(0.1, q, steps)[0],
        1,
        10.0,
    )
    show_timing(
        f"dpsgd_noise_and_eta(tpr 0.05 at FPR 0.01, {q:g}, {steps})",
        lambda: G.dpsgd_noise_and_eta(None, q, steps, tpr=0.05, fpr=0.01)[0],
        1,
        10.0,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
