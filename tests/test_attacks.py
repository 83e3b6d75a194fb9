"""Tests for mipcore.attacks: Proposition 2 exactly, Theorems 4/5 constructions, Proposition 11's
true η, and the audit statistics of 001 Appendix B.

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
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mipcore import prop11
from mipcore.attacks import (
    NoiseLaw,
    as_noise_law,
    clopper_pearson,
    epsilon_from_cgr,
    epsilon_lower_bound,
    eta_estimate,
    eta_lower_bound,
    max_certifiable_epsilon,
    optimal_attack,
    optimal_attack_accuracy,
    optimal_attack_accuracy_discrete,
    optimal_attack_accuracy_mc,
    prop11_eta_by_target,
    prop11_outputs,
    prop11_true_eta,
    roc_points,
    run_canary_audit,
    theorem4_tightness_accuracy,
    theorem5_indicator_eta,
    theorem5_publish_eta,
)
from mipcore.bounds import eta_from_epsilon

# --------------------------------------------------------------------------- references


def mp_accuracy(a_in, a_out, kind, scale, prior=0.5, grid=60):
    """Proposition 2's ∫max(π p_in, (1−π) p_out) with mpmath (30 digits)."""
    with mpmath.workdps(30):
        xin = [mpmath.mpf(float(v)) for v in a_in]
        xout = [mpmath.mpf(float(v)) for v in a_out]
        s = mpmath.mpf(scale)
        pi = mpmath.mpf(prior)
        if kind == "laplace":

            def f(y, x):
                return mpmath.exp(-abs(y - x) / s) / (2 * s)
        else:

            def f(y, x):
                return mpmath.exp(-((y - x) ** 2) / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))

        def g(y):
            return pi * mpmath.fsum(f(y, x) for x in xin) / len(xin) - (1 - pi) * mpmath.fsum(
                f(y, x) for x in xout
            ) / len(xout)

        atoms = sorted(set(xin + xout))
        # bracketing grid: dense within 30 scales of each atom, 20 points across every gap
        pts = set(atoms)
        for x in atoms:
            pts.update(mpmath.linspace(x - 30 * s, x + 30 * s, grid))
        for a, b in itertools.pairwise(atoms):
            pts.update(mpmath.linspace(a, b, 20))
        ys = sorted(pts)
        gs = [g(y) for y in ys]
        roots = []
        for i in range(len(ys) - 1):
            if gs[i] * gs[i + 1] < 0:
                roots.append(mpmath.findroot(g, (ys[i], ys[i + 1]), solver="anderson"))
        br = [mpmath.mpf("-inf"), *sorted(set(atoms + roots)), mpmath.mpf("inf")]
        total = mpmath.fsum(abs(mpmath.quad(g, [br[i], br[i + 1]])) for i in range(len(br) - 1))
        return float(mpmath.mpf(1) / 2 + total / 2), len(roots)


def simulate_game(outputs, member, noise_sample, logpdf, draws, rng):
    """Monte Carlo of Definition 1's game with the Bayes-optimal attacker (prior 1/2)."""
    idx = rng.integers(outputs.size, size=draws)
    y = outputs[idx] + noise_sample(draws)
    lin = np.logaddexp.reduce(logpdf(y[:, None] - outputs[member][None, :]), axis=1) - np.log(
        member.sum()
    )
    lout = np.logaddexp.reduce(logpdf(y[:, None] - outputs[~member][None, :]), axis=1) - np.log(
        (~member).sum()
    )
    guess_in = lin >= lout
    return float(np.mean(guess_in == member[idx]))


def halves(records, k):
    combos = list(itertools.combinations(range(len(records)), k))
    out = np.array([sum(records[i] for i in c) / k for c in combos])
    return combos, out


# --------------------------------------------------------------------------- Proposition 2: exactness


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
@pytest.mark.parametrize("scale", [0.07, 0.6, 4.0])
def test_exact_accuracy_matches_mpmath(kind, scale):
    rng = np.random.default_rng(11)
    a_in = rng.normal(size=5)
    a_out = rng.normal(size=4) + 0.4
    res = optimal_attack(a_in, a_out, (kind, scale), prior=0.5)
    ref, n_roots = mp_accuracy(a_in, a_out, kind, scale)
    assert abs(res.accuracy - ref) <= max(res.error_bound, 1e-15)
    assert res.error_bound < 1e-12
    assert res.boundary.size == n_roots


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
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
    # N(0, s2²) = N(0, s1²) + independent N(0, s2² − s1²): post-processing (Theorem 3 of 000)
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
    assert law.kind == "theorem9"
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


# --------------------------------------------------------------------------- Theorem 4 tightness


@pytest.mark.parametrize("eps", [0.0, 1e-6, 0.1, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.2, 0.9])
def test_theorem4_tightness_construction_attains_the_bound(eps, delta):
    acc = theorem4_tightness_accuracy(eps, delta)
    assert abs(acc - (delta + (1 - delta) / (1 + math.exp(-eps)))) <= 1e-9
    assert abs(acc - (0.5 + eta_from_epsilon(eps, delta))) <= 1e-9


def test_theorem4_construction_is_eps_delta_dp_by_enumeration():
    # independently rebuilt: outputs (leak,0),(leak,1),(rr,0),(rr,1); D = {0} vs D' = {1}
    for eps, delta in [(0.5, 0.0), (1.0, 0.1), (2.5, 0.3)]:
        keep = math.exp(eps) / (1 + math.exp(eps))
        p0 = [delta, 0, (1 - delta) * keep, (1 - delta) * (1 - keep)]
        p1 = [0, delta, (1 - delta) * (1 - keep), (1 - delta) * keep]
        for mask in itertools.product([0, 1], repeat=4):
            s0 = sum(p for p, m in zip(p0, mask, strict=True) if m)
            s1 = sum(p for p, m in zip(p1, mask, strict=True) if m)
            assert s0 <= math.exp(eps) * s1 + delta + 1e-15
            assert s1 <= math.exp(eps) * s0 + delta + 1e-15
        # its optimal attacker has TPR − FPR = 2η > η: the printed Theorem 8 (TPR <= FPR + η) fails
        tpr = delta + (1 - delta) * keep
        fpr = (1 - delta) * (1 - keep)
        eta = theorem4_tightness_accuracy(eps, delta) - 0.5
        assert tpr - fpr == pytest.approx(2 * eta, abs=1e-12)
        assert tpr - fpr > fpr * 0 + eta + 1e-3


def test_theorem4_vectorised():
    acc = theorem4_tightness_accuracy(np.array([0.0, 1.0]), np.array([[0.0], [0.5]]))
    assert acc.shape == (2, 2)
    with pytest.raises(ValueError, match="delta"):
        theorem4_tightness_accuracy(1.0, 1.5)


# --------------------------------------------------------------------------- Theorem 5


def brute_indicator_eta(n):
    """000's counterexample by enumeration: every target, exact fractions."""
    k = n // 2
    subsets = list(itertools.combinations(range(n), k))
    star = tuple(range(k))
    best = Fraction(0)
    for x in range(n):
        joint = {}
        for s in subsets:
            out = int(s == star)
            key = (out, x in s)
            joint[key] = joint.get(key, 0) + Fraction(1, len(subsets))
        acc = sum(max(joint.get((o, True), 0), joint.get((o, False), 0)) for o in (0, 1))
        best = max(best, acc - Fraction(1, 2))
    return best


@pytest.mark.parametrize("n", [2, 4, 6, 8, 10])
def test_theorem5_indicator_eta_brute_force(n):
    exact = brute_indicator_eta(n)
    assert exact == Fraction(1, math.comb(n, n // 2))
    assert theorem5_indicator_eta(n) == pytest.approx(float(exact), rel=1e-15)


def test_theorem5_indicator_eta_goes_to_zero_but_is_not_dp():
    etas = theorem5_indicator_eta(np.array([10, 20, 40, 80]))
    assert np.all(np.diff(etas) < 0) and etas[-1] < 1e-22
    # any eta > 0 is reached: n = 40 gives less than 1e-10
    assert theorem5_indicator_eta(40) < 1e-10
    # not (eps, delta)-DP for delta < 1: D* outputs 1 surely, its neighbour {1..k-1, k+1} never does
    with pytest.raises(ValueError, match="even"):
        theorem5_indicator_eta(5)


def brute_publish_eta(n, q):
    """003's counterexample by enumeration: outputs W ⊆ D_train, each record published w.p. q."""
    k = n // 2
    subsets = list(itertools.combinations(range(n), k))
    x = 0
    joint = {}
    for s in subsets:
        for r in range(k + 1):
            for w in itertools.combinations(s, r):
                pr = Fraction(1, len(subsets)) * q**r * (1 - q) ** (k - r)
                key = (w, x in s)
                joint[key] = joint.get(key, 0) + pr
    outs = {w for w, _ in joint}
    acc = sum(max(joint.get((w, True), 0), joint.get((w, False), 0)) for w in outs)
    return acc - Fraction(1, 2)


@pytest.mark.parametrize("n", [2, 4, 6])
def test_theorem5_publish_eta_brute_force(n):
    q = Fraction(1, 10)
    assert brute_publish_eta(n, q) == q / 2
    assert theorem5_publish_eta(n, float(q)) == pytest.approx(float(q) / 2, abs=1e-17)


# --------------------------------------------------------------------------- Proposition 11


def test_prop11_outputs_match_an_independent_mpmath_construction():
    for n in (4, 6, 9):
        k = n // 2
        total = math.comb(n, k)
        with mpmath.workdps(60):
            a = 1 / mpmath.sqrt(total) - (2 ** (k - 1) - 1)
            recs = [mpmath.mpf(2) ** i for i in range(n - 1)] + [a]
            ref = sorted(
                float(1 / mpmath.fsum(recs[i] for i in c))
                for c in itertools.combinations(range(n), k)
            )
        out, members = prop11_outputs(n)
        assert members.shape == (total, n) and np.all(members.sum(axis=1) == k)
        np.testing.assert_allclose(np.sort(out), ref, rtol=2.3e-16, atol=0)
        assert np.max(out) == pytest.approx(prop11.special_output(n), rel=1e-15)


def test_prop11_eta_by_target_equals_optimal_attack_per_target():
    out, members = prop11_outputs(8)
    etas = prop11_eta_by_target(8, 0.3)
    for t in range(8):
        res = optimal_attack(out[members[:, t]], out[~members[:, t]], ("laplace", 0.3))
        assert etas[t] == pytest.approx(res.eta, abs=1e-13)
    g = prop11_eta_by_target(8, 0.3, "gaussian")
    for t in (0, 7):
        res = optimal_attack(out[members[:, t]], out[~members[:, t]], ("gaussian", 0.3))
        assert g[t] == pytest.approx(res.eta, abs=1e-13)


def test_prop11_n4_against_mpmath():
    out, members = prop11_outputs(4)
    etas = prop11_eta_by_target(4, 0.5)
    for t in range(4):
        ref, _ = mp_accuracy(out[members[:, t]], out[~members[:, t]], "laplace", 0.5)
        assert etas[t] == pytest.approx(ref - 0.5, abs=1e-13)


def test_prop11_without_noise_is_not_private():
    # every half has its own output: the attacker reads the training set off the output
    assert prop11_true_eta(10, 0.0) == 0.5
    assert prop11_true_eta(10, 1.0, "none") == 0.5


def test_prop11_true_eta_is_vectorised_and_validated():
    vals = prop11_true_eta(6, np.array([0.1, 1.0, 10.0]))
    assert vals.shape == (3,) and np.all(np.diff(vals) < 0)
    with pytest.raises(ValueError, match="enumerat"):
        prop11_true_eta(22, 1.0)
    with pytest.raises(ValueError, match="n=18 is out of range"):
        prop11_true_eta(18, 1.0, "gaussian")
    with pytest.raises(ValueError, match="noise"):
        prop11_true_eta(8, 1.0, "cauchy")
    with pytest.raises(ValueError, match="noise_scale"):
        prop11_true_eta(8, -1.0)


def certified_etas(n, b, kind):
    """Upper bounds on η for Proposition 11 + noise of scale b, from the papers' theorems."""
    delta_sens = prop11.sensitivity(n)
    bounds = []
    if kind == "laplace":
        # Theorem 9 / Corollary 14 with M = 2 and M = 4: b = (6.16/η)^(1+2/M) σ_M
        for M in (2, 4):
            sig = prop11.sigma(n, M)
            bounds.append(6.16 * (sig / b) ** (M / (M + 2)))
        # Laplace mechanism: (Δ/b)-DP, then Theorem 4
        bounds.append(eta_from_epsilon(delta_sens / b))
        # (0, TV)-DP with TV of two Laplace laws Δ apart
        bounds.append(0.5 * (1 - math.exp(-delta_sens / (2 * b))))
    else:
        # (0, TV)-DP with TV of two Gaussians Δ apart, then Theorem 4 at eps = 0
        bounds.append(stats.norm.cdf(delta_sens / (2 * b)) - 0.5)
    return min(min(bounds), 0.5)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from([4, 6, 8, 10, 12]),
    st.floats(-2.0, 4.0),
    st.sampled_from(["laplace", "gaussian"]),
)
def test_exact_eta_never_exceeds_certified_eta(n, log10_b, kind):
    b = 10.0**log10_b
    exact = prop11_true_eta(n, b, kind)
    assert 0.0 <= exact <= certified_etas(n, b, kind) + 1e-12


def test_certified_eta_is_far_from_tight_for_prop11():
    # the point of the exercise: at n = 16 and Theorem 9's noise for eta = 0.1 the true eta is tiny
    sig = prop11.sigma(16)
    b = (6.16 / 0.1) ** 2 * sig
    exact = prop11_true_eta(16, b)
    assert exact < 1e-3 * 0.1


# --------------------------------------------------------------------------- audits


@pytest.mark.parametrize(
    "k,n", [(0, 1), (0, 10), (3, 10), (10, 10), (57, 100), (999, 1000), (1, 5000)]
)
@pytest.mark.parametrize("conf", [0.9, 0.95, 0.999])
def test_clopper_pearson_matches_scipy(k, n, conf):
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=conf, method="exact")
    lo, hi = clopper_pearson(k, n, conf)
    assert lo == pytest.approx(ref.low, abs=1e-10)
    assert hi == pytest.approx(ref.high, abs=1e-10)
    # one-sided at conf = two-sided at 2 conf − 1
    lo1, hi1 = clopper_pearson(k, n, conf, alternative="greater")
    lo2, _ = clopper_pearson(k, n, 2 * conf - 1)
    assert lo1 == pytest.approx(lo2, abs=1e-12) and hi1 == 1.0


def test_clopper_pearson_vectorised_and_validated():
    lo, hi = clopper_pearson(np.array([0, 5, 10]), 10)
    assert lo.shape == (3,) and lo[0] == 0.0 and hi[2] == 1.0
    with pytest.raises(ValueError, match="k="):
        clopper_pearson(11, 10)
    with pytest.raises(ValueError, match="integer"):
        clopper_pearson(2.5, 10)
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson(2, 10, 1.0)


def test_epsilon_from_cgr_table_values_of_001():
    # Theorem B.1: eps = log(CGR/(1-CGR)); CGR 0.7311 <-> eps = 1.0 (the logistic function)
    # 0.7311 is rounded to 4 decimals: |Δε| <= 0.5e-4 · dε/dCGR = 0.5e-4 / (c (1 − c))
    assert epsilon_from_cgr(0.7311) == pytest.approx(1.0, abs=0.5e-4 / (0.7311 * 0.2689))
    assert round(1 / (1 + math.exp(-epsilon_from_cgr(1 / (1 + math.exp(-1.0))))), 4) == 0.7311
    for eps in (0.2, 1.0, 2.9, 4.0):  # 001 Table 5 reports eps_lb between 0 and 4
        assert epsilon_from_cgr(1 / (1 + math.exp(-eps))) == pytest.approx(eps, rel=1e-12)
    assert epsilon_from_cgr(0.4) == 0.0
    assert epsilon_from_cgr(1.0) == math.inf
    # (eps, delta) variant: e^eps >= (CGR − delta/g)/(1 − CGR)
    assert epsilon_from_cgr(0.9, 0.05, 0.5) == pytest.approx(math.log((0.9 - 0.1) / 0.1))


def test_epsilon_lower_bound_and_the_largest_certifiable_epsilon():
    lo = stats.binomtest(900, 1000).proportion_ci(0.9, method="exact").low  # one-sided 95 %
    assert epsilon_lower_bound(900, 1000, 0.95) == pytest.approx(math.log(lo / (1 - lo)), rel=1e-9)
    # N trials, all correct: lo = alpha^(1/N)
    for N in (10, 100, 1000, 10_000):
        lo = 0.05 ** (1 / N)
        assert max_certifiable_epsilon(N) == pytest.approx(math.log(lo / (1 - lo)), rel=1e-9)
    assert max_certifiable_epsilon(1000) < 6.0  # a 1000-trial audit can never show eps = 6
    # delta and abstentions can only lower the bound
    e0 = epsilon_lower_bound(900, 1000)
    assert epsilon_lower_bound(900, 1000, delta=1e-3) < e0
    assert epsilon_lower_bound(900, 1000, delta=1e-3, trials=2000) < epsilon_lower_bound(
        900, 1000, delta=1e-3
    )
    assert epsilon_lower_bound(400, 1000) == 0.0


def test_eta_estimate_and_lower_bound():
    # abstentions are coin flips: eta_hat = g (CGR − 1/2)
    assert eta_estimate(80, 100, 200) == pytest.approx(0.5 * (0.8 - 0.5))
    lo = eta_lower_bound(80, 100, 200, 0.95)
    cgr_lo = stats.binomtest(80, 100).proportion_ci(0.95, method="exact").low  # one-sided 97.5 %
    g_lo = stats.binomtest(100, 200).proportion_ci(0.95, method="exact").low
    assert lo == pytest.approx(g_lo * (cgr_lo - 0.5), rel=1e-9)
    assert eta_lower_bound(40, 100) == 0.0


def test_eta_lower_bound_coverage():
    """Simulated audits with known eta: the bound exceeds the truth in at most ~5 % of runs."""
    rng = np.random.default_rng(7)
    runs, trials = 4000, 300
    g, cgr = 0.6, 0.7
    eta_true = g * (cgr - 0.5)
    guesses = rng.binomial(trials, g, size=runs)
    correct = rng.binomial(guesses, cgr)
    lows = eta_lower_bound(correct, guesses, trials, 0.95)
    miss = np.mean(lows > eta_true)
    assert miss <= 0.05 + 5 * math.sqrt(0.05 * 0.95 / runs)


def test_roc_points():
    fpr, tpr = roc_points([3, 2, 2, -np.inf, np.inf], [True, False, True, False, True])
    assert fpr[0] == 0 and tpr[-1] == 1 and fpr[-1] == 1
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    with pytest.raises(ValueError, match="both"):
        roc_points([1, 2], [True, True])


# --------------------------------------------------------------------------- canary audit


@pytest.mark.parametrize(
    "noise,kw",
    [
        ("none", {}),
        ("laplace", {"noise_scale": 1.5}),
        ("gaussian", {"noise_scale": 1.0}),
        ("mip", {"eta": 0.2}),
    ],
)
def test_canary_audit_matches_proposition2(noise, kw):
    audit = run_canary_audit(20_000, n=8, canary=6.0, noise=noise, rng=123, **kw)
    assert audit.trials == 20_000 and audit.guesses + audit.abstentions == audit.trials
    # the attacker is Proposition 2's: its accuracy (abstentions as coin flips) estimates the exact one
    sd = math.sqrt(0.25 / audit.trials)
    assert abs(0.5 + audit.eta_hat - audit.exact_accuracy) <= 5 * sd
    assert audit.eta_lower <= audit.exact_eta + 1e-12
    # ROC: TPR − FPR <= 2η (Theorem 8 corrected) up to the DKW deviation of both empirical curves
    n_pos, n_neg = int(audit.labels.sum()), int((~audit.labels).sum())
    dkw = math.sqrt(math.log(2 / 1e-6) / (2 * n_pos)) + math.sqrt(math.log(2 / 1e-6) / (2 * n_neg))
    assert np.max(audit.tpr - audit.fpr) <= 2 * audit.exact_eta + dkw
    if noise == "mip":
        assert audit.exact_eta <= 0.2  # Theorem 9 certifies 0.2
    if noise == "none":
        assert audit.exact_eta == 0.5 and audit.correct == audit.trials


def test_canary_audit_margin_abstains_and_is_reproducible():
    a = run_canary_audit(5000, noise="laplace", noise_scale=2.0, margin=1.0, rng=9)
    b = run_canary_audit(5000, noise="laplace", noise_scale=2.0, margin=1.0, rng=9)
    assert a.abstentions > 0 and a.correct == b.correct and a.cgr == b.cgr
    assert a.cgr > 0.5 + a.eta_hat  # the confident guesses are better than average
    with pytest.raises(ValueError, match="eta"):
        run_canary_audit(1000, noise="mip", rng=1)
    with pytest.raises(ValueError, match="n="):
        run_canary_audit(1000, n=7, rng=1)
    with pytest.raises(ValueError, match="data has"):
        run_canary_audit(1000, n=8, data=[1, 2], rng=1)
    with pytest.raises(ValueError, match="rng"):
        run_canary_audit(1000, rng=1.5)


def _brute_force_count_eta(records, threshold):
    """Exact η of the noiseless count by enumerating every half (independent of the module)."""
    n = len(records)
    c_in, c_out = {}, {}
    for half in itertools.combinations(range(n), n // 2):
        value = sum(1 for i in half if records[i] > threshold)
        side = c_in if n - 1 in half else c_out
        side[value] = side.get(value, 0) + 1
    total = sum(c_in.values()) + sum(c_out.values())
    acc = Fraction(sum(max(c_in.get(v, 0), c_out.get(v, 0)) for v in set(c_in) | set(c_out)), total)
    return acc - Fraction(1, 2)


@pytest.mark.parametrize(
    "n,threshold,data",
    [(8, 0.5, None), (6, 0.5, None), (8, 0.2, None), (8, 2.0, [0, 3, 3, 1, 5, 0.5, 2])],
)
def test_canary_audit_count_exact_eta_matches_brute_force(n, threshold, data):
    audit = run_canary_audit(
        1000, n=n, noise="none", mechanism="count", threshold=threshold, data=data, rng=5
    )
    records = [*list(np.linspace(0.0, 1.0, n - 1) if data is None else data), 10.0]
    assert audit.exact_eta == pytest.approx(
        float(_brute_force_count_eta(records, threshold)), abs=1e-12
    )
    assert audit.sensitivity == 1.0 and audit.mechanism == "count" and audit.threshold == threshold
    # the attacker is still Proposition 2's, and the MIP noise uses the count's exact σ
    counts = [
        sum(records[i] > threshold for i in h) for h in itertools.combinations(range(n), n // 2)
    ]
    assert audit.sigma == pytest.approx(float(np.std(counts)), rel=1e-12)
    mip = run_canary_audit(
        20_000, n=n, noise="mip", eta=0.2, mechanism="count", threshold=threshold, data=data, rng=6
    )
    assert mip.noise.scale == pytest.approx(NoiseLaw.mip(0.2, mip.sigma).scale, rel=1e-12)
    assert abs(0.5 + mip.eta_hat - mip.exact_accuracy) <= 5 * math.sqrt(0.25 / mip.trials)
    assert mip.exact_eta <= 0.2


@pytest.mark.parametrize("mechanism", ["mean", "count"])
@pytest.mark.parametrize(
    "noise,kw",
    [
        ("none", {}),
        ("laplace", {"noise_scale": 1.5}),
        ("gaussian", {"noise_scale": 0.7}),
        ("mip", {"eta": 0.3}),
    ],
)
def test_distance_attacker_never_beats_the_optimum_and_lr_beats_it(mechanism, noise, kw):
    N = 20_000
    sd = math.sqrt(0.25 / N)
    dist = run_canary_audit(N, noise=noise, mechanism=mechanism, attacker="distance", rng=31, **kw)
    lr = run_canary_audit(N, noise=noise, mechanism=mechanism, attacker="lr", rng=31, **kw)
    assert dist.attacker == "distance" and dist.exact_accuracy == lr.exact_accuracy
    acc_dist, acc_lr = 0.5 + dist.eta_hat, 0.5 + lr.eta_hat
    assert acc_dist <= dist.exact_accuracy + 5 * sd
    # same seed: same halves and noise, so the comparison is paired
    assert np.array_equal(dist.labels, lr.labels)
    assert acc_lr >= acc_dist - 5 * math.sqrt(2) * sd


def test_distance_attacker_is_not_optimal_somewhere():
    """A bimodal dataset where |y − m_out| − |y − m_in| loses clearly to the likelihood ratio."""
    kw = {
        "n": 8,
        "canary": 0.5,
        "noise": "laplace",
        "noise_scale": 0.3,
        "data": [-5, -5, -5, 5, 5, 5, 5],
    }
    dist = run_canary_audit(50_000, attacker="distance", rng=2, **kw)
    lr = run_canary_audit(50_000, attacker="lr", rng=2, **kw)
    assert lr.eta_hat > dist.eta_hat + 5 * math.sqrt(0.5 / 50_000)


def test_canary_audit_new_parameters_are_validated():
    with pytest.raises(ValueError, match="mechanism="):
        run_canary_audit(1000, mechanism="shadow-model", rng=1)
    with pytest.raises(ValueError, match="attacker="):
        run_canary_audit(1000, attacker="shadow", rng=1)
    with pytest.raises(ValueError, match="threshold"):
        run_canary_audit(1000, mechanism="count", threshold=math.nan, rng=1)
    with pytest.raises(ValueError, match="threshold"):
        run_canary_audit(1000, mechanism="count", threshold=math.inf, rng=1)
    assert (
        run_canary_audit(1000, threshold=math.nan, rng=1).threshold is None
    )  # ignored for the mean
