"""The MACE page's charts drawn by Vega-Lite (mipcore.plots.mace_vega): valid specifications,
datasets that draw the tables' numbers, a specification the sliders do not change, and
distinctions that do not rest on colour alone."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.experiments import mace_synthetic as toy
from mipcore.mace import dp_privacy_loss_bound, units
from mipcore.plots import mace_vega, style
from mipcore.plots.vega import DASH

VIEWS = [  # a run's arguments, and the ε of the tanh bound
    ({}, 1.0),
    ({"estimator": "kde", "n": 400, "bandwidth": 0.3}, 1.0),
    ({"shape": "laplace", "separation": 2.5, "prior": 0.3}, 0.5),
    ({"separation": 0.0, "n": 50}, 1.0),  # a negative raw lower bound
]


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def charts(view):
    run, eps = view
    samples, loss, _ = mace_vega.samples_loss_vega(run)
    adv, _ = mace_vega.advantage_vega(run, eps)
    return [samples, loss, adv]


def display_edges(run) -> np.ndarray:
    """The display histogram's edges: the estimate's bins, or 60 over the KDE's grid."""
    est = run.estimate
    if est.edges is not None:
        return est.edges
    return np.linspace(est.points[0], est.points[-1], 61)


def finite(chart) -> bool:
    return all(
        np.isfinite(t.select_dtypes("number").to_numpy(dtype=float)).all()
        for t in chart.datasets.values()
    )


@pytest.fixture(scope="module", params=range(len(VIEWS)))
def view(request):
    kw, eps = VIEWS[request.param]
    return toy.run(**kw), eps


@pytest.fixture(scope="module")
def drift():
    return toy.drift("mixture", 1.5, bins=20)


def test_charts_are_valid_vega_lite_without_nan(view, drift):
    chart, _ = mace_vega.drift_vega(drift)
    for c in [*charts(view), chart]:
        valid_vega_lite(c)
        assert finite(c)


def test_samples_chart_draws_the_table(view):
    run, _ = view
    samples, loss, table = mace_vega.samples_loss_vega(run)
    edges = display_edges(run)

    def series(name):
        return table[table["series"] == name]

    bars = samples.datasets["bars"]
    for group, name, sample in (
        (mace_vega.MEMBERS, "members histogram", run.members),
        (mace_vega.NONMEMBERS, "non-members histogram", run.nonmembers),
    ):
        density, _ = np.histogram(sample, edges, density=True)
        rows = bars[bars["group"] == group]
        np.testing.assert_array_equal(rows["density"], series(name)["value"])
        np.testing.assert_array_equal(rows["density"], density)
        np.testing.assert_array_equal(rows["z"], edges[:-1])
        np.testing.assert_array_equal(rows["z_right"], edges[1:])
        centres = 0.5 * (rows["z"].to_numpy() + rows["z_right"].to_numpy())
        np.testing.assert_allclose(centres, series(name)["z"], rtol=0, atol=1e-12)
    curves = samples.datasets["curves"]
    for group, name in ((mace_vega.MEMBERS, "true P"), (mace_vega.NONMEMBERS, "true Q")):
        drawn, full = curves[curves["group"] == group], series(name)
        # every other grid point, both ends: rows of the table, half as many
        merged = drawn.merge(full, left_on=["z", "density"], right_on=["z", "value"])
        assert len(merged) == len(drawn) <= len(full) // 2 + 1
        assert drawn["z"].iloc[0] == full["z"].iloc[0] and drawn["z"].iloc[-1] == full["z"].iloc[-1]
    truth, full = loss.datasets["f_true"], series("true f_p")
    assert len(truth.merge(full, left_on=["z", "f"], right_on=["z", "value"])) == len(truth)
    assert truth["z"].iloc[-1] == full["z"].iloc[-1]
    # both panels span the same z range (their x axes match)
    assert curves["z"].min() == truth["z"].min() and curves["z"].max() == truth["z"].max()
    fitted, f_hat = loss.datasets["fitted"], series("f_hat")
    if run.estimate.method == "histogram":
        np.testing.assert_array_equal(f_hat["value"], run.estimate.f_hat[1:-1])  # no overflow
        np.testing.assert_array_equal(fitted["f"], f_hat["value"])
        np.testing.assert_array_equal(fitted["lower"], f_hat["lower"])
        np.testing.assert_array_equal(fitted["upper"], f_hat["upper"])
        assert "band" not in loss.datasets
    else:
        merged = fitted.merge(
            f_hat, left_on=["z", "f", "lower", "upper"], right_on=["z", "value", "lower", "upper"]
        )
        assert len(merged) == len(fitted) <= len(f_hat) // 2 + 1
        assert loss.datasets["band"][["z", "lower", "upper"]].equals(
            fitted[["z", "lower", "upper"]]
        )


def test_advantage_chart_draws_the_table_in_three_units(view):
    run, eps = view
    est = run.estimate
    chart, table = mace_vega.advantage_vega(run, eps)
    value = dict(zip(table["quantity"], table["advantage"], strict=True))
    drawn = chart.datasets["estimates"].set_index("row")
    assert drawn.loc["plug-in", "advantage"] == value["plug-in mean |f_hat| (in-sample)"]
    assert (
        drawn.loc["Algorithm 1", "advantage"] == value["Algorithm 1: mean |f_hat| on the 2nd split"]
    )
    assert drawn.loc["held-out", "advantage"] == value["held-out advantage, max(0, raw) (drawn)"]
    assert drawn.loc["held-out", "raw"] == value["held-out advantage of sgn(f_hat) (raw)"]
    lower = "held-out 95 % lower bound"
    assert drawn.loc["lower bound", "advantage"] == value[f"{lower}, max(0, raw) (drawn)"]
    assert drawn.loc["lower bound", "raw"] == value[f"{lower} (raw)"]
    raw = run.estimate.heldout_lower  # a negative raw bound is drawn at 0, kept raw
    assert value[f"{lower} (raw)"] == raw
    assert value[f"{lower}, max(0, raw) (drawn)"] == max(0.0, raw)
    assert (drawn["advantage"] >= 0).all()
    lines = chart.datasets["lines"].set_index("name")
    assert lines.loc[mace_vega.TRUTH, "advantage"] == value["true advantage"]
    assert lines.loc[mace_vega.TANH, "advantage"] == dp_privacy_loss_bound(eps, est.prior)
    assert value["true advantage"] == run.truth
    assert value[f"tanh bound (eps={eps:g})"] == lines.loc[mace_vega.TANH, "advantage"]
    # the unit bridge: advantage = 2η = 2·accuracy − 1, in the table and on the chart
    np.testing.assert_allclose(table["eta"], table["advantage"] / 2)
    np.testing.assert_allclose(2 * table["accuracy"] - 1, table["advantage"], atol=1e-15)
    np.testing.assert_allclose(2 * lines["accuracy"] - 1, lines["advantage"], atol=1e-15)
    assert chart.spec["title"]["subtitle"].startswith("advantage = 2η = 2·accuracy − 1")
    top = chart.spec["layer"][1]["encoding"]["x"]
    assert top["axis"]["orient"] == "top" and top["title"] == "attacker accuracy"
    # the two axes are one scale: advantage −0.02..1.02 is accuracy 0.49..1.01
    bottom = chart.spec["layer"][0]["layer"][0]["encoding"]["x"]["scale"]["domain"]
    assert [(1 + a) / 2 for a in bottom] == pytest.approx(top["scale"]["domain"])
    spans = chart.datasets["spans"].set_index("row")
    lo, hi = est.mean_interval
    assert spans.loc["Algorithm 1", "from"] == min(lo, est.algorithm1)
    assert spans.loc["Algorithm 1", "to"] == max(hi, est.algorithm1)
    held = units(est.heldout, clip=True).advantage
    assert spans.loc["held-out", "to"] == held == max(0.0, est.heldout)


def test_drift_chart_draws_the_table(drift):
    chart, table = mace_vega.drift_vega(drift)
    assert list(table["N"]) == list(toy.DRIFT_N)
    assert "held-out 95 % lower bound: raw mean" in table.columns
    means = chart.datasets["means"]
    for name, *_ in mace_vega.DRIFT_SERIES:
        key = name.replace("f̂", "f_hat")
        rows = means[means["name"] == name]
        np.testing.assert_array_equal(rows["N"], table["N"])
        np.testing.assert_array_equal(rows["mean"], table[f"{key}: mean (drawn)"])
        for stat in ("mean", "min", "max"):
            np.testing.assert_array_equal(rows[f"raw_{stat}"], table[f"{key}: raw {stat}"])
        assert (rows["low"] <= rows["mean"]).all() and (rows["mean"] <= rows["high"]).all()
    held = means[means["name"] == "held-out sgn(f̂)"]
    np.testing.assert_array_equal(held["low"], np.maximum(drift.heldout, 0).min(axis=1))
    assert chart.datasets["truth"]["mean"].item() == table["true advantage"].iloc[0]


@pytest.mark.parametrize("estimator", ["histogram", "kde"])
def test_the_sliders_change_the_tables_not_the_specs(estimator):
    """Separation, prior and ε only change what is drawn: Streamlit then redraws the charts in
    place instead of building them anew (the reason these charts are Vega-Lite)."""
    kw = {"estimator": estimator, "n": 400}
    a = charts((toy.run(separation=1.0, **kw), 1.0))
    b = charts((toy.run(separation=2.5, prior=0.3, **kw), 3.0))
    for x, y in zip(a, b, strict=True):
        assert spec_text(x) == spec_text(y)
        assert any(not x.datasets[k].equals(y.datasets[k]) for k in x.datasets)


def test_separation_changes_the_drift_table_not_its_spec(drift):
    d1, _ = mace_vega.drift_vega(drift)
    d2, _ = mace_vega.drift_vega(toy.drift("mixture", 2.5, bins=20))
    assert spec_text(d1) == spec_text(d2)
    assert not d1.datasets["means"].equals(d2.datasets["means"])


def _channel(layer, channel) -> dict:
    enc = layer["encoding"][channel]
    return dict(zip(enc["scale"]["domain"], enc["scale"]["range"], strict=True))


def test_distinctions_do_not_rest_on_colour_alone(view, drift):
    samples, loss, adv = charts(view)
    curves = next(la for la in samples.spec["layer"] if la["data"]["name"] == "curves")
    dash = _channel(curves, "strokeDash")
    assert dash[mace_vega.MEMBERS] != dash[mace_vega.NONMEMBERS]  # P solid, Q dashed
    truth = next(la for la in loss.spec["layer"] if la["data"].get("name") == "f_true")
    if view[0].estimate.method == "histogram":
        points = next(la for la in loss.spec["layer"] if la["mark"]["type"] == "point")
        shape = _channel(points, "shape")
        assert shape[mace_vega.F_BINS] == "diamond" and shape[mace_vega.F_TRUE] == "stroke"
    else:
        dash = _channel(truth, "strokeDash")
        assert dash[mace_vega.F_KDE] == DASH["dot"] != dash[mace_vega.F_TRUE]
    inner = adv.spec["layer"][0]["layer"]
    points = next(la for la in inner if la["mark"]["type"] == "point")
    shapes = [_channel(points, "shape")[n] for n in mace_vega.ROWS.values()]
    assert len(set(shapes)) == 4  # each estimate its own shape (and its own row)
    rules = _channel(inner[0], "strokeDash")
    assert rules[mace_vega.TRUTH] == DASH["solid"] != rules[mace_vega.TANH]
    assert _channel(inner[0], "color")[mace_vega.TANH] == style.DP.colour
    chart, _ = mace_vega.drift_vega(drift)
    line = next(la for la in chart.spec["layer"] if la["mark"]["type"] == "line")
    marks = next(la for la in chart.spec["layer"] if la["mark"]["type"] == "point")
    names = [s[0] for s in mace_vega.DRIFT_SERIES]
    assert len({tuple(_channel(line, "strokeDash")[n]) for n in names}) == 3
    assert len({_channel(marks, "shape")[n] for n in names}) == 3


def test_the_curves_are_thinned_and_labels_are_plain_text(view):
    samples, loss, adv = charts(view)
    assert len(samples.datasets["curves"]) <= 400 + 2  # two 400-point curves, half each
    for chart in (samples, loss, adv):
        text = spec_text(chart)
        assert not re.search(r"</?[a-z]+>|\de-\d", text)  # no HTML tags, no 1e-5
        assert '"transform"' not in text  # no row-by-row transforms for Vega to evaluate
