"""Where a press's script run spends its time, page by page, inside a real server.

A server (``instrumented_server.py --profile``) profiles every script run with cProfile; one
protocol session (``capacity.py``'s client, no browser) opens each page of ``capacity.py``'s
mix and makes the mix's change on it ``--presses`` times, after ``--warmup`` changes that are
not counted (caches, first imports). For each page: the script runs counted, their mean CPU
as the profiler saw it, that time split by where the code lives (Streamlit, the app's pages,
appkit, mipcore, Altair, pandas/NumPy/PyArrow, the collection after the run, other), and the
functions that take most of it (own time, and cumulative). A bare one-slider page
(``benchmarks/floor/pages/bare.py``) is profiled the same way, as the floor.

    python benchmarks/profile_runs.py [--presses 40] [--warmup 5] [--pages home,game]

A profiler slows what it measures (more where many small functions are called): read the
split and the names, not the absolute milliseconds. Never asserts; exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import pstats
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import capacity  # noqa: E402
from browser import Server, instrumented  # noqa: E402

_PARTS = (
    ("collection after the run", ("{built-in method gc.collect}",)),
    ("the app's pages", ("/app_pages/", "/app.py")),
    ("appkit", ("/appkit/",)),
    ("mipcore", ("/mipcore/",)),
    ("Streamlit", ("/streamlit/",)),
    ("Altair / jsonschema", ("/altair/", "/jsonschema", "/referencing/")),
    ("pandas / NumPy / PyArrow", ("/pandas/", "/numpy/", "/pyarrow/")),
    ("protobuf", ("/google/protobuf/",)),
)


def _part(filename: str, name: str) -> str:
    where = f"{filename}:{name}" if filename != "~" else name
    for label, marks in _PARTS:
        if any(m in where for m in marks):
            return label
    return "other"


def summarize(files: list[Path], label: str, top: int) -> None:
    if not files:
        print(f"\n{label}: no script run profiled")
        return
    stats = pstats.Stats(*(str(f) for f in files))
    total = stats.total_tt
    runs = len(files)
    print(f"\n{label}: {runs} script runs, {1000 * total / runs:.1f} ms each (profiled)")
    parts: dict[str, float] = defaultdict(float)
    for (filename, _line, name), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        parts[_part(filename, name)] += tt
    for part, tt in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {part:<28} {1000 * tt / runs:7.2f} ms  {100 * tt / total:5.1f} %")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]
    print(f"  own time, top {top}:")
    for (filename, line, name), (_cc, nc, tt, ct, _callers) in rows:
        where = name if filename == "~" else f"{Path(filename).name}:{line} {name}"
        print(
            f"    {1000 * tt / runs:7.2f} ms  {1000 * ct / runs:7.2f} ms cum  {nc / runs:8.0f}x  {where}"
        )


async def press(
    url: str, page: capacity.MixPage, presses: int, warmup: int, folder: Path
) -> list[Path]:
    s = capacity.Session(url, page.path, page.query)
    rng = random.Random(0)
    await s.open()
    try:
        for _ in range(warmup):
            await page.act(s, rng)
        seen = set(folder.glob("run-*.prof"))
        for _ in range(presses):
            await page.act(s, rng)
        await asyncio.sleep(0.5)  # the last run's profile is written as it ends
        return sorted(set(folder.glob("run-*.prof")) - seen)
    finally:
        await s.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--pages", default="", help="substrings of the mix's labels (default: all)")
    parser.add_argument(
        "--keep", type=Path, help="keep the profiles in this folder (else a temporary one)"
    )
    parser.add_argument(
        "--server-config", action="append", default=[], help="e.g. runner.postScriptGC=false"
    )
    args = parser.parse_args()
    wanted = [w for w in args.pages.split(",") if w]
    mix = [p for p in capacity.MIX if not wanted or any(w in p.name for w in wanted)]
    env = capacity.config_env(args.server_config) or None
    with tempfile.TemporaryDirectory(prefix="mip-profile-") as tmp:
        folder = args.keep or Path(tmp)
        bare = capacity.MixPage(
            "bare one-slider page", "", "", lambda s, r: capacity.move_slider(s, None, r, 6)
        )
        for label, root, script, pages in (
            ("app", ROOT, "app.py", mix),
            ("floor", ROOT, str(Path("benchmarks") / "floor" / "pages" / "bare.py"), [bare]),
        ):
            launcher = instrumented("--profile", str(folder / label))
            with Server(root, script, launcher=[*launcher], env=env) as server:
                for page in pages:
                    files = asyncio.run(
                        press(server.url, page, args.presses, args.warmup, folder / label)
                    )
                    summarize(files, f"{label}: {page.name}", args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
