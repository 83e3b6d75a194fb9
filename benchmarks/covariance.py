"""The covariance experiment (Section 5.2): the page's run-time estimate against the clock.

For each configuration (the Quick and Paper presets, then a few others that stress one
part of the cost model each) it prints:

* the estimate the page shows on its Run button: ``covariance.estimate_seconds`` at the speed
  ``covariance.measure_speed()`` measures just before (the timed probe the page runs once per
  server process, here re-measured per configuration);
* the measured wall time of the same request the page makes: ``appkit.jobs.run`` of
  ``covariance.run_experiment`` on the plan (a job process, its start and the result's
  transfer included), and the run's own compute time inside the job;
* their ratio (target: within a factor of 2 either way) and the work in nominal seconds
  beside the ceiling (``covariance.WORK_CEILING``).

Then, with ``--parts``, the old micro-timings: Algorithm 1's σ estimate at n = 500 000
(half-split Gram matrices as one matrix product vs the generic loop) and one full-batch
DP-SGD step at m = 250 000 rows with 1 and 31 stacked trajectories.

The first job of a process also starts the job server; a warm-up job measures that one-time
cost first and prints it apart.

Never asserts; exits 0. Run:
``python benchmarks/covariance.py [--skip-paper] [--parts] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import appkit.jobs  # noqa: E402
from mipcore import covariance_gd  # noqa: E402
from mipcore.experiments import covariance as cv  # noqa: E402
from mipcore.mechanism import estimate_sigma  # noqa: E402


def best_of(fn, repeats: int = 5) -> float:
    """Median wall time of ``repeats`` calls (seconds)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


_ROUNDS: dict[str, int] = {}


def _round(name: str) -> int:
    _ROUNDS[name] = _ROUNDS.get(name, -1) + 1
    return _ROUNDS[name]


def configurations(skip_paper: bool) -> list[tuple[str, cv.ExperimentConfig]]:
    quick, paper = cv.PRESETS["Quick"], cv.PRESETS["Paper"]
    grid40 = tuple(float(x) for x in np.linspace(0.01, 0.45, 40))
    out = [("Quick preset", quick)]
    if not skip_paper:
        out.append(("Paper preset", paper))
    out += [
        ("n = 200 000, R = 2", dataclasses.replace(quick, n=200_000, R=2, seed=1)),
        (
            "n = 100 000, 40 η, T = 40",
            dataclasses.replace(quick, n=100_000, R=1, etas=grid40, T=40),
        ),
        ("n = 100 000, B = 512, d = 1", dataclasses.replace(quick, n=100_000, R=2, B=512, d=1)),
        (
            "n = 50 000, d = 6, trajectory C",
            dataclasses.replace(quick, n=50_000, R=2, d=6, clip_rule=cv.ClipRule.TRAJECTORY_MEDIAN),
        ),
    ]
    return out


def warm_up() -> None:
    """The first job of a server process also starts its job server (a fork server that
    imports NumPy, SciPy, pandas and mipcore): a one-time cost, measured and shown apart."""
    tiny = dataclasses.replace(cv.PRESETS["Quick"], n=400, R=1, B=4, etas=(0.1, 0.2), seed=99)
    plan = cv.plan_experiment(tiny)
    t0 = time.perf_counter()
    appkit.jobs.run(cv.run_experiment, plan, label="warm-up")
    first = time.perf_counter() - t0
    plan = cv.plan_experiment(dataclasses.replace(tiny, seed=98))
    t0 = time.perf_counter()
    result = appkit.jobs.run(cv.run_experiment, plan, label="warm-up")
    second = time.perf_counter() - t0
    print(
        f"First job of this process (starts the job server): {first:.1f} s; the next tiny job: "
        f"{second:.1f} s ({result.seconds:.2f} s of it computing)\n"
    )


def estimates(skip_paper: bool, repeat: int) -> None:
    print("Run-time estimate (the page's Run button) vs the measured request, on this machine\n")
    print(
        f"{'configuration':34s} {'estimate':>9s} {'measured':>9s} {'in job':>8s} "
        f"{'ratio':>6s} {'work':>7s}  (ceiling {cv.WORK_CEILING:.0f} nominal s)"
    )
    for name, cfg in [c for _ in range(repeat) for c in configurations(skip_paper)]:
        cfg = dataclasses.replace(cfg, seed=cfg.seed + 1000 * _round(name))  # never a cache hit
        plan = cv.plan_experiment(cfg)
        speed = cv.measure_speed()
        est = cv.estimate_seconds(cfg, speed)
        t0 = time.perf_counter()
        result = appkit.jobs.run(cv.run_experiment, plan, label=name)
        wall = time.perf_counter() - t0
        ratio = est / wall
        flag = "ok" if 0.5 <= ratio <= 2.0 else "OUTSIDE 2x"
        print(
            f"{name:34s} {est:8.1f}s {wall:8.1f}s {result.seconds:7.1f}s {ratio:6.2f} "
            f"{cv.work(cfg).units:7.1f}  {flag}  (probe x{speed.fixed / cv.NOMINAL_SPEED.fixed:.2f})",
            flush=True,
        )


def parts() -> None:
    gen = np.random.default_rng(0)
    sigma = covariance_gd.make_sigma(3, 0)
    X = covariance_gd.sample_data(sigma, 500_000, gen)
    train = np.sort(gen.permutation(500_000)[:250_000])
    Xt = X[train]
    P = covariance_gd.outer_products(Xt)
    T, lr = 20, 0.25

    def fast():
        thetas = covariance_gd.gd_closed_form(
            covariance_gd.half_split_grams(P, 128, np.random.default_rng(1)), T, lr
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
    print(f"  half-split Grams as one matrix product: {t_fast * 1e3:8.1f} ms")
    print(
        f"  naive loop over the 128 halves:         {t_naive * 1e3:8.1f} ms   "
        f"({t_naive / t_fast:.1f}x slower)"
    )

    x2 = np.einsum("ij,ij->i", Xt, Xt)
    C = covariance_gd.clip_norm(P, x2, rule="initial_median", T=T, lr=lr)
    t_read = best_of(lambda: P.sum(axis=0), repeats=9)
    t_one = best_of(lambda: covariance_gd.dpsgd(P, x2, [1.0], C=C, T=1, lr=lr, rng=0), repeats=9)
    K = 31
    t_k = best_of(
        lambda: covariance_gd.dpsgd(P, x2, np.linspace(0, 5, K), C=C, T=1, lr=lr, rng=0), repeats=5
    )
    print(
        f"\nOne full-batch DP-SGD step, m = 250,000 rows ({P.nbytes / 1e6:.0f} MB of outer products):"
    )
    print(f"  read the data once (sum of the outer products): {t_read * 1e3:7.2f} ms   (floor)")
    print(
        f"  one step, 1 trajectory:                         {t_one * 1e3:7.2f} ms   "
        f"({t_one / t_read:.1f}x the floor)"
    )
    print(
        f"  one step, {K} stacked trajectories:              {t_k * 1e3:7.2f} ms   "
        f"({t_k / K * 1e3:.2f} ms = {t_k / K / t_read:.2f}x the floor per trajectory)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-paper", action="store_true", help="skip the Paper preset")
    parser.add_argument("--parts", action="store_true", help="also time the two hot loops")
    parser.add_argument("--repeat", type=int, default=1, help="measure every configuration N times")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # Streamlit's "no script run context" notes
    warnings.filterwarnings("ignore")
    cv.plan_experiment(cv.PRESETS["Quick"])  # warm imports (scikit-learn, dp_accounting)
    warm_up()
    estimates(args.skip_paper, max(args.repeat, 1))
    if args.parts:
        parts()
    return 0


if __name__ == "__main__":
    sys.exit(main())
