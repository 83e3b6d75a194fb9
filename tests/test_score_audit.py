"""Tests for mipcore.score_audit: ε, η and μ lower bounds from attack scores and counts.

References are independent of the code under test:

* ``mp_cp_lower``/``mp_cp_upper``: Clopper–Pearson by bisection on exact binomial tails summed
  in mpmath at 40 digits (no ``scipy.stats.beta.ppf``);
* ``mp_one_run_p``/``mp_one_run_eps``: Theorem 3 of Steinke, Nasr and Jagielski (arXiv:2305.08846)
  as exact sums in mpmath, inverted by the plain bisection of the paper's Appendix D (step up
  by 1, then halve 60 times);
* scikit-learn's ``roc_auc_score``, and a brute-force maximum over every rule of a small
  sample;
* simulations with fixed seeds of mechanisms whose truth is known in closed form (Gaussian
  scores: μ-GDP; randomised response: pure ε-DP, the tight case of Theorem 3). A bound that
  should fail with probability at most α is allowed ``binom.isf(1e-6, R, α)`` failures in R
  repetitions: a sound bound exceeds that with probability below 10⁻⁶, and a bound that
  fails far more often than α (a missing Bonferroni factor, a confidence read as α) does not
  pass it.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from sklearn.metrics import roc_auc_score

from mipcore.audit_stats import max_certifiable_epsilon
from mipcore.score_audit import (
    ThresholdStrategy,
    audit_scores,
    clopper_pearson_epsilon,
    eta_from_counts,
    mu_from_counts,
    one_run_epsilon,
    one_run_from_scores,
    one_run_p_value,
)

mp.mp.dps = 40

# ----------------------------------------------------------------------------- references


def _mp_pmf(n: int, p) -> list:
    """Binomial(n, p) probabilities 0..n in mpmath (recursion from P[0], or from P[n] if p = 1)."""
    p = mp.mpf(p)
    if p == 1:
        return [mp.mpf(0)] * n + [mp.mpf(1)]
    out = [(1 - p) ** n]
    ratio = p / (1 - p)
    for j in range(n):
        out.append(out[-1] * (n - j) / (j + 1) * ratio)
    return out


def _mp_bisect(f, lo, hi, steps: int = 120):
    """Root of an increasing f on [lo, hi] by bisection."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(steps):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mp_cp_lower(k: int, n: int, a) -> float:
    """p with P[Binomial(n, p) >= k] = a (0 at k = 0)."""
    if k == 0:
        return 0.0
    return float(_mp_bisect(lambda p: mp.fsum(_mp_pmf(n, p)[k:]) - a, 0, 1))


def mp_cp_upper(k: int, n: int, a) -> float:
    """p with P[Binomial(n, p) <= k] = a (1 at k = n)."""
    if k == n:
        return 1.0
    return float(_mp_bisect(lambda p: a - mp.fsum(_mp_pmf(n, p)[: k + 1]), 0, 1))


def mp_one_run_p(m: int, r: int, v: int, eps, delta) -> mp.mpf:
    q = mp.e**eps / (1 + mp.e**eps)
    pmf = _mp_pmf(r, q)
    beta = mp.fsum(pmf[v:])
    alpha, below = mp.mpf(0), mp.mpf(0)  # below = P[v > B >= v − i]
    for i in range(1, v + 1):
        below += pmf[v - i]
        alpha = max(alpha, below / i)
    return min(mp.mpf(1), beta + 2 * m * mp.mpf(delta) * alpha)


def mp_one_run_eps(m: int, r: int, v: int, delta: float, confidence: float) -> float:
    """Appendix D's get_eps_audit: raise eps_max by 1 while rejected, then bisect 60 times."""
    p = 1 - mp.mpf(confidence)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while mp_one_run_p(m, r, v, hi, delta) < p:
        hi += 1
    for _ in range(60):
        mid = (lo + hi) / 2
        if mp_one_run_p(m, r, v, mid, delta) < p:
            lo = mid
        else:
            hi = mid
    return float(lo)


def allowed_failures(reps: int, level: float) -> int:
    """Failures of a sound level-``level`` statement in ``reps`` runs exceed this w.p. < 1e-6."""
    return int(stats.binom.isf(1e-6, reps, level))


def gdp_epsilon(mu: float, delta: float) -> float:
    """ε(δ) of μ-GDP (Dong, Roth, Su, Corollary 2.13), solved with scipy's brentq."""

    def gap(e: float) -> float:
        return (
            stats.norm.cdf(-e / mu + mu / 2)
            - math.exp(e) * stats.norm.cdf(-e / mu - mu / 2)
            - delta
        )

    return optimize.brentq(gap, 0.0, 100.0, xtol=1e-12)


# ----------------------------------------------------------------------------- one run


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
def test_one_run_check_value_all_1000_guesses_right():
    """m = r = v = 1000, δ = 1e-5, 95 %: ε ≥ 5.78, and the independent mpmath bisection agrees."""
    got = one_run_epsilon(1000, 1000, 1000, delta=1e-5, confidence=0.95)
    assert round(got, 2) == 5.78
    assert got == pytest.approx(mp_one_run_eps(1000, 1000, 1000, 1e-5, 0.95), abs=1e-6)


def test_one_run_without_delta_is_the_binomial_closed_form():
    # δ = 0, v = r: q^r = α, ε = logit(α^(1/r)) -- Clopper–Pearson's one-sided bound, too
    lo = 0.05 ** (1 / 1000)
    closed = math.log(lo / (1 - lo))
    assert one_run_epsilon(1000, 1000, 1000, delta=0.0) == pytest.approx(closed, abs=1e-9)
    assert one_run_epsilon(1000, 1000, 1000, delta=0.0) == pytest.approx(
        max_certifiable_epsilon(1000), abs=1e-9
    )


@pytest.mark.parametrize(
    "m,r,v,delta,conf",
    [
        (500, 100, 80, 1e-5, 0.95),
        (2000, 300, 250, 1e-6, 0.99),
        (100, 20, 18, 1e-3, 0.9),  # a large δ term: 2mδ = 0.2
        (1000, 50, 50, 1e-5, 0.95),
        (10_000, 200, 140, 1e-5, 0.95),
    ],
)
def test_one_run_matches_mpmath_reference(m, r, v, delta, conf):
    got = one_run_epsilon(m, r, v, delta=delta, confidence=conf)
    assert got > 0
    assert got == pytest.approx(mp_one_run_eps(m, r, v, delta, conf), abs=1e-6)
    assert one_run_p_value(m, r, v, got, delta=delta) == pytest.approx(
        float(mp_one_run_p(m, r, v, got, delta)), rel=1e-9
    )


def test_one_run_proves_nothing_from_a_coin():
    assert one_run_epsilon(1000, 100, 50, delta=1e-5) == 0.0
    assert one_run_epsilon(1000, 0, 0, delta=1e-5) == 0.0
    assert one_run_epsilon(1000, 100, 0, delta=0.0) == 0.0


@settings(max_examples=30)
@given(
    st.integers(1, 300),
    st.data(),
    st.sampled_from([0.0, 1e-6, 1e-4]),
)
def test_one_run_is_monotone_in_correct_guesses(m, data, delta):
    r = data.draw(st.integers(0, m))
    v1 = data.draw(st.integers(0, r))
    v2 = data.draw(st.integers(v1, r))
    e1 = one_run_epsilon(m, r, v1, delta=delta)
    e2 = one_run_epsilon(m, r, v2, delta=delta)
    assert 0.0 <= e1 <= e2 + 1e-9
    assert math.isfinite(e2)


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_one_run_is_sound_on_randomised_response():
    """Pure ε-DP randomised response per canary is Theorem 3's tight case: the correct
    guesses are exactly Binomial(r, e^ε/(1 + e^ε)), so the 95 % bound may exceed the true ε
    in about 5 % of the runs, and no more."""
    eps, m, reps = 1.0, 1000, 1000
    q = math.exp(eps) / (1 + math.exp(eps))
    gen = np.random.default_rng(20240601)
    over = 0
    for _ in range(reps):
        included = gen.random(m) < 0.5
        shown = np.where(gen.random(m) < q, included, ~included)  # the mechanism's output
        scores = shown + 0.5 * gen.random(m)  # ties broken by public randomness
        audit = one_run_from_scores(scores, included, guesses=(100, 100), delta=0.0)
        assert audit.guesses == 200
        over += audit.epsilon > eps
    assert over <= allowed_failures(reps, 0.05)
    assert over > 0  # the bound is tight here: it does reach the truth now and then


def test_one_run_from_scores_counts_and_ties():
    scores = [9.0, 8.0, 7.0, 7.0, 5.0, 4.0, 3.0, 3.0, 1.0, 0.0]
    included = [1, 1, 1, 0, 1, 0, 0, 1, 0, 0]
    a = one_run_from_scores(scores, included, guesses=(2, 2), delta=0.0)
    assert (a.guesses_in, a.guesses_out, a.correct_in, a.correct) == (2, 2, 2, 4)
    assert (a.threshold_in, a.threshold_out) == (8.0, 1.0)
    # the 3rd "in" guess would split the tie at 7.0: that whole group abstains
    b = one_run_from_scores(scores, included, guesses=(3, 3), delta=0.0)
    assert (b.guesses_in, b.guesses_out) == (2, 2)
    # ... and a row order that follows the coins changes nothing
    order = np.argsort(included, kind="stable")
    c = one_run_from_scores(
        np.asarray(scores)[order], np.asarray(included)[order], guesses=(3, 3), delta=0.0
    )
    assert (c.guesses, c.correct) == (b.guesses, b.correct)
    # an int splits in two; low scores mean "member" when asked
    d = one_run_from_scores(scores, included, guesses=5, delta=0.0)
    assert (d.guesses_in, d.guesses_out) == (3 - 1, 2)  # the tie again
    e = one_run_from_scores(
        -np.asarray(scores), included, guesses=(2, 2), delta=0.0, higher_means_member=False
    )
    assert (e.correct, e.threshold_in) == (a.correct, -8.0)
    assert e.precision == 1.0


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(canaries=0, guesses=0, correct=0), "canaries"),
        (dict(canaries=10, guesses=11, correct=0), "guesses"),
        (dict(canaries=10, guesses=5, correct=6), "correct"),
        (dict(canaries=10, guesses=5, correct=-1), "correct"),
        (dict(canaries=10.5, guesses=5, correct=1), "canaries"),
        (dict(canaries=10, guesses=5, correct=1, delta=1.0), "delta"),
        (dict(canaries=10, guesses=5, correct=1, delta=-0.1), "delta"),
        (dict(canaries=10, guesses=5, correct=1, confidence=1.0), "confidence"),
        (dict(canaries=10, guesses=5, correct=1, confidence=0.0), "confidence"),
    ],
)
def test_one_run_epsilon_refuses_bad_input(kwargs, match):
    kwargs = {"delta": 1e-5, **kwargs}
    with pytest.raises(ValueError, match=match):
        one_run_epsilon(**kwargs)


@pytest.mark.parametrize(
    "scores,included,kwargs,match",
    [
        ([1.0, np.nan], [1, 0], {}, "scores"),
        ([], [], {}, "scores"),
        ([1.0, 2.0], [1, 2], {}, "included"),
        ([1.0, 2.0], [1], {}, "included"),
        ([1.0, 2.0], [1, 0], dict(guesses=(2, 1)), "guesses"),
        ([1.0, 2.0], [1, 0], dict(guesses=3), "guesses"),
        ([1.0, 2.0], [1, 0], dict(guesses=(1, -1)), "guesses_out"),
        ([1.0, 2.0], [1, 0], dict(delta=2.0), "delta"),
        ([1.0, 2.0], [1, 0], dict(higher_means_member="yes"), "higher_means_member"),
    ],
)
def test_one_run_from_scores_refuses_bad_input(scores, included, kwargs, match):
    kwargs = {"guesses": 1, "delta": 1e-5, **kwargs}
    with pytest.raises(ValueError, match=match):
        one_run_from_scores(scores, included, **kwargs)


# ----------------------------------------------------------------------------- four counts


@pytest.mark.parametrize(
    "tp,m,fp,n,delta,conf",
    [
        (500, 1000, 10, 1000, 1e-5, 0.95),
        (90, 100, 3, 200, 0.0, 0.9),
        (100, 100, 0, 100, 1e-5, 0.95),  # a perfect attack: finite
        (40, 50, 20, 60, 0.01, 0.99),
        (1, 7, 0, 5, 0.0, 0.5),
    ],
)
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_counts_match_mpmath_clopper_pearson(tp, m, fp, n, delta, conf):
    a = (1 - conf) / 2
    t_lo, f_hi = mp_cp_lower(tp, m, a), mp_cp_upper(fp, n, a)
    ref_eps = max(0.0, math.log((t_lo - delta) / f_hi)) if t_lo > delta else 0.0
    ref_eta = max(0.0, (t_lo - f_hi) / 2)
    ref_mu = (
        max(0.0, float(mp.sqrt(2) * (mp.erfinv(2 * t_lo - 1) - mp.erfinv(2 * f_hi - 1))))
        if t_lo > 0
        else 0.0
    )
    assert clopper_pearson_epsilon(tp, m, fp, n, delta=delta, confidence=conf) == pytest.approx(
        ref_eps, abs=1e-6
    )
    assert eta_from_counts(tp, m, fp, n, confidence=conf) == pytest.approx(ref_eta, abs=1e-6)
    assert mu_from_counts(tp, m, fp, n, confidence=conf) == pytest.approx(ref_mu, abs=1e-6)


def test_counts_edges_are_finite_and_never_nan():
    """Every count of small samples: finite, >= 0 and no warning (the suite turns mipcore's
    RuntimeWarnings into errors)."""
    for m in (1, 2, 5):
        for n in (1, 3):
            tp, fp = np.meshgrid(np.arange(m + 1), np.arange(n + 1))
            for f in (
                clopper_pearson_epsilon(tp, m, fp, n, delta=0.0),
                clopper_pearson_epsilon(tp, m, fp, n, delta=0.5),
                eta_from_counts(tp, m, fp, n),
                mu_from_counts(tp, m, fp, n),
            ):
                assert np.all(np.isfinite(f)) and np.all(f >= 0)
    # TPR_lo <= δ proves nothing, whatever the FPR
    assert clopper_pearson_epsilon(10, 10, 0, 10, delta=0.99) == 0.0
    assert eta_from_counts(0, 10, 0, 10) == 0.0 and mu_from_counts(0, 10, 0, 10) == 0.0


def test_counts_vectorise():
    eps = clopper_pearson_epsilon([10, 500, 900], 1000, 10, 1000, delta=1e-5)
    assert eps.shape == (3,) and eps[0] == 0.0 and np.all(np.diff(eps) > 0)
    assert isinstance(eta_from_counts(700, 1000, 300, 1000), float)


@settings(max_examples=60)
@given(st.integers(1, 400), st.integers(1, 400), st.data())
def test_counts_are_monotone(m, n, data):
    tp1 = data.draw(st.integers(0, m))
    tp2 = data.draw(st.integers(tp1, m))
    fp2 = data.draw(st.integers(0, n))
    fp1 = data.draw(st.integers(0, fp2))
    delta = data.draw(st.sampled_from([0.0, 1e-5, 0.1]))
    # more true positives, fewer false positives: never a smaller bound
    for f in (
        lambda t, p: clopper_pearson_epsilon(t, m, p, n, delta=delta),
        lambda t, p: eta_from_counts(t, m, p, n),
        lambda t, p: mu_from_counts(t, m, p, n),
    ):
        assert f(tp1, fp2) <= f(tp2, fp2) + 1e-12
        assert f(tp2, fp2) <= f(tp2, fp1) + 1e-12


@pytest.mark.parametrize(
    "args,kwargs,match",
    [
        ((11, 10, 1, 10), {}, "tp"),
        ((-1, 10, 1, 10), {}, "tp"),
        ((1, 10, 11, 10), {}, "fp"),
        ((1, 0, 0, 10), {}, "members"),
        ((1, 10, 0, 0), {}, "non_members"),
        ((1.5, 10, 0, 10), {}, "tp"),
        ((1, 10, 0, 10), dict(confidence=1.5), "confidence"),
        ((1, 10, 0, 10), dict(delta=1.0), "delta"),
        ((1, 10, 0, 10), dict(delta=np.nan), "delta"),
    ],
)
def test_counts_refuse_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        clopper_pearson_epsilon(*args, **{"delta": 1e-5, **kwargs})
    if "delta" not in kwargs:
        with pytest.raises(ValueError, match=match):
            eta_from_counts(*args, **kwargs)
        with pytest.raises(ValueError, match=match):
            mu_from_counts(*args, **kwargs)


# ----------------------------------------------------------------------------- scores


def _gaussian_scores(gen, mu, m, n):
    return gen.normal(mu, 1.0, m), gen.normal(0.0, 1.0, n)


def test_bonferroni_is_the_best_of_every_rule_brute_force():
    """With fewer non-members than max_thresholds every rank is a rule: the audit's ε, η, μ
    are the maxima over all of them of the counts functions at level 1 − α/K."""
    gen = np.random.default_rng(7)
    pos, neg = _gaussian_scores(gen, 1.5, 120, 80)
    audit = audit_scores(pos, neg, delta=1e-3, confidence=0.9)
    k_all = neg.size
    assert audit.thresholds_tested == k_all
    conf = 1 - 0.1 / k_all
    eps, eta, mu = [], [], []
    for k, t in enumerate(np.sort(neg)[::-1]):
        tp = int(np.sum(pos > t))
        m, n = pos.size, neg.size
        eps.append(
            max(
                clopper_pearson_epsilon(tp, m, k, n, delta=1e-3, confidence=conf),
                clopper_pearson_epsilon(n - k, n, m - tp, m, delta=1e-3, confidence=conf),
            )
        )
        eta.append(eta_from_counts(tp, m, k, n, confidence=conf))
        mu.append(mu_from_counts(tp, m, k, n, confidence=conf))
    assert audit.epsilon == pytest.approx(max(eps), abs=1e-12)
    assert audit.eta == pytest.approx(max(eta), abs=1e-12)
    assert audit.mu == pytest.approx(max(mu), abs=1e-12)
    assert audit.epsilon > 0 and audit.eta > 0 and audit.mu > 0
    point = audit.certified_point("eta")
    assert (point.tpr_low - point.fpr_high) / 2 == pytest.approx(audit.eta)


def test_explicit_threshold_is_the_counts_functions():
    gen = np.random.default_rng(3)
    pos, neg = _gaussian_scores(gen, 1.0, 300, 400)
    a = audit_scores(pos, neg, delta=1e-5, strategy="explicit", threshold=1.0)
    tp, fp = int(np.sum(pos >= 1.0)), int(np.sum(neg >= 1.0))
    assert a.epsilon == max(
        clopper_pearson_epsilon(tp, 300, fp, 400, delta=1e-5),
        clopper_pearson_epsilon(400 - fp, 400, 300 - tp, 300, delta=1e-5),
    )
    assert a.eta == eta_from_counts(tp, 300, fp, 400)
    assert a.mu == mu_from_counts(tp, 300, fp, 400)
    assert a.thresholds_tested == 1 and a.certified_point().tp == tp
    # low scores mean "member": the rule is "score <= threshold"
    b = audit_scores(
        -pos, -neg, delta=1e-5, strategy="explicit", threshold=-1.0, higher_means_member=False
    )
    assert (b.epsilon, b.eta, b.mu) == (a.epsilon, a.eta, a.mu)


def test_ties_rank_exactly_and_deterministically():
    gen = np.random.default_rng(5)
    pos = np.round(gen.normal(1.0, 1.0, 400), 0)
    neg = np.round(gen.normal(0.0, 1.0, 300), 0)
    a = audit_scores(pos, neg, delta=1e-5, rng=11)
    b = audit_scores(pos, neg, delta=1e-5, rng=11)
    assert (a.epsilon, a.eta, a.mu) == (b.epsilon, b.eta, b.mu)
    for k, p in enumerate(a.certified_points()):
        assert p.fp == k  # rule k flags exactly k non-members, ties or not
        assert np.sum(pos > p.threshold) <= p.tp <= np.sum(pos >= p.threshold)
    assert a.auc == pytest.approx(
        roc_auc_score(np.r_[np.ones(400), np.zeros(300)], np.r_[pos, neg]), abs=1e-12
    )


def test_ties_are_broken_at_random_not_in_favour_of_members():
    """Under the null (members and non-members alike) with scores in four values, a tie order
    that put members first would show leakage in every run; the random order shows none in
    at least 95 % of them."""
    gen = np.random.default_rng(17)
    reps, shown = 100, 0
    for rep in range(reps):
        pos, neg = gen.integers(0, 4, 300).astype(float), gen.integers(0, 4, 300).astype(float)
        a = audit_scores(pos, neg, delta=0.0, rng=rep)
        shown += a.eta > 0 or a.epsilon > 0 or a.mu > 0
    assert shown <= allowed_failures(reps, 0.05)


def test_auc_and_roc():
    gen = np.random.default_rng(9)
    pos, neg = _gaussian_scores(gen, 0.7, 2000, 3000)
    y = np.r_[np.ones(pos.size), np.zeros(neg.size)]
    a = audit_scores(pos, neg, delta=1e-5)
    assert a.auc == pytest.approx(roc_auc_score(y, np.r_[pos, neg]), abs=1e-12)
    low = audit_scores(-pos, -neg, delta=1e-5, higher_means_member=False)
    assert low.auc == a.auc and low.epsilon == a.epsilon
    fpr, tpr = a.roc(max_points=None)
    assert fpr[0] == 0.0 and (fpr[-1], tpr[-1]) == (1.0, 1.0)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    assert np.trapezoid(tpr, fpr) == pytest.approx(a.auc, abs=1e-12)  # no ties: the staircase
    f2, t2 = a.roc(max_points=200)
    assert f2.size <= 200 and f2[0] == 0.0 and f2[-1] == 1.0
    on_curve = {(x, z) for x, z in zip(fpr, tpr, strict=True)}
    assert all((x, z) in on_curve for x, z in zip(f2, t2, strict=True))
    assert f2[1] == pytest.approx(1 / neg.size)  # the lowest FPR, for a log-FPR chart
    cf, ct = a.certified_roc()
    assert cf.size == a.thresholds_tested and np.all(np.diff(cf) >= 0)
    # a Clopper–Pearson lower bound never exceeds the observed rate: below the empirical ROC
    assert all(p.tpr_low <= p.tp / p.members for p in a.certified_points())
    assert np.all((ct >= 0) & (ct <= 1))
    with pytest.raises(ValueError, match="max_points"):
        a.roc(max_points=2)


def test_tpr_at_fpr_estimate_and_interval():
    gen = np.random.default_rng(2)
    pos, neg = _gaussian_scores(gen, 1.0, 1000, 1000)
    a = audit_scores(pos, neg, delta=1e-5, fprs=(0.01, 0.1))
    t = a.tpr_at_fprs
    assert [x.fpr for x in t] == [0.01, 0.1]
    k = 100  # the 100 highest non-members are flagged at FPR 10 %
    assert t[1].estimate == np.sum(pos > np.sort(neg)[::-1][k]) / 1000
    for x in t:
        assert 0.0 <= x.low <= x.estimate <= x.high <= 1.0
    assert a.tpr_at(0.0001).low == 0.0  # no rule certifies an FPR that small with 1000
    # the interval's construction, by brute force over every rule: the rates' bounds from the
    # beta quantiles (Clopper–Pearson's definition), the TPR's from scipy's binomtest
    tp = np.array([np.sum(pos > t) for t in np.sort(neg)[::-1]])  # rule k: above the (k+1)-th
    a4 = (1 - 0.95) / 4
    k = np.arange(1000)
    fpr_hi = stats.beta.ppf(1 - a4, k + 1, 1000 - k)  # upper bound from k of 1000
    fpr_lo = stats.beta.ppf(a4, k + 1, 1000 - k)  # lower bound from k + 1 of 1000

    def one_sided(count):  # (lower, upper) bounds on the TPR, each at level 1 − a4
        ci = stats.binomtest(int(count), 1000).proportion_ci(1 - 2 * a4, method="exact")
        return ci.low, ci.high

    for f in (0.01, 0.1, 0.5):
        k_low = np.flatnonzero(fpr_hi <= f).max()
        k_high = np.flatnonzero(fpr_lo >= f).min()
        x = a.tpr_at(f)
        assert x.low == pytest.approx(min(one_sided(tp[k_low])[0], x.estimate), abs=1e-12)
        assert x.high == pytest.approx(max(one_sided(tp[k_high])[1], x.estimate), abs=1e-12)
    with pytest.raises(ValueError, match="fpr"):
        a.tpr_at(1.0)


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_audit_is_sound_on_gaussian_scores():
    """Members N(1, 1), non-members N(0, 1): exactly 1-GDP. Over seeded repetitions:

    * Bonferroni: all certified corners hold at once (true FPR <= fpr_high and true TPR >=
      tpr_low at every rule) in at least 95 % of the runs, and so do ε, η, μ against the truth;
    * split: the certified rule of each bound holds in 95 %;
    * the TPR interval at FPR 10 % covers the true TPR in 95 %.
    """
    mu, m, n, reps, conf = 1.0, 300, 300, 300, 0.95
    true_eta = stats.norm.cdf(mu / 2) - 0.5
    true_eps = gdp_epsilon(mu, 1e-3)
    true_tpr = stats.norm.sf(stats.norm.isf(0.1) - mu)
    gen = np.random.default_rng(424242)
    fail = dict(corners=0, eps=0, eta=0, mu=0, split=0, interval=0)
    for rep in range(reps):
        pos, neg = _gaussian_scores(gen, mu, m, n)
        a = audit_scores(pos, neg, delta=1e-3, confidence=conf, rng=rep)
        t = np.array([p.threshold for p in a.certified_points()])
        fpr_true, tpr_true = stats.norm.sf(t), stats.norm.sf(t - mu)
        fh = np.array([p.fpr_high for p in a.certified_points()])
        tl = np.array([p.tpr_low for p in a.certified_points()])
        fail["corners"] += bool(np.any((fpr_true > fh) | (tpr_true < tl)))
        fail["eps"] += a.epsilon > true_eps
        fail["eta"] += a.eta > true_eta
        fail["mu"] += a.mu > mu
        s = audit_scores(pos, neg, delta=1e-3, confidence=conf, strategy="split", rng=rep)
        p = s.certified_point("eta")
        fail["split"] += bool(
            stats.norm.sf(p.threshold) > p.fpr_high or stats.norm.sf(p.threshold - mu) < p.tpr_low
        )
        x = a.tpr_at(0.1)
        fail["interval"] += not x.low <= true_tpr <= x.high
    limit = allowed_failures(reps, 1 - conf)
    assert all(v <= limit for v in fail.values()), (fail, limit)


def test_bonferroni_certifies_what_an_uncorrected_maximum_would_not():
    """The reason for the correction, shown: with every rule at the uncorrected level, some
    corner fails in most runs of a null attack (members and non-members alike)."""
    gen = np.random.default_rng(99)
    reps, fails_corrected, fails_naive = 100, 0, 0
    for rep in range(reps):
        pos, neg = gen.normal(0, 1, 200), gen.normal(0, 1, 200)
        a = audit_scores(pos, neg, delta=0.0, rng=rep)
        naive = audit_scores(pos, neg, delta=0.0, rng=rep, max_thresholds=1)
        t = np.array([p.threshold for p in a.certified_points()])
        true = stats.norm.sf(t)  # TPR = FPR under the null
        fh = np.array([p.fpr_high for p in a.certified_points()])
        tl = np.array([p.tpr_low for p in a.certified_points()])
        fails_corrected += bool(np.any((true > fh) | (true < tl)))
        # the same rules certified at level α/2 each, as if each had been the only one
        k = np.arange(neg.size)
        tp = np.array([p.tp for p in a.certified_points()])
        tl_naive = stats.beta.ppf(0.025, tp, pos.size - tp + 1)
        fh_naive = stats.beta.ppf(0.975, k + 1, neg.size - k)
        fails_naive += bool(np.any((true > fh_naive) | (true < np.nan_to_num(tl_naive))))
        assert naive.thresholds_tested == 1
    assert fails_corrected <= allowed_failures(reps, 0.05)
    assert fails_naive > allowed_failures(reps, 0.05)  # no 95 % statement fails this often


def test_split_and_explicit_are_reproducible_and_separate():
    gen = np.random.default_rng(4)
    pos, neg = _gaussian_scores(gen, 2.0, 500, 500)
    a = audit_scores(pos, neg, delta=1e-5, strategy=ThresholdStrategy.SPLIT, rng=1)
    b = audit_scores(pos, neg, delta=1e-5, strategy="split", rng=1)
    assert a == b and a.thresholds_tested == 1 and len(a.certified_points()) == 3
    assert a.certified_point("mu").members == 250  # the certifying half
    assert a.eta > 0.2 and a.mu > 1.0
    # ROC, AUC and TPR describe all the scores whatever the strategy
    c = audit_scores(pos, neg, delta=1e-5)
    assert a.auc == c.auc and a.tpr_at(0.1) == c.tpr_at(0.1)


@pytest.mark.parametrize(
    "args,kwargs,match",
    [
        (([1.0, np.nan], [0.0]), {}, "member_scores"),
        (([1.0], [np.nan]), {}, "non_member_scores"),
        (([], [0.0]), {}, "member_scores"),
        (([1.0], []), {}, "non_member_scores"),
        (([[1.0, 2.0]], [0.0]), {}, "member_scores"),
        (([1.0], [0.0]), dict(confidence=0.0), "confidence"),
        (([1.0], [0.0]), dict(confidence=1.0), "confidence"),
        (([1.0], [0.0]), dict(delta=1.0), "delta"),
        (([1.0], [0.0]), dict(delta=-1e-9), "delta"),
        (([1.0], [0.0]), dict(fprs=(0.0, 0.1)), "fprs"),
        (([1.0], [0.0]), dict(fprs=()), "fprs"),
        (([1.0], [0.0]), dict(strategy="best"), "strategy"),
        (([1.0], [0.0]), dict(strategy="explicit"), "threshold"),
        (([1.0], [0.0]), dict(threshold=0.5), "threshold"),
        (([1.0], [0.0]), dict(strategy="explicit", threshold=np.nan), "threshold"),
        (([1.0], [0.0]), dict(strategy="split"), "member_scores"),
        (([1.0, 2.0], [0.0, 1.0]), dict(strategy="split", split_fraction=1.0), "split_fraction"),
        (([1.0], [0.0]), dict(max_thresholds=0), "max_thresholds"),
        (([1.0], [0.0]), dict(higher_means_member=1), "higher_means_member"),
        (([1.0], [0.0]), dict(rng=-1), "rng"),
    ],
)
def test_audit_scores_refuses_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        audit_scores(*args, **{"delta": 1e-5, **kwargs})


def test_one_score_each_and_infinite_scores():
    a = audit_scores([1.0], [0.0], delta=0.0)
    assert a.thresholds_tested == 1 and a.auc == 1.0
    assert math.isfinite(a.epsilon) and a.epsilon >= 0
    b = audit_scores([np.inf, 3.0, 2.0], [-np.inf, 0.0, 1.0], delta=1e-5)
    assert b.auc == 1.0 and all(math.isfinite(v) for v in (b.epsilon, b.eta, b.mu))
