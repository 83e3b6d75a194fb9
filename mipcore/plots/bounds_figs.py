"""Figures for Theorem 4 (DP -> MIP) and Theorem 8 (the ROC picture).

Source: ``000_ece03c98c31c7b12.txt`` Sections 3.4-3.5 and Appendices B-C.

Two layers:

* the figure builders (:func:`eta_epsilon_figure`, :func:`roc_figure`) take numbers
  and arrays computed by :mod:`mipcore.bounds` and return a
  :class:`plotly.graph_objects.Figure`; they compute nothing of the mathematics
  themselves, so a figure always shows exactly the data handed to it;
* the chart functions (:func:`eta_epsilon_chart`, :func:`roc_chart`) evaluate
  :mod:`mipcore.bounds` on a grid for one ``(epsilon, delta)`` and return the figure
  together with the very table it draws (a page offers it as CSV). They are memoised
  per input, so an app that revisits a setting gets the same objects back at no cost,
  and their figures serialise themselves only once: treat the returned Figure and
  DataFrame as read-only.

Figures are built in one ``go.Figure(data=[dict, ...], layout=dict)`` call from plain
dicts. That gives the same figure as ``add_trace``/``add_hline``/``update_layout`` but
several times faster, since Plotly validates every incremental update property by property.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mipcore.bounds import eta_from_epsilon, eta_small_epsilon_approx, tpr_bound_dp, tpr_bound_mip
from mipcore.plots import ReadOnlyFigure

__all__ = ["delta_label", "eta_epsilon_chart", "eta_epsilon_figure", "roc_chart", "roc_figure"]

REFERENCE_DELTAS = (0.0, 1e-5, 1e-3, 1e-2, 0.1)

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
        return f"δ = 10<sup>{round(k)}</sup>"
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
    return go.Figure(
        **_eta_epsilon_spec(
            epsilon, curves, point=point, chosen=chosen, approx=approx, height=height
        )
    )


def _eta_epsilon_spec(epsilon, curves, *, point, chosen, approx, height) -> dict:
    """The traces and layout of :func:`eta_epsilon_figure`, as plain dicts."""
    eps = np.asarray(epsilon, dtype=float)
    data: list[dict] = []
    for i, (label, eta) in enumerate(curves):
        eta = np.asarray(eta, dtype=float)
        emph = label == chosen
        data.append(
            dict(
                type="scatter",
                x=eps,
                y=eta,
                mode="lines",
                name=label + (" (chosen)" if emph else ""),
                line=dict(
                    color="#111111" if emph else _CURVE_COLOURS[i % len(_CURVE_COLOURS)],
                    width=3.5 if emph else 1.8,
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
                name="small-ε approximation δ/2 + (1−δ)ε/4",
                line=dict(color="#111111", width=1.5, dash="dash"),
                hovertemplate="approximation<br>ε = %{x:.3g}<br>η ≈ %{y:.4g}<extra></extra>",
            )
        )
    pe, pn = float(point[0]), float(point[1])
    data.append(
        dict(
            type="scatter",
            x=[pe],
            y=[pn],
            mode="markers",
            name="your (ε, δ)",
            marker=dict(size=13, color=_MIP, line=dict(color="white", width=2)),
            customdata=[100.0 * (0.5 + pn)],
            hovertemplate=(
                "your setting<br>ε = %{x:.4g}<br>η = %{y:.4g}"
                "<br>attacker accuracy ≤ %{customdata:.2f} %<extra></extra>"
            ),
        )
    )
    x_max = float(eps.max()) if eps.size else 1.0
    # Invisible trace that makes Plotly draw the secondary (accuracy) axis.
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
    layout = dict(
        title=dict(text="Theorem 4: the MIP level η implied by (ε, δ)-DP"),
        xaxis=dict(title=dict(text="ε"), range=[0.0, x_max]),
        yaxis=dict(title=dict(text="η (attacker's edge over guessing)"), range=[0.0, 0.52]),
        yaxis2=dict(
            title=dict(text="best attacker accuracy (%)"),
            overlaying="y",
            side="right",
            range=[50.0, 102.0],
            showgrid=False,
        ),
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0.0),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
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
                line=dict(color=_GREY, dash="dot"),
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
    return {"data": data, "layout": layout}


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
    return go.Figure(
        **_roc_spec(
            fpr,
            tpr_dp=tpr_dp,
            tpr_mip=tpr_mip,
            tpr_mip_printed=tpr_mip_printed,
            touch=touch,
            log_axes=log_axes,
            title=title,
            height=height,
        )
    )


def _roc_spec(fpr, *, tpr_dp, tpr_mip, tpr_mip_printed, touch, log_axes, title, height) -> dict:
    """The traces and layout of :func:`roc_figure`, as plain dicts."""
    x = np.asarray(fpr, dtype=float)
    fill = {} if log_axes else {"fill": "tozeroy"}
    data: list[dict] = [
        dict(
            type="scatter",
            x=x,
            y=np.asarray(tpr_mip, dtype=float),
            mode="lines",
            name="η-MIP: TPR ≤ min(1, FPR + 2η)",
            line=dict(color=_MIP, width=2.5),
            fillcolor="rgba(214,39,40,0.10)",
            **fill,
            hovertemplate="η-MIP<br>FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=x,
            y=np.asarray(tpr_dp, dtype=float),
            mode="lines",
            name="(ε, δ)-DP (Kairouz et al.)",
            line=dict(color=_DP, width=2.5),
            fillcolor="rgba(31,119,180,0.22)",
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
                name="Theorem 8 as printed: FPR + η",
                line=dict(color=_PRINTED, width=1.8, dash="dash"),
                hovertemplate="as printed<br>FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
            )
        )
    data.append(
        dict(
            type="scatter",
            x=x,
            y=x,
            mode="lines",
            name="random guessing (TPR = FPR)",
            line=dict(color=_GREY, width=1.5, dash="dot"),
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
                    name="where they touch: TPR − FPR = 2η",
                    marker=dict(size=11, color="#111111", symbol="diamond"),
                    hovertemplate="FPR = %{x:.4g}<br>TPR = %{y:.4g}<extra></extra>",
                )
            )
    if log_axes:
        ys = [np.asarray(a, dtype=float) for a in (tpr_dp, tpr_mip, x)]
        y_min = min(float(a[a > 0].min()) for a in ys if np.any(a > 0))
        x_min = float(x[x > 0].min())
        xaxis = dict(
            title=dict(text="false-positive rate (log)"),
            type="log",
            range=[math.log10(x_min), 0.0],
            exponentformat="power",
        )
        yaxis = dict(
            title=dict(text="true-positive rate (log)"),
            type="log",
            range=[math.floor(math.log10(y_min) * 2) / 2, 0.02],
            exponentformat="power",
        )
    else:
        xaxis = dict(title=dict(text="false-positive rate"), range=[0.0, 1.0])
        yaxis = dict(title=dict(text="true-positive rate"), range=[0.0, 1.02])
    layout = dict(
        title=dict(text=title or "Theorem 8: which (FPR, TPR) can an attacker reach?"),
        xaxis=xaxis,
        yaxis=yaxis,
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0.0),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        hovermode="closest",
    )
    return {"data": data, "layout": layout}


# ------------------------------------------------------------------ charts for one setting


def eta_epsilon_chart(
    epsilon: float,
    delta: float,
    *,
    eps_max: float = 10.0,
    reference_deltas: tuple[float, ...] = REFERENCE_DELTAS,
    points: int = 201,
) -> tuple[go.Figure, pd.DataFrame]:
    """The eta(epsilon) figure for the setting ``(epsilon, delta)`` and the table it draws.

    Theorem 4's curve for every delta of ``reference_deltas`` plus ``delta`` itself
    (emphasised), on ``points`` equally spaced epsilons in ``[0, eps_max]`` plus
    ``epsilon`` (so the chosen curve passes exactly through the marked point), and the
    small-epsilon approximation at ``delta`` while it stays below eta = 0.52.

    Returns ``(figure, table)``; the table has one row per drawn point of the exact
    curves and of the approximation (columns ``curve, delta, epsilon, eta,
    attacker_accuracy``).
    """
    epsilon, delta = float(epsilon), float(delta)
    eta = float(eta_from_epsilon(epsilon, delta))
    eps_grid = np.union1d(np.linspace(0.0, eps_max, points), [epsilon])
    deltas = [float(d) for d in reference_deltas]
    if not any(math.isclose(delta, d, rel_tol=1e-9, abs_tol=0.0) for d in deltas):
        deltas.append(delta)
    curves_eta = eta_from_epsilon(eps_grid[None, :], np.asarray(deltas)[:, None])
    eps_ap = eps_grid[eps_grid <= 4.0 * (0.52 - delta / 2) / (1.0 - delta)]
    eta_ap = eta_small_epsilon_approx(eps_ap, delta)
    curves = [(delta_label(d), curves_eta[i]) for i, d in enumerate(deltas)]
    fig = ReadOnlyFigure(
        **_eta_epsilon_spec(
            eps_grid,
            curves,
            point=(epsilon, eta),
            chosen=delta_label(delta),
            approx=(eps_ap, eta_ap),
            height=440,
        )
    )
    # every exact curve, then the approximation: one long table, built in one go
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
    return fig, table


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
    """The ROC bounds at ``(epsilon, delta)`` (DP, eta-MIP, Theorem 8 as printed) and their table.

    eta is Theorem 4's eta for ``(epsilon, delta)``. The false-positive rates are
    ``points`` equally spaced values in ``[0, 1]`` (``log_points`` log-spaced values in
    ``[log_min_fpr, 1]`` when ``log_axes``) plus the exact kinks of the boundaries,
    FPR* = (1 - delta)/(1 + e^epsilon), 1 - delta, 1 - 2 eta, 1 - eta, and ``extra_fpr``:
    the piecewise-linear boundaries are drawn exactly on linear axes.

    Returns ``(figure, table)``; the table has columns ``fpr, tpr_max_dp,
    tpr_max_mip_2eta, tpr_max_theorem8_as_printed, random_guessing``. Memoised per
    input: do not modify the returned objects.
    """
    epsilon, delta = float(epsilon), float(delta)
    eta = float(eta_from_epsilon(epsilon, delta))
    f_star = (1.0 - delta) / (1.0 + math.exp(epsilon))  # where the DP boundary's two pieces meet
    kinks = [f_star, 1.0 - delta, 1.0 - 2.0 * eta, 1.0 - eta, *extra_fpr]
    if log_axes:
        lo = math.log10(log_min_fpr)
        fpr = np.union1d(
            np.logspace(lo, 0.0, log_points), [k for k in kinks if log_min_fpr <= k <= 1.0]
        )
    else:
        fpr = np.union1d(np.linspace(0.0, 1.0, points), [k for k in kinks if 0.0 <= k <= 1.0])
    tpr_dp = tpr_bound_dp(fpr, epsilon, delta)
    tpr_printed = tpr_bound_mip(fpr, eta, as_printed=True)  # Theorem 8 as printed: FPR + eta
    tpr_mip = tpr_bound_mip(fpr, eta)  # corrected Theorem 8: FPR + 2 eta
    touch_tpr = float(tpr_bound_dp(f_star, epsilon, delta))
    fig = ReadOnlyFigure(
        **_roc_spec(
            fpr,
            tpr_dp=tpr_dp,
            tpr_mip=tpr_mip,
            tpr_mip_printed=tpr_printed,
            touch=(f_star, touch_tpr),
            log_axes=log_axes,
            title=title,
            height=440,
        )
    )
    table = pd.DataFrame(
        {
            "fpr": fpr,
            "tpr_max_dp": tpr_dp,
            "tpr_max_mip_2eta": tpr_mip,
            "tpr_max_theorem8_as_printed": tpr_printed,
            "random_guessing": fpr,
        }
    )
    return fig, table
