r"""A guarantee's ε at a given δ: the (ε, δ)-DP pair it certifies, for every kind.

An audit proves a lower bound on ε at its own δ; to compare, the claim must be read at that
δ too. :func:`epsilon_at` does so for every guarantee of :mod:`mipcore.guarantees`, for the
neighbouring relation it is stated for (a DP-SGD run: either relation, its accountant
computes both). Each value is an upper bound on the guarantee's true ε at δ -- exact for
(ε, δ) pairs, profiles and μ-GDP, the tightest known conversion for ρ-zCDP and Rényi DP, the
PLD accountant's pessimistic value for DP-SGD -- so a claim read through it is never made
stronger than it is.

References
----------
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383
  (Corollary 2.13: the (ε, δ(ε)) profile of μ-GDP).
- Canonne, Kamath, Steinke. *The Discrete Gaussian for Differential Privacy*. NeurIPS 2020,
  arXiv:2004.00010 (Proposition 12: Rényi DP to (ε, δ); the formula of
  ``dp_accounting.rdp.compute_epsilon``).
- Bun, Steinke. *Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds*. TCC 2016, arXiv:1605.02065 (ρ-zCDP is Rényi DP with ε(α) = ρα at every α > 1).
- Koskela, Jälkö, Honkela. AISTATS 2020, arXiv:1906.03049; Doroshenko, Ghazi, Kamath, Kumar,
  Manurangsi. PETS 2022, arXiv:2207.04380 (the PLD accountant of ``dp_accounting``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import optimize

from .._validate import check_range
from ._common import (
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Profile,
    Rdp,
    Relation,
    Zcdp,
    _as_relation,
    sampling_only_tv,
)
from .dpsgd import PLD_MIN_NOISE, _pld_accountant, _pld_interval
from .gdp import epsilon_from_gdp
from .renyi import _rdp_epsilon_at

__all__ = ["epsilon_at"]

# Orders α − 1 on which the zCDP conversion is minimised before refining (log-spaced).
_ZCDP_ORDERS = 1.0 + np.geomspace(1e-8, 1e8, 1601)


def epsilon_at(
    guarantee: Guarantee, delta: float, *, relation: Relation | str | None = None
) -> float:
    r"""The smallest ε such that ``guarantee`` certifies (ε, δ)-DP at this ``delta``.

    For the neighbouring relation the guarantee is stated for (``relation=None``); a
    :class:`DpSgd` run, which states none, is read for replace-one unless
    ``relation=Relation.ADD_OR_REMOVE_ONE`` asks for add/remove (its accountant computes
    either directly). ``math.inf`` when the guarantee certifies no finite ε at this δ.

    * :class:`EpsDelta` ``(ε₀, δ₀)``: ε₀ if ``delta >= δ₀``, else inf (publishing the data
      with probability δ₀ is (0, δ₀)-DP and (ε, δ)-DP for no finite ε when δ < δ₀).
    * :class:`Profile`: the smallest ε_i among the points with ``δ_i <= delta``.
    * :class:`Gdp` μ: exact, :func:`~mipcore.guarantees.epsilon_from_gdp` (inf at δ = 0
      unless μ = 0).
    * :class:`Rdp`: Canonne, Kamath and Steinke's conversion,
      ``min_α ε(α) + log(1 − 1/α) − log(δα)/(α − 1)`` over the given orders (the formula of
      ``dp_accounting.rdp.compute_epsilon``); inf at δ = 0.
    * :class:`Zcdp` ρ: the same with ε(α) = ρα, minimised over every order α > 1 (1 601
      log-spaced α − 1 from 10⁻⁸ to 10⁸, then Brent's method between the best one's
      neighbours; every order gives a valid ε, so the minimum found is one); 0 when ρ = 0,
      inf at δ = 0 otherwise.
    * :class:`DpSgd`: ``dp_accounting``'s PLD accountant for the relation asked
      (pessimistic discretisation, as :func:`~mipcore.guarantees.eta_from_dpsgd`;
      ``get_epsilon(δ)``), at most 0 when δ reaches the sampling-only total variation
      ``1 − (1 − q)^T``; at sampling rate 1 exactly μ-GDP with μ = 2√T/σ (replace-one) or
      √T/σ (add/remove); below noise multiplier 0.1 (:data:`PLD_MIN_NOISE`) the
      sampling-only pair alone (0 or inf).

    Parameters
    ----------
    guarantee : a guarantee of :mod:`mipcore.guarantees` (validated on construction).
    delta : float, ``0 <= delta < 1``.
    relation : :class:`Relation`, its value, or None (the guarantee's own). Only a
        :class:`DpSgd` run may be read for a relation other than its own: a replace-one
        guarantee implies no add/remove one in general (a mechanism that publishes the
        data's size is replace-one 0-DP), and an add/remove one is read for MIP's
        replace-one game by :func:`~mipcore.guarantees.attacker_bound`.

    Returns
    -------
    float
        ε ``>= 0``, or ``math.inf``.

    Raises
    ------
    ValueError
        If ``guarantee`` is not a guarantee, ``delta`` is out of range, or ``relation`` is
        unknown or not the guarantee's own (except for a DP-SGD run).

    Examples
    --------
    >>> epsilon_at(EpsDelta(1.0, 1e-6), 1e-5), epsilon_at(EpsDelta(1.0, 1e-5), 1e-6)
    (1.0, inf)
    >>> round(epsilon_at(Gdp(1.0), 1e-5), 4)  # Dong, Roth and Su's profile, inverted
    4.3772
    >>> run = DpSgd(3.0, 0.05, 300)  # the digits example's DP-SGD run
    >>> round(epsilon_at(run, 1e-5), 2), round(epsilon_at(run, 1e-5, relation="add_or_remove_one"), 2)
    (2.34, 1.16)
    """
    d = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    if isinstance(guarantee, DpSgd):
        rel = Relation.REPLACE_ONE if relation is None else _as_relation(relation)
        return _dpsgd_epsilon(guarantee, d, rel)
    if not isinstance(guarantee, EpsDelta | Profile | Gdp | Zcdp | Rdp):
        raise ValueError(
            f"guarantee={guarantee!r} is not one of EpsDelta, Profile, Gdp, Zcdp, Rdp, DpSgd"
        )
    if relation is not None and _as_relation(relation) is not guarantee.relation:
        raise ValueError(
            f"relation={_as_relation(relation).value!r} is not the relation this guarantee is "
            f"stated for ({guarantee.relation.value!r}); only a DpSgd run is read for either"
        )
    if isinstance(guarantee, EpsDelta):
        return guarantee.epsilon if d >= guarantee.delta else math.inf
    if isinstance(guarantee, Profile):
        eps = [e for e, dl in zip(guarantee.epsilons, guarantee.deltas, strict=True) if dl <= d]
        return min(eps) if eps else math.inf
    if isinstance(guarantee, Gdp):
        return _gdp_epsilon(guarantee.mu, d)
    if isinstance(guarantee, Zcdp):
        return _zcdp_epsilon(guarantee.rho, d)
    if d == 0.0:
        return math.inf if any(v > 0 for v in guarantee.values) else 0.0
    return _rdp_epsilon_at(d, np.array(guarantee.orders), np.array(guarantee.values))


def _gdp_epsilon(mu: float, delta: float) -> float:
    if mu == 0.0:
        return 0.0
    if delta == 0.0:
        return math.inf
    return float(epsilon_from_gdp(delta, mu))


def _zcdp_epsilon(rho: float, delta: float) -> float:
    """``min over α > 1 of ρα + log(1 − 1/α) − log(δα)/(α − 1)`` (Canonne, Kamath, Steinke)."""
    if rho == 0.0:
        return 0.0
    if delta == 0.0:
        return math.inf
    log_delta = math.log(delta)

    def eps(a: NDArray[np.float64]) -> NDArray[np.float64]:
        return rho * a + np.log1p(-1.0 / a) - (log_delta + np.log(a)) / (a - 1.0)

    grid = _ZCDP_ORDERS
    values = eps(grid)
    i = int(np.argmin(values))
    best = float(values[i])
    lo, hi = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, grid.size - 1)])
    res = optimize.minimize_scalar(
        lambda a: float(eps(np.array([a]))[0]),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-12 * hi},
    )
    if res.success and math.isfinite(float(res.fun)):
        best = min(best, float(res.fun))
    return max(0.0, best)


def _dpsgd_epsilon(g: DpSgd, delta: float, relation: Relation) -> float:
    s, q, t = g.noise_multiplier, g.sampling_rate, g.steps
    sensitivity = 2.0 if relation is Relation.REPLACE_ONE else 1.0
    if q == 1.0:  # every step sees the record: exactly μ-GDP
        return _gdp_epsilon(sensitivity * math.sqrt(t) / s, delta)
    sampled = 0.0 if delta >= sampling_only_tv(q, t) else math.inf
    if s < PLD_MIN_NOISE or delta == 0.0:
        return sampled
    acc = _pld_accountant(s, q, t, relation, _pld_interval(s, q))
    pld = float(acc.get_epsilon(delta))
    return min(max(pld, 0.0), sampled)
