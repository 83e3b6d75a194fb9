"""Turn mipcore's ValueErrors into sentences on the page instead of tracebacks."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

__all__ = ["guard"]


@contextmanager
def guard(what: str = "This computation", *, stop: bool = False):
    """Run a block; a ``ValueError`` from mipcore becomes an ``st.error`` sentence.

    ``what`` names the thing that could not be computed. With ``stop=True`` the
    rest of the page is skipped (for blocks whose result everything below needs).

    Only ``ValueError`` (mipcore's documented way to refuse input) and
    ``OverflowError``/``ZeroDivisionError`` (arithmetic at the edge of a domain)
    are turned into messages; any other exception is a bug and is left visible.
    """
    try:
        yield
    except (ValueError, OverflowError, ZeroDivisionError) as exc:
        st.error(f"{what} could not be computed: {exc}", icon="🚫")
        if stop:
            st.stop()
