"""Figures for Proposition 11: sensitivity explodes while the spread stays O(1).

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Proposition 11) and Appendix D.

The builders take the results of :mod:`mipcore.prop11` (the growth table and the
binned distribution of 𝒜(D)) and return a :class:`plotly.graph_objects.Figure`;
they compute nothing of the mathematics, so a figure shows exactly the data handed
to it (and a page can offer that same data as CSV).

:func:`naive_float_special_sum` is a deliberately *wrong* computation, kept for
teaching: it is what a float64 program gets for the special subset's sum.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = ["distribution_figure", "growth_figure", "naive_float_special_sum"]

_DELTA = "#1f77b4"  # sensitivity (what DP's noise scales with)
_SIGMA = "#d62728"  # spread (what MIP's noise scales with)
_RATIO = "#111111"
_GREY = "#8a8f98"
# group -> (line colour, fill colour or None, marker symbol): the two groups' bins overlap
# in value, so one is filled and the other drawn as outlines on top of it.
_GROUPS = {
    "without A": ("#4c78a8", "rgba(76,120,168,0.35)", "circle"),
    "with A": ("#f58518", None, "diamond"),
}
_SPECIAL = "#d62728"


def _g(x: float, digits: int = 4) -> str:
    """Short text for a hover label ('3.2e-07' style; never 'nan')."""
    x = float(x)
    if math.isnan(x):
        return "—"
    return f"{x:.{digits}g}"


def naive_float_special_sum(a_value: float, k: int) -> float:
    """``A + 2^0 + 2^1 + ... + 2^(k-2)`` summed left to right in float64 (teaching only).

    ``a_value`` is A rounded to float64 (:attr:`mipcore.prop11.Prop11Dataset.a_value`).
    The exact sum is ``sqrt(p)``; float64 keeps 53 significant bits of A (which is
    about ``-2^(k-1)``), so for n around 54 and above the result is 0 or even
    negative. :mod:`mipcore.prop11` never forms this sum in floating point.
    """
    s = float(a_value)
    for i in range(k - 1):
        s += 2.0**i
    return s


def growth_figure(
    table: pd.DataFrame, *, n_chosen: int, M: int = 2, height: int = 460
) -> go.Figure:
    """Δ/σ_M against n on a log axis, beside the rate 2^(n/3) of Proposition 11.

    Parameters
    ----------
    table : the DataFrame of :func:`mipcore.prop11.growth_table` (columns ``n``,
        ``sensitivity``, ``sigma``, ``ratio``, ``rate``).
    n_chosen : the n to mark (a vertical line and a marker on Δ/σ_M when it is in the table).
    M : the moment order of ``sigma`` (for the labels).

    The figure is built in one constructor call from plain dicts (traces, the vertical
    line as a layout shape): far cheaper than ``add_trace``/``add_vline``, same figure.
    """
    n = table["n"].to_numpy()
    ratio = table["ratio"].to_numpy()
    rate = table["rate"].to_numpy()
    sens = table["sensitivity"].to_numpy()
    sigma = table["sigma"].to_numpy()
    sig = "σ" if M == 2 else f"σ<sub>{M}</sub>"
    data = [
        dict(
            type="scatter",
            x=n,
            y=ratio,
            mode="lines",
            name=f"Δ / {sig}",
            line=dict(color=_RATIO, width=3),
            hovertemplate=f"n = %{{x}}<br>Δ / {sig} = %{{y:.4g}}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=n,
            y=rate,
            mode="lines",
            name="2<sup>n/3</sup> (the rate Proposition 11 promises)",
            line=dict(color=_GREY, width=2, dash="dash"),
            hovertemplate="n = %{x}<br>2^(n/3) = %{y:.4g}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=n,
            y=sens,
            mode="lines",
            name="Δ (sensitivity: DP's noise ∝ Δ)",
            line=dict(color=_DELTA, width=1.8, dash="dot"),
            hovertemplate="n = %{x}<br>Δ = %{y:.4g}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=n,
            y=sigma,
            mode="lines",
            name=f"{sig} (spread: MIP's noise ∝ {sig})",
            line=dict(color=_SIGMA, width=2.2),
            hovertemplate=f"n = %{{x}}<br>{sig} = %{{y:.4g}}<extra></extra>",
        ),
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
                    size=11,
                    color=[_RATIO, _DELTA, _SIGMA],
                    symbol="circle",
                    line=dict(color="white", width=2),
                ),
                customdata=[f"Δ / {sig}", "Δ", sig],
                hovertemplate="n = %{x}<br>%{customdata} = %{y:.4g}<extra></extra>",
            )
        )
    title = (
        f"Δ explodes, {sig} does not: Δ / {sig} against n (log scale)"
        if M == 2
        else f"Δ, {sig} and Δ / {sig} against n (log scale; {sig} grows for M > 2)"
    )
    layout = dict(
        title=dict(text=title),
        xaxis=dict(
            title=dict(text="n (dataset size, even)"),
            range=[float(n.min()) - 2, float(n.max()) + 2],
        ),
        yaxis=dict(title=dict(text="value (log scale)"), type="log", exponentformat="power"),
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0.0),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        hovermode="closest",
        shapes=[_vline(n_chosen)],
    )
    return go.Figure(data=data, layout=layout)


def _vline(x) -> dict:
    """A dotted grey vertical line over the whole plot height (what ``add_vline`` makes)."""
    return dict(
        type="line",
        x0=x,
        x1=x,
        xref="x",
        y0=0,
        y1=1,
        yref="y domain",
        line=dict(color=_GREY, dash="dot"),
    )


def distribution_figure(
    rows: pd.DataFrame | Sequence[Mapping], *, n: int, height: int = 480
) -> go.Figure:
    """The distribution of 𝒜(D) over the k-subsets: value (log) against probability (log).

    Parameters
    ----------
    rows : the rows of :func:`mipcore.prop11.value_histogram` (a DataFrame or a list
        of dicts): ``group``, ``top_bit``, ``value_min``, ``value_max``, ``count``
        (exact int), ``probability``.
    n : the dataset size (for the title).

    Each bin of the groups "without A" / "with A" is drawn as a box spanning its
    certified value range ``[value_min, value_max]`` with height = its probability,
    plus a marker at the top that carries the hover text (exact count, range). The
    single special subset D* is a red spike with a star at ``(p^(-1/2), p)``.

    Built from plain Python rows and dicts in one constructor call (no pandas
    filtering, no ``add_trace``/``add_vline``/``add_annotation``): same figure, far cheaper.
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
    data: list[dict] = []
    for group, (line_colour, fill_colour, symbol) in _GROUPS.items():
        g = [r for r in recs if r[0] == group]
        if not g:
            continue
        xs: list = []
        ys: list = []
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
                line=dict(color=line_colour, width=1 if fill_colour else 3),
                hoverinfo="skip",
                legendgroup=group,
                name=f"halves {group} ({kind})",
            )
        )
        mid = [math.sqrt(r[2] * r[3]) for r in g]
        custom = [
            [f"{int(c):,}".replace(",", " "), _g(lo), _g(hi), int(t)]
            for _grp, t, lo, hi, c, _p in g
        ]
        data.append(
            dict(
                type="scatter",
                x=mid,
                y=np.array([r[5] for r in g], dtype=float),
                mode="markers",
                legendgroup=group,
                showlegend=False,
                marker=dict(
                    size=7, color=line_colour, symbol=symbol, line=dict(color="white", width=1)
                ),
                customdata=custom,
                name=group,
                hovertemplate=(
                    f"<b>{group}</b>, top bit 2^%{{customdata[3]}}<br>"
                    "𝒜(D) from %{customdata[1]} to %{customdata[2]}<br>"
                    "halves in this bin: %{customdata[0]}<br>"
                    "probability: %{y:.4g}<extra></extra>"
                ),
            )
        )
    annotations = []
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
                line=dict(color=_SPECIAL, width=6),
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
                    size=16, color=_SPECIAL, symbol="star", line=dict(color="white", width=1)
                ),
                customdata=[[f"{total:,}".replace(",", " "), _g(v, 6)]],
                hovertemplate=(
                    "<b>special half D*</b><br>𝒜(D*) = p^(-1/2) = %{customdata[1]}<br>"
                    "1 half of %{customdata[0]}<br>probability p = %{y:.4g}<extra></extra>"
                ),
            )
        )
        annotations.append(
            dict(
                x=math.log10(v),
                y=math.log10(pr),
                text="D*: one half, 𝒜 = p<sup>−1/2</sup>",
                showarrow=True,
                arrowhead=2,
                ax=-40,
                ay=-40,
                font=dict(color=_SPECIAL),
            )
        )
    # the 𝒜 = 1 line and its label, as add_vline(annotation_position="top left") makes them
    annotations.append(
        dict(
            text="𝒜 = 1 ",
            showarrow=False,
            x=1.0,
            xref="x",
            xanchor="right",
            y=1,
            yref="y domain",
            yanchor="top",
        )
    )
    x_lo = float(min(r[2] for r in recs))
    x_hi = float(max(r[3] for r in recs))
    span = math.log10(x_hi) - math.log10(x_lo)  # decades shown: keep D*'s star off the edge
    layout = dict(
        title=dict(text=f"Where the outputs 𝒜(D) fall (n = {n}; both axes logarithmic)"),
        xaxis=dict(
            title=dict(text="output 𝒜(D) = 1 / Σ x (log scale)"),
            type="log",
            exponentformat="power",
            range=[math.log10(x_lo) - 0.5, math.log10(x_hi) + 0.05 * span + 0.5],
        ),
        yaxis=dict(
            title=dict(text="probability over D (log scale)"),
            type="log",
            exponentformat="power",
            range=[math.log10(y_floor), 0.05],
        ),
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0.0),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        hovermode="closest",
        shapes=[_vline(1.0)],
        annotations=annotations,
    )
    return go.Figure(data=data, layout=layout)
