"""The concept module of distributions and intervals (mipcore.plots.distributions): a
specification that holds no data and is built once per look, each part (bins, intervals,
bands, reference rules, the looks of a named field sharing one legend) and the chart's
subtitle and resolved scales. The charts drawn with it are tested in test_prop11_vega.py and
test_mace_vega.py."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd
import pytest
from test_vega import valid_vega_lite

from mipcore.plots import curves, distributions, style, vega
from mipcore.plots.curves import Look
from mipcore.plots.vega import DASH

A, B = "estimate", "truth"
LOOKS = {A: Look(style.GREEN, "dot", 3.0, "diamond"), B: Look(style.INK)}
BUILT: list[tuple] = []  # the looks _layers was called with


def _layers(log_x: bool) -> list:
    BUILT.append((log_x,))
    x = curves.quantity(alt.X, "x", "x", log=log_x)
    y = curves.quantity(alt.Y, "y", "y")
    colour = distributions.looks("name", LOOKS, "color", legend={"title": None})
    return [
        distributions.rule(alt.YDatum(0.0, type="quantitative"), color=style.GREY),
        distributions.rule(
            alt.XDatum(1.0, type="quantitative"),
            label=alt.Chart().mark_text().encode(text=alt.value("one")),
            strokeWidth=2,
        ),
        distributions.rule(x, "marks", strokeWidth=3).encode(**colour),
        distributions.bins("bars", x, "x_right", y, 0, opacity=0.4),
        distributions.bins("boxes", x, "x_right", y, "floor"),
        distributions.interval("bars", alt.Y("lower:Q"), "upper", x).encode(**colour),
        distributions.interval("bars", x, "x_right", y, color=style.ORANGE),
        distributions.band("bars", x, "lower", "upper", opacity=0.2),
        curves.markers("bars", 60).encode(
            x=x, y=y, **colour, **distributions.looks("name", LOOKS, "shape", legend=None)
        ),
    ]


def tables(shift: float = 0.0) -> dict[str, pd.DataFrame]:
    bars = pd.DataFrame(
        {
            "name": [A, B],
            "x": [1.0, 2.0],
            "x_right": [2.0, 3.0],
            "y": [0.5 + shift, 0.25],
            "lower": [0.4, 0.2],
            "upper": [0.6, 0.3],
        }
    )
    return {
        "marks": bars[["name", "x"]],
        "bars": bars,
        "boxes": bars.assign(floor=0.01)[["x", "x_right", "y", "floor"]],
    }


def draw(log_x: bool = False, shift: float = 0.0, **kw) -> vega.VegaLiteChart:
    return distributions.chart("T", tables(shift), _layers, log_x, height=200, **kw)


def test_the_spec_holds_no_data_and_is_valid():
    chart = draw()
    valid_vega_lite(chart)
    assert "data" not in chart.spec and "datasets" not in chart.spec
    assert chart.spec["title"] == chart.title == "T" and chart.spec["height"] == 200
    assert "resolve" not in chart.spec
    named = [la["data"] for la in chart.spec["layer"] if "name" in la.get("data", {})]
    assert named == [
        {"name": n} for n in ("marks", "bars", "boxes", "bars", "bars", "bars", "bars")
    ]


def test_the_data_changes_the_tables_not_the_spec():
    a, b = draw(), draw(shift=0.2)
    assert a.spec == b.spec
    assert not a.datasets["bars"].equals(b.datasets["bars"])


def test_the_spec_is_built_once_per_look_in_the_apps_cache(monkeypatch):
    from appkit import cache

    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()
    BUILT.clear()
    a, b = draw(), draw(shift=0.3, subtitle="s", resolve={"x": "independent"})
    assert BUILT == [(False,)]  # the data and the dressing changed, the look did not
    assert a.spec is not b.spec and "subtitle" not in str(a.spec["title"])  # own copies
    assert a.spec == draw().spec
    draw(log_x=True)
    assert BUILT == [(False,), (True,)]
    monkeypatch.setattr(vega, "SPEC_MEMO", None)  # mipcore alone keeps no cache
    draw(), draw()
    assert len(BUILT) == 4


def test_subtitle_and_resolved_scales():
    chart = draw(subtitle="the bars: ranges", resolve={"shape": "independent"})
    valid_vega_lite(chart)
    assert chart.spec["title"] == {
        "text": "T",
        "subtitle": "the bars: ranges",
        "subtitleFontSize": 14,
        "subtitleColor": style.GREY,
    }
    assert chart.title == "T"  # the CSV's label: the title's text
    assert chart.spec["resolve"] == {"scale": {"shape": "independent"}}


def _own_layers(nested: bool) -> list:
    x = curves.quantity(alt.X, "x", "x")
    bars = distributions.own().mark_bar().encode(x=x, x2=alt.X2("x_right"), y=alt.Y("y:Q"))
    marks = curves.markers("marks", 60).encode(x=x, y=alt.value(0))
    return [alt.layer(bars, marks) if nested else bars, marks]


@pytest.mark.parametrize("nested", [False, True])
def test_layers_of_own_read_the_charts_own_table(nested):
    """A layer drawn from own() names no dataset: it reads the chart's own table (Vega-Lite's
    default data, the chart's ``data``), also inside a group; the named datasets stay named
    and the own table is not among them."""
    t = tables()
    chart = distributions.chart(
        "T", {"marks": t["marks"]}, _own_layers, nested, height=200, data=t["bars"]
    )
    valid_vega_lite(chart)
    assert chart.data is t["bars"] and list(chart.datasets) == ["marks"]
    layers = chart.spec["layer"]
    bars = layers[0]["layer"][0] if nested else layers[0]
    assert "data" not in bars and bars["mark"]["type"] == "bar"
    assert bars["encoding"]["x2"] == {"field": "x_right"}
    assert layers[-1]["data"] == {"name": "marks"}
    assert distributions.OWN not in json.dumps(chart.spec)
    plain = distributions.chart(
        "T", {"marks": t["marks"], distributions.OWN: t["bars"]}, _own_layers, nested, height=200
    )
    assert plain.data is None and distributions.OWN in json.dumps(plain.spec)  # only with data=


def test_looks_map_each_name_in_order_with_one_legend():
    enc = distributions.looks(
        "name", LOOKS, "color", "fill", "strokeDash", "strokeWidth", "shape", legend={"title": None}
    )
    got = {k: v.to_dict() for k, v in enc.items()}
    want = {
        "color": [style.GREEN, style.INK],
        "fill": [style.GREEN, style.INK],  # a marker filled in its look's colour
        "strokeDash": [DASH["dot"], DASH["solid"]],
        "strokeWidth": [3.0, 2.5],
        "shape": ["diamond", "stroke"],
    }
    for channel, values in want.items():
        assert got[channel]["field"] == "name" and got[channel]["type"] == "nominal"
        assert got[channel]["scale"] == {"domain": [A, B], "range": values}
        assert got[channel]["legend"] == {"title": None}  # one legend, merged by Vega-Lite
    hidden = distributions.looks("name", LOOKS, "shape", legend=None)["shape"].to_dict()
    assert hidden["legend"] is None
    with pytest.raises(ValueError, match="size"):
        distributions.looks("name", LOOKS, "size", legend=None)


def test_each_part():
    layers = draw().spec["layer"]
    zero, one, marks, bars, boxes, error, top, band, points = layers
    # a reference at a number: one empty row inline; with a label, the two share it
    assert zero == {
        "data": {"values": [{}]},
        "mark": {"type": "rule", "color": style.GREY},
        "encoding": {"y": {"datum": 0.0, "type": "quantitative"}},
    }
    assert one["data"] == {"values": [{}]} and [la["mark"]["type"] for la in one["layer"]] == [
        "rule",
        "text",
    ]
    assert one["layer"][0]["encoding"] == {"x": {"datum": 1.0, "type": "quantitative"}}
    # a reference at each row of a table: across the plot, no y
    assert marks["mark"] == {"type": "rule", "strokeWidth": 3} and set(marks["encoding"]) == {
        "x",
        "color",
    }
    # bins: from x to x2, from a number or a field up to y
    assert bars["mark"] == {"type": "rect", "opacity": 0.4}
    assert bars["encoding"]["x2"] == {"field": "x_right"} and bars["encoding"]["y2"] == {"datum": 0}
    assert boxes["encoding"]["y2"] == {"field": "floor"}
    # intervals along y (an error bar at x) and along x (a bar's top at y)
    assert error["encoding"]["y"] == {"field": "lower", "type": "quantitative"}
    assert error["encoding"]["y2"] == {"field": "upper"} and error["encoding"]["x"]["field"] == "x"
    assert top["encoding"]["x2"] == {"field": "x_right"} and top["encoding"]["y"]["field"] == "y"
    assert top["mark"] == {"type": "rule", "color": style.ORANGE}
    # a band between two fields
    assert band["mark"] == {"type": "area", "opacity": 0.2}
    assert (band["encoding"]["y"]["field"], band["encoding"]["y2"]) == ("lower", {"field": "upper"})
    assert points["encoding"]["shape"]["legend"] is None
