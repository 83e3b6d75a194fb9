"""Charts of the "Play the attacker" page, drawn by Vega-Lite: the two release laws with the
releases marked, and the player's score beside the guarantee and the Bayes-optimal attacker.

Both charts change on every answer (a button press). Their specifications depend only on the
game's settings (the laws' height, the guarantee's and the optimal attacker's accuracy, the
confidence level), never on the round: a turn only changes the small named tables each layer
reads, so Streamlit redraws the charts in place (see :mod:`mipcore.plots.vega`). Each builder
returns ``(chart, table)``; the table is the chart's CSV.

Style (:mod:`mipcore.plots.style`): the law with the target in is a solid blue line, the law
with the target out a dashed vermillion one; past releases are ticks on the axis, a vertical
bar for a round whose target was in and a cross for one whose target was out. The round to
answer is a thick black line, the last answered round a dotted grey line with its two densities
as diamonds. In the score chart the player is a green diamond, the optimal attacker a black
one, each on its own row with its interval; coin flips, the guarantee and the optimal long-run
accuracy are vertical lines told apart by dash (dotted, solid, dashed).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mipcore.game import GameScore
from mipcore.lessons.play import LawPicture, Reveal, RoundHistory, Turn

from . import style, vega
from .formatting import fmt_num, superscript
from .vega import DASH, SHAPE, VegaLiteChart, by_field, every_other, layered

__all__ = ["laws_vega", "score_table", "score_vega", "times_text"]

LAWS_TITLE = "The two laws the attacker knows"
SCORE_TITLE = "Your score beside the guarantee"
IN_NAME = "law, target in"  # short: two legend columns fit a 390 px phone
OUT_NAME = "law, target out"
PAST_IN = "past: target in"
PAST_OUT = "past: target out"
IN_COLOUR, OUT_COLOUR = style.SEQUENCE[0], style.SEQUENCE[1]
# The legends draw every symbol at one size, large enough that a line's dash shows in its
# 24 px stroke; the markers' shapes are SVG paths inside 0.6 of the unit square, so that they
# stay marker-sized there (their marks' sizes are scaled up to match).
LEGEND = {"title": None, "symbolSize": 600, "symbolStrokeWidth": 2.5, "symbolOpacity": 1}
BAR = "M0,-0.6L0,0.6"  # a past release whose target was in (outline)
CROSS = "M-0.45,-0.45L0.45,0.45M-0.45,0.45L0.45,-0.45"  # ... whose target was out
DIAMOND = "M0,-0.6L0.6,0L0,0.6L-0.6,0Z"
_SMALL = 0.6**2  # a path above at size s looks like Vega's own shape at size s × 0.36
LAWS_HEIGHT = 300  # px of plot of the laws chart
PRESENTER_HEIGHT = 150  # ... in presenter mode: the round, In/Out and the chart on one screen
_TOP = 1.12  # the y axis ends at 1.12 × the laws' peak; the round's label sits there
_RULE_TOP = 1.03  # the release lines end here, below the label


def times_text(log10_ratio: float) -> str:
    """A likelihood ratio ``10**log10_ratio >= 1`` as text: 3 significant digits, more when
    it is close to 1 (``1.00013``, never just ``1``), "more than 10³⁰⁰" beyond float range.

    Used by the chart's tooltip and by the page's sentences, so both print the same number.
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


def laws_vega(
    laws: LawPicture,
    turn: Turn | None,
    last: Reveal | None,
    history: RoundHistory,
    *,
    height: int = LAWS_HEIGHT,
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The densities ``p_in`` and ``p_out`` of the release (``laws``), ``height`` px of plot
    (80 to 600; the legend in two columns below it), with

    * the release of the round to answer (``turn``) as a thick black line labelled with it;
    * the last answered round (``last``) as a dotted line with its two densities as diamonds
      (the likelihood ratio in their tooltip);
    * every answered release (``history``) as a tick on the axis: a bar when the target was
      in, a cross when it was out.

    The table (the CSV) is the laws on their grid: ``release, p_in, p_out``. The lines draw
    every other grid point (and both ends). The specification and the laws' tables depend on
    the laws only (the y axis ends at 1.12 × their peak): in the app they are built once per
    game and kept in its one bounded cache (:data:`mipcore.plots.vega.SPEC_MEMO`), the same
    tables for every round; ``turn``, ``last`` and ``history`` only fill the small tables,
    empty when there is no such round.
    """
    if not isinstance(laws, LawPicture):
        raise ValueError(f"laws must be a LawPicture (mipcore.lessons.play), got {laws!r}")
    if not isinstance(history, RoundHistory):
        raise ValueError(f"history must be a RoundHistory, got {history!r}")
    if isinstance(height, bool) or not isinstance(height, int) or not 80 <= height <= 600:
        raise ValueError(f"height={height!r} must be a whole number of pixels from 80 to 600")
    memo = vega.SPEC_MEMO
    look = memo(_laws_look, laws, height) if memo is not None else _laws_look(laws, height)
    member = np.asarray(history.member, dtype=bool)
    past = pd.DataFrame(
        {
            "release": np.asarray(history.release, dtype=float),
            "zero": 0.0,
            "name": np.where(member, PAST_IN, PAST_OUT),
            "round": np.asarray(history.index, dtype=np.int64) + 1,
        }
    )
    past = past[np.isfinite(past["release"])].reset_index(drop=True)
    now = pd.DataFrame(
        {"release": [float(turn.release)], "label": [f"this round: y = {fmt_num(turn.release, 4)}"]}
        if turn is not None
        else {"release": pd.Series(dtype=float), "label": pd.Series(dtype=str)}
    )
    if last is not None:
        likelier = "in" if last.log_likelihood_ratio >= 0 else "out"
        ratio = times_text(last.log10_ratio)
        said = "as likely in as out" if ratio == "1" else f"{ratio} times likelier {likelier}"
        before = pd.DataFrame(
            {
                "release": [float(last.release)] * 2,
                "density": [float(last.p_in), float(last.p_out)],
                "name": [IN_NAME, OUT_NAME],
                "round": [last.index + 1] * 2,
                "ratio": [said] * 2,
            }
        )
        before = before[np.isfinite(before["density"])].reset_index(drop=True)
    else:
        before = pd.DataFrame(
            {
                "release": pd.Series(dtype=float),
                "density": pd.Series(dtype=float),
                "name": pd.Series(dtype=str),
                "round": pd.Series(dtype=np.int64),
                "ratio": pd.Series(dtype=str),
            }
        )

    chart = VegaLiteChart(
        spec=json.loads(look.spec),  # each chart its own copy
        datasets={"laws": look.curves, "past": past, "now": now, "last": before},
        title=LAWS_TITLE,
    )
    return chart, look.table


@dataclass(frozen=True)
class _LawsLook:
    """What the laws chart draws the same in every round: its specification (JSON text) and
    the laws' tables (the drawn curves, the CSV)."""

    spec: str
    curves: pd.DataFrame
    table: pd.DataFrame


def _laws_look(laws: LawPicture, height: int) -> _LawsLook:
    table = pd.DataFrame({"release": laws.grid, "p_in": laws.p_in, "p_out": laws.p_out})
    finite = np.isfinite(table.to_numpy()).all(axis=1)
    drawn = table[finite].reset_index(drop=True)
    thin = drawn[every_other(len(drawn))]
    curves = pd.concat(
        [
            pd.DataFrame({"release": thin["release"], "density": thin[c], "name": n})
            for c, n in (("p_in", IN_NAME), ("p_out", OUT_NAME))
        ],
        ignore_index=True,
    )
    peak = float(max(drawn["p_in"].max(), drawn["p_out"].max())) if len(drawn) else 1.0
    if not (peak > 0 and math.isfinite(peak)):
        peak = 1.0
    domain = [IN_NAME, OUT_NAME, PAST_IN, PAST_OUT]
    colours = [IN_COLOUR, OUT_COLOUR, IN_COLOUR, OUT_COLOUR]
    legend = {**LEGEND, "columns": 2}  # two rows of two: the chart stays short
    x = {
        "field": "release",
        "type": "quantitative",
        "title": "release y",
        "scale": {"zero": False, "nice": False},
        "axis": {"tickCount": 10, "labelSeparation": 6},  # room between labels, also at 1.25×
    }
    y_scale = {"domain": [-0.04 * peak, _TOP * peak], "nice": False}
    y = {"field": "density", "type": "quantitative", "title": "density", "scale": y_scale}
    colour = by_field("name", domain, colours, legend)
    release_tip = {"field": "release", "type": "quantitative", "title": "y", "format": ".4~g"}

    def rule(dash: list[int], colour: str, width: float) -> dict[str, Any]:
        return {
            "type": "rule",
            "color": colour,
            "strokeDash": dash,
            "strokeWidth": width,
        }

    span = {
        "y": {"datum": -0.04 * peak, "type": "quantitative", "scale": y_scale},
        "y2": {"datum": _RULE_TOP * peak},
    }
    layers: list[dict[str, Any]] = [
        {
            "data": {"name": "laws"},
            "mark": {"type": "line", "strokeWidth": 3},
            "encoding": {
                "x": x,
                "y": y,
                "color": colour,
                "strokeDash": by_field(
                    "name", domain, [DASH["solid"], DASH["dash"], DASH["solid"], DASH["solid"]]
                ),
                "tooltip": [
                    {"field": "name", "type": "nominal", "title": "law"},
                    release_tip,
                    {"field": "density", "type": "quantitative", "format": ".4~g"},
                ],
            },
        },
        {
            "data": {"name": "last"},
            "mark": rule(DASH["dot"], style.GREY, 2),
            "encoding": {"x": x, **span},
        },
        {
            "data": {"name": "now"},
            "mark": rule(DASH["solid"], style.INK, 3),
            "encoding": {"x": x, **span, "tooltip": [release_tip]},
        },
        {
            "data": {"name": "now"},
            "mark": {"type": "text", "baseline": "top", "dy": 2, "fontSize": 15},
            "encoding": {
                "x": x,
                "y": {"datum": _TOP * peak, "type": "quantitative", "scale": y_scale},
                "text": {"field": "label", "type": "nominal"},
            },
        },
        {
            "data": {"name": "past"},
            "mark": {
                "type": "point",
                "filled": False,
                "size": round(220 / _SMALL),
                "strokeWidth": 2.5,
                "opacity": 1,
            },
            "encoding": {
                "x": x,
                "y": {"field": "zero", "type": "quantitative", "scale": y_scale},
                "color": colour,
                "shape": by_field("name", domain, ["stroke", "stroke", BAR, CROSS]),
                "tooltip": [
                    {"field": "round", "type": "quantitative", "title": "round"},
                    release_tip,
                    {"field": "name", "type": "nominal", "title": "was"},
                ],
            },
        },
        {
            "data": {"name": "last"},
            "mark": {
                "type": "point",
                "shape": SHAPE["diamond"],
                "filled": True,
                "size": 190,
                "stroke": style.INK,
                "strokeWidth": 1.5,
                "opacity": 1,
            },
            "encoding": {
                "x": x,
                "y": y,
                "fill": {
                    "field": "name",
                    "type": "nominal",
                    "scale": colour["scale"],
                    "legend": None,
                },
                "tooltip": [
                    {"field": "round", "type": "quantitative", "title": "last round"},
                    release_tip,
                    {"field": "name", "type": "nominal", "title": "law"},
                    {"field": "density", "type": "quantitative", "format": ".4~g"},
                    {"field": "ratio", "type": "nominal", "title": "the release is"},
                ],
            },
        },
    ]
    spec = layered(LAWS_TITLE, layers, height=height)
    return _LawsLook(json.dumps(spec), curves, table)


def score_table(score: GameScore, optimal_interval: tuple[float, float]) -> pd.DataFrame:
    """The score chart's numbers (its CSV): one row for the player and one for the optimal
    attacker on the same rounds (``correct``, ``rounds``, ``accuracy`` and the two-sided
    Clopper–Pearson ``interval_low``/``interval_high``), then one row for each reference
    accuracy: coin flips (50 %), the guarantee 1/2 + η and the optimal attacker's exact
    long-run accuracy. Accuracies are fractions."""
    if not isinstance(score, GameScore):
        raise ValueError(f"score must be a GameScore (mipcore.game.score_game), got {score!r}")
    lo, hi = (float(v) for v in optimal_interval)
    if not (0.0 <= lo <= hi <= 1.0):
        raise ValueError(
            f"optimal_interval must satisfy 0 <= low <= high <= 1, got {optimal_interval!r}"
        )
    rows = [
        ("you", score.correct, score.accuracy, *score.interval),
        (
            "optimal attacker, same rounds",
            score.optimal_correct,
            score.optimal_correct / score.rounds,
            lo,
            hi,
        ),
    ]
    lines = _reference_lines(score)
    return pd.DataFrame(
        {
            "who": [r[0] for r in rows] + [n for n, _ in lines],
            "correct": [r[1] for r in rows] + [None] * 3,
            "rounds": [score.rounds] * 2 + [None] * 3,
            "accuracy": [r[2] for r in rows] + [v for _, v in lines],
            "interval_low": [r[3] for r in rows] + [None] * 3,
            "interval_high": [r[4] for r in rows] + [None] * 3,
        }
    )


def _reference_lines(score: GameScore) -> list[tuple[str, float]]:
    return [
        ("coin flip, 50 %", 0.5),
        (f"guarantee 1/2 + η, {100 * score.certified_accuracy:.1f} %", score.certified_accuracy),
        (
            f"optimal attacker, long run, {100 * score.optimal_accuracy:.1f} %",
            score.optimal_accuracy,
        ),
    ]


def score_vega(
    score: GameScore, optimal_interval: tuple[float, float]
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The player's accuracy and the Bayes-optimal attacker's on the same rounds (two rows,
    each a diamond with its two-sided Clopper–Pearson interval), against three vertical lines:
    a coin flip (50 %), the guarantee ``1/2 + η`` and the optimal attacker's exact long-run
    accuracy; all in %. The table is :func:`score_table`. The specification depends on the
    confidence level and the two reference accuracies (the game's settings), not on the score:
    the number of rounds is for the page's caption."""
    table = score_table(score, optimal_interval)
    names = [
        "you",
        "optimal attacker, same rounds",
        *(n for n, _ in _reference_lines(score)),
    ]
    rows = table.iloc[:2]
    scores = pd.DataFrame(
        {
            "row": ["you", "optimal attacker"],
            "name": names[:2],
            "correct": rows["correct"].astype(np.int64).to_numpy(),
            "rounds": rows["rounds"].astype(np.int64).to_numpy(),
            "accuracy": 100 * rows["accuracy"].astype(float).to_numpy(),
            "low": 100 * rows["interval_low"].astype(float).to_numpy(),
            "high": 100 * rows["interval_high"].astype(float).to_numpy(),
        }
    )
    levels = pd.DataFrame(
        {"name": names[2:], "accuracy": 100 * table["accuracy"].iloc[2:].astype(float).to_numpy()}
    )
    colours = [style.MEASURED.colour, style.EXACT.colour, style.GREY, style.MIP.colour, style.INK]
    dashes = [DASH["solid"], DASH["solid"], DASH["dot"], DASH["solid"], DASH["dash"]]
    shapes = [DIAMOND, DIAMOND, "stroke", "stroke", "stroke"]  # the style's diamonds
    legend = LEGEND
    colour = by_field("name", names, colours, legend)
    x_scale = {"domain": [-2, 102], "nice": False}
    x_axis = {"values": [0, 25, 50, 75, 100]}
    x = {
        "field": "accuracy",
        "type": "quantitative",
        "title": "accuracy (%)",
        "scale": x_scale,
        "axis": x_axis,
    }
    y = {
        "field": "row",
        "type": "nominal",
        "title": None,
        "scale": {"domain": ["you", "optimal attacker"]},
        "axis": {"grid": False, "labelFontSize": 15},
    }
    tooltip = [
        {"field": "row", "type": "nominal", "title": "who"},
        {"field": "correct", "type": "quantitative", "title": "right"},
        {"field": "rounds", "type": "quantitative", "title": "rounds"},
        {"field": "accuracy", "type": "quantitative", "title": "accuracy (%)", "format": ".1f"},
        {"field": "low", "type": "quantitative", "title": "interval from (%)", "format": ".1f"},
        {"field": "high", "type": "quantitative", "title": "interval to (%)", "format": ".1f"},
    ]

    def end(field: str) -> dict[str, Any]:
        return {
            "data": {"name": "scores"},
            "mark": {"type": "tick", "thickness": 3, "size": 18, "orient": "vertical"},
            "encoding": {
                "x": {**x, "field": field},
                "y": y,
                "color": colour,
            },
        }

    layers: list[dict[str, Any]] = [
        {
            "data": {"name": "levels"},
            "mark": {"type": "rule"},
            "encoding": {
                "x": x,
                "color": colour,
                "strokeDash": by_field("name", names, dashes, legend),
                "strokeWidth": by_field("name", names, [3, 3, 2, 3, 2]),
                "tooltip": [
                    {"field": "name", "type": "nominal", "title": "line"},
                    {"field": "accuracy", "type": "quantitative", "format": ".1f"},
                ],
            },
        },
        {
            "data": {"name": "scores"},
            "mark": {"type": "rule", "strokeWidth": 3},
            "encoding": {
                "x": {**x, "field": "low"},
                "x2": {"field": "high"},
                "y": y,
                "color": colour,
            },
        },
        end("low"),
        end("high"),
        {
            "data": {"name": "scores"},
            "mark": {"type": "point", "filled": True, "size": round(300 / _SMALL), "opacity": 1},
            "encoding": {
                "x": x,
                "y": y,
                "color": colour,
                "shape": by_field("name", names, shapes, legend),
                "tooltip": tooltip,
            },
        },
    ]
    spec = layered(SCORE_TITLE, layers, height=130)
    chart = VegaLiteChart(
        spec=spec, datasets={"scores": scores, "levels": levels}, title=SCORE_TITLE
    )
    return chart, table
