"""Proposition 11's charts: the sensitivity explodes while the spread stays about 1 (curves
against n, :mod:`mipcore.plots.curves`), and where the outputs 𝒜(D) fall (boxes, bar tops
and a spike over value bins, :mod:`mipcore.plots.distributions`).

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Proposition 11 (Section 4) and Appendix D. The builders take the results of
:mod:`mipcore.prop11` (:func:`~mipcore.prop11.growth_table`, the binned distribution of 𝒜(D)
from :func:`~mipcore.prop11.value_histogram`) and return a
:class:`~mipcore.plots.vega.VegaLiteChart` and the table it draws (the page's CSV); they compute
none of the mathematics.

The page's n slider changes only the tables: the growth chart's specification depends on M
(its table's range: the arguments of ``_growth_layers``), the distribution chart's on nothing
at all (its axes span the data of the chosen n), so Streamlit redraws both in place.

Style (:mod:`mipcore.plots.style`): Δ, what DP's noise is proportional to, in DP's style (blue,
dashed, squares); σ, what MIP's noise is proportional to, in MIP's (vermillion, solid,
circles); the exact ratio Δ/σ thick black with diamonds; the rate the paper promises in its
"printed" style (purple dash-dot, crosses); legends below.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from . import curves, distributions, style
from .curves import Look
from .formatting import fmt_num
from .vega import DASH, SHAPE, STAR, VegaLiteChart, power_axis

__all__ = ["distribution_vega", "growth_vega"]

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_MARKERS = 9  # markers on each growth curve (the second cue beside colour and dash)
WITHOUT_A = "halves without A (one box per bin)"
WITH_A = "halves with A (one bar top per bin)"
SPECIAL = "the special half D* (probability p)"
_GROUPS = {"without A": WITHOUT_A, "with A": WITH_A, "special D*": SPECIAL}


def _series(M: int) -> list[tuple[str, str, style._Style, float]]:
    """(column, legend label, style, line width) of each growth curve, in legend order."""
    sig = "σ" + str(M).translate(_SUB)
    return [
        ("ratio", f"Δ / {sig}", style.EXACT, 3.5),
        ("rate", "∛(2ⁿ), the rate Proposition 11 promises", style.PRINTED, 2.5),
        ("sensitivity", "Δ (DP's noise ∝ Δ)", style.DP, 2.5),
        ("sigma", f"{sig} (MIP's noise ∝ {sig})", style.MIP, 2.5),
    ]


def growth_vega(
    table: pd.DataFrame, *, n_chosen: int, M: int = 2, height: int = 300
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Δ, σ_M, Δ/σ_M and the rate 2^(n/3) of Proposition 11 against n (log y), and ``table``.

    ``table``: the DataFrame of :func:`mipcore.prop11.growth_table` (columns ``n``,
    ``sensitivity``, ``sigma``, ``ratio``, ``rate``, all positive; at least two rows), drawn
    every other row, both ends and ``n_chosen``; nine markers per curve. ``n_chosen`` is marked
    by a dotted line and, when it is in the table, by a marker on each measured curve. The
    specification depends on M and on the table's ranges, not on ``n_chosen``.
    """
    series = _series(M)
    n = table["n"].to_numpy()
    values = np.concatenate([table[c].to_numpy(dtype=float) for c, *_ in series])
    rank = np.arange(len(table))
    keep = (rank % 2 == 0) | (rank == len(table) - 1) | (n == n_chosen)
    picks = np.unique(np.round(np.linspace(0, len(table) - 1, _MARKERS)).astype(int))
    lines, marks, chosen = [], [], []
    hit = (n == n_chosen).nonzero()[0]
    for column, label, _st, _w in series:
        v = table[column].to_numpy(dtype=float)
        lines.append(pd.DataFrame({"n": n[keep], "value": v[keep], "curve": label}))
        marks.append(pd.DataFrame({"n": n[picks], "value": v[picks], "curve": label}))
        if len(hit) and column != "rate":
            i = int(hit[0])
            chosen.append(pd.DataFrame({"n": [n[i]], "value": [v[i]], "curve": label}))
    cols = {"n": "int64", "value": "float64", "curve": "str"}

    def frame(parts: list[pd.DataFrame]) -> pd.DataFrame:
        empty = pd.DataFrame({k: pd.Series(dtype=v) for k, v in cols.items()})
        return pd.concat([empty, *parts], ignore_index=True).astype(cols)

    rule = pd.DataFrame({"n": [int(n_chosen)], "label": [f"n = {n_chosen}"]})
    right = n_chosen > (float(n.min()) + float(n.max())) / 2  # label left of the line
    labels = {
        "label_left": rule.iloc[:0] if right else rule,
        "label_right": rule if right else rule.iloc[:0],
    }
    sig = "σ" + str(M).translate(_SUB)
    title = (
        "Δ explodes, σ₂ does not (log scale)"
        if M == 2
        else f"Δ, {sig} and Δ / {sig} against n (log scale; {sig} grows too)"
    )
    datasets = {
        "curves": frame(lines),
        "markers": frame(marks),
        "at_n": frame(chosen),
        "chosen_n": rule,
        **labels,
    }
    look = (M, float(n.min()), float(n.max()), float(values.min()), float(values.max()))
    # the legend shows each curve's colour and dash; the markers' shapes repeat them
    shapes = {"shape": "independent"}
    chart = distributions.chart(
        title, datasets, _growth_layers, *look, height=height, resolve=shapes
    )
    return chart, table


def _growth_layers(M: int, n_lo: float, n_hi: float, lo: float, hi: float) -> list[Any]:
    """The growth chart's dotted line at the chosen n and its label, the curves (colour, dash
    and width by curve), their markers and the chosen n's markers."""
    looks = {
        label: Look(st.colour, str(st["dash"]), w, SHAPE[str(st["symbol"])])
        for _c, label, st, w in _series(M)
    }
    x = curves.quantity(alt.X, "n", "n (dataset size, even)", domain=(n_lo - 2, n_hi + 2))
    y = alt.Y(
        "value",
        type="quantitative",
        title="value (log scale)",
        scale=alt.Scale(type="log", domain=[lo / 2, hi * 2], nice=False),
        axis=alt.Axis(**power_axis(**_sparse(lo / 2, hi * 2))),
    )
    tooltip = [
        alt.Tooltip("curve:N", title="curve"),
        alt.Tooltip("n:Q", title="n"),
        alt.Tooltip("value:Q", title="value", format=".4~g"),
    ]
    legend = {"title": None, "symbolType": "stroke", "symbolSize": 500}
    colour = distributions.looks("curve", looks, "color", legend=legend)
    lines = {
        **colour,
        **distributions.looks("curve", looks, "strokeDash", "strokeWidth", legend=legend),
    }
    points = {**colour, **distributions.looks("curve", looks, "shape", legend=None)}
    labels = [  # beside the line, on the side with room (the other table is empty)
        curves.dataset(f"label_{side}")
        .mark_text(
            align=side,
            baseline="top",
            dx=4 if side == "left" else -4,
            dy=4,
            fontSize=14,
            color=style.INK,
        )
        .encode(x=x, y=alt.value(0), text=alt.Text("label", type="nominal"))
        for side in ("left", "right")
    ]
    return [
        alt.layer(  # a group of one layer (Altair lifts its data to the group)
            distributions.rule(
                x, "chosen_n", color=style.GREY, strokeDash=DASH["dot"], strokeWidth=2
            )
        ),
        *labels,
        curves.dataset("curves").mark_line(clip=True).encode(x=x, y=y, **lines, tooltip=tooltip),
        curves.markers("markers", 60).encode(x=x, y=y, **points, tooltip=tooltip),
        curves.markers("at_n", 170, stroke="white", strokeWidth=2).encode(
            x=x, y=y, **points, tooltip=tooltip
        ),
    ]


def _sparse(lo: float, hi: float) -> dict[str, Any]:
    """At most about nine labelled powers of ten: every k-th decade over a wide range."""
    ks = range(math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9) + 1)
    step = max(1, math.ceil(len(ks) / 9))
    return {"values": [10.0**k for k in ks if k % step == 0]}


def _halves(count: Any) -> str:
    """An exact count of halves with thin spaces between groups of three digits."""
    return f"{int(count):,}".replace(",", "\u2009")


def distribution_vega(
    histogram: Sequence[Mapping[str, Any]] | pd.DataFrame, *, height: int = 320
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The distribution of 𝒜(D) over the halves, value (log) against probability (log), and the
    table drawn: the histogram's rows with their exact counts as text (the page's CSV).

    ``histogram``: the rows of :func:`mipcore.prop11.value_histogram` (or a DataFrame of them:
    certified value ranges ``0 < value_min <= value_max``, probabilities > 0, its three groups).

    Each bin of "without A" is a box over its certified value range from the floor up to its
    probability, each bin of "with A" its top edge only (the groups overlap in value); a marker
    at each bin's geometric centre carries its exact count. The special half D* is a spike
    with a star at (1/√p, p). The floor is a decade below the smallest probability; the axes
    span the data, so the specification does not depend on n (the title does not name it).
    """
    hist = pd.DataFrame(histogram)
    lo = hist["value_min"].to_numpy(dtype=float)
    hi = hist["value_max"].to_numpy(dtype=float)
    pr = hist["probability"].to_numpy(dtype=float)
    y_floor = 10.0 ** (math.floor(math.log10(float(pr.min()))) - 1)
    group = hist["group"].astype(str).to_numpy()
    bins = pd.DataFrame(
        {
            "group": [_GROUPS[g] for g in group],
            "top_bit": hist["top_bit"].astype("int64").to_numpy(),
            "value_min": lo,
            "value_max": hi,
            "centre": np.sqrt(lo * hi),
            "probability": pr,
            "floor": y_floor,
            "halves": [_halves(c) for c in hist["count"]],
            "range": [
                fmt_num(a) if a == b else f"{fmt_num(a)} to {fmt_num(b)}"
                for a, b in zip(lo, hi, strict=True)
            ],
        }
    )
    datasets = {
        "boxes": bins[group == "without A"].reset_index(drop=True),
        "tops": bins[group == "with A"].reset_index(drop=True),
        "centres": bins[group != "special D*"].reset_index(drop=True),
        "special": bins[group == "special D*"].reset_index(drop=True),
    }
    title = "Where the outputs 𝒜(D) fall"
    chart = distributions.chart(title, datasets, _distribution_layers, height=height)
    return chart, hist.assign(count=hist["count"].map(str))  # exact integers, as text


def _distribution_layers() -> list[Any]:
    """The distribution chart's line at 𝒜 = 1, the boxes (without A), the bar tops (with A),
    the spike of D*, each bin's marker and D*'s star with its label."""
    looks = {
        WITHOUT_A: Look(style.BLUE, shape="circle"),
        WITH_A: Look(style.ORANGE, shape="diamond"),
        SPECIAL: Look(style.VERMILLION, shape=STAR),
    }
    legend = {"title": None, "symbolSize": 160, "symbolStrokeWidth": 1}
    groups = distributions.looks("group", looks, "color", "shape", legend=legend)
    x_title = "output 𝒜(D) = 1 / Σ x (log scale)"
    x = curves.quantity(alt.X, "value_min", x_title, log=True, padding=24)
    at = curves.quantity(alt.X, "centre", x_title, log=True, padding=24)
    y_title = "probability over D (log scale)"
    y = curves.quantity(alt.Y, "probability", y_title, log=True, domainMax=1.12)
    one = alt.XDatum(1.0, type="quantitative")  # 𝒜 = 1: every ordinary output is at most 1
    text: dict[str, Any] = {"align": "right", "fontSize": 14}
    label = alt.Chart().mark_text(baseline="top", dx=-4, dy=4, **text)
    dotted: dict[str, Any] = {"color": style.GREY, "strokeDash": DASH["dot"], "strokeWidth": 2}
    star = alt.Chart().mark_point(filled=True, opacity=1, size=400, stroke=style.INK, strokeWidth=1)
    return [
        distributions.rule(
            one, label=label.encode(x=one, y=alt.value(0), text=alt.value("𝒜 = 1")), **dotted
        ),
        distributions.bins(
            "boxes",
            x,
            "value_max",
            y,
            "floor",
            fill=style.BLUE,
            fillOpacity=0.3,
            stroke=style.BLUE,
            strokeWidth=1.5,
        ),
        distributions.interval("tops", x, "value_max", y, color=style.ORANGE, strokeWidth=3.5),
        distributions.interval("special", y, "floor", x, color=style.VERMILLION, strokeWidth=6),
        curves.markers("centres", 60, stroke="white", strokeWidth=1).encode(
            x=at,
            y=y,
            **groups,
            tooltip=[
                alt.Tooltip("group:N", title="bin"),
                alt.Tooltip("top_bit:Q", title="top bit (power of 2)"),
                alt.Tooltip("range:N", title="𝒜(D)"),
                alt.Tooltip("halves:N", title="halves in this bin"),
                alt.Tooltip("probability:Q", title="probability", format=".4~g"),
            ],
        ),
        alt.layer(
            star.encode(
                x=at,
                y=y,
                **groups,
                tooltip=[
                    alt.Tooltip("group:N", title="bin"),
                    alt.Tooltip("range:N", title="𝒜(D*) = 1/√p"),
                    alt.Tooltip("halves:N", title="halves"),
                    alt.Tooltip("probability:Q", title="probability p", format=".4~g"),
                ],
            ),
            alt.Chart()
            .mark_text(baseline="bottom", dx=-10, dy=-10, **text)
            .encode(x=at, y=y, text=alt.value("D*: one half, 𝒜 = 1/√p")),
            data=alt.NamedData("special"),
        ),
    ]
