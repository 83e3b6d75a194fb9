"""How much noise certifies η-MIP: directly (Theorem 9 / Corollary 14) or through DP (Theorem 4).

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582: Section 4 (Theorem 9, Corollary 10), Appendix D (proof of Theorem 9,
Corollary 14) and Section 5.1 (Figure 1).

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

All functions broadcast over NumPy arrays and return a Python float when every argument
is a scalar. Typing: a float argument (or only scalars) gives a ``float``; an ``ndarray`` as the first
argument is typed to give an ``ndarray`` -- as NumPy's own stubs do, a 0-d array is the
exception: like every scalar input it returns a Python float at run time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
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


def _check_m_constant(
    M: ArrayLike, constant: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
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


@overload
def mip_noise_multiplier(eta: float, M: float = ..., constant: float = ...) -> float: ...
@overload
def mip_noise_multiplier(
    eta: NDArray[Any], M: ArrayLike = ..., constant: ArrayLike = ...
) -> NDArray[np.float64]: ...
@overload
def mip_noise_multiplier(
    eta: ArrayLike, M: ArrayLike = ..., constant: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def mip_noise_multiplier(
    eta: ArrayLike, M: ArrayLike = 2, constant: ArrayLike = COROLLARY14_CONSTANT
) -> float | NDArray[np.float64]:
    r"""The factor ``c = (constant/η)^(1 + 2/M)`` of Theorem 9 / Corollary 14.

    Parameters
    ----------
    eta : float or array_like
        ``0 < eta <= 1/2`` (η = 0, perfect privacy, would need infinite noise).
    M : float or array_like
        Moment order, ``M > 0``; ``M >= 2`` when ``constant < 7.5``.
    constant : float or array_like
        ``>= 6.16``; 7.5 (Theorem 9) or 6.16 (Corollary 14, M >= 2).

    Returns
    -------
    float or ndarray
        ``c``; ``inf`` where it exceeds the float range.

    Examples
    --------
    >>> mip_noise_multiplier(0.1)  # (6.16 / 0.1)^2
    3794.56
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


@overload
def mip_noise_scale(eta: float, sigma: float, M: float = ..., constant: float = ...) -> float: ...
@overload
def mip_noise_scale(
    eta: NDArray[Any], sigma: ArrayLike, M: ArrayLike = ..., constant: ArrayLike = ...
) -> NDArray[np.float64]: ...
@overload
def mip_noise_scale(
    eta: ArrayLike, sigma: ArrayLike, M: ArrayLike = ..., constant: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def mip_noise_scale(
    eta: ArrayLike, sigma: ArrayLike, M: ArrayLike = 2, constant: ArrayLike = COROLLARY14_CONSTANT
) -> float | NDArray[np.float64]:
    r"""Laplace-type noise scale ``c σ`` that certifies η-MIP (Theorem 9, Corollary 14).

    .. math:: b_{\mathrm{MIP}} = \Bigl(\frac{\text{constant}}{\eta}\Bigr)^{1+2/M}\sigma

    Parameters
    ----------
    eta : float or array_like
        ``0 < eta <= 1/2``.
    sigma : float or array_like
        ``0 <= sigma < inf``, with ``σ^M >= E||θ − Eθ||^M`` (a standard deviation when M = 2).
    M : float or array_like
        ``M > 0`` (``M >= 2`` for constant 6.16).
    constant : float or array_like
        6.16 (Corollary 14, default) or 7.5 (Theorem 9); any value >= 6.16.

    Returns
    -------
    float or ndarray
        The scale. With ``sigma = 0`` (a constant algorithm) it is 0.

    Raises
    ------
    ValueError
        If an argument is out of range, or ``constant < 7.5`` with ``M < 2``.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorem 9 and Corollary 14.

    Examples
    --------
    >>> mip_noise_scale(0.1, 1.0)  # Corollary 14: (6.16 / 0.1)^2
    3794.56
    >>> mip_noise_scale(0.1, 1.0, constant=7.5)  # Theorem 9: (7.5 / 0.1)^2
    5625.0
    >>> mip_noise_scale(0.1, 1.0, M=4, constant=7.5)  # (7.5 / 0.1)^1.5
    649.5190528383
    """
    s = check_range("sigma", sigma, 0.0, math.inf, hi_open=True)
    c = np.asarray(mip_noise_multiplier(eta, M, constant))
    c, s = np.broadcast_arrays(c, s)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.where(s == 0, 0.0, c * s)  # a constant algorithm needs no noise, even if c = inf
    return scalar_or_array(scale, eta, sigma, M, constant)


@overload
def dp_laplace_scale(eta: float, sensitivity: float) -> float: ...
@overload
def dp_laplace_scale(eta: NDArray[Any], sensitivity: ArrayLike) -> NDArray[np.float64]: ...
@overload
def dp_laplace_scale(eta: ArrayLike, sensitivity: ArrayLike) -> float | NDArray[np.float64]: ...
def dp_laplace_scale(eta: ArrayLike, sensitivity: ArrayLike) -> float | NDArray[np.float64]:
    r"""Laplace scale that pure ε-DP needs to certify η-MIP via Theorem 4.

    .. math:: b_{\mathrm{DP}} = \frac{\Delta}{\varepsilon(\eta)}
              = \frac{\Delta}{\log\frac{1+2\eta}{1-2\eta}}

    Parameters
    ----------
    eta : float or array_like
        ``0 < eta <= 1/2``. At η = 1/2 (no privacy) ε is infinite and the scale 0.
    sensitivity : float or array_like
        ``0 <= Δ < inf``, the L1 sensitivity over adjacent datasets.

    Returns
    -------
    float or ndarray
        The Laplace scale.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorem 4 and Section 5.1.

    Examples
    --------
    >>> dp_laplace_scale(0.1, 1.0)  # 1 / log(1.2 / 0.8)
    2.46630346238
    >>> dp_laplace_scale(0.5, 1.0)  # no privacy: no noise
    0.0
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
        """Whether MIP needs less noise than DP for some η."""
        return self.low is not None


def crossover_etas(
    sigma: float, sensitivity: float, M: float = 2, constant: float = COROLLARY14_CONSTANT
) -> Crossover:
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
    sigma : float
        ``0 < sigma < inf``.
    sensitivity : float
        ``0 < Δ < inf``.
    M, constant : float
        As in :func:`mip_noise_scale`.

    Returns
    -------
    Crossover

    Examples
    --------
    >>> crossover_etas(1.0, 1.0).mip_ever_cheaper  # sigma = Delta: DP is always cheaper
    False
    >>> c = crossover_etas(1.0, 1e6)  # a huge sensitivity beside a small spread
    >>> c.mip_ever_cheaper, round(c.low, 6), c.high_epsilon > 1000
    (True, 0.000152, True)
    """
    s = float(check_range("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True))
    d = float(check_range("sensitivity", sensitivity, 0.0, math.inf, lo_open=True, hi_open=True))
    m_arr, c_arr = _check_m_constant(M, constant)
    m, const = float(m_arr), float(c_arr)
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
    xtol, rtol = 1e-13, 4 * float(np.finfo(float).eps)
    low = eta_of(brentq(g, y_lo, y_min, xtol=xtol, rtol=rtol, maxiter=500)) if g(y_lo) > 0 else 0.0
    if g(y_hi) > 0:
        y_high = brentq(g, y_min, y_hi, xtol=xtol, rtol=rtol, maxiter=500)
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


@overload
def certified_eta_mip(
    scale: float, sigma: float, M: float = ..., constant: float = ...
) -> float: ...
@overload
def certified_eta_mip(
    scale: NDArray[Any], sigma: ArrayLike, M: ArrayLike = ..., constant: ArrayLike = ...
) -> NDArray[np.float64]: ...
@overload
def certified_eta_mip(
    scale: ArrayLike, sigma: ArrayLike, M: ArrayLike = ..., constant: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def certified_eta_mip(
    scale: ArrayLike, sigma: ArrayLike, M: ArrayLike = 2, constant: ArrayLike = COROLLARY14_CONSTANT
) -> float | NDArray[np.float64]:
    r"""η certified by Theorem 9 / Corollary 14 for Laplace-type noise of scale ``scale``.

    Theorem 9 certifies η-MIP for noise of scale ``b = c σ`` with ``c = (constant/η)^(1+2/M)``
    (:func:`mip_noise_scale`); solving for η:

    .. math:: \eta_{\mathrm{MIP}}(b) = \min\Bigl(\tfrac12,\ \text{constant}\cdot
              (\sigma/b)^{M/(M+2)}\Bigr).

    Parameters
    ----------
    scale : float or array_like
        ``0 < b < inf``.
    sigma : float or array_like
        ``0 <= σ < inf``, ``σ^M >= E|𝒜 − E𝒜|^M``.
    M : float or array_like
        ``M > 0`` (``>= 2`` for constant 6.16).
    constant : float or array_like
        6.16 (Corollary 14) or 7.5 (Theorem 9).

    Returns
    -------
    float or ndarray
        The certified η, in ``[0, 1/2]`` (0 when σ = 0).

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorem 9 and Corollary 14.

    Examples
    --------
    >>> certified_eta_mip(mip_noise_scale(0.1, 1.0), 1.0)  # the round trip
    0.1
    >>> certified_eta_mip(1e6, 1.0)  # 6.16 * (1e-6)^(1/2)
    0.00616
    >>> certified_eta_mip(1.0, 1.0)  # too little noise: nothing certified beyond 1/2
    0.5
    """
    b = check_range("scale", scale, 0.0, math.inf, lo_open=True, hi_open=True)
    s = check_range("sigma", sigma, 0.0, math.inf, hi_open=True)
    m, const = _check_m_constant(M, constant)
    with np.errstate(divide="ignore"):
        eta = const * np.exp((m / (m + 2.0)) * (np.log(s) - np.log(b)))
    eta = np.minimum(0.5, eta)
    return scalar_or_array(eta, scale, sigma, M, constant)


@overload
def certified_eta_dp(scale: float, sensitivity: float) -> float: ...
@overload
def certified_eta_dp(scale: NDArray[Any], sensitivity: ArrayLike) -> NDArray[np.float64]: ...
@overload
def certified_eta_dp(scale: ArrayLike, sensitivity: ArrayLike) -> float | NDArray[np.float64]: ...
def certified_eta_dp(scale: ArrayLike, sensitivity: ArrayLike) -> float | NDArray[np.float64]:
    r"""η certified by pure DP and Theorem 4 for Laplace noise of scale ``scale``.

    The Laplace mechanism with L1 sensitivity Δ is ``ε = Δ/b``-DP, and Theorem 4 gives
    ``η = tanh(ε/2)/2`` (:func:`mipcore.bounds.eta_from_epsilon`).

    Parameters
    ----------
    scale : float or array_like
        ``0 < b < inf``.
    sensitivity : float or array_like
        ``0 <= Δ < inf``.

    Returns
    -------
    float or ndarray
        The certified η, in ``[0, 1/2]``.

    Examples
    --------
    >>> certified_eta_dp(2.0, 1.0)  # epsilon = 1/2
    0.122459331202
    """
    b = check_range("scale", scale, 0.0, math.inf, lo_open=True, hi_open=True)
    d = check_range("sensitivity", sensitivity, 0.0, math.inf, hi_open=True)
    eta = np.asarray(eta_from_epsilon(d / b))
    return scalar_or_array(eta, scale, sensitivity)
