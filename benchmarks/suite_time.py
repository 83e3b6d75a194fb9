"""Where the test suite's time goes, and the floor under it.

    python benchmarks/suite_time.py          # the quick loop: -m "not slow and not browser"
    python benchmarks/suite_time.py --all    # everything, as CI runs it
    python benchmarks/suite_time.py -- tests/test_page_mace.py   # any pytest arguments

Runs the README's test command (one worker per core, as always) with this file loaded as a
pytest plugin. The plugin times every test in its worker -- setup, call and teardown -- and
counts the ``AppTest`` runs inside it and the time they take. The table then splits the
summed test time by kind: a real browser (``browser``), an ``AppTest`` of the app (a test
that ran at least one), ``slow``, and the rest, which check ``mipcore``'s numbers. The
rest's share, divided by the number of workers, is a floor under the suite's wall time that
no change to the presentation code can lower: those tests spend their time in the
computations they check (a profile of the heaviest files is in ``benchmarks/README.md``).
Prints and exits 0, like every script here.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUT = "MIP_SUITE_TIME_OUT"  # the plugin's output file prefix, set by main()
_runs = {"count": 0, "seconds": 0.0}


def _count_apptest_runs() -> None:
    """Wrap ``AppTest._run`` (once per process) to count runs and their time."""
    from streamlit.testing.v1 import app_test

    original = app_test.AppTest._run
    if getattr(original, "_counted", False):
        return

    def run(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            _runs["count"] += 1
            _runs["seconds"] += time.perf_counter() - start

    run._counted = True  # type: ignore[attr-defined]
    app_test.AppTest._run = run  # type: ignore[method-assign]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if OUT not in os.environ:
        yield
        return
    _count_apptest_runs()
    _runs.update(count=0, seconds=0.0)
    start = time.perf_counter()
    yield
    row = {
        "id": item.nodeid,
        "seconds": time.perf_counter() - start,
        "runs": _runs["count"],
        "in_runs": _runs["seconds"],
        "markers": sorted({m.name for m in item.iter_markers()}),
    }
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(f"{os.environ[OUT]}.{worker}", "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


def _kind(row: dict) -> str:
    if "browser" in row["markers"]:
        return "browser"
    if row["runs"]:
        return "AppTest"
    if "slow" in row["markers"]:
        return "slow"
    return "numbers"


def report(rows: list[dict], wall: float, workers: int) -> None:
    """Print the table of one run."""
    total = sum(r["seconds"] for r in rows)
    print(f"{len(rows)} tests, {wall:.0f} s wall on {workers} workers; {total:.0f} s in tests")
    print(f"{'kind':10s} {'tests':>6s} {'seconds':>8s} {'share':>6s} {'/workers':>9s}")
    by: dict[str, list[dict]] = collections.defaultdict(list)
    for r in rows:
        by[_kind(r)].append(r)
    for kind in ("numbers", "AppTest", "slow", "browser"):
        got = by.get(kind, [])
        seconds = sum(r["seconds"] for r in got)
        print(
            f"{kind:10s} {len(got):6d} {seconds:8.0f} {seconds / max(total, 1e-9):6.0%} "
            f"{seconds / workers:8.0f}s"
        )
    apptest = by.get("AppTest", [])
    runs = sum(r["runs"] for r in apptest)
    inside = sum(r["in_runs"] for r in apptest)
    if runs:
        print(
            f"AppTest: {runs} runs, {inside:.0f} s inside them ({1000 * inside / runs:.0f} ms each)"
        )
    files: collections.Counter[str] = collections.Counter()
    for r in by.get("numbers", []):
        files[r["id"].split("::")[0]] += r["seconds"]
    print("heaviest files of kind 'numbers':")
    for name, seconds in files.most_common(8):
        print(f"  {seconds:6.1f} s  {name}")
    numbers = sum(r["seconds"] for r in by.get("numbers", []))
    print(
        f"floor: the 'numbers' tests alone take {numbers / workers:.0f} s of wall time on "
        f"{workers} workers, before any AppTest, browser or collection"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="the whole suite, as CI runs it")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()
    select = [] if args.all else ["-m", "not slow and not browser"]
    with tempfile.TemporaryDirectory() as tmp:
        prefix = str(Path(tmp) / "times")
        env = dict(os.environ, **{OUT: prefix})
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT / "benchmarks"), env.get("PYTHONPATH", "")) if p
        )
        command = [sys.executable, "-m", "pytest", "-q", "-p", "suite_time", *select]
        start = time.perf_counter()
        done = subprocess.run([*command, *args.pytest_args], cwd=ROOT, env=env, check=False)
        wall = time.perf_counter() - start
        files = list(Path(tmp).glob("times.*"))  # one per worker
        rows = [
            json.loads(line)
            for path in files
            for line in path.read_text(encoding="utf-8").splitlines()
        ]
    workers = max(len(files), 1)
    print(f"\npytest exited {done.returncode}")
    report(rows, wall, workers)
    if env.get("PYTHONDONTWRITEBYTECODE"):
        print(
            "PYTHONDONTWRITEBYTECODE is set: Python keeps no bytecode and pytest no rewritten "
            "test modules, so each worker compiles every module again (about 10 s on 2 cores "
            "here; `env -u PYTHONDONTWRITEBYTECODE` for a default Python's repeated runs)"
        )


if __name__ == "__main__":
    main()
