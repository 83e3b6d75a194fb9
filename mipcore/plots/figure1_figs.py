"""Figures for Figure 1 of the paper: noise needed for eta-MIP, directly vs through DP.

Source: ``000_ece03c98c31c7b12.txt`` Section 5.1 (Figure 1 and its caption).

The builders take the long table of :func:`mipcore.lessons.figure1.noise_curves` (columns
``n, eta, method, noise_scale, sigma, sensitivity``) and points computed by
:mod:`mipcore.noise` / :mod:`mipcore.lessons.figure1`, and return a
:class:`plotly.graph_objects.Figure`. They compute none of the mathematics: the
only arithmetic here is reshaping (:func:`ratio_frame` divides the two columns the
figure shows) and choosing axis ranges, so a figure always shows exactly the data
handed to it and the page can offer that same data as CSV.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = [
    "Mark",
    "colour_of",
    "dp_floor",
    "dp_hidden",
    "noise_figure",
    "ratio_figure",
    "ratio_frame",
]

# Eight well-separated colours on white (one per n; the page allows at most eight n).
_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
_INK = "#333333"
_GREY = "#8a8f98"


@dataclass(frozen=True)
class Mark:
    """A point to mark on a curve of n: ``(eta, y)`` with a hover ``label``."""

    n: int
    eta: float
    y: float
    label: str


def colour_of(ns: Sequence[int]) -> dict[int, str]:
    """The colour of each n (in increasing order of n), shared by both figures."""
    return {n: _COLOURS[i % len(_COLOURS)] for i, n in enumerate(sorted(set(ns)))}


def ratio_frame(curves: pd.DataFrame) -> pd.DataFrame:
    """Wide table of the curves: ``n, eta, mip_scale, dp_scale, ratio_dp_over_mip``.

    ``ratio_dp_over_mip`` is how many times more noise DP needs than MIP (> 1: MIP cheaper).
    """
    fast = _ratio_frame_paired(curves)
    if fast is not None:
        return fast
    wide = curves.pivot_table(
        index=["n", "eta"], columns="method", values="noise_scale", aggfunc="first"
    ).reset_index()
    wide = wide.rename(columns={"MIP": "mip_scale", "DP": "dp_scale"})
    wide.columns.name = None
    wide["ratio_dp_over_mip"] = wide["dp_scale"] / wide["mip_scale"]
    return wide[["n", "eta", "mip_scale", "dp_scale", "ratio_dp_over_mip"]]


def _ratio_frame_paired(curves: pd.DataFrame) -> pd.DataFrame | None:
    """:func:`ratio_frame` without a pivot, for the tables :func:`mipcore.lessons.figure1.noise_curves`
    makes: the MIP and the DP rows pair up one to one in the same (n, eta) order, sorted and
    without repeats or NaN. Returns None for any other table (the pivot handles it)."""
    method = curves["method"].to_numpy()
    mip, dp = method == "MIP", method == "DP"
    if not mip.any() or mip.sum() != dp.sum() or mip.sum() + dp.sum() != len(curves):
        return None
    n_all = curves["n"].to_numpy()
    eta_all = curves["eta"].to_numpy()
    scale = curves["noise_scale"].to_numpy()
    if eta_all.dtype.kind != "f" or scale.dtype.kind != "f":
        return None
    n, eta = n_all[mip], eta_all[mip]
    if not (np.array_equal(n, n_all[dp]) and np.array_equal(eta, eta_all[dp])):
        return None
    if np.isnan(scale).any() or np.isnan(eta).any():
        return None
    ascending = (n[1:] > n[:-1]) | ((n[1:] == n[:-1]) & (eta[1:] > eta[:-1]))
    if not ascending.all():  # the pivot sorts by (n, eta) and merges repeats
        return None
    mip_scale, dp_scale = scale[mip], scale[dp]
    return pd.DataFrame(
        {
            "n": n,
            "eta": eta,
            "mip_scale": mip_scale,
            "dp_scale": dp_scale,
            "ratio_dp_over_mip": dp_scale / mip_scale,
        }
    )


def dp_floor(curves: pd.DataFrame) -> dict[int, float]:
    """Per n, the lowest DP noise scale on the plotted eta range (a DP curve falls with eta)."""
    dp = curves[curves["method"] == "DP"]
    return {int(n): float(v) for n, v in dp.groupby("n")["noise_scale"].min().items()}


def dp_hidden(curves: pd.DataFrame, y_top: float | None) -> list[tuple[int, float]]:
    """``(n, lowest DP scale)`` for every n whose DP curve lies entirely above ``y_top``."""
    if y_top is None:
        return []
    return [(n, v) for n, v in sorted(dp_floor(curves).items()) if v > y_top]


def _axis_eta(log_x: bool, eta_min: float, eta_max: float) -> dict:
    if log_x:
        return dict(
            type="log",
            range=[math.log10(eta_min), math.log10(eta_max)],
            title="η (attacker's edge over guessing; log scale)",
        )
    return dict(type="linear", range=[eta_min, eta_max], title="η (attacker's edge over guessing)")


_LEGEND = dict(
    orientation="v",
    x=1.01,
    xanchor="left",
    y=1.0,
    yanchor="top",
    tracegroupgap=2,
    font=dict(size=12),
)


def _title(text: str | None, subtitle: str | None) -> dict:
    out: dict = dict(text=text or "", x=0.0, xanchor="left")
    if subtitle:
        out["subtitle"] = dict(text=subtitle, font=dict(size=13, color=_GREY))
    return out


def _legend_key() -> list[dict]:
    """Two black legend entries that explain the line styles (no data: legend only)."""
    return [
        dict(
            type="scatter",
            x=[None],
            y=[None],
            mode="lines",
            name=name,
            line=dict(color=_INK, dash=dash, width=2),
            hoverinfo="skip",
            legendgroup="_style",
        )
        for name, dash in (
            ("MIP (Theorem 9 / Cor. 14): solid", "solid"),
            ("DP (Laplace + Theorem 4): dotted", "dot"),
        )
    ]


def _markers(
    marks: Sequence[Mark],
    col: dict[int, str],
    *,
    name: str,
    symbol: str,
    size: int,
    edge: float,
    **extra,
) -> dict:
    """One trace of hoverable markers, coloured by n (plain lists: a handful of points)."""
    return dict(
        type="scatter",
        x=[m.eta for m in marks],
        y=[m.y for m in marks],
        mode="markers",
        name=name,
        marker=dict(
            symbol=symbol,
            size=size,
            color=[col.get(m.n, _INK) for m in marks],
            line=dict(color=_INK, width=edge),
        ),
        text=[m.label for m in marks],
        hovertemplate="%{text}<extra></extra>",
        **extra,
    )


def _columns(frame: pd.DataFrame, y: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n``, ``eta`` and ``y`` of a curve table as numpy arrays (split per n by masks)."""
    return (
        frame["n"].to_numpy(),
        frame["eta"].to_numpy(dtype=float),
        frame[y].to_numpy(dtype=float),
    )


# Both figures are built in ONE go.Figure(data=[dict, ...], layout=dict(...)) call: Plotly then
# validates the figure once, several times cheaper than add_trace / update_layout / add_hline
# one by one. Curve coordinates are float64 numpy arrays: Plotly validates them without a
# per-point pass and sends them as base64 typed arrays (a third smaller than JSON lists; the
# same plot). Markers keep plain lists: a handful of points each.
def noise_figure(
    curves: pd.DataFrame,
    *,
    crossings: Sequence[Mark] = (),
    log_x: bool = False,
    log_y: bool = False,
    y_top: float | None = None,
    title: str | None = None,
    height: int = 500,
) -> go.Figure:
    """Noise scale against eta: MIP solid, DP dotted, one colour per n (Figure 1).

    Parameters
    ----------
    curves : the table of :func:`mipcore.lessons.figure1.noise_curves`.
    crossings : points where the MIP and DP curves of an n cross (marked as diamonds).
    log_x, log_y : logarithmic axes.
    y_top : if given, the y-axis stops there (the paper-like cap); DP curves entirely
        above it are listed in the subtitle.
    """
    n_col, eta, scale = _columns(curves, "noise_scale")
    method = curves["method"].to_numpy()
    ns = sorted(int(n) for n in np.unique(n_col))
    col = colour_of(ns)
    eta_min, eta_max = float(eta.min()), float(eta.max())
    data: list[dict] = []
    for n in ns:
        of_n = n_col == n
        for meth, dash, width in (("MIP", "solid", 2.5), ("DP", "dot", 2.5)):
            rows = of_n & (method == meth)
            data.append(
                dict(
                    type="scatter",
                    x=eta[rows],
                    y=scale[rows],
                    mode="lines",
                    name=f"n = {n}",
                    legendgroup=f"n{n}",
                    showlegend=(meth == "MIP"),
                    line=dict(color=col[n], dash=dash, width=width),
                    hovertemplate=(
                        f"<b>{meth}</b>, n = {n}<br>η = %{{x:.4~g}}<br>"
                        f"noise scale = %{{y:.4~g}}<extra></extra>"
                    ),
                )
            )
    if crossings:
        data.append(
            _markers(
                crossings,
                col,
                name="crossover (MIP cheaper to the right)",
                symbol="diamond",
                size=12,
                edge=1.5,
                legendgroup="_cross",
            )
        )
    data.extend(_legend_key())

    yaxis: dict = dict(title="Laplace noise scale (lower is better)")
    subtitle = None
    if log_y:
        yaxis["type"] = "log"
        yaxis["exponentformat"] = "power"
    else:
        yaxis["exponentformat"] = "SI"
    if y_top is not None and y_top > 0:
        if log_y:
            positive = scale[scale > 0]
            low = float(positive.min()) if len(positive) else y_top / 10.0
            low = min(low, y_top / 10.0)
            yaxis["range"] = [math.log10(low) - 0.1, math.log10(y_top)]
        else:
            yaxis["range"] = [0.0, y_top]
        hidden = dp_hidden(curves, y_top)
        if hidden:
            ns_text = ", ".join(str(n) for n, _ in hidden)
            plural = "s" if len(hidden) > 1 else ""
            subtitle = (
                f"y-axis capped at the MIP maximum; DP curve{plural} entirely above "
                f"the plot: n = {ns_text}"
            )
        else:
            subtitle = "y-axis capped at the MIP maximum; every DP curve enters the plot"
    return go.Figure(
        data=data,
        layout=dict(
            title=_title(title, subtitle),
            height=height,
            hovermode="closest",
            xaxis=_axis_eta(log_x, eta_min, eta_max),
            yaxis=yaxis,
            legend=_LEGEND,
            margin=dict(l=10, r=10, t=80 if subtitle else 50, b=50),
        ),
    )


def ratio_figure(
    ratios: pd.DataFrame,
    *,
    crossings: Sequence[Mark] = (),
    peaks: Sequence[Mark] = (),
    log_x: bool = False,
    title: str | None = None,
    height: int = 420,
) -> go.Figure:
    """How many times more noise DP needs than MIP, against eta (log y), one line per n.

    Parameters
    ----------
    ratios : the table of :func:`ratio_frame`.
    crossings : points where the ratio is 1 (drawn on the line y = 1).
    peaks : the largest ratio of each n (if inside the plotted range).
    """
    n_col, eta, ratio = _columns(ratios, "ratio_dp_over_mip")
    ns = sorted(int(n) for n in np.unique(n_col))
    col = colour_of(ns)
    eta_min, eta_max = float(eta.min()), float(eta.max())
    data: list[dict] = []
    for n in ns:
        rows = n_col == n
        data.append(
            dict(
                type="scatter",
                x=eta[rows],
                y=ratio[rows],
                mode="lines",
                name=f"n = {n}",
                line=dict(color=col[n], width=2.5),
                hovertemplate=(
                    f"n = {n}<br>η = %{{x:.4~g}}<br>DP needs %{{y:.4~g}}× "
                    "the MIP noise<extra></extra>"
                ),
            )
        )
    if crossings:
        data.append(_markers(crossings, col, name="crossover", symbol="diamond", size=12, edge=1.5))
    if peaks:
        data.append(_markers(peaks, col, name="largest ratio", symbol="star", size=13, edge=1))
    y = ratio[np.isfinite(ratio) & (ratio > 0)]
    yaxis: dict = dict(type="log", exponentformat="power", title="DP noise ÷ MIP noise (log scale)")
    if len(y):
        lo, hi = min(float(y.min()), 1.0), max(float(y.max()), 1.0)
        yaxis["range"] = [math.log10(lo) - 0.2, math.log10(hi) + 0.2]
    # The line y = 1 and its label, as fig.add_hline(y=1, annotation_position="bottom right")
    # would place them (across the whole x-axis, label under its right end).
    return go.Figure(
        data=data,
        layout=dict(
            title=_title(title, None),
            height=height,
            hovermode="closest",
            xaxis=_axis_eta(log_x, eta_min, eta_max),
            yaxis=yaxis,
            legend=_LEGEND,
            margin=dict(l=10, r=10, t=50, b=50),
            shapes=[
                dict(
                    type="line",
                    x0=0,
                    x1=1,
                    xref="x domain",
                    y0=1.0,
                    y1=1.0,
                    yref="y",
                    line=dict(color=_INK, dash="dash", width=1.5),
                )
            ],
            annotations=[
                dict(
                    text="equal noise: above, MIP is cheaper",
                    showarrow=False,
                    font=dict(size=12),
                    x=1,
                    xanchor="right",
                    xref="x domain",
                    y=1.0,
                    yanchor="top",
                    yref="y",
                )
            ],
        ),
    )
