"""The risk calculator's chart, a ROC-region chart (:mod:`mipcore.plots.roc`): the best
attacker's ROC under each conversion route of one guarantee.

:func:`routes_roc_vega` draws :func:`mipcore.guarantees.route_curves` (it computes none of the
mathematics): one curve per route on log–log axes (the low-FPR regime
that matters for membership inference, as in Carlini et al., *Membership Inference Attacks
From First Principles*, IEEE S&P 2022, arXiv:2112.03570), the tightest route emphasised
(thick, solid, near-black), the other valid routes each by its own colour *and* dash
(Okabe–Ito, see :mod:`mipcore.plots.style`; no two curves share a dash), a route that is
not valid for MIP only when asked for (purple dash-dot with crosses, labelled so), random
guessing as a grey dotted diagonal, and the TPR bounds at FPR 0.1 %, 1 % and 10 % as black
diamonds.

The specification depends on which routes there are (the kind of guarantee, its relation,
whether the invalid route is shown), not on the guarantee's numbers: the axes are fixed
(FPR and TPR from 10⁻⁶ to 1; every route allows at least TPR = FPR), and the guarantee's name
is for the page's caption. :data:`ROUTE_LABELS` names each :class:`mipcore.guarantees.Route`
for legends and tables. Nothing here caches: the page caches through ``appkit.cached``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mipcore.guarantees import CurveSource, Route, RouteCurve, RouteCurves

from . import roc, style
from .vega import VegaLiteChart

__all__ = [
    "INVALID_SUFFIX",
    "ROUTE_LABELS",
    "route_label",
    "routes_roc_table",
    "routes_roc_vega",
]

#: A short name per route (legend entries and table rows).
ROUTE_LABELS: dict[Route, str] = {
    Route.THEOREM4: "Theorem 4 on the (ε, δ) pair",
    Route.PROFILE: "Theorem 4 on each profile point",
    Route.GDP_CLOSED_FORM: "GDP closed form Φ(μ/2) − 1/2",
    Route.GDP_PROFILE: "GDP's (ε, δ) profile",
    Route.SINGLE_POINT: "one (ε, δ) point at δ = 10⁻⁵",
    Route.VIA_ZCDP: "via zCDP, ρ = μ²/2",
    Route.BUN_STEINKE: "zCDP → (ε, δ), Bun–Steinke",
    Route.MIRONOV: "RDP → (ε, δ), Mironov",
    Route.IMPROVED_CONVERSION: "→ (ε, δ), Canonne–Kamath–Steinke",
    Route.RENYI_TRADEOFF: "Rényi bounds → trade-off (tight)",
    Route.GROUP_TRADEOFF: "add/remove trade-off, applied twice",
    Route.PLD: "PLD accountant, replace-one",
    Route.PLD_ADD_REMOVE_GROUP: "PLD add/remove, doubled TV",
    Route.RDP_ACCOUNTANT_GROUP: "RDP accountant add/remove, doubled TV",
    Route.SAMPLING_ONLY: "sampling alone: 1 − (1 − q)ᵀ",
    Route.GDP_EXACT: "exact GDP, μ = 2√T/σ (q = 1)",
    Route.ADD_REMOVE_AS_REPLACE: "add/remove read as replace-one",
}
INVALID_SUFFIX = " — not valid for MIP"
TIGHTEST_SUFFIX = " — tightest"
ETA_ONLY_SUFFIX = " (η only)"
TITLE = "The best attacker's ROC, by conversion route"
GUESS_NAME = "random guessing (TPR = FPR)"
LEVELS_NAME = "TPR bound at FPR 0.1 %, 1 %, 10 %"
TABLE_COLUMNS = ["route", "route_label", "valid", "tightest", "curve", "fpr", "tpr_bound"]
# Valid routes other than the tightest (which is near-black); purple marks the invalid route.
_PALETTE = (style.BLUE, style.VERMILLION, style.GREEN, style.ORANGE, style.SKY)
# Their dashes: none solid (the tightest), dotted (guessing) or dash-dot (the invalid route),
# so that every curve differs from every other by its dash as well as its colour.
_DASHES = (
    roc.dash("dash"),
    roc.dash("longdash"),
    roc.dash("longdashdot"),
    (4, 3),
    (12, 4, 2, 4, 2, 4),
    (2, 3, 8, 3),
)
_FPR_MIN = 1e-6
_TPR_TOP = 1.05  # the TPR axis ends a little above 1, so that TPR = 1 is not on its edge
_DIAMOND = "M0,-0.6L0.6,0L0,0.6L-0.6,0Z"
_X = "M-0.8,-0.8L0.8,0.8M-0.8,0.8L0.8,-0.8"  # the invalid route's markers, outlines only
_TOLERANCE = 0.004  # decades: how far a thinned curve may pass from a dropped grid point


def route_label(route: Route) -> str:
    """The display name of ``route``."""
    return ROUTE_LABELS.get(route, route.value)


def _drawn_routes(curves: RouteCurves, show_invalid: bool) -> list[RouteCurve]:
    """The routes drawn, in drawing order: the invalid one (if shown), the other valid
    routes, the tightest last (on top of the curves it coincides with)."""
    rows = sorted(curves.curves, key=lambda c: (c.tightest, c.result.valid))
    return [c for c in rows if c.result.valid or show_invalid]


def routes_roc_table(curves: RouteCurves, *, show_invalid: bool = False) -> pd.DataFrame:
    """Every drawn route's ROC bound for one guarantee: one row per point with FPR >= 10⁻⁶
    of the bound's grid, routes in drawing order (see :func:`routes_roc_vega`). Columns:
    ``route``, ``route_label``, ``valid``, ``tightest``, ``curve`` (tradeoff / eta_line /
    combined), ``fpr``, ``tpr_bound``."""
    if not isinstance(curves, RouteCurves):
        raise ValueError(
            f"curves must be RouteCurves (mipcore.guarantees.route_curves), got {curves!r}"
        )
    fpr = np.asarray(curves.bound.roc_fpr, dtype=float)
    keep = fpr >= _FPR_MIN
    frames = [
        pd.DataFrame(
            {
                "route": c.result.route.value,
                "route_label": route_label(c.result.route),
                "valid": c.result.valid,
                "tightest": c.tightest,
                "curve": c.source.value,
                "fpr": fpr[keep],
                "tpr_bound": np.asarray(c.tpr, dtype=float)[keep],
            }
        )
        for c in _drawn_routes(curves, show_invalid)
    ]
    if not frames:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    return pd.concat(frames, ignore_index=True)


def thin_log(x: np.ndarray, y: np.ndarray, tolerance: float = _TOLERANCE) -> np.ndarray:
    """A mask of the points of the curve (x, y), all positive, that draw it on log–log axes
    within ``tolerance`` decades: its two ends, every point where the drawn polyline bends,
    and of the points in between every other one, unless dropping it moves the line by more
    than ``tolerance`` at a grid point."""
    lx, ly = np.log10(np.asarray(x, dtype=float)), np.log10(np.asarray(y, dtype=float))
    n = lx.size
    keep = np.zeros(n, dtype=bool)
    if n == 0:
        return keep
    keep[[0, -1]] = True
    if n <= 2:
        return keep
    idx = list(range(n))
    # Pass 1 drops points on straight stretches, later passes every other remaining point,
    # each only where the line through its neighbours stays within the tolerance.
    for _ in range(8):
        out = list(idx)
        j = 1
        changed = False
        while j < len(out) - 1:
            a, c = out[j - 1], out[j + 1]
            between = slice(a, c + 1)
            line = np.interp(lx[between], [lx[a], lx[c]], [ly[a], ly[c]])
            if lx[c] > lx[a] and np.all(np.abs(line - ly[between]) <= tolerance):
                del out[j]
                changed = True
            j += 1
        idx = out
        if not changed:
            break
    keep[idx] = True
    return keep


def routes_roc_vega(
    curves: RouteCurves, *, show_invalid: bool = False
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Every route's ROC bound for one guarantee, on log–log axes, and the table it draws.

    Parameters
    ----------
    curves : :func:`mipcore.guarantees.route_curves` (every route's TPR bound on the bound's
        ``roc_fpr``).
    show_invalid : also draw the route that is not valid for MIP (the add/remove number read
        as replace-one), labelled so.

    Returns
    -------
    (chart, table)
        ``table`` is :func:`routes_roc_table` (the CSV: the full grid); the curves draw its
        rows thinned by :func:`thin_log`, which redraws them within 0.004 decades.
    """
    table = routes_roc_table(curves, show_invalid=show_invalid)
    routes = _drawn_routes(curves, show_invalid)
    entries: dict[str, roc.Entry] = {}
    others = 0
    for row in routes:
        name = route_label(row.result.route)
        if row.source is CurveSource.ETA_LINE:
            name += ETA_ONLY_SUFFIX
        if row.tightest:
            name += TIGHTEST_SUFFIX
            entries[name] = roc.Entry(style.INK, roc.dash("solid"), 5.0)
        elif not row.result.valid:
            name += INVALID_SUFFIX
            entries[name] = roc.styled(style.PRINTED, marker=False)
        else:
            entries[name] = roc.Entry(
                _PALETTE[others % len(_PALETTE)], _DASHES[others % len(_DASHES)]
            )
            others += 1
    names = list(entries)
    tightest = [n for n in names if n.endswith(TIGHTEST_SUFFIX)]

    drawn = table.assign(
        name=table["route"].map(
            dict(zip([r.result.route.value for r in routes], names, strict=True))
        )
    )
    drawn = drawn[np.isfinite(drawn["fpr"]) & np.isfinite(drawn["tpr_bound"])]
    drawn = drawn[(drawn["fpr"] > 0) & (drawn["tpr_bound"] > 0)]
    parts, marks = [], []
    for name, rows in drawn.groupby("name", sort=False):
        x, y = rows["fpr"].to_numpy(), rows["tpr_bound"].to_numpy()
        part = pd.DataFrame({"fpr": x, "tpr": y, "name": name})[thin_log(x, y)]
        parts.append(part)
        if name.endswith(INVALID_SUFFIX) and x.size:
            picks = roc.spread(x.size)
            marks.append(pd.DataFrame({"fpr": x[picks], "tpr": y[picks], "name": name}))
    empty = pd.DataFrame({"fpr": pd.Series(dtype=float), "tpr": pd.Series(dtype=float), "name": ""})
    lines = pd.concat(parts, ignore_index=True) if parts else empty
    on_top = lines["name"].isin(tightest)
    guess_x = np.array([_FPR_MIN, 1.0])
    guess = pd.DataFrame({"fpr": guess_x, "tpr": guess_x, "name": GUESS_NAME})
    levels = pd.DataFrame(
        {
            "fpr": np.asarray(curves.bound.fpr_levels, dtype=float),
            "tpr": np.asarray(curves.bound.tpr_at_fpr, dtype=float),
            "name": LEVELS_NAME,
        }
    )
    levels = levels[np.isfinite(levels["tpr"]) & (levels["tpr"] > 0)].reset_index(drop=True)
    datasets = {
        "guess": guess,
        "routes": lines[~on_top].reset_index(drop=True),
        "tightest": lines[on_top].reset_index(drop=True),
        "invalid_markers": pd.concat(marks, ignore_index=True) if marks else empty,
        "levels": levels,
    }
    # The legend: the tightest first (the routes were drawn in the reverse order), then
    # guessing and the levels' diamond (the style's EXACT diamond, drawn inside 0.6 of the
    # unit square to stay marker-sized).
    legend = {name: entries[name] for name in reversed(names)} | {
        GUESS_NAME: roc.CHANCE,
        LEVELS_NAME: roc.Entry(style.EXACT.colour, roc.dash("solid"), 0.0, _DIAMOND),
    }
    chart = roc.chart(
        TITLE,
        datasets,
        plane=roc.Plane(
            log=True,
            fpr_lo=_FPR_MIN,
            tpr_lo=_FPR_MIN,
            tpr_top=_TPR_TOP,
            tpr_axis="largest true-positive rate",
        ),
        entries=legend,
        layers=[
            roc.Curves("guess"),
            roc.Curves("routes"),
            roc.Points("invalid_markers", 120, shape=_X),
            roc.Curves("tightest"),
            roc.Points("levels", round(220 / 0.6**2), outlined=True, tooltip="rates"),
        ],
        height=340,
        # One size for every legend symbol, large enough that each line's dash shows in its
        # 24 px stroke.
        legend={"symbolSize": 600, "symbolOpacity": 1},
        name_title="route",
        tpr_title="TPR ≤",
    )
    return chart, table
