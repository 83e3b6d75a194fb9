"""Closed-form links between differential privacy and membership inference privacy.

Source: ``000_ece03c98c31c7b12.txt`` (Provable Membership Inference Privacy),
Section 3.4 (Theorem 4 and its proof in Appendix B) and Section 3.5 (Theorem 8,
proof in Appendix C).

An algorithm is *eta-MIP* (Definition 1, k = n/2) when no attacker shown the
output and a record can tell whether the record was in the random training half
with accuracy above ``1/2 + eta``.

All functions broadcast over NumPy arrays and return a Python float when every
argument is a scalar. Out-of-domain input raises ``ValueError`` naming the
parameter, its value and the allowed range.
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import check_range, scalar_or_array

__all__ = [
    "attacker_accuracy",
    "epsilon_from_eta",
    "eta_from_epsilon",
    "eta_small_epsilon_approx",
    "tpr_bound_dp",
    "tpr_bound_mip",
]


def eta_from_epsilon(epsilon, delta=0.0):
    r"""MIP level implied by (epsilon, delta)-DP (Theorem 4; tight).

    .. math:: \eta = \delta + \frac{1-\delta}{1+e^{-\varepsilon}} - \frac12
              = \frac{\delta}{2} + \frac{1-\delta}{2}\tanh\frac{\varepsilon}{2}.

    The second (algebraically identical) form is what is evaluated: it keeps full
    relative precision for tiny epsilon, where the printed form subtracts two
    numbers close to 1/2. At ``delta = 0`` it is ``tanh(epsilon/2)/2``.

    Parameters
    ----------
    epsilon : float or array, ``0 <= epsilon <= inf`` (``inf`` gives 1/2).
    delta : float or array, ``0 <= delta <= 1``.

    Returns
    -------
    eta : float or ndarray in ``[0, 1/2]``; the optimal attacker's accuracy is ``1/2 + eta``.

    Notes
    -----
    The bound is tight: for every epsilon > 0 and 0 <= delta < 1 some
    (epsilon, delta)-DP algorithm meets it (proof of Theorem 4, Appendix B).
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    dlt = check_range("delta", delta, 0.0, 1.0)
    eta = 0.5 * dlt + 0.5 * (1.0 - dlt) * np.tanh(0.5 * eps)
    return scalar_or_array(eta, epsilon, delta)


def epsilon_from_eta(eta, delta=0.0):
    r"""The largest epsilon whose (epsilon, delta)-DP still certifies eta-MIP.

    Inverse of :func:`eta_from_epsilon` in epsilon (which is increasing):

    .. math:: \varepsilon = 2\,\operatorname{artanh}\frac{2\eta-\delta}{1-\delta}
              = \log\frac{1 + 2\eta - 2\delta}{1 - 2\eta}.

    Parameters
    ----------
    eta : float or array, ``delta/2 <= eta < 1/2``. ``eta = delta/2`` gives 0
        (with that delta only epsilon = 0 certifies it); smaller eta cannot be
        certified by any epsilon at this delta.
    delta : float or array, ``0 <= delta < 1``.

    Returns
    -------
    epsilon : float or ndarray, ``>= 0``.
    """
    dlt = check_range("delta", delta, 0.0, 1.0, hi_open=True)
    e = check_range("eta", eta, 0.0, 0.5, hi_open=True)
    if np.any(2.0 * e < dlt):  # 2 eta < delta, not eta < delta/2: delta/2 may underflow
        bad_e, bad_d = np.broadcast_arrays(e, dlt)
        mask = 2.0 * bad_e < bad_d
        raise ValueError(
            f"eta={float(bad_e[mask].flat[0])!r} is out of range for delta={float(bad_d[mask].flat[0])!r}: "
            "allowed delta/2 <= eta < 1/2 (with this delta no epsilon certifies a smaller eta)"
        )
    # epsilon = log((1 + 2 eta - 2 delta)/(1 - 2 eta)) = log1p((4 eta - 2 delta)/(1 - 2 eta)):
    # accurate for small epsilon, and 1 - 2 eta is exact (Sterbenz) and > 0 for every float
    # eta < 1/2, so the result stays finite right up to the largest float below 1/2.
    eps = np.log1p(np.maximum(4.0 * e - 2.0 * dlt, 0.0) / (1.0 - 2.0 * e))
    return scalar_or_array(eps, eta, delta)


def eta_small_epsilon_approx(epsilon, delta=0.0):
    r"""First-order approximation of Theorem 4 for small epsilon (Section 3.4).

    .. math:: \eta \approx \frac{\delta}{2} + \frac{(1-\delta)\,\varepsilon}{4}

    It overestimates the exact eta (tanh(x) <= x); the error is
    ``(1-delta) * (eps/4 - tanh(eps/2)/2) ~ (1-delta) eps^3 / 48``.

    Parameters
    ----------
    epsilon : ``0 <= epsilon < inf``; delta : ``0 <= delta <= 1``.
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True)
    dlt = check_range("delta", delta, 0.0, 1.0)
    return scalar_or_array(0.5 * dlt + 0.25 * (1.0 - dlt) * eps, epsilon, delta)


def attacker_accuracy(eta):
    """Best attack accuracy ``1/2 + eta`` allowed by eta-MIP (Definition 1, k = n/2).

    ``eta`` in ``[0, 1/2]``.
    """
    e = check_range("eta", eta, 0.0, 0.5)
    return scalar_or_array(0.5 + e, eta)


def tpr_bound_mip(fpr, eta, *, as_printed: bool = False):
    r"""Largest true-positive rate at a given false-positive rate under eta-MIP (Theorem 8, corrected).

    .. math:: \mathrm{TPR} \le \min(1, \mathrm{FPR} + 2\eta)

    **The paper's Theorem 8 prints** ``TPR <= FPR + eta``, **which is false.** With
    membership prior 1/2 an attacker's accuracy is ``(1 + TPR - FPR)/2``, so eta-MIP
    (accuracy <= 1/2 + eta) gives exactly ``TPR - FPR <= 2 eta``. The proof in Appendix C
    goes wrong in its first line: ``sum_{D in D_in} P(D_train = D) P(I = 1)`` is TPR/2,
    not TPR. The corrected bound is tight: Theorem 4's randomised-response construction
    (D = {0, 1}, k = 1, report the training record with probability e^eps/(1+e^eps)) is
    eta-MIP with eta = tanh(eps/2)/2 and has TPR - FPR = tanh(eps/2) = 2 eta.

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    eta : float or array, ``0 <= eta <= 1/2``.
    as_printed : if True, return the paper's (invalid) ``min(1, fpr + eta)`` -- kept
        only to show the difference; it is not a bound.
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    e = check_range("eta", eta, 0.0, 0.5)
    factor = 1.0 if as_printed else 2.0
    return scalar_or_array(np.minimum(1.0, f + factor * e), fpr, eta)


def tpr_bound_dp(fpr, epsilon, delta=0.0):
    r"""Largest TPR at a given FPR for an (epsilon, delta)-DP mechanism.

    The hypothesis-testing region of Kairouz, Oh and Viswanath (2015, Thm 2.1),
    restated in the proof of Theorem 4 (Appendix B of ``000``):

    .. math:: \mathrm{TPR} \le \min\bigl(1,\ e^{\varepsilon}\mathrm{FPR} + \delta,\
              1 - e^{-\varepsilon}(1 - \delta - \mathrm{FPR})\bigr).

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    epsilon : float or array, ``0 <= epsilon <= inf`` (``inf``: no constraint, TPR <= 1).
    delta : float or array, ``0 <= delta <= 1``.
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
    second = 1.0 - np.exp(-e_safe) * (1.0 - dlt - f)
    bound = np.minimum(1.0, np.minimum(growth, second))
    bound = np.where(finite, bound, 1.0)
    return scalar_or_array(bound, fpr, epsilon, delta)
