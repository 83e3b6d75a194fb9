"""Figures as the app shows them: frozen for sharing, and drawn with one configuration.

A figure built by :mod:`mipcore.plots` is a plain ``plotly.graph_objects.Figure``. When it
is cached (:func:`appkit.cached`) it becomes a :class:`ReadOnlyFigure`: shared by every
session, never modified again, and therefore serialised only once.
"""

from __future__ import annotations

import pickle
from typing import Any

import plotly.graph_objects as go

__all__ = ["ReadOnlyFigure", "freeze"]


class ReadOnlyFigure(go.Figure):
    """A figure that is never modified again, so it is serialised only once.

    Streamlit calls ``to_dict()`` on every rerun that shows a figure; Plotly then deep-copies
    the figure and base64-encodes each data array (1-2 ms per chart, whatever the number of
    points). This class computes that dict once, keeps it pickled and returns a fresh
    unpickled copy (~0.05 ms), so a caller may still modify what it gets. Modifying the
    figure itself is not supported (its serialisation would be stale).
    """

    def serialised(self) -> bytes:
        memo: bytes | None = self.__dict__.get("_to_dict_pickle")
        if memo is None:
            memo = pickle.dumps(super().to_dict(), pickle.HIGHEST_PROTOCOL)
            self.__dict__["_to_dict_pickle"] = memo
        return memo

    def to_dict(self) -> dict[str, Any]:
        return pickle.loads(self.serialised())  # type: ignore[no-any-return]


def freeze(fig: go.Figure) -> ReadOnlyFigure:
    """Make a freshly built figure read-only (the same object, no copy)."""
    if not isinstance(fig, ReadOnlyFigure):
        fig.__class__ = ReadOnlyFigure
    assert isinstance(fig, ReadOnlyFigure)
    fig.serialised()
    return fig
