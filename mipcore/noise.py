"""How much noise certifies eta-MIP: directly (Theorem 9 / Corollary 14) or through DP (Theorem 4).

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Theorem 9, Corollary 10),
Appendix D (proof of Theorem 9, Corollary 14) and Section 5.1 (Figure 1).

Both routes add Laplace-type noise and are compared by its *scale*:

* MIP (Theorem 9): density proportional to ``exp(-||x|| / (c sigma))`` with
  ``c = (constant/eta)^(1 + 2/M)``; in one dimension that is Laplace(c sigma).
  ``constant = 7.5`` is Theorem 9 (any M > 0), ``6.16`` is Corollary 14 (M >= 2).
* DP (Laplace mechanism + Theorem 4): pure epsilon-DP needs Laplace(Delta/epsilon),
  and the largest epsilon that still certifies eta is ``log((1+2 eta)/(1-2 eta))``.

``sigma`` is an upper bound on the M-th central moment in the sense
``sigma^M >= E||theta - E theta||^M``: for M = 2 it is a *standard deviation*.
(Section 5.1 of the paper calls it "an upper bound on the variance"; that is a
slip -- the theorem needs sigma^2 >= Var.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from ._validate import check_range, scalar_or_array
from .bounds import epsilon_from_eta, eta_from_epsilon

__all__ = [
    "COROLLARY14_CONSTANT",
    "THEOREM9_CONSTANT",
    "Crossover",
    "certified_eta_dp",
    "certified_eta_mip",
    "crossover_etas",
    "dp_laplace_scale",
    "mip_noise_multiplier",
    "mip_noise_scale",
]

_LOG_FLOAT_MAX = math.log(np.finfo(float).max)  # 709.78...

THEOREM9_CONSTANT = 7.5
COROLLARY14_CONSTANT = 6.16


def _check_m_constant(M, constant):
    m = check_range("M", M, 0.0, math.inf, lo_open=True, hi_open=True)
    const = check_range(
        "constant",
        constant,
        COROLLARY14_CONSTANT,
        math.inf,
        hi_open=True,
        hint="6.16 is the smallest constant the paper certifies (Corollary 14)",
    )
    needs_m2 = np.broadcast_to(const < THEOREM9_CONSTANT, np.broadcast_shapes(m.shape, const.shape))
    if np.any(needs_m2 & (np.broadcast_to(m, needs_m2.shape) < 2.0)):
        raise ValueError(
            f"M={M!r} is out of range for constant={constant!r}: a constant below 7.5 "
            "(Corollary 14's 6.16) is only valid for M >= 2; use constant=7.5 (Theorem 9) for M < 2"
        )
    return m, const


def mip_noise_multiplier(eta, M=2, constant=COROLLARY14_CONSTANT):
    r"""The factor ``c = (constant/eta)^(1 + 2/M)`` of Theorem 9 / Corollary 14.

    Parameters
    ----------
    eta : ``0 < eta <= 1/2`` (eta = 0, perfect privacy, would need infinite noise).
    M : moment order, ``M > 0``; ``M >= 2`` when ``constant < 7.5``.
    constant : ``>= 6.16``; 7.5 (Theorem 9) or 6.16 (Corollary 14, M >= 2).
    """
    e = check_range(
        "eta",
        eta,
        0.0,
        0.5,
        lo_open=True,
        hint="eta = 0 (perfect privacy) would need infinite noise",
    )
    m, const = _check_m_constant(M, constant)
    with np.errstate(over="ignore"):  # (C/eta)^(1+2/M) beyond float range is inf, honestly
        c = np.exp((1.0 + 2.0 / m) * (np.log(const) - np.log(e)))
    return scalar_or_array(c, eta, M, constant)


def mip_noise_scale(eta, sigma, M=2, constant=COROLLARY14_CONSTANT):
    r"""Laplace-type noise scale ``c * sigma`` that certifies eta-MIP (Theorem 9, Corollary 14).

    .. math:: b_{\mathrm{MIP}} = \Bigl(\frac{\text{constant}}{\eta}\Bigr)^{1+2/M}\sigma

    Parameters
    ----------
    eta : ``0 < eta <= 1/2``.
    sigma : ``sigma >= 0``, with ``sigma^M >= E||theta - E theta||^M`` (a standard
        deviation when M = 2).
    M : ``M > 0`` (``M >= 2`` for constant 6.16).
    constant : 6.16 (Corollary 14, default) or 7.5 (Theorem 9); any value >= 6.16.

    Returns
    -------
    scale : float or ndarray. With ``sigma = 0`` (a constant algorithm) it is 0.
    """
    s = check_range("sigma", sigma, 0.0, math.inf, hi_open=True)
    c = np.asarray(mip_noise_multiplier(eta, M, constant))
    c, s = np.broadcast_arrays(c, s)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.where(s == 0, 0.0, c * s)  # a constant algorithm needs no noise, even if c = inf
    return scalar_or_array(scale, eta, sigma, M, constant)


def dp_laplace_scale(eta, sensitivity):
    r"""Laplace scale that pure epsilon-DP needs to certify eta-MIP via Theorem 4.

    .. math:: b_{\mathrm{DP}} = \frac{\Delta}{\varepsilon(\eta)}
              = \frac{\Delta}{\log\frac{1+2\eta}{1-2\eta}}

    Parameters
    ----------
    eta : ``0 < eta <= 1/2``. At eta = 1/2 (no privacy) epsilon is infinite and the scale 0.
    sensitivity : ``Delta >= 0``, the L1 sensitivity over adjacent datasets.
    """
    e = check_range(
        "eta",
        eta,
        0.0,
        0.5,
        lo_open=True,
        hint="eta = 0 (perfect privacy) would need infinite noise",
    )
    d = check_range("sensitivity", sensitivity, 0.0, math.inf, hi_open=True)
    e_b, d_b = np.broadcast_arrays(e, d)
    inner = e_b < 0.5
    eps = np.full(e_b.shape, math.inf)
    if inner.any():
        eps[inner] = epsilon_from_eta(e_b[inner])
    with np.errstate(divide="ignore", over="ignore"):
        scale = np.where(inner, d_b / np.where(inner, eps, 1.0), 0.0)
    return scalar_or_array(scale, eta, sensitivity)


def _log_tanh(x: float) -> float:
    """log(tanh(x)) for x > 0 without underflow or cancellation."""
    if x <= 1.0:
        return math.log(math.tanh(x))
    return math.log1p(-2.0 / (math.exp(2.0 * x) + 1.0)) if x < 350.0 else 0.0


@dataclass(frozen=True)
class Crossover:
    """Where the MIP and DP noise curves cross, for one (sigma, Delta).

    MIP needs less noise than DP exactly for ``low < eta < high``. ``low`` is the
    eta where MIP *starts* needing less noise; ``high`` is where DP becomes cheaper
    again, because the DP scale falls to 0 as eta -> 1/2. ``high`` is usually so close
    to 1/2 that only ``high_epsilon`` (the DP epsilon there) and ``high_gap``
    (``1/2 - high``) tell it apart. ``low = 0.0`` means below the smallest
    positive float; ``high_epsilon = inf`` means beyond the largest. All three
    are ``None`` when MIP never needs less noise. ``best_eta`` is where the
    ratio DP/MIP is largest, ``best_ratio`` that largest ratio.
    """

    low: float | None
    high: float | None
    high_epsilon: float | None
    high_gap: float | None
    best_eta: float
    best_ratio: float

    @property
    def mip_ever_cheaper(self) -> bool:
        return self.low is not None


def crossover_etas(sigma, sensitivity, M=2, constant=COROLLARY14_CONSTANT) -> Crossover:
    r"""Solve ``mip_noise_scale(eta) = dp_laplace_scale(eta)`` for eta in (0, 1/2).

    Parametrised by ``y = log epsilon`` with ``eta = tanh(epsilon/2)/2`` (Theorem 4 at
    delta = 0), the log-ratio

    .. math:: g(y) = \log b_{\mathrm{MIP}} - \log b_{\mathrm{DP}}
              = \log\sigma - \log\Delta + p\log C - p\log\eta(y) + y,
              \qquad p = 1 + 2/M,

    is convex in y and tends to ``+inf`` at both ends (MIP grows like
    eta^-(1+2/M) as eta -> 0 but DP only like 1/eta; as eta -> 1/2 the DP scale
    falls to 0 while MIP stays finite), so there are zero or two roots. The
    minimum is located by bounded minimisation and each root by Brent's method;
    working in ``y`` reaches roots within 1e-300 of 1/2 without losing them to
    rounding.

    Parameters
    ----------
    sigma : ``> 0``; sensitivity : ``> 0``; M, constant : as in :func:`mip_noise_scale`.
    """
    s = float(check_range("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True))
    d = float(check_range("sensitivity", sensitivity, 0.0, math.inf, lo_open=True, hi_open=True))
    m, const = _check_m_constant(M, constant)
    m, const = float(m), float(const)
    p = 1.0 + 2.0 / m
    base = math.log(s) - math.log(d) + p * math.log(const)
    log_half = math.log(0.5)

    def g(y: float) -> float:
        return base - p * (log_half + _log_tanh(0.5 * math.exp(y))) + y

    def eta_of(y: float) -> float:
        return 0.5 * math.tanh(0.5 * math.exp(y))

    y_lo, y_hi = -740.0, _LOG_FLOAT_MAX
    res = minimize_scalar(g, bounds=(-60.0, 60.0), method="bounded", options={"xatol": 1e-12})
    y_min, g_min = float(res.x), float(res.fun)
    best_ratio = math.exp(-g_min) if -g_min < _LOG_FLOAT_MAX else math.inf
    if g_min >= 0.0:
        return Crossover(None, None, None, None, eta_of(y_min), best_ratio)
    tol = dict(xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)
    low = eta_of(brentq(g, y_lo, y_min, **tol)) if g(y_lo) > 0 else 0.0
    if g(y_hi) > 0:
        y_high = brentq(g, y_min, y_hi, **tol)
        high_eps = math.exp(y_high)
    else:
        high_eps = math.inf
    high_gap = math.exp(-float(np.logaddexp(0.0, high_eps))) if math.isfinite(high_eps) else 0.0
    return Crossover(
        low,
        0.5 - high_gap if high_gap > 1e-17 else 0.5 * math.tanh(0.5 * high_eps),
        high_eps,
        high_gap,
        eta_of(y_min),
        best_ratio,
    )


def certified_eta_mip(scale, sigma, M=2, constant=COROLLARY14_CONSTANT):
    r"""η certified by Theorem 9 / Corollary 14 for Laplace noise of scale ``scale``.

    Theorem 9 certifies η-MIP for noise of scale ``b = c σ`` with ``c = (constant/η)^(1+2/M)``
    (:func:`mip_noise_scale`); solving for η:

    .. math:: \eta_{\mathrm{MIP}}(b) = \min\Bigl(\tfrac12,\ \text{constant}\cdot
              (\sigma/b)^{M/(M+2)}\Bigr).

    Parameters
    ----------
    scale : ``b > 0`` (float or array). sigma : ``σ >= 0``, ``σ^M >= E|𝒜 − E𝒜|^M``.
    M : ``M > 0`` (``>= 2`` for constant 6.16). constant : 6.16 (Corollary 14) or 7.5 (Theorem 9).
    """
    b = check_range("scale", scale, 0.0, math.inf, lo_open=True, hi_open=True)
    s = check_range("sigma", sigma, 0.0, math.inf, hi_open=True)
    m, const = _check_m_constant(M, constant)
    with np.errstate(divide="ignore"):
        eta = const * np.exp((m / (m + 2.0)) * (np.log(s) - np.log(b)))
    eta = np.minimum(0.5, eta)
    return scalar_or_array(eta, scale, sigma, M, constant)


def certified_eta_dp(scale, sensitivity):
    r"""η certified by pure DP and Theorem 4 for Laplace noise of scale ``scale``.

    The Laplace mechanism with L1 sensitivity Δ is ``ε = Δ/b``-DP, and Theorem 4 gives
    ``η = tanh(ε/2)/2`` (:func:`mipcore.bounds.eta_from_epsilon`).

    Parameters
    ----------
    scale : ``b > 0``. sensitivity : ``Δ >= 0``.
    """
    b = check_range("scale", scale, 0.0, math.inf, lo_open=True, hi_open=True)
    d = check_range("sensitivity", sensitivity, 0.0, math.inf, hi_open=True)
    eta = np.asarray(eta_from_epsilon(d / b))
    return scalar_or_array(eta, scale, sensitivity)
