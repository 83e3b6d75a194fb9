"""Charts of "How loose are the certified bounds?", drawn by Vega-Lite through Altair
(:mod:`mipcore.plots.curves`).

Each builder takes results of :mod:`mipcore.experiments.certificate_gap` and returns a
:class:`~mipcore.plots.vega.VegaLiteChart` and the table the page offers as the chart's CSV
(the experiment's own table, unchanged). The page's sliders (n, M, the constant, the target η,
δ) only change the charts' small named tables, never their specifications: titles name no
slider value (the page's captions do) and every axis range is fixed, so Streamlit redraws a
chart in place (see :mod:`mipcore.plots.vega` for why). No filter, fold or calculate
transform: each layer reads its own table.

Style (:mod:`mipcore.plots.style`): the exact value black and thick; Theorem 9's
dimension-free certificate as MIP (vermillion, solid, circles); Corollary 14 as printed
purple dash-dot (crosses); DP through Theorem 4 blue dashed with squares; the paper's proof
redone in d dimensions orange, long dashes, triangles. Legends below the plot, one column.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from mipcore.experiments.certificate_gap import (
    COVARIANCE_GAP_DIM,
    DimensionGap,
    NoiseDemand,
    Route,
    Theorem4Tightness,
)

from . import style
from .curves import Look, by, chart, dataset, legend, line, markers, quantity
from .formatting import fmt_num
from .vega import DASH, VegaLiteChart

__all__ = [
    "ROUTE_NAMES",
    "demanded_vega",
    "dimension_eta_vega",
    "dimension_noise_vega",
    "eta_vs_scale_vega",
    "theorem5_vega",
    "tightness_vega",
]

#: Display names of the noise routes (bar labels, the page's table).
ROUTE_NAMES = {
    Route.SUFFICIENT: "actually enough",
    Route.MIP_TIGHT: "MIP: Theorem 9 density",
    Route.MIP_PRINTED: "MIP: Corollary 14 printed",
    Route.DP: "DP + Theorem 4",
}
#: Each route's colour, by its display name.
_ROUTES = {
    ROUTE_NAMES[Route.SUFFICIENT]: style.EXACT.colour,
    ROUTE_NAMES[Route.MIP_TIGHT]: style.MIP.colour,
    ROUTE_NAMES[Route.MIP_PRINTED]: style.PRINTED.colour,
    ROUTE_NAMES[Route.DP]: style.DP.colour,
}

ETA_TITLE = "η against the Laplace noise, Proposition 11"
DEMAND_TITLE = "Laplace scale each route needs for the target η"
T4_TITLE = "Theorem 4 is attained"
T5_TITLE = "Theorem 5: small η, yet no finite ε"
DIM_ETA_TITLE = "Certified η against d, at the printed noise"
DIM_NOISE_TITLE = "Noise needed for the target η, against d"

#: The η-against-noise curves: (column of the experiment's table, legend label, look).
CURVES = (
    ("exact", "exact η (best possible attack)", Look(style.EXACT.colour, width=4.0)),
    (
        "certified_mip_tight",
        "MIP: Theorem 9 density, ½(1 − exp(−σ/b))",
        Look(style.MIP.colour, shape="circle"),
    ),
    (
        "certified_mip_printed",
        "MIP: Corollary 14 as printed",
        Look(style.PRINTED.colour, "dashdot", shape="cross"),
    ),
    (
        "certified_dp",
        "DP: Laplace mechanism + Theorem 4",
        Look(style.DP.colour, "dash", shape="square"),
    ),
)
CHAIN_NAME = "the paper's proof, redone in d dimensions"
TIGHT_ETA_NAME = "Theorem 9 density, ½(1 − exp(−1/c)): any d"
PROMISED_NAME = "what Corollary 14 promises"
EXACT_D1_NAME = "best attack: Proposition 11 (exact)"
COVARIANCE_NAME = "best attack: covariance release (Monte Carlo, 99 %)"
PRESCRIBED_NAME = "Corollary 14 prescribes"
TIGHT_NOISE_NAME = "Theorem 9 density, −1/ln(1 − 2η): any d"
ENOUGH_NAME = "enough: Proposition 11 (exact)"
T4_BOUND_NAME = "Theorem 4: 50 % + η(ε, δ)"
T4_EXACT_NAME = "exact attacker on 𝒟 = {0, 1}, k = 1"
T5_INDICATOR_NAME = "TMLR version: 1{D = D*}, η = 1/C(n, n/2)"
T5_PUBLISH_NAME = "arXiv version: publish each record w.p. q = 2η"
_T5_LOOKS = {
    T5_INDICATOR_NAME: Look(style.EXACT.colour, style.EXACT["dash"], shape="diamond"),
    T5_PUBLISH_NAME: Look(style.MEASURED.colour, "dash", shape="square"),
}
#: The dimension charts' curves: the repaired proof, Theorem 9's density, Corollary 14.
_CHAIN = Look(style.ORANGE, "longdash", shape="triangle-up")
_TIGHT = Look(style.MIP.colour, shape="circle")
_PRINTED = Look(style.PRINTED.colour, "dashdot")
_ETA_AXIS = "η (accuracy − 50 %)"

#: Fixed axis ranges (every n, M, constant and target of the page fits in them): η from the
#: exact η at n = 16 (4·10⁻⁹) up; the Laplace scales (6·10⁻⁶ to 6·10⁵) and noise multipliers
#: (3·10⁻⁷ enough at n = 16, M = 6, to 2·10⁹ for the repaired proof at d = 16).
ETA_RANGE = (1e-9, 1.0)
SCALE_RANGE = (1e-6, 1e6)
BAR_RANGE = (1e-6, 1e8)
MULTIPLIER_RANGE = (1e-8, 1e10)
T5_RANGE = (1e-12, 1.0)
_MARKERS = 8  # markers on each η-against-noise certificate (the legend's second cue)


def _drawable(values: Any, log: bool) -> np.ndarray:
    """Rows that can be drawn: finite, and positive on a log axis."""
    v = np.asarray(values, dtype=float)
    return np.isfinite(v) & ((v > 0) if log else np.ones(v.size, dtype=bool))


def _thin(x: np.ndarray, y: np.ndarray, log_y: bool) -> np.ndarray:
    """A mask of every other point of the curve (x, y), its ends, and each dropped point
    whose chord would miss it by more than about half a pixel (the cap of a certificate at
    η = 1/2 is a corner: it stays)."""
    keep = np.arange(x.size) % 2 == 0
    keep[-1] = True
    tol = 0.03 if log_y else 0.0008  # ~½ px: ln η over 9 decades, or η over 0.52, in 340 px
    for i in np.flatnonzero(~keep):
        t = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1])
        keep[i] = abs(y[i] - (y[i - 1] + t * (y[i + 1] - y[i - 1]))) > tol
    return keep


def eta_vs_scale_vega(
    curves: pd.DataFrame, demand: NoiseDemand, *, log_y: bool = True
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """η against the Laplace scale b (log axis, 10⁻⁶ to 10⁶): the exact η of the Proposition 11
    mechanism, Theorem 9's dimension-free certificate, Corollary 14 as printed and DP through
    Theorem 4 (columns of ``curves``, :func:`~mipcore.experiments.certificate_gap.eta_curves`,
    the table returned); a dotted line at
    the target η and, on it, a diamond at the scale each route of ``demand`` needs.

    Lines are drawn through every other grid point, their ends and their corners; on a log
    η axis only positive values. ``log_y``: η on a log axis (10⁻⁹ to 1) or a linear one (0 to 0.52).
    """
    table = curves
    b = table["scale"].to_numpy(dtype=float)
    datasets: dict[str, pd.DataFrame] = {}
    marks = []
    for i, (col, name, look) in enumerate(CURVES):
        eta = table[col].to_numpy(dtype=float)
        ok = _drawable(eta, log_y) & _drawable(b, True)
        idx = np.flatnonzero(ok)
        if idx.size:
            idx = idx[_thin(np.log(b[idx]), np.log(eta[idx]) if log_y else eta[idx], log_y)]
        datasets[f"curve{i}"] = pd.DataFrame({"line": name, "scale": b[idx], "eta": eta[idx]})
        if look.shape != "stroke":  # staggered, so that the markers of two curves never coincide
            pick = np.arange(2 + 2 * i, b.size, max(b.size // _MARKERS, 1))
            pick = pick[ok[pick]]
            marks.append(pd.DataFrame({"line": name, "scale": b[pick], "eta": eta[pick]}))
    datasets["markers"] = pd.concat(marks, ignore_index=True)
    needed = pd.DataFrame(
        {
            "route": [ROUTE_NAMES[r.route] for r in demand.rows],
            "scale": [r.scale for r in demand.rows],
            "eta": [demand.target_eta] * len(demand.rows),
        }
    )
    needed = needed[_drawable(needed["scale"], True)].reset_index(drop=True)
    datasets["needed"] = needed
    datasets["target"] = pd.DataFrame({"eta": [demand.target_eta]})
    return chart(ETA_TITLE, datasets, _eta_layers, log_y, height=340), table


def _eta_layers(log_y: bool) -> list[Any]:
    """The η chart's dotted target line, curves and their markers, and the routes' diamonds."""
    colour, shape = legend("line", {name: look for _c, name, look in CURVES})
    x = quantity(alt.X, "scale", "Laplace noise scale b", log=True, domain=SCALE_RANGE, every=2)
    y_range = ETA_RANGE if log_y else (0.0, 0.52)
    y = quantity(alt.Y, "eta", _ETA_AXIS, log=log_y, domain=y_range)
    tooltip = [
        alt.Tooltip("line:N", title="curve"),
        alt.Tooltip("scale:Q", title="b", format=".3~g"),
        alt.Tooltip("eta:Q", title="η", format=".4~g"),
    ]
    return [
        dataset("target")
        .mark_rule(color=style.GREY, strokeDash=DASH["dot"], strokeWidth=1.5)
        .encode(y=y),
        *(
            line(f"curve{i}", look, clip=True).encode(x=x, y=y, color=colour, tooltip=tooltip)
            for i, (_c, _n, look) in enumerate(CURVES)
        ),
        markers("markers", 70, clip=True).encode(
            x=x, y=y, color=colour, shape=shape, tooltip=tooltip
        ),
        markers("needed", 220, shape="diamond", stroke=style.INK, strokeWidth=1, clip=True).encode(
            x=x,
            y=y,
            fill=by(alt.Fill, "route", _ROUTES),
            tooltip=[
                alt.Tooltip("route:N", title="route"),
                alt.Tooltip("scale:Q", title="needs b =", format=".4~g"),
            ],
        ),
    ]


def demanded_vega(demand: NoiseDemand) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Horizontal bars (log axis, 10⁻⁶ to 10⁸) of the Laplace scale each route of ``demand``
    needs for its target η, each labelled with its value; the table is ``demand.table``."""
    bars = pd.DataFrame(
        {
            "route": [ROUTE_NAMES[r.route] for r in demand.rows],
            "scale": [r.scale for r in demand.rows],
            "label": [fmt_num(r.scale, 3) for r in demand.rows],
            "times": [r.times_sufficient for r in demand.rows],
        }
    )
    bars = bars[_drawable(bars["scale"], True)].reset_index(drop=True)
    return chart(DEMAND_TITLE, {"bars": bars}, _demand_layers, height=220), demand.table


def _demand_layers() -> list[Any]:
    """The demand chart's bars, each labelled with its value."""
    y = alt.Y("route:N", sort=list(_ROUTES), title=None)
    x = quantity(alt.X, "scale", "Laplace noise scale b", log=True, domain=BAR_RANGE, every=3)
    return [
        dataset("bars")
        .mark_bar(stroke=style.INK, strokeWidth=1, height=30)
        .encode(
            y=y,
            x=x,
            x2=alt.datum(BAR_RANGE[0]),  # a log axis has no zero: bars from its start
            color=by(alt.Color, "route", _ROUTES),
            tooltip=[
                alt.Tooltip("route:N", title="route"),
                alt.Tooltip("scale:Q", title="b", format=".4~g"),
                alt.Tooltip("times:Q", title="× enough", format=".3~g"),
            ],
        ),
        dataset("bars")
        .mark_text(align="left", dx=6, fontSize=15)
        .encode(y=y, x=x, text=alt.Text("label:N")),
    ]


def tightness_vega(result: Theorem4Tightness) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Theorem 4's bound 50 % + η(ε, δ) (a thick grey line through every other ε) and the
    exact accuracy of its tightness construction (black diamonds, every ε) from
    ``result.table`` (returned), in %."""
    t = result.table
    eps = t["epsilon"].to_numpy(dtype=float)
    rank = np.arange(eps.size)
    thin = (rank % 2 == 0) | (rank == eps.size - 1)
    bound = pd.DataFrame(
        {
            "curve": T4_BOUND_NAME,
            "epsilon": eps[thin],
            "accuracy": 100 * t["theorem4_accuracy"].to_numpy(dtype=float)[thin],
        }
    )
    exact = pd.DataFrame(
        {
            "curve": T4_EXACT_NAME,
            "epsilon": eps,
            "accuracy": 100 * t["exact_accuracy"].to_numpy(dtype=float),
        }
    )
    return chart(T4_TITLE, {"bound": bound, "exact": exact}, _t4_layers, height=300), t


def _t4_layers() -> list[Any]:
    """Theorem 4's bound, a thick grey line, and the construction's accuracy, diamonds."""
    colour, shape = legend(
        "curve",
        {T4_BOUND_NAME: Look(style.GREY), T4_EXACT_NAME: Look(style.EXACT.colour, shape="diamond")},
        symbolStrokeWidth=4,
    )
    x = quantity(alt.X, "epsilon", "ε", domain=(-0.2, 6.2), ticks=range(7))
    y = quantity(
        alt.Y,
        "accuracy",
        "best attacker's accuracy (%)",
        domain=(48.0, 102.0),
        ticks=range(50, 101, 10),
    )
    tooltip = [
        alt.Tooltip("curve:N", title="curve"),
        alt.Tooltip("epsilon:Q", title="ε", format=".3~g"),
        alt.Tooltip("accuracy:Q", title="accuracy (%)", format=".4f"),
    ]
    return [
        dataset("bound").mark_line(strokeWidth=8).encode(x=x, y=y, color=colour, tooltip=tooltip),
        markers("exact", 90).encode(x=x, y=y, color=colour, shape=shape, tooltip=tooltip),
    ]


def theorem5_vega(t: pd.DataFrame, *, log_y: bool = True) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Theorem 5's counterexamples against n from ``t``
    (:func:`~mipcore.experiments.certificate_gap.theorem5_table`, returned): η = 1/C(n, n/2)
    of the TMLR version's ``1{D = D*}`` (black, diamonds) and η = q/2 of the arXiv version's
    "publish each record with probability q" (green dashed, squares; its constant line is
    drawn through its two ends). Markers at every other n. ``log_y``: log η axis (10⁻¹² to
    1) or linear (0 to 0.52)."""
    n = t["n"].to_numpy(dtype=float)
    datasets: dict[str, pd.DataFrame] = {}
    marks = []
    for i, (col, name, straight) in enumerate(
        (
            ("eta_indicator", T5_INDICATOR_NAME, False),
            ("eta_publish", T5_PUBLISH_NAME, True),
        )
    ):
        eta = t[col].to_numpy(dtype=float)
        ok = _drawable(eta, log_y)
        keep = ok.copy()
        if straight:
            keep[ok] = _ends(ok.sum())
        datasets[f"line{i}"] = pd.DataFrame({"curve": name, "n": n[keep], "eta": eta[keep]})
        every = ok & (np.arange(n.size) % 2 == 0)
        marks.append(pd.DataFrame({"curve": name, "n": n[every], "eta": eta[every]}))
    datasets["markers"] = pd.concat(marks, ignore_index=True)
    return chart(T5_TITLE, datasets, _t5_layers, log_y, height=300), t


def _t5_layers(log_y: bool) -> list[Any]:
    """Both counterexamples' lines and their markers at every other n."""
    colour, shape = legend("curve", _T5_LOOKS)
    x = quantity(alt.X, "n", "n (dataset size)", domain=(0.0, 42.0))
    y_range = T5_RANGE if log_y else (0, 0.52)
    y = quantity(alt.Y, "eta", "exact η", log=log_y, domain=y_range, every=2)
    tooltip = [
        alt.Tooltip("curve:N", title="mechanism"),
        alt.Tooltip("n:Q", title="n", format="d"),
        alt.Tooltip("eta:Q", title="η", format=".4~g"),
    ]
    return [
        *(
            line(f"line{i}", look).encode(x=x, y=y, color=colour, tooltip=tooltip)
            for i, look in enumerate(_T5_LOOKS.values())
        ),
        markers("markers", 80).encode(x=x, y=y, color=colour, shape=shape, tooltip=tooltip),
    ]


def _ends(size: int) -> np.ndarray:
    keep = np.zeros(size, dtype=bool)
    keep[[0, -1]] = size > 0
    return keep


def _dimension_chart(
    title: str,
    y: tuple[str, tuple[float, float], int, str],
    lines: list[tuple[str, pd.DataFrame, Look]],
    points: list[tuple[str, pd.DataFrame]],
    gap: DimensionGap,
    interval: pd.DataFrame | None = None,
) -> VegaLiteChart:
    """A chart against d: ``lines`` (name, rows, look) drawn with markers at every row
    unless their look has none, ``points`` (name, one row) as black diamonds and, if given,
    the ``interval`` (rows d, lo, hi) as a rule; ``y``: the log axis's title, range, ticks at
    every how many powers of ten, and its tooltip's title. One legend, shapes included."""
    datasets = {f"line{i}": rows.assign(name=name) for i, (name, rows, _) in enumerate(lines)}
    datasets |= {f"point{i}": rows.assign(name=name) for i, (name, rows) in enumerate(points)}
    if interval is not None:
        datasets["interval"] = interval
    look = (
        tuple((name, look) for name, _, look in lines),
        tuple(name for name, _ in points),
        tuple(int(v) for v in gap.table["d"]),
        y,
        interval is not None,
    )
    return chart(title, datasets, _dimension_layers, *look, height=320)


def _dimension_layers(
    lines: tuple[tuple[str, Look], ...],
    points: tuple[str, ...],
    dims: tuple[int, ...],
    y_look: tuple[str, tuple[float, float], int, str],
    interval: bool,
) -> list[Any]:
    """The layers of :func:`_dimension_chart`: lines and their markers, the interval, points."""
    title, domain, every, tip = y_look
    colour, shape = legend(
        "name", dict(lines) | {name: Look(style.INK, shape="diamond") for name in points}
    )
    x = quantity(alt.X, "d", "d (numbers released)", domain=(0.0, dims[-1] + 1.0), ticks=dims)
    y = quantity(alt.Y, "value", title, log=True, domain=domain, every=every)
    tooltip = [
        alt.Tooltip("name:N", title="curve"),
        alt.Tooltip("d:Q", title="d", format="d"),
        alt.Tooltip("value:Q", title=tip, format=".4~g"),
    ]
    layers: list[Any] = []
    for i, (_name, look) in enumerate(lines):
        layers.append(
            line(f"line{i}", look, clip=True).encode(x=x, y=y, color=colour, tooltip=tooltip)
        )
        if look.shape != "stroke":
            layers.append(markers(f"line{i}", 70).encode(x=x, y=y, color=colour, shape=shape))
    if interval:
        layers.append(
            dataset("interval")
            .mark_rule(color=style.INK, strokeWidth=2, clip=True)
            .encode(
                x=x,
                y=quantity(alt.Y, "lo", title, log=True, domain=domain, every=every),
                y2=alt.Y2("hi"),
                tooltip=[
                    alt.Tooltip("lo:Q", title="99 % interval from", format=".3~g"),
                    alt.Tooltip("hi:Q", title="to", format=".3~g"),
                ],
            )
        )
    return layers + [
        markers(f"point{i}", 200, strokeWidth=2, clip=True).encode(
            x=x, y=y, color=colour, shape=shape, tooltip=tooltip
        )
        for i in range(len(points))
    ]


def _rows(d: Any, values: Any, log: bool = True) -> pd.DataFrame:
    """A (d, value) table of the drawable rows."""
    v = np.broadcast_to(np.asarray(values, dtype=float), np.shape(d))
    ok = _drawable(v, log)
    return pd.DataFrame({"d": np.asarray(d, dtype=float)[ok], "value": v[ok]})


def dimension_eta_vega(
    gap: DimensionGap, demand: NoiseDemand
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Certified η against d (log axis, 10⁻⁹ to 1) at Corollary 14's noise for the target: the
    paper's proof redone in d dimensions (``gap.chain_eta``), Theorem 9's dimension-free
    certificate, the η Corollary 14 promises; beside the best attacks, Proposition 11's at
    d = 1 (``demand``'s exact η at the printed noise) and the covariance release's at d = 4
    (Monte Carlo, with its 99 % interval, cut at 10⁻⁹), black diamonds.
    The table is ``gap.table``."""
    d = gap.table["d"].to_numpy()
    ends = d[[0, -1]]
    exact = _rows([1], [demand.route(Route.MIP_PRINTED).exact_eta])
    lo, hi = gap.covariance_interval
    value = max(gap.covariance_eta, lo, 0.0)
    cov = pd.DataFrame(
        {
            "d": [float(COVARIANCE_GAP_DIM)],
            "value": [value],
            "lo": [min(max(lo, ETA_RANGE[0]), value)],
            "hi": [max(hi, value)],
        }
    )
    cov = cov[cov["value"] > 0].reset_index(drop=True)
    chart = _dimension_chart(
        DIM_ETA_TITLE,
        (_ETA_AXIS, ETA_RANGE, 1, "η"),
        [
            (CHAIN_NAME, _rows(d, gap.table["chain_eta"]), _CHAIN),
            (TIGHT_ETA_NAME, _rows(d, gap.tight_eta), _TIGHT),
            (PROMISED_NAME, _rows(ends, gap.target_eta), _PRINTED),
        ],
        [(EXACT_D1_NAME, exact), (COVARIANCE_NAME, cov[["d", "value"]])],
        gap,
        cov[["d", "lo", "hi"]],
    )
    return chart, gap.table


def dimension_noise_vega(
    gap: DimensionGap, demand: NoiseDemand
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Noise multiplier c needed for the target η against d (log axis, 10⁻⁸ to 10¹⁰): the
    paper's proof redone in d dimensions (its ``chain_noise_multiplier``; beyond the float range not
    drawn), Corollary 14's c, Theorem 9's dimension-free c, and what is enough at d = 1
    (``demand.multiplier_sufficient``, a diamond). The table is ``gap.table``."""
    d = gap.table["d"].to_numpy()
    chart = _dimension_chart(
        DIM_NOISE_TITLE,
        ("noise multiplier c (scale / σ)", MULTIPLIER_RANGE, 2, "c"),
        [
            (CHAIN_NAME, _rows(d, gap.table["chain_noise_multiplier"]), _CHAIN),
            (PRESCRIBED_NAME, _rows(d[[0, -1]], gap.noise_multiplier), _PRINTED),
            (TIGHT_NOISE_NAME, _rows(d, gap.tight_noise), _TIGHT),
        ],
        [(ENOUGH_NAME, _rows([1], [demand.multiplier_sufficient]))],
        gap,
    )
    return chart, gap.table
