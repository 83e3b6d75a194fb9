"""Figure for the "Audit a mechanism" page: the attack's empirical ROC beside Theorem 8's regions.

Built in one ``go.Figure(data=[dict, ...], layout=dict)`` call; the returned DataFrame is
exactly what is drawn (the page offers it as CSV).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy import stats

from mipcore.bounds import tpr_bound_dp, tpr_bound_mip
from mipcore.plots import freeze

__all__ = ["audit_roc_figure"]

_ATTACK = "#2ca02c"
_DP = "#1f77b4"
_MIP = "#d62728"
_GREY = "#8a8f98"


def audit_roc_figure(
    fpr, tpr, *, eta_ub: float, eps: float | None, gdp_mu: float | None = None, title: str = ""
) -> tuple[go.Figure, pd.DataFrame]:
    """Empirical ROC (``fpr``, ``tpr``), the corrected MIP region TPR ≤ FPR + 2η at ``eta_ub``,
    and either the ε-DP region (``eps``) or the μ-Gaussian-DP curve (``gdp_mu``), if given."""
    fpr = np.asarray(fpr, float)
    tpr = np.asarray(tpr, float)
    grid = np.linspace(0.0, 1.0, 201)
    mip = np.asarray(tpr_bound_mip(grid, eta_ub), float)
    traces = [
        dict(
            type="scatter",
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="blind guessing",
            line=dict(color=_GREY, dash="dot"),
        ),
        dict(
            type="scatter",
            x=grid,
            y=mip,
            mode="lines",
            name=f"MIP bound FPR + 2η (η = {eta_ub:.4g})",
            line=dict(color=_MIP),
            fill="tozeroy",
            fillcolor="rgba(214,39,40,0.08)",
        ),
    ]
    table = {"fpr_grid": grid, "tpr_mip_bound": mip}
    if eps is not None:
        dp = np.asarray(tpr_bound_dp(grid, eps), float)
        traces.append(
            dict(
                type="scatter",
                x=grid,
                y=dp,
                mode="lines",
                name=f"ε-DP region (ε = {eps:.4g})",
                line=dict(color=_DP),
                fill="tozeroy",
                fillcolor="rgba(31,119,180,0.10)",
            )
        )
        table["tpr_dp_bound"] = dp
    elif gdp_mu is not None:
        with np.errstate(divide="ignore"):
            gdp = stats.norm.cdf(stats.norm.ppf(grid) + gdp_mu)
        traces.append(
            dict(
                type="scatter",
                x=grid,
                y=gdp,
                mode="lines",
                name=f"Gaussian-DP curve (μ = {gdp_mu:.4g})",
                line=dict(color=_DP, dash="dash"),
            )
        )
        table["tpr_gdp_bound"] = gdp
    traces.append(
        dict(
            type="scatter",
            x=fpr,
            y=tpr,
            mode="lines",
            name="likelihood-ratio attack (measured)",
            line=dict(color=_ATTACK, width=3),
        )
    )
    fig = freeze(
        go.Figure(
            data=traces,
            layout=dict(
                title=dict(text=title),
                xaxis=dict(title="false-positive rate", range=[0, 1]),
                yaxis=dict(title="true-positive rate", range=[0, 1.02]),
                height=460,
                legend=dict(orientation="h", y=-0.2),
                margin=dict(t=50),
            ),
        )
    )
    grid_df = pd.DataFrame(table)
    roc_df = pd.DataFrame({"fpr_attack": fpr, "tpr_attack": tpr})
    data = pd.concat([grid_df, roc_df], axis=1)
    return fig, data
