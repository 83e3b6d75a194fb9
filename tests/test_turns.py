"""``appkit.turns``: at most a few script runs compute at once; a run that waits for something
other than computing steps aside, so no wait can close a circle."""

from __future__ import annotations

import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from appkit import cache, turns

WAIT_S = 5.0  # far longer than any step here takes; a test that waits this long has hung


@pytest.fixture
def one_turn(monkeypatch):
    """One run at a time, as the tightest setting."""
    monkeypatch.setattr(turns, "_TURNS", threading.BoundedSemaphore(1))
    cache.clear()
    yield
    cache.clear()


def _in_thread(fn) -> threading.Thread:
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    return t


def test_a_second_run_waits_for_the_first_to_end(one_turn):
    order, first_in = [], threading.Event()

    def first():
        with turns.hold():
            first_in.set()
            time.sleep(0.2)
            order.append("first ends")

    def second():
        first_in.wait(WAIT_S)
        with turns.hold():
            order.append("second starts")

    threads = [_in_thread(first), _in_thread(second)]
    for t in threads:
        t.join(WAIT_S)
    assert order == ["first ends", "second starts"]


def test_nested_holds_in_one_thread_are_one_turn(one_turn):
    with turns.hold():
        with turns.hold():  # a live part inside the page's full run
            assert turns.holding()
        assert turns.holding()
    assert not turns.holding()
    with turns.hold():  # the turn was given back: it can be taken again
        pass


def test_a_run_that_steps_aside_lets_another_compute_and_gets_its_turn_back(one_turn):
    other_done = threading.Event()

    def other():
        with turns.hold():
            other_done.set()

    with turns.hold(), turns.hold():
        t = _in_thread(other)
        with turns.step_aside():
            assert not turns.holding()
            assert other_done.wait(WAIT_S)
        assert turns.holding()
        t.join(WAIT_S)
    assert not turns.holding()


def test_step_aside_outside_a_run_does_nothing():
    with turns.step_aside():
        assert not turns.holding()
    assert not turns.holding()


def _slow_job(release: threading.Event) -> str:
    """A result computed by waiting for something else (as a heavy job's process), out of turn."""
    with turns.step_aside():
        assert release.wait(WAIT_S)
    return "done"


def test_two_runs_asking_for_one_result_never_wait_for_each_other(one_turn):
    """Run A computes a cached result that waits out of turn; run B asks for the same result
    and waits for A's: B must step aside too, or A could never get its turn back."""
    release, results = threading.Event(), []

    def run_a():
        with turns.hold():
            results.append(cache.cached(_slow_job, release))

    def run_b():
        with turns.hold():
            results.append(cache.cached(_slow_job, release))

    a = _in_thread(run_a)
    time.sleep(0.1)  # A is computing, out of turn
    b = _in_thread(run_b)
    time.sleep(0.1)  # B holds the turn and waits for A's result
    release.set()
    a.join(WAIT_S)
    b.join(WAIT_S)
    assert results == ["done", "done"], "the two runs waited for each other"


def test_a_live_part_and_the_page_hold_a_turn():
    script = """
import streamlit as st
import appkit
from appkit import turns

page = appkit.page("what_eps_means")
def body():
    st.text(f"live part holds a turn: {turns.holding()}")
appkit.live(page, body)
"""
    at = AppTest.from_string(script).run()
    assert not at.exception
    assert "live part holds a turn: True" in [t.value for t in at.text]
    assert not turns.holding()  # given back when the run ended
