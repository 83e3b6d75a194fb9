"""The one entry for every guarantee, :func:`attacker_bound`, and each kind's routes.

:func:`attacker_bound` hands a :class:`~mipcore.guarantees.DpSgd` to
:mod:`mipcore.guarantees.dpsgd` and builds the routes of the other kinds here, from the
families' functions: μ-GDP (:mod:`mipcore.guarantees.gdp`), ρ-zCDP and Rényi DP
(:mod:`mipcore.guarantees.renyi`), (ε, δ) and privacy profiles
(:mod:`mipcore.guarantees.profiles`). An add/remove guarantee is converted by group privacy
for two (:func:`~mipcore.guarantees.group_of_two` for each (ε, δ) point, ``Gdp.replace_mu``,
``Zcdp.replace_rho``, and ``_group_eta``: a trade-off bound g becomes g∘g). "Module docstring" in the
docstrings below means the package's, :mod:`mipcore.guarantees`.

References
----------
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
- Bun, Steinke. *Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds*. TCC 2016, arXiv:1605.02065.
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4 and Lemma 12).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..bounds import eta_from_epsilon
from ._common import (
    _ROC_FPR,
    FPR_LEVELS,
    REFERENCE_DELTA,
    AttackerBound,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Kind,
    Profile,
    Rdp,
    Relation,
    Route,
    RouteResult,
    Zcdp,
    _finish,
    group_of_two,
)
from .dpsgd import _dpsgd_bound
from .gdp import delta_from_gdp, epsilon_from_gdp, eta_from_gdp, tpr_bound_gdp
from .profiles import _profile_route_eta, eta_from_profile, tpr_bound_profile
from .renyi import (
    _rdp_epsilon_at,
    delta_from_rdp,
    delta_from_zcdp,
    eta_from_rdp,
    eta_from_zcdp,
    tpr_bound_rdp,
    tpr_bound_zcdp,
)


def _group_eta(g: Callable[[np.ndarray], np.ndarray]) -> float:
    """η for replace-one from an add/remove TPR bound g: (1/2) sup_a [g(g(a)) − a].

    Dong, Roth & Su, Theorem 2.14: f-DP for add/remove gives 1 − (1 − f)∘(1 − f) for a
    replacement, i.e. TPR ≤ g(g(FPR)). g is concave and nondecreasing (the upper boundary of
    a convex region), so h(a) = g(g(a)) − a is concave: a 257-point grid locates the maximum,
    golden-section search narrows it to a bracket [a, b] of width 1e-10, and concavity bounds
    h on the bracket by the chord slopes at its best point, so the result is an upper bound
    (up to float rounding in g).
    """

    def h(x: np.ndarray) -> np.ndarray:
        return np.asarray(g(np.asarray(g(x), dtype=float)), dtype=float) - x

    grid = np.linspace(0.0, 1.0, 257)
    hv = h(grid)
    i = int(np.argmax(hv))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    invphi = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - invphi * (b - a), a + invphi * (b - a)
    hc, hd = h(np.array([c, d]))
    while b - a > 1e-10:
        if hc >= hd:
            b, d, hd = d, c, hc
            c = b - invphi * (b - a)
            hc = float(h(np.array([c]))[0])
        else:
            a, c, hc = c, d, hd
            d = a + invphi * (b - a)
            hd = float(h(np.array([d]))[0])
    x2, h2 = (c, hc) if hc >= hd else (d, hd)
    ha, hb = h(np.array([a, b]))
    up = 0.0
    if x2 > a:
        up = max(up, (h2 - ha) / (x2 - a) * (b - x2))
    if b > x2:
        up = max(up, (h2 - hb) / (b - x2) * (x2 - a))
    sup = max(float(np.max(hv)), float(h2) + max(up, 0.0), float(ha), float(hb))
    return float(np.clip(0.5 * sup, 0.0, 0.5))


def attacker_bound(guarantee: Guarantee) -> AttackerBound:
    """Any guarantee in attacker terms: η, best accuracy, TPR at FPR, ROC, and every route.

    ``guarantee`` is one of :class:`EpsDelta`, :class:`Profile`, :class:`Gdp`, :class:`Zcdp`,
    :class:`Rdp`, :class:`DpSgd`. Routes evaluated (all valid upper bounds on the same η
    unless ``valid=False``; ``eta`` is their minimum, ``route`` the one attaining it):

    * EpsDelta: Theorem 4. Profile: minimum of Theorem 4 over the points.
    * Gdp: closed form; the analytic profile on an ε grid; the single point at δ = 1e-5;
      via zCDP (μ²/2).
    * Zcdp: Rényi trade-off; Bun-Steinke and Canonne-Kamath-Steinke profiles; the
      Bun-Steinke ε at δ = 1e-5.
    * Rdp: Rényi trade-off; Mironov and Canonne-Kamath-Steinke profiles; the improved ε at
      δ = 1e-5.
    * DpSgd: see :func:`dpsgd_attacker_bound`.

    An add/remove guarantee (``relation=Relation.ADD_OR_REMOVE_ONE``) is first converted to
    replace-one by group privacy for two (module docstring): GDP μ → 2μ, zCDP ρ → 4ρ, profile
    points (ε, δ) → (2ε, (1 + e^ε)δ), and the trade-off bound g → g∘g
    (:attr:`Route.GROUP_TRADEOFF`); :attr:`Route.ADD_REMOVE_AS_REPLACE` (``valid=False``) shows
    the number one would get by ignoring the relation.

    The ROC (``roc_fpr``/``roc_tpr``) and ``tpr_at_fpr`` use the tightest valid trade-off
    bound available for the kind.

    Parameters
    ----------
    guarantee : a guarantee dataclass (validated on construction).

    Returns
    -------
    AttackerBound

    Raises
    ------
    ValueError
        If ``guarantee`` is not a guarantee dataclass.

    Examples
    --------
    >>> b = attacker_bound(Gdp(1.0))
    >>> round(b.eta, 6), b.route.value
    (0.191462, 'gdp_closed_form')
    >>> round(attacker_bound(Gdp(1.0, Relation.ADD_OR_REMOVE_ONE)).eta, 6)  # 2μ-GDP
    0.341345
    >>> b.looseness > 1.5  # the single (ε, 1e-5) point overstates η
    True
    """
    if isinstance(guarantee, DpSgd):
        return _dpsgd_bound(guarantee)
    if isinstance(guarantee, Gdp):
        return _gdp_bound(guarantee)
    if isinstance(guarantee, Zcdp):
        return _zcdp_bound(guarantee)
    if isinstance(guarantee, Rdp):
        return _rdp_bound(guarantee)
    if isinstance(guarantee, EpsDelta | Profile):
        return _profile_bound(guarantee)
    raise ValueError(
        f"guarantee={guarantee!r} is not one of EpsDelta, Profile, Gdp, Zcdp, Rdp, DpSgd"
    )


def _gdp_bound(g: Gdp) -> AttackerBound:
    add_remove = g.relation is Relation.ADD_OR_REMOVE_ONE
    mu = g.replace_mu
    eps5 = float(epsilon_from_gdp(REFERENCE_DELTA, mu))
    routes = [
        RouteResult(Route.GDP_CLOSED_FORM, float(eta_from_gdp(mu))),
        RouteResult(
            Route.GDP_PROFILE,
            _profile_route_eta(lambda e: np.asarray(delta_from_gdp(e, mu)), group=False),
        ),
        RouteResult(
            Route.SINGLE_POINT,
            float(eta_from_epsilon(eps5, REFERENCE_DELTA)),
            epsilon=eps5,
            delta=REFERENCE_DELTA,
        ),
        RouteResult(Route.VIA_ZCDP, float(eta_from_zcdp(mu * mu / 2.0))),
    ]
    if add_remove:
        routes.append(
            RouteResult(Route.ADD_REMOVE_AS_REPLACE, float(eta_from_gdp(g.mu)), valid=False)
        )
    roc = np.asarray(tpr_bound_gdp(_ROC_FPR, mu))
    at = np.asarray(tpr_bound_gdp(np.array(FPR_LEVELS), mu))
    return _finish(Kind.GDP, g.relation, routes, roc, at)


def _zcdp_bound(g: Zcdp) -> AttackerBound:
    add_remove = g.relation is Relation.ADD_OR_REMOVE_ONE
    rho = g.replace_rho
    eps5 = rho + 2.0 * math.sqrt(rho * math.log(1.0 / REFERENCE_DELTA))
    routes = [
        RouteResult(Route.RENYI_TRADEOFF, float(eta_from_zcdp(rho))),
        RouteResult(
            Route.BUN_STEINKE,
            _profile_route_eta(
                lambda e: np.asarray(delta_from_zcdp(e, rho, "bun_steinke")), group=False
            ),
        ),
        RouteResult(
            Route.IMPROVED_CONVERSION,
            _profile_route_eta(
                lambda e: np.asarray(delta_from_zcdp(e, rho, "improved")), group=False
            ),
        ),
        RouteResult(
            Route.SINGLE_POINT,
            float(eta_from_epsilon(eps5, REFERENCE_DELTA)),
            epsilon=eps5,
            delta=REFERENCE_DELTA,
        ),
    ]
    if add_remove:
        routes.append(
            RouteResult(Route.ADD_REMOVE_AS_REPLACE, float(eta_from_zcdp(g.rho)), valid=False)
        )
    roc = np.asarray(tpr_bound_zcdp(_ROC_FPR, rho))
    at = np.asarray(tpr_bound_zcdp(np.array(FPR_LEVELS), rho))
    return _finish(Kind.ZCDP, g.relation, routes, roc, at)


def _rdp_bound(g: Rdp) -> AttackerBound:
    o, v = np.array(g.orders), np.array(g.values)
    add_remove = g.relation is Relation.ADD_OR_REMOVE_ONE
    eps5 = _rdp_epsilon_at(REFERENCE_DELTA, o, v)

    def mironov(e: np.ndarray) -> np.ndarray:
        return np.asarray(delta_from_rdp(e, o, v, "mironov"))

    def improved(e: np.ndarray) -> np.ndarray:
        return np.asarray(delta_from_rdp(e, o, v, "improved"))

    routes = [
        RouteResult(Route.MIRONOV, _profile_route_eta(mironov, group=add_remove)),
        RouteResult(Route.IMPROVED_CONVERSION, _profile_route_eta(improved, group=add_remove)),
    ]
    if add_remove:

        def g_ar(x: np.ndarray) -> np.ndarray:
            return np.asarray(tpr_bound_rdp(x, o, v), dtype=float)

        eps_g, d_g = group_of_two(eps5, REFERENCE_DELTA)
        routes += [
            RouteResult(Route.GROUP_TRADEOFF, _group_eta(g_ar)),
            RouteResult(
                Route.SINGLE_POINT, float(eta_from_epsilon(eps_g, d_g)), epsilon=eps_g, delta=d_g
            ),
            RouteResult(Route.ADD_REMOVE_AS_REPLACE, eta_from_rdp(o, v), valid=False),
        ]
        roc = g_ar(g_ar(_ROC_FPR))
        at = g_ar(g_ar(np.array(FPR_LEVELS)))
    else:
        routes += [
            RouteResult(Route.RENYI_TRADEOFF, eta_from_rdp(o, v)),
            RouteResult(
                Route.SINGLE_POINT,
                float(eta_from_epsilon(eps5, REFERENCE_DELTA)),
                epsilon=eps5,
                delta=REFERENCE_DELTA,
            ),
        ]
        roc = np.asarray(tpr_bound_rdp(_ROC_FPR, o, v))
        at = np.asarray(tpr_bound_rdp(np.array(FPR_LEVELS), o, v))
    return _finish(Kind.RDP, g.relation, routes, roc, at)


def _profile_bound(g: EpsDelta | Profile) -> AttackerBound:
    if isinstance(g, EpsDelta):
        kind, route = Kind.EPS_DELTA, Route.THEOREM4
        e, d = np.array([g.epsilon]), np.array([g.delta])
    else:
        kind, route = Kind.PROFILE, Route.PROFILE
        e, d = np.array(g.epsilons), np.array(g.deltas)
    levels = np.array(FPR_LEVELS)
    if g.relation is Relation.REPLACE_ONE:
        routes = [RouteResult(route, eta_from_profile(e, d))]
        roc = np.asarray(tpr_bound_profile(_ROC_FPR, e, d))
        at = np.asarray(tpr_bound_profile(levels, e, d))
        return _finish(kind, g.relation, routes, roc, at)
    e2, d2 = group_of_two(e, d)

    def g_ar(x: np.ndarray) -> np.ndarray:
        return np.asarray(tpr_bound_profile(x, e, d), dtype=float)

    single = kind is Kind.EPS_DELTA
    routes = [
        RouteResult(
            route,
            eta_from_profile(e2, d2),
            epsilon=float(e2[0]) if single else None,
            delta=float(d2[0]) if single else None,
        ),
        RouteResult(Route.GROUP_TRADEOFF, _group_eta(g_ar)),
        RouteResult(Route.ADD_REMOVE_AS_REPLACE, eta_from_profile(e, d), valid=False),
    ]
    roc = np.minimum(g_ar(g_ar(_ROC_FPR)), np.asarray(tpr_bound_profile(_ROC_FPR, e2, d2)))
    at = np.minimum(g_ar(g_ar(levels)), np.asarray(tpr_bound_profile(levels, e2, d2)))
    return _finish(kind, g.relation, routes, roc, at)
