"""Figures for "How loose are the bounds?" (exact η of Proposition 11 vs Theorems 4, 5, 9).

Source: ``000_ece03c98c31c7b12.txt`` (Theorems 4, 5, 9, Corollary 14, Proposition 11) and
``003_acb39d252537c5b2.txt`` (Theorem 5, arXiv version). Builders take DataFrames computed by
:mod:`mipcore.lessons.certificate_gap` / :mod:`mipcore.prop11_attack` and return a Plotly figure, built in one
``go.Figure(data=[dict, ...], layout=dict)`` call. No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mipcore.plots import freeze

__all__ = ["demanded_figure", "eta_vs_scale_figure", "theorem5_figure", "tightness_figure"]

_EXACT = "#1f77b4"
_MIP = "#d62728"
_DP = "#2ca02c"
_GREY = "#8a8f98"


def _pos(y) -> list:
    """Values for a log axis: non-positive entries become gaps (None), never NaN text."""
    return [float(v) if np.isfinite(v) and v > 0 else None for v in np.asarray(y, dtype=float)]


def eta_vs_scale_figure(
    curves: pd.DataFrame, *, n: int, target_eta: float, demanded: dict, log_y: bool = True
) -> go.Figure:
    """η against the Laplace scale b: exact, Theorem 9/Cor. 14, Theorem 4 (DP); target line."""
    x = curves["scale"].tolist()
    fmt = "b = %{x:.3g}<br>η = %{y:.4g}<extra>%{fullData.name}</extra>"
    ys = (lambda c: _pos(curves[c])) if log_y else (lambda c: curves[c].tolist())
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": x,
            "y": ys("exact"),
            "name": "exact η (optimal attacker)",
            "line": {"color": _EXACT, "width": 3},
            "hovertemplate": fmt,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": x,
            "y": ys("certified_mip"),
            "name": "certified by MIP (Thm 9 / Cor 14)",
            "line": {"color": _MIP, "dash": "dash"},
            "hovertemplate": fmt,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": x,
            "y": ys("certified_dp"),
            "name": "certified by DP (Thm 4)",
            "line": {"color": _DP, "dash": "dot"},
            "hovertemplate": fmt,
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [demanded["sufficient"], demanded["dp"], demanded["mip"]],
            "y": [target_eta] * 3,
            "name": f"noise for η = {target_eta:.3g}",
            "marker": {
                "color": [_EXACT, _DP, _MIP],
                "size": 11,
                "symbol": "diamond",
                "line": {"color": "black", "width": 1},
            },
            "text": ["actually enough", "DP demands", "MIP demands"],
            "hovertemplate": "%{text}: b = %{x:.3g}<extra></extra>",
        },
    ]
    layout = {
        "title": {"text": f"Proposition 11 mechanism, n = {n}: η vs Laplace noise scale"},
        "xaxis": {"title": "Laplace noise scale b", "type": "log", "exponentformat": "power"},
        "yaxis": {
            "title": "η (attacker's edge over 1/2)",
            "type": "log" if log_y else "linear",
            "exponentformat": "power",
        },
        "shapes": [
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": target_eta,
                "y1": target_eta,
                "line": {"color": _GREY, "dash": "dot", "width": 1},
            }
        ],
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 50, "b": 10},
        "height": 470,
        "hovermode": "closest",
    }
    return freeze(go.Figure(data=data, layout=layout))


def demanded_figure(table: pd.DataFrame, *, target_eta: float) -> go.Figure:
    """Bar chart (log y) of the noise scale each route demands for the target η."""
    data = [
        {
            "type": "bar",
            "x": table["route"].tolist(),
            "y": table["scale"].tolist(),
            "marker": {"color": [_EXACT, _DP, _MIP][: len(table)]},
            "text": [f"{v:.3g}" for v in table["scale"]],
            "textposition": "outside",
            "hovertemplate": "%{x}: b = %{y:.4g}<extra></extra>",
        }
    ]
    layout = {
        "title": {"text": f"Laplace scale needed for η ≤ {target_eta:.3g}"},
        "yaxis": {"title": "noise scale b", "type": "log", "exponentformat": "power"},
        "margin": {"t": 50, "b": 10},
        "height": 380,
        "showlegend": False,
    }
    return freeze(go.Figure(data=data, layout=layout))


def tightness_figure(table: pd.DataFrame, *, delta: float) -> go.Figure:
    """Theorem 4 tightness: exact accuracy of the construction (markers) on the bound (line)."""
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": table["epsilon"].tolist(),
            "y": table["theorem4_bound"].tolist(),
            "name": "Theorem 4: δ + (1−δ)/(1+e^−ε)",
            "line": {"color": _GREY, "width": 6},
            "hovertemplate": "ε = %{x:.3g}<br>bound = %{y:.6f}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": table["epsilon"].tolist(),
            "y": table["exact_accuracy"].tolist(),
            "name": "exact attacker on 𝒟 = {0, 1}, k = 1",
            "marker": {"color": _EXACT, "size": 7},
            "hovertemplate": "ε = %{x:.3g}<br>accuracy = %{y:.6f}<extra></extra>",
        },
    ]
    layout = {
        "title": {"text": f"Theorem 4 is tight (δ = {delta:.3g})"},
        "xaxis": {"title": "ε"},
        "yaxis": {"title": "optimal attacker's accuracy"},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 50, "b": 10},
        "height": 400,
    }
    return freeze(go.Figure(data=data, layout=layout))


def theorem5_figure(table: pd.DataFrame, *, q: float, log_y: bool = True) -> go.Figure:
    """Theorem 5 counterexamples: exact η against n for 000 (1/C(n, n/2)) and 003 (q/2)."""
    ys = _pos if log_y else (lambda v: list(map(float, v)))
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": table["n"].tolist(),
            "y": ys(table["eta_indicator_000"]),
            "name": "000: 1{D = D*}, η = 1/C(n, n/2)",
            "line": {"color": _EXACT},
            "hovertemplate": "n = %{x}<br>η = %{y:.4g}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": table["n"].tolist(),
            "y": ys(table["eta_publish_003"]),
            "name": f"003: publish each record w.p. q = {q:.3g}, η = q/2",
            "line": {"color": _MIP, "dash": "dash"},
            "hovertemplate": "n = %{x}<br>η = %{y:.4g}<extra></extra>",
        },
    ]
    layout = {
        "title": {"text": "Theorem 5: η-MIP with small η, yet no finite ε"},
        "xaxis": {"title": "n (dataset size)"},
        "yaxis": {
            "title": "exact η",
            "type": "log" if log_y else "linear",
            "exponentformat": "power",
        },
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 50, "b": 10},
        "height": 400,
    }
    return freeze(go.Figure(data=data, layout=layout))
