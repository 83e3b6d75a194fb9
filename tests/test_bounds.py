"""Tests for mipcore.bounds: Theorem 4 (DP -> MIP), its inverse, Theorem 8 and the DP ROC region.

Expected values are derived independently of the code under test: from the papers
(Theorem 4 of Izzo, Yoon, Arık, Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582; "tanh(0.5) = 0.462" after Theorem 1 of Liu, Xu, Mukherjee, Lavista Ferres,
*MACE*, arXiv:2009.05683),
from the printed formula evaluated with mpmath at 50 digits, and by brute force on a
small dataset with exact rational arithmetic.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from attack_refs import leak_laws, rr_laws
from hypothesis import given, settings
from hypothesis import strategies as st

from mipcore.bounds import (
    attacker_accuracy,
    dp_region_kink,
    epsilon_from_eta,
    epsilon_small_eta_approx,
    eta_from_epsilon,
    eta_small_epsilon_approx,
    tpr_bound_dp,
    tpr_bound_mip,
)


@pytest.fixture(autouse=True, scope="module")
def _mp_50_digits():
    """The mpmath references run at 50 digits, whatever another test module set globally."""
    with mpmath.workdps(50):
        yield


ULP_HALF = np.spacing(0.5)  # 1.1e-16: one unit in the last place of numbers near 1/2


def mp_eta_printed(eps, delta):
    """Theorem 4 exactly as printed, to 50 significant digits: delta + (1-delta)/(1+e^-eps) - 1/2."""
    if math.isinf(eps):
        return mpmath.mpf(1) / 2
    # The subtraction cancels about -log10(eps) digits: carry enough of them.
    extra = int(max(0.0, -math.log10(eps))) if eps > 0 else 0
    with mpmath.workdps(50 + extra):
        eps, delta = mpmath.mpf(eps), mpmath.mpf(delta)
        result = delta + (1 - delta) / (1 + mpmath.exp(-eps)) - mpmath.mpf(1) / 2
    return +result  # rounded to the ambient 50 digits


# --------------------------------------------------------------------------- known values


def test_theorem4_at_eps1_delta0_matches_the_paper():
    # Theorem 4: accuracy delta + (1-delta)/(1+e^-eps); at eps=1, delta=0: 1/(1+e^-1) = 0.7311.
    eta = eta_from_epsilon(1.0, 0.0)
    assert round(attacker_accuracy(eta), 4) == 0.7311
    assert round(eta, 4) == 0.2311
    assert eta == pytest.approx(1.0 / (1.0 + math.exp(-1.0)) - 0.5, rel=1e-14)


def test_tanh_half_from_the_mace_paper():
    # MACE (arXiv:2009.05683), after Theorem 1: at prior 1/2, eps = 1 gives membership advantage <= tanh(1/2) = 0.462.
    # The advantage is 2*accuracy - 1 = 2*eta.
    eta = eta_from_epsilon(1.0)
    assert eta == pytest.approx(math.tanh(0.5) / 2, rel=1e-15)
    assert round(2 * eta, 3) == 0.462


def test_default_delta_is_zero():
    assert eta_from_epsilon(0.7) == eta_from_epsilon(0.7, 0.0)
    assert epsilon_from_eta(0.2) == epsilon_from_eta(0.2, 0.0)


# --------------------------------------------------------------------------- identities

EPS_GRID = [
    0.0,
    1e-300,
    1e-12,
    1e-8,
    1e-3,
    0.1,
    0.5,
    1.0,
    2.0,
    5.0,
    20.0,
    40.0,
    700.0,
    1e6,
    math.inf,
]
DELTA_GRID = [0.0, 1e-12, 1e-5, 1e-3, 0.1, 0.5, 0.9, 1.0]


@pytest.mark.parametrize("delta", DELTA_GRID)
def test_tanh_form_matches_printed_form_in_mpmath(delta):
    got = eta_from_epsilon(np.array(EPS_GRID), delta)
    for eps, g in zip(EPS_GRID, got, strict=True):
        want = mp_eta_printed(eps, delta)
        if want == 0:
            assert g == 0.0
        else:
            assert abs(mpmath.mpf(float(g)) - want) <= 4e-16 * abs(want), (eps, delta, g, want)


def test_tanh_form_keeps_precision_where_the_printed_float_form_does_not():
    # At eps = 1e-12 the printed form, evaluated in float64, subtracts two numbers near 1/2.
    eps = 1e-12
    exact = mp_eta_printed(eps, 0.0)
    naive = 1.0 / (1.0 + math.exp(-eps)) - 0.5
    got = eta_from_epsilon(eps)
    assert abs(naive - exact) / exact > 1e-6  # the naive formula is visibly wrong here...
    assert abs(got - exact) / exact < 1e-15  # ...the implemented one is not


def test_tanh_identity_itself():
    # delta + (1-delta)/(1+e^-eps) - 1/2 == delta/2 + (1-delta) tanh(eps/2)/2, checked at 50 digits.
    for eps, delta in itertools.product([1e-20, 0.3, 1.0, 7.0], [0.0, 0.01, 0.6]):
        e, d = mpmath.mpf(eps), mpmath.mpf(delta)
        assert mpmath.almosteq(
            mp_eta_printed(eps, delta),
            d / 2 + (1 - d) * mpmath.tanh(e / 2) / 2,
            rel_eps=mpmath.mpf(10) ** -45,
        )


@pytest.mark.parametrize("delta", [0.0, 1e-12, 1e-5, 0.01, 0.3, 0.9])
def test_inverse_round_trip_eta_epsilon_eta(delta):
    fractions = [0.0, 1e-15, 1e-9, 1e-4, 0.01, 0.2, 0.5, 0.8, 0.99, 0.999999, 1 - 1e-12]
    etas = np.array([delta / 2 + t * (0.5 - delta / 2) for t in fractions])
    etas = etas[etas < 0.5]
    eps = epsilon_from_eta(etas, delta)
    assert np.all(np.isfinite(eps)) and np.all(eps >= 0)
    back = eta_from_epsilon(eps, delta)
    np.testing.assert_allclose(back, etas, rtol=1e-12, atol=0)


@pytest.mark.parametrize("eta", [1e-300, 1e-12, 1e-6, 0.01, 0.1, 0.2311, 0.4, 0.49, 0.4999999])
def test_inverse_matches_artanh_in_mpmath_pure_dp(eta):
    want = 2 * mpmath.atanh(2 * mpmath.mpf(eta))
    got = epsilon_from_eta(eta)
    assert abs(mpmath.mpf(got) - want) <= 1e-14 * want


@pytest.mark.parametrize("eta,delta", [(0.1, 0.05), (0.3, 0.2), (0.01, 1e-5), (0.25, 0.49999)])
def test_inverse_matches_both_printed_forms_with_delta(eta, delta):
    e, d = mpmath.mpf(eta), mpmath.mpf(delta)
    want = 2 * mpmath.atanh((2 * e - d) / (1 - d))
    assert mpmath.almosteq(want, mpmath.log((1 + 2 * e - 2 * d) / (1 - 2 * e)), rel_eps=1e-40)
    assert abs(mpmath.mpf(epsilon_from_eta(eta, delta)) - want) <= 1e-12 * want


@pytest.mark.parametrize("delta", [0.0, 1e-9, 0.2, 0.999, 1.0])
def test_infinite_epsilon_gives_one_half(delta):
    assert eta_from_epsilon(math.inf, delta) == 0.5


@pytest.mark.parametrize("delta", [0.0, 1e-12, 1e-3, 0.25, 0.9])
def test_eta_equal_delta_half_gives_epsilon_zero(delta):
    assert epsilon_from_eta(delta / 2, delta) == 0.0
    assert eta_from_epsilon(0.0, delta) == pytest.approx(delta / 2, rel=1e-15, abs=0)


# --------------------------------------------------------------------------- small-eps approximation


@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.1, 0.7])
def test_small_epsilon_approximation_overestimates_with_cubic_error(delta):
    eps = np.array([0.0, 1e-9, 1e-4, 1e-2, 0.1, 0.5, 1.0, 2.0, 4.0])
    approx = eta_small_epsilon_approx(eps, delta)
    np.testing.assert_allclose(approx, delta / 2 + (1 - delta) * eps / 4, rtol=1e-15, atol=0)
    exact = eta_from_epsilon(eps, delta)
    err = approx - exact
    slack = 4 * np.spacing(np.maximum(approx, 1e-300))  # rounding of the two float results
    assert np.all(err >= -slack), err
    # tanh x >= x - x^3/3 gives 0 <= eps/4 - tanh(eps/2)/2 <= eps^3/48.
    assert np.all(err <= (1 - delta) * eps**3 / 48 + slack), err


def test_small_epsilon_approximation_error_is_asymptotically_cubic():
    eps = 1e-2
    err = mpmath.mpf(eta_small_epsilon_approx(eps)) - mp_eta_printed(eps, 0.0)
    # With approx computed in float64 the difference is accurate to ~1e-19 absolute.
    assert float(err) == pytest.approx(eps**3 / 48, rel=1e-4)


# --------------------------------------------------------------------------- TPR bounds


def test_tpr_bound_mip_formula():
    """Corrected Theorem 8: TPR <= FPR + 2 eta; the printed FPR + eta only with as_printed=True."""
    fpr = np.linspace(0, 1, 11)
    for eta in (0.0, 0.05, 0.25, 0.5):
        np.testing.assert_array_equal(tpr_bound_mip(fpr, eta), np.minimum(1.0, fpr + 2 * eta))
        np.testing.assert_array_equal(
            tpr_bound_mip(fpr, eta, as_printed=True), np.minimum(1.0, fpr + eta)
        )


def test_tpr_bound_dp_zero_privacy_loss_is_the_diagonal():
    fpr = np.linspace(0, 1, 101)
    np.testing.assert_allclose(tpr_bound_dp(fpr, 0.0, 0.0), fpr, rtol=0, atol=1e-15)


@pytest.mark.parametrize("eps", [1e-6, 0.3, 1.0, 3.0, 10.0])
def test_tpr_bound_dp_pure_dp_region(eps):
    fpr = [0.0, 1e-9, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.9, 0.999, 1.0]
    got = tpr_bound_dp(np.array(fpr), eps, 0.0)
    e = mpmath.mpf(eps)
    for f, g in zip(fpr, got, strict=True):
        f = mpmath.mpf(f)
        want = min(mpmath.mpf(1), mpmath.exp(e) * f, 1 - mpmath.exp(-e) * (1 - f))
        assert abs(mpmath.mpf(float(g)) - want) <= 1e-15, (eps, f, g, want)


def test_tpr_bound_dp_infinite_epsilon_is_unconstrained():
    assert tpr_bound_dp(0.0, math.inf, 0.0) == 1.0
    assert tpr_bound_dp(0.3, math.inf, 0.2) == 1.0


@pytest.mark.parametrize(
    "eps,delta",
    [
        (0.0, 0.0),
        (0.0, 0.2),
        (0.1, 0.0),
        (1.0, 0.0),
        (1.0, 1e-5),
        (2.0, 0.05),
        (5.0, 0.3),
        (10.0, 0.0),
        (0.5, 0.9),
    ],
)
def test_best_dp_test_has_accuracy_one_half_plus_eta(eps, delta):
    """Theorem 4's tightness, seen in the ROC region.

    At prior 1/2 a test's accuracy is (1 + TPR - FPR)/2. The DP boundary's two sloped
    pieces meet at FPR* = (1-delta)/(1+e^eps), where TPR - FPR = delta + (1-delta) tanh(eps/2).
    """
    eta = eta_from_epsilon(eps, delta)
    f_star = (1 - delta) / (1 + math.exp(eps))
    fpr = np.union1d(np.linspace(0.0, 1.0, 20001), [f_star])
    gap = tpr_bound_dp(fpr, eps, delta) - fpr
    assert gap.max() == pytest.approx(2 * eta, rel=1e-12, abs=1e-15)
    if eps > 0:  # at eps = 0 the gap is flat (TPR = FPR + delta) and has no unique maximiser
        assert fpr[np.argmax(gap)] == pytest.approx(f_star, abs=1e-4)
    best_accuracy = ((1 + gap) / 2).max()
    assert best_accuracy == pytest.approx(attacker_accuracy(eta), rel=1e-13)


@pytest.mark.parametrize(
    "eps,delta", [(0.5, 0.0), (1.0, 0.0), (1.0, 0.01), (4.0, 1e-5), (3.0, 0.2)]
)
def test_dp_region_lies_under_fpr_plus_two_eta_but_not_under_fpr_plus_eta(eps, delta):
    """What *is* true: TPR_dp(FPR) <= FPR + 2 eta everywhere, with equality at FPR*.

    The DP region is *not* inside {TPR <= FPR + eta} (the printed Theorem 8) for any eps > 0.
    """
    eta = eta_from_epsilon(eps, delta)
    fpr = np.linspace(0.0, 1.0, 4001)
    dp = tpr_bound_dp(fpr, eps, delta)
    assert np.all(dp <= tpr_bound_mip(fpr, eta) + 1e-15)
    assert np.any(dp > tpr_bound_mip(fpr, eta, as_printed=True) + 1e-3)


# --------------------------------------------------------------------------- brute force


def _tight_mechanism_brute_force(n: int, q: Fraction, delta: Fraction):
    """Exact MIP analysis of the mechanism meeting Theorem 4 on a dataset of n records.

    D_train is a uniformly random n/2-subset of {0..n-1}; the target record is 0. The
    mechanism reports b = 1{0 in D_train}: with probability delta truthfully and tagged
    ("leak", b); otherwise through randomised response ("rr", b flipped with probability q).
    Returns (max over adjacent pairs and output sets of the DP slack check, optimal accuracy,
    TPR and FPR of the optimal attacker), all exact.
    """
    k = n // 2
    subsets = [frozenset(s) for s in itertools.combinations(range(n), k)]
    outputs = [("leak", 0), ("leak", 1), ("rr", 0), ("rr", 1)]

    def law(D):
        b = int(0 in D)
        return {
            ("leak", b): delta,
            ("leak", 1 - b): Fraction(0),
            ("rr", b): (1 - delta) * (1 - q),
            ("rr", 1 - b): (1 - delta) * q,
        }

    e_eps = (1 - q) / q
    dp_ok = True
    for D, Dp in itertools.permutations(subsets, 2):
        if len(D ^ Dp) != 2:  # adjacent: replace one record
            continue
        PD, PDp = law(D), law(Dp)
        for r in range(len(outputs) + 1):
            for S in itertools.combinations(outputs, r):
                dp_ok &= sum(PD[o] for o in S) <= e_eps * sum(PDp[o] for o in S) + delta
    p_sub = Fraction(1, len(subsets))
    joint = {o: [Fraction(0), Fraction(0)] for o in outputs}  # P(output, out), P(output, in)
    for D in subsets:
        for o, p in law(D).items():
            joint[o][int(0 in D)] += p_sub * p
    # Proposition 2: the optimal attacker guesses the more likely membership given the output.
    accuracy = sum(max(v) for v in joint.values())
    says_in = [o for o, v in joint.items() if v[1] >= v[0] and v[1] > 0]
    tpr = sum(joint[o][1] for o in says_in) / Fraction(1, 2)
    fpr = sum(joint[o][0] for o in says_in) / Fraction(1, 2)
    return dp_ok, accuracy, tpr, fpr


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize(
    "q,delta",
    [
        (Fraction(1, 4), Fraction(0)),
        (Fraction(1, 10), Fraction(0)),
        (Fraction(1, 3), Fraction(1, 20)),
        (Fraction(2, 5), Fraction(1, 2)),
    ],
)
def test_theorem4_is_met_exactly_by_brute_force(n, q, delta):
    dp_ok, accuracy, tpr, fpr = _tight_mechanism_brute_force(n, q, delta)
    eps = math.log((1 - q) / q)
    assert dp_ok  # the mechanism really is (eps, delta)-DP
    eta = eta_from_epsilon(eps, float(delta))
    assert float(accuracy) == pytest.approx(0.5 + eta, rel=1e-14)
    assert accuracy == delta + (1 - delta) * (1 - q)
    # its optimal attacker: TPR - FPR = 2 * eta (accuracy = (1 + TPR - FPR)/2)
    assert float(tpr - fpr) == pytest.approx(2 * eta, rel=1e-14)


def test_theorem8_bound_holds_for_an_eta_mip_mechanism():
    q = Fraction(1, 4)
    _, accuracy, tpr, fpr = _tight_mechanism_brute_force(4, q, Fraction(0))
    eta = float(accuracy) - 0.5  # the mechanism is exactly eta-MIP (its optimal attacker)
    assert float(tpr) <= tpr_bound_mip(float(fpr), eta) + 1e-12


# --------------------------------------------------------------------------- properties

eps_st = st.floats(min_value=0.0, max_value=800.0, allow_nan=False)
delta_st = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
fpr_st = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(e1=eps_st, e2=eps_st, d=delta_st)
def test_eta_monotone_in_epsilon_and_bounded(e1, e2, d):
    lo, hi = sorted((e1, e2))
    a, b = eta_from_epsilon(lo, d), eta_from_epsilon(hi, d)
    assert 0.0 <= a <= b <= 0.5


@settings(max_examples=200, deadline=None)
@given(e=eps_st, d1=delta_st, d2=delta_st)
def test_eta_monotone_in_delta(e, d1, d2):
    lo, hi = sorted((d1, d2))
    assert eta_from_epsilon(e, lo) <= eta_from_epsilon(e, hi) + 2 * ULP_HALF


@settings(max_examples=200, deadline=None)
@given(
    t1=st.floats(0.0, 1.0), t2=st.floats(0.0, 1.0), d=st.floats(0.0, 0.999, allow_subnormal=False)
)
def test_epsilon_from_eta_monotone_and_nonnegative(t1, t2, d):
    lo, hi = sorted((t1, t2))
    half = d / 2
    if (
        2 * half < d
    ):  # subnormal delta: delta/2 is not a float; the smallest valid eta is just above
        half = float(np.nextafter(half, 1.0))
    e_lo, e_hi = (half + t * (0.5 - half) for t in (lo, hi))
    e_lo, e_hi = (
        min(max(e_lo, half), np.nextafter(0.5, 0)),
        min(max(e_hi, half), np.nextafter(0.5, 0)),
    )
    a, b = epsilon_from_eta(e_lo, d), epsilon_from_eta(e_hi, d)
    assert 0.0 <= a <= b < math.inf


@settings(max_examples=200, deadline=None)
@given(f1=fpr_st, f2=fpr_st, eta=st.floats(0.0, 0.5), eps=eps_st, d=delta_st)
def test_tpr_bounds_in_unit_interval_and_monotone_in_fpr(f1, f2, eta, eps, d):
    lo, hi = sorted((f1, f2))
    for bound in (lambda f: tpr_bound_mip(f, eta), lambda f: tpr_bound_dp(f, eps, d)):
        a, b = bound(lo), bound(hi)
        assert 0.0 <= a <= b <= 1.0
        assert a >= lo - 1e-15  # never below random guessing


# --------------------------------------------------------------------------- vectorisation


def test_scalars_give_python_floats():
    for value in (
        eta_from_epsilon(1.0),
        eta_from_epsilon(1, 0),
        epsilon_from_eta(0.1),
        eta_small_epsilon_approx(0.5),
        attacker_accuracy(0.1),
        tpr_bound_mip(0.2, 0.1),
        tpr_bound_dp(0.2, 1.0, 0.0),
        eta_from_epsilon(np.float64(1.0)),
        eta_from_epsilon(np.array(1.0)),
    ):
        assert type(value) is float


def test_arrays_broadcast():
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    deltas = np.array([[0.0], [0.01], [0.2]])
    out = eta_from_epsilon(eps, deltas)
    assert isinstance(out, np.ndarray) and out.shape == (3, 4)
    for i, d in enumerate(deltas[:, 0]):
        for j, e in enumerate(eps):
            assert out[i, j] == eta_from_epsilon(float(e), float(d))
    etas = out[:, 1:]
    back = epsilon_from_eta(etas, deltas)
    assert back.shape == (3, 3)
    np.testing.assert_allclose(back, np.broadcast_to(eps[1:], (3, 3)), rtol=1e-10)
    assert tpr_bound_dp(np.linspace(0, 1, 5)[:, None], eps, 0.01).shape == (5, 4)
    assert tpr_bound_mip([0.1, 0.2], [[0.1], [0.3]]).shape == (2, 2)
    assert eta_small_epsilon_approx([0.1, 0.2]).shape == (2,)


# --------------------------------------------------------------------------- domain errors


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: eta_from_epsilon(-1.0), "epsilon"),
        (lambda: eta_from_epsilon(math.nan), "epsilon"),
        (lambda: eta_from_epsilon(1.0, 1.5), "delta"),
        (lambda: eta_from_epsilon(1.0, -1e-9), "delta"),
        (lambda: eta_from_epsilon(1.0, math.nan), "delta"),
        (lambda: eta_from_epsilon([0.1, -0.2, 0.3]), "epsilon"),
        (lambda: eta_from_epsilon("abc"), "epsilon"),
        (lambda: epsilon_from_eta(0.5), "eta"),
        (lambda: epsilon_from_eta(0.7), "eta"),
        (lambda: epsilon_from_eta(-0.1), "eta"),
        (lambda: epsilon_from_eta(math.nan), "eta"),
        (lambda: epsilon_from_eta(0.01, 0.1), "eta"),  # eta < delta/2
        (lambda: epsilon_from_eta(np.array([0.2, 0.01]), 0.1), "eta"),
        (lambda: epsilon_from_eta(0.3, 1.0), "delta"),
        (lambda: epsilon_from_eta(0.3, 1.2), "delta"),
        (lambda: eta_small_epsilon_approx(math.inf), "epsilon"),
        (lambda: eta_small_epsilon_approx(-1.0), "epsilon"),
        (lambda: eta_small_epsilon_approx(1.0, 2.0), "delta"),
        (lambda: attacker_accuracy(0.6), "eta"),
        (lambda: attacker_accuracy(-0.01), "eta"),
        (lambda: tpr_bound_mip(1.5, 0.1), "fpr"),
        (lambda: tpr_bound_mip(-0.1, 0.1), "fpr"),
        (lambda: tpr_bound_mip(0.5, 0.6), "eta"),
        (lambda: tpr_bound_dp(1.1, 1.0), "fpr"),
        (lambda: tpr_bound_dp(0.5, -1.0), "epsilon"),
        (lambda: tpr_bound_dp(0.5, math.nan), "epsilon"),
        (lambda: tpr_bound_dp(0.5, 1.0, 2.0), "delta"),
    ],
)
def test_out_of_domain_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_error_message_states_value_and_range():
    with pytest.raises(ValueError, match=r"eta=0\.7 .*allowed 0 <= eta < 0\.5"):
        epsilon_from_eta(0.7)
    with pytest.raises(ValueError, match=r"delta/2 <= eta"):
        epsilon_from_eta(0.01, 0.1)


def test_epsilon_from_eta_never_negative_with_subnormal_delta():
    # eta = 0 < delta/2 even though delta/2 underflows to 0 in float: refused, not a negative epsilon
    with pytest.raises(ValueError, match="eta"):
        epsilon_from_eta(0.0, 5e-324)
    assert epsilon_from_eta(5e-324, 5e-324) >= 0.0
    assert epsilon_from_eta(2.5e-300, 5e-300) == 0.0


def test_tpr_bound_dp_huge_epsilon_at_zero_fpr():
    assert tpr_bound_dp(0.0, 1000.0, 0.0) == 0.0
    assert tpr_bound_dp(0.0, 1000.0, 0.1) == pytest.approx(0.1)


# --------------------------------------------------------------------------- tpr_bound_dp: precision


def mp_tpr_bound_dp(fpr, eps, delta):
    """The Kairouz-Oh-Viswanath region's upper edge as printed, at 420 digits.

    The printed far edge cancels down to FPR (as small as 5e-324); 420 digits keep 90 of them.
    """
    with mpmath.workdps(420):
        f, e, d = mpmath.mpf(fpr), mpmath.mpf(eps), mpmath.mpf(delta)
        return +min(mpmath.mpf(1), mpmath.exp(e) * f + d, 1 - mpmath.exp(-e) * (1 - d - f))


def test_tpr_bound_dp_far_edge_keeps_precision_near_epsilon_zero():
    # regression: the printed form 1 − e^{−ε}(1 − δ − FPR) returned ~5e-17 below FPR here
    f = 1.192092896e-07
    assert tpr_bound_dp(f, 0.0) == f
    for fpr, eps, delta in [
        (1e-7, 1e-9, 0.0),
        (3e-9, 1e-12, 1e-10),
        (0.6, 1e-8, 0.0),
        (0.999, 1e-6, 1e-7),
        (0.3, 0.5, 1e-5),
    ]:
        ref = mp_tpr_bound_dp(fpr, eps, delta)
        assert tpr_bound_dp(fpr, eps, delta) == pytest.approx(float(ref), rel=4e-16, abs=0)


@settings(max_examples=300, deadline=None)
@given(f=fpr_st, eps=eps_st, d=delta_st)
def test_tpr_bound_dp_never_below_fpr(f, eps, d):
    b = tpr_bound_dp(f, eps, d)
    assert f <= b <= 1.0


@settings(max_examples=200, deadline=None)
@given(
    f=st.floats(0.0, 1.0),
    eps=st.floats(0.0, 1e-6),
    d=st.one_of(st.just(0.0), st.floats(0.0, 1e-6)),
)
def test_tpr_bound_dp_tiny_epsilon_matches_mpmath(f, eps, d):
    # relative error a few ulps: the far edge −expm1(−ε) + e^{−ε}(δ + FPR) has no cancellation
    ref = float(mp_tpr_bound_dp(f, eps, d))
    assert tpr_bound_dp(f, eps, d) == pytest.approx(ref, rel=1e-15, abs=1e-300)


# --------------------------------------------------------------------------- dp_region_kink


def test_dp_region_kink_known_values():
    assert dp_region_kink(0.0) == 0.5
    assert dp_region_kink(1.0) == pytest.approx(1.0 / (1.0 + math.e), rel=1e-15)
    assert dp_region_kink(math.log(3.0), 0.2) == pytest.approx(0.8 / 4.0, rel=1e-15)
    assert dp_region_kink(math.inf) == 0.0
    assert dp_region_kink(2.0, 1.0) == 0.0  # δ = 1: no constraint, the corner (0, 1)


@pytest.mark.parametrize("eps", [1e-12, 0.01, 0.5, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.1, 0.6])
def test_dp_region_kink_is_where_the_two_pieces_meet(eps, delta):
    f = dp_region_kink(eps, delta)
    growth = mpmath.exp(eps) * f + delta
    far = 1 - mpmath.exp(-eps) * (1 - delta - mpmath.mpf(f))
    assert float(growth) == pytest.approx(float(far), rel=1e-14, abs=1e-15)
    # on the anti-diagonal, and the gap to the diagonal is 2η (Theorem 4) -- the corrected
    # Theorem 8 line TPR = FPR + 2η touches the DP region exactly there
    tpr = tpr_bound_dp(f, eps, delta)
    assert tpr == pytest.approx(1.0 - f, rel=1e-14, abs=1e-15)
    assert tpr - f == pytest.approx(2.0 * eta_from_epsilon(eps, delta), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("eps,delta", [(0.3, 0.0), (1.0, 0.05), (2.5, 0.2)])
def test_dp_region_kink_maximises_tpr_minus_fpr_brute_force(eps, delta):
    grid = np.linspace(0.0, 1.0, 200_001)
    gap = tpr_bound_dp(grid, eps, delta) - grid
    best = grid[np.argmax(gap)]
    assert abs(best - dp_region_kink(eps, delta)) <= grid[1]  # within one grid step


def test_dp_region_kink_huge_epsilon_and_arrays():
    with np.errstate(all="raise"):  # no overflow warning for e^ε
        assert dp_region_kink(1e6) == 0.0
        assert dp_region_kink(700.0) == pytest.approx(math.exp(-700.0), rel=1e-12)
        out = dp_region_kink([0.0, 1.0, 1e4], [[0.0], [0.5]])
    assert isinstance(out, np.ndarray) and out.shape == (2, 3)
    assert out[1, 0] == 0.25 and type(dp_region_kink(1, 0)) is float


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: dp_region_kink(-0.1), "epsilon"),
        (lambda: dp_region_kink(math.nan), "epsilon"),
        (lambda: dp_region_kink(1.0, 1.5), "delta"),
        (lambda: dp_region_kink(1.0, -0.1), "delta"),
    ],
)
def test_dp_region_kink_domain(call, name):
    with pytest.raises(ValueError, match=rf"^{name}="):
        call()


# --------------------------------------------------------------------------- the η and ε page
#
# The page "How private is an (ε, δ) guarantee against a membership attacker?" evaluates these
# functions at one reference false-positive rate, 10⁻³. Its numbers are checked here three
# ways: known values at ε = 1, identities, and brute force -- randomised response with a δ-mass
# that reveals membership (the tightness construction of Theorem 4), and the mechanism that
# reveals membership with probability 2η (exactly η-MIP), whose every test is enumerated.
# (Moved from the former tests/test_lesson_eta_epsilon.py; what the page makes of the numbers,
# e.g. the rule of thumb's quality class, is checked in tests/test_page_eta_epsilon.py.)

REF_FPR = 1e-3  # the page's reference false-positive rate


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


def test_the_pages_numbers_at_epsilon_one():
    """Known values at ε = 1, δ = 0 (η, accuracy and tanh(1/2): the tests above)."""
    eta = eta_from_epsilon(1.0)
    assert eta_small_epsilon_approx(1.0) == 0.25
    assert 0.25 / eta - 1 == pytest.approx(0.0820, abs=1e-4)  # the rule is 8.2 % above
    tpr_dp, tpr_mip = tpr_bound_dp(REF_FPR, 1.0), tpr_bound_mip(REF_FPR, eta)
    assert tpr_dp == pytest.approx(math.e * 1e-3, rel=1e-15)
    assert tpr_mip == pytest.approx(1e-3 + 2 * eta, rel=1e-15)
    assert tpr_bound_mip(REF_FPR, eta, as_printed=True) == pytest.approx(1e-3 + eta, rel=1e-15)
    assert round(tpr_mip / tpr_dp) == 170
    assert tpr_bound_dp(0.0, 1.0) == 0.0 and tpr_bound_mip(0.0, eta) == pytest.approx(2 * eta)
    # the inverse at the page's default target η = 0.1: log 1.5 (the rule of thumb says 0.4)
    assert epsilon_from_eta(0.1) == pytest.approx(math.log(1.5), rel=1e-15)


def test_the_delta_pieces():
    eta = eta_from_epsilon(1.0, 0.1)
    assert eta == pytest.approx(0.05 + 0.9 * math.tanh(0.5) / 2, rel=1e-15)
    assert tpr_bound_dp(0.0, 1.0, 0.1) == pytest.approx(0.1)  # δ at FPR 0
    zero = eta_from_epsilon(0.0, 0.1)
    assert zero == pytest.approx(0.1 / 2)  # ε = 0: only δ/2 is left
    assert eta_small_epsilon_approx(0.0, 0.1) - zero == pytest.approx(0.0, abs=1e-17)


@pytest.mark.parametrize("eps", [0.1, 0.3])
def test_small_epsilon_relative_error_is_about_epsilon_squared_over_12(eps):
    eta = eta_from_epsilon(eps)
    assert (eta_small_epsilon_approx(eps) - eta) / eta == pytest.approx(eps**2 / 12, rel=0.02)


@settings(max_examples=60, deadline=None)
@given(
    eps=st.floats(0.0, 10.0),
    delta=st.sampled_from([0.0, 1e-12, 1e-5, 1e-3, 0.05, 0.3]),
    target=st.floats(0.0, 0.5),
)
def test_the_pages_identities(eps, delta, target):
    eta = eta_from_epsilon(eps, delta)
    kink = dp_region_kink(eps, delta)
    kink_tpr = tpr_bound_dp(kink, eps, delta)
    assert kink_tpr - kink == pytest.approx(2 * eta, abs=1e-12)
    assert kink_tpr == pytest.approx(1 - kink, abs=1e-12)  # on the anti-diagonal
    assert eta_small_epsilon_approx(eps, delta) - eta >= -1e-16
    assert attacker_accuracy(eta) == 0.5 + eta
    tpr_mip = tpr_bound_mip(REF_FPR, eta)
    assert tpr_bound_dp(REF_FPR, eps, delta) <= tpr_mip + 1e-15  # DP implies its η-MIP
    assert tpr_bound_mip(REF_FPR, eta, as_printed=True) <= tpr_mip
    # the inverse: some ε certifies the target exactly when δ/2 <= target < 1/2
    if target < 0.5 and 2 * target >= delta:
        certified = epsilon_from_eta(target, delta)
        assert eta_from_epsilon(certified, delta) == pytest.approx(target, abs=1e-12)
        rule = 4.0 * (target - delta / 2) / (1.0 - delta)  # the rule of thumb inverted
        assert rule <= certified + 1e-12  # the rule is safe
    else:
        with pytest.raises(ValueError, match="eta"):
            epsilon_from_eta(target, delta)


@settings(max_examples=40, deadline=None)
@given(e1=st.floats(0.0, 10.0), e2=st.floats(0.0, 10.0), d=st.sampled_from([0.0, 1e-5, 0.1]))
def test_the_pages_numbers_are_monotone_in_epsilon(e1, e2, d):
    e1, e2 = sorted((e1, e2))
    assert eta_from_epsilon(e1, d) <= eta_from_epsilon(e2, d)
    assert tpr_bound_dp(REF_FPR, e1, d) <= tpr_bound_dp(REF_FPR, e2, d)
    assert dp_region_kink(e1, d) >= dp_region_kink(e2, d)


@pytest.mark.parametrize("eps", [0.1, 1.0, 2.5, 6.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
def test_the_pages_numbers_equal_randomised_response_enumeration(eps, delta):
    eta = eta_from_epsilon(eps, delta)
    p_in, p_out = rr_laws(eps, delta)
    pts = all_tests(p_in, p_out)
    # the best advantage TPR - FPR over all tests is 2 eta, at the kink (Theorem 4 is tight)
    adv, f_best, t_best = max((t - f, f, t) for f, t in pts)
    assert 2.0 * eta == pytest.approx(adv, abs=1e-15)
    assert attacker_accuracy(eta) == pytest.approx(0.5 + adv / 2, abs=1e-15)
    kink = dp_region_kink(eps, delta)
    assert (kink, tpr_bound_dp(kink, eps, delta)) == pytest.approx((f_best, t_best), abs=1e-15)
    # the DP region's value at the reference FPR is what this DP mechanism reaches (the
    # enumeration interpolates along a chord of slope ~e^eps: rounding ~1e-16 * e^eps)
    tol = 1e-15 * math.exp(eps)
    assert tpr_bound_dp(REF_FPR, eps, delta) == pytest.approx(
        max_tpr(p_in, p_out, REF_FPR), abs=tol
    )
    assert tpr_bound_dp(0.0, eps, delta) == pytest.approx(max_tpr(p_in, p_out, 0.0), abs=1e-15)


@pytest.mark.parametrize("eps,delta", [(0.5, 0.0), (1.0, 0.0), (1.0, 1e-5), (3.0, 0.01)])
def test_corrected_theorem8_is_reached_and_the_printed_one_is_violated(eps, delta):
    eta = eta_from_epsilon(eps, delta)
    p_in, p_out = leak_laws(eta)  # exactly eta-MIP: best accuracy 1/2 + eta
    assert max(0.5 * t + 0.5 * (1 - f) for f, t in all_tests(p_in, p_out)) == pytest.approx(
        attacker_accuracy(eta), abs=1e-15
    )
    reached = max_tpr(p_in, p_out, REF_FPR)
    assert reached == pytest.approx(tpr_bound_mip(REF_FPR, eta), abs=1e-15)
    assert reached > tpr_bound_mip(REF_FPR, eta, as_printed=True)  # the printed one is no bound
    assert tpr_bound_mip(0.0, eta) == pytest.approx(max_tpr(p_in, p_out, 0.0), abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(eps=st.floats(0.0, 10.0), d=st.sampled_from([0.0, 1e-5, 0.1, 0.5]))
def test_the_inverse_rule_of_thumb_inverts_the_rule_and_never_exceeds_the_exact_epsilon(eps, d):
    eta = eta_from_epsilon(eps, d)
    rule = epsilon_small_eta_approx(eta, d)
    assert rule <= epsilon_from_eta(eta, d) * (1 + 1e-12) + 1e-15  # the rule overstates η
    approx = eta_small_epsilon_approx(eps, d)
    if approx <= 0.5:
        assert epsilon_small_eta_approx(approx, d) == pytest.approx(eps, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    "eta, delta, name", [(0.01, 0.1, "eta"), (0.6, 0.0, "eta"), (0.3, 1.0, "delta")]
)
def test_the_inverse_rule_of_thumb_refuses_what_no_epsilon_certifies(eta, delta, name):
    with pytest.raises(ValueError, match=name):
        epsilon_small_eta_approx(eta, delta)
