"""Every chart is shown with hover values and a CSV download of exactly its data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

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


def fmt_num(x: float, digits: int = 4) -> str:
    """Human formatting of a number for page text: never prints 'nan'.

    Uses plain notation between 1e-4 and 1e6 and scientific notation outside.
    """
    if x is None:
        return "—"
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    ax = abs(x)
    if 1e-4 <= ax < 1e6:
        text = f"{x:.{digits}g}"
        if "e" in text:  # '.Ng' switches to e-notation from 10**digits on
            text = f"{float(text):.0f}"
        return text
    mant, exp = f"{x:.{max(digits - 1, 0)}e}".split("e")
    return f"{mant} × 10^{int(exp)}"
