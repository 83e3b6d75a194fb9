"""Timings of the exact attacks, the canary audit and the audit/looseness pages' jobs, in one run.

Prints:
1. the exact η of Proposition 11 at n = 16 (all 16 targets, C(16, 8) = 12 870 halves each,
   one Laplace noise scale): target <= 2 s; the first (cold) call and the median of warm calls;
   for reference also Gaussian noise at n = 16 and Laplace at n = 20 (no targets);
2. a 10 000-trial canary audit (mean of 8 records with a planted outlier, optimal
   likelihood-ratio attacker) for each noise: none, Laplace, Gaussian, MIP (Theorem 9):
   target <= 2 s each; then the same game against the covariance release (d² = 4 noisy
   entries; no target): the game alone (``exact=False``, what each later chunk of the page
   costs) and with the Monte Carlo optimum (200 000 draws, once per configuration);
3. the MACE estimators on 10 000 + 10 000 samples (no target);
4. the jobs the pages "Can an audit catch a leaky mechanism?" and "How loose are the certified
   bounds?" hand to ``appkit.jobs.run`` (each > ~1 s somewhere in its range, so each runs in
   its own process there): ``experiments.canary_game.play_game`` at the default and at the ceiling of
   trials, ``experiments.certificate_gap.exact_eta_grid`` / ``eta_curves`` / ``noise_demand`` at n = 8 and n = 16,
   and ``dimension_gap`` (the repaired chain's noise in 8 dimensions and the 200 000-draw
   Monte Carlo optimum of the covariance release), M = 2 and M = 6.

Never asserts; exits 0. Run: ``python benchmarks/attacks.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from mipcore import audit_stats, canary_audit, mace, prop11, prop11_attack  # noqa: E402
from mipcore.experiments import canary_game as audit_lesson  # noqa: E402
from mipcore.experiments import certificate_gap  # noqa: E402


def timed(fn, repeats: int = 5):
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


def main() -> int:
    print("mipcore.attacks: timings on this machine\n")

    b = (6.16 / 0.1) ** 2 * prop11.sigma(16)  # Theorem 9's noise for eta = 0.1
    first, med, eta = timed(lambda: prop11_attack.prop11_true_eta(16, b))
    print(f"Prop. 11 exact η, n = 16, Laplace b = {b:.4g} (Theorem 9 for η = 0.1):")
    print(f"    η = {eta:.3e};  cold {first:.3f} s, warm median {med:.3f} s   (target <= 2 s)")
    first, med, eta1 = timed(lambda: prop11_attack.prop11_true_eta(16, 1.0), repeats=3)
    print(
        f"Prop. 11 exact η, n = 16, Laplace b = 1:            η = {eta1:.3e};  cold {first:.3f} s, "
        f"warm {med:.3f} s"
    )
    first, med, etag = timed(lambda: prop11_attack.prop11_true_eta(16, 1.0, "gaussian"), repeats=2)
    print(
        f"Prop. 11 exact η, n = 16, Gaussian s = 1 (certified): η = {etag:.3e};  cold {first:.3f} s, "
        f"warm {med:.3f} s   (no target)"
    )
    first, med, eta20 = timed(lambda: prop11_attack.prop11_true_eta(20, 1.0), repeats=1)
    print(
        f"Prop. 11 exact η, n = 20 (184 756 halves), Laplace b = 1: η = {eta20:.3e};  {med:.2f} s   "
        "(no target)\n"
    )

    print("Canary audit, 10 000 trials, n = 8, canary 6 (target <= 2 s each):")
    print(
        f"    {'noise':<10}{'time s':>8}{'guesses':>9}{'correct':>9}{'η̂':>9}{'η_lb':>9}"
        f"{'exact η':>9}{'ε_lb':>8}"
    )
    for noise, kw in [
        ("none", {}),
        ("laplace", {"noise_scale": 1.0}),
        ("gaussian", {"noise_scale": 1.0}),
        ("mip", {"eta": 0.2}),
    ]:

        def run(noise=noise, kw=kw):
            return canary_audit.run_canary_audit(10_000, n=8, canary=6.0, noise=noise, rng=1, **kw)

        first, med, audit = timed(run, repeats=3)
        print(
            f"    {noise:<10}{med:8.3f}{audit.guesses:9d}{audit.correct:9d}{audit.eta_hat:9.4f}"
            f"{audit.eta_lower:9.4f}{audit.exact_eta:9.4f}{audit.epsilon_lower:8.2f}"
        )
    print("  covariance release, 10 000 trials, records in R² (no target):")
    print(f"    {'noise':<10}{'game s':>8}{'+MC s':>8}{'η̂':>9}{'MC η':>9}{'99 % interval':>20}")
    for noise, kw in [
        ("none", {}),
        ("laplace", {"epsilon": 1.0}),
        ("gaussian", {"epsilon": 1.0}),
        ("mip", {"eta": 0.2}),
    ]:

        def game(noise=noise, kw=kw, exact=False):
            return canary_audit.run_canary_audit(
                10_000, mechanism="covariance", noise=noise, rng=1, exact=exact, **kw
            )

        _, med_g, _ = timed(game, repeats=3)
        _, med_x, audit = timed(lambda: game(exact=True), repeats=1)
        lo, hi = audit.exact_interval
        print(
            f"    {noise:<10}{med_g:8.3f}{med_x:8.3f}{audit.eta_hat:9.4f}{audit.exact_eta:9.4f}"
            f"   [{lo - 0.5:.4f}, {hi - 0.5:.4f}]"
        )
    print(
        f"    largest ε 10 000 trials can certify at 95 %: {audit_stats.max_certifiable_epsilon(10_000):.2f}\n"
    )

    rng = np.random.default_rng(0)
    m, nm = rng.normal(1.0, 1.0, 10_000), rng.normal(0.0, 1.0, 10_000)
    _, med_h, h = timed(lambda: mace.histogram_estimate(m, nm, bins=100), repeats=3)
    _, med_k, k = timed(lambda: mace.kde_estimate(m, nm), repeats=1)
    print("MACE on N(1,1) vs N(0,1), 10 000 + 10 000 samples (true Adv = 0.3829):")
    print(
        f"    histogram: plug-in {h.plugin:.4f}, held-out {h.heldout:.4f} (lower {h.heldout_lower:.4f}); "
        f"{med_h:.3f} s"
    )
    print(
        f"    KDE:       plug-in {k.plugin:.4f}, held-out {k.heldout:.4f} (lower {k.heldout_lower:.4f}); "
        f"{med_k:.3f} s"
    )

    print("\nPage jobs (appkit.jobs.run; one cold call each, no target):")
    ceiling = audit_lesson.trial_ceiling()
    for label, fn in [
        (
            "audit.play_game mean/laplace, 10 000 trials",
            lambda: audit_lesson.play_game(
                "mean", "laplace", "lr", trials=10_000, epsilon=1.0, eta=0.1
            ),
        ),
        (
            f"audit.play_game mean/laplace, {ceiling:,} trials (the ceiling)",
            lambda: audit_lesson.play_game(
                "mean", "laplace", "lr", trials=ceiling, epsilon=1.0, eta=0.1
            ),
        ),
        (
            "audit.play_game covariance/mip, 10 000 trials (+ Monte Carlo optimum)",
            lambda: audit_lesson.play_game(
                "covariance", "mip", "lr", trials=10_000, epsilon=1.0, eta=0.1
            ),
        ),
        (
            f"audit.play_game covariance/gaussian, {ceiling:,} trials",
            lambda: audit_lesson.play_game(
                "covariance", "gaussian", "lr", trials=ceiling, epsilon=1.0, eta=0.1
            ),
        ),
        (
            "certificate_gap.eta_curves n = 8",
            lambda: certificate_gap.eta_curves(certificate_gap.exact_eta_grid(8)),
        ),
        (
            "certificate_gap.eta_curves n = 16",
            lambda: certificate_gap.eta_curves(certificate_gap.exact_eta_grid(16)),
        ),
        (
            "certificate_gap.noise_demand n = 8, η = 0.1",
            lambda: certificate_gap.noise_demand(8, 0.1),
        ),
        (
            "certificate_gap.noise_demand n = 16, η = 0.1",
            lambda: certificate_gap.noise_demand(16, 0.1),
        ),
        (
            "certificate_gap.dimension_gap η = 0.1, M = 2",
            lambda: certificate_gap.dimension_gap(0.1),
        ),
        (
            "certificate_gap.dimension_gap η = 0.1, M = 6, 7.5",
            lambda: certificate_gap.dimension_gap(0.1, 6, 7.5),
        ),
    ]:
        t0 = time.perf_counter()
        fn()
        print(f"    {label:<72}{time.perf_counter() - t0:7.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
