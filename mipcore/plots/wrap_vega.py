"""Charts of the page "How much noise would my own statistic need?", drawn by Vega-Lite.

Both draw a :class:`mipcore.lessons.statistic_release.Comparison` (its ``errors`` and
``spread_table``, the same tables the page offers as CSV) and compute none of the
mathematics. The released numbers are on the x axis in their order (1, 2, …, k), labelled
with their names when there are few (cut to :data:`LABEL_CHARS` characters) and by position
when there are many; the full name is in the tooltip. Names come from an upload's header and
are drawn as text (SVG text and escaped tooltips: no markup is rendered).

The specifications depend only on which releases exist (no DP release for least squares),
never on the data: a new d, n, η … only changes the tables, so Streamlit redraws the charts in
place (see :mod:`mipcore.plots.vega`). MIP is vermillion (filled bars, circles), DP blue
(hollow bars with a thick outline, squares); both y axes are logarithmic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..lessons.statistic_release import Comparison
from . import style
from .vega import VegaLiteChart, by_field, layered, log_ticks

__all__ = [
    "DP_BAR",
    "LABEL_CHARS",
    "MAX_TICK_LABELS",
    "MIP_BAR",
    "SIGMA_NAME",
    "error_vega",
    "short_label",
    "spread_vega",
    "tick_labels",
]

#: With more released numbers than this, the x axis is labelled by position only.
MAX_TICK_LABELS = 24
#: Tick labels are cut to this many characters (the tooltip has the full name).
LABEL_CHARS = 22

MIP_BAR = "MIP release (Algorithm 1)"
DP_BAR = "DP Laplace release"
SIGMA_NAME = "σ, the spread of θ over random halves"
ERROR_TITLE = "One release: how far each number landed from θ"
SPREAD_TITLE = "Many releases: how large the noise typically is"
_MECH = {"MIP": "MIP (Algorithm 1)", "DP": "DP Laplace"}

#: Tick labels of a log axis whatever its range: 10ⁿ at the powers of ten, nothing between.
_DECADES = log_ticks(1e-30, 1e30)["labelExpr"]


def short_label(text: str, limit: int = LABEL_CHARS) -> str:
    """``text`` cut to ``limit`` characters, the last one "…" when cut.

    >>> short_label("abcdef", 4)
    'abc…'
    >>> short_label("<b>x</b>")
    '<b>x</b>'
    """
    s = str(text)
    return s[: limit - 1] + "…" if len(s) > limit else s


def tick_labels(labels: list[str] | tuple[str, ...]) -> list[str]:
    """The x axis's label of each released number: its (cut) name when there are at most
    :data:`MAX_TICK_LABELS`, else its position 1, 2, …; names that the cut makes equal are
    kept apart by invisible zero-width spaces (each number keeps its own place)."""
    if len(labels) > MAX_TICK_LABELS:
        return [str(i) for i in range(1, len(labels) + 1)]
    out: list[str] = []
    seen: dict[str, int] = {}
    for name in labels:
        short = short_label(name)
        seen[short] = seen.get(short, -1) + 1
        out.append(short + "\u200b" * seen[short])
    return out


def _x(title: str = "released number") -> dict[str, Any]:
    return {
        "field": "tick",
        "type": "ordinal",
        "title": title,
        "sort": {"field": "position", "op": "min"},
        "axis": {"labelAngle": -35, "labelAlign": "right", "labelOverlap": True, "grid": False},
    }


def _log_y(field: str, title: str) -> dict[str, Any]:
    return {
        "field": field,
        "type": "quantitative",
        "title": title,
        "scale": {"type": "log"},
        "axis": {"labelExpr": _DECADES, "grid": True, "tickCount": 4},
    }


def _positive(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """The rows whose ``columns`` are all finite and > 0 (what a log axis can draw)."""
    keep = np.ones(len(frame), dtype=bool)
    for c in columns:
        v = frame[c].to_numpy(dtype=float)
        keep &= np.isfinite(v) & (v > 0)
    return frame[keep].reset_index(drop=True)


def _by(field: str, domain: list[str], channel_range: list[Any], shown: bool) -> dict[str, Any]:
    legend = {"title": None, "columns": 1, "symbolSize": 160} if shown else None
    return by_field(field, domain, channel_range, legend)


def error_vega(comp: Comparison) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Bars of |release − θ| per released number for the one MIP and (if any) the one DP
    release, on a log y axis, and ``comp.errors`` (the table, the CSV). Zero errors (a number
    released without noise) have no bar."""
    table = comp.errors
    k = len(table)
    base = pd.DataFrame(
        {"position": np.arange(1, k + 1), "tick": tick_labels(list(table["quantity"]))}
    ).assign(quantity=table["quantity"].astype(str).to_numpy())
    has_dp = bool(table["dp_abs_error"].notna().any())
    parts = [base.assign(release=MIP_BAR, error=table["mip_abs_error"].to_numpy(float))]
    if has_dp:
        parts.append(base.assign(release=DP_BAR, error=table["dp_abs_error"].to_numpy(float)))
    bars = _positive(pd.concat(parts, ignore_index=True), "error")
    domain = [MIP_BAR, DP_BAR] if has_dp else [MIP_BAR]
    fills = [style.MIP.colour, "white"][: len(domain)]
    strokes = [style.INK, style.DP.colour][: len(domain)]
    layer = {
        "data": {"name": "bars"},
        "mark": {"type": "bar", "opacity": 1, "strokeWidth": 2},
        "encoding": {
            "x": _x(),
            "xOffset": {"field": "release", "type": "nominal", "scale": {"domain": domain}},
            "y": {**_log_y("error", "|release − θ|"), "stack": None},  # bars from the bottom
            "fill": _by("release", domain, fills, True),
            "stroke": _by("release", domain, strokes, True),
            "tooltip": [
                {"field": "quantity", "type": "nominal", "title": "number"},
                {"field": "release", "type": "nominal", "title": "release"},
                {"field": "error", "type": "quantitative", "title": "|release − θ|"}
                | {"format": ".4~g"},
            ],
        },
    }
    spec = layered(ERROR_TITLE, [layer], height=260)
    return VegaLiteChart(spec=spec, datasets={"bars": bars}, title=ERROR_TITLE), table


def spread_vega(comp: Comparison) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Median |noise| per released number over the repeated draws (MIP circles, DP squares)
    with a 10–90 % bar, and σ (the spread of θ over random halves, a black dash) for
    reference, on a log y axis; and ``comp.spread_table`` (the table, the CSV)."""
    table = comp.spread_table
    labels = list(comp.release.labels)
    ticks = dict(zip(labels, tick_labels(labels), strict=True))
    position = {name: i + 1 for i, name in enumerate(labels)}
    mechs = list(dict.fromkeys(str(m) for m in table["mechanism"]))
    draws = int(comp.spread.draws)
    names = {m: f"{_MECH[m]}: median, 10–90 % of {draws} draws" for m in mechs}
    rows = pd.DataFrame(
        {
            "position": table["quantity"].map(position).to_numpy(),
            "tick": table["quantity"].map(ticks).to_numpy(),
            "quantity": table["quantity"].astype(str).to_numpy(),
            "release": table["mechanism"].map(names).to_numpy(),
            "q10": table["q10"].to_numpy(float),
            "median": table["median"].to_numpy(float),
            "q90": table["q90"].to_numpy(float),
        }
    )
    sigma = _positive(
        pd.DataFrame(
            {
                "position": np.arange(1, len(labels) + 1),
                "tick": [ticks[n] for n in labels],
                "quantity": labels,
                "release": SIGMA_NAME,
                "sigma": np.asarray(comp.release.sigma, dtype=float),
            }
        ),
        "sigma",
    )
    domain = [names[m] for m in mechs] + [SIGMA_NAME]
    colours = [style.MIP.colour if m == "MIP" else style.DP.colour for m in mechs] + [style.INK]
    shapes = ["circle" if m == "MIP" else "square" for m in mechs] + ["stroke"]
    offset = {"field": "release", "type": "nominal", "scale": {"domain": domain[:-1]}}
    tooltip = [
        {"field": "quantity", "type": "nominal", "title": "number"},
        {"field": "release", "type": "nominal", "title": "release"},
        {"field": "median", "type": "quantitative", "title": "median |noise|", "format": ".4~g"},
        {"field": "q10", "type": "quantitative", "title": "10 %", "format": ".4~g"},
        {"field": "q90", "type": "quantitative", "title": "90 %", "format": ".4~g"},
    ]
    y = _log_y("median", "|noise|")
    layers: list[dict[str, Any]] = [
        {
            "data": {"name": "sigma"},
            "mark": {"type": "tick", "thickness": 2.5, "opacity": 1},
            "encoding": {
                "x": _x(),
                "y": {**y, "field": "sigma"},
                "color": _by("release", domain, colours, True),
                "tooltip": [
                    {"field": "quantity", "type": "nominal", "title": "number"},
                    {"field": "sigma", "type": "quantitative", "title": "σ", "format": ".4~g"},
                ],
            },
        },
        {
            "data": {"name": "bars"},
            "mark": {"type": "rule", "strokeWidth": 2},
            "encoding": {
                "x": _x(),
                "xOffset": offset,
                "y": {**y, "field": "q10"},
                "y2": {"field": "q90"},
                "color": _by("release", domain, colours, True),
            },
        },
        {
            "data": {"name": "medians"},
            "mark": {"type": "point", "filled": True, "size": 80, "opacity": 1},
            "encoding": {
                "x": _x(),
                "xOffset": offset,
                "y": y,
                "color": _by("release", domain, colours, True),
                "shape": _by("release", domain, shapes, True),
                "tooltip": tooltip,
            },
        },
    ]
    spec = layered(SPREAD_TITLE, layers, height=280)
    datasets = {
        "sigma": sigma,
        "bars": _positive(rows, "q10", "q90"),
        "medians": _positive(rows, "median"),
    }
    return VegaLiteChart(spec=spec, datasets=datasets, title=SPREAD_TITLE), table
