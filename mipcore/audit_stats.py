r"""Audit statistics: what a membership game's counts prove, with confidence.

Malek Esmaeili, Mironov, Prasad, Shilov and Tramèr, *Antipodes of Label Differential
Privacy: PATE and ALIBI*, NeurIPS 2021, arXiv:2106.03408, Appendix B: the membership game
with abstention (Game 1), the correct-guess rate CGR, Theorem B.1
(``ε ≥ log(CGR/(1−CGR))``) and Clopper–Pearson lower bounds; with Definition 1 of Izzo,
Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582,
for the MIP level η. Also the ROC of a score and the counting of guesses at an abstention
threshold, shared by every audit.
"""

from __future__ import annotations

import math
from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from ._validate import check_range, scalar_or_array

__all__ = [
    "clopper_pearson",
    "epsilon_from_cgr",
    "epsilon_lower_bound",
    "eta_estimate",
    "eta_lower_bound",
    "guess_counts",
    "max_certifiable_epsilon",
    "roc_points",
    "top_k_guess_counts",
]


Alternative = Literal["two-sided", "greater", "less"]


def _check_counts(
    name_k: str, k: ArrayLike, name_n: str, n: ArrayLike, *, n_min: int = 1
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    kk = np.asarray(k)
    nn = np.asarray(n)
    for name, v in ((name_k, kk), (name_n, nn)):
        if v.dtype.kind not in "iu":
            fv = v.astype(float) if v.dtype.kind == "f" else None
            if fv is None or not np.all(np.isfinite(fv)) or not np.all(fv == np.round(fv)):
                raise ValueError(f"{name}={v.tolist()!r} must be an integer count")
    kk, nn = np.asarray(kk, dtype=float), np.asarray(nn, dtype=float)
    check_range(name_n, nn, n_min, math.inf)
    check_range(name_k, kk, 0, math.inf)
    if np.any(kk > nn):
        raise ValueError(
            f"{name_k}={kk.tolist()!r} is out of range: allowed 0 <= {name_k} <= {name_n} "
            f"({name_n}={nn.tolist()!r})"
        )
    return kk, nn


def _check_conf(confidence: ArrayLike) -> NDArray[np.float64]:
    return check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True)


def _cp_lower(
    k: NDArray[np.float64], n: NDArray[np.float64], alpha: NDArray[np.float64] | float
) -> NDArray[np.float64]:
    """One-sided Clopper–Pearson lower bound at level 1 − alpha (0 when k = 0)."""
    with np.errstate(invalid="ignore"):
        lo = stats.beta.ppf(alpha, k, n - k + 1)
    return np.where(k == 0, 0.0, lo)


def _cp_upper(
    k: NDArray[np.float64], n: NDArray[np.float64], alpha: NDArray[np.float64] | float
) -> NDArray[np.float64]:
    with np.errstate(invalid="ignore"):
        hi = stats.beta.ppf(1.0 - alpha, k + 1, n - k)
    return np.where(k == n, 1.0, hi)


@overload
def clopper_pearson(
    k: int, n: int, confidence: float = ..., alternative: Alternative = ...
) -> tuple[float, float]: ...
@overload
def clopper_pearson(
    k: ArrayLike, n: ArrayLike, confidence: ArrayLike = ..., alternative: Alternative = ...
) -> tuple[float | NDArray[np.float64], float | NDArray[np.float64]]: ...
def clopper_pearson(
    k: ArrayLike, n: ArrayLike, confidence: ArrayLike = 0.95, alternative: Alternative = "two-sided"
) -> tuple[float | NDArray[np.float64], float | NDArray[np.float64]]:
    r"""Clopper–Pearson ("exact") confidence interval for a binomial proportion.

    ``lo = Beta⁻¹(α/2; k, n−k+1)``, ``hi = Beta⁻¹(1−α/2; k+1, n−k)`` with α = 1 − confidence
    (``lo = 0`` at k = 0, ``hi = 1`` at k = n). Same as
    ``scipy.stats.binomtest(k, n).proportion_ci(confidence, method="exact")``, vectorised.

    Parameters
    ----------
    k : int or array_like of int
        Successes, ``0 <= k <= n``.
    n : int or array_like of int
        Trials, ``n >= 1``.
    confidence : float or array_like
        ``0 < confidence < 1``.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` -- a one-sided *lower* bound (α in one tail, ``hi = 1``), what an audit
        that wants "at least" uses; ``"less"`` -- one-sided upper (``lo = 0``).

    Returns
    -------
    (lo, hi) : tuple of float or ndarray

    Raises
    ------
    ValueError
        If a count is not an integer or out of range, or ``alternative`` is unknown.

    References
    ----------
    Clopper, Pearson. *The Use of Confidence or Fiducial Limits Illustrated in the Case of the
    Binomial*. Biometrika 26(4), 1934.

    Examples
    --------
    >>> clopper_pearson(8, 10)  # as scipy.stats.binomtest(8, 10).proportion_ci()
    (0.443904537692, 0.974789273673)
    >>> clopper_pearson(8, 10, alternative="greater")
    (0.493098698937, 1.0)
    >>> clopper_pearson([0, 10], 10)
    (array([0.        , 0.69150289]), array([0.30849711, 1.        ]))
    """
    kk, nn = _check_counts("k", k, "n", n)
    conf = _check_conf(confidence)
    alpha = 1.0 - conf
    if alternative == "two-sided":
        lo, hi = _cp_lower(kk, nn, alpha / 2), _cp_upper(kk, nn, alpha / 2)
    elif alternative == "greater":
        lo, hi = (
            _cp_lower(kk, nn, alpha),
            np.ones(np.broadcast_shapes(kk.shape, nn.shape, conf.shape)),
        )
    elif alternative == "less":
        lo, hi = (
            np.zeros(np.broadcast_shapes(kk.shape, nn.shape, conf.shape)),
            _cp_upper(kk, nn, alpha),
        )
    else:
        raise ValueError(
            f"alternative={alternative!r} is not one of ('two-sided', 'greater', 'less')"
        )
    return scalar_or_array(lo, k, n, confidence), scalar_or_array(hi, k, n, confidence)


@overload
def epsilon_from_cgr(cgr: float, delta: float = ..., guess_rate: float = ...) -> float: ...
@overload
def epsilon_from_cgr(
    cgr: ArrayLike, delta: ArrayLike = ..., guess_rate: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def epsilon_from_cgr(
    cgr: ArrayLike, delta: ArrayLike = 0.0, guess_rate: ArrayLike = 1.0
) -> float | NDArray[np.float64]:
    r"""The ε a correct-guess rate implies (Theorem B.1 of Malek Esmaeili et al., and its (ε, δ) variant).

    Pure DP: ``ε = log(CGR/(1 − CGR))``. For (ε, δ)-DP and an attacker that guesses (does
    not abstain) with probability g: ``P(correct) ≤ e^ε P(wrong) + δ``, i.e.
    ``e^ε ≥ (CGR − δ/g)/(1 − CGR)``. Returns 0 where the right-hand side is ≤ 1 and ``inf``
    at CGR = 1 (with δ < g).

    Parameters
    ----------
    cgr : float or array_like
        ``0 <= cgr <= 1``.
    delta : float or array_like
        ``0 <= delta <= 1``.
    guess_rate : float or array_like
        ``0 < g <= 1``.

    Returns
    -------
    float or ndarray
        ε ``>= 0`` (``inf`` possible).

    References
    ----------
    Malek Esmaeili, Mironov, Prasad, Shilov, Tramèr. *Antipodes of Label Differential
    Privacy: PATE and ALIBI*. NeurIPS 2021, arXiv:2106.03408, Appendix B, Theorem B.1.

    Examples
    --------
    >>> epsilon_from_cgr(0.75)  # log 3
    1.09861228867
    """
    c = check_range("cgr", cgr, 0.0, 1.0)
    d = check_range("delta", delta, 0.0, 1.0)
    g = check_range("guess_rate", guess_rate, 0.0, 1.0, lo_open=True)
    num = c - d / g
    den = 1.0 - c
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # log(num/den) = log1p((num − den)/den): accurate for small ε, where log(num) − log(den)
        # cancels (den > 0 here unless CGR = 1, handled below)
        eps = np.where(num > den, np.log1p((num - den) / den), 0.0)
    eps = np.where((den == 0) & (num > 0), math.inf, eps)
    return scalar_or_array(np.maximum(eps, 0.0), cgr, delta, guess_rate)


@overload
def epsilon_lower_bound(
    correct: int,
    guesses: int,
    confidence: float = ...,
    *,
    delta: float = ...,
    trials: int | None = ...,
) -> float: ...
@overload
def epsilon_lower_bound(
    correct: ArrayLike,
    guesses: ArrayLike,
    confidence: ArrayLike = ...,
    *,
    delta: ArrayLike = ...,
    trials: ArrayLike | None = ...,
) -> float | NDArray[np.float64]: ...
def epsilon_lower_bound(
    correct: ArrayLike,
    guesses: ArrayLike,
    confidence: ArrayLike = 0.95,
    *,
    delta: ArrayLike = 0.0,
    trials: ArrayLike | None = None,
) -> float | NDArray[np.float64]:
    r"""A lower bound on ε that holds with probability ``confidence`` (Theorem B.1 of Malek Esmaeili et al.).

    ``lo`` = one-sided Clopper–Pearson lower bound on CGR from ``correct`` out of ``guesses``;
    then ``ε_lb = log(lo/(1 − lo))`` (0 if ``lo <= 1/2``). For δ > 0 the (ε, δ) form
    ``e^ε ≥ (CGR − δ/g)/(1 − CGR)`` needs the guessing rate g = guesses/trials; then CGR and g
    each get a one-sided bound at level ``1 − α/2`` (union bound) and g is replaced by its
    lower bound (the bound increases in g). ``trials=None`` means the attacker never
    abstains (g = 1, no second bound).

    Malek Esmaeili et al. report two-sided 95 % intervals; their lower end is this bound at
    ``confidence=0.975``. Holding for DP means: *if* the mechanism were ε-DP with a smaller ε,
    this outcome would have had probability below ``1 − confidence``. It applies to the MIP
    game too (random halves, k = n/2): Lemma 12's matching pairs each in-training set with an
    adjacent out-training set, and Theorem B.1's mediant argument runs over those pairs.

    Parameters
    ----------
    correct : int or array_like of int
        ``0 <= correct <= guesses``.
    guesses : int or array_like of int
        ``>= 1`` (non-abstaining trials).
    confidence : float or array_like
        ``0 < confidence < 1``.
    delta : float or array_like
        ``0 <= delta < 1``.
    trials : int, array_like of int or None
        ``>= guesses`` (all trials, including abstentions).

    Returns
    -------
    float or ndarray
        The lower bound on ε, ``>= 0``.

    References
    ----------
    Malek Esmaeili, Mironov, Prasad, Shilov, Tramèr. *Antipodes of Label Differential
    Privacy: PATE and ALIBI*. NeurIPS 2021, arXiv:2106.03408, Appendix B, Theorem B.1.

    Examples
    --------
    >>> epsilon_lower_bound(950, 1000)  # 95 % correct of 1000 guesses
    2.70186487805
    >>> epsilon_lower_bound(1000, 1000)  # the most 1000 guesses can ever show
    5.80906833855
    >>> epsilon_lower_bound(500, 1000)  # a coin flip proves nothing
    0.0
    """
    kk, mm = _check_counts("correct", correct, "guesses", guesses)
    conf = _check_conf(confidence)
    dlt = check_range("delta", delta, 0.0, 1.0, hi_open=True)
    alpha = 1.0 - conf
    if trials is None:
        lo = _cp_lower(kk, mm, alpha)
        eps = epsilon_from_cgr(np.clip(lo, 0, 1), dlt, 1.0)
    else:
        mm2, tt = _check_counts("guesses", guesses, "trials", trials)
        lo = _cp_lower(kk, mm, alpha / 2)
        g_lo = _cp_lower(mm2, tt, alpha / 2)
        eps = epsilon_from_cgr(np.clip(lo, 0, 1), dlt, np.maximum(g_lo, 1e-300))
    return scalar_or_array(eps, correct, guesses, confidence, delta, trials)


@overload
def max_certifiable_epsilon(trials: int, confidence: float = ...) -> float: ...
@overload
def max_certifiable_epsilon(
    trials: ArrayLike, confidence: ArrayLike = ...
) -> float | NDArray[np.float64]: ...
def max_certifiable_epsilon(
    trials: ArrayLike, confidence: ArrayLike = 0.95
) -> float | NDArray[np.float64]:
    """The largest ε that ``trials`` guesses can ever certify: :func:`epsilon_lower_bound` with all correct.

    ``lo = (1 − confidence)^(1/N)``, ``ε = log(lo/(1 − lo)) ≈ log(N / log(1/(1−confidence)))``:
    an audit with N trials cannot show more than this, however leaky the mechanism.
    ``trials >= 1``, ``0 < confidence < 1``.

    Examples
    --------
    >>> max_certifiable_epsilon(1000)
    5.80906833855
    """
    _check_counts("trials", trials, "trials", trials)  # errors name this function's parameter
    return epsilon_lower_bound(trials, trials, confidence)


@overload
def eta_estimate(correct: int, guesses: int, trials: int) -> float: ...
@overload
def eta_estimate(
    correct: ArrayLike, guesses: ArrayLike, trials: ArrayLike
) -> float | NDArray[np.float64]: ...
def eta_estimate(
    correct: ArrayLike, guesses: ArrayLike, trials: ArrayLike
) -> float | NDArray[np.float64]:
    r"""Point estimate of the MIP advantage, abstentions counted as coin flips.

    ``η̂ = g (CGR − 1/2) = (correct − wrong)/(2 trials)`` with ``g = guesses/trials``: the
    accuracy of the attacker that flips a fair coin whenever it would abstain, minus 1/2.
    Counts ``0 <= correct <= guesses <= trials``, ``trials >= 1``.

    Examples
    --------
    >>> eta_estimate(60, 80, 100)  # (60 − 20) / 200
    0.2
    """
    kk, mm = _check_counts("correct", correct, "guesses", guesses, n_min=0)
    _, tt = _check_counts("guesses", guesses, "trials", trials)
    return scalar_or_array((2.0 * kk - mm) / (2.0 * tt), correct, guesses, trials)


@overload
def eta_lower_bound(
    correct: int, guesses: int, trials: int | None = ..., confidence: float = ...
) -> float: ...
@overload
def eta_lower_bound(
    correct: ArrayLike,
    guesses: ArrayLike,
    trials: ArrayLike | None = ...,
    confidence: ArrayLike = ...,
) -> float | NDArray[np.float64]: ...
def eta_lower_bound(
    correct: ArrayLike,
    guesses: ArrayLike,
    trials: ArrayLike | None = None,
    confidence: ArrayLike = 0.95,
) -> float | NDArray[np.float64]:
    r"""Lower confidence bound on the MIP level η from an audit (Definition 1 of Izzo et al.).

    Every attacker's accuracy is at most ``1/2 + η`` (k = n/2), and an abstaining attacker
    becomes a proper one by flipping a coin, so ``η ≥ g (CGR − 1/2)``. With one-sided
    Clopper–Pearson bounds on CGR (``correct`` of ``guesses``) and on g (``guesses`` of
    ``trials``), each at level ``1 − α/2`` (union bound), ``η ≥ g_lo (CGR_lo − 1/2)`` when
    ``CGR_lo > 1/2`` and ``η ≥ 0`` otherwise, with probability at least ``confidence``.
    ``trials=None``: no abstentions (g = 1), the whole α goes to CGR.

    Parameters
    ----------
    correct, guesses, trials : int or array_like of int
        Counts, ``0 <= correct <= guesses <= trials``, ``guesses >= 1``; ``trials`` may be
        None.
    confidence : float or array_like
        ``0 < confidence < 1``.

    Returns
    -------
    float or ndarray
        The lower bound on η, in ``[0, 1/2]``.

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Definition 1.

    Examples
    --------
    >>> eta_lower_bound(600, 1000)  # 60 % correct, never abstaining
    0.0738234133353
    """
    kk, mm = _check_counts("correct", correct, "guesses", guesses)
    conf = _check_conf(confidence)
    alpha = 1.0 - conf
    if trials is None:
        eta = np.maximum(_cp_lower(kk, mm, alpha) - 0.5, 0.0)
    else:
        mm2, tt = _check_counts("guesses", guesses, "trials", trials)
        cgr_lo = _cp_lower(kk, mm, alpha / 2)
        g_lo = _cp_lower(mm2, tt, alpha / 2)
        eta = np.where(cgr_lo > 0.5, g_lo * (cgr_lo - 0.5), 0.0)
    return scalar_or_array(eta, correct, guesses, trials, confidence)


def roc_points(
    scores: ArrayLike, labels: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ROC curve of the rule "say in when score >= t" over all thresholds t.

    ``scores`` may contain ``±inf``; ``labels`` are booleans (True = member). Returns
    ``(fpr, tpr)`` arrays from (0, 0) to (1, 1), one point per distinct score.

    Examples
    --------
    >>> roc_points([3.0, 1.0, 2.0, 0.0], [True, False, True, False])
    (array([0. , 0. , 0. , 0.5, 1. ]), array([0. , 0.5, 1. , 1. , 1. ]))
    """
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels, dtype=bool).ravel()
    if s.shape != y.shape or s.size == 0:
        raise ValueError(
            f"scores ({s.shape}) and labels ({y.shape}) must be non-empty and equally long"
        )
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        raise ValueError("labels must contain both members and non-members")
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    tp = np.cumsum(y)
    fp = np.cumsum(~y)
    last = np.r_[s[1:] != s[:-1], True]  # last index of each distinct score
    return np.r_[0.0, fp[last] / neg], np.r_[0.0, tp[last] / pos]


def guess_counts(scores: ArrayLike, labels: ArrayLike, margin: float = 0.0) -> tuple[int, int]:
    """``(guesses, correct)`` of the rule "in if score > margin, out if score < −margin".

    The attacker abstains where ``|score| <= margin`` (with ``margin = 0``: only on exact
    ties). ``labels`` are booleans (True = member).

    Examples
    --------
    >>> guess_counts([2.0, -1.0, 0.0, 0.5], [True, False, True, False], margin=0.0)
    (3, 2)
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    m = float(check_range("margin", margin, 0.0, math.inf, hi_open=True))
    g_in, g_out = s > m, s < -m
    return int(np.sum(g_in | g_out)), int(np.sum((g_in & y) | (g_out & ~y)))


def top_k_guess_counts(
    scores: ArrayLike, labels: ArrayLike, max_candidates: int = 200
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """Counts of the rules "guess on the k most confident trials" (``|score| >= t``).

    Returns arrays ``(thresholds, guesses, correct)`` over up to ``max_candidates`` values
    of k (tie groups are never split; ``score = 0`` is never a guess). The sign of the score
    is the guess ("in" when positive).
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    a = np.abs(s)
    right = (s > 0) == y
    order = np.argsort(-a, kind="stable")
    a, right = a[order], right[order]
    cum = np.cumsum(right)
    ends = np.flatnonzero(np.r_[a[1:] != a[:-1], True])  # last index of each tie group
    ends = ends[a[ends] > 0]  # never "guess" on a score of 0
    if ends.size == 0:
        return np.empty(0), np.empty(0, np.int64), np.empty(0, np.int64)
    if ends.size > max_candidates:
        pick = np.unique(np.geomspace(1, ends.size, max_candidates).astype(int) - 1)
        ends = ends[pick]
    return a[ends], (ends + 1).astype(np.int64), cum[ends].astype(np.int64)
