"""Older chart helpers, kept while pages move to :func:`appkit.chart` and :func:`appkit.cached`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mipcore.plots import ReadOnlyFigure

__all__ = ["cached_figure", "chart_with_csv", "csv_bytes"]

_FIGURE_CACHES: dict = {}


def cached_figure(builder, /, *args, **kwargs):
    """``builder(*args, **kwargs)``, remembered per argument values for the server's lifetime.

    Building and validating a Plotly figure costs several ms, and most reruns change one
    control while most charts stay as they were. The cache is ``st.cache_resource`` (the same
    objects for every session, no pickling), created once per builder and process, not on
    every rerun as a decorator in a page script would be. So a builder must return figures
    that are never modified afterwards (``mipcore.plots.freeze``; a figure that is not frozen
    is rejected) and data the page only reads.
    """
    key = (builder.__module__, builder.__qualname__)
    wrapped = _FIGURE_CACHES.get(key)
    if wrapped is None:
        wrapped = _FIGURE_CACHES[key] = st.cache_resource(show_spinner=False, max_entries=64)(
            builder
        )
    out = wrapped(*args, **kwargs)
    fig = out[0] if isinstance(out, tuple) else out
    if not isinstance(fig, ReadOnlyFigure):
        raise TypeError(
            f"{key[1]} returned a {type(fig).__name__}, not a frozen figure "
            "(mipcore.plots.freeze): a shared cached figure must never change"
        )
    return out


def chart_with_csv(
    fig, data: pd.DataFrame, name: str, *, key: str | None = None, caption: str | None = None
) -> None:
    """Show a Plotly figure and, under it, a CSV download of ``data``.

    ``name`` becomes the file name (``name.csv``) and part of the button label.
    Non-finite numbers are written as empty cells, never as ``nan``/``inf`` text.
    """
    key = key or f"chart_{name}"
    st.plotly_chart(fig, key=key, config={"displaylogo": False})
    if caption:
        st.caption(caption)
    st.download_button(
        f"Download the data of this chart (CSV: {name}.csv)",
        lambda: csv_bytes(data),  # built only when clicked: reruns stay fast
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
    )


def csv_bytes(data: pd.DataFrame) -> bytes:
    """The CSV a chart's download button serves: UTF-8, no index, empty cells for NaN/inf."""
    clean = data.replace([np.inf, -np.inf], np.nan)
    return clean.to_csv(index=False, na_rep="").encode("utf-8")
