"""Tests for mipcore.noise: MIP noise (Theorem 9 / Corollary 14) vs DP Laplace noise via Theorem 4.

Expected numbers are derived independently: the printed formulas evaluated with mpmath,
closed-form asymptotics, and a calculus fact about the best ratio (the log-ratio's
derivative in y = log epsilon is 1 - p * epsilon / sinh(epsilon), p = 1 + 2/M).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipcore.bounds import epsilon_from_eta, eta_from_epsilon
from mipcore.noise import (
    COROLLARY14_CONSTANT,
    THEOREM9_CONSTANT,
    Crossover,
    crossover_etas,
    dp_laplace_scale,
    mip_noise_multiplier,
    mip_noise_scale,
)


@pytest.fixture(autouse=True, scope="module")
def _mp_50_digits():
    """The mpmath references run at 50 digits, whatever another test module set globally."""
    with mpmath.workdps(50):
        yield


def mp_mip(eta, sigma, M=2, C=6.16):
    """(C/eta)^(1 + 2/M) * sigma, Theorem 9 / Corollary 14 (arXiv:2211.06582), at 50 digits."""
    eta, sigma, M, C = (mpmath.mpf(v) for v in (eta, sigma, M, C))
    return (C / eta) ** (1 + 2 / M) * sigma


def mp_dp(eta, Delta):
    """Delta / log((1 + 2 eta)/(1 - 2 eta)): Laplace(Delta/eps) with eps from Theorem 4 at delta = 0."""
    eta, Delta = mpmath.mpf(eta), mpmath.mpf(Delta)
    if eta < mpmath.mpf("1e-20"):  # log((1+2eta)/(1-2eta)) = 2 artanh(2 eta), accurate for tiny eta
        return Delta / (2 * mpmath.atanh(2 * eta))
    return Delta / mpmath.log((1 + 2 * eta) / (1 - 2 * eta))


def mp_best(sigma, Delta, M, C):
    """(eta*, ratio*) maximising DP/MIP, from eps*/sinh(eps*) = 1/p, solved by bisection at 50 digits."""
    p = 1 + mpmath.mpf(2) / M
    lo, hi = mpmath.mpf("1e-40"), mpmath.mpf(2000)
    for _ in range(500):
        mid = mpmath.sqrt(lo * hi)
        if mid / mpmath.sinh(mid) > 1 / p:
            lo = mid
        else:
            hi = mid
    eps = (lo + hi) / 2
    eta = mpmath.tanh(eps / 2) / 2
    return eta, mpmath.mpf(Delta) / (eps * sigma) * (eta / mpmath.mpf(C)) ** p


def mp_root(sigma, Delta, M, C, a, b):
    """Root of log(MIP/DP) in log(eta) between eta = a and eta = b (bisection, 50 digits)."""

    def f(le):
        return mpmath.log(mp_mip(mpmath.exp(le), sigma, M, C) / mp_dp(mpmath.exp(le), Delta))

    lo, hi = mpmath.log(a), mpmath.log(b)
    flo = f(lo)
    assert flo * f(hi) < 0
    for _ in range(300):
        mid = (lo + hi) / 2
        if f(mid) * flo > 0:
            lo = mid
        else:
            hi = mid
    return mpmath.exp((lo + hi) / 2)


# --------------------------------------------------------------------------- MIP noise scale


@pytest.mark.parametrize("eta", [1e-6, 0.01, 0.1, 0.25, 0.5])
@pytest.mark.parametrize("sigma", [1e-3, 1.0, 37.0])
@pytest.mark.parametrize(
    "M,C", [(2, 6.16), (4, 6.16), (1e6, 6.16), (0.5, 7.5), (2, 7.5), (3, 10.0)]
)
def test_mip_noise_scale_formula(eta, sigma, M, C):
    got = mip_noise_scale(eta, sigma, M, C)
    want = mp_mip(eta, sigma, M, C)
    assert abs(mpmath.mpf(got) - want) <= 1e-13 * want


def test_mip_noise_scale_known_value_and_default_constant():
    # Corollary 14 at M = 2, eta = 0.1: (6.16/0.1)^2 = 61.6^2 = 3794.56
    assert mip_noise_scale(0.1, 1.0) == pytest.approx(3794.56, rel=1e-13)
    assert mip_noise_scale(0.1, 2.0, 2) == pytest.approx(2 * 3794.56, rel=1e-13)
    assert mip_noise_multiplier(0.1) == pytest.approx(3794.56, rel=1e-13)
    # Theorem 9 at M = 1, eta = 0.1: 75^3
    assert mip_noise_scale(0.1, 1.0, 1, 7.5) == pytest.approx(75.0**3, rel=1e-13)
    assert (COROLLARY14_CONSTANT, THEOREM9_CONSTANT) == (6.16, 7.5)


@pytest.mark.parametrize("M", [2, 3, 10, 100])
def test_theorem9_versus_corollary14_constant(M):
    ratio = mip_noise_scale(0.05, 1.0, M, 7.5) / mip_noise_scale(0.05, 1.0, M, 6.16)
    assert ratio == pytest.approx((7.5 / 6.16) ** (1 + 2 / M), rel=1e-13)
    assert ratio > 1  # Corollary 14 needs less noise


@pytest.mark.parametrize("M", [0.5, 1.0, 1.999])
def test_corollary14_constant_needs_m_at_least_two(M):
    with pytest.raises(ValueError, match="M"):
        mip_noise_scale(0.1, 1.0, M, 6.16)
    with pytest.raises(ValueError, match="M"):
        crossover_etas(1.0, 100.0, M, 6.16)
    assert mip_noise_scale(0.1, 1.0, M, 7.5) > 0  # Theorem 9 holds for any M > 0


def test_eta_zero_raises_with_an_explanation():
    with pytest.raises(ValueError, match=r"eta=0\.0 .*infinite noise"):
        mip_noise_scale(0.0, 1.0)
    with pytest.raises(ValueError, match="eta"):
        dp_laplace_scale(0.0, 1.0)


def test_sigma_zero_gives_zero_noise():
    assert mip_noise_scale(0.1, 0.0) == 0.0
    assert mip_noise_scale(1e-3, 0.0, 3, 7.5) == 0.0


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: mip_noise_scale(0.6, 1.0), "eta"),
        (lambda: mip_noise_scale(0.1, -1.0), "sigma"),
        (lambda: mip_noise_scale(0.1, math.inf), "sigma"),
        (lambda: mip_noise_scale(0.1, 1.0, 0.0), "M"),
        (lambda: mip_noise_scale(0.1, 1.0, math.nan), "M"),
        (lambda: mip_noise_scale(0.1, 1.0, 2, 6.0), "constant"),
        (lambda: dp_laplace_scale(0.6, 1.0), "eta"),
        (lambda: dp_laplace_scale(0.1, -1.0), "sensitivity"),
        (lambda: crossover_etas(0.0, 1.0), "sigma"),
        (lambda: crossover_etas(1.0, 0.0), "sensitivity"),
        (lambda: crossover_etas(1.0, 1.0, 2, 5.0), "constant"),
    ],
)
def test_out_of_domain_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --------------------------------------------------------------------------- DP Laplace scale


@pytest.mark.parametrize("eta", [1e-9, 1e-4, 0.01, 0.1, 0.3, 0.45, 0.499, 0.4999999])
@pytest.mark.parametrize("Delta", [0.5, 1.0, 1e6])
def test_dp_laplace_scale_is_sensitivity_over_epsilon(eta, Delta):
    got = dp_laplace_scale(eta, Delta)
    assert got == pytest.approx(Delta / epsilon_from_eta(eta), rel=1e-14)
    want = mp_dp(eta, Delta)
    assert abs(mpmath.mpf(got) - want) <= 1e-13 * want


def test_dp_laplace_scale_vanishes_without_privacy():
    assert dp_laplace_scale(0.5, 1.0) == 0.0
    out = dp_laplace_scale(np.array([0.1, 0.5]), 2.0)
    assert out[1] == 0.0 and out[0] == pytest.approx(2.0 / math.log(1.2 / 0.8), rel=1e-14)


def test_vectorisation_and_scalar_type():
    assert type(mip_noise_scale(0.1, 1.0)) is float
    assert type(dp_laplace_scale(0.1, 1.0)) is float
    out = mip_noise_scale(np.array([[0.1], [0.2]]), np.array([1.0, 2.0, 3.0]))
    assert out.shape == (2, 3) and out[1, 2] == pytest.approx(3 * (6.16 / 0.2) ** 2, rel=1e-13)
    assert dp_laplace_scale(np.array([0.1, 0.2]), np.array([[1.0], [2.0]])).shape == (2, 2)


@settings(max_examples=150, deadline=None)
@given(e1=st.floats(1e-6, 0.5), e2=st.floats(1e-6, 0.5), M=st.floats(2.0, 50.0))
def test_both_scales_decrease_as_eta_grows(e1, e2, M):
    lo, hi = sorted((e1, e2))
    assert mip_noise_scale(lo, 1.0, M) >= mip_noise_scale(hi, 1.0, M) > 0
    assert dp_laplace_scale(lo, 1.0) >= dp_laplace_scale(hi, 1.0) >= 0


# --------------------------------------------------------------------------- crossover


CROSSING = [
    (1.0, 1000.0, 2, 6.16),
    (1.0, 1e4, 4, 6.16),
    (0.5, 1000.0, 2, 7.5),
    (2.0, 1e5, 10, 6.16),
]


@pytest.mark.parametrize("sigma,Delta,M,C", CROSSING)
def test_crossover_roots_are_where_the_scales_are_equal(sigma, Delta, M, C):
    c = crossover_etas(sigma, Delta, M, C)
    assert isinstance(c, Crossover) and c.mip_ever_cheaper
    assert 0 < c.low < c.best_eta < c.high <= 0.5
    r_low = mip_noise_scale(c.low, sigma, M, C) / dp_laplace_scale(c.low, Delta)
    assert r_low == pytest.approx(1.0, rel=1e-9)
    want_low = mp_root(sigma, Delta, M, C, 1e-300, float(mp_best(sigma, Delta, M, C)[0]))
    assert c.low == pytest.approx(float(want_low), rel=1e-9)
    # The high root in terms of epsilon (eta itself may round to 1/2): MIP(eta(eps)) = Delta/eps.
    eps_h = mpmath.mpf(c.high_epsilon)
    eta_h = mpmath.tanh(eps_h / 2) / 2
    assert float(mp_mip(eta_h, sigma, M, C) * eps_h / Delta) == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("sigma,Delta,M,C", CROSSING)
def test_mip_is_cheaper_exactly_between_the_roots(sigma, Delta, M, C):
    c = crossover_etas(sigma, Delta, M, C)
    inside = np.exp(np.linspace(math.log(c.low), math.log(c.high), 402)[1:-1])
    inside = inside[inside < 0.5]
    assert np.all(mip_noise_scale(inside, sigma, M, C) < dp_laplace_scale(inside, Delta))
    below = np.geomspace(c.low * 1e-6, c.low * (1 - 1e-6), 50)
    assert np.all(mip_noise_scale(below, sigma, M, C) > dp_laplace_scale(below, Delta))
    if c.high_gap > 1e-12:  # the region above the high root is representable
        above = 0.5 - np.geomspace(c.high_gap * (1 - 1e-6), c.high_gap * 1e-6, 50)
        assert np.all(mip_noise_scale(above, sigma, M, C) > dp_laplace_scale(above, Delta))


def test_no_crossover_when_sensitivity_is_small():
    c = crossover_etas(1.0, 2.0)
    assert (c.low, c.high, c.high_epsilon, c.high_gap) == (None, None, None, None)
    assert not c.mip_ever_cheaper and c.best_ratio < 1
    eta = np.geomspace(1e-8, 0.5 - 1e-9, 2000)
    assert np.all(mip_noise_scale(eta, 1.0) > dp_laplace_scale(eta, 2.0))


@pytest.mark.parametrize("sigma,Delta,M,C", [*CROSSING, (1.0, 1e60, 2, 6.16)])
def test_high_gap_and_high_epsilon_are_consistent(sigma, Delta, M, C):
    c = crossover_etas(sigma, Delta, M, C)
    # gap = 1/2 - tanh(eps/2)/2 = 1/(1 + e^eps)
    assert c.high_gap == pytest.approx(
        float(1 / (1 + mpmath.exp(c.high_epsilon))), rel=1e-12, abs=0
    )
    assert c.high == pytest.approx(eta_from_epsilon(c.high_epsilon), rel=1e-15)
    assert 0.5 - c.high_gap == pytest.approx(c.high, rel=1e-15)


@pytest.mark.parametrize("sigma,Delta,M,C", [*CROSSING, (1.0, 2.0, 2, 6.16), (2.0, 3.0, 0.5, 7.5)])
def test_best_ratio_against_calculus_and_a_fine_grid(sigma, Delta, M, C):
    c = crossover_etas(sigma, Delta, M, C)
    eta_star, ratio_star = mp_best(sigma, Delta, M, C)
    assert c.best_ratio == pytest.approx(float(ratio_star), rel=1e-12)
    assert c.best_eta == pytest.approx(float(eta_star), rel=1e-6)
    eta = np.geomspace(1e-12, 0.5 - 1e-12, 200001)
    grid = dp_laplace_scale(eta, Delta) / mip_noise_scale(eta, sigma, M, C)
    assert grid.max() <= c.best_ratio * (1 + 1e-12)
    assert grid.max() == pytest.approx(c.best_ratio, rel=1e-6)


def test_very_large_sensitivity_gives_asymptotic_roots():
    c = crossover_etas(1.0, 1e60)
    # For tiny eta: eps(eta) ~ 4 eta, so (C/eta)^2 sigma = Delta/(4 eta) at eta = 4 C^2 sigma / Delta.
    assert c.low == pytest.approx(4 * 6.16**2 / 1e60, rel=1e-9)
    # For eta -> 1/2 the MIP scale tends to (2C)^2 sigma and DP's is Delta/eps.
    assert c.high_epsilon == pytest.approx(1e60 / (2 * 6.16) ** 2, rel=1e-9)
    assert c.high == 0.5 and c.high_gap == 0.0  # 1/(1 + e^(6.6e57)) underflows: documented
    assert math.isfinite(c.best_ratio)


@pytest.mark.parametrize("M", [1e6, 1e12])
def test_large_moment_order(M):
    c = crossover_etas(1.0, 1e6, M)
    _, ratio_star = mp_best(1.0, 1e6, M, 6.16)
    assert c.best_ratio == pytest.approx(float(ratio_star), rel=1e-9)
    # As M -> inf the ratio DP/MIP tends to Delta / (4 C sigma) at small eta.
    assert c.best_ratio == pytest.approx(1e6 / (4 * 6.16), rel=1e-4)
    # MIP is still cheaper at the smallest positive float: the low root is below it, reported as 0.
    tiny = mpmath.mpf(5e-324)
    assert mp_mip(tiny, 1.0, M) < mp_dp(tiny, 1e6)
    assert c.low == 0.0
    assert math.isfinite(c.high_epsilon) and c.high_gap == pytest.approx(
        float(1 / (1 + mpmath.exp(c.high_epsilon))), rel=1e-12, abs=0
    )


# --------------------------------------------------------------------------- known bugs


def test_sigma_zero_gives_zero_even_for_tiny_eta():
    assert mip_noise_scale(1e-300, 0.0) == 0.0


def test_crossover_reports_large_but_representable_values():
    c = crossover_etas(1.0, 1e307)
    assert c.best_ratio == pytest.approx(float(mp_best(1.0, 1e307, 2, 6.16)[1]), rel=1e-9)
    assert c.high_epsilon == pytest.approx(1e307 / (2 * 6.16) ** 2, rel=1e-9)
