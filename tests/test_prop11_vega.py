"""Proposition 11's charts drawn by Vega-Lite (mipcore.plots.prop11_vega): mipcore.prop11's
numbers, drawn exactly, and specifications that the n slider does not change."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from test_vega import valid_vega_lite

from mipcore import prop11
from mipcore.plots import prop11_vega as pv
from mipcore.plots import style
from mipcore.plots.vega import DASH, SHAPE

NS = list(range(4, 201, 2))


@pytest.fixture(scope="module")
def table2() -> pd.DataFrame:
    return prop11.growth_table(NS, 2, rtol=1e-6, max_nodes=400)


@pytest.fixture(scope="module")
def table3() -> pd.DataFrame:
    return prop11.growth_table([4, 20, 48, 100, 200], 3, rtol=1e-6, max_nodes=400)


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def assert_no_nan(chart) -> None:
    for name, table in chart.datasets.items():
        numbers = table.select_dtypes("number").to_numpy(dtype=float)
        assert np.isfinite(numbers).all(), name


# --------------------------------------------------------------------------- growth


@pytest.mark.parametrize("n", [4, 48, 50, 200])
def test_growth_chart_draws_the_table(table2, n):
    chart, table = pv.growth_vega(table2, n_chosen=n, M=2)
    assert table is table2  # the CSV: the table, unchanged
    valid_vega_lite(chart)
    assert_no_nan(chart)
    curves = chart.datasets["curves"]
    for column, label, _st, _w in pv._series(2):
        drawn = curves[curves["curve"] == label]
        want = dict(zip(table2["n"], table2[column], strict=True))
        assert all(want[k] == v for k, v in zip(drawn["n"], drawn["value"], strict=True))
        assert drawn["n"].min() == 4 and drawn["n"].max() == 200  # both ends
        assert n in set(drawn["n"])  # the chosen n is a drawn point
        assert len(drawn) <= len(table2) // 2 + 2  # every other row
        # on a log axis the thinned line is the table's to well under a pixel: within 0.04
        # decades (σ's bend at n = 6) on an axis of about 30 decades
        got = np.interp(table2["n"], drawn["n"], np.log10(drawn["value"]))
        np.testing.assert_allclose(got, np.log10(table2[column]), atol=0.04)
        marks = chart.datasets["markers"]
        assert len(marks[marks["curve"] == label]) == 9
    at_n = chart.datasets["at_n"]
    row = table2[table2["n"] == n].iloc[0]
    assert sorted(at_n["value"]) == sorted([row["ratio"], row["sensitivity"], row["sigma"]])
    assert chart.datasets["chosen_n"]["n"].tolist() == [n]
    labels = chart.datasets["label_left"], chart.datasets["label_right"]
    assert [len(t) for t in labels] == ([0, 1] if n > 102 else [1, 0])
    assert pd.concat(labels)["label"].tolist() == [f"n = {n}"]


def test_growth_spec_does_not_depend_on_n(table2):
    specs = {spec_text(pv.growth_vega(table2, n_chosen=n, M=2)[0]) for n in (4, 20, 48, 190)}
    assert len(specs) == 1


def test_growth_chart_with_an_n_outside_the_table_and_m3(table3):
    chart, _ = pv.growth_vega(table3, n_chosen=50, M=3)
    valid_vega_lite(chart)
    assert chart.datasets["at_n"].empty  # no markers where the table has no row
    assert "σ₃" in chart.title and "grows too" in chart.title
    assert len(chart.title) <= 60


def test_growth_mip_and_dp_differ_by_more_than_colour(table2):
    chart, _ = pv.growth_vega(table2, n_chosen=48, M=2)
    enc = chart.spec["layer"][3]["encoding"]
    domain = enc["color"]["scale"]["domain"]
    dp, mip = domain.index("Δ (DP's noise ∝ Δ)"), domain.index("σ₂ (MIP's noise ∝ σ₂)")
    assert enc["color"]["scale"]["range"][dp] == style.DP.colour
    assert enc["strokeDash"]["scale"]["range"][dp] == DASH["dash"]
    assert enc["strokeDash"]["scale"]["range"][mip] == DASH["solid"]
    shapes = chart.spec["layer"][4]["encoding"]["shape"]["scale"]["range"]
    assert shapes[dp] == SHAPE["square"] and shapes[mip] == SHAPE["circle"]


# --------------------------------------------------------------------------- distribution


@pytest.mark.parametrize("n", [4, 8, 12, 48, 200])
def test_distribution_chart_draws_the_histogram(n):
    rows = prop11.value_histogram(n)
    chart, table = pv.distribution_vega(rows)
    hist = pd.DataFrame(rows)
    # the CSV: the histogram's rows, the exact counts as text
    pd.testing.assert_frame_equal(table.drop(columns="count"), hist.drop(columns="count"))
    assert table["count"].tolist() == [str(r["count"]) for r in rows]
    assert sum(int(c) for c in table["count"]) == math.comb(n, n // 2)
    assert pv.distribution_vega(hist)[1].equals(table)  # a DataFrame of the rows: the same
    valid_vega_lite(chart)
    assert_no_nan(chart)
    for name, group in (("boxes", "without A"), ("tops", "with A"), ("special", "special D*")):
        want = hist[hist["group"] == group].reset_index(drop=True)
        got = chart.datasets[name]
        for column in ("value_min", "value_max", "probability", "top_bit"):
            assert got[column].tolist() == want[column].tolist(), (name, column)
        assert [h.replace("\u2009", "") for h in got["halves"]] == [str(c) for c in want["count"]]
    centres = chart.datasets["centres"]
    assert len(centres) == (hist["group"] != "special D*").sum()
    np.testing.assert_allclose(centres["centre"] ** 2, centres["value_min"] * centres["value_max"])
    (special,) = chart.datasets["special"].itertuples()
    assert special.value_min == pytest.approx(prop11.special_output(n), rel=1e-12)
    assert special.probability == pytest.approx(1 / float(prop11.math.comb(n, n // 2)), rel=1e-12)
    floor = chart.datasets["boxes"]["floor"].iloc[0]
    assert floor < hist["probability"].min() / 9  # a decade below the smallest probability


def test_distribution_spec_does_not_depend_on_n():
    specs = {spec_text(pv.distribution_vega(prop11.value_histogram(n))[0]) for n in (4, 48, 200)}
    assert len(specs) == 1


def test_distribution_groups_differ_by_more_than_colour():
    chart, _ = pv.distribution_vega(prop11.value_histogram(20))
    (centres,) = [
        layer for layer in chart.spec["layer"] if layer.get("data") == {"name": "centres"}
    ]
    shapes = centres["encoding"]["shape"]["scale"]["range"]
    assert len(set(shapes)) == 3  # circle, diamond, star
    marks = {layer["mark"]["type"] for layer in chart.spec["layer"] if "mark" in layer}
    assert {"rect", "rule", "point"} <= marks  # boxes, bar tops and spike, markers


def test_builders_return_charts_without_nan():
    table = prop11.growth_table([4, 20, 48, 100, 200], 3, rtol=1e-6, max_nodes=400)
    for chart, drawn in (
        pv.growth_vega(table, n_chosen=48, M=3),
        pv.growth_vega(table, n_chosen=50, M=3),  # n not in the table: no markers
        pv.distribution_vega(prop11.value_histogram(200)),
        pv.distribution_vega(prop11.value_histogram(4)),
    ):
        assert drawn is table or drawn.columns.tolist() == [
            "group",
            "top_bit",
            "value_min",
            "value_max",
            "count",
            "probability",
        ]
        for t in chart.datasets.values():
            assert np.isfinite(t.select_dtypes("number").to_numpy(dtype=float)).all()
        assert chart.spec["config"]["legend"]["orient"] == "bottom"  # legends below the plot
        assert len(chart.title) <= 60
        for layer in chart.spec["layer"]:
            for channel in ("x", "y"):
                enc = layer.get("encoding", {}).get(channel, {})
                if enc.get("scale", {}).get("type") == "log":  # labelled as 10ⁿ, 14 px
                    assert "labelExpr" in enc["axis"]
    assert chart.spec["config"]["axis"]["labelFontSize"] >= 14
