"""Charts as Vega-Lite specifications, in the app's one style (:mod:`mipcore.plots.style`).

Why Vega-Lite: in a browser, Streamlit redraws a Vega-Lite chart whose specification is
unchanged in place from its new tables, where a changed Plotly figure is removed and drawn
anew, after a 4.7 MB chunk loaded for a page's first Plotly chart (``benchmarks/floor``,
1024×768 headless Chromium, in one run against a bare one-slider page: the η(ε) chart's first
load 2.1× as Plotly, 1.3× as Vega-Lite; a slider press 4.3× and 2.7×). The same specification
also makes a chart's pictures for export on the server, with ``vl-convert`` and no browser:
:func:`chart_svg` and :func:`chart_png` (the one route for every PNG and SVG the app offers).

A :class:`VegaLiteChart` is the specification *without* its data plus the data as a table: the
table is what the chart draws and also the CSV a reader downloads, so both are always the same
numbers. The specification only reads columns of that table (derived values through Vega-Lite
``calculate`` transforms), never a copy of them. A specification is written in Altair, whose
layers read named datasets (:func:`altair_spec`; the concept modules such as
:mod:`mipcore.plots.curves`), except the home page's three bars
(:mod:`mipcore.plots.home_vega`), a dictionary that spares the first page Altair's import.

The style is :mod:`~mipcore.plots.style`'s: 15 px text, 14 px tick labels, 16 px axis titles,
an 18 px title, near-black ink on white, the Okabe–Ito colours with a second cue (dash or
shape) on every distinction that matters. Axis labels are never truncated (Vega-Lite's default
``labelLimit`` would cut a long label with "…").
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import style
from .formatting import superscript

if TYPE_CHECKING:
    import altair as alt

__all__ = [
    "AUTOSIZE",
    "DASH",
    "FONT",
    "PADDING",
    "SHAPE",
    "STAR",
    "Reads",
    "VegaLiteChart",
    "altair_spec",
    "bends",
    "chart_png",
    "chart_spec",
    "chart_svg",
    "config",
    "every_other",
    "log_ticks",
    "power_axis",
    "reads",
    "scaled",
]

#: How a chart keeps what depends on its look alone -- the data-free specification of
#: :mod:`mipcore.plots.curves`, which Altair takes about 0.1 s to build; the game's laws and
#: their specification, the same in every round (:func:`mipcore.plots.game_vega.laws_vega`):
#: None (built on every call, as everywhere in mipcore, which keeps no cache of its own) or
#: ``memo(fn, *args) -> fn(*args)``. The app sets it to its one bounded cache,
#: ``appkit.cached``, when ``appkit`` is imported.
SPEC_MEMO: Callable[..., Any] | None = None

# Streamlit's own web font first ("Source Sans"; the app's text is set in it), then the
# fonts a machine without it is likely to have.
FONT = '"Source Sans", "Source Sans Pro", Helvetica, Arial, sans-serif'


#: A spec's top-level ``padding`` (Streamlit keeps a spec's own, not a config's): room above
#: the title for its whole line box, which the chart's SVG would otherwise cut.
PADDING = {"top": 10, "bottom": 5, "left": 5, "right": 5}


#: A spec's ``autosize``: the chart takes the column's width, and its ``height`` is the plot's
#: own (Streamlit's default for a layered chart, "fit", squeezes the plot to make room for the
#: title, the axes and the legend inside that height).
AUTOSIZE = {"type": "fit-x", "contains": "padding"}


#: The style's dash names (:func:`mipcore.plots.style.dashes`) as Vega-Lite ``strokeDash``
#: arrays (px on, px off, ...).
DASH: dict[str, list[int]] = {
    "solid": [1, 0],
    "dash": [10, 6],
    "dot": [2, 4],
    "dashdot": [10, 5, 2, 5],
    "longdash": [18, 7],
    "longdashdot": [18, 5, 2, 5],
}

#: The style's marker symbols (the ``symbol`` of :mod:`mipcore.plots.style`'s styles) as
#: Vega-Lite point shapes.
SHAPE: dict[str, str] = {
    "circle": "circle",
    "square": "square",
    "diamond": "diamond",
    "x": "cross",
    "cross": "cross",
    "triangle-up": "triangle-up",
    "triangle-down": "triangle-down",
}


#: A five-pointed star as a Vega symbol path (Vega has no "star" shape).
STAR = (
    "M0,-1L0.2245,-0.309L0.9511,-0.309L0.3633,0.118L0.5878,0.809L0,0.382L-0.5878,0.809"
    "L-0.3633,0.118L-0.9511,-0.309L-0.2245,-0.309Z"
)
_SUPERSCRIPTS = "['⁰','¹','²','³','⁴','⁵','⁶','⁷','⁸','⁹']"


def _sup(e: str) -> str:
    """A Vega expression writing the integer expression ``e`` (|e| < 1000) as superscript."""
    a = f"abs({e})"
    s = _SUPERSCRIPTS
    return (
        f"(({e}) < 0 ? '⁻' : '') + ({a} >= 100 ? {s}[floor({a} / 100)] : '') + "
        f"({a} >= 10 ? {s}[floor({a} / 10) % 10] : '') + {s}[{a} % 10]"
    )


def power_axis(**extra: Any) -> dict[str, Any]:
    """A log axis's ``axis`` block whose labels need no tick values in the specification.

    Vega picks the ticks from the data's range (at most about six decades labelled: a wide
    range gets powers of ten only); a label is a plain number from 0.01 to 100 and 10ⁿ or
    m×10ⁿ beyond (never ``1e-6``); between the powers of ten only the multiples 2 and 5 are
    labelled. ``extra`` adds or overrides axis properties.
    """
    e = "floor(log(datum.value) / LN10 + 1e-9)"
    m = f"(datum.value / pow(10, {e}))"
    mantissa = f"round({m} * 1000) / 1000"
    label = (
        f"indexof([1, 2, 5], {mantissa}) < 0 ? '' : "
        f"abs({e}) <= 2 ? format(datum.value, '.3~r') : "
        f"({mantissa} == 1 ? '' : format({mantissa}, '.0f') + '×') + '10' + {_sup(e)}"
    )
    return {"labelExpr": label, "grid": True, "tickCount": 6, **extra}


def bends(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A mask of the points of the polyline (x, y) where its slope changes, and its two ends:
    drawing only these draws the same polyline (far fewer rows for Vega to redraw)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.zeros(x.size, dtype=bool)
    if x.size == 0:
        return keep
    keep[[0, -1]] = True
    if x.size > 2:
        slope = np.diff(y) / np.where(np.diff(x) == 0, np.nan, np.diff(x))
        change = ~np.isclose(slope[1:], slope[:-1], rtol=1e-9, atol=1e-12, equal_nan=True)
        keep[1:-1] = change
    return keep


def every_other(n: int) -> np.ndarray:
    """A mask of every other point of a smooth curve of ``n`` points, both ends kept: the same
    picture at half the rows to redraw."""
    keep = np.arange(n) % 2 == 0
    if n:
        keep[-1] = True
    return keep


def altair_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The Vega-Lite specification of an Altair ``chart`` whose layers read named datasets
    (``alt.NamedData``), for a :class:`VegaLiteChart`: with :func:`config` as its ``config``
    (not Altair's theme) and no ``$schema``. A layer that draws one mark from no table (a
    rule at a fixed value: ``alt.InlineData(values=[{}])``, or no data at all) keeps that one
    empty row inline, where Altair moves it to the top level as the dataset "empty"; and a
    lone layer keeps its data reference, which Altair lifts to the chart.

    Raises
    ------
    ValueError
        If the chart holds a table of its own (inline data other than that one empty row).
    """
    spec = chart.to_dict(validate=False)  # the tests validate every chart, with its tables
    spec.pop("$schema", None)
    spec["config"] = config()
    tables = spec.pop("datasets", {})
    if set(tables) - {"empty"}:
        raise ValueError("the chart holds tables: its layers must read named datasets")
    if "data" in spec and "layer" in spec:  # Altair lifts a lone layer's data to the top
        lifted = spec.pop("data")
        for layer in spec["layer"]:
            layer.setdefault("data", lifted)
    for node in _dicts(spec):
        if node.get("data") == {"name": "empty"}:
            node["data"] = {"values": [{}]}
    return spec


def config(scale: float = 1.0) -> dict[str, Any]:
    """The Vega-Lite ``config`` block of every chart: fonts, sizes and ink of the app's style;
    ``scale`` multiplies every font size (presenter mode)."""

    def px(size: float) -> float:
        return round(size * scale, 2)

    return {
        "background": "white",
        "font": FONT,
        "view": {"stroke": None},
        "title": {
            "fontSize": px(18),
            "font": FONT,
            "color": style.INK,
            "anchor": "start",
            "fontWeight": "normal",
            "limit": 0,
        },
        "axis": {
            "labelFontSize": px(14),
            "titleFontSize": px(16),
            "labelFont": FONT,
            "titleFont": FONT,
            "labelColor": style.INK,
            "titleColor": style.INK,
            "titleFontWeight": "normal",
            "domainColor": "#444444",
            "tickColor": "#444444",
            "gridColor": style.GRID,
            "labelLimit": 0,  # never cut a label with "…"
        },
        "legend": {
            "orient": "bottom",
            "direction": "vertical",
            "labelFontSize": px(14),
            "titleFontSize": px(14),
            "labelColor": style.INK,
            "titleColor": style.INK,
            "labelLimit": 0,
            "symbolStrokeWidth": 2.5,
        },
        "text": {"fontSize": px(15), "color": style.INK, "font": FONT},
    }


def log_ticks(lo: float, hi: float) -> dict[str, Any]:
    """A log axis's ``axis`` block: ticks at the powers of ten in ``[lo, hi]`` only, labelled
    10ⁿ with a superscript exponent (1 for 10⁰), never as ``1e-6``."""
    if not (0.0 < lo <= hi and math.isfinite(hi)):
        raise ValueError(f"lo, hi must satisfy 0 < lo <= hi < inf, got lo={lo!r}, hi={hi!r}")
    ks = range(math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9) + 1)
    label = "''"
    for k in ks:  # a chain of conditions on the exponent: Vega has no superscript format
        text = "1" if k == 0 else "10" + superscript(k)
        label = f"abs(log(datum.value) / LN10 - ({k})) < 0.01 ? '{text}' : {label}"
    return {"values": [10.0**k for k in ks], "labelExpr": label, "grid": True}


def scaled(spec: dict[str, Any], factor: float) -> dict[str, Any]:
    """A copy of ``spec`` with its ``config`` font sizes scaled by ``factor`` and text marks'
    font sizes with them (presenter mode); the title keeps its size (it is large already)."""
    out = copy.deepcopy(spec)
    own = out.get("config", {})
    out["config"] = {  # the scaled style over the spec's config, keeping its other settings
        k: {**own[k], **v} if isinstance(v, dict) and isinstance(own.get(k), dict) else v
        for k, v in config(factor).items()
    } | {k: v for k, v in own.items() if k not in config()}
    out["config"]["title"]["fontSize"] = config()["title"]["fontSize"]

    for node in list(_dicts(out.get("layer", []))):
        mark = node.get("mark")
        if isinstance(mark, dict) and isinstance(mark.get("fontSize"), (int, float)):
            mark["fontSize"] = round(mark["fontSize"] * factor, 2)
    return out


@dataclass(frozen=True)
class VegaLiteChart:
    """A chart to draw with Vega-Lite.

    ``spec`` holds no data: its layers read the columns of ``data`` (the default dataset)
    or, through ``{"data": {"name": ...}}``, of a table in ``datasets``. Several small named
    tables let each layer draw exactly its rows without a filter or reshaping transform
    (Streamlit's Vega runs expressions through a slow interpreter, row by row). ``title`` is
    the chart's title as plain text (for the CSV's label).
    """

    spec: dict[str, Any] = field(hash=False, compare=False)
    data: pd.DataFrame | None = field(default=None, hash=False, compare=False)
    datasets: dict[str, pd.DataFrame] = field(default_factory=dict, hash=False, compare=False)
    title: str = ""
    #: What ``spec`` reads (:func:`reads`), when its maker already knows it (a specification
    #: built once per look, :func:`mipcore.plots.curves.chart`): not walked again per chart.
    reads: Reads | None = field(default=None, hash=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if "data" in self.spec or "datasets" in self.spec:
            raise ValueError("spec must not hold its data: pass the tables as data/datasets")
        tables = (
            [self.data, *self.datasets.values()]
            if self.data is not None
            else [*self.datasets.values()]
        )
        columns = {str(c) for t in tables for c in t.columns}
        fields, derived, names = self.reads if self.reads is not None else reads(self.spec)
        missing = sorted(fields - columns - derived)
        if missing:
            raise ValueError(f"spec reads columns {missing} that data does not have")
        if names - set(self.datasets):
            raise ValueError(
                f"spec reads datasets {sorted(names - set(self.datasets))} that are not given"
            )


def chart_spec(chart: VegaLiteChart, *, width: int = 640) -> dict[str, Any]:
    """A self-contained Vega-Lite specification of ``chart``: its tables inlined as
    ``datasets`` and a fixed ``width`` in px (an export has no container to fit)."""
    if not 100 <= int(width) <= 4000:
        raise ValueError(f"width={width!r} must be a whole number of pixels in 100-4000")
    spec = {**chart.spec, "width": int(width)}
    spec["autosize"] = {"type": "pad", "contains": "padding"}
    datasets = {name: table.to_dict(orient="records") for name, table in chart.datasets.items()}
    if chart.data is not None:
        spec["data"] = {"values": chart.data.to_dict(orient="records")}
    if datasets:
        spec["datasets"] = datasets
    return spec


def chart_svg(chart: VegaLiteChart, *, width: int = 640) -> str:
    """``chart`` as an SVG document, drawn by ``vl-convert`` (no browser).

    Raises
    ------
    ValueError
        If ``vl-convert-python`` is not installed, or cannot draw the chart (the message says).
    """
    vlc = _vl_convert()
    try:
        return str(vlc.vegalite_to_svg(chart_spec(chart, width=width)))
    except Exception as exc:  # vl-convert's own errors: say so, as a ValueError
        raise ValueError(f"the picture could not be drawn ({type(exc).__name__}: {exc})") from None


def chart_png(chart: VegaLiteChart, *, width: int = 640, scale: float = 2.0) -> bytes:
    """``chart`` as a PNG file (``scale`` × its size in px), drawn by ``vl-convert``.

    Raises
    ------
    ValueError
        If ``scale`` is outside 0.5–4, ``vl-convert-python`` is not installed, or it cannot
        draw the chart.
    """
    if not 0.5 <= float(scale) <= 4.0:
        raise ValueError(f"scale={scale!r} must be in 0.5-4")
    vlc = _vl_convert()
    try:
        return bytes(vlc.vegalite_to_png(chart_spec(chart, width=width), scale=float(scale)))
    except Exception as exc:
        raise ValueError(f"the picture could not be drawn ({type(exc).__name__}: {exc})") from None


def _vl_convert() -> Any:
    try:
        import vl_convert
    except ImportError:
        raise ValueError(
            "pictures for export need the vl-convert-python package on the server "
            "(pip install vl-convert-python)"
        ) from None
    return vl_convert


def _dicts(node: Any) -> Iterator[dict[str, Any]]:
    """Every mapping in a specification's tree, ``node`` first."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _dicts(v)
    elif isinstance(node, list):
        for v in node:
            yield from _dicts(v)


#: What a specification reads: the fields, the columns its transforms add, the named datasets.
Reads = tuple[frozenset[str], frozenset[str], frozenset[str]]


def reads(spec: dict[str, Any]) -> Reads:
    """What the specification reads, in one walk of its tree: every ``field`` (encodings and
    predicates), every column a transform adds (``as``: a name or a list) and every named
    dataset a layer reads."""
    fields: set[str] = set()
    derived: set[str] = set()
    names: set[str] = set()
    for d in _dicts(spec):
        if isinstance(d.get("field"), str):
            fields.add(d["field"])
        for t in d.get("transform") or ():
            made = t.get("as") if isinstance(t, dict) else None
            derived |= {made} if isinstance(made, str) else set(made or ())
        ref = d.get("data")
        if isinstance(ref, dict) and isinstance(ref.get("name"), str):
            names.add(ref["name"])
    return frozenset(fields), frozenset(derived), frozenset(names)
