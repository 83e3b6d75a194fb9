r"""The paper's constructions: Theorem 4 is tight, and MIP does not imply DP (Theorem 5).

Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582 (Theorems 4 and 5), and its arXiv version (v1), whose proof of Theorem 4
spells out the tightness construction and whose Theorem 5 uses a *different*
counterexample. Each optimal accuracy is computed from the exact output laws.

**Paper slips handled here.**

* The tightness part of Theorem 4 is stated for ``(ε, δ)`` but the only construction
  printed (the arXiv version's proof of Theorem 4) is for δ = 0.
  :func:`theorem4_tightness_accuracy` adds a δ-mass that reveals the training set, which
  attains the bound for every δ.
* The later version's Theorem 5 sketch ("as n grows the advantage goes to 0") gives no
  number; the exact value is ``η = 1/C(n, n/2)`` (:func:`theorem5_indicator_eta`). The arXiv
  version's counterexample (publish each training record with a small probability q) has
  ``η = q/2`` for every n and *is* ``(0, q)``-DP: it only separates MIP from *pure* ε-DP,
  which is all the arXiv version claims (:func:`theorem5_publish_eta`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ._validate import check_int, check_range, scalar_or_array

__all__ = ["theorem4_tightness_accuracy", "theorem5_indicator_eta", "theorem5_publish_eta"]


@overload
def theorem4_tightness_accuracy(epsilon: float, delta: float = ...) -> float: ...
@overload
def theorem4_tightness_accuracy(
    epsilon: ArrayLike, delta: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def theorem4_tightness_accuracy(
    epsilon: ArrayLike, delta: ArrayLike = 0.0
) -> float | NDArray[np.float64]:
    r"""Optimal attacker's accuracy against Theorem 4's tightness construction (exact).

    The construction (the arXiv version's proof of Theorem 4, extended to δ > 0 here): dataset
    ``𝒟 = {0, 1}``, k = 1, target x* = 0. With probability δ the mechanism outputs
    ``("leak", D_train)``; otherwise it outputs ``("rr", D_train)`` with probability
    ``e^ε/(1 + e^ε)`` and ``("rr", 𝒟 \ D_train)`` otherwise (randomised response). It is
    ``(ε, δ)``-DP (the two output laws differ by a factor ``e^ε`` on the "rr" outputs and by
    δ on the "leak" outputs). The optimal accuracy is computed from the two output laws with
    :func:`optimal_attack_accuracy_discrete`; it equals ``δ + (1 − δ)/(1 + e^{−ε})``, the bound
    of Theorem 4, so the bound is attained.

    Parameters
    ----------
    epsilon : float or array_like
        ``0 <= epsilon < inf``.
    delta : float or array_like
        ``0 <= delta <= 1``. Arrays broadcast.

    Returns
    -------
    float or ndarray
        The optimal accuracy ``1/2 + η(ε, δ)``.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. arXiv:2211.06582v1
    (2022), proof of Theorem 4.

    Examples
    --------
    >>> theorem4_tightness_accuracy(1.0)  # 1/(1 + e^-1): Theorem 4's bound, attained
    0.731058578630
    >>> theorem4_tightness_accuracy(1.0, 0.1)  # 0.1 + 0.9/(1 + e^-1)
    0.757952720767
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True)
    dlt = check_range("delta", delta, 0.0, 1.0)
    eps, dlt = np.broadcast_arrays(eps, dlt)
    keep = special.expit(eps)  # e^ε/(1+e^ε), no overflow
    flip = special.expit(-eps)
    # outputs: (leak, {0}), (leak, {1}), (rr, {0}), (rr, {1}); x* = 0 is in D_train iff D_train = {0}
    p_in = np.stack([dlt, np.zeros_like(dlt), (1 - dlt) * keep, (1 - dlt) * flip], axis=-1)
    p_out = np.stack([np.zeros_like(dlt), dlt, (1 - dlt) * flip, (1 - dlt) * keep], axis=-1)
    acc = np.sum(np.maximum(0.5 * p_in, 0.5 * p_out), axis=-1)
    return scalar_or_array(acc, epsilon, delta)


@overload
def theorem5_indicator_eta(n: int) -> float: ...
@overload
def theorem5_indicator_eta(n: ArrayLike) -> float | NDArray[np.float64]: ...
def theorem5_indicator_eta(n: ArrayLike) -> float | NDArray[np.float64]:
    r"""Exact η of Theorem 5's counterexample (later version): ``𝒜(D_train) = 1{D_train = D*}``.

    ``𝒟 = [n]`` (n even), k = n/2, ``D* = [n/2]``. For a target ``x* ∈ D*``: output 1 happens
    only when ``D_train = D*`` (probability ``p = 1/C(n, n/2)``), and then x* is in; given
    output 0 the posterior of "in" is ``(1/2 − p)/(1 − p) < 1/2``, so the attacker says "out"
    and is right with probability 1/2 overall. Accuracy ``1/2 + p``; the same for ``x* ∉ D*``
    by symmetry. Hence

    .. math:: \eta = 1/\binom{n}{n/2} \approx \sqrt{\pi n / 2}\, 2^{-n} \to 0,

    while 𝒜 is not (ε, δ)-DP for any δ < 1 (``P(𝒜(D*) = 1) = 1``, ``P(𝒜(D') = 1) = 0`` for
    a neighbour D'). The value is computed from the exact output laws (Python integers, then
    one rounding), so it is exact to float64 and underflows to 0 only beyond n ≈ 1080.

    Parameters
    ----------
    n : int or array_like of int
        Even, ``n >= 2``.

    Returns
    -------
    float or ndarray
        η.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorem 5.

    Examples
    --------
    >>> theorem5_indicator_eta(4)  # 1 / C(4, 2)
    0.166666666667
    >>> theorem5_indicator_eta([2, 4, 6])
    array([0.5       , 0.16666667, 0.05      ])
    """
    ns = np.asarray(n)
    flat = []
    for v in np.ravel(ns).tolist():
        v = check_int("n", v, 2, even=True)
        k = v // 2
        total = math.comb(v, k)
        # output laws for x* ∈ D* (joint with membership): P(in, 1) = 1/C, P(out, 1) = 0,
        # P(in, 0) = 1/2 - 1/C, P(out, 0) = 1/2; Proposition 2 sums the larger of each pair
        p_in = (Fraction(1, total), Fraction(1, 2) - Fraction(1, total))
        p_out = (Fraction(0), Fraction(1, 2))
        acc = sum(max(a, b) for a, b in zip(p_in, p_out, strict=True))
        flat.append(float(acc - Fraction(1, 2)))
    return scalar_or_array(np.reshape(np.array(flat, dtype=float), ns.shape), n)


@overload
def theorem5_publish_eta(n: int, publish_prob: float) -> float: ...
@overload
def theorem5_publish_eta(n: ArrayLike, publish_prob: ArrayLike) -> float | NDArray[np.float64]: ...
def theorem5_publish_eta(n: ArrayLike, publish_prob: ArrayLike) -> float | NDArray[np.float64]:
    r"""Exact η of the arXiv version's Theorem 5 counterexample: publish each training record w.p. q.

    The mechanism releases ``W ⊆ D_train``, each training record included independently with
    probability ``q``. For a target x*: if ``x* ∈ W`` it is certainly in; otherwise the
    posterior odds of "in" are ``(k − |W|)/(n − k) ≤ 1`` (k = n/2), so "out" is optimal.
    The attacker errs only when x* is in but unpublished: accuracy ``1/2 + q/2``, so

    .. math:: \eta = q/2 \quad\text{for every } n,

    and any η > 0 is reached with ``q = 2η``. Adding x* moves ``P(x* ∈ W)`` from 0 to q, so
    the mechanism is not ε-DP for any ε < ∞ -- but it *is* ``(0, q)``-DP, so this example only
    separates MIP from pure DP (all the arXiv version claims); the later version's stronger
    Theorem 5 needs :func:`theorem5_indicator_eta`. (The other reading of the sketch, "publish the whole
    input with probability q", gives the same η = q/2.)

    Parameters
    ----------
    n : int or array_like of int
        Even, ``>= 2`` (η does not depend on it).
    publish_prob : float or array_like
        ``0 <= q <= 1``.

    Returns
    -------
    float or ndarray
        ``η = q/2``.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. arXiv:2211.06582v1
    (2022), Theorem 5.

    Examples
    --------
    >>> theorem5_publish_eta(8, 0.2)
    0.1
    """
    ns = np.asarray(n)
    for v in np.ravel(ns).tolist():
        check_int("n", v, 2, even=True)
    q = check_range("publish_prob", publish_prob, 0.0, 1.0)
    eta = np.broadcast_to(0.5 * q, np.broadcast_shapes(ns.shape, q.shape)).astype(float)
    return scalar_or_array(eta, n, publish_prob)
