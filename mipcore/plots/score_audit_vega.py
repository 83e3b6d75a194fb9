"""The model audit's chart, a ROC-region chart (:mod:`mipcore.plots.roc`): what an attack on a
model measured, on the same plane as what the model's claimed guarantee allows.

The claim is :func:`mipcore.guarantees.attacker_bound`'s ROC boundary (dashed blue with
squares, its region shaded below it) and the line its certified η alone allows,
``TPR ≤ FPR + 2η`` (Theorem 8 corrected; solid vermillion with circles); the evidence is the
attack's measured ROC (:meth:`mipcore.score_audit.ScoreAudit.roc`; thick dotted green), with,
for independent trials, its confidence band (:meth:`~mipcore.score_audit.ScoreAudit.tpr_at`
on a grid of FPRs, shaded green) and the corner the ε lower bound certifies (a black star).
Claim and evidence differ in dash and marker as well as colour. Random guessing is the grey
dotted diagonal. Linear axes, or log–log from FPR and TPR 10⁻⁵ (the low-FPR regime where
membership attacks are judged: Carlini et al., *Membership Inference Attacks From First
Principles*, IEEE S&P 2022, arXiv:2112.03570).

The specification depends only on the axes and on whether the band is drawn; every number is
in the tables, so a new confidence, δ or claim redraws the chart in place. The legend names no
number (the page's caption does). No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mipcore.guarantees import AttackerBound
from mipcore.score_audit import ScoreAudit

from . import roc, style
from .vega import STAR, VegaLiteChart

__all__ = [
    "CLAIM_NAME",
    "CORNER_NAME",
    "ETA_NAME",
    "FLOOR",
    "GUESS_NAME",
    "ROC_NAME",
    "TITLE",
    "audit_roc_table",
    "audit_roc_vega",
]

TITLE = "The attack's ROC and the claim"
CLAIM_NAME = "claimed guarantee: no attack above this curve"
ETA_NAME = "claimed η alone: TPR ≤ FPR + 2η"
ROC_NAME = "the attack, measured"
CORNER_NAME = "corner the audit certifies (its ε)"
GUESS_NAME = "random guessing"
#: The log–log plane's lower end, on both axes.
FLOOR = 1e-5
ROC_POINTS = 600  # at most this many corners of the measured ROC are drawn
_BAND_FPRS = 48  # FPRs at which the band is computed (log-spaced from 1/n, and linear)
_MARKERS = 9


def _band_fprs(non_members: int) -> np.ndarray:
    lo = min(max(1.0 / non_members, FLOOR), 0.5)
    grid = np.concatenate((np.geomspace(lo, 0.99, _BAND_FPRS), np.linspace(0.05, 0.95, 19)))
    return np.unique(grid)


def audit_roc_table(audit: ScoreAudit, bound: AttackerBound, *, band: bool) -> pd.DataFrame:
    """The chart's numbers, one row per point: ``curve`` (``claim`` -- the claimed ROC
    boundary, ``claim_eta`` -- the line of its η, ``measured`` -- the attack's ROC, and with
    ``band`` ``measured_band`` -- the TPR's estimate and confidence interval at a grid of FPRs,
    and, when the audit's ε is above 0, ``certified_corner`` -- the (FPR upper, TPR lower)
    bound behind it), ``fpr``,
    ``tpr``, ``tpr_low``, ``tpr_high`` (empty where a curve has none)."""
    fpr = np.asarray(bound.roc_fpr, dtype=float)
    frames = [
        pd.DataFrame({"curve": "claim", "fpr": fpr, "tpr": np.asarray(bound.roc_tpr, float)}),
        pd.DataFrame(
            {"curve": "claim_eta", "fpr": fpr, "tpr": np.minimum(1.0, fpr + 2 * bound.eta)}
        ),
    ]
    f_roc, t_roc = audit.roc(max_points=ROC_POINTS)
    frames.append(pd.DataFrame({"curve": "measured", "fpr": f_roc, "tpr": t_roc}))
    if band:
        rows = [audit.tpr_at(float(f)) for f in _band_fprs(audit.non_members)]
        frames.append(
            pd.DataFrame(
                {
                    "curve": "measured_band",
                    "fpr": [r.fpr for r in rows],
                    "tpr": [r.estimate for r in rows],
                    "tpr_low": [r.low for r in rows],
                    "tpr_high": [r.high for r in rows],
                }
            )
        )
        if audit.epsilon > 0:  # at ε ≥ 0 alone the corner certifies nothing
            corner = audit.certified_point("epsilon")
            frames.append(
                pd.DataFrame(
                    {
                        "curve": ["certified_corner"],
                        "fpr": [corner.fpr_high],
                        "tpr": [corner.tpr_low],
                    }
                )
            )
    table = pd.concat(frames, ignore_index=True)
    for column in ("tpr_low", "tpr_high"):
        if column not in table:
            table[column] = np.nan
    return table[["curve", "fpr", "tpr", "tpr_low", "tpr_high"]]


def _drawn(table: pd.DataFrame, curve: str, name: str, log_axes: bool) -> pd.DataFrame:
    rows = table[table["curve"] == curve]
    out = pd.DataFrame({"fpr": rows["fpr"], "tpr": rows["tpr"], "name": name})
    if log_axes:
        out = out[(out["fpr"] > 0) & (out["tpr"] > 0)]
    return out.reset_index(drop=True)


def audit_roc_vega(
    audit: ScoreAudit, bound: AttackerBound, *, band: bool, log_axes: bool = False
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The attack's measured ROC against the claim's ROC boundary and η, and
    :func:`audit_roc_table`.

    Parameters
    ----------
    audit : the scores' :class:`~mipcore.score_audit.ScoreAudit` (its ROC; with ``band``, its
        TPR intervals and certified corner).
    bound : the claim's :class:`~mipcore.guarantees.AttackerBound`.
    band : draw the confidence band and the certified corner -- valid for independent trials
        only (the scores of one training run share their model: see
        :mod:`mipcore.score_audit`).
    log_axes : log–log axes from :data:`FLOOR`.

    Returns
    -------
    (chart, table)
    """
    table = audit_roc_table(audit, bound, band=band)
    floor = FLOOR if log_axes else 0.0
    claim = _drawn(table, "claim", CLAIM_NAME, log_axes)
    eta = _drawn(table, "claim_eta", ETA_NAME, log_axes)
    measured = _drawn(table, "measured", ROC_NAME, log_axes)
    guess_x = np.array([floor if log_axes else 0.0, 1.0])
    lines = pd.concat(
        [pd.DataFrame({"fpr": guess_x, "tpr": guess_x, "name": GUESS_NAME}), claim, eta],
        ignore_index=True,
    )
    markers = pd.concat(
        [d.iloc[roc.spread(len(d), _MARKERS)] for d in (claim, eta) if len(d)], ignore_index=True
    )
    region = pd.DataFrame({"fpr": claim["fpr"], "low": floor, "high": claim["tpr"]})
    datasets = {"region": region, "lines": lines, "markers": markers, "measured": measured}
    layers: list[roc.Layer] = [roc.Band("region", style.DP.colour, 0.08)]
    entries = {
        CLAIM_NAME: roc.styled(style.DP),
        ETA_NAME: roc.styled(style.MIP),
        ROC_NAME: roc.styled(style.MEASURED, width=4.0, marker=False),
        GUESS_NAME: roc.CHANCE,
    }
    if band:
        rows = table[table["curve"] == "measured_band"]
        low = rows["tpr_low"].to_numpy(float)
        keep = (rows["fpr"].to_numpy(float) > 0) if log_axes else np.ones(len(rows), bool)
        datasets["band"] = pd.DataFrame(
            {
                "fpr": rows["fpr"].to_numpy(float)[keep],
                "low": np.maximum(low, floor)[keep],
                "high": rows["tpr_high"].to_numpy(float)[keep],
            }
        )
        datasets["corner"] = _drawn(table, "certified_corner", CORNER_NAME, log_axes)
        layers.append(roc.Band("band", style.MEASURED.colour, 0.22))
        entries[CORNER_NAME] = roc.Entry(style.INK, roc.dash("solid"), 0.0, STAR)
    layers += [roc.Curves("lines", width=2.5), roc.Points("markers", 60, tooltip="none")]
    layers.append(roc.Curves("measured", width=4.0))
    if band:
        layers.append(roc.Points("corner", 260, outlined=True, clip=False, tooltip="rates"))
    plane = (
        roc.Plane(log=True, fpr_lo=FLOOR, tpr_lo=FLOOR, tpr_top=1.05) if log_axes else roc.Plane()
    )
    chart = roc.chart(
        TITLE,
        datasets,
        plane=plane,
        entries=entries,
        layers=layers,
        height=360,
        legend={"symbolSize": 160},
    )
    return chart, table
