"""Privacy profiles in attacker terms: the minimum of Theorem 4 over (ε, δ) points.

A mechanism that is (ε_i, δ_i)-DP for every listed pair (replace-one). ``_profile_route_eta``
is the ε-grid search through which :func:`~mipcore.guarantees.attacker_bound` turns the
profile of a μ-GDP, ρ-zCDP or Rényi-DP guarantee (a function δ(ε)) into η. "Module
docstring" in the docstrings below means the package's, :mod:`mipcore.guarantees`.

References
----------
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4 and Lemma 12).
- Kairouz, Oh, Viswanath. *The Composition Theorem for Differential Privacy*. ICML 2015,
  arXiv:1311.0776 (the (ε, δ) hypothesis-testing region, Theorem 2.1).
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from .._validate import check_range, scalar_or_array
from ..bounds import eta_from_epsilon, tpr_bound_dp
from ._common import FloatOrArray, _as_profile
from .gdp import delta_from_gdp  # noqa: F401 (eta_from_profile's Examples use it)

# ε grid for profile routes: 0 (the total variation), then geometric up to 60 (Theorem 4 is
# within 1e-26 of 1/2 beyond that). Each grid point is a valid (ε, δ(ε)) pair, so the minimum
# over the grid is a valid bound whatever the grid; a local refinement around the best point
# makes it accurate.
_EPS_GRID = np.concatenate(([0.0], np.geomspace(1e-6, 60.0, 600)))


def eta_from_profile(epsilons: ArrayLike, deltas: ArrayLike) -> float:
    r"""Tightest η over a privacy profile: the minimum of Theorem 4 over its points.

    The mechanism is (ε_i, δ_i)-DP for every listed i (replace-one), so each point alone
    certifies ``eta_from_epsilon(ε_i, δ_i)``; the minimum is never looser than any single
    point. If the profile is *tight* and includes ε = 0, δ(0) is the total variation and the
    ε = 0 point gives exactly ``TV/2``, the true η (module docstring): no other point can
    beat it, since each gives at least the largest TV its (ε, δ) allows.

    Parameters
    ----------
    epsilons : 1-d array, ``0 <= epsilon <= inf``.
    deltas : 1-d array (same length, or a scalar), ``0 <= delta <= 1``.

    Returns
    -------
    eta : float in [0, 1/2].

    Raises
    ------
    ValueError
        If an entry is out of range, the lengths differ, or the profile is empty.

    References
    ----------
    Izzo et al., TMLR 2024, arXiv:2211.06582, Theorem 4.

    Examples
    --------
    >>> eps = [0.0, 0.5, 1.0, 2.0]
    >>> round(eta_from_profile(eps, delta_from_gdp(eps, 1.0)), 6)  # = eta_from_gdp(1.0)
    0.191462
    >>> round(eta_from_profile(eps[1:], delta_from_gdp(eps[1:], 1.0)), 6)  # without ε = 0
    0.212473
    """
    e, d = _as_profile(epsilons, deltas)
    return float(np.min(eta_from_epsilon(e, d)))


def tpr_bound_profile(fpr: ArrayLike, epsilons: ArrayLike, deltas: ArrayLike) -> FloatOrArray:
    """Largest TPR at ``fpr`` over the intersection of the profile points' (ε, δ) regions.

    The minimum over points of :func:`mipcore.bounds.tpr_bound_dp` (Kairouz, Oh & Viswanath,
    Theorem 2.1). With a fine ε grid of a tight profile this is the trade-off curve itself
    (Dong, Roth & Su, Proposition 2.12).

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    epsilons, deltas : the profile, as in :func:`eta_from_profile`.

    Returns
    -------
    tpr : float or ndarray shaped like ``fpr``.

    Raises
    ------
    ValueError
        As :func:`eta_from_profile`, or if ``fpr`` is outside [0, 1].
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    e, d = _as_profile(epsilons, deltas)
    tpr = np.min(np.asarray(tpr_bound_dp(f[..., None], e, d)), axis=-1)
    return scalar_or_array(tpr, fpr)


def _profile_route_eta(delta_fn: Callable[[np.ndarray], np.ndarray], group: bool) -> float:
    """min over ε of Theorem 4 at (ε, δ(ε)); with ``group`` each point is mapped to replace-one.

    Grid ``_EPS_GRID``, then a bounded scalar refinement between the best point's neighbours.
    Every evaluated ε is a valid point, so the result is a valid bound.
    """

    def etas(eps: np.ndarray) -> np.ndarray:
        d = np.clip(delta_fn(eps), 0.0, 1.0)
        if group:  # (ε, δ) add/remove ⇒ (2ε, (1 + e^ε)δ) replace-one
            with np.errstate(over="ignore"):
                d = np.minimum(1.0, (1.0 + np.exp(eps)) * d)
            eps = 2.0 * eps
        return np.asarray(eta_from_epsilon(eps, d), dtype=float)

    grid = _EPS_GRID
    vals = etas(grid)
    i = int(np.argmin(vals))
    best = float(vals[i])
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    if hi > lo:
        res = optimize.minimize_scalar(
            lambda x: float(etas(np.array([x]))[0]),
            bounds=(lo, hi),
            method="bounded",
            options={"xatol": 1e-9 + 1e-6 * lo},
        )
        best = min(best, float(res.fun))
    return best
