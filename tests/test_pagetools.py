"""The page tests' helpers (tests/pagetools.py): they must see what a page's Vega-Lite charts
draw -- a NaN in a chart's table, a change in its tables --, read Markdown tables back and
load the page they name."""

from __future__ import annotations

from pathlib import Path

import pagetools
import pytest
from conftest import app_pages
from streamlit.testing.v1 import AppTest

CHART = """
import pandas as pd
import appkit
from mipcore.plots.vega import VegaLiteChart
page = appkit.page("eta_epsilon")
y = [float(v) for v in {y!r}]
encoding = {{"x": {{"field": "x", "type": "quantitative"}}}}
points = pd.DataFrame({{"x": [0.0, 1.0]}})
lines = pd.DataFrame({{"x": [0.0, 1.0], "y": y}})
layer = {{"data": {{"name": "lines"}}, "mark": "line", "encoding": encoding}}
spec = {{"layer": [{{"mark": "point", "encoding": encoding}}, layer]}}
appkit.chart(VegaLiteChart(spec=spec, data=points, datasets={{"lines": lines}}), points, "c")
"""


def _chart_page(y: list) -> AppTest:
    at = AppTest.from_string(CHART.format(y=y), default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_vega_charts_read_every_table_a_chart_draws():
    ((spec, tables),) = pagetools.vega_charts(_chart_page([0.25, 0.5]))
    assert [layer["mark"] for layer in spec["layer"]] == ["point", "line"]
    assert tables[""]["x"].tolist() == [0.0, 1.0]
    assert tables["lines"]["y"].tolist() == [0.25, 0.5]


def test_assert_clean_finds_nan_in_a_charts_named_table():
    pagetools.assert_clean(_chart_page([0.25, 0.5]))
    with pytest.raises(AssertionError, match="holds NaN"):
        pagetools.assert_clean(_chart_page([0.25, "nan"]))


def test_snapshots_differ_when_only_a_charts_table_does():
    a, b, c = (pagetools.snapshot(_chart_page(y)) for y in ([0.25, 0.5], [0.25, 0.5], [0.25, 0.6]))
    assert a == b and a[1] != c[1] and a[0] == c[0]


def test_markdown_tables_read_back_what_appkit_tables_shows():
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


SLOW_PAGES = {
    "proposition11",
    "looseness",
    "reference_data",
    "audit_model",
}  # default views of > 3 s


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW_PAGES else p
        for p in app_pages()
        if p.script is not None
    ],
    ids=lambda p: p.name,
)
def test_load_runs_the_page_it_names(spec):
    """``load`` selects a page before AppTest's first run, where AppTest finds it by its file
    name: every page's URL path must be its file's name, and the run must be that page's
    (its title), with app.py's navigation around it."""
    assert Path(spec.script).stem == spec.url_path
    at = pagetools.load(spec.script)
    assert [t.value for t in at.title] == [spec.title]
