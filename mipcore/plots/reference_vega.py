"""Charts of the reference-data page, drawn by Vega-Lite through
Altair (curves charts of :mod:`mipcore.plots.curves`): Figure 2's theory and the sweep's
triad.

Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira, *A Cautionary Tale: On the Role of
Reference Data in Empirical Privacy Defenses*, PETS 2024, arXiv:2310.12112 -- as computed by
:func:`mipcore.reference_data.figure2` and :mod:`mipcore.experiments.reference_sweep`.

Every builder takes a result and returns ``(chart, table)``: a
:class:`~mipcore.plots.vega.VegaLiteChart` in the app's style and the DataFrame of exactly what
it draws (the CSV). No arithmetic beyond selecting rows and scaling to %. The specifications
name no slider value (those are in the page's captions): moving ε₀, N or N_T/N_R only changes
the tables, and Streamlit redraws the chart in place (see :mod:`mipcore.plots.vega`).
Training data D_T: blue, dashed, squares; reference data D_R: vermillion, solid, crosses;
utility: green, solid, diamonds.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from ..experiments.reference_sweep import SweepResult, Target
from ..reference_data import Figure2Result
from . import style
from .curves import Look, band, by, chart, dataset, labels, markers, quantity, rule
from .vega import DASH, SHAPE, STAR, VegaLiteChart

__all__ = [
    "ATTACK_NAMES",
    "STAR_NAME",
    "Unit",
    "theory_table",
    "theory_vega",
    "triad_table",
    "triad_vega",
]


class Unit(StrEnum):
    """The privacy axis of Figure 2: Theorem 3.1's ε, or the η-MIP level it implies."""

    EPSILON = "eps"
    ETA = "eta"


#: How the attacks are named in legends and titles.
ATTACK_NAMES = {
    "gap": "gap attack",
    "confidence": "confidence attack",
    "loss": "loss attack",
}

TRAIN_NAME = "training data D_T"
REF_NAME = "reference data D_R"
TEST_NAME = "test accuracy (utility)"
STAR_NAME = "w* = N_R/N: equal privacy, N_eff = N"
STAR_LINE = "w* = N_R/N: equal privacy"
PICK_NAME = "training-only pick"
THEORY_TITLE = "Utility against each set's privacy as w goes 0 → 1"
_MARKERS = 9  # markers on each curve at most

_TRAIN = Look(style.BLUE, "dash", shape=SHAPE["square"])
_REF = Look(style.VERMILLION, shape=SHAPE["x"])
_TEST = Look(style.GREEN, shape=SHAPE["diamond"])
_STAR = Look(style.BLACK, shape=STAR)
# A vertical bar: the legend's symbol for a vertical rule.
_RULE = "M-0.15,-1L0.15,-1L0.15,1L-0.15,1Z"
# w* and the training-only pick: vertical rules, each with its colour and dash
_VERTICALS = {
    STAR_LINE: Look(style.GREY, "dash", shape=_RULE),
    PICK_NAME: Look(style.INK, "dashdot", shape=_RULE),
}
# Each layer has its own scales and legend for these channels (each gives its domain and
# range in full): a layer without a legend, a band's faint fill or the rules' own entries
# never change another layer's.
_CHANNELS = ("color", "fill", "shape", "strokeDash")
_RESOLVE = {
    "scale": dict.fromkeys(_CHANNELS, "independent"),
    "legend": dict.fromkeys(_CHANNELS, "independent"),
}


def _by(channel: Any, field: str, looks: Mapping[str, Any], shown: bool = False) -> Any:
    """``channel`` of ``field`` mapping each name to its value, with the one legend (one
    column of long names) if ``shown``."""
    legend = alt.Legend(title=None, columns=1, symbolSize=160, symbolStrokeWidth=2.5)
    return by(channel, field, looks, legend if shown else None)


def _picks(frame: pd.DataFrame, by: str) -> pd.DataFrame:
    """About :data:`_MARKERS` evenly spread rows of each ``by`` group, both ends kept."""
    keep: list[int] = []
    for group in frame.groupby(by, sort=False).indices.values():
        rows = np.asarray(group, dtype=int)
        picks = np.unique(np.round(np.linspace(0, rows.size - 1, _MARKERS)).astype(int))
        keep += rows[picks].tolist()
    return frame.iloc[sorted(keep)].reset_index(drop=True)


def theory_table(figure: Figure2Result) -> pd.DataFrame:
    """Figure 2's numbers for one ratio (``figure`` of one ratio, else ValueError), one row
    per w (the CSV): ``w``, ``is_equal_privacy_weight``, ``n_eff``, each set's ε and
    (illustrative) η, and the attacker-accuracy bounds 1/2 + η."""
    if len(figure.ratios) != 1:
        raise ValueError(
            f"figure has ratios={figure.ratios!r}: the theory chart draws exactly one ratio"
        )
    c = figure.curves.sort_values("w").reset_index(drop=True)
    return pd.DataFrame(
        {
            "w": c["w"],
            "is_equal_privacy_weight": c["is_equal_privacy"],
            "n_eff": c["n_eff"].to_numpy(float),
            "eps_train": c["eps_train"],
            "eps_ref": c["eps_ref"],
            "eta_train_illustrative": c["eta_train"],
            "eta_ref_illustrative": c["eta_ref"],
            "accuracy_bound_train": 0.5 + c["eta_train"].to_numpy(float),
            "accuracy_bound_ref": 0.5 + c["eta_ref"].to_numpy(float),
        }
    )


def theory_vega(
    figure: Figure2Result, w_star: float, unit: Unit
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Figure 2 for one ratio (``figure`` of one ratio, else ValueError): utility N_eff
    against the privacy of D_T and of D_R as w runs from 0 to 1, in Theorem 3.1's ε or
    (``Unit.ETA``) as the illustrative attacker-accuracy bound 1/2 + η in %; the shared
    point (N, ε₀/N) is a star at ``w_star`` = N_R/N, the curves' ends are labelled. Returns
    the chart and :func:`theory_table`."""
    table = theory_table(figure)
    shared = table[table["is_equal_privacy_weight"]].iloc[0]  # (N, ε₀/N) on both curves
    if unit is Unit.EPSILON:
        xt, xr = table["eps_train"].to_numpy(float), table["eps_ref"].to_numpy(float)
        x_star = float(shared["eps_train"])
        x_title, x_format = "ε (Theorem 3.1, up to constants)", ".4~g"
    else:
        xt = 100 * table["accuracy_bound_train"].to_numpy(float)
        xr = 100 * table["accuracy_bound_ref"].to_numpy(float)
        x_star = 100 * float(shared["accuracy_bound_train"])
        x_title, x_format = "best attacker's accuracy, 50 % + η (%)", ".3f"
    curves = pd.concat(
        [
            pd.DataFrame(
                {
                    "set": name,
                    "w": table["w"].to_numpy(float),
                    "x": x,
                    "n_eff": table["n_eff"].to_numpy(float),
                    "eps": table[eps].to_numpy(float),
                    "eta": table[eta].to_numpy(float),
                }
            )
            for name, x, eps, eta in (
                (TRAIN_NAME, xt, "eps_train", "eta_train_illustrative"),
                (REF_NAME, xr, "eps_ref", "eta_ref_illustrative"),
            )
        ],
        ignore_index=True,
    )
    curves = curves[np.isfinite(curves[["x", "n_eff", "eps", "eta"]].to_numpy()).all(axis=1)]
    # smooth curves: every other w (the same picture, half the rows), ends and w* kept
    rank = curves.groupby("set", sort=False).cumcount().to_numpy()
    last = curves.groupby("set", sort=False).cumcount(ascending=False).to_numpy() == 0
    star_w = np.isclose(curves["w"].to_numpy(float), float(w_star))
    lines = curves[(rank % 2 == 0) | last | star_w].reset_index(drop=True)
    ends = pd.concat(
        [
            curves.groupby("set", sort=False).head(1).assign(label="w = 0"),
            curves.groupby("set", sort=False).tail(1).assign(label="w = 1"),
        ],
        ignore_index=True,
    )
    ends["label"] = ends["set"].map({TRAIN_NAME: "D_T, ", REF_NAME: "D_R, "}) + ends["label"]
    star = pd.DataFrame(
        {"x": [x_star], "n_eff": [float(figure.n_total)], "w": [float(w_star)], "set": STAR_NAME}
    )
    datasets = {
        "lines": lines,
        "markers": _picks(curves, "set"),
        "ends": ends[["x", "n_eff", "label"]],
        "star": star,
    }
    look = (unit is Unit.EPSILON, x_title, x_format)
    return chart(THEORY_TITLE, datasets, _theory_layers, *look, height=320, resolve=_RESOLVE), table


def _theory_layers(epsilon: bool, x_title: str, x_format: str) -> list[Any]:
    """The theory chart's lines (in w's order), markers, end labels and w*'s star; the x-axis
    is ε (from 0) if ``epsilon``, else an accuracy in % (from about 50 %)."""
    looks = {TRAIN_NAME: _TRAIN, REF_NAME: _REF, STAR_NAME: _STAR}  # one legend: markers, star
    colours = {k: v.colour for k, v in looks.items()}
    shapes = {k: v.shape for k, v in looks.items()}
    x = alt.X(
        "x",
        type="quantitative",
        title=x_title,
        scale=alt.Scale(domainMin=0) if epsilon else alt.Scale(zero=False),
        axis=alt.Axis(labelFlush=False, labelOverlap=True),  # no label runs into the next
    )
    y = alt.Y(
        "n_eff",
        type="quantitative",
        title="effective sample size N_eff",
        axis=alt.Axis(format=",d"),
        scale=alt.Scale(zero=False),
    )
    tooltip = [
        alt.Tooltip("set", type="nominal", title="set"),
        alt.Tooltip("w", type="quantitative", title="w", format=".3f"),
        alt.Tooltip("n_eff", type="quantitative", title="N_eff", format=",.0f"),
        alt.Tooltip("eps", type="quantitative", title="ε", format=".4~g"),
        alt.Tooltip("eta", type="quantitative", title="η", format=".4~g"),
        alt.Tooltip("x", type="quantitative", title="x", format=x_format),
    ]
    star_tip = [
        alt.Tooltip("w", type="quantitative", title="w*", format=".3g"),
        alt.Tooltip("n_eff", type="quantitative", title="N_eff = N", format=",.0f"),
    ]
    return [
        dataset("lines")
        .mark_line(strokeWidth=2.5)
        .encode(
            x=x,
            y=y,
            color=_by(alt.Color, "set", colours),
            strokeDash=_by(alt.StrokeDash, "set", {k: DASH[v.dash] for k, v in looks.items()}),
            order=alt.Order("w", type="quantitative"),
            tooltip=tooltip,
        ),
        markers("markers", 70).encode(
            x=x,
            y=y,
            color=_by(alt.Color, "set", colours, shown=True),
            shape=_by(alt.Shape, "set", shapes, shown=True),
            tooltip=tooltip,
        ),
        labels("ends", "label", dy=-14, fontSize=13, color=style.INK).encode(x=x, y=y),
        markers("star", 320, stroke="white", strokeWidth=1).encode(
            x=x,
            y=y,
            fill=_by(alt.Fill, "set", colours),
            shape=_by(alt.Shape, "set", shapes),
            tooltip=star_tip,
        ),
    ]


def triad_table(result: SweepResult, training_only: bool) -> pd.DataFrame:
    """The triad's numbers against w (the CSV): test accuracy (mean, min, max over seeds) and,
    for D_T (and D_R unless ``training_only``), the selection attack's accuracy, pooled
    interval and empirical lower bounds."""
    attack = result.config.selection_attack.value
    u = result.utility.sort_values("w").reset_index(drop=True)
    table = pd.DataFrame(
        {
            "w": u["w"].to_numpy(float),
            "test_accuracy_mean": u["test_accuracy_mean"],
            "test_accuracy_min": u["test_accuracy_min"],
            "test_accuracy_max": u["test_accuracy_max"],
        }
    )
    for target in [Target.TRAIN] if training_only else [Target.TRAIN, Target.REFERENCE]:
        sub = result.per_w[
            (result.per_w["attack"] == attack) & (result.per_w["target"] == target.value)
        ]
        sub = sub.sort_values("w").reset_index(drop=True)
        label = "training" if target is Target.TRAIN else "reference"
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
    return table


def triad_vega(result: SweepResult, training_only: bool) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The paper's triad against w: test accuracy, attack accuracy on D_T and on D_R (the
    sweep's ``selection_attack``), each the mean over seeds (line) with its band (min to
    max), in %; a coin flip's 50 %, w* and the training-only evaluator's pick as rules. With
    ``training_only`` the D_R curve is left out -- what a defense reporting training-data
    leakage only would show. Returns the chart and :func:`triad_table`."""
    table = triad_table(result, training_only)
    attack = result.config.selection_attack.value
    aname = ATTACK_NAMES.get(attack, attack)
    series = [(TEST_NAME, "test_accuracy", _TEST)]
    series.append((f"{aname} on training data D_T", "attack_training_accuracy", _TRAIN))
    if not training_only:
        series.append((f"{aname} on reference data D_R", "attack_reference_accuracy", _REF))
    lines = pd.concat(
        [
            pd.DataFrame(
                {
                    "series": name,
                    "w": table["w"].to_numpy(float),
                    "mean": 100 * table[f"{prefix}_mean"].to_numpy(float),
                    "lo": 100 * table[f"{prefix}_min"].to_numpy(float),
                    "hi": 100 * table[f"{prefix}_max"].to_numpy(float),
                }
            )
            for name, prefix, _ in series
        ],
        ignore_index=True,
    )
    finite = np.isfinite(lines[["w", "mean", "lo", "hi"]].to_numpy()).all(axis=1)
    lines = lines[finite].reset_index(drop=True)
    pick = result.training_only_pick.w
    verticals = pd.DataFrame(
        {
            "w": [float(result.w_star)] + ([float(pick)] if pick is not None else []),
            "series": [STAR_LINE] + ([PICK_NAME] if pick is not None else []),
        }
    )
    title = (
        "What a training-only evaluation shows"
        if training_only
        else "Utility, training privacy and reference privacy"
    )
    datasets = {"lines": lines, "markers": _picks(lines, "series"), "verticals": verticals}
    looks = tuple((name, look) for name, _, look in series)
    return chart(title, datasets, _triad_layers, looks, height=320, resolve=_RESOLVE), table


def _triad_layers(series: tuple[tuple[str, Look], ...]) -> list[Any]:
    """The triad's min–max bands, the coin flip's rule, the vertical rules at w* and the pick,
    the mean lines and their markers (``series``: each curve's name and look). The markers'
    legend is the chart's one legend, with the two vertical rules as its last entries."""
    looks = dict(series)
    colours = {k: v.colour for k, v in looks.items()}
    everything = looks | _VERTICALS
    x = quantity(alt.X, "w", "reference weight w", domain=(-0.03, 1.03), zero=False)
    y = alt.Y("mean", type="quantitative", title="accuracy (%)", scale=alt.Scale(zero=False))
    tooltip = [
        alt.Tooltip("series", type="nominal", title="curve"),
        alt.Tooltip("w", type="quantitative", title="w", format=".3g"),
        alt.Tooltip("mean", type="quantitative", title="mean (%)", format=".1f"),
        alt.Tooltip("lo", type="quantitative", title="seeds from (%)", format=".1f"),
        alt.Tooltip("hi", type="quantitative", title="seeds to (%)", format=".1f"),
    ]
    solid = dict.fromkeys(looks, DASH["solid"]) | {k: DASH[v.dash] for k, v in _VERTICALS.items()}
    return [
        band("lines", "lo", "hi", 0.18).encode(x=x, color=_by(alt.Color, "series", colours)),
        rule(  # a coin flip
            50,
            "coin flip (50 %)",
            colour=style.GREY,
            dash="dot",
            width=2,
            at=0.25,
            baseline="top",
            dy=5,
            fontSize=13,
            color=style.GREY,
        ),
        dataset("verticals")
        .mark_rule(strokeWidth=2)
        .encode(
            x=alt.X("w", type="quantitative"),
            color=_by(alt.Color, "series", {k: v.colour for k, v in _VERTICALS.items()}),
            strokeDash=_by(
                alt.StrokeDash, "series", {k: DASH[v.dash] for k, v in _VERTICALS.items()}
            ),
            tooltip=[
                alt.Tooltip("series", type="nominal", title="line"),
                alt.Tooltip("w", type="quantitative", title="w", format=".3g"),
            ],
        ),
        dataset("lines")
        .mark_line(strokeWidth=3)
        .encode(
            x=x,
            y=y,
            color=_by(alt.Color, "series", colours),
            strokeDash=_by(alt.StrokeDash, "series", {k: DASH[v.dash] for k, v in looks.items()}),
            tooltip=tooltip,
        ),
        markers("markers", 80).encode(
            x=x,
            y=y,
            color=_by(alt.Color, "series", {k: v.colour for k, v in everything.items()}, True),
            shape=_by(alt.Shape, "series", {k: v.shape for k, v in everything.items()}, True),
            strokeDash=_by(alt.StrokeDash, "series", solid, True),
            tooltip=tooltip,
        ),
    ]
