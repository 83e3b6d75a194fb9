"""The η and ε page's charts drawn by Vega-Lite (mipcore.plots.bounds_vega): the same numbers
as the Plotly builders, drawn exactly, and a specification that ε does not change."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.bounds import dp_region_kink, eta_from_epsilon, tpr_bound_dp
from mipcore.plots import bounds_figs, style
from mipcore.plots.bounds_vega import eta_epsilon_vega, roc_vega
from mipcore.plots.vega import DASH, plain_label

SETTINGS = [(0.0, 0.0), (1.0, 0.0), (1.0, 1e-5), (2.5, 0.01), (10.0, 0.5), (0.37, 0.123)]


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize(
    "label,plain",
    [
        ("δ = 0", "δ = 0"),
        ("δ = 10<sup>−5</sup>", "δ = 10⁻⁵"),
        ("δ = 1.5·10<sup>−12</sup>", "δ = 1.5·10⁻¹²"),
    ],
)
def test_plain_label(label, plain):
    assert plain_label(label) == plain


@pytest.mark.parametrize("eps,delta", SETTINGS)
def test_eta_chart_draws_theorem4(eps, delta):
    chart, table = eta_epsilon_vega(eps, delta)
    _fig, plotly_table = bounds_figs.eta_epsilon_chart(eps, delta)
    body = table[table["curve"] != "your setting"].reset_index(drop=True)
    assert body[list(plotly_table.columns)].equals(plotly_table)  # the same numbers, every row
    (point,) = table[table["curve"] == "your setting"].itertuples()
    assert point.epsilon == eps and point.eta == pytest.approx(float(eta_from_epsilon(eps, delta)))
    valid_vega_lite(chart)
    drawn = chart.datasets["curves"]
    # The drawn rows are rows of the table (thinned), every curve keeps its ends and the
    # chosen curve passes through the marked point.
    merged = drawn.merge(table, on=["line", "epsilon", "eta", "attacker_accuracy"], how="left")
    assert merged["curve"].notna().all()
    chosen = [n for n in drawn["line"].unique() if n.endswith("(chosen)")]
    assert len(chosen) == 1
    on_chosen = drawn[drawn["line"] == chosen[0]]
    assert np.isclose(on_chosen["epsilon"], eps).any()
    for name, rows in drawn.groupby("line"):
        full = table[table["line"] == name]["epsilon"]
        assert rows["epsilon"].min() == full.min() == 0.0
        assert rows["epsilon"].max() == full.max()
        assert len(rows) <= len(full) // 2 + 3  # thinned: half the rows to redraw


def test_eta_chart_styles_the_chosen_delta_and_the_rule_of_thumb():
    chart, _ = eta_epsilon_vega(1.0, 1e-3)
    enc = chart.spec["layer"][0]["layer"][1]["encoding"]
    domain = enc["color"]["scale"]["domain"]
    assert "δ = 10⁻³ (chosen)" in domain and domain[-1] == bounds_figs.APPROX_NAME
    i = domain.index("δ = 10⁻³ (chosen)")
    assert enc["color"]["scale"]["range"][i] == style.INK
    assert enc["strokeWidth"]["scale"]["range"][i] == 4.0
    assert enc["strokeDash"]["scale"]["range"][-1] == DASH["dot"]
    dashes = [tuple(d) for d in enc["strokeDash"]["scale"]["range"][:-1]]
    others = [d for j, d in enumerate(dashes) if j != i]
    assert len(set(others)) == len(others)  # each δ its own dash: more than colour


@pytest.mark.parametrize("log_axes", [False, True])
def test_epsilon_changes_the_tables_not_the_spec(log_axes):
    """Moving ε must leave the specification as it is, so that Streamlit redraws the chart in
    place instead of building it anew (the reason these charts are Vega-Lite)."""
    a, _ = eta_epsilon_vega(1.0, 0.0)
    b, _ = eta_epsilon_vega(1.37, 0.0)
    assert spec_text(a) == spec_text(b)
    assert not a.datasets["point"].equals(b.datasets["point"])
    c, _ = roc_vega(1.0, 0.0, log_axes=log_axes)
    d, _ = roc_vega(1.37, 0.0, log_axes=log_axes)
    if not log_axes:  # on log axes the TPR axis follows the data's smallest order of magnitude
        assert spec_text(c) == spec_text(d)
    assert not c.datasets["curves"].equals(d.datasets["curves"])


@pytest.mark.parametrize("eps,delta", SETTINGS)
@pytest.mark.parametrize("log_axes", [False, True])
def test_roc_chart_draws_theorem8_exactly(eps, delta, log_axes):
    chart, table = roc_vega(eps, delta, log_axes=log_axes)
    _fig, plotly_table = bounds_figs.roc_chart(eps, delta, log_axes=log_axes)
    assert table.equals(plotly_table)  # the CSV: the same numbers as before
    valid_vega_lite(chart)
    curves = chart.datasets["curves"]
    names = {
        "tpr_max_mip_2eta": bounds_figs.MIP_NAME,
        "tpr_max_dp": bounds_figs.DP_NAME,
        "tpr_max_theorem8_as_printed": bounds_figs.PRINTED_NAME,
        "random_guessing": bounds_figs.GUESS_NAME,
    }
    for column, name in names.items():
        rows = curves[curves["name"] == name]
        x, y = table["fpr"].to_numpy(), table[column].to_numpy()
        if log_axes:
            keep = (x > 0) & (y > 0)
            assert np.array_equal(rows["fpr"], x[keep]) and np.array_equal(rows["tpr"], y[keep])
        else:
            # Thinned to the bends: the polyline through them is the full grid's, point for point.
            assert len(rows) <= 6
            assert np.allclose(np.interp(x, rows["fpr"], rows["tpr"]), y, rtol=0, atol=1e-12)
    (touch,) = chart.datasets["touch"].itertuples()
    f_star = float(dp_region_kink(eps, delta))
    if not log_axes or f_star > 0:
        assert touch.fpr == pytest.approx(f_star, abs=1e-12)
        assert touch.tpr == pytest.approx(float(tpr_bound_dp(f_star, eps, delta)), abs=1e-12)
    markers = chart.datasets["markers"]
    assert set(markers["name"]) <= {bounds_figs.MIP_NAME, bounds_figs.DP_NAME}
    assert 0 < len(markers) <= 18
    if log_axes:
        assert (curves[["fpr", "tpr"]] > 0).all().all()
        assert "areas" not in chart.datasets
    else:
        areas = chart.datasets["areas"]
        for column in ("tpr_max_dp", "tpr_max_mip_2eta"):
            assert np.allclose(
                np.interp(table["fpr"], areas["fpr"], areas[column]), table[column], atol=1e-12
            )


def test_roc_chart_tells_mip_from_dp_by_more_than_colour():
    chart, _ = roc_vega(1.0, 0.0)
    line = next(layer for layer in chart.spec["layer"] if layer["mark"]["type"] == "line")
    domain = line["encoding"]["color"]["scale"]["domain"]
    dash = dict(zip(domain, line["encoding"]["strokeDash"]["scale"]["range"], strict=True))
    assert dash[bounds_figs.MIP_NAME] == DASH["solid"] != dash[bounds_figs.DP_NAME]
    points = next(layer for layer in chart.spec["layer"] if layer["data"]["name"] == "markers")
    shape = dict(zip(domain, points["encoding"]["shape"]["scale"]["range"], strict=True))
    assert (shape[bounds_figs.MIP_NAME], shape[bounds_figs.DP_NAME]) == ("circle", "square")
    assert shape[bounds_figs.TOUCH_NAME] == "diamond"


def test_log_axes_label_powers_of_ten_with_superscripts():
    chart, _ = roc_vega(1.0, 0.0, log_axes=True)
    line = next(layer for layer in chart.spec["layer"] if layer["mark"]["type"] == "line")
    axis = line["encoding"]["x"]["axis"]
    assert axis["values"][0] == pytest.approx(1e-6) and axis["values"][-1] == 1.0
    assert "'10⁻⁶'" in axis["labelExpr"] and "e-" not in axis["labelExpr"]
