"""The ROC-region chart, written once in Altair: what an attacker can reach on the plane of
false-positive rate (x) against true-positive rate (y).

The app's trade-off charts (Theorem 8's bounds, the risk calculator's routes, the audit's
measured attack) are made of a few parts: the plane (:class:`Plane`: linear, or log–log
labelled at the powers of ten), the region a guarantee allows, shaded below its boundary
(:class:`Region`), curves (:class:`Curves`: boundaries, one line per route or attacker, the
chance diagonal :data:`CHANCE`), points (:class:`Points`: markers on a boundary, the bound
at a reference FPR) and bands (:class:`Band`: a confidence band, or a region drawn from a
floor, as log axes need). Every row of a table names what it belongs to in its column ``name``,
and an :class:`Entry` says how that name looks (colour, dash, line width, marker). The
entries, in the legend's order, make the colour, dash, width and shape scales of ``name`` in
every layer, so Vega-Lite draws one legend below the plot: each entry's colour with its dash
and its marker. A chart module builds its tables (``fpr``, ``tpr``, ``name``) and says, with
:func:`chart`, how to draw them.

The specification depends only on that look (plane, entries, layers, legend), never on the
data: it is built once per look by :func:`mipcore.plots.curves.chart` (kept in the app's one
bounded cache, :data:`mipcore.plots.vega.SPEC_MEMO`) and its layers read named datasets, so
a slider that changes only the numbers redraws the chart in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import altair as alt
import numpy as np
import pandas as pd

from . import curves, style
from .vega import DASH, VegaLiteChart

__all__ = [
    "CHANCE",
    "Band",
    "Curves",
    "Entry",
    "Plane",
    "Points",
    "Region",
    "chart",
    "dash",
    "spread",
    "styled",
]


def dash(name: str) -> tuple[int, ...]:
    """The style's dash ``name`` (a key of :data:`~mipcore.plots.vega.DASH`) as a pattern."""
    return tuple(DASH[name])


@dataclass(frozen=True)
class Entry:
    """How one name of the chart looks, on the plot and in the legend: ``colour``, ``dash``
    (a Vega-Lite ``strokeDash`` pattern, px on and off), line ``width`` (where a layer draws
    each entry's own width) and marker ``shape`` (a Vega-Lite shape or symbol path; "stroke":
    a line without markers, a short stroke in the legend)."""

    colour: str
    dash: tuple[int, ...] = (1, 0)
    width: float = 2.5
    shape: str = "stroke"


def styled(look: Mapping[str, Any], *, width: float = 2.5, marker: bool = True) -> Entry:
    """The :class:`Entry` of one of :mod:`mipcore.plots.style`'s styles (``style.MIP``, …):
    its colour and dash, and its symbol if ``marker`` (else a plain line)."""
    shape = str(look["symbol"]) if marker else "stroke"
    return Entry(str(look["colour"]), dash(str(look["dash"])), width, shape)


#: Random guessing (TPR = FPR): the grey dotted diagonal.
CHANCE = Entry(style.GREY, dash("dot"), 2.0)


@dataclass(frozen=True)
class Plane:
    """The (FPR, TPR) plane: linear axes from 0 to 1 (TPR to ``tpr_top``, a little above 1,
    so that TPR = 1 is not on the frame), or with ``log`` log–log axes from ``fpr_lo`` and
    ``tpr_lo``, ticked at the powers of ten in them. ``tpr_axis`` names the y-axis (" (log)"
    is added on log axes)."""

    log: bool = False
    fpr_lo: float = 0.0
    tpr_lo: float = 0.0
    tpr_top: float = 1.02
    tpr_axis: str = "true-positive rate"

    def channels(self) -> tuple[Any, Any]:
        """The x (``fpr``) and y (``tpr``) channels."""
        log, suffix = self.log, " (log)" if self.log else ""
        fpr_lo, tpr_lo = (self.fpr_lo, self.tpr_lo) if log else (0.0, 0.0)
        fpr = curves.quantity(
            alt.X, "fpr", "false-positive rate" + suffix, log=log, domain=(fpr_lo, 1.0)
        )
        tpr = curves.quantity(
            alt.Y, "tpr", self.tpr_axis + suffix, log=log, domain=(tpr_lo, self.tpr_top)
        )
        return fpr, tpr


@dataclass(frozen=True)
class Region:
    """The region below a boundary, shaded in ``colour`` at ``opacity``: dataset ``data``'s
    column ``tpr`` against its ``fpr`` (no legend entry; the boundary's curve has one)."""

    data: str
    colour: str
    opacity: float
    tpr: str = "tpr"


@dataclass(frozen=True)
class Band:
    """Dataset ``data`` shaded in ``colour`` at ``opacity`` from its column ``low`` up to
    ``high`` against its ``fpr`` (a confidence band; or a region from a floor, where log axes
    have no 0); no legend entry (the caption or a curve's entry says what it is)."""

    data: str
    colour: str
    opacity: float
    low: str = "low"
    high: str = "high"


@dataclass(frozen=True)
class Curves:
    """Dataset ``data`` drawn as one line per name in its entry's colour and dash, ``width``
    px wide, or each entry's own width (``None``)."""

    data: str
    width: float | None = None


@dataclass(frozen=True)
class Points:
    """Dataset ``data`` drawn as opaque markers of ``size`` px², in their entry's colour and
    marker, filled; with ``outlined``, outlined in white (a point on a line); with a fixed
    ``shape``, that shape's outline (2.5 px) for every row. ``clip``: cut at
    the plot's frame. ``tooltip``: every field, the rates only or none."""

    data: str
    size: float
    outlined: bool = False
    shape: str | None = None
    clip: bool = True
    tooltip: Literal["all", "rates", "none"] = "all"


Layer = Region | Band | Curves | Points


def spread(n: int, count: int = 9) -> np.ndarray:
    """The indices of ``count`` points spread evenly over a curve of ``n`` points, both ends
    included (fewer if ``n < count``): where a boundary's markers go."""
    return np.unique(np.round(np.linspace(0, n - 1, count)).astype(int))


def chart(
    title: str,
    datasets: dict[str, pd.DataFrame],
    *,
    plane: Plane,
    entries: Mapping[str, Entry],
    layers: Sequence[Layer],
    height: int,
    legend: Mapping[str, Any] | None = None,
    name_title: str = "curve",
    tpr_title: str = "TPR",
) -> VegaLiteChart:
    """The ROC chart of ``layers`` (drawn in this order) over ``datasets`` on ``plane``.

    Parameters
    ----------
    title : the chart's title (and the CSV's label).
    datasets : the named tables the layers read (columns ``fpr``, ``tpr``, ``name``; a
        :class:`Region` reads its own ``tpr`` column, a :class:`Band` its two).
    plane : the axes.
    entries : each name's look, in the legend's order (the legend shows every entry).
    layers : :class:`Region`, :class:`Band`, :class:`Curves` and :class:`Points`.
    height : px of plot.
    legend : Vega-Lite legend properties over the default (no title, 2.5 px strokes), e.g.
        ``symbolSize``.
    name_title, tpr_title : what a tooltip calls a row's name and its TPR ("TPR ≤" for a
        bound).
    """
    look = (plane, tuple(entries.items()), tuple(layers), tuple((legend or {}).items()))
    return curves.chart(title, datasets, _layers, *look, name_title, tpr_title, height=height)


def _layers(
    plane: Plane,
    entries: tuple[tuple[str, Entry], ...],
    layers: tuple[Layer, ...],
    legend: tuple[tuple[str, Any], ...],
    name_title: str,
    tpr_title: str,
) -> list[Any]:
    """The Altair layers of :func:`chart` (its look as hashable tuples)."""
    looks = dict(entries)
    shown = alt.Legend(**{"title": None, "symbolStrokeWidth": 2.5, **dict(legend)})

    def by(channel: Any, of: dict[str, Any], with_legend: bool = True) -> Any:
        return curves.by(channel, "name", of, shown if with_legend else None)

    colour = by(alt.Color, {k: v.colour for k, v in looks.items()})
    dashes = by(alt.StrokeDash, {k: list(v.dash) for k, v in looks.items()})
    widths = by(alt.StrokeWidth, {k: v.width for k, v in looks.items()}, with_legend=False)
    shapes = by(alt.Shape, {k: v.shape for k, v in looks.items()})
    x, y = plane.channels()
    rates = [
        alt.Tooltip("fpr", type="quantitative", title="FPR", format=".3~g"),
        alt.Tooltip("tpr", type="quantitative", title=tpr_title, format=".4~g"),
    ]
    tips = {
        "all": [alt.Tooltip("name", type="nominal", title=name_title), *rates],
        "rates": rates,
        "none": alt.Undefined,
    }
    out = []
    for layer in layers:
        if isinstance(layer, Region):
            out.append(
                curves.dataset(layer.data)
                .mark_area(color=layer.colour, opacity=layer.opacity)
                .encode(
                    x=alt.X("fpr", type="quantitative"),
                    y=alt.Y(layer.tpr, type="quantitative"),
                )
            )
        elif isinstance(layer, Band):
            out.append(
                curves.band(layer.data, layer.low, layer.high, layer.opacity, clip=True).encode(
                    x=x, color=alt.value(layer.colour)
                )
            )
        elif isinstance(layer, Curves):
            fixed = layer.width is not None
            mark: dict[str, Any] = {"clip": True} | ({"strokeWidth": layer.width} if fixed else {})
            width = {} if fixed else {"strokeWidth": widths}
            out.append(
                curves.dataset(layer.data)
                .mark_line(**mark)
                .encode(x=x, y=y, color=colour, strokeDash=dashes, tooltip=tips["all"], **width)
            )
        else:
            point: dict[str, Any] = {"filled": True, "size": layer.size, "opacity": 1}
            if layer.outlined:
                point |= {"stroke": "white", "strokeWidth": 1.5}
            if layer.shape is not None:
                point |= {"shape": layer.shape, "filled": False, "strokeWidth": 2.5}
            if layer.clip:
                point["clip"] = True
            shape = {"shape": shapes} if layer.shape is None else {}
            out.append(
                curves.dataset(layer.data)
                .mark_point(**point)
                .encode(x=x, y=y, color=colour, tooltip=tips[layer.tooltip], **shape)
            )
    return out
