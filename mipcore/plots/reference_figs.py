"""Figures for the reference-data page: Figure 2's theory and the sweep's triad.

Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira, *A Cautionary Tale: On the Role of
Reference Data in Empirical Privacy Defenses*, PETS 2024, arXiv:2310.12112 -- as computed by
:mod:`mipcore.lessons.reference_view` and :mod:`mipcore.lessons.reference_leak`.

Every builder takes a result and returns ``(figure, table)``: a plain
:class:`plotly.graph_objects.Figure` in the app's style (:mod:`mipcore.plots.style`) and the
DataFrame of exactly what it draws. No arithmetic beyond selecting rows and scaling to %.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..lessons.reference_leak import SweepResult, Target
from ..lessons.reference_view import TheoryView, Unit
from . import style

__all__ = ["ATTACK_NAMES", "theory_figure", "triad_figure"]

#: How the attacks are named in legends and titles.
ATTACK_NAMES = {
    "gap": "gap attack",
    "confidence": "confidence attack",
    "loss": "loss attack",
}

_TRAIN = dict(colour=style.BLUE, dash="dash", symbol="square")
_REF = dict(colour=style.VERMILLION, dash="solid", symbol="x")
_TEST = dict(colour=style.GREEN, dash="solid", symbol="diamond")


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def theory_figure(view: TheoryView, unit: Unit) -> tuple[go.Figure, pd.DataFrame]:
    """Figure 2 for one ratio: utility N_eff against the privacy of D_T and of D_R as w runs
    from 0 to 1, in Theorem 3.1's ε or (``Unit.ETA``) as the illustrative attacker-accuracy
    bound 1/2 + η. w* is marked; ``view`` must be in Theorem 3.1's domain.
    """
    if view.figure is None or view.eps_star is None or view.accuracy_star is None:
        raise ValueError("the view is outside Theorem 3.1's domain: there is nothing to draw")
    c = view.figure.curves.sort_values("w").reset_index(drop=True)
    acc_t = 0.5 + c["eta_train"].to_numpy(float)
    acc_r = 0.5 + c["eta_ref"].to_numpy(float)
    if unit is Unit.EPSILON:
        xt, xr = c["eps_train"].to_numpy(float), c["eps_ref"].to_numpy(float)
        x_star = view.eps_star
        x_title = "ε (Theorem 3.1, up to constants)"
        fmt = "%{x:.4g}"
    else:
        xt, xr = 100 * acc_t, 100 * acc_r
        x_star = 100 * view.accuracy_star
        x_title = "best attacker's accuracy, 50 % + η (%)"
        fmt = "%{x:.3f} %"
    n_eff = c["n_eff"].to_numpy(float)
    custom = np.c_[c["w"], c["eps_train"], c["eps_ref"], c["eta_train"], c["eta_ref"]]
    data: list[dict[str, Any]] = []
    for name, x, st, tgt in (
        ("training data D<sub>T</sub>", xt, _TRAIN, "T"),
        ("reference data D<sub>R</sub>", xr, _REF, "R"),
    ):
        col = 1 if tgt == "T" else 2
        data.append(
            dict(
                type="scatter",
                mode="lines+markers",
                x=x,
                y=n_eff,
                name=name,
                line=style.line(st, width=2.5),
                marker=style.marker(st, size=8),
                customdata=custom,
                hovertemplate=f"{name}<br>w = %{{customdata[0]:.3f}}<br>N<sub>eff</sub> = %{{y:,.0f}}"
                f"<br>ε = %{{customdata[{col}]:.4g}}, η = %{{customdata[{col + 2}]:.4g}}"
                f"<br>x = {fmt}<extra></extra>",
            )
        )
    data.append(
        dict(
            type="scatter",
            mode="markers",
            x=[x_star],
            y=[view.n_total],
            name=f"w* = N<sub>R</sub>/N = {view.w_star:.3g}: equal privacy, N<sub>eff</sub> = N",
            marker=dict(
                symbol="star", size=18, color=style.BLACK, line=dict(color="white", width=1)
            ),
            hovertemplate="w* = %{customdata:.3g}<br>N<sub>eff</sub> = N = %{y:,.0f}<extra></extra>",
            customdata=[view.w_star],
        )
    )
    ends = []
    for x, name in ((xt, "D<sub>T</sub>"), (xr, "D<sub>R</sub>")):
        for i, w in ((0, "w = 0"), (-1, "w = 1")):
            ends.append(
                dict(
                    x=float(x[i]),
                    y=float(n_eff[i]),
                    text=f"{name}, {w}",
                    showarrow=True,
                    arrowhead=0,
                    ax=0,
                    ay=-26,
                    font=dict(size=13, color=style.INK),
                    bgcolor="rgba(255,255,255,0.85)",
                )
            )
    sub = (
        "η from ε by Theorem 4 of Izzo et al.: an illustration (Theorem 3.1 is O(ε))"
        if unit is Unit.ETA
        else f"ε₀ = {view.eps0:g}, N = {view.n_total:,.0f}, N<sub>T</sub>/N<sub>R</sub> = {view.ratio:g}"
    )
    layout = style.layout(
        title=f"Utility against each set's privacy as w goes 0 → 1<br><sup>{sub}</sup>",
        x=x_title,
        y="effective sample size N<sub>eff</sub>",
        height=460,
        yaxis=dict(tickformat=",d", exponentformat="none"),
        annotations=ends,
        xaxis=dict(zeroline=False),
        margin=dict(l=10, r=10, t=80, b=10),
    )
    fig = go.Figure(data=data, layout=layout)
    table = pd.DataFrame(
        {
            "w": c["w"],
            "is_equal_privacy_weight": c["is_equal_privacy"],
            "n_eff": n_eff,
            "eps_train": c["eps_train"],
            "eps_ref": c["eps_ref"],
            "eta_train_illustrative": c["eta_train"],
            "eta_ref_illustrative": c["eta_ref"],
            "accuracy_bound_train": acc_t,
            "accuracy_bound_ref": acc_r,
        }
    )
    return fig, table


def _band(
    w: np.ndarray, lo: np.ndarray, hi: np.ndarray, colour: str, group: str
) -> list[dict[str, Any]]:
    """A translucent band between ``lo`` and ``hi`` (per cent), drawn under its line."""
    common = dict(type="scatter", mode="lines", x=w, line=dict(width=0), hoverinfo="skip")
    return [
        dict(common, y=hi, showlegend=False, legendgroup=group),
        dict(
            common,
            y=lo,
            fill="tonexty",
            fillcolor=_rgba(colour, 0.18),
            showlegend=False,
            legendgroup=group,
        ),
    ]


def triad_figure(result: SweepResult, training_only: bool) -> tuple[go.Figure, pd.DataFrame]:
    """The paper's triad against w: test accuracy, attack accuracy on D_T and on D_R (the
    sweep's ``selection_attack``), each the mean over seeds with its band (min to max).

    w* and the training-only evaluator's pick are marked. With ``training_only`` the D_R
    curve is left out -- what a defense reporting training-data leakage only would show.
    """
    cfg = result.config
    attack = cfg.selection_attack.value
    aname = ATTACK_NAMES.get(attack, attack)
    u = result.utility.sort_values("w").reset_index(drop=True)
    w = u["w"].to_numpy(float)
    table = pd.DataFrame(
        {
            "w": w,
            "test_accuracy_mean": u["test_accuracy_mean"],
            "test_accuracy_min": u["test_accuracy_min"],
            "test_accuracy_max": u["test_accuracy_max"],
        }
    )
    data: list[dict[str, Any]] = []

    def series(name: str, mean: Any, lo: Any, hi: Any, st: dict[str, str], group: str) -> None:
        m, a, b = (100 * np.asarray(v, float) for v in (mean, lo, hi))
        data.extend(_band(w, a, b, st["colour"], group))
        data.append(
            dict(
                type="scatter",
                mode="lines+markers",
                x=w,
                y=m,
                name=name,
                legendgroup=group,
                line=style.line(st, width=3),
                marker=style.marker(st, size=9),
                customdata=np.c_[a, b],
                hovertemplate=f"{name}<br>w = %{{x:.3g}}<br>mean %{{y:.1f}} %"
                "<br>seeds: %{customdata[0]:.1f}–%{customdata[1]:.1f} %<extra></extra>",
            )
        )

    series(
        "test accuracy (utility)",
        u["test_accuracy_mean"],
        u["test_accuracy_min"],
        u["test_accuracy_max"],
        _TEST,
        "test",
    )
    targets = [Target.TRAIN] if training_only else [Target.TRAIN, Target.REFERENCE]
    for target in targets:
        sub = result.per_w[
            (result.per_w["attack"] == attack) & (result.per_w["target"] == target.value)
        ]
        sub = sub.sort_values("w").reset_index(drop=True)
        label = "training" if target is Target.TRAIN else "reference"
        tag = "D<sub>T</sub>" if target is Target.TRAIN else "D<sub>R</sub>"
        series(
            f"{aname} on {label} data {tag}",
            sub["accuracy_mean"],
            sub["accuracy_min"],
            sub["accuracy_max"],
            _TRAIN if target is Target.TRAIN else _REF,
            label,
        )
        for col in (
            "accuracy_mean",
            "accuracy_min",
            "accuracy_max",
            "pooled_ci_low",
            "pooled_ci_high",
            "eta_empirical_lower_bound",
            "epsilon_empirical_lower_bound",
        ):
            table[f"attack_{label}_{col}"] = sub[col].to_numpy(float)
    shapes: list[dict[str, Any]] = [
        dict(
            type="line",
            x0=0,
            x1=1,
            xref="paper",
            y0=50,
            y1=50,
            line=dict(color=style.GREY, dash="dot", width=2),
        ),
        dict(
            type="line",
            x0=result.w_star,
            x1=result.w_star,
            yref="paper",
            y0=0,
            y1=1,
            line=dict(color=style.GREY, dash="dash", width=2),
        ),
    ]
    notes: list[dict[str, Any]] = [
        dict(
            x=0.25,
            xref="paper",
            xanchor="center",
            y=50,
            yanchor="top",
            text="coin flip (50 %)",
            showarrow=False,
            font=dict(size=13, color=style.GREY),
        ),
        dict(
            x=result.w_star,
            y=1.0,
            yref="paper",
            yanchor="bottom",
            text=f"w* = {result.w_star:.3g}",
            showarrow=False,
            font=dict(size=13, color=style.INK),
        ),
    ]
    pick = result.training_only_pick.w
    if pick is not None:
        shapes.append(
            dict(
                type="line",
                x0=pick,
                x1=pick,
                yref="paper",
                y0=0,
                y1=1,
                line=dict(color=style.INK, dash="dashdot", width=2),
            )
        )
        near = abs(pick - result.w_star) < 0.2
        notes.append(
            dict(
                x=pick,
                y=0.0 if near else 1.0,
                yref="paper",
                yanchor="bottom",
                xanchor="right" if pick > 0.5 else "left",
                text="training-only pick",
                showarrow=False,
                font=dict(size=13, color=style.INK),
                bgcolor="rgba(255,255,255,0.85)",
            )
        )
    title = (
        "What a training-only evaluation shows"
        if training_only
        else "Utility, training privacy and reference privacy"
    )
    layout = style.layout(
        title=f"{title}<br><sup>{aname}; mean over {cfg.n_seeds} seeds, band: min–max</sup>",
        x="reference weight w",
        y="accuracy (%)",
        height=470,
        xaxis=dict(range=[-0.03, 1.03], zeroline=False),
        shapes=shapes,
        annotations=notes,
        margin=dict(l=10, r=10, t=90, b=10),
    )
    return go.Figure(data=data, layout=layout), table
