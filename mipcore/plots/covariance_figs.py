"""Figure 2 of the paper (Section 5.2): relative error against η, MIP vs DP-SGD.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.2 (Figure 2). The results come from :func:`mipcore.lessons.figure2.run_experiment`;
:func:`error_chart` draws the chosen curves of its summary (mean over runs, ±1 SEM band) and
returns the rows it drew, so the page offers exactly those rows as CSV.

Legend names are built from the structured curve keys (method, M, calibration). The printed
Laplace radius is named "not certified" whenever its release holds more than one number
(:attr:`mipcore.lessons.figure2.MipNoise.is_certified`): no proof covers it there.

The figure is built in one ``go.Figure(data=[dict...], layout=dict(...))`` call from plain
dicts and lists: Plotly validates it once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..lessons.figure2 import DpCalibration, ExperimentResult, Method
from ..mechanism import MipCalibration
from . import style

__all__ = [
    "LOG_BAND_FLOOR",
    "band_clipped",
    "curve_frame",
    "curve_name",
    "curve_style",
    "error_chart",
]

#: On a log axis a band whose lower edge mean − SEM is <= 0 is drawn down to this fraction of
#: the mean instead (the page says so when it happens).
LOG_BAND_FLOOR = 0.1

_MIP_NAMES = {
    MipCalibration.AS_PRINTED: "as printed (Laplace radius)",
    MipCalibration.PAPER: "Theorem 9 density, paper's constant",
    MipCalibration.TIGHT: "smallest certified noise",
}
_MIP_STYLE = {
    MipCalibration.AS_PRINTED: (style.PRINTED.colour, "dashdot", "x"),
    MipCalibration.PAPER: (style.MIP.colour, "solid", "circle"),
    MipCalibration.TIGHT: (style.GREEN, "solid", "triangle-up"),
}
_DP_STYLE = {
    DpCalibration.TIGHT: (style.DP.colour, "dash", "square"),
    DpCalibration.PAPER: (style.DP.colour, "dot", "square-open"),
}
_ORDER = {Method.RAW: 0, Method.DPSGD: 1, Method.CLIP_ONLY: 2, Method.MIP: 3}
# legend order: the honest comparison first
_DP_RANK = {DpCalibration.TIGHT: 0, DpCalibration.PAPER: 1}
_MIP_RANK = {MipCalibration.TIGHT: 0, MipCalibration.PAPER: 1, MipCalibration.AS_PRINTED: 2}


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
) -> dict[str, str]:
    """Colour, dash and marker symbol of a curve (``index``: the M's place when several M
    are drawn: MIP curves then differ by dash, their colour stays the calibration's)."""
    m = Method(method)
    if m is Method.RAW:
        colour, dash, symbol = style.EXACT.colour, "solid", "diamond"
    elif m is Method.CLIP_ONLY:
        colour, dash, symbol = style.GREY, "longdash", "cross"
    elif m is Method.DPSGD:
        colour, dash, symbol = _DP_STYLE[DpCalibration(str(dp))]
    else:
        colour, dash, symbol = _MIP_STYLE[MipCalibration(str(mip))]
        if index:
            dash = style.dashes(index)
    return {"colour": colour, "dash": dash, "symbol": symbol}


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


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


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


def error_chart(
    frame: pd.DataFrame,
    *,
    log_y: bool = True,
    title: str = "Relative error vs η",
    x_range: tuple[float, float] | None = None,
    height: int = 500,
) -> go.Figure:
    """Relative error against η: one line per curve of ``frame`` (:func:`curve_frame`), a
    ±SEM band around each private curve, and a reference line at relative error 1.

    ``log_y``: logarithmic y-axis (bands whose lower edge is <= 0 are floored at
    :data:`LOG_BAND_FLOOR` × the mean). ``x_range``: the η-axis range (default: the data's).
    """
    data: list[dict] = []
    etas = frame["eta"].to_numpy(dtype=float) if len(frame) else np.array([0.0, 0.5])
    x_lo, x_hi = x_range if x_range is not None else (float(etas.min()), float(etas.max()))
    firsts = frame.drop_duplicates("curve").to_dict("records")
    order = sorted((_key(rec) for rec in firsts), key=lambda k: k.order)
    mip_Ms = sorted({k.M for k in order if k.M is not None})
    for r in order:
        rows = frame[frame["curve"] == r.curve].sort_values("eta")
        x = rows["eta"].to_numpy(dtype=float)
        y = rows["mean"].to_numpy(dtype=float)
        s = np.nan_to_num(rows["sem"].to_numpy(dtype=float), nan=0.0)
        runs = rows["runs"].to_numpy()
        st = curve_style(
            r.method, mip=r.mip, dp=r.dp, index=mip_Ms.index(r.M) if r.M is not None else 0
        )
        if r.method is not Method.RAW and np.any(s > 0):
            lower = y - s
            if log_y:
                lower = np.maximum(lower, LOG_BAND_FLOOR * y)
            data.append(
                dict(
                    type="scatter",
                    x=np.concatenate([x, x[::-1]]).tolist(),
                    y=np.concatenate([y + s, lower[::-1]]).tolist(),
                    fill="toself",
                    fillcolor=_rgba(st["colour"], 0.14),
                    line=dict(width=0),
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=r.curve,
                    name=f"{r.curve} ±SEM",
                )
            )
        data.append(
            dict(
                type="scatter",
                x=x.tolist(),
                y=y.tolist(),
                mode="lines+markers" if len(x) <= 40 else "lines",
                name=r.curve,
                legendgroup=r.curve,
                line=style.line(st, width=3 if r.method is Method.RAW else 2.5),
                marker=style.marker(st, size=7),
                customdata=[[float(a), int(b)] for a, b in zip(s, runs, strict=True)],
                hovertemplate=(
                    f"<b>{r.curve}</b><br>η = %{{x:.4~g}}<br>relative error = %{{y:.4~g}}"
                    " ± %{customdata[0]:.2~g} (SEM over %{customdata[1]} runs)<extra></extra>"
                ),
            )
        )
    # the threshold of the paper's claims ("relative error < 1"): a trace, not a shape (shapes
    # on a log axis need log10 coordinates)
    data.append(
        dict(
            type="scatter",
            x=[x_lo, x_hi],
            y=[1.0, 1.0],
            mode="lines+text",
            text=["", "error = 1"],
            textposition="top left",
            textfont=dict(size=13, color=style.GREY),
            name="relative error = 1",
            showlegend=False,
            line=dict(color=style.GREY, dash="dash", width=1.5),
            hoverinfo="skip",
        )
    )
    y_title = "relative error ‖A − Σ‖ / ‖Σ‖"
    pad = 0.01 * (x_hi - x_lo) if x_hi > x_lo else 0.005
    return go.Figure(
        data=data,
        layout=style.layout(
            title=title,
            x="target η (best attacker's accuracy ≤ 50 % + η)",
            y=y_title,
            height=height,
            hovermode="closest",
            xaxis=dict(range=[x_lo - pad, x_hi + pad]),
            yaxis=style.log_axis(y_title) if log_y else {},
        ),
    )
