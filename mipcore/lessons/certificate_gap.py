r"""How loose are the certified η bounds? Exact η of the Proposition 11 mechanism vs the theorems.

Source: ``000_ece03c98c31c7b12.txt`` -- Theorem 4 (DP ⇒ MIP), Theorem 9 / Corollary 14
(noise that certifies η-MIP), Proposition 11 (the ``1/Σx`` mechanism).

For the Proposition 11 mechanism 𝒜 plus Laplace noise of scale b, three numbers:

* the **exact** η (:func:`mipcore.prop11_attack.prop11_true_eta`, full enumeration, exact to ~1e-13);
* the η that **Theorem 9 / Corollary 14 certifies** for that b: inverting
  ``b = (constant/η)^(1+2/M) σ`` (:func:`mipcore.noise.mip_noise_scale`) gives
  ``η = constant · (σ/b)^(M/(M+2))``, capped at 1/2 (:func:`certified_eta_mip`);
* the η that **pure DP + Theorem 4 certifies**: the Laplace mechanism is ``Δ/b``-DP, so
  ``η = tanh(Δ/(2b))/2`` (:func:`certified_eta_dp`).

Both certified values are upper bounds on the exact one. :func:`sufficient_scale` inverts
the exact η by bisection: the noise that is actually enough for a target η.

**Monotonicity** (used by the bisection). For ``b₂ > b₁`` and ``r = b₁/b₂`` the
characteristic functions satisfy ``1/(1+b₂²t²) = 1/(1+b₁²t²) · (r² + (1−r²)/(1+b₂²t²))``,
i.e. Laplace(b₂) = Laplace(b₁) ⊛ (r² δ₀ + (1−r²) Laplace(b₂)). So the b₂-release is a
post-processing of the b₁-release and, for every target record, the optimal attacker's
accuracy cannot grow (data processing): the exact η is non-increasing in b. The tests also
check this numerically on a grid.

This module is pure Python (no Streamlit).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._validate import check_int, check_range
from ..noise import COROLLARY14_CONSTANT, certified_eta_dp, certified_eta_mip
from ..prop11_attack import prop11_true_eta

__all__ = [
    "LOOSENESS_N_MAX",
    "SUFFICIENT_RTOL",
    "demanded_scales",
    "eta_curves",
    "prop11_constants",
    "sufficient_scale",
]

LOOSENESS_N_MAX = 16  # exact enumeration stays below ~0.05 s per noise scale
SUFFICIENT_RTOL = 1e-4  # relative width of the final bisection bracket on the scale


def _check_n(n) -> int:
    return check_int("n", n, 4, LOOSENESS_N_MAX, even=True)


def prop11_constants(n: int, M: int = 2) -> tuple[float, float]:
    """``(σ_M, Δ)`` of the Proposition 11 mechanism: certified moment bound and exact sensitivity."""
    from ..prop11 import output_moments, sensitivity

    n = _check_n(n)
    M = check_int("M", M, 2, 16)
    return float(output_moments(n, M).sigma), float(sensitivity(n))


def _exact(n: int, b: float) -> float:
    return float(prop11_true_eta(n, b, "laplace"))


def sufficient_scale(
    n: int, target_eta: float, noise: str = "laplace", rtol: float = SUFFICIENT_RTOL
) -> float:
    r"""Smallest Laplace scale b whose exact η (Proposition 11 mechanism) is ``<= target_eta``.

    Bisection in ``log b`` on :func:`mipcore.prop11_attack.prop11_true_eta`, which is non-increasing
    in b (module docstring). The upper end starts at the DP demand ``Δ/ε(η)`` (Theorem 4
    certifies it, so its exact η is below the target); the lower end is divided by 10 until
    the exact η exceeds the target. Returned is the upper end ``hi`` of a final bracket
    ``[hi/(1+rtol), hi]``: ``exact(hi) <= target_eta < exact(hi/(1+rtol))``, so ``hi`` is
    within relative ``rtol`` of the true threshold and never below it.

    Parameters
    ----------
    n : even, ``4 <= n <= 16``. target_eta : ``0 < η < 1/2``. noise : only ``"laplace"``.
    rtol : ``1e-12 <= rtol <= 0.5``.
    """
    if noise != "laplace":
        raise ValueError(
            f"noise={noise!r} is not supported: only 'laplace' (the exact η is exact there)"
        )
    n = _check_n(n)
    t = float(check_range("target_eta", target_eta, 0.0, 0.5, lo_open=True, hi_open=True))
    rtol = float(check_range("rtol", rtol, 1e-12, 0.5))
    return _sufficient(n, t, rtol)


def _sufficient(n: int, t: float, rtol: float) -> float:
    _, delta = prop11_constants(n, 2)
    hi = delta / math.log((1 + 2 * t) / (1 - 2 * t))
    while _exact(n, hi) > t:  # pragma: no cover - Theorem 4 guarantees exact(hi) <= t
        hi *= 10.0
    lo = hi / 10.0
    while _exact(n, lo) <= t:
        hi, lo = lo, lo / 10.0
    log_stop = math.log1p(rtol)
    while math.log(hi) - math.log(lo) > log_stop:
        mid = math.exp(0.5 * (math.log(lo) + math.log(hi)))
        if _exact(n, mid) <= t:
            hi = mid
        else:
            lo = mid
    return hi


def demanded_scales(
    n: int, target_eta: float, M: int = 2, constant: float = COROLLARY14_CONSTANT
) -> dict:
    """Noise each route demands for ``target_eta`` beside the noise actually enough.

    Returns a dict with ``mip`` (Theorem 9 / Cor. 14: ``(constant/η)^(1+2/M) σ_M``), ``dp``
    (Theorem 4: ``Δ/log((1+2η)/(1−2η))``), ``sufficient`` (:func:`sufficient_scale`) and
    ``exact_at_mip``/``exact_at_dp``/``exact_at_sufficient`` (exact η at those scales).
    """
    from ..noise import dp_laplace_scale, mip_noise_scale

    n = _check_n(n)
    t = float(check_range("target_eta", target_eta, 0.0, 0.5, lo_open=True, hi_open=True))
    sigma, delta = prop11_constants(n, check_int("M", M, 2, 6))
    b_mip = float(mip_noise_scale(t, sigma, M, constant))
    b_dp = float(dp_laplace_scale(t, delta))
    b_ok = sufficient_scale(n, t)
    return {
        "mip": b_mip,
        "dp": b_dp,
        "sufficient": b_ok,
        "exact_at_mip": _exact(n, b_mip),
        "exact_at_dp": _exact(n, b_dp),
        "exact_at_sufficient": _exact(n, b_ok),
    }


def eta_curves(n: int, scales, M: int = 2, constant: float = COROLLARY14_CONSTANT) -> pd.DataFrame:
    r"""Exact and certified η of the Proposition 11 mechanism + Laplace(b) on a grid of b.

    Columns: ``scale``; ``exact`` (Proposition 2 by enumeration); ``certified_mip``
    (:func:`certified_eta_mip` with σ_M of :func:`mipcore.prop11.output_moments`);
    ``certified_dp`` (:func:`certified_eta_dp` with Δ of :func:`mipcore.prop11.sensitivity`).

    Parameters
    ----------
    n : even, ``4 <= n <= 16``. scales : positive finite numbers. M : int, ``2 <= M <= 6``.
    constant : 6.16 (Corollary 14) or 7.5 (Theorem 9), any value ``>= 6.16``.
    """
    n = _check_n(n)
    M = check_int("M", M, 2, 6)
    b = np.atleast_1d(check_range("scales", scales, 0.0, math.inf, lo_open=True, hi_open=True))
    if b.ndim != 1 or b.size == 0:
        raise ValueError(f"scales must be a non-empty 1-d sequence, got shape {b.shape}")
    check_range("constant", constant, COROLLARY14_CONSTANT, math.inf, hi_open=True)
    sigma, delta = prop11_constants(n, M)
    exact = np.array([_exact(n, float(x)) for x in b])
    return pd.DataFrame(
        {
            "scale": b,
            "exact": exact,
            "certified_mip": np.asarray(certified_eta_mip(b, sigma, M, constant), dtype=float),
            "certified_dp": np.asarray(certified_eta_dp(b, delta), dtype=float),
        }
    )
