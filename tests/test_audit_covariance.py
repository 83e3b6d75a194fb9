"""The covariance release in the canary audit (``run_canary_audit(mechanism="covariance")``).

The release is the Figure 2 experiment's on a tiny dataset: the d² entries of gradient
descent's second-moment estimate over a random half, plus noise on every entry. Checked here
against independent computations: every half's output through ``mipcore.covariance_gd``'s own
GD routines, the sensitivity by brute force over all neighbouring halves, the exact noiseless
η by counting, and the Monte Carlo optimal accuracy against the certificates.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from mipcore.bounds import eta_from_epsilon
from mipcore.canary_audit import (
    AUDIT_MC_SAMPLES,
    COVARIANCE_AUDIT_LR,
    COVARIANCE_AUDIT_T,
    covariance_audit_records,
    run_canary_audit,
)
from mipcore.covariance_gd import gd_closed_form, gd_iterate, make_sigma, sample_data
from mipcore.noise_laws import NoiseLaw
from mipcore.optimal_attack import optimal_attack


def _release(records: np.ndarray, half) -> np.ndarray:
    """vec(A_T) for one half, by the covariance module's GD step by step (independent path)."""
    X = records[list(half)]
    S = X.T @ X / len(half)
    A = gd_iterate(S, COVARIANCE_AUDIT_T, COVARIANCE_AUDIT_LR)
    np.testing.assert_allclose(
        A, gd_closed_form(S, COVARIANCE_AUDIT_T, COVARIANCE_AUDIT_LR), rtol=1e-12
    )
    return A.ravel()


def _all_releases(records: np.ndarray):
    n = records.shape[0]
    halves = list(itertools.combinations(range(n), n // 2))
    out = np.array([_release(records, h) for h in halves])
    member = np.array([n - 1 in h for h in halves])
    return halves, out, member


# --------------------------------------------------------------------------- the dataset


def test_default_records_are_the_figure2_law_plus_a_least_variance_canary():
    rec = covariance_audit_records(8, 2, 3.0)
    assert rec.shape == (8, 2)
    np.testing.assert_array_equal(rec[:7], sample_data(make_sigma(2, 0), 7, rng=0))
    canary = rec[-1]
    assert np.linalg.norm(canary) == pytest.approx(3.0, rel=1e-12)
    # the canary points where the ordinary records vary least: the smallest Rayleigh quotient
    G = rec[:7].T @ rec[:7] / 7
    u = canary / 3.0
    assert u @ G @ u == pytest.approx(np.linalg.eigvalsh(G)[0], rel=1e-10)
    assert u[np.flatnonzero(u)[0]] > 0
    # deterministic, and a vector canary is used as given
    np.testing.assert_array_equal(rec, covariance_audit_records(8, 2, 3.0))
    np.testing.assert_array_equal(covariance_audit_records(8, 2, [1.0, -2.0])[-1], [1.0, -2.0])
    assert covariance_audit_records(6, 3, 2.0).shape == (6, 3)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"dim": 5}, "dim="),
        ({"dim": 0}, "dim="),
        ({"canary": [1.0, 2.0, 3.0]}, "canary has shape"),
        ({"canary": math.nan}, "canary"),
        ({"data": np.zeros((7, 3))}, "data has shape"),
        ({"data": np.full((7, 2), math.inf)}, "data"),
        ({"n": 7}, "n="),
    ],
)
def test_records_validation_names_the_parameter(kwargs, match):
    args = {"n": 8, "dim": 2, "canary": 3.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        covariance_audit_records(**args)


# --------------------------------------------------------------------------- the release


@pytest.mark.parametrize("n,dim", [(8, 2), (6, 3), (8, 1)])
def test_sensitivity_and_sigma_match_brute_force_over_all_halves(n, dim):
    a = run_canary_audit(200, n=n, dim=dim, mechanism="covariance", noise="none", rng=0)
    records = a.data
    halves, out, _ = _all_releases(records)
    # replace-one sensitivity on this dataset: the largest change between two halves differing in one record
    l1 = l2 = 0.0
    index = {h: i for i, h in enumerate(halves)}
    for i, h in enumerate(halves):
        for r in h:
            for s in set(range(n)) - set(h):
                g = tuple(sorted((set(h) - {r}) | {s}))
                diff = out[i] - out[index[g]]
                l1, l2 = max(l1, np.abs(diff).sum()), max(l2, np.linalg.norm(diff))
    assert a.sensitivity == pytest.approx(l1, rel=1e-12)
    assert a.sensitivity_l2 == pytest.approx(l2, rel=1e-12)
    assert a.output_dim == dim * dim
    sig = np.std(out, axis=0)
    got = np.atleast_1d(a.sigma)
    np.testing.assert_allclose(got, sig, rtol=1e-12)


def test_noiseless_release_exact_eta_by_counting():
    """Without noise the release is an atom; the optimal accuracy counts the atoms' in/out halves."""
    # a dataset with ties: two copies of the canary's mirror image give identical outer products
    data = np.array(
        [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [2.0, 2.0], [0.5, 0.0], [-0.5, 0.0]]
    )
    a = run_canary_audit(
        5000, n=8, data=data, canary=[-2.0, -2.0], mechanism="covariance", noise="none", rng=3
    )
    halves, out, member = _all_releases(a.data)
    c_in, c_out = {}, {}
    for row, m in zip(out, member, strict=True):
        key = tuple(np.round(row, 12))
        side = c_in if m else c_out
        side[key] = side.get(key, 0) + 1
    acc = Fraction(
        sum(max(c_in.get(k, 0), c_out.get(k, 0)) for k in set(c_in) | set(c_out)), len(halves)
    )
    assert a.exact_eta == pytest.approx(float(acc - Fraction(1, 2)), abs=1e-12)
    assert (
        a.exact_eta < 0.5
    )  # (−2, −2) and (2, 2) have the same outer product: not always identifiable
    assert a.exact_method == "exact"
    # the likelihood-ratio attacker is the optimal one: its accuracy estimates the exact one
    assert abs(0.5 + a.eta_hat - a.exact_accuracy) <= 5 * math.sqrt(0.25 / a.trials)


def test_dim1_covariance_is_the_mean_of_squares():
    """d = 1: the release is the mean of gd·x² -- the same exact η as the mean mechanism on those values."""
    x = np.array([0.1, -0.4, 0.7, 1.0, -1.2, 0.3, 0.9])
    gd = 1.0 - (1.0 - 2.0 * COVARIANCE_AUDIT_LR) ** COVARIANCE_AUDIT_T
    for noise, kw in [
        ("none", {}),
        ("laplace", {"epsilon": 2.0}),
        ("gaussian", {"epsilon": 2.0}),
        ("mip", {"eta": 0.2}),
    ]:
        cov = run_canary_audit(
            500,
            n=8,
            dim=1,
            data=x[:, None],
            canary=2.0,
            mechanism="covariance",
            noise=noise,
            rng=1,
            **kw,
        )
        mean = run_canary_audit(
            500, n=8, data=gd * x**2, canary=gd * 4.0, mechanism="mean", noise=noise, rng=1, **kw
        )
        assert cov.output_dim == 1 and cov.exact_method in ("exact", "certified")
        assert cov.exact_eta == pytest.approx(mean.exact_eta, abs=1e-12)
        assert cov.sensitivity == pytest.approx(mean.sensitivity, rel=1e-12)


def test_epsilon_calibrates_laplace_to_l1_and_gaussian_to_l2():
    lap = run_canary_audit(
        200, mechanism="covariance", noise="laplace", epsilon=2.0, exact=False, rng=0
    )
    gau = run_canary_audit(
        200, mechanism="covariance", noise="gaussian", epsilon=2.0, exact=False, rng=0
    )
    assert lap.noise == NoiseLaw("laplace", lap.sensitivity / 2.0)
    assert gau.noise == NoiseLaw("gaussian", gau.sensitivity_l2 / 2.0)
    assert gau.sensitivity_l2 < lap.sensitivity  # 4 coordinates: L2 < L1
    # the scalar mechanisms calibrate the same way (Δ₁ = Δ₂ there)
    mean = run_canary_audit(200, noise="laplace", epsilon=2.0, exact=False, rng=0)
    assert mean.noise.scale == pytest.approx((10.0 - 0.0) / 4 / 2.0, rel=1e-12)
    assert lap.exact_accuracy is None and lap.exact_eta is None and lap.exact_interval is None
    with pytest.raises(ValueError, match="epsilon"):
        run_canary_audit(200, mechanism="covariance", noise="laplace", epsilon=0.0, rng=0)


def test_mip_noise_is_theorem9_with_the_exact_sigmas():
    a = run_canary_audit(200, mechanism="covariance", noise="mip", eta=0.15, exact=False, rng=0)
    assert a.noise == NoiseLaw.mip(0.15, np.asarray(a.sigma))
    assert a.noise.kind == "mip" and len(a.noise.sigma) == 4 and a.noise.M == 2.0


# --------------------------------------------------------------------------- attacker vs certificates


CERT = {
    "laplace": lambda eps: float(eta_from_epsilon(eps)),  # ε-DP ⇒ Theorem 4
    "gaussian": lambda eps: float(stats.norm.cdf(eps / 2) - 0.5),  # ε-GDP ⇒ Φ(ε/2) − 1/2
}


@pytest.mark.parametrize(
    "noise,kw,cert",
    [
        ("laplace", {"epsilon": 1.0}, CERT["laplace"](1.0)),
        ("laplace", {"epsilon": 4.0}, CERT["laplace"](4.0)),
        ("gaussian", {"epsilon": 2.0}, CERT["gaussian"](2.0)),
        ("mip", {"eta": 0.3}, 0.3),
    ],
)
def test_monte_carlo_optimum_respects_the_certificate_and_matches_the_attacker(noise, kw, cert):
    N = 20_000
    a = run_canary_audit(N, mechanism="covariance", noise=noise, rng=11, **kw)
    lo, hi = a.exact_interval
    assert a.exact_method == "monte carlo" and lo <= a.exact_accuracy <= hi
    # never wider than its Hoeffding part at α/2 = 0.005: sqrt(log(4/0.01)/(2·samples)), halved for the accuracy
    half = 0.5 * math.sqrt(math.log(4 / 0.01) / (2 * AUDIT_MC_SAMPLES))
    assert hi - lo <= 2 * half + 1e-12
    # exact η never exceeds the certified η (the interval's lower end cannot)
    assert lo - 0.5 <= cert
    # the LR attacker is the Proposition 2 optimum: its accuracy agrees within sampling error
    sd = math.sqrt(0.25 / N)
    assert lo - 5 * sd <= 0.5 + a.eta_hat <= hi + 5 * sd
    assert a.eta_lower <= hi - 0.5


def test_noisy_release_leaks_and_the_distance_attacker_is_worse():
    N = 20_000
    sd = math.sqrt(0.25 / N)
    lr = run_canary_audit(
        N, mechanism="covariance", noise="laplace", epsilon=4.0, attacker="lr", rng=5
    )
    dist = run_canary_audit(
        N, mechanism="covariance", noise="laplace", epsilon=4.0, attacker="distance", rng=5
    )
    assert np.array_equal(lr.labels, dist.labels)
    assert lr.exact_eta > 0.1  # a real leak, so the comparison says something
    assert 0.5 + dist.eta_hat <= dist.exact_interval[1] + 5 * sd
    assert lr.eta_hat >= dist.eta_hat - 5 * math.sqrt(2) * sd
    # the ε lower bound from the audit never exceeds the ε the noise certifies (here 4)
    assert lr.epsilon_lower <= 4.0


def test_monte_carlo_exact_does_not_depend_on_the_game_seed():
    a = run_canary_audit(200, mechanism="covariance", noise="gaussian", epsilon=1.0, rng=1)
    b = run_canary_audit(300, mechanism="covariance", noise="gaussian", epsilon=1.0, rng=2)
    assert a.exact_accuracy == b.exact_accuracy and a.exact_interval == b.exact_interval


def test_noiseless_covariance_lr_scores_use_the_atoms():
    a = run_canary_audit(2000, mechanism="covariance", noise="none", rng=4)
    # default data: all 70 releases distinct, so the canary is always identified
    assert a.exact_eta == 0.5 and a.correct == a.trials
    assert np.all(np.isinf(a.scores))
    _, out, member = _all_releases(a.data)  # independently recomputed releases
    assert optimal_attack(out[member], out[~member], None).accuracy == 1.0


def test_sample_nd_draws_the_stated_laws():
    """Laplace/Gaussian per coordinate; Theorem 9: ||z||_{σ,2} ~ Gamma(d, c) (KS, 20 000 draws, α = 1e-4)."""
    from mipcore.noise_laws import sigma_norm

    rng = np.random.default_rng(8)
    lap = NoiseLaw.laplace(2.0).sample_nd(20_000, 3, rng)
    assert lap.shape == (20_000, 3)
    assert stats.kstest(lap.ravel(), stats.laplace(scale=2.0).cdf).pvalue > 1e-4
    gau = NoiseLaw.gaussian(0.5).sample_nd(20_000, 2, rng)
    assert stats.kstest(gau.ravel(), stats.norm(scale=0.5).cdf).pvalue > 1e-4
    sig = np.array([1.0, 0.3, 0.3, 2.0])
    law = NoiseLaw.mip(0.2, sig)
    z = law.sample_nd(20_000, 4, rng)
    r = sigma_norm(z, sig, 2)
    assert stats.kstest(r, stats.gamma(a=4, scale=law.scale).cdf).pvalue > 1e-4
    assert NoiseLaw.none().sample_nd(5, 4, rng).shape == (5, 4)
    with pytest.raises(ValueError, match="sigmas"):
        law.sample_nd(10, 3, rng)


# --------------------------------------------------------------------------- covariance_gd domain


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: gd_closed_form(np.eye(2), -1, 0.25), "T"),
        (lambda: gd_closed_form(np.eye(2), 2.5, 0.25), "T"),
        (lambda: gd_closed_form(np.eye(2), 3, 1.5), "lr"),
        (lambda: gd_iterate(np.eye(2), 3, -0.1), "lr"),
        (lambda: sample_data(np.ones(3), 5, rng=0), "sigma"),
        (lambda: sample_data(make_sigma(2, 0), 0, rng=0), "n"),
        (lambda: make_sigma(0, 0), "d"),
        (lambda: make_sigma(2, -1), "seed"),
    ],
)
def test_covariance_gd_errors_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}"):
        call()
