"""Figures of the "Play the attacker" page: the two release laws with the releases marked,
and the player's score beside the guarantee and the Bayes-optimal attacker.

Each builder returns ``(figure, table)``; the table is exactly what the figure draws (the
page offers it as CSV).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mipcore.game import GameScore
from mipcore.lessons.play import LawPicture, Reveal, RoundHistory, Turn

from . import style
from .formatting import fmt_num, superscript

__all__ = ["laws_figure", "score_figure", "times_text"]

IN = dict(colour=style.SEQUENCE[0], dash=style.dashes(0), symbol="circle")
OUT = dict(colour=style.SEQUENCE[1], dash=style.dashes(1), symbol="square")


def times_text(log10_ratio: float) -> str:
    """A likelihood ratio ``10**log10_ratio >= 1`` as text: 3 significant digits, more when
    it is close to 1 (``1.00013``, never just ``1``), "more than 10³⁰⁰" beyond float range.

    Used by the figure and by the page's sentences, so both print the same number.
    """
    if log10_ratio >= 300:
        return f"more than 10{superscript(300)}"
    excess = math.expm1(log10_ratio * math.log(10.0))  # ratio − 1, exact near 1
    if excess <= 0:
        return "1"
    if excess < 0.1:
        digits = min(12, 2 + math.ceil(-math.log10(excess)))
        return fmt_num(1.0 + excess, digits)
    return fmt_num(10.0**log10_ratio, 3)


def laws_figure(
    laws: LawPicture,
    turn: Turn | None,
    last: Reveal | None,
    history: RoundHistory,
) -> tuple[go.Figure, pd.DataFrame]:
    """The densities ``p_in`` and ``p_out`` of the release, with

    * the release of the round to answer (``turn``) as a black vertical line;
    * the last answered round (``last``) as a dotted line with its two densities marked and
      the likelihood ratio at the release written beside it;
    * every answered release (``history``) as a tick on the axis, by colour and symbol
      according to the truth (target in / out).
    """
    traces: list[dict[str, Any]] = [
        dict(
            type="scatter",
            x=laws.grid,
            y=laws.p_in,
            mode="lines",
            name="target in: p<sub>in</sub>(y)",
            line=style.line(IN, width=3),
            hovertemplate="y = %{x:.4g}<br>p<sub>in</sub> = %{y:.4g}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=laws.grid,
            y=laws.p_out,
            mode="lines",
            name="target out: p<sub>out</sub>(y)",
            line=style.line(OUT, width=3),
            hovertemplate="y = %{x:.4g}<br>p<sub>out</sub> = %{y:.4g}<extra></extra>",
        ),
    ]
    peak = float(max(laws.p_in.max(), laws.p_out.max()))
    for truth, st, label in ((True, IN, "in"), (False, OUT, "out")):
        mask = history.member == truth
        if mask.any():
            traces.append(
                dict(
                    type="scatter",
                    x=history.release[mask],
                    y=np.zeros(int(mask.sum())),
                    mode="markers",
                    name=f"past releases, target {label}",
                    marker=dict(
                        color=st["colour"],
                        symbol="line-ns-open" if truth else "x-thin-open",
                        size=16,
                        line=dict(width=2.5, color=st["colour"]),
                    ),
                    cliponaxis=False,
                    hovertemplate=f"round release %{{x:.4g}} (target {label})<extra></extra>",
                )
            )
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    if last is not None:
        shapes.append(
            dict(
                type="line",
                x0=last.release,
                x1=last.release,
                y0=0,
                y1=1,
                yref="paper",
                line=dict(color=style.GREY, width=2, dash="dot"),
            )
        )
        traces.append(
            dict(
                type="scatter",
                x=[last.release, last.release],
                y=[last.p_in, last.p_out],
                mode="markers",
                name="last round: the two densities",
                marker=dict(
                    color=[IN["colour"], OUT["colour"]],
                    symbol="diamond",
                    size=13,
                    line=dict(color=style.INK, width=1.5),
                ),
                hovertemplate="p = %{y:.4g}<extra></extra>",
            )
        )
        which = (
            "p<sub>in</sub>/p<sub>out</sub>"
            if last.log_likelihood_ratio >= 0
            else "p<sub>out</sub>/p<sub>in</sub>"
        )
        higher = max(last.p_in, last.p_out)
        notes.append(
            dict(
                x=last.release,
                y=higher,
                text=f"last round: {which} = {times_text(last.log10_ratio)}",
                showarrow=True,
                arrowhead=0,
                arrowcolor=style.GREY,
                ax=0,
                ay=40,
                yanchor="top",
                bgcolor="rgba(255,255,255,0.9)",
                bordercolor=style.GREY,
                font=dict(size=14, color=style.INK),
            )
        )
    if turn is not None:
        shapes.append(
            dict(
                type="line",
                x0=turn.release,
                x1=turn.release,
                y0=0,
                y1=1,
                yref="paper",
                line=dict(color=style.INK, width=3),
            )
        )
        notes.append(
            dict(
                x=turn.release,
                y=1.0,
                yref="paper",
                text=f"this round: y = {fmt_num(turn.release, 4)}",
                showarrow=False,
                xanchor="center",
                yanchor="bottom",
                bgcolor="rgba(255,255,255,0.85)",
                font=dict(size=15, color=style.INK),
            )
        )
    fig = go.Figure(
        data=traces,
        layout=style.layout(
            title="What the attacker knows: the two release laws",
            x="release y",
            y="density",
            height=380,
            xaxis=dict(zeroline=False),
            shapes=shapes,
            annotations=notes,
            yaxis=dict(range=[-0.04 * peak, 1.12 * peak], rangemode="normal"),
            margin=dict(l=10, r=10, t=80, b=10),
        ),
    )
    table = pd.DataFrame({"release": laws.grid, "p_in": laws.p_in, "p_out": laws.p_out})
    return fig, table


def score_figure(
    score: GameScore, optimal_interval: tuple[float, float]
) -> tuple[go.Figure, pd.DataFrame]:
    """The player's accuracy and the Bayes-optimal attacker's on the same rounds, each with
    its two-sided Clopper–Pearson interval, against a coin flip (50 %), the guarantee
    ``1/2 + η`` and the optimal attacker's exact long-run accuracy (all in %)."""
    rows = [
        ("you", score.correct, score.accuracy, *score.interval),
        (
            "optimal attacker, same rounds",
            score.optimal_correct,
            score.optimal_correct / score.rounds,
            *optimal_interval,
        ),
    ]
    data: list[dict[str, Any]] = []
    for i, (who, _, acc, lo, hi) in enumerate(rows):
        st = style.MEASURED if i == 0 else style.EXACT
        data.append(
            dict(
                type="scatter",
                x=[100 * acc],
                y=[i],
                mode="markers",
                name=f"{who} ({round(100 * score.confidence)} % interval)",
                marker=style.marker(st, size=16),
                error_x=dict(
                    type="data",
                    symmetric=False,
                    array=[100 * (hi - acc)],
                    arrayminus=[100 * (acc - lo)],
                    thickness=3,
                    width=10,
                    color=st["colour"],
                ),
                hovertemplate=f"{who}: %{{x:.1f}} %<extra></extra>",
            )
        )
    lines = (
        ("coin flip, 50 %", 0.5, dict(color=style.GREY, dash="dot", width=2)),
        (
            f"guarantee 1/2 + η, {100 * score.certified_accuracy:.1f} %",
            score.certified_accuracy,
            style.line(style.MIP, width=3),
        ),
        (
            f"optimal attacker in the long run, {100 * score.optimal_accuracy:.1f} %",
            score.optimal_accuracy,
            dict(color=style.INK, dash="dash", width=2),
        ),
    )
    for name, value, line in lines:
        data.append(
            dict(
                type="scatter",
                x=[100 * value, 100 * value],
                y=[-0.6, 1.6],
                mode="lines",
                name=name,
                line=line,
                hoverinfo="skip",
            )
        )
    fig = go.Figure(
        data=data,
        layout=style.layout(
            title=f"Your score after {score.rounds} round{'s' if score.rounds != 1 else ''}",
            x="accuracy (%)",
            height=330,
            xaxis=dict(range=[-2, 102], tickvals=[0, 25, 50, 75, 100]),
            yaxis=dict(
                range=[-0.6, 1.6],
                tickvals=[0, 1],
                ticktext=["you", "optimal<br>attacker"],
                zeroline=False,
                showgrid=False,
            ),
            legend=dict(
                orientation="h", x=0.0, xanchor="left", y=-0.3, yanchor="top", font=dict(size=13)
            ),
        ),
    )
    table = pd.DataFrame(
        {
            "who": [r[0] for r in rows] + [n for n, _, _ in lines],
            "correct": [r[1] for r in rows] + [None] * 3,
            "rounds": [score.rounds] * 2 + [None] * 3,
            "accuracy": [r[2] for r in rows] + [v for _, v, _ in lines],
            "interval_low": [r[3] for r in rows] + [None] * 3,
            "interval_high": [r[4] for r in rows] + [None] * 3,
        }
    )
    return fig, table
