"""The risk calculator's chart drawn by Vega-Lite (mipcore.plots.guarantee_vega): every route's
ROC bound of :func:`mipcore.guarantees.route_curves` drawn from its table (thinned curves within
0.004 decades of every grid point), a specification that the guarantee's numbers do not change,
and the routes told apart by more than colour. The curves' numbers are tested in
test_guarantees.py."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.guarantees import DpSgd, EpsDelta, Gdp, Rdp, Relation, Zcdp, route_curves
from mipcore.plots import guarantee_vega as V
from mipcore.plots import style
from mipcore.plots.vega import DASH

AR = Relation.ADD_OR_REMOVE_ONE
GUARANTEES = [
    EpsDelta(1.0, 1e-5),
    EpsDelta(1.0, 0.0, AR),
    EpsDelta(0.5, 0.01, AR),
    Gdp(1.0, AR),
    Zcdp(0.5),
    Rdp((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0)),
    Rdp((2.0, 4.0, 8.0), (0.5, 1.0, 2.0), AR),
    DpSgd(1.0, 0.01, 1000),
    DpSgd(20.0, 1.0, 100),
]


@pytest.fixture(scope="module")
def reports():
    return {repr(g): route_curves(g) for g in GUARANTEES}


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def line_layer(chart, data: str = "routes") -> dict:
    (found,) = [la for la in chart.spec["layer"] if la["data"]["name"] == data]
    return found


@pytest.mark.parametrize("g", GUARANTEES, ids=repr)
@pytest.mark.parametrize("show_invalid", [False, True])
def test_the_chart_draws_every_route_of_its_table(reports, g, show_invalid):
    r = reports[repr(g)]
    chart, table = V.routes_roc_vega(r, show_invalid=show_invalid)
    valid_vega_lite(chart)
    assert list(table.columns) == V.TABLE_COLUMNS
    assert not table.isna().any().any()
    shown = [x for x in r.curves if x.result.valid or show_invalid]
    assert set(table["route"]) == {x.result.route.value for x in shown}
    bad = r.bound.invalid
    assert set(table["valid"]) == ({True, False} if show_invalid and bad and bad.eta else {True})
    fpr = np.asarray(r.bound.roc_fpr)
    for x in shown:  # the CSV: each route's bound at every grid FPR from 10⁻⁶ on
        rows = table[table["route"] == x.result.route.value]
        np.testing.assert_array_equal(rows["fpr"], fpr[fpr >= 1e-6])
        np.testing.assert_array_equal(rows["tpr_bound"], np.asarray(x.tpr)[fpr >= 1e-6])
        assert (rows["tpr_bound"] >= 1e-6).all()  # on the fixed TPR axis
    # the drawn curves: rows of the table, both ends, within 0.004 decades of every grid point
    curves = [chart.datasets["routes"], chart.datasets["tightest"]]
    drawn = curves[0].merge(curves[1], how="outer")
    names = line_layer(chart)["encoding"]["color"]["scale"]["domain"]
    for x in shown:
        label = V.route_label(x.result.route)
        (name,) = [n for n in drawn["name"].unique() if n.startswith(label)]
        assert name in names
        rows = drawn[drawn["name"] == name].sort_values("fpr")
        full = table[table["route"] == x.result.route.value]
        assert rows["fpr"].iloc[0] == full["fpr"].iloc[0] and rows["fpr"].iloc[-1] == 1.0
        assert len(rows) <= len(full) // 2 + 2
        on_grid = full.merge(rows, left_on=["fpr", "tpr_bound"], right_on=["fpr", "tpr"])
        assert len(on_grid) == len(rows)  # every drawn point is a point of the table
        back = np.interp(np.log10(full["fpr"]), np.log10(rows["fpr"]), np.log10(rows["tpr"]))
        assert np.abs(back - np.log10(full["tpr_bound"])).max() <= 0.004 + 1e-12
        assert ("tightest" in name) == x.tightest
        assert (V.INVALID_SUFFIX in name) == (not x.result.valid)
    (tight,) = chart.datasets["tightest"]["name"].unique()
    assert tight == V.route_label(r.bound.route) + V.TIGHTEST_SUFFIX
    levels = chart.datasets["levels"]
    assert tuple(levels["fpr"]) == tuple(r.bound.fpr_levels)
    assert tuple(levels["tpr"]) == tuple(r.bound.tpr_at_fpr)
    markers = chart.datasets["invalid_markers"]
    assert len(markers) == (9 if show_invalid and bad is not None else 0)
    for t in chart.datasets.values():
        numbers = t.select_dtypes("number").to_numpy(dtype=float)
        assert np.isfinite(numbers).all() and (numbers > 0).all()


def test_the_tightest_is_drawn_last_and_every_curve_has_its_own_look(reports):
    r = reports[repr(Gdp(1.0, AR))]
    chart, _ = V.routes_roc_vega(r, show_invalid=True)
    order = [la["data"]["name"] for la in chart.spec["layer"]]
    assert order.index("tightest") > order.index("routes") > order.index("guess")
    enc = line_layer(chart)["encoding"]
    domain = enc["color"]["scale"]["domain"]
    looks = list(
        zip(
            enc["color"]["scale"]["range"],
            map(tuple, enc["strokeDash"]["scale"]["range"]),
            strict=True,
        )
    )
    lines = [look for n, look in zip(domain, looks, strict=True) if n != V.LEVELS_NAME]
    assert len(lines) == len(set(lines))  # every curve has its own colour-and-dash pair
    dashes = [d for n, (_, d) in zip(domain, looks, strict=True) if n != V.LEVELS_NAME]
    colours = [c for n, (c, _) in zip(domain, looks, strict=True) if n != V.LEVELS_NAME]
    assert len(set(dashes)) == len(dashes)  # more than colour: every curve its own dash
    assert len(set(colours)) >= 2
    i = domain.index(V.route_label(r.bound.route) + V.TIGHTEST_SUFFIX)
    assert i == 0  # the legend starts with the route to quote
    assert looks[i] == (style.INK, tuple(DASH["solid"]))
    assert enc["strokeWidth"]["scale"]["range"][i] == 5.0
    (bad,) = [n for n in domain if V.INVALID_SUFFIX in n]
    assert "add/remove read as replace-one" in bad
    assert looks[domain.index(bad)] == (style.PRINTED.colour, tuple(DASH["dashdot"]))
    assert domain[-2:] == [V.GUESS_NAME, V.LEVELS_NAME]
    without, _ = V.routes_roc_vega(r)
    assert not any(
        V.INVALID_SUFFIX in n for n in line_layer(without)["encoding"]["color"]["scale"]["domain"]
    )


@pytest.mark.parametrize(
    "a, b",
    [
        (EpsDelta(1.0, 1e-5), EpsDelta(2.0, 1e-5)),
        (Gdp(1.0), Gdp(0.4)),
        (DpSgd(1.0, 0.01, 1000), DpSgd(1.3, 0.01, 1000)),
    ],
    ids=["epsilon", "mu", "noise"],
)
def test_the_guarantees_numbers_change_the_tables_not_the_spec(a, b):
    """The page's first input (ε, μ, σ) changes the tables only: the chart is redrawn in place."""
    ca, _ = V.routes_roc_vega(route_curves(a))
    cb, _ = V.routes_roc_vega(route_curves(b))
    assert spec_text(ca) == spec_text(cb)
    assert not ca.datasets["tightest"].equals(cb.datasets["tightest"])


def test_axes_are_log_with_superscript_powers_of_ten(reports):
    chart, _ = V.routes_roc_vega(reports[repr(GUARANTEES[0])])
    enc = line_layer(chart)["encoding"]
    for axis in ("x", "y"):
        assert enc[axis]["scale"]["type"] == "log"
        assert enc[axis]["scale"]["domain"][0] == 1e-6
        assert (
            "'10⁻⁶'" in enc[axis]["axis"]["labelExpr"]
            and "e-" not in enc[axis]["axis"]["labelExpr"]
        )
    assert chart.spec["title"] == V.TITLE


def test_thin_log_keeps_bends_and_ends():
    x = np.logspace(-6, 0, 121)
    keep = V.thin_log(x, x)  # a straight line on log–log axes: its two ends
    assert keep.sum() == 2 and keep[0] and keep[-1]
    y = np.minimum(1.0, 100 * x)  # one corner at x = 10⁻²
    keep = V.thin_log(x, y)
    assert np.isclose(x[keep], 1e-2).any() and keep.sum() == 3
    assert not V.thin_log(np.array([]), np.array([])).any()


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="curves"):
        V.routes_roc_vega("curves")
