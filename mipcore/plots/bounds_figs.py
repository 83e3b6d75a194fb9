"""Figures for Theorem 4 (DP ⇒ MIP) and Theorem 8 (the ROC picture), in the app's style.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Sections 3.4–3.5; the (ε, δ)-DP region is Theorem 2.1 of Kairouz, Oh, Viswanath, *The
Composition Theorem for Differential Privacy*, ICML 2015, arXiv:1311.0776.

* :func:`eta_epsilon_figure` and :func:`roc_figure` draw numbers and arrays handed to them
  (they compute none of the mathematics);
* :func:`eta_epsilon_chart` and :func:`roc_chart` evaluate :mod:`mipcore.bounds` on a grid for
  one ``(ε, δ)`` and return a plain figure together with the very table it draws (a page
  registers it as the chart's CSV).

Style (:mod:`mipcore.plots.style`): η-MIP solid vermillion with circles, (ε, δ)-DP dashed blue
with squares, Theorem 8 as printed dash-dot purple, the touching point a black diamond,
legends below the plot, log axes labelled at powers of ten only. Figures are built in one
``go.Figure(data=[dict, ...], layout=dict)`` call (several times faster than ``add_trace``).
Nothing here caches: the page caches through ``appkit.cached``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from mipcore.bounds import (
    dp_region_kink,
    eta_from_epsilon,
    eta_small_epsilon_approx,
    tpr_bound_dp,
    tpr_bound_mip,
)

from . import style

__all__ = [
    "REFERENCE_DELTAS",
    "delta_label",
    "eta_epsilon_chart",
    "eta_epsilon_figure",
    "eta_epsilon_table",
    "roc_chart",
    "roc_figure",
    "roc_table",
]

#: The reference curves of the η(ε) chart.
REFERENCE_DELTAS = (0.0, 1e-5, 1e-3, 1e-2, 0.1)
#: Markers on a line of hundreds of points: at most this many are drawn (the legend's cue).
_MARKERS = 9

MIP_NAME = "η-MIP: TPR ≤ min(1, FPR + 2η)"
DP_NAME = "(ε, δ)-DP (Kairouz et al.)"
PRINTED_NAME = "Theorem 8 as printed: FPR + η"
GUESS_NAME = "random guessing (TPR = FPR)"
TOUCH_NAME = "where they touch: TPR − FPR = 2η"
POINT_NAME = "your (ε, δ)"
APPROX_NAME = "small-ε rule δ/2 + (1−δ)ε/4"


def delta_label(delta: float) -> str:
    """``'δ = 0'``, ``'δ = 10<sup>−5</sup>'``, ``'δ = 0.03'``: a legend label (Plotly HTML)."""
    d = float(delta)
    if d == 0.0:
        return "δ = 0"
    k = math.log10(d)
    if abs(k - round(k)) < 1e-9 and k <= -2:
        return f"δ = 10<sup>{round(k)}</sup>".replace("-", "−")
    if d < 1e-3:
        mant, exp = f"{d:.2e}".split("e")
        mant = mant.rstrip("0").rstrip(".")
        return f"δ = {mant}·10<sup>{int(exp)}</sup>".replace("-", "−")
    return f"δ = {d:.4g}"


def _shade(colour: str, alpha: float) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def eta_epsilon_figure(
    epsilon: ArrayLike,
    curves: Sequence[tuple[str, ArrayLike]],
    *,
    point: tuple[float, float],
    chosen: str | None = None,
    approx: tuple[ArrayLike, ArrayLike] | None = None,
    height: int = 470,
) -> go.Figure:
    """η against ε (Theorem 4), one line per δ, with the chosen point marked.

    Parameters
    ----------
    epsilon : 1-D array, the common ε grid of ``curves``.
    curves : ``(label, eta)`` pairs, ``eta`` an array over ``epsilon`` in ``[0, 1/2]``; drawn
        as a family (Okabe–Ito colour plus a dash pattern each).
    point : ``(epsilon, eta)`` of the current setting, drawn as a vermillion circle.
    chosen : label of the curve to emphasise (the current δ): thick, solid, black.
    approx : optional ``(epsilon, eta)`` arrays of the small-ε rule of thumb (grey, dotted).
    height : figure height in pixels.

    The best attacker's accuracy ``1/2 + η`` is in every hover label and on the right-hand
    axis (same height, read in %), whose title sits on the right edge, clear of the legend
    below the plot.
    """
    eps = np.asarray(epsilon, dtype=float)
    data: list[dict[str, Any]] = []
    for i, (label, eta_curve) in enumerate(curves):
        eta = np.asarray(eta_curve, dtype=float)
        emph = label == chosen
        data.append(
            dict(
                type="scatter",
                x=eps,
                y=eta,
                mode="lines",
                name=label + (" (chosen)" if emph else ""),
                line=dict(color=style.INK, width=4.0, dash="solid")
                if emph
                else dict(
                    color=style.SEQUENCE[i % len(style.SEQUENCE)], width=2.0, dash=style.dashes(i)
                ),
                customdata=100.0 * (0.5 + eta),
                hovertemplate=(
                    f"{label}<br>ε = %{{x:.3g}}<br>η = %{{y:.4g}}"
                    "<br>attacker accuracy ≤ %{customdata:.2f} %<extra></extra>"
                ),
            )
        )
    if approx is not None:
        ax, ay = (np.asarray(a, dtype=float) for a in approx)
        data.append(
            dict(
                type="scatter",
                x=ax,
                y=ay,
                mode="lines",
                name=APPROX_NAME,
                line=dict(color=style.GREY, width=2.5, dash="dot"),
                hovertemplate="rule of thumb<br>ε = %{x:.3g}<br>η ≈ %{y:.4g}<extra></extra>",
            )
        )
    pe, pn = float(point[0]), float(point[1])
    data.append(
        dict(
            type="scatter",
            x=[pe],
            y=[pn],
            mode="markers",
            name=POINT_NAME,
            marker=style.marker(style.MIP, size=14, line=dict(color="white", width=2)),
            customdata=[100.0 * (0.5 + pn)],
            hovertemplate=(
                "your setting<br>ε = %{x:.4g}<br>η = %{y:.4g}"
                "<br>attacker accuracy ≤ %{customdata:.2f} %<extra></extra>"
            ),
        )
    )
    x_max = float(eps.max()) if eps.size else 1.0
    # An invisible trace makes Plotly draw the secondary (accuracy) axis.
    data.append(
        dict(
            type="scatter",
            x=[0.0, x_max],
            y=[50.0, 100.0],
            yaxis="y2",
            mode="lines",
            line=dict(width=0),
            opacity=0,
            hoverinfo="skip",
            showlegend=False,
        )
    )
    y2 = style.layout(y="best accuracy (%)")["yaxis"]
    layout = style.layout(
        title="Theorem 4: the η that (ε, δ)-DP implies",
        x="ε",
        y="η (attacker's edge)",
        height=height,
        xaxis=dict(range=[0.0, x_max]),
        yaxis=dict(range=[0.0, 0.52]),
        yaxis2={
            **y2,
            "overlaying": "y",
            "side": "right",
            "range": [50.0, 102.0],
            "showgrid": False,
            "zeroline": False,
        },
        hovermode="closest",
        # what add_hline(y=1/2, annotation_position="bottom right") draws
        shapes=[
            dict(
                type="line",
                xref="x domain",
                x0=0,
                x1=1,
                yref="y",
                y0=0.5,
                y1=0.5,
                line=dict(color=style.GREY, dash="dot"),
            )
        ],
        annotations=[
            dict(
                text="η = 1/2: no privacy",
                showarrow=False,
                xref="x domain",
                x=1,
                xanchor="right",
                yref="y",
                y=0.5,
                yanchor="top",
            )
        ],
    )
    # the legend's rows start below the x-axis title (legend y is in plot fractions)
    layout["legend"]["y"] = -0.2
    return go.Figure(data=data, layout=layout)


def roc_figure(
    fpr: ArrayLike,
    *,
    tpr_dp: ArrayLike,
    tpr_mip: ArrayLike,
    tpr_mip_printed: ArrayLike | None = None,
    touch: tuple[float, float] | None = None,
    log_axes: bool = False,
    title: str | None = None,
    height: int = 500,
) -> go.Figure:
    """The ROC regions allowed by η-MIP (corrected Theorem 8) and by (ε, δ)-DP.

    Parameters
    ----------
    fpr : 1-D increasing array of false-positive rates in ``[0, 1]`` (all ``> 0`` when
        ``log_axes``).
    tpr_dp : largest TPR at each FPR under (ε, δ)-DP (dashed blue, squares).
    tpr_mip : largest TPR at each FPR under η-MIP (solid vermillion, circles).
    tpr_mip_printed : optional, the bound as printed in Theorem 8 (dash-dot purple).
    touch : optional ``(fpr, tpr)`` where the two boundaries touch (black diamond).
    log_axes : log–log axes, to read the low-FPR regime (as in Carlini et al. 2022).
    title : the chart's title (may hold a ``<br><sup>…</sup>`` subtitle).
    height : figure height in pixels.

    Every attacker's (FPR, TPR) lies on or below a boundary; the diagonal is random
    guessing. On linear axes both regions are shaded.
    """
    x = np.asarray(fpr, dtype=float)
    t_dp = np.asarray(tpr_dp, dtype=float)
    t_mip = np.asarray(tpr_mip, dtype=float)
    fill = {} if log_axes else {"fill": "tozeroy"}
    data: list[dict[str, Any]] = [
        dict(
            type="scatter",
            x=x,
            y=t_mip,
            mode="lines+markers",
            name=MIP_NAME,
            line=style.line(style.MIP, width=3),
            marker=style.marker(style.MIP, size=8, maxdisplayed=_MARKERS),
            fillcolor=_shade(style.MIP.colour, 0.10),
            **fill,
            hovertemplate="η-MIP<br>FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=x,
            y=t_dp,
            mode="lines+markers",
            name=DP_NAME,
            line=style.line(style.DP, width=3),
            marker=style.marker(style.DP, size=8, maxdisplayed=_MARKERS),
            fillcolor=_shade(style.DP.colour, 0.20),
            **fill,
            hovertemplate="(ε, δ)-DP<br>FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
        ),
    ]
    if tpr_mip_printed is not None:
        data.append(
            dict(
                type="scatter",
                x=x,
                y=np.asarray(tpr_mip_printed, dtype=float),
                mode="lines",
                name=PRINTED_NAME,
                line=style.line(style.PRINTED, width=2.5),
                hovertemplate="as printed (not a bound)<br>FPR = %{x:.3g}<br>"
                "TPR ≤ %{y:.4g}<extra></extra>",
            )
        )
    data.append(
        dict(
            type="scatter",
            x=x,
            y=x,
            mode="lines",
            name=GUESS_NAME,
            line=dict(color=style.GREY, width=2, dash="dot"),
            hovertemplate="guessing<br>FPR = TPR = %{x:.3g}<extra></extra>",
        )
    )
    if touch is not None:
        tf, tt = float(touch[0]), float(touch[1])
        if not log_axes or tf > 0:
            data.append(
                dict(
                    type="scatter",
                    x=[tf],
                    y=[tt],
                    mode="markers",
                    name=TOUCH_NAME,
                    marker=style.marker(style.EXACT, size=13),
                    hovertemplate="FPR = %{x:.4g}<br>TPR = %{y:.4g}<extra></extra>",
                )
            )
    if log_axes:
        positive = [a[a > 0] for a in (t_dp, t_mip, x) if np.any(a > 0)]
        y_min = min(float(a.min()) for a in positive)
        x_min = float(x[x > 0].min())
        xaxis = style.log_axis("false-positive rate (log)", range=[math.log10(x_min), 0.0])
        yaxis = style.log_axis(
            "true-positive rate (log)", range=[math.floor(math.log10(y_min) * 2) / 2, 0.02]
        )
    else:
        xaxis = style.layout(x="false-positive rate")["xaxis"] | {"range": [0.0, 1.0]}
        yaxis = style.layout(y="true-positive rate")["yaxis"] | {"range": [0.0, 1.02]}
    layout = style.layout(
        title=title or "Theorem 8: which (FPR, TPR) can an attacker reach?",
        height=height,
        xaxis=xaxis,
        yaxis=yaxis,
        hovermode="closest",
    )
    if title and "<br>" in title:
        layout["margin"]["t"] = 76
    layout["legend"]["y"] = -0.2
    return go.Figure(data=data, layout=layout)


# ------------------------------------------------------------------ charts for one setting


@dataclass(frozen=True)
class _EtaEpsilonData:
    eps_grid: np.ndarray
    curves: list[tuple[str, np.ndarray]]
    point: tuple[float, float]
    chosen: str
    approx: tuple[np.ndarray, np.ndarray]
    table: pd.DataFrame


def _eta_epsilon_data(
    epsilon: float, delta: float, eps_max: float, reference_deltas: tuple[float, ...], points: int
) -> _EtaEpsilonData:
    """What :func:`eta_epsilon_chart` draws (also what the Vega-Lite chart draws)."""
    epsilon, delta = float(epsilon), float(delta)
    eta = float(eta_from_epsilon(epsilon, delta))
    eps_grid = np.union1d(np.linspace(0.0, eps_max, points), [epsilon])
    deltas = [float(d) for d in reference_deltas]
    if not any(math.isclose(delta, d, rel_tol=1e-9, abs_tol=0.0) for d in deltas):
        deltas.append(delta)
    curves_eta = eta_from_epsilon(eps_grid[None, :], np.asarray(deltas)[:, None])
    limit = 4.0 * (0.52 - delta / 2) / (1.0 - delta) if delta < 1 else 0.0
    eps_ap = eps_grid[eps_grid <= limit]
    eta_ap = np.asarray(eta_small_epsilon_approx(eps_ap, delta), dtype=float)
    chosen = next(d for d in deltas if math.isclose(delta, d, rel_tol=1e-9, abs_tol=0.0))
    curves = [(delta_label(d), curves_eta[i]) for i, d in enumerate(deltas)]
    n, m = eps_grid.size, eps_ap.size
    eta_all = np.concatenate([curves_eta.ravel(), eta_ap])
    table = pd.DataFrame(
        {
            "curve": ["exact (Theorem 4)"] * (n * len(deltas))
            + ["small-epsilon approximation"] * m,
            "delta": np.concatenate(
                [np.repeat(np.asarray(deltas, dtype=float), n), np.full(m, delta)]
            ),
            "epsilon": np.concatenate([np.tile(eps_grid, len(deltas)), eps_ap]),
            "eta": eta_all,
            "attacker_accuracy": 0.5 + eta_all,
        }
    )
    return _EtaEpsilonData(
        eps_grid, curves, (epsilon, eta), delta_label(chosen), (eps_ap, eta_ap), table
    )


def eta_epsilon_table(
    epsilon: float,
    delta: float,
    *,
    eps_max: float = 10.0,
    reference_deltas: tuple[float, ...] = REFERENCE_DELTAS,
    points: int = 201,
) -> pd.DataFrame:
    """The table of :func:`eta_epsilon_chart` (its arguments and columns), without building a
    figure (the Vega-Lite chart of :mod:`mipcore.plots.bounds_vega` draws it)."""
    return _eta_epsilon_data(float(epsilon), float(delta), eps_max, reference_deltas, points).table


def eta_epsilon_chart(
    epsilon: float,
    delta: float,
    *,
    eps_max: float = 10.0,
    reference_deltas: tuple[float, ...] = REFERENCE_DELTAS,
    points: int = 201,
) -> tuple[go.Figure, pd.DataFrame]:
    """The η(ε) figure for the setting ``(epsilon, delta)`` and the table it draws.

    Theorem 4's curve for every δ of ``reference_deltas`` plus ``delta`` itself
    (emphasised), on ``points`` equally spaced ε in ``[0, eps_max]`` plus ``epsilon`` (so
    the chosen curve passes exactly through the marked point), and the small-ε rule of
    thumb at ``delta`` while it stays below η = 0.52.

    Returns ``(figure, table)``; the table has one row per drawn point of the exact curves
    and of the rule of thumb (columns ``curve, delta, epsilon, eta, attacker_accuracy``).
    """
    d = _eta_epsilon_data(epsilon, delta, eps_max, reference_deltas, points)
    fig = eta_epsilon_figure(d.eps_grid, d.curves, point=d.point, chosen=d.chosen, approx=d.approx)
    return fig, d.table


def roc_table(
    epsilon: float,
    delta: float,
    *,
    log_axes: bool = False,
    extra_fpr: tuple[float, ...] = (),
    points: int = 361,
    log_points: int = 360,
    log_min_fpr: float = 1e-6,
) -> pd.DataFrame:
    """The ROC bounds of :func:`roc_chart` as a table (its arguments and columns), without
    building a figure (the Vega-Lite chart of :mod:`mipcore.plots.bounds_vega` draws it)."""
    epsilon, delta = float(epsilon), float(delta)
    eta = float(eta_from_epsilon(epsilon, delta))
    f_star = float(dp_region_kink(epsilon, delta))
    kinks = [f_star, 1.0 - delta, 1.0 - 2.0 * eta, 1.0 - eta, *extra_fpr]
    if log_axes:
        lo = math.log10(log_min_fpr)
        fpr = np.union1d(
            np.logspace(lo, 0.0, log_points), [k for k in kinks if log_min_fpr <= k <= 1.0]
        )
    else:
        fpr = np.union1d(np.linspace(0.0, 1.0, points), [k for k in kinks if 0.0 <= k <= 1.0])
    tpr_dp = np.asarray(tpr_bound_dp(fpr, epsilon, delta), dtype=float)
    tpr_printed = np.asarray(tpr_bound_mip(fpr, eta, as_printed=True), dtype=float)
    tpr_mip = np.asarray(tpr_bound_mip(fpr, eta), dtype=float)  # corrected Theorem 8
    table = pd.DataFrame(
        {
            "fpr": fpr,
            "tpr_max_dp": tpr_dp,
            "tpr_max_mip_2eta": tpr_mip,
            "tpr_max_theorem8_as_printed": tpr_printed,
            "random_guessing": fpr,
        }
    )
    return table


def roc_chart(
    epsilon: float,
    delta: float,
    *,
    log_axes: bool = False,
    title: str | None = None,
    extra_fpr: tuple[float, ...] = (),
    points: int = 361,
    log_points: int = 360,
    log_min_fpr: float = 1e-6,
) -> tuple[go.Figure, pd.DataFrame]:
    """The ROC bounds at ``(epsilon, delta)`` (DP, η-MIP, Theorem 8 as printed) and their table.

    η is Theorem 4's η for ``(epsilon, delta)``. The false-positive rates are ``points``
    equally spaced values in ``[0, 1]`` (``log_points`` log-spaced values in
    ``[log_min_fpr, 1]`` when ``log_axes``) plus the exact kinks of the boundaries -- FPR*
    (:func:`mipcore.bounds.dp_region_kink`), 1 − δ, 1 − 2η, 1 − η -- and ``extra_fpr``: the
    piecewise-linear boundaries are drawn exactly on linear axes.

    Returns ``(figure, table)``; the table has columns ``fpr, tpr_max_dp,
    tpr_max_mip_2eta, tpr_max_theorem8_as_printed, random_guessing``.
    """
    table = roc_table(
        epsilon,
        delta,
        log_axes=log_axes,
        extra_fpr=extra_fpr,
        points=points,
        log_points=log_points,
        log_min_fpr=log_min_fpr,
    )
    f_star = float(dp_region_kink(epsilon, delta))
    fig = roc_figure(
        table["fpr"].to_numpy(),
        tpr_dp=table["tpr_max_dp"].to_numpy(),
        tpr_mip=table["tpr_max_mip_2eta"].to_numpy(),
        tpr_mip_printed=table["tpr_max_theorem8_as_printed"].to_numpy(),
        touch=(f_star, float(tpr_bound_dp(f_star, epsilon, delta))),
        log_axes=log_axes,
        title=title,
    )
    return fig, table
