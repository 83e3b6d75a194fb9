"""Figure for "Can an audit catch a leaky mechanism?": the attack's ROC beside the certificates.

The measured ROC of the attacker that actually played (named after it: the likelihood-ratio
attacker or the distance rule), the corrected Theorem 8 region ``TPR ≤ FPR + 2η`` at the
certified η, and the ε-DP region (Laplace noise, :func:`mipcore.bounds.tpr_bound_dp`) or
the μ-Gaussian-DP trade-off curve (Gaussian noise, :func:`mipcore.guarantees.tpr_bound_gdp`).
No Streamlit here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mipcore.bounds import tpr_bound_dp, tpr_bound_mip
from mipcore.canary_audit import AuditAttacker
from mipcore.guarantees import tpr_bound_gdp
from mipcore.lessons.audit import AuditSummary

from . import style

__all__ = ["ATTACKER_NAMES", "audit_roc_figure"]

#: The legend name of each attacker's measured ROC.
ATTACKER_NAMES = {
    AuditAttacker.LR: "likelihood-ratio attack (measured)",
    AuditAttacker.DISTANCE: "distance attack (measured)",
}


def audit_roc_figure(
    summary: AuditSummary, attacker: AuditAttacker | str
) -> tuple[go.Figure, pd.DataFrame]:
    """The ROC of ``attacker`` over the summary's trials, under the certified regions; and
    the table it draws (bound curves on a 201-point FPR grid, then the measured points)."""
    who = AuditAttacker(attacker)
    cert = summary.certificate
    grid = np.linspace(0.0, 1.0, 201)
    traces: list[dict[str, Any]] = [
        dict(
            type="scatter",
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="blind guessing",
            line=dict(color=style.GREY, dash="dot", width=2),
        )
    ]
    table: dict[str, Any] = {"fpr_grid": grid}
    if cert.certified:
        mip = np.asarray(tpr_bound_mip(grid, cert.eta), dtype=float)
        traces.append(
            dict(
                type="scatter",
                x=grid,
                y=mip,
                mode="lines",
                name=f"MIP bound FPR + 2η (η = {cert.eta:.3g})",
                line=style.line(style.MIP),
            )
        )
        table["tpr_mip_bound"] = mip
    if cert.epsilon is not None:
        dp = np.asarray(tpr_bound_dp(grid, cert.epsilon), dtype=float)
        traces.append(
            dict(
                type="scatter",
                x=grid,
                y=dp,
                mode="lines",
                name=f"ε-DP region (ε = {cert.epsilon:.3g})",
                line=style.line(style.DP),
                fill="tozeroy",
                fillcolor="rgba(0,114,178,0.08)",
            )
        )
        table["tpr_dp_bound"] = dp
    elif cert.gdp_mu is not None:
        gdp = np.asarray(tpr_bound_gdp(grid, cert.gdp_mu), dtype=float)
        traces.append(
            dict(
                type="scatter",
                x=grid,
                y=gdp,
                mode="lines",
                name=f"Gaussian-DP curve (μ = {cert.gdp_mu:.3g})",
                line=style.line(style.DP),
                fill="tozeroy",
                fillcolor="rgba(0,114,178,0.08)",
            )
        )
        table["tpr_gdp_bound"] = gdp
    traces.append(
        dict(
            type="scatter",
            x=summary.fpr,
            y=summary.tpr,
            mode="lines",
            name=ATTACKER_NAMES[who],
            line=style.line(style.MEASURED, width=3.5),
        )
    )
    fig = go.Figure(
        data=traces,
        layout=style.layout(
            title=f"ROC of the attack over {summary.trials:,} trials",
            x="false-positive rate",
            y="true-positive rate",
            height=500,
            xaxis=dict(range=[0, 1]),
            yaxis=dict(range=[0, 1.02]),
        ),
    )
    roc = pd.DataFrame({"fpr_attack": summary.fpr, "tpr_attack": summary.tpr})
    return fig, pd.concat([pd.DataFrame(table), roc], axis=1)
