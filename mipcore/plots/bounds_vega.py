"""Theorem 4's η(ε) curves and Theorem 8's ROC bounds for one (ε, δ), drawn by Vega-Lite.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Sections 3.4–3.5; the (ε, δ)-DP region is Theorem 2.1 of Kairouz, Oh, Viswanath, *The
Composition Theorem for Differential Privacy*, ICML 2015, arXiv:1311.0776.

:func:`eta_epsilon_table` and :func:`roc_table` evaluate :mod:`mipcore.bounds` on a grid for
one ``(ε, δ)``; :func:`eta_epsilon_vega` and :func:`roc_vega` draw those tables for the page
whose two charts follow the ε and δ sliders on every step (see :mod:`mipcore.plots.vega` for
why; the η(ε) chart is a curves chart of :mod:`mipcore.plots.curves`, the ROC chart a
ROC-region chart of :mod:`mipcore.plots.roc`). Each builder returns a
:class:`~mipcore.plots.vega.VegaLiteChart` and the table it draws, which is also the chart's
CSV. Nothing here caches: the page caches through
``appkit.cached``.

The specification of a chart depends only on what changes its look (δ, which curves there
are, linear or log axes); the ε slider only changes its tables, so Streamlit redraws the
chart in place. Each layer reads its own small named table (no filter, fold or calculate
transform: Streamlit's Vega evaluates those row by row in an interpreter).

Style (:mod:`mipcore.plots.style`): η-MIP solid vermillion with circles, (ε, δ)-DP dashed blue
with squares, Theorem 8 as printed dash-dot purple, random guessing dotted grey, the touching
point a black diamond; the chosen δ's η(ε) curve thick, solid and black, the other δ in the
Okabe–Ito colours each with its own dash pattern. Legends below the plot.
"""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from mipcore.bounds import (
    dp_region_kink,
    eta_from_epsilon,
    eta_small_epsilon_approx,
    tpr_bound_dp,
    tpr_bound_mip,
)

from . import curves, roc, style
from .curves import Look
from .formatting import superscript
from .vega import DASH, VegaLiteChart, bends

__all__ = [
    "REFERENCE_DELTAS",
    "delta_label",
    "eta_epsilon_table",
    "eta_epsilon_vega",
    "roc_table",
    "roc_vega",
]

#: The reference curves of the η(ε) chart.
REFERENCE_DELTAS = (0.0, 1e-5, 1e-3, 1e-2, 0.1)

ETA_TITLE = "Theorem 4: the η that (ε, δ)-DP implies"
ROC_TITLE = "Theorem 8: which (FPR, TPR) can an attacker reach?"
MIP_NAME = "η-MIP: TPR ≤ min(1, FPR + 2η)"
DP_NAME = "(ε, δ)-DP (Kairouz et al.)"
PRINTED_NAME = "Theorem 8 as printed: FPR + η"
GUESS_NAME = "random guessing (TPR = FPR)"
TOUCH_NAME = "where they touch: TPR − FPR = 2η"
POINT_NAME = "your (ε, δ)"
APPROX_NAME = "small-ε rule δ/2 + (1−δ)ε/4"
_MARKERS = 9  # markers on each ROC boundary (the legend's second cue)


def delta_label(delta: float) -> str:
    """A legend label for δ: ``'δ = 0'``, ``'δ = 10⁻⁵'``, ``'δ = 2.5·10⁻⁶'``, ``'δ = 0.013'``.

    Examples
    --------
    >>> delta_label(0.0), delta_label(1e-5), delta_label(2.5e-6), delta_label(0.013)
    ('δ = 0', 'δ = 10⁻⁵', 'δ = 2.5·10⁻⁶', 'δ = 0.013')
    """
    d = float(delta)
    if d == 0.0:
        return "δ = 0"
    k = math.log10(d)
    if abs(k - round(k)) < 1e-9 and k <= -2:
        return f"δ = 10{superscript(round(k))}"
    if d < 1e-3:
        mant, exp = f"{d:.2e}".split("e")
        mant = mant.rstrip("0").rstrip(".")
        return f"δ = {mant}·10{superscript(int(exp))}"
    return f"δ = {d:.4g}"


def eta_epsilon_table(
    epsilon: float,
    delta: float,
    *,
    eps_max: float = 10.0,
    reference_deltas: tuple[float, ...] = REFERENCE_DELTAS,
    points: int = 201,
) -> pd.DataFrame:
    """Theorem 4's η(ε) for the setting ``(epsilon, delta)``, one row per point of a curve.

    Theorem 4's curve for every δ of ``reference_deltas`` plus ``delta`` itself (last, unless
    it is one of them), on ``points`` equally spaced ε in ``[0, eps_max]`` plus ``epsilon`` (so
    the chosen curve passes exactly through the chosen point), and the small-ε rule of thumb
    at ``delta`` while it stays below η = 0.52. Columns: ``curve`` ("exact (Theorem 4)" or
    "small-epsilon approximation"), ``delta``, ``epsilon``, ``eta``, ``attacker_accuracy``
    (1/2 + η).
    """
    epsilon, delta = float(epsilon), float(delta)
    eps_grid = np.union1d(np.linspace(0.0, eps_max, points), [epsilon])
    deltas = [float(d) for d in reference_deltas]
    if not any(math.isclose(delta, d, rel_tol=1e-9, abs_tol=0.0) for d in deltas):
        deltas.append(delta)
    curves_eta = eta_from_epsilon(eps_grid[None, :], np.asarray(deltas)[:, None])
    limit = 4.0 * (0.52 - delta / 2) / (1.0 - delta) if delta < 1 else 0.0
    eps_ap = eps_grid[eps_grid <= limit]
    eta_ap = np.asarray(eta_small_epsilon_approx(eps_ap, delta), dtype=float)
    n, m = eps_grid.size, eps_ap.size
    eta_all = np.concatenate([curves_eta.ravel(), eta_ap])
    return pd.DataFrame(
        {
            "curve": ["exact (Theorem 4)"] * (n * len(deltas))
            + ["small-epsilon approximation"] * m,
            "delta": np.concatenate(
                [np.repeat(np.asarray(deltas, dtype=float), n), np.full(m, delta)]
            ),
            "epsilon": np.concatenate([np.tile(eps_grid, len(deltas)), eps_ap]),
            "eta": eta_all,
            "attacker_accuracy": 0.5 + eta_all,
        }
    )


def roc_table(
    epsilon: float,
    delta: float,
    *,
    log_axes: bool = False,
    extra_fpr: tuple[float, ...] = (),
    points: int = 361,
    log_points: int = 360,
    log_min_fpr: float = 1e-6,
) -> pd.DataFrame:
    """The largest TPR at each FPR under (ε, δ)-DP, under η-MIP (corrected Theorem 8, η being
    Theorem 4's η for ``(epsilon, delta)``), under Theorem 8 as printed, and random guessing.

    The false-positive rates are ``points`` equally spaced values in ``[0, 1]``
    (``log_points`` log-spaced values in ``[log_min_fpr, 1]`` when ``log_axes``) plus the exact
    kinks of the boundaries -- FPR* (:func:`mipcore.bounds.dp_region_kink`), 1 − δ, 1 − 2η,
    1 − η -- and ``extra_fpr``: the piecewise-linear boundaries are drawn exactly on linear
    axes. Columns: ``fpr, tpr_max_dp, tpr_max_mip_2eta, tpr_max_theorem8_as_printed,
    random_guessing``.
    """
    epsilon, delta = float(epsilon), float(delta)
    eta = float(eta_from_epsilon(epsilon, delta))
    f_star = float(dp_region_kink(epsilon, delta))
    kinks = [f_star, 1.0 - delta, 1.0 - 2.0 * eta, 1.0 - eta, *extra_fpr]
    if log_axes:
        lo = math.log10(log_min_fpr)
        fpr = np.union1d(
            np.logspace(lo, 0.0, log_points), [k for k in kinks if log_min_fpr <= k <= 1.0]
        )
    else:
        fpr = np.union1d(np.linspace(0.0, 1.0, points), [k for k in kinks if 0.0 <= k <= 1.0])
    return pd.DataFrame(
        {
            "fpr": fpr,
            "tpr_max_dp": np.asarray(tpr_bound_dp(fpr, epsilon, delta), dtype=float),
            "tpr_max_mip_2eta": np.asarray(tpr_bound_mip(fpr, eta), dtype=float),
            "tpr_max_theorem8_as_printed": np.asarray(
                tpr_bound_mip(fpr, eta, as_printed=True), dtype=float
            ),
            "random_guessing": fpr,
        }
    )


def _kinks(long: pd.DataFrame) -> np.ndarray:
    """For a long table (fpr, tpr, name) of polylines, the rows where a line bends or ends."""
    keep = np.zeros(len(long), dtype=bool)
    for rows in long.groupby("name", sort=False).indices.values():
        keep[rows] = bends(long["fpr"].to_numpy()[rows], long["tpr"].to_numpy()[rows])
    return keep


def eta_epsilon_vega(
    epsilon: float,
    delta: float,
    *,
    eps_max: float = 10.0,
    reference_deltas: tuple[float, ...] = REFERENCE_DELTAS,
    points: int = 201,
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The η(ε) chart for the setting ``(epsilon, delta)`` and the table it draws.

    The numbers are :func:`eta_epsilon_table`'s (Theorem 4 for every δ of ``reference_deltas``
    and ``delta``, the small-ε rule of thumb), and one more row, the chosen setting. The table's columns: ``curve`` ("exact (Theorem 4)", "small-epsilon
    approximation", "your setting"), ``line`` (the legend's label), ``delta``, ``epsilon``,
    ``eta``, ``attacker_accuracy``. The right-hand axis reads the same curves as the best
    attacker's accuracy in %.
    """
    epsilon, delta = float(epsilon), float(delta)
    table = eta_epsilon_table(
        epsilon, delta, eps_max=eps_max, reference_deltas=reference_deltas, points=points
    )
    exact = table["curve"] == "exact (Theorem 4)"
    deltas = [float(d) for d in pd.unique(table["delta"][exact].to_numpy(float))]
    chosen = next(d for d in deltas if math.isclose(delta, d, rel_tol=1e-9, abs_tol=0.0))
    names = {d: delta_label(d) + (" (chosen)" if d == chosen else "") for d in deltas}
    line = np.where(exact, table["delta"].map(names), APPROX_NAME)
    eta = float(eta_from_epsilon(epsilon, delta))
    point = pd.DataFrame(
        {
            "curve": ["your setting"],
            "line": [POINT_NAME],
            "delta": [delta],
            "epsilon": [epsilon],
            "eta": [eta],
            "attacker_accuracy": [0.5 + eta],
        }
    )
    table = pd.concat([table.assign(line=line), point], ignore_index=True)[
        ["curve", "line", "delta", "epsilon", "eta", "attacker_accuracy"]
    ]
    drawn = ["line", "epsilon", "eta", "attacker_accuracy"]
    curves_table = table.loc[table["curve"] != "your setting", drawn]
    # Every other grid point (smooth curves: the same picture at half the rows to redraw),
    # and always the chosen ε, so that the chosen curve passes through the marked point.
    rank = curves_table.groupby("line", sort=False).cumcount().to_numpy()
    thin = (rank % 2 == 0) | np.isclose(curves_table["epsilon"].to_numpy(), epsilon)
    last = curves_table.groupby("line", sort=False).cumcount(ascending=False).to_numpy() == 0
    curves_table = curves_table[thin | last].reset_index(drop=True)

    looks = [  # the chosen δ thick, solid and black; the others each its colour and dash
        Look(style.INK, "solid", 4.0)
        if d == chosen
        else Look(style.SEQUENCE[i % len(style.SEQUENCE)], style.dashes(i), 2.0)
        for i, d in enumerate(deltas)
    ]
    lines = tuple(zip([names[d] for d in deltas] + [APPROX_NAME], [*looks, _APPROX], strict=True))
    datasets = {"curves": curves_table, "point": point[drawn]}
    resolve = {"scale": {"y": "independent"}}
    return curves.chart(
        ETA_TITLE, datasets, _eta_layers, lines, eps_max, height=300, resolve=resolve
    ), table


_APPROX = Look(style.GREY, "dot")  # the small-ε rule of thumb


def _eta_layers(lines: tuple[tuple[str, Look], ...], eps_max: float) -> list[Any]:
    """The η(ε) chart's layers: the rule at η = 1/2, the curves (``lines``: each label's look),
    the chosen setting's point and label; then an invisible point drawing the right-hand axis
    (its scale apart: the best attacker's accuracy in %)."""
    looks = dict(lines)
    legend = alt.Legend(title=None, columns=2, symbolType="stroke", symbolSize=500)
    x = curves.quantity(alt.X, "epsilon", "ε", domain=(0.0, eps_max))
    y = curves.quantity(alt.Y, "eta", "η (attacker's edge)", domain=(0.0, 0.52))
    tooltip = [
        alt.Tooltip("line", type="nominal", title="curve"),
        alt.Tooltip("epsilon", type="quantitative", title="ε", format=".3~g"),
        alt.Tooltip("eta", type="quantitative", title="η", format=".4~g"),
        alt.Tooltip(
            "attacker_accuracy", type="quantitative", title="attacker accuracy ≤", format=".2%"
        ),
    ]
    no_privacy = curves.rule(
        0.5,
        "η = 1/2: no privacy",
        colour=style.GREY,
        dash="dot",
        width=1.5,
        at=eps_max,
        align="right",
        baseline="top",
        dy=8,
        fontSize=15,
    )
    drawn = (
        curves.dataset("curves")
        .mark_line(clip=True)
        .encode(
            x=x,
            y=y,
            color=curves.by(alt.Color, "line", {k: v.colour for k, v in looks.items()}, legend),
            strokeDash=curves.by(
                alt.StrokeDash, "line", {k: DASH[v.dash] for k, v in looks.items()}, legend
            ),
            strokeWidth=curves.by(alt.StrokeWidth, "line", {k: v.width for k, v in looks.items()}),
            tooltip=tooltip,
        )
    )
    marked = alt.layer(  # the chosen setting: a point and its label
        alt.Chart()
        .mark_point(
            shape="circle",
            filled=True,
            size=260,
            color=style.MIP.colour,
            stroke="white",
            strokeWidth=2,
            opacity=1,
        )
        .encode(x=x, y=y, tooltip=tooltip),
        alt.Chart()
        .mark_text(align="left", baseline="top", dx=9, dy=6, fontSize=15)
        .encode(x=x, y=y, text=alt.Text("line", type="nominal")),
        data=alt.NamedData("point"),
    )
    accuracy = alt.Y(
        "attacker_accuracy",
        type="quantitative",
        title="best accuracy (%)",
        scale=alt.Scale(domain=[0.5, 1.02], nice=False),
        axis=alt.Axis(
            orient="right",
            grid=False,
            values=[0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
            labelExpr="format(datum.value * 100, '.0f')",
        ),
    )
    axis = curves.dataset("point").mark_point(opacity=0).encode(x=x, y=accuracy)
    return [alt.layer(no_privacy, drawn, marked), axis]


def roc_vega(
    epsilon: float,
    delta: float,
    *,
    log_axes: bool = False,
    extra_fpr: tuple[float, ...] = (),
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """The ROC bounds at ``(epsilon, delta)`` (DP, η-MIP, Theorem 8 as printed) and their table.

    The numbers and the table are :func:`roc_table`'s (columns ``fpr, tpr_max_dp,
    tpr_max_mip_2eta, tpr_max_theorem8_as_printed, random_guessing``). The
    chart (:mod:`mipcore.plots.roc`) draws them as four boundaries, marks the MIP and DP
    boundaries with circles and squares at about nine points each, and the point where they
    touch (FPR* of :func:`mipcore.bounds.dp_region_kink`) with a black diamond. On linear
    axes both regions are shaded; on log axes (FPR from 10⁻⁶) only points with positive rates
    are drawn, and the TPR axis starts at the half decade below the smallest. The title does
    not name the setting, so that moving ε redraws the chart in place.
    """
    epsilon, delta = float(epsilon), float(delta)
    table = roc_table(epsilon, delta, log_axes=log_axes, extra_fpr=extra_fpr)
    fpr = table["fpr"].to_numpy()
    names = {
        "tpr_max_mip_2eta": MIP_NAME,
        "tpr_max_dp": DP_NAME,
        "tpr_max_theorem8_as_printed": PRINTED_NAME,
        "random_guessing": GUESS_NAME,
    }
    long = pd.concat(
        [
            pd.DataFrame({"fpr": fpr, "tpr": table[c].to_numpy(), "name": n})
            for c, n in names.items()
        ],
        ignore_index=True,
    )
    if log_axes:
        long = long[(long["fpr"] > 0) & (long["tpr"] > 0)].reset_index(drop=True)
        picks = roc.spread(fpr.size, _MARKERS)
    else:
        # Every boundary is piecewise linear in FPR: its kinks and ends draw it exactly, and a
        # few dozen rows redraw much faster than the full grid (the CSV keeps the grid).
        long = long[_kinks(long)].reset_index(drop=True)
        picks = np.unique([int(np.argmin(np.abs(fpr - t))) for t in np.linspace(0, 1, _MARKERS)])
    markers = pd.concat(
        [
            pd.DataFrame({"fpr": fpr[picks], "tpr": table[c].to_numpy()[picks], "name": names[c]})
            for c in ("tpr_max_mip_2eta", "tpr_max_dp")
        ],
        ignore_index=True,
    )
    markers = markers[(markers["tpr"] > 0) | (not log_axes)].reset_index(drop=True)
    f_star = float(dp_region_kink(epsilon, delta))
    i_star = int(np.argmin(np.abs(fpr - f_star)))
    touch = pd.DataFrame(
        {
            "fpr": [fpr[i_star]],
            "tpr": [float(table["tpr_max_dp"].iloc[i_star])],
            "name": [TOUCH_NAME],
        }
    )
    if log_axes and not (touch["fpr"].iloc[0] > 0 and touch["tpr"].iloc[0] > 0):
        touch = touch.iloc[:0]
    datasets = {"curves": long, "markers": markers, "touch": touch}
    layers: list[roc.Layer] = []
    if log_axes:
        pos = [a[a > 0] for a in (long["tpr"].to_numpy(), fpr) if np.any(a > 0)]
        y_lo = 10.0 ** (math.floor(math.log10(min(float(a.min()) for a in pos)) * 2) / 2)
        plane = roc.Plane(log=True, fpr_lo=float(fpr[fpr > 0].min()), tpr_lo=y_lo, tpr_top=1.05)
    else:
        plane = roc.Plane()
        areas = table[["fpr", "tpr_max_dp", "tpr_max_mip_2eta"]]
        keep = np.zeros(len(areas), dtype=bool)
        for column in ("tpr_max_dp", "tpr_max_mip_2eta"):
            keep |= bends(areas["fpr"].to_numpy(), areas[column].to_numpy())
        datasets["areas"] = areas[keep].reset_index(drop=True)
        layers = [
            roc.Region("areas", style.DP.colour, 0.20, "tpr_max_dp"),
            roc.Region("areas", style.MIP.colour, 0.10, "tpr_max_mip_2eta"),
        ]
    entries = {
        MIP_NAME: roc.styled(style.MIP),
        DP_NAME: roc.styled(style.DP),
        PRINTED_NAME: roc.styled(style.PRINTED, marker=False),
        GUESS_NAME: roc.CHANCE,
        TOUCH_NAME: roc.styled(style.EXACT),
    }
    layers += [
        roc.Curves("curves", width=3),
        roc.Points("markers", 70, tooltip="none"),
        roc.Points("touch", 200, outlined=True, clip=False, tooltip="rates"),
    ]
    chart = roc.chart(
        ROC_TITLE,
        datasets,
        plane=plane,
        entries=entries,
        layers=layers,
        height=320,
        legend={"symbolSize": 140},
        name_title="boundary",
        tpr_title="TPR ≤",
    )
    return chart, table
