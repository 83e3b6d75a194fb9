"""The page tests' helper ``pagetools.chart_nans``: it must find NaN in chart data, in plain
lists and in Plotly's base64 typed arrays, and must not mistake base64 letters for NaN."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pagetools
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from conftest import app_pages
from pagetools import chart_nans


def test_counts_nan_in_lists_and_typed_arrays():
    # NumPy data: Plotly writes base64 typed arrays (plain-list NaN it turns into null)
    fig = go.Figure(
        data=[dict(type="scatter", x=np.arange(4.0), y=np.array([1.0, np.nan, np.nan, 3.0]))]
    )
    assert chart_nans(pio.to_json(fig)) == 2
    assert (
        chart_nans(
            pio.to_json(go.Figure(data=[dict(type="scatter", x=[0, 1], y=[1.0, float("nan")])]))
        )
        == 0
    )
    # a NaN literal in a plain list (what json.dumps writes for float('nan'))
    assert chart_nans('{"data": [{"y": [1.0, NaN, 2.0], "x": [0, 1, 2]}]}') == 1


def test_base64_letters_are_not_nan():
    rng = np.random.default_rng(0)
    for _ in range(100_000):  # find finite data whose base64 text happens to contain "NaN"
        arr = rng.normal(size=6)
        if "NaN" in base64.b64encode(arr.tobytes()).decode():
            break
    else:
        raise AssertionError("no such array found")
    spec = pio.to_json(go.Figure(data=[dict(type="scatter", x=np.arange(6.0), y=arr)]))
    assert "NaN" in spec and chart_nans(spec) == 0


def test_markdown_tables_read_back_what_appkit_tables_shows():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(
        "import appkit\n"
        "appkit.tables.table({'a | b': ['[x](y)', '1.5'], 'c': ['*', '']}, right=['c'])\n"
        "import streamlit as st\n"
        "st.markdown('| not | a table |')\n",
        default_timeout=30,
    ).run()
    (table,) = pagetools.markdown_tables(at)
    assert list(table.columns) == ["a | b", "c"]
    assert table.to_dict("list") == {"a | b": ["[x](y)", "1.5"], "c": ["*", ""]}


@pytest.mark.parametrize(
    "spec", [p for p in app_pages() if p.script is not None], ids=lambda p: p.name
)
def test_load_runs_the_page_it_names(spec):
    """``load`` selects a page before AppTest's first run, where AppTest finds it by its file
    name: every page's URL path must be its file's name, and the run must be that page's
    (its title), with app.py's navigation around it."""
    assert Path(spec.script).stem == spec.url_path
    at = pagetools.load(spec.script)
    assert [t.value for t in at.title] == [spec.title]
