"""Figure 1's charts drawn by Vega-Lite (mipcore.plots.figure1_vega): the view's numbers, drawn
exactly (thinned, cut at the cap), and a specification that the η range does not change."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from test_vega import valid_vega_lite

from mipcore.experiments import figure1
from mipcore.plots import figure1_vega as fv
from mipcore.plots import style
from mipcore.plots.vega import DASH, power_axis

TOGGLES = [
    dict(log_x=False, log_y=False, certified=True),
    dict(log_x=True, log_y=True, certified=False),
    dict(log_x=False, log_y=True, certified=True),
    dict(log_x=True, log_y=False, certified=True),
]


@pytest.fixture(scope="module")
def paper_rows():
    return figure1.noise_rows((30, 36, 42, 48), 2, figure1.PAPER_PRESET.constant)


@pytest.fixture(scope="module")
def extreme_rows():
    return figure1.noise_rows((4, 200), 8, 7.5)


def view_of(rows, lo=0.01, hi=0.49, cap=True):
    return figure1.figure1_view(rows, lo, hi, cap=cap, points=200)


def charts(view, log_x=False, log_y=False, certified=True):
    noise = fv.noise_vega(view, log_x=log_x, log_y=log_y, show_certified=certified)
    ratio = fv.ratio_vega(view, log_x=log_x, show_certified=certified)
    return noise, ratio


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def assert_no_nan(chart) -> None:
    for name, table in chart.datasets.items():
        numbers = table.select_dtypes("number").to_numpy(dtype=float)
        assert np.isfinite(numbers).all(), name


@pytest.mark.parametrize("cap", [True, False])
@pytest.mark.parametrize("toggles", TOGGLES, ids=str)
def test_charts_are_valid_and_return_the_views_tables(paper_rows, toggles, cap):
    view = view_of(paper_rows, cap=cap)
    (noise, noise_table), (ratio, ratio_table) = charts(view, **toggles)
    for chart in (noise, ratio):
        valid_vega_lite(chart)
        assert_no_nan(chart)
        assert len(chart.title) <= 55
    assert noise_table is view.curves  # the CSV: the full grid, every column
    assert ratio_table.equals(
        view.curves[["n", "eta", "ratio_dp_over_mip", "ratio_dp_over_certified"]]
    )
    if toggles["log_y"]:
        assert (noise.datasets["curves"]["noise"] > 0).all()
    assert (ratio.datasets["printed"]["ratio"] > 0).all()


@pytest.mark.parametrize("toggles", TOGGLES, ids=str)
@pytest.mark.parametrize("cap", [True, False])
def test_the_eta_range_changes_the_tables_not_the_spec(paper_rows, toggles, cap):
    """The page's first slider is the η range: moving it must leave both specifications as
    they are (Streamlit then redraws the charts in place)."""
    a = charts(view_of(paper_rows, 0.01, 0.49, cap), **toggles)
    b = charts(view_of(paper_rows, 0.137, 0.42, cap), **toggles)
    c = charts(view_of(paper_rows, 0.195, 0.205, cap), **toggles)  # both handles on 0.2
    for i in range(2):
        assert spec_text(a[i][0]) == spec_text(b[i][0]) == spec_text(c[i][0])
        assert (
            not a[i][0]
            .datasets[next(iter(a[i][0].datasets))]
            .equals(b[i][0].datasets[next(iter(b[i][0].datasets))])
        )


def test_the_x_axis_spans_exactly_the_eta_range(paper_rows):
    """No domain in the spec: every printed MIP curve runs from eta_min to eta_max."""
    view = view_of(paper_rows, 0.05, 0.4)
    (noise, _), (ratio, _) = charts(view)
    assert "domain" not in noise.spec["layer"][0]["encoding"]["x"]["scale"]
    for table in (noise.datasets["curves"], ratio.datasets["printed"]):
        assert table["eta"].min() == pytest.approx(0.05, rel=1e-12)
        assert table["eta"].max() == pytest.approx(0.4, rel=1e-12)


@pytest.mark.parametrize("log_x, log_y", [(False, False), (True, True)])
def test_noise_curves_draw_the_table_cut_at_the_cap(paper_rows, log_x, log_y):
    view = view_of(paper_rows)
    (chart, table), _ = charts(view, log_x=log_x, log_y=log_y)
    drawn = chart.datasets["curves"]
    columns = {
        fv._printed_name(view.constant): "mip_paper",
        fv.CERTIFIED: "mip_certified",
        fv.DP: "dp",
    }
    assert set(drawn["method"]) == set(columns)
    top = view.y_top
    assert drawn["noise"].max() == pytest.approx(top, rel=1e-12)  # the y-axis ends at the cap
    assert (drawn["noise"] <= top * (1 + 1e-12)).all()
    hidden = {r.n for r in view.hidden}
    assert hidden == {48}  # the paper's picture: n = 48's DP curve is entirely above the cap
    for (n, method), rows in drawn.groupby(["n", "method"]):
        assert n not in hidden or method != fv.DP
        full = table[table["n"] == n]
        x, y = full["eta"].to_numpy(), full[columns[method]].to_numpy()
        inside = y <= top
        on_grid = rows[rows["noise"] < top * (1 - 1e-12)]
        # every drawn point below the cap is a point of the table
        merged = on_grid.merge(
            pd.DataFrame({"eta": x, "noise": y}), on=["eta", "noise"], how="left", indicator=True
        )
        assert (merged["_merge"] == "both").all()
        # every other grid point, both ends of the part inside the plot
        assert rows["eta"].max() == x[inside].max()
        assert len(on_grid) <= inside.sum() // 2 + 2
        # a point on the cap lies on the table's polyline (in the axes' units)
        for eta in rows.loc[rows["noise"] >= top * (1 - 1e-12), "eta"]:
            fx = np.log10 if log_x else (lambda v: v)
            fy = np.log10 if log_y else (lambda v: v)
            assert np.interp(fx(eta), fx(x), fy(y)) == pytest.approx(fy(top), rel=1e-9)


def test_clip_splits_a_line_that_leaves_and_reenters():
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    y = np.array([0.0, 2.0, 0.0, 3.0, 0.0])
    pieces = fv._clip_below(x, y, 1.0, False, False)
    want = [[0.0, 0.5], [1.5, 2.0, 2.0 + 1 / 3], [3.0 + 2 / 3, 4.0]]
    assert len(pieces) == len(want)
    for (px, _py), w in zip(pieces, want, strict=True):
        np.testing.assert_allclose(px, w, rtol=1e-12)
    assert [p[1].tolist() for p in pieces] == [[0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0]]
    assert fv._clip_below(x, y + 10, 1.0, False, False) == []


def test_crossings_and_peaks_are_the_views(paper_rows):
    view = view_of(paper_rows)
    (noise, _), (ratio, _) = charts(view)
    (c,) = view.crossings
    (row,) = noise.datasets["crossings"].itertuples()
    assert (row.eta, row.noise, row.size) == (c.eta, c.scale, "n = 30") and 0.01 < c.eta < 0.02
    assert ratio.datasets["crossings"]["ratio"].tolist() == [1.0]
    peaks = ratio.datasets["peaks"]
    assert peaks["eta"].tolist() == [r.crossover.best_eta for r in view.peaks]
    assert peaks["ratio"].tolist() == [r.crossover.best_ratio for r in view.peaks]
    # a range without crossover: the same layers, an empty table
    (noise2, _), (ratio2, _) = charts(view_of(paper_rows, 0.05, 0.4))
    assert noise2.datasets["crossings"].empty and ratio2.datasets["crossings"].empty
    valid_vega_lite(noise2)


def test_ratio_lines_draw_the_table(paper_rows):
    view = view_of(paper_rows)
    _, (chart, table) = charts(view)
    printed = chart.datasets["printed"]
    for n, rows in printed.groupby("n"):
        full = table[table["n"] == n]
        merged = rows.merge(
            full.rename(columns={"ratio_dp_over_mip": "ratio"}), on=["eta", "ratio"], how="left"
        )
        assert merged["ratio_dp_over_certified"].notna().all()
        assert rows["eta"].iloc[0] == full["eta"].iloc[0]
        assert rows["eta"].iloc[-1] == full["eta"].iloc[-1]
        assert len(rows) <= len(full) // 2 + 2
        # the certified ratio rises with η: every other point of the table draws it
        line = chart.datasets["certified"][chart.datasets["certified"]["n"] == n]
        drawn = line.merge(
            full.rename(columns={"ratio_dp_over_certified": "ratio"}), on=["eta", "ratio"]
        )
        assert len(drawn) == len(line) <= len(full) // 2 + 2
        assert line["eta"].iloc[0] == full["eta"].iloc[0]
        assert line["eta"].iloc[-1] == full["eta"].iloc[-1]
        circles = chart.datasets["circles"][chart.datasets["circles"]["n"] == n]
        assert len(circles) == 9


def test_mip_and_dp_differ_by_more_than_colour(paper_rows):
    (noise, _), (ratio, _) = charts(view_of(paper_rows))
    enc = noise.spec["layer"][0]["encoding"]
    scale = enc["strokeDash"]["scale"]
    dash = dict(zip(scale["domain"], scale["range"], strict=True))
    printed = fv._printed_name(figure1.PAPER_PRESET.constant)
    assert dash[printed] == DASH["solid"] and dash[fv.DP] == DASH["dash"]
    assert dash[fv.CERTIFIED] == DASH["dot"]
    # the one legend names each method with its dash, each n with its colour
    key = noise.spec["layer"][-1]["encoding"]
    scale = key["strokeDash"]["scale"]
    entries = dict(zip(scale["domain"], scale["range"], strict=True))
    assert entries[printed] == DASH["solid"] and entries[fv.DP] == DASH["dash"]
    assert list(noise.datasets["key"]["key"][:4]) == ["n = 30", "n = 36", "n = 42", "n = 48"]
    colours = key["color"]["scale"]["range"]
    assert colours[:4] == list(style.SEQUENCE[:4]) and colours[4] == style.INK
    # in the ratio chart each n has its own dash as well as its colour
    line = ratio.spec["layer"][1]["encoding"]
    assert len({tuple(d) for d in line["strokeDash"]["scale"]["range"]}) == 4
    assert noise.spec["config"]["legend"]["labelLimit"] == 0


def test_without_certified_curves(paper_rows):
    (noise, _), (ratio, _) = charts(view_of(paper_rows), certified=False)
    assert fv.CERTIFIED not in set(noise.datasets["curves"]["method"])
    assert fv.CERTIFIED not in set(noise.datasets["key"]["key"])
    assert "certified" not in ratio.datasets and "circles" not in ratio.datasets


@pytest.mark.slow
def test_extreme_settings_give_finite_positive_numbers(extreme_rows):
    view = figure1.figure1_view(extreme_rows, 0.001, 0.499, cap=False)
    for toggles in TOGGLES:
        (noise, _), (ratio, _) = charts(view, **toggles)
        for chart in (noise, ratio):
            valid_vega_lite(chart)
            assert_no_nan(chart)
        assert (ratio.datasets["printed"]["ratio"] > 0).all()


def test_power_axis_labels_need_no_tick_values():
    axis = power_axis()
    assert "values" not in axis and "'.3~r'" in axis["labelExpr"]
    assert "'10' + " in axis["labelExpr"] and "⁻" in axis["labelExpr"]


def test_bad_view_raises(paper_rows):
    with pytest.raises(ValueError, match="rows"):
        figure1.figure1_view([], 0.01, 0.49)
