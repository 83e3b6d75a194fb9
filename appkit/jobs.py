"""Heavy computations: in their own process, a few at a time, stopped when nobody waits.

One Streamlit server serves a whole classroom from one process: a long NumPy run in a
session's thread would hold the GIL and the memory every other session needs. So a page
hands each heavy computation to :func:`run`:

* **its own process** (started from a fork server that has NumPy and mipcore loaded, so a
  start costs tens of milliseconds): the server's threads keep answering other sessions,
  and the memory a run needs is returned to the system when it ends;
* **a global limit** (:data:`appkit.settings.HEAVY_JOBS`, 1 on a 2-core machine) on how
  many run at once; the others wait in line, and the page tells its user their place;
* **stopped when nobody waits for it**: when the user changes a control or presses the
  page's Stop button (Streamlit interrupts the script run; inside a fragment, where it does
  not, the run sees the waiting input and stops itself), or when the browser tab is
  closed (the session is no longer active), the process is terminated at once -- it does
  not keep computing for minutes after its tab is gone;
* **cached**: a finished result goes into the same bounded store as :func:`appkit.cached`,
  and a second session asking for the same run while it computes waits for that run
  instead of starting another.

The function must be a module-level function (it is pickled by name); if it takes a
``progress`` keyword, it is given a callable ``progress(fraction, message)`` whose calls
update the page's progress bar.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import multiprocessing as mp
import os
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import streamlit as st
from threadpoolctl import threadpool_limits

from . import settings
from .cache import _STORE, _content_key, _Entry, _share, _size

__all__ = ["JobStopped", "run", "running_jobs", "warm_up"]

T = TypeVar("T")
POLL_S = 0.1

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
        "mipcore.lessons.figure2",
        "mipcore.guarantees",
        "sklearn.linear_model",
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
    """The run was stopped because its session went away (nothing to show)."""


@dataclass
class _Job:
    key: Any
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    number: int
    started: float | None = None
    fraction: float = 0.0
    message: str = ""
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    process: Any = None
    watchers: int = 0
    reading: threading.Lock = field(default_factory=threading.Lock)


class _Line:
    """The jobs waiting and running, in arrival order."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.jobs: dict[Any, _Job] = {}
        self.order: list[_Job] = []
        self.counter = itertools.count(1)

    def place(self, job: _Job) -> tuple[int, int]:
        """(this job's place among the waiting, number running); place 0 = running."""
        with self.lock:
            running = sum(1 for j in self.order if j.started is not None)
            if job.started is not None:
                return 0, running
            waiting = [j for j in self.order if j.started is None]
            return waiting.index(job) + 1 if job in waiting else 0, running


_LINE = _Line()


def _child(fn: Callable[..., Any], args: tuple, kwargs: dict, conn: Any) -> None:
    """Runs in the job's process: call ``fn``, send progress and the outcome back."""

    def progress(fraction: float, message: str = "") -> None:
        conn.send(("progress", float(fraction), str(message)))

    threadpool_limits(1)  # one BLAS thread: the server's own threads use the other core

    try:
        if "progress" in inspect.signature(fn).parameters:
            kwargs = {**kwargs, "progress": progress}
        conn.send(("result", fn(*args, **kwargs)))
    except ValueError as exc:
        conn.send(("value_error", str(exc)))
    except BaseException as exc:  # pragma: no cover - reported to the page as an error
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _in_fragment() -> bool:
    """Whether this code runs inside a fragment (:func:`appkit.live`)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        return ThreadState.get().fragment_id is not None
    except Exception:  # outside a script run (a thread of the tests) or internals changed
        return False


def _newer_input_waits() -> bool:
    """True when this run computes inside a fragment and the user has changed a control since.

    Streamlit interrupts a script run for a newer input only when that input reruns the whole
    page; a widget inside a fragment (:func:`appkit.live`) queues its rerun behind the running
    one instead, so without this check a Stop button or a moved slider would wait for the job
    to finish, holding the server's heavy-job slot. Inside a fragment the job gives way itself:
    :func:`run` then reruns the fragment, which picks up the waiting input.
    """
    if not _in_fragment():
        return False
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
        from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

        ctx = get_script_run_ctx()
        requests = None if ctx is None else ctx.script_requests
        return requests is not None and requests._state is ScriptRequestType.RERUN
    except Exception:  # pragma: no cover - Streamlit internals changed: never stop wrongly
        return False


def _session_active() -> bool:
    """False once the browser tab of this script run has gone (True outside a server)."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        if ctx is None or not Runtime.exists():
            return True
        return bool(Runtime.instance().is_active_session(ctx.session_id))
    except Exception:  # pragma: no cover - Streamlit internals changed: never stop wrongly
        return True


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


def _start(job: _Job) -> None:
    parent, child = _CTX.Pipe(duplex=False)
    proc = _CTX.Process(target=_child, args=(job.fn, job.args, job.kwargs, child), daemon=True)
    with _main_hidden():
        proc.start()
    child.close()
    job.process = (proc, parent)
    job.started = time.monotonic()


def _finish(job: _Job, *, result: Any = None, error: BaseException | None = None) -> None:
    with _LINE.lock:
        job.result, job.error = result, error
        if job in _LINE.order:
            _LINE.order.remove(job)
        _LINE.jobs.pop(job.key, None)
        if job.process is not None:
            proc, conn = job.process
            if proc.is_alive():
                proc.terminate()
            conn.close()
        job.done.set()
        _LINE.lock.notify_all()


def _pump(job: _Job) -> None:
    """Start ``job`` when its turn comes; read its progress and outcome (watcher's thread)."""
    with _LINE.lock:
        for stale in [j for j in _LINE.order if j.started is None and j.watchers == 0]:
            _finish(stale, error=JobStopped("a run nobody waits for"))  # never hold up the line
        if job.started is None:
            running = sum(1 for j in _LINE.order if j.started is not None)
            first_waiting = next((j for j in _LINE.order if j.started is None), None)
            if running < settings.HEAVY_JOBS and first_waiting is job:
                _start(job)
    if job.started is None or job.done.is_set():
        return
    proc, conn = job.process
    with job.reading:  # one reader at a time when several sessions wait for the same run
        if job.done.is_set():
            return
        _read(job, proc, conn)


def _read(job: _Job, proc: Any, conn: Any) -> None:
    # wait for the next message (at most POLL_S), then take every message that has arrived
    if not conn.poll(POLL_S) and proc.is_alive():
        return
    while conn.poll():
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg[0] == "progress":
            job.fraction, job.message = msg[1], msg[2]
        elif msg[0] == "result":
            _finish(job, result=msg[1])
            return
        elif msg[0] == "value_error":
            _finish(job, error=ValueError(msg[1]))
            return
        else:  # a bug in the computation: shown as an error, not hidden
            _finish(job, error=RuntimeError(msg[1]))
            return
    if not proc.is_alive() and not conn.poll():
        _finish(
            job,
            error=ValueError(
                f"its process ended without a result (exit code {proc.exitcode}; out of memory?)"
                " -- try a smaller setting"
            ),
        )


def running_jobs() -> dict[str, int]:
    """``running`` and ``waiting`` job counts (for tests and the benchmark)."""
    with _LINE.lock:
        running = sum(1 for j in _LINE.order if j.started is not None)
        return {"running": running, "waiting": len(_LINE.order) - running}


def run(
    fn: Callable[..., T],
    /,
    *args: Any,
    label: str = "The computation",
    max_entries: int = 16,
    **kwargs: Any,
) -> T:
    """``fn(*args, **kwargs)`` computed in its own process, cached; see the module docstring.

    While it waits or runs, the page shows the place in line or a progress bar with the
    run's own messages. Returns the result; a ``ValueError`` raised by ``fn`` is re-raised
    (and cached, like :func:`appkit.cached`). If the session goes away, the run is
    terminated and the script run stops.
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
        return hit.value  # type: ignore[no-any-return]
    # Every Streamlit call may raise the rerun that a newer input requested: none may stand
    # between becoming a watcher and the ``try`` whose ``finally`` stops watching (a job left
    # in line with a watcher that is gone would hold up every later job on the server).
    status = st.empty()
    with _LINE.lock:
        job = _LINE.jobs.get(key)
        if job is None:
            job = _Job(key, fn, args, kwargs, next(_LINE.counter))
            _LINE.jobs[key] = job
            _LINE.order.append(job)
        job.watchers += 1
    try:
        while not job.done.is_set():
            _pump(job)  # waits up to POLL_S for the running job's next message
            if job.done.is_set():
                break
            if not _session_active():
                st.stop()  # the tab is gone: the finally below terminates the run
            if _newer_input_waits():
                # Rerun the fragment with the waiting input (st.stop() would drop it); the
                # finally below terminates this run's job.
                st.rerun(scope="fragment")
            place, running = _LINE.place(job)
            if place:
                status.info(
                    f"{label} waits for its turn: number {place} in line "
                    f"({running} running; at most {settings.HEAVY_JOBS} at once on this server).",
                    icon="⏳",
                )
                time.sleep(POLL_S)
            else:
                elapsed = time.monotonic() - (job.started or time.monotonic())
                status.progress(
                    min(max(job.fraction, 0.0), 1.0),
                    text=f"{label}: {job.message or 'running'} ({elapsed:.0f} s)",
                )
    finally:
        with _LINE.lock:
            job.watchers -= 1
            abandoned = job.watchers == 0 and not job.done.is_set()
        if abandoned:  # nobody waits for it any more (rerun, Stop, tab closed)
            _finish(job, error=JobStopped(label))
        status.empty()
    if job.error is None:
        value = _share(job.result)
        _STORE.put(key, _Entry(value, None, _size(value), name), max_entries)
        return value  # type: ignore[no-any-return]
    if isinstance(job.error, ValueError):
        _STORE.put(key, _Entry(None, job.error, 1000, name), max_entries)
    raise job.error
