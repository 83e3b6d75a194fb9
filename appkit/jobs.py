"""Heavy computations: in their own process, a fair line, stopped when nobody waits.

One Streamlit server serves a whole classroom from one process: a long NumPy run in a
session's thread would hold the GIL and the memory every other session needs. So a page
hands each heavy computation to :func:`run`:

* **its own process** (started from a fork server that has NumPy and mipcore loaded, so a
  start costs tens of milliseconds): the server's threads keep answering other sessions,
  and the memory a run needs is returned to the system when it ends;
* **a fair line** (:class:`Line`, one per server, kept by one dispatcher thread):

  - *two lanes*: ``quick=True`` marks a computation no larger than a page's default view.
    Quick runs have a process of their own beside the
    :data:`appkit.settings.HEAVY_JOBS` long ones (1 on a 2-core machine), so a default view
    never waits behind someone's long run; a long run may not take the quick lane's place,
    and runs at a lower CPU priority (``nice``) so the pages stay quick while it computes;
  - *one place per visitor and lane*: a visitor is a browser (the XSRF cookie every tab of
    a browser shares; a session where there is none). A visitor's second run of a lane waits
    *outside* the line until the first ends, so ten tabs of one student hold one place, and
    other visitors' runs go in between;
  - the page tells its user their place, or which of their own runs they wait for, and the
    rule;
* **stopped when nobody waits for it**: when the user changes a control or presses the
  page's Stop button (Streamlit interrupts the script run; inside a fragment, where it does
  not, the run sees the waiting input and gives way itself), or when the browser tab is
  closed, the process is killed at once -- it does not keep computing for minutes after its
  tab is gone. A run that a newer one has replaced (a page switch, a control outside every
  fragment) shows nothing more and keeps its job for at most :data:`HANDOVER_S`, so that the
  newer run asking for the same computation takes it over instead of starting it again;
* **faults are sentences**: a process that dies (killed, out of the memory a job may take,
  :data:`~appkit.settings.JOB_BYTES`), or runs longer than
  :data:`~appkit.settings.JOB_SECONDS`, ends its run within a fraction of a second with
  :class:`JobFailed`, whose message says what happened and what to try; its place is free at
  once, and nothing of it is cached: the next request starts afresh;
* **cached**: a finished result goes into the same bounded store as :func:`appkit.cached`,
  and a second session asking for the same run while it computes waits for that run
  instead of starting another. A ``ValueError`` raised by the computation -- a refusal of
  the input itself -- is cached like a result; nothing else is.

The function must be a module-level function (it is pickled by name); if it takes a
``progress`` keyword, it is given a callable ``progress(fraction, message)`` whose calls
update the page's progress bar.

The Streamlit internals this needs (is a newer input waiting, is the tab still there) live in
:mod:`appkit.internals`.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import multiprocessing as mp
import os
import select
import signal
import sys
import threading
import time
import types
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait as wait_for
from pathlib import Path
from typing import Any, Literal, TypeVar

import streamlit as st
from threadpoolctl import threadpool_limits

from . import internals, settings, turns
from .cache import _STORE, _content_key, _Entry, _share, _size

__all__ = ["JobFailed", "JobStopped", "Line", "run", "running_jobs", "warm_up"]

T = TypeVar("T")
POLL_S = 0.1  # how often a waiting page looks at its job (and for a newer input)
MEMORY_POLL_S = 0.2  # how often the dispatcher reads a running job's memory
STATUS_S = 0.5  # how often a waiting page redraws its status when nothing else changed
HANDOVER_S = 1.0  # how long a replaced run keeps its job for the run that replaced it
QUICK_SLOTS = 1  # processes of the quick lane, beside settings.HEAVY_JOBS long ones
LONG_NICE = 10  # a long run's CPU priority: below the server's and the quick lane's
RULE = (
    "Each visitor (a browser, all its tabs together) has one place in line at a time, and "
    "short computations have a lane of their own, so nobody's long run keeps a default view "
    "waiting."
)

Lane = Literal["quick", "long"]

_CTX = mp.get_context("forkserver")
# What every job needs, imported once in the fork server so that each job starts in tens of
# milliseconds: this module itself (its ``_child`` is what a job runs; importing it pulls in
# Streamlit, ~1.5 s per job otherwise) and the heavy libraries of the heavy computations.
_CTX.set_forkserver_preload(
    [
        "numpy",
        "scipy.special",
        "scipy.stats",
        "pandas",
        "mipcore",
        "appkit.jobs",
        "mipcore.experiments.covariance",
        "mipcore.guarantees",
        "sklearn.linear_model",
        # the reference-data sweep's own modules (sklearn.datasets, the MLP, threadpoolctl):
        # 0.1 s of every sweep's start otherwise, on a page whose data change settles in ~2 s
        "mipcore.experiments.reference_sweep",
    ]
)
_WARM = threading.Event()
_MAIN_SWAP = threading.Lock()

# One BLAS thread in the server process, set once when appkit is first imported: a classroom's
# sessions already keep both cores busy, and OpenBLAS's own threads on top of them made matrix
# work up to 30 times slower (measured on 2 cores). Jobs set the same in their processes.
threadpool_limits(1)
# The fork server imports the preloads with its own sys.path: make sure it finds this
# repository even when the server was started from another directory.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (_ROOT, os.environ.get("PYTHONPATH", "")) if p
    )


class JobStopped(Exception):
    """The run was stopped because nobody waits for it any more (nothing to show)."""


class JobFailed(RuntimeError):
    """The computation's process ended without a result: killed, out of memory, or over its
    time. The message is a sentence for the page. Never cached: the next request retries."""


# ----------------------------------------------------------------------------- the process


def _child(fn: Callable[..., Any], args: tuple, kwargs: dict, conn: Any, nice: int) -> None:
    """Runs in the job's process: call ``fn``, send progress and the outcome back."""

    def progress(fraction: float, message: str = "") -> None:
        conn.send(("progress", float(fraction), str(message)))

    threadpool_limits(1)  # one BLAS thread: the server's own threads use the other core
    if nice:
        os.nice(nice)
    try:
        if "progress" in inspect.signature(fn).parameters:
            kwargs = {**kwargs, "progress": progress}
        conn.send(("result", fn(*args, **kwargs)))
    except ValueError as exc:
        conn.send(("value_error", str(exc)))
    except MemoryError:
        conn.send(("memory", ""))
    except BaseException as exc:  # pragma: no cover - reported to the page as an error
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


@contextlib.contextmanager
def _main_hidden() -> Iterator[None]:
    """Streamlit runs app.py as the module __main__; a new process would import it again (and
    run the app inside the job). Hide it while a process starts: a job only needs its
    function, which it imports by module name. One caller at a time, so that two starts never
    restore each other's stand-in."""
    with _MAIN_SWAP:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is not None:
                sys.modules["__main__"] = main


def warm_up() -> None:
    """Start the fork server (and its preloads) in the background, once per process, so the
    first heavy job of the first visitor does not wait for it. ``app.py`` calls this."""
    if _WARM.is_set():
        return
    _WARM.set()

    def start() -> None:
        from multiprocessing import forkserver

        with _main_hidden():
            forkserver.ensure_running()

    threading.Thread(target=start, name="mip-forkserver-warmup", daemon=True).start()


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class _Worker:
    """A job's process, watched through a pidfd where Linux has one.

    A pidfd tells when *that* process has ended and signals exactly it, even when the fork
    server that started it has died (multiprocessing then reports every such process as
    ended, exit code 255, while it still computes).
    """

    def __init__(self, proc: Any, conn: Any) -> None:
        self.proc, self.conn = proc, conn
        self.pidfd: int | None = None
        if hasattr(os, "pidfd_open") and proc.pid is not None:
            with contextlib.suppress(ProcessLookupError, OSError):
                self.pidfd = os.pidfd_open(proc.pid)

    def waitables(self) -> list[Any]:
        return [self.conn] + ([self.pidfd] if self.pidfd is not None else [])

    def exited(self) -> bool:
        if self.pidfd is not None:
            return bool(select.select([self.pidfd], [], [], 0)[0])
        return not self.proc.is_alive()

    def exit_code(self) -> int | None:
        """The exit code the fork server reports (negative: killed by that signal), waiting a
        moment for it; None when unknown (e.g. the fork server itself has died)."""
        self.proc.join(timeout=1.0)
        code = self.proc.exitcode
        return None if code in (None, 255) else int(code)

    def rss(self) -> int:
        """The process's resident memory in bytes (0 where /proc cannot tell)."""
        try:
            with open(f"/proc/{self.proc.pid}/statm") as f:
                return int(f.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            return 0

    def kill(self) -> None:
        if self.pidfd is not None:
            with contextlib.suppress(ProcessLookupError, OSError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        elif self.proc.is_alive():
            self.proc.kill()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self.pidfd)
            self.pidfd = None
        self.proc.join(timeout=0.5)
        with contextlib.suppress(ValueError):  # still running: its sentinel closes with it
            self.proc.close()


def _launch(fn: Callable[..., Any], args: tuple, kwargs: dict, lane: Lane) -> _Worker:
    parent, child = _CTX.Pipe(duplex=False)
    nice = LONG_NICE if lane == "long" else 0
    proc = _CTX.Process(
        target=_child,
        args=(fn, args, kwargs, child, nice),
        daemon=True,
    )
    try:
        with _main_hidden():
            proc.start()
    finally:
        child.close()
    return _Worker(proc, parent)


def _death_sentence(code: int | None, memory_bytes: int | None = None) -> str:
    if memory_bytes is not None:
        mb = memory_bytes // 2**20
        return (
            f"it needed more than the {mb} MB of memory one computation may use on this "
            "server. Nothing was kept: try a smaller setting"
        )
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = (
            " -- the system ends a process this way when memory runs out"
            if -code == signal.SIGKILL
            else ""
        )
        return (
            f"its process was killed ({name}){why}. Nothing was kept: press again to retry, "
            "or try a smaller setting"
        )
    shown = "unknown" if code is None else str(code)
    return (
        f"its process ended without a result (exit code {shown}). Nothing was kept: press "
        "again to retry, or try a smaller setting"
    )


# ----------------------------------------------------------------------------- the line


@dataclass(eq=False)
class _Job:
    key: Any
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    lane: Lane
    number: int
    visitors: Counter[str] = field(default_factory=Counter)  # visitor -> watchers
    state: Literal["waiting", "starting", "running", "done"] = "waiting"
    ticket: int | None = None  # its place in the lane's line; None: held behind its visitor's
    slot: Lane | None = None  # the lane whose process it runs in
    started: float | None = None
    fraction: float = 0.0
    message: str = ""
    result: Any = None
    error: BaseException | None = None
    worker: _Worker | None = None
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def active(self) -> bool:
        return self.state in ("starting", "running")


@dataclass(frozen=True)
class Place:
    """Where a visitor's job stands: ``running``; ``line`` (number ``number`` of the lane's
    line, ``running`` runs of that lane in progress); or ``held`` (behind the visitor's own
    other run of that lane)."""

    kind: Literal["running", "line", "held", "done"]
    number: int = 0
    running: int = 0


class Line:
    """The heavy jobs of one server, waiting and running; one dispatcher thread starts them,
    reads their messages and notices a dead process (see the module docstring)."""

    def __init__(
        self,
        long_slots: Callable[[], int] = lambda: settings.HEAVY_JOBS,
        quick_slots: int = QUICK_SLOTS,
        launch: Callable[[Callable[..., Any], tuple, dict, Lane], Any] = _launch,
        job_seconds: Callable[[], float] = lambda: settings.JOB_SECONDS,
        job_bytes: Callable[[], int] = lambda: settings.JOB_BYTES,
    ) -> None:
        self.lock = threading.Condition()
        self.jobs: dict[Any, _Job] = {}
        self.order: list[_Job] = []  # arrival order: waiting and active jobs
        self.counter = itertools.count(1)
        self.long_slots, self.quick_slots = long_slots, quick_slots
        self.launch, self.job_seconds, self.job_bytes = launch, job_seconds, job_bytes
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._thread: threading.Thread | None = None
        self._closing: list[Any] = []  # workers of ended jobs, for the dispatcher to close
        self.started_total = 0  # processes started (tests, benchmarks)

    # --------------------------------------------------------------- visitors' side
    def join(
        self,
        key: Any,
        fn: Callable[..., Any],
        args: tuple,
        kwargs: dict,
        lane: Lane,
        visitor: str,
    ) -> _Job:
        """Wait for ``key``'s job as ``visitor`` (a new job joins the line at its end)."""
        with self.lock:
            job = self.jobs.get(key)
            if job is None:
                job = _Job(key, fn, args, kwargs, lane, next(self.counter))
                self.jobs[key] = job
                self.order.append(job)
            elif lane == "long" and job.lane == "quick" and job.state == "waiting":
                job.lane = "long"  # one caller calls it long: it is not a quick run
            job.visitors[visitor] += 1
            self._schedule()
        self._ensure_thread()
        return job

    def leave(self, job: _Job, visitor: str) -> None:
        """``visitor`` no longer waits for ``job``; a job nobody waits for is stopped."""
        with self.lock:
            job.visitors[visitor] -= 1
            if job.visitors[visitor] <= 0:
                del job.visitors[visitor]
            if not job.visitors and not job.done.is_set():
                self._end(job, error=JobStopped("nobody waits for it"))
            self._schedule()

    def handed_over(self, job: _Job, visitor: str) -> bool:
        """Whether a run of ``visitor`` that a newer run has replaced may leave ``job`` now:
        it has ended, or someone else waits for it too (another tab, or the newer run that
        asked for the same computation: it goes on for them), or ``visitor`` waits for another
        job (the newer run asked for something else: nobody will take this one over)."""
        with self.lock:
            if job.done.is_set() or sum(job.visitors.values()) > 1:
                return True
            return any(j is not job and visitor in j.visitors for j in self.order)

    def place(self, job: _Job, visitor: str) -> Place:
        with self.lock:
            if job.done.is_set():
                return Place("done")
            if job.active:
                return Place("running")
            running = sum(1 for j in self.order if j.active and j.lane == job.lane)
            for number, queued in enumerate(self._in_line(job.lane), start=1):
                if queued is job:
                    return Place("line", number, running)
            return Place("held", 0, running)

    def counts(self) -> dict[str, int]:
        with self.lock:
            running = sum(1 for j in self.order if j.active)
            return {"running": running, "waiting": len(self.order) - running}

    # --------------------------------------------------------------- the rules
    def _in_line(self, lane: Lane) -> list[_Job]:
        """The lane's waiting jobs that hold a place in its line, first first."""
        line = [j for j in self.order if j.state == "waiting" and j.lane == lane and j.ticket]
        return sorted(line, key=lambda j: j.ticket or 0)

    def _admit(self) -> None:
        """Give a place in line to each held job that has a visitor with no run of its lane
        going or in line (oldest first). A visitor's next run so joins the end of the line
        when their current one ends: round robin, not first come first served."""
        for lane in ("quick", "long"):
            occupied: set[str] = set()
            for j in self.order:
                if j.lane == lane and (j.active or (j.state == "waiting" and j.ticket)):
                    occupied.update(j.visitors)
            for j in self.order:
                if j.lane != lane or j.state != "waiting" or j.ticket:
                    continue
                if any(v not in occupied for v in j.visitors):
                    j.ticket = next(self.counter)
                    occupied.update(j.visitors)

    def _schedule(self) -> None:
        """Start what may start (under the lock): the quick lane's first in line takes a free
        quick process, else a free long one; the long lane's first takes a free long one."""
        self._admit()
        busy = Counter(j.slot for j in self.order if j.active)
        free = {"quick": self.quick_slots - busy["quick"], "long": self.long_slots() - busy["long"]}
        for lane in ("quick", "long"):
            for job in self._in_line(lane):
                slot: Lane | None = None
                if lane == "quick" and free["quick"] > 0:
                    slot = "quick"
                elif free["long"] > 0:
                    slot = "long"
                if slot is None:
                    break
                free[slot] -= 1
                job.state, job.slot = "starting", slot
                job.message = "starting"
                threading.Thread(
                    target=self._start, args=(job,), name=f"mip-job-start-{job.number}", daemon=True
                ).start()

    def _start(self, job: _Job) -> None:
        """Start ``job``'s process (outside the lock: a fork server that has to be started
        again takes seconds)."""
        try:
            worker = self.launch(job.fn, job.args, job.kwargs, job.slot or job.lane)
        except Exception as exc:  # pragma: no cover - the system refused a process
            with self.lock:
                self._end(job, error=JobFailed(f"its process could not be started ({exc})"))
                self._schedule()
            return
        with self.lock:
            self.started_total += 1
            if job.done.is_set():  # stopped while it started
                worker.kill()
                self._closing.append(worker)
            else:
                job.worker, job.state = worker, "running"
                job.started = time.monotonic()
                job.message = ""
        self._wake()

    def _end(self, job: _Job, *, result: Any = None, error: BaseException | None = None) -> None:
        """Finish ``job`` (under the lock): its result or error; its process is killed at once
        and closed by the dispatcher (the one thread that touches a worker's files)."""
        if job.done.is_set():
            return
        job.result, job.error, job.state = result, error, "done"
        if job in self.order:
            self.order.remove(job)
        if self.jobs.get(job.key) is job:
            del self.jobs[job.key]
        if job.worker is not None:
            job.worker.kill()
            self._closing.append(job.worker)
        job.done.set()
        self.lock.notify_all()
        self._wake()

    # --------------------------------------------------------------- the dispatcher
    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"x")

    def _ensure_thread(self) -> None:
        with self.lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._loop, name="mip-job-line", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                self._turn()
            except Exception:  # pragma: no cover - a bug here must not stop every job
                import logging

                logging.getLogger(__name__).exception("appkit.jobs: the dispatcher failed")
                time.sleep(POLL_S)

    def _turn(self) -> None:
        """One turn of the dispatcher: close ended workers, wait (at most a second) for a
        message, a process's end or a wake-up, then read every running job."""
        with self.lock:
            closing, self._closing = self._closing, []
            running = [j for j in self.order if j.state == "running" and j.worker is not None]
        for worker in closing:
            worker.close()
        waitables: list[Any] = [self._wake_r]
        for j in running:
            waitables += j.worker.waitables()  # type: ignore[union-attr]
        # while jobs run, look at their memory five times a second
        ready = wait_for(waitables, timeout=MEMORY_POLL_S if running else 1.0)
        if self._wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 4096)
        now = time.monotonic()
        for j in running:
            self._read(j, now)

    def _read(self, job: _Job, now: float) -> None:
        """Take every message ``job``'s process has sent; end it if it has died or run too
        long. Only the dispatcher reads a worker, so the reading needs no lock."""
        worker = job.worker
        if job.done.is_set() or worker is None:
            return
        outcome: tuple[Any, ...] | None = None
        progress: tuple[float, str] | None = None
        dead = False
        try:
            while outcome is None and worker.conn.poll():
                msg = worker.conn.recv()
                if msg[0] == "progress":
                    progress = (msg[1], msg[2])
                else:
                    outcome = msg
            if outcome is None and worker.exited():
                # ended: take what it may have sent just before, else it died
                while outcome is None and worker.conn.poll(0.05):
                    msg = worker.conn.recv()
                    if msg[0] != "progress":
                        outcome = msg
                dead = outcome is None
        except (EOFError, OSError):
            dead = outcome is None  # the pipe closed without an outcome: the process died
        code = worker.exit_code() if dead else None
        too_big = not dead and outcome is None and worker.rss() > self.job_bytes()
        with self.lock:
            if job.done.is_set():
                return
            if progress is not None:
                job.fraction, job.message = progress
            if outcome is not None:
                kind, value = outcome[0], outcome[1]
                if kind == "result":
                    self._end(job, result=value)
                elif kind == "value_error":
                    self._end(job, error=ValueError(value))
                elif kind == "memory":
                    self._end(job, error=JobFailed(_death_sentence(None, self.job_bytes())))
                else:  # a bug in the computation: shown as an error, not hidden
                    self._end(job, error=RuntimeError(value))
            elif dead:
                self._end(job, error=JobFailed(_death_sentence(code)))
            elif too_big:
                self._end(job, error=JobFailed(_death_sentence(None, self.job_bytes())))
            elif job.started is not None and now - job.started > self.job_seconds():
                limit = self.job_seconds()
                span = f"{limit / 60:.0f} minutes" if limit >= 120 else f"{limit:.0f} seconds"
                self._end(
                    job,
                    error=JobFailed(
                        f"it ran for more than {span}, the longest one computation may run on "
                        "this server. Nothing was kept: try a smaller setting"
                    ),
                )
            else:
                return
            self._schedule()


_LINE = Line()


def running_jobs() -> dict[str, int]:
    """``running`` and ``waiting`` job counts (for tests and the benchmark)."""
    return _LINE.counts()


# ----------------------------------------------------------------------------- a page's side


def visitor() -> str:
    """Who asks, for the line's one-place rule: the browser (the token of its XSRF cookie, the
    same in all its tabs), else the session; a digest, never the token itself."""
    run_info = internals.script_run()
    if run_info is None:
        return "thread:" + str(threading.get_ident())
    browser = internals.browser_id()
    return "browser:" + browser if browser else "session:" + run_info.session_id


class _Status:
    """The status line of one :func:`run` (place in line, progress): a placeholder that only
    the script run which created it writes to, and only while that run still has the page.

    With ``runner.fastReruns`` (Streamlit's default; the app's configuration turns it off, a
    server may turn it on) a page switch or a control outside every fragment does not interrupt
    the run waiting here: Streamlit starts the new run at once, in a thread of its own, and only
    asks this one to stop, which it learns at its next write. A full run also clears the places
    a fragment's run held in the containers outside it (where pages put this status). So a
    write by the old run -- a redraw, or the ``empty()`` once its job ended -- went to a place
    that was gone, and Streamlit raised ``StreamlitInvalidLayoutContextError`` (it looks for
    that place before it looks for the stop). Here a run that has lost the page writes nothing:
    :meth:`show` ends the run instead (as Streamlit would have at that write), :meth:`clear`
    leaves the element alone.
    """

    def __init__(self) -> None:
        self._element = st.empty()

    def show(self, kind: str, text: str, fraction: float) -> None:
        if internals.run_stopped():
            internals.end_run()
        try:
            if kind == "info":
                self._element.info(text, icon="⏳")
            else:
                self._element.progress(fraction, text=text)
        except internals.LayoutContextError:
            if internals.run_stopped():  # the stop landed between the question and the write
                internals.end_run()
            raise

    def clear(self) -> None:
        """Take the status away (nothing for a run that has lost the page). A rerun Streamlit
        holds for this run is raised here."""
        if internals.run_stopped():
            return
        try:
            self._element.empty()
        except internals.LayoutContextError:
            if not internals.run_stopped():  # the stop landed between the question and the write
                raise


def _give_way(status: _Status) -> None:
    """Leave this run if the user changed a control since it began (the ``finally`` of
    :func:`run` then stops the job).

    A control inside a fragment never interrupts a run: in a fragment's own rerun, rerun that
    fragment with it; in a full run (a first load), rerun the page, which takes the waiting
    value with it -- Streamlit refuses a fragment rerun there. A control outside every
    fragment, or a page switch, interrupts the run at its next element: redrawing the status is
    enough (the app's configuration turns ``runner.fastReruns`` off; with it on, Streamlit
    starts a newer run instead and asks this one to stop, which :func:`run` sees itself).
    """
    waiting = internals.waiting_rerun()
    if waiting == "app":
        status.clear()  # Streamlit raises its rerun here
    elif waiting == "fragment" and internals.in_fragment():
        if internals.in_fragment_rerun():
            st.rerun(scope="fragment")
        st.rerun()


def _status_text(job: _Job, place: Place, label: str) -> tuple[str, str]:
    lane = "short" if job.lane == "quick" else "long"
    if place.kind == "line":
        return "info", (
            f"{label} waits for its turn: number {place.number} in the line of {lane} "
            f"computations ({place.running} running). {RULE}"
        )
    if place.kind == "held":
        return "info", (
            f"{label} waits for your other {lane} computation (in another tab or window) to "
            f"finish first. {RULE}"
        )
    elapsed = time.monotonic() - (job.started or time.monotonic())
    if job.state == "starting":
        return "progress", f"{label}: starting"
    return "progress", f"{label}: {job.message or 'running'} ({elapsed:.0f} s)"


def _waited(job: _Job) -> bool:
    """Whether ``job`` ended within :data:`POLL_S`, waited for out of turn (another run
    computes meanwhile: :func:`appkit.turns.step_aside`)."""
    with turns.step_aside():
        return job.done.wait(POLL_S)


def run(
    fn: Callable[..., T],
    /,
    *args: Any,
    label: str = "The computation",
    quick: bool = False,
    max_entries: int = 16,
    **kwargs: Any,
) -> T:
    """``fn(*args, **kwargs)`` computed in its own process, cached; see the module docstring.

    ``quick=True`` says the run is no larger than the page's default view (it takes the
    quick lane). While it waits or runs, the page shows the place in line or a progress bar
    with the run's own messages. Returns the result; a ``ValueError`` raised by ``fn`` is
    re-raised (and cached, like :func:`appkit.cached`); a process that died or ran out of time
    raises :class:`JobFailed` (not cached). If the session goes away, the run is stopped and
    the script run with it.
    """
    name = f"{fn.__module__}.{fn.__qualname__}"
    key = (name, _content_key(args), _content_key(kwargs))
    with _STORE.lock:
        hit = _STORE.entries.get(key)
        if hit is not None:
            _STORE.entries.move_to_end(key)
            _STORE.hits += 1
    if hit is not None:
        if hit.error is not None:
            raise hit.error
        return hit.value
    # Every Streamlit call may raise the rerun that a newer input requested: none may stand
    # between joining the line and the ``try`` whose ``finally`` leaves it (a job left in line
    # with a watcher that is gone would hold a place nobody uses).
    status = _Status()
    who = visitor()
    job = _LINE.join(key, fn, args, kwargs, "quick" if quick else "long", who)
    try:
        shown: tuple[Any, ...] = ()
        drawn_at = 0.0
        replaced_at: float | None = None
        while not _waited(job):
            if internals.run_stopped():
                # A newer run has the page: show nothing more, and keep the job a moment for
                # that run to take over if it asks for the same computation.
                replaced_at = replaced_at or time.monotonic()
                if _LINE.handed_over(job, who) or time.monotonic() - replaced_at >= HANDOVER_S:
                    internals.end_run()  # the finally below leaves the job
                continue
            if not internals.session_active():
                st.stop()  # the tab is gone: the finally below stops the run
            _give_way(status)
            place = _LINE.place(job, who)
            kind, text = _status_text(job, place, label)
            fraction = min(max(job.fraction, 0.0), 1.0)
            now = time.monotonic()
            if (kind, text, fraction) != shown[:3] and (
                now - drawn_at >= STATUS_S or kind != (shown[0] if shown else None)
            ):
                status.show(kind, text, fraction)
                shown, drawn_at = (kind, text, fraction), now
    finally:
        _LINE.leave(job, who)
        status.clear()
    if job.error is None:
        value = _share(job.result)
        _STORE.put(key, _Entry(value, None, _size(value), name), max_entries)
    elif isinstance(job.error, ValueError):
        _STORE.put(key, _Entry(None, job.error, 1000, name), max_entries)
    if internals.run_stopped():
        # kept for whoever asks next (the newer run, maybe), but not drawn by this run: the
        # page it would draw on is no longer its own
        internals.end_run()
    if job.error is None:
        return value
    raise job.error
