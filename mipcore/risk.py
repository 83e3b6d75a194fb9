r"""What a privacy guarantee means for the people in the data: the best attacker's reach.

A membership attacker is shown a release and a person's record and says "member" or "not a
member". Any such rule has a true-positive rate (TPR: the share of members it names) and a
false-positive rate (FPR: the share of non-members it wrongly accuses). A guarantee limits
which pairs (FPR, TPR) are reachable:

* **(ε, δ)-DP** -- the hypothesis-testing region of Kairouz, Oh and Viswanath (2015,
  Thm 2.1), restated in the proof of Theorem 4 of Izzo, Yoon, Arık and Zou, *Provable
  Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582:
  ``TPR ≤ min(1, e^ε FPR + δ, 1 − e^{−ε}(1 − δ − FPR))``
  (:func:`mipcore.bounds.tpr_bound_dp`). It holds for the two release laws of the membership
  game (``p_in``: the person is in the training half, ``p_out``: not), because with k = n/2
  the training halves with and without the person pair up as replace-one neighbours.
* **η-MIP** -- the corrected Theorem 8 of the same paper: ``TPR ≤ min(1, FPR + 2η)``
  (:func:`mipcore.bounds.tpr_bound_mip`; the paper prints ``FPR + η``, which is false). η-MIP
  says exactly that the total-variation distance of ``p_in`` and ``p_out`` is at most 2η, so
  its region is the (0, 2η)-DP region: a rule may name a share 2η of the members without
  accusing anyone.

Both regions are tight: randomised response that tells the truth with probability
``e^ε/(1 + e^ε)``, plus a δ-mass that reveals membership outright, reaches every point of the
(ε, δ) boundary (with ε = 0, δ = 2η: of the η boundary). When both guarantees are given the
reachable set is the intersection (the smaller TPR).

**Membership prior π.** The regions constrain ``p_in`` and ``p_out`` only; the prior π is the
attacker's belief that the person is a member before seeing the release. Everything below
reweights the same two release laws by π (the usual Bayesian reading of DP); π = 1/2 is the
membership game of Definition 1.

**Posterior and precision.** For a *named* person the attacker's posterior after a release y is
``π p_in(y) / (π p_in(y) + (1 − π) p_out(y))``.

* Pure ε-DP bounds the likelihood ratio ``p_in/p_out`` by ``e^ε`` at *every* outcome, so the
  posterior is at most ``π e^ε/(π e^ε + 1 − π)`` (:func:`member_posterior_bound`).
* With δ > 0 no outcome-wise bound exists: the δ-mass may reveal membership, where the ratio is
  infinite, so the worst-case posterior is **1** -- :func:`member_posterior_bound` says so
  instead of inventing a number. Two sound statements remain:

  - *precision of a decision rule* (:func:`ppv_bound`): a rule operating at FPR f names members
    with positive predictive value ``PPV = π TPR/(π TPR + (1 − π) f)``, which is largest at the
    largest TPR. For δ > 0 it tends to 1 as f → 0 (TPR = δ at f = 0); at a stated f it is a
    real bound, and at δ = 0 its supremum over f is the pure-ε posterior;
  - *posterior except with small probability* (:func:`member_posterior_tail_bound`): the set B
    of outcomes with ratio above ``e^{ε'}`` (ε' > ε) satisfies
    ``p_in(B) ≤ e^ε p_out(B) + δ < e^{ε − ε'} p_in(B) + δ``, so ``p_in(B) < δ/(1 − e^{ε−ε'})``.
    Choosing ε' = ε − log(1 − δ/β) makes that β: except with probability β over the release
    (for a member; e^{−ε'}β for a non-member) the posterior is at most the pure-ε' value.

* η-MIP alone allows TPR = 2η at FPR = 0, so its worst-case posterior and its PPV at FPR 0 are 1
  for every η > 0 (:func:`ppv_bound` with ``eta``).

Which of the two to quote for a guarantee -- the posterior bound or the precision at a stated
FPR (:func:`ppv`, from any TPR bound) -- is decided once, by :func:`named_confidence`.

**Best accuracy at prior π** (:func:`best_accuracy`) is ``max π TPR + (1 − π)(1 − FPR)`` over the
region: a linear objective over a convex polygon, so it is attained at a vertex of the upper
boundary, which is piecewise linear. For DP the vertices are ``(0, δ)``,
``((1−δ)/(1+e^ε), δ + (1−δ) e^ε/(1+e^ε))``, ``(1 − δ, 1)``; for MIP ``(0, 2η)``, ``(1 − 2η, 1)``;
for both, also the crossings of their edges. At π = 1/2 the value is ``1/2 + min(η, η(ε, δ))``
(Theorem 4). :func:`icon_array` turns these numbers into whole people -- 100, 1 000 or
10 000, an attacker the guarantee allows, every count rounded down (never better for the
attacker than the bound) -- also for a guarantee given as a trade-off curve
(:class:`TradeOffCurve`: μ-GDP, a DP-SGD run), and :func:`comparison_table` tabulates them
over ε and δ at one prior.

All formula functions broadcast over NumPy arrays and return a Python float for scalar input.
Out-of-domain input raises ``ValueError`` naming the parameter.

References
----------
Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582
(Theorem 4, Theorem 8 corrected). Kairouz, Oh, Viswanath. *The Composition Theorem for
Differential Privacy*. ICML 2015, arXiv:1311.0776 (Theorem 2.1, the (ε, δ) region).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ._validate import check_int, check_range, scalar_or_array
from .bounds import eta_from_epsilon, tpr_bound_dp, tpr_bound_mip

if TYPE_CHECKING:
    from .guarantees import AttackerBound

__all__ = [
    "COMPARISON_DELTAS",
    "COMPARISON_EPSILONS",
    "ICON_FPR_CAPS",
    "ICON_POPULATIONS",
    "ComparisonRow",
    "ComparisonTable",
    "Confidence",
    "IconArray",
    "NamingAtCap",
    "TradeOffCurve",
    "best_accuracy",
    "best_operating_point",
    "best_tpr",
    "comparison_table",
    "icon_array",
    "member_posterior_bound",
    "member_posterior_tail_bound",
    "named_confidence",
    "ppv",
    "ppv_bound",
]

#: The FPR caps of the icon array: 1 %, 5 %, 10 % of the non-members wrongly accused.
ICON_FPR_CAPS = (0.01, 0.05, 0.10)
#: The ε and δ of the comparison table.
COMPARISON_EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0)
COMPARISON_DELTAS = (0.0, 1e-5)
_ICON_PEOPLE_MAX = 10_000
_ROUND_DECIMALS = 9  # expected counts are rounded to 9 decimals before floor


# --------------------------------------------------------------------------- validation


def _guarantee(epsilon, delta, eta):
    """Validated (eps, delta, eta) arrays; eps = inf / eta = 1/2 where not given (no constraint)."""
    if epsilon is None and eta is None:
        raise ValueError(
            "epsilon=None and eta=None: give epsilon (with optional delta), eta, or both"
        )
    dlt = check_range("delta", delta, 0.0, 1.0)
    if epsilon is None:
        if np.any(dlt != 0.0):
            raise ValueError(
                f"delta={delta!r} was given without epsilon: delta belongs to an (epsilon, delta) "
                "guarantee; pass epsilon too"
            )
        eps = np.asarray(math.inf)
    else:
        eps = check_range("epsilon", epsilon, 0.0, math.inf)
    e = np.asarray(0.5) if eta is None else check_range("eta", eta, 0.0, 0.5)
    return eps, dlt, e


def _check_prior(prior) -> NDArray[np.float64]:
    return check_range(
        "prior",
        prior,
        0.0,
        1.0,
        lo_open=True,
        hi_open=True,
        hint="the probability that the person is a member before the release is seen",
    )


def _logit(p: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.log(p) - np.log1p(-p)


# --------------------------------------------------------------------------- TPR, accuracy


def best_tpr(
    fpr: ArrayLike,
    *,
    epsilon: ArrayLike | None = None,
    delta: ArrayLike = 0.0,
    eta: ArrayLike | None = None,
) -> float | NDArray[np.float64]:
    r"""The largest TPR any membership attacker reaches at a given FPR under the guarantee(s).

    .. math:: \mathrm{TPR} \le \min\bigl(1,\ e^{\varepsilon}\mathrm{FPR} + \delta,\
              1 - e^{-\varepsilon}(1 - \delta - \mathrm{FPR}),\ \mathrm{FPR} + 2\eta\bigr)

    The (ε, δ) terms are the DP hypothesis-testing region (:func:`mipcore.bounds.tpr_bound_dp`),
    the η term is the corrected Theorem 8 (:func:`mipcore.bounds.tpr_bound_mip`); terms of a
    guarantee not given are dropped. Every value is attained (module docstring; with both
    guarantees, by a pair of release laws whose region is exactly the intersection, which is
    convex and symmetric), so this is the exact frontier, not just a bound.

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    epsilon : float or array, ``0 <= epsilon <= inf``, or None (no DP guarantee).
    delta : float or array, ``0 <= delta <= 1``; must be 0 when ``epsilon`` is None.
    eta : float or array, ``0 <= eta <= 1/2``, or None (no MIP guarantee).

    Returns
    -------
    tpr : float or ndarray in ``[fpr, 1]``.

    Raises
    ------
    ValueError
        If neither ``epsilon`` nor ``eta`` is given, if ``delta`` is given without
        ``epsilon``, or if a value is out of its range.

    Examples
    --------
    >>> round(best_tpr(0.01, epsilon=1.0), 6)  # e^1 * 0.01
    0.027183
    >>> round(best_tpr(0.0, epsilon=1.0, delta=1e-5), 8)  # the delta-mass at FPR 0
    1e-05
    >>> round(best_tpr(0.01, eta=0.1), 12)  # corrected Theorem 8: FPR + 2 eta
    0.21
    >>> round(best_tpr(0.01, epsilon=1.0, eta=0.001), 6)  # the tighter of both
    0.012
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    eps, dlt, e = _guarantee(epsilon, delta, eta)
    tpr = _frontier(f, eps, dlt, e, use_dp=epsilon is not None, use_mip=eta is not None)
    return scalar_or_array(tpr, fpr, epsilon, delta, eta)


def _candidates(eps, dlt, e) -> NDArray[np.float64]:
    """FPRs containing every vertex of the upper boundary of the region, last axis (8,).

    Vertices of ``min(e^ε f + δ, e^{−ε} f + 1 − e^{−ε}(1 − δ), f + 2η, 1)`` on [0, 1] are
    pairwise crossings of these lines (or 0, 1). Crossings that are not vertices, or fall
    outside [0, 1] (clipped), are still feasible FPRs, so they never overstate the maximum.
    """
    eps, dlt, e = np.broadcast_arrays(eps, dlt, e)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        f1 = (1.0 - dlt) * special.expit(-eps)  # DP slope e^ε meets slope e^-ε
        f2 = (1.0 - dlt) * np.exp(-eps)  # e^ε f + δ meets 1
        f3 = 1.0 - dlt  # the e^-ε line meets 1
        f4 = 1.0 - 2.0 * e  # f + 2η meets 1
        f5 = (2.0 * e - dlt) / np.expm1(eps)  # e^ε f + δ meets f + 2η
        f6 = (1.0 - 2.0 * e - np.exp(-eps) * (1.0 - dlt)) / -np.expm1(-eps)  # e^-ε line meets f+2η
    zero = np.zeros(eps.shape)
    cand = np.stack([zero, f1, f2, f3, f4, f5, f6, zero + 1.0], axis=-1)
    cand = np.where(np.isfinite(cand), cand, 0.0)
    return np.clip(cand, 0.0, 1.0)


def _frontier(f, eps, dlt, e, *, use_dp: bool, use_mip: bool) -> NDArray[np.float64]:
    """best_tpr on validated arrays.

    The final ``max(·, f)`` is part of the region (guessing at random reaches TPR = FPR) and
    is redundant in exact arithmetic; in float64 it stops the far DP edge
    ``1 − e^{−ε}(1 − δ − f)``, evaluated by :func:`mipcore.bounds.tpr_bound_dp` with a
    cancellation, from undercutting the diagonal at ε ≈ 0 and tiny f (absolute error ~1e-16,
    relative error ~1e-16/f).
    """
    tpr = np.ones(np.broadcast_shapes(np.shape(f), eps.shape, dlt.shape, e.shape))
    if use_dp:
        tpr = np.minimum(tpr, tpr_bound_dp(f, eps, dlt))
    if use_mip:
        tpr = np.minimum(tpr, tpr_bound_mip(f, e))
    return np.maximum(np.asarray(tpr, dtype=float), f)


def _best_point(prior, epsilon, delta, eta):
    """(accuracy, fpr, tpr) of the Bayes-optimal attacker at prior π, as arrays."""
    pi = _check_prior(prior)
    eps, dlt, e = _guarantee(epsilon, delta, eta)
    shape = np.broadcast_shapes(pi.shape, eps.shape, dlt.shape, e.shape)
    pi, eps, dlt, e = (np.broadcast_to(a, shape) for a in (pi, eps, dlt, e))
    cand = _candidates(eps, dlt, e)  # (..., 8)
    ex = (..., None)
    t = _frontier(
        cand, eps[ex], dlt[ex], e[ex], use_dp=epsilon is not None, use_mip=eta is not None
    )
    acc = pi[ex] * t + (1.0 - pi[ex]) * (1.0 - cand)
    i = np.argmax(acc, axis=-1)[..., None]  # first maximum: a fixed tie-break
    take = np.take_along_axis
    best = np.minimum(1.0, take(acc, i, -1)[..., 0])
    return best, take(cand, i, -1)[..., 0], take(t, i, -1)[..., 0]


def best_accuracy(
    prior: ArrayLike = 0.5,
    *,
    epsilon: ArrayLike | None = None,
    delta: ArrayLike = 0.0,
    eta: ArrayLike | None = None,
) -> float | NDArray[np.float64]:
    r"""Bayes-optimal accuracy of a membership attacker at prior π under the guarantee(s).

    .. math:: \max_{(\mathrm{FPR},\,\mathrm{TPR})\in R}
              \pi\,\mathrm{TPR} + (1-\pi)(1-\mathrm{FPR})

    over the region R of :func:`best_tpr` (exact: the maximum of a linear function over a
    polygon, taken over its vertices; see the module docstring). At π = 1/2 it is
    ``1/2 + η`` with η the smaller of the given η and Theorem 4's ``η(ε, δ)``; for other priors
    it is never below ``max(π, 1 − π)`` (always answer the likelier side).

    Parameters
    ----------
    prior : float or array, ``0 < prior < 1``.
    epsilon, delta, eta : the guarantee(s), as in :func:`best_tpr`.

    Returns
    -------
    accuracy : float or ndarray in ``[max(π, 1−π), 1]``.

    Examples
    --------
    >>> round(best_accuracy(0.5, epsilon=1.0), 6)  # 1/2 + tanh(1/2)/2, Theorem 4
    0.731059
    >>> best_accuracy(0.5, eta=0.1)
    0.6
    >>> round(best_accuracy(0.01, epsilon=1.0), 6)  # at prior 1 %, "never a member" is best
    0.99
    """
    acc, _, _ = _best_point(prior, epsilon, delta, eta)
    return scalar_or_array(acc, prior, epsilon, delta, eta)


def best_operating_point(
    prior: float,
    *,
    epsilon: float | None = None,
    delta: float = 0.0,
    eta: float | None = None,
) -> tuple[float, float]:
    """``(FPR, TPR)`` at which the Bayes-optimal attacker of :func:`best_accuracy` operates.

    A vertex of the region; where several vertices tie, the one with the smallest FPR is
    returned (a fixed choice; the accuracy is the same). Scalar parameters only.
    """
    for name, value in (("prior", prior), ("epsilon", epsilon), ("delta", delta), ("eta", eta)):
        if value is not None and np.ndim(value) != 0:
            raise ValueError(f"{name}={value!r} must be a scalar")
    _, f, t = _best_point(prior, epsilon, delta, eta)
    return float(f), float(t)


# --------------------------------------------------------------------------- posterior, PPV


def member_posterior_bound(
    prior: ArrayLike, *, epsilon: ArrayLike, delta: ArrayLike = 0.0
) -> float | NDArray[np.float64]:
    r"""The largest posterior probability of membership for a named person, at prior π.

    .. math:: \frac{\pi e^{\varepsilon}}{\pi e^{\varepsilon} + 1 - \pi}
              \quad(\delta = 0), \qquad 1 \quad (\delta > 0).

    Pure ε-DP bounds the likelihood ratio ``p_in(y)/p_out(y)`` by ``e^ε`` at every outcome y,
    which gives the first value (evaluated as ``expit(ε + logit π)``, no overflow). **With
    δ > 0 the sound worst case is 1**: (ε, δ)-DP allows an event of probability δ (e.g. a
    release that contains the record) on which the ratio is infinite; the randomised-response
    mechanism with a δ-mass of the module docstring attains it. For a meaningful number with
    δ > 0 use :func:`ppv_bound` (precision of a decision rule at a stated FPR) or
    :func:`member_posterior_tail_bound` (the posterior except with a stated small
    probability). η-MIP alone gives 1 as well for every η > 0 (TPR = 2η at FPR 0).

    Parameters
    ----------
    prior : float or array, ``0 < prior < 1``.
    epsilon : float or array, ``0 <= epsilon <= inf`` (required).
    delta : float or array, ``0 <= delta <= 1``.

    Returns
    -------
    posterior : float or ndarray in ``[prior, 1]``.

    Examples
    --------
    >>> round(member_posterior_bound(0.5, epsilon=1.0), 6)  # e/(1 + e)
    0.731059
    >>> round(member_posterior_bound(0.01, epsilon=1.0), 6)
    0.026724
    >>> member_posterior_bound(0.01, epsilon=1.0, delta=1e-5)  # the delta-event reveals all
    1.0
    """
    pi = _check_prior(prior)
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    dlt = check_range("delta", delta, 0.0, 1.0)
    post = np.where(dlt > 0.0, 1.0, special.expit(eps + _logit(pi)))
    return scalar_or_array(post, prior, epsilon, delta)


def member_posterior_tail_bound(
    prior: ArrayLike, *, epsilon: ArrayLike, delta: ArrayLike = 0.0, failure: ArrayLike
) -> float | NDArray[np.float64]:
    r"""Posterior of membership under (ε, δ)-DP that holds except with probability ``failure``.

    With β = ``failure`` and ``ε' = ε − log(1 − δ/β)`` (so ε' = ε at δ = 0):

    .. math:: \Pr\Bigl[\text{posterior} > \frac{\pi e^{\varepsilon'}}
              {\pi e^{\varepsilon'} + 1 - \pi}\Bigr] \le \beta

    over the release, for a member (for a non-member the probability is at most
    ``e^{−ε'}β``). Proof: the outcomes B where ``p_in > e^{ε'} p_out`` satisfy
    ``p_in(B) ≤ e^ε p_out(B) + δ < e^{ε−ε'} p_in(B) + δ``, hence
    ``p_in(B) < δ/(1 − e^{ε−ε'}) = β``. It is tight: a mechanism whose outcomes in B have ratio
    exactly ``e^{ε'}`` and ``p_in(B) = β`` is (ε, δ)-DP. When ``β <= δ`` nothing below 1 can be
    promised (the δ-event alone has probability δ), and 1 is returned.

    Parameters
    ----------
    prior : ``0 < prior < 1``. epsilon : ``0 <= epsilon <= inf``. delta : ``0 <= delta <= 1``.
    failure : ``0 < failure <= 1``, the probability allowed to exceed the returned value.

    Returns
    -------
    posterior : float or ndarray in ``[prior, 1]``.

    Examples
    --------
    >>> round(member_posterior_tail_bound(0.01, epsilon=1.0, delta=1e-5, failure=1e-3), 6)
    0.026986
    """
    pi = _check_prior(prior)
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    dlt = check_range("delta", delta, 0.0, 1.0)
    beta = check_range("failure", failure, 0.0, 1.0, lo_open=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(beta > dlt, dlt / beta, 0.0)
        eps_prime = eps - np.log1p(-ratio)
        post = np.where(beta > dlt, special.expit(eps_prime + _logit(pi)), 1.0)
    return scalar_or_array(post, prior, epsilon, delta, failure)


def ppv_bound(
    prior: ArrayLike,
    fpr: ArrayLike,
    *,
    epsilon: ArrayLike | None = None,
    delta: ArrayLike = 0.0,
    eta: ArrayLike | None = None,
) -> float | NDArray[np.float64]:
    r"""Largest precision (PPV) of a membership rule that wrongly accuses a share ``fpr``.

    .. math:: \mathrm{PPV} = \frac{\pi\,\mathrm{TPR}}{\pi\,\mathrm{TPR} + (1-\pi)\,\mathrm{FPR}}
              \le \frac{\pi\,T(f)}{\pi\,T(f) + (1-\pi) f}

    with ``T = best_tpr`` at ``f = fpr``: of the people such a rule calls members, at most this
    share really are. The value decreases in f (T is concave with ``T(0) >= 0``, so T(f)/f
    decreases). Its supremum over f, approached as f → 0:

    * pure ε-DP: ``π e^ε/(π e^ε + 1 − π)`` = :func:`member_posterior_bound`;
    * δ > 0, or η-MIP with η > 0: **1** (TPR = δ, resp. 2η, at FPR = 0 -- a rule that names a
      few members and accuses nobody).

    At ``fpr = 0`` the value returned is that limit (the ratio is 0/0 when T(0) = 0).

    Parameters
    ----------
    prior : float or array, ``0 < prior < 1``.
    fpr : float or array, ``0 <= fpr <= 1``.
    epsilon, delta, eta : the guarantee(s), as in :func:`best_tpr`.

    Returns
    -------
    ppv : float or ndarray in ``[prior, 1]``.

    Examples
    --------
    >>> round(ppv_bound(0.01, 0.01, epsilon=1.0), 6)  # = the pure-epsilon posterior
    0.026724
    >>> round(ppv_bound(0.01, 0.01, epsilon=1.0, delta=1e-5), 6)
    0.026733
    >>> ppv_bound(0.01, 0.0, epsilon=1.0, delta=1e-5)  # the delta-mass: certain at FPR 0
    1.0
    """
    pi = _check_prior(prior)
    f = check_range("fpr", fpr, 0.0, 1.0)
    eps, dlt, e = _guarantee(epsilon, delta, eta)
    use_dp, use_mip = epsilon is not None, eta is not None
    # PPV = expit(log r + logit π) with r = T(f)/f, the chord slope of the frontier. Each edge
    # is divided by f before it is evaluated, so r stays accurate when T(f) would be subnormal.
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        r = np.fmax(1.0, 1.0 / f)  # TPR <= 1 (and TPR >= FPR)
        if use_dp:
            finite = np.isfinite(eps)
            ef = np.where(finite, eps, 0.0)
            first = np.exp(ef) + dlt / f  # (e^ε f + δ)/f
            far = -np.expm1(-ef) / f + np.exp(-ef) * (1.0 + dlt / f)  # (1 − e^−ε(1−δ−f))/f
            r = np.where(finite, np.fmin(r, np.fmin(first, far)), r)
        if use_mip:
            r = np.fmin(r, 1.0 + 2.0 * e / f)  # (f + 2η)/f
        r = np.fmax(r, 1.0)
        # f = 0: the limit f -> 0 of r, i.e. +inf when T(0) > 0, else the smallest slope
        # of an edge through the origin (e^ε for δ = 0, 1 for η = 0)
        log_slope = np.full(np.broadcast_shapes(eps.shape, dlt.shape, e.shape), math.inf)
        if use_dp:
            log_slope = np.where(dlt == 0.0, np.minimum(log_slope, eps), log_slope)
        if use_mip:
            log_slope = np.where(e == 0.0, np.minimum(log_slope, 0.0), log_slope)
        log_r = np.where(f > 0.0, np.log(r), log_slope)
        ppv = special.expit(log_r + _logit(pi))
    return scalar_or_array(ppv, prior, fpr, epsilon, delta, eta)


def ppv(prior: float, fpr: float, tpr: float) -> float:
    r"""The precision of a membership rule with rates (``fpr``, ``tpr``) at prior π.

    .. math:: \mathrm{PPV} = \frac{\pi\,\mathrm{TPR}}{\pi\,\mathrm{TPR} + (1-\pi)\,\mathrm{FPR}}

    evaluated as ``expit(log(TPR/FPR) + logit π)`` (no cancellation), with TPR raised to FPR
    (guessing reaches TPR = FPR); 1 at FPR = 0 < TPR, π at TPR = 0 = FPR. With TPR the largest
    an attacker reaches at FPR (a guarantee's trade-off bound) it is the largest precision of
    a naming rule there; :func:`ppv_bound` is this formula for (ε, δ) and η, evaluated on the
    chord slope of the region so that a subnormal TPR loses no digits.

    Parameters
    ----------
    prior : ``0 < prior < 1``. fpr, tpr : ``0 <= fpr, tpr <= 1``.

    Examples
    --------
    >>> round(ppv(0.01, 0.01, 0.0272), 4)
    0.0267
    """
    pi = float(_check_prior(prior))
    return _ppv(
        pi, float(check_range("fpr", fpr, 0.0, 1.0)), float(check_range("tpr", tpr, 0.0, 1.0))
    )


def _ppv(pi: float, f: float, t: float) -> float:
    if f <= 0.0:
        return 1.0 if t > 0.0 else pi
    t = max(t, f)
    return float(special.expit(math.log(t / f) + math.log(pi) - math.log1p(-pi)))


class Confidence(StrEnum):
    """Which number bounds an attacker's confidence in a person it names."""

    POSTERIOR = "posterior"  # a bound for every named person (pure ε-DP, or η = 0)
    PRECISION = "precision"  # the worst case is certainty: a naming rule's hit rate at an FPR


def named_confidence(
    prior: float, precision: float, *, eta: float, pure_epsilon: float | None = None
) -> tuple[Confidence, float]:
    """The number that bounds an attacker's confidence in a person it names, and its kind.

    * **Pure ε-DP** (``pure_epsilon``: the ε of a pure guarantee for replace-one neighbours;
      2ε for an add/remove ε) bounds every outcome's likelihood ratio by e^ε, hence every named
      person's posterior: :func:`member_posterior_bound` (``POSTERIOR``).
    * **η = 0**: the releases with and without a person are the same law, so every posterior
      is the prior (``POSTERIOR``, the prior).
    * **Otherwise** the worst case is certainty -- a δ-event, a share 2η of members given away,
      a privacy loss bounded only in distribution -- and the sound number is ``precision``,
      the largest precision of a naming rule at a stated FPR (``PRECISION``).

    Parameters
    ----------
    prior : ``0 < prior < 1``. precision : ``0 <= precision <= 1`` (e.g. :func:`ppv`).
    eta : ``0 <= eta <= 1/2``, the guarantee's η. pure_epsilon : ``0 <= ε < inf``, or None.

    Examples
    --------
    >>> kind, value = named_confidence(0.01, 0.0267, eta=0.2311, pure_epsilon=1.0)
    >>> kind.value, round(value, 4)
    ('posterior', 0.0267)
    >>> named_confidence(0.01, 0.0267, eta=0.2311)[0].value
    'precision'
    """
    pi = float(_check_prior(prior))
    p = float(check_range("precision", precision, 0.0, 1.0))
    e = float(check_range("eta", eta, 0.0, 0.5))
    if pure_epsilon is not None:
        return Confidence.POSTERIOR, float(member_posterior_bound(pi, epsilon=pure_epsilon))
    if e == 0.0:
        return Confidence.POSTERIOR, pi
    return Confidence.PRECISION, p


# --------------------------------------------------------------------------- icon array


@dataclass(frozen=True)
class TradeOffCurve:
    """A guarantee given as an upper bound on every attacker's ROC curve, on a grid of FPRs.

    ``fpr`` is increasing from 0 to 1; ``tpr[i]`` bounds the TPR of every attacker whose FPR
    is at most ``fpr[i]`` ... precisely: at FPR f, ``TPR <= tpr[i]`` for the first ``fpr[i] >= f``
    (a trade-off bound is non-decreasing, so this step reading is sound between grid points).
    ``eta``: the guarantee's η; the curve is also held to ``FPR + 2η`` (corrected Theorem 8).
    This is how :func:`mipcore.guarantees.attacker_bound` reports μ-GDP and DP-SGD (its
    ``roc_fpr``, ``roc_tpr`` and ``eta``; the values at its FPR levels are its refined ones).
    Tuples, so the curve is hashable (a cache key, a job's argument).
    """

    fpr: tuple[float, ...]
    tpr: tuple[float, ...]
    eta: float

    def __post_init__(self) -> None:
        f = np.asarray(check_range("curve.fpr", list(self.fpr), 0.0, 1.0), dtype=float)
        t = np.asarray(check_range("curve.tpr", list(self.tpr), 0.0, 1.0), dtype=float)
        e = float(check_range("curve.eta", self.eta, 0.0, 0.5))
        if f.ndim != 1 or f.size < 2 or f.shape != t.shape:
            raise ValueError(
                f"curve.fpr and curve.tpr must be two lists of equal length >= 2, got "
                f"{f.size} and {t.size}"
            )
        if f[0] != 0.0 or f[-1] != 1.0 or np.any(np.diff(f) <= 0.0):
            raise ValueError("curve.fpr must increase strictly from 0 to 1")
        t = np.maximum.accumulate(np.clip(np.minimum(t, f + 2.0 * e), f, 1.0))
        object.__setattr__(self, "fpr", tuple(float(x) for x in f))
        object.__setattr__(self, "tpr", tuple(float(x) for x in t))
        object.__setattr__(self, "eta", e)

    @classmethod
    def of(cls, bound: AttackerBound) -> TradeOffCurve:
        """The trade-off curve of :func:`mipcore.guarantees.attacker_bound`'s result: its ROC
        bound and η (the values at its FPR levels are its refined ones)."""
        return cls(
            tuple(float(x) for x in bound.roc_fpr),
            tuple(float(x) for x in bound.roc_tpr),
            float(bound.eta),
        )

    def at(self, fpr: ArrayLike) -> NDArray[np.float64]:
        """The bound at any FPR in [0, 1]: the grid value at the first grid FPR >= ``fpr``."""
        f = np.asarray(fpr, dtype=float)
        grid = np.asarray(self.fpr)
        i = np.searchsorted(grid, f * (1.0 - 1e-12), side="left")
        return np.asarray(self.tpr)[np.minimum(i, grid.size - 1)]

    def accuracy(self, prior: float) -> float:
        """An upper bound on the best accuracy at ``prior``: over each grid cell, the largest
        TPR of the cell with its smallest FPR, and never above ``max(π, 1 − π) + 2η min(π, 1 − π)``
        (TPR − FPR <= 2η). Exact at π = 1/2 when the curve's η is the guarantee's."""
        f, t = np.asarray(self.fpr), np.asarray(self.tpr)
        cells = prior * t[1:] + (1.0 - prior) * (1.0 - f[:-1])
        grid_bound = float(max(np.max(cells), prior * t[0] + 1.0 - prior))
        eta_bound = max(prior, 1.0 - prior) + 2.0 * self.eta * min(prior, 1.0 - prior)
        return min(1.0, grid_bound, eta_bound)


#: Populations the icon array may show, smallest first (see :func:`icon_array`).
ICON_POPULATIONS = (100, 1_000, 10_000)


def _floor(x: float) -> int:
    # expected counts are rounded to 9 decimals first: 7.000000000000001 and 6.999999999999999
    # are 7 people, not 7 and 6
    return math.floor(round(x, _ROUND_DECIMALS))


@dataclass(frozen=True)
class NamingAtCap:
    """What the attacker drawn in the picture does when it may wrongly accuse at most a share
    ``fpr_cap`` of the non-members.

    ``tpr``: the bound at the cap (:func:`best_tpr`, or the curve's); ``named_expected =
    tpr × members`` and ``accused_expected = fpr_cap × non_members``: the averages the bound
    allows; ``accused = ⌊accused_expected⌋`` (never above the cap) and ``named = ⌊T(accused /
    non_members) × members⌋`` (the bound at the share really accused): an attacker the bound
    allows, in whole people. ``ppv``: the largest precision at the prior and the cap (exact, not
    from the rounded counts).
    """

    fpr_cap: float
    tpr: float
    named: int
    accused: int
    named_expected: float
    accused_expected: float
    ppv: float


@dataclass(frozen=True)
class IconArray:
    """Counts for an icon array of ``people`` people at membership prior ``prior``.

    ``members = ⌊people × prior⌋`` (at least 1) and ``non_members = people − members``.
    ``accuracy``: the best accuracy any attacker reaches at ``prior`` (exact for (ε, δ) and η; a
    sound upper bound for a curve); ``correct_expected = accuracy × people``. The picture's
    attacker operates at ``(best_fpr, best_tpr)``: it wrongly calls ``wrongly_called = ⌊best_fpr ×
    non_members⌋`` non-members members and rightly calls ``correct_members = ⌊T × members⌋``
    members, T the bound at the share it wrongly called; ``correct_non_members = non_members −
    wrongly_called``. ``caps``: one :class:`NamingAtCap` per FPR cap.

    **Rounding rule** (one rule for every count): every count the attacker achieves -- the
    people it calls members, rightly or wrongly -- is rounded *down*, and the members it names
    are computed at the share of non-members it really accuses. So the picture always shows an
    attacker the guarantee allows (its TPR is at most the bound at its FPR, and it never accuses
    more than the cap): it never looks better for the attacker than the bound allows, and no
    count below one person is drawn as a person. The ``*_expected`` fields keep the averages.
    """

    people: int
    prior: float
    members: int
    non_members: int
    accuracy: float
    best_fpr: float
    best_tpr: float
    correct_members: int
    correct_non_members: int
    correct_expected: float
    caps: tuple[NamingAtCap, ...]

    @property
    def correct(self) -> int:
        """People the drawn attacker classifies correctly."""
        return self.correct_members + self.correct_non_members

    @property
    def wrongly_called(self) -> int:
        """Non-members the drawn attacker calls members."""
        return self.non_members - self.correct_non_members

    @property
    def shown_prior(self) -> float:
        """The share of members the picture shows, ``members / people`` (<= ``prior``)."""
        return self.members / self.people


def _counts(
    people: int,
    pi: float,
    tpr_at: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    candidates: NDArray[np.float64],
    caps: tuple[float, ...],
) -> tuple[int, int, float, float, int, int, list[tuple[int, int]]]:
    """members, non-members, the picture's operating point and counts, and (named, accused)
    per cap, all by the rounding rule of :class:`IconArray`."""
    members = min(people - 1, max(1, _floor(people * pi)))
    non_members = people - members
    # the picture's best attacker: among the candidate FPRs (the region's vertices, or the
    # curve's grid), the one whose rounded picture gets the most people right
    called = np.array([_floor(float(f) * non_members) for f in candidates])
    t = np.asarray(tpr_at(called / non_members), dtype=float)
    right = np.array([_floor(float(x) * members) for x in t])
    k = int(np.argmax(right + non_members - called))  # first maximum: a fixed tie-break
    rows = []
    for c in caps:
        accused = _floor(c * non_members)
        named = _floor(float(tpr_at(np.array([accused / non_members]))[0]) * members)
        rows.append((min(named, members), accused))
    return (
        members,
        non_members,
        float(called[k] / non_members),
        float(t[k]),
        int(min(right[k], members)),
        int(non_members - called[k]),
        rows,
    )


def _chosen_people(pi: float, expected: Callable[[int], tuple[float, float, int, int]]) -> int:
    """The smallest population of :data:`ICON_POPULATIONS` with at least one whole member
    whose picture names and accuses at least one person wherever the bound expects any (else
    the largest)."""
    for n in ICON_POPULATIONS:
        if _floor(n * pi) < 1:
            continue
        named_exp, accused_exp, named, accused = expected(n)
        if (named >= 1 or named_exp <= 0.0) and (accused >= 1 or accused_exp <= 0.0):
            return n
    return ICON_POPULATIONS[-1]


def icon_array(
    prior: float,
    *,
    epsilon: float | None = None,
    delta: float = 0.0,
    eta: float | None = None,
    curve: TradeOffCurve | None = None,
    fpr_caps: tuple[float, ...] = ICON_FPR_CAPS,
    people: int | None = None,
) -> IconArray:
    r"""Counts for an icon array of people, a share ``prior`` of them members.

    For the guarantee(s) given -- (ε, δ) and/or η as in :func:`best_tpr`, or a
    :class:`TradeOffCurve` (μ-GDP, ρ-zCDP, Rényi DP, a DP-SGD run, an add/remove guarantee) --
    the picture shows an attacker the guarantee allows, in whole people, by the rounding rule
    of :class:`IconArray`: **members** ``⌊people·π⌋`` (at least one); **the best attacker**
    (Bayes-optimal at prior π), among the vertices of the region (or the curve's grid points),
    the operating point whose rounded picture gets most people right; **for each FPR cap c**
    it wrongly accuses ``⌊c·non_members⌋`` non-members and names
    ``⌊T(accused/non_members)·members⌋`` members.

    **The population.** With ``people=None`` it is the smallest of 100, 1 000 and 10 000 at
    which ``people·π`` is at least one whole member and the picture, at the *first* cap of
    ``fpr_caps``, names at least one member and wrongly accuses at least one non-member
    wherever the bound's averages are above zero (else 10 000, with one member at least): at ε = 1 with 1 % of people in the data, 100 people would show 0.027 named
    and 0.99 wrongly accused, so the picture shows 10 000 people (100 members, 2 named of 2.72,
    99 wrongly accused). The averages are kept in the ``*_expected`` fields for the sentences.

    Parameters
    ----------
    prior : ``0 < prior < 1``, the membership prior π.
    epsilon, delta, eta : scalars, the guarantee(s), as in :func:`best_tpr`.
    curve : a :class:`TradeOffCurve` instead of ``epsilon``/``delta``/``eta``.
    fpr_caps : non-empty tuple of FPR caps, each ``0 <= cap <= 1`` (default 1 %, 5 %, 10 %).
    people : ``2 <= people <= 10000``, or None (default): chosen as above.

    Returns
    -------
    IconArray

    Examples
    --------
    >>> ia = icon_array(0.5, epsilon=1.0, fpr_caps=(0.05,))
    >>> ia.people, ia.members, ia.correct, round(ia.accuracy, 4)
    (100, 50, 72, 0.7311)
    >>> [(c.fpr_cap, c.named, c.accused) for c in ia.caps]  # 6.8 named, 2.5 accused on average
    [(0.05, 5, 2)]
    >>> one = icon_array(0.01, epsilon=1.0, fpr_caps=(0.01,))
    >>> one.people, one.members, one.caps[0].named, one.caps[0].accused
    (10000, 100, 2, 99)
    """
    for name, value in (("prior", prior), ("epsilon", epsilon), ("delta", delta), ("eta", eta)):
        if value is not None and np.ndim(value) != 0:
            raise ValueError(f"{name}={value!r} must be a scalar")
    if people is not None:
        people = check_int("people", people, 2, _ICON_PEOPLE_MAX)
    caps = tuple(float(c) for c in np.atleast_1d(check_range("fpr_caps", fpr_caps, 0.0, 1.0)))
    if not caps or np.ndim(fpr_caps) > 1:
        raise ValueError(f"fpr_caps={fpr_caps!r} must be a non-empty sequence of FPR caps")
    pi = float(_check_prior(prior))
    if curve is not None:
        if not isinstance(curve, TradeOffCurve):
            raise ValueError(f"curve={curve!r} must be a TradeOffCurve")
        if epsilon is not None or eta is not None or delta != 0.0:
            raise ValueError("curve was given with epsilon, delta or eta: give one guarantee")
        acc = curve.accuracy(pi)
        cap_tpr = curve.at(np.array(caps))
        cap_ppv = np.array([_ppv(pi, c, float(t)) for c, t in zip(caps, cap_tpr, strict=True)])
        candidates = np.asarray(curve.fpr)

        def tpr_at(f: NDArray[np.float64]) -> NDArray[np.float64]:
            return curve.at(f)
    else:
        acc = float(_best_point(pi, epsilon, delta, eta)[0])
        cap_tpr = np.atleast_1d(best_tpr(np.array(caps), epsilon=epsilon, delta=delta, eta=eta))
        cap_ppv = np.atleast_1d(
            ppv_bound(pi, np.array(caps), epsilon=epsilon, delta=delta, eta=eta)
        )
        eps_v, dlt_v, e_v = _guarantee(epsilon, delta, eta)
        candidates = _candidates(eps_v, dlt_v, e_v).ravel()

        def tpr_at(f: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.atleast_1d(best_tpr(f, epsilon=epsilon, delta=delta, eta=eta))

    def expected(n: int) -> tuple[float, float, int, int]:
        m = min(n - 1, max(1, _floor(n * pi)))
        _, _, _, _, _, _, rows = _counts(n, pi, tpr_at, candidates[:1] * 0.0, caps[:1])
        return float(cap_tpr[0]) * m, caps[0] * (n - m), rows[0][0], rows[0][1]

    n = people if people is not None else _chosen_people(pi, expected)
    members, non_members, f_star, t_star, right, cleared, rows = _counts(
        n, pi, tpr_at, candidates, caps
    )
    naming = tuple(
        NamingAtCap(
            fpr_cap=c,
            tpr=float(t),
            named=named,
            accused=accused,
            named_expected=float(t) * members,
            accused_expected=c * non_members,
            ppv=float(p),
        )
        for c, t, p, (named, accused) in zip(caps, cap_tpr, cap_ppv, rows, strict=True)
    )
    return IconArray(
        people=n,
        prior=pi,
        members=members,
        non_members=non_members,
        accuracy=acc,
        best_fpr=f_star,
        best_tpr=t_star,
        correct_members=right,
        correct_non_members=cleared,
        correct_expected=acc * n,
        caps=naming,
    )


# --------------------------------------------------------------------------- comparison table


@dataclass(frozen=True)
class ComparisonRow:
    """One (ε, δ) of :func:`comparison_table`.

    ``eta`` (Theorem 4), ``accuracy`` = 1/2 + η (best accuracy at prior 1/2),
    ``accuracy_at_prior`` = :func:`best_accuracy` at the table's prior, ``tpr`` =
    :func:`best_tpr` at the table's FPR, ``posterior`` = :func:`member_posterior_bound` at the
    table's prior (1 when δ > 0), ``ppv`` = :func:`ppv_bound` at the table's prior and FPR,
    ``posterior_tail`` = :func:`member_posterior_tail_bound` at the table's failure probability.
    """

    epsilon: float
    delta: float
    eta: float
    accuracy: float
    accuracy_at_prior: float
    tpr: float
    posterior: float
    ppv: float
    posterior_tail: float


@dataclass(frozen=True)
class ComparisonTable:
    """Rows over ε (outer) and δ (inner), with the FPR, prior and failure they were taken at."""

    fpr: float
    prior: float
    failure: float
    rows: tuple[ComparisonRow, ...]


def comparison_table(
    epsilons: tuple[float, ...] = COMPARISON_EPSILONS,
    deltas: tuple[float, ...] = COMPARISON_DELTAS,
    *,
    fpr: float = 0.01,
    prior: float = 0.01,
    failure: float = 1e-3,
) -> ComparisonTable:
    r"""ε → η → best accuracy → TPR at an FPR → posterior at a prior, for each (ε, δ).

    Parameters
    ----------
    epsilons : non-empty tuple, each ``0 <= epsilon < inf`` (default 0.1, 0.5, 1, 2, 4, 8, 10).
    deltas : non-empty tuple, each ``0 <= delta < 1`` (default 0 and 1e-5).
    fpr : ``0 <= fpr <= 1`` (default 1 %). prior : ``0 < prior < 1`` (default 1 %).
    failure : ``0 < failure <= 1`` for the tail posterior (default 1e-3).

    Returns
    -------
    ComparisonTable
        ``rows`` ordered by ε, then δ.

    Examples
    --------
    >>> t = comparison_table((1.0,), (0.0,))
    >>> r = t.rows[0]
    >>> round(r.eta, 4), round(r.accuracy, 4), round(r.tpr, 4), round(r.posterior, 4)
    (0.2311, 0.7311, 0.0272, 0.0267)
    """
    eps = check_range("epsilons", epsilons, 0.0, math.inf, hi_open=True)
    dlt = check_range("deltas", deltas, 0.0, 1.0, hi_open=True)
    if eps.ndim != 1 or eps.size == 0:
        raise ValueError(f"epsilons={epsilons!r} must be a non-empty sequence")
    if dlt.ndim != 1 or dlt.size == 0:
        raise ValueError(f"deltas={deltas!r} must be a non-empty sequence")
    f = float(check_range("fpr", fpr, 0.0, 1.0))
    pi = float(_check_prior(prior))
    beta = float(check_range("failure", failure, 0.0, 1.0, lo_open=True))
    E, D = (a.ravel() for a in np.meshgrid(eps, dlt, indexing="ij"))
    eta = np.asarray(eta_from_epsilon(E, D))
    tpr = np.asarray(best_tpr(f, epsilon=E, delta=D))
    acc_pi = np.asarray(best_accuracy(pi, epsilon=E, delta=D))
    post = np.asarray(member_posterior_bound(pi, epsilon=E, delta=D))
    ppv = np.asarray(ppv_bound(pi, f, epsilon=E, delta=D))
    tail = np.asarray(member_posterior_tail_bound(pi, epsilon=E, delta=D, failure=beta))
    rows = tuple(
        ComparisonRow(
            epsilon=float(E[i]),
            delta=float(D[i]),
            eta=float(eta[i]),
            accuracy=0.5 + float(eta[i]),
            accuracy_at_prior=float(acc_pi[i]),
            tpr=float(tpr[i]),
            posterior=float(post[i]),
            ppv=float(ppv[i]),
            posterior_tail=float(tail[i]),
        )
        for i in range(E.size)
    )
    return ComparisonTable(fpr=f, prior=pi, failure=beta, rows=rows)
