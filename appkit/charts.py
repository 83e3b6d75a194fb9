"""Every chart is shown with hover values and a CSV download of exactly its data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mipcore.text import fmt_num

__all__ = ["chart_with_csv", "csv_bytes", "fmt_num"]


def chart_with_csv(fig, data: pd.DataFrame, name: str, *, key: str | None = None,
                   caption: str | None = None) -> None:
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


