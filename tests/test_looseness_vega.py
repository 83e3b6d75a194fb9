"""The charts of "How loose are the certified bounds?" drawn by Vega-Lite
(mipcore.plots.looseness_vega): the experiment's tables unchanged, the datasets draw their numbers,
and the sliders change the datasets, never the specification."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from test_vega import valid_vega_lite

from mipcore.experiments import certificate_gap as cg
from mipcore.experiments.certificate_gap import Route
from mipcore.plots import looseness_vega as lv
from mipcore.plots import style
from mipcore.plots.vega import DASH
from mipcore.theorem9 import chain_required_noise_multiplier


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


@pytest.fixture(scope="module")
def lessons():
    """The page's results at two values of its first slider n (and the defaults)."""
    out = {}
    for n in (8, 12):
        out[n] = (cg.eta_curves(cg.exact_eta_grid(n)), cg.noise_demand(n, 0.1))
    gap = cg.dimension_gap(0.1, samples=20_000)
    return out, gap


def all_charts(lessons, n=8, log_y=True):
    by_n, gap = lessons
    curves, demand = by_n[n]
    return [
        lv.eta_vs_scale_vega(curves, demand, log_y=log_y),
        lv.demanded_vega(demand),
        lv.tightness_vega(cg.theorem4_tightness(0.2)),
        lv.theorem5_vega(cg.theorem5_table(0.1), log_y=log_y),
        lv.dimension_eta_vega(gap, demand),
        lv.dimension_noise_vega(gap, demand),
    ]


def shown_text(chart) -> list[str]:
    """The chart's title, axis titles, legend labels and text columns of its tables."""
    out = [chart.spec["title"]]

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("title"), str):
                out.append(node["title"])
            domain = node.get("domain")
            if isinstance(domain, list):
                out.extend(str(v) for v in domain if isinstance(v, str))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(chart.spec)
    for data in chart.datasets.values():
        for col in data.select_dtypes(["object", "string"]):
            out.extend(str(v) for v in data[col])
    return out


def layer_by_data(chart, name):
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("data") == {"name": name}:
                found.append(node)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(chart.spec)
    return found


@pytest.mark.parametrize("log_y", [True, False])
def test_schema_valid_no_nan_short_titles(lessons, log_y):
    for chart, table in all_charts(lessons, log_y=log_y):
        valid_vega_lite(chart)
        assert len(chart.title) <= 55 and chart.spec["title"] == chart.title
        for name, data in chart.datasets.items():
            numbers = data.select_dtypes("number").to_numpy(dtype=float)
            assert np.isfinite(numbers).all(), (chart.title, name)
        assert isinstance(table, pd.DataFrame) and len(table) > 0
        for text in shown_text(chart):  # plain labels, powers as superscripts
            assert "<" not in text and "1e-" not in text and "10^" not in text, text


def test_tables_are_the_experiments(lessons):
    by_n, gap = lessons
    curves, demand = by_n[8]
    t4, t5 = cg.theorem4_tightness(0.2), cg.theorem5_table(0.1)
    tables = [t for _c, t in all_charts(lessons)]
    expected = [curves, demand.table, t4.table, t5, gap.table, gap.table]
    for got, want in zip(tables, expected, strict=True):
        pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("log_y", [True, False])
def test_first_slider_changes_the_datasets_not_the_spec(lessons, log_y):
    """Moving n (the page's first slider) must leave every specification as it is, so that
    Streamlit redraws the charts in place."""
    a = all_charts(lessons, 8, log_y)
    b = all_charts(lessons, 12, log_y)
    for (ca, _), (cb, _) in zip(a, b, strict=True):
        assert spec_text(ca) == spec_text(cb), ca.title
    changed = [
        ca.title
        for (ca, _), (cb, _) in zip(a, b, strict=True)
        if any(not ca.datasets[k].equals(cb.datasets[k]) for k in ca.datasets)
    ]
    assert lv.ETA_TITLE in changed and lv.DEMAND_TITLE in changed
    assert lv.DIM_ETA_TITLE in changed and lv.DIM_NOISE_TITLE in changed


def test_other_sliders_do_not_change_the_spec():
    d1, d2 = cg.noise_demand(8, 0.1), cg.noise_demand(8, 0.3, M=3, constant=7.5)
    assert spec_text(lv.demanded_vega(d1)[0]) == spec_text(lv.demanded_vega(d2)[0])
    t1, t2 = cg.theorem4_tightness(0.0), cg.theorem4_tightness(0.3)
    assert spec_text(lv.tightness_vega(t1)[0]) == spec_text(lv.tightness_vega(t2)[0])
    f1, f2 = cg.theorem5_table(0.1), cg.theorem5_table(0.4)
    assert spec_text(lv.theorem5_vega(f1)[0]) == spec_text(lv.theorem5_vega(f2)[0])


@pytest.mark.parametrize("log_y", [True, False])
def test_eta_curves_draw_the_table(lessons, log_y):
    curves, demand = lessons[0][8]
    chart, table = lv.eta_vs_scale_vega(curves, demand, log_y=log_y)
    drawn = pd.concat([chart.datasets[f"curve{i}"] for i in range(len(lv.CURVES))])
    for col, name, *_ in lv.CURVES:
        rows = drawn[drawn["line"] == name]
        full = table[["scale", col]][np.isfinite(table[col]) & ((table[col] > 0) | (not log_y))]
        # every drawn row is a row of the table, both ends kept, half the rows
        merged = rows.merge(full, left_on=["scale", "eta"], right_on=["scale", col])
        assert len(merged) == len(rows) > 0
        assert rows["scale"].min() == full["scale"].min()
        assert rows["scale"].max() == full["scale"].max()
        assert len(rows) <= (len(full) // 2 + 4 if log_y else 0.7 * len(full))  # thinned

        # on the picture (log b; log or linear η) the thinned line passes within half a
        # pixel of every grid point
        def drawn_y(v):
            return np.log(v) if log_y else v

        interp = np.interp(np.log(full["scale"]), np.log(rows["scale"]), drawn_y(rows["eta"]))
        assert np.max(np.abs(interp - drawn_y(full[col].to_numpy()))) <= (0.03 if log_y else 0.0008)
    markers = chart.datasets["markers"]
    for _col, name, look in lv.CURVES:
        count = int((markers["line"] == name).sum())
        assert (look.shape == "stroke" and count == 0) or 6 <= count <= 10
    for col, name, *_ in lv.CURVES:  # markers sit on their curve, at grid points
        rows = markers[markers["line"] == name]
        on = rows.merge(table[["scale", col]], left_on=["scale", "eta"], right_on=["scale", col])
        assert len(on) == len(rows)
    # the diamonds: each route's scale at the target η, on the dotted line
    needed = chart.datasets["needed"]
    assert list(needed["route"]) == [lv.ROUTE_NAMES[r.route] for r in demand.rows]
    assert list(needed["scale"]) == [r.scale for r in demand.rows]
    assert (needed["eta"] == demand.target_eta).all()
    assert chart.datasets["target"]["eta"].tolist() == [demand.target_eta]


def test_eta_chart_mip_and_dp_differ_by_more_than_colour(lessons):
    chart, _ = lv.eta_vs_scale_vega(*lessons[0][8])
    lines = [layer_by_data(chart, f"curve{i}")[0] for i in range(len(lv.CURVES))]
    (marks,) = layer_by_data(chart, "markers")
    enc, menc = lines[0]["encoding"], marks["encoding"]
    domain = enc["color"]["scale"]["domain"]
    mip = domain.index("MIP: Theorem 9 density, ½(1 − exp(−σ/b))")
    dp = domain.index("DP: Laplace mechanism + Theorem 4")
    printed = domain.index("MIP: Corollary 14 as printed")
    dashes = [layer["mark"]["strokeDash"] for layer in lines]
    widths = [layer["mark"]["strokeWidth"] for layer in lines]
    assert [chart.datasets[f"curve{i}"]["line"].iloc[0] for i in range(4)] == domain
    shapes = menc["shape"]["scale"]["range"]
    assert dashes[mip] == DASH["solid"] and dashes[dp] == DASH["dash"]
    assert dashes[printed] == DASH["dashdot"]
    assert shapes[mip] == "circle" and shapes[dp] == "square" and shapes[printed] == "cross"
    colours = enc["color"]["scale"]["range"]
    assert colours[mip] == style.MIP.colour and colours[dp] == style.DP.colour
    assert widths[domain.index("exact η (best possible attack)")] > 3 > widths[mip]


def test_demanded_bars_draw_the_demand(lessons):
    demand = lessons[0][8][1]
    chart, table = lv.demanded_vega(demand)
    bars = chart.datasets["bars"]
    assert list(bars["route"]) == [lv.ROUTE_NAMES[r.route] for r in demand.rows]
    assert list(bars["scale"]) == list(table["scale"])
    assert list(bars["times"]) == list(table["times_the_sufficient_noise"])
    lo, hi = lv.BAR_RANGE
    assert (bars["scale"] > lo).all() and (bars["scale"] * 100 < hi).all()  # room for labels


@pytest.mark.slow
def test_bar_range_holds_every_setting():
    """The fixed axis holds the scales of the page's extreme settings."""
    for n, t in ((4, 0.01), (16, 0.45), (16, 0.01)):
        for M, const in ((2, 7.5), (6, 6.16)):
            s = [r.scale for r in cg.noise_demand(n, t, M, const).rows]
            assert lv.BAR_RANGE[0] < min(s) and max(s) < lv.BAR_RANGE[1] / 100


@pytest.mark.slow
def test_fixed_ranges_hold_every_setting():
    """The fixed axes hold the extreme settings' η and noise multipliers (no point is clipped)."""
    eta_lo, eta_hi = lv.ETA_RANGE
    c_lo, c_hi = lv.MULTIPLIER_RANGE
    for n, t, M, const in ((16, 0.45, 6, 7.5), (16, 0.01, 2, 7.5), (4, 0.01, 2, 6.16)):
        demand = cg.noise_demand(n, t, M, const)
        assert c_lo < demand.multiplier_sufficient and demand.multiplier_printed < c_hi
        assert eta_lo < min(r.exact_eta for r in demand.rows)
        for d in (1, 16):
            assert c_lo < chain_required_noise_multiplier(t, M=M, d=d) < c_hi
    curves = cg.eta_curves(cg.exact_eta_grid(16)).drop(columns="scale").to_numpy()
    assert eta_lo < curves[curves > 0].min() and curves.max() <= eta_hi


def test_tightness_draws_theorem4_in_percent():
    t4 = cg.theorem4_tightness(0.3)
    chart, table = lv.tightness_vega(t4)
    exact, bound = chart.datasets["exact"], chart.datasets["bound"]
    np.testing.assert_allclose(exact["accuracy"], 100 * table["exact_accuracy"], rtol=1e-15)
    assert list(exact["epsilon"]) == list(table["epsilon"])
    full = table.set_index("epsilon")["theorem4_accuracy"]
    np.testing.assert_allclose(bound["accuracy"], 100 * full[bound["epsilon"]], rtol=1e-15)
    assert bound["epsilon"].iloc[0] == 0.0 and bound["epsilon"].iloc[-1] == 6.0
    assert len(bound) <= len(table) // 2 + 2
    # on the bound: the construction's exact accuracy equals Theorem 4's at every ε
    np.testing.assert_allclose(exact["accuracy"], 100 * table["theorem4_accuracy"], atol=1e-9)


@pytest.mark.parametrize("log_y", [True, False])
def test_theorem5_draws_both_versions(log_y):
    chart, table = lv.theorem5_vega(cg.theorem5_table(0.1), log_y=log_y)
    ind, pub = chart.datasets["line0"], chart.datasets["line1"]
    assert ind["curve"].iloc[0] == lv.T5_INDICATOR_NAME
    assert pub["curve"].iloc[0] == lv.T5_PUBLISH_NAME
    assert list(ind["n"]) == list(table["n"]) and list(ind["eta"]) == list(table["eta_indicator"])
    assert list(pub["n"]) == [table["n"].iloc[0], table["n"].iloc[-1]]  # a constant: its ends
    np.testing.assert_allclose(np.interp(table["n"], pub["n"], pub["eta"]), table["eta_publish"])
    assert (table["eta_indicator"] > lv.T5_RANGE[0]).all()
    marks = chart.datasets["markers"]
    assert 8 <= (marks["curve"] == lv.T5_PUBLISH_NAME).sum() <= 10
    (layer,) = layer_by_data(chart, "markers")
    assert layer["encoding"]["shape"]["scale"]["range"] == ["diamond", "square"]


def test_dimension_charts_draw_the_gap(lessons):
    by_n, gap = lessons
    demand = by_n[8][1]
    chart, table = lv.dimension_eta_vega(gap, demand)
    ds = chart.datasets
    assert list(ds["line0"]["value"]) == list(table["chain_eta"])
    assert list(ds["line0"]["d"]) == list(table["d"])
    assert (ds["line1"]["value"] == gap.tight_eta).all() and len(ds["line1"]) == len(table)
    assert list(ds["line2"]["value"]) == [gap.target_eta] * 2
    assert ds["point0"]["value"].tolist() == [demand.route(Route.MIP_PRINTED).exact_eta]
    assert ds["point0"]["d"].tolist() == [1.0]
    lo, hi = gap.covariance_interval
    assert ds["point1"]["d"].tolist() == [cg.COVARIANCE_GAP_DIM]
    assert ds["point1"]["value"].iloc[0] == pytest.approx(max(gap.covariance_eta, lo))
    assert ds["interval"]["hi"].iloc[0] == pytest.approx(hi)
    assert ds["interval"]["lo"].iloc[0] == pytest.approx(max(lo, lv.ETA_RANGE[0]))
    names = [r["name"].iloc[0] for k, r in ds.items() if k != "interval"]
    assert names == [
        lv.CHAIN_NAME,
        lv.TIGHT_ETA_NAME,
        lv.PROMISED_NAME,
        lv.EXACT_D1_NAME,
        lv.COVARIANCE_NAME,
    ]

    chart, table = lv.dimension_noise_vega(gap, demand)
    ds = chart.datasets
    finite = np.isfinite(table["chain_noise_multiplier"])
    assert list(ds["line0"]["value"]) == list(table["chain_noise_multiplier"][finite])
    assert list(ds["line1"]["value"]) == [gap.noise_multiplier] * 2
    assert (ds["line2"]["value"] == gap.tight_noise).all()
    assert ds["point0"]["value"].tolist() == [demand.multiplier_sufficient]
    lo, hi = lv.MULTIPLIER_RANGE
    assert ((ds["line0"]["value"] > lo) & (ds["line0"]["value"] < hi)).all()


def test_dimension_chart_styles(lessons):
    by_n, gap = lessons
    chart, _ = lv.dimension_eta_vega(gap, by_n[8][1])

    def line(key):
        (out,) = [x for x in layer_by_data(chart, key) if x["mark"]["type"] == "line"]
        return out

    domain = line("line0")["encoding"]["color"]["scale"]["domain"]
    chain, tight = domain.index(lv.CHAIN_NAME), domain.index(lv.TIGHT_ETA_NAME)
    assert line("line0")["mark"]["strokeDash"] == DASH["longdash"]  # the chain
    assert line("line1")["mark"]["strokeDash"] == DASH["solid"]  # Theorem 9's density
    assert line("line2")["mark"]["strokeDash"] == DASH["dashdot"]  # the promise
    (point,) = [x for x in layer_by_data(chart, "line0") if x["mark"]["type"] == "point"]
    shapes = point["encoding"]["shape"]["scale"]["range"]
    assert shapes[chain] == "triangle-up" and shapes[tight] == "circle"


def test_non_finite_chain_noise_is_not_drawn(lessons):
    by_n, gap = lessons
    noise = gap.table["chain_noise_multiplier"].to_numpy().copy()
    noise[-1] = math.inf
    table = gap.table.assign(chain_noise_multiplier=noise)
    broken = cg.DimensionGap(**{**gap.__dict__, "table": table})
    chart, _ = lv.dimension_noise_vega(broken, by_n[8][1])
    assert len(chart.datasets["line0"]) == len(noise) - 1
    assert np.isfinite(chart.datasets["line0"]["value"]).all()


def test_negative_monte_carlo_estimate_is_not_drawn(lessons):
    by_n, gap = lessons
    broken = cg.DimensionGap(
        **{**gap.__dict__, "covariance_eta": -1e-4, "covariance_interval": (-2e-3, 0.0)}
    )
    chart, _ = lv.dimension_eta_vega(broken, by_n[8][1])
    assert chart.datasets["point1"].empty and chart.datasets["interval"].empty
    valid_vega_lite(chart)
