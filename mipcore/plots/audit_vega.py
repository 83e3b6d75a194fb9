"""The audit page's chart, a ROC-region chart (:mod:`mipcore.plots.roc`): the attack's ROC
beside the certificates.

The measured ROC of the attacker that actually played (named after it: the likelihood-ratio
attacker or the distance rule), the corrected Theorem 8 region ``TPR ≤ FPR + 2η`` at the
certified η, and the ε-DP region (Laplace noise, :func:`mipcore.bounds.tpr_bound_dp`) or the
μ-Gaussian-DP trade-off curve (Gaussian noise, :func:`mipcore.guarantees.tpr_bound_gdp`).

The specification depends only on which curves there are (the noise) and on the attacker's
name; the certified η, ε or μ and the measured ROC are in the named tables, so moving the η
or ε slider redraws the chart in place (see :mod:`mipcore.plots.vega`). The legend names no
number: the page states the certified values in the chart's caption. No Streamlit here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mipcore.bounds import tpr_bound_dp, tpr_bound_mip
from mipcore.canary_audit import AuditAttacker
from mipcore.experiments.canary_game import AuditSummary, thin_roc
from mipcore.guarantees import tpr_bound_gdp

from . import roc, style
from .vega import VegaLiteChart, bends, every_other

__all__ = [
    "ATTACKER_NAMES",
    "DP_NAME",
    "GDP_NAME",
    "GUESS_NAME",
    "MIP_NAME",
    "ROC_TITLE",
    "audit_roc_table",
    "audit_roc_vega",
]

ROC_TITLE = "ROC of the attack under the certified regions"

#: The legend name of each attacker's measured ROC.
ATTACKER_NAMES = {
    AuditAttacker.LR: "likelihood-ratio attack (measured)",
    AuditAttacker.DISTANCE: "distance attack (measured)",
}
GUESS_NAME = "blind guessing"
MIP_NAME = "MIP bound TPR ≤ FPR + 2η at the certified η"
DP_NAME = "ε-DP region at the certified ε"
GDP_NAME = "Gaussian-DP curve at the certified μ"

#: At most this many points of the measured ROC are drawn (its bends, evenly thinned); the
#: table keeps all of them.
ROC_POINTS = 500


def audit_roc_table(summary: AuditSummary) -> pd.DataFrame:
    """The chart's table: the bounds on a 201-point FPR grid (``fpr_grid``, ``tpr_mip_bound``
    if η is certified, ``tpr_dp_bound`` or ``tpr_gdp_bound``), then the measured ROC
    (``fpr_attack``, ``tpr_attack``) in columns of their own."""
    cert = summary.certificate
    grid = np.linspace(0.0, 1.0, 201)
    table: dict[str, Any] = {"fpr_grid": grid}
    if cert.certified:
        table["tpr_mip_bound"] = np.asarray(tpr_bound_mip(grid, cert.eta), dtype=float)
    if cert.epsilon is not None:
        table["tpr_dp_bound"] = np.asarray(tpr_bound_dp(grid, cert.epsilon), dtype=float)
    elif cert.gdp_mu is not None:
        table["tpr_gdp_bound"] = np.asarray(tpr_bound_gdp(grid, cert.gdp_mu), dtype=float)
    roc = pd.DataFrame({"fpr_attack": summary.fpr, "tpr_attack": summary.tpr})
    return pd.concat([pd.DataFrame(table), roc], axis=1)


def _attack_rows(fpr: np.ndarray, tpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The measured ROC as drawn: its bends, at most :data:`ROC_POINTS` of them (both ends)."""
    keep = bends(fpr, tpr)
    return thin_roc(fpr[keep], tpr[keep], ROC_POINTS)


def audit_roc_vega(
    summary: AuditSummary, attacker: AuditAttacker | str
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The ROC of ``attacker`` over the summary's trials, under the certified regions; and
    :func:`audit_roc_table`.

    Drawn: blind guessing (grey dotted diagonal); when η is certified, the MIP bound (solid
    vermillion, circles); the ε-DP region or the Gaussian-DP curve (dashed blue, squares,
    shaded below); the measured ROC (thick dotted green). The MIP and ε-DP bounds are
    piecewise linear and drawn through their bends, the Gaussian-DP curve through every
    other grid point; the measured ROC through at most :data:`ROC_POINTS` of its points.
    """
    who = AuditAttacker(attacker)
    table = audit_roc_table(summary)
    grid = table["fpr_grid"].dropna().to_numpy(dtype=float)  # the table's rows are the longer
    # of the grid and the measured ROC: the other's columns end in empty cells
    attack = ATTACKER_NAMES[who]

    bounds: dict[str, tuple[str, roc.Entry]] = {}  # legend name: (table column, look)
    if "tpr_mip_bound" in table:
        bounds[MIP_NAME] = ("tpr_mip_bound", roc.styled(style.MIP))
    region = next((c for c in ("tpr_dp_bound", "tpr_gdp_bound") if c in table), None)
    if region is not None:
        name = DP_NAME if region == "tpr_dp_bound" else GDP_NAME
        bounds[name] = (region, roc.styled(style.DP))

    bound_frames = [pd.DataFrame({"name": GUESS_NAME, "fpr": [0.0, 1.0], "tpr": [0.0, 1.0]})]
    marker_frames = []
    picks = roc.spread(grid.size)
    for name, (column, _look) in bounds.items():
        tpr = table[column].to_numpy(dtype=float)[: grid.size]
        if column == "tpr_gdp_bound":  # smooth: every other grid point, both ends
            keep = every_other(grid.size)
        else:  # piecewise linear: its bends draw it exactly
            keep = bends(grid, tpr)
        bound_frames.append(pd.DataFrame({"name": name, "fpr": grid[keep], "tpr": tpr[keep]}))
        marker_frames.append(pd.DataFrame({"name": name, "fpr": grid[picks], "tpr": tpr[picks]}))
    f_att, t_att = _attack_rows(summary.fpr, summary.tpr)
    bound_frames.append(pd.DataFrame({"name": attack, "fpr": f_att, "tpr": t_att}))
    lines = pd.concat(bound_frames, ignore_index=True)
    datasets: dict[str, pd.DataFrame] = {"lines": lines}
    layers: list[roc.Layer] = []
    if region is not None:
        shade = lines[lines["name"] == list(bounds)[-1]][["fpr", "tpr"]].reset_index(drop=True)
        datasets["region"] = shade
        layers.append(roc.Region("region", style.DP.colour, 0.08))
    layers.append(roc.Curves("lines"))
    if bounds:
        datasets["markers"] = pd.concat(marker_frames, ignore_index=True)
        layers.append(roc.Points("markers", 70))
    entries = (
        {GUESS_NAME: roc.CHANCE}
        | {name: look for name, (_column, look) in bounds.items()}
        | {attack: roc.styled(style.MEASURED, width=3.5, marker=False)}
    )
    chart = roc.chart(
        ROC_TITLE,
        datasets,
        plane=roc.Plane(),
        entries=entries,
        layers=layers,
        height=360,
        # no markers: every legend entry a stroke
        legend={"symbolSize": 160} if bounds else {"symbolType": "stroke", "symbolSize": 500},
    )
    return chart, table
