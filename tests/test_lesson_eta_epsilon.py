"""Tests for mipcore.lessons.eta_epsilon: every number the η and ε page quotes.

Three ways: known values (Theorem 4 at ε = 1, MACE's tanh(1/2) ≈ 0.462, log 1.5 for η = 0.1),
identities (the kink lies on TPR − FPR = 2η, the inverse round-trips, the rule of thumb never
exceeds the exact ε), and brute force: randomised response with a δ-mass that reveals
membership (the tightness construction of Theorem 4), and the mechanism that reveals
membership with probability 2η (exactly η-MIP), whose every test is enumerated.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipcore.lessons.eta_epsilon import (
    REF_FPR,
    ApproxQuality,
    EtaEpsilonLesson,
    InverseStatus,
    eta_epsilon_lesson,
)

# --------------------------------------------------------------------------- brute force


def rr_laws(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Randomised response (truth w.p. e^ε/(1+e^ε)) plus a δ-mass revealing membership.

    Outputs: (leak, in), (leak, out), (rr, "in"), (rr, "out").
    """
    keep = math.exp(eps) / (1 + math.exp(eps))
    flip = 1 - keep
    p_in = np.array([delta, 0.0, (1 - delta) * keep, (1 - delta) * flip])
    p_out = np.array([0.0, delta, (1 - delta) * flip, (1 - delta) * keep])
    return p_in, p_out


def leak_laws(eta: float) -> tuple[np.ndarray, np.ndarray]:
    """Reveal membership w.p. 2η, else say nothing: exactly η-MIP."""
    q = 2 * eta
    return np.array([q, 0.0, 1 - q]), np.array([0.0, q, 1 - q])


def all_tests(p_in: np.ndarray, p_out: np.ndarray) -> list[tuple[float, float]]:
    """(FPR, TPR) of every deterministic test: every subset of outputs called "member"."""
    out = []
    for mask in itertools.product([False, True], repeat=len(p_in)):
        s = np.array(mask)
        out.append((float(p_out[s].sum()), float(p_in[s].sum())))
    return out


def max_tpr(p_in: np.ndarray, p_out: np.ndarray, cap: float) -> float:
    """Largest TPR of a randomised test with FPR <= cap: a mixture of two deterministic ones."""
    pts = all_tests(p_in, p_out)
    best = max(t for f, t in pts if f <= cap + 1e-15)
    for (f1, t1), (f2, t2) in itertools.product(pts, pts):
        if f1 <= cap < f2:
            best = max(best, t1 + (cap - f1) / (f2 - f1) * (t2 - t1))
    return min(1.0, best)


# --------------------------------------------------------------------------- known values


def test_known_values_at_epsilon_one():
    r = eta_epsilon_lesson(1.0)
    assert isinstance(r, EtaEpsilonLesson)
    printed = 0 + (1 - 0) / (1 + math.exp(-1.0)) - 0.5  # Theorem 4 as printed
    assert r.eta == pytest.approx(printed, rel=1e-14)
    assert round(r.eta, 4) == 0.2311 and round(r.accuracy, 4) == 0.7311
    assert r.advantage == pytest.approx(math.tanh(0.5), rel=1e-15)  # 0.4621
    assert r.approx == 0.25 and r.approx_error == pytest.approx(0.25 - r.eta, rel=1e-15)
    assert r.approx_quality is ApproxQuality.FAIR  # 8.2 % above
    assert r.approx_relative_error == pytest.approx(0.25 / r.eta - 1, rel=1e-13)
    assert r.ref_fpr == REF_FPR == 1e-3
    assert r.tpr_dp_ref == pytest.approx(math.e * 1e-3, rel=1e-15)
    assert r.tpr_mip_ref == pytest.approx(1e-3 + 2 * r.eta, rel=1e-15)
    assert r.tpr_printed_ref == pytest.approx(1e-3 + r.eta, rel=1e-15)
    assert r.tpr_ratio == pytest.approx(r.tpr_mip_ref / r.tpr_dp_ref, rel=1e-15)
    assert round(r.tpr_ratio) == 170
    assert r.kink_fpr == pytest.approx(1 / (1 + math.e), rel=1e-15)
    assert r.tpr_dp_at_zero == 0.0 and r.tpr_mip_at_zero == pytest.approx(2 * r.eta)
    # MACE, Theorem 1 at prior 1/2: advantage <= tanh(eps/2), 0.462 at eps = 1
    assert r.mace_epsilon == 1.0 and round(r.mace_advantage, 3) == 0.462
    assert r.mace_accuracy == pytest.approx(r.accuracy)
    inv = r.inverse
    assert inv.status is InverseStatus.CERTIFIED
    assert inv.epsilon == pytest.approx(math.log(1.5), rel=1e-15)  # target 0.1
    assert inv.rule_of_thumb == pytest.approx(0.4) and not inv.rule_is_exact


def test_delta_share_and_the_delta_pieces():
    r = eta_epsilon_lesson(1.0, 0.1)
    assert r.delta_share == 0.05
    assert r.eta == pytest.approx(0.05 + 0.9 * math.tanh(0.5) / 2, rel=1e-15)
    assert r.tpr_dp_at_zero == pytest.approx(0.1)  # delta at FPR 0
    zero = eta_epsilon_lesson(0.0, 0.1)
    assert zero.eta == pytest.approx(zero.delta_share)  # epsilon = 0: only delta/2 is left
    assert zero.approx_quality is None and zero.approx_error == pytest.approx(0.0, abs=1e-17)


@pytest.mark.parametrize(
    "eps,quality",
    [(0.1, ApproxQuality.GOOD), (0.3, ApproxQuality.GOOD), (1.0, ApproxQuality.FAIR),
     (3.0, ApproxQuality.POOR)],
)  # fmt: skip
def test_approximation_quality_classes(eps, quality):
    r = eta_epsilon_lesson(eps)
    # relative error ~ eps^2/12 for small eps
    assert r.approx_quality is quality
    if eps <= 0.3:
        assert r.approx_relative_error == pytest.approx(eps**2 / 12, rel=0.02)


def test_rule_of_thumb_exceeds_half_at_large_epsilon():
    assert eta_epsilon_lesson(3.0).approx_exceeds_half
    assert not eta_epsilon_lesson(1.9).approx_exceeds_half


def test_inverse_statuses():
    assert eta_epsilon_lesson(1.0, 0.0, 0.5).inverse.status is InverseStatus.NO_GUARANTEE
    below = eta_epsilon_lesson(1.0, 0.2, 0.05).inverse
    assert below.status is InverseStatus.BELOW_DELTA and below.delta_floor == 0.1
    assert below.epsilon is None and below.rule_of_thumb is None
    assert eta_epsilon_lesson(1.0, 0.001, 0.0).inverse.status is InverseStatus.BELOW_DELTA
    edge = eta_epsilon_lesson(1.0, 0.2, 0.1).inverse  # eta = delta/2: only epsilon = 0
    assert edge.status is InverseStatus.CERTIFIED
    assert edge.epsilon == 0.0 and edge.rule_of_thumb == 0.0 and edge.rule_is_exact
    assert edge.target_accuracy == pytest.approx(0.6)
    # a delta of 1 leaves no eta below 1/2 to certify
    assert eta_epsilon_lesson(1.0, 1.0, 0.3).inverse.status is InverseStatus.BELOW_DELTA


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": math.inf}, "epsilon"),
        ({"epsilon": math.nan}, "epsilon"),
        ({"epsilon": 1.0, "delta": 1.5}, "delta"),
        ({"epsilon": 1.0, "target_eta": 0.6}, "target_eta"),
        ({"epsilon": 1.0, "target_eta": -0.1}, "target_eta"),
        ({"epsilon": 1.0, "ref_fpr": 0.0}, "ref_fpr"),
        ({"epsilon": 1.0, "ref_fpr": 1.5}, "ref_fpr"),
    ],
)
def test_out_of_domain_input_names_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        eta_epsilon_lesson(**kwargs)


# --------------------------------------------------------------------------- identities


@settings(max_examples=60, deadline=None)
@given(
    eps=st.floats(0.0, 10.0),
    delta=st.sampled_from([0.0, 1e-12, 1e-5, 1e-3, 0.05, 0.3]),
    target=st.floats(0.0, 0.5),
)
def test_identities(eps, delta, target):
    r = eta_epsilon_lesson(eps, delta, target)
    assert r.kink_tpr - r.kink_fpr == pytest.approx(2 * r.eta, abs=1e-12)
    assert r.kink_tpr == pytest.approx(1 - r.kink_fpr, abs=1e-12)  # on the anti-diagonal
    assert r.approx_error >= -1e-16 and r.accuracy == 0.5 + r.eta
    assert r.tpr_dp_ref <= r.tpr_mip_ref + 1e-15  # DP implies its eta-MIP
    assert r.tpr_printed_ref <= r.tpr_mip_ref
    inv = r.inverse
    if inv.status is InverseStatus.CERTIFIED:
        back = eta_epsilon_lesson(inv.epsilon, delta).eta
        assert back == pytest.approx(target, abs=1e-12)
        assert inv.rule_of_thumb <= inv.epsilon + 1e-12  # the rule is safe
    elif inv.status is InverseStatus.BELOW_DELTA:
        assert 2 * target < delta
    else:
        assert target == 0.5


@settings(max_examples=40, deadline=None)
@given(e1=st.floats(0.0, 10.0), e2=st.floats(0.0, 10.0), d=st.sampled_from([0.0, 1e-5, 0.1]))
def test_monotone_in_epsilon(e1, e2, d):
    e1, e2 = sorted((e1, e2))
    a, b = eta_epsilon_lesson(e1, d), eta_epsilon_lesson(e2, d)
    assert a.eta <= b.eta and a.tpr_dp_ref <= b.tpr_dp_ref and a.kink_fpr >= b.kink_fpr


# --------------------------------------------------------------------------- brute force


@pytest.mark.parametrize("eps", [0.1, 1.0, 2.5, 6.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
def test_numbers_equal_randomised_response_enumeration(eps, delta):
    r = eta_epsilon_lesson(eps, delta)
    p_in, p_out = rr_laws(eps, delta)
    pts = all_tests(p_in, p_out)
    # the best advantage TPR - FPR over all tests is 2 eta, at the kink (Theorem 4 is tight)
    adv, f_best, t_best = max((t - f, f, t) for f, t in pts)
    assert r.advantage == pytest.approx(adv, abs=1e-15)
    assert r.accuracy == pytest.approx(0.5 + adv / 2, abs=1e-15)
    assert (r.kink_fpr, r.kink_tpr) == pytest.approx((f_best, t_best), abs=1e-15)
    # the DP region's value at the reference FPR is what this DP mechanism reaches (the
    # enumeration interpolates along a chord of slope ~e^eps: rounding ~1e-16 * e^eps)
    tol = 1e-15 * math.exp(eps)
    assert r.tpr_dp_ref == pytest.approx(max_tpr(p_in, p_out, REF_FPR), abs=tol)
    assert r.tpr_dp_at_zero == pytest.approx(max_tpr(p_in, p_out, 0.0), abs=1e-15)


@pytest.mark.parametrize("eps,delta", [(0.5, 0.0), (1.0, 0.0), (1.0, 1e-5), (3.0, 0.01)])
def test_corrected_theorem8_is_reached_and_the_printed_one_is_violated(eps, delta):
    r = eta_epsilon_lesson(eps, delta)
    p_in, p_out = leak_laws(r.eta)  # exactly eta-MIP: best accuracy 1/2 + eta
    assert max(0.5 * t + 0.5 * (1 - f) for f, t in all_tests(p_in, p_out)) == pytest.approx(
        r.accuracy, abs=1e-15
    )
    reached = max_tpr(p_in, p_out, REF_FPR)
    assert reached == pytest.approx(r.tpr_mip_ref, abs=1e-15)
    assert reached > r.tpr_printed_ref  # the printed Theorem 8 is not a bound
    assert r.tpr_mip_at_zero == pytest.approx(max_tpr(p_in, p_out, 0.0), abs=1e-15)
