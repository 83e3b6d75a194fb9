"""Two checkouts of the app, one session changing alone: the server's CPU per change, A beside B.

For each page of ``capacity.py``'s mix (or those named), one server per checkout is started, one
protocol session (``capacity.py``'s client, no browser) opens the page on each and makes the
mix's change on it: 10 changes not counted, then ``--blocks`` blocks of ``--changes`` changes,
alternating A, B, A, B, ... so that a drift of the machine's speed falls on both. Each block's
CPU per change is the server's process tree's CPU over the block (nothing else talks to it);
printed: the median block of each, their ratio, and every block.

    python benchmarks/ab_pages.py BEFORE_CHECKOUT AFTER_CHECKOUT [--pages home,game] [--blocks 6]

A checkout is a folder with the app (``git worktree add ../before <commit>`` makes one). Never
asserts; exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import capacity  # noqa: E402
from browser import Server  # noqa: E402

SETTLE_S = 0.3  # before and after a block: the last change's messages are out


async def _session(url: str, page: capacity.MixPage):
    rng = random.Random(0)
    s = capacity.Session(url, page.path, page.query)
    await s.open()
    for _ in range(10):
        await page.act(s, rng)
    return s, rng


async def _block(s, rng, page: capacity.MixPage, pid: int, changes: int) -> float:
    await asyncio.sleep(SETTLE_S)
    before = capacity.tree_cpu(pid)
    for _ in range(changes):
        await page.act(s, rng)
    await asyncio.sleep(SETTLE_S)
    return 1000 * (capacity.tree_cpu(pid) - before) / changes


async def _page(page, a, b, blocks: int, changes: int) -> str:
    (sa, ra), (sb, rb) = await _session(a.url, page), await _session(b.url, page)
    got: tuple[list[float], list[float]] = ([], [])
    try:
        for _ in range(blocks):
            got[0].append(await _block(sa, ra, page, a.pid, changes))
            got[1].append(await _block(sb, rb, page, b.pid, changes))
    finally:
        await sa.close()
        await sb.close()
    ma, mb = statistics.median(got[0]), statistics.median(got[1])
    blocks_a = " ".join(f"{x:.1f}" for x in got[0])
    blocks_b = " ".join(f"{x:.1f}" for x in got[1])
    return (
        f"{page.name:<28} A {ma:6.1f} ms   B {mb:6.1f} ms   B/A {mb / ma:4.2f}"
        f"   (blocks A: {blocks_a}; B: {blocks_b})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="checkout A (before)")
    parser.add_argument("b", type=Path, help="checkout B (after)")
    parser.add_argument("--pages", default="", help="comma-separated words of the mix's names")
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--changes", type=int, default=40, help="changes per block")
    args = parser.parse_args()
    words = [w for w in args.pages.split(",") if w]
    pages = [p for p in capacity.MIX if not words or any(w in p.name for w in words)]
    print("server CPU per change, one session changing alone (median block):")
    for page in pages:
        with Server(args.a.resolve(), "app.py") as a, Server(args.b.resolve(), "app.py") as b:
            print(asyncio.run(_page(page, a, b, args.blocks, args.changes)), flush=True)


if __name__ == "__main__":
    main()
