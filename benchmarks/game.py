"""Timings of the "Play the attacker" game (mipcore.game), measured in one run.

For both mechanisms (noisy mean with a canary, Proposition 11), n = 8 and n = 12, and both
calibrations (ε = 1 DP Laplace, η = 0.1 Theorem 9 noise), prints the median time of

1. one round from nothing (``game_model`` + ``play_round``: calibration, all training halves,
   the exact optimal accuracy, the release, the Bayes-optimal decision and the density
   picture) -- what the first click of a new setting costs; target <= 100 ms;
2. one round with the model cached (what every further click costs); target <= 100 ms;
3. scoring 30 answers (``score_game``, model cached).

Never asserts; exits 0. Run: ``python benchmarks/game.py [--repeats 15]``.
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

from mipcore.game import GameSettings, game_model, play_round, score_game  # noqa: E402


def median_ms(fn, repeats: int) -> tuple[float, float]:
    """(median, max) wall time of ``fn()`` in ms over ``repeats`` calls after one warm-up."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), max(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    reps = max(1, args.repeats)
    print(f"mipcore.game: median (max) of {reps} calls, ms; target for a round <= 100 ms\n")
    header = f"{'mechanism':<9} {'n':>3} {'noise':<11} {'cold round':>16} {'cached round':>16} {'score 30':>16}"
    print(header)
    print("-" * len(header))
    answers = [bool(i % 3) for i in range(30)]
    for mech in ("mean", "prop11"):
        for n in (8, 12):
            for label, settings in (
                ("eps = 1", GameSettings.dp(mech, 1.0, n)),
                ("eta = 0.1", GameSettings.mip(mech, 0.1, n)),
            ):
                counter = iter(range(10**9))

                def cold(s=settings, c=counter):
                    return play_round(s, seed=2024, index=next(c))

                model = game_model(settings)

                def warm(s=settings, m=model, c=counter):
                    return play_round(s, seed=2024, index=next(c), model=m)

                def scored(s=settings, m=model):
                    return score_game(s, 2024, answers, model=m)

                cells = [median_ms(f, reps) for f in (cold, warm, scored)]
                text = " ".join(f"{med:8.1f} ({mx:5.1f})" for med, mx in cells)
                print(f"{mech:<9} {n:>3} {label:<11} {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
