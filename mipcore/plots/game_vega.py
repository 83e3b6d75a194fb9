"""Charts of the "Play the attacker" page: the two release laws with the releases marked, and
the player's score beside the guarantee and the Bayes-optimal attacker, drawn on the chart
concepts (:mod:`mipcore.plots.curves`, :mod:`mipcore.plots.distributions`).

Both charts change on every answer (a button press). Their specifications depend only on the
game's settings (the laws' peak and the chart's height; the guarantee's and the optimal
attacker's accuracy, named in the score chart's legend), never on the round: a turn only
changes the small named tables each layer reads, so Streamlit redraws the charts in place (see
:mod:`mipcore.plots.vega`), and each specification is built once per look
(:func:`mipcore.plots.distributions.chart`). Each builder returns ``(chart, table)``; the table
is the chart's CSV.

Style (:mod:`mipcore.plots.style`): the law with the target in is a solid blue line, the law
with the target out a dashed vermillion one; past releases are ticks on the axis, a vertical
bar for a round whose target was in and a cross for one whose target was out. The round to
answer is a thick black line, the last answered round a dotted grey line with its two densities
as diamonds. In the score chart the player is a green diamond, the optimal attacker a black
one, each on its own row with its interval; coin flips, the guarantee and the optimal long-run
accuracy are vertical lines told apart by dash (dotted, solid, dashed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from mipcore.game import GameScore, GameState, ReleaseLaws, Turn

from . import curves, distributions, style, vega
from .curves import Look
from .formatting import fmt_num, superscript
from .vega import DASH, SHAPE, VegaLiteChart, every_other

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
    laws: ReleaseLaws, state: GameState, *, height: int = LAWS_HEIGHT, sealed: bool = False
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The densities ``p_in`` and ``p_out`` of the release (``laws``), ``height`` px of plot
    (the legend in two columns below it), with, from the game's ``state``:

    * the release of the round to answer (``state.turn``) as a thick black line labelled with it;
    * the last answered round (``state.last``) as a dotted line with its two densities as
      diamonds (the likelihood ratio in their tooltip);
    * every answered release (``state.history``) as a tick on the axis: a bar when the target
      was in, a cross when it was out.

    ``sealed`` (a class whose truths are not shown yet): the laws and this round's release
    only -- the last round and the history are not drawn, their tables are not sent and the
    legend names no past round (a mark that tells a truth has no place on a student's phone).

    The table (the CSV) is the laws on their grid: ``release, p_in, p_out``. The lines draw
    every other grid point (and both ends). The laws' tables depend on the laws only, the
    specification on their peak (the y axis ends at 1.12 × it) and ``height``: in the app both
    are built once per game and kept in its one bounded cache
    (:data:`mipcore.plots.vega.SPEC_MEMO`), the same tables for every round; the round to
    answer, the last round and the history only fill the small tables, empty when there is
    no such round.
    """
    if sealed:
        return sealed_laws_vega(laws, state.turn, height=height)
    drawn = _drawn(laws)
    datasets = {
        "laws": drawn.curves,
        "past": _past(state),
        "now": _now(state.turn),
        "last": _last(state),
    }
    chart = distributions.chart(
        LAWS_TITLE, datasets, _laws_layers, drawn.peak, False, height=height
    )
    return chart, drawn.table


def sealed_laws_vega(
    laws: ReleaseLaws, turn: Turn | None, *, height: int = LAWS_HEIGHT
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """:func:`laws_vega` with ``sealed=True``: it reads nothing of the game but the round to
    answer, ``turn``, so a class's students at the same round share one chart (the app
    caches it by these arguments, not by each player's answers)."""
    drawn = _drawn(laws)
    datasets = {"laws": drawn.curves, "now": _now(turn)}
    chart = distributions.chart(LAWS_TITLE, datasets, _laws_layers, drawn.peak, True, height=height)
    return chart, drawn.table


def _drawn(laws: ReleaseLaws) -> Any:
    """The laws' tables and peak, built once per game (see :func:`laws_vega`)."""
    memo = vega.SPEC_MEMO
    return memo(_laws_tables, laws) if memo is not None else _laws_tables(laws)


def _now(turn: Turn | None) -> pd.DataFrame:
    """The round to answer's release and its label (empty when there is none)."""
    return pd.DataFrame(
        {"release": [turn.release], "label": [f"this round: y = {fmt_num(turn.release, 4)}"]}
        if turn is not None
        else {"release": pd.Series(dtype=float), "label": pd.Series(dtype=str)}
    )


def _past(state: GameState) -> pd.DataFrame:
    """The answered releases, each with its truth."""
    history = state.history
    past = pd.DataFrame(
        {
            "release": np.asarray(history.release, dtype=float),
            "zero": 0.0,
            "name": np.where(np.asarray(history.member, dtype=bool), PAST_IN, PAST_OUT),
            "round": np.asarray(history.index, dtype=np.int64) + 1,
        }
    )
    finite = np.isfinite(past["release"].to_numpy())
    if not finite.all():  # (filtering a frame costs, and every release is finite in practice)
        past = past[finite].reset_index(drop=True)
    return past


def _last(state: GameState) -> pd.DataFrame:
    """The last answered round's two densities at its release, with the likelihood ratio."""
    last = state.last
    if last is None:
        columns = {"release": float, "density": float, "name": str, "round": np.int64, "ratio": str}
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in columns.items()})
    likelier = "in" if last.log_likelihood_ratio >= 0 else "out"
    ratio = times_text(last.log10_ratio)
    said = "as likely in as out" if ratio == "1" else f"{ratio} times likelier {likelier}"
    before = pd.DataFrame(
        {
            "release": [last.release] * 2,
            "density": [last.p_in, last.p_out],
            "name": [IN_NAME, OUT_NAME],
            "round": [last.index + 1] * 2,
            "ratio": [said] * 2,
        }
    )
    if not np.isfinite([last.p_in, last.p_out]).all():
        before = before[np.isfinite(before["density"])].reset_index(drop=True)
    return before


@dataclass(frozen=True)
class _Laws:
    """What the laws chart draws the same in every round: the drawn curves, the CSV's table
    and the laws' peak (the specification's only number from the laws)."""

    curves: pd.DataFrame
    table: pd.DataFrame
    peak: float


def _laws_tables(laws: ReleaseLaws) -> _Laws:
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
    return _Laws(curves, table, peak)


#: The laws chart's names: the two laws (colour and dash) and the past releases (colour and
#: marker), one legend in two rows of two.
_LAWS_LOOKS = {
    IN_NAME: Look(IN_COLOUR),
    OUT_NAME: Look(OUT_COLOUR, "dash"),
    PAST_IN: Look(IN_COLOUR, shape=BAR),
    PAST_OUT: Look(OUT_COLOUR, shape=CROSS),
}


def _laws_layers(peak: float, sealed: bool = False) -> list[Any]:
    """The laws chart's layers, for laws whose densities peak at ``peak``: the two laws, the
    last round's dotted line, this round's line and its label, the past releases on the axis,
    the last round's densities; ``sealed``: the two laws and this round's line only."""
    x = alt.X(
        "release",
        type="quantitative",
        title="release y",
        scale=alt.Scale(zero=False, nice=False),
        axis=alt.Axis(tickCount=10, labelSeparation=6),  # room between labels, also at 1.25×
    )
    y_scale = alt.Scale(domain=[-0.04 * peak, _TOP * peak], nice=False)
    y = alt.Y("density", type="quantitative", title="density", scale=y_scale)
    floor = alt.YDatum(-0.04 * peak, type="quantitative", scale=y_scale)
    legend = {**LEGEND, "columns": 2}  # two rows of two: the chart stays short
    looks = (
        {k: v for k, v in _LAWS_LOOKS.items() if k in (IN_NAME, OUT_NAME)}
        if sealed
        else _LAWS_LOOKS
    )
    colour = distributions.looks("name", looks, "color", legend=legend)
    dashes = distributions.looks("name", looks, "strokeDash", legend=None)
    shapes = distributions.looks("name", looks, "shape", legend=None)
    fills = distributions.looks("name", looks, "fill", legend=None)
    release = alt.Tooltip("release", type="quantitative", title="y", format=".4~g")
    density = alt.Tooltip("density", type="quantitative", format=".4~g")
    layers = [
        curves.dataset("laws")
        .mark_line(strokeWidth=3)
        .encode(
            x=x,
            y=y,
            **colour,
            **dashes,
            tooltip=[alt.Tooltip("name", type="nominal", title="law"), release, density],
        ),
        distributions.interval(
            "last",
            floor,
            _RULE_TOP * peak,
            x,
            color=style.GREY,
            strokeDash=DASH["dot"],
            strokeWidth=2,
        ),
        distributions.interval(
            "now",
            floor,
            _RULE_TOP * peak,
            x,
            color=style.INK,
            strokeDash=DASH["solid"],
            strokeWidth=3,
        ).encode(tooltip=[release]),
        curves.labels("now", "label", baseline="top", dy=2, fontSize=15).encode(
            x=x, y=alt.YDatum(_TOP * peak, type="quantitative", scale=y_scale)
        ),
        curves.markers("past", round(220 / _SMALL), filled=False, strokeWidth=2.5).encode(
            x=x,
            y=alt.Y("zero", type="quantitative", scale=y_scale),
            **colour,
            **shapes,
            tooltip=[
                alt.Tooltip("round", type="quantitative", title="round"),
                release,
                alt.Tooltip("name", type="nominal", title="was"),
            ],
        ),
        curves.markers(
            "last", 190, shape=SHAPE["diamond"], stroke=style.INK, strokeWidth=1.5
        ).encode(
            x=x,
            y=y,
            **fills,
            tooltip=[
                alt.Tooltip("round", type="quantitative", title="last round"),
                release,
                alt.Tooltip("name", type="nominal", title="law"),
                density,
                alt.Tooltip("ratio", type="nominal", title="the release is"),
            ],
        ),
    ]
    if sealed:  # the laws, this round's line and its label
        return [layers[0], layers[2], layers[3]]
    return layers


def score_table(score: GameScore) -> pd.DataFrame:
    """The score chart's numbers (its CSV): one row for the player and one for the optimal
    attacker on the same rounds (``correct``, ``rounds``, ``accuracy`` and the two-sided
    Clopper–Pearson ``interval_low``/``interval_high``), then one row for each reference
    accuracy: coin flips (50 %), the guarantee 1/2 + η and the optimal attacker's exact
    long-run accuracy. Accuracies are fractions."""
    opt = score.optimal_correct / score.rounds
    rows = [
        ("you", score.correct, score.accuracy, *score.interval),
        ("optimal attacker, same rounds", score.optimal_correct, opt, *score.optimal_interval),
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


def score_vega(score: GameScore) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The player's accuracy and the Bayes-optimal attacker's on the same rounds (two rows,
    each a diamond with its two-sided Clopper–Pearson interval), against three vertical lines:
    a coin flip (50 %), the guarantee ``1/2 + η`` and the optimal attacker's exact long-run
    accuracy; all in %. The table is :func:`score_table`. The specification depends on the
    two reference accuracies (the game's settings, in the lines' names), not on the score: the
    number of rounds and the confidence level are for the page's caption."""
    table = score_table(score)
    lines = _reference_lines(score)
    names = ["you", "optimal attacker, same rounds", *(n for n, _ in lines)]
    lo, hi = score.optimal_interval
    # the table's numbers, in %, taken from where the table took them (reading them back from
    # the table, column by column, cost a third of this chart)
    scores = pd.DataFrame(
        {
            "row": ["you", "optimal attacker"],
            "name": names[:2],
            "correct": np.array([score.correct, score.optimal_correct], dtype=np.int64),
            "rounds": np.array([score.rounds] * 2, dtype=np.int64),
            "accuracy": 100 * np.array([score.accuracy, score.optimal_correct / score.rounds]),
            "low": 100 * np.array([score.interval[0], lo]),
            "high": 100 * np.array([score.interval[1], hi]),
        }
    )
    levels = pd.DataFrame({"name": names[2:], "accuracy": 100 * np.array([v for _, v in lines])})
    datasets = {"scores": scores, "levels": levels}
    return distributions.chart(SCORE_TITLE, datasets, _score_layers, *names[2:], height=130), table


def _score_layers(*lines: str) -> list[Any]:
    """The score chart's layers, its reference ``lines`` named (coin flip, guarantee,
    optimal long run): the lines, then each row's interval with its ends and its diamond."""
    looks = dict(
        zip(
            ("you", "optimal attacker, same rounds", *lines),
            (
                Look(style.MEASURED.colour, "solid", 3, DIAMOND),  # the style's diamonds
                Look(style.EXACT.colour, "solid", 3, DIAMOND),
                Look(style.GREY, "dot", 2),
                Look(style.MIP.colour, "solid", 3),
                Look(style.INK, "dash", 2),
            ),
            strict=True,
        )
    )
    colour = distributions.looks("name", looks, "color", legend=LEGEND)

    def accuracy(field: str) -> Any:
        return curves.quantity(
            alt.X, field, "accuracy (%)", domain=(-2, 102), ticks=(0, 25, 50, 75, 100)
        )

    y = alt.Y(
        "row",
        type="nominal",
        title=None,
        scale=alt.Scale(domain=["you", "optimal attacker"]),
        axis=alt.Axis(grid=False, labelFontSize=15),
    )
    ends = [
        curves.dataset("scores")
        .mark_tick(thickness=3, size=18, orient="vertical")
        .encode(x=accuracy(field), y=y, **colour)
        for field in ("low", "high")
    ]
    return [
        distributions.rule(accuracy("accuracy"), "levels").encode(
            **colour,
            **distributions.looks("name", looks, "strokeDash", legend=LEGEND),
            **distributions.looks("name", looks, "strokeWidth", legend=None),
            tooltip=[
                alt.Tooltip("name", type="nominal", title="line"),
                alt.Tooltip("accuracy", type="quantitative", format=".1f"),
            ],
        ),
        distributions.interval("scores", accuracy("low"), "high", y, strokeWidth=3).encode(
            **colour
        ),
        *ends,
        curves.markers("scores", round(300 / _SMALL)).encode(
            x=accuracy("accuracy"),
            y=y,
            **colour,
            **distributions.looks("name", looks, "shape", legend=LEGEND),
            tooltip=[
                alt.Tooltip("row", type="nominal", title="who"),
                alt.Tooltip("correct", type="quantitative", title="right"),
                alt.Tooltip("rounds", type="quantitative", title="rounds"),
                alt.Tooltip("accuracy", type="quantitative", title="accuracy (%)", format=".1f"),
                alt.Tooltip("low", type="quantitative", title="interval from (%)", format=".1f"),
                alt.Tooltip("high", type="quantitative", title="interval to (%)", format=".1f"),
            ],
        ),
    ]
