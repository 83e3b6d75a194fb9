"""``appkit.internals.coalesce_wakeups`` in a real server: a session whose wake-ups are
coalesced still receives every element of every run, in order (the page writes 302 after each
change, as fast as a script can), and is wrapped once (its first run), never again."""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest
from benchtools import load_benchmark
from browsertools import streamlit_server

pytestmark = pytest.mark.slow


def test_every_element_arrives_with_the_wake_ups_coalesced(tmp_path):
    capacity = load_benchmark("capacity")

    async def drive(url: str):
        sessions = [capacity.Session(url, "") for _ in range(3)]
        try:
            runs = [await s.open() for s in sessions]
            for n in range(1, 6):  # the three sessions change at once, each run 302 elements
                runs += await asyncio.gather(*(s.set_value("n", [n]) for s in sessions))
            return runs, [e for s in sessions for e in s.errors]
        finally:
            await asyncio.gather(*(s.close() for s in sessions))

    with (
        streamlit_server(
            env={"MIP_EXPLORER_DATA_DIR": str(tmp_path)}, script="tests/apps/many_elements.py"
        ) as server,
        concurrent.futures.ThreadPoolExecutor(1) as pool,
    ):
        runs, errors = pool.submit(asyncio.run, drive(server.url)).result()

    assert not errors, errors
    opened, changed = runs[:3], runs[3:]
    assert [r.texts[0] for r in opened] == ["wrapped this run: True"] * 3
    for k, run in enumerate(changed):
        n = 1 + k // 3
        assert run.status == capacity.FINISHED_FULL and not run.exceptions, run
        assert run.texts == [
            "wrapped this run: False",
            *(f"line {i} of run n = {n}" for i in range(300)),
            f"last line of run n = {n}",
        ], run.texts[:3]
