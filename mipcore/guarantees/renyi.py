"""Rényi DP and ρ-zCDP in attacker terms: Rényi bounds straight to a trade-off bound, and to (ε, δ).

The Rényi machinery (``_renyi_eta``, ``_renyi_tpr``: bisection over binary pairs) turns
Rényi-DP values at a few orders into η and a TPR bound without an (ε, δ) detour. ρ-zCDP is
Rényi DP with ε(α) = ρα at every order, so its functions run the same machinery over a grid
of orders. The (ε, δ) profiles (Mironov; Canonne, Kamath & Steinke; Bun & Steinke) are the
conversions :func:`~mipcore.guarantees.attacker_bound` sets beside it. Values are stated for
the replace-one relation (:class:`~mipcore.guarantees.Rdp` and
:class:`~mipcore.guarantees.Zcdp` carry a ``relation``; see :mod:`mipcore.guarantees`).

References
----------
- Mironov. *Rényi Differential Privacy*. CSF 2017, arXiv:1702.07476.
- Bun, Steinke. *Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds*. TCC 2016, arXiv:1605.02065.
- Canonne, Kamath, Steinke. *The Discrete Gaussian for Differential Privacy*. NeurIPS 2020,
  arXiv:2004.00010.
- Balle, Barthe, Gaboardi, Hsu, Sato. *Hypothesis Testing Interpretations and Rényi
  Differential Privacy*. AISTATS 2020, arXiv:1905.09982.
- Zhu, Dong, Wang. *Optimal Accounting of Differential Privacy via Characteristic
  Function*. AISTATS 2022, arXiv:2106.08567.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from .._validate import check_range, scalar_or_array
from ._common import FloatOrArray, _as_rdp
from .gdp import eta_from_gdp  # noqa: F401 (eta_from_zcdp's Examples use it)

# Rényi orders for zCDP (α = 1 is the Kullback-Leibler limit, implied by zCDP).
_ZCDP_ORDERS = np.concatenate(([1.0], 1.0 + np.geomspace(1e-3, 1e4, 113)))
# Orders over which the Canonne-Kamath-Steinke conversion of zCDP is minimised.
_CKS_ORDERS = 1.0 + np.geomspace(1e-4, 1e6, 1001)
_BISECT_STEPS = 90
_LOGIT_CAP = 800.0  # |logit| beyond which probabilities are 0 or 1 in float64
# Relative margin added to Rényi-route results: the divergences are evaluated to ~1e-12
# relative, so the bisection boundary may sit that far on the wrong side.
_ROUNDING_MARGIN = 1e-9


def _log_expit(u: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -u)  # log σ(u)


def _log_expit_neg(u: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, u)  # log(1 − σ(u))


def _renyi_excess(
    alpha: np.ndarray,
    r: np.ndarray,
    lt: np.ndarray,
    l1t: np.ndarray,
    la: np.ndarray,
    l1a: np.ndarray,
) -> np.ndarray:
    """> 0 iff D_α(Bern(t) ‖ Bern(a)) > r (α = 1: Kullback-Leibler). Inputs are logs.

    For α > 1 compares ``log Σ`` with ``(α − 1) r``, Σ = t·(t/a)^{α−1} + (1−t)·((1−t)/(1−a))^{α−1}.
    Where the exponents are small, ``log Σ = log1p(t·expm1(c ℓ₁) + (1−t)·expm1(c ℓ₂))``
    (c = α − 1) keeps relative precision -- the naive log-sum-exp loses all of it when
    (α − 1)·D is ~1e-11 -- elsewhere log-sum-exp avoids overflow. r = inf never binds.
    """
    kl = alpha == 1.0
    c = np.where(kl, 1.0, alpha - 1.0)
    with np.errstate(invalid="ignore", over="ignore"):
        l1, l2 = lt - la, l1t - l1a
        t, u = np.exp(lt), np.exp(l1t)
        big = np.logaddexp(lt + c * l1, l1t + c * l2)
        small = np.log1p(
            np.where(t > 0, t * np.expm1(np.minimum(c * l1, 1.0)), 0.0)
            + np.where(u > 0, u * np.expm1(np.minimum(c * l2, 1.0)), 0.0)
        )
        use_small = np.maximum(np.where(t > 0, c * l1, -np.inf), np.where(u > 0, c * l2, -np.inf))
        s = np.where(use_small < 1.0, small, big) - c * r
        klv = np.where(t > 0, t * l1, 0.0) + np.where(u > 0, u * l2, 0.0) - r
    out = np.where(kl, klv, s)
    return np.where(np.isinf(r), -np.inf, out)


_PINSKER_BELOW = 1e-8


def _renyi_eta(alpha: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Largest TV/2 of a pair with D_α ≤ r both ways, elementwise (tight; binary pairs attain it).

    The feasible (FPR, TPR) region is convex (Rényi divergence is jointly quasi-convex) and
    symmetric under (a, t) → (1 − t, 1 − a), so TPR − FPR is largest at t = 1 − a: the pair
    Bern(1 − a), Bern(a). Bisection on u = logit(a) ∈ [−800, 0]; the feasible end is kept
    and a relative margin of 1e-9 added, so the returned η is an upper bound.
    """
    alpha, r = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(r, float))
    lo = np.full(alpha.shape, -_LOGIT_CAP)
    hi = np.zeros(alpha.shape)

    def excess(u: np.ndarray) -> np.ndarray:
        la, l1a = _log_expit(u), _log_expit_neg(u)
        return _renyi_excess(alpha, r, l1a, la, la, l1a)  # t = 1 − a

    free = excess(lo) <= 0
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        bad = excess(mid) > 0
        lo = np.where(bad, mid, lo)
        hi = np.where(bad, hi, mid)
    hi = np.where(free, -_LOGIT_CAP, hi)
    eta = 0.5 * np.tanh(-0.5 * hi)  # 1/2 − σ(u), accurate near u = 0
    eta = np.minimum(0.5, eta * (1.0 + _ROUNDING_MARGIN))  # float rounding in the divergences
    # Below r ~ 1e-8 the divergences cancel in float64 and the bisection can end at u = 0
    # (η = 0: unsound). There Pinsker's inequality is used instead: D_α >= KL for α > 1 and
    # TV <= sqrt(KL/2), so η = TV/2 <= ½·sqrt(r/2) -- a valid upper bound for every pair.
    pinsker = 0.5 * np.sqrt(0.5 * r)
    return np.where(r < _PINSKER_BELOW, pinsker, eta)


def _renyi_tpr(a: np.ndarray, alpha: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Largest t ≥ a with D_α(Bern(t)‖Bern(a)) ≤ r and D_α(Bern(a)‖Bern(t)) ≤ r; 0 < a < 1.

    Both divergences grow with t on [a, 1]; bisection on v = logit(t) keeps the infeasible
    end (plus a margin of 1e-9·(t − a)), so the returned TPR is an upper bound.
    """
    a, alpha, r = np.broadcast_arrays(
        np.asarray(a, float), np.asarray(alpha, float), np.asarray(r, float)
    )
    la, l1a = np.log(a), np.log1p(-a)
    lo = la - l1a
    hi = np.full(a.shape, _LOGIT_CAP)

    def excess(v: np.ndarray) -> np.ndarray:
        lt, l1t = _log_expit(v), _log_expit_neg(v)
        return np.maximum(
            _renyi_excess(alpha, r, lt, l1t, la, l1a), _renyi_excess(alpha, r, la, l1a, lt, l1t)
        )

    free = excess(hi) <= 0
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        bad = excess(mid) > 0
        hi = np.where(bad, mid, hi)
        lo = np.where(bad, lo, mid)
    t = special.expit(hi)
    t = np.minimum(1.0, t + _ROUNDING_MARGIN * (t - a))  # float rounding in the divergences
    return np.where(free, 1.0, t)


def _tradeoff_tpr(f: np.ndarray, orders: np.ndarray, values: np.ndarray) -> np.ndarray:
    """TPR bound at FPRs ``f`` from Rényi bounds at ``orders``: minimum over orders."""
    flat = f.ravel()
    if np.all(np.isinf(values)):
        return np.ones(f.shape)
    out = np.where(flat >= 1.0, 1.0, 0.0)
    inner = (flat > 0.0) & (flat < 1.0)
    if inner.any():
        tpr = _renyi_tpr(flat[inner][:, None], orders[None, :], values[None, :])
        out[inner] = np.min(tpr, axis=1)
    return out.reshape(f.shape)


# --------------------------------------------------------------------------- Rényi DP


def eta_from_rdp(orders: ArrayLike, rdp_values: ArrayLike) -> float:
    r"""Tightest η implied by Rényi-DP values (α_i, ε_i), replace-one.

    Converts the Rényi bounds straight into a bound on total variation, without an (ε, δ)
    detour. By data processing, a test with error rates (a, 1 − t) turns the pair into
    Bern(t) vs Bern(a) with :math:`D_\alpha \le \varepsilon(\alpha)` both ways (the hypothesis-
    testing reading of RDP: Balle et al. 2020; Zhu, Dong & Wang 2022, Appendix F). The
    feasible region is convex and symmetric, so TV is largest on a symmetric pair
    Bern(1 − a), Bern(a), found by bisection for each order; the largest feasible a over all
    orders gives :math:`\eta = 1/2 - a`. The bound is **tight** for the information given:
    that binary pair itself satisfies every listed Rényi bound and has this TV. It is never
    looser than the (ε, δ) conversions (Mironov; Canonne, Kamath & Steinke) followed by
    Theorem 4, which :func:`attacker_bound` shows side by side.

    At order 2 it has the closed form :math:`\eta = \tfrac12\sqrt{(e^{r}-1)/(e^{r}+3)}`.

    Parameters
    ----------
    orders : 1-d array, each ``1 < alpha < inf``.
    rdp_values : 1-d array (same length, or a scalar), each ``0 <= value <= inf``
        (``inf``: no information at that order). Replace-one values (for add/remove values
        use :class:`Rdp` with ``relation``).

    Returns
    -------
    eta : float in [0, 1/2], an upper bound (bisection keeps the feasible end, 90 steps).

    Raises
    ------
    ValueError
        If an order is not > 1, a value is negative, the lengths differ, or it is empty.

    References
    ----------
    Mironov. *Rényi Differential Privacy*. CSF 2017, arXiv:1702.07476. Balle, Barthe,
    Gaboardi, Hsu, Sato. AISTATS 2020, arXiv:1905.09982. Zhu, Dong, Wang. AISTATS 2022,
    arXiv:2106.08567, Appendix F.

    Examples
    --------
    >>> round(eta_from_rdp([2.0], [0.5]), 6)
    0.186781
    >>> round(eta_from_rdp([2.0, 4.0, 8.0], [0.1, 0.2, 0.4]), 6)
    0.08003
    """
    o, v = _as_rdp(orders, rdp_values)
    return float(np.min(_renyi_eta(o, v)))


def tpr_bound_rdp(fpr: ArrayLike, orders: ArrayLike, rdp_values: ArrayLike) -> FloatOrArray:
    """Largest TPR at ``fpr`` allowed by Rényi-DP values (replace-one; see :func:`eta_from_rdp`).

    For each order, the largest t with :math:`D_\\alpha(\\mathrm{Bern}(t)\\|\\mathrm{Bern}(a))`
    and the reverse divergence both within the bound (a = FPR); the minimum over orders.

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    orders, rdp_values : as :func:`eta_from_rdp`.

    Returns
    -------
    tpr : float or ndarray shaped like ``fpr`` (an upper bound).

    Raises
    ------
    ValueError
        As :func:`eta_from_rdp`, or if ``fpr`` is outside [0, 1].
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    o, v = _as_rdp(orders, rdp_values)
    return scalar_or_array(_tradeoff_tpr(f, o, v), fpr)


def delta_from_rdp(
    epsilon: ArrayLike,
    orders: ArrayLike,
    rdp_values: ArrayLike,
    conversion: Literal["improved", "mironov"] = "improved",
) -> FloatOrArray:
    r"""(ε, δ(ε)) profile implied by Rényi-DP values: the minimum over orders.

    ``"mironov"`` (Mironov 2017, Proposition 3):
    :math:`\delta = e^{(\alpha-1)(\varepsilon_\alpha - \varepsilon)}`.
    ``"improved"`` (Canonne, Kamath & Steinke 2020, Proposition 12; also Balle et al. 2020):
    :math:`\delta = \frac{e^{(\alpha-1)(\varepsilon_\alpha-\varepsilon)}}{\alpha}
    (1 - 1/\alpha)^{\alpha-1}`, the formula of ``dp_accounting.rdp.compute_delta`` (which
    also takes a minimum with a Kullback-Leibler bound; this function does not).

    Parameters
    ----------
    epsilon : float or array, ``0 <= epsilon <= inf``.
    orders, rdp_values : as :func:`eta_from_rdp`.
    conversion : "improved" or "mironov".

    Returns
    -------
    delta : float or ndarray in [0, 1], shaped like ``epsilon``.

    Raises
    ------
    ValueError
        On out-of-range input or an unknown ``conversion``.
    """
    e = check_range("epsilon", epsilon, 0.0, math.inf)
    o, v = _as_rdp(orders, rdp_values)
    if conversion not in ("improved", "mironov"):
        raise ValueError(f"conversion={conversion!r} is not one of ('improved', 'mironov')")
    ee = e[..., None]
    with np.errstate(invalid="ignore"):
        logd = (o - 1.0) * (v - ee)
    logd = np.where(np.isinf(v), math.inf, logd)
    if conversion == "improved":
        logd = logd + (o - 1.0) * np.log1p(-1.0 / o) - np.log(o)
    d = np.exp(np.minimum(np.min(logd, axis=-1), 0.0))
    return scalar_or_array(d, epsilon)


def _rdp_epsilon_at(delta: float, orders: np.ndarray, values: np.ndarray) -> float:
    """Smallest ε of the improved conversion at δ (dp_accounting's compute_epsilon formula)."""
    with np.errstate(divide="ignore"):
        eps = values + np.log1p(-1.0 / orders) - np.log(delta * orders) / (orders - 1.0)
    return float(max(0.0, np.min(eps)))


# --------------------------------------------------------------------------- zCDP


def eta_from_zcdp(rho: ArrayLike) -> FloatOrArray:
    r"""Tightest η of a ρ-zCDP mechanism (replace-one).

    ρ-zCDP means Rényi DP with :math:`\varepsilon(\alpha) = \rho\alpha` at every order α > 1
    (Bun & Steinke 2016, Definition 1.1), hence also :math:`D_{KL} \le \rho` (α → 1). The
    Rényi-to-trade-off reduction of :func:`eta_from_rdp` is applied over a grid of 114
    orders (α = 1 and 1 + 10^-3 … 1 + 10^4) with a local refinement; each order is a valid
    constraint, so the result is an upper bound, and it is attained by a binary
    (randomised-response) pair, so it is tight. In every case tried the α → 1 (KL)
    constraint binds, giving :math:`\eta = x/2` with :math:`2x\,\mathrm{artanh}(x) = \rho`.

    **ρ-zCDP does not imply √(2ρ)-GDP.** The Gaussian mechanism with μ = √(2ρ) is ρ-zCDP,
    but so is a randomised-response pair with a larger total variation: this η exceeds
    ``eta_from_gdp(sqrt(2*rho))`` (for small ρ, √(ρ/2)/2 against √(ρ/π)/2).

    Parameters
    ----------
    rho : float or array, ``0 <= rho <= inf``.

    Returns
    -------
    eta : float or ndarray in [0, 1/2].

    Raises
    ------
    ValueError
        If ``rho`` is negative or NaN.

    References
    ----------
    Bun, Steinke. TCC 2016, arXiv:1605.02065. Zhu, Dong, Wang. AISTATS 2022,
    arXiv:2106.08567, Appendix F.

    Examples
    --------
    >>> round(eta_from_zcdp(math.atanh(0.5)), 9)
    0.25
    >>> eta_from_zcdp(0.5) > eta_from_gdp(1.0)
    True
    """
    r = check_range("rho", rho, 0.0, math.inf)
    out = np.array([_zcdp_eta_scalar(float(x)) for x in r.ravel()]).reshape(r.shape)
    return scalar_or_array(out, rho)


def _zcdp_eta_scalar(rho: float) -> float:
    if rho == 0.0:
        return 0.0
    if math.isinf(rho):
        return 0.5
    etas = _renyi_eta(_ZCDP_ORDERS, rho * _ZCDP_ORDERS)
    i = int(np.argmin(etas))
    best = float(etas[i])
    if 0 < i < _ZCDP_ORDERS.size - 1:  # interior best order: refine in log(α − 1)
        lo = math.log(1e-7) if i == 1 else math.log(_ZCDP_ORDERS[i - 1] - 1.0)
        hi = math.log(_ZCDP_ORDERS[i + 1] - 1.0)

        def eta_at(x: float) -> float:
            a = 1.0 + math.exp(x)
            return float(_renyi_eta(np.array(a), np.array(rho * a)))

        res = optimize.minimize_scalar(eta_at, bounds=(lo, hi), method="bounded")
        best = min(best, float(res.fun))
    return best


def tpr_bound_zcdp(fpr: ArrayLike, rho: float) -> FloatOrArray:
    """Largest TPR at ``fpr`` under ρ-zCDP (replace-one; Rényi reduction over 114 orders).

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    rho : float, ``0 <= rho <= inf``.

    Returns
    -------
    tpr : float or ndarray shaped like ``fpr`` (an upper bound).

    Raises
    ------
    ValueError
        If ``fpr`` is outside [0, 1], or ``rho`` is negative or not a scalar.
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    r = check_range("rho", rho, 0.0, math.inf)
    if r.ndim:
        raise ValueError(f"rho must be a scalar, got shape {r.shape}")
    rv = float(r)
    if rv == 0.0:
        return scalar_or_array(f.copy(), fpr)
    if math.isinf(rv):
        return scalar_or_array(np.ones(f.shape), fpr)
    return scalar_or_array(_tradeoff_tpr(f, _ZCDP_ORDERS, rv * _ZCDP_ORDERS), fpr)


def delta_from_zcdp(
    epsilon: ArrayLike,
    rho: ArrayLike,
    conversion: Literal["improved", "bun_steinke"] = "improved",
) -> FloatOrArray:
    r"""(ε, δ(ε)) profile of ρ-zCDP.

    ``"bun_steinke"`` (Bun & Steinke 2016, Proposition 1.3: ρ-zCDP ⇒
    :math:`(\rho + 2\sqrt{\rho\log(1/\delta)}, \delta)`-DP), i.e.
    :math:`\delta(\varepsilon) = e^{-(\varepsilon-\rho)^2/(4\rho)}` for ε ≥ ρ.
    ``"improved"`` (Canonne, Kamath & Steinke 2020, Corollary 13):
    :math:`\delta = \min_{\alpha>1} \frac{e^{(\alpha-1)(\alpha\rho-\varepsilon)}}{\alpha-1}
    (1-1/\alpha)^{\alpha}`, minimised over 1001 orders 1 + 10^-4 … 1 + 10^6 and then 65 orders
    between the best one's neighbours (each order is a valid bound, so the minimum over the
    orders tried is too).

    Parameters
    ----------
    epsilon : float or array, ``0 <= epsilon <= inf``.
    rho : float or array, ``0 <= rho < inf``.
    conversion : "improved" or "bun_steinke".

    Returns
    -------
    delta : float or ndarray in [0, 1].

    Raises
    ------
    ValueError
        On out-of-range input or an unknown ``conversion``.
    """
    e = check_range("epsilon", epsilon, 0.0, math.inf)
    r = check_range("rho", rho, 0.0, math.inf, hi_open=True)
    if conversion not in ("improved", "bun_steinke"):
        raise ValueError(f"conversion={conversion!r} is not one of ('improved', 'bun_steinke')")
    e, r = np.broadcast_arrays(e, r)
    rs = np.where(r > 0, r, 1.0)
    es = np.where(np.isfinite(e), e, 0.0)
    if conversion == "bun_steinke":
        d = np.where(es >= rs, np.exp(-((es - rs) ** 2) / (4.0 * rs)), 1.0)
    else:

        def log_cks(a: np.ndarray) -> np.ndarray:
            return (
                (a - 1.0) * (a * rs[..., None] - es[..., None])
                - np.log(a - 1.0)
                + a * np.log1p(-1.0 / a)
            )

        grid = _CKS_ORDERS
        logd = log_cks(np.broadcast_to(grid, (*rs.shape, grid.size)))
        i = np.argmin(logd, axis=-1)
        lo, hi = grid[np.maximum(i - 1, 0)], grid[np.minimum(i + 1, grid.size - 1)]
        fine = lo[..., None] + (hi - lo)[..., None] * np.linspace(0.0, 1.0, 65)
        best = np.minimum(np.min(logd, axis=-1), np.min(log_cks(fine), axis=-1))
        d = np.exp(np.minimum(best, 0.0))
    d = np.where((r == 0) | np.isinf(e), 0.0, d)
    return scalar_or_array(d, epsilon, rho)
