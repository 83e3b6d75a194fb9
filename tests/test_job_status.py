"""A job's status line is written only by the script run that created it, on a real server.

With ``runner.fastReruns`` (Streamlit's default), a page switch or a control outside every
fragment does not wait for the running script: Streamlit asks that run to stop and starts the
new one at once, in a thread of its own. A fragment's rerun that waits for a heavy job
(``appkit.jobs.run``) went on waiting in its thread meanwhile, and the new full run cleared the
fragment's places in the containers outside it. The old run's next write to its status line --
a redraw, or ``status.empty()`` once its job ended -- then raised
``StreamlitInvalidLayoutContextError`` (seen on the audit page when an impatient visitor's press
landed as a job ended).

The page is ``tests/apps/job_status.py`` (shaped as ``appkit.live`` shapes a page) and its job
ends when the test says so; the session is the capacity benchmark's protocol client, so every
step happens in a known order: a press in the fragment starts the job, a page-level change
lands while it runs, then the job's gate opens. Nothing here measures a time.
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
WAIT_S = 60.0  # at most one page run (browsertools.RUN_TIMEOUT)
SETTLE_S = 1.0  # after the old run's end, for an error of it to reach the server's log
BAD = ("StreamlitInvalidLayoutContextError", "Uncaught app execution", "Traceback")


def _load_capacity():
    return load_benchmark("capacity")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """(the server, its gates folder) for ``tests/apps/job_status.py``."""
    gates = tmp_path_factory.mktemp("gates")
    env = {
        "MIP_TEST_GATES": str(gates),
        "MIP_EXPLORER_DATA_DIR": str(gates),
        # tests/ for jobtools, in the server and in the jobs' fork server
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "tests" / "serverdiag"), str(ROOT / "tests"), str(ROOT)]
        ),
        # the race needs Streamlit's default, whatever .streamlit/config.toml says
        "STREAMLIT_RUNNER_FAST_RERUNS": "true",
    }
    with streamlit_server(env=env, script="tests/apps/job_status.py") as server:
        yield server, gates


def _drive(coroutine_fn, *args):
    """Run the protocol client in a thread of its own (a worker where Playwright's sync API
    ran already has an event loop in this thread)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine_fn(*args)).result()


async def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_S:.0f} s for {what}")
        await asyncio.sleep(0.05)


def _ended(gates: Path) -> list[str]:
    path = gates / "ended"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _assert_clean_log(server, since: int) -> None:
    log = server.output(tail=None)[since:]
    for bad in BAD:
        assert bad not in log, f"the server's log shows {bad!r}:\n{log[-4000:]}"


def test_a_page_level_change_while_a_fragment_waits_for_its_job(page):
    """The press's run waits for its job; a control outside the fragment takes the page (its
    run computes nothing); then the job ends. The old run writes nothing and ends quietly, and
    the page computes again to its result."""
    server, gates = page
    capacity = _load_capacity()
    since = len(server.output(tail=None))

    async def drive() -> tuple:
        s = capacity.Session(server.url, "")
        try:
            opened = await s.open()
            assert "No job (n = 0, toggle off)." in opened.texts, opened.texts
            # 1. a press in the fragment: its rerun starts the gated job and waits for it
            pressed = asyncio.create_task(s.set_value("n", [1]))
            await _until((gates / "pid-1").exists, "the job to start")
            # 2. a control outside the fragment while that run waits: a new full run
            s.change("hold", True)
            await s.send()
            full = await pressed  # the next run that ends: the new full one
            assert full.status == capacity.FINISHED_FULL, full
            assert "No job (n = 1, toggle on)." in full.texts, full.texts
            # 3. the job ends now, after the new run has taken the page
            (gates / "gate-1").touch()
            await _until(
                lambda: "n = 1, toggle off, other off" in _ended(gates), "the old run's end"
            )
            await asyncio.sleep(SETTLE_S)
            # 4. the page is whole: the toggle off again, the full run computes to its result
            again = await s.set_value("hold", False)
            return again, list(s.errors)
        finally:
            await s.close()

    again, errors = _drive(drive)
    _assert_clean_log(server, since)
    assert not again.exceptions and not errors, (again.exceptions, errors)
    assert "The job for n = 1 returned 42." in again.texts, again.texts


def test_a_newer_run_asking_for_the_same_computation_takes_the_job_over(page):
    """The press's run waits for its job; a page-level control that changes nothing the job
    computes takes the page, and its run asks for the same computation. The old run leaves
    quietly, the job goes on for the new run (the same process: not started again) and its
    result is drawn."""
    server, gates = page
    capacity = _load_capacity()
    since = len(server.output(tail=None))

    async def drive() -> tuple:
        s = capacity.Session(server.url, "")
        try:
            await s.open()
            pressed = asyncio.create_task(s.set_value("n", [3]))
            await _until((gates / "pid-3").exists, "the job to start")
            pid = (gates / "pid-3").read_text()
            s.change("other", True)
            await s.send()
            # the old run leaves once the new one waits for the same job
            await _until(
                lambda: "n = 3, toggle off, other off" in _ended(gates), "the old run's end"
            )
            (gates / "gate-3").touch()
            full = await pressed  # the new full run, with the job's result
            await asyncio.sleep(SETTLE_S)
            return full, pid, (gates / "pid-3").read_text(), list(s.errors)
        finally:
            await s.close()

    full, pid_before, pid_after, errors = _drive(drive)
    _assert_clean_log(server, since)
    assert full.status == capacity.FINISHED_FULL and not full.exceptions and not errors, (
        full,
        errors,
    )
    assert "The job for n = 3 returned 42." in full.texts, full.texts
    assert pid_after == pid_before, "the job was started again instead of taken over"
