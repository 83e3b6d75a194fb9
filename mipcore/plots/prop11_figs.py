"""Figures for Proposition 11: the sensitivity explodes while the spread stays about 1.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Proposition 11 (Section 4) and Appendix D. The builders take the results of
:mod:`mipcore.prop11` (the growth table and the binned distribution of 𝒜(D)) and return a
:class:`plotly.graph_objects.Figure`; they compute none of the mathematics, so a figure shows
exactly the data handed to it (which the page offers as CSV).

Style (:mod:`mipcore.plots.style`): Δ, what DP's noise is proportional to, in DP's style (blue,
dashed); σ, what MIP's noise is proportional to, in MIP's (vermillion, solid); the exact ratio
Δ/σ thick black; the rate the paper promises in its "printed" style (dash-dot); legends below.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import style
from .formatting import fmt_num

__all__ = ["distribution_figure", "growth_figure"]

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# group -> (line colour, fill colour or None, marker symbol): the two groups' bins overlap in
# value, so one is filled and the other drawn as bar tops over it.
_GROUPS = {
    "without A": (style.BLUE, "rgba(0,114,178,0.30)", "circle"),
    "with A": (style.ORANGE, None, "diamond"),
}


def _with_subtitle(layout: dict[str, Any], subtitle: str | None) -> dict[str, Any]:
    """A second title line in Plotly's own subtitle (ink colour, 14 px)."""
    if subtitle:
        layout["title"]["subtitle"] = dict(text=subtitle, font=dict(size=14, color=style.INK))
        layout["margin"] = {**layout["margin"], "t": 84}
    return layout


def _decades(lo: float, hi: float) -> int:
    """A power-of-ten step for a log axis from lo to hi: at most about 8 labels."""
    span = math.log10(hi) - math.log10(lo)
    return max(1, math.ceil(span / 8))


def _vline(x: float) -> dict[str, Any]:
    """A dotted grey vertical line over the whole plot height."""
    return dict(
        type="line",
        x0=x,
        x1=x,
        xref="x",
        y0=0,
        y1=1,
        yref="y domain",
        line=dict(color=style.GREY, dash="dot", width=2),
    )


def growth_figure(
    table: pd.DataFrame, *, n_chosen: int, M: int = 2, height: int = 480
) -> go.Figure:
    """Δ/σ_M against n on a log axis, beside the rate 2^(n/3) of Proposition 11.

    Parameters
    ----------
    table : the DataFrame of :func:`mipcore.prop11.growth_table` (columns ``n``,
        ``sensitivity``, ``sigma``, ``ratio``, ``rate``).
    n_chosen : the n to mark (a vertical line, and markers when it is in the table).
    M : the moment order of ``sigma`` (for the labels).
    """
    n = table["n"].to_numpy()
    ratio = table["ratio"].to_numpy(dtype=float)
    rate = table["rate"].to_numpy(dtype=float)
    sens = table["sensitivity"].to_numpy(dtype=float)
    sigma = table["sigma"].to_numpy(dtype=float)
    sig = "σ" + str(M).translate(_SUB)
    curves = (
        (ratio, f"Δ / {sig}", f"Δ / {sig}", style.EXACT, 3.5),
        (rate, "∛(2ⁿ)", "∛(2ⁿ), the rate Proposition 11 promises", style.PRINTED, 2.5),
        (sens, "Δ", "Δ (DP's noise ∝ Δ)", style.DP, 2.5),
        (sigma, sig, f"{sig} (MIP's noise ∝ {sig})", style.MIP, 2.5),
    )
    data: list[dict[str, Any]] = [
        dict(
            type="scatter",
            x=n,
            y=y,
            mode="lines",
            name=name,
            line=style.line(st, width=width),
            hovertemplate=f"n = %{{x}}<br>{short} = %{{y:.4g}}<extra></extra>",
        )
        for y, short, name, st, width in curves
    ]
    hit = (n == n_chosen).nonzero()[0]
    if len(hit):
        i = int(hit[0])
        data.append(
            dict(
                type="scatter",
                x=[n_chosen, n_chosen, n_chosen],
                y=[float(ratio[i]), float(sens[i]), float(sigma[i])],
                mode="markers",
                name=f"your n = {n_chosen}",
                marker=dict(
                    size=12,
                    color=[style.EXACT.colour, style.DP.colour, style.MIP.colour],
                    symbol=[style.EXACT["symbol"], style.DP["symbol"], style.MIP["symbol"]],
                    line=dict(color="white", width=2),
                ),
                customdata=[f"Δ / {sig}", "Δ", sig],
                hovertemplate="n = %{x}<br>%{customdata} = %{y:.4g}<extra></extra>",
            )
        )
    values = np.concatenate([ratio, rate, sens, sigma])
    values = values[np.isfinite(values) & (values > 0)]
    lo, hi = float(values.min()), float(values.max())
    title = (
        "Δ explodes, σ₂ does not (log scale)"
        if M == 2
        else f"Δ, {sig} and Δ / {sig} against n (log scale)"
    )
    return go.Figure(
        data=data,
        layout=_with_subtitle(
            style.layout(
                title=title,
                x="n (dataset size, even)",
                height=height,
                hovermode="closest",
                xaxis=dict(range=[float(n.min()) - 2, float(n.max()) + 2]),
                yaxis=style.log_axis(
                    "value (log scale)",
                    range=[math.log10(lo) - 0.3, math.log10(hi) + 0.3],
                    dtick=_decades(lo, hi),
                ),
                shapes=[_vline(n_chosen)],
            ),
            None if M == 2 else f"{sig} grows too when M > 2",
        ),
    )


def distribution_figure(
    rows: pd.DataFrame | Sequence[Mapping[str, Any]], *, n: int, height: int = 500
) -> go.Figure:
    """The distribution of 𝒜(D) over the halves: value (log) against probability (log).

    Parameters
    ----------
    rows : the rows of :func:`mipcore.prop11.value_histogram` (a DataFrame or a list of
        dicts): ``group``, ``top_bit``, ``value_min``, ``value_max``, ``count`` (exact int),
        ``probability``.
    n : the dataset size (for the title).

    Each bin of the groups "without A" / "with A" spans its certified value range with
    height = its probability, with a marker on top carrying the hover text (exact count,
    range). The single special half D* is a spike with a star at ``(p^(-1/2), p)``.
    """
    if isinstance(rows, pd.DataFrame):
        cols = ("group", "top_bit", "value_min", "value_max", "count", "probability")
        recs = list(zip(*(rows[c].tolist() for c in cols), strict=True))
    else:
        recs = [
            (r["group"], r["top_bit"], r["value_min"], r["value_max"], r["count"], r["probability"])
            for r in rows
        ]
    p_min = float(min(r[5] for r in recs))
    y_floor = 10.0 ** (math.floor(math.log10(p_min)) - 1)
    total = sum(int(r[4]) for r in recs)
    data: list[dict[str, Any]] = []
    for group, (line_colour, fill_colour, symbol) in _GROUPS.items():
        g = [r for r in recs if r[0] == group]
        if not g:
            continue
        xs: list[float | None] = []
        ys: list[float | None] = []
        for _grp, _t, lo, hi, _c, pr in g:
            if fill_colour:  # a box from the floor up to the bin's probability
                xs += [lo, lo, hi, hi, lo, None]
                ys += [y_floor, pr, pr, y_floor, y_floor, None]
            else:  # only the top edge: the other group's boxes stay visible underneath
                xs += [lo, hi, None]
                ys += [pr, pr, None]
        kind = "one box per bin" if fill_colour else "one bar top per bin"
        data.append(
            dict(
                type="scatter",
                x=xs,
                y=ys,
                mode="lines",
                fill="toself" if fill_colour else None,
                fillcolor=fill_colour,
                line=dict(color=line_colour, width=1.5 if fill_colour else 3.5),
                hoverinfo="skip",
                legendgroup=group,
                name=f"halves {group} ({kind})",
            )
        )
        data.append(
            dict(
                type="scatter",
                x=[math.sqrt(r[2] * r[3]) for r in g],
                y=np.array([r[5] for r in g], dtype=float),
                mode="markers",
                legendgroup=group,
                showlegend=False,
                marker=dict(
                    size=8, color=line_colour, symbol=symbol, line=dict(color="white", width=1)
                ),
                customdata=[
                    [f"{int(c):,}".replace(",", " "), fmt_num(lo), fmt_num(hi), int(t)]
                    for _grp, t, lo, hi, c, _p in g
                ],
                name=group,
                hovertemplate=(
                    f"<b>{group}</b>, top bit 2^%{{customdata[3]}}<br>"
                    "𝒜(D) from %{customdata[1]} to %{customdata[2]}<br>"
                    "halves in this bin: %{customdata[0]}<br>"
                    "probability: %{y:.4g}<extra></extra>"
                ),
            )
        )
    annotations: list[dict[str, Any]] = []
    special = [r for r in recs if r[0] == "special D*"]
    if special:
        s = special[0]
        v, pr = float(s[2]), float(s[5])
        data.append(
            dict(
                type="scatter",
                x=[v, v],
                y=[y_floor, pr],
                mode="lines",
                line=dict(color=style.VERMILLION, width=6),
                hoverinfo="skip",
                showlegend=False,
            )
        )
        data.append(
            dict(
                type="scatter",
                x=[v],
                y=[pr],
                mode="markers",
                name="the special half D*",
                marker=dict(
                    size=18,
                    color=style.VERMILLION,
                    symbol="star",
                    line=dict(color=style.INK, width=1),
                ),
                customdata=[[f"{total:,}".replace(",", " "), fmt_num(v, 6)]],
                hovertemplate=(
                    "<b>special half D*</b><br>𝒜(D*) = 1/√p = %{customdata[1]}<br>"
                    "1 half of %{customdata[0]}<br>probability p = %{y:.4g}<extra></extra>"
                ),
            )
        )
        annotations.append(
            dict(
                x=math.log10(v),
                y=math.log10(pr),
                text="D*: one half, 𝒜 = 1/√p",
                showarrow=True,
                arrowhead=2,
                ax=-40,
                ay=-40,
                font=dict(size=14, color=style.INK),
            )
        )
    annotations.append(
        dict(
            text="𝒜 = 1 ",
            showarrow=False,
            x=0.0,
            xref="x",
            xanchor="right",
            y=1,
            yref="y domain",
            yanchor="top",
            font=dict(size=14, color=style.INK),
        )
    )
    x_lo = float(min(r[2] for r in recs))
    x_hi = float(max(r[3] for r in recs))
    span = math.log10(x_hi) - math.log10(x_lo)  # decades shown: keep D*'s star off the edge
    return go.Figure(
        data=data,
        layout=_with_subtitle(
            style.layout(
                title=f"Where the outputs 𝒜(D) fall (n = {n})",
                height=height,
                hovermode="closest",
                xaxis=style.log_axis(
                    "output 𝒜(D) = 1 / Σ x (log scale)",
                    range=[math.log10(x_lo) - 0.5, math.log10(x_hi) + 0.05 * span + 0.5],
                    dtick=_decades(x_lo, x_hi),
                ),
                yaxis=style.log_axis(
                    "probability over D (log scale)",
                    range=[math.log10(y_floor), 0.05],
                    dtick=_decades(y_floor, 1.0),
                ),
                shapes=[_vline(1.0)],
                annotations=annotations,
            ),
            "both axes logarithmic",
        ),
    )
