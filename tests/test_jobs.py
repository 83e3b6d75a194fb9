"""appkit.jobs: heavy computations in their own process, a fair line, faults as sentences.

Three kinds of test:

* the line's rules on a fake launcher (no processes: every start and end is the test's):
  lanes, one place per visitor and lane, round robin, a job nobody waits for;
* real processes from the fork server (module-level functions of ``tests/jobtools.py``):
  a result, a refusal, a run abandoned, a process killed with ``kill -9``, one over its memory
  or its time, the fork server itself killed;
* what a waiting page does when the user changes a control (``_give_way``), with
  :mod:`appkit.internals` answering as Streamlit would.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from appkit import cache, internals, jobs

# --------------------------------------------------------------------------- a fake launcher


class FakeWorker:
    """What :class:`appkit.jobs.Line` needs of a process; the test decides when it ends."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.conn, self._child = mp.Pipe(duplex=False)
        self.alive, self.killed, self.memory = True, False, 0

    def waitables(self) -> list[Any]:
        return [self.conn]

    def exited(self) -> bool:
        return not self.alive

    def exit_code(self) -> int | None:
        return -signal.SIGKILL if self.killed else 0

    def rss(self) -> int:
        return self.memory

    def kill(self) -> None:
        self.killed, self.alive = True, False

    def close(self) -> None:
        self.conn.close()

    def finish(self, value: Any) -> None:
        self._child.send(("result", value))


class FakeLauncher:
    def __init__(self) -> None:
        self.started: list[tuple[str, str]] = []  # (tag, slot)
        self.workers: dict[str, FakeWorker] = {}
        self.lock = threading.Lock()

    def __call__(self, fn, args, kwargs, slot):
        with self.lock:
            worker = FakeWorker(args[0])
            self.started.append((args[0], slot))
            self.workers[args[0]] = worker
            return worker

    def wait_started(self, n: int, timeout: float = 5.0) -> list[tuple[str, str]]:
        deadline = time.monotonic() + timeout
        while len(self.started) < n and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)  # and nothing more than n
        return list(self.started)


def _line(long_slots: int = 1, **kw) -> tuple[jobs.Line, FakeLauncher]:
    launcher = FakeLauncher()
    return jobs.Line(long_slots=lambda: long_slots, launch=launcher, **kw), launcher


def _join(line: jobs.Line, tag: str, visitor: str, lane: str = "long"):
    return line.join(("key", tag), print, (tag,), {}, lane, visitor)


def _done(job, timeout: float = 5.0):
    assert job.done.wait(timeout), f"job {job.args[0]} did not end"
    return job


def test_one_long_run_at_a_time_and_a_lane_of_its_own_for_quick_runs():
    line, launcher = _line(long_slots=1)
    a = _join(line, "a", "v1")
    b = _join(line, "b", "v2")
    q = _join(line, "q", "v3", lane="quick")
    assert launcher.wait_started(2) == [("a", "long"), ("q", "quick")]
    assert line.place(b, "v2") == jobs.Place("line", 1, 1)
    assert line.place(q, "v3").kind == "running"
    launcher.workers["q"].finish("Q")
    assert _done(q).result == "Q"
    launcher.workers["a"].finish("A")
    _done(a)
    assert launcher.wait_started(3)[-1] == ("b", "long")


def test_a_quick_run_takes_a_free_long_process_but_a_long_run_never_takes_the_quick_one():
    line, launcher = _line(long_slots=1)
    q1 = _join(line, "q1", "v1", lane="quick")
    q2 = _join(line, "q2", "v2", lane="quick")
    long_run = _join(line, "l", "v3")
    assert launcher.wait_started(2) == [("q1", "quick"), ("q2", "long")]
    assert line.place(long_run, "v3") == jobs.Place("line", 1, 0)
    launcher.workers["q1"].finish(1)
    _done(q1)
    time.sleep(0.1)
    assert len(launcher.started) == 2  # the freed quick process does not take the long run
    launcher.workers["q2"].finish(2)
    _done(q2)
    assert launcher.wait_started(3)[-1] == ("l", "long")


def test_one_visitor_holds_one_place_and_others_go_in_between():
    """Ten tabs of one browser hold one place: the visitor's next run joins the end of the
    line when their current one ends, so another visitor's run goes first."""
    line, launcher = _line(long_slots=1)
    mine = [_join(line, f"m{i}", "student") for i in range(4)]
    other = _join(line, "o", "teacher")
    assert launcher.wait_started(1) == [("m0", "long")]
    assert [line.place(j, "student").kind for j in mine[1:]] == ["held"] * 3
    assert line.place(other, "teacher") == jobs.Place("line", 1, 1)
    launcher.workers["m0"].finish(0)
    assert launcher.wait_started(2)[-1] == ("o", "long")  # not the student's second run
    assert line.place(mine[1], "student") == jobs.Place("line", 1, 1)
    launcher.workers["o"].finish(0)
    assert launcher.wait_started(3)[-1] == ("m1", "long")


def test_the_one_place_rule_is_per_lane():
    """A teacher with a long run in one tab still sees a default view in another."""
    line, launcher = _line(long_slots=1)
    _join(line, "long", "teacher")
    _join(line, "quick", "teacher", lane="quick")
    assert sorted(launcher.wait_started(2)) == [("long", "long"), ("quick", "quick")]


def test_a_shared_run_holds_a_place_for_each_of_its_visitors():
    line, launcher = _line(long_slots=1)
    _join(line, "a", "v1")
    shared = _join(line, "s", "v1")  # held behind v1's own run...
    assert line.place(shared, "v1").kind == "held"
    _join(line, "s", "v2")  # ...until another visitor asks for the same run
    assert line.place(shared, "v2") == jobs.Place("line", 1, 1)
    assert len(launcher.wait_started(1)) == 1


def test_a_run_nobody_waits_for_is_stopped_and_frees_its_place():
    line, launcher = _line(long_slots=1)
    a = _join(line, "a", "v1")
    b = _join(line, "b", "v2")
    assert launcher.wait_started(1) == [("a", "long")]
    line.leave(b, "v2")  # left while waiting
    assert isinstance(_done(b).error, jobs.JobStopped)
    line.leave(a, "v1")  # left while running: its process is killed
    assert isinstance(_done(a).error, jobs.JobStopped)
    assert launcher.workers["a"].killed
    assert line.counts() == {"running": 0, "waiting": 0}


def test_a_dead_process_ends_its_run_with_a_sentence_and_the_line_moves_on():
    line, launcher = _line(long_slots=1)
    a = _join(line, "a", "v1")
    _join(line, "b", "v2")
    launcher.wait_started(1)
    worker = launcher.workers["a"]
    worker.alive, worker.killed = False, True  # what kill -9 leaves: no message, ended
    worker._child.close()
    err = _done(a).error
    assert isinstance(err, jobs.JobFailed) and "killed (SIGKILL)" in str(err), err
    assert launcher.wait_started(2)[-1] == ("b", "long")


def test_a_run_over_its_memory_or_its_time_is_stopped_with_a_sentence():
    line, launcher = _line(long_slots=2, job_bytes=lambda: 100 * 2**20, job_seconds=lambda: 0.5)
    a = _join(line, "a", "v1")
    b = _join(line, "b", "v2")
    launcher.wait_started(2)
    launcher.workers["a"].memory = 101 * 2**20
    err = _done(a).error
    assert isinstance(err, jobs.JobFailed) and "more than the 100 MB" in str(err), err
    assert launcher.workers["a"].killed
    err = _done(b).error
    assert isinstance(err, jobs.JobFailed) and "ran for more than 0 seconds" in str(err), err


# --------------------------------------------------------------------------- real processes


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _in_thread(fn, *args, **kwargs) -> tuple[threading.Thread, list]:
    """Run ``jobs.run(fn, ...)`` in a thread (as a session's script thread would)."""
    out: list = []

    def target():
        try:
            out.append(("ok", jobs.run(fn, *args, **kwargs)))
        except BaseException as exc:
            out.append(("error", exc))

    t = threading.Thread(target=target)
    t.start()
    return t, out


def _pid(path: Path, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.02)
    pytest.fail(f"the job never wrote its pid to {path}")


def _gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    return False


JOB_PAGE = """
import streamlit as st
import jobtools
from appkit import jobs
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


def test_a_refusal_in_the_job_is_a_value_error_and_is_cached():
    import jobtools

    started = jobs._LINE.started_total
    for _ in range(2):
        with pytest.raises(ValueError, match=r"x=2\.0 is refused"):
            jobs.run(jobtools.refuse, 2.0)
    assert jobs._LINE.started_total == started + 1  # the second answer came from the cache


def test_an_abandoned_job_is_killed(tmp_path, monkeypatch):
    """A run nobody waits for any more (a rerun, Stop, a closed tab) does not keep computing."""
    import jobtools
    import streamlit as st

    stop = threading.Event()

    class Boom(Exception):
        pass

    class Status:
        def info(self, *a, **k):
            if stop.is_set():
                raise Boom

        progress = info

        def empty(self):
            pass

    monkeypatch.setattr(st, "empty", lambda: Status())
    t, out = _in_thread(jobtools.sleep_forever, str(tmp_path / "pid"))
    pid = _pid(tmp_path / "pid")
    os.kill(pid, 0)  # alive
    stop.set()  # the next redraw of the status raises, as Streamlit's rerun would
    t.join(timeout=10)
    assert out and isinstance(out[0][1], Boom)
    assert _gone(pid), f"the abandoned job's process {pid} is still running"
    assert jobs.running_jobs() == {"running": 0, "waiting": 0}


def test_a_killed_job_is_a_sentence_within_seconds_and_is_never_cached(tmp_path):
    """``kill -9`` of a job's process (what the out-of-memory killer does): its page gets a
    sentence within a second or two, nothing is cached, and the next request for the same
    run (another visitor) starts a new process and succeeds."""
    import jobtools

    pid_file, gate = tmp_path / "pid", tmp_path / "go"
    t, out = _in_thread(jobtools.wait_for_gate, str(pid_file), str(gate))
    pid = _pid(pid_file)
    killed_at = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    t.join(timeout=10)
    took = time.monotonic() - killed_at
    assert out and out[0][0] == "error", out
    err = out[0][1]
    assert isinstance(err, jobs.JobFailed) and "killed (SIGKILL)" in str(err), err
    assert "memory" in str(err) and "press again" in str(err)
    assert took < 3, f"the sentence came {took:.1f} s after the kill"
    assert jobs.running_jobs() == {"running": 0, "waiting": 0}
    pid_file.unlink()
    gate.touch()
    assert jobs.run(jobtools.wait_for_gate, str(pid_file), str(gate)) == 42
    assert int(pid_file.read_text()) != pid  # a new process, not a cached failure


@pytest.mark.slow
def test_a_job_over_its_memory_is_stopped_with_a_sentence(tmp_path, monkeypatch):
    import jobtools

    limit = 400 * 2**20
    monkeypatch.setattr(jobs._LINE, "job_bytes", lambda: limit)
    with pytest.raises(jobs.JobFailed, match="more than the 400 MB of memory") as caught:
        jobs.run(jobtools.hog, 800, str(tmp_path / "pid"))
    assert "try a smaller setting" in str(caught.value)
    assert _gone(int((tmp_path / "pid").read_text()))
    assert jobs.run(jobtools.square_with_progress, 4.0)["value"] == 16.0  # the line moves on


def test_a_job_over_its_time_is_stopped_with_a_sentence(tmp_path, monkeypatch):
    import jobtools

    monkeypatch.setattr(jobs._LINE, "job_seconds", lambda: 1.0)
    with pytest.raises(jobs.JobFailed, match="ran for more than 1 seconds"):
        jobs.run(jobtools.sleep_forever, str(tmp_path / "pid"))
    assert _gone(int((tmp_path / "pid").read_text()))


def _forkserver_pid() -> int:
    from multiprocessing import forkserver

    pid = forkserver._forkserver._forkserver_pid  # the stdlib's own record
    assert pid, "no fork server is running"
    return pid


@pytest.mark.slow
def test_a_killed_fork_server_neither_fails_a_running_job_nor_stops_the_next(tmp_path):
    """The fork server that starts the jobs is killed while a job runs: multiprocessing then
    reports that job as ended (exit code 255) while it still computes. The job's own result
    still arrives, nothing is left running, and the next job starts (a new fork server)."""
    import jobtools

    pid_file, gate = tmp_path / "pid", tmp_path / "go"
    t, out = _in_thread(jobtools.wait_for_gate, str(pid_file), str(gate))
    pid = _pid(pid_file)
    server = _forkserver_pid()
    os.kill(server, signal.SIGKILL)  # (not reaped here: multiprocessing reaps it, and restarts)
    time.sleep(1.5)  # long enough for the old reader to have called it dead
    assert not out, out  # still waiting: not "ended without a result"
    gate.touch()
    t.join(timeout=10)
    assert out == [("ok", 42)], out
    assert _gone(pid)
    assert jobs.run(jobtools.square_with_progress, 5.0)["value"] == 25.0
    assert _forkserver_pid() != server


# --------------------------------------------------------------------------- giving way


class _Rerun(Exception):
    pass


@pytest.fixture
def streamlit_stand_ins(monkeypatch):
    """st.rerun and a status that record what the run asked for instead of raising."""
    import streamlit as st

    asked: list[str] = []

    def rerun(*, scope="app"):
        asked.append(f"rerun:{scope}")
        raise _Rerun

    class Status:
        def clear(self):
            asked.append("status")
            raise _Rerun  # Streamlit raises its own rerun at this element

    monkeypatch.setattr(st, "rerun", rerun)
    return asked, Status()


@pytest.mark.parametrize(
    ("waiting", "in_fragment", "fragment_rerun", "expected"),
    [
        (None, True, True, []),
        ("app", False, False, ["status"]),
        ("app", True, True, ["status"]),
        ("fragment", True, True, ["rerun:fragment"]),
        # a first load (a full run) computes inside the fragment: a fragment-scoped rerun is
        # refused there (Streamlit raises internals.LayoutContextError), so the page
        # reruns whole with the waiting value
        ("fragment", True, False, ["rerun:app"]),
        ("fragment", False, False, []),
    ],
)
def test_a_waiting_run_gives_way_the_one_way_streamlit_allows(
    monkeypatch, streamlit_stand_ins, waiting, in_fragment, fragment_rerun, expected
):
    asked, status = streamlit_stand_ins
    monkeypatch.setattr(internals, "waiting_rerun", lambda: waiting)
    monkeypatch.setattr(internals, "in_fragment", lambda: in_fragment)
    monkeypatch.setattr(internals, "in_fragment_rerun", lambda: fragment_rerun)
    if expected:
        with pytest.raises(_Rerun):
            jobs._give_way(status)
    else:
        jobs._give_way(status)
    assert asked == expected


# --------------------------------------------------------------------------- a run replaced


class Element:
    """What ``st.empty()`` gives a status: records each write; with ``gone`` a write raises as
    Streamlit does when the place it goes to has been cleared by a newer run."""

    def __init__(self) -> None:
        self.writes: list[str] = []
        self.gone = False

    def _write(self, what: str) -> None:
        self.writes.append(what)
        if self.gone:
            raise internals.LayoutContextError("the place this element held is gone")

    def info(self, *args, **kwargs):
        self._write("info")

    def progress(self, *args, **kwargs):
        self._write("progress")

    def empty(self):
        self._write("empty")


@pytest.fixture
def element(monkeypatch):
    import streamlit as st

    el = Element()
    monkeypatch.setattr(st, "empty", lambda: el)
    return el


def _stopped(monkeypatch, *answers: bool) -> None:
    """``internals.run_stopped`` answers ``answers`` in turn, then the last one for ever."""
    it = iter(answers)
    monkeypatch.setattr(internals, "run_stopped", lambda: next(it, answers[-1]))


def test_the_run_that_has_the_page_writes_its_status(element, monkeypatch):
    _stopped(monkeypatch, False)
    status = jobs._Status()
    status.show("progress", "running", 0.5)
    status.show("info", "waits for its turn", 0.0)
    status.clear()
    assert element.writes == ["progress", "info", "empty"]


def test_a_run_that_has_lost_the_page_writes_no_status_and_ends(element, monkeypatch):
    """A newer run has the page: a redraw ends this run (as Streamlit's stop would) without
    writing, and taking the status away writes nothing either."""
    _stopped(monkeypatch, True)
    status = jobs._Status()
    with pytest.raises(internals.StopException):
        status.show("progress", "running", 0.5)
    status.clear()
    assert element.writes == []


def test_a_stop_landing_between_the_question_and_the_write_ends_the_run(element, monkeypatch):
    """The newer run starts in another thread: the stop can come after the status asked and
    before it wrote, and the write then fails where Streamlit would have stopped the run."""
    element.gone = True
    _stopped(monkeypatch, False, True)
    with pytest.raises(internals.StopException):
        jobs._Status().show("progress", "running", 0.5)
    _stopped(monkeypatch, False, True)
    jobs._Status().clear()
    assert element.writes == ["progress", "empty"]


def test_a_place_that_is_gone_in_a_run_that_has_the_page_is_still_an_error(element, monkeypatch):
    element.gone = True
    _stopped(monkeypatch, False)
    with pytest.raises(internals.LayoutContextError):
        jobs._Status().show("progress", "running", 0.5)
    with pytest.raises(internals.LayoutContextError):
        jobs._Status().clear()


def test_a_replaced_run_leaves_its_job_once_another_has_it_or_its_visitor_wants_another():
    line, launcher = _line(long_slots=2)
    a = _join(line, "a", "v1")
    launcher.wait_started(1)
    assert not line.handed_over(a, "v1")  # nobody else: kept for the newer run a moment
    _join(line, "a", "v1")  # the newer run (same browser) asks for the same computation
    assert line.handed_over(a, "v1")
    line.leave(a, "v1")  # the replaced run leaves: the job goes on for the newer one
    assert not a.done.is_set()
    b = _join(line, "b", "v2")
    launcher.wait_started(2)
    assert not line.handed_over(b, "v2")
    _join(line, "c", "v2")  # the newer run asked for something else
    assert line.handed_over(b, "v2")
    launcher.workers["a"].finish("A")
    _done(a)
    assert line.handed_over(a, "v1")  # ended


def test_a_replaced_run_keeps_its_job_a_moment_then_stops_it_drawing_nothing(element, monkeypatch):
    line, launcher = _line()
    monkeypatch.setattr(jobs, "_LINE", line)
    monkeypatch.setattr(jobs, "HANDOVER_S", 0.3)
    _stopped(monkeypatch, True)
    t, out = _in_thread(print, "replaced")
    launcher.wait_started(1)
    t.join(timeout=10)
    assert out and isinstance(out[0][1], internals.StopException), out
    assert launcher.workers["replaced"].killed  # nobody took it over
    assert line.counts() == {"running": 0, "waiting": 0}
    assert element.writes == []


def test_a_replaced_run_whose_job_ends_keeps_the_result_for_the_next(element, monkeypatch):
    line, launcher = _line()
    monkeypatch.setattr(jobs, "_LINE", line)
    monkeypatch.setattr(jobs, "HANDOVER_S", 60.0)
    _stopped(monkeypatch, True)
    t, out = _in_thread(print, "finished")
    launcher.wait_started(1)
    launcher.workers["finished"].finish("F")
    t.join(timeout=10)
    assert out and isinstance(out[0][1], internals.StopException), out  # not drawn...
    assert element.writes == []
    _stopped(monkeypatch, False)
    assert jobs.run(print, "finished") == "F"  # ...but kept: no second process
    assert len(launcher.started) == 1


def test_a_rerun_at_the_first_streamlit_call_leaves_nobody_in_line(monkeypatch):
    """A held arrow key interrupts run() at its very first Streamlit call: the job must not
    stay in line with a watcher that is gone."""
    import jobtools
    import streamlit as st

    def interrupted():
        raise _Rerun

    monkeypatch.setattr(st, "empty", interrupted)
    with pytest.raises(_Rerun):
        jobs.run(jobtools.square_with_progress, 5.0)
    assert jobs.running_jobs() == {"running": 0, "waiting": 0}


def test_a_job_process_importing_the_app_does_not_run_it(monkeypatch):
    """multiprocessing may import app.py as __mp_main__ in a job's process (when a job starts
    while a script run holds __main__): that must not run the app there."""
    import runpy

    import streamlit as st

    def navigation(*a, **k):
        raise AssertionError("the app ran in a job's process")

    monkeypatch.setattr(st, "navigation", navigation)
    app = Path(__file__).resolve().parents[1] / "app.py"
    namespace = runpy.run_path(str(app), run_name="__mp_main__")
    assert callable(namespace["main"])
