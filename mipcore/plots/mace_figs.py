"""Figures for the MACE page: estimating membership leakage from samples (``004``).

Source: ``004_fccc9ab652da6648.txt`` (Liu et al., AAAI 2021), Algorithm 1, Lemmas 5–7 and
Theorem 1, as implemented in :mod:`mipcore.mace`; ground truth from :mod:`mipcore.lessons.mace_synthetic`.

Every builder takes numbers and arrays already computed by mipcore and returns
``(figure, table)``: a :class:`plotly.graph_objects.Figure` built in one constructor call
from plain dicts, and the DataFrame of exactly what it draws (the page offers it as CSV).
The only arithmetic here is presentational (histogram heights of the samples, error-bar
lengths, means and ranges over repeated runs).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mipcore.plots import freeze

__all__ = ["advantage_figure", "drift_figure", "samples_loss_figure"]

_MEMBER = "#d62728"
_NONMEMBER = "#1f77b4"
_EST = "#2ca02c"
_TRUE = "#111111"
_BOUND = "#ff7f0e"
_GREY = "#8a8f98"


def _base_layout(height: int, **extra) -> dict:
    layout = dict(
        height=height,
        margin=dict(l=60, r=20, t=50, b=50),
        hovermode="closest",
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
    )
    layout.update(extra)
    return layout


def samples_loss_figure(
    members: np.ndarray,
    nonmembers: np.ndarray,
    *,
    edges: np.ndarray,
    grid: np.ndarray,
    p_true: np.ndarray,
    q_true: np.ndarray,
    f_true: np.ndarray,
    points: np.ndarray,
    f_hat: np.ndarray,
    f_lower: np.ndarray,
    f_upper: np.ndarray,
    method: str,
    height: int = 620,
) -> tuple[go.Figure, pd.DataFrame]:
    """Top: the two samples as density histograms over ``edges`` with the true densities on
    ``grid``. Bottom: ``f̂`` at ``points`` with its per-point interval (error bars for the
    histogram's bins, a band for the KDE grid) and the true ``f_p`` on ``grid``.
    """
    edges = np.asarray(edges, dtype=float)
    hm, _ = np.histogram(members, edges, density=True)
    hn, _ = np.histogram(nonmembers, edges, density=True)
    centres = 0.5 * (edges[:-1] + edges[1:])
    widths = np.diff(edges)
    pts, fh = np.asarray(points, float), np.asarray(f_hat, float)
    lo, hi = np.asarray(f_lower, float), np.asarray(f_upper, float)
    bars = dict(
        type="bar",
        x=centres,
        width=widths,
        opacity=0.45,
        xaxis="x",
        yaxis="y",
        hovertemplate="z = %{x:.3g}<br>density %{y:.3g}<extra></extra>",
    )
    data = [
        dict(bars, y=hm, name="members (sample)", marker=dict(color=_MEMBER)),
        dict(bars, y=hn, name="non-members (sample)", marker=dict(color=_NONMEMBER)),
        dict(
            type="scatter",
            mode="lines",
            x=grid,
            y=p_true,
            name="member density P (true)",
            line=dict(color=_MEMBER, width=1.5),
            xaxis="x",
            yaxis="y",
        ),
        dict(
            type="scatter",
            mode="lines",
            x=grid,
            y=q_true,
            name="non-member density Q (true)",
            line=dict(color=_NONMEMBER, width=1.5),
            xaxis="x",
            yaxis="y",
        ),
    ]
    if method == "histogram":
        data.append(
            dict(
                type="scatter",
                mode="markers",
                x=pts,
                y=fh,
                name="f̂ per bin (95 % interval)",
                marker=dict(color=_EST, size=6),
                xaxis="x2",
                yaxis="y2",
                error_y=dict(
                    type="data", array=hi - fh, arrayminus=fh - lo, color=_EST, thickness=1
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
                fillcolor="rgba(44,160,44,0.2)",
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
                line=dict(color=_EST, width=2),
                xaxis="x2",
                yaxis="y2",
                hovertemplate="z = %{x:.3g}<br>f̂ = %{y:.3f}<extra></extra>",
            ),
        ]
    data.append(
        dict(
            type="scatter",
            mode="lines",
            x=grid,
            y=f_true,
            name="true f_p",
            line=dict(color=_TRUE, width=1.5, dash="dash"),
            xaxis="x2",
            yaxis="y2",
            hovertemplate="z = %{x:.3g}<br>f_p = %{y:.3f}<extra></extra>",
        )
    )
    layout = _base_layout(
        height,
        barmode="overlay",
        xaxis=dict(anchor="y", matches="x2", showticklabels=False),
        yaxis=dict(domain=[0.56, 1.0], title="density"),
        xaxis2=dict(anchor="y2", title="statistic z"),
        yaxis2=dict(domain=[0.0, 0.46], title="privacy loss f_p(z)", range=[-1.05, 1.05]),
    )
    fig = freeze(go.Figure(data=data, layout=layout))
    table = pd.concat(
        [
            pd.DataFrame(
                {"panel": "samples", "series": "members histogram", "z": centres, "value": hm}
            ),
            pd.DataFrame(
                {"panel": "samples", "series": "non-members histogram", "z": centres, "value": hn}
            ),
            pd.DataFrame({"panel": "samples", "series": "true P", "z": grid, "value": p_true}),
            pd.DataFrame({"panel": "samples", "series": "true Q", "z": grid, "value": q_true}),
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
            pd.DataFrame({"panel": "loss", "series": "true f_p", "z": grid, "value": f_true}),
        ],
        ignore_index=True,
    )
    return fig, table


def advantage_figure(
    *,
    plugin: float,
    algorithm1: float,
    mean_interval: tuple[float, float],
    heldout: float,
    heldout_lower: float,
    truth: float,
    tanh_bound: float,
    epsilon: float,
    height: int = 360,
) -> tuple[go.Figure, pd.DataFrame]:
    """The advantage estimates as points on one axis, against the true advantage and the
    Theorem 1 (tanh) bound for the chosen ε (vertical lines)."""
    labels = [
        "plug-in mean |f̂| (in-sample)",
        "Algorithm 1: mean |f̂| on the 2nd split",
        "held-out advantage of sgn(f̂)",
        "held-out 95 % lower bound",
    ]
    values = [plugin, algorithm1, heldout, heldout_lower]
    colours = ["#9467bd", "#8c564b", _EST, "#17becf"]
    data = [
        dict(
            type="scatter",
            mode="markers",
            x=[plugin],
            y=[3],
            name=labels[0],
            marker=dict(color=colours[0], size=12),
            hovertemplate="%{x:.4f}<extra>plug-in</extra>",
        ),
        dict(
            type="scatter",
            mode="markers",
            x=[algorithm1],
            y=[2],
            name=labels[1] + " (bar: paper's average interval, not a CI)",
            marker=dict(color=colours[1], size=12),
            error_x=dict(
                type="data",
                array=[max(mean_interval[1] - algorithm1, 0.0)],
                arrayminus=[max(algorithm1 - mean_interval[0], 0.0)],
                color=colours[1],
            ),
            hovertemplate="%{x:.4f}<extra>Algorithm 1</extra>",
        ),
        dict(
            type="scatter",
            mode="markers",
            x=[heldout],
            y=[1],
            name=labels[2] + " (bar: down to its 95 % lower bound)",
            marker=dict(color=colours[2], size=12),
            error_x=dict(
                type="data",
                array=[0.0],
                arrayminus=[max(heldout - heldout_lower, 0.0)],
                color=colours[2],
            ),
            hovertemplate="%{x:.4f}<extra>held-out</extra>",
        ),
        dict(
            type="scatter",
            mode="markers",
            x=[heldout_lower],
            y=[0],
            name=labels[3],
            marker=dict(color=colours[3], size=12, symbol="triangle-right"),
            hovertemplate="%{x:.4f}<extra>lower bound</extra>",
        ),
        dict(
            type="scatter",
            mode="lines",
            x=[truth, truth],
            y=[-0.5, 3.5],
            name="true advantage",
            line=dict(color=_TRUE, width=2),
            hovertemplate="true %{x:.4f}<extra></extra>",
        ),
        dict(
            type="scatter",
            mode="lines",
            x=[tanh_bound, tanh_bound],
            y=[-0.5, 3.5],
            name=f"tanh bound at ε = {epsilon:g} (Theorem 1)",
            line=dict(color=_BOUND, width=2, dash="dash"),
            hovertemplate="bound %{x:.4f}<extra></extra>",
        ),
    ]
    layout = _base_layout(
        height,
        xaxis=dict(title="membership advantage Adv_p", range=[-0.02, 1.02]),
        yaxis=dict(
            tickvals=[3, 2, 1, 0],
            ticktext=["plug-in", "Algorithm 1", "held-out", "lower bound"],
            range=[-0.6, 3.6],
        ),
        legend=dict(orientation="h", yanchor="top", y=-0.25, x=0),
        margin=dict(l=100, r=20, t=20, b=150),
    )
    fig = freeze(go.Figure(data=data, layout=layout))
    table = pd.DataFrame(
        {
            "quantity": [
                *labels,
                "paper's average interval: low",
                "paper's average interval: high",
                "true advantage",
                f"tanh bound (eps={epsilon:g})",
            ],
            "value": [*values, mean_interval[0], mean_interval[1], truth, tanh_bound],
        }
    )
    return fig, table


def drift_figure(
    n_values: Sequence[int],
    plugin: np.ndarray,
    heldout: np.ndarray,
    heldout_lower: np.ndarray,
    *,
    truth: float,
    height: int = 420,
) -> tuple[go.Figure, pd.DataFrame]:
    """Plug-in, held-out and held-out lower bound against N (log axis): mean over repeated
    runs (rows of the arrays are the N values, columns the runs), bars from min to max."""
    n = np.asarray(n_values, dtype=float)
    data = []
    rows = {}
    for name, arr, colour in (
        ("plug-in (in-sample)", plugin, "#9467bd"),
        ("held-out sgn(f̂)", heldout, _EST),
        ("held-out 95 % lower bound", heldout_lower, "#17becf"),
    ):
        a = np.asarray(arr, dtype=float)
        mean, lo, hi = a.mean(axis=1), a.min(axis=1), a.max(axis=1)
        rows[name] = (mean, lo, hi)
        data.append(
            dict(
                type="scatter",
                mode="lines+markers",
                x=n,
                y=mean,
                name=name,
                line=dict(color=colour),
                marker=dict(color=colour),
                error_y=dict(type="data", array=hi - mean, arrayminus=mean - lo, color=colour),
                customdata=np.c_[lo, hi],
                hovertemplate="N = %{x}<br>mean %{y:.4f}<br>range [%{customdata[0]:.4f}, "
                "%{customdata[1]:.4f}]<extra>" + name + "</extra>",
            )
        )
    data.append(
        dict(
            type="scatter",
            mode="lines",
            x=[n.min(), n.max()],
            y=[truth, truth],
            name="true advantage",
            line=dict(color=_TRUE, width=2, dash="dash"),
            hovertemplate="true %{y:.4f}<extra></extra>",
        )
    )
    layout = _base_layout(
        height, xaxis=dict(type="log", title="N per group"), yaxis=dict(title="advantage estimate")
    )
    fig = freeze(go.Figure(data=data, layout=layout))
    table = pd.DataFrame({"N": n.astype(int)})
    for name, (mean, lo, hi) in rows.items():
        table[f"{name}: mean"] = mean
        table[f"{name}: min"] = lo
        table[f"{name}: max"] = hi
    table["true advantage"] = truth
    return fig, table
