"""The audit page's chart, drawn by Vega-Lite: the attack's ROC beside the certificates.

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
from mipcore.guarantees import tpr_bound_gdp
from mipcore.lessons.audit import AuditSummary, thin_roc

from . import style
from .vega import AUTOSIZE, DASH, PADDING, VegaLiteChart, bends, config

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
_MARKERS = 9  # markers on each bound (the legend's second cue)


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

    # (legend name, table column, colour, dash, shape)
    curves: list[tuple[str, str, str, list[int], str]] = []
    if "tpr_mip_bound" in table:
        curves.append(
            (MIP_NAME, "tpr_mip_bound", style.MIP.colour, DASH["solid"], style.MIP["symbol"])
        )
    region = next((c for c in ("tpr_dp_bound", "tpr_gdp_bound") if c in table), None)
    if region is not None:
        name = DP_NAME if region == "tpr_dp_bound" else GDP_NAME
        curves.append((name, region, style.DP.colour, DASH["dash"], style.DP["symbol"]))

    bound_frames = [pd.DataFrame({"name": GUESS_NAME, "fpr": [0.0, 1.0], "tpr": [0.0, 1.0]})]
    marker_frames = []
    picks = np.unique(np.round(np.linspace(0, grid.size - 1, _MARKERS)).astype(int))
    for name, column, *_ in curves:
        tpr = table[column].to_numpy(dtype=float)[: grid.size]
        if column == "tpr_gdp_bound":  # smooth: every other grid point, both ends
            keep = np.arange(grid.size) % 2 == 0
            keep[-1] = True
        else:  # piecewise linear: its bends draw it exactly
            keep = bends(grid, tpr)
        bound_frames.append(pd.DataFrame({"name": name, "fpr": grid[keep], "tpr": tpr[keep]}))
        marker_frames.append(pd.DataFrame({"name": name, "fpr": grid[picks], "tpr": tpr[picks]}))
    f_att, t_att = _attack_rows(summary.fpr, summary.tpr)
    bound_frames.append(pd.DataFrame({"name": attack, "fpr": f_att, "tpr": t_att}))
    lines = pd.concat(bound_frames, ignore_index=True)
    datasets: dict[str, pd.DataFrame] = {"lines": lines}

    domain = [GUESS_NAME] + [c[0] for c in curves] + [attack]
    colours = [style.GREY] + [c[2] for c in curves] + [style.MEASURED.colour]
    dashes = [DASH["dot"]] + [c[3] for c in curves] + [DASH[str(style.MEASURED["dash"])]]
    shapes = ["stroke"] + [str(c[4]) for c in curves] + ["stroke"]
    widths = [2.0] + [2.5] * len(curves) + [3.5]
    legend: dict[str, Any] = {"title": None, "symbolSize": 160, "symbolStrokeWidth": 2.5}
    if not curves:  # no markers: every legend entry a stroke
        legend.update(symbolType="stroke", symbolSize=500)

    def by_name(channel_range: list[Any], shown: dict[str, Any] | None = legend) -> dict[str, Any]:
        return {
            "field": "name",
            "type": "nominal",
            "scale": {"domain": domain, "range": channel_range},
            "legend": shown,
        }

    x = {
        "field": "fpr",
        "type": "quantitative",
        "title": "false-positive rate",
        "scale": {"domain": [0.0, 1.0], "nice": False},
    }
    y = {
        "field": "tpr",
        "type": "quantitative",
        "title": "true-positive rate",
        "scale": {"domain": [0.0, 1.02], "nice": False},
    }
    tooltip = [
        {"field": "name", "type": "nominal", "title": "curve"},
        {"field": "fpr", "type": "quantitative", "title": "FPR", "format": ".3~g"},
        {"field": "tpr", "type": "quantitative", "title": "TPR", "format": ".4~g"},
    ]
    layers: list[dict[str, Any]] = []
    if region is not None:
        shade = lines[lines["name"] == curves[-1][0]][["fpr", "tpr"]].reset_index(drop=True)
        datasets["region"] = shade
        layers.append(
            {
                "data": {"name": "region"},
                "mark": {"type": "area", "color": style.DP.colour, "opacity": 0.08},
                "encoding": {
                    "x": {"field": "fpr", "type": "quantitative"},
                    "y": {"field": "tpr", "type": "quantitative"},
                },
            }
        )
    layers.append(
        {
            "data": {"name": "lines"},
            "mark": {"type": "line", "clip": True},
            "encoding": {
                "x": x,
                "y": y,
                "color": by_name(colours),
                "strokeDash": by_name(dashes),
                "strokeWidth": by_name(widths, None),
                "tooltip": tooltip,
            },
        }
    )
    if curves:
        datasets["markers"] = pd.concat(marker_frames, ignore_index=True)
        layers.append(
            {
                "data": {"name": "markers"},
                "mark": {"type": "point", "filled": True, "size": 70, "opacity": 1, "clip": True},
                "encoding": {
                    "x": x,
                    "y": y,
                    "color": by_name(colours),
                    "shape": by_name(shapes),
                    "tooltip": tooltip,
                },
            }
        )
    spec = {
        "title": ROC_TITLE,
        "width": "container",
        "height": 360,
        "padding": dict(PADDING),
        "autosize": dict(AUTOSIZE),
        "layer": layers,
        "config": config(),
    }
    return VegaLiteChart(spec=spec, datasets=datasets, title=ROC_TITLE), table
