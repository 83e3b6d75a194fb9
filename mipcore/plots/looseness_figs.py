"""Figures for "How loose are the certified bounds?": the exact best attack beside the certificates.

Each builder takes results of :mod:`mipcore.lessons.certificate_gap` and returns a plain
``go.Figure`` in the app's style (:mod:`mipcore.plots.style`): the exact value black and
thick, the dimension-free Theorem 9 certificate as MIP (vermillion, solid, circles), the
Corollary 14 formula as printed (purple, dash-dot), DP through Theorem 4 (blue, dashed,
squares), and the paper's proof repaired for d dimensions in orange (long dashes,
triangles). No Streamlit here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import plotly.graph_objects as go

from mipcore.lessons.certificate_gap import (
    DimensionGap,
    EtaVsNoise,
    NoiseDemand,
    Route,
    Theorem4Tightness,
    Theorem5Counterexamples,
)

from . import style
from .formatting import fmt_num

__all__ = [
    "ROUTE_NAMES",
    "demanded_figure",
    "dimension_eta_figure",
    "dimension_noise_figure",
    "eta_vs_scale_figure",
    "theorem5_figure",
    "tightness_figure",
]

#: Display names of the noise routes (legends, bar labels).
ROUTE_NAMES = {
    Route.SUFFICIENT: "actually enough",
    Route.MIP_TIGHT: "MIP: Theorem 9 density",
    Route.MIP_PRINTED: "MIP: Corollary 14 printed",
    Route.DP: "DP + Theorem 4",
}
_ROUTE_STYLE = {
    Route.SUFFICIENT: style.EXACT,
    Route.MIP_TIGHT: style.MIP,
    Route.MIP_PRINTED: style.PRINTED,
    Route.DP: style.DP,
}
#: The paper's proof of Theorem 9, repaired for d dimensions.
CHAIN = {"colour": style.ORANGE, "dash": "longdash", "symbol": "triangle-up"}
_CHAIN_NAME = "the paper's proof, redone in d dimensions"
_PUBLISH = {"colour": style.GREEN, "dash": "dash", "symbol": "square"}


def _pos(values: Iterable[float], log: bool = True) -> list[float | None]:
    """Plot values: non-finite entries (and non-positive ones on a log axis) become gaps."""
    out: list[float | None] = []
    for v in values:
        f = float(v)
        out.append(f if math.isfinite(f) and (f > 0 or not log) else None)
    return out


def _hline(y: float) -> dict[str, Any]:
    return dict(
        type="line",
        xref="paper",
        x0=0,
        x1=1,
        y0=y,
        y1=y,
        line=dict(color=style.GREY, dash="dot", width=1.5),
    )


def eta_vs_scale_figure(
    result: EtaVsNoise, demand: NoiseDemand, *, log_y: bool = True
) -> go.Figure:
    """η against the Laplace scale b: exact, Theorem 9 (dimension-free), Corollary 14 as
    printed, DP + Theorem 4; the noise each route needs for the target η as diamonds."""
    c = result.curves
    x = c["scale"].tolist()
    hover = "b = %{x:.3g}<br>η = %{y:.4g}<extra>%{fullData.name}</extra>"
    lines = (
        ("exact", "exact η (best possible attack)", style.EXACT, 4.0),
        ("certified_mip_tight", "MIP: Theorem 9 density, ½·tanh(σ/b)", style.MIP, 2.5),
        ("certified_mip_printed", "MIP: Corollary 14 as printed", style.PRINTED, 2.5),
        ("certified_dp", "DP: Laplace mechanism + Theorem 4", style.DP, 2.5),
    )
    data: list[dict[str, Any]] = [
        dict(
            type="scatter",
            mode="lines",
            x=x,
            y=_pos(c[col], log_y),
            name=name,
            line=style.line(st, width=width),
            hovertemplate=hover,
        )
        for col, name, st, width in lines
    ]
    data.append(
        dict(
            type="scatter",
            mode="markers",
            x=[r.scale for r in demand.rows],
            y=[demand.target_eta] * len(demand.rows),
            name=f"noise each needs for η = {demand.target_eta:.3g}",
            marker=dict(
                color=[_ROUTE_STYLE[r.route].colour for r in demand.rows],
                symbol="diamond",
                size=13,
                line=dict(color=style.INK, width=1),
            ),
            text=[ROUTE_NAMES[r.route] for r in demand.rows],
            hovertemplate="%{text}: b = %{x:.3g}<extra></extra>",
        )
    )
    return go.Figure(
        data=data,
        layout=style.layout(
            title=f"η against the noise, Proposition 11, n = {result.n}",
            x="Laplace noise scale b",
            y="η (accuracy − 50 %)",
            height=520,
            xaxis=style.log_axis("Laplace noise scale b"),
            yaxis=style.log_axis("η (accuracy − 50 %)") if log_y else dict(range=[0, 0.52]),
            shapes=[_hline(demand.target_eta)],
            hovermode="closest",
        ),
    )


def demanded_figure(demand: NoiseDemand) -> go.Figure:
    """Horizontal bars (log scale) of the Laplace scale each route needs for the target η."""
    rows = demand.rows
    return go.Figure(
        data=[
            dict(
                type="bar",
                orientation="h",
                y=[ROUTE_NAMES[r.route] for r in rows],
                x=[r.scale for r in rows],
                marker=dict(
                    color=[_ROUTE_STYLE[r.route].colour for r in rows],
                    line=dict(color=style.INK, width=1),
                ),
                text=[fmt_num(r.scale, 3) for r in rows],
                textposition="outside",
                textfont=dict(size=15, color=style.INK),
                cliponaxis=False,
                hovertemplate="%{y}: b = %{x:.4g}<extra></extra>",
            )
        ],
        layout=style.layout(
            title=f"Laplace scale needed for η ≤ {demand.target_eta:.3g}",
            height=340,
            xaxis=style.log_axis("noise scale b"),
            yaxis=dict(autorange="reversed"),
            showlegend=False,
            margin=dict(l=10, r=60, t=56, b=10),
        ),
    )


def tightness_figure(result: Theorem4Tightness) -> go.Figure:
    """Theorem 4 is tight: the construction's exact accuracy (markers) on the bound (line)."""
    t = result.table
    return go.Figure(
        data=[
            dict(
                type="scatter",
                mode="lines",
                x=t["epsilon"].tolist(),
                y=(100 * t["theorem4_accuracy"]).tolist(),
                name="Theorem 4: 50 % + η(ε, δ)",
                line=dict(color=style.GREY, width=8),
                hovertemplate="ε = %{x:.3g}<br>bound = %{y:.4f} %<extra></extra>",
            ),
            dict(
                type="scatter",
                mode="markers",
                x=t["epsilon"].tolist(),
                y=(100 * t["exact_accuracy"]).tolist(),
                name="exact attacker on 𝒟 = {0, 1}, k = 1",
                marker=style.marker(style.EXACT, size=9),
                hovertemplate="ε = %{x:.3g}<br>accuracy = %{y:.4f} %<extra></extra>",
            ),
        ],
        layout=style.layout(
            title=f"Theorem 4 is attained (δ = {result.delta:.3g})",
            x="ε",
            y="best attacker's accuracy (%)",
            height=420,
        ),
    )


def theorem5_figure(result: Theorem5Counterexamples, *, log_y: bool = True) -> go.Figure:
    """Theorem 5's counterexamples: exact η against n for both versions of the paper."""
    t = result.table
    q = result.publish_prob
    hover = "n = %{x}<br>η = %{y:.4g}<extra></extra>"
    return go.Figure(
        data=[
            style.trace(
                style.EXACT,
                t["n"].tolist(),
                _pos(t["eta_indicator"], log_y),
                "TMLR version: 1{D = D*}, η = 1/C(n, n/2)",
                hover=hover,
            ),
            style.trace(
                _PUBLISH,
                t["n"].tolist(),
                _pos(t["eta_publish"], log_y),
                f"arXiv version: publish each record w.p. q = {q:.3g}",
                hover=hover,
            ),
        ],
        layout=style.layout(
            title="Theorem 5: small η, yet no finite ε",
            x="n (dataset size)",
            y="exact η",
            height=420,
            yaxis=style.log_axis("exact η") if log_y else {},
        ),
    )


def _error_bar(value: float, interval: tuple[float, float]) -> dict[str, Any]:
    lo, hi = interval
    return dict(
        type="data",
        symmetric=False,
        array=[max(hi - value, 0.0)],
        arrayminus=[max(value - max(lo, 0.0), 0.0)],
        color=style.INK,
        thickness=2,
        width=8,
    )


def dimension_eta_figure(gap: DimensionGap, demand: NoiseDemand) -> go.Figure:
    """Certified η against the dimension d at Corollary 14's noise for the target, beside
    the best attack at d = 1 (Proposition 11, exact) and d = 4 (covariance, Monte Carlo)."""
    d = gap.dimensions.tolist()
    hover = "d = %{x}<br>η = %{y:.4g}<extra>%{fullData.name}</extra>"
    cov_lo = max(gap.covariance_interval[0], 0.0)
    data: list[dict[str, Any]] = [
        style.trace(CHAIN, d, _pos(gap.chain_eta), _CHAIN_NAME, hover=hover),
        style.trace(
            style.MIP,
            d,
            [gap.tight_eta] * len(d),
            "Theorem 9 density, ½·tanh(1/c): any d",
            hover=hover,
        ),
        style.trace(
            style.PRINTED,
            d,
            [gap.target_eta] * len(d),
            "what Corollary 14 promises",
            mode="lines",
            hover=hover,
        ),
        style.trace(
            style.EXACT,
            [1],
            _pos([demand.route(Route.MIP_PRINTED).exact_eta]),
            f"best attack: Proposition 11, n = {demand.n} (exact)",
            mode="markers",
            size=13,
            hover=hover,
        ),
        dict(
            type="scatter",
            mode="markers",
            x=[gap.covariance_dim],
            y=_pos([max(gap.covariance_eta, cov_lo)]),
            name="best attack: covariance release (Monte Carlo, 99 %)",
            marker=dict(color=style.INK, symbol="diamond-open", size=13, line=dict(width=2)),
            error_y=_error_bar(max(gap.covariance_eta, cov_lo), gap.covariance_interval),
            hovertemplate=hover,
        ),
    ]
    return go.Figure(
        data=data,
        layout=style.layout(
            title=f"Certified η against d, noise c = {gap.noise_multiplier:.4g}",
            x="d (numbers released)",
            y="η",
            height=500,
            xaxis=dict(tickvals=d),
            yaxis=style.log_axis("η (accuracy − 50 %)"),
        ),
    )


def dimension_noise_figure(gap: DimensionGap, demand: NoiseDemand) -> go.Figure:
    """Noise multiplier c needed for the target η against d: the repaired chain, the
    dimension-free certificate, Corollary 14's c, and what is enough at d = 1."""
    d = gap.dimensions.tolist()
    hover = "d = %{x}<br>c = %{y:.4g}<extra>%{fullData.name}</extra>"
    data: list[dict[str, Any]] = [
        style.trace(CHAIN, d, _pos(gap.chain_noise), _CHAIN_NAME, hover=hover),
        style.trace(
            style.PRINTED,
            d,
            [gap.printed_noise] * len(d),
            "Corollary 14 prescribes",
            mode="lines",
            hover=hover,
        ),
        style.trace(
            style.MIP,
            d,
            [gap.tight_noise] * len(d),
            "Theorem 9 density, 1/artanh(2η): any d",
            hover=hover,
        ),
        style.trace(
            style.EXACT,
            [1],
            _pos([demand.multiplier_sufficient]),
            f"enough: Proposition 11, n = {demand.n} (exact)",
            mode="markers",
            size=13,
            hover=hover,
        ),
    ]
    return go.Figure(
        data=data,
        layout=style.layout(
            title=f"Noise needed for η ≤ {gap.target_eta:.3g}, against d",
            x="d (numbers released)",
            y="noise multiplier c",
            height=500,
            xaxis=dict(tickvals=d),
            yaxis=style.log_axis("noise multiplier c (scale / σ)"),
        ),
    )
