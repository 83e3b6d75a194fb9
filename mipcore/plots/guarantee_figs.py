"""Figures for the risk calculator: the best attacker's ROC under each conversion route.

:func:`routes_roc_figure` draws a :class:`mipcore.lessons.risk_calculator.RiskReport` (it
computes none of the mathematics): one curve per route on log–log axes (the low-FPR regime
that matters for membership inference, as in Carlini et al., *Membership Inference Attacks
From First Principles*, IEEE S&P 2022, arXiv:2112.03570), the tightest route emphasised
(thick, solid, near-black), the other valid routes by colour *and* dash (Okabe–Ito, see
:mod:`mipcore.plots.style`), a route that is not valid for MIP only when asked for (purple
dash-dot with crosses, labelled so), random guessing as a grey dotted diagonal, and the TPR
bounds at FPR 0.1 %, 1 % and 10 % as black diamonds.

:data:`ROUTE_LABELS` names each :class:`mipcore.guarantees.Route` for legends and tables.
Nothing here caches: the page caches through ``appkit.cached``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mipcore.guarantees import Route
from mipcore.lessons.risk_calculator import CurveSource, RiskReport

from . import style

__all__ = ["INVALID_SUFFIX", "ROUTE_LABELS", "route_label", "routes_roc_figure"]

#: A short name per route (legend entries and table rows).
ROUTE_LABELS: dict[Route, str] = {
    Route.THEOREM4: "Theorem 4 on the (ε, δ) pair",
    Route.PROFILE: "Theorem 4 on each profile point",
    Route.GDP_CLOSED_FORM: "GDP closed form Φ(μ/2) − 1/2",
    Route.GDP_PROFILE: "GDP's (ε, δ) profile",
    Route.SINGLE_POINT: "one (ε, δ) point at δ = 10⁻⁵",
    Route.VIA_ZCDP: "via zCDP, ρ = μ²/2",
    Route.BUN_STEINKE: "zCDP → (ε, δ), Bun–Steinke",
    Route.MIRONOV: "RDP → (ε, δ), Mironov",
    Route.IMPROVED_CONVERSION: "→ (ε, δ), Canonne–Kamath–Steinke",
    Route.RENYI_TRADEOFF: "Rényi bounds → trade-off (tight)",
    Route.GROUP_TRADEOFF: "add/remove trade-off, applied twice",
    Route.PLD: "PLD accountant, replace-one",
    Route.PLD_ADD_REMOVE_GROUP: "PLD add/remove, doubled TV",
    Route.RDP_ACCOUNTANT_GROUP: "RDP accountant add/remove, doubled TV",
    Route.SAMPLING_ONLY: "sampling alone: 1 − (1 − q)ᵀ",
    Route.GDP_EXACT: "exact GDP, μ = 2√T/σ (q = 1)",
    Route.ADD_REMOVE_AS_REPLACE: "add/remove read as replace-one",
}
INVALID_SUFFIX = " — not valid for MIP"
GUESS_NAME = "random guessing (TPR = FPR)"
LEVELS_NAME = "TPR bound at FPR 0.1 %, 1 %, 10 %"
# Valid routes other than the tightest (which is near-black); purple marks the invalid route.
_PALETTE = (style.BLUE, style.VERMILLION, style.GREEN, style.ORANGE, style.SKY)
_FPR_MIN = 1e-6


def route_label(route: Route) -> str:
    """The display name of ``route``."""
    return ROUTE_LABELS.get(route, route.value)


def routes_roc_figure(
    report: RiskReport,
    *,
    show_invalid: bool = False,
    title: str | None = None,
    height: int = 580,
) -> tuple[go.Figure, pd.DataFrame]:
    """Every route's ROC bound for one guarantee, on log–log axes, and the table it draws.

    Parameters
    ----------
    report : the risk calculator's result (routes with their TPR curves on ``roc_fpr``).
    show_invalid : also draw the route that is not valid for MIP (the add/remove number read
        as replace-one), labelled so.
    title : the chart's title (may hold a ``<br><sup>…</sup>`` subtitle).
    height : figure height in pixels.

    Returns
    -------
    (figure, table)
        ``table`` has one row per drawn point: ``route``, ``route_label``, ``valid``,
        ``tightest``, ``curve`` (tradeoff / eta_line / combined), ``fpr``, ``tpr_bound``.
    """
    fpr = np.asarray(report.roc_fpr, dtype=float)
    keep = fpr >= _FPR_MIN
    x = fpr[keep]
    data: list[dict[str, Any]] = []
    frames = []
    others = 0
    # draw the emphasised route last, so it lies on top of the curves it coincides with
    rows = sorted(report.routes, key=lambda r: (r.tightest, r.valid))
    for row in rows:
        if not row.valid and not show_invalid:
            continue
        y = np.asarray(row.tpr, dtype=float)[keep]
        name = route_label(row.route)
        if row.curve is CurveSource.ETA_LINE:
            name += " (η only)"
        if row.tightest:
            name += " — tightest"
            line = dict(color=style.INK, width=5.0, dash="solid")
        elif not row.valid:
            name += INVALID_SUFFIX
            line = style.line(style.PRINTED, width=2.5)
        else:
            line = dict(
                color=_PALETTE[others % len(_PALETTE)], width=2.5, dash=style.dashes(others)
            )
            others += 1
        trace: dict[str, Any] = dict(
            type="scatter",
            x=x,
            y=y,
            mode="lines",
            name=name,
            line=line,
            hovertemplate=f"{name}<br>FPR = %{{x:.3g}}<br>TPR ≤ %{{y:.4g}}<extra></extra>",
        )
        if not row.valid:
            trace["mode"] = "lines+markers"
            trace["marker"] = style.marker(style.PRINTED, size=9, maxdisplayed=9)
        data.append(trace)
        frames.append(
            pd.DataFrame(
                {
                    "route": row.route.value,
                    "route_label": route_label(row.route),
                    "valid": row.valid,
                    "tightest": row.tightest,
                    "curve": row.curve.value,
                    "fpr": x,
                    "tpr_bound": y,
                }
            )
        )
    data.insert(
        0,
        dict(
            type="scatter",
            x=x,
            y=x,
            mode="lines",
            name=GUESS_NAME,
            line=dict(color=style.GREY, width=2, dash="dot"),
            hovertemplate="guessing<br>FPR = TPR = %{x:.3g}<extra></extra>",
        ),
    )
    data.append(
        dict(
            type="scatter",
            x=list(report.fpr_levels),
            y=list(report.tpr_at_fpr),
            mode="markers",
            name=LEVELS_NAME,
            marker=style.marker(style.EXACT, size=13, line=dict(color="white", width=1.5)),
            hovertemplate="FPR = %{x:.3g}<br>TPR ≤ %{y:.4g}<extra></extra>",
        )
    )
    ys = [np.asarray(d["y"], dtype=float) for d in data]
    positive = np.concatenate([y[y > 0] for y in ys]) if ys else np.array([_FPR_MIN])
    y_min = max(float(positive.min()) if positive.size else _FPR_MIN, 1e-12)
    layout = style.layout(
        title=title or "The best attacker's ROC, by conversion route",
        height=height,
        xaxis=style.log_axis("false-positive rate (log)", range=[math.log10(_FPR_MIN), 0.0]),
        yaxis=style.log_axis(
            "largest true-positive rate (log)",
            range=[math.floor(math.log10(y_min) * 2) / 2, 0.02],
        ),
        hovermode="closest",
    )
    if title and "<br>" in title:
        layout["margin"]["t"] = 76
    layout["legend"]["y"] = -0.2
    table = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(
            columns=["route", "route_label", "valid", "tightest", "curve", "fpr", "tpr_bound"]
        )
    )
    return go.Figure(data=data, layout=layout), table
