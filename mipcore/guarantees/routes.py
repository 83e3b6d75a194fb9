"""Every conversion route of one guarantee as an ROC bound, side by side.

:func:`~mipcore.guarantees.attacker_bound` keeps each route's η (:class:`RouteResult`) and the
tightest ROC bound; :func:`route_curves` draws each route's own bound on the same FPR grid, so
a page can show how much a loose conversion overstates an attacker at low false-positive
rates. A route that uses one (ε, δ) point is that point's region (Kairouz, Oh, Viswanath);
a profile route the envelope of its points' regions on an ε grid; the Rényi and GDP routes
their trade-off bounds; an add/remove guarantee is read for replace-one by group privacy for
two (:func:`~mipcore.guarantees.group_of_two`, or a trade-off bound g applied twice); a route
that gives only η the line ``TPR ≤ min(1, FPR + 2η)`` (Theorem 8, corrected).

References
----------
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4, Theorem 8 corrected, Lemma 12's replace-one pairing).
- Kairouz, Oh, Viswanath. *The Composition Theorem for Differential Privacy*. ICML 2015,
  arXiv:1311.0776 (the (ε, δ) region, Theorem 2.1).
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
- Bun, Steinke. *Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds*. TCC 2016, arXiv:1605.02065.
- Mironov. *Rényi Differential Privacy*. CSF 2017, arXiv:1702.07476.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

from ..bounds import tpr_bound_dp
from ._common import (
    AttackerBound,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Profile,
    Rdp,
    Relation,
    Route,
    RouteResult,
    Zcdp,
    group_of_two,
)
from ._dispatch import attacker_bound
from .gdp import delta_from_gdp, tpr_bound_gdp
from .profiles import tpr_bound_profile
from .renyi import delta_from_rdp, delta_from_zcdp, tpr_bound_rdp, tpr_bound_zcdp

# ε grid on which the profile routes' ROC curves are drawn (each point a valid (ε, δ(ε))).
_CURVE_EPS = np.concatenate(([0.0], np.geomspace(1e-4, 60.0, 400)))


class CurveSource(StrEnum):
    """What a route's ROC curve is."""

    TRADEOFF = "tradeoff"  # the route's own trade-off bound
    ETA_LINE = "eta_line"  # the route gives only η: TPR <= min(1, FPR + 2η) (Theorem 8 corr.)
    COMBINED = "combined"  # DP-SGD's PLD route: PLD envelope ∧ sampling-only ∧ (q = 1) exact GDP


@dataclass(frozen=True)
class RouteCurve:
    """One route's ROC bound: its ``result`` (η, validity, its single (ε, δ) point if any),
    ``tightest`` (the valid route that gave the reported η), ``source`` (what the curve is),
    ``tpr`` on the bound's ``roc_fpr`` (clipped to [FPR, 1]) and ``at_levels``, that curve at
    the bound's ``fpr_levels`` (which are grid points)."""

    result: RouteResult
    tightest: bool
    source: CurveSource
    at_levels: tuple[float, ...]
    tpr: NDArray[np.float64] = field(repr=False, compare=False)


@dataclass(frozen=True)
class RouteCurves:
    """A guarantee, its :func:`~mipcore.guarantees.attacker_bound` and one
    :class:`RouteCurve` per route of the bound, in its order."""

    guarantee: Guarantee
    bound: AttackerBound
    curves: tuple[RouteCurve, ...]


def route_curves(
    guarantee: Guarantee, *, progress: Callable[[float, str], None] | None = None
) -> RouteCurves:
    """Convert ``guarantee`` by every route and draw each route's ROC bound.

    Parameters
    ----------
    guarantee : a guarantee of :mod:`mipcore.guarantees` (validated on construction).
    progress : optional ``progress(fraction, message)`` callback (a page's job runner).

    Returns
    -------
    RouteCurves
        Every curve lies in [FPR, 1], is nondecreasing and never implies a larger η than its
        route (``max(TPR − FPR) ≤ 2η``).

    Raises
    ------
    ValueError
        If ``guarantee`` is not a guarantee (from :func:`~mipcore.guarantees.attacker_bound`).

    Examples
    --------
    >>> c = route_curves(Zcdp(0.5))
    >>> c.bound.route.value, [x.tightest for x in c.curves].count(True)
    ('renyi_tradeoff', 1)
    """
    if progress is not None:
        progress(0.05, "converting the guarantee by every route")
    b = attacker_bound(guarantee)
    if progress is not None:
        progress(0.75, "drawing each route's ROC bound")
    fpr = np.asarray(b.roc_fpr, dtype=float)
    at = [int(np.flatnonzero(fpr == f)[0]) for f in b.fpr_levels]
    curves = []
    for r in b.routes:
        tpr, source = _route_curve(guarantee, r, fpr, b)
        tpr = np.clip(np.maximum(tpr, fpr), 0.0, 1.0)
        tightest = r.valid and r.route is b.route
        curves.append(RouteCurve(r, tightest, source, tuple(float(tpr[k]) for k in at), tpr))
    if progress is not None:
        progress(1.0, "done")
    return RouteCurves(guarantee, b, tuple(curves))


def _profile_curve(
    fpr: NDArray[np.float64], deltas: NDArray[np.float64], group: bool
) -> NDArray[np.float64]:
    eps = _CURVE_EPS
    d = np.clip(deltas, 0.0, 1.0)
    if group:  # add/remove (ε, δ) ⇒ replace-one (2ε, (1 + e^ε)δ)
        eps, d = group_of_two(eps, d)
    return np.asarray(tpr_bound_profile(fpr, eps, d), dtype=float)


def _route_curve(
    g: Guarantee, r: RouteResult, fpr: NDArray[np.float64], bound: AttackerBound
) -> tuple[NDArray[np.float64], CurveSource]:
    """The ROC bound of route ``r`` of guarantee ``g`` on ``fpr`` (see :class:`CurveSource`)."""
    ar = getattr(g, "relation", Relation.REPLACE_ONE) is Relation.ADD_OR_REMOVE_ONE
    route = r.route
    if r.epsilon is not None and r.delta is not None:  # a single (ε, δ) point
        return np.asarray(tpr_bound_dp(fpr, r.epsilon, r.delta), dtype=float), CurveSource.TRADEOFF
    if isinstance(g, EpsDelta | Profile):
        e = np.atleast_1d(np.asarray(g.epsilon if isinstance(g, EpsDelta) else g.epsilons, float))
        d = np.atleast_1d(np.asarray(g.delta if isinstance(g, EpsDelta) else g.deltas, float))

        def g_ar(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.asarray(tpr_bound_profile(x, e, d), dtype=float)

        if route is Route.GROUP_TRADEOFF:
            return g_ar(g_ar(fpr)), CurveSource.TRADEOFF
        if route in (Route.THEOREM4, Route.PROFILE) and ar:  # profile points mapped one by one
            e2, d2 = group_of_two(e, d)
            return np.asarray(tpr_bound_profile(fpr, e2, d2), float), CurveSource.TRADEOFF
        return g_ar(fpr), CurveSource.TRADEOFF  # replace-one, or the invalid reading
    if isinstance(g, Gdp):
        mu = g.replace_mu
        if route is Route.GDP_CLOSED_FORM:
            return np.asarray(tpr_bound_gdp(fpr, mu), float), CurveSource.TRADEOFF
        if route is Route.GDP_PROFILE:
            deltas = np.asarray(delta_from_gdp(_CURVE_EPS, mu), float)
            return _profile_curve(fpr, deltas, group=False), CurveSource.TRADEOFF
        if route is Route.VIA_ZCDP:
            return np.asarray(tpr_bound_zcdp(fpr, mu * mu / 2.0), float), CurveSource.TRADEOFF
        if route is Route.ADD_REMOVE_AS_REPLACE:
            return np.asarray(tpr_bound_gdp(fpr, g.mu), float), CurveSource.TRADEOFF
    if isinstance(g, Zcdp):
        rho = g.replace_rho
        if route is Route.RENYI_TRADEOFF:
            return np.asarray(tpr_bound_zcdp(fpr, rho), float), CurveSource.TRADEOFF
        if route is Route.BUN_STEINKE:
            deltas = np.asarray(delta_from_zcdp(_CURVE_EPS, rho, "bun_steinke"), float)
            return _profile_curve(fpr, deltas, group=False), CurveSource.TRADEOFF
        if route is Route.IMPROVED_CONVERSION:
            deltas = np.asarray(delta_from_zcdp(_CURVE_EPS, rho, "improved"), float)
            return _profile_curve(fpr, deltas, group=False), CurveSource.TRADEOFF
        if route is Route.ADD_REMOVE_AS_REPLACE:
            return np.asarray(tpr_bound_zcdp(fpr, g.rho), float), CurveSource.TRADEOFF
    if isinstance(g, Rdp):
        o, v = np.array(g.orders), np.array(g.values)
        if route is Route.MIRONOV:
            deltas = np.asarray(delta_from_rdp(_CURVE_EPS, o, v, "mironov"), float)
            return _profile_curve(fpr, deltas, group=ar), CurveSource.TRADEOFF
        if route is Route.IMPROVED_CONVERSION:
            deltas = np.asarray(delta_from_rdp(_CURVE_EPS, o, v, "improved"), float)
            return _profile_curve(fpr, deltas, group=ar), CurveSource.TRADEOFF
        if route is Route.GROUP_TRADEOFF:
            inner = np.asarray(tpr_bound_rdp(fpr, o, v), float)
            return np.asarray(tpr_bound_rdp(inner, o, v), float), CurveSource.TRADEOFF
        if route in (Route.RENYI_TRADEOFF, Route.ADD_REMOVE_AS_REPLACE):
            return np.asarray(tpr_bound_rdp(fpr, o, v), float), CurveSource.TRADEOFF
    if isinstance(g, DpSgd):
        if route is Route.PLD:
            return np.asarray(bound.roc_tpr, float).copy(), CurveSource.COMBINED
        if route is Route.GDP_EXACT:
            mu = 2.0 * math.sqrt(g.steps) / g.noise_multiplier
            return np.asarray(tpr_bound_gdp(fpr, mu), float), CurveSource.TRADEOFF
    # routes that give only η: sampling-only, the add/remove accountants with the triangle
    # inequality, and DP-SGD's invalid reading
    return np.minimum(1.0, fpr + 2.0 * r.eta), CurveSource.ETA_LINE
