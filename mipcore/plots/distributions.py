"""Distributions and intervals, written once in Altair: where values fall and how far they
spread.

Beside the curves of :mod:`mipcore.plots.curves`, the app's charts show how values are
distributed and how uncertain an estimate is: a histogram's bars or a distribution's boxes,
each over its bin (:func:`bins`); an interval, one rule per row from its start to its end
(:func:`interval`: an error bar, a range over runs, a bar's top edge, a spike down to a
floor, an estimate's bar on its row); a band between a lower and an upper curve
(:func:`band`); rules across the plot at a fixed value or at a table's values, the
reference lines (:func:`rule`). Each row of a table names what it belongs to in a column,
and :func:`looks` maps those names to their :class:`~mipcore.plots.curves.Look` (colour,
dash, line width, marker, a marker's fill) through the channels asked for, all sharing one
legend. A chart may also have its own table, Vega-Lite's default data, which the layers drawn
from :func:`own` read (``data`` of :func:`chart`).

Like every chart concept, a chart module builds its tables and draws them with these parts
in a module-level function of the chart's look alone; :func:`chart` (that of
:mod:`mipcore.plots.curves`, with a subtitle and resolved scales) builds the specification
once per look in the app's one bounded cache (:data:`mipcore.plots.vega.SPEC_MEMO`). Every
layer reads a named dataset (``alt.NamedData``), so the specification holds no data and a
slider that only changes the numbers redraws the chart in place.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

import altair as alt
import pandas as pd

from . import curves, style
from .curves import Look, dataset
from .vega import DASH, VegaLiteChart

__all__ = ["OWN", "band", "bins", "chart", "interval", "looks", "own", "rule"]

#: The dataset name by which a layer of :func:`chart` reads the chart's own table (:func:`own`).
OWN = "the chart's own table"

#: The channels :func:`looks` can map, and what each takes from a look.
_CHANNELS: dict[str, tuple[Any, Callable[[Look], Any]]] = {
    "color": (alt.Color, lambda look: look.colour),
    "fill": (alt.Fill, lambda look: look.colour),
    "strokeDash": (alt.StrokeDash, lambda look: DASH[look.dash]),
    "strokeWidth": (alt.StrokeWidth, lambda look: look.width),
    "shape": (alt.Shape, lambda look: look.shape),
}


def looks(
    field: str, entries: Mapping[str, Look], *channels: str, legend: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The ``channels`` ("color", "fill", "strokeDash", "strokeWidth", "shape") of the nominal
    ``field``, each mapping the names of ``entries`` (in their order, the legend's) to their
    looks' colour, dash, width or marker (a marker's fill: its look's colour): keyword
    arguments for ``encode``. The channels share
    one legend of ``legend``'s properties (Vega-Lite merges the channels of one field);
    ``legend=None``: no legend for these channels.

    Raises
    ------
    ValueError
        If a channel is not one of those five.
    """
    unknown = [c for c in channels if c not in _CHANNELS]
    if unknown:
        raise ValueError(f"channels {unknown} are not among {list(_CHANNELS)}")
    shown = None if legend is None else alt.Legend(**legend)
    return {
        name: curves.by(
            _CHANNELS[name][0], field, {k: _CHANNELS[name][1](v) for k, v in entries.items()}, shown
        )
        for name in channels
    }


def own() -> alt.Chart:
    """A layer reading the chart's own table: the ``data`` of :func:`chart`, Vega-Lite's
    default data (the :class:`~mipcore.plots.vega.VegaLiteChart`'s ``data``), which a layer
    that names no dataset draws."""
    return dataset(OWN)


def _end(start: Any, end: str | float) -> Any:
    """The second channel (x2 or y2) of ``start``'s axis: the field ``end``, or a number."""
    if isinstance(start, alt.X):
        return alt.X2(end) if isinstance(end, str) else alt.X2Datum(end)
    return alt.Y2(end) if isinstance(end, str) else alt.Y2Datum(end)


def bins(name: str, x: Any, x_end: str, y: Any, y_end: str | float, **mark: Any) -> alt.Chart:
    """Dataset ``name`` drawn as one rectangle per row: from its bin's left edge ``x`` to the
    field ``x_end``, from ``y_end`` (a field, or a number such as 0) up to ``y`` (a
    histogram's bar, a distribution's box); ``mark`` sets fill, stroke, opacity."""
    return dataset(name).mark_rect(**mark).encode(x=x, x2=_end(x, x_end), y=y, y2=_end(y, y_end))


def interval(name: str, start: Any, end: str | float, at: Any, **mark: Any) -> alt.Chart:
    """Dataset ``name`` drawn as one rule per row along ``start``'s axis (an ``alt.X`` or
    ``alt.Y`` channel), from it to the field (or number) ``end``, at ``at`` (a channel) on
    the other axis: an error bar, a range over runs, an estimate's bar on its row, a bin's
    top edge, a spike down to a floor. ``mark`` sets colour and width."""
    along, other = ("x", "y") if isinstance(start, alt.X) else ("y", "x")
    ends = {along: start, f"{along}2": _end(start, end)}
    return dataset(name).mark_rule(**mark).encode(**{other: at}, **ends)


def band(name: str, x: Any, lower: str, upper: str, **mark: Any) -> alt.Chart:
    """Dataset ``name`` drawn as a shaded band over ``x`` between its fields ``lower`` and
    ``upper`` (an estimate's pointwise interval); ``mark`` sets colour and opacity."""
    return (
        dataset(name)
        .mark_area(**mark)
        .encode(x=x, y=alt.Y(lower, type="quantitative"), y2=alt.Y2(upper))
    )


def rule(at: Any, data: str | None = None, label: alt.Chart | None = None, **mark: Any) -> Any:
    """A reference line across the plot, vertical where ``at`` is an x channel, horizontal
    where it is a y channel: at each row of dataset ``data``, or, without, at ``at``'s number
    (``alt.XDatum``, ``alt.YDatum``: one mark from no table, its one empty row inline).
    ``mark`` sets colour, dash and width. With a ``label`` (a text layer without data), the
    line and its label are one layer group reading that data."""
    line = alt.Chart().mark_rule(**mark).encode(**{_axis(at): at})
    table = alt.NamedData(data) if data else alt.InlineData(values=[{}])
    if label is None:
        return line.properties(data=table)
    return alt.layer(line, label, data=table)


def _axis(channel: Any) -> str:
    """ "x" or "y": the axis of an x or y channel (a field's or a datum's)."""
    return "x" if isinstance(channel, (alt.X, alt.XDatum)) else "y"


def chart(
    title: str,
    datasets: dict[str, pd.DataFrame],
    draw: Callable[..., list[Any]],
    *look: Hashable,
    height: int,
    subtitle: str | None = None,
    resolve: Mapping[str, str] | None = None,
    data: pd.DataFrame | None = None,
) -> VegaLiteChart:
    """:func:`mipcore.plots.curves.chart` of the layers ``draw(*look)`` over ``datasets``
    (built once per look), with a ``subtitle`` below the title (grey, 14 px) and the scales
    resolved as ``resolve`` says (channel → "shared" or "independent"). ``data``: the chart's
    own table, which the layers drawn from :func:`own` read as Vega-Lite's default data."""
    tables = datasets if data is None else {**datasets, OWN: data}
    out = curves.chart(title, tables, draw, *look, height=height)
    if data is not None:  # the layers reading it name no dataset: they read the default data
        _read_own(out.spec)
        out = VegaLiteChart(spec=out.spec, data=data, datasets=datasets, title=title)
    if subtitle is not None:
        out.spec["title"] = {
            "text": title,
            "subtitle": subtitle,
            "subtitleFontSize": 14,
            "subtitleColor": style.GREY,
        }
    if resolve:
        out.spec["resolve"] = {"scale": dict(resolve)}
    return out


def _read_own(spec: dict[str, Any]) -> None:
    """Make the layers of ``spec`` (nested too) that read :data:`OWN` read the default data."""
    for layer in spec.get("layer", ()):
        if layer.get("data") == {"name": OWN}:
            del layer["data"]
        _read_own(layer)
