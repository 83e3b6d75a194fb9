"""Figures for Theorem 4 (DP -> MIP) and Theorem 8 (the ROC picture).

Source: ``000_ece03c98c31c7b12.txt`` Sections 3.4-3.5 and Appendices B-C.

The builders take numbers and arrays computed by :mod:`mipcore.bounds` and return
a :class:`plotly.graph_objects.Figure`; they compute nothing of the mathematics
themselves, so a figure always shows exactly the data handed to it (and the page
can offer that same data as CSV).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

__all__ = ["delta_label", "eta_epsilon_figure", "roc_figure"]

_GREY = "#8a8f98"
_DP = "#1f77b4"
_MIP = "#d62728"
_PRINTED = "#ff7f0e"
_CURVE_COLOURS = ["#4c78a8", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#9d755d", "#bab0ac"]


def delta_label(delta: float) -> str:
    """``'δ = 0'``, ``'δ = 10<sup>-5</sup>'``, ``'δ = 0.03'``: a legend label (Plotly HTML)."""
    d = float(delta)
    if d == 0.0:
        return "δ = 0"
    k = math.log10(d)
    if abs(k - round(k)) < 1e-9 and k <= -2:
        return f"δ = 10<sup>{int(round(k))}</sup>"
    if d < 1e-3:
        mant, exp = f"{d:.2e}".split("e")
        mant = mant.rstrip("0").rstrip(".")
        return f"δ = {mant}·10<sup>{int(exp)}</sup>"
    return f"δ = {d:.4g}"


def eta_epsilon_figure(
    epsilon: np.ndarray,
    curves: Sequence[tuple[str, np.ndarray]],
    *,
    point: tuple[float, float],
    chosen: str | None = None,
    approx: tuple[np.ndarray, np.ndarray] | None = None,
    height: int = 440,
) -> go.Figure:
    """eta against epsilon (Theorem 4), one line per delta, with the chosen point marked.

    Parameters
    ----------
    epsilon : 1-D array, the common epsilon grid of ``curves``.
    curves : ``(label, eta)`` pairs, ``eta`` an array over ``epsilon`` in ``[0, 1/2]``.
    point : ``(epsilon, eta)`` of the current setting, drawn as a marker.
    chosen : label of the curve to emphasise (the current delta).
    approx : optional ``(epsilon, eta)`` arrays of the small-epsilon approximation,
        drawn dashed.

    The right-hand axis reads the same height as the optimal attacker's accuracy
    ``1/2 + eta`` (Definition 1 with k = n/2).
    """
    eps = np.asarray(epsilon, dtype=float)
    fig = go.Figure()
    for i, (label, eta) in enumerate(curves):
        eta = np.asarray(eta, dtype=float)
        emph = label == chosen
        fig.add_trace(go.Scatter(
            x=eps, y=eta, mode="lines", name=label + (" (chosen)" if emph else ""),
            line=dict(color="#111111" if emph else _CURVE_COLOURS[i % len(_CURVE_COLOURS)],
                      width=3.5 if emph else 1.8),
            customdata=100.0 * (0.5 + eta),
            hovertemplate=(f"{label}<br>ε = %{{x:.3g}}<br>η = %{{y:.4g}}"
                           "<br>attacker accuracy ≤ %{customdata:.2f} %<extra></extra>"),
        ))
    if approx is not None:
        ax, ay = (np.asarray(a, dtype=float) for a in approx)
        fig.add_trace(go.Scatter(
            x=ax, y=ay, mode="lines", name="small-ε approximation δ/2 + (1−δ)ε/4",
            line=dict(color="#111111", width=1.5, dash="dash"),
            hovertemplate="approximation<br>ε = %{x:.3g}<br>η ≈ %{y:.4g}<extra></extra>",
        ))
    pe, pn = float(point[0]), float(point[1])
    fig.add_trace(go.Scatter(
        x=[pe], y=[pn], mode="markers", name="your (ε, δ)",
        marker=dict(size=13, color=_MIP, line=dict(color="white", width=2)),
        customdata=[100.0 * (0.5 + pn)],
        hovertemplate=("your setting<br>ε = %{x:.4g}<br>η = %{y:.4g}"
                       "<br>attacker accuracy ≤ %{customdata:.2f} %<extra></extra>"),
    ))
    x_max = float(eps.max()) if eps.size else 1.0
    # Invisible trace that makes Plotly draw the secondary (accuracy) axis.
    fig.add_trace(go.Scatter(x=[0.0, x_max], y=[50.0, 100.0], yaxis="y2", mode="lines",
                             line=dict(width=0), opacity=0, hoverinfo="skip", showlegend=False))
    fig.add_hline(y=0.5, line_dash="dot", line_color=_GREY,
                  annotation_text="η = 1/2: no privacy", annotation_position="bottom right")
    fig.update_layout(
        title="Theorem 4: the MIP level η implied by (ε, δ)-DP",
        xaxis=dict(title="ε", range=[0.0, x_max]),
        yaxis=dict(title="η (attacker's edge over guessing)", range=[0.0, 0.52]),
        yaxis2=dict(title="best attacker accuracy (%)", overlaying="y", side="right",
                    range=[50.0, 102.0], showgrid=False),
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0.0),
        height=height, margin=dict(l=10, r=10, t=50, b=10), hovermode="closest",
    )
    return fig


def roc_figure(
    fpr: np.ndarray,
    *,
    tpr_dp: np.ndarray,
    tpr_mip: np.ndarray,
    tpr_mip_printed: np.ndarray | None = None,
    touch: tuple[float, float] | None = None,
    log_axes: bool = False,
    title: str | None = None,
    height: int = 440,
) -> go.Figure:
    """The ROC regions allowed by eta-MIP and by (epsilon, delta)-DP.

    Parameters
    ----------
    fpr : 1-D increasing array of false-positive rates in ``[0, 1]`` (all ``> 0``
        when ``log_axes``).
    tpr_dp : largest TPR at each FPR under (epsilon, delta)-DP.
    tpr_mip : largest TPR at each FPR under eta-MIP.
    tpr_mip_printed : optional, the bound as printed in Theorem 8 (dashed).
    touch : optional ``(fpr, tpr)`` where the two boundaries touch (marked).
    log_axes : log-log axes, to read the low-FPR regime (as in Carlini et al. 2022).

    Every attacker's (FPR, TPR) lies on or below a boundary; the diagonal is
    random guessing.
    """
    x = np.asarray(fpr, dtype=float)
    fill = None if log_axes else "tozeroy"
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=x, y=np.asarray(tpr_mip, dtype=float), mode="lines", name="η-MIP: TPR ≤ min(1, FPR + 2η)",
        line=dict(color=_MIP, width=2.5), fill=fill, fillcolor="rgba(214,39,40,0.10)",
        hovertemplate="η-MIP<br>FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=x, y=np.asarray(tpr_dp, dtype=float), mode="lines", name="(ε, δ)-DP (Kairouz et al.)",
        line=dict(color=_DP, width=2.5), fill=fill, fillcolor="rgba(31,119,180,0.22)",
        hovertemplate="(ε, δ)-DP<br>FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
    ))
    if tpr_mip_printed is not None:
        fig.add_trace(go.Scatter(
            x=x, y=np.asarray(tpr_mip_printed, dtype=float), mode="lines",
            name="Theorem 8 as printed: FPR + η",
            line=dict(color=_PRINTED, width=1.8, dash="dash"),
            hovertemplate="as printed<br>FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
        ))
    fig.add_trace(go.Scatter(
        x=x, y=x, mode="lines", name="random guessing (TPR = FPR)",
        line=dict(color=_GREY, width=1.5, dash="dot"),
        hovertemplate="guessing<br>FPR = TPR = %{x:.3g}<extra></extra>",
    ))
    if touch is not None:
        tf, tt = float(touch[0]), float(touch[1])
        if not log_axes or tf > 0:
            fig.add_trace(go.Scatter(
                x=[tf], y=[tt], mode="markers", name="where they touch: TPR − FPR = 2η",
                marker=dict(size=11, color="#111111", symbol="diamond"),
                hovertemplate="FPR = %{x:.4g}<br>TPR = %{y:.4g}<extra></extra>",
            ))
    if log_axes:
        ys = [np.asarray(a, dtype=float) for a in (tpr_dp, tpr_mip, x)]
        y_min = min(float(a[a > 0].min()) for a in ys if np.any(a > 0))
        x_min = float(x[x > 0].min())
        xaxis = dict(title="false-positive rate (log)", type="log",
                     range=[math.log10(x_min), 0.0], exponentformat="power")
        yaxis = dict(title="true-positive rate (log)", type="log",
                     range=[math.floor(math.log10(y_min) * 2) / 2, 0.02], exponentformat="power")
    else:
        xaxis = dict(title="false-positive rate", range=[0.0, 1.0])
        yaxis = dict(title="true-positive rate", range=[0.0, 1.02])
    fig.update_layout(
        title=title or "Theorem 8: which (FPR, TPR) can an attacker reach?",
        xaxis=xaxis, yaxis=yaxis,
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0.0),
        height=height, margin=dict(l=10, r=10, t=50, b=10), hovermode="closest",
    )
    return fig
