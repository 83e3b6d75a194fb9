"""Charts of the page "How much noise would my own statistic need?", written in Altair with
the chart concepts (:mod:`mipcore.plots.curves`, :mod:`mipcore.plots.distributions`).

Both draw a :class:`mipcore.experiments.statistic_release.Comparison` (its ``errors`` and
``spread_table``, the same tables the page offers as CSV) and compute none of the
mathematics. The released numbers are on the x axis in their order (1, 2, …, k), labelled
with their names when there are few (cut to :data:`LABEL_CHARS` characters) and by position
when there are many; the full name is in the tooltip. Names come from an upload's header and
are drawn as text (SVG text and escaped tooltips: no markup is rendered).

The specifications depend only on which releases exist (no DP release for least squares) and
the number of draws, never on the data: they are built once per look in the app's one bounded
cache (:data:`mipcore.plots.vega.SPEC_MEMO`), and a new d, n, η … only changes the tables, so
Streamlit redraws the charts in place (see :mod:`mipcore.plots.vega`). MIP is vermillion
(filled bars, circles), DP blue (hollow bars with a thick outline, squares); both y axes are
logarithmic.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from ..experiments.statistic_release import Comparison
from . import curves, style
from .curves import Look
from .distributions import interval, looks
from .vega import VegaLiteChart, log_ticks

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


def _x() -> Any:
    """The released numbers in their order, labelled by :func:`tick_labels` (field "tick")."""
    return alt.X(
        "tick",
        type="ordinal",
        title="released number",
        sort=alt.EncodingSortField(field="position", op="min"),
        axis=alt.Axis(labelAngle=-35, labelAlign="right", labelOverlap=True, grid=False),
    )


def _log_y(field: str, title: str, **extra: Any) -> Any:
    """A log y axis of ``field`` labelled 10ⁿ at the powers of ten (``extra``: e.g. stack)."""
    axis = alt.Axis(labelExpr=_DECADES, grid=True, tickCount=4)
    return alt.Y(
        field, type="quantitative", title=title, scale=alt.Scale(type="log"), axis=axis, **extra
    )


def _positive(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """The rows whose ``columns`` are all finite and > 0 (what a log axis can draw)."""
    keep = np.ones(len(frame), dtype=bool)
    for c in columns:
        v = frame[c].to_numpy(dtype=float)
        keep &= np.isfinite(v) & (v > 0)
    return frame[keep].reset_index(drop=True)


#: The legend of both charts: one column below the plot.
_LEGEND: dict[str, Any] = {"title": None, "columns": 1, "symbolSize": 160}


def _by(channel: Any, domain: list[str], values: list[Any]) -> Any:
    """The ``channel`` (fill, stroke) of the field "release": ``domain`` to ``values``."""
    return curves.by(
        channel, "release", dict(zip(domain, values, strict=True)), alt.Legend(**_LEGEND)
    )


def _offset(domain: list[str]) -> Any:
    """Side by side within a released number's place: one slot per release of ``domain``."""
    return alt.XOffset("release", type="nominal", scale=alt.Scale(domain=domain))


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
    chart = curves.chart(ERROR_TITLE, {"bars": bars}, _error_bars, has_dp, height=260)
    return chart, table


def _error_bars(has_dp: bool) -> list[Any]:
    """The error chart's one layer (dataset "bars"): MIP's bars filled, DP's (``has_dp``)
    hollow with a thick blue outline, side by side, from the bottom of the log axis."""
    domain = [MIP_BAR, DP_BAR] if has_dp else [MIP_BAR]
    fills = [style.MIP.colour, "white"][: len(domain)]
    strokes = [style.INK, style.DP.colour][: len(domain)]
    bars = curves.dataset("bars").mark_bar(opacity=1, strokeWidth=2)
    return [
        bars.encode(
            x=_x(),
            xOffset=_offset(domain),
            y=_log_y("error", "|release − θ|", stack=None),  # bars from the bottom
            fill=_by(alt.Fill, domain, fills),
            stroke=_by(alt.Stroke, domain, strokes),
            tooltip=[
                alt.Tooltip("quantity", type="nominal", title="number"),
                alt.Tooltip("release", type="nominal", title="release"),
                alt.Tooltip("error", type="quantitative", title="|release − θ|", format=".4~g"),
            ],
        )
    ]


def spread_vega(comp: Comparison) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Median |noise| per released number over the repeated draws (MIP circles, DP squares)
    with a 10–90 % bar, and σ (the spread of θ over random halves, a black dash) for
    reference, on a log y axis; and ``comp.spread_table`` (the table, the CSV)."""
    table = comp.spread_table
    labels = list(comp.release.labels)
    ticks = dict(zip(labels, tick_labels(labels), strict=True))
    position = {name: i + 1 for i, name in enumerate(labels)}
    mechs = tuple(dict.fromkeys(str(m) for m in table["mechanism"]))
    draws = int(comp.spread.draws)
    rows = pd.DataFrame(
        {
            "position": table["quantity"].map(position).to_numpy(),
            "tick": table["quantity"].map(ticks).to_numpy(),
            "quantity": table["quantity"].astype(str).to_numpy(),
            "release": table["mechanism"].map(_names(mechs, draws)).to_numpy(),
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
                "sigma": np.asarray(comp.release.mip.sigma, dtype=float),
            }
        ),
        "sigma",
    )
    datasets = {
        "sigma": sigma,
        "bars": _positive(rows, "q10", "q90"),
        "medians": _positive(rows, "median"),
    }
    chart = curves.chart(SPREAD_TITLE, datasets, _spread, mechs, draws, height=280)
    return chart, table


def _names(mechs: tuple[str, ...], draws: int) -> dict[str, str]:
    """Each mechanism's name in the legend."""
    return {m: f"{_MECH[m]}: median, 10–90 % of {draws} draws" for m in mechs}


def _spread(mechs: tuple[str, ...], draws: int) -> list[Any]:
    """The spread chart's layers: σ as a black tick (dataset "sigma"), each release's
    10–90 % range as a rule (dataset "bars") and its median as a marker (dataset "medians"),
    MIP a vermillion circle, DP a blue square, side by side."""
    names = _names(mechs, draws)
    entries = {
        **{
            names[m]: Look(style.MIP.colour, shape="circle")
            if m == "MIP"
            else Look(style.DP.colour, shape="square")
            for m in mechs
        },
        SIGMA_NAME: Look(style.INK),
    }
    colour = looks("release", entries, "color", legend=_LEGEND)
    offset = _offset(list(entries)[:-1])
    sigma = (
        curves.dataset("sigma")
        .mark_tick(thickness=2.5, opacity=1)
        .encode(
            x=_x(),
            y=_log_y("sigma", "|noise|"),
            **colour,
            tooltip=[
                alt.Tooltip("quantity", type="nominal", title="number"),
                alt.Tooltip("sigma", type="quantitative", title="σ", format=".4~g"),
            ],
        )
    )
    ranges = interval("bars", _log_y("q10", "|noise|"), "q90", _x(), strokeWidth=2).encode(
        xOffset=offset, **colour
    )
    medians = curves.markers("medians", 80).encode(
        x=_x(),
        xOffset=offset,
        y=_log_y("median", "|noise|"),
        **looks("release", entries, "color", "shape", legend=_LEGEND),
        tooltip=[
            alt.Tooltip("quantity", type="nominal", title="number"),
            alt.Tooltip("release", type="nominal", title="release"),
            alt.Tooltip("median", type="quantitative", title="median |noise|", format=".4~g"),
            alt.Tooltip("q10", type="quantitative", title="10 %", format=".4~g"),
            alt.Tooltip("q90", type="quantitative", title="90 %", format=".4~g"),
        ],
    )
    return [sigma, ranges, medians]
