"""Tests for mipcore.optimal_attack: Proposition 2 exactly (Laplace, Gaussian, no noise) and the
Monte Carlo estimate for d > 1.

References are independent of the code under test:

* ``mp_accuracy``: the Proposition 2 integral with mpmath at 30 digits -- roots of
  ``π p_in − (1−π) p_out`` located on a fine grid and polished with ``mpmath.findroot``,
  then ``|∫ g|`` summed over the pieces between atoms and roots;
* the membership game simulated with 10^6 draws (random half, noise, Bayes rule);
* exact enumeration with ``fractions.Fraction`` for the finite constructions;
* ``scipy.stats.binomtest(...).proportion_ci`` for Clopper–Pearson.

Statistical tolerances are 5 standard deviations of the estimator at the sample size used
(or a DKW/Hoeffding bound where stated), never tuned.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from attack_refs import halves, mp_accuracy, simulate_game
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mipcore.noise_laws import NoiseKind, NoiseLaw, as_noise_law
from mipcore.optimal_attack import (
    optimal_attack,
    optimal_attack_accuracy,
    optimal_attack_accuracy_discrete,
    optimal_attack_accuracy_mc,
)

# --------------------------------------------------------------------------- Proposition 2: exactness


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
@pytest.mark.parametrize("scale", [0.07, 0.6, 4.0])
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_exact_accuracy_matches_mpmath(kind, scale):
    rng = np.random.default_rng(11)
    a_in = rng.normal(size=5)
    a_out = rng.normal(size=4) + 0.4
    res = optimal_attack(a_in, a_out, (kind, scale), prior=0.5)
    ref, n_roots = mp_accuracy(a_in, a_out, kind, scale)
    assert abs(res.accuracy - ref) <= max(res.error_bound, 1e-15)
    assert res.error_bound < 1e-12
    assert res.boundary.size == n_roots


@pytest.mark.parametrize("kind", ["laplace", pytest.param("gaussian", marks=pytest.mark.slow)])
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_exact_accuracy_with_prior_ties_and_wide_gaps(kind):
    # repeated outputs (grouped), an unequal prior, and clusters 1e4 scales apart
    a_in = np.array([0.0, 0.0, 1.0, 100.0, 1e4])
    a_out = np.array([0.5, 1.0, 101.0, 1e4 + 3.0])
    for prior in (0.5, 0.3):
        res = optimal_attack(a_in, a_out, (kind, 0.4), prior=prior)
        ref, _ = mp_accuracy(a_in, a_out, kind, 0.4, prior=prior)
        assert abs(res.accuracy - ref) <= max(res.error_bound, 1e-15), (prior, res, ref)
        assert res.eta == pytest.approx(res.accuracy - max(prior, 1 - prior), abs=1e-15)


@pytest.mark.parametrize("ratio", [0.01, 1.0, 5.0, 17.7, 40.0, 80.0])
def test_two_point_closed_forms(ratio):
    # one output each, distance d: Gaussian accuracy Φ(d/2s); Laplace 1 − e^{−d/(2b)}/2
    d = 1.9
    scale = d / ratio
    g = optimal_attack([-1.9 + d], [-1.9], ("gaussian", scale))
    assert g.accuracy == pytest.approx(stats.norm.cdf(ratio / 2), abs=1e-14)
    if (
        ratio < 24
    ):  # boundary = midpoint (farther apart, it lies in the gap between the ±12 s windows)
        assert g.boundary == pytest.approx([-1.9 + d / 2], abs=1e-12)
    lap = optimal_attack([-1.9 + d], [-1.9], ("laplace", scale))
    assert lap.accuracy == pytest.approx(1 - 0.5 * math.exp(-ratio / 2), abs=1e-14)


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_many_outputs_against_a_fine_grid(kind):
    # 120 + 120 outputs at two noise scales, against a Riemann sum with step s/200
    rng = np.random.default_rng(8)
    a_in, a_out = rng.normal(size=120), rng.normal(size=120) * 1.02
    for s in (0.01, 0.3):
        res = optimal_attack(a_in, a_out, (kind, s))
        y = np.arange(
            min(a_in.min(), a_out.min()) - 15 * s, max(a_in.max(), a_out.max()) + 15 * s, s / 200
        )

        def dens(a, y=y, s=s):
            if kind == "gaussian":
                return np.exp(-0.5 * ((y[:, None] - a) / s) ** 2).mean(1) / (
                    s * math.sqrt(2 * math.pi)
                )
            return np.exp(-np.abs(y[:, None] - a) / s).mean(1) / (2 * s)

        ref = 0.5 + 0.25 * np.sum(np.abs(dens(a_in) - dens(a_out))) * (s / 200)
        # Riemann error: (step/2) · total variation of |g| ≈ (s/400) · ∫|g'| <= 2e-4 here; observed ~1e-8
        assert abs(res.accuracy - ref) < 1e-6


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_extreme_noise_scales_stay_finite_and_exact(kind):
    # scales far below / above the spacing of the outputs: no overflow, the limits are exact
    for scale, expected in [(1e-310, 1.0), (1e-200, 1.0), (1e200, 0.5), (1e300, 0.5)]:
        res = optimal_attack([0.0, 1.0], [2.0, 1e-5], (kind, scale))
        assert res.accuracy == pytest.approx(expected, abs=1e-13)
    res = optimal_attack([1e300, -1e300], [0.0], (kind, 1.0))
    assert res.accuracy == 1.0 and res.eta == pytest.approx(1 / 3)
    # decision boundaries are reported in the original coordinates, also next to a long gap
    res = optimal_attack([0.0, 1000.0], [0.5, 1000.3], (kind, 1.0))
    assert res.boundary[0] == pytest.approx(0.25, abs=1e-12)
    assert res.boundary[-1] == pytest.approx(1000.15, abs=1e-9)


def test_identical_groups_give_no_advantage():
    a = np.array([0.3, 1.0, 2.5])
    for noise in (("laplace", 1.0), ("gaussian", 0.2), None):
        res = optimal_attack(a, a[::-1], noise)
        assert res.accuracy == 0.5 and res.eta == 0.0


def test_no_noise_is_exact_discrete_counting():
    # outputs 0,0,1 (in) vs 1,2,2 (out): Σ_y max(c_in, c_out)/6 = (2 + 1 + 2)/6
    assert optimal_attack_accuracy([0, 0, 1], [1, 2, 2], None) == pytest.approx(5 / 6, abs=1e-16)
    # d-dimensional outputs without noise: rows are grouped
    acc = optimal_attack_accuracy([[0, 1], [0, 1], [1, 1]], [[0, 1], [2, 2], [2, 2]], "none")
    assert acc == pytest.approx(5 / 6, abs=1e-16)


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_prop2_n4_exact_vs_monte_carlo_game(kind):
    """Issue: n = 4, quadrature vs the game simulated with 10^6 draws (5 sd tolerance)."""
    records = [0.0, 1.0, 3.0, 10.0]
    combos, outputs = halves(records, 2)
    member = np.array([3 in c for c in combos])
    scale = 2.0
    exact = optimal_attack_accuracy(outputs[member], outputs[~member], (kind, scale))
    rng = np.random.default_rng(2024)
    draws = 10**6
    if kind == "laplace":
        acc = simulate_game(
            outputs,
            member,
            lambda m: rng.laplace(0, scale, m),
            lambda d: -np.abs(d) / scale,
            draws,
            rng,
        )
    else:
        acc = simulate_game(
            outputs,
            member,
            lambda m: rng.normal(0, scale, m),
            lambda d: -0.5 * (d / scale) ** 2,
            draws,
            rng,
        )
    tol = 5 * math.sqrt(exact * (1 - exact) / draws)
    assert abs(acc - exact) <= tol
    assert exact - 0.5 > 20 * tol  # the test has teeth: the advantage is far above the noise


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-5, 5), min_size=1, max_size=6),
    st.lists(st.floats(-5, 5), min_size=1, max_size=6),
    st.sampled_from(["laplace", "gaussian"]),
    st.floats(0.05, 5.0),
    st.floats(-3, 3),
    st.floats(0.5, 4.0),
)
def test_prop2_invariances(a_in, a_out, kind, scale, shift, stretch):
    a_in, a_out = np.array(a_in), np.array(a_out)
    res = optimal_attack(a_in, a_out, (kind, scale), prior=0.5)
    tol = 1e-12
    assert 0.5 - tol <= res.accuracy <= 1.0
    # swapping the roles of in and out (prior 1/2) changes nothing
    assert optimal_attack_accuracy(a_out, a_in, (kind, scale), prior=0.5) == pytest.approx(
        res.accuracy, abs=tol
    )
    # translation and joint rescaling of outputs and noise leave the game unchanged
    moved = optimal_attack_accuracy(
        a_in * stretch + shift, a_out * stretch + shift, (kind, scale * stretch), prior=0.5
    )
    assert moved == pytest.approx(res.accuracy, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(-3, 3), min_size=1, max_size=5),
    st.lists(st.floats(-3, 3), min_size=1, max_size=5),
    st.floats(0.05, 2.0),
    st.floats(1.01, 4.0),
)
def test_more_gaussian_noise_never_helps(a_in, a_out, s1, factor):
    # N(0, s2²) = N(0, s1²) + independent N(0, s2² − s1²): post-processing (Theorem 3 of arXiv:2211.06582)
    a1 = optimal_attack_accuracy(a_in, a_out, ("gaussian", s1), prior=0.5)
    a2 = optimal_attack_accuracy(a_in, a_out, ("gaussian", s1 * factor), prior=0.5)
    assert a2 <= a1 + 1e-12


def test_discrete_accuracy_and_validation():
    assert optimal_attack_accuracy_discrete([0.5, 0.5], [0.5, 0.5]) == 0.5
    assert optimal_attack_accuracy_discrete([1, 0], [0, 1]) == 1.0
    assert optimal_attack_accuracy_discrete([0.7, 0.3], [0.2, 0.8], prior=0.25) == pytest.approx(
        max(0.25 * 0.7, 0.75 * 0.2) + max(0.25 * 0.3, 0.75 * 0.8)
    )
    with pytest.raises(ValueError, match="p_in must sum to 1"):
        optimal_attack_accuracy_discrete([0.5, 0.4], [0.5, 0.5])
    with pytest.raises(ValueError, match="prior"):
        optimal_attack_accuracy_discrete([1, 0], [0, 1], prior=1.0)


def test_noise_law_validation_and_mip_is_laplace_in_1d():
    assert as_noise_law(("laplace", 0.0)).is_none
    assert as_noise_law(None).is_none
    with pytest.raises(ValueError, match="scale"):
        NoiseLaw("laplace", -1.0)
    with pytest.raises(ValueError, match="kind"):
        NoiseLaw("cauchy", 1.0)
    with pytest.raises(ValueError, match="noise"):
        as_noise_law(3.0)
    # kinds: the enum or its value, compared as enums
    assert NoiseLaw("gaussian", 1.0).kind is NoiseKind.GAUSSIAN
    assert as_noise_law((NoiseKind.LAPLACE, 2.0)) == NoiseLaw.laplace(2.0)
    assert as_noise_law(["gaussian", 0.5]) == NoiseLaw.gaussian(0.5)
    with pytest.raises(ValueError, match=r"^noise kind='cauchy' is not one of"):
        as_noise_law(("cauchy", 1.0))
    with pytest.raises(ValueError, match=r"NoiseLaw\.mip"):
        as_noise_law(("mip", 1.0))
    with pytest.raises(ValueError, match="noise scale"):
        as_noise_law(("laplace", math.inf))
    law = NoiseLaw.mip(0.1, 2.0)
    assert law.kind == "laplace" and law.scale == pytest.approx((6.16 / 0.1) ** 2 * 2.0)
    with pytest.raises(ValueError, match="eta"):
        NoiseLaw.mip(0.0, 1.0)
    with pytest.raises(ValueError, match="optimal_attack_accuracy_mc"):
        optimal_attack([[0, 1]], [[1, 1]], ("gaussian", 1.0))
    with pytest.raises(ValueError, match="outputs_in"):
        optimal_attack([], [1.0], None)
    with pytest.raises(ValueError, match="prior"):
        optimal_attack([0.0], [1.0], None, prior=0.0)


# --------------------------------------------------------------------------- Monte Carlo (d > 1)


def test_mc_agrees_with_exact_in_1d_and_with_an_uninformative_second_coordinate():
    rng = np.random.default_rng(5)
    a_in, a_out = rng.normal(size=6), rng.normal(size=6) + 0.5
    exact = optimal_attack_accuracy(a_in, a_out, ("laplace", 0.7))
    _, lo, hi = optimal_attack_accuracy_mc(a_in, a_out, ("laplace", 0.7), samples=100_000, rng=1)
    assert lo <= exact <= hi
    # a second coordinate equal for every output carries no information
    two_in = np.c_[a_in, np.full(6, 3.0)]
    two_out = np.c_[a_out, np.full(6, 3.0)]
    _, lo2, hi2 = optimal_attack_accuracy_mc(
        two_in, two_out, ("gaussian", 0.7), samples=100_000, rng=2
    )
    exact_g = optimal_attack_accuracy(a_in, a_out, ("gaussian", 0.7))
    assert lo2 <= exact_g <= hi2


def test_mc_theorem9_noise_in_2d_respects_the_certified_eta():
    # 2-d mean over random halves of 8 points; per-coordinate sigma = exact std over all halves
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(8, 2))
    combos = list(itertools.combinations(range(8), 4))
    outs = np.array([pts[list(c)].mean(axis=0) for c in combos])
    member = np.array([0 in c for c in combos])
    sigma = outs.std(axis=0)
    eta = 0.25
    law = NoiseLaw.mip(eta, sigma)
    assert law.kind == "mip"
    _, lo, _ = optimal_attack_accuracy_mc(outs[member], outs[~member], law, samples=20_000, rng=4)
    assert lo <= 0.5 + eta


def test_mc_interval_covers_the_exact_value_at_its_level():
    """Coverage over 400 seeds against the exact 1-D Laplace value (α = 0.1, so ≥ 90 % must cover;
    misses ~ Binomial(400, ≤ 0.1): allow 0.1 + 3 sd). Both a real leak and a tiny one (where
    the empirical Bernstein half of the interval is the narrow one)."""
    rng = np.random.default_rng(11)
    a_in, a_out = rng.normal(size=5), rng.normal(size=5) + 0.8
    for scale in (0.7, 40.0):
        exact = optimal_attack_accuracy(a_in, a_out, ("laplace", scale))
        misses = 0
        for seed in range(400):
            _, lo, hi = optimal_attack_accuracy_mc(
                a_in, a_out, ("laplace", scale), samples=2000, rng=seed, confidence=0.9
            )
            misses += not (lo <= exact <= hi)
        assert misses / 400 <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / 400), (scale, misses)


def test_mc_interval_is_narrow_for_a_small_leak_and_never_wider_than_hoeffding():
    rng = np.random.default_rng(12)
    a_in, a_out = rng.normal(size=5), rng.normal(size=5) + 0.8
    n, alpha = 50_000, 0.01
    hoeffding = 0.5 * math.sqrt(math.log(4 / alpha) / (2 * n))  # in accuracy units
    for scale, narrow in ((0.7, False), (200.0, True)):
        exact = optimal_attack_accuracy(a_in, a_out, ("laplace", scale))
        _, lo, hi = optimal_attack_accuracy_mc(a_in, a_out, ("laplace", scale), samples=n, rng=3)
        assert lo <= exact <= hi
        assert (hi - lo) <= 2 * hoeffding + 1e-15
        if (
            narrow
        ):  # |tanh| ~ 1e-3 everywhere: variance ~1e-6, half-width ~ 7 log(800)/(3n) ≪ Hoeffding
            assert hi - lo < 0.05 * 2 * hoeffding, (hi - lo, hoeffding)
