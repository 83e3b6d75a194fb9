"""Figure 1 of the paper, drawn by Vega-Lite: the noise that certifies η-MIP, directly or
through DP, and how many times more DP needs.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.1. The builders draw a :class:`mipcore.lessons.figure1.Figure1View` and compute
none of the mathematics: each returns a :class:`~mipcore.plots.vega.VegaLiteChart` and the
view's table it draws (the page's CSV).

The specification depends only on the chart's look (the n chosen, M and C, log axes, the cap
and the certified curves switched on or off), never on the η range: the range is in the data.
Every curve spans the range's grid, so the x-axis, whose scale has no fixed domain, runs from
the first to the last η drawn; with the cap, each curve is cut where it leaves the plot (the
point where it crosses the cap is added), so the y-axis ends at the cap with no domain in the
specification either. Moving the η range therefore only changes the tables, and Streamlit
redraws the charts in place.

Style (:mod:`mipcore.plots.style`): one colour per n; in the noise chart the line style tells
the method (the printed MIP noise solid, the smallest certified MIP noise dotted, DP dashed);
in the ratio chart each n has its own dash as well, the certified ratio is a thin line with
open circles; crossovers are diamonds, the largest ratios stars. Legends below the plot.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..lessons.figure1 import Crossing, CrossKind, Figure1View, Peak
from . import style
from .formatting import fmt_num
from .vega import DASH, STAR, VegaLiteChart, by_field, every_other, layered, power_axis

__all__ = [
    "PALETTE",
    "colour_of",
    "noise_caption",
    "noise_vega",
    "ratio_vega",
]

#: One colour per n (the page allows at most eight n): Okabe-Ito, then grey.
PALETTE = (*style.SEQUENCE, style.GREY)
PRINTED = "MIP, Theorem 9 as printed"
CERTIFIED = "MIP, smallest certified noise (½(1 − exp(−1/c)) bound)"
DP = "DP (Laplace + Theorem 4)"
CROSSOVER = "crossover (printed MIP = DP)"
PEAK = "largest ratio (printed MIP)"
FLAT = "MIP, smallest certified noise"
_MARKERS = 9  # open circles on each certified ratio line


def colour_of(ns: Sequence[int]) -> dict[int, str]:
    """The colour of each n (in increasing order of n), shared by both charts."""
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(sorted(set(ns)))}


def _label(n: int) -> str:
    return f"n = {n}"


def _printed_name(constant: float) -> str:
    return f"{PRINTED} (Cor. 14)" if constant < 7.5 else f"{PRINTED} (C = 7.5)"


def _crossing_text(c: Crossing) -> str:
    what = (
        "MIP cheaper to the right"
        if c.kind is CrossKind.MIP_CHEAPER_ABOVE
        else "DP cheaper again to the right"
    )
    return (
        f"n = {c.n}: MIP and DP need the same noise ({fmt_num(c.scale)}) "
        f"at η = {fmt_num(c.eta)}; {what}"
    )


def _peak_text(p: Peak) -> str:
    return (
        f"n = {p.n}: largest ratio, DP needs {fmt_num(p.ratio, 3)}× "
        f"the printed MIP noise at η = {fmt_num(p.eta)}"
    )


def _frame(parts: list[pd.DataFrame], columns: dict[str, str]) -> pd.DataFrame:
    """The rows of ``parts`` (maybe none) as one table with exactly these columns and types."""
    empty = pd.DataFrame({k: pd.Series(dtype=v) for k, v in columns.items()})
    return pd.concat([empty, *parts], ignore_index=True)[list(columns)].astype(columns)


def _clip_below(
    x: np.ndarray, y: np.ndarray, top: float, log_x: bool, log_y: bool
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The pieces of the polyline (x, y) on or below ``top``, each ending on ``top`` where the
    line leaves the plot (the crossing point interpolated as drawn: in log units on a log
    axis). A grid point is in ``pieces`` unchanged."""
    fx: Callable[[Any], Any] = np.log10 if log_x else (lambda v: v)
    gx: Callable[[Any], Any] = (lambda v: 10.0**v) if log_x else (lambda v: v)
    fy: Callable[[Any], Any] = np.log10 if log_y else (lambda v: v)
    inside = y <= top * (1 + 1e-12)
    pieces = []
    i = 0
    while i < y.size:
        if not inside[i]:
            i += 1
            continue
        j = i
        while j + 1 < y.size and inside[j + 1]:
            j += 1
        xs, ys = list(x[i : j + 1]), list(y[i : j + 1])
        for a, b, at_start in ((i - 1, i, True), (j, j + 1, False)):
            if a >= 0 and b < y.size:
                t = (fy(top) - fy(y[a])) / (fy(y[b]) - fy(y[a]))
                cross = float(gx(fx(x[a]) + t * (fx(x[b]) - fx(x[a]))))
                if at_start:
                    xs.insert(0, cross)
                    ys.insert(0, top)
                else:
                    xs.append(cross)
                    ys.append(top)
        pieces.append((np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)))
        i = j + 1
    return pieces


def _eta_x(log_x: bool) -> dict[str, Any]:
    """The η axis: no domain in the specification, so it spans the η of the data."""
    title = "η (attacker's edge over guessing" + ("; log scale)" if log_x else ")")
    x: dict[str, Any] = {
        "field": "eta",
        "type": "quantitative",
        "title": title,
        "scale": {"nice": False},
    }
    if log_x:
        x["scale"]["type"] = "log"
        x["axis"] = power_axis()
    else:
        x["scale"]["zero"] = False
    return x


def _markers(
    name: str,
    y_field: str,
    shape_channel: dict[str, Any],
    fill_channel: dict[str, Any],
    x: dict[str, Any],
    y: dict[str, Any],
    size: int,
) -> dict[str, Any]:
    """Diamonds or stars at (eta, y_field) of dataset ``name``, filled in their n's colour."""
    return {
        "data": {"name": name},
        "mark": {
            "type": "point",
            "filled": True,
            "opacity": 1,
            "size": size,
            "stroke": style.INK,
            "strokeWidth": 1.5,
        },
        "encoding": {
            "x": x,
            "y": {**y, "field": y_field},
            "shape": shape_channel,
            "fill": fill_channel,
            "tooltip": [{"field": "text", "type": "nominal", "title": "marker"}],
        },
    }


def _key(entries: list[tuple[str, str, list[int], str]]) -> dict[str, Any]:
    """The chart's one legend, below the plot in one column: an invisible layer reading the
    dataset "key" (:func:`_key_table`) whose scales map each entry's label to its colour, dash
    and symbol (the drawn layers show no legend of their own, and the chart resolves these
    scales independently)."""
    labels = [e[0] for e in entries]
    legend = {"title": None, "symbolSize": 260, "symbolStrokeWidth": 2.5}
    return {
        "data": {"name": "key"},
        "mark": {"type": "point", "opacity": 0, "filled": False},
        "encoding": {
            "color": by_field("key", labels, [e[1] for e in entries], legend),
            "strokeDash": by_field("key", labels, [e[2] for e in entries], legend),
            "shape": by_field("key", labels, [e[3] for e in entries], legend),
        },
    }


def _key_table(key: dict[str, Any]) -> pd.DataFrame:
    """The rows of the key layer: one per legend entry."""
    return pd.DataFrame({"key": key["encoding"]["color"]["scale"]["domain"]}, dtype="str")


_INDEPENDENT = {
    "scale": {"color": "independent", "strokeDash": "independent", "shape": "independent"}
}


def noise_caption(view: Figure1View) -> str | None:
    """What the cap hides, for the noise chart's caption (None without the cap)."""
    if view.y_top is None:
        return None
    hidden = [str(r.row.n) for r in view.hidden]
    return (
        "y-axis capped at the printed MIP maximum; DP curves entirely above it: n = "
        + ", ".join(hidden)
        + "."
        if hidden
        else "y-axis capped at the printed MIP maximum; every DP curve enters the plot."
    )


def noise_vega(
    view: Figure1View,
    *,
    log_x: bool = False,
    log_y: bool = False,
    show_certified: bool = True,
    height: int = 340,
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Noise scale against η: per n the printed MIP noise (solid), the smallest certified MIP
    noise (dotted, if ``show_certified``) and DP's (dashed); crossovers as diamonds; and the
    table drawn, ``view.curves``.

    Smooth curves: every other grid point is drawn, and both ends. With ``view.y_top`` (the
    paper-like cap) each curve is cut where it rises above the cap, so the y-axis stops there;
    :func:`noise_caption` names the DP curves entirely above it.
    """
    table = view.curves
    ns = [r.row.n for r in view.rows]
    col = colour_of(ns)
    methods = [("mip_paper", _printed_name(view.constant), "solid")]
    if show_certified:
        methods.append(("mip_certified", CERTIFIED, "dot"))
    methods.append(("dp", DP, "dash"))
    n_col = table["n"].to_numpy()
    eta = table["eta"].to_numpy(dtype=float)
    frames = []
    for n in ns:
        rows = n_col == n
        for column, name, _dash in methods:
            ys = table[column].to_numpy(dtype=float)[rows]
            xs = eta[rows]
            ok = np.isfinite(ys) & np.isfinite(xs) & ((ys > 0) | (not log_y))
            xs, ys = xs[ok], ys[ok]
            top = view.y_top
            pieces = _clip_below(xs, ys, top, log_x, log_y) if top is not None else [(xs, ys)]
            for part, (px, py) in enumerate(pieces):
                keep = every_other(py.size)
                frames.append(
                    pd.DataFrame(
                        {
                            "n": n,
                            "size": _label(n),
                            "method": name,
                            "part": part,
                            "eta": px[keep],
                            "noise": py[keep],
                        }
                    )
                )
    curves = _frame(
        frames,
        {
            "n": "int64",
            "size": "str",
            "method": "str",
            "part": "int64",
            "eta": "float64",
            "noise": "float64",
        },
    )
    crossings = _frame(
        [
            pd.DataFrame(
                {
                    "size": [_label(c.n)],
                    "what": CROSSOVER,
                    "eta": [float(c.eta)],
                    "noise": [float(c.scale)],
                    "text": [_crossing_text(c)],
                }
            )
            for c in view.crossings
        ],
        {"size": "str", "what": "str", "eta": "float64", "noise": "float64", "text": "str"},
    )

    labels = [_label(n) for n in ns]
    colours = [col[n] for n in ns]
    names = [name for _c, name, _d in methods]
    x = _eta_x(log_x)
    y: dict[str, Any] = {
        "field": "noise",
        "type": "quantitative",
        "title": "Laplace noise scale (lower is better)",
        "scale": {"nice": view.y_top is None},
    }
    if log_y:
        y["scale"]["type"] = "log"
        y["axis"] = power_axis()
    else:
        y["scale"]["zero"] = True
    lines = {
        "data": {"name": "curves"},
        "mark": {"type": "line", "clip": True, "strokeWidth": 2.5},
        "encoding": {
            "x": x,
            "y": y,
            "color": by_field("size", labels, colours, None),
            "strokeDash": by_field("method", names, [DASH[d] for _c, _n, d in methods], None),
            "detail": {"field": "part", "type": "nominal"},
            "tooltip": [
                {"field": "method", "type": "nominal", "title": "curve"},
                {"field": "n", "type": "quantitative", "title": "n"},
                {"field": "eta", "type": "quantitative", "title": "η", "format": ".4~g"},
                {
                    "field": "noise",
                    "type": "quantitative",
                    "title": "noise scale",
                    "format": ".4~g",
                },
            ],
        },
    }
    shape = by_field("what", [CROSSOVER], ["diamond"], None)
    marks = _markers(
        "crossings", "noise", shape, by_field("size", labels, colours, None), x, y, 160
    )
    key = _key(
        [(label, c, DASH["solid"], "stroke") for label, c in zip(labels, colours, strict=True)]
        + [(name, style.INK, DASH[d], "stroke") for _c, name, d in methods]
        + [(CROSSOVER, style.INK, DASH["solid"], "diamond")]
    )
    title = f"Noise needed to certify η-MIP (M = {view.M}, C = {view.constant:g})"
    spec = layered(title, [lines, marks, key], height=height, resolve=_INDEPENDENT)
    chart = VegaLiteChart(
        spec=spec,
        datasets={"curves": curves, "crossings": crossings, "key": _key_table(key)},
        title=title,
    )
    return chart, table


def ratio_table(view: Figure1View) -> pd.DataFrame:
    """The ratio chart's table: ``n, eta, ratio_dp_over_mip, ratio_dp_over_certified``."""
    return view.curves[["n", "eta", "ratio_dp_over_mip", "ratio_dp_over_certified"]]


def ratio_vega(
    view: Figure1View, *, log_x: bool = False, show_certified: bool = True, height: int = 300
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """How many times more noise DP needs than MIP, against η (log y), and the table drawn
    (:func:`ratio_table`).

    The printed MIP noise: a line per n (colour and dash by n; every other grid point), its
    crossovers with 1 as diamonds and its largest ratio as stars. The smallest certified MIP
    noise (if ``show_certified``): a thin line per n with nine open circles, rising from
    Δ/(2σ_M) at small η towards Δ/σ_M as η → 1/2 (drawn from its two ends when it is flat to
    rounding). A dashed line marks equal noise.
    """
    table = ratio_table(view)
    ns = [r.row.n for r in view.rows]
    col = colour_of(ns)
    n_col = table["n"].to_numpy()
    eta = table["eta"].to_numpy(dtype=float)
    printed, flat, circles = [], [], []
    for n in ns:
        rows = n_col == n
        x = eta[rows]
        r = table["ratio_dp_over_mip"].to_numpy(dtype=float)[rows]
        ok = np.isfinite(r) & (r > 0)
        keep = every_other(int(ok.sum()))
        printed.append(
            pd.DataFrame({"n": n, "size": _label(n), "eta": x[ok][keep], "ratio": r[ok][keep]})
        )
        if show_certified:
            c = table["ratio_dp_over_certified"].to_numpy(dtype=float)[rows]
            ok = np.isfinite(c) & (c > 0)
            xc, c = x[ok], c[ok]
            if c.size and np.ptp(c) <= 1e-12 * float(np.max(np.abs(c))):
                keep = np.zeros(c.size, dtype=bool)
                keep[[0, -1]] = True
            else:
                keep = every_other(c.size)
            frame = pd.DataFrame({"n": n, "size": _label(n), "what": FLAT, "eta": xc, "ratio": c})
            flat.append(frame[keep])
            picks = np.unique(np.round(np.linspace(0, c.size - 1, _MARKERS)).astype(int))
            circles.append(frame.iloc[picks])
    columns = {"n": "int64", "size": "str", "eta": "float64", "ratio": "float64"}

    mark_cols = {"size": "str", "what": "str", "eta": "float64", "ratio": "float64", "text": "str"}
    crossings = _frame(
        [
            pd.DataFrame(
                {
                    "size": [_label(c.n)],
                    "what": CROSSOVER,
                    "eta": [float(c.eta)],
                    "ratio": 1.0,
                    "text": [_crossing_text(c)],
                }
            )
            for c in view.crossings
        ],
        mark_cols,
    )
    peaks = _frame(
        [
            pd.DataFrame(
                {
                    "size": [_label(p.n)],
                    "what": PEAK,
                    "eta": [float(p.eta)],
                    "ratio": [float(p.ratio)],
                    "text": [_peak_text(p)],
                }
            )
            for p in view.peaks
            if math.isfinite(p.ratio) and p.ratio > 0
        ],
        mark_cols,
    )
    datasets = {
        "printed": _frame(printed, columns),
        "crossings": crossings,
        "peaks": peaks,
    }

    labels = [_label(n) for n in ns]
    colours = [col[n] for n in ns]
    x = _eta_x(log_x)
    y = {
        "field": "ratio",
        "type": "quantitative",
        "title": "DP noise ÷ MIP noise (log scale)",
        "scale": {"type": "log", "nice": False, "padding": 12},
        "axis": power_axis(),
    }
    dashes = [DASH[style.dashes(i)] for i in range(len(ns))]
    shape = by_field(
        "what",
        ([FLAT] if show_certified else []) + [CROSSOVER, PEAK],
        (["circle"] if show_certified else []) + ["diamond", STAR],
        None,
    )
    key = _key(
        [
            (f"{label}: MIP as printed", c, d, "stroke")
            for label, c, d in zip(labels, colours, dashes, strict=True)
        ]
        + ([(FLAT + ", thin line", style.INK, DASH["solid"], "circle")] if show_certified else [])
        + [(CROSSOVER, style.INK, DASH["solid"], "diamond"), (PEAK, style.INK, DASH["solid"], STAR)]
    )
    fill = by_field("size", labels, colours, None)
    tooltip = [
        {"field": "n", "type": "quantitative", "title": "n"},
        {"field": "eta", "type": "quantitative", "title": "η", "format": ".4~g"},
        {
            "field": "ratio",
            "type": "quantitative",
            "title": "DP needs this many times the MIP noise",
            "format": ".4~g",
        },
    ]
    equal = {
        "data": {"values": [{}]},  # one rule and its label: no table
        "layer": [
            {
                "mark": {
                    "type": "rule",
                    "color": style.INK,
                    "strokeDash": DASH["dash"],
                    "strokeWidth": 1.5,
                },
                "encoding": {"y": {"datum": 1.0, "type": "quantitative"}},
            },
            {
                "mark": {
                    "type": "text",
                    "align": "right",
                    "baseline": "bottom",
                    "dx": -4,
                    "dy": -4,
                    "fontSize": 14,
                },
                "encoding": {
                    "x": {"value": "width"},
                    "y": {"datum": 1.0, "type": "quantitative"},
                    "text": {"value": "equal noise: above, MIP is cheaper"},
                },
            },
        ],
    }
    layers: list[dict[str, Any]] = [
        equal,
        {
            "data": {"name": "printed"},
            "mark": {"type": "line", "clip": True, "strokeWidth": 2.5},
            "encoding": {
                "x": x,
                "y": y,
                "color": by_field("size", labels, colours, None),
                "strokeDash": by_field("size", labels, dashes, None),
                "tooltip": [
                    {"field": "size", "type": "nominal", "title": "printed MIP noise"},
                    *tooltip[1:],
                ],
            },
        },
    ]
    if show_certified:
        datasets["certified"] = _frame(flat, {**columns, "what": "str"})
        datasets["circles"] = _frame(circles, {**columns, "what": "str"})
        layers += [
            {
                "data": {"name": "certified"},
                "mark": {"type": "line", "clip": True, "strokeWidth": 1.5},
                "encoding": {
                    "x": x,
                    "y": y,
                    "color": by_field("size", labels, colours, None),
                    "tooltip": [
                        {"field": "what", "type": "nominal", "title": "curve"},
                        *tooltip,
                    ],
                },
            },
            {
                "data": {"name": "circles"},
                "mark": {
                    "type": "point",
                    "filled": False,
                    "opacity": 1,
                    "size": 70,
                    "strokeWidth": 2,
                },
                "encoding": {
                    "x": x,
                    "y": y,
                    "color": by_field("size", labels, colours, None),
                    "shape": shape,
                    "tooltip": [
                        {"field": "what", "type": "nominal", "title": "curve"},
                        *tooltip,
                    ],
                },
            },
        ]
    layers += [
        _markers("crossings", "ratio", shape, fill, x, y, 160),
        _markers("peaks", "ratio", shape, fill, x, y, 220),
        key,
    ]
    title = "How many times more noise DP needs than MIP"
    datasets["key"] = _key_table(key)
    spec = layered(title, layers, height=height, resolve=_INDEPENDENT)
    return VegaLiteChart(spec=spec, datasets=datasets, title=title), table
