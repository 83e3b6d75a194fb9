"""Curves against a quantity, written once in Altair: the line charts of the app.

A chart of named curves (a noise scale against η, η against a noise scale, a ratio or a
bound against d …) is built from a few parts: an x and a y axis of a quantity, linear or log
with labels at the powers of ten (:func:`quantity`); one colour per family and one dash per
method, each a field mapped to values in a fixed order (:func:`by`); lines (:func:`line`)
and filled markers on them or at their crossovers (:func:`markers`); a band between two
columns (:func:`band`: an error band, a min–max range); text at points (:func:`labels`); a
reference rule at a value with its label (:func:`rule`); one legend below the plot, either
of colour and marker shape over the curves' names (:func:`legend`) or a key of every entry's
colour, dash and shape (``key`` of :func:`chart`). A page builds its tables and says, with
these parts, how to draw them.

Every layer reads a named dataset (:func:`dataset`: ``alt.NamedData``), so the specification
holds no data: :func:`chart` returns a :class:`~mipcore.plots.vega.VegaLiteChart` whose
tables are those datasets (see :mod:`mipcore.plots.vega` for why: Streamlit redraws a chart
in place when only its tables change, and the CSV is what is drawn). A :class:`Look` is how
one named curve looks: its colour, dash, line width and marker (the style's names,
:mod:`mipcore.plots.style`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd

from . import vega
from .vega import (
    AUTOSIZE,
    DASH,
    PADDING,
    Reads,
    VegaLiteChart,
    altair_spec,
    log_ticks,
    power_axis,
    reads,
)

__all__ = [
    "Look",
    "band",
    "by",
    "chart",
    "dataset",
    "labels",
    "legend",
    "line",
    "markers",
    "quantity",
    "rule",
]


@dataclass(frozen=True)
class Look:
    """How a named curve looks: ``colour``, ``dash`` (a :data:`~mipcore.plots.vega.DASH`
    name), line ``width`` and marker ``shape`` (a Vega-Lite shape or symbol path; "stroke":
    no markers, a short line in the legend)."""

    colour: str
    dash: str = "solid"
    width: float = 2.5
    shape: str = "stroke"


def dataset(name: str) -> alt.Chart:
    """A layer reading the chart's dataset ``name`` (each call a new reference, so Altair
    never lifts it to the chart: the specification keeps one data reference per layer)."""
    return alt.Chart(alt.NamedData(name))


def quantity(
    channel: type[alt.X] | type[alt.Y],
    field: str,
    title: str,
    *,
    log: bool = False,
    domain: tuple[float, float] | None = None,
    every: int = 1,
    ticks: Iterable[float] | None = None,
    zero: bool | None = None,
    **scale: Any,
) -> Any:
    """The x or y channel (``alt.X``/``alt.Y``) of a quantity in ``field``.

    On a ``log`` axis the labels are powers of ten written 10ⁿ: with a ``domain``, the axis
    is fixed and its ticks are every ``every``-th power of ten in it; without, the axis spans
    the data (:func:`~mipcore.plots.vega.power_axis`). A linear axis has ``ticks`` if given,
    and ``zero`` (linear only) says whether its scale must include 0. The scale is never
    "nice" unless ``scale`` says so; ``scale`` adds scale properties (``padding``, …).
    """
    if log:
        scale["type"] = "log"
    elif zero is not None:
        scale["zero"] = zero
    if domain is not None:
        scale["domain"] = list(domain)
    axis: Any = alt.Undefined
    if log and domain is not None:
        axis = log_ticks(*domain)
        axis["values"] = [v for v in axis["values"] if round(math.log10(v)) % every == 0]
    elif log:
        axis = power_axis()
    elif ticks is not None:
        axis = {"values": list(ticks)}
    return channel(
        field,
        type="quantitative",
        title=title,
        scale=alt.Scale(**{"nice": False, **scale}),
        axis=alt.Axis(**axis) if axis is not alt.Undefined else alt.Undefined,
    )


def by(
    channel: Any, field: str, mapping: Mapping[str, Any], legend: alt.Legend | None = None
) -> Any:
    """The ``channel`` (``alt.Color``, ``alt.StrokeDash``, ``alt.Shape``, ``alt.Fill``) of the
    nominal ``field``, mapping each key of ``mapping`` (in its order) to its value;
    ``legend=None``: no legend for this channel."""
    return channel(
        field,
        type="nominal",
        scale=alt.Scale(domain=list(mapping), range=list(mapping.values())),
        legend=legend,
    )


def legend(field: str, looks: Mapping[str, Look], **extra: Any) -> tuple[Any, Any]:
    """Colour and marker-shape channels of ``field`` over the named curves ``looks``, with
    one legend (Vega-Lite merges the two): a marker in each curve's colour, a short stroke
    for a curve without markers; the dashes are on the plot only (a dashed outline blurs a
    legend's symbol). ``extra`` adds legend properties."""
    shown = alt.Legend(title=None, symbolSize=120, **extra)
    return (
        by(alt.Color, field, {k: v.colour for k, v in looks.items()}, shown),
        by(alt.Shape, field, {k: v.shape for k, v in looks.items()}, shown),
    )


def line(name: str, look: Look, **mark: Any) -> alt.Chart:
    """Dataset ``name`` drawn as one line of ``look``'s dash and width (``mark`` adds)."""
    return dataset(name).mark_line(strokeDash=DASH[look.dash], strokeWidth=look.width, **mark)


def markers(name: str, size: float, **mark: Any) -> alt.Chart:
    """Dataset ``name`` drawn as opaque filled markers of ``size`` px² (``mark`` adds, e.g.
    an ink outline, a fixed shape or ``filled=False``)."""
    return dataset(name).mark_point(**{"filled": True, "opacity": 1, "size": size, **mark})


def band(name: str, lower: str, upper: str, opacity: float, **mark: Any) -> alt.Chart:
    """Dataset ``name`` drawn as a band from its column ``lower`` up to ``upper`` (an error
    band, a min–max range) at ``opacity`` (``mark`` adds, e.g. ``clip``); the caller encodes
    x and the colour."""
    return (
        dataset(name)
        .mark_area(opacity=opacity, **mark)
        .encode(y=alt.Y(lower, type="quantitative"), y2=alt.Y2(upper))
    )


def labels(name: str, field: str, **mark: Any) -> alt.Chart:
    """Dataset ``name``'s column ``field`` written as text at its points (``mark``: the text
    mark's properties, e.g. offsets and size); the caller encodes x and y."""
    return dataset(name).mark_text(**mark).encode(text=alt.Text(field, type="nominal"))


def rule(
    value: float,
    text: str,
    *,
    colour: str,
    dash: str,
    width: float,
    at: float | None = None,
    **label: Any,
) -> Any:
    """A horizontal rule at ``value`` of the y quantity (``colour``, ``dash`` a
    :data:`~mipcore.plots.vega.DASH` name, ``width`` px) and its label ``text`` at the x value
    ``at`` (None: the plot's right edge), a text mark of properties ``label``. No table: one
    layer over one empty row."""
    y = alt.datum(value, type="quantitative")
    x = alt.value("width") if at is None else alt.datum(at, type="quantitative")
    return alt.layer(
        alt.Chart().mark_rule(color=colour, strokeDash=DASH[dash], strokeWidth=width).encode(y=y),
        alt.Chart().mark_text(**label).encode(x=x, y=y, text=alt.value(text)),
        data=alt.InlineData(values=[{}]),
    )


def _key(entries: Mapping[str, Look]) -> alt.Chart:
    """The legend key: an invisible layer over dataset "key" (one row per entry) whose
    scales map each entry's label to its colour, dash and marker."""
    shown = alt.Legend(title=None, symbolSize=260, symbolStrokeWidth=2.5)
    return (
        dataset("key")
        .mark_point(opacity=0, filled=False)
        .encode(
            color=by(alt.Color, "key", {k: v.colour for k, v in entries.items()}, shown),
            strokeDash=by(
                alt.StrokeDash, "key", {k: DASH[v.dash] for k, v in entries.items()}, shown
            ),
            shape=by(alt.Shape, "key", {k: v.shape for k, v in entries.items()}, shown),
        )
    )


def chart(
    title: str,
    datasets: dict[str, pd.DataFrame],
    draw: Callable[..., list[Any]],
    *look: Hashable,
    height: int,
    key: Mapping[str, Look] | None = None,
    resolve: Mapping[str, Mapping[str, str]] | None = None,
) -> VegaLiteChart:
    """The chart of the layers ``draw(*look)`` over ``datasets`` in the app's style: ``title``,
    the column's width, ``height`` px of plot, a legend below it.

    ``draw`` is a module-level function of ``look`` alone (log axes, the families shown, …),
    never of the data: so the specification is the same whenever the look is, and Streamlit
    redraws the chart in place when only the tables change. Altair takes about 0.1 s to build
    one: in the app it is built once per look and kept as JSON text in the app's one bounded
    cache (:data:`mipcore.plots.vega.SPEC_MEMO`), each chart getting its own copy.

    With ``key`` (label → look), the chart's one legend is that key, in one column: each
    entry shows its colour, dash and marker (a curve's family, a method's dash, a marker's
    meaning); the drawn layers then show no legend of their own, and the chart resolves its
    colour, dash and shape scales independently. The key's rows are the dataset "key".

    ``resolve`` says how the layers share scales, axes and legends, e.g. ``{"legend":
    {"color": "independent"}}`` (each layer its own colour legend) or ``{"scale": {"y":
    "independent"}}`` (a second y-axis).
    """
    entries = tuple((key or {}).items())
    plan = tuple((kind, tuple(channels.items())) for kind, channels in (resolve or {}).items())
    memo = vega.SPEC_MEMO
    args = (title, height, entries, draw, look, plan)
    text, checked, keys = memo(_spec, *args) if memo is not None else _spec(*args)
    if keys is not None:
        datasets = {**datasets, "key": keys}
    return VegaLiteChart(spec=json.loads(text), datasets=datasets, title=title, reads=checked)


def _spec(
    title: str,
    height: int,
    key: tuple[tuple[str, Look], ...],
    draw: Callable[..., list[Any]],
    look: tuple[Hashable, ...],
    resolve: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (),
) -> tuple[str, Reads, pd.DataFrame | None]:
    """The specification of :func:`chart` as JSON (the same arguments, ``key`` and
    ``resolve`` as items), what it reads (:func:`mipcore.plots.vega.reads`) and the legend
    key's table: all three depend on the look alone, so the app keeps them together, once."""
    layers = draw(*look) + ([_key(dict(key))] if key else [])
    top = alt.layer(
        *layers,
        title=title,
        width="container",
        height=height,
        padding=dict(PADDING),
        autosize=dict(AUTOSIZE),
    )
    if key:
        top = top.resolve_scale(color="independent", strokeDash="independent", shape="independent")
    for kind, channels in resolve:
        top = getattr(top, f"resolve_{kind}")(**dict(channels))
    spec = altair_spec(top)
    keys = pd.DataFrame({"key": [label for label, _ in key]}, dtype="str") if key else None
    return json.dumps(spec, ensure_ascii=False), reads(spec), keys
