"""The η and ε page's charts (mipcore.plots.bounds_vega): tables that hold Theorem 4's and
Theorem 8's numbers with their exact kinks, charts that draw exactly those tables, and a
specification that ε does not change."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.bounds import dp_region_kink, eta_from_epsilon, eta_small_epsilon_approx, tpr_bound_dp
from mipcore.plots import bounds_vega, style
from mipcore.plots.bounds_vega import (
    eta_epsilon_table,
    eta_epsilon_vega,
    roc_table,
    roc_vega,
)
from mipcore.plots.vega import DASH

SETTINGS = [(0.0, 0.0), (1.0, 0.0), (1.0, 1e-5), (2.5, 0.01), (10.0, 0.5), (0.37, 0.123)]


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize(
    "delta,label",
    [(0.0, "δ = 0"), (1e-5, "δ = 10⁻⁵"), (1e-12, "δ = 10⁻¹²"), (2.5e-6, "δ = 2.5·10⁻⁶"),
     (1.5e-12, "δ = 1.5·10⁻¹²"), (0.013, "δ = 0.013"), (0.1, "δ = 0.1")],
)  # fmt: skip
def test_delta_label(delta, label):
    assert bounds_vega.delta_label(delta) == label


def test_eta_table_holds_theorem4_for_every_delta_and_the_rule_of_thumb():
    table = eta_epsilon_table(0.37, 0.013)
    exact = table[table.curve == "exact (Theorem 4)"]
    deltas = list(dict.fromkeys(exact.delta))
    assert deltas == [0.0, 1e-5, 1e-3, 1e-2, 0.1, 0.013]  # the reference deltas + the chosen one
    for d in deltas:
        rows = exact[exact.delta == d]
        assert rows.epsilon.is_monotonic_increasing and 0.37 in set(rows.epsilon)  # meets the dot
        assert rows.epsilon.iloc[0] == 0.0 and rows.epsilon.iloc[-1] == 10.0
        np.testing.assert_allclose(rows.eta, eta_from_epsilon(rows.epsilon.to_numpy(), d))
    np.testing.assert_allclose(table.attacker_accuracy, 0.5 + table.eta)
    approx = table[table.curve == "small-epsilon approximation"]
    assert (approx.delta == 0.013).all() and 0 < len(approx) < len(exact) / 6
    np.testing.assert_allclose(approx.eta, eta_small_epsilon_approx(approx.epsilon, 0.013))
    assert approx.eta.max() <= 0.52  # the rule of thumb stops where the chart's y-axis ends
    # a reference δ is not drawn twice
    again = eta_epsilon_table(1.0, 1e-5)
    assert again[again.curve == "exact (Theorem 4)"].delta.nunique() == 5


@pytest.mark.parametrize("eps,delta", [(1.3, 0.02), (0.0, 0.5), (10.0, 0.0), (0.8, 1e-5)])
@pytest.mark.parametrize("log_axes", [False, True])
def test_roc_table_holds_the_bounds_with_their_exact_kinks(eps, delta, log_axes):
    eta = float(eta_from_epsilon(eps, delta))
    f_star = (1 - delta) / (1 + math.exp(eps))
    assert f_star == pytest.approx(float(dp_region_kink(eps, delta)), rel=1e-15)
    table = roc_table(eps, delta, log_axes=log_axes, extra_fpr=(1e-3,))
    assert not table.isna().to_numpy().any()
    fpr = table.fpr.to_numpy()
    assert (np.diff(fpr) > 0).all() and fpr[-1] == 1.0
    assert fpr[0] == (1e-6 if log_axes else 0.0)
    for kink in (float(dp_region_kink(eps, delta)), 1 - delta, 1 - 2 * eta, 1 - eta, 1e-3):
        if (1e-6 if log_axes else 0.0) <= kink <= 1.0:
            assert kink in set(fpr)
    np.testing.assert_allclose(table.tpr_max_mip_2eta, np.minimum(1, fpr + 2 * eta))
    np.testing.assert_allclose(table.tpr_max_theorem8_as_printed, np.minimum(1, fpr + eta))
    np.testing.assert_allclose(table.tpr_max_dp, tpr_bound_dp(fpr, eps, delta))
    assert (table.random_guessing == table.fpr).all()


@pytest.mark.parametrize("eps,delta", SETTINGS)
def test_eta_chart_draws_theorem4(eps, delta):
    chart, table = eta_epsilon_vega(eps, delta)
    expected = eta_epsilon_table(eps, delta)
    body = table[table["curve"] != "your setting"].reset_index(drop=True)
    assert body[list(expected.columns)].equals(expected)  # the CSV: the table, every row
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
    assert "δ = 10⁻³ (chosen)" in domain and domain[-1] == bounds_vega.APPROX_NAME
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
    assert table.equals(roc_table(eps, delta, log_axes=log_axes))  # the CSV: the table
    valid_vega_lite(chart)
    curves = chart.datasets["curves"]
    names = {
        "tpr_max_mip_2eta": bounds_vega.MIP_NAME,
        "tpr_max_dp": bounds_vega.DP_NAME,
        "tpr_max_theorem8_as_printed": bounds_vega.PRINTED_NAME,
        "random_guessing": bounds_vega.GUESS_NAME,
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
    assert set(markers["name"]) <= {bounds_vega.MIP_NAME, bounds_vega.DP_NAME}
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
    assert dash[bounds_vega.MIP_NAME] == DASH["solid"] != dash[bounds_vega.DP_NAME]
    points = next(layer for layer in chart.spec["layer"] if layer["data"]["name"] == "markers")
    shape = dict(zip(domain, points["encoding"]["shape"]["scale"]["range"], strict=True))
    assert (shape[bounds_vega.MIP_NAME], shape[bounds_vega.DP_NAME]) == ("circle", "square")
    assert shape[bounds_vega.TOUCH_NAME] == "diamond"


def test_log_axes_label_powers_of_ten_with_superscripts():
    chart, _ = roc_vega(1.0, 0.0, log_axes=True)
    line = next(layer for layer in chart.spec["layer"] if layer["mark"]["type"] == "line")
    axis = line["encoding"]["x"]["axis"]
    assert axis["values"][0] == pytest.approx(1e-6) and axis["values"][-1] == 1.0
    assert "'10⁻⁶'" in axis["labelExpr"] and "e-" not in axis["labelExpr"]
