"""μ-Gaussian DP in attacker terms: η, the trade-off curve, the privacy profile and its inverse.

Every μ here is stated for the replace-one relation (:class:`~mipcore.guarantees.Gdp` with
``relation=Relation.ADD_OR_REMOVE_ONE`` doubles an add/remove μ first). "Module docstring"
in the docstrings below means the package's, :mod:`mipcore.guarantees` (why η is half the
total variation). :func:`~mipcore.guarantees.attacker_bound` sets the closed form beside the
profile, single-point and zCDP routes.

References
----------
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
- Balle, Wang. *Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising*. ICML 2018, arXiv:1805.06530.
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4 and Lemma 12).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special
from scipy.stats import norm

from .._validate import check_range, scalar_or_array
from ._common import FloatOrArray


def eta_from_gdp(mu: ArrayLike) -> FloatOrArray:
    r"""MIP level of a μ-GDP mechanism (replace-one): :math:`\eta = \Phi(\mu/2) - 1/2`.

    A μ-GDP pair is at least as hard to tell apart as N(0, 1) from N(μ, 1), whose total
    variation is :math:`2\Phi(\mu/2) - 1`; η is half of it (module docstring). Evaluated as
    :math:`\tfrac12\,\mathrm{erf}(\mu/(2\sqrt2))`, which keeps full relative precision for
    tiny μ.

    Parameters
    ----------
    mu : float or array, ``0 <= mu <= inf`` (``inf`` gives 1/2). The GDP parameter for the
        replace-one relation (for an add/remove guarantee use 2μ, or :class:`Gdp`).

    Returns
    -------
    eta : float or ndarray in ``[0, 1/2]``.

    Raises
    ------
    ValueError
        If ``mu`` is negative or NaN.

    References
    ----------
    Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383
    (Corollary 2.13 for the profile). Izzo et al., TMLR 2024,
    arXiv:2211.06582, Theorem 4's pairing argument.

    Examples
    --------
    >>> round(eta_from_gdp(1.0), 6)
    0.191462
    >>> eta_from_gdp(0.0)
    0.0
    """
    m = check_range("mu", mu, 0.0, math.inf)
    eta = 0.5 * special.erf(m / (2.0 * math.sqrt(2.0)))
    return scalar_or_array(eta, mu)


def tpr_bound_gdp(fpr: ArrayLike, mu: ArrayLike) -> FloatOrArray:
    r"""Largest TPR at a given FPR under μ-GDP: :math:`1 - \Phi(\Phi^{-1}(1-\mathrm{FPR}) - \mu)`.

    Equal to :math:`\Phi(\Phi^{-1}(\mathrm{FPR}) + \mu)`, evaluated as
    ``norm.sf(norm.isf(fpr) - mu)``: both tails are computed directly, so FPR = 1e-300 and
    TPR near 1 keep their relative precision (no ``1 - tiny``).

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    mu : float or array, ``0 <= mu <= inf`` (``inf``: TPR 1 at every FPR).

    Returns
    -------
    tpr : float or ndarray, the trade-off curve's upper boundary.

    Raises
    ------
    ValueError
        If ``fpr`` is outside [0, 1] or ``mu`` negative.

    References
    ----------
    Dong, Roth, Su, arXiv:1905.02383, Equation (6) (the trade-off function G_μ).

    Examples
    --------
    >>> round(tpr_bound_gdp(0.01, 1.0), 6)
    0.092362
    >>> tpr_bound_gdp(1e-300, 1.0) > 1e-300
    True
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    m = check_range("mu", mu, 0.0, math.inf)
    f, m = np.broadcast_arrays(f, m)
    finite = np.isfinite(m)
    tpr = norm.sf(norm.isf(f) - np.where(finite, m, 0.0))
    tpr = np.where(finite, tpr, 1.0)
    return scalar_or_array(tpr, fpr, mu)


def delta_from_gdp(epsilon: ArrayLike, mu: ArrayLike) -> FloatOrArray:
    r"""Privacy profile of μ-GDP: :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2)`.

    Computed as :math:`\Phi(a)\,(-\mathrm{expm1}(\varepsilon + \log\Phi(b) - \log\Phi(a)))`
    with ``log_ndtr``, so it keeps relative precision where δ is tiny.

    Parameters
    ----------
    epsilon : float or array, ``0 <= epsilon <= inf``.
    mu : float or array, ``0 <= mu <= inf``.

    Returns
    -------
    delta : float or ndarray in [0, 1].

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    Balle, Wang. ICML 2018, arXiv:1805.06530, Theorem 8 (analytic Gaussian mechanism);
    Dong, Roth, Su, arXiv:1905.02383, Corollary 2.13.
    """
    e = check_range("epsilon", epsilon, 0.0, math.inf)
    m = check_range("mu", mu, 0.0, math.inf)
    e, m = np.broadcast_arrays(e, m)
    ok = (m > 0) & np.isfinite(m) & np.isfinite(e)
    ms = np.where(ok, m, 1.0)
    es = np.where(ok, e, 0.0)
    la = special.log_ndtr(-es / ms + ms / 2.0)
    lb = special.log_ndtr(-es / ms - ms / 2.0)
    d = np.exp(la) * -np.expm1(np.minimum(es + lb - la, 0.0))
    d = np.where(ok, d, np.where(np.isinf(m) & np.isfinite(e), 1.0, 0.0))
    return scalar_or_array(np.clip(d, 0.0, 1.0), epsilon, mu)


def epsilon_from_gdp(delta: ArrayLike, mu: ArrayLike) -> FloatOrArray:
    """Smallest ε with ``delta_from_gdp(ε, mu) <= delta`` (rounded up so it certifies).

    Parameters
    ----------
    delta : float or array, ``0 < delta <= 1``.
    mu : float or array, ``0 <= mu <= inf``.

    Returns
    -------
    epsilon : float or ndarray (0 when δ ≥ δ(0) = 2Φ(μ/2) − 1; inf when μ = inf).

    Raises
    ------
    ValueError
        If an argument is out of range.
    """
    d = check_range("delta", delta, 0.0, 1.0, lo_open=True)
    m = check_range("mu", mu, 0.0, math.inf)
    d, m = np.broadcast_arrays(d, m)
    out = np.empty(d.shape)
    for idx in np.ndindex(d.shape):
        out[idx] = _epsilon_from_gdp_scalar(float(d[idx]), float(m[idx]))
    return scalar_or_array(out, delta, mu)


def _epsilon_from_gdp_scalar(dl: float, mu: float) -> float:
    if mu == 0.0:
        return 0.0
    if math.isinf(mu):
        return 0.0 if dl >= 1.0 else math.inf

    def delta_at(e: float) -> float:
        return float(delta_from_gdp(e, mu))

    if delta_at(0.0) <= dl:
        return 0.0
    hi = mu * mu / 2.0 + mu * float(norm.isf(dl)) + 1.0  # δ(hi) <= Φ(−isf(δ) − 1/μ) < δ
    eps = float(optimize.brentq(lambda e: delta_at(e) - dl, 0.0, hi, xtol=1e-14, rtol=1e-14))
    while delta_at(eps) > dl:  # round up: the answer must certify
        eps = eps * (1.0 + 1e-12) + 1e-15
    return eps
