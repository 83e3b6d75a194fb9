"""Charts drawn by Vega-Lite (mipcore.plots.vega) and the home page's chart built on it."""

from __future__ import annotations

import copy
import functools
import struct
from pathlib import Path

import altair
import jsonschema
import numpy as np
import pandas as pd
import pytest

from mipcore.plots import style, vega
from mipcore.plots.home_vega import TITLE, accuracy_bars

SCHEMA = altair.vegalite.v6.schema.core.load_schema()


@functools.cache
def _validator():
    """One validator for the Vega-Lite schema, the schema itself checked against its
    metaschema once (``jsonschema.validate`` redoes that check, ~0.5 s, on every call)."""
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA)


def valid_vega_lite(chart: vega.VegaLiteChart) -> None:
    """Validate the spec, with its tables inlined, against the Vega-Lite JSON schema (what
    ``jsonschema.validate(spec, SCHEMA)`` does, with the validator built once)."""
    spec = copy.deepcopy(chart.spec)
    if chart.data is not None:
        spec["data"] = {"values": chart.data.to_dict("records")}
    if chart.datasets:
        spec["datasets"] = {k: t.to_dict("records") for k, t in chart.datasets.items()}
    error = jsonschema.exceptions.best_match(_validator().iter_errors(spec))
    if error is not None:
        raise error


def luminance(colour: str) -> float:
    rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_on_white(colour: str) -> float:
    return 1.05 / (luminance(colour) + 0.05)


def test_the_schema_check_can_fail():
    chart, _ = accuracy_bars(0.7, "ε = 1")
    broken = copy.deepcopy(chart.spec)
    broken["layer"][0]["mark"]["type"] = "barr"
    with pytest.raises(jsonschema.ValidationError):
        valid_vega_lite(vega.VegaLiteChart(spec=broken, data=chart.data))


def test_config_is_readable_on_a_projector():
    cfg = vega.config()
    assert cfg["axis"]["labelFontSize"] == 14 and cfg["axis"]["titleFontSize"] == 16
    assert cfg["title"]["fontSize"] == 18 and cfg["legend"]["labelFontSize"] == 14
    assert cfg["axis"]["labelLimit"] == 0 and cfg["legend"]["labelLimit"] == 0  # never "…"
    for colour in (cfg["axis"]["labelColor"], cfg["axis"]["titleColor"], cfg["title"]["color"]):
        assert contrast_on_white(colour) >= 4.5
    assert contrast_on_white(style.GREY) >= 4.5  # the reference rule and secondary text
    assert cfg["font"].startswith('"Source Sans"')  # Streamlit's web font, as the page text


def test_scaled_enlarges_text_but_the_title_and_leaves_the_original():
    chart, _ = accuracy_bars(0.7, "ε = 1")
    before = copy.deepcopy(chart.spec)
    big = vega.scaled(chart.spec, 1.25)
    assert chart.spec == before
    assert big["config"]["axis"]["labelFontSize"] == pytest.approx(17.5)
    assert big["config"]["legend"]["labelFontSize"] == pytest.approx(17.5)
    assert big["config"]["title"]["fontSize"] == 18
    texts = [layer["mark"] for layer in big["layer"] if layer["mark"]["type"] == "text"]
    assert texts and all(m["fontSize"] == pytest.approx(15 * 1.25) for m in texts)


def test_a_chart_holds_no_data_in_its_spec_and_reads_only_its_columns():
    data = pd.DataFrame({"x": [1.0], "y": [2.0]})
    enc = {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}
    vega.VegaLiteChart(spec={"mark": "point", "encoding": enc}, data=data)
    with pytest.raises(ValueError, match="must not hold its data"):
        vega.VegaLiteChart(spec={"mark": "point", "data": {"values": []}}, data=data)
    enc["y"]["field"] = "z"
    with pytest.raises(ValueError, match=r"\['z'\]"):
        vega.VegaLiteChart(spec={"mark": "point", "encoding": enc}, data=data)


@pytest.mark.parametrize("accuracy", [0.5, 0.731058578630005, 0.999, 1.0])
def test_home_bars_draw_their_table(accuracy):
    chart, data = accuracy_bars(accuracy, "ε = 1")
    assert data is chart.data and chart.title == TITLE == chart.spec["title"]
    assert list(data["who"]) == [
        "Blind guess",
        "Best possible attacker under ε = 1",
        "Perfect attacker",
    ]
    assert list(data["accuracy"]) == [0.5, accuracy, 1.0]
    valid_vega_lite(chart)
    calc = {t["as"]: t["calculate"] for t in chart.spec["transform"]}
    assert calc["percent"] == "100 * datum.accuracy"
    bar, text, rule = chart.spec["layer"]
    # More than colour: every bar is outlined in ink and labelled with its value.
    assert bar["mark"]["stroke"] == style.INK and bar["mark"]["strokeWidth"] >= 1
    assert bar["encoding"]["color"]["scale"]["range"] == [style.GREY, style.MIP.colour, "#ffffff"]
    assert text["encoding"]["text"]["field"] == "label"
    assert rule["encoding"]["x"]["datum"] == 50 and rule["mark"]["strokeDash"]
    assert bar["encoding"]["x"]["scale"]["domain"] == [0, 124]  # room for "100.0 %"


@pytest.mark.parametrize("bad", [0.49, 1.01, float("nan")])
def test_home_bars_refuse_an_impossible_accuracy(bad):
    with pytest.raises(ValueError, match="accuracy must be in"):
        accuracy_bars(bad, "ε = 1")


def test_home_bars_spec_names_neither_the_guarantee_nor_the_accuracy():
    """A new ε changes the home chart's table only (redrawn in place): the bars take their
    colours in the table's order (grey blind guess, MIP attacker, white perfect attacker)."""
    a, ta = accuracy_bars(0.6, "ε = 0.4")
    b, tb = accuracy_bars(0.95, "ε = 3")
    assert a.spec == b.spec and a.spec is not b.spec and not ta.equals(tb)
    assert "ε" not in str(a.spec) and "0.6" not in str(a.spec)
    (bar, _, _) = a.spec["layer"]
    assert bar["encoding"]["color"]["sort"] is None and bar["encoding"]["y"]["sort"] is None
    assert "data" not in bar  # the bars read the chart's own table


def test_home_bars_do_not_load_altair():
    """The home page is every visitor's first page: neither what ``app.py`` imports nor its
    chart loads Altair, which app.py imports in the background after that page (a fresh
    interpreter, as a server's: app.py's own top-level imports, then the bars)."""
    import ast
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    tree = ast.parse((root / "app.py").read_text(encoding="utf-8"))
    imports = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert any("home_vega" in i for i in imports) and any("appkit" in i for i in imports)
    bars = ["from mipcore.plots.home_vega import accuracy_bars", "accuracy_bars(0.7, 'ε = 1')"]
    code = "\n".join([*imports, *bars, "import sys", "print('altair' in sys.modules)"])
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("args", [(37, 63, 20, 5), (1, 99, 0, 0), (0, 100, 0, 100)])
def test_icon_array_draws_each_person_once_in_its_group(args):
    from mipcore.plots.icons import IconView, icon_array_table, icon_array_vega

    members, non_members, called, accused = args
    chart, table = icon_array_vega(*args, view=IconView.NAMING, title="t")
    assert table.equals(icon_array_table(*args, view=IconView.NAMING))  # the CSV's table
    valid_vega_lite(chart)
    people = chart.datasets["people"]
    assert len(people) == members + non_members
    assert len(people[["x", "y"]].drop_duplicates()) == len(people)  # nobody drawn twice
    counts = people["group"].value_counts().to_dict()
    expected = dict(
        zip(
            (
                "member, named",
                "member, not named",
                "non-member, wrongly accused",
                "non-member, not accused",
            ),
            (called, members - called, accused, non_members - accused),
            strict=True,
        )
    )
    assert counts == {k: v for k, v in expected.items() if v}
    enc = chart.spec["layer"][0]["encoding"]
    # Members circles, non-members squares; called filled, the others white with an outline.
    assert enc["shape"]["scale"]["range"] == ["circle", "circle", "square", "square"]
    assert enc["fill"]["scale"]["range"][1] == enc["fill"]["scale"]["range"][3] == "#ffffff"
    assert enc["stroke"]["scale"]["range"] == [style.MIP.colour] * 2 + [style.DP.colour] * 2


def test_icon_array_spec_does_not_follow_the_counts():
    from mipcore.plots.icons import icon_array_vega

    a, _ = icon_array_vega(37, 63, 20, 5, title="t")
    b, _ = icon_array_vega(50, 50, 49, 1, title="t")
    assert a.spec == b.spec and not a.datasets["people"].equals(b.datasets["people"])
    c, _ = icon_array_vega(100, 9_900, 2, 99, title="t")
    d, _ = icon_array_vega(5_000, 5_000, 4_999, 1, title="t")
    assert c.spec == d.spec and not c.datasets["runs"].equals(d.datasets["runs"])
    assert c.spec != a.spec and "title" not in icon_array_vega(37, 63, 20, 5)[0].spec
    with pytest.raises(ValueError, match="exceeds members"):
        icon_array_vega(3, 3, 4, 0)


def test_icon_array_spec_is_built_once_per_look_in_the_apps_cache(monkeypatch):
    """The look is the view, the title and the grid's size: new counts read the cached
    specification (each chart its own copy); another view builds another."""
    from appkit import cache
    from mipcore.plots import icons

    built = []
    original = icons._icons

    def counting(*look):
        built.append(look)
        return original(*look)

    monkeypatch.setattr(icons, "_icons", counting)
    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()
    a, _ = icons.icon_array_vega(37, 63, 20, 5, title="t")
    b, _ = icons.icon_array_vega(50, 50, 49, 1, title="t")
    assert built == [(icons.IconView.ACCURACY, 10)] and a.spec == b.spec and a.spec is not b.spec
    icons.icon_array_vega(50, 50, 49, 1, view=icons.IconView.NAMING, title="t")
    assert len(built) == 2
    monkeypatch.setattr(vega, "SPEC_MEMO", None)  # mipcore alone keeps no cache
    icons.icon_array_vega(37, 63, 20, 5, title="t")
    assert len(built) == 3


def test_bends_redraw_the_same_polyline():
    rng = np.random.default_rng(7)
    knots = np.sort(rng.uniform(0, 1, 5))
    x = np.linspace(0, 1, 401)
    y = np.interp(x, np.r_[0, knots, 1], rng.uniform(0, 1, 7))
    keep = vega.bends(x, y)
    assert keep[0] and keep[-1] and keep.sum() < 30
    np.testing.assert_allclose(np.interp(x, x[keep], y[keep]), y, atol=1e-12)
    straight = vega.bends(x, 2 * x + 1)
    assert straight.sum() == 2
    assert vega.bends(np.array([]), np.array([])).size == 0


@pytest.mark.parametrize("args", [(500, 500, 250, 3), (100, 9_900, 2, 99), (10, 990, 0, 9)])
def test_a_large_icon_array_is_a_grid_whose_cells_are_the_tables_people(args):
    """1 000 or 10 000 people: each group's rectangles cover exactly its people's cells of the
    table's grid (row by row, members first), under one white line per grid line."""
    from mipcore.plots.icons import IconView, grid_columns, icon_array_vega

    chart, table = icon_array_vega(*args, view=IconView.NAMING, title="t")
    valid_vega_lite(chart)
    columns = grid_columns(len(table))
    covered = {}
    for r in chart.datasets["runs"].itertuples():
        for y in range(int(r.y), int(r.y2)):
            for x in range(int(r.x), int(r.x2)):
                assert (x, y) not in covered  # nobody drawn twice
                covered[(x, y)] = r.group
    expected = {
        (int(c) - 1, int(w) - 1): g
        for c, w, g in zip(table["column"], table["row"], table["group"], strict=True)
    }
    assert covered == expected and int(table["column"].max()) == columns
    lines = chart.datasets["lines"]
    assert len(lines) == columns + 1 + int(table["row"].max()) + 1


def test_scaled_keeps_a_specs_own_config_settings():
    spec = {"mark": "point", "config": vega.config()}
    spec["config"]["legend"]["layout"] = {"bottom": {"anchor": "start", "direction": "vertical"}}
    spec["config"]["range"] = {"category": ["#000000"]}
    out = vega.scaled(spec, 1.25)
    assert out["config"]["legend"]["layout"] == spec["config"]["legend"]["layout"]
    assert out["config"]["range"] == spec["config"]["range"]
    assert (
        out["config"]["legend"]["labelFontSize"] == 1.25 * spec["config"]["legend"]["labelFontSize"]
    )


@pytest.mark.parametrize(("n", "kept"), [(0, []), (1, [0]), (4, [0, 2, 3]), (5, [0, 2, 4])])
def test_every_other_keeps_both_ends(n, kept):
    assert list(np.flatnonzero(vega.every_other(n))) == kept


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"  # a PNG file
    width, height = struct.unpack(">II", png[16:24])  # its IHDR chunk
    return width, height


def test_exports_draw_a_chart_from_its_own_spec_without_a_browser():
    """The one export route (vega.chart_spec -> vl-convert): any chart, its tables inlined,
    its width fixed; the PNG's size follows the spec's width and the scale."""
    chart, table = accuracy_bars(0.7, "ε = 1")
    spec = vega.chart_spec(chart, width=640)
    assert spec["width"] == 640 and spec["data"]["values"] == table.to_dict(orient="records")
    assert "data" not in chart.spec and chart.spec["width"] == "container"  # left as it was
    w1, h1 = _png_size(vega.chart_png(chart, width=640, scale=1.0))
    w2, h2 = _png_size(vega.chart_png(chart, width=640, scale=2.0))
    w3, _ = _png_size(vega.chart_png(chart, width=900, scale=1.0))
    assert w1 >= 640 and h1 >= 3 * 52  # three bars of 52 px, plus the title and the axis
    assert abs(w2 - 2 * w1) <= 2 and abs(h2 - 2 * h1) <= 2
    assert w3 - w1 == 900 - 640
    svg = vega.chart_svg(chart, width=640)
    assert svg.startswith("<svg") and "Perfect attacker" in svg and "<script" not in svg
    for bad in (99, 4001):
        with pytest.raises(ValueError, match="width"):
            vega.chart_png(chart, width=bad)
    with pytest.raises(ValueError, match="scale"):
        vega.chart_png(chart, scale=8.0)


def test_a_chart_refuses_a_spec_that_reads_what_it_is_not_given():
    """The spec reads only the given tables' columns, the columns its transforms add, and the
    named datasets given; a nested layer's reads count too."""
    table = pd.DataFrame({"x": [1.0], "y": [2.0]})
    inner = {
        "data": {"name": "points"},
        "transform": [{"calculate": "2 * datum.x", "as": "twice"}],
        "mark": "point",
        "encoding": {"x": {"field": "twice", "type": "quantitative"}},
    }
    spec = {"layer": [{"layer": [inner]}]}
    vega.VegaLiteChart(spec=copy.deepcopy(spec), datasets={"points": table})
    with pytest.raises(ValueError, match=r"datasets \['points'\] that are not given"):
        vega.VegaLiteChart(spec=copy.deepcopy(spec), datasets={"other": table})
    inner["encoding"]["y"] = {"field": "z", "type": "quantitative"}
    with pytest.raises(ValueError, match=r"columns \['z'\] that data does not have"):
        vega.VegaLiteChart(spec=copy.deepcopy(spec), datasets={"points": table})
    with pytest.raises(ValueError, match="must not hold its data"):
        vega.VegaLiteChart(spec={"data": {"values": [{}]}, "mark": "point"}, data=table)
