"""The Wrap page's charts in Altair (mipcore.plots.wrap_vega): schema-valid, drawing
the comparison's numbers, a specification that d does not change, MIP and DP told apart by
more than colour."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.experiments import statistic_release as wrap
from mipcore.plots import wrap_vega as wv


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


@pytest.fixture(scope="module", params=["mean", "covariance", "linear regression"])
def comp(request):
    return wrap.compare_generated(request.param, 300, 3, 0, 0.2, B=16)


def test_error_bars_draw_the_errors_table(comp):
    chart, table = wv.error_vega(comp)
    valid_vega_lite(chart)
    assert table is comp.errors  # the CSV
    bars = chart.datasets["bars"]
    mip = bars[bars["release"] == wv.MIP_BAR].sort_values("position")
    assert np.allclose(mip["error"], table["mip_abs_error"][table["mip_abs_error"] > 0])
    dp = bars[bars["release"] == wv.DP_BAR].sort_values("position")
    if table["dp_abs_error"].notna().any():
        assert np.allclose(dp["error"], table["dp_abs_error"])
    else:
        assert dp.empty
    assert list(mip["quantity"]) == list(table["quantity"])  # full names, for the tooltip
    assert not bars.isna().any().any()


def test_spread_draws_the_spread_table(comp):
    chart, table = wv.spread_vega(comp)
    valid_vega_lite(chart)
    assert table is comp.spread_table
    medians = chart.datasets["medians"]
    assert np.allclose(np.sort(medians["median"]), np.sort(table["median"]))
    bars = chart.datasets["bars"]
    assert np.allclose(np.sort(bars["q10"]), np.sort(table["q10"]))
    assert np.allclose(np.sort(bars["q90"]), np.sort(table["q90"]))
    assert np.allclose(chart.datasets["sigma"]["sigma"], comp.release.mip.sigma)
    for t in chart.datasets.values():
        assert not t.isna().any().any()


@pytest.mark.parametrize("stat", ["mean", "covariance"])
def test_specs_do_not_depend_on_d(stat):
    """The page's first slider, d (columns): new tables, the same specifications."""
    a = wrap.compare_generated(stat, 300, 2, 0, 0.2, B=16)
    b = wrap.compare_generated(stat, 300, 4, 0, 0.2, B=16)  # 16 second moments: still names
    for builder in (wv.error_vega, wv.spread_vega):
        ca, _ = builder(a)
        cb, _ = builder(b)
        assert spec_text(ca) == spec_text(cb)
        assert any(not ca.datasets[k].equals(cb.datasets[k]) for k in ca.datasets)


def test_specs_are_built_once_per_look_in_the_apps_cache(monkeypatch):
    """The error chart's look is whether there is a DP release, the spread chart's the
    releases and the number of draws: another d reads the cached specifications."""
    from appkit import cache
    from mipcore.plots import vega

    built = []
    for name in ("_error_bars", "_spread"):
        original = getattr(wv, name)
        monkeypatch.setattr(
            wv, name, lambda *look, _f=original, _n=name: built.append(_n) or _f(*look)
        )
    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()
    for d in (2, 3):
        comp = wrap.compare_generated("mean", 300, d, 0, 0.2, B=16)
        wv.error_vega(comp), wv.spread_vega(comp)
    assert built == ["_error_bars", "_spread"]
    ls = wrap.compare_generated("linear regression", 300, 3, 0, 0.2, B=16)  # no DP release
    error, _ = wv.error_vega(ls)
    assert built[-1] == "_error_bars" and len(built) == 3
    assert error.spec["layer"][0]["encoding"]["fill"]["scale"]["domain"] == [wv.MIP_BAR]


def test_mip_and_dp_differ_beyond_colour():
    comp = wrap.compare_generated("mean", 300, 3, 0, 0.2, B=16)
    err, _ = wv.error_vega(comp)
    (layer,) = err.spec["layer"]
    fill = dict(zip(*layer["encoding"]["fill"]["scale"].values(), strict=True))
    assert fill[wv.MIP_BAR] != "white" and fill[wv.DP_BAR] == "white"  # filled vs hollow
    spread, _ = wv.spread_vega(comp)
    (points,) = [x for x in spread.spec["layer"] if x["data"]["name"] == "medians"]
    shapes = points["encoding"]["shape"]["scale"]["range"]
    assert shapes[:2] == ["circle", "square"] and shapes[2] == "stroke"  # MIP, DP, σ


def test_tick_labels_cut_names_and_number_many():
    assert wv.short_label("abcdef", 4) == "abc…"
    long = ["x" * 30 + "a", "x" * 30 + "b", "short"]
    ticks = wv.tick_labels(long)
    assert len(set(ticks)) == 3  # cut names stay apart
    assert all(len(t.rstrip("\u200b")) <= wv.LABEL_CHARS for t in ticks)
    many = [f"n{i}" for i in range(wv.MAX_TICK_LABELS + 1)]
    assert wv.tick_labels(many) == [str(i) for i in range(1, len(many) + 1)]


def test_no_markup_in_the_specs():
    """Names are data drawn as text: the specification holds none of them."""
    comp = wrap.compare_generated("mean", 300, 3, 0, 0.2, B=16)
    for builder in (wv.error_vega, wv.spread_vega):
        chart, _ = builder(comp)
        assert "mean(x1)" not in spec_text(chart)
