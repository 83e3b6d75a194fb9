"""mipcore.guarantees.epsilon_at: a guarantee's ε at a given δ, against independent references.

* (ε, δ) pairs and profiles: the definition (a pair says nothing below its δ).
* μ-GDP: Dong, Roth and Su's profile δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) in mpmath at
  50 digits; the answer certifies (δ(ε) ≤ δ) and is tight (δ(ε − 10⁻⁶) > δ).
* ρ-zCDP: the Canonne–Kamath–Steinke conversion minimised in mpmath (the root of its
  derivative in α), and never above Bun and Steinke's ρ + 2√(ρ log(1/δ)).
* Rényi DP: ``dp_accounting.rdp.compute_epsilon`` on the same orders.
* DP-SGD: at sampling rate 1 the exact μ-GDP (2√T/σ replace-one, √T/σ add/remove); for one
  Poisson-sampled step the exact hockey-stick divergence of the accountant's dominating pair
  (a Gaussian against a Gaussian mixture: closed form in Gaussian tails), inverted by
  bisection -- the PLD's pessimistic answer is above it and within 0.1 %; and the digits
  example's claim (ε = 2.34 replace-one at δ = 10⁻⁵) as
  :mod:`mipcore.experiments.trained_model` states it.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from scipy.stats import norm

from mipcore.guarantees import (
    DpSgd,
    EpsDelta,
    Gdp,
    Profile,
    Rdp,
    Relation,
    Route,
    Zcdp,
    attacker_bound,
    epsilon_at,
)

AR, RO = Relation.ADD_OR_REMOVE_ONE, Relation.REPLACE_ONE
mp.mp.dps = 50


# --------------------------------------------------------------------------- pairs, profiles


def test_a_pair_gives_its_epsilon_from_its_delta_on_and_nothing_below():
    g = EpsDelta(1.5, 1e-5)
    assert epsilon_at(g, 1e-5) == 1.5 and epsilon_at(g, 0.5) == 1.5
    assert epsilon_at(g, 9.99e-6) == math.inf
    assert epsilon_at(EpsDelta(2.0, 0.0), 0.0) == 2.0  # pure ε-DP
    assert epsilon_at(EpsDelta(2.0, 1e-6, AR), 1e-5) == 2.0  # as stated: add/remove


def test_a_profile_gives_its_smallest_epsilon_among_the_points_it_covers():
    g = Profile((0.5, 1.0, 3.0), (1e-2, 1e-4, 1e-8))
    assert epsilon_at(g, 1e-1) == 0.5
    assert epsilon_at(g, 1e-4) == 1.0
    assert epsilon_at(g, 1e-6) == 3.0
    assert epsilon_at(g, 1e-9) == math.inf


# --------------------------------------------------------------------------- μ-GDP


def _mp_gdp_delta(eps, mu):
    eps, mu = mp.mpf(eps), mp.mpf(mu)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0, 5.0, 20.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-3, 0.05])
def test_gdp_epsilon_certifies_and_is_tight_to_1e6(mu, delta):
    eps = epsilon_at(Gdp(mu), delta)
    if _mp_gdp_delta(0, mu) <= delta:
        assert eps == 0.0
        return
    assert _mp_gdp_delta(eps, mu) <= delta * (1 + 1e-13)  # certifies (to float rounding)
    assert _mp_gdp_delta(eps - 1e-6, mu) > delta  # and within 1e-6 of the exact ε


def test_gdp_edges():
    assert epsilon_at(Gdp(0.0), 0.0) == 0.0
    assert epsilon_at(Gdp(1.0), 0.0) == math.inf
    assert epsilon_at(Gdp(1.0, AR), 1e-5) == epsilon_at(Gdp(1.0), 1e-5)  # as stated


# --------------------------------------------------------------------------- zCDP, Rényi


def _mp_cks(rho, delta):
    """min over α > 1 of ρα + log(1 − 1/α) − log(δα)/(α − 1), from its stationary point."""
    rho, ld = mp.mpf(rho), mp.log(mp.mpf(delta))

    def f(a):
        return rho * a + mp.log(1 - 1 / a) - (ld + mp.log(a)) / (a - 1)

    grid = [1 + mp.mpf(10) ** (k / mp.mpf(20)) for k in range(-160, 161)]
    start = min(grid, key=f)
    a = mp.findroot(lambda x: mp.diff(f, x), start)
    return float(max(0, min(f(a), f(start))))


@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.1, 0.5, 2.0, 50.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 1e-2])
def test_zcdp_epsilon_is_the_cks_conversion_minimised_over_every_order(rho, delta):
    eps = epsilon_at(Zcdp(rho), delta)
    assert eps == pytest.approx(_mp_cks(rho, delta), abs=1e-6)
    assert eps <= rho + 2 * math.sqrt(rho * math.log(1 / delta)) + 1e-12  # Bun–Steinke


def test_zcdp_edges():
    assert epsilon_at(Zcdp(0.0), 1e-5) == 0.0 and epsilon_at(Zcdp(0.0), 0.0) == 0.0
    assert epsilon_at(Zcdp(0.5), 0.0) == math.inf


@pytest.mark.parametrize(
    ("orders", "values"),
    [
        ((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0)),  # Gaussian, ρ = 1/4
        ((1.5, 3.0, 10.0, 64.0), (0.01, 0.05, 0.4, 7.0)),
        ((1.02, 256.0), (1e-4, 30.0)),
    ],
)
@pytest.mark.parametrize("delta", [1e-9, 1e-5, 1e-3])
def test_rdp_epsilon_is_dp_accounting_compute_epsilon(orders, values, delta):
    from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

    ref, _ = compute_epsilon(list(orders), list(values), delta)
    assert epsilon_at(Rdp(orders, values), delta) == pytest.approx(ref, rel=1e-12, abs=1e-12)
    assert epsilon_at(Rdp(orders, values), 0.0) == math.inf


# --------------------------------------------------------------------------- DP-SGD


@pytest.mark.parametrize(("sigma", "steps"), [(1.0, 1), (3.0, 100), (20.0, 1000)])
@pytest.mark.parametrize("delta", [1e-8, 1e-5])
def test_dpsgd_at_rate_one_is_exactly_gdp(sigma, steps, delta):
    run = DpSgd(sigma, 1.0, steps)
    assert epsilon_at(run, delta) == epsilon_at(Gdp(2 * math.sqrt(steps) / sigma), delta)
    got = epsilon_at(run, delta, relation=AR)
    assert got == epsilon_at(Gdp(math.sqrt(steps) / sigma), delta)


def _hockey(eps, sigma, q, replace):
    """δ(ε) of one Poisson-sampled Gaussian step for the pair dp_accounting's accountant uses:
    add/remove, P = q N(1, σ²) + (1 − q) N(0, σ²) against Q = N(0, σ²) (both orders);
    replace-one, P against Q = q N(−1, σ²) + (1 − q) N(0, σ²). log p/q increases in x, so
    H(P‖Q) = P(X > x₀) − e^ε Q(X > x₀) where log p/q = ε at x₀, and H(Q‖P) is the same below
    the point where log q/p = ε: Gaussian tails, no integration."""
    lq, l1q = math.log(q), math.log1p(-q)

    def log_p(x):
        return np.logaddexp(lq + norm.logpdf(x, 1.0, sigma), l1q + norm.logpdf(x, 0.0, sigma))

    def log_q(x):
        if not replace:
            return norm.logpdf(x, 0.0, sigma)
        return np.logaddexp(lq + norm.logpdf(x, -1.0, sigma), l1q + norm.logpdf(x, 0.0, sigma))

    def p_above(x):
        return q * norm.sf(x, 1.0, sigma) + (1 - q) * norm.sf(x, 0.0, sigma)

    def q_above(x):
        if not replace:
            return norm.sf(x, 0.0, sigma)
        return q * norm.sf(x, -1.0, sigma) + (1 - q) * norm.sf(x, 0.0, sigma)

    span = 50.0 * sigma * sigma * (eps + 10.0) + 50.0
    out = 0.0
    forward = lambda x: log_p(x) - log_q(x) - eps  # noqa: E731  increasing in x
    if forward(-span) < 0 < forward(span):
        x0 = optimize.brentq(forward, -span, span, xtol=1e-13)
        out = max(out, p_above(x0) - math.exp(eps) * q_above(x0))
    backward = lambda x: log_q(x) - log_p(x) - eps  # noqa: E731  decreasing in x
    if backward(span) < 0 < backward(-span):
        x1 = optimize.brentq(backward, -span, span, xtol=1e-13)
        out = max(out, (1 - q_above(x1)) - math.exp(eps) * (1 - p_above(x1)))
    return out


def _exact_epsilon(delta, sigma, q, replace):
    if _hockey(0.0, sigma, q, replace) <= delta:
        return 0.0
    hi = 1.0
    while _hockey(hi, sigma, q, replace) > delta:
        hi *= 2
    return optimize.brentq(lambda e: _hockey(e, sigma, q, replace) - delta, 0.0, hi, xtol=1e-12)


@pytest.mark.parametrize(("sigma", "q"), [(0.8, 0.1), (1.0, 0.01), (2.0, 0.5), (5.0, 0.2)])
@pytest.mark.parametrize("relation", [RO, AR])
def test_one_dpsgd_step_is_the_exact_hockey_stick_from_above_within_0_1_percent(sigma, q, relation):
    delta = 1e-5
    exact = _exact_epsilon(delta, sigma, q, relation is RO)
    got = epsilon_at(DpSgd(sigma, q, 1), delta, relation=relation)
    assert got >= exact - 1e-9  # pessimistic: never a claim stronger than it is
    assert got <= exact * 1.001 + 1e-6


def test_the_digits_example_claim_is_the_bound_it_states():
    from mipcore.experiments.trained_model import DELTA, DP_SGD

    run = DpSgd(DP_SGD.noise_multiplier, DP_SGD.sampling_rate, DP_SGD.steps)
    bound = attacker_bound(run)
    single = next(r for r in bound.routes if r.route is Route.SINGLE_POINT)
    assert epsilon_at(run, DELTA) == single.epsilon  # the same accountant, the same number
    assert round(epsilon_at(run, DELTA), 2) == 2.34
    add_remove = epsilon_at(run, DELTA, relation=AR)
    assert round(add_remove, 2) == 1.16 and add_remove < single.epsilon


def test_dpsgd_below_the_pld_floor_is_the_sampling_only_pair():
    run = DpSgd(0.05, 0.01, 10)
    tv = 1 - (1 - 0.01) ** 10
    assert epsilon_at(run, tv * 1.0001) == 0.0
    assert epsilon_at(run, tv * 0.99) == math.inf
    assert epsilon_at(DpSgd(1.0, 0.01, 10), 0.0) == math.inf  # Gaussian noise is never pure DP


# --------------------------------------------------------------------------- properties


@settings(max_examples=40)
@given(
    st.sampled_from(["gdp", "zcdp", "rdp"]),
    st.floats(0.01, 10.0),
    st.floats(1e-10, 0.1),
    st.floats(1e-10, 0.1),
)
def test_epsilon_never_grows_with_delta(kind, x, d1, d2):
    g = {"gdp": Gdp(x), "zcdp": Zcdp(x), "rdp": Rdp((2.0, 5.0, 20.0), (x, 3 * x, 12 * x))}[kind]
    lo, hi = sorted((d1, d2))
    assert epsilon_at(g, hi) <= epsilon_at(g, lo) + 1e-9


@pytest.mark.parametrize("delta", [-1e-9, 1.0, float("nan"), 2.0])
def test_delta_out_of_range_is_refused_naming_it(delta):
    with pytest.raises(ValueError, match="delta"):
        epsilon_at(Gdp(1.0), delta)


def test_only_a_dpsgd_run_is_read_for_another_relation():
    with pytest.raises(ValueError, match="relation='add_or_remove_one' is not the relation"):
        epsilon_at(EpsDelta(1.0, 1e-5), 1e-5, relation=AR)
    with pytest.raises(ValueError, match="relation='replace_one' is not the relation"):
        epsilon_at(Zcdp(1.0, AR), 1e-5, relation="replace_one")
    with pytest.raises(ValueError, match="relation='sideways'"):
        epsilon_at(DpSgd(1.0, 0.1, 10), 1e-5, relation="sideways")
    with pytest.raises(ValueError, match="is not one of EpsDelta"):
        epsilon_at(1.0, 1e-5)  # type: ignore[arg-type]
    assert epsilon_at(Gdp(1.0, AR), 1e-5, relation=AR) == epsilon_at(Gdp(1.0, AR), 1e-5)
    assert np.isfinite(epsilon_at(DpSgd(1.0, 0.1, 10), 1e-5, relation=RO))
