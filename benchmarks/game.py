"""Timings of the "Play the attacker" game (mipcore.game and the page), measured in one run.

For both mechanisms (noisy mean with a canary, Proposition 11), n = 8 and n = 12, and both
calibrations (ε = 1 DP Laplace, η = 0.1 Theorem 9 noise), prints the median (max) time of

1. one round from nothing (``game_model`` + ``play_round``: calibration, all training halves,
   the exact optimal accuracy, the release, the Bayes-optimal decision and the density
   picture) -- what the first click of a new setting costs; target <= 100 ms;
2. one round with the model cached (what every further click costs); target <= 100 ms;
3. scoring 30 answers (``score_game``, model cached);
4. what the page computes per click (``mipcore.game.game_state`` with the model cached: the
   round on screen, every answered round, the last one revealed and the score) after 30 and
   after 199 answers; target <= 100 ms;
5. the page's release-law picture (``release_laws``), computed once per setting.

With ``--page`` it also times the page itself: ``AppTest`` of ``app.py`` on the play page,
one click of "In" per rerun (the script run a click triggers, server side, plus AppTest's
own overhead; ``appkit.cached`` holds the model, the picture and the figures), for the
default setting and for Proposition 11 at n = 12.

Never asserts; exits 0. Run: ``python benchmarks/game.py [--repeats 15] [--page]``.
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

from mipcore.game import (  # noqa: E402
    GameSettings,
    game_model,
    game_state,
    play_round,
    release_laws,
    score_game,
)

PAGE = "app_pages/play_attacker.py"


def median_ms(fn, repeats: int) -> tuple[float, float]:
    """(median, max) wall time of ``fn()`` in ms over ``repeats`` calls after one warm-up."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), max(times)


def core(reps: int) -> None:
    print(f"mipcore.game: median (max) of {reps} calls, ms; target for a click <= 100 ms\n")
    names = ("cold round", "cached round", "score 30", "page 30", "page 199", "laws once")
    header = f"{'mechanism':<9} {'n':>3} {'noise':<10}" + "".join(f" {h:>16}" for h in names)
    print(header)
    print("-" * len(header))
    answers = [bool(i % 3) for i in range(30)]
    many = [bool(i % 3) for i in range(199)]
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

                def page30(m=model):
                    return game_state(m, 2024, answers, 200)

                def page199(m=model):
                    return game_state(m, 2024, many, 200)

                def laws(m=model):
                    return release_laws(m)

                cells = [median_ms(f, reps) for f in (cold, warm, scored, page30, page199)]
                cells.append(median_ms(laws, max(1, reps // 5)))
                text = " ".join(f"{med:8.1f} ({mx:5.1f})" for med, mx in cells)
                print(f"{mech:<9} {n:>3} {label:<10} {text}")


def play_button(at, side: str):
    """The round's In or Out button (keyed ``play_in_<game>_<round>``)."""
    return next(b for b in at.button if (b.key or "").startswith(f"play_{side}_"))


def page(reps: int) -> None:
    from streamlit.testing.v1 import AppTest

    print(f"\nThe page, one click of 'In' per rerun (AppTest), median (max) of {reps}, ms\n")
    for label, params in (
        ("mean, eps = 1, n = 8", {}),
        ("prop11, eps = 1, n = 12", {"mech": "prop11", "n": "12"}),
    ):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        for k, v in {"rounds": "200", **params}.items():
            at.query_params[k] = v
        at.switch_page(PAGE).run()
        play_button(at, "in").click().run()  # warm-up: model, picture, figures cached
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            play_button(at, "in").click().run()
            times.append((time.perf_counter() - t0) * 1e3)
        assert not at.exception, at.exception
        print(f"{label:<26} {statistics.median(times):8.1f} ({max(times):6.1f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--page", action="store_true", help="also time the page (AppTest)")
    args = parser.parse_args()
    reps = max(1, args.repeats)
    core(reps)
    if args.page:
        page(reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
