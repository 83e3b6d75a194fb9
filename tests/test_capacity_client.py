"""The protocol client behind ``benchmarks/capacity.py``, against a real ``streamlit run app.py``.

The capacity benchmark's figures only mean something if its simulated sessions do on the wire
what a browser does: open a page, hold its widgets' values and move one so that the server
reruns the page with the new value. This test opens the home page as one such session, moves
its ε slider and checks that the rerun finished without an exception element and that the
page's sentence now carries the new ε. It never asserts on a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest
from benchtools import load_benchmark
from browsertools import streamlit_server

pytestmark = pytest.mark.slow


def _load_capacity():
    return load_benchmark("capacity")


def test_a_simulated_session_moves_the_home_slider(tmp_path):
    capacity = _load_capacity()

    async def drive(url: str):
        session = capacity.Session(url, "")
        try:
            opened = await session.open()
            slider = session.widget("eps", "slider")
            assert slider is not None, f"no ε slider among {list(session.widgets)}"
            before = list(slider.state.double_array_value.data)
            moved = await session.set_value("eps", [2.35])
            return opened, before, moved, session.errors
        finally:
            await session.close()

    # The client runs in a thread of its own: in a worker where Playwright's sync API runs,
    # this thread already has an event loop, and asyncio.run() refuses to start a second one.
    with (
        streamlit_server(env={"MIP_EXPLORER_DATA_DIR": str(tmp_path)}) as server,
        concurrent.futures.ThreadPoolExecutor(1) as pool,
    ):
        opened, before, moved, errors = pool.submit(asyncio.run, drive(server.url)).result()

    assert opened.status == capacity.FINISHED_FULL, opened
    assert not opened.exceptions and not errors, errors
    assert before == [1.0]
    # the slider lives in the page's live fragment: moving it reruns that fragment alone
    assert moved.status == capacity.FINISHED_FRAGMENT, moved
    assert moved.fragment_ids, moved
    assert not moved.exceptions, moved.exceptions
    assert not any("2.35" in t for t in opened.texts)
    assert any("With ε = 2.35," in t for t in moved.texts), moved.texts
