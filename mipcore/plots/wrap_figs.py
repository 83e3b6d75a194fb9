"""Figures for "Wrap your own statistic": Algorithm 1 (MIP) beside the DP Laplace mechanism.

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Algorithm 1, Corollary 10) and the
Laplace mechanism; the numbers come from :func:`mipcore.lessons.statistic_release.wrap_statistic`.

The ``*_frame`` helpers turn results into plain tables (the same tables a page offers
as CSV); the ``*_figure`` builders draw exactly those tables and compute nothing of
the mathematics. Figures are built in one ``go.Figure(data=[dict...], layout=dict)``
call from plain dicts, which is much cheaper than ``add_trace``/``update_layout``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mipcore.plots import freeze

__all__ = ["DP_COLOR", "MIP_COLOR", "error_figure", "error_frame", "spread_figure", "spread_frame"]

MIP_COLOR = "#d62728"  # MIP: noise scaled by the spread sigma
DP_COLOR = "#1f77b4"  # DP: noise scaled by the sensitivity Delta
SIGMA_COLOR = "#222222"
SPREAD_QUANTILES = (0.1, 0.5, 0.9)


def _g(x: float, digits: int = 4) -> str:
    """Short hover text for a number ('3.2e-07' style; never 'nan')."""
    if x is None:
        return "—"
    x = float(x)
    if math.isnan(x):
        return "—"
    return f"{x:.{digits}g}"


def _positive_or_none(values) -> list:
    """Values for a log axis: zero, negative or non-finite entries become gaps (None)."""
    return [float(v) if v is not None and np.isfinite(v) and v > 0 else None for v in values]


def _log_axis(*columns) -> dict:
    """A log y axis over whole decades (at least two), one labelled tick per decade (at most
    about ten labels): Plotly's own choice labels 2, 3, ..., 9 on short ranges."""
    vals = np.concatenate([np.asarray(c, dtype=float).ravel() for c in columns])
    vals = vals[np.isfinite(vals) & (vals > 0)]
    axis = dict(title=dict(text="|release − θ| (log scale)"), type="log", exponentformat="power")
    if vals.size == 0:
        return axis
    lo = math.floor(math.log10(vals.min()))
    hi = math.ceil(math.log10(vals.max()))
    if hi - lo < 2:  # pad a short range to two decades or more around its middle
        mid = (lo + hi) / 2
        lo, hi = math.floor(mid - 1), math.ceil(mid + 1)
    step = max(1, math.ceil((hi - lo) / 10))
    return axis | dict(range=[lo, hi], dtick=step, minor=dict(showgrid=False))


def error_frame(labels: Sequence[str], theta, mip, dp=None) -> pd.DataFrame:
    """|release - theta| per coordinate for one MIP release and (if any) one DP release.

    ``dp`` is None when the statistic has no bounded sensitivity (no DP release); its
    column is then NaN (an empty cell in the CSV).
    """
    theta = np.asarray(theta, dtype=float)
    mip_err = np.abs(np.asarray(mip, dtype=float) - theta)
    dp_err = (
        np.abs(np.asarray(dp, dtype=float) - theta)
        if dp is not None
        else np.full_like(theta, np.nan)
    )
    return pd.DataFrame(
        {
            "quantity": [str(s) for s in labels],
            "theta": theta,
            "mip_abs_error": mip_err,
            "dp_abs_error": dp_err,
        }
    )


def error_figure(frame: pd.DataFrame, *, height: int = 400) -> go.Figure:
    """Grouped bars of |release - θ| per coordinate, MIP vs DP, on a log y axis."""
    x = frame["quantity"].tolist()
    data = [
        dict(
            type="bar",
            name="MIP release (Algorithm 1)",
            x=x,
            y=_positive_or_none(frame["mip_abs_error"]),
            marker=dict(color=MIP_COLOR),
            customdata=[_g(v) for v in frame["mip_abs_error"]],
            hovertemplate="%{x}<br>MIP |release − θ| = %{customdata}<extra></extra>",
        )
    ]
    if frame["dp_abs_error"].notna().any():
        data.append(
            dict(
                type="bar",
                name="DP Laplace release",
                x=x,
                y=_positive_or_none(frame["dp_abs_error"]),
                marker=dict(color=DP_COLOR),
                customdata=[_g(v) for v in frame["dp_abs_error"]],
                hovertemplate="%{x}<br>DP |release − θ| = %{customdata}<extra></extra>",
            )
        )
    layout = dict(
        title=dict(
            text="This release: how far each coordinate landed from θ",
            y=0.97,
            yanchor="top",
            yref="container",
        ),
        barmode="group",
        height=height,
        margin=dict(l=10, r=10, t=80, b=40),
        xaxis=dict(title=dict(text="released quantity"), type="category", automargin=True),
        yaxis=_log_axis(frame["mip_abs_error"], frame["dp_abs_error"]),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0),
        showlegend=True,  # also with the MIP bars alone (no DP release)
    )
    return freeze(go.Figure(data=data, layout=layout))


def spread_frame(
    labels: Sequence[str],
    sigma,
    mip_noise,
    dp_noise=None,
    quantiles: Sequence[float] = SPREAD_QUANTILES,
) -> pd.DataFrame:
    """Quantiles of |noise| per coordinate over repeated draws (rows = draws).

    One row per (quantity, mechanism) with the 10 %, 50 % and 90 % quantiles of
    |release - θ| and the coordinate's σ (Algorithm 1's estimate) for reference.
    """
    lo_q, mid_q, hi_q = quantiles
    sigma = np.asarray(sigma, dtype=float)
    parts = []
    for name, draws in (("MIP", mip_noise), ("DP", dp_noise)):
        if draws is None:
            continue
        a = np.abs(np.asarray(draws, dtype=float))
        q = np.quantile(a, [lo_q, mid_q, hi_q], axis=0)
        parts.append(
            pd.DataFrame(
                {
                    "quantity": [str(s) for s in labels],
                    "mechanism": name,
                    "draws": a.shape[0],
                    "q10": q[0],
                    "median": q[1],
                    "q90": q[2],
                    "sigma": sigma,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def spread_figure(frame: pd.DataFrame, *, height: int = 440) -> go.Figure:
    """Median |noise| per coordinate with a 10-90 % band, MIP vs DP, σ for reference (log y)."""
    colors = {"MIP": MIP_COLOR, "DP": DP_COLOR}
    names = {"MIP": "MIP (Algorithm 1)", "DP": "DP Laplace"}
    data = []
    for mech, part in frame.groupby("mechanism", sort=False):
        med = part["median"].to_numpy()
        up = part["q90"].to_numpy() - med
        down = med - part["q10"].to_numpy()
        n = int(part["draws"].iloc[0])
        data.append(
            dict(
                type="scatter",
                mode="markers",
                name=f"{names[mech]}: median, 10–90 % of {n} draws",
                x=part["quantity"].tolist(),
                y=_positive_or_none(med),
                marker=dict(
                    color=colors[mech], size=9, symbol="circle" if mech == "MIP" else "diamond"
                ),
                error_y=dict(
                    type="data",
                    symmetric=False,
                    array=up.tolist(),
                    arrayminus=down.tolist(),
                    color=colors[mech],
                    thickness=1.5,
                    width=4,
                ),
                customdata=[
                    [_g(a), _g(b), _g(c)]
                    for a, b, c in zip(part["q10"], med, part["q90"], strict=True)
                ],
                hovertemplate=(
                    f"%{{x}}<br>{names[mech]} |noise|: median %{{customdata[1]}}"
                    "<br>10 %: %{customdata[0]}, 90 %: %{customdata[2]}<extra></extra>"
                ),
            )
        )
    first = frame.drop_duplicates("quantity")
    data.append(
        dict(
            type="scatter",
            mode="markers",
            name="σ (spread of θ over random halves)",
            x=first["quantity"].tolist(),
            y=_positive_or_none(first["sigma"]),
            marker=dict(color=SIGMA_COLOR, symbol="line-ew-open", size=16, line=dict(width=2)),
            customdata=[_g(v) for v in first["sigma"]],
            hovertemplate="%{x}<br>σ = %{customdata}<extra></extra>",
        )
    )
    layout = dict(
        title=dict(
            text="Many releases: how large the noise typically is",
            y=0.97,
            yanchor="top",
            yref="container",
        ),
        height=height,
        margin=dict(l=10, r=10, t=100, b=40),
        xaxis=dict(title=dict(text="released quantity"), type="category", automargin=True),
        yaxis=_log_axis(frame["q10"], frame["q90"], frame["sigma"]),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0),
    )
    return freeze(go.Figure(data=data, layout=layout))
