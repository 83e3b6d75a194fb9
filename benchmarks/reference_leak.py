"""Timing and result table of the reference-data experiment (WERM sweep), measured in one run.

Prints:
1. the default sweep (11 weights × 5 seeds, logistic regression, 3 200 records of 300
   features): median wall time of 3 runs after a warm-up; target <= 5 s on a 2-core machine;
2. the result table: per w, the test accuracy and the mean accuracy of each attack on the
   training and on the reference data (band over seeds for the confidence attack);
3. Table 2's picks and the verdicts evaluated on the run.

``--threads`` also times one sweep with BLAS left at its default thread count (the sweep
limits BLAS to one thread; on a busy machine the default can be an order of magnitude
slower).

Never asserts; exits 0. Run: ``python benchmarks/reference_leak.py [--threads]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from mipcore.experiments import reference_sweep as rl  # noqa: E402
from mipcore.reference_data import SelectionRule  # noqa: E402


def median_time(fn, repeats: int = 3) -> tuple[float, list[float]]:
    """Median wall time of ``repeats`` calls (seconds) and all the times."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def table(res: rl.SweepResult) -> pd.DataFrame:
    piv = res.per_w.pivot_table(index="w", columns=["target", "attack"], values="accuracy_mean")
    piv.columns = [f"{a}/{t}" for t, a in piv.columns]
    conf = res.per_w[res.per_w["attack"] == "confidence"].set_index(["w", "target"])
    out = res.utility.set_index("w")[["test_accuracy_mean", "n_eff"]].join(piv)
    for t in ("train", "reference"):
        sub = conf.xs(t, level="target")
        out[f"confidence/{t} band"] = [
            f"{lo:.3f}-{hi:.3f}"
            for lo, hi in zip(sub["accuracy_min"], sub["accuracy_max"], strict=True)
        ]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--threads", action="store_true", help="also time a sweep with default BLAS threads"
    )
    args = parser.parse_args()

    cfg = rl.LeakConfig()
    rl.run_sweep(rl.LeakConfig(n_seeds=1, weights=(0.0, 1.0)))  # warm imports and BLAS

    print("Reference-data experiment (WERM sweep): timings on this machine\n")
    print(
        f"default sweep: {len(cfg.weights)} weights x {cfg.n_seeds} seeds, {cfg.model.value}, "
        f"N_T = {cfg.n_train}, N_R = {cfg.n_ref}, holdouts {cfg.n_calib} + {cfg.n_eval}, "
        f"{cfg.n_features} features"
    )
    results: list[rl.SweepResult] = []
    med, times = median_time(lambda: results.append(rl.run_sweep(cfg)))
    print(
        f"  median of 3: {med:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times)})  "
        f"target 5 s -> {'within' if med <= 5 else 'OVER'}"
    )
    if args.threads:
        with mock.patch.object(rl, "_one_blas_thread", lambda: _Null()):
            t0 = time.perf_counter()
            rl.run_sweep(cfg)
            t_def = time.perf_counter() - t0
        print(f"  one run with default BLAS threads: {t_def:.2f} s ({t_def / med:.1f}x)")

    res = results[-1]
    print(f"\nall fits converged: {bool(res.fits['converged'].all())}; w* = {res.w_star:g}\n")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table(res).round(3).to_string())

    print("\nTable 2 rules (confidence attack, per-w means):")
    for s in res.selections:
        if s.w is None:
            print(f"  {s.rule.value:24s} threshold {s.threshold:g}: no eligible instance")
        else:
            print(
                f"  {s.rule.value:24s} threshold {s.threshold:g}: w = {s.w:g}  test {s.test_accuracy:.3f}"
                f"  attack train {s.attack_train:.3f}  attack ref {s.attack_ref:.3f}"
            )
    print("\nVerdicts on this run:")
    for t in res.trends:
        claim = "rises" if t.target is rl.Target.REFERENCE else "falls"
        print(
            f"  {t.target.value} leakage {claim} with w  {t.attack.value:10s} holds={t.holds}  "
            f"slope {t.slope:+.3f} (se {t.slope_stderr:.3f}, p {t.p_value:.2g}, "
            f"{t.seeds_with_claimed_sign}/{t.n_seeds} seeds)"
        )
    for rule in SelectionRule:
        pick = res.selection(rule).w
        print(f"  {rule.value:24s} pick {pick}  w* {res.w_star:g}  holds={res.rule_holds(rule)}")
    w = res.training_only_pick.w
    ref = res.at(w, rl.Target.REFERENCE) if w is not None else None
    print(
        f"  training-only pick {w} hides a reference leak: holds={res.hidden_leak}"
        + (
            f"  ref attack {ref['accuracy_mean']:.3f} [{ref['pooled_ci_low']:.3f}, "
            f"{ref['pooled_ci_high']:.3f}], eps_ref empirical lower bound "
            f"{ref['epsilon_empirical_lower_bound']:.3f}"
            if ref is not None
            else ""
        )
    )
    return 0


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
