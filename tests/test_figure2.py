"""Tests for mipcore.lessons.figure2 and mipcore.covariance_gd: the Section 5.2 (Figure 2) synthetic-covariance experiment.

Source: ``000_ece03c98c31c7b12.txt`` Section 5.2; DP-SGD (Abadi et al. 2016); the
Gaussian-mechanism privacy profile (Balle & Wang 2018, Theorem 8):
``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` for sensitivity 1 and
noise std 1/mu, which is also what ``dp_accounting.gaussian_mechanism`` inverts.

References here are direct computations on small cases (explicit d x d matrices and
per-row Python loops), never the module's own vectorised shortcuts. Statistical checks use
fixed seeds and tolerances derived from the sample size (KS / chi-square at
``ALPHA = 1e-4``, means within 5 standard errors).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from dp_accounting.gaussian_mechanism import get_epsilon_gaussian
from scipy import stats
from scipy.stats import norm

from mipcore.bounds import epsilon_from_eta, eta_from_epsilon
from mipcore.covariance_gd import (
    gd_closed_form,
    gd_iterate,
    make_sigma,
    outer_products,
    sample_data,
)
from mipcore.lessons.figure2 import (
    CALIBRATIONS,
    CLIP_RULES,
    ExperimentConfig,
    Verdict,
    _per_example_norms,
    clip_norm,
    dp_noise_multiplier,
    dpsgd,
    gdp_eta,
    half_split_grams,
    paper_claims,
    run_experiment,
    summarize,
)
from mipcore.mechanism import RADIUS_VARIANTS

ALPHA = 1e-4


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
        assert gdp_eta(mu) == pytest.approx(eta, abs=1e-12)


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
    assert set(CLIP_RULES) == {"initial_median", "trajectory_median", "fixed"}


# --------------------------------------------------------------------------- the experiment

SMALL = ExperimentConfig(d=2, n=400, seed=3, B=8, R=2, Ms=(2, 4), etas=(0.05, 0.2, 0.4), T=5)
COLUMNS = ["run", "eta", "method", "M", "radius", "calibration", "z", "C", "rel_error"]


@pytest.fixture(scope="module")
def small_results():
    calls = []
    df = run_experiment(SMALL, progress=lambda f, msg: calls.append((f, msg)))
    return df, calls


def test_run_experiment_shape_and_columns(small_results):
    df, calls = small_results
    cfg = SMALL
    E = len(cfg.etas)
    per_run = E + len(cfg.Ms) * len(cfg.radii) * E + E + len(cfg.calibrations) * E
    assert list(df.columns) == COLUMNS
    assert len(df) == cfg.R * per_run
    counts = df["method"].value_counts().to_dict()
    assert counts == {
        "Raw": cfg.R * E,
        "MIP": cfg.R * len(cfg.Ms) * len(cfg.radii) * E,
        "DP-SGD z=0 (clipping only)": cfg.R * E,
        "DP-SGD": cfg.R * len(cfg.calibrations) * E,
    }
    # halfway through each run (after MIP) and at its end; never decreasing, ending at 1
    assert [f for f, _ in calls] == pytest.approx(
        [(r + h) / cfg.R for r in range(cfg.R) for h in (0.5, 1.0)]
    )
    assert [m for _, m in calls][:2] == ["run 1 of 2: MIP done, DP-SGD running", "run 1 of 2 done"]
    assert np.all(np.isfinite(df["rel_error"])) and np.all(df["rel_error"] >= 0)
    for _run, g in df.groupby("run"):
        assert g.loc[g.method == "Raw", "rel_error"].nunique() == 1
        assert g.loc[g.method == "DP-SGD z=0 (clipping only)", "z"].eq(0).all()
        assert g["C"].dropna().nunique() == 1
        dp = g[g.method == "DP-SGD"]
        for _, row in dp.iterrows():
            assert row["z"] == pytest.approx(
                dp_noise_multiplier(row["eta"], cfg.T, route=row["calibration"], delta=cfg.delta),
                rel=1e-12,
            )
        mip = g[g.method == "MIP"]
        assert set(zip(mip.M, mip.radius, strict=True)) == {
            (M, r) for M in cfg.Ms for r in cfg.radii
        }


def test_run_experiment_is_deterministic_by_seed(small_results):
    df, _ = small_results
    pd.testing.assert_frame_equal(df, run_experiment(SMALL))
    other = run_experiment(dataclasses.replace(SMALL, seed=4))
    assert not np.allclose(df["rel_error"].to_numpy(), other["rel_error"].to_numpy())


def test_run_experiment_fixed_clip_and_single_variants():
    cfg = dataclasses.replace(
        SMALL,
        R=1,
        clip_rule="fixed",
        clip_value=3.0,
        calibrations=("tight",),
        radii=("gamma",),
        Ms=(6,),
    )
    df = run_experiment(cfg)
    assert df["C"].dropna().eq(3.0).all()
    assert set(df["calibration"].dropna()) == {"tight"}
    assert set(df["radius"].dropna()) == {"gamma"}
    assert len(df) == 3 + 3 + 3 + 3


def _label(r):
    if r["method"] == "MIP":
        rad = "Gamma radius, Thm 9" if r["radius"] == "gamma" else "Laplace radius, as printed"
        return f"MIP M={int(r['M'])} ({rad})"
    if r["method"] == "DP-SGD":
        return f"DP-SGD ({r['calibration']} calibration)"
    return r["method"]


def test_summarize_mean_and_sem(small_results):
    df, _ = small_results
    s = summarize(df)
    d2 = df.assign(label=df.apply(_label, axis=1))
    g = d2.groupby(["label", "eta"])["rel_error"]
    want = pd.DataFrame({"mean": g.mean(), "sem": g.sem(ddof=1), "runs": g.count()}).reset_index()
    merged = s.merge(want, on=["label", "eta"], suffixes=("", "_want"), validate="one_to_one")
    assert len(merged) == len(s) == len(want)
    np.testing.assert_allclose(merged["mean"], merged["mean_want"], rtol=1e-12)
    np.testing.assert_allclose(merged["sem"], merged["sem_want"], rtol=1e-12)
    assert (merged["runs"] == merged["runs_want"]).all() and (s["runs"] == SMALL.R).all()
    one = summarize(df[df.run == 0])
    assert (one["sem"] == 0).all()


# --------------------------------------------------------------------------- paper_claims on synthetic summaries

GRID = [0.01, 0.05, 0.1, 0.2, 0.3, 0.45]
BASE = {
    "DP-SGD (paper calibration)": [50, 20, 10, 5, 3, 2],
    "MIP M=2 (Gamma radius, Thm 9)": [1000, 100, 9, 0.9, 0.5, 0.3],  # loses only below 0.1
    "MIP M=4 (Gamma radius, Thm 9)": [40, 15, 5, 0.8, 0.4, 0.2],
    "MIP M=6 (Gamma radius, Thm 9)": [30, 10, 4, 0.7, 0.3, 0.1],
}
CLAIM1, CLAIM2, CLAIM3, CLAIM4 = range(4)


def _summary(curves):
    rows = [
        dict(label=lab, method=lab.split(" ")[0], eta=e, mean=float(v), sem=0.0, runs=1)
        for lab, vals in curves.items()
        for e, v in zip(GRID, vals, strict=True)
    ]
    return pd.DataFrame(rows)


def _verdicts(changes=None, Ms=(2, 4, 6)):
    curves = {k: list(v) for k, v in BASE.items()} | (changes or {})
    return paper_claims(_summary(curves), Ms, ("gamma",), ("paper",))


def test_paper_claims_all_true_on_the_base_case():
    v = _verdicts()
    assert [x.holds for x in v] == [True, True, True, True]
    assert all(
        isinstance(x, Verdict) and x.variant == "Gamma radius (Theorem 9) vs DP-SGD (paper)"
        for x in v
    )


@pytest.mark.parametrize(
    "changes, claim",
    [
        ({"MIP M=2 (Gamma radius, Thm 9)": [1000, 100, 9, 0.9, 3.5, 0.3]}, CLAIM1),  # loses at 0.3
        ({"MIP M=2 (Gamma radius, Thm 9)": [1000, 100, 10, 0.9, 0.5, 0.3]}, CLAIM1),  # ties at 0.1
        (
            {"MIP M=6 (Gamma radius, Thm 9)": [60, 10, 4, 0.7, 0.3, 0.1]},
            CLAIM2,
        ),  # loses at 0.01 only
        ({"DP-SGD (paper calibration)": [50, 20, 10, 5, 3, 0.95]}, CLAIM3),
        (
            {k: [40, 0.9, 0.8, 0.7, 0.6, 0.5] for k in list(BASE)[1:]},
            CLAIM4,
        ),  # below 1 from 0.05: too early
        ({k: [40, 15, 5, 4, 3, 1.5] for k in list(BASE)[1:]}, CLAIM4),  # never below 1
        ({k: [40, 15, 5, 4, 3, 0.5] for k in list(BASE)[1:]}, CLAIM4),  # only from 0.45: too late
        ({k: [40, 15, 0.5, 4, 3, 1.5] for k in list(BASE)[1:]}, CLAIM4),  # a dip that does not stay
    ],
)
def test_paper_claims_false_cases(changes, claim):
    v = _verdicts(changes)
    assert not v[claim].holds, v[claim]
    assert v[claim].evidence
    # the unaffected claims keep their verdicts where the change cannot touch them
    if claim == CLAIM2:
        assert v[CLAIM1].holds and v[CLAIM3].holds and v[CLAIM4].holds
    if claim == CLAIM3:
        assert v[CLAIM4].holds


@pytest.mark.parametrize(
    "curve, holds",
    [
        ([40, 15, 0.5, 4, 0.9, 0.5], True),  # dips at 0.1, stays below from 0.3 (boundary)
        ([40, 15, 0.9, 0.8, 0.6, 0.5], True),  # from 0.1 (boundary)
        ([40, 15, 5, 1.0, 0.6, 0.5], True),  # exactly 1 is not below 1: from 0.3
    ],
)
def test_paper_claims_claim4_boundaries(curve, holds):
    v = _verdicts(dict.fromkeys(list(BASE)[1:], curve))
    assert v[CLAIM4].holds is holds


def test_paper_claims_claim2_needs_M4_or_6_and_all_variants():
    v = _verdicts(Ms=(2,))
    assert len(v) == 3 and all("{4, 6}" not in x.claim for x in v)
    # every radius x every calibration
    curves = {k: list(v) for k, v in BASE.items()}
    for lab in list(curves):
        if lab.startswith("MIP"):
            curves[lab.replace("Gamma radius, Thm 9", "Laplace radius, as printed")] = curves[lab]
    curves["DP-SGD (tight calibration)"] = [1, 1, 1, 0.5, 0.5, 0.5]
    v = paper_claims(_summary(curves), (2, 4, 6), RADIUS_VARIANTS, CALIBRATIONS)
    assert len(v) == 2 * 2 * 4
    by_variant = {}
    for x in v:
        by_variant.setdefault(x.variant, []).append(x.holds)
    assert len(by_variant) == 4
    for variant, holds in by_variant.items():
        if "(paper)" in variant:
            assert holds == [True, True, True, True]
        else:  # DP at 0.5-1: MIP loses claims 1-2 and DP gets below 1
            assert holds[:3] == [False, False, False] and holds[3]


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
        (dict(calibrations=("paper", "loose")), "calibrations"),
        (dict(radii=("laplace",)), "radii"),
        (dict(constant=6.0), "constant"),
    ],
)
def test_config_validation_names_the_field(changes, name):
    with pytest.raises(ValueError, match=rf"\b{name}"):
        dataclasses.replace(ExperimentConfig(), **changes).validated()


def test_config_defaults_and_presets_are_valid():
    cfg = ExperimentConfig()
    assert cfg.validated() is cfg
    assert cfg.B == 128 and cfg.Ms == (2, 4, 6) and cfg.d == 3  # Section 5.2's settings
    assert cfg.as_dict()["etas"] == cfg.etas
    from mipcore.lessons.figure2 import PRESETS

    for preset in PRESETS.values():
        preset.validated()
    assert PRESETS["Paper"].n == 500_000 and PRESETS["Paper"].R == 10


@pytest.mark.parametrize("M", [1, 2, 4, 6, 12])
@pytest.mark.parametrize("radius", ["gamma", "as_printed"])
def test_mip_label_round_trips(M, radius):
    from mipcore.lessons.figure2 import mip_label, mip_label_parts

    assert mip_label_parts(mip_label(M, radius)) == (M, radius)


def test_other_labels_are_not_mip_labels():
    from mipcore.lessons.figure2 import dp_label, mip_label, mip_label_parts

    for label in (
        "Raw",
        dp_label("paper"),
        "DP-SGD z=0 (clipping only)",
        "MIP M=4 (something else)",
        "MIP M=x (Gamma radius, Thm 9)",
    ):
        assert mip_label_parts(label) is None, label
    with pytest.raises(ValueError, match="radius="):
        mip_label(2, "uniform")
