"""appkit's one caching mechanism (bounded by memory, single-flight, refusals cached) and the
heavy-job runner (own process, place in line, stopped when abandoned)."""

from __future__ import annotations

import contextlib
import os
import threading
import time

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from appkit import cache, jobs
from appkit.figures import ReadOnlyFigure

CALLS: list = []


def _counted(x, *, scale=1.0):
    CALLS.append((x, scale))
    return np.full(4, x * scale)


def _big(i: int, nbytes: int):
    CALLS.append(i)
    return np.zeros(nbytes // 8)


def _refuse(x):
    CALLS.append(x)
    raise ValueError(f"x={x} is refused")


def _figure(x):
    return go.Figure(data=[dict(type="scatter", x=[0, 1], y=[x, x])])


def _slow(x):
    CALLS.append(x)
    time.sleep(0.2)
    return x


@pytest.fixture(autouse=True)
def fresh():
    cache.clear()
    CALLS.clear()
    yield
    cache.clear()


def test_computed_once_per_distinct_arguments_and_shared_read_only():
    a = cache.cached(_counted, 2.0, scale=3.0)
    b = cache.cached(_counted, 2.0, scale=3.0)
    assert a is b and CALLS == [(2.0, 3.0)]
    cache.cached(_counted, 2.0, scale=4.0)
    cache.cached(_counted, 2.5, scale=3.0)
    assert len(CALLS) == 3
    with pytest.raises(ValueError):  # shared between sessions: never writable
        a[0] = 1.0


def test_arrays_and_frames_are_keyed_by_content():
    x = np.arange(5.0)
    cache.cached(_counted, float(x.sum()))
    df1 = pd.DataFrame({"a": [1.0, 2.0]})
    df2 = pd.DataFrame({"a": [1.0, 2.0]})
    assert cache._content_key(df1) == cache._content_key(df2)
    assert cache._content_key(df1) != cache._content_key(pd.DataFrame({"a": [1.0, 2.5]}))
    assert cache._content_key(np.arange(3)) != cache._content_key(np.arange(3.0))
    with pytest.raises(TypeError, match="can't be used as a cache key"):
        cache._content_key(object.__new__(type("Unhashable", (), {"__hash__": None})))


def test_memory_budget_evicts_least_recently_used(monkeypatch):
    store = cache._Store(max_bytes=10 * 2**20)
    monkeypatch.setattr(cache, "_STORE", store)
    for i in range(30):  # 30 distinct results of 1 MiB into a 10 MiB budget
        cache.cached(_big, i, 2**20)
    s = cache.stats()
    assert s["bytes"] <= 10 * 2**20 and s["entries"] < 30
    assert s["bytes"] >= 8 * 2**20  # it does keep what fits
    CALLS.clear()
    cache.cached(_big, 29, 2**20)  # the most recent is still there
    assert CALLS == []
    cache.cached(_big, 0, 2**20)  # the oldest was evicted
    assert CALLS == [0]


def test_max_entries_per_function(monkeypatch):
    monkeypatch.setattr(cache, "_STORE", cache._Store(max_bytes=2**30))
    for i in range(10):
        cache.cached(_counted, float(i), max_entries=3)
    assert cache.stats()["entries"] == 3


def test_a_result_too_large_to_keep_is_returned_not_kept(monkeypatch):
    monkeypatch.setattr(cache, "_STORE", cache._Store(max_bytes=4 * 2**20))
    out = cache.cached(_big, 1, 2 * 2**20)  # above a quarter of the budget
    assert out.nbytes == 2 * 2**20 and cache.stats()["entries"] == 0


def test_refusals_are_cached_and_raised_again():
    for _ in range(3):
        with pytest.raises(ValueError, match="x=7 is refused"):
            cache.cached(_refuse, 7)
    assert CALLS == [7]


def test_figures_are_frozen_when_cached():
    fig = cache.cached(_figure, 1.0)
    assert isinstance(fig, ReadOnlyFigure)
    d = fig.to_dict()
    d["data"].clear()  # a caller's copy; the shared figure is untouched
    assert len(fig.to_dict()["data"]) == 1


def test_single_flight_under_a_crowd():
    out = []
    threads = [
        threading.Thread(target=lambda: out.append(cache.cached(_slow, 5))) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [5] * 8 and CALLS == [5]  # eight sessions, one computation


# --------------------------------------------------------------------------- jobs

JOB_PAGE = """
import streamlit as st
from appkit import jobs
import jobtools
x = st.session_state.get("x", 3.0)
try:
    out = jobs.run(jobtools.square_with_progress, x, label="The square")
    st.write(f"value={out['value']} pid={out['pid']}")
except ValueError as exc:
    st.error(str(exc))
"""


def test_a_job_runs_in_another_process_and_is_cached():
    at = AppTest.from_string(JOB_PAGE, default_timeout=60).run()
    assert not at.exception, at.exception
    (text,) = [m.value for m in at.markdown if m.value.startswith("value=")]
    value, pid = text.split()
    assert value == "value=9.0" and int(pid.split("=")[1]) != os.getpid()
    at.run()  # cached: the same result (same pid), no second process
    assert [m.value for m in at.markdown if m.value.startswith("value=")] == [text]


def test_a_refusal_in_the_job_is_a_value_error():
    with pytest.raises(ValueError, match=r"x=2\.0 is refused"):
        jobs.run(__import__("jobtools").refuse, 2.0)


def test_an_abandoned_job_is_terminated(tmp_path):
    """A run nobody waits for any more (rerun, Stop, tab closed) does not keep computing."""
    import jobtools

    pid_file = tmp_path / "pid"
    stop = threading.Event()

    def watcher():
        with contextlib.suppress(BaseException):
            jobs.run(jobtools.sleep_forever, str(pid_file))

    # run() leaves when st.stop() or a rerun interrupts it; simulate with a thread whose
    # st.empty() calls raise once ``stop`` is set.
    import streamlit as st

    real_empty = st.empty

    class Boom(Exception):
        pass

    class Status:
        def info(self, *a, **k):
            if stop.is_set():
                raise Boom

        progress = info

        def empty(self):
            pass

    t = threading.Thread(target=watcher)
    st.empty = lambda: Status()  # type: ignore[assignment]
    try:
        t.start()
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        pid = int(pid_file.read_text())
        os.kill(pid, 0)  # alive
        stop.set()
        t.join(timeout=10)
    finally:
        st.empty = real_empty
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        with contextlib.suppress(ChildProcessError):  # reap it if it is our child zombie
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    else:
        pytest.fail(f"the abandoned job's process {pid} is still running")
    assert jobs.running_jobs() == {"running": 0, "waiting": 0}


def test_a_job_in_a_fragment_gives_way_to_a_newer_input(tmp_path, monkeypatch):
    """Streamlit never interrupts a run for a widget inside a fragment (appkit.live): the job
    must notice the waiting input itself, rerun the fragment with it (st.stop() would drop
    it) and terminate its process."""
    import jobtools
    import streamlit as st

    pid_file = tmp_path / "pid"
    newer = threading.Event()
    monkeypatch.setattr(jobs, "_newer_input_waits", newer.is_set)
    stopped: list[BaseException] = []

    def watcher():
        try:
            jobs.run(jobtools.sleep_forever, str(pid_file))
        except BaseException as exc:
            stopped.append(exc)

    class Status:
        def info(self, *a, **k):
            pass

        progress = info

        def empty(self):
            pass

    monkeypatch.setattr(st, "empty", lambda: Status())

    def rerun(*, scope="app"):  # st.rerun raises; st.stop() would drop the waiting input
        raise RuntimeError(f"st.rerun(scope={scope!r})")

    monkeypatch.setattr(st, "rerun", rerun)
    t = threading.Thread(target=watcher)
    t.start()
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    os.kill(pid, 0)  # computing
    newer.set()  # the user moves a slider inside the fragment
    t.join(timeout=10)
    assert stopped and "st.rerun(scope='fragment')" in str(stopped[0]), stopped
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    else:
        pytest.fail(f"the job's process {pid} kept computing after a newer input")
    assert jobs.running_jobs() == {"running": 0, "waiting": 0}


FRAGMENT_PAGE = """
import streamlit as st
from appkit import jobs
st.write(f"outside={jobs._in_fragment()} waits={jobs._newer_input_waits()}")

@st.fragment
def live():
    st.write(f"inside={jobs._in_fragment()} waits={jobs._newer_input_waits()}")

live()
"""


def test_a_run_knows_when_it_is_inside_a_fragment():
    """The check reads Streamlit's own state: inside a fragment it is seen, outside it is
    not, and with no newer input nothing waits."""
    at = AppTest.from_string(FRAGMENT_PAGE, default_timeout=30).run()
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    assert "outside=False waits=False" in texts and "inside=True waits=False" in texts, texts


def test_place_in_line_with_one_job_at_a_time(monkeypatch):
    monkeypatch.setattr(jobs.settings, "HEAVY_JOBS", 1)
    a = jobs._Job("a", None, (), {}, 1)
    b = jobs._Job("b", None, (), {}, 2)
    c = jobs._Job("c", None, (), {}, 3)
    with jobs._LINE.lock:
        jobs._LINE.order[:] = [a, b, c]
    try:
        a.started = time.monotonic()
        assert jobs._LINE.place(a) == (0, 1)
        assert jobs._LINE.place(b) == (1, 1)
        assert jobs._LINE.place(c) == (2, 1)
    finally:
        with jobs._LINE.lock:
            jobs._LINE.order.clear()


def test_a_cached_result_passed_on_is_keyed_by_origin_not_rehashed(monkeypatch):
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Lesson:
        xs: np.ndarray

    calls = {"lesson": 0, "figure": 0}

    def lesson(n):
        calls["lesson"] += 1
        return Lesson(np.arange(float(n)))

    def figure(result):
        calls["figure"] += 1
        return float(result.xs.sum())

    res = cache.cached(lesson, 1000)
    hashed = []
    real = cache.hashlib.blake2b
    monkeypatch.setattr(cache.hashlib, "blake2b", lambda *a, **k: hashed.append(1) or real(*a, **k))
    assert cache.cached(figure, res) == cache.cached(figure, res) == 499500.0
    assert calls == {"lesson": 1, "figure": 1}
    assert hashed == []  # the lesson's arrays were not hashed again
    # an equal result that is not the cached object is keyed by content, and still correct
    assert cache.cached(figure, Lesson(np.arange(1000.0))) == 499500.0
    assert hashed  # hashed this time
    # once the lesson's entry is gone, its object is keyed by content again
    cache.clear()
    assert cache._ORIGIN == {}


def _a_list():
    return [1, 2]


def _a_scalar():
    return 7


def _an_array():
    return np.ones(3)


def test_mutable_and_scalar_results_are_not_keyed_by_origin():
    for fn in (_a_list, _a_scalar, _an_array):
        cache.cached(fn)
    kinds = sorted(type(v[1]).__name__ for v in cache._ORIGIN.values())
    assert kinds == ["ndarray"]  # arrays are made read-only when cached: kept


def test_a_rerun_at_the_first_streamlit_call_leaves_nobody_in_line(monkeypatch):
    """A held arrow key interrupts run() at its very first Streamlit call: the job must not
    stay in line with a watcher that is gone (it would hold up every later job)."""
    import jobtools
    import streamlit as st

    class Rerun(Exception):
        pass

    def interrupted():
        raise Rerun

    monkeypatch.setattr(st, "empty", interrupted)
    with pytest.raises(Rerun):
        jobs.run(jobtools.square_with_progress, 5.0)
    assert jobs.running_jobs() == {"running": 0, "waiting": 0}


def test_a_job_nobody_waits_for_never_holds_up_the_line(monkeypatch):
    import jobtools

    monkeypatch.setattr(jobs.settings, "HEAVY_JOBS", 1)
    stale = jobs._Job("stale", None, (), {}, 0)  # in line, not started, no watcher
    with jobs._LINE.lock:
        jobs._LINE.jobs["stale"] = stale
        jobs._LINE.order.insert(0, stale)
    try:
        done: list = []
        t = threading.Thread(
            target=lambda: done.append(jobs.run(jobtools.square_with_progress, 6.0))
        )
        t.start()
        t.join(timeout=60)
        assert done and done[0]["value"] == 36.0
        assert stale.done.is_set() and isinstance(stale.error, jobs.JobStopped)
    finally:
        with jobs._LINE.lock:
            jobs._LINE.order[:] = [j for j in jobs._LINE.order if j is not stale]
            jobs._LINE.jobs.pop("stale", None)


def test_a_job_process_importing_the_app_does_not_run_it(monkeypatch):
    """multiprocessing may import app.py as __mp_main__ in a job's process (when a job starts
    while a script run holds __main__): that must not run the app there."""
    import runpy
    from pathlib import Path

    import streamlit as st

    def navigation(*a, **k):
        raise AssertionError("the app ran in a job's process")

    monkeypatch.setattr(st, "navigation", navigation)
    app = Path(__file__).resolve().parents[1] / "app.py"
    namespace = runpy.run_path(str(app), run_name="__mp_main__")
    assert callable(namespace["main"])
