"""A page switch is never lost to a run that reruns itself, on a real server.

A Home click from the reference-data page once did nothing on a busy CI server: 60 s later the
URL had not changed, the script was idle, no dialog, the page whole. The cause, shown here:
with ``runner.fastReruns`` (Streamlit's default) a page switch does not go to the session's
script runner but to a new one, started at once beside it; both share the session's page
intent (``PagesManager``). A run that reruns itself (``st.rerun()``: what ``appkit.jobs`` does
when a press in the live part lands during a page's first load) first cleans up -- a full
``gc.collect(2)``, long on a busy server -- and then sets the intent to its own page for its
next run. When the click's new runner has set "Home" in between and reaches ``st.navigation``
after that, it runs the old page again: the click is lost. The app's configuration turns
``fastReruns`` off, so a page switch goes to the running runner, which honours it at its next
element.

The server runs ``tests/apps/two_pages.py`` with the app's ``.streamlit/config.toml``;
``tests/racewindow/sitecustomize.py`` widens the two windows (the clean-up after a rerun, the
new run's way to ``st.navigation``) so that the race happens every time. The session is the
capacity benchmark's protocol client. Nothing here measures a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
from pathlib import Path

import pytest
from benchtools import load_benchmark
from browsertools import streamlit_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
WINDOW_S = 0.5
WAIT_S = 60.0


def _load_capacity():
    return load_benchmark("capacity")


def test_a_page_switch_during_a_rerun_of_the_page_reaches_the_new_page(tmp_path):
    capacity = _load_capacity()
    paused = tmp_path / "paused"
    env = {
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "tests" / "racewindow"), str(ROOT / "tests" / "serverdiag"), str(ROOT)]
        ),
        "MIP_TEST_RACE_WINDOW_S": str(WINDOW_S),
        "MIP_TEST_RACE_PAUSED": str(paused),
    }

    async def drive(url: str):
        home = capacity.Session(url, "")
        await home.open()
        home_hash = home.page_hash
        await home.close()
        s = capacity.Session(url, "again")
        try:
            opened = await s.open()
            assert "This is the other page." in opened.texts, opened.texts
            again_hash = s.page_hash
            # the page reruns itself; while the interrupted run cleans up, Home is clicked
            pressed = asyncio.create_task(s.click("again"))
            deadline = time.monotonic() + WAIT_S
            while not paused.exists():
                assert time.monotonic() < deadline, "the run never reran itself"
                await asyncio.sleep(0.02)
            s.page_hash = home_hash  # what a click on the sidebar's Home link sends
            await s.send()
            last = await pressed  # the run that ends the session's work
            await asyncio.sleep(2 * WINDOW_S)  # any run still to come
            return home_hash, again_hash, s.page_hash, last, list(s.errors)
        finally:
            await s.close()

    with (
        streamlit_server(env=env, script="tests/apps/two_pages.py") as server,
        concurrent.futures.ThreadPoolExecutor(1) as pool,
    ):
        home_hash, again_hash, shown, last, errors = pool.submit(
            asyncio.run, drive(server.url)
        ).result()

    assert home_hash != again_hash
    assert not errors, errors
    assert shown == home_hash, (
        "the Home click was lost: the server ran the other page again"
        if shown == again_hash
        else f"the session shows page {shown!r}"
    )
    assert "This is the home page." in last.texts, last.texts
