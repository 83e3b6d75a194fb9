"""Figure 2 of the paper (Section 5.2): relative error against η, MIP vs DP-SGD, drawn by
Vega-Lite through Altair (a curves chart of :mod:`mipcore.plots.curves`).

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.2 (Figure 2). The results come from :func:`mipcore.experiments.covariance.run_experiment`;
:func:`curve_frame` picks the summary rows a chart shows (mean over runs, SEM) and
:func:`error_vega` draws exactly those rows, which the page also offers as CSV.

Legend names are built from the structured curve keys (method, M, calibration). The printed
Laplace radius is named "not certified" whenever its release holds more than one number
(:attr:`mipcore.experiments.covariance.MipNoise.is_certified`): no proof covers it there.

The specification depends on which curves are drawn, the η range of the tab and the log
toggle, never on the run's numbers: a new run (another d, n, seed …) only changes its tables,
so Streamlit redraws the chart in place (see :mod:`mipcore.plots.vega`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from ..experiments.covariance import DpCalibration, ExperimentResult, Method
from ..mechanism import MipCalibration
from . import style
from .curves import band, by, chart, dataset, quantity, rule
from .vega import DASH, SHAPE, VegaLiteChart, log_ticks

__all__ = [
    "LOG_BAND_FLOOR",
    "band_clipped",
    "curve_frame",
    "curve_name",
    "curve_style",
    "error_vega",
]

#: On a log axis a band whose lower edge mean − SEM is <= 0 is drawn down to this fraction of
#: the mean instead (the page says so when it happens).
LOG_BAND_FLOOR = 0.1

_MARKERS = 9  # markers on each curve at most (the legend's second cue)

_MIP_NAMES = {
    MipCalibration.AS_PRINTED: "as printed (Laplace radius)",
    MipCalibration.PAPER: "Theorem 9 density, paper's constant",
    MipCalibration.TIGHT: "smallest certified noise",
}
# (colour, dash, shape, filled)
_MIP_STYLE = {
    MipCalibration.AS_PRINTED: (style.PRINTED.colour, "dashdot", SHAPE["x"], True),
    MipCalibration.PAPER: (style.MIP.colour, "solid", SHAPE["circle"], True),
    MipCalibration.TIGHT: (style.GREEN, "solid", SHAPE["triangle-up"], True),
}
_DP_STYLE = {
    DpCalibration.TIGHT: (style.DP.colour, "dash", SHAPE["square"], True),
    DpCalibration.PAPER: (style.DP.colour, "dot", SHAPE["square"], False),
}
_ORDER = {Method.RAW: 0, Method.DPSGD: 1, Method.CLIP_ONLY: 2, Method.MIP: 3}
# legend order: the honest comparison first
_DP_RANK = {DpCalibration.TIGHT: 0, DpCalibration.PAPER: 1}
_MIP_RANK = {MipCalibration.TIGHT: 0, MipCalibration.PAPER: 1, MipCalibration.AS_PRINTED: 2}

#: Tick labels of a log axis whatever its range: 10ⁿ at the powers of ten, nothing between.
_DECADES = log_ticks(1e-30, 1e30)["labelExpr"]


def curve_name(
    method: Method | str,
    *,
    M: int | None = None,
    mip: MipCalibration | str | None = None,
    dp: DpCalibration | str | None = None,
    certified: bool = True,
) -> str:
    """The legend name of a curve, e.g. "MIP M=4, smallest certified noise".

    ``certified=False`` (the printed Laplace radius for d > 1) adds "not certified".
    """
    m = Method(method)
    if m is Method.RAW:
        return "Raw (no privacy)"
    if m is Method.CLIP_ONLY:
        return "DP-SGD, no noise (clipping only)"
    if m is Method.DPSGD:
        return f"DP-SGD, {DpCalibration(str(dp)).value} calibration"
    cal = MipCalibration(str(mip))
    name = _MIP_NAMES[cal]
    if not certified:
        name = name[:-1] + ", not certified)" if name.endswith(")") else name + ", not certified"
    return f"MIP M={int(M or 0)}, {name}"


def curve_style(
    method: Method | str,
    *,
    mip: MipCalibration | str | None = None,
    dp: DpCalibration | str | None = None,
    index: int = 0,
) -> dict[str, Any]:
    """Colour, dash (a name of :data:`~mipcore.plots.vega.DASH`), Vega-Lite marker shape and
    whether the marker is filled, of a curve (``index``: the M's place when several M are
    drawn: MIP curves then differ by dash, their colour stays the calibration's)."""
    m = Method(method)
    if m is Method.RAW:
        colour, dash, shape, filled = style.EXACT.colour, "solid", SHAPE["diamond"], True
    elif m is Method.CLIP_ONLY:
        colour, dash, shape, filled = style.GREY, "longdash", SHAPE["cross"], True
    elif m is Method.DPSGD:
        colour, dash, shape, filled = _DP_STYLE[DpCalibration(str(dp))]
    else:
        colour, dash, shape, filled = _MIP_STYLE[MipCalibration(str(mip))]
        if index:
            dash = style.dashes(index)
    return {"colour": colour, "dash": dash, "shape": shape, "filled": filled}


def curve_frame(
    result: ExperimentResult,
    *,
    Ms: Sequence[int],
    clip_only: bool = False,
    eta_range: tuple[float | None, float | None] = (None, None),
    exclude_M: Sequence[int] = (),
) -> pd.DataFrame:
    """The summary rows a chart draws, with a ``curve`` column of legend names.

    Raw, every DP-SGD calibration of the run, the clipping-only run if ``clip_only``, and
    MIP for every calibration of the run and each M in ``Ms`` except ``exclude_M`` (the
    paper's first panel leaves out M = 2); η in ``[lo, hi]`` (None: open end).
    """
    s = result.summary
    method = s["method"]
    Mcol = s["M"]
    shown_M = [M for M in Ms if M not in set(exclude_M)]
    keep = np.array(method.isin([Method.RAW.value, Method.DPSGD.value]), dtype=bool)
    if clip_only:
        keep = keep | np.array(method == Method.CLIP_ONLY.value, dtype=bool)
    mip = (method == Method.MIP.value) & Mcol.isin(shown_M).fillna(False)
    keep = keep | np.array(mip, dtype=bool)
    lo, hi = eta_range
    eta = s["eta"].to_numpy(dtype=float)
    if lo is not None:
        keep = keep & (eta >= lo - 1e-12)
    if hi is not None:
        keep = keep & (eta <= hi + 1e-12)
    out = s[keep].reset_index(drop=True)
    # the printed Laplace radius is not certified for d > 1
    certified: dict[tuple[MipCalibration, int | None], bool] = {
        (x.calibration, x.M): x.is_certified for x in result.plan.mip
    }
    names = []
    for rec in out.assign(curve="").to_dict("records"):
        k = _key(rec)
        ok = certified.get((k.mip, k.M), True) if k.mip is not None else True
        names.append(curve_name(k.method, M=k.M, mip=k.mip, dp=k.dp, certified=ok))
    return out.assign(curve=names)[
        ["curve", "method", "M", "mip_calibration", "dp_calibration", "eta", "mean", "sem", "runs"]
    ]


def band_clipped(frame: pd.DataFrame) -> bool:
    """True when some ±SEM band reaches zero or below (floored on a log axis)."""
    if frame.empty:
        return False
    lower = frame["mean"].to_numpy(dtype=float) - frame["sem"].to_numpy(dtype=float)
    return bool(np.any(lower <= 0))


@dataclass(frozen=True)
class _Key:
    curve: str
    method: Method
    M: int | None
    mip: MipCalibration | None
    dp: DpCalibration | None

    @property
    def order(self) -> tuple[int, int, int, int]:
        dp = _DP_RANK[self.dp] if self.dp else 0
        mip = _MIP_RANK[self.mip] if self.mip else 0
        return (_ORDER[self.method], dp, mip, self.M or 0)


def _key(record: Mapping[Any, Any]) -> _Key:
    M, mip, dp = record["M"], record["mip_calibration"], record["dp_calibration"]
    return _Key(
        str(record["curve"]),
        Method(record["method"]),
        None if pd.isna(M) else int(M),
        MipCalibration(mip) if isinstance(mip, str) else None,
        DpCalibration(dp) if isinstance(dp, str) else None,
    )


def error_datasets(frame: pd.DataFrame, *, log_y: bool = True) -> dict[str, pd.DataFrame]:
    """The tables :func:`error_vega` draws from ``frame`` (:func:`curve_frame`): ``lines``
    (every row: curve, eta, mean, sem, runs), ``markers`` (about nine rows of each curve) and
    ``bands`` (curve, eta, lower = mean − SEM, upper = mean + SEM, for every curve but Raw
    with some SEM > 0; on a log axis lower is at least :data:`LOG_BAND_FLOOR` × mean and rows
    that are not positive are left out)."""
    lines = frame[["curve", "eta", "mean", "sem", "runs"]].copy()
    lines["sem"] = np.nan_to_num(lines["sem"].to_numpy(dtype=float), nan=0.0)
    lines["runs"] = lines["runs"].astype(int)
    finite = np.isfinite(lines["eta"].to_numpy(float)) & np.isfinite(lines["mean"].to_numpy(float))
    if log_y:
        finite &= lines["mean"].to_numpy(float) > 0
    lines = lines[finite].sort_values(["curve", "eta"], kind="stable").reset_index(drop=True)
    picks, bands = [], []
    raw = set(frame.loc[frame["method"] == Method.RAW.value, "curve"])
    for curve, rows in lines.groupby("curve", sort=False):
        idx = rows.index.to_numpy()
        picks.append(idx[np.unique(np.round(np.linspace(0, idx.size - 1, _MARKERS)).astype(int))])
        mean, sem = rows["mean"].to_numpy(float), rows["sem"].to_numpy(float)
        if curve in raw or not np.any(sem > 0):
            continue
        lower = mean - sem
        if log_y:
            lower = np.maximum(lower, LOG_BAND_FLOOR * mean)
        bands.append(
            pd.DataFrame(
                {"curve": curve, "eta": rows["eta"].to_numpy(float), "lower": lower}
            ).assign(upper=mean + sem)
        )
    markers = lines.loc[np.concatenate(picks) if picks else []].reset_index(drop=True)
    band = (
        pd.concat(bands, ignore_index=True)
        if bands
        else pd.DataFrame({"curve": [], "eta": [], "lower": [], "upper": []})
    )
    return {"lines": lines, "markers": markers, "bands": band}


def error_vega(
    frame: pd.DataFrame,
    *,
    log_y: bool = True,
    title: str = "Relative error vs η",
    x_range: tuple[float, float] | None = None,
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Relative error against η: one line per curve of ``frame`` (:func:`curve_frame`), a
    ±SEM band around each private curve, and a dashed reference line at relative error 1;
    returns the chart and ``frame`` itself (the CSV).

    ``log_y``: logarithmic y-axis (bands whose lower edge is <= 0 are floored at
    :data:`LOG_BAND_FLOOR` × the mean). ``x_range``: the η-axis range (default: the data's).
    Every curve has its colour, dash and marker shape (:func:`curve_style`).
    """
    if frame.empty:
        raise ValueError("frame has no rows: there is nothing to draw")
    etas = frame["eta"].to_numpy(dtype=float)
    x_lo, x_hi = x_range if x_range is not None else (float(etas.min()), float(etas.max()))
    if not (np.isfinite(x_lo) and np.isfinite(x_hi) and x_lo <= x_hi):
        raise ValueError(f"x_range must be finite with lo <= hi, got {(x_lo, x_hi)!r}")
    # each curve's first row (by hand: pandas' drop_duplicates and to_dict cost a millisecond)
    first = np.sort(np.unique(frame["curve"].to_numpy(), return_index=True)[1])
    cols = ["curve", "method", "M", "mip_calibration", "dp_calibration"]
    rows = zip(*(frame[c].to_numpy()[first] for c in cols), strict=True)
    firsts = [dict(zip(cols, row, strict=True)) for row in rows]
    order = sorted((_key(rec) for rec in firsts), key=lambda k: k.order)
    mip_Ms = sorted({k.M for k in order if k.M is not None})
    looks = tuple(
        (
            k.curve,
            *curve_style(
                k.method, mip=k.mip, dp=k.dp, index=mip_Ms.index(k.M) if k.M else 0
            ).values(),
        )
        for k in order
    )
    pad = 0.01 * (x_hi - x_lo) if x_hi > x_lo else 0.005
    # One legend, the markers' (colour, shape, fill): legends resolved apart, so that neither
    # the bands' faint fill nor a layer without a legend changes it.
    apart = {"legend": dict.fromkeys(("color", "fill", "shape", "strokeDash"), "independent")}
    data = error_datasets(frame, log_y=log_y)
    look = (looks, (x_lo - pad, x_hi + pad), log_y)
    return chart(title, data, _error_layers, *look, height=340, resolve=apart), frame


def _error_layers(
    looks: tuple[tuple[str, str, str, str, bool], ...], domain: tuple[float, float], log_y: bool
) -> list[Any]:
    """The error chart's bands, threshold rule, lines and markers (``looks``: each curve's
    name, colour, dash, shape and whether its marker is filled)."""
    legend = alt.Legend(title=None, columns=1, symbolSize=160, symbolStrokeWidth=2.5)

    def by_curve(channel: Any, values: list[Any], shown: bool = False) -> Any:
        return by(
            channel, "curve", dict(zip(names, values, strict=True)), legend if shown else None
        )

    names = [name for name, *_ in looks]
    colours = [colour for _, colour, *_ in looks]
    x = quantity(alt.X, "eta", "target η (best attacker's accuracy ≤ 50 % + η)", domain=domain)
    y_axis: dict[str, Any] = {"grid": True}
    if log_y:  # decades only when the data span four or more (then no grid between)
        y_axis |= {"labelExpr": _DECADES, "tickCount": 4}
    y = alt.Y(
        "mean",
        type="quantitative",
        title="relative error ‖A − Σ‖ / ‖Σ‖",
        scale=alt.Scale(type="log") if log_y else alt.Scale(zero=False),
        axis=alt.Axis(**y_axis),
    )
    tooltip = [
        alt.Tooltip("curve", type="nominal", title="curve"),
        alt.Tooltip("eta", type="quantitative", title="η", format=".4~g"),
        alt.Tooltip("mean", type="quantitative", title="relative error", format=".4~g"),
        alt.Tooltip("sem", type="quantitative", title="± SEM", format=".2~g"),
        alt.Tooltip("runs", type="quantitative", title="runs"),
    ]
    return [
        band("bands", "lower", "upper", 0.14, clip=True).encode(
            x=x, color=by_curve(alt.Color, colours), detail=alt.Detail("curve", type="nominal")
        ),
        rule(  # the paper's threshold
            1.0,
            "error = 1",
            colour=style.GREY,
            dash="dash",
            width=1.5,
            align="right",
            baseline="bottom",
            dx=-4,
            dy=-3,
            fontSize=13,
            color=style.GREY,
        ),
        dataset("lines")
        .mark_line(clip=True, strokeWidth=2.5)
        .encode(
            x=x,
            y=y,
            color=by_curve(alt.Color, colours),
            strokeDash=by_curve(alt.StrokeDash, [DASH[d] for _, _, d, _, _ in looks]),
            tooltip=tooltip,
        ),
        dataset("markers")
        .mark_point(size=60, opacity=1, strokeWidth=2, clip=True)
        .encode(
            x=x,
            y=y,
            color=by_curve(alt.Color, colours, shown=True),
            shape=by_curve(alt.Shape, [s for *_, s, _ in looks], shown=True),
            fill=by_curve(alt.Fill, [c if f else "white" for _, c, _, _, f in looks], shown=True),
            tooltip=tooltip,
        ),
    ]
