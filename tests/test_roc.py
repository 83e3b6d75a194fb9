"""The concept module of ROC-region charts (mipcore.plots.roc): a specification that holds no
data and is built once per look, linear and log–log planes, one legend in the entries' order,
and each kind of layer (shaded region, curves, points). The three charts drawn with it are
tested in test_bounds_vega.py, test_guarantee_vega.py and test_audit_vega.py."""

from __future__ import annotations

import pandas as pd
import pytest
from test_vega import valid_vega_lite

from mipcore.plots import roc, style, vega
from mipcore.plots.vega import DASH

A, B, C = "bound", "attack", "guessing"
ENTRIES = {
    A: roc.styled(style.MIP),
    B: roc.Entry(style.GREEN, roc.dash("dash"), 3.5),
    C: roc.CHANCE,
}
LAYERS = (
    roc.Region("area", style.DP.colour, 0.2),
    roc.Curves("lines"),
    roc.Curves("thick", width=3),
    roc.Points("marks", 70, tooltip="none"),
    roc.Points("dot", 200, outlined=True, clip=False, tooltip="rates"),
    roc.Points("crosses", 120, shape="cross"),
)


def tables(shift: float = 0.0) -> dict[str, pd.DataFrame]:
    rows = pd.DataFrame({"fpr": [0.0, 0.5, 1.0], "tpr": [0.1 + shift, 0.7, 1.0], "name": [A, A, A]})
    return {
        "area": rows[["fpr", "tpr"]],
        "lines": pd.concat([rows, rows.assign(name=C, tpr=rows["fpr"])], ignore_index=True),
        "thick": rows.assign(name=B),
        "marks": rows,
        "dot": rows.iloc[:1],
        "crosses": rows.assign(name=B),
    }


def draw(plane=None, entries=None, shift=0.0, **kw):
    return roc.chart(
        "T",
        tables(shift),
        plane=plane or roc.Plane(),
        entries=ENTRIES if entries is None else entries,
        layers=LAYERS,
        height=300,
        legend={"symbolSize": 140},
        **kw,
    )


def layer(chart, name: str) -> dict:
    (found,) = [la for la in chart.spec["layer"] if la["data"] == {"name": name}]
    return found


def test_the_spec_holds_no_data_and_is_valid():
    chart = draw()
    valid_vega_lite(chart)
    assert "data" not in chart.spec and "datasets" not in chart.spec
    assert [la["data"] for la in chart.spec["layer"]] == [{"name": la.data} for la in LAYERS]
    assert chart.spec["title"] == chart.title == "T" and chart.spec["height"] == 300
    assert set(chart.datasets) == {la.data for la in LAYERS}


def test_a_lone_layer_keeps_its_data():
    """Altair lifts a lone layer's data to the chart; the spec keeps it in the layer."""
    chart = roc.chart(
        "T", tables(), plane=roc.Plane(), entries=ENTRIES, layers=[roc.Curves("lines")], height=9
    )
    assert "data" not in chart.spec and chart.spec["layer"][0]["data"] == {"name": "lines"}


def test_the_data_changes_the_tables_not_the_spec():
    a, b = draw(), draw(shift=0.2)
    assert a.spec == b.spec
    assert not a.datasets["lines"].equals(b.datasets["lines"])


def test_the_spec_is_built_once_per_look_in_the_apps_cache(monkeypatch):
    from appkit import cache

    built = []
    layers = roc._layers

    def counting(*look):
        built.append(look)
        return layers(*look)

    monkeypatch.setattr(roc, "_layers", counting)
    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()
    a, b = draw(), draw(shift=0.3)
    assert len(built) == 1  # the data changed, the look did not
    assert a.spec == b.spec and a.spec is not b.spec  # each chart its own copy
    draw(plane=roc.Plane(log=True, fpr_lo=1e-6, tpr_lo=1e-6))
    draw(entries=dict(reversed(ENTRIES.items())))
    assert len(built) == 3  # a new plane, a new legend order: new looks
    monkeypatch.setattr(vega, "SPEC_MEMO", None)  # mipcore alone keeps no cache
    draw(), draw()
    assert len(built) == 5


def test_linear_plane():
    x, y = (layer(draw(), "lines")["encoding"][c] for c in ("x", "y"))
    assert x["scale"] == {"domain": [0.0, 1.0], "nice": False} and "axis" not in x
    assert y["scale"] == {"domain": [0.0, 1.02], "nice": False} and "axis" not in y
    assert (x["title"], y["title"]) == ("false-positive rate", "true-positive rate")


def test_log_plane_is_ticked_at_powers_of_ten_with_superscripts():
    plane = roc.Plane(log=True, fpr_lo=1e-6, tpr_lo=10**-3.5, tpr_top=1.05, tpr_axis="largest")
    chart = draw(plane=plane)
    valid_vega_lite(chart)
    x, y = (layer(chart, "lines")["encoding"][c] for c in ("x", "y"))
    assert x["scale"] == {"type": "log", "domain": [1e-6, 1.0], "nice": False}
    assert y["scale"] == {"type": "log", "domain": [10**-3.5, 1.05], "nice": False}
    assert x["axis"]["values"] == pytest.approx([10.0**k for k in range(-6, 1)])
    assert y["axis"]["values"] == pytest.approx([10.0**k for k in range(-3, 1)])
    assert "'10⁻⁶'" in x["axis"]["labelExpr"] and "e-" not in x["axis"]["labelExpr"]
    assert (x["title"], y["title"]) == ("false-positive rate (log)", "largest (log)")
    with pytest.raises(ValueError, match="lo"):  # a log axis needs a positive start
        draw(plane=roc.Plane(log=True))


def test_one_legend_in_the_entries_order():
    chart = draw()
    lines = layer(chart, "lines")["encoding"]
    marks = layer(chart, "marks")["encoding"]
    for enc, channel in ((lines, "color"), (lines, "strokeDash"), (marks, "shape")):
        assert enc[channel]["field"] == "name"
        assert enc[channel]["scale"]["domain"] == [A, B, C]
        assert enc[channel]["legend"] == {
            "title": None,
            "symbolStrokeWidth": 2.5,
            "symbolSize": 140,
        }
    assert lines["color"]["scale"]["range"] == [style.MIP.colour, style.GREEN, style.GREY]
    assert lines["strokeDash"]["scale"]["range"] == [DASH["solid"], DASH["dash"], DASH["dot"]]
    assert marks["shape"]["scale"]["range"] == ["circle", "stroke", "stroke"]
    assert lines["strokeWidth"]["scale"]["range"] == [2.5, 3.5, 2.0]
    assert lines["strokeWidth"]["legend"] is None  # widths: on the plot only
    backwards = draw(entries=dict(reversed(ENTRIES.items())))
    assert layer(backwards, "lines")["encoding"]["color"]["scale"]["domain"] == [C, B, A]


def test_each_kind_of_layer():
    chart = draw()
    area = layer(chart, "area")
    assert area["mark"] == {"type": "area", "color": style.DP.colour, "opacity": 0.2}
    assert area["encoding"]["y"] == {"field": "tpr", "type": "quantitative"}
    lines, thick = layer(chart, "lines"), layer(chart, "thick")
    assert lines["mark"] == {"type": "line", "clip": True} and "strokeWidth" in lines["encoding"]
    assert thick["mark"]["strokeWidth"] == 3 and "strokeWidth" not in thick["encoding"]
    tip = [t["title"] for t in lines["encoding"]["tooltip"]]
    assert tip == ["curve", "FPR", "TPR"]
    marks, dot, crosses = (layer(chart, n) for n in ("marks", "dot", "crosses"))
    assert marks["mark"] == {
        "type": "point",
        "filled": True,
        "size": 70,
        "opacity": 1,
        "clip": True,
    }
    assert "tooltip" not in marks["encoding"] and "shape" in marks["encoding"]
    assert dot["mark"]["stroke"] == "white" and "clip" not in dot["mark"]
    assert [t["title"] for t in dot["encoding"]["tooltip"]] == ["FPR", "TPR"]
    assert crosses["mark"]["shape"] == "cross" and crosses["mark"]["filled"] is False
    assert "shape" not in crosses["encoding"]  # one fixed shape, no scale
    bound = draw(name_title="boundary", tpr_title="TPR ≤")
    tip = [t["title"] for t in layer(bound, "lines")["encoding"]["tooltip"]]
    assert tip == ["boundary", "FPR", "TPR ≤"]


def test_styled_entries_and_spread():
    assert roc.styled(style.DP) == roc.Entry(style.DP.colour, tuple(DASH["dash"]), 2.5, "square")
    assert roc.styled(style.MEASURED, width=3.5, marker=False).shape == "stroke"
    assert roc.Entry(style.GREY, tuple(DASH["dot"]), 2.0) == roc.CHANCE
    assert roc.spread(201).tolist() == [0, 25, 50, 75, 100, 125, 150, 175, 200]
    assert roc.spread(3).tolist() == [0, 1, 2]  # fewer points than markers: each once
