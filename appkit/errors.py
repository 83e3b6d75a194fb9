"""Turn refusals and failed computations into sentences on the page instead of tracebacks."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

__all__ = ["Halt", "guard"]


class Halt(Exception):
    """Skip the rest of a page's live part; :func:`appkit.live` still draws the footer.

    Raised by :func:`guard` with ``stop=True`` inside a live part. ``st.stop()`` there would
    end the whole script run: during a page's first (full) run that leaves the footer unwritten,
    and Streamlit then refuses every later rerun of the live part that writes it.
    """


class _Live(threading.local):
    on = False  # this thread is drawing a live part (appkit.live sets it)


LIVE = _Live()


@contextmanager
def guard(what: str = "This computation", *, stop: bool = False) -> Iterator[None]:
    """Run a block; a refusal or a failed heavy computation becomes an ``st.error`` sentence.

    ``what`` names the thing that could not be computed. With ``stop=True`` the
    rest of the page (inside :func:`appkit.live`: the rest of its live part) is skipped, for
    blocks whose result everything below needs.

    Turned into messages: ``ValueError`` (mipcore's documented way to refuse input),
    ``OverflowError``/``ZeroDivisionError`` (arithmetic at the edge of a domain) and
    :class:`appkit.jobs.JobFailed` (a computation's process died or ran out of time or
    memory: its message says which, and what to try). Any other exception is a bug and is
    left visible.
    """
    from .jobs import JobFailed

    try:
        yield
    except JobFailed as exc:
        st.error(f"{what} could not be finished: {exc}.", icon="🚫")
        if stop:
            _halt()
    except (ValueError, OverflowError, ZeroDivisionError) as exc:
        st.error(f"{what} could not be computed: {exc}", icon="🚫")
        if stop:
            _halt()


def _halt() -> None:
    if LIVE.on:
        raise Halt
    st.stop()
