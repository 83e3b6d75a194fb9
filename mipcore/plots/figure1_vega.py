"""Figure 1 of the paper, drawn by Vega-Lite through Altair (:mod:`mipcore.plots.curves`):
the noise that certifies η-MIP, directly or through DP, and how many times more DP needs.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.1. The builders draw a :class:`mipcore.experiments.figure1.Figure1View` and compute
none of the mathematics: each returns a :class:`~mipcore.plots.vega.VegaLiteChart` and the
view's table it draws (the page's CSV).

The specification depends only on the chart's look (the n chosen, M and C, log axes, the cap
and the certified curves switched on or off: the arguments of ``_noise_layers`` and
``_ratio_layers`` and the title), never on the η range: the range is in the data.
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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from ..experiments.figure1 import Crossing, CrossKind, Figure1View, NoiseRow
from . import style
from .curves import Look, by, chart, dataset, markers, quantity, rule
from .formatting import fmt_num
from .vega import DASH, STAR, VegaLiteChart, every_other

__all__ = [
    "PALETTE",
    "colour_of",
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


def _peak(r: NoiseRow) -> tuple[int, float, float, str]:
    """A peak marker: n, η, the largest DP ÷ printed MIP ratio and its hover text."""
    eta, ratio = r.crossover.best_eta, r.crossover.best_ratio
    text = f"n = {r.n}: largest ratio, DP needs {fmt_num(ratio, 3)}× the printed MIP noise at η = {fmt_num(eta)}"
    return r.n, eta, ratio, text


def _frame(parts: list[dict[str, Any]], columns: dict[str, str]) -> pd.DataFrame:
    """The rows of ``parts`` (maybe none) as one table with exactly these columns and types.

    Each part maps a column to an array, or to one value repeated over the part's rows; the
    columns are joined as arrays and typed once (a table of small tables, concatenated and
    retyped, cost most of a press on the noise page)."""
    if not parts:  # typed empty columns (a frame of empty Series cost 4x as much)
        parts, rows = [{k: np.empty(0, dtype=object) for k in columns}], [0]
    else:
        rows = [
            max(np.size(v) for v in p.values() if np.ndim(v))
            if any(np.ndim(v) for v in p.values())
            else 1
            for p in parts
        ]
    data = {
        k: np.concatenate(
            [
                np.asarray(p[k]) if np.ndim(p[k]) else np.full(m, p[k], dtype=object)
                for p, m in zip(parts, rows, strict=True)
            ]
        )
        for k in columns
    }
    # each column typed on its own (a frame of object columns retyped as a whole cost 4x)
    return pd.DataFrame(
        {
            k: pd.array(v, dtype="str") if columns[k] == "str" else np.asarray(v, columns[k])
            for k, v in data.items()
        },
        copy=False,
    )


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


def _colours(ns: Sequence[int]) -> dict[str, str]:
    """Each n's label and colour, in the order of ``ns``."""
    col = colour_of(ns)
    return {_label(n): col[n] for n in ns}


def _points(what: str, y: str, rows: Iterable[tuple[int, float, float, str]]) -> pd.DataFrame:
    """Markers ``what`` at (n, η, ``y``, hover text) as the table ``size, what, eta, y, text``."""
    return _frame(
        [
            {"size": _label(n), "what": what, "eta": float(e), y: float(v), "text": t}
            for n, e, v, t in rows
        ],
        {"size": "str", "what": "str", "eta": "float64", y: "float64", "text": "str"},
    )


def _eta_x(log_x: bool) -> Any:
    """The η axis: no domain in the specification, so it spans the η of the data."""
    title = "η (attacker's edge over guessing" + ("; log scale)" if log_x else ")")
    return quantity(alt.X, "eta", title, log=log_x, zero=False)


def _outlined(name: str, size: int, x: Any, y: Any, shape: Any, fill: Any) -> alt.Chart:
    """Diamonds or stars from dataset ``name``, filled by ``fill`` and outlined in ink."""
    return markers(name, size, stroke=style.INK, strokeWidth=1.5).encode(
        x=x, y=y, shape=shape, fill=fill, tooltip=[alt.Tooltip("text:N", title="marker")]
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
    the page's caption names the DP curves entirely above it.
    """
    table = view.curves
    ns = tuple(r.n for r in view.rows)
    methods = [("mip_paper", _printed_name(view.constant), "solid")]
    if show_certified:
        methods.append(("mip_certified", CERTIFIED, "dot"))
    methods.append(("dp", DP, "dash"))
    n_col = table["n"].to_numpy()
    eta = table["eta"].to_numpy(dtype=float)
    top = view.y_top
    frames = []
    for n in ns:
        rows = n_col == n
        for column, name, _dash in methods:
            ys = table[column].to_numpy(dtype=float)[rows]
            xs = eta[rows]
            ok = np.isfinite(ys) & np.isfinite(xs) & ((ys > 0) | (not log_y))
            xs, ys = xs[ok], ys[ok]
            pieces = _clip_below(xs, ys, top, log_x, log_y) if top is not None else [(xs, ys)]
            for part, (px, py) in enumerate(pieces):
                keep = every_other(py.size)
                frames.append(
                    {
                        "n": n,
                        "size": _label(n),
                        "method": name,
                        "part": part,
                        "eta": px[keep],
                        "noise": py[keep],
                    }
                )
    columns = {"n": "int64", "size": "str", "method": "str", "part": "int64"}
    data = {
        "curves": _frame(frames, {**columns, "eta": "float64", "noise": "float64"}),
        "crossings": _points(
            CROSSOVER, "noise", ((c.n, c.eta, c.scale, _crossing_text(c)) for c in view.crossings)
        ),
    }
    dashes = tuple((name, dash) for _c, name, dash in methods)
    key = (
        {label: Look(c) for label, c in _colours(ns).items()}
        | {name: Look(style.INK, dash) for name, dash in dashes}
        | {CROSSOVER: Look(style.INK, shape="diamond")}
    )
    title = f"Noise needed to certify η-MIP (M = {view.M}, C = {view.constant:g})"
    look = (ns, dashes, log_x, log_y, view.y_top is None)
    return chart(title, data, _noise_layers, *look, height=height, key=key), table


def _noise_layers(
    ns: tuple[int, ...], dashes: tuple[tuple[str, str], ...], log_x: bool, log_y: bool, nice: bool
) -> list[Any]:
    """The noise chart's lines (colour by n, dash by method) and crossover diamonds."""
    colours = _colours(ns)
    x = _eta_x(log_x)
    y_title = "Laplace noise scale (lower is better)"
    y = quantity(alt.Y, "noise", y_title, log=log_y, zero=True, nice=nice)
    lines = (
        dataset("curves")
        .mark_line(clip=True, strokeWidth=2.5)
        .encode(
            x=x,
            y=y,
            color=by(alt.Color, "size", colours),
            strokeDash=by(alt.StrokeDash, "method", {k: DASH[d] for k, d in dashes}),
            detail=alt.Detail("part:N"),
            tooltip=[
                alt.Tooltip("method:N", title="curve"),
                alt.Tooltip("n:Q", title="n"),
                alt.Tooltip("eta:Q", title="η", format=".4~g"),
                alt.Tooltip("noise:Q", title="noise scale", format=".4~g"),
            ],
        )
    )
    shape = by(alt.Shape, "what", {CROSSOVER: "diamond"})
    return [lines, _outlined("crossings", 160, x, y, shape, by(alt.Fill, "size", colours))]


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
    ns = tuple(r.n for r in view.rows)
    n_col = table["n"].to_numpy()
    eta = table["eta"].to_numpy(dtype=float)
    printed, flat, circles = [], [], []
    for n in ns:
        rows = n_col == n
        x = eta[rows]
        r = table["ratio_dp_over_mip"].to_numpy(dtype=float)[rows]
        ok = np.isfinite(r) & (r > 0)
        keep = every_other(int(ok.sum()))
        printed.append({"n": n, "size": _label(n), "eta": x[ok][keep], "ratio": r[ok][keep]})
        if show_certified:
            c = table["ratio_dp_over_certified"].to_numpy(dtype=float)[rows]
            ok = np.isfinite(c) & (c > 0)
            xc, c = x[ok], c[ok]
            if c.size and np.ptp(c) <= 1e-12 * float(np.max(np.abs(c))):
                keep = np.zeros(c.size, dtype=bool)
                keep[[0, -1]] = True
            else:
                keep = every_other(c.size)
            same = {"n": n, "size": _label(n), "what": FLAT}
            flat.append({**same, "eta": xc[keep], "ratio": c[keep]})
            picks = np.unique(np.round(np.linspace(0, c.size - 1, _MARKERS)).astype(int))
            circles.append({**same, "eta": xc[picks], "ratio": c[picks]})
    columns = {"n": "int64", "size": "str", "eta": "float64", "ratio": "float64"}
    peaks = [_peak(r) for r in view.peaks if 0 < r.crossover.best_ratio < math.inf]
    datasets = {
        "printed": _frame(printed, columns),
        "crossings": _points(
            CROSSOVER, "ratio", ((c.n, c.eta, 1.0, _crossing_text(c)) for c in view.crossings)
        ),
        "peaks": _points(PEAK, "ratio", peaks),
    }
    if show_certified:
        datasets["certified"] = _frame(flat, {**columns, "what": "str"})
        datasets["circles"] = _frame(circles, {**columns, "what": "str"})
    key = (
        {
            f"{label}: MIP as printed": Look(c, style.dashes(i))
            for i, (label, c) in enumerate(_colours(ns).items())
        }
        | ({FLAT + ", thin line": Look(style.INK, shape="circle")} if show_certified else {})
        | {CROSSOVER: Look(style.INK, shape="diamond"), PEAK: Look(style.INK, shape=STAR)}
    )
    title = "How many times more noise DP needs than MIP"
    look = (ns, log_x, show_certified)
    return chart(title, datasets, _ratio_layers, *look, height=height, key=key), table


def _ratio_layers(ns: tuple[int, ...], log_x: bool, show_certified: bool) -> list[Any]:
    """The ratio chart's equal-noise line, printed ratios (colour and dash by n), certified
    ratios (thin, with open circles), crossover diamonds and peak stars."""
    colours = _colours(ns)
    dashes = {label: DASH[style.dashes(i)] for i, label in enumerate(colours)}
    x = _eta_x(log_x)
    y = quantity(alt.Y, "ratio", "DP noise ÷ MIP noise (log scale)", log=True, padding=12)
    shapes = ({FLAT: "circle"} if show_certified else {}) | {CROSSOVER: "diamond", PEAK: STAR}
    colour = by(alt.Color, "size", colours)
    tooltip = [
        alt.Tooltip("n:Q", title="n"),
        alt.Tooltip("eta:Q", title="η", format=".4~g"),
        alt.Tooltip("ratio:Q", title="DP needs this many times the MIP noise", format=".4~g"),
    ]
    equal = rule(  # the equal-noise line and its label: no table
        1.0,
        "equal noise: above, MIP is cheaper",
        colour=style.INK,
        dash="dash",
        width=1.5,
        align="right",
        baseline="bottom",
        dx=-4,
        dy=-4,
        fontSize=14,
    )
    layers: list[Any] = [
        equal,
        dataset("printed")
        .mark_line(clip=True, strokeWidth=2.5)
        .encode(
            x=x,
            y=y,
            color=colour,
            strokeDash=by(alt.StrokeDash, "size", dashes),
            tooltip=[alt.Tooltip("size:N", title="printed MIP noise"), *tooltip[1:]],
        ),
    ]
    if show_certified:
        curve_tip = [alt.Tooltip("what:N", title="curve"), *tooltip]
        layers += [
            dataset("certified")
            .mark_line(clip=True, strokeWidth=1.5)
            .encode(x=x, y=y, color=colour, tooltip=curve_tip),
            markers("circles", 70, filled=False, strokeWidth=2).encode(
                x=x, y=y, color=colour, shape=by(alt.Shape, "what", shapes), tooltip=curve_tip
            ),
        ]
    shape, fill = by(alt.Shape, "what", shapes), by(alt.Fill, "size", colours)
    return [
        *layers,
        _outlined("crossings", 160, x, y, shape, fill),
        _outlined("peaks", 220, x, y, shape, fill),
    ]
