"""Private helpers of :mod:`mipcore.score_audit`: the rates and bounds of one attack rule, the
one-run audit's p-value and ε search, the checks of scores and flags, and the ranking of
scores into threshold rules. Inputs are trusted (checked at the public functions of
:mod:`mipcore.score_audit`, whose docstrings state what these compute and cite the papers).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, stats

from ._validate import as_float_array, check_int, check_range
from .audit_stats import _check_counts, _cp_lower, _cp_upper

_MAX_FPRS = 50  # most FPRs audit_scores reports the TPR at


def _eps_from_rates(
    tpr_lo: NDArray[np.float64], fpr_hi: NDArray[np.float64], delta: NDArray[np.float64] | float
) -> NDArray[np.float64]:
    """``max(0, ln((TPR_lo − δ)/FPR_hi))``; 0 where ``TPR_lo <= δ`` (FPR_hi > 0 always here)."""
    gain = tpr_lo - delta
    ratio = np.where(gain > 0.0, gain / np.where(fpr_hi > 0.0, fpr_hi, 1.0), 1.0)
    # log1p of (ratio − 1) keeps small ε exact where log(gain) − log(fpr_hi) would cancel
    with np.errstate(divide="ignore"):
        eps = np.where(ratio > 1.0, np.log1p(np.maximum(ratio - 1.0, 0.0)), 0.0)
    return np.where(fpr_hi > 0.0, eps, 0.0)


def _mu_from_rates(tpr_lo: NDArray[np.float64], fpr_hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """``max(0, Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi))``, 0 where ``TPR_lo = 0`` (no NaN, no inf)."""
    t = np.clip(tpr_lo, 0.0, 1.0)
    f = np.clip(fpr_hi, 0.0, 1.0)
    ok = (t > 0.0) & (f < 1.0) & (t > f)
    mu = stats.norm.isf(np.where(ok, f, 0.5)) - stats.norm.isf(np.where(ok, t, 0.5))
    return np.where(ok, np.maximum(mu, 0.0), 0.0)


def _rates(
    tp: NDArray[np.float64],
    members: NDArray[np.float64],
    fp: NDArray[np.float64],
    non_members: NDArray[np.float64],
    alpha_side: NDArray[np.float64] | float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One-sided Clopper–Pearson ``(TPR_lo, FPR_hi)``, each at level ``1 − alpha_side``."""
    tpr_lo = np.clip(_cp_lower(tp, members, alpha_side), 0.0, 1.0)
    fpr_hi = np.clip(_cp_upper(fp, non_members, alpha_side), 0.0, 1.0)
    return tpr_lo, fpr_hi


def _check_four(
    tp: ArrayLike, members: ArrayLike, fp: ArrayLike, non_members: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    t, m = _check_counts("tp", tp, "members", members)
    f, n = _check_counts("fp", fp, "non_members", non_members)
    return t, m, f, n


def _scalar_or_array(
    result: NDArray[np.float64], *inputs: ArrayLike
) -> float | NDArray[np.float64]:
    if all(np.ndim(x) == 0 for x in inputs):
        return float(np.asarray(result).reshape(()))
    return np.asarray(result, dtype=np.float64)


def _one_run_p(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """Theorem 3 of Steinke et al.: the bound on P[correct >= v] under (eps, delta)-DP."""
    if v == 0:
        return 1.0
    q = float(stats.logistic.cdf(eps))  # e^ε/(1 + e^ε), the accuracy of ε-randomised response
    beta = float(stats.binom.sf(v - 1, r, q))  # P[Binomial(r, q) >= v]
    if delta == 0.0:
        return min(beta, 1.0)
    # P[v > B >= v − i] for i = 1..v, summed from j = v − 1 downwards
    pmf = stats.binom.pmf(np.arange(v - 1, -1, -1), r, q)
    partial = np.cumsum(pmf)
    alpha = float(np.max(partial / np.arange(1, v + 1)))
    return min(beta + 2.0 * m * delta * alpha, 1.0)


def _check_one_run(canaries: object, guesses: object, correct: object) -> tuple[int, int, int]:
    m = check_int("canaries", canaries, 1)
    r = check_int("guesses", guesses, 0, m)
    v = check_int("correct", correct, 0)
    if v > r:
        raise ValueError(
            f"correct={v} is out of range: allowed 0 <= correct <= guesses (guesses={r})"
        )
    return m, r, v


def _one_run_epsilon(m: int, r: int, v: int, delta: float, alpha: float) -> float:
    """sup{ε >= 0 : p(ε) <= α}, searched below ε_β where P[B >= v] alone reaches α."""
    if v == 0 or _one_run_p(m, r, v, 0.0, delta) > alpha:
        return 0.0

    def beta_gap(e: float) -> float:
        return float(stats.binom.sf(v - 1, r, stats.logistic.cdf(e))) - alpha

    # Above ε_β the first term alone exceeds α, so the supremum lies in [0, ε_β].
    hi = 1.0
    while beta_gap(hi) <= 0.0 and hi < 1e4:
        hi *= 2.0
    if beta_gap(hi) <= 0.0:  # every guess right, r large: ε beyond 1e4 (never in practice)
        return hi
    e_beta = float(optimize.brentq(beta_gap, 0.0, hi, xtol=1e-13, rtol=1e-14))

    def gap(e: float) -> float:
        return _one_run_p(m, r, v, e, delta) - alpha

    if delta == 0.0:
        return e_beta
    # The δ term may fall as q grows (no proof that p increases in ε); the bound is the
    # supremum of the rejected ε, so scan down from ε_β for the last grid point that is
    # rejected, then refine between it and the next one up. A dip between grid points only
    # costs tightness.
    # ε = 0 is rejected (checked above), so the scan ends at the latest at grid[0].
    grid = np.linspace(0.0, e_beta, 65)
    j = grid.size - 1
    while gap(float(grid[j])) > 0.0:
        j -= 1
    if j == grid.size - 1:
        return float(grid[-1])
    return float(optimize.brentq(gap, grid[j], grid[j + 1], xtol=1e-13, rtol=1e-14))


def _check_scores(name: str, scores: ArrayLike, *, min_size: int = 1) -> NDArray[np.float64]:
    arr = as_float_array(name, scores)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(
            f"{name} has {arr.size} scores; at least {min_size} "
            f"{'is' if min_size == 1 else 'are'} required"
        )
    return arr


def _check_flags(name: str, flags: ArrayLike, size: int) -> NDArray[np.bool_]:
    arr = np.asarray(flags)
    if arr.dtype.kind != "b":
        vals = as_float_array(name, arr)
        if not np.all((vals == 0.0) | (vals == 1.0)):
            raise ValueError(f"{name} must hold only 0/1 or False/True values")
        arr = vals == 1.0
    if arr.ndim != 1 or arr.size != size:
        raise ValueError(
            f"{name} must be one-dimensional with one entry per score ({size}), got shape "
            f"{arr.shape}"
        )
    return arr.astype(bool)


def _check_guess_split(guesses: object, m: int) -> tuple[int, int]:
    if isinstance(guesses, tuple | list):
        if len(guesses) != 2:
            raise ValueError(
                f"guesses={guesses!r} must be an int or a pair (guesses_in, guesses_out)"
            )
        k_in = check_int("guesses_in", guesses[0], 0, m)
        k_out = check_int("guesses_out", guesses[1], 0, m)
    else:
        r = check_int("guesses", guesses, 0, m)
        k_in, k_out = r - r // 2, r // 2
    if k_in + k_out > m:
        raise ValueError(
            f"guesses={guesses!r} is out of range: allowed guesses_in + guesses_out <= "
            f"canaries ({m})"
        )
    return k_in, k_out


def _candidate_ranks(n: int, k_max: int) -> NDArray[np.int64]:
    """Ranks k (rule: flag what ranks above the (k+1)-th non-member), a function of n alone."""
    if n <= k_max:
        return np.arange(n, dtype=np.int64)
    return np.unique(np.round(np.geomspace(1.0, n, k_max)).astype(np.int64)) - 1


def _ranked(
    pos: NDArray[np.float64], neg: NDArray[np.float64], gen: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """TP(k) for k < len(neg), and the (k+1)-th highest non-member score, ties in random order."""
    s = np.concatenate((pos, neg))
    is_neg = np.concatenate((np.zeros(pos.size, bool), np.ones(neg.size, bool)))
    order = np.argsort(-s, kind="stable")
    ranked = s[order]
    if np.any(ranked[1:] == ranked[:-1]):
        order = np.lexsort((gen.random(s.size), -s))
        ranked = s[order]
    at = np.flatnonzero(is_neg[order])  # positions of the non-members, in descending order
    tp = at - np.arange(at.size)  # members ranked before the (k+1)-th non-member
    return tp.astype(np.int64), ranked[at]


def _auc(pos: NDArray[np.float64], neg: NDArray[np.float64]) -> float:
    """P(member score > non-member score) + P(equal)/2 (Mann–Whitney)."""
    neg_sorted = np.sort(neg)
    below = np.searchsorted(neg_sorted, pos, side="left")
    not_above = np.searchsorted(neg_sorted, pos, side="right")
    return float((below.sum() + 0.5 * (not_above - below).sum()) / (pos.size * neg.size))


def _bounds_at(
    tp: NDArray[np.float64],
    m: int,
    fp: NDArray[np.float64],
    n: int,
    alpha_side: float,
    delta: float,
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
]:
    """Certified rates and the three bounds at each rule (ε: both directions of the rule)."""
    tpr_lo, fpr_hi = _rates(tp, np.array(float(m)), fp, np.array(float(n)), alpha_side)
    eps = np.maximum(
        _eps_from_rates(tpr_lo, fpr_hi, delta), _eps_from_rates(1.0 - fpr_hi, 1.0 - tpr_lo, delta)
    )
    eta = np.maximum(0.5 * (tpr_lo - fpr_hi), 0.0)
    mu = _mu_from_rates(tpr_lo, fpr_hi)
    return tpr_lo, fpr_hi, eps, eta, mu


def _check_fprs(fprs: ArrayLike) -> tuple[float, ...]:
    arr = np.atleast_1d(check_range("fprs", fprs, 0.0, 1.0, lo_open=True, hi_open=True))
    if arr.ndim != 1 or not 1 <= arr.size <= _MAX_FPRS:
        raise ValueError(
            f"fprs must be a sequence of 1 to {_MAX_FPRS} rates, got shape {arr.shape}"
        )
    return tuple(float(x) for x in arr)


def _separated_epsilon(
    m: int,
    n: int,
    bonferroni: bool,
    split: bool,
    k_max: int,
    frac: float,
    alpha: float,
    delta: float,
) -> float:
    """The ε that m members and n non-members perfectly apart prove when certified as
    ``audit_scores`` certifies its rules: Bonferroni over its K ranks (rank 0 flags every
    member and no non-member), or one rule at α/2 per rate on the certification part
    (``split``) or on all (explicit)."""
    if bonferroni:
        side = alpha / (2 * _candidate_ranks(n, k_max).size)
    else:
        side = alpha / 2.0
        if split:
            m -= min(max(int(frac * m), 1), m - 1)
            n -= min(max(int(frac * n), 1), n - 1)
    eps = _bounds_at(np.array([float(m)]), m, np.array([0.0]), n, side, delta)[2]
    return float(eps[0])


def _sizes(total: int, share: float) -> tuple[int, int]:
    """Members and non-members of ``total`` rows, members in ``share`` (at least one each)."""
    m = min(max(round(share * total), 1), total - 1)
    return m, total - m


def _smallest(ok: Callable[[int], bool], start: int, ceiling: int) -> int | None:
    """The smallest size above ``start`` with ``ok``, by doubling then bisection, or None if
    ``ceiling`` fails; ``ok`` is taken to turn true once and stay so, and the size returned
    passes while the one below it fails."""
    lo, hi = start, min(max(start + 1, 2 * start), ceiling)
    while not ok(hi):
        if hi >= ceiling:
            return None
        lo, hi = hi, min(2 * hi, ceiling)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _tpr_interval(
    tp: NDArray[np.int64], m: int, n: int, f: float, confidence: float
) -> tuple[float, float, float]:
    """``ScoreAudit.tpr_at``'s estimate and interval ends at FPR ``f`` (see its docstring),
    from TP(k) of the rules "flag above the (k+1)-th non-member"."""
    a = (1.0 - confidence) / 4.0
    k_est = min(math.floor(f * n + 1e-9), n - 1)
    est = float(tp[k_est]) / m

    def fpr_hi(k: int) -> float:
        return float(_cp_upper(np.array(float(k)), np.array(float(n)), a))

    def fpr_lo(k: int) -> float:  # lower bound on the FPR of rule k (count k + 1)
        return float(_cp_lower(np.array(float(k + 1)), np.array(float(n)), a))

    # largest k in [0, n − 1] with fpr_hi(k) <= f (fpr_hi increases in k)
    low = 0.0
    if fpr_hi(0) <= f:
        lo_k, hi_k = 0, n - 1
        if fpr_hi(hi_k) <= f:
            lo_k = hi_k
        while hi_k - lo_k > 1:
            mid = (lo_k + hi_k) // 2
            lo_k, hi_k = (mid, hi_k) if fpr_hi(mid) <= f else (lo_k, mid)
        low = float(_cp_lower(np.array(float(tp[lo_k])), np.array(float(m)), a))
    # smallest k in [0, n − 1] with fpr_lo(k) >= f (fpr_lo increases in k)
    high = 1.0
    if fpr_lo(n - 1) >= f:
        lo_k, hi_k = 0, n - 1
        if fpr_lo(0) >= f:
            hi_k = 0
        while hi_k - lo_k > 1:
            mid = (lo_k + hi_k) // 2
            lo_k, hi_k = (lo_k, mid) if fpr_lo(mid) >= f else (mid, hi_k)
        high = float(_cp_upper(np.array(float(tp[hi_k])), np.array(float(m)), a))
    return est, low, high
