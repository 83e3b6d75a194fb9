"""Script runs take turns: at most :data:`appkit.settings.RUNS_AT_ONCE` compute at a time.

Streamlit runs each session's script in a thread of its own, and Python runs one thread at a
time (the GIL), handing it round every 5 ms. With many sessions changing at once, every run
then advances a slice at a time: each takes as long as all of them together, and the event
loop that sends their output waits its slice too. Measured with ``benchmarks/capacity.py`` (60
sessions, one change each every 2 s, one process), the same work was answered at p95 274-350 ms
with every run computing at once and 101-131 ms with one at a time (130 ms with two; in a
slower hour 169 ms with one, 331 ms with two): a run that waits its turn and then runs through
is done sooner than one that shares the core with twenty. The default is one.

* :func:`hold` -- around a script run's work (``app.py`` around the page, :func:`appkit.live`
  around a live part's rerun): waits for a turn, and keeps it until the run ends or stops.
  Nested holds in one thread (a live part inside a full run) are one turn.
* :func:`step_aside` -- around anything a run waits for that is not computing: a heavy job's
  process (:func:`appkit.jobs.run`), another session computing the same cached result
  (:func:`appkit.cached`), the class storage's pauses (a retry's, a throttled lookup's). Its
  turn goes to the next run meanwhile; without this, a run waiting for another that waits for
  a turn would wait for ever. A storage query itself keeps the turn: it is short, and the
  SQLite writer lock it may wait for is only ever held by a run that needs no other turn.

A run that is stopped (a newer input, a closed tab) leaves its turn as it unwinds. A thread that
is no script run (a job's dispatcher, a test) may call both: they only count per thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from . import settings

__all__ = ["hold", "holding", "step_aside"]

_TURNS = threading.BoundedSemaphore(settings.RUNS_AT_ONCE)
_HELD = threading.local()  # .depth: this thread's nested holds (0 or absent: none)


def holding() -> bool:
    """Whether this thread holds a turn."""
    return getattr(_HELD, "depth", 0) > 0


@contextmanager
def hold() -> Iterator[None]:
    """Wait for a turn (unless this thread holds one) and keep it for the block."""
    depth = getattr(_HELD, "depth", 0)
    if depth == 0:
        _TURNS.acquire()
    _HELD.depth = depth + 1
    try:
        yield
    finally:
        _HELD.depth -= 1
        if _HELD.depth == 0:
            _TURNS.release()


@contextmanager
def step_aside() -> Iterator[None]:
    """Give this thread's turn (if any) to the next run for the block, then wait for it back."""
    depth = getattr(_HELD, "depth", 0)
    if depth == 0:
        yield
        return
    _HELD.depth = 0
    _TURNS.release()
    try:
        yield
    finally:
        _TURNS.acquire()
        _HELD.depth = depth
