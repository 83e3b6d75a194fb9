"""Tests for mipcore.experiments.covariance and mipcore.covariance_gd: the Section 5.2 (Figure 2)
experiment.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.2. DP-SGD: Abadi et al., CCS 2016. The Gaussian-mechanism privacy profile (Balle &
Wang, ICML 2018, Theorem 8): ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``
for sensitivity 1 and noise std 1/mu, which is also what ``dp_accounting.gaussian_mechanism``
inverts. GDP (Dong, Roth, Su, arXiv:1905.02383): the best test at prior 1/2 against a μ-GDP
pair has edge Φ(μ/2) − 1/2.

References here are direct computations on small cases (explicit d x d matrices and
per-row Python loops), never the module's own vectorised shortcuts. Statistical checks use
fixed seeds and tolerances derived from the sample size (KS / chi-square at
``ALPHA = 1e-4``, means within 5 standard errors). The cost model is checked for its
arithmetic and its ceiling only: wall times are compared with it in
``benchmarks/covariance.py``, never asserted here.
"""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from dp_accounting.gaussian_mechanism import get_epsilon_gaussian
from scipy import stats
from scipy.stats import norm

from mipcore.bounds import epsilon_from_eta, eta_from_epsilon
from mipcore.covariance_gd import (
    ClipRule,
    _per_example_norms,
    clip_norm,
    dpsgd,
    gd_closed_form,
    gd_iterate,
    half_split_grams,
    make_sigma,
    outer_products,
    sample_data,
)
from mipcore.experiments import covariance as cv
from mipcore.experiments.covariance import (
    NOMINAL_SPEED,
    PRESETS,
    RUN_COLUMNS,
    WORK_CEILING,
    Claim,
    DpCalibration,
    ExperimentConfig,
    ExperimentResult,
    FailRange,
    Verdict,
    dp_noise_multiplier,
    estimate_seconds,
    measure_speed,
    paper_claims,
    plan_experiment,
    run_experiment,
    simulate,
    speed_factor,
    summarize,
    work,
)
from mipcore.guarantees import eta_from_gdp
from mipcore.mechanism import MipCalibration
from mipcore.theorem9 import certified_eta

ALPHA = 1e-4
PAPER, TIGHT = DpCalibration.PAPER, DpCalibration.TIGHT
PAPER_C, PRINTED, SMALLEST = MipCalibration.PAPER, MipCalibration.AS_PRINTED, MipCalibration.TIGHT


def _data(m=30, d=3, seed=0):
    gen = np.random.default_rng(seed)
    X = (
        gen.standard_normal((m, d))
        @ np.array([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.2, 0.7]])[:d, :d]
    )
    P = np.array([np.outer(x, x).ravel() for x in X])
    x2 = np.array([x @ x for x in X])
    return X, P, x2


# --------------------------------------------------------------------------- data and base algorithm


def test_make_sigma_and_sample_data():
    S = make_sigma(3, 0)
    np.testing.assert_array_equal(S, make_sigma(3, 0))
    np.testing.assert_allclose(S, S.T)
    assert np.all(np.linalg.eigvalsh(S) > 0)
    n = 200_000
    X = sample_data(S, n, 1)
    np.testing.assert_array_equal(X, sample_data(S, n, np.random.default_rng(1)))
    emp = X.T @ X / n
    # Var(x_i x_j) = S_ii S_jj + S_ij^2 for a centred Gaussian
    se = np.sqrt((np.outer(np.diag(S), np.diag(S)) + S**2) / n)
    assert np.all(np.abs(emp - S) <= 5 * se)


def test_outer_products():
    X, P, _ = _data(7, 3)
    np.testing.assert_allclose(outer_products(X), P, rtol=0, atol=0)


@pytest.mark.parametrize("T", [0, 1, 2, 5, 20, 100])
@pytest.mark.parametrize("lr", [0.01, 0.1, 0.25, 0.4, 0.5])
def test_gd_closed_form_equals_iteration(T, lr):
    S = make_sigma(4, 3).ravel()
    np.testing.assert_allclose(
        gd_closed_form(S, T, lr), gd_iterate(S, T, lr), rtol=0, atol=1e-12 * np.abs(S).max()
    )


# --------------------------------------------------------------------------- half splits


def _encoded(m, extra_cols=2, seed=0):
    """Rows whose column 0 is 2^i: a half's column-0 sum (exact in float64 for m <= 52)
    spells out exactly which rows it contains."""
    gen = np.random.default_rng(seed)
    return np.column_stack([2.0 ** np.arange(m), gen.standard_normal((m, extra_cols))])


def _members(sums0, m):
    codes = np.rint(sums0).astype(np.int64)
    return np.array([[(c >> i) & 1 for i in range(m)] for c in codes], dtype=bool)


@pytest.mark.parametrize("m", [2, 5, 40, 41])
def test_half_split_grams_are_means_of_exact_halves(m):
    P = _encoded(m)
    h = m // 2
    B = 37  # not a multiple of the chunk size
    out = half_split_grams(P, B, 12)
    assert out.shape == (B, P.shape[1])
    members = _members(out[:, 0] * h, m)
    assert np.all(members.sum(axis=1) == h)  # exactly floor(m/2) distinct rows
    np.testing.assert_allclose(out[:, 0] * h, members @ P[:, 0], rtol=0, atol=0.25)
    for b in range(B):
        np.testing.assert_allclose(
            out[b, 1:], P[members[b], 1:].mean(axis=0), rtol=1e-12, atol=1e-14
        )


def test_half_split_grams_seed_and_chunk():
    P = _encoded(30)
    a = half_split_grams(P, 40, 5)
    np.testing.assert_array_equal(a, half_split_grams(P, 40, 5))
    np.testing.assert_array_equal(a, half_split_grams(P, 40, np.random.default_rng(5)))
    assert not np.array_equal(a, half_split_grams(P, 40, 6))
    # the chunk size is a performance knob: the same halves come out
    for chunk in (1, 7, 64):
        b = half_split_grams(P, 40, 5, chunk=chunk)
        np.testing.assert_array_equal(_members(b[:, 0] * 15, 30), _members(a[:, 0] * 15, 30))
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("m", [6, 7])
def test_half_split_grams_are_uniform_over_subsets(m):
    """Every floor(m/2)-subset equally likely: chi-square over all C(m, h) subsets."""
    h = m // 2
    n_sub = math.comb(m, h)
    B = 600 * n_sub
    out = half_split_grams(_encoded(m, 0), B, 2024)
    codes = np.rint(out[:, 0] * h).astype(np.int64)
    _, counts = np.unique(codes, return_counts=True)
    assert counts.size == n_sub
    assert stats.chisquare(counts).pvalue > ALPHA


# --------------------------------------------------------------------------- DP-SGD


def test_per_example_norms_equal_direct_frobenius():
    X, P, x2 = _data(25, 3, seed=1)
    gen = np.random.default_rng(2)
    A = gen.standard_normal((4, 9)) * 3  # not symmetric on purpose
    A[3] = np.outer(X[5], X[5]).ravel()  # one trajectory sitting on a row: norm 0 there
    got = _per_example_norms(P, x2, A.copy())
    want = np.array(
        [
            [2 * np.linalg.norm(A[k].reshape(3, 3) - np.outer(x, x), "fro") for k in range(4)]
            for x in X
        ]
    )
    scale = 2 * (np.abs(A).max() + x2.max())
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-6 * scale)
    assert np.all(np.isfinite(got)) and np.all(got >= 0)


@pytest.mark.parametrize("T, lr", [(1, 0.25), (7, 0.1), (20, 0.25), (3, 0.5)])
def test_dpsgd_without_noise_or_clipping_is_gd(T, lr):
    _, P, x2 = _data(40, 3, seed=3)
    S = P.mean(axis=0)
    got = dpsgd(P, x2, [0.0], C=math.inf, T=T, lr=lr, rng=0)
    assert got.shape == (1, 9)
    np.testing.assert_allclose(got[0], gd_iterate(S, T, lr), rtol=0, atol=1e-10 * np.abs(S).max())


def _direct_clipped_gd(X, C, T, lr):
    """Full-batch clipped GD with explicit matrices and a loop over rows."""
    m, d = X.shape
    A = np.zeros((d, d))
    clipped = unclipped = 0
    for _ in range(T):
        G = np.zeros((d, d))
        for x in X:
            g = 2.0 * (A - np.outer(x, x))
            nrm = np.linalg.norm(g, "fro")
            if nrm > C:
                clipped += 1
                g = g * (C / nrm)
            else:
                unclipped += 1
            G += g
        A = A - lr * G / m
    return A, clipped, unclipped


@pytest.mark.parametrize("T", [1, 3, 10])
def test_dpsgd_clipping_matches_a_per_row_loop(T):
    X, P, x2 = _data(30, 3, seed=4)
    C = float(np.median(2 * x2))
    lr = 0.25
    want, clipped, unclipped = _direct_clipped_gd(X, C, T, lr)
    assert clipped > 0 and unclipped > 0  # the test exercises both branches
    got = dpsgd(P, x2, [0.0, 0.0], C=C, T=T, lr=lr, rng=0)
    np.testing.assert_allclose(got[0].reshape(3, 3), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got[0], got[1])
    # trajectories are independent: a noisy one beside does not change the z = 0 one
    mixed = dpsgd(P, x2, [0.0, 3.0], C=C, T=T, lr=lr, rng=1)
    np.testing.assert_allclose(mixed[0], got[0], rtol=1e-12, atol=1e-14)
    assert not np.allclose(mixed[1], got[0])


def test_dpsgd_noise_has_std_2zC_per_entry():
    """One step from A = 0: every trajectory has the same clipped gradient, so
    A_z - A_0 = -lr * noise / m with noise ~ N(0, (2 z C)^2) per entry (2C: replace-one)."""
    _, P, x2 = _data(30, 3, seed=5)
    C, lr, m, z, K = 1.3, 0.25, 30, 2.0, 5000
    out = dpsgd(P, x2, [0.0] + [z] * K, C=C, T=1, lr=lr, rng=6)
    std_units = (out[1:] - out[0]).ravel() / (-lr * 2 * z * C / m)
    assert stats.kstest(std_units, stats.norm().cdf).pvalue > ALPHA
    assert np.array_equal(out, dpsgd(P, x2, [0.0] + [z] * K, C=C, T=1, lr=lr, rng=6))


def test_dpsgd_refuses_noise_without_clipping():
    """Regression (fixed): with C = inf (no clipping) the sensitivity is unbounded, yet ``dpsgd`` scales the noise
    by ``0.0 if isinf(C) else C`` and returns plain GD for any z > 0 -- a run labelled
    DP-SGD at some eta with no privacy at all. Fix: in ``dpsgd`` raise
    ``ValueError("C=inf (no clipping) has unbounded sensitivity; z > 0 needs a finite C")``
    when ``math.isinf(C) and np.any(z > 0)``."""
    _, P, x2 = _data(30, 3, seed=7)
    with pytest.raises(ValueError, match="C"):
        dpsgd(P, x2, [1.0], C=math.inf, T=2, lr=0.25, rng=0)


def test_config_refuses_an_infinite_fixed_clip_value():
    """Regression (fixed): ``ExperimentConfig.validated`` checked clip_value with ``check_range(..., 0, inf,
    lo_open=True)`` -- inf is allowed, so ``run_experiment`` reports noise-free "DP-SGD"
    rows (see the test above). Fix: pass ``hi_open=True`` there."""
    cfg = ExperimentConfig(clip_rule="fixed", clip_value=math.inf)
    with pytest.raises(ValueError, match="clip_value"):
        cfg.validated()


# --------------------------------------------------------------------------- calibration


ETAS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.4, 0.45, 0.49]


@pytest.mark.parametrize("delta", [1e-6, 1e-5])
@pytest.mark.parametrize("T", [1, 20, 100])
def test_paper_route_is_eps_delta_dp_at_epsilon_of_eta(T, delta):
    for eta in ETAS:
        z = dp_noise_multiplier(eta, T, route="paper", delta=delta)
        eps = get_epsilon_gaussian(z / math.sqrt(T), delta)
        assert eps == pytest.approx(float(epsilon_from_eta(eta, delta)), rel=1e-6)


@pytest.mark.parametrize("T", [1, 20, 100])
def test_tight_route_is_gdp_to_mip(T):
    for eta in ETAS:
        z = dp_noise_multiplier(eta, T, route="tight")
        mu = math.sqrt(T) / z
        assert norm.cdf(mu / 2) - 0.5 == pytest.approx(eta, abs=1e-12)
        assert eta_from_gdp(mu) == pytest.approx(eta, abs=1e-12)


def _gauss_delta(eps, mu):
    """Privacy profile of the Gaussian mechanism with mu = sensitivity/std (Balle & Wang 2018)."""
    return norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def test_tight_route_needs_less_noise_than_the_paper_route():
    """Why tight <= paper. A mu-Gaussian mechanism is (eps, delta(eps))-DP for every eps >= 0;
    Theorem 4 turns each point into eta(eps) = delta(eps)/2 + (1 - delta(eps))/2 tanh(eps/2).
    At eps = 0 this is delta(0)/2 = Phi(mu/2) - 1/2, the tight route's eta; we check below that
    eps = 0 is the best point of the profile. The paper route picks the mu whose point at
    eps(eta, delta) gives eta, so its Phi(mu/2) - 1/2 <= eta and its mu is no larger than the
    tight one: z_paper >= z_tight (strictly, since the minimum is only at eps = 0)."""
    eps_grid = np.concatenate([[0.0], np.geomspace(1e-4, 30, 400)])
    for mu in (0.05, 0.3, 1.0, 3.0, 8.0):
        # the formula matches dp_accounting's Gaussian accountant
        for eps in (0.1, 1.0, 3.0):
            dlt = _gauss_delta(eps, mu)
            if dlt > 1e-12:
                assert get_epsilon_gaussian(1.0 / mu, dlt) == pytest.approx(eps, rel=1e-5)
        etas = eta_from_epsilon(eps_grid, np.clip(_gauss_delta(eps_grid, mu), 0, 1))
        assert etas[0] == pytest.approx(norm.cdf(mu / 2) - 0.5, rel=1e-12)
        assert np.all(etas[1:] > etas[0])
    for T in (1, 20):
        for eta in ETAS:
            assert dp_noise_multiplier(eta, T, route="tight") < dp_noise_multiplier(
                eta, T, route="paper"
            )


def test_dp_noise_multiplier_errors():
    with pytest.raises(ValueError, match="route"):
        dp_noise_multiplier(0.1, 5, route="loose")
    for eta in (0.0, 0.5, -0.1, 0.7):
        with pytest.raises(ValueError, match="eta"):
            dp_noise_multiplier(eta, 5)
    with pytest.raises(ValueError, match="T"):
        dp_noise_multiplier(0.1, 0)
    with pytest.raises(ValueError, match="delta"):
        dp_noise_multiplier(0.1, 5, route="paper", delta=0.0)
    with pytest.raises(ValueError, match="eta"):
        dp_noise_multiplier(1e-7, 5, route="paper", delta=1e-5)  # eta < delta/2


# --------------------------------------------------------------------------- clipping rules


def test_clip_norm_rules():
    X, P, x2 = _data(31, 3, seed=8)
    T, lr = 6, 0.2
    assert clip_norm(P, x2, rule="initial_median", T=T, lr=lr) == pytest.approx(
        float(np.median([2 * np.linalg.norm(np.outer(x, x), "fro") for x in X])), rel=1e-12
    )
    S = P.mean(axis=0).reshape(3, 3)
    traj = [
        2 * np.linalg.norm(gd_iterate(S, t, lr) - np.outer(x, x), "fro")
        for t in range(T)
        for x in X
    ]
    assert clip_norm(P, x2, rule="trajectory_median", T=T, lr=lr) == pytest.approx(
        float(np.median(traj)), rel=1e-10
    )
    assert clip_norm(P, x2, rule="fixed", T=T, lr=lr, value=2.5) == 2.5
    for bad in (None, 0.0, -1.0):
        with pytest.raises(ValueError, match="clip_value"):
            clip_norm(P, x2, rule="fixed", T=T, lr=lr, value=bad)
    with pytest.raises(ValueError, match="clip_rule"):
        clip_norm(P, x2, rule="mean", T=T, lr=lr)
    assert {r.value for r in ClipRule} == {"initial_median", "trajectory_median", "fixed"}
    assert clip_norm(P, x2, rule=ClipRule.FIXED, T=T, lr=lr, value=2.5) == 2.5
    with pytest.raises(ValueError, match="clip_value"):
        clip_norm(P, x2, rule="fixed", T=T, lr=lr, value=math.inf)


def test_dpsgd_blocks_do_not_change_the_result():
    """Rows are processed in cache-sized blocks (here 5 blocks of 409 rows for 40
    trajectories); the result equals one unblocked pass with the direct norms."""
    _, P, x2 = _data(2000, 3, seed=9)
    zs = np.zeros(40)
    C, lr, T = float(np.median(2 * x2)), 0.25, 3
    got = dpsgd(P, x2, zs, C=C, T=T, lr=lr, rng=0)
    A = np.zeros((40, 9))
    for _ in range(T):
        w = np.minimum(1.0, C / np.maximum(_per_example_norms(P, x2, A), 1e-300))  # (m, K)
        A = A - lr * 2.0 * (A * w.sum(axis=0)[:, None] - w.T @ P) / P.shape[0]
    np.testing.assert_allclose(got, A, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------- the plan


def test_plan_resolves_every_noise_level():
    cfg = ExperimentConfig(etas=(0.05, 0.1, 0.3), Ms=(2, 4))
    plan = plan_experiment(cfg)
    np.testing.assert_array_equal(plan.sigma, make_sigma(3, 0))
    assert [x.calibration for x in plan.dp] == [PAPER, TIGHT]
    assert {(x.calibration, x.M) for x in plan.mip} == {
        (c, M) for c in MipCalibration for M in (2, 4)
    }
    for x in plan.mip:
        for e, c, level in zip(x.etas, x.c, x.certified, strict=True):
            if x.calibration is SMALLEST:  # c = −1/ln(1 − 2η): exactly the target
                assert c == pytest.approx(-1 / math.log1p(-2 * e), rel=1e-12)
                assert level == pytest.approx(e, rel=1e-9) and level <= e
            else:  # Corollary 14: (6.16/η)^(1+2/M), the same c for both radius laws
                assert c == pytest.approx((6.16 / e) ** (1 + 2 / x.M), rel=1e-12)
            if x.calibration is PRINTED:
                assert level is None  # 9 numbers: no proof covers the Laplace radius
            else:  # Theorem 9's density: (1 − e^{−1/c})/2 in every dimension
                assert level == pytest.approx(-0.5 * math.expm1(-1 / c), rel=1e-12)
        assert x.is_certified is (x.calibration is not PRINTED)
    # known values: c = 3794.56 (η = 0.1, M = 2) certifies η ≈ 1.3e-4; the smallest is 4.481
    paper = plan.mip_noise(PAPER_C, 2)
    assert paper.c[1] == pytest.approx(3794.56, rel=1e-9)
    assert paper.certified[1] == pytest.approx(1.3177e-4, rel=1e-3)
    assert plan.mip_noise(SMALLEST, 2).c[1] == pytest.approx(4.4814, abs=1e-4)


def test_plan_in_one_dimension_certifies_the_printed_radius():
    plan = plan_experiment(ExperimentConfig(d=1, etas=(0.2,), Ms=(2,)))
    x = plan.mip_noise(PRINTED, 2)
    assert x.certified[0] == pytest.approx(float(certified_eta(x.c[0], M=2, d=1)))
    assert x.is_certified


def test_paper_dp_calibration_gets_about_a_fifth_of_the_target():
    """The paper's route (Theorem 4 at δ, then the analytic Gaussian) is conservative: the
    calibrated T steps are μ-GDP with μ = √T/z (z relative to the replace-one sensitivity
    2C), whose exact level Φ(μ/2) − 1/2 is a fraction of the target η."""
    cfg = ExperimentConfig()
    plan = plan_experiment(cfg)
    paper, tight = plan.dp_noise(PAPER), plan.dp_noise(TIGHT)
    for e, z, exact in zip(paper.etas, paper.z, paper.exact_eta, strict=True):
        mu = math.sqrt(cfg.T) / z
        assert exact == pytest.approx(norm.cdf(mu / 2) - 0.5, rel=1e-9)  # brute force
        assert z == pytest.approx(dp_noise_multiplier(e, cfg.T, route="paper"), rel=1e-12)
    np.testing.assert_allclose(tight.ratio, 1.0, rtol=1e-9)
    lo, hi = paper.ratio_range
    assert 0.15 < lo <= hi < 0.3  # "about a fifth" on the default grid (0.20 to 0.28)
    assert lo == min(paper.ratio) and hi == max(paper.ratio)
    assert all(p > t for p, t in zip(paper.z, tight.z, strict=True))


# --------------------------------------------------------------------------- the experiment

SMALL = ExperimentConfig(d=2, n=400, seed=3, B=8, R=2, Ms=(2, 4), etas=(0.05, 0.2, 0.4), T=5)


@pytest.fixture(scope="module")
def small_results():
    calls = []
    df = simulate(SMALL, progress=lambda f, msg: calls.append((f, msg)))
    return df, calls


def test_simulate_shape_and_columns(small_results):
    df, calls = small_results
    cfg = SMALL
    E, mips, dps = len(cfg.etas), len(cfg.mip_calibrations), len(cfg.dp_calibrations)
    per_run = E + len(cfg.Ms) * mips * E + E + dps * E
    assert list(df.columns) == list(RUN_COLUMNS)
    assert len(df) == cfg.R * per_run
    counts = df["method"].value_counts().to_dict()
    assert counts == {
        "raw": cfg.R * E,
        "mip": cfg.R * len(cfg.Ms) * mips * E,
        "clip_only": cfg.R * E,
        "dpsgd": cfg.R * dps * E,
    }
    # halfway through each run (after MIP) and at its end; never decreasing, ending at 1
    assert [f for f, _ in calls] == pytest.approx(
        [(r + h) / cfg.R for r in range(cfg.R) for h in (0.5, 1.0)]
    )
    assert [m for _, m in calls][:2] == ["run 1 of 2: MIP done, DP-SGD running", "run 1 of 2 done"]
    assert np.all(np.isfinite(df["rel_error"])) and np.all(df["rel_error"] >= 0)
    plan = plan_experiment(cfg)
    for _run, g in df.groupby("run"):
        assert g.loc[g.method == "raw", "rel_error"].nunique() == 1
        assert g.loc[g.method == "clip_only", "z"].eq(0).all()
        assert g["C"].dropna().nunique() == 1
        for _, row in g[g.method == "dpsgd"].iterrows():
            assert row["z"] == pytest.approx(
                dp_noise_multiplier(
                    row["eta"], cfg.T, route=row["dp_calibration"], delta=cfg.delta
                ),
                rel=1e-12,
            )
        mip = g[g.method == "mip"]
        assert set(zip(mip.M, mip.mip_calibration, strict=True)) == {
            (M, c.value) for M in cfg.Ms for c in MipCalibration
        }
        for _, row in mip.iterrows():
            x = plan.mip_noise(MipCalibration(row["mip_calibration"]), int(row["M"]))
            assert row["c"] == x.c[x.etas.index(row["eta"])]


def test_simulate_is_deterministic_by_seed(small_results):
    df, _ = small_results
    pd.testing.assert_frame_equal(df, simulate(SMALL))
    pd.testing.assert_frame_equal(df, simulate(plan_experiment(SMALL)))
    other = simulate(dataclasses.replace(SMALL, seed=4))
    assert not np.allclose(df["rel_error"].to_numpy(), other["rel_error"].to_numpy())


def test_simulate_fixed_clip_and_single_variants():
    cfg = dataclasses.replace(
        SMALL,
        R=1,
        clip_rule="fixed",
        clip_value=3.0,
        dp_calibrations=("tight",),
        mip_calibrations=("gamma",),  # the old name of Theorem 9's density, paper's constant
        Ms=(6,),
    )
    df = simulate(cfg)
    assert df["C"].dropna().eq(3.0).all()
    assert set(df["dp_calibration"].dropna()) == {"tight"}
    assert set(df["mip_calibration"].dropna()) == {"paper"}
    assert len(df) == 3 + 3 + 3 + 3


def _label(r):
    return (r["method"], r["M"], r["mip_calibration"], r["dp_calibration"])


def test_summarize_mean_and_sem(small_results):
    df, _ = small_results
    s = summarize(df)
    d2 = df.assign(label=df.apply(_label, axis=1).astype(str))
    g = d2.groupby(["label", "eta"])["rel_error"]
    want = pd.DataFrame({"mean": g.mean(), "sem": g.sem(ddof=1), "runs": g.count()}).reset_index()
    s2 = s.assign(label=s.apply(_label, axis=1).astype(str))
    merged = s2.merge(want, on=["label", "eta"], suffixes=("", "_want"), validate="one_to_one")
    assert len(merged) == len(s) == len(want)
    np.testing.assert_allclose(merged["mean"], merged["mean_want"], rtol=1e-12)
    np.testing.assert_allclose(merged["sem"], merged["sem_want"], rtol=1e-12)
    assert (merged["runs"] == merged["runs_want"]).all() and (s["runs"] == SMALL.R).all()
    one = summarize(df[df.run == 0])
    assert (one["sem"] == 0).all()


@pytest.fixture(scope="module")
def small_result():
    return run_experiment(SMALL)


def test_run_experiment_evaluates_the_run(small_result, small_results):
    res = small_result
    pd.testing.assert_frame_equal(res.runs, small_results[0])
    assert res.config == SMALL.validated() and res.seconds >= 0
    # 3 MIP x 2 DP pairs for claims 1-2, claim 3 per DP, claim 4 per MIP
    assert len(res.verdicts) == 6 + 6 + 2 + 3
    raw = res.summary[res.summary.method == "raw"]["mean"]
    assert res.raw_error == pytest.approx(float(raw.iloc[0]))
    norm = float(np.linalg.norm(make_sigma(2, 3)))
    for c in res.clipping:  # the clipping-only share at the most private η, from the table
        s = res.summary
        dp = s[(s.method == "dpsgd") & (s.dp_calibration == c.calibration.value)]
        z0 = s[s.method == "clip_only"]
        assert c.eta == 0.05
        assert c.error == pytest.approx(float(dp[dp.eta == 0.05]["mean"].iloc[0]))
        assert c.clip_only_error == pytest.approx(float(z0[z0.eta == 0.05]["mean"].iloc[0]))
        assert c.step_sd == pytest.approx(SMALL.lr * c.z * 2 * res.clip_norm / SMALL.m)
        assert c.step_sd_rel == pytest.approx(c.step_sd / norm)
        assert 0 < c.share_min <= c.share_max <= 1
        assert c.error_min <= c.error <= c.error_max
        assert res.bias(c.calibration) is c
    for sc in res.scales:
        x = res.plan.mip_noise(sc.calibration, sc.M)
        assert sc.eta_ref == 0.2 and sc.c_ref == x.c[1] and sc.certified_ref == x.certified[1]
        assert (sc.n_for_error_1 is None) is (sc.error_ref <= 1)
        if sc.n_for_error_1 is not None:
            assert sc.n_for_error_1 == pytest.approx(SMALL.n * sc.error_ref**2)
    assert res.radius_ratio is not None and res.radius_ratio.expected == 4  # d² = 4


def test_the_result_is_small_and_computes_the_rest_on_demand(small_result):
    """A job sends the result back pickled: its plan, its runs and their time; the summary,
    the verdicts and every quoted number are computed from them, the same after the trip."""
    names = [f.name for f in dataclasses.fields(small_result)]
    assert names == ["plan", "runs", "seconds", "finished_at"]
    back = pickle.loads(pickle.dumps(ExperimentResult(small_result.plan, small_result.runs)))
    pd.testing.assert_frame_equal(back.summary, small_result.summary)
    assert back.verdicts == small_result.verdicts
    assert back.clipping == small_result.clipping and back.scales == small_result.scales
    assert back.radius_ratio == small_result.radius_ratio
    assert back.raw_error == small_result.raw_error


def test_result_grid_is_one_row_per_claim(small_result):
    grid = small_result.grid(TIGHT)
    assert [claim for claim, _ in grid] == list(Claim)
    for claim, cells in grid:
        assert [m for m, _ in cells] == list(MipCalibration)
        if claim is Claim.DP_NEVER_BELOW_1:  # DP only: the same verdict in every column
            assert len({id(v) for _, v in cells}) == 1 and cells[0][1].dp is TIGHT
        elif claim is Claim.MIP_BELOW_1_FROM_02:
            assert all(v.dp is None and v.mip is m for m, v in cells)
        else:
            assert all(v.dp is TIGHT and v.mip is m for m, v in cells)
    assert small_result.verdict(Claim.DP_NEVER_BELOW_1, mip=PAPER_C, dp=TIGHT) is None


# --------------------------------------------------------------------------- paper_claims on synthetic summaries

GRID = [0.01, 0.05, 0.1, 0.2, 0.3, 0.45]
DP_PAPER = ("dpsgd", None, None, "paper")
BASE = {
    DP_PAPER: [50, 20, 10, 5, 3, 2],
    ("mip", 2, "paper", None): [1000, 100, 9, 0.9, 0.5, 0.3],  # loses only below 0.1
    ("mip", 4, "paper", None): [40, 15, 5, 0.8, 0.4, 0.2],
    ("mip", 6, "paper", None): [30, 10, 4, 0.7, 0.3, 0.1],
}
MIPS = [k for k in BASE if k[0] == "mip"]
CLAIM1, CLAIM2, CLAIM3, CLAIM4 = range(4)


def _summary(curves):
    rows = [
        dict(method=k[0], M=k[1], mip_calibration=k[2], dp_calibration=k[3], eta=e, mean=float(v))
        for k, vals in curves.items()
        for e, v in zip(GRID, vals, strict=True)
    ]
    return pd.DataFrame(rows)


def _verdicts(changes=None, Ms=(2, 4, 6)):
    curves = {k: list(v) for k, v in BASE.items()} | (changes or {})
    return paper_claims(_summary(curves), Ms, ("paper",), ("paper",))


def test_paper_claims_all_true_on_the_base_case():
    v = _verdicts()
    assert [x.holds for x in v] == [True, True, True, True]
    assert [x.claim for x in v] == list(Claim)
    assert all(isinstance(x, Verdict) and not x.where for x in v)
    assert [(x.mip, x.dp) for x in v] == [
        (PAPER_C, PAPER),
        (PAPER_C, PAPER),
        (None, PAPER),
        (PAPER_C, None),
    ]
    assert [x.checked for x in v] == [3 * 4, 2 * 6, 6, 3]
    assert v[CLAIM3].dp_min == 2.0
    assert [(o.M, o.eta) for o in v[CLAIM4].onsets] == [(2, 0.2), (4, 0.2), (6, 0.2)]


@pytest.mark.parametrize(
    "changes, claim",
    [
        ({MIPS[0]: [1000, 100, 9, 0.9, 3.5, 0.3]}, CLAIM1),  # loses at 0.3
        ({MIPS[0]: [1000, 100, 10, 0.9, 0.5, 0.3]}, CLAIM1),  # ties at 0.1
        ({MIPS[2]: [60, 10, 4, 0.7, 0.3, 0.1]}, CLAIM2),  # loses at 0.01 only
        ({DP_PAPER: [50, 20, 10, 5, 3, 0.95]}, CLAIM3),
        ({key: [40, 15, 5, 4, 3, 1.5] for key in MIPS}, CLAIM4),  # never below 1
        ({key: [40, 15, 5, 4, 3, 0.5] for key in MIPS}, CLAIM4),  # only from 0.45: too late
        ({key: [40, 15, 0.5, 4, 3, 1.5] for key in MIPS}, CLAIM4),  # a dip that does not stay
    ],
)
def test_paper_claims_false_cases(changes, claim):
    v = _verdicts(changes)
    assert not v[claim].holds, v[claim]
    assert v[claim].where or v[claim].onsets
    # the unaffected claims keep their verdicts where the change cannot touch them
    if claim == CLAIM2:
        assert v[CLAIM1].holds and v[CLAIM3].holds and v[CLAIM4].holds
    if claim == CLAIM3:
        assert v[CLAIM4].holds


def test_paper_claims_say_where_they_fail():
    v = _verdicts({MIPS[0]: [1000, 100, 11, 6, 3.5, 0.3]})  # M = 2 loses at 0.1, 0.2, 0.3
    assert v[CLAIM1].where == (FailRange(2, 0.1, 0.3, 3),)
    assert (v[CLAIM1].failed, v[CLAIM1].passed) == (3, 9)
    v = _verdicts({MIPS[2]: [60, 10, 12, 0.7, 5, 0.1]})  # M = 6 at 0.01, 0.1 and 0.3: three runs
    assert v[CLAIM2].where == (
        FailRange(6, 0.01, 0.01, 1),
        FailRange(6, 0.1, 0.1, 1),
        FailRange(6, 0.3, 0.3, 1),
    )
    v = _verdicts({DP_PAPER: [50, 20, 10, 0.9, 0.8, 2]})
    assert v[CLAIM3].where == (FailRange(None, 0.2, 0.3, 2),) and v[CLAIM3].dp_min == 0.8


@pytest.mark.parametrize(
    "curve, holds",
    [
        ([40, 15, 0.5, 4, 0.9, 0.5], True),  # dips at 0.1, stays below from 0.3 (boundary)
        ([40, 15, 0.9, 0.8, 0.6, 0.5], True),  # from 0.1 (boundary)
        ([40, 15, 5, 1.0, 0.6, 0.5], True),  # exactly 1 is not below 1: from 0.3
        # below 1 from 0.05 on: "below 1 for η ≈ 0.2 and larger" holds, and more. (Judged
        # "too early", i.e. failing, before; an earlier start is now a stronger result.)
        ([40, 0.9, 0.8, 0.7, 0.6, 0.5], True),
    ],
)
def test_paper_claims_claim4_boundaries(curve, holds):
    v = _verdicts(dict.fromkeys(MIPS, curve))
    assert v[CLAIM4].holds is holds


def test_paper_claims_claim2_needs_M4_or_6_and_all_variants():
    v = _verdicts(Ms=(2,))
    assert len(v) == 3 and Claim.M46_BEAT_DP_EVERYWHERE not in {x.claim for x in v}
    # every MIP calibration x every DP calibration (claims 1-2); DP alone (3); MIP alone (4)
    curves = {k: list(v) for k, v in BASE.items()}
    for k in MIPS:
        curves[("mip", k[1], "as_printed", None)] = curves[k]
    curves[("dpsgd", None, None, "tight")] = [1, 1, 1, 0.5, 0.5, 0.5]
    v = paper_claims(_summary(curves), (2, 4, 6), (PAPER_C, PRINTED), (PAPER, TIGHT))
    assert len(v) == 2 * 2 * 2 + 2 + 2
    for x in v:
        if x.claim in (Claim.MIP_BEATS_DP_FROM_01, Claim.M46_BEAT_DP_EVERYWHERE):
            assert x.holds is (x.dp is PAPER)  # DP at 0.5-1: MIP loses claims 1-2
        elif x.claim is Claim.DP_NEVER_BELOW_1:
            assert x.mip is None and x.holds is (x.dp is PAPER)
        else:
            assert x.dp is None and x.holds


# --------------------------------------------------------------------------- config validation


@pytest.mark.parametrize(
    "changes, name",
    [
        (dict(d=0), "d"),
        (dict(d=21), "d"),
        (dict(d=2.5), "d"),
        (dict(n=7), "n"),
        (dict(seed=-1), "seed"),
        (dict(B=1), "B"),
        (dict(R=0), "R"),
        (dict(Ms=()), "Ms"),
        (dict(Ms=(1,)), "M"),
        (dict(Ms=(2, 65)), "M"),
        (dict(etas=()), "etas"),
        (dict(etas=(0.0,)), "etas"),
        (dict(etas=(0.5,)), "etas"),
        (dict(etas=(0.1, 0.6)), "etas"),
        (dict(etas=(1e-7,)), "etas"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(T=0), "T"),
        (dict(lr=0.0), "lr"),
        (dict(lr=0.6), "lr"),
        (dict(clip_rule="mean"), "clip_rule"),
        (dict(clip_rule="fixed"), "clip_value"),
        (dict(clip_rule="fixed", clip_value=-1.0), "clip_value"),
        (dict(clip_rule="fixed", clip_value=0.0), "clip_value"),
        (dict(clip_rule="fixed", clip_value=math.inf), "clip_value"),
        (dict(dp_calibrations=("paper", "loose")), "dp_calibrations"),
        (dict(mip_calibrations=("laplace",)), "mip_calibrations"),
        (dict(constant=6.0), "constant"),
    ],
)
def test_config_validation_names_the_field(changes, name):
    with pytest.raises(ValueError, match=rf"\b{name}"):
        dataclasses.replace(ExperimentConfig(), **changes).validated()


def test_config_without_the_paper_route_allows_eta_below_half_delta():
    cfg = ExperimentConfig(etas=(1e-7,), dp_calibrations=("tight",))
    assert cfg.validated().dp_calibrations == (TIGHT,)


def test_config_defaults_and_presets_are_valid():
    cfg = ExperimentConfig()
    assert cfg.validated() is cfg
    assert cfg.B == 128 and cfg.Ms == (2, 4, 6) and cfg.d == 3  # Section 5.2's settings
    assert dataclasses.asdict(cfg)["etas"] == cfg.etas and (cfg.m, cfg.p) == (10_000, 9)
    for preset in PRESETS.values():
        assert preset.validated() is preset
    assert PRESETS["Paper"].n == 500_000 and PRESETS["Paper"].R == 10


def test_config_normalises_enums_and_legacy_names():
    cfg = ExperimentConfig(
        clip_rule="trajectory_median",
        dp_calibrations=("tight", "paper", "tight"),
        mip_calibrations=("tight", "theorem9", "as_printed"),
    ).validated()
    assert cfg.clip_rule is ClipRule.TRAJECTORY_MEDIAN
    assert cfg.dp_calibrations == (PAPER, TIGHT)  # enum order, no repeats
    assert cfg.mip_calibrations == (PAPER_C, PRINTED, SMALLEST)


# --------------------------------------------------------------------------- the cost model


def test_work_counts_the_operations():
    cfg = ExperimentConfig(n=10_001, R=2, B=16, T=7, etas=(0.1, 0.2, 0.3))
    w = work(cfg)
    K = 1 + 2 * 3
    assert w.split_rows == 2 * 16 * 5_000 and w.traj_rows == 2 * 5_000 * 7 * (K + 1)
    assert w.runs == 2 and w.curves == 2 + 2 + 3 * 3
    traj = work(dataclasses.replace(cfg, clip_rule="trajectory_median"))
    assert traj.traj_rows == 2 * 5_000 * (7 * (K + 1) + 7)  # the trajectory's median: T more
    d6 = work(dataclasses.replace(cfg, d=6))
    assert d6.traj_rows == pytest.approx(w.traj_rows * (27 + 36) / 36)


@pytest.mark.parametrize("field, value", [("n", 40_000), ("R", 6), ("T", 40), ("B", 256)])
def test_work_grows_with_every_size(field, value):
    base = ExperimentConfig()
    assert work(dataclasses.replace(base, **{field: value})).units > work(base).units


def test_estimate_is_linear_in_the_speed():
    w = work(PRESETS["Paper"])
    assert estimate_seconds(w, NOMINAL_SPEED) == pytest.approx(w.units)
    assert estimate_seconds(PRESETS["Paper"], NOMINAL_SPEED) == w.units
    assert estimate_seconds(w, speed_factor(3.0)) == pytest.approx(3 * w.units)
    assert speed_factor(1.0) == NOMINAL_SPEED
    for bad in (0.0, -1.0, math.inf, float("nan")):
        with pytest.raises(ValueError, match="factor"):
            speed_factor(bad)


def test_ceiling_admits_the_presets_and_refuses_the_slider_extremes():
    assert work(PRESETS["Quick"]).units < 2 < work(PRESETS["Paper"]).units < WORK_CEILING / 2.5
    grid = tuple(float(x) for x in np.linspace(0.01, 0.45, 40))
    biggest = ExperimentConfig(n=1_000_000, R=30, T=200, B=512, d=8, etas=grid)
    assert work(biggest).units > 50 * WORK_CEILING  # about 95 times the ceiling


def test_measure_speed_scales_the_nominal_rates():
    speed = measure_speed(rows=2_000, repeats=1)
    factor = speed.fixed / NOMINAL_SPEED.fixed
    assert factor > 0
    for name in ("split_row", "traj_row", "run"):
        assert getattr(speed, name) == pytest.approx(factor * getattr(NOMINAL_SPEED, name))
    with pytest.raises(ValueError, match="rows"):
        measure_speed(rows=10)
    with pytest.raises(ValueError, match="repeats"):
        measure_speed(repeats=0)


def test_probe_plan_is_a_valid_small_run():
    plan = cv._probe_plan(2_000)
    assert plan.config.validated() == plan.config and plan.config.m == 2_000
    assert len(simulate(plan)) == len(plan.config.etas) * (2 + 3 + 2)
