"""Figures for the MACE page: membership leakage estimated from samples.

Liu, Xu, Mukherjee, Lavista Ferres, *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*, arXiv:2009.05683 -- as computed by
:mod:`mipcore.lessons.mace_view`.

Every builder takes a result and returns ``(figure, table)``: a plain
:class:`plotly.graph_objects.Figure` in the app's style (:mod:`mipcore.plots.style`) and
the DataFrame of exactly what it draws (the page offers it as CSV). Advantages are drawn
as they are bounded, at ``max(0, ·)``; the raw values are in the hover text and the table.
The only arithmetic here is presentational (error-bar lengths, means and ranges over runs).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..lessons.mace_view import DriftResult, Estimator, MaceView
from . import style

__all__ = ["advantage_figure", "drift_figure", "samples_loss_figure"]

_MEMBER = style.VERMILLION
_NONMEMBER = style.BLUE
_EST = style.GREEN
_PLUGIN = style.PURPLE
_ALG1 = style.ORANGE
_LOWER = style.VERMILLION
_SHADE = "rgba(0,158,115,0.22)"  # the estimate's colour, translucent


def _accuracy_axis(**extra: Any) -> dict[str, Any]:
    """A top axis labelling the advantage axis in attacker accuracy (50 % + 50 % × advantage)."""
    ticks = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    return dict(
        overlaying="x",
        side="top",
        tickvals=ticks,
        ticktext=[f"{50 + 50 * t:.0f} %" for t in ticks],
        tickfont=dict(size=14, color=style.INK),
        showgrid=False,
        **extra,
    )


def samples_loss_figure(view: MaceView, *, height: int = 620) -> tuple[go.Figure, pd.DataFrame]:
    """Top: the two samples as density histograms with the true densities. Bottom: f̂ with
    its per-point 95 % interval (error bars per bin, or a band for the KDE) and the true fₚ.
    """
    edges = view.edges
    centres = 0.5 * (edges[:-1] + edges[1:])
    widths = np.diff(edges)
    pts, fh, lo, hi = view.points, view.f_hat, view.f_lower, view.f_upper
    bars = dict(
        type="bar",
        x=centres,
        width=widths,
        opacity=0.45,
        xaxis="x",
        yaxis="y",
        hovertemplate="z = %{x:.3g}<br>density %{y:.3g}<extra></extra>",
    )
    data: list[dict[str, Any]] = [
        dict(bars, y=view.member_density, name="members (sample)", marker=dict(color=_MEMBER)),
        dict(
            bars,
            y=view.nonmember_density,
            name="non-members (sample)",
            marker=dict(color=_NONMEMBER),
        ),
        dict(
            type="scatter",
            mode="lines",
            x=view.grid,
            y=view.p_true,
            name="member density P (true)",
            line=dict(color=_MEMBER, width=2),
            xaxis="x",
            yaxis="y",
            hovertemplate="z = %{x:.3g}<br>P = %{y:.3g}<extra></extra>",
        ),
        dict(
            type="scatter",
            mode="lines",
            x=view.grid,
            y=view.q_true,
            name="non-member density Q (true)",
            line=dict(color=_NONMEMBER, width=2, dash="dash"),
            xaxis="x",
            yaxis="y",
            hovertemplate="z = %{x:.3g}<br>Q = %{y:.3g}<extra></extra>",
        ),
    ]
    if view.estimator is Estimator.HISTOGRAM:
        data.append(
            dict(
                type="scatter",
                mode="markers",
                x=pts,
                y=fh,
                name="f̂ per bin (95 % interval)",
                marker=style.marker(style.MEASURED, size=7),
                xaxis="x2",
                yaxis="y2",
                error_y=dict(
                    type="data", array=hi - fh, arrayminus=fh - lo, color=_EST, thickness=1.5
                ),
                customdata=np.c_[lo, hi],
                hovertemplate="bin at z = %{x:.3g}<br>f̂ = %{y:.3f}<br>"
                "interval [%{customdata[0]:.3f}, %{customdata[1]:.3f}]<extra></extra>",
            )
        )
    else:
        data += [
            dict(
                type="scatter",
                mode="lines",
                x=pts,
                y=hi,
                line=dict(width=0),
                showlegend=False,
                hoverinfo="skip",
                xaxis="x2",
                yaxis="y2",
            ),
            dict(
                type="scatter",
                mode="lines",
                x=pts,
                y=lo,
                line=dict(width=0),
                fill="tonexty",
                fillcolor=_SHADE,
                name="95 % interval (Lemmas 6–7)",
                hoverinfo="skip",
                xaxis="x2",
                yaxis="y2",
            ),
            dict(
                type="scatter",
                mode="lines",
                x=pts,
                y=fh,
                name="f̂ (KDE)",
                line=style.line(style.MEASURED),
                xaxis="x2",
                yaxis="y2",
                hovertemplate="z = %{x:.3g}<br>f̂ = %{y:.3f}<extra></extra>",
            ),
        ]
    data.append(
        dict(
            type="scatter",
            mode="lines",
            x=view.grid,
            y=view.f_true,
            name="true fₚ",
            line=style.line(style.EXACT, width=2),
            xaxis="x2",
            yaxis="y2",
            hovertemplate="z = %{x:.3g}<br>fₚ = %{y:.3f}<extra></extra>",
        )
    )
    layout = style.layout(
        title="The samples, and the privacy loss estimated from them",
        x=None,
        y="density",
        height=height,
        barmode="overlay",
        xaxis=dict(anchor="y", matches="x2", showticklabels=False),
        yaxis=dict(domain=[0.56, 1.0]),
        legend=dict(
            orientation="h",
            x=0.0,
            xanchor="left",
            y=-0.1,
            yanchor="top",
            font=dict(size=14),
            traceorder="normal",
        ),
    )
    axis2 = style.layout(x="statistic z", y="privacy loss fₚ(z)")
    layout["xaxis2"] = {**axis2["xaxis"], "anchor": "y2"}
    layout["yaxis2"] = {**axis2["yaxis"], "domain": [0.0, 0.46], "range": [-1.05, 1.05]}
    fig = go.Figure(data=data, layout=layout)
    table = pd.concat(
        [
            pd.DataFrame(
                {
                    "panel": "samples",
                    "series": "members histogram",
                    "z": centres,
                    "value": view.member_density,
                }
            ),
            pd.DataFrame(
                {
                    "panel": "samples",
                    "series": "non-members histogram",
                    "z": centres,
                    "value": view.nonmember_density,
                }
            ),
            pd.DataFrame(
                {"panel": "samples", "series": "true P", "z": view.grid, "value": view.p_true}
            ),
            pd.DataFrame(
                {"panel": "samples", "series": "true Q", "z": view.grid, "value": view.q_true}
            ),
            pd.DataFrame(
                {
                    "panel": "loss",
                    "series": "f_hat",
                    "z": pts,
                    "value": fh,
                    "lower": lo,
                    "upper": hi,
                }
            ),
            pd.DataFrame(
                {"panel": "loss", "series": "true f_p", "z": view.grid, "value": view.f_true}
            ),
        ],
        ignore_index=True,
    )
    return fig, table


def advantage_figure(view: MaceView, *, height: int = 520) -> tuple[go.Figure, pd.DataFrame]:
    """The advantage estimates on one axis (bottom: advantage, top: attacker accuracy), against
    the exact advantage and the Theorem 1 (tanh) bound at the view's ε (vertical lines).

    The held-out estimate and its lower bound are drawn at ``max(0, ·)``; the hover text
    and the table give the raw values.
    """
    alg_lo, alg_hi = view.mean_interval
    held, low = view.heldout.advantage, view.heldout_lower.advantage
    eps = view.epsilon
    data: list[dict[str, Any]] = [
        dict(
            type="scatter",
            mode="markers",
            x=[view.plugin.advantage],
            y=[3],
            name="plug-in mean |f̂| (in-sample)",
            marker=dict(color=_PLUGIN, size=13, symbol="circle"),
            hovertemplate="plug-in %{x:.4f}<extra></extra>",
        ),
        dict(
            type="scatter",
            mode="markers",
            x=[view.algorithm1],
            y=[2],
            name="Algorithm 1 (bar: the paper's average interval, not a CI)",
            marker=dict(color=_ALG1, size=13, symbol="square"),
            error_x=dict(
                type="data",
                array=[max(alg_hi - view.algorithm1, 0.0)],
                arrayminus=[max(view.algorithm1 - alg_lo, 0.0)],
                color=_ALG1,
            ),
            hovertemplate="Algorithm 1 %{x:.4f}<extra></extra>",
        ),
        dict(
            type="scatter",
            mode="markers",
            x=[held],
            y=[1],
            name="held-out advantage of sgn(f̂) (bar: down to its lower bound)",
            marker=style.marker(style.MEASURED, size=13),
            error_x=dict(type="data", array=[0.0], arrayminus=[max(held - low, 0.0)], color=_EST),
            customdata=[[view.heldout_raw]],
            hovertemplate="held-out %{x:.4f} (raw %{customdata[0]:.4f})<extra></extra>",
        ),
        dict(
            type="scatter",
            mode="markers",
            x=[low],
            y=[0],
            name="held-out 95 % lower bound, max(0, ·)",
            marker=dict(
                color=_LOWER, size=14, symbol="triangle-right", line=dict(color=style.INK, width=1)
            ),
            customdata=[[view.heldout_lower_raw]],
            hovertemplate="lower bound %{x:.4f} (raw %{customdata[0]:.4f})<extra></extra>",
        ),
        dict(
            type="scatter",
            mode="lines",
            x=[view.truth.advantage] * 2,
            y=[-0.5, 3.5],
            name="true advantage",
            line=style.line(style.EXACT, width=3),
            hovertemplate="true %{x:.4f}<extra></extra>",
        ),
        dict(
            type="scatter",
            mode="lines",
            x=[view.tanh_bound.advantage] * 2,
            y=[-0.5, 3.5],
            name=f"tanh bound at ε = {eps:g} (Theorem 1)",
            line=style.line(style.DP),
            hovertemplate="bound %{x:.4f}<extra></extra>",
        ),
        # an invisible trace on the top axis, so that plotly draws it
        dict(
            type="scatter",
            mode="markers",
            x=[0.0, 1.0],
            y=[-0.5, -0.5],
            xaxis="x2",
            marker=dict(opacity=0),
            showlegend=False,
            hoverinfo="skip",
        ),
    ]
    layout = style.layout(
        title="Advantage estimates, the truth and the DP bound"
        "<br><sup>advantage = 2η = 2·accuracy − 1; top axis: attacker accuracy</sup>",
        x="membership advantage Advₚ",
        height=height,
        xaxis=dict(range=[-0.02, 1.02]),
        yaxis=dict(
            tickvals=[3, 2, 1, 0],
            ticktext=["plug-in", "Algorithm 1", "held-out", "lower bound"],
            range=[-0.6, 3.6],
            showgrid=False,
            zeroline=False,
        ),
        margin=dict(l=10, r=10, t=100, b=10),
        xaxis2=_accuracy_axis(range=[-0.02, 1.02]),
        legend=dict(
            orientation="h",
            x=0.0,
            xanchor="left",
            y=-0.3,
            yanchor="top",
            font=dict(size=14, color=style.INK),
        ),
    )
    fig = go.Figure(data=data, layout=layout)
    table = pd.DataFrame(
        {
            "quantity": [
                "plug-in mean |f_hat| (in-sample)",
                "Algorithm 1: mean |f_hat| on the 2nd split",
                "paper's average interval: low",
                "paper's average interval: high",
                "held-out advantage of sgn(f_hat) (raw)",
                "held-out advantage, max(0, raw) (drawn)",
                "held-out 95 % lower bound (raw)",
                "held-out 95 % lower bound, max(0, raw) (drawn)",
                "true advantage",
                f"tanh bound (eps={eps:g})",
            ],
            "advantage": [
                view.plugin.advantage,
                view.algorithm1,
                alg_lo,
                alg_hi,
                view.heldout_raw,
                held,
                view.heldout_lower_raw,
                low,
                view.truth.advantage,
                view.tanh_bound.advantage,
            ],
        }
    )
    table["eta"] = table["advantage"] / 2.0
    table["accuracy"] = (1.0 + table["advantage"]) / 2.0
    return fig, table


def drift_figure(result: DriftResult, *, height: int = 440) -> tuple[go.Figure, pd.DataFrame]:
    """Plug-in, held-out and held-out lower bound against N (log axis): the mean over the
    runs, bars from the smallest to the largest run, and the exact advantage.

    The held-out values and the lower bound are drawn at ``max(0, ·)`` per run; the raw
    means and ranges are in the hover text and the table.
    """
    n = np.asarray(result.n_values, dtype=float)
    series = (
        ("plug-in (in-sample)", result.plugin, result.plugin, _PLUGIN, "circle", "solid"),
        (
            "held-out sgn(f̂)",
            np.maximum(result.heldout, 0.0),
            result.heldout,
            _EST,
            "diamond",
            "dot",
        ),
        (
            "held-out 95 % lower bound",
            result.heldout_lower,
            result.heldout_lower_raw,
            _LOWER,
            "triangle-up",
            "dash",
        ),
    )
    data: list[dict[str, Any]] = []
    table = pd.DataFrame({"N": n.astype(int)})
    for name, shown, raw, colour, symbol, dash in series:
        mean, lo, hi = shown.mean(axis=1), shown.min(axis=1), shown.max(axis=1)
        rmean, rlo, rhi = raw.mean(axis=1), raw.min(axis=1), raw.max(axis=1)
        data.append(
            dict(
                type="scatter",
                mode="lines+markers",
                x=n,
                y=mean,
                name=name,
                line=dict(color=colour, dash=dash, width=2.5),
                marker=dict(color=colour, symbol=symbol, size=9),
                error_y=dict(type="data", array=hi - mean, arrayminus=mean - lo, color=colour),
                customdata=np.c_[rmean, rlo, rhi],
                hovertemplate="N = %{x}<br>mean %{y:.4f}<br>raw mean %{customdata[0]:.4f}, "
                "range [%{customdata[1]:.4f}, %{customdata[2]:.4f}]<extra>" + name + "</extra>",
            )
        )
        key = name.replace("f̂", "f_hat")
        table[f"{key}: mean (drawn)"] = mean
        table[f"{key}: raw mean"] = rmean
        table[f"{key}: raw min"] = rlo
        table[f"{key}: raw max"] = rhi
    data.append(
        dict(
            type="scatter",
            mode="lines",
            x=[n.min(), n.max()],
            y=[result.truth, result.truth],
            name="true advantage",
            line=style.line(style.EXACT, width=3),
            hovertemplate="true %{y:.4f}<extra></extra>",
        )
    )
    table["true advantage"] = result.truth
    layout = style.layout(
        title=f"The estimates as N grows ({result.runs} seeds per N)"
        "<br><sup>advantage = 2η = 2·accuracy − 1; bars: range over the seeds</sup>",
        y="advantage estimate",
        height=height,
        xaxis=style.log_axis("N per group"),
        margin=dict(l=10, r=10, t=80, b=10),
    )
    fig = go.Figure(data=data, layout=layout)
    return fig, table
