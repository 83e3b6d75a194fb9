"""Tests for mipcore.risk: best TPR, best accuracy, posterior/PPV bounds, the number to quote
for a named person, icon array, table.

Three ways: known values (closed forms, Theorem 4 at ε = 1, the 2.7 % posterior at ε = 1 and
1 in 100; issue 25's pictures: at ε = 1 and 1 % in the data 2 of 100 members named and 99 of
9 900 wrongly accused, not "the one member named, 0 of 99 accused"; at ε = 3 and half in the
data 100 of 500 named for 100.4, not "11 of 50" for 10.05), identities (π = 1/2 gives 1/2 + η,
ε = 0 gives FPR + δ and tells nothing, PPV at small FPR equals the posterior, δ > 0 or η > 0
make the precision the number to quote, ...), and brute force: the randomised-response
mechanism with a δ-mass that reveals membership (the tightness construction of Theorem 4) and
the mechanism that reveals membership with probability 2η, whose every deterministic test is
enumerated and every randomised test is a mixture of two of them -- the pictures' counts,
their population and their accuracy are checked against that enumeration.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from attack_refs import leak_laws, rr_laws
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from mipcore.bounds import eta_from_epsilon
from mipcore.guarantees import (
    DpSgd,
    EpsDelta,
    Gdp,
    Rdp,
    Relation,
    Zcdp,
    attacker_bound,
    tpr_bound_gdp,
)
from mipcore.optimal_attack import optimal_attack_accuracy_discrete
from mipcore.risk import (
    COMPARISON_DELTAS,
    COMPARISON_EPSILONS,
    ICON_POPULATIONS,
    Confidence,
    TradeOffCurve,
    best_accuracy,
    best_operating_point,
    best_tpr,
    comparison_table,
    icon_array,
    member_posterior_bound,
    member_posterior_tail_bound,
    named_confidence,
    ppv,
    ppv_bound,
)

EPS_GRID = [0.0, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0]
DELTA_GRID = [0.0, 1e-5, 0.01, 0.2]
FPRS = np.array([0.0, 1e-4, 0.01, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 0.99, 1.0])

# --------------------------------------------------------------------------- brute force


def deterministic_tests(p_in, p_out):
    """(FPR, TPR) of every subset of outputs called "member"."""
    m = len(p_in)
    pts = []
    for mask in itertools.product([0, 1], repeat=m):
        s = np.array(mask, dtype=bool)
        pts.append((float(p_out[s].sum()), float(p_in[s].sum())))
    return pts


def brute_tpr(p_in, p_out, cap: float) -> float:
    """max TPR over all randomised tests with FPR <= cap: mixtures of two deterministic tests."""
    pts = deterministic_tests(p_in, p_out)
    best = max(t for f, t in pts if f <= cap + 1e-15)
    for (f1, t1), (f2, t2) in itertools.product(pts, pts):
        if f1 <= cap < f2:
            lam = (cap - f1) / (f2 - f1)
            best = max(best, t1 + lam * (t2 - t1))
    return min(1.0, best)


def brute_accuracy(p_in, p_out, prior: float) -> tuple[float, float, float]:
    """max over deterministic tests of π TPR + (1−π)(1 − FPR), with its (FPR, TPR)."""
    return max(
        (prior * t + (1 - prior) * (1 - f), f, t) for f, t in deterministic_tests(p_in, p_out)
    )


# --------------------------------------------------------------------------- known values


def test_best_tpr_known_values():
    assert best_tpr(0.01, epsilon=1.0) == pytest.approx(math.e * 0.01, rel=1e-15)
    assert best_tpr(0.0, epsilon=1.0, delta=1e-5) == pytest.approx(1e-5, rel=1e-12)
    assert best_tpr(0.01, eta=0.1) == pytest.approx(0.21, rel=1e-15)
    assert best_tpr(0.5, eta=0.4) == 1.0
    # the far end of the DP region: 1 - e^-eps (1 - delta - fpr)
    assert best_tpr(0.6, epsilon=1.0) == pytest.approx(1 - math.exp(-1) * 0.4, rel=1e-15)
    assert best_tpr(0.01, epsilon=math.inf) == 1.0


def test_best_tpr_never_below_the_diagonal_at_tiny_fpr():
    # ε = 0: both DP edges are FPR + δ; the far edge's float cancellation must not win the min
    f = 1.192092896e-07
    assert best_tpr(f, epsilon=0.0) == f
    assert ppv_bound(0.5, f, epsilon=0.0) == 0.5


def test_best_accuracy_theorem4_at_eps1():
    # Theorem 4 at eps = 1, delta = 0: accuracy 1/(1 + e^-1) = 0.7311
    assert round(best_accuracy(0.5, epsilon=1.0), 4) == 0.7311
    assert best_accuracy(0.5, epsilon=1.0) == pytest.approx(special.expit(1.0), rel=1e-15)


def test_posterior_known_values():
    assert member_posterior_bound(0.5, epsilon=1.0) == pytest.approx(math.e / (1 + math.e))
    assert member_posterior_bound(0.01, epsilon=1.0) == pytest.approx(
        0.01 * math.e / (0.01 * math.e + 0.99), rel=1e-14
    )
    assert member_posterior_bound(0.01, epsilon=1.0, delta=1e-5) == 1.0
    assert member_posterior_bound(0.2, epsilon=0.0) == pytest.approx(0.2, rel=1e-15)
    assert member_posterior_bound(0.2, epsilon=math.inf) == 1.0


def test_comparison_table_numbers():
    t = comparison_table()
    assert len(t.rows) == len(COMPARISON_EPSILONS) * len(COMPARISON_DELTAS)
    assert (t.fpr, t.prior, t.failure) == (0.01, 0.01, 1e-3)
    by = {(r.epsilon, r.delta): r for r in t.rows}
    r = by[(1.0, 0.0)]
    assert round(r.eta, 4) == 0.2311 and round(r.accuracy, 4) == 0.7311
    assert r.tpr == pytest.approx(0.01 * math.e, rel=1e-14)
    assert r.posterior == pytest.approx(0.01 * math.e / (0.01 * math.e + 0.99), rel=1e-14)
    assert r.ppv == pytest.approx(r.posterior, rel=1e-14)  # e^eps f below the kink: PPV = posterior
    assert r.posterior_tail == pytest.approx(r.posterior, rel=1e-15)  # delta = 0
    rd = by[(1.0, 1e-5)]
    assert rd.posterior == 1.0 and rd.ppv > r.ppv and rd.posterior_tail > r.posterior
    assert rd.eta == pytest.approx(float(eta_from_epsilon(1.0, 1e-5)), rel=1e-15)
    assert [row.epsilon for row in t.rows[::2]] == list(COMPARISON_EPSILONS)
    # at eps = 8 the TPR at FPR 1 % is capped by the far edge, and PPV at 1 % is ~1/2
    r8 = by[(8.0, 0.0)]
    assert r8.tpr == pytest.approx(1 - math.exp(-8) * 0.99, rel=1e-14)
    assert r8.ppv == pytest.approx(0.01 * r8.tpr / (0.01 * r8.tpr + 0.99 * 0.01), rel=1e-14)


def test_icon_array_known_values():
    ia = icon_array(0.5, epsilon=1.0, people=100)
    assert (ia.members, ia.non_members) == (50, 50)
    assert ia.accuracy == pytest.approx(special.expit(1.0), rel=1e-15)
    named = [(c.fpr_cap, c.named, c.accused) for c in ia.caps]
    # accused ⌊cap · 50⌋ = 0, 2, 5; named ⌊e · (accused/50) · 50⌋ = 0, ⌊5.44⌋, ⌊13.6⌋
    assert named == [(0.01, 0, 0), (0.05, 5, 2), (0.1, 13, 5)]
    assert ia.correct <= 73.106 and ia.correct == 72  # rounded down, never above 73.1
    # the population rule: at 1 % false accusations 100 people accuse half a person
    assert icon_array(0.5, epsilon=1.0).people == 1_000
    assert icon_array(0.5, epsilon=1.0, fpr_caps=(0.05,)).people == 100
    one = icon_array(0.01, epsilon=1.0, fpr_caps=(0.01,))  # issue 25: not "1 named, 0 accused"
    assert (one.people, one.members, one.caps[0].named, one.caps[0].accused) == (
        10_000,
        100,
        2,
        99,
    )
    assert icon_array(0.07, eta=0.1, people=100).members == 7  # 7.000000000000001 -> 7


# --------------------------------------------------------------------------- identities


@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("delta", DELTA_GRID)
def test_accuracy_at_half_is_half_plus_eta(eps, delta):
    assert best_accuracy(0.5, epsilon=eps, delta=delta) == pytest.approx(
        0.5 + float(eta_from_epsilon(eps, delta)), abs=2e-16
    )


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("eta", [0.0, 0.01, 0.1, 0.45])
def test_accuracy_at_half_with_both_guarantees(eps, eta):
    expected = 0.5 + min(eta, float(eta_from_epsilon(eps)))
    assert best_accuracy(0.5, epsilon=eps, eta=eta) == pytest.approx(expected, abs=2e-16)
    assert best_accuracy(0.5, eta=eta) == pytest.approx(0.5 + eta, abs=2e-16)


@pytest.mark.parametrize("delta", DELTA_GRID)
def test_epsilon_zero_gives_fpr_plus_delta(delta):
    expected = np.minimum(1.0, FPRS + delta)
    np.testing.assert_allclose(best_tpr(FPRS, epsilon=0.0, delta=delta), expected, atol=1e-15)
    # and small epsilon is close: e^eps f + delta
    got = best_tpr(FPRS, epsilon=1e-9, delta=delta)
    np.testing.assert_allclose(got, expected, atol=2e-9)


def test_eta_region_is_the_zero_2eta_dp_region():
    for eta in (0.0, 0.05, 0.2, 0.5):
        np.testing.assert_allclose(
            best_tpr(FPRS, eta=eta), best_tpr(FPRS, epsilon=0.0, delta=2 * eta), atol=1e-15
        )


def test_both_guarantees_is_the_minimum():
    for eps, delta, eta in [(1.0, 0.0, 0.1), (0.5, 1e-5, 0.3), (4.0, 0.01, 0.05)]:
        both = best_tpr(FPRS, epsilon=eps, delta=delta, eta=eta)
        np.testing.assert_array_equal(
            both,
            np.minimum(best_tpr(FPRS, epsilon=eps, delta=delta), best_tpr(FPRS, eta=eta)),
        )


def test_vectorised_and_scalar_agree():
    eps = np.array([0.1, 1.0, 5.0])
    arr = best_tpr(0.05, epsilon=eps, delta=1e-5)
    assert isinstance(arr, np.ndarray) and arr.shape == (3,)
    for e, v in zip(eps, arr, strict=True):
        assert best_tpr(0.05, epsilon=float(e), delta=1e-5) == v
    assert isinstance(best_tpr(0.05, epsilon=1.0), float)
    acc = best_accuracy(np.array([0.1, 0.5, 0.9]), epsilon=1.0)
    assert acc.shape == (3,)
    assert isinstance(ppv_bound(0.1, 0.01, eta=0.1), float)


@pytest.mark.parametrize("prior", [0.01, 0.2, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 8.0])
def test_ppv_below_kink_equals_posterior(prior, eps):
    # delta = 0 and e^eps f below the kink: T(f) = e^eps f, so PPV is f-free = the posterior
    f1 = 1.0 / (1.0 + math.exp(eps))
    for f in (0.0, f1 * 1e-3, f1 / 2, f1):
        assert ppv_bound(prior, f, epsilon=eps) == pytest.approx(
            member_posterior_bound(prior, epsilon=eps), rel=1e-13
        )


@pytest.mark.parametrize("prior", [1e-6, 0.01, 0.5, 0.9])
@pytest.mark.parametrize("kw", [{"epsilon": 1.0}, {"epsilon": 3.0, "delta": 1e-5}, {"eta": 0.1}])
def test_ppv_is_the_precision_formula(prior, kw):
    t = best_tpr(FPRS[1:], **kw)
    direct = prior * t / (prior * t + (1 - prior) * FPRS[1:])
    np.testing.assert_allclose(ppv_bound(prior, FPRS[1:], **kw), direct, rtol=1e-13)


def test_ppv_with_delta_or_eta_reaches_one_at_fpr_zero():
    assert ppv_bound(0.01, 0.0, epsilon=1.0, delta=1e-9) == 1.0
    assert ppv_bound(0.01, 0.0, eta=1e-9) == 1.0
    assert ppv_bound(0.3, 0.0, eta=0.0) == pytest.approx(0.3, rel=1e-15)  # no information
    # approaching FPR 0 with delta > 0 the PPV tends to 1
    vals = [ppv_bound(0.01, f, epsilon=1.0, delta=1e-5) for f in (1e-3, 1e-6, 1e-9, 1e-12)]
    assert vals == sorted(vals) and vals[-1] > 0.999


def test_tail_bound_identities():
    # delta = 0: the pure posterior whatever the failure probability
    for beta in (1e-9, 0.01, 1.0):
        assert member_posterior_tail_bound(
            0.1, epsilon=1.0, failure=beta
        ) == member_posterior_bound(0.1, epsilon=1.0)
    # failure <= delta: nothing below 1 can be promised
    assert member_posterior_tail_bound(0.1, epsilon=1.0, delta=1e-3, failure=1e-3) == 1.0
    # eps' = eps - log(1 - delta/beta)
    got = member_posterior_tail_bound(0.1, epsilon=1.0, delta=1e-5, failure=1e-3)
    eps_p = 1.0 - math.log(1 - 1e-2)
    assert got == pytest.approx(0.1 * math.exp(eps_p) / (0.1 * math.exp(eps_p) + 0.9), rel=1e-13)


def test_tail_bound_is_tight_on_its_extremal_mechanism():
    # Outcomes B with ratio exactly e^eps' and p_in(B) = beta; the rest with ratio e^eps.
    eps, delta, beta = 1.0, 1e-3, 0.05
    eps_p = eps - math.log1p(-delta / beta)
    pin_b, pout_b = beta, beta * math.exp(-eps_p)
    # fill the remaining mass with two outcomes of ratio e^eps and e^-eps
    a = (1 - pin_b - math.exp(-eps) * (1 - pout_b)) / (1 - math.exp(-2 * eps))
    p_in = np.array([pin_b, a, 1 - pin_b - a])
    p_out = np.array([pout_b, a * math.exp(-eps), (1 - pin_b - a) * math.exp(eps)])
    assert p_out.sum() == pytest.approx(1.0, abs=1e-12) and (p_out >= 0).all()
    # it is (eps, delta)-DP: every event S has p_in(S) <= e^eps p_out(S) + delta (and reverse)
    for mask in itertools.product([0, 1], repeat=3):
        s = np.array(mask, dtype=bool)
        assert p_in[s].sum() <= math.exp(eps) * p_out[s].sum() + delta + 1e-12
        assert p_out[s].sum() <= math.exp(eps) * p_in[s].sum() + delta + 1e-12
    # and the posterior exceeds the eps bound with probability beta, reaching the tail bound
    prior = 0.2
    post_b = prior * pin_b / (prior * pin_b + (1 - prior) * pout_b)
    assert post_b == pytest.approx(
        member_posterior_tail_bound(prior, epsilon=eps, delta=delta, failure=beta), rel=1e-12
    )
    assert post_b > member_posterior_bound(prior, epsilon=eps)


@settings(max_examples=300, deadline=None)
@given(
    prior=st.floats(0.001, 0.999),
    cap=st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.3]),
    which=st.sampled_from(["dp", "mip", "both"]),
    eps=st.floats(0.0, 12.0),
    delta=st.sampled_from([0.0, 1e-5, 1e-3, 0.05]),
    eta=st.floats(0.0, 0.5),
)
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_drawn_counts_never_make_the_attacker_look_better_than_the_bound(
    prior, cap, which, eps, delta, eta
):
    """The rounding rule, as a property: the picture is an attacker the bound allows (its TPR
    at most the bound at its FPR, its FPR at most the cap), its precision at most the bound's
    at the picture's share, its accuracy at most the bound's, and no average below one person
    is drawn as a person."""
    kw = {"dp": {"epsilon": eps, "delta": delta}, "mip": {"eta": eta}}.get(
        which, {"epsilon": eps, "delta": delta, "eta": eta}
    )
    ia = icon_array(prior, fpr_caps=(cap,), **kw)
    m, n, c = ia.members, ia.non_members, ia.caps[0]
    assert m + n == ia.people in (100, 1_000, 10_000)
    assert m <= ia.people * prior + 1e-9 or (ia.people == 10_000 and m == 1)  # rounded down
    assert 0 <= c.accused <= c.accused_expected + 1e-9  # never more than the cap allows
    assert c.named <= c.named_expected + 1e-9  # never more than the bound at the cap
    assert c.named <= best_tpr(c.accused / n, **kw) * m + 1e-9  # allowed at its real FPR
    if c.named + c.accused > 0:  # the picture's precision never beats the bound's
        shown = m / ia.people
        assert c.named / (c.named + c.accused) <= ppv_bound(shown, c.accused / n, **kw) + 1e-9
    assert ia.correct <= best_accuracy(ia.shown_prior, **kw) * ia.people + 1e-9
    assert ia.correct_members <= best_tpr(ia.wrongly_called / n, **kw) * m + 1e-9
    assert c.named >= 1 or c.named_expected < 1 + 1e-9 or c.accused < c.accused_expected
    assert c.named == 0 or c.named_expected >= 1 - 1e-9  # a fraction is never a whole person
    assert c.accused == 0 or c.accused_expected >= 1 - 1e-9
    if ia.people < 10_000:  # a smaller picture is only chosen where it draws no fraction
        assert c.named >= 1 or c.named_expected == 0
        assert c.accused >= 1 or c.accused_expected == 0


def test_a_trade_off_curve_draws_the_same_way():
    b = attacker_bound(Gdp(1.0))
    curve = TradeOffCurve(tuple(b.roc_fpr), tuple(b.roc_tpr), b.eta)
    for prior in (0.01, 0.3, 0.5, 0.9):
        ia = icon_array(prior, curve=curve, fpr_caps=(0.01,))
        c = ia.caps[0]
        assert c.tpr == pytest.approx(float(tpr_bound_gdp(0.01, 1.0)), rel=1e-12)
        assert c.named <= float(tpr_bound_gdp(c.accused / ia.non_members, 1.0)) * ia.members + 1e-9
        assert ia.accuracy >= best_accuracy_gdp(prior, 1.0) - 1e-12  # a sound upper bound
        assert ia.correct <= ia.accuracy * ia.people + 1e-9
    assert icon_array(0.5, curve=curve).accuracy == pytest.approx(0.5 + b.eta, rel=1e-14)
    with pytest.raises(ValueError, match="curve"):
        icon_array(0.5, curve=curve, epsilon=1.0)
    with pytest.raises(ValueError, match=r"curve\.fpr"):
        TradeOffCurve((0.0, 0.5), (0.1, 1.0), 0.1)


def best_accuracy_gdp(prior: float, mu: float) -> float:
    """Bayes-optimal accuracy of μ-GDP at a prior, on a fine grid (a lower estimate)."""
    f = np.concatenate(([0.0], np.logspace(-12, 0, 20001)))
    return float(np.max(prior * np.asarray(tpr_bound_gdp(f, mu)) + (1 - prior) * (1 - f)))


def test_best_operating_point_is_a_vertex():
    f, t = best_operating_point(0.5, epsilon=1.0)
    assert f == pytest.approx(special.expit(-1.0)) and t == pytest.approx(special.expit(1.0))
    assert best_operating_point(0.01, epsilon=1.0) == (0.0, 0.0)  # always "not a member"
    f, t = best_operating_point(0.5, eta=0.1)
    assert 0.5 * t + 0.5 * (1 - f) == pytest.approx(0.6)


# --------------------------------------------------------------------------- brute force


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
def test_best_tpr_equals_rr_optimum(eps, delta):
    p_in, p_out = rr_laws(eps, delta)
    for cap in FPRS:
        assert best_tpr(float(cap), epsilon=eps, delta=delta) == pytest.approx(
            brute_tpr(p_in, p_out, float(cap)), abs=1e-14
        )


@pytest.mark.parametrize("eta", [0.0, 0.01, 0.1, 0.3, 0.5])
def test_best_tpr_eta_equals_leak_mechanism_optimum(eta):
    p_in, p_out = leak_laws(eta)
    for cap in FPRS:
        assert best_tpr(float(cap), eta=eta) == pytest.approx(
            brute_tpr(p_in, p_out, float(cap)), abs=1e-14
        )


@pytest.mark.parametrize("eps", [0.1, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
@pytest.mark.parametrize("prior", [0.01, 0.1, 0.3, 0.5, 0.8])
def test_best_accuracy_equals_rr_optimum(eps, delta, prior):
    p_in, p_out = rr_laws(eps, delta)
    acc, _, _ = brute_accuracy(p_in, p_out, prior)
    assert best_accuracy(prior, epsilon=eps, delta=delta) == pytest.approx(acc, abs=1e-15)
    # Proposition 2 on the discrete laws: sum max(pi p_in, (1 - pi) p_out)
    prop2 = optimal_attack_accuracy_discrete(p_in, p_out, prior)
    assert best_accuracy(prior, epsilon=eps, delta=delta) == pytest.approx(prop2, abs=1e-15)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
def test_icon_array_equals_rr_enumeration(eps, delta):
    p_in, p_out = rr_laws(eps, delta)
    ia = icon_array(0.5, epsilon=eps, delta=delta, people=100)
    acc, _f, _t = brute_accuracy(p_in, p_out, 0.5)
    assert ia.accuracy == pytest.approx(acc, abs=1e-15)
    assert ia.correct <= math.floor(acc * 100 + 1e-9)
    for c in ia.caps:
        accused = math.floor(round(c.fpr_cap * 50, 9))
        assert c.accused == accused
        assert c.named == math.floor(round(brute_tpr(p_in, p_out, accused / 50) * 50, 9))


@settings(max_examples=40, deadline=None)
@given(
    prior=st.floats(0.01, 0.99),
    eps=st.floats(0.0, 5.0),
    delta=st.sampled_from([0.0, 1e-5, 0.01, 0.1]),
    eta=st.floats(0.0, 0.5),
)
def test_best_accuracy_with_both_matches_a_fine_grid(prior, eps, delta, eta):
    # brute force over 200 001 FPRs: grid max <= exact <= grid max + prior * slope * step
    f = np.linspace(0.0, 1.0, 200_001)
    t = best_tpr(f, epsilon=eps, delta=delta, eta=eta)
    grid = float(np.max(prior * t + (1 - prior) * (1 - f)))
    exact = best_accuracy(prior, epsilon=eps, delta=delta, eta=eta)
    assert grid - 1e-15 <= exact <= grid + prior * math.exp(eps) * 5e-6 + 1e-15


# --------------------------------------------------------------------------- monotonicity


unit = st.floats(0.0, 1.0)
eps_s = st.floats(0.0, 20.0)
delta_s = st.floats(0.0, 1.0)
eta_s = st.floats(0.0, 0.5)
prior_s = st.floats(1e-6, 1 - 1e-6)


@settings(max_examples=80, deadline=None)
@given(f1=unit, f2=unit, e1=eps_s, e2=eps_s, d1=delta_s, d2=delta_s, h1=eta_s, h2=eta_s)
def test_best_tpr_monotone(f1, f2, e1, e2, d1, d2, h1, h2):
    f1, f2 = sorted((f1, f2))
    e1, e2 = sorted((e1, e2))
    d1, d2 = sorted((d1, d2))
    h1, h2 = sorted((h1, h2))
    lo = best_tpr(f1, epsilon=e1, delta=d1, eta=h1)
    assert lo <= best_tpr(f2, epsilon=e1, delta=d1, eta=h1)
    assert lo <= best_tpr(f1, epsilon=e2, delta=d1, eta=h1)
    assert lo <= best_tpr(f1, epsilon=e1, delta=d2, eta=h1)
    assert lo <= best_tpr(f1, epsilon=e1, delta=d1, eta=h2)
    assert f1 - 1e-15 <= lo <= 1.0  # the diagonal is always reachable (to rounding)


@settings(max_examples=80, deadline=None)
@given(p1=prior_s, p2=prior_s, e1=eps_s, e2=eps_s)
def test_posterior_monotone(p1, p2, e1, e2):
    p1, p2 = sorted((p1, p2))
    e1, e2 = sorted((e1, e2))
    lo = member_posterior_bound(p1, epsilon=e1)
    assert lo <= member_posterior_bound(p2, epsilon=e1)
    assert lo <= member_posterior_bound(p1, epsilon=e2)
    assert p1 <= lo + 1e-15 and lo <= 1.0


@settings(max_examples=60, deadline=None)
@given(prior=prior_s, f1=unit, f2=unit, eps=eps_s, delta=st.floats(0.0, 0.1))
def test_ppv_decreasing_in_fpr_and_below_one(prior, f1, f2, eps, delta):
    f1, f2 = sorted((f1, f2))
    a = ppv_bound(prior, f1, epsilon=eps, delta=delta)
    b = ppv_bound(prior, f2, epsilon=eps, delta=delta)
    assert b <= a * (1 + 1e-12) and a <= 1.0
    assert b >= prior * (1 - 1e-12)  # the diagonal (random guessing) is always reachable


@settings(max_examples=60, deadline=None)
@given(prior=prior_s, e1=st.floats(0.0, 10.0), e2=st.floats(0.0, 10.0), h1=eta_s, h2=eta_s)
def test_best_accuracy_monotone(prior, e1, e2, h1, h2):
    e1, e2 = sorted((e1, e2))
    h1, h2 = sorted((h1, h2))
    lo = best_accuracy(prior, epsilon=e1, eta=h1)
    assert lo <= best_accuracy(prior, epsilon=e2, eta=h1) + 1e-15
    assert lo <= best_accuracy(prior, epsilon=e1, eta=h2) + 1e-15
    assert max(prior, 1 - prior) - 1e-15 <= lo <= 1.0


# --------------------------------------------------------------------------- errors


def test_no_guarantee_is_an_error():
    with pytest.raises(ValueError, match="epsilon=None and eta=None"):
        best_tpr(0.1)
    with pytest.raises(ValueError, match="epsilon=None and eta=None"):
        best_accuracy(0.5)
    with pytest.raises(ValueError, match="epsilon=None and eta=None"):
        ppv_bound(0.5, 0.1)
    with pytest.raises(ValueError, match="epsilon=None and eta=None"):
        icon_array(0.5)
    with pytest.raises(ValueError, match="delta=1e-05 was given without epsilon"):
        best_tpr(0.1, delta=1e-5, eta=0.1)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: best_tpr(1.5, epsilon=1.0), "fpr"),
        (lambda: best_tpr(0.1, epsilon=-1.0), "epsilon"),
        (lambda: best_tpr(0.1, epsilon=1.0, delta=2.0), "delta"),
        (lambda: best_tpr(0.1, eta=0.6), "eta"),
        (lambda: best_tpr(float("nan"), eta=0.1), "fpr"),
        (lambda: best_accuracy(0.0, epsilon=1.0), "prior"),
        (lambda: best_accuracy(1.0, eta=0.1), "prior"),
        (lambda: best_operating_point([0.5, 0.2], epsilon=1.0), "prior"),
        (lambda: member_posterior_bound(1.2, epsilon=1.0), "prior"),
        (lambda: member_posterior_bound(0.2, epsilon=-0.1), "epsilon"),
        (lambda: member_posterior_bound(0.2, epsilon=1.0, delta=-1e-9), "delta"),
        (lambda: member_posterior_tail_bound(0.2, epsilon=1.0, failure=0.0), "failure"),
        (lambda: member_posterior_tail_bound(0.0, epsilon=1.0, failure=0.1), "prior"),
        (lambda: ppv_bound(0.2, -0.1, epsilon=1.0), "fpr"),
        (lambda: ppv_bound(1.0, 0.1, epsilon=1.0), "prior"),
        (lambda: icon_array(0.2, epsilon=1.0, people=1), "people"),
        (lambda: icon_array(0.2, epsilon=1.0, fpr_caps=(0.1, 1.2)), "fpr_caps"),
        (lambda: icon_array(0.2, epsilon=1.0, fpr_caps=()), "fpr_caps"),
        (lambda: icon_array(np.array([0.2, 0.3]), epsilon=1.0), "prior"),
        (lambda: icon_array(0.2, eta=0.7), "eta"),
        (lambda: comparison_table((1.0, -2.0)), "epsilons"),
        (lambda: comparison_table((1.0,), (1.0,)), "deltas"),
        (lambda: comparison_table(()), "epsilons"),
        (lambda: comparison_table(fpr=2.0), "fpr"),
        (lambda: comparison_table(prior=0.0), "prior"),
        (lambda: comparison_table(failure=0.0), "failure"),
        (lambda: ppv(0.0, 0.01, 0.1), "prior"),
        (lambda: ppv(0.5, 1.5, 0.1), "fpr"),
        (lambda: ppv(0.5, 0.1, -0.1), "tpr"),
        (lambda: named_confidence(1.0, 0.5, eta=0.1), "prior"),
        (lambda: named_confidence(0.5, 1.5, eta=0.1), "precision"),
        (lambda: named_confidence(0.5, 0.5, eta=0.6), "eta"),
        (lambda: named_confidence(0.5, 0.5, eta=0.1, pure_epsilon=-1.0), "epsilon"),
    ],
)
def test_out_of_domain_raises_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --------------------------------------------------------------------------- what a page quotes
AR = Relation.ADD_OR_REMOVE_ONE


def down(x: float) -> int:
    return math.floor(round(x, 9))


def expected_picture(p_in, p_out, prior: float, cap: float) -> tuple[int, int, int, int, int]:
    """(people, members, non-members, named, accused), computed independently: the smallest of
    100, 1 000, 10 000 people whose picture names and accuses at least one person wherever the
    averages are positive; members ⌊Nπ⌋ (at least 1); accused ⌊cap · non-members⌋; named
    ⌊T(accused / non-members) · members⌋ with T the enumerated frontier."""
    t_cap = brute_tpr(p_in, p_out, cap)
    for n in ICON_POPULATIONS:
        if down(n * prior) < 1 and n != ICON_POPULATIONS[-1]:
            continue
        m = min(n - 1, max(1, down(n * prior)))
        accused = down(cap * (n - m))
        named = down(brute_tpr(p_in, p_out, accused / (n - m)) * m)
        ok_named = named >= 1 or t_cap * m <= 0
        ok_accused = accused >= 1 or cap * (n - m) <= 0
        if (ok_named and ok_accused) or n == ICON_POPULATIONS[-1]:
            return n, m, n - m, named, accused
    raise AssertionError("unreachable")


def check_picture(ia, p_in, p_out, prior: float, cap: float) -> None:
    n, m, non, named, accused = expected_picture(p_in, p_out, prior, cap)
    assert (ia.people, ia.members, ia.non_members) == (n, m, non)
    assert (ia.caps[0].named, ia.caps[0].accused) == (named, accused)
    # the accuracy picture is an attacker the mechanism allows, and never beats the bound
    assert ia.correct_members <= brute_tpr(p_in, p_out, ia.wrongly_called / non) * m + 1e-9
    assert ia.correct <= ia.accuracy * n + 1e-9
    assert ia.accuracy == pytest.approx(brute_accuracy(p_in, p_out, prior)[0], abs=1e-14)


@pytest.mark.parametrize("prior", [0.01, 0.1, 0.3, 0.5, 0.8])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
@pytest.mark.parametrize("cap", [0.01, 0.05, 0.1])
def test_pictures_equal_randomised_response_enumeration(prior, eps, delta, cap):
    ia = icon_array(prior, epsilon=eps, delta=delta, fpr_caps=(cap,))
    check_picture(ia, *rr_laws(eps, delta), prior, cap)


@pytest.mark.parametrize("prior", [0.01, 0.2, 0.5, 0.9])
@pytest.mark.parametrize("eta", [0.0, 0.02, 0.1, 0.3])
@pytest.mark.parametrize("cap", [0.01, 0.1])
def test_pictures_equal_leak_mechanism_enumeration(prior, eta, cap):
    check_picture(icon_array(prior, eta=eta, fpr_caps=(cap,)), *leak_laws(eta), prior, cap)


def test_ppv_is_the_precision_of_a_rate_pair():
    assert ppv(0.01, 0.01, 0.0272) == pytest.approx(0.01 * 0.0272 / (0.01 * 0.0272 + 0.0099))
    assert ppv(0.3, 0.0, 0.2) == 1.0 and ppv(0.3, 0.0, 0.0) == 0.3  # the limits at FPR 0
    assert ppv(0.3, 0.2, 0.1) == pytest.approx(0.3)  # TPR raised to FPR: guessing
    for f in (0.001, 0.01, 0.1):  # the same number as ppv_bound, from the TPR bound
        t = best_tpr(f, epsilon=1.0, delta=1e-5)
        assert ppv(0.01, f, t) == pytest.approx(ppv_bound(0.01, f, epsilon=1.0, delta=1e-5))
    assert round(ppv(0.01, 0.01, attacker_bound(EpsDelta(1.0, 1e-5)).tpr_at_fpr[1]), 6) == 0.026733


def test_the_number_to_quote_one_in_a_hundred():
    """ε = 1, 1 in 100 in the data: "right at most 2.7 %, up from 1 %" -- a bound for every
    named person; the picture shows 10 000 people (issue 25), 2 named of 2.72."""
    ia = icon_array(0.01, epsilon=1.0, fpr_caps=(0.01,))
    kind, value = named_confidence(0.01, ia.caps[0].ppv, eta=0.2311, pure_epsilon=1.0)
    post = 0.01 * math.e / (0.01 * math.e + 0.99)
    assert kind is Confidence.POSTERIOR and value == pytest.approx(post, rel=1e-14)
    assert round(100 * value, 1) == 2.7 and value == member_posterior_bound(0.01, epsilon=1.0)
    assert (ia.people, ia.members, ia.non_members) == (10_000, 100, 9_900)
    assert (ia.caps[0].named, ia.caps[0].accused) == (2, 99)
    assert ia.caps[0].named_expected == pytest.approx(100 * math.e * 0.01, rel=1e-14)  # 2.72
    assert ia.accuracy == pytest.approx(0.99) and ia.correct == 9_900  # never a member: best


def test_half_in_the_data_is_not_rounded_up():
    """ε = 3 and half in the data (issue 25: "11 of 50 named" for 10.05): at 1 % false
    accusations 100 people would accuse half a person, so the picture shows 1 000: 100 of 500
    named for 100.4, 5 accused; at 5 %, 100 people: 73.1 right on average, 72 drawn."""
    ia = icon_array(0.5, epsilon=3.0, fpr_caps=(0.01,))
    assert (ia.people, ia.members) == (1_000, 500)
    assert ia.caps[0].named_expected == pytest.approx(500 * math.exp(3) * 0.01, rel=1e-14)
    assert (ia.caps[0].named, ia.caps[0].accused) == (100, 5)
    ia = icon_array(0.5, epsilon=1.0, fpr_caps=(0.05,))
    assert ia.people == 100 and ia.correct == 72 and ia.members == 50
    assert (ia.caps[0].named, ia.caps[0].accused) == (5, 2)  # ⌊e · 0.04 · 50⌋ = ⌊5.44⌋


def test_delta_or_eta_make_the_precision_the_number_to_quote():
    ia = icon_array(0.01, epsilon=1.0, delta=1e-5, fpr_caps=(0.01,))
    tpr = math.e * 0.01 + 1e-5
    assert ia.caps[0].tpr == pytest.approx(tpr, rel=1e-14)
    kind, value = named_confidence(0.01, ia.caps[0].ppv, eta=eta_from_epsilon(1.0, 1e-5))
    assert kind is Confidence.PRECISION
    assert value == pytest.approx(0.01 * tpr / (0.01 * tpr + 0.99 * 0.01), rel=1e-13)
    ia = icon_array(0.5, eta=0.1, fpr_caps=(0.05,))
    kind, value = named_confidence(0.5, ia.caps[0].ppv, eta=0.1)
    assert ia.accuracy == pytest.approx(0.6) and kind is Confidence.PRECISION
    assert value == pytest.approx(0.25 / (0.25 + 0.05), rel=1e-14)  # TPR = 0.05 + 0.2


@pytest.mark.parametrize("prior", [0.01, 0.37, 0.5, 0.9])
def test_epsilon_zero_or_eta_zero_tell_nothing(prior):
    ia = icon_array(prior, epsilon=0.0, fpr_caps=(0.01,))
    kind, value = named_confidence(prior, ia.caps[0].ppv, eta=0.0, pure_epsilon=0.0)
    assert kind is Confidence.POSTERIOR and value == pytest.approx(prior, rel=1e-14)
    assert ia.accuracy == pytest.approx(max(prior, 1 - prior), rel=1e-14)
    assert named_confidence(prior, 0.9, eta=0.0) == (Confidence.POSTERIOR, prior)


@pytest.mark.parametrize(
    "g", [Gdp(0.0), Zcdp(0.0), Zcdp(0.0, AR), Rdp((2.0, 4.0), (0.0, 0.0))], ids=repr
)
def test_eta_zero_bounds_every_posterior_by_the_prior(g):
    """η = 0: the releases with and without a person are the same law, so no posterior moves
    from the prior (both pages say so; the calculator once said 1, "no limit")."""
    b = attacker_bound(g)
    assert b.eta == 0.0
    assert named_confidence(0.05, 0.5, eta=b.eta) == (Confidence.POSTERIOR, 0.05)


def test_a_pure_add_remove_epsilon_bounds_every_named_person_by_two_epsilon():
    g = EpsDelta(1.0, 0.0, AR)
    kind, value = named_confidence(0.01, 0.5, eta=0.3, pure_epsilon=g.replace_pair[0])
    pe = 0.01 * math.exp(2.0)
    assert kind is Confidence.POSTERIOR and value == pytest.approx(pe / (pe + 0.99), rel=1e-12)


def test_the_number_to_quote_grows_with_epsilon_and_the_prior():
    eps = [0.0, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0]
    quoted = [named_confidence(0.05, 0.5, eta=0.1, pure_epsilon=e)[1] for e in eps]
    assert quoted == sorted(quoted)
    priors = [0.001, 0.01, 0.1, 0.5, 0.9]
    quoted = [named_confidence(p, 0.5, eta=0.1, pure_epsilon=1.0)[1] for p in priors]
    assert quoted == sorted(quoted)


def test_the_table_is_at_one_share():
    """One share of people per table (issue 25: a table mixed "half in the data" and "1 % in
    the data"): every column at the page's prior and cap, as its pictures."""
    t = comparison_table(prior=0.2, fpr=0.05)
    assert (t.prior, t.fpr) == (0.2, 0.05)
    row = next(x for x in t.rows if x.epsilon == 1.0 and x.delta == 0.0)
    ia = icon_array(0.2, epsilon=1.0, fpr_caps=(0.05,))
    assert row.accuracy_at_prior == pytest.approx(ia.accuracy, rel=1e-14)
    assert row.posterior == pytest.approx(member_posterior_bound(0.2, epsilon=1.0), rel=1e-14)


RENYI = ((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0))  # the pages' default


@pytest.mark.parametrize(
    "g",
    [
        Gdp(1.0),
        Zcdp(0.5),
        Zcdp(0.3, AR),
        Rdp(*RENYI),
        Rdp((2.0, 8.0), (0.2, 1.0), AR),
        EpsDelta(1.0, 1e-5, AR),
        Gdp(1.0, AR),
    ],
    ids=repr,
)
@pytest.mark.parametrize("prior", [0.01, 0.2])
def test_a_picture_on_a_bounds_curve_quotes_the_calculators_numbers(g, prior):
    """The stakeholder page draws every guarantee read through attacker_bound on its trade-off
    curve: the TPR and precision at a cap of 1 % (an FPR level) are the bound's own, as the
    risk calculator quotes them, and the picture never beats the bound."""
    b = attacker_bound(g)
    curve = TradeOffCurve.of(b)
    assert all(t2 >= t1 for t1, t2 in zip(curve.tpr, curve.tpr[1:], strict=False))
    ia = icon_array(prior, curve=curve, fpr_caps=(0.01,))
    assert ia.caps[0].tpr == b.tpr_at_fpr[1]
    assert ia.caps[0].ppv == ppv(prior, 0.01, b.tpr_at_fpr[1])
    assert ia.caps[0].named <= b.tpr_at_fpr[1] * ia.members
    assert icon_array(0.5, curve=curve).accuracy == pytest.approx(0.5 + b.eta, rel=1e-14)


@pytest.mark.slow
def test_a_dpsgd_run_is_the_calculators_issue_example():
    """σ 1.1, q 0.01, 10 000 steps: the risk calculator says 25.4 % at 1 % in the data."""
    b = attacker_bound(DpSgd(1.1, 0.01, 10_000))
    ia = icon_array(0.01, curve=TradeOffCurve.of(b), fpr_caps=(0.01,))
    assert ia.caps[0].tpr == b.tpr_at_fpr[1] and round(100 * ia.caps[0].ppv, 1) == 25.4
