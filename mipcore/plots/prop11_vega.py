"""Proposition 11's charts, drawn by Vega-Lite: the sensitivity explodes while the spread stays
about 1, and where the outputs 𝒜(D) fall.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Proposition 11 (Section 4) and Appendix D. The builders take the results of
:mod:`mipcore.prop11` (:func:`~mipcore.prop11.growth_table`, the binned distribution of 𝒜(D)
from :func:`~mipcore.prop11.value_histogram`) and return a
:class:`~mipcore.plots.vega.VegaLiteChart` and the table it draws (the page's CSV); they compute
none of the mathematics.

The page's n slider changes only the tables: the growth chart's specification depends on M
(its table's range), the distribution chart's on nothing at all (its axes span the data of
the chosen n), so Streamlit redraws both in place.

Style (:mod:`mipcore.plots.style`): Δ, what DP's noise is proportional to, in DP's style (blue,
dashed, squares); σ, what MIP's noise is proportional to, in MIP's (vermillion, solid,
circles); the exact ratio Δ/σ thick black with diamonds; the rate the paper promises in its
"printed" style (purple dash-dot, crosses); legends below.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import style
from .formatting import fmt_num
from .vega import DASH, SHAPE, STAR, VegaLiteChart, by_field, layered, power_axis

__all__ = ["distribution_vega", "growth_vega"]

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_MARKERS = 9  # markers on each growth curve (the second cue beside colour and dash)
GROWTH_COLUMNS = ("n", "sensitivity", "sigma", "ratio", "rate")
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
    ``sensitivity``, ``sigma``, ``ratio``, ``rate``, all positive), drawn every other row, both
    ends and ``n_chosen``; nine markers per curve. ``n_chosen`` is marked by a dotted line and,
    when it is in the table, by a marker on each measured curve. The specification depends on
    M and on the table's ranges, not on ``n_chosen``.
    """
    missing = [c for c in GROWTH_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the columns {missing}")
    if len(table) < 2:
        raise ValueError(f"table needs at least two rows, got {len(table)}")
    series = _series(M)
    n = table["n"].to_numpy()
    values = np.concatenate([table[c].to_numpy(dtype=float) for c, *_ in series])
    if not (np.all(np.isfinite(values)) and np.all(values > 0)):
        raise ValueError("the growth table must hold finite positive values only")
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
    domain = [label for _c, label, _s, _w in series]
    colours = [st.colour for _c, _l, st, _w in series]
    legend = {"title": None, "symbolType": "stroke", "symbolSize": 500}
    lo, hi = float(values.min()), float(values.max())
    x: dict[str, Any] = {
        "field": "n",
        "type": "quantitative",
        "title": "n (dataset size, even)",
        "scale": {"domain": [float(n.min()) - 2, float(n.max()) + 2], "nice": False},
    }
    y = {
        "field": "value",
        "type": "quantitative",
        "title": "value (log scale)",
        "scale": {"type": "log", "domain": [lo / 2, hi * 2], "nice": False},
        "axis": power_axis(**_sparse(lo / 2, hi * 2)),
    }
    tooltip = [
        {"field": "curve", "type": "nominal", "title": "curve"},
        {"field": "n", "type": "quantitative", "title": "n"},
        {"field": "value", "type": "quantitative", "title": "value", "format": ".4~g"},
    ]
    shapes = [SHAPE[str(st["symbol"])] for _c, _l, st, _w in series]
    layers: list[dict[str, Any]] = [
        {
            "data": {"name": "chosen_n"},
            "layer": [
                {
                    "mark": {
                        "type": "rule",
                        "color": style.GREY,
                        "strokeDash": DASH["dot"],
                        "strokeWidth": 2,
                    },
                    "encoding": {"x": x},
                },
            ],
        },
        *(
            {  # the label beside the line, on the side with room (the other table is empty)
                "data": {"name": f"label_{side}"},
                "mark": {
                    "type": "text",
                    "align": side,
                    "baseline": "top",
                    "dx": 4 if side == "left" else -4,
                    "dy": 4,
                    "fontSize": 14,
                    "color": style.INK,
                },
                "encoding": {
                    "x": x,
                    "y": {"value": 0},
                    "text": {"field": "label", "type": "nominal"},
                },
            }
            for side in ("left", "right")
        ),
        {
            "data": {"name": "curves"},
            "mark": {"type": "line", "clip": True},
            "encoding": {
                "x": x,
                "y": y,
                "color": by_field("curve", domain, colours, legend),
                "strokeDash": by_field(
                    "curve", domain, [DASH[str(st["dash"])] for _c, _l, st, _w in series], legend
                ),
                "strokeWidth": by_field("curve", domain, [w for *_x, w in series], legend),
                "tooltip": tooltip,
            },
        },
        {
            "data": {"name": "markers"},
            "mark": {"type": "point", "filled": True, "opacity": 1, "size": 60},
            "encoding": {
                "x": x,
                "y": y,
                "color": by_field("curve", domain, colours, legend),
                "shape": by_field("curve", domain, shapes, None),
                "tooltip": tooltip,
            },
        },
        {
            "data": {"name": "at_n"},
            "mark": {
                "type": "point",
                "filled": True,
                "opacity": 1,
                "size": 170,
                "stroke": "white",
                "strokeWidth": 2,
            },
            "encoding": {
                "x": x,
                "y": y,
                "color": by_field("curve", domain, colours, legend),
                "shape": by_field("curve", domain, shapes, None),
                "tooltip": tooltip,
            },
        },
    ]
    sig = "σ" + str(M).translate(_SUB)
    title = (
        "Δ explodes, σ₂ does not (log scale)"
        if M == 2
        else f"Δ, {sig} and Δ / {sig} against n (log scale; {sig} grows too)"
    )
    chart = VegaLiteChart(
        # the legend shows each curve's colour and dash; the markers' shapes repeat them
        spec=layered(title, layers, height=height, resolve={"scale": {"shape": "independent"}}),
        datasets={
            "curves": frame(lines),
            "markers": frame(marks),
            "at_n": frame(chosen),
            "chosen_n": rule,
            **labels,
        },
        title=title,
    )
    return chart, table


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

    ``histogram``: the rows of :func:`mipcore.prop11.value_histogram` (or a DataFrame of them).

    Each bin of "without A" is a box over its certified value range from the floor up to its
    probability, each bin of "with A" its top edge only (the groups overlap in value); a marker
    at each bin's geometric centre carries its exact count. The special half D* is a spike
    with a star at (1/√p, p). The floor is a decade below the smallest probability; the axes
    span the data, so the specification does not depend on n (the title does not name it).
    """
    hist = pd.DataFrame(histogram)
    cols = ("group", "top_bit", "value_min", "value_max", "count", "probability")
    missing = [c for c in cols if c not in hist.columns]
    if missing:
        raise ValueError(f"histogram lacks the columns {missing}")
    lo = hist["value_min"].to_numpy(dtype=float)
    hi = hist["value_max"].to_numpy(dtype=float)
    pr = hist["probability"].to_numpy(dtype=float)
    if not (len(hist) and np.all(lo > 0) and np.all(hi >= lo) and np.all(pr > 0)):
        raise ValueError("histogram needs rows with 0 < value_min <= value_max and probability > 0")
    if not np.all(np.isfinite(np.concatenate([lo, hi, pr]))):
        raise ValueError("histogram holds non-finite values")
    y_floor = 10.0 ** (math.floor(math.log10(float(pr.min()))) - 1)
    group = hist["group"].astype(str).to_numpy()
    unknown = sorted(set(group) - set(_GROUPS))
    if unknown:
        raise ValueError(f"unknown groups {unknown}")
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
    domain = list(_GROUPS.values())
    colours = [style.BLUE, style.ORANGE, style.VERMILLION]
    shapes = ["circle", "diamond", STAR]
    legend = {"title": None, "symbolSize": 160, "symbolStrokeWidth": 1}
    x = {
        "field": "value_min",
        "type": "quantitative",
        "title": "output 𝒜(D) = 1 / Σ x (log scale)",
        "scale": {"type": "log", "nice": False, "padding": 24},
        "axis": power_axis(),
    }
    y = {
        "field": "probability",
        "type": "quantitative",
        "title": "probability over D (log scale)",
        "scale": {"type": "log", "nice": False, "domainMax": 1.12},
        "axis": power_axis(),
    }
    at = {**x, "field": "centre"}
    tooltip = [
        {"field": "group", "type": "nominal", "title": "bin"},
        {"field": "top_bit", "type": "quantitative", "title": "top bit (power of 2)"},
        {"field": "range", "type": "nominal", "title": "𝒜(D)"},
        {"field": "halves", "type": "nominal", "title": "halves in this bin"},
        {"field": "probability", "type": "quantitative", "title": "probability", "format": ".4~g"},
    ]
    layers: list[dict[str, Any]] = [
        {
            "data": {"values": [{}]},  # 𝒜 = 1: every ordinary output is at most 1
            "layer": [
                {
                    "mark": {
                        "type": "rule",
                        "color": style.GREY,
                        "strokeDash": DASH["dot"],
                        "strokeWidth": 2,
                    },
                    "encoding": {"x": {"datum": 1.0, "type": "quantitative"}},
                },
                {
                    "mark": {
                        "type": "text",
                        "align": "right",
                        "baseline": "top",
                        "dx": -4,
                        "dy": 4,
                        "fontSize": 14,
                    },
                    "encoding": {
                        "x": {"datum": 1.0, "type": "quantitative"},
                        "y": {"value": 0},
                        "text": {"value": "𝒜 = 1"},
                    },
                },
            ],
        },
        {
            "data": {"name": "boxes"},
            "mark": {
                "type": "rect",
                "fill": style.BLUE,
                "fillOpacity": 0.3,
                "stroke": style.BLUE,
                "strokeWidth": 1.5,
            },
            "encoding": {
                "x": x,
                "x2": {"field": "value_max"},
                "y": y,
                "y2": {"field": "floor"},
            },
        },
        {
            "data": {"name": "tops"},
            "mark": {"type": "rule", "color": style.ORANGE, "strokeWidth": 3.5},
            "encoding": {"x": x, "x2": {"field": "value_max"}, "y": y},
        },
        {
            "data": {"name": "special"},
            "mark": {"type": "rule", "color": style.VERMILLION, "strokeWidth": 6},
            "encoding": {"x": x, "y": y, "y2": {"field": "floor"}},
        },
        {
            "data": {"name": "centres"},
            "mark": {
                "type": "point",
                "filled": True,
                "opacity": 1,
                "size": 60,
                "stroke": "white",
                "strokeWidth": 1,
            },
            "encoding": {
                "x": at,
                "y": y,
                "color": by_field("group", domain, colours, legend),
                "shape": by_field("group", domain, shapes, legend),
                "tooltip": tooltip,
            },
        },
        {
            "data": {"name": "special"},
            "layer": [
                {
                    "mark": {
                        "type": "point",
                        "filled": True,
                        "opacity": 1,
                        "size": 400,
                        "stroke": style.INK,
                        "strokeWidth": 1,
                    },
                    "encoding": {
                        "x": at,
                        "y": y,
                        "color": by_field("group", domain, colours, legend),
                        "shape": by_field("group", domain, shapes, legend),
                        "tooltip": [
                            {"field": "group", "type": "nominal", "title": "bin"},
                            {"field": "range", "type": "nominal", "title": "𝒜(D*) = 1/√p"},
                            {"field": "halves", "type": "nominal", "title": "halves"},
                            {
                                "field": "probability",
                                "type": "quantitative",
                                "title": "probability p",
                                "format": ".4~g",
                            },
                        ],
                    },
                },
                {
                    "mark": {
                        "type": "text",
                        "align": "right",
                        "baseline": "bottom",
                        "dx": -10,
                        "dy": -10,
                        "fontSize": 14,
                    },
                    "encoding": {
                        "x": at,
                        "y": y,
                        "text": {"value": "D*: one half, 𝒜 = 1/√p"},
                    },
                },
            ],
        },
    ]
    title = "Where the outputs 𝒜(D) fall"
    chart = VegaLiteChart(
        spec=layered(title, layers, height=height), datasets=datasets, title=title
    )
    return chart, hist.assign(count=hist["count"].map(str))  # exact integers, as text
