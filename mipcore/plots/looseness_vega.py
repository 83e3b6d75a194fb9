"""Charts of "How loose are the certified bounds?", drawn by Vega-Lite.

Each builder takes results of :mod:`mipcore.lessons.certificate_gap` and returns a
:class:`~mipcore.plots.vega.VegaLiteChart` and the table the page offers as the chart's CSV
(the lesson's own table, unchanged). The page's sliders (n, M, the constant, the target η,
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

import math
from typing import Any

import numpy as np
import pandas as pd

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
from .vega import DASH, VegaLiteChart, by_field, layered, log_ticks

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
_ROUTE_COLOUR = {
    Route.SUFFICIENT: style.EXACT.colour,
    Route.MIP_TIGHT: style.MIP.colour,
    Route.MIP_PRINTED: style.PRINTED.colour,
    Route.DP: style.DP.colour,
}

ETA_TITLE = "η against the Laplace noise, Proposition 11"
DEMAND_TITLE = "Laplace scale each route needs for the target η"
T4_TITLE = "Theorem 4 is attained"
T5_TITLE = "Theorem 5: small η, yet no finite ε"
DIM_ETA_TITLE = "Certified η against d, at the printed noise"
DIM_NOISE_TITLE = "Noise needed for the target η, against d"

#: The η-against-noise curves: (column of the lesson's table, legend label, colour, dash,
#: line width, marker shape; "stroke": no markers, a short line in the legend).
CURVES = (
    ("exact", "exact η (best possible attack)", style.EXACT.colour, "solid", 4.0, "stroke"),
    (
        "certified_mip_tight",
        "MIP: Theorem 9 density, ½(1 − exp(−σ/b))",
        style.MIP.colour,
        "solid",
        2.5,
        "circle",
    ),
    (
        "certified_mip_printed",
        "MIP: Corollary 14 as printed",
        style.PRINTED.colour,
        "dashdot",
        2.5,
        "cross",
    ),
    ("certified_dp", "DP: Laplace mechanism + Theorem 4", style.DP.colour, "dash", 2.5, "square"),
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

#: Fixed axis ranges (every n, M, constant and target of the page fits in them): η from the
#: exact η at n = 16 (4·10⁻⁹) up; the Laplace scales (6·10⁻⁶ to 6·10⁵) and noise multipliers
#: (3·10⁻⁷ enough at n = 16, M = 6, to 2·10⁹ for the repaired proof at d = 16).
ETA_RANGE = (1e-9, 1.0)
SCALE_RANGE = (1e-6, 1e6)
BAR_RANGE = (1e-6, 1e8)
MULTIPLIER_RANGE = (1e-8, 1e10)
T5_RANGE = (1e-12, 1.0)
_MARKERS = 8  # markers on each η-against-noise certificate (the legend's second cue)

#: One legend per chart, colour and marker shape (a line without markers: a short stroke);
#: the dashes are on the plot only (a dashed outline blurs a legend's symbol).
_POINT_LEGEND = {"title": None, "symbolSize": 120}


def _log(title: str, lo: float, hi: float, *, every: int = 1) -> dict[str, Any]:
    """A fixed log axis ``[lo, hi]`` with ticks at every ``every``-th power of ten."""
    axis = log_ticks(lo, hi)
    axis["values"] = [v for v in axis["values"] if round(math.log10(v)) % every == 0]
    return {
        "type": "quantitative",
        "title": title,
        "scale": {"type": "log", "domain": [lo, hi], "nice": False},
        "axis": axis,
    }


def _linear(title: str, lo: float, hi: float, **axis: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "quantitative",
        "title": title,
        "scale": {"domain": [lo, hi], "nice": False},
    }
    if axis:
        out["axis"] = axis
    return out


def _at(enc: dict[str, Any], field: str) -> dict[str, Any]:
    return {"field": field, **enc}


def _drawable(values: Any, log: bool) -> np.ndarray:
    """Rows that can be drawn: finite, and positive on a log axis."""
    v = np.asarray(values, dtype=float)
    return np.isfinite(v) & ((v > 0) if log else np.ones(v.size, dtype=bool))


def _tip(field: str, title: str, fmt: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"field": field, "title": title}
    out["type"] = "nominal" if fmt is None else "quantitative"
    if fmt is not None:
        out["format"] = fmt
    return out


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
    result: EtaVsNoise, demand: NoiseDemand, *, log_y: bool = True
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """η against the Laplace scale b (log axis, 10⁻⁶ to 10⁶): the exact η of the Proposition 11
    mechanism, Theorem 9's dimension-free certificate, Corollary 14 as printed and DP through
    Theorem 4 (columns of ``result.curves``, which is the table returned); a dotted line at
    the target η and, on it, a diamond at the scale each route of ``demand`` needs.

    Lines are drawn through every other grid point, their ends and their corners; on a log
    η axis only positive values. ``log_y``: η on a log axis (10⁻⁹ to 1) or a linear one (0 to 0.52).
    """
    table = result.curves
    b = table["scale"].to_numpy(dtype=float)
    datasets: dict[str, pd.DataFrame] = {}
    marks = []
    for i, (col, name, *_rest, shape) in enumerate(CURVES):
        eta = table[col].to_numpy(dtype=float)
        ok = _drawable(eta, log_y) & _drawable(b, True)
        idx = np.flatnonzero(ok)
        if idx.size:
            idx = idx[_thin(np.log(b[idx]), np.log(eta[idx]) if log_y else eta[idx], log_y)]
        datasets[f"curve{i}"] = pd.DataFrame({"line": name, "scale": b[idx], "eta": eta[idx]})
        if shape != "stroke":  # staggered, so that the markers of two curves never coincide
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

    names = [c[1] for c in CURVES]
    colour = by_field("line", names, [c[2] for c in CURVES], _POINT_LEGEND)
    x = _at(_log("Laplace noise scale b", *SCALE_RANGE, every=2), "scale")
    y_title = "η (accuracy − 50 %)"
    y = _at(_log(y_title, *ETA_RANGE) if log_y else _linear(y_title, 0.0, 0.52), "eta")
    tooltip = [
        _tip("line", "curve"),
        _tip("scale", "b", ".3~g"),
        _tip("eta", "η", ".4~g"),
    ]
    layers: list[dict[str, Any]] = [
        {
            "data": {"name": "target"},
            "mark": {
                "type": "rule",
                "color": style.GREY,
                "strokeDash": DASH["dot"],
                "strokeWidth": 1.5,
            },
            "encoding": {"y": y},
        },
        *(
            {
                "data": {"name": f"curve{i}"},
                "mark": {"type": "line", "clip": True, "strokeDash": DASH[dash], "strokeWidth": w},
                "encoding": {"x": x, "y": y, "color": colour, "tooltip": tooltip},
            }
            for i, (_c, _n, _colour, dash, w, _s) in enumerate(CURVES)
        ),
        {
            "data": {"name": "markers"},
            "mark": {"type": "point", "filled": True, "size": 70, "opacity": 1, "clip": True},
            "encoding": {
                "x": x,
                "y": y,
                "color": colour,
                "shape": by_field("line", names, [c[5] for c in CURVES], _POINT_LEGEND),
                "tooltip": tooltip,
            },
        },
        {
            "data": {"name": "needed"},
            "mark": {
                "type": "point",
                "shape": "diamond",
                "filled": True,
                "size": 220,
                "opacity": 1,
                "stroke": style.INK,
                "strokeWidth": 1,
                "clip": True,
            },
            "encoding": {
                "x": x,
                "y": y,
                "fill": by_field(
                    "route",
                    list(ROUTE_NAMES.values()),
                    [_ROUTE_COLOUR[r] for r in ROUTE_NAMES],
                ),
                "tooltip": [_tip("route", "route"), _tip("scale", "needs b =", ".4~g")],
            },
        },
    ]
    chart = VegaLiteChart(
        spec=layered(ETA_TITLE, layers, height=340),
        datasets=datasets,
        title=ETA_TITLE,
    )
    return chart, table


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
    names = list(ROUTE_NAMES.values())
    y = {"field": "route", "type": "nominal", "sort": names, "title": None}
    x = _at(_log("Laplace noise scale b", *BAR_RANGE, every=3), "scale")
    layers: list[dict[str, Any]] = [
        {
            "mark": {"type": "bar", "stroke": style.INK, "strokeWidth": 1, "height": 30},
            "encoding": {
                "y": y,
                "x": x,
                "x2": {"datum": BAR_RANGE[0]},  # a log axis has no zero: bars from its start
                "color": by_field("route", names, [_ROUTE_COLOUR[r] for r in ROUTE_NAMES]),
                "tooltip": [
                    _tip("route", "route"),
                    _tip("scale", "b", ".4~g"),
                    _tip("times", "× enough", ".3~g"),
                ],
            },
        },
        {
            "mark": {"type": "text", "align": "left", "dx": 6, "fontSize": 15},
            "encoding": {"y": y, "x": x, "text": {"field": "label", "type": "nominal"}},
        },
    ]
    spec = layered(DEMAND_TITLE, [{"data": {"name": "bars"}, "layer": layers}], height=220)
    chart = VegaLiteChart(spec=spec, datasets={"bars": bars}, title=DEMAND_TITLE)
    return chart, demand.table


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
    names = [T4_BOUND_NAME, T4_EXACT_NAME]
    legend = {**_POINT_LEGEND, "symbolStrokeWidth": 4}
    x = _at(_linear("ε", -0.2, 6.2, values=[0, 1, 2, 3, 4, 5, 6]), "epsilon")
    y = _at(
        _linear("best attacker's accuracy (%)", 48.0, 102.0, values=[50, 60, 70, 80, 90, 100]),
        "accuracy",
    )
    colour = by_field("curve", names, [style.GREY, style.EXACT.colour], legend)
    tooltip = [
        _tip("curve", "curve"),
        _tip("epsilon", "ε", ".3~g"),
        _tip("accuracy", "accuracy (%)", ".4f"),
    ]
    layers = [
        {
            "data": {"name": "bound"},
            "mark": {"type": "line", "strokeWidth": 8},
            "encoding": {"x": x, "y": y, "color": colour, "tooltip": tooltip},
        },
        {
            "data": {"name": "exact"},
            "mark": {"type": "point", "filled": True, "size": 90, "opacity": 1},
            "encoding": {
                "x": x,
                "y": y,
                "color": colour,
                "shape": by_field("curve", names, ["stroke", "diamond"], legend),
                "tooltip": tooltip,
            },
        },
    ]
    chart = VegaLiteChart(
        spec=layered(T4_TITLE, layers, height=300),
        datasets={"bound": bound, "exact": exact},
        title=T4_TITLE,
    )
    return chart, t


def theorem5_vega(
    result: Theorem5Counterexamples, *, log_y: bool = True
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Theorem 5's counterexamples against n from ``result.table`` (returned): η = 1/C(n, n/2)
    of the TMLR version's ``1{D = D*}`` (black, diamonds) and η = q/2 of the arXiv version's
    "publish each record with probability q" (green dashed, squares; its constant line is
    drawn through its two ends). Markers at every other n. ``log_y``: log η axis (10⁻¹² to
    1) or linear (0 to 0.52)."""
    t = result.table
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
    names = [T5_INDICATOR_NAME, T5_PUBLISH_NAME]
    colours = [style.EXACT.colour, style.MEASURED.colour]
    x = _at(_linear("n (dataset size)", 0.0, 42.0), "n")
    y = _at(_log("exact η", *T5_RANGE, every=2) if log_y else _linear("exact η", 0, 0.52), "eta")
    tooltip = [_tip("curve", "mechanism"), _tip("n", "n", "d"), _tip("eta", "η", ".4~g")]
    colour = by_field("curve", names, colours, _POINT_LEGEND)
    layers = [
        *(
            {
                "data": {"name": f"line{i}"},
                "mark": {"type": "line", "strokeWidth": 2.5, "strokeDash": DASH[dash]},
                "encoding": {"x": x, "y": y, "color": colour, "tooltip": tooltip},
            }
            for i, dash in enumerate((style.EXACT["dash"], "dash"))
        ),
        {
            "data": {"name": "markers"},
            "mark": {"type": "point", "filled": True, "size": 80, "opacity": 1},
            "encoding": {
                "x": x,
                "y": y,
                "color": colour,
                "shape": by_field("curve", names, ["diamond", "square"], _POINT_LEGEND),
                "tooltip": tooltip,
            },
        },
    ]
    chart = VegaLiteChart(
        spec=layered(T5_TITLE, layers, height=300),
        datasets={**datasets, "markers": pd.concat(marks, ignore_index=True)},
        title=T5_TITLE,
    )
    return chart, t


def _ends(size: int) -> np.ndarray:
    keep = np.zeros(size, dtype=bool)
    keep[[0, -1]] = size > 0
    return keep


def _d_axis(gap: DimensionGap) -> dict[str, Any]:
    d = [int(v) for v in gap.dimensions]
    return _at(_linear("d (numbers released)", 0.0, d[-1] + 1.0, values=d), "d")


def _dimension_chart(
    title: str,
    y: dict[str, Any],
    lines: list[tuple[str, pd.DataFrame, str, str, str]],
    points: list[tuple[str, pd.DataFrame]],
    gap: DimensionGap,
    tip: tuple[str, str],
    extra_layers: list[dict[str, Any]] | None = None,
    extra_data: dict[str, pd.DataFrame] | None = None,
) -> VegaLiteChart:
    """A chart against d: ``lines`` (name, rows, colour, dash, marker shape or "stroke") drawn
    with markers at every row, and ``points`` (name, one row) as black diamonds; one
    legend, shapes included."""
    names = [n for n, *_ in lines] + [n for n, *_ in points]
    colours = [c for _, _, c, _, _ in lines] + [style.INK] * len(points)
    shapes = [s for *_, s in lines] + ["diamond"] * len(points)
    x = _d_axis(gap)
    colour = by_field("name", names, colours, _POINT_LEGEND)
    shape = by_field("name", names, shapes, _POINT_LEGEND)
    tooltip = [_tip("name", "curve"), _tip("d", "d", "d"), _tip(*tip, ".4~g")]
    datasets: dict[str, pd.DataFrame] = {}
    layers: list[dict[str, Any]] = []
    for i, (name, rows, _c, dash, s) in enumerate(lines):
        key = f"line{i}"
        datasets[key] = rows.assign(name=name)
        layers.append(
            {
                "data": {"name": key},
                "mark": {
                    "type": "line",
                    "strokeWidth": 2.5,
                    "strokeDash": DASH[dash],
                    "clip": True,
                },
                "encoding": {"x": x, "y": y, "color": colour, "tooltip": tooltip},
            }
        )
        if s != "stroke":
            layers.append(
                {
                    "data": {"name": key},
                    "mark": {"type": "point", "filled": True, "size": 70, "opacity": 1},
                    "encoding": {"x": x, "y": y, "color": colour, "shape": shape},
                }
            )
    layers += extra_layers or []
    for i, (name, rows) in enumerate(points):
        key = f"point{i}"
        datasets[key] = rows.assign(name=name)
        layers.append(
            {
                "data": {"name": key},
                "mark": {
                    "type": "point",
                    "filled": True,
                    "size": 200,
                    "opacity": 1,
                    "strokeWidth": 2,
                    "clip": True,
                },
                "encoding": {
                    "x": x,
                    "y": y,
                    "color": colour,
                    "shape": shape,
                    "tooltip": tooltip,
                },
            }
        )
    datasets.update(extra_data or {})
    return VegaLiteChart(spec=layered(title, layers, height=320), datasets=datasets, title=title)


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
    d = gap.dimensions
    ends = d[[0, -1]]
    y = _at(_log("η (accuracy − 50 %)", *ETA_RANGE), "value")
    exact = _rows([1], [demand.route(Route.MIP_PRINTED).exact_eta])
    lo, hi = gap.covariance_interval
    value = max(gap.covariance_eta, lo, 0.0)
    cov = pd.DataFrame(
        {
            "d": [float(gap.covariance_dim)],
            "value": [value],
            "lo": [min(max(lo, ETA_RANGE[0]), value)],
            "hi": [max(hi, value)],
        }
    )
    cov = cov[cov["value"] > 0].reset_index(drop=True)
    x = _d_axis(gap)
    interval = {
        "data": {"name": "interval"},
        "mark": {"type": "rule", "color": style.INK, "strokeWidth": 2, "clip": True},
        "encoding": {
            "x": x,
            "y": {**y, "field": "lo"},
            "y2": {"field": "hi"},
            "tooltip": [
                _tip("lo", "99 % interval from", ".3~g"),
                _tip("hi", "to", ".3~g"),
            ],
        },
    }
    chart = _dimension_chart(
        DIM_ETA_TITLE,
        y,
        [
            (CHAIN_NAME, _rows(d, gap.chain_eta), style.ORANGE, "longdash", "triangle-up"),
            (TIGHT_ETA_NAME, _rows(d, gap.tight_eta), style.MIP.colour, "solid", "circle"),
            (PROMISED_NAME, _rows(ends, gap.target_eta), style.PRINTED.colour, "dashdot", "stroke"),
        ],
        [(EXACT_D1_NAME, exact), (COVARIANCE_NAME, cov[["d", "value"]])],
        gap,
        ("value", "η"),
        [interval],
        {"interval": cov[["d", "lo", "hi"]]},
    )
    return chart, gap.table


def dimension_noise_vega(
    gap: DimensionGap, demand: NoiseDemand
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Noise multiplier c needed for the target η against d (log axis, 10⁻⁸ to 10¹⁰): the
    paper's proof redone in d dimensions (``gap.chain_noise``; beyond the float range not
    drawn), Corollary 14's c, Theorem 9's dimension-free c, and what is enough at d = 1
    (``demand.multiplier_sufficient``, a diamond). The table is ``gap.table``."""
    d = gap.dimensions
    y = _at(_log("noise multiplier c (scale / σ)", *MULTIPLIER_RANGE, every=2), "value")
    chart = _dimension_chart(
        DIM_NOISE_TITLE,
        y,
        [
            (CHAIN_NAME, _rows(d, gap.chain_noise), style.ORANGE, "longdash", "triangle-up"),
            (
                PRESCRIBED_NAME,
                _rows(d[[0, -1]], gap.printed_noise),
                style.PRINTED.colour,
                "dashdot",
                "stroke",
            ),
            (TIGHT_NOISE_NAME, _rows(d, gap.tight_noise), style.MIP.colour, "solid", "circle"),
        ],
        [(ENOUGH_NAME, _rows([1], [demand.multiplier_sufficient]))],
        gap,
        ("value", "c"),
    )
    return chart, gap.table
