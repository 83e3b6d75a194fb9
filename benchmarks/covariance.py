"""Timings of the Section 5.2 covariance experiment, measured in one run.

Prints:
1. the Paper preset end to end (d = 3, n = 500 000, B = 128, R = 10, M in {2, 4, 6}, 15 etas,
   both radius variants, both DP calibrations): target <= 60 s on a 2-core machine;
2. the Quick preset (n = 20 000, R = 3): target <= 2 s;
3. Algorithm 1's sigma estimate at n = 500 000 (training half 250 000 rows), B = 128, as
   the experiment does it (half-split Gram matrices as one matrix product) beside the
   generic path (``mipcore.mechanism.estimate_sigma`` looping over B halves and fitting
   each): target <= 0.5 s;
4. one full-batch DP-SGD step at m = 250 000 rows, for one trajectory and for the 31
   stacked trajectories a Paper run uses, beside the time to read the data once
   (one pass summing the per-row outer products: the memory-bound floor), as ratios.

Never asserts; exits 0. Run: ``python benchmarks/covariance.py [--skip-paper]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from mipcore import covariance_gd  # noqa: E402
from mipcore.lessons import figure2 as cv  # noqa: E402
from mipcore.mechanism import estimate_sigma  # noqa: E402


def best_of(fn, repeats: int = 5) -> float:
    """Median wall time of ``repeats`` calls (seconds)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--skip-paper", action="store_true", help="skip the ~minute-long Paper preset"
    )
    args = parser.parse_args()

    # warm imports (sklearn, dp_accounting) so they do not count against the presets
    covariance_gd.make_sigma(3, 0)
    cv.dp_noise_multiplier(0.1, 20, route="paper")

    print("Section 5.2 covariance experiment: timings on this machine\n")

    quick = cv.PRESETS["Quick"]
    t_quick = best_of(lambda: cv.run_experiment(quick), repeats=3)
    print(f"Quick preset (n = {quick.n:,}, R = {quick.R}):      {t_quick:7.2f} s   (target <= 2 s)")

    if not args.skip_paper:
        paper = cv.PRESETS["Paper"]
        t0 = time.perf_counter()
        cv.run_experiment(paper)
        t_paper = time.perf_counter() - t0
        print(
            f"Paper preset (n = {paper.n:,}, R = {paper.R}):  {t_paper:7.2f} s   (target <= 60 s)"
        )

    # --- sigma estimate at n = 500 000 (training half of 250 000 rows), B = 128
    gen = np.random.default_rng(0)
    sigma = covariance_gd.make_sigma(3, 0)
    X = covariance_gd.sample_data(sigma, 500_000, gen)
    train = np.sort(gen.permutation(500_000)[:250_000])
    Xt = X[train]
    P = covariance_gd.outer_products(Xt)
    T, lr = 20, 0.25

    def fast():
        thetas = covariance_gd.gd_closed_form(
            cv.half_split_grams(P, 128, np.random.default_rng(1)), T, lr
        )
        dev = np.abs(thetas - thetas.mean(axis=0))
        return np.sqrt(np.mean(dev**2, axis=0))

    def base_algorithm(rows):  # the generic Algorithm 1 path: fit GD on each half from scratch
        S = rows.T @ rows / rows.shape[0]
        return covariance_gd.gd_iterate(S, T, lr).ravel()

    def naive():
        return estimate_sigma(Xt, base_algorithm, B=128, M=2, rng=np.random.default_rng(1))

    t_fast = best_of(fast, repeats=5)
    t_naive = best_of(naive, repeats=2)
    print("\nAlgorithm 1 sigma estimate, n = 500,000 (m = 250,000), B = 128:")
    print(f"  half-split Grams as one matrix product: {t_fast * 1e3:8.1f} ms   (target <= 500 ms)")
    print(
        f"  naive loop over the 128 halves:         {t_naive * 1e3:8.1f} ms   "
        f"({t_naive / t_fast:.1f}x slower)"
    )

    # --- one full-batch DP-SGD step at m = 250 000
    x2 = np.einsum("ij,ij->i", Xt, Xt)
    C = cv.clip_norm(P, x2, rule="initial_median", T=T, lr=lr)
    t_read = best_of(lambda: P.sum(axis=0), repeats=9)
    t_one = best_of(lambda: cv.dpsgd(P, x2, [1.0], C=C, T=1, lr=lr, rng=0), repeats=9)
    K = 31
    t_k = best_of(lambda: cv.dpsgd(P, x2, np.linspace(0, 5, K), C=C, T=1, lr=lr, rng=0), repeats=5)
    print(
        f"\nOne full-batch DP-SGD step, m = 250,000 rows (per-row outer products {P.nbytes / 1e6:.0f} MB):"
    )
    print(f"  read the data once (sum of the outer products): {t_read * 1e3:7.2f} ms   (floor)")
    print(
        f"  one step, 1 trajectory:                         {t_one * 1e3:7.2f} ms   "
        f"({t_one / t_read:.1f}x the floor)"
    )
    print(
        f"  one step, {K} stacked trajectories:              {t_k * 1e3:7.2f} ms   "
        f"({t_k / t_read:.1f}x the floor; {t_k / K * 1e3:.2f} ms = {t_k / K / t_read:.2f}x per trajectory)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
