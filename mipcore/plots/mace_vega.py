"""The MACE page's charts: membership leakage estimated from samples, drawn with the chart
concepts :mod:`mipcore.plots.distributions` (histograms, intervals, bands, reference rules)
and :mod:`mipcore.plots.curves` (curves against z or N).

Liu, Xu, Mukherjee, Lavista Ferres, *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*, arXiv:2009.05683 -- as computed by
:mod:`mipcore.experiments.mace_synthetic` (a :class:`~mipcore.experiments.mace_synthetic.ToyRun`
holds the samples, MACE's estimate and the truth).

Each ``*_table`` function is the DataFrame a chart draws (the page offers it as CSV); each
``*_vega`` builder returns one or more :class:`~mipcore.plots.vega.VegaLiteChart` and that
table. The specifications depend only on what changes a chart's look (the estimator, the
number of drift runs and the N drawn: the arguments of the ``_*_layers`` functions), never
on the separation, prior or ε sliders: those only change the named tables, so Streamlit
redraws the charts in place (see :mod:`mipcore.plots.vega`).

Advantages are drawn as they are bounded, at ``max(0, ·)`` (:func:`mipcore.mace.units`);
the raw values are in the tooltips and the tables. The only arithmetic here is presentational
(the samples' display histogram, the exact curves on a grid, means and ranges over runs,
every other point of a smooth curve).
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from .. import mace
from ..experiments.mace_synthetic import DriftResult, ToyRun, densities
from . import curves, distributions, style
from .curves import Look
from .vega import VegaLiteChart, every_other

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
_Y_AXIS: dict[str, Any] = {"minExtent": 48}  # the samples' two panels: aligned plot areas

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


def _q(field: str, title: str, fmt: str = ".4f") -> alt.Tooltip:
    """A quantitative tooltip entry."""
    return alt.Tooltip(field, type="quantitative", title=title, format=fmt)


def _z() -> Any:
    """The samples' z axis, shared by both panels (it spans the data)."""
    return curves.quantity(alt.X, "z", "statistic z", zero=False)


# --------------------------------------------------------------------------- samples and f̂


#: Bins of the display histogram behind a KDE estimate; points of the exact curves.
_KDE_DISPLAY_BINS = 60
_GRID_POINTS = 400


def _panels(run: ToyRun) -> dict[str, Any]:
    """What the two panels draw: the display histogram's ``edges`` (the estimate's bins, or
    60 bins over the KDE's grid) and the samples' densities on them, the exact P, Q and fₚ on a
    400-point ``grid`` across them, and f̂ with its interval (the histogram's two overflow bins
    left out)."""
    res = run.estimate
    if res.edges is not None:
        edges = np.asarray(res.edges, dtype=float)
        keep = slice(1, -1)  # the two overflow bins are not drawn
    else:
        edges = np.linspace(float(res.points[0]), float(res.points[-1]), _KDE_DISPLAY_BINS + 1)
        keep = slice(None)
    grid = np.linspace(float(edges[0]), float(edges[-1]), _GRID_POINTS)
    p_true, q_true = densities(run.shape, run.separation, grid)
    return {
        "edges": edges,
        "members": np.histogram(run.members, edges, density=True)[0].astype(float),
        "nonmembers": np.histogram(run.nonmembers, edges, density=True)[0].astype(float),
        "grid": grid,
        "p": p_true,
        "q": q_true,
        "f": np.asarray(mace.privacy_loss(p_true, q_true, res.prior), dtype=float),
        "points": np.asarray(res.points[keep], dtype=float),
        "f_hat": np.asarray(res.f_hat[keep], dtype=float),
        "lower": np.asarray(res.f_lower[keep], dtype=float),
        "upper": np.asarray(res.f_upper[keep], dtype=float),
    }


def samples_loss_table(run: ToyRun) -> pd.DataFrame:
    """The samples chart's table: columns ``panel`` ("samples", "loss"), ``series``, ``z``,
    ``value``, and ``lower``/``upper`` (f̂'s 95 % interval; empty on the other rows)."""
    return _samples_loss_table(_panels(run))


def _samples_loss_table(v: dict[str, Any]) -> pd.DataFrame:
    centres = 0.5 * (v["edges"][:-1] + v["edges"][1:])
    parts = [
        ("samples", "members histogram", centres, v["members"], {}),
        ("samples", "non-members histogram", centres, v["nonmembers"], {}),
        ("samples", "true P", v["grid"], v["p"], {}),
        ("samples", "true Q", v["grid"], v["q"], {}),
        ("loss", "f_hat", v["points"], v["f_hat"], {"lower": v["lower"], "upper": v["upper"]}),
        ("loss", "true f_p", v["grid"], v["f"], {}),
    ]
    frames = [
        pd.DataFrame({"panel": panel, "series": series, "z": z, "value": value, **more})
        for panel, series, z, value, more in parts
    ]
    return pd.concat(frames, ignore_index=True)


def samples_loss_vega(run: ToyRun) -> tuple[VegaLiteChart, VegaLiteChart, pd.DataFrame]:
    """Two panels over the same z axis, and the table they draw (:func:`samples_loss_table`).

    The first chart: the two samples as density histograms (translucent bars, members
    vermillion, non-members blue) with the true densities P (solid) and Q (dashed). The
    second: f̂ with its per-point 95 % interval (a green diamond and bar per bin, or for the
    KDE a dotted green line in a shaded band) and the true fₚ (black), on a fixed axis from
    −1 to 1. The exact curves are drawn through every other point of their 400-point grid;
    both panels span that grid, so their z axes match.
    """
    v = _panels(run)
    table = _samples_loss_table(v)
    edges = v["edges"]
    thin = every_other(len(v["grid"]))
    groups = [MEMBERS, NONMEMBERS]
    bars = _finite(
        pd.DataFrame(
            {
                "group": np.repeat(groups, edges.size - 1),
                "z": np.tile(edges[:-1], 2),
                "z_right": np.tile(edges[1:], 2),
                "density": np.concatenate([v["members"], v["nonmembers"]]),
            }
        )
    )
    curves = _finite(
        pd.DataFrame(
            {
                "group": np.repeat(groups, int(thin.sum())),
                "z": np.tile(v["grid"][thin], 2),
                "density": np.concatenate([v["p"][thin], v["q"][thin]]),
            }
        )
    )
    samples = distributions.chart(
        SAMPLES_TITLE, {"bars": bars, "curves": curves}, _samples_layers, height=240
    )
    f_true = _finite(pd.DataFrame({"name": F_TRUE, "z": v["grid"][thin], "f": v["f"][thin]}))
    fitted = _finite(
        pd.DataFrame({"z": v["points"], "f": v["f_hat"], "lower": v["lower"], "upper": v["upper"]})
    )
    if run.estimate.method == "histogram":
        datasets = {"fitted": fitted.assign(name=F_BINS), "f_true": f_true}
    else:
        band = fitted[every_other(len(fitted))].reset_index(drop=True)
        datasets = {"fitted": band.assign(name=F_KDE), "f_true": f_true, "band": band}
    loss = distributions.chart(LOSS_TITLE, datasets, _loss_layers, run.estimate.method, height=220)
    return samples, loss, table


def _samples_layers() -> list[Any]:
    """The samples' histograms (translucent bars) and their laws' true densities (P solid,
    Q dashed), coloured by group."""
    looks = {MEMBERS: Look(_MEMBER), NONMEMBERS: Look(_NONMEMBER, "dash")}
    colour = distributions.looks("group", looks, "color", legend=_LINE_LEGEND)
    z = _z()
    y = alt.Y("density", type="quantitative", title="density", axis=alt.Axis(**_Y_AXIS))
    return [
        distributions.bins("bars", z, "z_right", y, 0, opacity=0.45).encode(
            **colour,
            tooltip=[
                alt.Tooltip("group:N", title="sample"),
                _q("z", "bin from z", ".3g"),
                _q("z_right", "to z", ".3g"),
                _q("density", "density", ".3g"),
            ],
        ),
        curves.dataset("curves")
        .mark_line(strokeWidth=2.5)
        .encode(
            x=z,
            y=y,
            **colour,
            **distributions.looks("group", looks, "strokeDash", legend=_LINE_LEGEND),
            tooltip=[
                alt.Tooltip("group:N", title="law"),
                _q("z", "z", ".3g"),
                _q("density", "true density", ".3g"),
            ],
        ),
    ]


def _loss_layers(estimator: str) -> list[Any]:
    """The privacy loss: a grey line at 0, f̂ with its 95 % intervals (per bin a diamond and
    a bar; for the KDE a dotted line in a band) and the true fₚ, on a fixed axis."""
    z = _z()
    y = alt.Y(
        "f",
        type="quantitative",
        title="privacy loss fₚ(z)",
        scale=alt.Scale(domain=[-1.05, 1.05], nice=False),
        axis=alt.Axis(**_Y_AXIS, values=[-1.0, -0.5, 0.0, 0.5, 1.0]),
    )
    f_tip = [_q("z", "z", ".3g"), _q("f", "f̂", ".3f")]
    band_tip = [*f_tip, _q("lower", "95 % interval from", ".3f"), _q("upper", "to", ".3f")]
    true = Look(style.EXACT.colour)
    if estimator == "histogram":
        looks = {F_BINS: Look(_EST, shape="diamond"), F_TRUE: true}
        colour = distributions.looks("name", looks, "color", legend=_LEGEND)
        estimate = [
            distributions.interval("fitted", alt.Y("lower:Q"), "upper", z, strokeWidth=1.5).encode(
                **colour
            ),
            curves.markers("fitted", 60).encode(
                x=z,
                y=y,
                **colour,
                **distributions.looks("name", looks, "shape", legend=_LEGEND),
                tooltip=band_tip,
            ),
        ]
    else:
        looks = {F_KDE: Look(_EST, "dot"), F_TRUE: true}
        colour = distributions.looks("name", looks, "color", legend=_LINE_LEGEND)
        estimate = [
            distributions.band("band", z, "lower", "upper", color=_EST, opacity=0.22).encode(
                tooltip=band_tip
            ),
            curves.dataset("fitted")
            .mark_line(strokeWidth=2.5)
            .encode(
                x=z,
                y=y,
                **colour,
                **distributions.looks("name", looks, "strokeDash", legend=_LINE_LEGEND),
                tooltip=band_tip,
            ),
        ]
    legend = _LEGEND if estimator == "histogram" else _LINE_LEGEND
    return [
        distributions.rule(alt.YDatum(0.0, type="quantitative"), color=style.GREY, strokeWidth=1),
        *estimate,
        curves.dataset("f_true")
        .mark_line(strokeWidth=2)
        .encode(
            x=z,
            y=y,
            **colour,
            **distributions.looks("name", looks, "strokeDash", legend=legend),
            tooltip=[_q("z", "z", ".3g"), _q("f", "true fₚ", ".3f")],
        ),
    ]


# --------------------------------------------------------------------------- advantage


def _advantages(run: ToyRun, epsilon: float) -> dict[str, float]:
    """The advantages the chart draws: the estimates (raw, and clipped to [0, 1] as drawn),
    the truth and Theorem 1's tanh bound at ``epsilon``."""
    res = run.estimate
    return {
        "plugin": mace.units(res.plugin, clip=True).advantage,
        "algorithm1": float(res.algorithm1),
        "alg_lo": float(res.mean_interval[0]),
        "alg_hi": float(res.mean_interval[1]),
        "heldout_raw": float(res.heldout),
        "heldout": mace.units(res.heldout, clip=True).advantage,
        "lower_raw": float(res.heldout_lower),
        "lower": mace.units(res.heldout_lower, clip=True).advantage,
        "truth": run.truth,
        "tanh": float(mace.dp_privacy_loss_bound(epsilon, res.prior)),
    }


def advantage_table(run: ToyRun, epsilon: float) -> pd.DataFrame:
    """The advantage chart's table: ``quantity``, ``advantage``, ``eta`` (= advantage/2) and
    ``accuracy`` (= (1 + advantage)/2), raw and drawn values both; the tanh bound at
    ``epsilon``."""
    v = _advantages(run, epsilon)
    rows = [
        ("plug-in mean |f_hat| (in-sample)", v["plugin"]),
        ("Algorithm 1: mean |f_hat| on the 2nd split", v["algorithm1"]),
        ("paper's average interval: low", v["alg_lo"]),
        ("paper's average interval: high", v["alg_hi"]),
        ("held-out advantage of sgn(f_hat) (raw)", v["heldout_raw"]),
        ("held-out advantage, max(0, raw) (drawn)", v["heldout"]),
        ("held-out 95\u00a0% lower bound (raw)", v["lower_raw"]),
        ("held-out 95\u00a0% lower bound, max(0, raw) (drawn)", v["lower"]),
        ("true advantage", v["truth"]),
        (f"tanh bound (eps={float(epsilon):g})", v["tanh"]),
    ]
    table = pd.DataFrame(rows, columns=["quantity", "advantage"])
    table["eta"] = table["advantage"] / 2.0
    table["accuracy"] = (1.0 + table["advantage"]) / 2.0
    return table


def advantage_vega(run: ToyRun, epsilon: float) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The advantage estimates on one axis, against the exact advantage (black line) and the
    Theorem 1 (tanh) bound at ``epsilon`` (blue dashed line); and :func:`advantage_table`.

    One row per estimate: plug-in (purple circle), Algorithm 1 (orange square, bar: the
    paper's average interval), held-out (green diamond, bar down to its lower bound), the
    held-out 95 % lower bound (vermillion triangle). The unit bridge is kept: the bottom axis
    is the advantage, the top axis the same numbers as attacker accuracy
    (50 % + 50 % × advantage), and the subtitle says advantage = 2η = 2·accuracy − 1.
    Held-out values are drawn at ``max(0, ·)``; the tooltips give the raw values.
    """
    table = advantage_table(run, epsilon)
    v = _advantages(run, epsilon)
    alg_lo, alg_hi, alg1 = v["alg_lo"], v["alg_hi"], v["algorithm1"]
    held, low = v["heldout"], v["lower"]
    estimates = pd.DataFrame(
        {
            "row": list(ROWS),
            "name": list(ROWS.values()),
            "advantage": [v["plugin"], alg1, held, low],
            "raw": [v["plugin"], alg1, v["heldout_raw"], low],
        }
    )
    estimates.loc[3, "raw"] = v["lower_raw"]
    estimates["accuracy"] = (1.0 + estimates["advantage"]) / 2.0
    spans = pd.DataFrame(
        {
            "row": ["Algorithm 1", "held-out"],
            "name": [ALG1, HELDOUT],
            "from": [min(alg_lo, alg1), min(low, held)],
            "to": [max(alg_hi, alg1), held],
        }
    )
    lines = pd.DataFrame({"name": [TRUTH, TANH], "advantage": [v["truth"], v["tanh"]]})
    lines["eta"] = lines["advantage"] / 2.0
    lines["accuracy"] = (1.0 + lines["advantage"]) / 2.0
    datasets = {"lines": lines, "spans": spans, "estimates": estimates}
    chart = distributions.chart(
        ADVANTAGE_TITLE,
        datasets,
        _advantage_layers,
        height=230,
        subtitle=UNIT_BRIDGE,
        resolve={"x": "independent"},
    )
    return chart, table


def _advantage_layers() -> list[Any]:
    """The advantage chart: the truth and the tanh bound across the plot, one row per
    estimate with its marker and bar, and the top axis in attacker accuracy."""
    looks = {
        PLUGIN: Look(_PLUGIN, shape="circle"),
        ALG1: Look(_ALG1, shape="square"),
        HELDOUT: Look(_EST, shape="diamond"),
        LOWER: Look(_LOWER, shape="triangle-right"),
        TRUTH: Look(style.EXACT.colour),
        TANH: Look(style.DP.colour, "dash"),
    }
    legend = {**_LEGEND, "symbolSize": 360}  # long enough a stroke to show the bound's dashes
    colour = distributions.looks("name", looks, "color", legend=legend)
    x = curves.quantity(
        alt.X,
        "advantage",
        "membership advantage Advₚ",
        domain=(-0.02, 1.02),
        ticks=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
    )
    y = alt.Y(
        "row",
        type="nominal",
        title=None,
        scale=alt.Scale(domain=list(ROWS)),
        axis=alt.Axis(grid=False),
    )
    accuracy = alt.X(  # an invisible layer draws the top axis (its domain is fixed)
        "accuracy",
        type="quantitative",
        title="attacker accuracy",
        scale=alt.Scale(domain=[0.49, 1.01], nice=False),
        axis=alt.Axis(
            orient="top",
            grid=False,
            values=[0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
            labelExpr="format(datum.value * 100, '.0f') + ' %'",
        ),
    )
    estimates = alt.layer(
        distributions.rule(x, "lines", strokeWidth=3).encode(
            **colour,
            **distributions.looks("name", looks, "strokeDash", legend=legend),
            tooltip=[
                alt.Tooltip("name:N", title="line"),
                _q("advantage", "advantage"),
                _q("eta", "η"),
                _q("accuracy", "attacker accuracy", ".1%"),
            ],
        ),
        distributions.interval("spans", alt.X("from:Q"), "to", y, strokeWidth=2).encode(
            **colour,
            tooltip=[alt.Tooltip("name:N", title="bar"), _q("from", "from"), _q("to", "to")],
        ),
        curves.markers("estimates", 190, stroke=style.INK, strokeWidth=0.8).encode(
            x=x,
            y=y,
            **colour,
            **distributions.looks("name", looks, "shape", legend=legend),
            tooltip=[
                alt.Tooltip("name:N", title="estimate"),
                _q("advantage", "advantage (drawn)"),
                _q("raw", "raw value"),
                _q("accuracy", "attacker accuracy", ".1%"),
            ],
        ),
    )
    return [estimates, curves.dataset("lines").mark_point(opacity=0).encode(x=accuracy)]


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
    title = f"The estimates as N grows ({result.runs} seeds per N)"
    subtitle = "advantage = 2η = 2·accuracy − 1; bars: range over the seeds"
    datasets = {"means": means, "truth": truth}
    look = tuple(float(v) for v in n)
    chart = distributions.chart(title, datasets, _drift_layers, look, height=280, subtitle=subtitle)
    return chart, table


def _drift_layers(n: tuple[float, ...]) -> list[Any]:
    """The drift chart over the N of ``n``: the truth across the plot, each estimate's range
    over the runs, its mean (line and markers, dash and shape by estimate)."""
    looks = {name: Look(colour, dash, shape=shape) for name, colour, shape, dash in DRIFT_SERIES}
    looks[TRUTH] = Look(style.EXACT.colour)
    colour = distributions.looks("name", looks, "color", legend=_LEGEND)
    # the legend tells the series by shape (a dotted outline would break a marker): the
    # dashes read a column of their own, with no legend
    dash = distributions.looks("dash", looks, "strokeDash", legend=None)
    x = alt.X(
        "N",
        type="quantitative",
        title="N per group",
        scale=alt.Scale(type="log", domain=[min(n), max(n)], nice=False),
        axis=alt.Axis(values=list(n), format=",d", grid=True),
    )
    y = alt.Y("mean", type="quantitative", title="advantage estimate")
    tooltip = [
        alt.Tooltip("name:N", title="estimate"),
        alt.Tooltip("N:Q", title="N", format=",d"),
        _q("mean", "mean (drawn)"),
        _q("raw_mean", "raw mean"),
        _q("raw_min", "raw min"),
        _q("raw_max", "raw max"),
    ]
    return [
        distributions.rule(y, "truth", strokeWidth=3).encode(
            **colour, **dash, tooltip=[_q("mean", "true advantage")]
        ),
        distributions.interval("means", alt.Y("low:Q"), "high", x, strokeWidth=1.5).encode(
            **colour, tooltip=tooltip
        ),
        curves.dataset("means")
        .mark_line(strokeWidth=2.5)
        .encode(x=x, y=y, **colour, **dash, tooltip=tooltip),
        curves.markers("means", 90).encode(
            x=x,
            y=y,
            **colour,
            **distributions.looks("name", looks, "shape", legend=_LEGEND),
            tooltip=tooltip,
        ),
    ]
