"""The concept module of curve charts (mipcore.plots.curves) and the Altair route into a
VegaLiteChart (mipcore.plots.vega.altair_spec)."""

from __future__ import annotations

import altair as alt
import pandas as pd
import pytest
from test_vega import valid_vega_lite

from mipcore.plots import curves, style, vega
from mipcore.plots.vega import DASH, altair_spec, config, power_axis

DRAWN: list[tuple] = []  # the looks _layers was called with


def _layers(log_y: bool, families: tuple[tuple[str, str], ...]) -> list:
    DRAWN.append((log_y, families))
    x = curves.quantity(alt.X, "x", "x")
    y = curves.quantity(alt.Y, "y", "y", log=log_y)
    rule = alt.Chart().mark_rule().encode(y=alt.datum(1.0, type="quantitative"))
    lines = (
        curves.dataset("lines")
        .mark_line()
        .encode(x=x, y=y, color=curves.by(alt.Color, "family", dict(families)))
    )
    return [rule, lines]


def _chart(log_y=False, lines=None):
    lines = (
        pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 3.0], "family": "a"}) if lines is None else lines
    )
    key = {"a": curves.Look(style.BLUE), "method": curves.Look(style.INK, "dash", shape="square")}
    families = (("a", style.BLUE),)
    return curves.chart("T", {"lines": lines}, _layers, log_y, families, height=200, key=key)


def test_the_spec_is_built_once_per_look_in_the_apps_cache_and_never_shared(monkeypatch):
    """In the app (appkit imported) a look's spec is built once and kept in appkit's one
    bounded cache; every chart gets its own copy."""
    from appkit import cache

    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()
    DRAWN.clear()
    a, b = _chart(), _chart(lines=pd.DataFrame({"x": [5.0], "y": [7.0], "family": "a"}))
    assert DRAWN == [(False, (("a", style.BLUE),))]  # the data changed, the look did not
    assert a.spec == b.spec and a.spec is not b.spec
    a.spec["layer"][1]["mark"]["type"] = "point"  # a caller's change stays its own
    assert _chart().spec == b.spec
    _chart(log_y=True)
    assert len(DRAWN) == 2
    assert cache.stats()["hits"] >= 2


def test_a_kept_look_still_checks_each_charts_tables(monkeypatch):
    """The columns a look's spec reads are found once with the spec and kept, yet every chart
    is checked against its own tables: one missing a column the spec reads is refused."""
    from appkit import cache

    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()
    kept = _chart()
    assert kept.reads == vega.reads(kept.spec) and "y" in kept.reads[0]
    assert kept.datasets["key"] is _chart().datasets["key"]  # the legend's table, kept once
    with pytest.raises(ValueError, match=r"columns \['y'\] that data does not have"):
        _chart(lines=pd.DataFrame({"x": [1.0], "family": "a"}))


def test_mipcore_alone_keeps_no_cache(monkeypatch):
    """Without the app's memo, mipcore builds the spec on every call (it caches nothing)."""
    monkeypatch.setattr(vega, "SPEC_MEMO", None)
    DRAWN.clear()
    a, b = _chart(), _chart()
    assert len(DRAWN) == 2 and a.spec == b.spec


def test_chart_with_key_has_one_legend_and_valid_spec():
    chart = _chart()
    valid_vega_lite(chart)
    assert list(chart.datasets) == ["lines", "key"]
    assert chart.datasets["key"]["key"].tolist() == ["a", "method"]
    key = chart.spec["layer"][-1]
    assert key["data"] == {"name": "key"} and key["mark"]["opacity"] == 0
    assert key["encoding"]["strokeDash"]["scale"]["range"] == [DASH["solid"], DASH["dash"]]
    assert key["encoding"]["shape"]["scale"]["range"] == ["stroke", "square"]
    assert chart.spec["resolve"]["scale"]["strokeDash"] == "independent"
    assert chart.spec["title"] == chart.title == "T" and chart.spec["width"] == "container"


def test_altair_spec_keeps_the_apps_config_and_no_table():
    spec = _chart().spec
    assert "$schema" not in spec and "datasets" not in spec and spec["config"] == config()
    assert spec["layer"][0]["data"] == {"values": [{}]}  # the rule's one empty row, inline
    inline = alt.Chart(pd.DataFrame({"x": [1.0]})).mark_point().encode(x="x:Q")
    with pytest.raises(ValueError, match="named datasets"):
        altair_spec(inline)


def test_quantity_axes():
    fixed = curves.quantity(alt.Y, "v", "v", log=True, domain=(1e-8, 1e10), every=2).to_dict()
    assert fixed["scale"] == {"type": "log", "domain": [1e-8, 1e10], "nice": False}
    assert fixed["axis"]["values"] == [10.0**k for k in range(-8, 11, 2)]
    spans = curves.quantity(alt.X, "v", "v", log=True, zero=True).to_dict()
    assert "zero" not in spans["scale"] and spans["axis"] == power_axis()
    linear = curves.quantity(alt.X, "v", "v", domain=(0, 6), ticks=range(7), zero=False)
    assert linear.to_dict()["scale"] == {"zero": False, "domain": [0, 6], "nice": False}
    assert linear.to_dict()["axis"] == {"values": list(range(7))}


def _parts(at: float | None) -> list:
    x = curves.quantity(alt.X, "x", "x")
    y = curves.quantity(alt.Y, "y", "y")
    colour = curves.by(alt.Color, "family", {"a": style.BLUE})
    return [
        curves.band("lines", "lo", "hi", 0.2, clip=True).encode(x=x, color=colour),
        curves.rule(2.0, "two", colour=style.GREY, dash="dot", width=1.5, at=at, fontSize=13),
        curves.line("lines", curves.Look(style.BLUE, "dash")).encode(x=x, y=y, color=colour),
        curves.labels("lines", "family", dy=-8).encode(x=x, y=y),
    ]


def test_band_rule_and_labels_draw_from_the_named_tables():
    lines = pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 3.0], "lo": [0.5, 2.0], "hi": [1.5, 4.0]})
    lines["family"] = "a"
    for at in (None, 1.5):
        chart = curves.chart("T", {"lines": lines}, _parts, at, height=200)
        valid_vega_lite(chart)
        band, rule, line, text = chart.spec["layer"]
        assert band["data"] == line["data"] == text["data"] == {"name": "lines"}
        assert band["mark"] == {"type": "area", "opacity": 0.2, "clip": True}
        assert band["encoding"]["y"] == {"field": "lo", "type": "quantitative"}
        assert band["encoding"]["y2"] == {"field": "hi"}
        assert text["mark"] == {"type": "text", "dy": -8}
        assert text["encoding"]["text"] == {"field": "family", "type": "nominal"}
        # the rule and its label: no table, one empty row inline
        assert rule["data"] == {"values": [{}]}
        stroke, label = rule["layer"]
        assert stroke["mark"] == {
            "type": "rule",
            "color": style.GREY,
            "strokeDash": DASH["dot"],
            "strokeWidth": 1.5,
        }
        two = {"datum": 2.0, "type": "quantitative"}
        assert stroke["encoding"] == {"y": two}
        assert label["mark"] == {"type": "text", "fontSize": 13}
        where = {"value": "width"} if at is None else {"datum": at, "type": "quantitative"}
        assert label["encoding"] == {"x": where, "y": two, "text": {"value": "two"}}


def test_resolve_is_part_of_the_look(monkeypatch):
    """``resolve`` reaches the specification, with a key's own resolution kept, and two
    resolutions of one look are two specifications in the app's cache."""
    from appkit import cache

    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    lines = pd.DataFrame({"x": [1.0], "y": [1.0], "family": "a"})
    families = (("a", style.BLUE),)
    shared = curves.chart("T", {"lines": lines}, _layers, False, families, height=200)
    apart = {"legend": {"color": "independent"}, "scale": {"y": "independent"}}
    split = curves.chart("T", {"lines": lines}, _layers, False, families, height=200, resolve=apart)
    assert "resolve" not in shared.spec and split.spec["resolve"] == apart
    valid_vega_lite(split)
    key = {"a": curves.Look(style.BLUE)}
    both = curves.chart(
        "T",
        {"lines": lines},
        _layers,
        False,
        families,
        height=200,
        key=key,
        resolve={"legend": {"color": "independent"}},
    )
    assert both.spec["resolve"] == {
        "scale": dict.fromkeys(("color", "strokeDash", "shape"), "independent"),
        "legend": {"color": "independent"},
    }
