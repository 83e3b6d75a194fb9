"""Tests for mipcore.mace: MACE's estimators of the optimal membership advantage.

Liu, Xu, Mukherjee, Lavista Ferres, *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*, arXiv:2009.05683.

Ground truth is a Gaussian shift: members ~ N(μ, 1), non-members ~ N(0, 1), prior p. Then
``Adv_p = ∫|pφ(x−μ) − (1−p)φ(x)|`` in closed form (crossing point ``x* = μ/2 − λ/μ``),
cross-checked against Proposition 2's exact integral in ``mipcore.optimal_attack``. For the
histogram the binned target ``Σ_j |p P_j − (1−p) Q_j|`` is also exact (normal CDF).

Tolerances come from the sample size: McDiarmid's inequality for the plug-in (each sample
moves it by at most ``2p/N_1`` or ``2(1−p)/N_0``) at failure probability 1e-6, plus the
Cauchy–Schwarz bound ``sqrt(B (p²/N_1 + (1−p)²/N_0))`` on its bias; 5 standard deviations
for held-out averages.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mipcore.bounds import eta_from_epsilon
from mipcore.mace import (
    GAUSSIAN_KERNEL_MU,
    dp_advantage_bound,
    dp_privacy_loss_bound,
    heldout_advantage,
    histogram_estimate,
    histogram_loss_interval,
    kde_estimate,
    kde_loss_interval,
    lemma6_quantile,
    privacy_loss,
    units,
)
from mipcore.optimal_attack import optimal_attack, optimal_attack_accuracy_discrete

MU = 1.0


def true_advantage(mu, p):
    lam = math.log(p / (1 - p))
    xs = mu / 2 - lam / mu
    return p * (1 - 2 * stats.norm.cdf(xs - mu)) + (1 - p) * (2 * stats.norm.cdf(xs) - 1)


def binned_advantage(edges, mu, p):
    e = np.r_[-np.inf, edges, np.inf]
    P = np.diff(stats.norm.cdf(e - mu))
    Q = np.diff(stats.norm.cdf(e))
    return float(np.sum(np.abs(p * P - (1 - p) * Q)))


def draw(n, p_mu=MU, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(p_mu, 1.0, n), rng.normal(0.0, 1.0, n)


def plugin_tolerance(n1, n0, p, bins, fail=1e-6):
    bias = math.sqrt(bins * (p**2 / n1 + (1 - p) ** 2 / n0))
    sum_c2 = 4 * p**2 / n1 + 4 * (1 - p) ** 2 / n0
    return bias + math.sqrt(math.log(2 / fail) * sum_c2 / 2)


# --------------------------------------------------------------------------- ground truth


@pytest.mark.parametrize("p", [0.5, 0.2, 0.9])
def test_true_advantage_matches_proposition2(p):
    acc = optimal_attack([MU], [0.0], ("gaussian", 1.0), prior=p).accuracy
    assert 2 * acc - 1 == pytest.approx(true_advantage(MU, p), abs=1e-14)


# --------------------------------------------------------------------------- DP bounds


def test_tanh_bound_paper_values():
    # MACE: eps = 1 gives Adv <= 0.462; Figure 6: tanh(2/2) = 0.762, tanh(10/2) = 0.999
    assert round(dp_privacy_loss_bound(1.0), 3) == 0.462
    assert round(dp_privacy_loss_bound(2.0), 3) == 0.762
    assert round(dp_privacy_loss_bound(10.0), 3) == 1.000 and dp_privacy_loss_bound(10.0) < 1
    assert dp_privacy_loss_bound(0.0) == 0.0
    assert dp_privacy_loss_bound(math.inf, 0.3) == 1.0
    with pytest.raises(ValueError, match="epsilon"):
        dp_privacy_loss_bound(-0.1)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 30), st.floats(0.01, 0.99))
def test_tanh_bound_identity_and_attainment(eps, p):
    lam = math.log(p / (1 - p))
    b = dp_privacy_loss_bound(eps, p)
    assert b == pytest.approx(math.tanh((eps + abs(lam)) / 2), abs=1e-12)
    # attained by randomised response: the two outputs have log-likelihood ratios ±eps
    f_vals = [privacy_loss(math.exp(e), 1.0, p) for e in (eps, -eps)] if eps < 700 else [b]
    assert max(abs(f) for f in f_vals) == pytest.approx(b, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 20), st.floats(0.01, 0.99), st.floats(0, 1))
def test_dp_advantage_bound_consistency(eps, p, delta):
    adv = dp_advantage_bound(eps, p, delta)
    # p = 1/2: twice Theorem 4's eta
    assert dp_advantage_bound(eps, 0.5, delta) == pytest.approx(
        2 * eta_from_epsilon(eps, delta), abs=1e-12
    )
    # at delta = 0 never above the per-instance tanh bound
    assert dp_advantage_bound(eps, p) <= dp_privacy_loss_bound(eps, p) + 1e-12
    # attained by the canonical (eps, delta) pair (Proposition 2 on four outputs, prior p)
    hi, lo = 1 / (1 + math.exp(-eps)), 1 / (1 + math.exp(eps))
    P = [delta, 0.0, (1 - delta) * hi, (1 - delta) * lo]
    Q = [0.0, delta, (1 - delta) * lo, (1 - delta) * hi]
    acc = optimal_attack_accuracy_discrete(P, Q, prior=p)
    assert 2 * acc - 1 == pytest.approx(adv, abs=1e-12)


@pytest.mark.parametrize("p", [0.5, 0.1, 0.7])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_dp_advantage_bound_holds_for_laplace_and_gaussian_mechanisms(p, eps):
    # Laplace mechanism with sensitivity 1 and scale 1/eps is eps-DP
    acc = optimal_attack([1.0], [0.0], ("laplace", 1 / eps), prior=p).accuracy
    assert 2 * acc - 1 <= dp_advantage_bound(eps, p) + 1e-12
    # Gaussian mechanism (sensitivity 1, std s): exact delta(eps) of Balle & Wang (2018)
    s = 1.0
    delta = stats.norm.cdf(-eps * s + 1 / (2 * s)) - math.exp(eps) * stats.norm.cdf(
        -eps * s - 1 / (2 * s)
    )
    acc = optimal_attack([1.0], [0.0], ("gaussian", s), prior=p).accuracy
    assert 2 * acc - 1 <= dp_advantage_bound(eps, p, max(delta, 0.0)) + 1e-12


def test_privacy_loss_and_quantile():
    assert privacy_loss(0.0, 0.0, 0.3) == pytest.approx(-0.4)  # prior-only value 2p − 1
    assert privacy_loss(2.0, 1.0) == pytest.approx(math.tanh(math.log(2) / 2))
    # the slip: Lemma 6 needs the 1 − δ/4 quantile (2.2414 at δ = 0.05), not 1 − δ/2 (1.96)
    assert lemma6_quantile(0.05) == pytest.approx(stats.norm.ppf(1 - 0.0125), rel=1e-14)
    assert round(lemma6_quantile(0.05), 4) == 2.2414
    lo, hi = kde_loss_interval(0.3, 0.2, 1000, 2000, 0.5, 0.5, 0.05)
    z = 2.241402727604947
    pl, ph = (
        0.3 - z * math.sqrt(GAUSSIAN_KERNEL_MU * 0.3 / 500),
        0.3 + z * math.sqrt(GAUSSIAN_KERNEL_MU * 0.3 / 500),
    )
    ql, qh = (
        0.2 - z * math.sqrt(GAUSSIAN_KERNEL_MU * 0.2 / 1000),
        0.2 + z * math.sqrt(GAUSSIAN_KERNEL_MU * 0.2 / 1000),
    )
    assert lo == pytest.approx((pl - qh) / (pl + qh), rel=1e-12)
    assert hi == pytest.approx((ph - ql) / (ph + ql), rel=1e-12)


# --------------------------------------------------------------------------- Lemma 5


def test_lemma5_interval_formula():
    # each proportion gets a two-sided Clopper–Pearson interval at 1 − δ/2; f is monotone in both
    p, delta = 0.3, 0.1
    P = stats.binomtest(12, 200).proportion_ci(1 - delta / 2, method="exact")
    Q = stats.binomtest(30, 500).proportion_ci(1 - delta / 2, method="exact")
    lo, hi = histogram_loss_interval(12, 200, 30, 500, p, delta)
    assert lo == pytest.approx(
        (p * P.low - (1 - p) * Q.high) / (p * P.low + (1 - p) * Q.high), rel=1e-10
    )
    assert hi == pytest.approx(
        (p * P.high - (1 - p) * Q.low) / (p * P.high + (1 - p) * Q.low), rel=1e-10
    )
    # an empty bin on both sides: nothing is known, the interval is [−1, 1]
    assert histogram_loss_interval(0, 200, 0, 500, p, delta) == (-1.0, pytest.approx(1.0))


@pytest.mark.parametrize("p", [0.5, 0.2])
def test_lemma5_interval_covers_at_the_stated_level(p):
    rng = np.random.default_rng(17)
    reps, n1, n0, pj, qj, delta = 4000, 400, 600, 0.06, 0.03, 0.1
    f_true = (p * pj - (1 - p) * qj) / (p * pj + (1 - p) * qj)
    c1 = rng.binomial(n1, pj, reps)
    c0 = rng.binomial(n0, qj, reps)
    lo, hi = histogram_loss_interval(c1, n1, c0, n0, p, delta)
    miss = float(np.mean((lo > f_true) | (hi < f_true)))
    assert miss <= delta + 5 * math.sqrt(delta * (1 - delta) / reps)
    assert np.all(lo <= hi)


# --------------------------------------------------------------------------- histogram estimator


@pytest.mark.parametrize("p", [0.5, 0.2])
def test_histogram_plugin_converges_to_the_binned_advantage(p):
    edges = np.linspace(-4, 5, 31)
    target = binned_advantage(edges, MU, p)
    errors = []
    for n in (1_000, 10_000, 100_000):
        m, nm = draw(n, seed=n)
        est = histogram_estimate(m, nm, bins=edges, prior=p)
        tol = plugin_tolerance(n, n, p, edges.size + 1)
        assert abs(est.plugin - target) <= tol, (n, est.plugin, target, tol)
        # held-out: a fixed classifier on fresh data; it cannot beat the binned optimum
        n_ev = est.n_eval
        sd = math.sqrt(p**2 / n_ev[0] + (1 - p) ** 2 / n_ev[1])
        fit_tol = 2 * plugin_tolerance(est.n_fit[0], est.n_fit[1], p, edges.size + 1)
        assert est.heldout <= target + 5 * sd
        assert est.heldout >= target - fit_tol - 5 * sd
        errors.append(abs(est.heldout - target))
    assert errors[-1] < errors[0]
    # finer bins approach the true advantage (data processing: binning only loses)
    fine = binned_advantage(np.linspace(-6, 7, 2001), MU, p)
    assert target <= fine <= true_advantage(MU, p) + 1e-12
    assert true_advantage(MU, p) - fine < 1e-5


def test_plugin_is_biased_up_but_heldout_lower_is_valid_under_the_null():
    # P = Q: the true advantage is 0, yet the in-sample plug-in mean |f̂| is clearly positive
    rng = np.random.default_rng(3)
    m, nm = rng.normal(size=1000), rng.normal(size=1000)
    est = histogram_estimate(m, nm, bins=100)
    assert est.plugin > 0.15  # E|p̂_j − q̂_j| summed over ~100 bins: about sqrt(2B/(πN)) ≈ 0.25
    assert est.algorithm1 > 0.1
    assert est.heldout_lower <= 0.0
    k = kde_estimate(m, nm)
    assert k.plugin > 0.02 and k.heldout_lower <= 0.0


def test_heldout_lower_bound_is_valid_across_seeds():
    # P(lower > Adv) <= delta for each run; with 40 runs at delta = 0.05, 6+ failures has
    # probability 0.05 (binomial tail), so 6 is the limit
    p, delta = 0.5, 0.05
    target = true_advantage(MU, p)
    fails = 0
    for seed in range(40):
        m, nm = draw(600, seed=1000 + seed)
        est = histogram_estimate(m, nm, bins=20, prior=p, delta=delta)
        fails += est.heldout_lower > target
        assert est.heldout_lower <= est.heldout
    assert fails <= 5


def test_histogram_intervals_and_options():
    m, nm = draw(2000, seed=4)
    a = histogram_estimate(m, nm, bins=25, delta=0.05)
    b = histogram_estimate(m, nm, bins=25, delta=0.05, simultaneous=True)
    assert a.f_hat.shape == a.f_lower.shape == a.points.shape == (27,)
    assert np.all(a.f_lower <= a.f_hat + 1e-12) and np.all(a.f_hat <= a.f_upper + 1e-12)
    assert np.all(b.f_lower <= a.f_lower + 1e-12) and np.all(b.f_upper >= a.f_upper - 1e-12)
    assert 0 <= a.mean_interval[0] <= a.algorithm1 <= a.mean_interval[1] <= 1
    # empty bins carry the prior-only value 2p − 1
    c = histogram_estimate(m, nm, bins=25, value_range=(-10, 10), prior=0.3)
    assert np.isclose(c.f_hat[1], -0.4)
    for bad, match in [
        ({"prior": 1.0}, "prior"),
        ({"delta": 0.0}, "delta"),
        ({"bins": 0}, "bins"),
        ({"value_range": (1, 1)}, "value_range"),
        ({"fit_fraction": 1.0}, "fit_fraction"),
    ]:
        with pytest.raises(ValueError, match=match):
            histogram_estimate(m, nm, **bad)
    with pytest.raises(ValueError, match="members"):
        histogram_estimate([1.0, 2.0], nm)
    with pytest.raises(ValueError, match="nonmembers"):
        histogram_estimate(m, [1.0, np.nan, 2.0, 3.0])


# --------------------------------------------------------------------------- KDE estimator


def classifier_advantage(points, f_hat, p, mu=MU):
    """Exact Adv_p of 'member iff f̂ > 0' from f̂ on a fine grid (error ≲ cell width per boundary)."""
    member = (f_hat > 0) | ((f_hat == 0) & (p >= 0.5))
    edges = np.r_[-np.inf, 0.5 * (points[1:] + points[:-1]), np.inf]
    P = np.diff(stats.norm.cdf(edges - mu))
    Q = np.diff(stats.norm.cdf(edges))
    return 2 * (p * P[member].sum() + (1 - p) * (1 - Q[member].sum())) - 1


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.5, 0.2])
def test_kde_converges_and_heldout_tracks_its_classifier(p):
    target = true_advantage(MU, p)
    losses = []
    for n in (500, 2000, 8000):
        m, nm = draw(n, seed=77 + n)
        est = kde_estimate(m, nm, prior=p, grid=4001)
        adv_cls = classifier_advantage(est.points, est.f_hat, p)
        cell = est.points[1] - est.points[0]
        assert adv_cls <= target + 10 * cell  # nobody beats the Bayes classifier
        sd = math.sqrt(p**2 / est.n_eval[0] + (1 - p) ** 2 / est.n_eval[1])
        assert abs(est.heldout - adv_cls) <= 5 * sd + 10 * cell
        # plug-ins: KDE sd scale sqrt(1/(N h)) plus the smoothing bias h²/2
        h = est.bandwidth
        assert abs(est.plugin - target) <= 5 * math.sqrt(1 / (n * h)) + h * h / 2
        losses.append(target - adv_cls)
    assert losses[-1] <= 0.01 and losses[-1] < losses[0] + 1e-9


def test_kde_matches_lemma7_on_its_grid_and_validates():
    m, nm = draw(1500, seed=8)
    est = kde_estimate(m, nm, bandwidth=0.3, grid=50, delta=0.1)
    assert est.bandwidth == 0.3 and est.points.size == 50
    assert np.all(est.f_lower <= est.f_hat + 1e-12) and np.all(est.f_hat <= est.f_upper + 1e-12)
    assert np.all(np.abs(est.f_hat) <= 1)
    # far in the tails both KDEs underflow in linear space; f̂ is still finite (log space)
    far = kde_estimate(np.r_[m, 60.0], np.r_[nm, -60.0], grid=10)
    assert np.all(np.isfinite(far.f_hat))
    with pytest.raises(ValueError, match="bandwidth"):
        kde_estimate(m, nm, bandwidth=-1)
    with pytest.raises(ValueError, match="bandwidth"):
        kde_estimate(m, nm, bandwidth="wide")


def test_heldout_advantage_formula():
    est, lo = heldout_advantage(
        [True] * 80 + [False] * 20, [True] * 30 + [False] * 70, prior=0.5, delta=0.1
    )
    assert est == pytest.approx(0.8 - 0.3)
    tpr_lo = stats.binomtest(80, 100).proportion_ci(0.9, method="exact").low  # one-sided 95 %
    fpr_hi = stats.binomtest(30, 100).proportion_ci(0.9, method="exact").high
    assert lo == pytest.approx(tpr_lo - fpr_hi, rel=1e-9)
    with pytest.raises(ValueError, match="non-empty"):
        heldout_advantage([], [True])


# --------------------------------------------------------------------------- units


def test_units_known_value_of_the_tanh_bound():
    u = units(math.tanh(0.5))
    assert round(u.advantage, 4) == 0.4621
    assert round(u.eta, 4) == 0.2311
    assert f"{100 * u.accuracy:.1f}" == "73.1"


@given(st.floats(0.0, 1.0))
def test_units_identity(a):
    u = units(a)
    assert u.advantage == pytest.approx(2 * u.eta) == pytest.approx(2 * u.accuracy - 1)


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan")])
def test_units_refuse_out_of_range(bad):
    with pytest.raises(ValueError, match="advantage"):
        units(bad)
    if bad == bad:  # clipped, an advantage outside [0, 1] is its nearest end
        assert units(bad, clip=True).advantage == min(max(bad, 0.0), 1.0)
