"""How long does a page take to rerun after a control change, relative to a bare page?

For every page of MIP Explorer (every entry of ``appkit.registry.PAGES``) this builds an
``AppTest`` of ``app.py`` on that page, runs it once and moves its first slider to a
second valid value and back (warm-up: ``st.cache_data`` holds both states), then times
``K`` reruns, each after moving that slider between the two values. The same is done,
in the same process, for ``bare_page.py`` (one ``st.slider`` and one ``st.write``).
It prints each page's median rerun time and its ratio to the bare page's.

Target: every page within 5x of the bare page. This script only reports; it
never asserts and always exits 0. Run from anywhere:

    python benchmarks/rerun.py [--repeats K]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
BARE = Path(__file__).resolve().parent / "bare_page.py"
TARGET = 5.0

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def declared_pages() -> list[tuple[str, str | None]]:
    """[(key, script)] for every page of the app registry (home's script is None)."""
    from appkit.registry import PAGES

    return [(p.key, p.script) for p in PAGES]


class Skip(Exception):
    """This page cannot be measured (no slider, an exception, ...)."""


def _two_values(slider):
    """The slider's current value and a second valid one (a few steps away)."""
    v0, lo, hi, step = slider.value, slider.min, slider.max, slider.step
    if isinstance(v0, (tuple, list)):
        a, b = v0
        delta = step if b + step <= hi else -step
        if not lo <= a + delta < b + delta <= hi:
            raise Skip("range slider too narrow to move")
        return tuple(v0), (a + delta, b + delta)
    if not isinstance(v0, (int, float)):
        raise Skip(f"first slider holds a {type(v0).__name__}, not a number")
    for k in (5, 1):  # a few steps, so the page really recomputes
        for cand in (v0 + k * step, v0 - k * step):
            if lo <= cand <= hi and cand != v0:
                cand = round(cand, 12) if isinstance(cand, float) else cand
                return v0, cand
    raise Skip("slider has a single value")


def _set(slider, value):
    if isinstance(value, tuple):
        slider.set_range(*value)
    else:
        slider.set_value(value)


class Target:
    """One page under measurement: an AppTest warmed up on it, and its slider's two values."""

    def __init__(self, name: str, make_app):
        self.name = name
        self.at = at = make_app()
        if at.exception:
            raise Skip(f"raises: {at.exception[0].message[:80]}")
        if not at.slider:
            raise Skip("no slider on the page")
        first = at.slider[0]
        self.label = first.key or first.label
        self.values = _two_values(first)
        self.times: list[float] = []
        for value in reversed(self.values):  # warm-up: fill the caches for both values
            self._step(value)

    def _step(self, value) -> float:
        _set(self.at.slider[0], value)
        t0 = time.perf_counter()
        self.at.run()
        dt = time.perf_counter() - t0
        if self.at.exception:
            raise Skip(f"raises after the change: {self.at.exception[0].message[:80]}")
        return dt

    def timed_step(self) -> None:
        self.times.append(self._step(self.values[(len(self.times) + 1) % 2]))

    def cold_step(self) -> None:
        """One rerun after moving the slider to a value it has never had: no cache can help."""
        value = self._fresh_value()
        self.seen.append(value)
        self.cold.append(self._step(value))

    def _fresh_value(self):
        slider = self.at.slider[0]
        lo, hi, step = slider.min, slider.max, slider.step
        if not hasattr(self, "seen"):
            self.seen, self.cold = list(self.values), []
        tried = set(map(repr, self.seen))
        base = self.values[0]
        for k in range(1, 10_000):
            for sign in (1, -1):
                if isinstance(base, tuple):
                    cand = (base[0] + sign * k * step, base[1] + sign * k * step)
                    ok = lo <= cand[0] < cand[1] <= hi
                    cand = tuple(round(c, 12) if isinstance(c, float) else c for c in cand)
                else:
                    cand = base + sign * k * step
                    ok = lo <= cand <= hi
                    cand = round(cand, 12) if isinstance(cand, float) else cand
                if ok and repr(cand) not in tried:
                    return cand
        raise Skip("slider has no unused values left")

    @property
    def cold_median(self) -> float | None:
        return statistics.median(self.cold) if getattr(self, "cold", None) else None

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def spread(self) -> str:
        """Interquartile range of the timed reruns, in ms."""
        q1, _, q3 = (
            statistics.quantiles(self.times, n=4) if len(self.times) > 1 else [self.times[0]] * 3
        )
        return f"{q1 * 1e3:.1f}-{q3 * 1e3:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", "-k", type=int, default=15, help="timed reruns per page")
    parser.add_argument(
        "--recompile",
        action="store_true",
        help="recompile the scripts on every rerun, as plain AppTest does",
    )
    parser.add_argument(
        "--cold",
        type=int,
        default=7,
        help="extra reruns per page, each to a never-used slider value",
    )
    args = parser.parse_args()

    import streamlit
    from streamlit.testing.v1 import AppTest
    from streamlit.testing.v1 import app_test as _app_test

    # A running `streamlit run` server keeps ONE ScriptCache for its lifetime, so each script
    # (app.py, the page) is read and compiled once. AppTest builds a new ScriptCache on every
    # run, i.e. recompiles app.py and the page (with Streamlit's "magic" rewrite) on every
    # rerun -- a cost users never pay that would dominate these ~ms timings. Share one cache,
    # as the server does; the bare page gets the same treatment.
    if not args.recompile:
        shared_cache = _app_test.ScriptCache()
        _app_test.ScriptCache = lambda: shared_cache

    # AppTest logs "missing ScriptRunContext" warnings that say nothing about the pages.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage()
    )

    def app_on(script):
        def make():
            at = AppTest.from_file(str(APP), default_timeout=300)
            at.run()
            if script is not None:
                at.switch_page(script)
                at.run()
            return at

        return make

    def bare():
        return AppTest.from_file(str(BARE), default_timeout=60).run()

    # AppTest's runner polls for the end of the script (another thread) with sleep(1 ms);
    # at the default 5 ms GIL switch interval each poll may wait up to 5 ms, which would
    # blur a ~2 ms bare-page run into 2-7 ms. A short interval applies to every page alike.
    sys.setswitchinterval(0.0005)

    print(
        "Scripts compiled "
        + (
            "on every rerun (plain AppTest)."
            if args.recompile
            else "once and cached, as a running server does (--recompile to disable)."
        )
    )
    print(
        f"MIP Explorer rerun benchmark: streamlit {streamlit.__version__}, "
        f"Python {sys.version.split()[0]}; median of {args.repeats} AppTest.run() after "
        f"moving the first slider between two values (warm), and to never-used values (cold); pages interleaved."
    )
    notes: dict[str, str] = {}
    targets = [Target("bare page (1 slider)", bare)]
    for name, script in declared_pages():
        try:
            targets.append(Target(name, app_on(script)))
        except Skip as why:
            notes[name] = f"skipped: {why}"
        except Exception as exc:  # report, never crash: this script only measures
            notes[name] = f"skipped: {type(exc).__name__}: {exc}"[:100]

    # Round-robin, so a change in machine load hits every page and the bare page alike.
    for _ in range(args.repeats):
        for target in list(targets):
            try:
                target.timed_step()
            except Exception as exc:
                notes[target.name] = f"skipped: {exc}"[:100]
                targets.remove(target)

    # Cold reruns: every rerun moves the slider to a value never used before (cache misses).
    for _ in range(args.cold):
        for target in targets:
            try:
                target.cold_step()
            except Skip as why:
                notes[target.name + " cold"] = str(why)
            except Exception as exc:
                notes[target.name + " cold"] = f"{type(exc).__name__}: {exc}"[:100]

    bare_s = targets[0].median
    bare_cold = targets[0].cold_median or bare_s
    by_name = {t.name: t for t in targets}
    rows = [
        (
            targets[0].name,
            targets[0].label,
            bare_s,
            targets[0].spread,
            1.0,
            targets[0].cold_median,
            1.0,
            "reference",
        )
    ]
    for name, _script in declared_pages():
        t = by_name.get(name)
        if t is None:
            rows.append((name, "-", None, "-", None, None, None, notes.get(name, "skipped")))
            continue
        ratio = t.median / bare_s
        cold = t.cold_median
        rows.append(
            (
                name,
                t.label,
                t.median,
                t.spread,
                ratio,
                cold,
                None if cold is None else cold / bare_cold,
                "PASS" if ratio <= TARGET else f"over {TARGET:g}x",
            )
        )

    w = max(len(r[0]) for r in rows)
    print(
        f"\n{'page':<{w}}  {'slider':<8} {'warm ms':>8} {'IQR ms':>12} {'ratio':>7} "
        f"{'cold ms':>8} {'ratio':>7}  result (warm ratio vs {TARGET:g}x)"
    )
    for name, label, med, spread, ratio, cold, cold_ratio, verdict in rows:
        ms = f"{med * 1e3:8.1f}" if med is not None else f"{'-':>8}"
        rt = f"{ratio:6.1f}x" if ratio is not None else f"{'-':>7}"
        cms = f"{cold * 1e3:8.1f}" if cold is not None else f"{'-':>8}"
        crt = f"{cold_ratio:6.1f}x" if cold_ratio is not None else f"{'-':>7}"
        print(f"{name:<{w}}  {label:<8} {ms} {spread:>12} {rt} {cms} {crt}  {verdict}")
    print(
        "\nwarm: the slider alternates between two values (per-input caches hit, as when a "
        "user moves back and forth);\ncold: every rerun uses a value never seen before "
        "(nothing cached for it: the honest cost of a new setting)."
    )
    for key, note in notes.items():
        if key.endswith(" cold"):
            print(f"  note: {key}: {note}")
    measured = [r for r in rows[1:] if r[4] is not None]
    over = [r[0] for r in measured if r[4] > TARGET]
    print(
        f"\n{len(measured)} of {len(rows) - 1} pages measured; "
        + (f"over {TARGET:g}x: {', '.join(over)}" if over else f"all within {TARGET:g}x")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
