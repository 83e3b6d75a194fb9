"""Figures of the page "How much noise would my own statistic need?".

Both draw a :class:`mipcore.lessons.statistic_release.Comparison` (its ``errors`` and
``spread_table``, the same tables the page offers as CSV) and compute none of the
mathematics. The released numbers are on the x axis by position (1, 2, …, k), labelled with
their names when there are few (shortened) and by position when there are many; the full
name is in the hover text. Names come from an upload's header, so every piece of them is
``html.escape``-d: Plotly renders ``<a>``, ``<b>``, ``<br>`` … in tick labels and hover text.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from ..lessons.statistic_release import Comparison
from . import style
from .formatting import fmt_num

__all__ = ["LABEL_CHARS", "MAX_TICK_LABELS", "error_figure", "safe_label", "spread_figure"]

#: With more released numbers than this, the x axis is labelled by position only.
MAX_TICK_LABELS = 24
#: Tick labels are cut to this many characters (the hover text has the full name).
LABEL_CHARS = 22


def safe_label(text: str, limit: int | None = None) -> str:
    """``text`` for Plotly: cut to ``limit`` characters (with "…"), then html-escaped.

    >>> safe_label('<img src=x onerror=alert(1)>')
    '&lt;img src=x onerror=alert(1)&gt;'
    >>> safe_label("abcdef", 4)
    'abc…'
    """
    s = str(text)
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    return html.escape(s)


def _positive_or_none(values: ArrayLike) -> list[float | None]:
    """Values for a log axis: zero, negative or non-finite entries become gaps."""
    return [float(v) if np.isfinite(v) and v > 0 else None for v in np.asarray(values, float)]


def _x_axis(labels: Sequence[str], title: str) -> tuple[str, dict[str, Any]]:
    """The x axis title and the axis settings (labels by name or by position)."""
    k = len(labels)
    if k <= MAX_TICK_LABELS:
        ticks = list(range(1, k + 1))
        text = [safe_label(s, LABEL_CHARS) for s in labels]
        axis_title = title
    else:
        step = math.ceil(k / 16)
        ticks = [1, *range(step, k + 1, step)]
        text = [str(t) for t in ticks]
        axis_title = f"{title} (1 to {k}; hover for the name)"
    return axis_title, dict(
        tickmode="array",
        tickvals=ticks,
        ticktext=text,
        range=[0.4, k + 0.6],
        showgrid=False,
        zeroline=False,
    )


def _log_y(title: str, *columns: ArrayLike) -> dict[str, Any]:
    """A log y axis over whole decades (at least two), at most about 8 labelled decades."""
    vals = np.concatenate([np.asarray(c, dtype=float).ravel() for c in columns])
    vals = vals[np.isfinite(vals) & (vals > 0)]
    if vals.size == 0:
        return style.log_axis(title)
    lo = math.floor(math.log10(vals.min()))
    hi = math.ceil(math.log10(vals.max()))
    if hi - lo < 2:
        mid = (lo + hi) / 2
        lo, hi = math.floor(mid - 1), math.ceil(mid + 1)
    step = max(1, math.ceil((hi - lo) / 8))
    return style.log_axis(title, range=[lo, hi], dtick=step)


def _names(comp: Comparison) -> list[str]:
    return [safe_label(s) for s in comp.release.labels]


def error_figure(comp: Comparison) -> go.Figure:
    """Bars of |release − θ| per released number for the one MIP and (if any) the one DP
    release (log y); the page's table holds the same numbers."""
    frame = comp.errors
    names = _names(comp)
    x = list(range(1, len(frame) + 1))
    data: list[dict[str, Any]] = [
        dict(
            type="bar",
            name="MIP release (Algorithm 1)",
            x=x,
            y=_positive_or_none(frame["mip_abs_error"]),
            marker=dict(color=style.MIP.colour, line=dict(color=style.INK, width=0.5)),
            customdata=[
                [n, fmt_num(v)] for n, v in zip(names, frame["mip_abs_error"], strict=True)
            ],
            hovertemplate="%{customdata[0]}<br>MIP |release − θ| = %{customdata[1]}<extra></extra>",
        )
    ]
    if frame["dp_abs_error"].notna().any():
        data.append(
            dict(
                type="bar",
                name="DP Laplace release",
                x=x,
                y=_positive_or_none(frame["dp_abs_error"]),
                marker=dict(
                    color=style.DP.colour,
                    pattern=dict(shape="/", fgcolor="white", size=6),
                    line=dict(color=style.INK, width=0.5),
                ),
                customdata=[
                    [n, fmt_num(v)] for n, v in zip(names, frame["dp_abs_error"], strict=True)
                ],
                hovertemplate="%{customdata[0]}<br>DP |release − θ| = %{customdata[1]}"
                "<extra></extra>",
            )
        )
    x_title, x_axis = _x_axis(comp.release.labels, "released number")
    layout = style.layout(
        title="One release: how far each number landed from θ",
        x=x_title,
        height=420,
        barmode="group",
        showlegend=True,
        xaxis=x_axis,
        yaxis=_log_y("|release − θ|", frame["mip_abs_error"], frame["dp_abs_error"]),
    )
    return go.Figure(data=data, layout=layout)


def spread_figure(comp: Comparison) -> go.Figure:
    """Median |noise| per released number over the repeated draws, with a 10–90 % bar, for
    MIP and DP, and σ (the spread of θ over random halves) for reference (log y)."""
    frame = comp.spread_table
    names = _names(comp)
    looks = {
        "MIP": (style.MIP, "MIP (Algorithm 1)"),
        "DP": (style.DP, "DP Laplace"),
    }
    data: list[dict[str, Any]] = []
    for mech, part in frame.groupby("mechanism", sort=False):
        look, label = looks[str(mech)]
        med = part["median"].to_numpy()
        q10, q90 = part["q10"].to_numpy(), part["q90"].to_numpy()
        x = list(range(1, len(part) + 1))
        shift = -0.12 if mech == "MIP" else 0.12
        data.append(
            dict(
                type="scatter",
                mode="markers",
                name=f"{label}: median, 10–90 % of {int(part['draws'].iloc[0])} draws",
                x=[v + shift for v in x],
                y=_positive_or_none(med),
                marker=style.marker(look, size=9),
                error_y=dict(
                    type="data",
                    symmetric=False,
                    array=(q90 - med).tolist(),
                    arrayminus=(med - q10).tolist(),
                    color=look.colour,
                    thickness=1.8,
                    width=4,
                ),
                customdata=[
                    [n, fmt_num(a), fmt_num(b), fmt_num(c)]
                    for n, a, b, c in zip(names, q10, med, q90, strict=True)
                ],
                hovertemplate=(
                    f"%{{customdata[0]}}<br>{label} |noise|: median %{{customdata[2]}}"
                    "<br>10 %: %{customdata[1]}, 90 %: %{customdata[3]}<extra></extra>"
                ),
            )
        )
    sigma = comp.release.sigma
    data.append(
        dict(
            type="scatter",
            mode="markers",
            name="σ, the spread of θ over random halves",
            x=list(range(1, sigma.size + 1)),
            y=_positive_or_none(sigma),
            marker=dict(color=style.INK, symbol="line-ew-open", size=18, line=dict(width=2.5)),
            customdata=[[n, fmt_num(v)] for n, v in zip(names, sigma, strict=True)],
            hovertemplate="%{customdata[0]}<br>σ = %{customdata[1]}<extra></extra>",
        )
    )
    x_title, x_axis = _x_axis(comp.release.labels, "released number")
    layout = style.layout(
        title="Many releases: how large the noise typically is",
        x=x_title,
        height=440,
        xaxis=x_axis,
        yaxis=_log_y("|noise|", frame["q10"], frame["q90"], frame["sigma"]),
    )
    return go.Figure(data=data, layout=layout)
