"""The MACE page's charts, drawn by Vega-Lite: membership leakage estimated from samples.

Liu, Xu, Mukherjee, Lavista Ferres, *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*, arXiv:2009.05683 -- as computed by
:mod:`mipcore.lessons.mace_view`.

Each ``*_table`` function is the DataFrame a chart draws (the page offers it as CSV); each
``*_vega`` builder returns one or more :class:`~mipcore.plots.vega.VegaLiteChart` and that
table. The specifications depend only on what changes a chart's look (the estimator, the
number of drift runs), never on the separation, prior or ε sliders: those only change the
named tables, so Streamlit redraws the charts in place (see :mod:`mipcore.plots.vega`).

Advantages are drawn as they are bounded, at ``max(0, ·)``; the raw values are in the
tooltips and the tables. The only arithmetic here is presentational (means and ranges over
runs, every other point of a smooth curve).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..lessons.mace_view import DriftResult, Estimator, MaceView
from . import style
from .vega import DASH, VegaLiteChart, by_field, every_other, layered

__all__ = [
    "ADVANTAGE_TITLE",
    "LOSS_TITLE",
    "SAMPLES_TITLE",
    "advantage_table",
    "advantage_vega",
    "drift_table",
    "drift_vega",
    "samples_loss_table",
    "samples_loss_vega",
]

SAMPLES_TITLE = "The samples and the true densities"
LOSS_TITLE = "The privacy loss estimated from them"
ADVANTAGE_TITLE = "Advantage estimates, the truth and the DP bound"
UNIT_BRIDGE = "advantage = 2η = 2·accuracy − 1; top axis: attacker accuracy"

_MEMBER = style.VERMILLION
_NONMEMBER = style.BLUE
_EST = style.GREEN
_PLUGIN = style.PURPLE
_ALG1 = style.ORANGE
_LOWER = style.VERMILLION
_Y_AXIS = {"minExtent": 48}  # the two panels of the samples chart keep aligned plot areas

MEMBERS = "members: sample histogram and true density P"
NONMEMBERS = "non-members: sample histogram and true density Q"
F_BINS = "f̂ per bin (95 % interval)"
F_KDE = "f̂ (KDE) in its 95 % band (Lemmas 6–7)"
F_TRUE = "true fₚ"

PLUGIN = "plug-in mean |f̂| (in-sample)"
ALG1 = "Algorithm 1 (bar: the paper's average interval)"
HELDOUT = "held-out sgn(f̂) (bar: down to its lower bound)"
LOWER = "held-out 95 % lower bound, max(0, ·)"
TRUTH = "true advantage"
TANH = "tanh bound at the chosen ε (Theorem 1)"
#: The advantage chart's rows, top to bottom, and the estimate each one draws.
ROWS = {"plug-in": PLUGIN, "Algorithm 1": ALG1, "held-out": HELDOUT, "lower bound": LOWER}

#: The drift chart's series: name, colour, Vega shape, dash.
DRIFT_SERIES = (
    ("plug-in (in-sample)", _PLUGIN, "circle", "solid"),
    ("held-out sgn(f̂)", _EST, "diamond", "dot"),
    ("held-out 95 % lower bound", _LOWER, "triangle-up", "dash"),
)


def _finite(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame`` whose numbers are all finite (Vega draws no NaN)."""
    numbers = frame.select_dtypes("number").to_numpy(dtype=float)
    return frame[np.isfinite(numbers).all(axis=1)].reset_index(drop=True)


# symbolOpacity: a translucent layer (bars, a band) must not fade the legend's symbols
_LEGEND: dict[str, Any] = {
    "title": None,
    "symbolSize": 160,
    "symbolStrokeWidth": 2.5,
    "symbolOpacity": 1,
}
_LINE_LEGEND: dict[str, Any] = {**_LEGEND, "symbolType": "stroke", "symbolSize": 500}


def _by(
    field: str, domain: list[str], channel_range: list[Any], legend: dict[str, Any] = _LEGEND
) -> dict[str, Any]:
    """An encoding channel on ``field`` with an explicit domain and range; the channels of a
    chart built this way share one legend below the plot, one entry per line."""
    return by_field(field, domain, channel_range, dict(legend))


def _q(field: str, title: str, fmt: str = ".4f") -> dict[str, Any]:
    """A quantitative tooltip entry."""
    return {"field": field, "type": "quantitative", "title": title, "format": fmt}


# --------------------------------------------------------------------------- samples and f̂


def samples_loss_table(view: MaceView) -> pd.DataFrame:
    """The samples chart's table: columns ``panel`` ("samples", "loss"), ``series``, ``z``,
    ``value``, and ``lower``/``upper`` (f̂'s 95 % interval; empty on the other rows)."""
    centres = 0.5 * (view.edges[:-1] + view.edges[1:])
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "panel": "samples",
                    "series": "members histogram",
                    "z": centres,
                    "value": view.member_density,
                }
            ),
            pd.DataFrame(
                {
                    "panel": "samples",
                    "series": "non-members histogram",
                    "z": centres,
                    "value": view.nonmember_density,
                }
            ),
            pd.DataFrame(
                {"panel": "samples", "series": "true P", "z": view.grid, "value": view.p_true}
            ),
            pd.DataFrame(
                {"panel": "samples", "series": "true Q", "z": view.grid, "value": view.q_true}
            ),
            pd.DataFrame(
                {
                    "panel": "loss",
                    "series": "f_hat",
                    "z": view.points,
                    "value": view.f_hat,
                    "lower": view.f_lower,
                    "upper": view.f_upper,
                }
            ),
            pd.DataFrame(
                {"panel": "loss", "series": "true f_p", "z": view.grid, "value": view.f_true}
            ),
        ],
        ignore_index=True,
    )


def samples_loss_vega(view: MaceView) -> tuple[VegaLiteChart, VegaLiteChart, pd.DataFrame]:
    """Two panels over the same z axis, and the table they draw (:func:`samples_loss_table`).

    The first chart: the two samples as density histograms (translucent bars, members
    vermillion, non-members blue) with the true densities P (solid) and Q (dashed). The
    second: f̂ with its per-point 95 % interval (a green diamond and bar per bin, or for the
    KDE a dotted green line in a shaded band) and the true fₚ (black), on a fixed axis from
    −1 to 1. The exact curves are drawn through every other point of their 400-point grid;
    both panels span that grid, so their z axes match.
    """
    table = samples_loss_table(view)
    edges = np.asarray(view.edges, dtype=float)
    thin = every_other(len(view.grid))
    x = {
        "field": "z",
        "type": "quantitative",
        "title": "statistic z",
        "scale": {"zero": False, "nice": False},
    }
    # ---- the samples
    groups = [MEMBERS, NONMEMBERS]
    colour = _by("group", groups, [_MEMBER, _NONMEMBER], _LINE_LEGEND)
    bars = _finite(
        pd.DataFrame(
            {
                "group": np.repeat(groups, edges.size - 1),
                "z": np.tile(edges[:-1], 2),
                "z_right": np.tile(edges[1:], 2),
                "density": np.concatenate([view.member_density, view.nonmember_density]),
            }
        )
    )
    curves = _finite(
        pd.DataFrame(
            {
                "group": np.repeat(groups, int(thin.sum())),
                "z": np.tile(view.grid[thin], 2),
                "density": np.concatenate([view.p_true[thin], view.q_true[thin]]),
            }
        )
    )
    y = {"field": "density", "type": "quantitative", "title": "density", "axis": _Y_AXIS}
    samples_layers = [
        {
            "data": {"name": "bars"},
            "mark": {"type": "rect", "opacity": 0.45},
            "encoding": {
                "x": x,
                "x2": {"field": "z_right"},
                "y": y,
                "y2": {"datum": 0},
                "color": colour,
                "tooltip": [
                    {"field": "group", "type": "nominal", "title": "sample"},
                    _q("z", "bin from z", ".3g"),
                    _q("z_right", "to z", ".3g"),
                    _q("density", "density", ".3g"),
                ],
            },
        },
        {
            "data": {"name": "curves"},
            "mark": {"type": "line", "strokeWidth": 2.5},
            "encoding": {
                "x": x,
                "y": y,
                "color": colour,
                "strokeDash": _by("group", groups, [DASH["solid"], DASH["dash"]], _LINE_LEGEND),
                "tooltip": [
                    {"field": "group", "type": "nominal", "title": "law"},
                    _q("z", "z", ".3g"),
                    _q("density", "true density", ".3g"),
                ],
            },
        },
    ]
    samples = VegaLiteChart(
        spec=layered(SAMPLES_TITLE, samples_layers, height=240),
        datasets={"bars": bars, "curves": curves},
        title=SAMPLES_TITLE,
    )

    # ---- the privacy loss
    f_true = _finite(pd.DataFrame({"name": F_TRUE, "z": view.grid[thin], "f": view.f_true[thin]}))
    fitted = _finite(
        pd.DataFrame(
            {
                "z": view.points,
                "f": view.f_hat,
                "lower": view.f_lower,
                "upper": view.f_upper,
            }
        )
    )
    y_loss = {
        "field": "f",
        "type": "quantitative",
        "title": "privacy loss fₚ(z)",
        "scale": {"domain": [-1.05, 1.05], "nice": False},
        "axis": {**_Y_AXIS, "values": [-1.0, -0.5, 0.0, 0.5, 1.0]},
    }
    f_tip = [_q("z", "z", ".3g"), _q("f", "f̂", ".3f")]
    band_tip = [*f_tip, _q("lower", "95 % interval from", ".3f"), _q("upper", "to", ".3f")]
    if view.estimator is Estimator.HISTOGRAM:
        domain = [F_BINS, F_TRUE]
        colours, shapes, dashes = [_EST, style.EXACT.colour], ["diamond", "stroke"], [[1, 0]] * 2
        legend = _LEGEND
        fitted = fitted.assign(name=F_BINS)
        estimate = [
            {
                "data": {"name": "fitted"},
                "mark": {"type": "rule", "strokeWidth": 1.5},
                "encoding": {
                    "x": x,
                    "y": {"field": "lower", "type": "quantitative"},
                    "y2": {"field": "upper"},
                    "color": _by("name", domain, colours, legend),
                },
            },
            {
                "data": {"name": "fitted"},
                "mark": {"type": "point", "filled": True, "size": 60, "opacity": 1},
                "encoding": {
                    "x": x,
                    "y": y_loss,
                    "color": _by("name", domain, colours, legend),
                    "shape": _by("name", domain, shapes, legend),
                    "tooltip": band_tip,
                },
            },
        ]
    else:
        domain = [F_KDE, F_TRUE]
        colours = [_EST, style.EXACT.colour]
        dashes = [DASH["dot"], [1, 0]]
        fitted = fitted[every_other(len(fitted))].reset_index(drop=True)
        legend = _LINE_LEGEND  # no markers: every entry a stroke
        band = fitted.copy()
        fitted = fitted.assign(name=F_KDE)
        estimate = [
            {
                "data": {"name": "band"},
                "mark": {"type": "area", "color": _EST, "opacity": 0.22},
                "encoding": {
                    "x": x,
                    "y": {"field": "lower", "type": "quantitative"},
                    "y2": {"field": "upper"},
                    "tooltip": band_tip,
                },
            },
            {
                "data": {"name": "fitted"},
                "mark": {"type": "line", "strokeWidth": 2.5},
                "encoding": {
                    "x": x,
                    "y": y_loss,
                    "color": _by("name", domain, colours, legend),
                    "strokeDash": _by("name", domain, dashes, legend),
                    "tooltip": band_tip,
                },
            },
        ]
    loss_layers = [
        {
            "data": {"values": [{}]},
            "mark": {"type": "rule", "color": style.GREY, "strokeWidth": 1},
            "encoding": {"y": {"datum": 0.0, "type": "quantitative"}},
        },
        *estimate,
        {
            "data": {"name": "f_true"},
            "mark": {"type": "line", "strokeWidth": 2},
            "encoding": {
                "x": x,
                "y": y_loss,
                "color": _by("name", domain, colours, legend),
                "strokeDash": _by("name", domain, dashes, legend),
                "tooltip": [_q("z", "z", ".3g"), _q("f", "true fₚ", ".3f")],
            },
        },
    ]
    datasets = {"fitted": fitted, "f_true": f_true}
    if view.estimator is Estimator.KDE:
        datasets["band"] = band
    loss = VegaLiteChart(
        spec=layered(LOSS_TITLE, loss_layers, height=220), datasets=datasets, title=LOSS_TITLE
    )
    return samples, loss, table


# --------------------------------------------------------------------------- advantage


def advantage_table(view: MaceView) -> pd.DataFrame:
    """The advantage chart's table: ``quantity``, ``advantage``, ``eta`` (= advantage/2) and
    ``accuracy`` (= (1 + advantage)/2), raw and drawn values both."""
    alg_lo, alg_hi = view.mean_interval
    table = pd.DataFrame(
        {
            "quantity": [
                "plug-in mean |f_hat| (in-sample)",
                "Algorithm 1: mean |f_hat| on the 2nd split",
                "paper's average interval: low",
                "paper's average interval: high",
                "held-out advantage of sgn(f_hat) (raw)",
                "held-out advantage, max(0, raw) (drawn)",
                "held-out 95 % lower bound (raw)",
                "held-out 95 % lower bound, max(0, raw) (drawn)",
                "true advantage",
                f"tanh bound (eps={view.epsilon:g})",
            ],
            "advantage": [
                view.plugin.advantage,
                view.algorithm1,
                alg_lo,
                alg_hi,
                view.heldout_raw,
                view.heldout.advantage,
                view.heldout_lower_raw,
                view.heldout_lower.advantage,
                view.truth.advantage,
                view.tanh_bound.advantage,
            ],
        }
    )
    table["eta"] = table["advantage"] / 2.0
    table["accuracy"] = (1.0 + table["advantage"]) / 2.0
    return table


def advantage_vega(view: MaceView) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The advantage estimates on one axis, against the exact advantage (black line) and the
    Theorem 1 (tanh) bound at the view's ε (blue dashed line); and :func:`advantage_table`.

    One row per estimate: plug-in (purple circle), Algorithm 1 (orange square, bar: the
    paper's average interval), held-out (green diamond, bar down to its lower bound), the
    held-out 95 % lower bound (vermillion triangle). The unit bridge is kept: the bottom axis
    is the advantage, the top axis the same numbers as attacker accuracy
    (50 % + 50 % × advantage), and the subtitle says advantage = 2η = 2·accuracy − 1.
    Held-out values are drawn at ``max(0, ·)``; the tooltips give the raw values.
    """
    table = advantage_table(view)
    alg_lo, alg_hi = view.mean_interval
    held, low = view.heldout.advantage, view.heldout_lower.advantage
    names = [PLUGIN, ALG1, HELDOUT, LOWER, TRUTH, TANH]
    legend = {**_LEGEND, "symbolSize": 360}  # long enough a stroke to show the bound's dashes
    colours = [_PLUGIN, _ALG1, _EST, _LOWER, style.EXACT.colour, style.DP.colour]
    shapes = ["circle", "square", "diamond", "triangle-right", "stroke", "stroke"]
    dashes = [[1, 0]] * 4 + [DASH["solid"], DASH["dash"]]
    estimates = pd.DataFrame(
        {
            "row": list(ROWS),
            "name": list(ROWS.values()),
            "advantage": [view.plugin.advantage, view.algorithm1, held, low],
            "raw": [view.plugin.advantage, view.algorithm1, view.heldout_raw, low],
        }
    )
    estimates.loc[3, "raw"] = view.heldout_lower_raw
    estimates["accuracy"] = (1.0 + estimates["advantage"]) / 2.0
    spans = pd.DataFrame(
        {
            "row": ["Algorithm 1", "held-out"],
            "name": [ALG1, HELDOUT],
            "from": [min(alg_lo, view.algorithm1), min(low, held)],
            "to": [max(alg_hi, view.algorithm1), held],
        }
    )
    lines = pd.DataFrame(
        {
            "name": [TRUTH, TANH],
            "advantage": [view.truth.advantage, view.tanh_bound.advantage],
        }
    )
    lines["eta"] = lines["advantage"] / 2.0
    lines["accuracy"] = (1.0 + lines["advantage"]) / 2.0
    x = {
        "field": "advantage",
        "type": "quantitative",
        "title": "membership advantage Advₚ",
        "scale": {"domain": [-0.02, 1.02], "nice": False},
        "axis": {"values": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]},
    }
    y = {
        "field": "row",
        "type": "nominal",
        "title": None,
        "scale": {"domain": list(ROWS)},
        "axis": {"grid": False},
    }
    layers = [
        {
            "data": {"name": "lines"},
            "mark": {"type": "rule", "strokeWidth": 3},
            "encoding": {
                "x": x,
                "color": _by("name", names, colours, legend),
                "strokeDash": _by("name", names, dashes, legend),
                "tooltip": [
                    {"field": "name", "type": "nominal", "title": "line"},
                    _q("advantage", "advantage"),
                    _q("eta", "η"),
                    _q("accuracy", "attacker accuracy", ".1%"),
                ],
            },
        },
        {
            "data": {"name": "spans"},
            "mark": {"type": "rule", "strokeWidth": 2},
            "encoding": {
                "x": {"field": "from", "type": "quantitative"},
                "x2": {"field": "to"},
                "y": y,
                "color": _by("name", names, colours, legend),
                "tooltip": [
                    {"field": "name", "type": "nominal", "title": "bar"},
                    _q("from", "from"),
                    _q("to", "to"),
                ],
            },
        },
        {
            "data": {"name": "estimates"},
            "mark": {
                "type": "point",
                "filled": True,
                "size": 190,
                "opacity": 1,
                "stroke": style.INK,
                "strokeWidth": 0.8,
            },
            "encoding": {
                "x": x,
                "y": y,
                "color": _by("name", names, colours, legend),
                "shape": _by("name", names, shapes, legend),
                "tooltip": [
                    {"field": "name", "type": "nominal", "title": "estimate"},
                    _q("advantage", "advantage (drawn)"),
                    _q("raw", "raw value"),
                    _q("accuracy", "attacker accuracy", ".1%"),
                ],
            },
        },
    ]
    accuracy_axis = {  # an invisible layer draws the top axis (its domain is fixed)
        "data": {"name": "lines"},
        "mark": {"type": "point", "opacity": 0},
        "encoding": {
            "x": {
                "field": "accuracy",
                "type": "quantitative",
                "title": "attacker accuracy",
                "scale": {"domain": [0.49, 1.01], "nice": False},
                "axis": {
                    "orient": "top",
                    "grid": False,
                    "values": [0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
                    "labelExpr": "format(datum.value * 100, '.0f') + ' %'",
                },
            },
        },
    }
    spec = layered(
        {
            "text": ADVANTAGE_TITLE,
            "subtitle": UNIT_BRIDGE,
            "subtitleFontSize": 14,
            "subtitleColor": style.GREY,
        },
        [{"layer": layers}, accuracy_axis],
        height=230,
        resolve={"scale": {"x": "independent"}},
    )
    chart = VegaLiteChart(
        spec=spec,
        datasets={"lines": lines, "spans": spans, "estimates": estimates},
        title=ADVANTAGE_TITLE,
    )
    return chart, table


# --------------------------------------------------------------------------- drift


def _drift_series(result: DriftResult) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, drawn values, raw values) of the three estimates, each (N × runs)."""
    return [
        ("plug-in (in-sample)", result.plugin, result.plugin),
        ("held-out sgn(f̂)", np.maximum(result.heldout, 0.0), result.heldout),
        ("held-out 95 % lower bound", result.heldout_lower, result.heldout_lower_raw),
    ]


def drift_table(result: DriftResult) -> pd.DataFrame:
    """The drift chart's table: one row per N; per estimate its drawn mean and its raw mean,
    min and max over the runs; the true advantage."""
    table = pd.DataFrame({"N": np.asarray(result.n_values, dtype=int)})
    for name, shown, raw in _drift_series(result):
        key = name.replace("f̂", "f_hat")
        table[f"{key}: mean (drawn)"] = shown.mean(axis=1)
        table[f"{key}: raw mean"] = raw.mean(axis=1)
        table[f"{key}: raw min"] = raw.min(axis=1)
        table[f"{key}: raw max"] = raw.max(axis=1)
    table["true advantage"] = result.truth
    return table


def drift_vega(result: DriftResult) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Plug-in, held-out and held-out lower bound against N (log axis): the mean over the
    runs (line and markers), a bar from the smallest to the largest run, and the exact
    advantage (black line); and :func:`drift_table`.

    The held-out values and the lower bound are drawn at ``max(0, ·)`` per run; the raw
    means and ranges are in the tooltips and the table.
    """
    table = drift_table(result)
    n = np.asarray(result.n_values, dtype=float)
    frames = []
    for name, shown, raw in _drift_series(result):
        frames.append(
            pd.DataFrame(
                {
                    "N": n,
                    "name": name,
                    "mean": shown.mean(axis=1),
                    "low": shown.min(axis=1),
                    "high": shown.max(axis=1),
                    "raw_mean": raw.mean(axis=1),
                    "raw_min": raw.min(axis=1),
                    "raw_max": raw.max(axis=1),
                }
            )
        )
    means = _finite(pd.concat(frames, ignore_index=True))
    means["dash"] = means["name"]
    truth = pd.DataFrame({"name": [TRUTH], "dash": [TRUTH], "mean": [result.truth]})
    names = [s[0] for s in DRIFT_SERIES] + [TRUTH]
    colours = [s[1] for s in DRIFT_SERIES] + [style.EXACT.colour]
    shapes = [s[2] for s in DRIFT_SERIES] + ["stroke"]
    dashes = [DASH[s[3]] for s in DRIFT_SERIES] + [DASH["solid"]]
    x = {
        "field": "N",
        "type": "quantitative",
        "title": "N per group",
        "scale": {"type": "log", "domain": [float(n.min()), float(n.max())], "nice": False},
        "axis": {"values": [float(v) for v in n], "format": ",d", "grid": True},
    }
    y = {"field": "mean", "type": "quantitative", "title": "advantage estimate"}
    tooltip = [
        {"field": "name", "type": "nominal", "title": "estimate"},
        {"field": "N", "type": "quantitative", "title": "N", "format": ",d"},
        _q("mean", "mean (drawn)"),
        _q("raw_mean", "raw mean"),
        _q("raw_min", "raw min"),
        _q("raw_max", "raw max"),
    ]
    layers = [
        {
            "data": {"name": "truth"},
            "mark": {"type": "rule", "strokeWidth": 3},
            "encoding": {
                "y": y,
                "color": _by("name", names, colours),
                "strokeDash": {**_by("dash", names, dashes), "legend": None},
                "tooltip": [_q("mean", "true advantage")],
            },
        },
        {
            "data": {"name": "means"},
            "mark": {"type": "rule", "strokeWidth": 1.5},
            "encoding": {
                "x": x,
                "y": {"field": "low", "type": "quantitative"},
                "y2": {"field": "high"},
                "color": _by("name", names, colours),
                "tooltip": tooltip,
            },
        },
        {
            "data": {"name": "means"},
            "mark": {"type": "line", "strokeWidth": 2.5},
            "encoding": {
                "x": x,
                "y": y,
                "color": _by("name", names, colours),
                # the legend tells the series by shape (a dotted outline would break a
                # marker): the dashes read a column of their own, with no legend
                "strokeDash": {**_by("dash", names, dashes), "legend": None},
                "tooltip": tooltip,
            },
        },
        {
            "data": {"name": "means"},
            "mark": {"type": "point", "filled": True, "size": 90, "opacity": 1},
            "encoding": {
                "x": x,
                "y": y,
                "color": _by("name", names, colours),
                "shape": _by("name", names, shapes),
                "tooltip": tooltip,
            },
        },
    ]
    title = {
        "text": f"The estimates as N grows ({result.runs} seeds per N)",
        "subtitle": "advantage = 2η = 2·accuracy − 1; bars: range over the seeds",
        "subtitleFontSize": 14,
        "subtitleColor": style.GREY,
    }
    spec = layered(title, layers, height=280)
    chart = VegaLiteChart(
        spec=spec, datasets={"means": means, "truth": truth}, title=str(title["text"])
    )
    return chart, table
