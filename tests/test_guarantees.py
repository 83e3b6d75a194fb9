"""Tests for mipcore.guarantees: privacy guarantees (GDP, profiles, zCDP, RDP, DP-SGD) in attacker terms.

Known values come from closed forms evaluated independently (mpmath at 40 digits, the
order-2 Rényi closed form, Bun & Steinke's Proposition 1.3, dp_accounting's own analytic
Gaussian and RDP conversions); brute force checks the Rényi trade-off against the binary
pair it claims is extremal and the DP-SGD accountant against a direct 2-d integration of
two Poisson-sampled Gaussian steps. Every route's ROC bound (:func:`route_curves`) is checked
against its own η and the bound it belongs to; the presets against the settings they cite.
"""

from __future__ import annotations

import math

import dp_accounting
import mpmath
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from mipcore import guarantees as G
from mipcore.bounds import eta_from_epsilon, tpr_bound_dp
from mipcore.guarantees import (
    CIFAR10,
    E2E,
    FPR_LEVELS,
    NOISE_TOLERANCE,
    REFERENCE_DELTA,
    AttackerBound,
    CurveSource,
    DpSgd,
    EpsDelta,
    Gdp,
    Kind,
    Profile,
    Rdp,
    Relation,
    Route,
    Zcdp,
    attacker_bound,
    delta_from_gdp,
    delta_from_rdp,
    delta_from_zcdp,
    dpsgd_attacker_bound,
    dpsgd_noise_and_eta,
    dpsgd_noise_for_eta,
    dpsgd_noise_for_tpr,
    epsilon_from_gdp,
    eta_from_dpsgd,
    eta_from_gdp,
    eta_from_profile,
    eta_from_rdp,
    eta_from_zcdp,
    group_of_two,
    route_curves,
    tpr_bound_gdp,
    tpr_bound_profile,
    tpr_bound_rdp,
    tpr_bound_zcdp,
)

mpmath.mp.dps = 40
AR = Relation.ADD_OR_REMOVE_ONE
# Stated accuracy of the DP-SGD PLD route (docstring of eta_from_dpsgd): an upper bound whose
# excess over the exact value is at most ~2e-3 relative over the documented grid.
PLD_REL = 3e-3


def mp_phi(x):
    return mpmath.ncdf(x)


def mp_binary_renyi(alpha, p, q):
    """D_alpha(Bern(p) || Bern(q)) in mpmath (alpha = 1: Kullback-Leibler)."""
    p, q = mpmath.mpf(p), mpmath.mpf(q)
    if alpha == 1:
        return p * mpmath.log(p / q) + (1 - p) * mpmath.log((1 - p) / (1 - q))
    a = mpmath.mpf(alpha)
    return mpmath.log(p**a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)


# --------------------------------------------------------------------------- Gaussian DP


@pytest.mark.parametrize("mu", [1e-12, 1e-3, 0.5, 1.0, 3.0, 12.0])
def test_eta_from_gdp_matches_mpmath(mu):
    exact = mp_phi(mpmath.mpf(mu) / 2) - mpmath.mpf(1) / 2
    assert eta_from_gdp(mu) == pytest.approx(float(exact), rel=1e-13)


def test_eta_from_gdp_endpoints_and_vectorised():
    assert eta_from_gdp(0.0) == 0.0
    assert eta_from_gdp(math.inf) == 0.5
    out = eta_from_gdp(np.array([0.0, 1.0, 2.0]))
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    assert isinstance(eta_from_gdp(1.0), float)


@pytest.mark.parametrize(("fpr", "mu"), [(1e-300, 1.0), (1e-12, 3.0), (0.01, 1.0), (0.5, 0.2)])
def test_tpr_bound_gdp_matches_mpmath_even_at_tiny_fpr(fpr, mu):
    # 1 - Φ(Φ^-1(1 - FPR) - μ) = Φ(Φ^-1(FPR) + μ), with Φ^-1 by mpmath's root finder.
    z = mpmath.findroot(lambda x: mp_phi(x) - mpmath.mpf(fpr), -math.sqrt(-2 * math.log(fpr)))
    exact = mp_phi(z + mu)
    assert tpr_bound_gdp(fpr, mu) == pytest.approx(float(exact), rel=1e-9)


def test_tpr_bound_gdp_both_forms_and_endpoints():
    from scipy.stats import norm

    f = np.linspace(0.05, 0.95, 19)
    a = 1.0 - norm.cdf(norm.ppf(1.0 - f) - 0.7)
    b = norm.cdf(norm.ppf(f) + 0.7)
    assert np.allclose(tpr_bound_gdp(f, 0.7), a, rtol=1e-12)
    assert np.allclose(a, b, rtol=1e-12)
    assert tpr_bound_gdp(0.0, 2.0) == 0.0 and tpr_bound_gdp(1.0, 2.0) == 1.0
    assert tpr_bound_gdp(0.3, 0.0) == pytest.approx(0.3)
    assert tpr_bound_gdp(0.0, math.inf) == 1.0


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gdp_eta_is_half_the_largest_tpr_minus_fpr(mu):
    # η = max over FPR of (TPR − FPR)/2: the accuracy of the best test at prior 1/2.
    f = np.linspace(0.0, 1.0, 200_001)
    assert np.max(tpr_bound_gdp(f, mu) - f) / 2 == pytest.approx(eta_from_gdp(mu), abs=1e-9)


@pytest.mark.parametrize(("eps", "mu"), [(0.0, 1.0), (1.0, 1.0), (8.0, 1.0), (3.0, 0.3), (0.5, 4)])
def test_delta_from_gdp_matches_mpmath(eps, mu):
    e, m = mpmath.mpf(eps), mpmath.mpf(mu)
    exact = mp_phi(-e / m + m / 2) - mpmath.exp(e) * mp_phi(-e / m - m / 2)
    assert delta_from_gdp(eps, mu) == pytest.approx(float(exact), rel=1e-10)


@pytest.mark.parametrize(("delta", "mu"), [(1e-5, 1.0), (1e-3, 0.5), (1e-8, 3.0)])
def test_epsilon_from_gdp_matches_dp_accounting_analytic_gaussian(delta, mu):
    # Balle & Wang's analytic Gaussian: noise std 1/μ at sensitivity 1 is μ-GDP.
    from dp_accounting import gaussian_mechanism

    eps = epsilon_from_gdp(delta, mu)
    assert delta_from_gdp(eps, mu) <= delta  # rounded up: certifies
    assert eps == pytest.approx(gaussian_mechanism.get_epsilon_gaussian(1.0 / mu, delta), rel=1e-6)
    assert epsilon_from_gdp(0.99, 1.0) == 0.0  # δ above δ(0) = TV: ε = 0 suffices


@pytest.mark.parametrize("mu", [0.1, 1.0, 2.0, 5.0])
def test_gdp_profile_route_agrees_with_closed_form(mu):
    closed = eta_from_gdp(mu)
    with_zero = np.concatenate(([0.0], np.geomspace(1e-4, 40, 400)))
    assert eta_from_profile(with_zero, delta_from_gdp(with_zero, mu)) == pytest.approx(
        closed, abs=1e-12
    )
    # Without ε = 0 the minimum still gets there from the smallest ε (η(ε) = TV/2 + O(ε)).
    no_zero = np.geomspace(1e-7, 40, 2000)
    via_profile = eta_from_profile(no_zero, delta_from_gdp(no_zero, mu))
    assert closed - 1e-12 <= via_profile <= closed + 1e-6
    assert attacker_bound(Gdp(mu)).routes[1].eta == pytest.approx(closed, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    mu=st.floats(0.05, 6.0),
    eps=st.lists(st.floats(0.0, 30.0), min_size=1, max_size=8),
)
def test_profile_route_never_exceeds_any_single_point(mu, eps):
    e = np.array(eps)
    d = delta_from_gdp(e, mu)
    best = eta_from_profile(e, d)
    singles = eta_from_epsilon(e, d)
    assert best <= np.min(singles) + 1e-15
    assert best >= eta_from_gdp(mu) - 1e-12  # and never below the truth


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(0.0, 20.0), dmu=st.floats(1e-6, 5.0), fpr=st.floats(0.0, 1.0))
def test_gdp_monotone_in_mu(mu, dmu, fpr):
    assert eta_from_gdp(mu) <= eta_from_gdp(mu + dmu)
    assert tpr_bound_gdp(fpr, mu) <= tpr_bound_gdp(fpr, mu + dmu) + 1e-15


def test_gdp_tradeoff_envelope_of_its_profile_is_valid_and_close():
    eps = np.concatenate(([0.0], np.linspace(1e-3, 12, 1500)))
    f = np.array([1e-5, 1e-3, 0.01, 0.1, 0.5])
    env = tpr_bound_profile(f, eps, delta_from_gdp(eps, 1.0))
    exact = tpr_bound_gdp(f, 1.0)
    assert np.all(env >= exact - 1e-12)  # each point is valid, so never below the curve
    assert np.allclose(env, exact, rtol=2e-3)  # and the envelope is the curve (DRS Prop 2.12)


# --------------------------------------------------------------------------- profiles


def test_tpr_bound_profile_is_min_over_points():
    f = np.array([0.0, 0.01, 0.2, 1.0])
    got = tpr_bound_profile(f, [0.5, 2.0], [0.1, 1e-4])
    want = np.minimum(tpr_bound_dp(f, 0.5, 0.1), tpr_bound_dp(f, 2.0, 1e-4))
    assert np.allclose(got, want)
    assert isinstance(tpr_bound_profile(0.1, [1.0], [0.0]), float)


def test_eta_from_profile_accepts_a_scalar_delta():
    assert eta_from_profile([1.0, 2.0], 1e-5) == pytest.approx(eta_from_epsilon(1.0, 1e-5))


@pytest.mark.parametrize(
    ("fn", "a", "b", "names"),
    [
        (eta_from_profile, [1.0, 2.0], [0.1], ("epsilons", "deltas")),
        (eta_from_profile, [1.0], [0.1, 0.2], ("epsilons", "deltas")),
        (eta_from_profile, [1.0, 2.0, 3.0], [0.1, 0.2], ("epsilons", "deltas")),
        (eta_from_rdp, [2.0, 3.0], [0.1], ("orders", "rdp_values")),
        (eta_from_rdp, [2.0], [0.1, 0.2], ("orders", "rdp_values")),
    ],
)
def test_mismatched_lengths_are_refused_never_broadcast(fn, a, b, names):
    # A length-1 list is a sequence of the wrong length, not a scalar: numpy would broadcast it.
    with pytest.raises(
        ValueError,
        match=rf"{names[0]} \(length {len(a)}\) and {names[1]} "
        rf"\(length {len(b)}\) must have equal lengths",
    ):
        fn(a, b)


# --------------------------------------------------------------------------- Rényi DP


@pytest.mark.parametrize("r", [1e-6, 0.01, 0.5, 3.0, 30.0])
def test_rdp_order_two_closed_form(r):
    # D_2(Bern(1-a) || Bern(a)) = log(1 + (1-2a)^2/(a(1-a))): TV = sqrt((e^r-1)/(e^r+3)).
    c = math.expm1(r)
    exact = 0.5 * math.sqrt(c / (4.0 + c))
    got = eta_from_rdp([2.0], [r])
    assert exact <= got <= exact * (1 + 3e-9)  # bisection + the 1e-9 rounding margin


@pytest.mark.parametrize(
    ("orders", "values"),
    [([2.0], [0.5]), ([1.5, 3.0, 10.0], [0.05, 0.2, 1.0]), ([32.0], [4.0])],
)
def test_rdp_eta_is_attained_by_a_binary_pair(orders, values):
    # Brute force: the pair Bern(1-a), Bern(a) with a = 1/2 - η satisfies every Rényi bound
    # (so η cannot be smaller: tight) and a pair with a slightly larger TV violates one.
    eta = eta_from_rdp(orders, values) / (1 + 2e-9)  # less the documented rounding margin
    a = mpmath.mpf(0.5) - mpmath.mpf(eta)
    worst = max(mp_binary_renyi(al, 1 - a, a) - v for al, v in zip(orders, values, strict=True))
    assert worst <= 1e-12
    a2 = a - mpmath.mpf(1e-6)
    assert (
        max(mp_binary_renyi(al, 1 - a2, a2) - v for al, v in zip(orders, values, strict=True)) > 0
    )


@pytest.mark.parametrize("fpr", [1e-6, 0.01, 0.3])
def test_rdp_tpr_is_the_boundary_of_the_binary_region(fpr):
    orders, values = [1.5, 4.0], [0.1, 0.5]
    t = tpr_bound_rdp(fpr, orders, values)

    def worst(tt):
        tt = mpmath.mpf(tt)
        return max(
            max(mp_binary_renyi(al, tt, fpr), mp_binary_renyi(al, fpr, tt)) - v
            for al, v in zip(orders, values, strict=True)
        )

    assert worst(t * (1 - 1e-9)) <= 1e-12  # feasible just below
    assert worst(t * (1 + 1e-6)) > 0  # infeasible just above


def test_rdp_routes_are_ordered_and_valid_for_the_gaussian():
    # Gaussian mechanism with μ = 1: RDP α/2 at every order (Mironov 2017, Gaussian mechanism, sensitivity/σ = 1).
    orders = np.array([1.25, 1.5, 2, 3, 4, 6, 8, 16, 32, 64])
    b = attacker_bound(Rdp(tuple(orders), tuple(orders / 2.0)))
    by = {r.route: r.eta for r in b.routes}
    assert b.route is Route.RENYI_TRADEOFF
    assert by[Route.RENYI_TRADEOFF] <= by[Route.IMPROVED_CONVERSION] <= by[Route.MIRONOV]
    assert by[Route.IMPROVED_CONVERSION] <= by[Route.SINGLE_POINT]
    assert b.eta >= eta_from_gdp(1.0)  # a valid bound covers the Gaussian itself
    assert np.all(tpr_bound_rdp(b.roc_fpr, orders, orders / 2) >= tpr_bound_gdp(b.roc_fpr, 1.0))


@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 6.0])
def test_delta_from_rdp_matches_published_conversions(eps):
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = np.array([1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0])
    values = orders * 0.08  # ρ-zCDP-like, ρ = 0.08
    # Mironov 2017, Proposition 3, in mpmath.
    mir = min(
        mpmath.exp((mpmath.mpf(a) - 1) * (mpmath.mpf(v) - eps))
        for a, v in zip(orders, values, strict=True)
    )
    assert delta_from_rdp(eps, orders, values, "mironov") == pytest.approx(
        float(min(mir, 1)), rel=1e-12
    )
    # Canonne-Kamath-Steinke Prop 12 = dp_accounting.compute_delta, which also takes a min
    # with the Kullback-Leibler bound sqrt(1 - e^{-KL}) (KL <= the smallest value).
    ours = delta_from_rdp(eps, orders, values, "improved")
    theirs, _ = rdp.compute_delta(orders, values, eps)
    kl = math.sqrt(-math.expm1(-values.min()))
    assert min(ours, kl) == pytest.approx(theirs, rel=1e-10)


# --------------------------------------------------------------------------- zCDP


@pytest.mark.parametrize("tv", [1e-4, 0.1, 0.5, 0.9])
def test_zcdp_eta_known_values(tv):
    # The binding constraint is KL: 2x artanh(x) = ρ for TV = x (module docstring).
    rho = 2.0 * tv * math.atanh(tv)
    assert eta_from_zcdp(rho) == pytest.approx(tv / 2.0, rel=1e-7)


def test_zcdp_bun_steinke_proposition_1_3_known_value():
    rho, delta = 0.5, 1e-5
    eps = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    assert eps == pytest.approx(5.2986, abs=1e-4)
    assert delta_from_zcdp(eps, rho, "bun_steinke") == pytest.approx(delta, rel=1e-12)
    b = attacker_bound(Zcdp(rho))
    single = next(r for r in b.routes if r.route is Route.SINGLE_POINT)
    assert single.epsilon == pytest.approx(eps) and single.delta == delta


@pytest.mark.parametrize("eps", [0.5, 2.0, 5.0])
def test_zcdp_improved_conversion_matches_dp_accounting(eps):
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    rho = 0.3
    orders = np.array(rdp.DEFAULT_RDP_ORDERS, dtype=float)
    theirs, _ = rdp.compute_delta(orders, rho * orders, eps)
    ours = delta_from_zcdp(eps, rho, "improved")  # minimised over a finer order grid
    assert ours <= theirs * (1 + 1e-9)
    assert ours == pytest.approx(theirs, rel=2e-2)
    assert ours <= delta_from_zcdp(eps, rho, "bun_steinke")


@pytest.mark.parametrize("rho", [1e-3, 0.1, 0.5, 2.0])
def test_zcdp_does_not_imply_the_gdp_bound(rho):
    # The Gaussian with μ = √(2ρ) is ρ-zCDP, so the zCDP bound covers it ...
    eta = eta_from_zcdp(rho)
    assert eta > eta_from_gdp(math.sqrt(2 * rho))
    f = np.array([1e-4, 0.01, 0.2])
    assert np.all(tpr_bound_zcdp(f, rho) >= tpr_bound_gdp(f, math.sqrt(2 * rho)))
    # ... but a binary pair with TV = 2η is ρ-zCDP too (every order checked), so the GDP
    # value Φ(√(2ρ)/2) − 1/2 is not a bound for ρ-zCDP mechanisms.
    a = mpmath.mpf(0.5) - mpmath.mpf(eta) * (1 - mpmath.mpf(1e-9))
    for alpha in [1, 1.001, 1.1, 1.5, 2, 3, 5, 10, 30, 100, 1000]:
        assert mp_binary_renyi(alpha, 1 - a, a) <= rho * alpha * (1 + 1e-9)


@settings(max_examples=25, deadline=None)
@given(rho=st.floats(1e-6, 50.0), factor=st.floats(1.001, 10.0))
def test_zcdp_monotone_in_rho(rho, factor):
    assert eta_from_zcdp(rho) <= eta_from_zcdp(rho * factor) + 1e-12


def test_zcdp_and_rdp_agree_on_the_same_renyi_curve():
    # ρ-zCDP is RDP ε(α) = ρα at every order: on a sub-grid of orders the RDP route is looser.
    rho = 0.2
    orders = np.array([1.01, 1.5, 2.0, 4.0, 16.0])
    assert eta_from_rdp(orders, rho * orders) >= eta_from_zcdp(rho) - 1e-12
    assert eta_from_rdp(orders, rho * orders) == pytest.approx(eta_from_zcdp(rho), rel=1e-2)


# --------------------------------------------------------------------------- DP-SGD


@pytest.mark.parametrize(("sigma", "steps"), [(20.0, 100), (5.0, 30), (2.0, 1), (60.0, 2500)])
def test_dpsgd_full_batch_is_gdp_with_mu_two_sqrt_t_over_sigma(sigma, steps):
    # Replace-one moves the clipped sum by 2C and the noise std is σC: μ = 2√T/σ, not √T/σ.
    b = dpsgd_attacker_bound(sigma, 1.0, steps)
    exact = eta_from_gdp(2.0 * math.sqrt(steps) / sigma)
    pld = next(r.eta for r in b.routes if r.route is Route.PLD)
    assert exact - 1e-12 <= pld <= exact * (1 + PLD_REL)  # upper bound within the discretisation
    assert b.eta == pytest.approx(exact, rel=1e-12) and b.route is Route.GDP_EXACT
    assert eta_from_dpsgd(sigma, 1.0, steps) == pytest.approx(exact, rel=1e-12)
    # The add/remove number (√T/σ) is what ignoring the relation would report.
    ar = next(r for r in b.routes if r.route is Route.ADD_REMOVE_AS_REPLACE)
    assert not ar.valid
    assert ar.eta == pytest.approx(eta_from_gdp(math.sqrt(steps) / sigma), rel=PLD_REL)


def test_dpsgd_full_batch_skips_the_accountant(monkeypatch):
    # q = 1 has a closed form; through the PLD accountant 10^7 steps took about 280 s.
    def no_accountant(*args, **kwargs):
        raise AssertionError("the PLD accountant was built for q = 1")

    # Patched where it is looked up: _dpsgd_eta lives in mipcore.guarantees.dpsgd.
    monkeypatch.setattr("mipcore.guarantees.dpsgd._pld_accountant", no_accountant)
    steps = 10**7
    got = eta_from_dpsgd(3.0, 1.0, steps)
    assert got == pytest.approx(eta_from_gdp(2.0 * math.sqrt(steps) / 3.0), rel=1e-12)
    assert 0.4999 < got <= 0.5  # 2√T/σ ≈ 2108: η is 1/2 to float precision
    with pytest.raises(AssertionError, match="accountant"):
        eta_from_dpsgd(3.0, 0.5, 10)  # the monkeypatch is live: q < 1 still uses it


@pytest.mark.parametrize(("sigma", "q"), [(1.0, 0.01), (0.7, 0.3), (3.0, 0.001)])
def test_dpsgd_single_step_known_value(sigma, q):
    # One step: both outputs share the (1-q) N(0, σ²) part, so TV = q·TV(N(-1,σ²), N(1,σ²)).
    exact = q * (2.0 * float(mp_phi(1.0 / sigma)) - 1.0) / 2.0
    got = eta_from_dpsgd(sigma, q, 1)
    assert exact - 1e-12 <= got <= exact * (1 + PLD_REL)


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
def test_dpsgd_two_steps_brute_force_integration():
    # Two Poisson-sampled Gaussian steps integrated on a 2-d grid: TV = ½∫∫|p − p'|.
    from scipy.stats import norm

    sigma, q = 1.0, 0.3
    x = np.linspace(-12.0, 12.0, 4001)
    h = x[1] - x[0]
    p1 = q * norm.pdf(x, -1.0, sigma) + (1 - q) * norm.pdf(x, 0.0, sigma)
    p2 = q * norm.pdf(x, 1.0, sigma) + (1 - q) * norm.pdf(x, 0.0, sigma)
    tv = 0.5 * np.sum(np.abs(np.outer(p1, p1) - np.outer(p2, p2))) * h * h
    got = eta_from_dpsgd(sigma, q, 2)
    assert tv / 2 - 1e-7 <= got <= (tv / 2) * (1 + PLD_REL)


def test_replace_pair_of_dp_accounting_dominates_other_replacements():
    # dp_accounting models a replacement under Poisson sampling by the pair
    # (1-q)N(0) + qN(-e) vs (1-q)N(0) + qN(e). Brute force in 2-d: for clipped gradients a, b
    # anywhere in the unit ball, every hockey-stick divergence is at most the modelled pair's.
    from scipy.stats import norm

    s, q = 0.8, 0.3
    x = np.linspace(-6.0, 6.0, 481)
    px, py = np.meshgrid(x, x, indexing="ij")
    cell = (x[1] - x[0]) ** 2

    def mixture(a):
        common = (1 - q) * norm.pdf(px, 0, s) * norm.pdf(py, 0, s)
        return common + q * norm.pdf(px, a[0], s) * norm.pdf(py, a[1], s)

    gammas = np.exp(np.linspace(-3.0, 3.0, 13))

    def hockey(p, p2):
        return np.array([np.sum(np.maximum(p - g * p2, 0.0)) * cell for g in gammas])

    modelled = hockey(mixture((-1.0, 0.0)), mixture((1.0, 0.0)))
    rng = np.random.default_rng(0)
    for _ in range(12):
        r = np.sqrt(rng.uniform(0.0, 1.0, 2))
        t = rng.uniform(0.0, 2 * np.pi, 2)
        a, b = r * np.cos(t), r * np.sin(t)
        assert np.all(hockey(mixture((a[0], b[0])), mixture((a[1], b[1]))) <= modelled + 1e-9)


def test_dpsgd_sampling_only_bound_and_tiny_noise():
    q, t = 0.01, 50
    cap = (1.0 - (1.0 - q) ** t) / 2.0
    assert eta_from_dpsgd(0.05, q, t) == pytest.approx(cap, rel=1e-12)  # below the PLD floor
    assert eta_from_dpsgd(0.1, q, t) <= cap
    assert eta_from_dpsgd(0.1, q, t) == pytest.approx(cap, rel=1e-6)  # such noise reveals all
    b = dpsgd_attacker_bound(0.05, q, t)
    assert b.route is Route.SAMPLING_ONLY and b.pld_interval is None


@settings(max_examples=8, deadline=None)
@given(
    sigma=st.floats(0.6, 6.0),
    q=st.floats(0.01, 1.0),
    steps=st.integers(1, 200),
    factor=st.floats(1.05, 2.0),
)
def test_dpsgd_monotone(sigma, q, steps, factor):
    base = eta_from_dpsgd(sigma, q, steps)
    slack = base * PLD_REL + 1e-12  # pessimistic discretisation moves with the grid
    assert eta_from_dpsgd(sigma * factor, q, steps) <= base + slack
    assert eta_from_dpsgd(sigma, q / factor, steps) <= base + slack
    assert eta_from_dpsgd(sigma, q, max(1, int(steps / factor))) <= base + slack


def test_dpsgd_bound_routes():
    b = dpsgd_attacker_bound(1.1, 0.05, 500)
    by = {r.route: r for r in b.routes}
    assert b.kind is Kind.DPSGD and b.relation is Relation.REPLACE_ONE
    assert b.route is Route.PLD and b.eta == pytest.approx(eta_from_dpsgd(1.1, 0.05, 500))
    assert by[Route.PLD_ADD_REMOVE_GROUP].eta >= b.eta
    assert by[Route.RDP_ACCOUNTANT_GROUP].eta >= b.eta
    assert by[Route.SINGLE_POINT].eta >= b.eta and by[Route.SINGLE_POINT].delta == 1e-5
    assert not by[Route.ADD_REMOVE_AS_REPLACE].valid
    assert by[Route.ADD_REMOVE_AS_REPLACE].eta < b.eta  # add/remove understates MIP's risk
    assert Route.GDP_EXACT not in by
    assert 0 < b.pld_interval <= 0.03
    _check_bound(b)


@pytest.mark.parametrize(("eta", "steps"), [(0.1, 100), (0.02, 400), (0.3, 9)])
def test_noise_for_eta_full_batch_matches_the_exact_answer(eta, steps):
    from scipy.stats import norm

    exact = 2.0 * math.sqrt(steps) / (2.0 * norm.ppf(0.5 + eta))
    sigma = dpsgd_noise_for_eta(eta, 1.0, steps)
    assert exact * (1 - 1e-12) <= sigma <= exact * (1 + G.NOISE_TOLERANCE) * (1 + 1e-12)
    assert eta_from_dpsgd(sigma, 1.0, steps) <= eta


def test_noise_for_eta_round_trip_with_subsampling():
    eta, q, t = 0.05, 0.02, 1000
    sigma = dpsgd_noise_for_eta(eta, q, t)
    assert eta_from_dpsgd(sigma, q, t) <= eta  # certifies
    assert eta_from_dpsgd(sigma / (1 + G.NOISE_TOLERANCE), q, t) > eta  # and is nearly smallest


def test_noise_for_tpr_full_batch_matches_the_exact_answer():
    from scipy.stats import norm

    tpr, fpr, steps = 0.05, 0.01, 100
    exact = 2.0 * math.sqrt(steps) / (norm.ppf(tpr) - norm.ppf(fpr))
    sigma = dpsgd_noise_for_tpr(tpr, fpr, 1.0, steps)
    assert exact * (1 - 1e-12) <= sigma <= exact * (1 + G.NOISE_TOLERANCE) * (1 + 1e-12)


def test_noise_for_tpr_round_trip_with_subsampling():
    tpr, fpr, q, t = 0.05, 0.01, 0.05, 300
    sigma = dpsgd_noise_for_tpr(tpr, fpr, q, t)
    (got,), _ = G._dpsgd_tpr(sigma, q, t, np.array([fpr]))
    assert got <= tpr * (1 + 1e-9)
    b = dpsgd_attacker_bound(sigma, q, t)
    assert b.tpr_at_fpr[FPR_LEVELS.index(0.01)] <= tpr * (1 + 1e-3)


def test_noise_searches_return_zero_when_no_noise_is_needed():
    q, t = 0.001, 10  # the record is used at all with probability ≈ 0.01
    assert dpsgd_noise_for_eta(0.49, q, t) == 0.0
    assert dpsgd_noise_for_tpr(0.9, 0.5, q, t) == 0.0


# --------------------------------------------------------------------------- attacker_bound


def _check_bound(b: AttackerBound) -> None:
    valid = [r.eta for r in b.routes if r.valid]
    assert min(valid) <= b.eta <= min(valid) * (1 + 1e-12)
    assert b.accuracy == pytest.approx(0.5 + b.eta)
    assert any(r.route is b.route and r.valid for r in b.routes)
    assert b.looseness >= 1.0
    assert np.all(np.diff(b.roc_fpr) > 0) and b.roc_fpr[0] == 0.0 and b.roc_fpr[-1] == 1.0
    assert np.all(b.roc_tpr >= b.roc_fpr - 1e-15) and np.all(b.roc_tpr <= 1.0)
    assert np.all(np.diff(b.roc_tpr) >= -1e-9)
    for f, t in zip(b.fpr_levels, b.tpr_at_fpr, strict=True):
        assert t == pytest.approx(b.roc_tpr[b.roc_fpr == f][0], abs=1e-12)
        assert t <= f + 2 * b.eta + 1e-9  # Theorem 8 (corrected) is implied


@pytest.mark.parametrize(
    "g",
    [
        EpsDelta(1.0, 1e-5),
        EpsDelta(1.0, 1e-5, AR),
        Profile((0.0, 1.0, 3.0), (0.3, 0.1, 1e-4)),
        Profile((0.0, 1.0, 3.0), (0.3, 0.1, 1e-4), AR),
        Gdp(1.0),
        Gdp(1.0, AR),
        Zcdp(0.5),
        Zcdp(0.5, AR),
        Rdp((2.0, 4.0, 8.0), (0.1, 0.2, 0.4)),
        Rdp((2.0, 4.0, 8.0), (0.1, 0.2, 0.4), AR),
    ],
    ids=str,
)
def test_attacker_bound_is_consistent(g):
    _check_bound(attacker_bound(g))


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
def test_add_remove_conversions():
    assert attacker_bound(Gdp(0.7, AR)).eta == pytest.approx(eta_from_gdp(1.4), rel=1e-12)
    assert attacker_bound(Zcdp(0.1, AR)).eta == pytest.approx(eta_from_zcdp(0.4), rel=1e-9)
    # Pure ε-DP, group of two via the trade-off: g∘g − id peaks where e^{2ε}x = 1 − e^{−ε} + x,
    # at TV = 1 − e^{−ε}: tighter than 2ε-DP's tanh(ε). A mechanism attains it: outputs
    # Bern(e^{−ε}/2), Bern(1/2), Bern(1 − e^{−ε}/2) on D, D − x, D − x + x' (each step ε-DP).
    eps = 0.8
    b = attacker_bound(EpsDelta(eps, 0.0, AR))
    group = next(r.eta for r in b.routes if r.route is Route.GROUP_TRADEOFF)
    assert group == pytest.approx(-math.expm1(-eps) / 2, abs=1e-8)
    assert group >= -math.expm1(-eps) / 2 - 1e-15
    assert b.eta == group < eta_from_epsilon(2 * eps, 0.0)
    p0, p1, p2 = math.exp(-eps) / 2, 0.5, 1 - math.exp(-eps) / 2
    for x, y in ((p0, p1), (p1, p2)):  # both steps are ε-DP (both outcomes, both directions)
        for u, v in ((x, y), (1 - x, 1 - y)):
            assert max(u / v, v / u) <= math.exp(eps) * (1 + 1e-12)
    assert (p2 - p0) / 2 == pytest.approx(-math.expm1(-eps) / 2)
    # With δ > 0 the trade-off group bound beats the classical (2ε, (1 + e^ε)δ).
    b = attacker_bound(EpsDelta(0.5, 0.01, AR))
    by = {r.route: r for r in b.routes}
    assert by[Route.GROUP_TRADEOFF].eta <= by[Route.THEOREM4].eta + 1e-9
    assert by[Route.THEOREM4].epsilon == 1.0
    assert by[Route.THEOREM4].delta == pytest.approx((1 + math.exp(0.5)) * 0.01)
    # RDP add/remove: never looser than the TV triangle inequality.
    b = attacker_bound(Rdp((2.0, 4.0), (0.2, 0.5), AR))
    assert b.eta <= min(0.5, 2 * eta_from_rdp([2.0, 4.0], [0.2, 0.5])) + 1e-8
    assert b.route is Route.GROUP_TRADEOFF


def test_gdp_routes_side_by_side():
    b = attacker_bound(Gdp(1.0))
    by = {r.route: r for r in b.routes}
    assert b.route is Route.GDP_CLOSED_FORM
    assert by[Route.GDP_PROFILE].eta == pytest.approx(by[Route.GDP_CLOSED_FORM].eta, abs=1e-9)
    assert by[Route.SINGLE_POINT].epsilon == pytest.approx(epsilon_from_gdp(1e-5, 1.0))
    assert by[Route.VIA_ZCDP].eta == pytest.approx(eta_from_zcdp(0.5))
    assert b.looseness == pytest.approx(by[Route.SINGLE_POINT].eta / b.eta)
    assert b.looseness > 1.5
    assert b.tpr_at_fpr == pytest.approx(tuple(tpr_bound_gdp(np.array(FPR_LEVELS), 1.0)))


def test_guarantees_are_hashable_and_normalised():
    assert hash(Profile([0.0, 1.0], [0.1, 0.01])) == hash(Profile((0.0, 1.0), (0.1, 0.01)))
    assert Rdp(np.array([2.0]), np.array([0.1])).orders == (2.0,)
    assert Gdp(1, "add_or_remove_one").relation is AR
    assert DpSgd(1.0, 0.5, 10.0).steps == 10


# --------------------------------------------------------------------------- input validation

BAD = [
    (eta_from_gdp, (-1.0,), "mu"),
    (tpr_bound_gdp, (1.5, 1.0), "fpr"),
    (tpr_bound_gdp, (0.1, -1.0), "mu"),
    (delta_from_gdp, (-0.1, 1.0), "epsilon"),
    (delta_from_gdp, (0.1, np.nan), "mu"),
    (epsilon_from_gdp, (0.0, 1.0), "delta"),
    (epsilon_from_gdp, (1e-5, -2.0), "mu"),
    (eta_from_profile, ([-1.0], [0.1]), "epsilons"),
    (eta_from_profile, ([1.0], [1.1]), "deltas"),
    (eta_from_profile, ([1.0, 2.0], [0.1, 0.2, 0.3]), "lengths"),
    (eta_from_profile, ([], []), "empty"),
    (eta_from_profile, ([[1.0]], [[0.1]]), "1-d"),
    (tpr_bound_profile, (-0.1, [1.0], [0.0]), "fpr"),
    (tpr_bound_profile, (0.1, [1.0], [-0.1]), "deltas"),
    (eta_from_rdp, ([1.0], [0.1]), "orders"),
    (eta_from_rdp, ([2.0], [-0.1]), "rdp_values"),
    (eta_from_rdp, ([2.0, 3.0], [0.1, 0.2, 0.3]), "lengths"),
    (tpr_bound_rdp, (2.0, [2.0], [0.1]), "fpr"),
    (tpr_bound_rdp, (0.1, [0.5], [0.1]), "orders"),
    (delta_from_rdp, (-1.0, [2.0], [0.1]), "epsilon"),
    (delta_from_rdp, (1.0, [2.0], [0.1], "bogus"), "conversion"),
    (eta_from_zcdp, (-0.1,), "rho"),
    (tpr_bound_zcdp, (0.1, -1.0), "rho"),
    (tpr_bound_zcdp, (0.1, [0.1, 0.2]), "rho"),
    (tpr_bound_zcdp, (-0.1, 0.1), "fpr"),
    (delta_from_zcdp, (1.0, -0.5), "rho"),
    (delta_from_zcdp, (-1.0, 0.5), "epsilon"),
    (delta_from_zcdp, (1.0, 0.5, "bogus"), "conversion"),
    (eta_from_dpsgd, (0.0, 0.1, 10), "noise_multiplier"),
    (eta_from_dpsgd, (1.0, 0.0, 10), "sampling_rate"),
    (eta_from_dpsgd, (1.0, 1.5, 10), "sampling_rate"),
    (eta_from_dpsgd, (1.0, 0.1, 0), "steps"),
    (eta_from_dpsgd, (1.0, 0.1, 2.5), "steps"),
    (dpsgd_attacker_bound, (-1.0, 0.1, 10), "noise_multiplier"),
    (dpsgd_noise_for_eta, (0.5, 0.1, 10), "eta"),
    (dpsgd_noise_for_eta, (0.0, 0.1, 10), "eta"),
    (dpsgd_noise_for_eta, (0.1, 0.0, 10), "sampling_rate"),
    (dpsgd_noise_for_eta, (0.1, 0.1, 0), "steps"),
    (dpsgd_noise_for_tpr, (0.01, 0.01, 0.1, 10), "tpr"),
    (dpsgd_noise_for_tpr, (0.5, 0.0, 0.1, 10), "fpr"),
    (dpsgd_noise_for_tpr, (0.5, 0.1, 2.0, 10), "sampling_rate"),
    (dpsgd_noise_for_tpr, (0.5, 0.1, 0.1, -3), "steps"),
    (EpsDelta, (-1.0, 0.0), "epsilon"),
    (EpsDelta, (1.0, 2.0), "delta"),
    (EpsDelta, (math.inf, 0.0), "epsilon"),
    (Profile, ((1.0,), (1.5,)), "deltas"),
    (Gdp, (-1.0,), "mu"),
    (Gdp, (1.0, "sideways"), "relation"),
    (Zcdp, (math.nan,), "rho"),
    (Rdp, ((1.0,), (0.1,)), "orders"),
    (DpSgd, (1.0, 0.1, 0), "steps"),
    (attacker_bound, ("not a guarantee",), "guarantee"),
    (route_curves, ("not a guarantee",), "guarantee"),
    (dpsgd_noise_and_eta, (0.5, 0.1, 10), "eta"),
    (dpsgd_noise_and_eta, (None, 0.1, 10), "tpr"),
    (lambda: dpsgd_noise_and_eta(None, 0.1, 10, tpr=0.01, fpr=0.02), (), "tpr"),
    (dpsgd_noise_and_eta, (0.1, 0.0, 10), "sampling_rate"),
    (dpsgd_noise_and_eta, (0.1, 0.1, 0), "steps"),
]


@pytest.mark.parametrize(("fn", "args", "name"), BAD, ids=lambda x: getattr(x, "__name__", None))
def test_bad_input_raises_value_error_naming_the_parameter(fn, args, name):
    with pytest.raises(ValueError, match=name):
        fn(*args)


def test_tiny_renyi_values_never_give_eta_zero():
    """Where the divergences cancel in float64 the bound falls back to Pinsker (sound), and a
    DP-SGD run whose RDP accountant cancels to <= 0 at some order keeps a PLD route tightest."""
    r = np.array([1e-19, 1e-12, 1e-9])
    eta = G._renyi_eta(np.full(3, 2.0), r)
    assert np.all(eta > 0) and np.all(eta >= 0.5 * np.sqrt(r / 2) * (1 - 1e-12))
    b = G.attacker_bound(G.DpSgd(1e6, 1e-6, 1))
    assert b.eta > 0 and b.route in (G.Route.PLD, G.Route.PLD_ADD_REMOVE_GROUP)


# --------------------------------------------------------------------------- group privacy


def test_group_of_two_is_the_classical_pair_for_scalars_and_arrays():
    assert group_of_two(0.5, 1e-5) == (1.0, (1.0 + math.exp(0.5)) * 1e-5)
    assert group_of_two(800.0, 1e-5) == (1600.0, 1.0)  # e^ε capped, δ at most 1
    e, d = group_of_two(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1e-5, 0.5]))
    np.testing.assert_allclose(e, [0.0, 2.0, 4.0])
    np.testing.assert_allclose(d, [0.0, (1 + math.e) * 1e-5, 1.0], rtol=1e-15)
    assert EpsDelta(1.0, 1e-5, AR).replace_pair == group_of_two(1.0, 1e-5)
    assert EpsDelta(1.0, 1e-5).replace_pair == (1.0, 1e-5)
    assert (Gdp(1.0, AR).replace_mu, Gdp(1.0).replace_mu) == (2.0, 1.0)
    assert (Zcdp(0.1, AR).replace_rho, Zcdp(0.1).replace_rho) == (0.4, 0.1)
    # add/remove μ-GDP is 2μ-GDP for replace-one; the relation ignored understates η
    b = attacker_bound(Gdp(1.0, AR))
    assert b.eta == pytest.approx(float(norm.cdf(1.0)) - 0.5, rel=1e-12)
    assert b.invalid is not None and b.invalid.eta == pytest.approx(norm.cdf(0.5) - 0.5)


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
@pytest.mark.parametrize(
    "g", [Zcdp(0.3, AR), Rdp((2.0, 8.0), (0.2, 1.0), AR), EpsDelta(1.0, 1e-5, AR), Gdp(1.0, AR)]
)
def test_an_add_remove_guarantee_read_as_replace_one_would_understate_eta(g):
    replace = type(g)(*[getattr(g, f) for f in g.__dataclass_fields__ if f != "relation"])
    assert attacker_bound(replace).eta < attacker_bound(g).eta


def test_dpsgd_epochs_and_sampling_only_eta():
    g = DpSgd(1.1, 0.01, 200)
    assert g.epochs == pytest.approx(2.0)
    assert g.sampling_only_eta == pytest.approx((1 - 0.99**200) / 2, rel=1e-12)
    assert DpSgd(1.0, 1.0, 3).sampling_only_eta == 0.5
    small = attacker_bound(DpSgd(0.05, 0.01, 100))  # below the PLD floor: sampling alone
    assert small.route is Route.SAMPLING_ONLY
    assert small.eta == pytest.approx((1 - 0.99**100) / 2, rel=1e-12)
    point = next(r for r in attacker_bound(g).routes if r.route is Route.SINGLE_POINT)
    assert point.valid and point.epsilon is not None and point.delta == REFERENCE_DELTA


# --------------------------------------------------------------------------- every route

ROUTED = [
    EpsDelta(1.0, 1e-5),
    EpsDelta(1.0, 0.0, AR),
    EpsDelta(0.5, 0.01, AR),
    Gdp(1.0),
    Gdp(1.0, AR),
    Zcdp(0.5),
    Rdp((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0)),
    Rdp((2.0, 4.0, 8.0), (0.1, 0.2, 0.4), AR),
    DpSgd(1.1, 0.01, 200),
    DpSgd(20.0, 1.0, 100),
    DpSgd(0.05, 0.01, 100),
]


@pytest.fixture(scope="module")
def routed():
    return {repr(g): route_curves(g) for g in ROUTED}


@pytest.mark.parametrize("g", ROUTED, ids=repr)
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_route_curves_are_the_attacker_bound_and_one_curve_per_route(routed, g):
    c = routed[repr(g)]
    b = attacker_bound(g)
    assert c.guarantee == g and c.bound.eta == b.eta and c.bound.route is b.route
    assert c.bound.tpr_at_fpr == b.tpr_at_fpr and c.bound.pld_interval == b.pld_interval
    np.testing.assert_array_equal(c.bound.roc_tpr, b.roc_tpr)
    assert [x.result for x in c.curves] == list(b.routes)
    (tight,) = [x for x in c.curves if x.tightest]
    assert tight.result.route is b.route and tight.result.eta == b.eta and tight.result.valid


@pytest.mark.parametrize("g", ROUTED, ids=repr)
def test_looseness_loosest_and_invalid_are_read_off_the_routes(routed, g):
    b = routed[repr(g)].bound
    valid = [x.eta for x in b.routes if x.valid]
    lo, hi = min(valid), max(valid)
    # the tightest route: the first within rounding (10⁻¹²) of the smallest η
    assert lo <= b.eta <= lo * (1 + 1e-12)
    assert b.loosest.valid and b.loosest.eta == hi
    if lo > 0:
        assert b.looseness == pytest.approx(hi / lo, rel=1e-15)
        for r in b.routes:
            assert b.over_tightest(r) == pytest.approx(r.eta / b.eta, rel=1e-15)
    else:
        assert b.looseness == (1.0 if hi == 0 else math.inf)
    invalid = [x for x in b.routes if not x.valid]
    assert b.invalid == (invalid[0] if invalid else None)


def test_known_routes():
    b = attacker_bound(Gdp(1.0))
    assert b.eta == pytest.approx(float(norm.cdf(0.5)) - 0.5, rel=1e-12)  # 0.191462
    assert b.loosest.route is Route.SINGLE_POINT
    assert b.looseness == pytest.approx(b.loosest.eta / b.eta)
    assert attacker_bound(EpsDelta(1.0, 0.0)).eta == pytest.approx(math.tanh(0.5) / 2, rel=1e-12)
    zero = attacker_bound(Gdp(0.0))  # η = 0, but the single (ε, 10⁻⁵) point says more
    point = next(r for r in zero.routes if r.route is Route.SINGLE_POINT)
    assert zero.over_tightest(zero.routes[0]) == 1.0 and zero.over_tightest(point) is None
    assert zero.looseness == math.inf


@pytest.mark.parametrize("g", ROUTED, ids=repr)
def test_every_route_curve_is_a_valid_picture_of_its_route(routed, g):
    c = routed[repr(g)]
    f = c.bound.roc_fpr
    at = [int(np.flatnonzero(f == x)[0]) for x in FPR_LEVELS]
    for x in c.curves:
        t, r = x.tpr, x.result
        assert t.shape == f.shape and np.all(np.isfinite(t))
        assert np.all(t >= f) and np.all(t <= 1.0)
        assert np.all(np.diff(t) >= -1e-12), r.route  # a trade-off bound is nondecreasing
        # the curve never implies a larger η than its route (max of TPR − FPR is 2η)
        assert np.max(t - f) / 2 <= r.eta + 1e-9, (r.route, np.max(t - f) / 2, r.eta)
        assert x.at_levels == tuple(float(t[k]) for k in at)
        if x.source is CurveSource.ETA_LINE:
            np.testing.assert_allclose(t, np.minimum(1.0, f + 2 * r.eta), rtol=0, atol=1e-15)
        if x.source is CurveSource.COMBINED:
            np.testing.assert_array_equal(t, np.clip(np.maximum(c.bound.roc_tpr, f), 0, 1))
    if isinstance(g, Gdp):  # the closed form is the exact trade-off curve
        gdp = next(x for x in c.curves if x.result.route is Route.GDP_CLOSED_FORM)
        np.testing.assert_allclose(gdp.tpr, tpr_bound_gdp(f, g.replace_mu), rtol=1e-12)
        np.testing.assert_allclose(gdp.tpr, c.bound.roc_tpr, rtol=1e-12)


def test_route_curves_report_progress():
    seen = []
    route_curves(Gdp(0.5), progress=lambda f, m: seen.append(f))
    assert seen == [0.05, 0.75, 1.0]


# --------------------------------------------------------------------------- solve for noise


def test_noise_and_eta_for_an_eta_target_full_batch_is_exact():
    sigma, eta = dpsgd_noise_and_eta(0.1, 1.0, 100)
    exact = 2 * math.sqrt(100) / (2 * norm.ppf(0.6))  # 2√T/μ with Φ(μ/2) − 1/2 = 0.1
    assert exact <= sigma <= exact * (1 + NOISE_TOLERANCE) * (1 + 1e-9)
    assert eta <= 0.1 and eta == eta_from_dpsgd(sigma, 1.0, 100)


def test_noise_and_eta_for_a_tpr_target_full_batch_is_exact():
    sigma, _ = dpsgd_noise_and_eta(None, 1.0, 100, tpr=0.05, fpr=0.01)
    exact = 2 * math.sqrt(100) / (norm.ppf(0.05) - norm.ppf(0.01))  # Φ(Φ⁻¹(FPR) + μ) = TPR
    assert exact <= sigma <= exact * (1 + NOISE_TOLERANCE) * (1 + 1e-9)
    assert tpr_bound_gdp(0.01, 2 * 10 / sigma) <= 0.05


def test_no_noise_is_needed_when_sampling_alone_suffices():
    sigma, eta = dpsgd_noise_and_eta(0.1, 0.001, 10)
    assert sigma == 0.0 and eta == pytest.approx((1 - 0.999**10) / 2) and eta < 0.1


# --------------------------------------------------------------------------- presets


def test_presets_are_the_settings_they_cite():
    assert CIFAR10.sampling_rate == 256 / 50_000 and CIFAR10.steps == 9766
    assert E2E.sampling_rate == 1024 / 42_061 and E2E.steps == 411

    def eps8(sigma: float) -> float:  # add/remove RDP accounting, as Li et al.'s script
        acc = rdp_privacy_accountant.RdpAccountant()
        acc.compose(
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(
                    E2E.sampling_rate, dp_accounting.GaussianDpEvent(sigma)
                ),
                E2E.steps,
            )
        )
        return float(acc.get_epsilon(8e-6))

    assert eps8(E2E.noise_multiplier) <= 8.0 < eps8(E2E.noise_multiplier - 1e-3)
