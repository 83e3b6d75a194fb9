r"""Closed-form links between differential privacy and membership inference privacy.

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582: Section 3.4 (Theorem 4, proof in Appendix B) and Section 3.5
(Theorem 8, proof in Appendix C); the (ε, δ)-DP hypothesis-testing region is Theorem 2.1
of Kairouz, Oh and Viswanath, *The Composition Theorem for Differential Privacy*,
ICML 2015, arXiv:1311.0776.

An algorithm is *η-MIP* (Definition 1, k = n/2) when no attacker shown the output and a
record can tell whether the record was in the random training half with accuracy above
``1/2 + η``.

All functions broadcast over NumPy arrays and return a Python float when every argument
is a scalar. Out-of-domain input raises ``ValueError`` naming the parameter, its value and
the allowed range.

Typing: a float argument (or only scalars) gives a ``float``; an ``ndarray`` as the first
argument is typed to give an ``ndarray`` -- as NumPy's own stubs do, a 0-d array is the
exception: like every scalar input it returns a Python float at run time.
"""

from __future__ import annotations

import math
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ._validate import check_range, scalar_or_array

__all__ = [
    "attacker_accuracy",
    "dp_region_kink",
    "epsilon_from_eta",
    "epsilon_small_eta_approx",
    "eta_from_epsilon",
    "eta_small_epsilon_approx",
    "tpr_bound_dp",
    "tpr_bound_mip",
]


@overload
def eta_from_epsilon(epsilon: float, delta: float = ...) -> float: ...
@overload
def eta_from_epsilon(epsilon: NDArray[Any], delta: ArrayLike = ...) -> NDArray[np.float64]: ...
@overload
def eta_from_epsilon(epsilon: ArrayLike, delta: ArrayLike = ...) -> float | NDArray[np.float64]: ...
def eta_from_epsilon(epsilon: ArrayLike, delta: ArrayLike = 0.0) -> float | NDArray[np.float64]:
    r"""MIP level implied by (ε, δ)-DP (Theorem 4; tight).

    .. math:: \eta = \delta + \frac{1-\delta}{1+e^{-\varepsilon}} - \frac12
              = \frac{\delta}{2} + \frac{1-\delta}{2}\tanh\frac{\varepsilon}{2}.

    The second (algebraically identical) form is what is evaluated: it keeps full
    relative precision for tiny ε, where the printed form subtracts two numbers close
    to 1/2. At ``delta = 0`` it is ``tanh(ε/2)/2``.

    Parameters
    ----------
    epsilon : float or array_like
        ``0 <= epsilon <= inf`` (``inf`` gives 1/2).
    delta : float or array_like
        ``0 <= delta <= 1``.

    Returns
    -------
    float or ndarray
        η in ``[0, 1/2]``; the optimal attacker's accuracy is ``1/2 + η``.

    Raises
    ------
    ValueError
        If an argument is NaN or out of range.

    Notes
    -----
    The bound is tight: for every ε > 0 and 0 <= δ < 1 some (ε, δ)-DP algorithm meets it
    (proof of Theorem 4; :func:`mipcore.constructions.theorem4_tightness_accuracy`).

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorem 4.

    Examples
    --------
    >>> eta_from_epsilon(1.0)  # tanh(1/2)/2
    0.231058578630
    >>> eta_from_epsilon(1.0, delta=1e-5)
    0.231061268044
    >>> eta_from_epsilon([0.5, 1.0, 2.0])
    array([0.12245933, 0.23105858, 0.38079708])
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    dlt = check_range("delta", delta, 0.0, 1.0)
    eta = 0.5 * dlt + 0.5 * (1.0 - dlt) * np.tanh(0.5 * eps)
    return scalar_or_array(eta, epsilon, delta)


@overload
def epsilon_from_eta(eta: float, delta: float = ...) -> float: ...
@overload
def epsilon_from_eta(eta: NDArray[Any], delta: ArrayLike = ...) -> NDArray[np.float64]: ...
@overload
def epsilon_from_eta(eta: ArrayLike, delta: ArrayLike = ...) -> float | NDArray[np.float64]: ...
def epsilon_from_eta(eta: ArrayLike, delta: ArrayLike = 0.0) -> float | NDArray[np.float64]:
    r"""The largest ε whose (ε, δ)-DP still certifies η-MIP (inverse of Theorem 4).

    Inverse of :func:`eta_from_epsilon` in ε (which is increasing):

    .. math:: \varepsilon = 2\,\operatorname{artanh}\frac{2\eta-\delta}{1-\delta}
              = \log\frac{1 + 2\eta - 2\delta}{1 - 2\eta}.

    Parameters
    ----------
    eta : float or array_like
        ``delta/2 <= eta < 1/2``. ``eta = delta/2`` gives 0 (with that δ only ε = 0
        certifies it); smaller η cannot be certified by any ε at this δ.
    delta : float or array_like
        ``0 <= delta < 1``.

    Returns
    -------
    float or ndarray
        ε ``>= 0``, finite for every float η below 1/2.

    Raises
    ------
    ValueError
        If an argument is NaN or out of range, or ``eta < delta/2``.

    Notes
    -----
    Evaluated as ``log1p((4η − 2δ)/(1 − 2η))``: accurate for small ε, and ``1 − 2η`` is exact
    (Sterbenz) and positive for every float η < 1/2.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorem 4.

    Examples
    --------
    >>> epsilon_from_eta(0.1)  # log(1.2 / 0.8)
    0.405465108108
    >>> epsilon_from_eta(eta_from_epsilon(1.0))
    1.0
    >>> epsilon_from_eta(0.1, delta=0.2)  # eta = delta/2: only epsilon = 0 certifies it
    0.0
    """
    dlt = check_range("delta", delta, 0.0, 1.0, hi_open=True)
    e = check_range("eta", eta, 0.0, 0.5, hi_open=True)
    if np.any(2.0 * e < dlt):  # 2 eta < delta, not eta < delta/2: delta/2 may underflow
        bad_e, bad_d = np.broadcast_arrays(e, dlt)
        mask = 2.0 * bad_e < bad_d
        raise ValueError(
            f"eta={float(bad_e[mask].flat[0])!r} is out of range for "
            f"delta={float(bad_d[mask].flat[0])!r}: allowed delta/2 <= eta < 1/2 "
            "(with this delta no epsilon certifies a smaller eta)"
        )
    eps = np.log1p(np.maximum(4.0 * e - 2.0 * dlt, 0.0) / (1.0 - 2.0 * e))
    return scalar_or_array(eps, eta, delta)


@overload
def eta_small_epsilon_approx(epsilon: float, delta: float = ...) -> float: ...
@overload
def eta_small_epsilon_approx(
    epsilon: NDArray[Any], delta: ArrayLike = ...
) -> NDArray[np.float64]: ...
@overload
def eta_small_epsilon_approx(
    epsilon: ArrayLike, delta: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def eta_small_epsilon_approx(
    epsilon: ArrayLike, delta: ArrayLike = 0.0
) -> float | NDArray[np.float64]:
    r"""First-order approximation of Theorem 4 for small ε (Section 3.4).

    .. math:: \eta \approx \frac{\delta}{2} + \frac{(1-\delta)\,\varepsilon}{4}

    It overestimates the exact η (``tanh(x) <= x``); the error is
    ``(1−δ)(ε/4 − tanh(ε/2)/2) ≈ (1−δ) ε³/48``.

    Parameters
    ----------
    epsilon : float or array_like
        ``0 <= epsilon < inf``.
    delta : float or array_like
        ``0 <= delta <= 1``.

    Returns
    -------
    float or ndarray
        The approximate η (may exceed 1/2 for large ε: it is not a probability bound).

    Examples
    --------
    >>> eta_small_epsilon_approx(0.1)
    0.025
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True)
    dlt = check_range("delta", delta, 0.0, 1.0)
    return scalar_or_array(0.5 * dlt + 0.25 * (1.0 - dlt) * eps, epsilon, delta)


def epsilon_small_eta_approx(eta: float, delta: float = 0.0) -> float:
    r"""The small-ε rule of thumb of Theorem 4 (Section 3.4) solved for ε.

    .. math:: \varepsilon \approx \frac{4\,(\eta - \delta/2)}{1 - \delta}

    The inverse of :func:`eta_small_epsilon_approx`. The rule overestimates η for every
    ε > 0, so this ε is never above the exact :func:`epsilon_from_eta` (equal only at
    ``eta = delta/2``, where both are 0): safe, but smaller than the ε that certifies η.

    Parameters
    ----------
    eta : float
        ``delta/2 <= eta <= 1/2`` (below δ/2 no ε certifies η: δ alone gives that edge).
    delta : float
        ``0 <= delta < 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If a parameter is NaN or out of its range (the message names it).

    Examples
    --------
    >>> epsilon_small_eta_approx(0.1)  # epsilon_from_eta(0.1) is log 1.5 = 0.405...
    0.4
    """
    dlt = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    target = float(check_range("eta", eta, 0.0, 0.5))
    if 2.0 * target < dlt:  # not target < delta/2: delta/2 may underflow
        raise ValueError(
            f"eta={target!r} is below delta/2 = {dlt / 2!r}: no epsilon certifies it "
            "(allowed: delta/2 <= eta <= 1/2)"
        )
    return 4.0 * (target - dlt / 2) / (1.0 - dlt)


@overload
def attacker_accuracy(eta: float) -> float: ...
@overload
def attacker_accuracy(eta: NDArray[Any]) -> NDArray[np.float64]: ...
@overload
def attacker_accuracy(eta: ArrayLike) -> float | NDArray[np.float64]: ...
def attacker_accuracy(eta: ArrayLike) -> float | NDArray[np.float64]:
    """Best attack accuracy ``1/2 + η`` allowed by η-MIP (Definition 1, k = n/2).

    Parameters
    ----------
    eta : float or array_like
        ``0 <= eta <= 1/2``.

    Returns
    -------
    float or ndarray
        ``1/2 + eta``.

    Examples
    --------
    >>> attacker_accuracy(0.1)
    0.6
    """
    e = check_range("eta", eta, 0.0, 0.5)
    return scalar_or_array(0.5 + e, eta)


@overload
def tpr_bound_mip(fpr: float, eta: float, *, as_printed: bool = ...) -> float: ...
@overload
def tpr_bound_mip(
    fpr: NDArray[Any], eta: ArrayLike, *, as_printed: bool = ...
) -> NDArray[np.float64]: ...
@overload
def tpr_bound_mip(
    fpr: ArrayLike, eta: ArrayLike, *, as_printed: bool = ...
) -> float | NDArray[np.float64]: ...
def tpr_bound_mip(
    fpr: ArrayLike, eta: ArrayLike, *, as_printed: bool = False
) -> float | NDArray[np.float64]:
    r"""Largest true-positive rate at a given false-positive rate under η-MIP (Theorem 8, corrected).

    .. math:: \mathrm{TPR} \le \min(1, \mathrm{FPR} + 2\eta)

    **The paper's Theorem 8 prints** ``TPR <= FPR + η``, **which is false.** With
    membership prior 1/2 an attacker's accuracy is ``(1 + TPR − FPR)/2``, so η-MIP
    (accuracy <= 1/2 + η) gives exactly ``TPR − FPR <= 2η``. The proof in Appendix C
    goes wrong in its first line: ``Σ_{D ∈ D_in} P(D_train = D) P(I = 1)`` is TPR/2,
    not TPR. The corrected bound is tight: Theorem 4's randomised-response construction
    (D = {0, 1}, k = 1, report the training record with probability e^ε/(1+e^ε)) is
    η-MIP with η = tanh(ε/2)/2 and has TPR − FPR = tanh(ε/2) = 2η.

    Parameters
    ----------
    fpr : float or array_like
        ``0 <= fpr <= 1``.
    eta : float or array_like
        ``0 <= eta <= 1/2``.
    as_printed : bool
        If True, return the paper's (invalid) ``min(1, fpr + eta)`` -- kept only to show
        the difference; it is not a bound.

    Returns
    -------
    float or ndarray
        The TPR bound, in ``[fpr, 1]``.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorem 8 (printed with η instead of 2η).

    Examples
    --------
    >>> tpr_bound_mip(0.01, 0.1)
    0.21
    >>> tpr_bound_mip(0.01, 0.1, as_printed=True)  # the printed variant: not a bound
    0.11
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    e = check_range("eta", eta, 0.0, 0.5)
    factor = 1.0 if as_printed else 2.0
    return scalar_or_array(np.minimum(1.0, f + factor * e), fpr, eta)


@overload
def tpr_bound_dp(fpr: float, epsilon: float, delta: float = ...) -> float: ...
@overload
def tpr_bound_dp(
    fpr: NDArray[Any], epsilon: ArrayLike, delta: ArrayLike = ...
) -> NDArray[np.float64]: ...
@overload
def tpr_bound_dp(
    fpr: ArrayLike, epsilon: ArrayLike, delta: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def tpr_bound_dp(
    fpr: ArrayLike, epsilon: ArrayLike, delta: ArrayLike = 0.0
) -> float | NDArray[np.float64]:
    r"""Largest TPR at a given FPR for an (ε, δ)-DP mechanism.

    The hypothesis-testing region of Kairouz, Oh and Viswanath (2015, Theorem 2.1),
    restated in the proof of Theorem 4 (Appendix B):

    .. math:: \mathrm{TPR} \le \min\bigl(1,\ e^{\varepsilon}\mathrm{FPR} + \delta,\
              1 - e^{-\varepsilon}(1 - \delta - \mathrm{FPR})\bigr).

    The two sloped pieces meet at :func:`dp_region_kink`.

    Parameters
    ----------
    fpr : float or array_like
        ``0 <= fpr <= 1``.
    epsilon : float or array_like
        ``0 <= epsilon <= inf`` (``inf``: no constraint, TPR <= 1).
    delta : float or array_like
        ``0 <= delta <= 1``.

    Returns
    -------
    float or ndarray
        The TPR bound, in ``[fpr, 1]`` (never below random guessing).

    Notes
    -----
    The far piece is evaluated as ``−expm1(−ε) + e^{−ε}(δ + FPR)``: the printed
    ``1 − e^{−ε}(1 − δ − FPR)`` cancels catastrophically at ε ≈ 0 and small FPR (at ε = 0
    it returned ``1 − (1 − FPR)``, up to 1e-16 below FPR). The result is finally clamped to
    ``>= FPR``, which holds exactly (every DP region contains the diagonal), so rounding
    can never put the bound below random guessing.

    References
    ----------
    Kairouz, Oh, Viswanath. *The Composition Theorem for Differential Privacy*. ICML 2015,
    arXiv:1311.0776, Theorem 2.1.

    Examples
    --------
    >>> tpr_bound_dp(0.01, 1.0)  # e * 0.01
    0.0271828182846
    >>> tpr_bound_dp(0.9, 1.0)  # the far piece: 1 - e^-1 (1 - 0.9)
    0.963212055883
    >>> tpr_bound_dp(1e-7, 0.0)  # epsilon = 0: exactly the diagonal
    1e-07
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    dlt = check_range("delta", delta, 0.0, 1.0)
    f, eps, dlt = np.broadcast_arrays(f, eps, dlt)
    finite = np.isfinite(eps)
    e_safe = np.where(finite, eps, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # e^eps * fpr may overflow for huge eps (then min() picks 1); at fpr = 0 it is 0, not inf*0.
        growth = np.where(f > 0, np.exp(e_safe) * f, 0.0) + dlt
    far = -np.expm1(-e_safe) + np.exp(-e_safe) * (dlt + f)
    bound = np.minimum(1.0, np.minimum(growth, far))
    bound = np.where(finite, np.maximum(bound, f), 1.0)
    return scalar_or_array(bound, fpr, epsilon, delta)


@overload
def dp_region_kink(epsilon: float, delta: float = ...) -> float: ...
@overload
def dp_region_kink(epsilon: NDArray[Any], delta: ArrayLike = ...) -> NDArray[np.float64]: ...
@overload
def dp_region_kink(epsilon: ArrayLike, delta: ArrayLike = ...) -> float | NDArray[np.float64]: ...
def dp_region_kink(epsilon: ArrayLike, delta: ArrayLike = 0.0) -> float | NDArray[np.float64]:
    r"""The FPR where the two sloped pieces of the (ε, δ)-DP region meet.

    .. math:: \mathrm{FPR}^* = \frac{1-\delta}{1+e^{\varepsilon}},\qquad
              \mathrm{TPR}^* = 1 - \mathrm{FPR}^*,\qquad
              \mathrm{TPR}^* - \mathrm{FPR}^* = \delta + (1-\delta)\tanh\frac{\varepsilon}{2}
              = 2\eta(\varepsilon, \delta).

    At the kink ``e^ε FPR + δ = 1 − e^{−ε}(1 − δ − FPR)``; it lies on the anti-diagonal
    ``TPR = 1 − FPR``, and there the gap to the diagonal is largest, equal to twice
    Theorem 4's η (:func:`eta_from_epsilon`) -- the point where the DP region touches the
    corrected Theorem 8 line ``TPR = FPR + 2η``.

    Parameters
    ----------
    epsilon : float or array_like
        ``0 <= epsilon <= inf`` (``inf`` gives 0).
    delta : float or array_like
        ``0 <= delta <= 1``.

    Returns
    -------
    float or ndarray
        ``FPR*`` in ``[0, 1/2]``. Evaluated as ``(1 − δ) expit(−ε)``: no overflow for huge ε.

    References
    ----------
    Kairouz, Oh, Viswanath. *The Composition Theorem for Differential Privacy*. ICML 2015,
    arXiv:1311.0776, Theorem 2.1.

    Examples
    --------
    >>> dp_region_kink(0.0)  # no privacy loss: the diagonal, "kink" at 1/2
    0.5
    >>> dp_region_kink(1.0)  # 1 / (1 + e)
    0.268941421370
    >>> dp_region_kink(1e4)  # far beyond exp's range, no overflow
    0.0
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    dlt = check_range("delta", delta, 0.0, 1.0)
    return scalar_or_array((1.0 - dlt) * special.expit(-eps), epsilon, delta)
