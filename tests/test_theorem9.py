"""Tests for mipcore.theorem9: the d-dimensional Theorem 9 chain as a certificate.

Steps (S1)-(S12) refer to the module docstring of ``mipcore.theorem9``. Every inequality of
the chain is checked with both sides computed independently: exact posterior ratios from
explicit atoms, Laplace probabilities from scipy.stats, the radius law by numerical
integration of the density and by Monte Carlo of ``mipcore.mechanism.sample_noise``, and the
final level against the exact optimal attacker (Proposition 2).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from mipcore import theorem9 as t9
from mipcore.mechanism import sample_noise
from mipcore.noise import dp_laplace_scale, mip_noise_multiplier
from mipcore.noise_laws import NoiseLaw, sigma_norm
from mipcore.optimal_attack import optimal_attack, optimal_attack_accuracy_mc
from mipcore.prop11 import output_moments
from mipcore.prop11_attack import prop11_true_eta

E = math.e
#: Optimiser noise allowed in monotonicity checks (module docstring, S12: ~1e-15 observed).
MONO_RTOL = 1e-12
APP_C_ETA01_M2 = mip_noise_multiplier(0.1, 2)  # (6.16/0.1)^2, what the app adds for η = 0.1


# --------------------------------------------------------------------------- helpers


def printed_eq13(c):
    """Corollary 14, equation (13), minus 1/2: the printed d = 1 guarantee at M = 2."""
    c = np.asarray(c, dtype=float)
    return ((4 + E + 2 * c**-0.5) / 2 + E + 2 * c**-1.5) * c**-0.5


def centred_unit_moment(z, M, norm):
    """Shift atoms to mean 0 and scale them so that mean ||z||^M = 1 (σ = 1)."""
    z = z - z.mean(axis=0)
    scale = np.mean(norm(z) ** M) ** (1.0 / M)
    return z / scale


def log_ratio(theta, a_in, a_out, c, norm):
    """log F(θ̂) of step S1 for each row of theta, computed from the atoms."""
    li = special.logsumexp(-norm(theta[:, None, :] - a_in[None, :, :]) / c, axis=1)
    lo = special.logsumexp(-norm(theta[:, None, :] - a_out[None, :, :]) / c, axis=1)
    return li - lo


def atom_families(rng, d, M, norm, n_random=4):
    """Centred, unit-moment (in, out) atom pairs: random heavy-tailed and adversarial ones."""
    fams = []
    for _ in range(n_random):
        N = int(rng.integers(2, 40))
        z = rng.standard_t(df=2.5, size=(2 * N, d)) * rng.exponential(1.0, size=(2 * N, 1))
        z = centred_unit_moment(z, M, norm)
        fams.append((z[:N], z[N:]))
    u = np.zeros(d)
    u[0] = 1.0
    for N, k, L in [(10, 1, 8.0), (20, 2, 30.0), (5, 1, 2.0), (2, 1, 1.0)]:
        # in-atoms: k outliers at +L u, the rest at -u; out-atoms at +u
        a_in = np.vstack([np.tile(L * u, (k, 1)), np.tile(-u, (N - k, 1))])
        a_out = np.tile(u, (N, 1))
        z = centred_unit_moment(np.vstack([a_in, a_out]), M, norm)
        fams.append((z[:N], z[N:]))
    return fams


def points_at_radii(rng, d, radii, norm, count=24):
    """Points θ̂ with ||θ̂|| equal to each radius, along random and axis directions."""
    dirs = rng.normal(size=(count, d))
    dirs[0] = 0.0
    dirs[0, 0] = 1.0
    dirs[1] = -dirs[0]
    dirs /= norm(dirs)[:, None]
    return np.vstack([r * dirs for r in radii])


def sigma_unit_norm(d, M):
    sig = np.ones(d)
    return lambda x: sigma_norm(x, sig, M)


# --------------------------------------------------------------------------- known values


def test_chain_at_corollary14_constants_term_by_term():
    """Known value: every term at M = 2, α = γ = 1/2, β = 1, d = 1, recomputed by hand."""
    c = APP_C_ETA01_M2
    t = t9.chain_eta(c, M=2, d=1, alpha=0.5, gamma=0.5)
    s = c**-0.5
    q = 2 / c  # S2 at r = sqrt(c)
    l1 = (1 - q) * math.exp(-2 * s)  # S3
    l2 = (1 - q) * math.exp(-s) / (math.exp(s) + 2 * q * c**0.5)  # S4
    m = 1 / (1 + l2)  # S6
    w = c**-2  # S8, tau = c
    tail = E * s  # S7 at d = 1: e^-(log(c)/2 - 1)
    p = w + (1 - w) * tail
    eta = (m - 0.5) + (1 - m) * p  # S9
    assert t.inner_fraction == pytest.approx(q, rel=1e-13)
    assert t.ratio_bound_inner == pytest.approx(l1, rel=1e-13)
    assert t.ratio_bound_outer == pytest.approx(l2, rel=1e-13)
    assert t.ratio_bound == pytest.approx(l2, rel=1e-13)
    assert t.delta == pytest.approx(1 - l2, rel=1e-12)
    assert t.max_posterior == pytest.approx(m, rel=1e-13)
    assert t.noise_tail == pytest.approx(tail, rel=1e-13)
    assert t.bad_probability == pytest.approx(p, rel=1e-13)
    assert t.eta == pytest.approx(eta, rel=2e-9)
    assert t.eta >= eta  # rounded up, never down
    assert (t.inner_radius, t.outer_radius, t.split_radius) == pytest.approx(
        (c**0.5, 0.5 * c * math.log(c), c), rel=1e-13
    )
    # and it is below the printed (13) at the same c (S10)
    assert t.eta <= printed_eq13(c)


def test_known_values_at_the_apps_noise_for_eta_0_1():
    """Regression pins of the table in the report (values checked by the other tests)."""
    got = t9.chain_certified_eta_by_dimension(APP_C_ETA01_M2, M=2, ds=[1, 2, 3, 4, 9])
    np.testing.assert_allclose(got, [0.02700, 0.04270, 0.06143, 0.08371, 0.24218], atol=2e-5)
    assert got[3] <= 0.1 < got[4]  # the printed calibration is certified up to d = 4 only
    req = t9.chain_required_noise_by_dimension(0.1, M=2, ds=[1, 3, 9])
    np.testing.assert_allclose(req, [257.05, 1223.87, 60760.4], rtol=1e-4)


@pytest.mark.parametrize("M", [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0])
def test_d1_never_weaker_than_the_printed_guarantees(M):
    """S10: at d = 1 the corrected chain is at most Theorem 9's 7.5 c^(-M/(M+2)) and, for
    M >= 2, Corollary 14's 6.16 c^(-M/(M+2)) and equation (13), at every c."""
    cs = np.exp(np.linspace(0.05, 60.0, 120))
    ours = np.asarray(t9.chain_certified_eta(cs, M=M, d=1))
    k = M / (M + 2)
    assert np.all(ours <= np.minimum(0.5, 7.5 * cs**-k))
    if M >= 2:
        assert np.all(ours <= np.minimum(0.5, 6.16 * cs**-k))
    if M == 2:
        assert np.all(ours <= np.minimum(0.5, printed_eq13(cs)))
        fixed = [t9.chain_eta(c, M=2, d=1, alpha=0.5, gamma=0.5).eta for c in cs]
        assert np.all(np.asarray(fixed) <= np.minimum(0.5, printed_eq13(cs)))
    # strictly better where the printed bound is informative
    informative = 7.5 * cs**-k < 0.4
    assert np.all(ours[informative] < 7.5 * cs[informative] ** -k)


def test_printed_theorem9_constants_reproduce_with_the_correct_tail_in_d1():
    """S10: the paper's (12) with the two-sided tail and a single bad event stays below its
    own final line 1/2 + 7.5 c^(-M/(M+2)), using its own linearised Δ."""
    for M in (1.0, 2.0, 4.0):
        alpha, gamma = 2 / (M + 2), M / (M + 2)
        for c in np.exp(np.linspace(3.0, 40.0, 40)):
            kappa = M / (M + 2)
            if 7.5 * c**-kappa >= 0.5:
                continue
            delta_printed = 9 * c**-kappa  # (11), with the exponent M alpha - gamma
            single_event = c**-M + E * c**-gamma  # S8 with the correct tail e^-y
            assert delta_printed / 2 + single_event <= 7.5 * c**-kappa
            t = t9.chain_eta(c, M=M, d=1, alpha=alpha, gamma=gamma)
            assert t.delta <= delta_printed
            assert t.bad_probability <= single_event * (1 + 1e-12)  # y = γ log c − 1 rounds


# --------------------------------------------------------------------------- S7: the radius law


@pytest.mark.parametrize("d", [1, 2, 3, 5, 12, 100])
def test_gamma_tail_matches_scipy_stats_and_closed_form(d):
    x = np.linspace(0.0, 4.0 * d + 20.0, 57)
    np.testing.assert_allclose(t9.gamma_radius_tail(x, d), stats.gamma.sf(x, d), rtol=1e-12)
    if d <= 12:  # e^-x Σ_{j<d} x^j/j!
        series = np.exp(-x) * sum(x**j / math.factorial(j) for j in range(d))
        np.testing.assert_allclose(t9.gamma_radius_tail(x, d), series, rtol=1e-12)


def test_gamma_tail_deep_values_against_mpmath():
    import mpmath

    for d, x in [(1, 700.0), (3, 500.0), (9, 300.0), (1, 37000.0), (4, 2000.0)]:
        exact = mpmath.log(mpmath.gammainc(d, x, mpmath.inf, regularized=True))
        assert t9.log_gamma_radius_tail(x, d) == pytest.approx(float(exact), rel=1e-13)
        q = t9.gamma_radius_tail(x, d)
        assert q == pytest.approx(float(mpmath.exp(exact)), rel=1e-12, abs=0.0) or (
            q == 0.0 and float(exact) < -740
        )
    assert t9.log_gamma_radius_tail(math.inf, 2) == -math.inf


def test_gamma_tail_is_the_radius_law_by_integrating_the_density_in_2d():
    """S7 from scratch: P(||X|| > t) for density ∝ exp(-||x||) by 2-D quadrature, for
    Corollary 10's norm (M = 2, σ = (1, 3): an ellipse) and for the max norm (a square).
    Each domain is cut so the integrand is smooth on every piece (quadrature error < 1e-10)."""
    sig = np.array([1.0, 3.0])
    opts = {"epsabs": 1e-11, "epsrel": 1e-11}

    def mass_ellipse(t):  # ∫ e^-||x|| over ||x|| <= t: 4 × the first quadrant (symmetry);
        a = t * sig[0] * math.sqrt(2.0)  # x1 = a sin(phi) removes the sqrt edge

        def integrand(x2, phi):
            x1 = a * math.sin(phi)
            return math.exp(-math.sqrt(((x1 / sig[0]) ** 2 + (x2 / sig[1]) ** 2) / 2.0)) * (
                a * math.cos(phi)
            )

        def half_width(phi):
            return sig[1] * math.sqrt(2.0) * t * math.cos(phi)

        val, _ = integrate.dblquad(integrand, 0.0, math.pi / 2, 0.0, half_width, **opts)
        return 4.0 * val

    def mass_square(t):  # 4 quadrants, each cut along the diagonal where max() has its kink
        below, _ = integrate.dblquad(lambda x2, x1: math.exp(-x1), 0, t, 0, lambda x1: x1, **opts)
        above, _ = integrate.dblquad(lambda x2, x1: math.exp(-x2), 0, t, lambda x1: x1, t, **opts)
        return 4.0 * (below + above)

    for mass in (mass_ellipse, mass_square):
        total = mass(60.0)  # the rest is below e^-55
        for t in (0.5, 1.5, 3.0, 6.0):
            tail = 1.0 - mass(t) / total
            assert tail == pytest.approx(t9.gamma_radius_tail(t, 2), abs=1e-9)
            # and it is not the one-dimensional (Laplace) tail the printed proof uses
            assert tail > 1.2 * math.exp(-t)


@pytest.mark.parametrize(("d", "M"), [(1, 2), (2, 2), (3, 4), (9, 2)])
def test_gamma_tail_matches_the_sampler_radius(d, M):
    """Monte Carlo of mechanism.sample_noise (default radius): ||X||_{σ,M}/c ~ Gamma(d, 1).
    DKW: P(sup |F_n − F| > ε) <= 2 exp(−2 n ε²); ε at level 1e-4."""
    n = 20_000
    sig = np.linspace(0.5, 2.0, d)
    eta = 0.3
    c = mip_noise_multiplier(eta, M)
    x = sample_noise(sig, eta, M, size=n, rng=1234 + d)
    radius = np.sort(sigma_norm(x, sig, M) / c)
    eps = math.sqrt(math.log(2 / 1e-4) / (2 * n))
    grid = np.quantile(radius, np.linspace(0.01, 0.99, 50))
    emp_sf = 1.0 - np.searchsorted(radius, grid, side="right") / n
    assert np.max(np.abs(emp_sf - t9.gamma_radius_tail(grid, d))) <= eps
    if d >= 2:  # the same check rejects the printed Laplace radius (it can fail)
        xp = sample_noise(sig, eta, M, size=n, rng=99, calibration="as_printed")
        rp = np.sort(sigma_norm(xp, sig, M) / c)
        emp_p = 1.0 - np.searchsorted(rp, grid, side="right") / n
        assert np.max(np.abs(emp_p - t9.gamma_radius_tail(grid, d))) > eps


def test_factor_half_slip_in_the_d1_tail():
    """S7: the printed ½ e^-t/b is the one-sided Laplace tail; |X| has tail e^-t/b, and for
    ||A(D)|| = cσ the exact P(|A(D) + X| > R) = cosh(1) e^-R/b exceeds the printed (e/2) e^-R/b."""
    b = 7.0
    for t in (0.5, 3.0, 11.0):
        two_sided = 2 * stats.laplace.sf(t, scale=b)
        assert two_sided == pytest.approx(t9.gamma_radius_tail(t / b, 1), rel=1e-12)
        assert stats.laplace.sf(t, scale=b) == pytest.approx(0.5 * math.exp(-t / b), rel=1e-12)
    for R in (2 * b, 5 * b):
        exact = stats.laplace.sf(R - b, scale=b) + stats.laplace.cdf(-R - b, scale=b)
        assert exact == pytest.approx(math.cosh(1.0) * math.exp(-R / b), rel=1e-12)
        assert exact > 0.5 * math.exp(-(R - b) / b)  # the printed per-half bound fails


# --------------------------------------------------------------------------- S2-S6 on atoms

_CONSTANTS = [(5.0, 0.5, 0.5), (20.0, 0.6, 0.7), (100.0, 0.55, 1.0), (30.0, 0.3, 0.4)]


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("M", [1.0, 2.0, 4.0])
def test_s2_counting_bound(d, M):
    rng = np.random.default_rng(int(10 * M) + d)
    norm = sigma_unit_norm(d, M)
    for a_in, a_out in atom_families(rng, d, M, norm):
        for c, alpha, gamma in _CONSTANTS:
            t = t9.chain_eta(c, M=M, d=d, alpha=alpha, gamma=gamma)
            for side in (a_in, a_out):
                assert np.mean(norm(side) > t.inner_radius) <= t.inner_fraction + 1e-12
            for s in (0.5, 1.0, 2.0, 7.0):  # S2 at any radius, '>=' included
                share = np.mean(norm(a_in) >= s)
                assert share <= min(1.0, 2 * s**-M) + 1e-12


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("M", [1.0, 2.0, 4.0])
def test_s3_to_s6_posterior_ratio_bounds_on_the_ball(d, M):
    """F from the atoms (S1) against L1 (S3), L2 (S4), 1/F (S5) and the posterior (S6)."""
    rng = np.random.default_rng(100 + int(10 * M) + d)
    norm = sigma_unit_norm(d, M)
    checked = 0
    for a_in, a_out in atom_families(rng, d, M, norm):
        for c, alpha, gamma in _CONSTANTS:
            t = t9.chain_eta(c, M=M, d=d, alpha=alpha, gamma=gamma)
            r, R = t.inner_radius, t.outer_radius
            inner = points_at_radii(rng, d, [0.0, 0.3 * r, r], norm)
            ring = points_at_radii(rng, d, np.linspace(r, R, 6)[1:], norm) if r < R else None
            for pts, bound in ((inner, t.ratio_bound_inner), (ring, t.ratio_bound_outer)):
                if pts is None:
                    continue
                lf = log_ratio(pts, a_in, a_out, c, norm)
                lf_rev = log_ratio(pts, a_out, a_in, c, norm)
                assert bound > 0 and t.ratio_bound > 0
                assert np.all(lf >= math.log(bound) - 1e-12)  # S3 / S4
                # S5: both directions, with L = min(L1, L2)
                assert np.all(lf >= math.log(t.ratio_bound) - 1e-12)
                assert np.all(lf_rev >= math.log(t.ratio_bound) - 1e-12)
                # S6: the posterior of the better guess
                post = 1.0 / (1.0 + np.exp(-np.abs(lf)))
                assert np.all(post <= t.max_posterior + 1e-12)
                checked += pts.shape[0]
    assert checked > 1000


@pytest.mark.parametrize("d", [1, 2, 5, 40])
def test_s9_assembly_from_the_terms_on_a_grid(d):
    """Each field from its definition (S2-S9), recomputed here, on a grid of constants."""
    rng = np.random.default_rng(d)
    for _ in range(60):
        c = math.exp(rng.uniform(0.1, 40.0))
        M = float(rng.choice([1.0, 2.0, 3.5, 6.0]))
        alpha, gamma, beta = rng.uniform(-0.2, 1.2), rng.uniform(0.05, 3.0), rng.uniform(-0.5, 1.5)
        t = t9.chain_eta(c, M=M, d=d, alpha=alpha, gamma=gamma, beta=beta)
        lc = math.log(c)
        r, R, tau = c**alpha, gamma * c * lc, c**beta
        q = min(1.0, 2 * r**-M)
        l1 = (1 - q) * math.exp(-2 * r / c)
        l2 = (1 - q) * math.exp(-r / c) / (math.exp(r / c) + 2 * q * math.exp(R / c))
        big_l = min(l1, l2) if r < R else l1
        m = 1 / (1 + big_l)
        w = min(1.0, tau**-M)
        y = (R - tau) / c
        tail = float(stats.gamma.sf(y, d)) if y > 0 else 1.0
        p = w + (1 - w) * tail
        eta = min(0.5, (m - 0.5) + (1 - m) * p)
        got = (t.inner_fraction, t.ratio_bound_inner, t.ratio_bound_outer, t.ratio_bound)
        np.testing.assert_allclose(got, (q, l1, l2, big_l), rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(
            (t.max_posterior, t.split_fraction, t.noise_tail, t.bad_probability),
            (m, w, tail, p),
            rtol=1e-9,
            atol=1e-300,
        )
        assert t.delta == pytest.approx(1 - big_l, rel=1e-9, abs=1e-15)
        assert t.eta == pytest.approx(eta, rel=1e-8, abs=1e-15)
        assert t.eta >= eta * (1 - 1e-14)  # rounded up
        assert t.vacuous == (t.eta >= 0.5)


# --------------------------------------------------------------------------- S8: the bad event


@pytest.mark.parametrize("M", [1.0, 2.0, 6.0])
def test_s8_bad_event_exact_in_d1(M):
    """P(|θ + X| > R) over a uniform half, from scipy.stats.laplace, against p."""
    rng = np.random.default_rng(7 + int(M))
    norm = sigma_unit_norm(1, M)
    fams = atom_families(rng, 1, M, norm)
    for c, gamma, beta in [(5.0, 1.0, 0.3), (20.0, 0.8, 0.5), (80.0, 1.2, 0.9), (20.0, 2.0, 0.1)]:
        t = t9.chain_eta(c, M=M, d=1, alpha=0.5, gamma=gamma, beta=beta)
        tau, R = t.split_radius, t.outer_radius
        # adversarial: the largest share the moment allows just inside tau, balanced at the mean
        share = min(0.5, tau**-M)
        two = np.array([tau * 0.999, -tau * 0.999 * share / (1 - share)])
        wts = np.array([share, 1 - share])
        two /= max(1.0, float(np.average(np.abs(two) ** M, weights=wts)) ** (1 / M))
        cases = [(np.concatenate(f)[:, 0], None) for f in fams] + [(two, wts)]
        for a, weights in cases:
            assert np.average(np.abs(a) ** M, weights=weights) <= 1 + 1e-9  # σ = 1
            prob = stats.laplace.sf(R - a, scale=c) + stats.laplace.cdf(-R - a, scale=c)
            assert float(np.average(prob, weights=weights)) <= t.bad_probability + 1e-12


def test_s8_bad_event_monte_carlo_in_d2():
    """d = 2, atoms at ±u (radius 1 in Corollary 10's norm), noise from sample_noise:
    P(||θ̂|| > R) against p with a Hoeffding tolerance at level 1e-3. With these constants
    p ≈ 0.28 and the estimate ≈ 0.26: the one-dimensional tail (p ≈ 0.08) or the printed ½
    (p ≈ 0.15) would fail."""
    M, eta = 2, 0.45
    sig = np.array([1.0, 2.0])
    c = mip_noise_multiplier(eta, M)
    t = t9.chain_eta(c, M=M, d=2, alpha=0.5, gamma=0.5, beta=0.5)
    n = 20_000
    x = sample_noise(sig, eta, M, size=n, rng=2024)
    u = np.array([sig[0] * math.sqrt(2.0), 0.0])  # ||u||_{σ,2} = 1
    assert sigma_norm(u, sig, M) == pytest.approx(1.0)
    atoms = np.where(np.arange(n)[:, None] % 2 == 0, u, -u)
    est = float(np.mean(sigma_norm(atoms + x, sig, M) > t.outer_radius))
    tol = math.sqrt(math.log(2 / 1e-3) / (2 * n))
    assert est - tol <= t.bad_probability
    assert est + tol >= 0.8 * t.bad_probability  # the bound is nearly attained here
    assert 1 - (1 - t.split_fraction) * (1 - math.exp(-t.tail_argument)) < est - tol


# --------------------------------------------------------------------------- S9: end to end


@pytest.mark.parametrize("M", [2.0, 6.0])
@pytest.mark.parametrize("c", [10.0, 30.0, 100.0])
def test_s9_exact_attack_never_beats_the_chain_d1(M, c):
    """The exact optimal attacker (Proposition 2) on unit-moment atoms with Laplace(c)
    noise, against the chain at the optimal and at Corollary 14's constants."""
    rng = np.random.default_rng(int(c) + int(M))
    norm = sigma_unit_norm(1, M)
    cert = t9.chain_certified_eta(c, M=M, d=1)
    fixed = t9.chain_eta(c, M=M, d=1, alpha=0.5, gamma=0.5).eta
    worst = 0.0
    for a_in, a_out in atom_families(rng, 1, M, norm, n_random=6):
        eta = optimal_attack(a_in[:, 0], a_out[:, 0], ("laplace", c)).eta
        worst = max(worst, eta)
    for L in np.geomspace(0.05, 50.0, 12):  # one in-atom at +L, the rest at 0 (then σ = 1)
        z = centred_unit_moment(np.r_[L, np.zeros(7)][:, None], M, norm)
        eta = optimal_attack(z[:4, 0], z[4:, 0], ("laplace", c)).eta
        worst = max(worst, eta)
    assert worst <= cert <= fixed
    assert worst > 0.0


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12])
@pytest.mark.parametrize("M", [2, 4])
def test_brute_force_prop11_exact_eta_below_certificate(n, M):
    """d = 1: the exact η of the Proposition 11 mechanism plus Laplace(c σ_M) noise is at
    most certified_eta(c) -- at the noise the certificate asks for η = 0.3 and 0.1, and at
    the app's Corollary 14 noise."""
    sig = output_moments(n, M).sigma
    cs = [t9.chain_required_noise_multiplier(0.3, M=M, d=1), 0.5 * mip_noise_multiplier(0.3, M)]
    cs.append(mip_noise_multiplier(0.1, M))
    true = np.atleast_1d(prop11_true_eta(n, np.array(cs) * sig, "laplace"))
    cert = np.asarray(t9.chain_certified_eta(np.array(cs), M=M, d=1))
    assert np.all(true <= cert)
    assert np.all(true > 0)


def test_brute_force_d2_mean_release_monte_carlo():
    """d = 2: mean of 3 of 6 records in R² (one outlier), Theorem 9 noise (Gamma radius) at
    the Corollary 14 noise for η = 0.45 and 0.3: the 99 % interval's lower end of the
    optimal attacker's accuracy is at most 1/2 + certified_eta."""
    records = np.array([[0.0, 0.0], [1.0, 0.5], [-0.5, 1.0], [0.3, -0.8], [-1.0, -0.2]])
    records = np.vstack([records, [[6.0, 4.0]]])  # the target x* (index 5)
    halves = list(itertools.combinations(range(6), 3))
    means = np.array([records[list(h)].mean(axis=0) for h in halves])
    has = np.array([5 in h for h in halves])
    M = 2
    sig = np.mean(np.abs(means - means.mean(axis=0)) ** M, axis=0) ** (1 / M)
    for eta_app in (0.45, 0.3):
        law = NoiseLaw.mip(eta_app, sig, M)
        c = mip_noise_multiplier(eta_app, M)
        cert = t9.chain_certified_eta(c, M=M, d=2)
        assert cert < 0.5
        acc, lo, hi = optimal_attack_accuracy_mc(
            means[has], means[~has], law, samples=20_000, rng=5, confidence=0.99
        )
        assert lo <= acc <= hi
        assert lo <= 0.5 + cert


# --------------------------------------------------------------------------- properties


@settings(max_examples=30, deadline=None)
@given(
    st.floats(min_value=0.0, max_value=60.0),
    st.floats(min_value=0.0, max_value=10.0),
    st.sampled_from([1.0, 1.5, 2.0, 3.0, 4.0, 6.0]),
    st.integers(min_value=1, max_value=30),
)
def test_monotone_in_noise(log_c, log_factor, M, d):
    c = math.exp(log_c)
    lo = t9.chain_certified_eta(c, M=M, d=d)
    hi = t9.chain_certified_eta(c * math.exp(log_factor), M=M, d=d)
    assert 0.0 < hi <= 0.5 and 0.0 < lo <= 0.5
    assert hi <= lo * (1 + MONO_RTOL)


@settings(max_examples=30, deadline=None)
@given(
    st.floats(min_value=0.0, max_value=60.0),
    st.sampled_from([1.0, 2.0, 4.0, 6.0]),
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=1, max_value=10),
)
def test_monotone_in_dimension(log_c, M, d, extra):
    c = math.exp(log_c)
    small = t9.chain_certified_eta(c, M=M, d=d)
    big = t9.chain_certified_eta(c, M=M, d=d + extra)
    assert big >= small * (1 - MONO_RTOL)


@settings(max_examples=8, deadline=None)
@given(
    st.floats(min_value=0.005, max_value=0.49),
    st.floats(min_value=1.0, max_value=8.0),
    st.integers(min_value=1, max_value=12),
)
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_inverse_round_trip(eta, M, d):
    c = t9.chain_required_noise_multiplier(eta, M=M, d=d)
    assert math.isfinite(c) and c > 1
    assert t9.chain_certified_eta(c, M=M, d=d) <= eta
    assert t9.chain_certified_eta(c * (1 - 1e-9), M=M, d=d) > eta


def test_vectorised_and_scalar_agree_and_optimal_chain_is_what_is_returned():
    cs = np.array([[3.0, 50.0], [3794.56, 1e6]])
    ds = np.array([1, 4])
    got = t9.chain_certified_eta(cs, M=2, d=ds)
    assert got.shape == (2, 2)
    for i, j in itertools.product(range(2), range(2)):
        one = t9.chain_certified_eta(float(cs[i, j]), M=2, d=int(ds[j]))
        assert isinstance(one, float)
        assert got[i, j] == pytest.approx(one, rel=1e-13)
        ch = t9.optimal_chain(float(cs[i, j]), M=2, d=int(ds[j]))
        assert ch.eta == one
        # the optimiser's point, re-evaluated through the public chain, is the value returned
        again = t9.chain_eta(
            ch.noise_multiplier, M=2, d=ch.d, alpha=ch.alpha, gamma=ch.gamma, beta=ch.beta
        )
        assert again.eta == ch.eta


@pytest.mark.parametrize(("c", "M", "d"), [(50.0, 2.0, 3), (3794.56, 2.0, 9), (1e12, 6.0, 20)])
def test_optimiser_is_within_tolerance_of_a_brute_force_grid(c, M, d):
    ch = t9.optimal_chain(c, M=M, d=d)
    best = math.inf
    for span in (0.3, 0.03, 0.003):
        a = np.linspace(ch.alpha - span, ch.alpha + span, 9)
        g = np.linspace(ch.gamma * (1 - span), ch.gamma * (1 + span), 9)
        b = np.linspace(ch.beta - span, ch.beta + span, 9)
        for ai, gi, bi in itertools.product(a, g, b):
            best = min(best, t9.chain_eta(c, M=M, d=d, alpha=ai, gamma=gi, beta=bi).eta)
    assert ch.eta <= best * (1 + 1e-10)


def test_chart_helpers():
    got = t9.chain_certified_eta_by_dimension([100.0, 1e4], M=4, ds=[1, 2, 5])
    assert got.shape == (2, 3)
    assert got[1, 2] == pytest.approx(t9.chain_certified_eta(1e4, M=4, d=5), rel=1e-13)
    req = t9.chain_required_noise_by_dimension(0.2, M=4, ds=[1, 3])
    assert req.shape == (2,)
    assert req[1] == t9.chain_required_noise_multiplier(0.2, M=4, d=3)
    assert np.all(np.diff(req) > 0)


def test_edges_are_numbers_not_nan():
    assert t9.chain_certified_eta(1.0, M=2, d=1) == 0.5
    assert t9.chain_certified_eta(1e-300, M=2, d=1) == 0.5
    assert t9.optimal_chain(0.5, M=2, d=1).vacuous
    for c in (1.0000001, 1e308):
        for M in (1.0, 1e6):
            for d in (1, t9.D_MAX):
                e = t9.chain_certified_eta(c, M=M, d=d)
                assert 0.0 < e <= 0.5
    assert t9.chain_certified_eta(1e300, M=2, d=1) < 1e-140
    assert t9.chain_required_noise_multiplier(0.1, M=2, d=2000) == math.inf


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: t9.chain_certified_eta(0.0, M=2, d=1), "noise_multiplier"),
        (lambda: t9.chain_certified_eta(math.nan, M=2, d=1), "noise_multiplier"),
        (lambda: t9.chain_certified_eta(math.inf, M=2, d=1), "noise_multiplier"),
        (lambda: t9.chain_certified_eta(10.0, M=0.5, d=1), "M"),
        (lambda: t9.chain_certified_eta(10.0, M=2, d=0), "d"),
        (lambda: t9.chain_certified_eta(10.0, M=2, d=1.5), "d"),
        (lambda: t9.chain_certified_eta(10.0, M=2, d=True), "d"),
        (lambda: t9.chain_certified_eta(10.0, M=2, d=t9.D_MAX + 1), "d"),
        (lambda: t9.chain_required_noise_multiplier(0.0, M=2, d=1), "eta"),
        (lambda: t9.chain_required_noise_multiplier(0.5, M=2, d=1), "eta"),
        (lambda: t9.chain_required_noise_multiplier(-1.0, M=2, d=1), "eta"),
        (lambda: t9.chain_required_noise_multiplier(0.1, M=0.99, d=1), "M"),
        (lambda: t9.chain_required_noise_multiplier(0.1, M=2, d=-3), "d"),
        (lambda: t9.chain_eta(10.0, M=2, d=1, alpha=math.nan, gamma=0.5), "alpha"),
        (lambda: t9.chain_eta(10.0, M=2, d=1, alpha=0.5, gamma=0.0), "gamma"),
        (lambda: t9.chain_eta(10.0, M=2, d=1, alpha=0.5, gamma=0.5, beta=math.inf), "beta"),
        (lambda: t9.chain_eta(-1.0, M=2, d=1, alpha=0.5, gamma=0.5), "noise_multiplier"),
        (lambda: t9.chain_eta(10.0, M=1e-3, d=1, alpha=0.5, gamma=0.5), "M"),
        (lambda: t9.chain_eta(10.0, M=2, d=2.5, alpha=0.5, gamma=0.5), "d"),
        (lambda: t9.optimal_chain(10.0, M=2, d=0), "d"),
        (lambda: t9.optimal_chain(0.0, M=2, d=1), "noise_multiplier"),
        (lambda: t9.optimal_chain(10.0, M=0.0, d=1), "M"),
        (lambda: t9.gamma_radius_tail(-1.0, 2), "x"),
        (lambda: t9.gamma_radius_tail(1.0, 0), "d"),
        (lambda: t9.log_gamma_radius_tail(math.nan, 2), "x"),
        (lambda: t9.log_gamma_radius_tail(1.0, 1.5), "d"),
        (lambda: t9.chain_certified_eta_by_dimension(10.0, M=2, ds=[]), "ds"),
        (lambda: t9.chain_certified_eta_by_dimension(10.0, M=2, ds=[[1, 2]]), "ds"),
        (lambda: t9.chain_certified_eta_by_dimension(10.0, M=2, ds=[0, 2]), "ds"),
        (lambda: t9.chain_certified_eta_by_dimension(-1.0, M=2, ds=[1]), "noise_multiplier"),
        (lambda: t9.chain_certified_eta_by_dimension(10.0, M=0.5, ds=[1]), "M"),
        (lambda: t9.chain_required_noise_by_dimension(0.7, M=2, ds=[1]), "eta"),
        (lambda: t9.chain_required_noise_by_dimension(0.1, M=0.5, ds=[1]), "M"),
        (lambda: t9.chain_required_noise_by_dimension(0.1, M=2, ds=[2.5]), "ds"),
    ],
)
def test_bad_input_raises_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}="):
        call()


# --------------------------------------------------------------------------- T1-T4: (1 − e^{−1/c})/2


@pytest.mark.parametrize("c", [0.2, 1.0, 2.5, 4.48, 37.0, 3794.56, 1e6])
def test_dimension_free_certificate_matches_its_closed_form(c):
    """(1 − e^{−1/c})/2 and its inverse −1/ln(1 − 2η), against 50-digit arithmetic."""
    with mpmath.workdps(50):
        exact = (1 - mpmath.exp(-1 / mpmath.mpf(c))) / 2
        assert t9.certified_eta(c, M=2, d=9) == pytest.approx(float(exact), rel=1e-12, abs=0)
        eta = 0.5 * c / (1 + c)  # any target in (0, 1/2)
        inverse = -1 / mpmath.log(1 - 2 * mpmath.mpf(eta))
        got = t9.required_noise_multiplier(eta, M=2, d=9)
        assert got == pytest.approx(float(inverse), rel=1e-12, abs=0)


@pytest.mark.parametrize("c", [1.0, 2.5, 4.93, 37.0, 3794.56, 1e6])
def test_dimension_free_certificate_known_values_and_inverse(c):
    eta = t9.certified_eta(c, M=2, d=9)
    assert eta == pytest.approx(-0.5 * math.expm1(-1.0 / c), rel=1e-15)
    assert eta < 0.5 * math.tanh(1.0 / c)  # tighter than the ε-DP route's ½ tanh(1/c)
    assert eta == t9.certified_eta(c, M=1, d=1) == t9.tv_certified_eta(c)  # M, d: no effect
    back = t9.required_noise_multiplier(eta, M=2, d=3)
    assert back == pytest.approx(c, rel=1e-12)
    assert t9.certified_eta(back, M=2, d=3) <= eta  # the inverse rounds up


@settings(max_examples=200, deadline=None)
@given(st.floats(0.001, 0.499))
def test_required_noise_is_the_smallest_that_certifies(eta):
    c = t9.required_noise_multiplier(eta, M=2, d=4)
    assert t9.certified_eta(c, M=2, d=4) <= eta
    assert t9.certified_eta(c * (1 - 1e-9), M=2, d=4) > eta


def test_the_certified_minimum_against_dp_and_the_printed_noise_at_eta_0_1():
    """The Proposition 11 page's comparison at η = 0.1, σ = 1, Δ = 10⁶: printed (61.6)² =
    3794.56, certified −1/ln(0.8) = 4.4814, 847 times less; DP's Δ/ln(1.5) over the certified
    minimum is (Δ/σ)·ln(1/0.8)/ln(1.5) (all from their definitions, at 40 digits)."""
    with mpmath.workdps(40):
        eta = mpmath.mpf("0.1")
        dp = float(mpmath.mpf(10**6) / mpmath.log((1 + 2 * eta) / (1 - 2 * eta)))
        printed = float((mpmath.mpf("6.16") / eta) ** 2)
        cert = float(1 / -mpmath.log(1 - 2 * eta))
    c = t9.required_noise_multiplier(0.1, M=2, d=1)
    assert dp_laplace_scale(0.1, 1e6) == pytest.approx(dp, rel=1e-14)
    assert mip_noise_multiplier(0.1, 2) == pytest.approx(printed, rel=1e-14)
    assert c == pytest.approx(cert, rel=1e-14) and round(c, 4) == 4.4814
    assert round(mip_noise_multiplier(0.1, 2) / c) == 847
    ratio = dp_laplace_scale(0.1, 1e6) / c
    assert ratio == pytest.approx(1e6 * math.log(1 / 0.8) / math.log(1.5), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    eta=st.floats(1e-4, 0.4999),
    delta=st.floats(1e-3, 1e30),
    sigma=st.floats(1e-3, 1e20),
    M=st.integers(2, 8),
)
def test_dp_needs_between_delta_over_two_sigma_and_delta_over_sigma_times_the_minimum(
    eta, delta, sigma, M
):
    """DP needs (Δ/σ)·ln(1/(1 − 2η))/ln((1 + 2η)/(1 − 2η)) times the certified minimum:
    between Δ/(2σ) (η → 0) and Δ/σ (η → 1/2); the printed noise is always above the minimum,
    and the minimum certifies η exactly: η = (1 − e^{−1/c})/2."""
    c = t9.required_noise_multiplier(eta, M=M, d=1)
    dp_over_certified = dp_laplace_scale(eta, delta) / (c * sigma)
    ratio = delta / sigma * math.log1p(-2 * eta) / -math.log((1 + 2 * eta) / (1 - 2 * eta))
    assert dp_over_certified == pytest.approx(ratio, rel=1e-9)
    assert delta / (2 * sigma) * (1 - 1e-9) <= dp_over_certified <= delta / sigma * (1 + 1e-9)
    assert mip_noise_multiplier(eta, M) / c > 1.0
    assert -0.5 * math.expm1(-1 / c) == pytest.approx(eta, rel=1e-12)


def test_the_dimension_free_bound_is_never_above_the_chain():
    """The repaired chain is a valid but weaker certificate (T1-T4 beat it everywhere)."""
    cs = np.geomspace(1.5, 1e9, 40)
    for M in (1.0, 2.0, 6.0):
        for d in (1, 2, 9):
            chain = np.asarray(t9.chain_certified_eta(cs, M=M, d=d))
            assert np.all(np.asarray(t9.certified_eta(cs, M=M, d=d)) <= chain)


@pytest.mark.parametrize("eta", [0.01, 0.05, 0.1, 0.2, 0.3, 0.45, 0.49])
@pytest.mark.parametrize("M", [2, 4, 6])
def test_corollary_14_statement_holds_in_every_dimension(eta, M):
    """The printed proof covers d = 1 only, but the printed noise is certified for every d."""
    c = mip_noise_multiplier(eta, M)
    for d in (1, 2, 9, 400):
        assert t9.certified_eta(c, M=M, d=d) <= eta


@pytest.mark.parametrize("c", [0.3, 1.0, 3.0, 10.0, 100.0, 1000.0])
def test_the_two_point_mechanism_attains_the_certificate_exactly(c):
    """θ = +σ when the target is in, −σ when out (E|θ − Eθ| = σ), Laplace(cσ) noise: the exact
    optimal attack (Proposition 2) reaches (1 − e^{−1/c})/2 -- the certificate, to 1e-12. No
    bound of the form f(c) can be smaller."""
    sigma = 1.7
    exact = optimal_attack([sigma], [-sigma], NoiseLaw.laplace(c * sigma)).eta
    bound = t9.certified_eta(c, M=2, d=1)
    assert exact == pytest.approx(bound, rel=1e-12, abs=1e-15)
    # the ε-DP route's ½ tanh(1/c) is above it by exactly ½ e^{−x}(1 − e^{−x})²/(1 + e^{−2x})
    x = 1.0 / c
    gap = 0.5 * math.exp(-x) * math.expm1(-x) ** 2 / (1.0 + math.exp(-2.0 * x))
    assert 0.5 * math.tanh(x) - exact == pytest.approx(gap, rel=1e-6) and gap > 0


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12])
def test_exact_eta_of_proposition_11_never_exceeds_the_certificate(n):
    """Brute force: the exact optimal attack on Proposition 11 plus Laplace(cσ) noise."""
    sigma = float(output_moments(n, 2).sigma)
    for c in (0.5, 1.0, 2.0, 4.48, 20.0):
        exact = float(prop11_true_eta(n, c * sigma, "laplace"))
        assert exact <= t9.certified_eta(c, M=2, d=1)


def test_two_dimensional_release_respects_the_certificate():
    """A d = 2 mean of 3 of 6 records with Theorem 9's density: the lower end of the
    Monte Carlo optimum's 99 % interval stays below (1 − e^{−1/c})/2."""
    rng = np.random.default_rng(5)
    records = rng.normal(size=(6, 2)) * np.array([1.0, 0.3])
    records[0] = [4.0, -3.0]  # an outlier target
    halves = list(itertools.combinations(range(6), 3))
    outs = np.array([records[list(h)].mean(axis=0) for h in halves])
    member = np.array([0 in h for h in halves])
    sig = outs.std(axis=0)  # per-coordinate σ_i; ||·||_{σ,2} has E||θ − Eθ||² = 1
    for c in (1.0, 3.0):
        eta = t9.certified_eta(c, M=2, d=2)
        noise = NoiseLaw("mip", c, tuple(float(v) for v in sig), 2.0)
        _, lo, _ = optimal_attack_accuracy_mc(
            outs[member], outs[~member], noise, samples=100_000, rng=1, confidence=0.99
        )
        assert lo - 0.5 <= eta


@pytest.mark.parametrize(
    "bad", [dict(noise_multiplier=0.0), dict(noise_multiplier=-1.0), dict(noise_multiplier=np.nan)]
)
def test_certified_eta_refuses_bad_noise(bad):
    with pytest.raises(ValueError, match="noise_multiplier"):
        t9.certified_eta(bad["noise_multiplier"], M=2, d=1)


def test_contract_functions_refuse_bad_m_d_eta():
    with pytest.raises(ValueError, match="M="):
        t9.certified_eta(5.0, M=0.5, d=1)
    with pytest.raises(ValueError, match="d="):
        t9.certified_eta(5.0, M=2, d=0)
    with pytest.raises(ValueError, match="eta="):
        t9.required_noise_multiplier(0.5, M=2, d=1)
    with pytest.raises(ValueError, match="eta="):
        t9.required_noise_multiplier(0.0, M=2, d=1)


def test_required_noise_certifies_in_exact_arithmetic():
    """(1 − e^{−1/c})/2 <= η for the returned c in 50-digit arithmetic, not only in float64."""
    rng = np.random.default_rng(0)
    with mpmath.workdps(50):
        for eta in rng.uniform(0.0005, 0.4995, 2000):
            c = t9.required_noise_multiplier(float(eta), M=2, d=1)
            certified = (1 - mpmath.exp(-1 / mpmath.mpf(c))) / 2
            assert certified <= mpmath.mpf(float(eta))


# --------------------------------------------------------------------------- d = 2, 3: a brute force
# An independent check of T1-T4 (no mipcore code): releases in R^d with noise of density
# ∝ exp(−||x||_p/c) for p = 1, 2, ∞, σ = E||θ − Eθ||_p (the first moment, the weakest condition
# the certificate accepts). The optimal attacker's advantage TV(P_in*K, P_out*K) is estimated
# as E_Q[|p_in − p_out|/(p_in + p_out)] with Q = (P_in + P_out)/2*K: the integrand lies in
# [0, 1], so the 99.9 % interval is narrow; its lower end must stay at or below the bound.
# Sampling: ||X|| ~ Gamma(d, c) independent of X/||X||, which has the law of V/||V|| for V
# uniform in the unit ball of the norm (drawn from the cube by rejection).

NORMS = {"l1": 1, "l2": 2, "linf": np.inf}


def _noise(d: int, p: float, c: float, size: int, rng) -> np.ndarray:
    v = np.empty((0, d))
    while len(v) < size:
        u = rng.uniform(-1.0, 1.0, size=(2 * size, d))
        v = np.concatenate([v, u[np.linalg.norm(u, ord=p, axis=1) <= 1.0]])
    v = v[:size]
    r = rng.gamma(d, c, size=size)
    return v / np.linalg.norm(v, ord=p, axis=1)[:, None] * r[:, None]


def _log_kernel(y: np.ndarray, centres: np.ndarray, p: float, c: float) -> np.ndarray:
    """log of Σ_j exp(−||y − centre_j||/c) (the normaliser cancels in the ratio)."""
    dist = np.linalg.norm(y[:, None, :] - centres[None, :, :], ord=p, axis=2)
    return special.logsumexp(-dist / c, axis=1) - math.log(len(centres))


def _advantage(ins: np.ndarray, outs: np.ndarray, p: float, c: float, rng, size: int):
    """(estimate, lower end of its 99.9 % interval) of TV(P_in * K, P_out * K)."""
    side = rng.random(size) < 0.5
    pick_in = ins[rng.integers(len(ins), size=size)]
    pick_out = outs[rng.integers(len(outs), size=size)]
    y = np.where(side[:, None], pick_in, pick_out) + _noise(ins.shape[1], p, c, size, rng)
    li, lo = _log_kernel(y, ins, p, c), _log_kernel(y, outs, p, c)
    z = np.abs(np.tanh((li - lo) / 2.0))  # |p_in − p_out| / (p_in + p_out)
    mean, se = float(z.mean()), float(z.std(ddof=1) / math.sqrt(size))
    return mean, mean - stats.norm.ppf(0.9995) * se


def _scaled(ins: np.ndarray, outs: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray]:
    """The same release scaled so that σ = E||θ − Eθ||_p = 1 (in and out equally likely)."""
    both = np.concatenate([ins, outs])
    w = np.concatenate([np.full(len(ins), 0.5 / len(ins)), np.full(len(outs), 0.5 / len(outs))])
    mu = w @ both
    sigma = float(w @ np.linalg.norm(both - mu, ord=p, axis=1))
    return ins / sigma, outs / sigma


def _mechanisms(d: int):
    """Two-point releases along an axis, a diagonal and a random direction, and the mean of
    a random half of 6 records with an outlier (in: halves with the outlier)."""
    rng = np.random.default_rng(11 + d)
    yield "axis", np.eye(d)[:1], -np.eye(d)[:1]
    yield "diagonal", np.ones((1, d)), -np.ones((1, d))
    u = rng.normal(size=(1, d))
    yield "random", u, -u
    records = rng.normal(size=(6, d)) * np.linspace(1.0, 0.3, d)
    records[0] = 4.0
    halves = list(itertools.combinations(range(6), 3))
    means = np.array([records[list(h)].mean(axis=0) for h in halves])
    member = np.array([0 in h for h in halves])
    yield "mean of a half", means[member], means[~member]


@pytest.mark.parametrize("d", [2, pytest.param(3, marks=pytest.mark.slow)])  # 3-D: CI only
@pytest.mark.parametrize("norm", list(NORMS))
def test_no_release_beats_the_certificate_in_two_and_three_dimensions(d, norm):
    p = NORMS[norm]
    rng = np.random.default_rng(2024 + d)
    for name, ins, outs in _mechanisms(d):
        ins, outs = _scaled(ins, outs, p)
        for c in (0.5, 1.0, 3.0):
            estimate, lower = _advantage(ins, outs, p, c, rng, size=40_000)
            bound = 2.0 * t9.certified_eta(c, M=1, d=d)  # the advantage, 2η
            assert lower <= bound, (name, c, estimate, bound)


def test_the_l1_axis_release_attains_the_certificate_in_three_dimensions():
    """With ℓ1 noise the coordinates are independent Laplace(c): two points ±e₁ give the same
    advantage as in one dimension, exactly the bound. The brute force sees it (its interval
    holds the bound), which also shows that it can tell the bound from below."""
    rng = np.random.default_rng(7)
    ins, outs = np.eye(3)[:1], -np.eye(3)[:1]
    for c in (0.5, 1.0, 3.0):
        estimate, lower = _advantage(ins, outs, 1, c, rng, size=100_000)
        bound = 2.0 * t9.certified_eta(c, M=1, d=3)
        half_width = estimate - lower
        assert abs(estimate - bound) <= half_width, (c, estimate, bound)
