"""Plotly figure builders used by the pages (no Streamlit), so every figure can be made headless.

* :mod:`mipcore.plots.bounds_figs` -- Theorem 4's eta(epsilon) curves and the ROC regions (Theorem 8, DP).
* :mod:`mipcore.plots.figure1_figs` -- Figure 1: noise scale and DP/MIP ratio against eta.
* :mod:`mipcore.plots.prop11_figs` -- Proposition 11: Delta/sigma against n beside 2^(n/3), and the
  distribution of the output over the halves.

Builders take results (floats, arrays, DataFrames), never widgets.
"""

import pickle

import plotly.graph_objects as go

__all__ = ["ReadOnlyFigure", "freeze"]


class ReadOnlyFigure(go.Figure):
    """A figure that is never modified again, so it is serialised only once.

    Streamlit calls ``to_dict()`` on every rerun that shows a figure; Plotly then deep-copies
    the figure and base64-encodes each data array (1-2 ms per chart here, whatever the number
    of points). This class computes that dict once, keeps it pickled and returns a fresh
    unpickled copy (~0.05 ms), so a caller may still modify what it gets. Modifying the
    figure itself is not supported (its serialisation would be stale): use it for figures
    held in a cache and shared read-only.
    """

    def to_dict(self) -> dict:
        memo = self.__dict__.get("_to_dict_pickle")
        if memo is None:
            memo = self._to_dict_pickle = pickle.dumps(super().to_dict(), pickle.HIGHEST_PROTOCOL)
        return pickle.loads(memo)


def freeze(fig: go.Figure) -> ReadOnlyFigure:
    """Make a freshly built figure read-only (same object, no copy): see :class:`ReadOnlyFigure`."""
    fig.__class__ = ReadOnlyFigure
    return fig
