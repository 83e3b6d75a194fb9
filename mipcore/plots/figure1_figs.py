"""Figures for Figure 1 of the paper: the noise that certifies η-MIP, directly or through DP.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.1. The builders draw a :class:`mipcore.lessons.figure1.Figure1View` and compute
none of the mathematics: a figure shows exactly the view's table (which the page offers as
CSV). Style (:mod:`mipcore.plots.style`): one colour per n; the line style tells the method --
the printed MIP noise solid, the smallest certified MIP noise dotted, DP dashed; legends below.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..lessons.figure1 import Crossing, CrossKind, Figure1View, Peak
from . import style
from .formatting import fmt_num

__all__ = ["PALETTE", "colour_of", "noise_figure", "ratio_figure"]

#: One colour per n (the page allows at most eight n): Okabe-Ito, then grey.
PALETTE = (*style.SEQUENCE, style.GREY)
_PRINTED = "MIP, Theorem 9 as printed"
_CERTIFIED = "MIP, smallest certified noise (½·tanh(1/c) bound)"
_DP = "DP (Laplace + Theorem 4)"


def _layout(*, title: str, subtitle: str | None, legend_y: float, **extra: Any) -> dict[str, Any]:
    """:func:`style.layout` with a subtitle line (Plotly's own, ink colour) and the legend
    far enough below the plot to clear the x-axis title when the legend takes several rows."""
    lay = style.layout(title=title, **extra)
    if subtitle:
        lay["title"]["subtitle"] = dict(text=subtitle, font=dict(size=14, color=style.INK))
        lay["margin"] = {**lay["margin"], "t": 84}
    lay["legend"] = {**lay["legend"], "y": legend_y}
    return lay


def colour_of(ns: Sequence[int]) -> dict[int, str]:
    """The colour of each n (in increasing order of n), shared by both figures."""
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(sorted(set(ns)))}


def _printed_name(constant: float) -> str:
    return f"{_PRINTED} (Cor. 14)" if constant < 7.5 else f"{_PRINTED} (C = 7.5)"


def _log_ticks(lo: float, hi: float) -> dict[str, Any]:
    """Log-axis ticks at full size: powers of ten over wide ranges; 1-2-5 steps over narrow
    ones (so a range inside one decade still gets labels, never small minor labels)."""
    span = math.log10(hi) - math.log10(lo)
    if span >= 2.5:
        return dict(dtick=max(1, math.ceil(span / 8)))
    vals = [
        m * 10.0**e
        for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
        for m in (1, 2, 5)
    ]
    vals = [v for v in vals if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
    return dict(tickvals=vals, ticktext=[fmt_num(v, 3) for v in vals])


def _eta_axis(log_x: bool, lo: float, hi: float) -> dict[str, Any]:
    title = "η (attacker's edge over guessing" + ("; log scale)" if log_x else ")")
    if log_x:
        return style.log_axis(title, range=[math.log10(lo), math.log10(hi)], **_log_ticks(lo, hi))
    return dict(title=dict(text=title), type="linear", range=[lo, hi])


def _key(name: str, dash: str, symbol: str | None = None) -> dict[str, Any]:
    """A legend-only entry (no data) explaining a line style, in ink colour."""
    return dict(
        type="scatter",
        x=[None],
        y=[None],
        mode="lines+markers" if symbol else "lines",
        name=name,
        line=dict(color=style.INK, dash=dash, width=2),
        marker=dict(symbol=symbol or "circle", size=8, color=style.INK),
        hoverinfo="skip",
        legendgroup="_key",
    )


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


def _markers(
    xs: list[float],
    ys: list[float],
    ns: list[int],
    texts: list[str],
    col: dict[int, str],
    *,
    name: str,
    symbol: str,
    size: int,
) -> dict[str, Any]:
    return dict(
        type="scatter",
        x=xs,
        y=ys,
        mode="markers",
        name=name,
        marker=dict(
            symbol=symbol,
            size=size,
            color=[col.get(n, style.INK) for n in ns],
            line=dict(color=style.INK, width=1.5),
        ),
        text=texts,
        hovertemplate="%{text}<extra></extra>",
    )


def noise_figure(
    view: Figure1View,
    *,
    log_x: bool = False,
    log_y: bool = False,
    show_certified: bool = True,
    height: int = 560,
) -> go.Figure:
    """Noise scale against η: per n the printed MIP noise (solid), the smallest certified MIP
    noise (dotted, if ``show_certified``) and DP's (dashed); crossovers as diamonds.

    With ``view.y_top`` (the paper-like cap) the y-axis stops there; the subtitle names the
    DP curves entirely above it.
    """
    cv = view.curves
    n_col = cv["n"].to_numpy()
    eta = cv["eta"].to_numpy(dtype=float)
    ns = [r.row.n for r in view.rows]
    col = colour_of(ns)
    methods = [("mip_paper", "solid", "Printed MIP"), ("dp", "dash", "DP")]
    if show_certified:
        methods.insert(1, ("mip_certified", "dot", "Certified MIP"))
    data: list[dict[str, Any]] = []
    drawn: list[np.ndarray] = []
    for n in ns:
        rows = n_col == n
        for column, dash, what in methods:
            y = cv[column].to_numpy(dtype=float)[rows]
            drawn.append(y)
            data.append(
                dict(
                    type="scatter",
                    x=eta[rows],
                    y=y,
                    mode="lines",
                    name=f"n = {n}",
                    legendgroup=f"n{n}",
                    showlegend=column == "mip_paper",
                    line=dict(color=col[n], dash=dash, width=2.5),
                    hovertemplate=(
                        f"<b>{what}</b>, n = {n}<br>η = %{{x:.4~g}}<br>"
                        "noise scale = %{y:.4~g}<extra></extra>"
                    ),
                )
            )
    if view.crossings:
        cs = view.crossings
        data.append(
            _markers(
                [c.eta for c in cs],
                [c.scale for c in cs],
                [c.n for c in cs],
                [_crossing_text(c) for c in cs],
                col,
                name="crossover (printed MIP = DP)",
                symbol="diamond",
                size=12,
            )
        )
    data.append(_key(_printed_name(view.constant), "solid"))
    if show_certified:
        data.append(_key(_CERTIFIED, "dot"))
    data.append(_key(_DP, "dash"))

    subtitle = None
    if log_y:
        values = np.concatenate(drawn)
        positive = values[values > 0]
        lo = float(positive.min()) if len(positive) else 1.0
        hi = float(values.max()) if view.y_top is None else view.y_top
        hi = max(hi, lo * 10)
        yaxis = style.log_axis(
            "Laplace noise scale (lower is better)",
            range=[math.log10(lo) - 0.1, math.log10(hi) + (0 if view.y_top else 0.1)],
            **_log_ticks(lo, hi),
        )
    else:
        yaxis = dict(title=dict(text="Laplace noise scale (lower is better)"))
        if view.y_top is not None:
            yaxis["range"] = [0.0, view.y_top]
    if view.y_top is not None:
        hidden = [str(r.row.n) for r in view.hidden]
        subtitle = (
            "y-axis capped at the printed MIP maximum; DP entirely above: n = " + ", ".join(hidden)
            if hidden
            else "y-axis capped at the printed MIP maximum; every DP curve enters the plot"
        )
    return go.Figure(
        data=data,
        layout=_layout(
            title=f"Noise needed to certify η-MIP (M = {view.M}, C = {view.constant:g})",
            subtitle=subtitle,
            legend_y=-0.3,
            height=height,
            hovermode="closest",
            xaxis=_eta_axis(log_x, view.eta_min, view.eta_max),
            yaxis=yaxis,
        ),
    )


def ratio_figure(
    view: Figure1View, *, log_x: bool = False, show_certified: bool = True, height: int = 480
) -> go.Figure:
    """How many times more noise DP needs than MIP, against η (log y), one line per n.

    The printed MIP noise: a line per n (colour and dash by n), its crossovers with 1 as
    diamonds and its largest ratio as stars. The smallest certified MIP noise (if
    ``show_certified``): a thin line with open circles per n, flat at Δ/(2σ_M).
    """
    cv = view.curves
    n_col = cv["n"].to_numpy()
    eta = cv["eta"].to_numpy(dtype=float)
    ns = [r.row.n for r in view.rows]
    col = colour_of(ns)
    data: list[dict[str, Any]] = []
    drawn: list[np.ndarray] = []
    for i, n in enumerate(ns):
        rows = n_col == n
        ratio = cv["ratio_dp_over_mip"].to_numpy(dtype=float)[rows]
        drawn.append(ratio)
        data.append(
            dict(
                type="scatter",
                x=eta[rows],
                y=ratio,
                mode="lines",
                name=f"n = {n}",
                legendgroup=f"n{n}",
                line=dict(color=col[n], dash=style.dashes(i), width=2.5),
                hovertemplate=(
                    f"n = {n}, printed MIP noise<br>η = %{{x:.4~g}}<br>DP needs %{{y:.4~g}}× "
                    "the MIP noise<extra></extra>"
                ),
            )
        )
        if show_certified:
            flat = cv["ratio_dp_over_certified"].to_numpy(dtype=float)[rows]
            drawn.append(flat)
            data.append(
                dict(
                    type="scatter",
                    x=eta[rows],
                    y=flat,
                    mode="lines+markers",
                    name=f"n = {n}, certified",
                    legendgroup=f"n{n}",
                    showlegend=False,
                    line=dict(color=col[n], width=1.5),
                    marker=dict(symbol="circle-open", size=8, color=col[n], maxdisplayed=10),
                    hovertemplate=(
                        f"n = {n}, smallest certified MIP noise<br>η = %{{x:.4~g}}<br>"
                        "DP needs %{y:.4~g}× the MIP noise<extra></extra>"
                    ),
                )
            )
    ups = view.crossings
    if ups:
        data.append(
            _markers(
                [c.eta for c in ups],
                [1.0] * len(ups),
                [c.n for c in ups],
                [_crossing_text(c) for c in ups],
                col,
                name="crossover",
                symbol="diamond",
                size=12,
            )
        )
    if view.peaks:
        ps = view.peaks
        data.append(
            _markers(
                [p.eta for p in ps],
                [p.ratio for p in ps],
                [p.n for p in ps],
                [_peak_text(p) for p in ps],
                col,
                name="largest ratio",
                symbol="star",
                size=13,
            )
        )
    data.append(_key(_printed_name(view.constant), "solid"))
    if show_certified:
        data.append(_key("MIP, smallest certified noise (flat)", "solid", "circle-open"))
    values = np.concatenate(drawn)
    values = values[np.isfinite(values) & (values > 0)]
    lo = min(float(values.min()), 1.0) if len(values) else 0.1
    hi = max(float(values.max()), 1.0) if len(values) else 10.0
    hi = max(hi, lo * 10)
    yaxis = style.log_axis(
        "DP noise ÷ MIP noise (log scale)",
        range=[math.log10(lo) - 0.2, math.log10(hi) + 0.2],
        **_log_ticks(lo, hi),
    )
    return go.Figure(
        data=data,
        layout=_layout(
            title="How many times more noise DP needs than MIP",
            subtitle=None,
            legend_y=-0.3,
            height=height,
            hovermode="closest",
            xaxis=_eta_axis(log_x, view.eta_min, view.eta_max),
            yaxis=yaxis,
            shapes=[
                dict(
                    type="line",
                    x0=0,
                    x1=1,
                    xref="x domain",
                    y0=1.0,
                    y1=1.0,
                    yref="y",
                    line=dict(color=style.INK, dash="dash", width=1.5),
                )
            ],
            annotations=[
                dict(
                    text="equal noise: above, MIP is cheaper",
                    showarrow=False,
                    font=dict(size=14, color=style.INK),
                    x=1,
                    xanchor="right",
                    xref="x domain",
                    y=0.0,  # log10(1): the annotation's y is in log units on a log axis
                    yanchor="bottom",
                    yref="y",
                )
            ],
        ),
    )
