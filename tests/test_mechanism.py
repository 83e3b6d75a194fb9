"""Tests for mipcore.mechanism: Corollary 10 noise, Algorithm 1's sigma estimate, mip_release.

Source: Izzo, Yoon, Arık, Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582, Section 4 (Theorem 9, Corollary 10, Algorithm 1), and its two printed
slips there (the Laplace radius; ``(theta - theta_bar)^M`` without ``|.|``).

What the sampler must do (derived here, not read off the implementation):

* Theorem 9 needs X with density proportional to ``exp(-||X||/c)`` in the norm
  ``||x|| = (sum_i |x_i|^M / (d sigma_i^M))^(1/M)``. Writing ``X = R U`` (``R = ||X||``),
  the ball ``{||x|| <= r}`` has volume ``r^d`` times the unit ball's, so R has density
  ``r^(d-1) exp(-r/c)``: **R ~ Gamma(shape d, scale c)**, and U is independent of R with
  the cone measure of the unit sphere.
* For the cone measure of this (weighted l_M) sphere the vector
  ``(|U_i/sigma_i|^M / d)_i`` is Dirichlet(1/M, ..., 1/M) (Schechtman-Zinn /
  Rachev-Rueschendorf: normalise i.i.d. GenNormal(0, 1, M) coordinates), so
  **W_1 = |U_1/sigma_1|^M / d ~ Beta(1/M, (d-1)/M)**.
* The printed variant ``r ~ Laplace(c)`` gives ``||X|| = |r| ~ Exponential(c)``; in d = 1
  both are Laplace(0, c sigma) for X itself.

Statistical tolerances (all seeds fixed):

* Distribution checks are Kolmogorov-Smirnov (or chi-square) tests with N = 10^5 draws
  that must not reject at ``ALPHA = 1e-4`` (about 50 such tests in the three test modules:
  family-wise false-alarm rate <= 0.5 % for a correct sampler; with N = 10^5 a KS test
  at this level detects a CDF error of about ``sqrt(log(2/ALPHA)/(2N)) = 0.007``).
* Moment checks use ``|mean - expected| <= 5 sd / sqrt(N)`` with sd the *known* standard
  deviation of the quantity (two-sided 5-sigma: false alarm ~ 6e-7).
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest
from scipy import stats

from mipcore._validate import as_generator
from mipcore.mechanism import (
    RADIUS_VARIANTS,
    MipCalibration,
    MIPRelease,
    certified_level,
    estimate_sigma,
    mip_release,
    noise_multiplier_for,
    random_half,
    sample_noise,
)
from mipcore.noise import COROLLARY14_CONSTANT, THEOREM9_CONSTANT
from mipcore.noise_laws import Radius, sigma_norm

ALPHA = 1e-4
N = 100_000
ETA = 0.25


def _c(eta=ETA, M=2, constant=COROLLARY14_CONSTANT) -> float:
    """c = (constant/eta)^(1+2/M), written out here (not via mipcore)."""
    return (constant / eta) ** (1.0 + 2.0 / M)


def _sigma_vec(d: int) -> np.ndarray:
    """Deliberately unequal per-coordinate scales (0.3 ... 3)."""
    return np.geomspace(0.3, 3.0, d) if d > 1 else np.array([1.7])


def _norm(x, sigma, M):
    """||x||_{sigma,M} straight from Corollary 10's definition."""
    x = np.asarray(x, dtype=float)
    d = sigma.size
    return (np.sum(np.abs(x) ** M / (d * sigma**M), axis=-1)) ** (1.0 / M)


# --------------------------------------------------------------------------- the norm


def test_sigma_norm_matches_definition_and_is_a_norm():
    gen = np.random.default_rng(1)
    for d in (1, 3, 9):
        s = _sigma_vec(d)
        for M in (2, 3, 4, 6):
            x = gen.standard_normal((50, d)) * 5
            y = gen.standard_normal((50, d)) * 5
            nx = sigma_norm(x, s, M)
            np.testing.assert_allclose(nx, _norm(x, s, M), rtol=1e-12)
            # homogeneity and triangle inequality
            np.testing.assert_allclose(sigma_norm(-2.5 * x, s, M), 2.5 * nx, rtol=1e-12)
            assert np.all(sigma_norm(x + y, s, M) <= nx + sigma_norm(y, s, M) + 1e-12)
    # no overflow for huge coordinates / large M (scaled internally)
    big = np.array([1e300, 1e300])
    assert math.isclose(float(sigma_norm(big, np.ones(2), 6)), 1e300, rel_tol=1e-12)
    assert float(sigma_norm(np.zeros(3), np.ones(3), 4)) == 0.0


# --------------------------------------------------------------------------- sample_noise: radius law


@pytest.mark.parametrize("d", [1, 3, 9])
@pytest.mark.parametrize("M", [2, 3, 4, 6])
def test_theorem9_radius_is_gamma_d_c_and_U_on_unit_sphere(d, M):
    s = _sigma_vec(d)
    c = _c(ETA, M)
    X = sample_noise(s, ETA, M, size=N, rng=1000 * d + M)
    assert X.shape == (N, d)
    assert np.all(np.isfinite(X))
    R = _norm(X, s, M)
    res = stats.kstest(R, stats.gamma(a=d, scale=c).cdf)
    assert res.pvalue > ALPHA, (d, M, res)
    U = X / R[:, None]
    np.testing.assert_allclose(_norm(U, s, M), 1.0, atol=1e-12, rtol=0)
    np.testing.assert_allclose(sigma_norm(U, s, M), 1.0, atol=1e-12, rtol=0)


@pytest.mark.parametrize("d", [2, 3, 9])
@pytest.mark.parametrize("M", [2, 3, 4, 6])
def test_direction_follows_the_cone_measure_and_is_independent_of_radius(d, M):
    """W_1 = |U_1/sigma_1|^M / d ~ Beta(1/M, (d-1)/M), and Spearman(R, W_1) ~ 0."""
    s = _sigma_vec(d)
    X = sample_noise(s, ETA, M, size=N, rng=2000 * d + M)
    R = _norm(X, s, M)
    W = np.abs(X[:, 0] / R / s[0]) ** M / d
    res = stats.kstest(W, stats.beta(1.0 / M, (d - 1.0) / M).cdf)
    assert res.pvalue > ALPHA, (d, M, res)
    # Under independence Spearman's rho has sd 1/sqrt(N-1).
    rho = stats.spearmanr(R, W).statistic
    assert abs(rho) <= 5.0 / math.sqrt(N - 1), rho


def test_d2_density_is_a_function_of_the_norm_only():
    """d = 2, M = 2: density exp(-||x||/c) means X/sigma (coordinate-wise) is isotropic:
    its angle is uniform on (-pi, pi] and its Euclidean length is Gamma(2, sqrt(2) c)."""
    s = np.array([0.5, 4.0])
    c = _c(ETA, 2)
    X = sample_noise(s, ETA, 2, size=N, rng=7)
    Z = X / s
    angle = np.arctan2(Z[:, 1], Z[:, 0])
    assert stats.kstest(angle, stats.uniform(-math.pi, 2 * math.pi).cdf).pvalue > ALPHA
    assert (
        stats.kstest(
            np.hypot(Z[:, 0], Z[:, 1]), stats.gamma(a=2, scale=math.sqrt(2) * c).cdf
        ).pvalue
        > ALPHA
    )


@pytest.mark.parametrize(
    "radius, mean_factor, sd_factor",
    [
        ("paper", 2.0, math.sqrt(2.0)),  # Gamma(2, c): mean 2c, sd sqrt(2) c
        ("as_printed", 1.0, 1.0),  # |Laplace(c)| = Exp(c): mean c, sd c
    ],
)
def test_mean_norm_d2(radius, mean_factor, sd_factor):
    s = np.array([1.0, 2.0])
    M = 4
    c = _c(ETA, M)
    X = sample_noise(s, ETA, M, size=N, rng=11, calibration=radius)
    R = _norm(X, s, M)
    assert abs(R.mean() - mean_factor * c) <= 5 * sd_factor * c / math.sqrt(N)


@pytest.mark.parametrize("d", [1, 3, 9])
@pytest.mark.parametrize("M", [2, 4])
def test_as_printed_radius_is_exponential(d, M):
    s = _sigma_vec(d)
    c = _c(ETA, M)
    X = sample_noise(s, ETA, M, size=N, rng=3000 * d + M, calibration="as_printed")
    R = _norm(X, s, M)
    res = stats.kstest(R, stats.expon(scale=c).cdf)
    assert res.pvalue > ALPHA, (d, M, res)
    if d > 1:  # and it is *not* the Gamma(d, c) law Theorem 9 needs
        assert stats.kstest(R, stats.gamma(a=d, scale=c).cdf).pvalue < ALPHA


@pytest.mark.parametrize("M", [2, 3, 6])
def test_d1_both_variants_are_laplace(M):
    sigma = 1.7
    c = _c(ETA, M)
    a = sample_noise([sigma], ETA, M, size=N, rng=21)[:, 0]
    b = sample_noise([sigma], ETA, M, size=N, rng=22, calibration="as_printed")[:, 0]
    assert stats.ks_2samp(a, b).pvalue > ALPHA
    lap = stats.laplace(loc=0.0, scale=c * sigma).cdf
    assert stats.kstest(a, lap).pvalue > ALPHA
    assert stats.kstest(b, lap).pvalue > ALPHA


def test_constant_7_5_and_M_below_2():
    """Theorem 9's constant 7.5 allows any M > 0 (here M = 1): radius Gamma(d, (7.5/eta)^3)."""
    s = _sigma_vec(3)
    X = sample_noise(s, 0.4, 1, size=N, rng=5, constant=THEOREM9_CONSTANT)
    c = _c(0.4, 1, THEOREM9_CONSTANT)
    assert stats.kstest(_norm(X, s, 1), stats.gamma(a=3, scale=c).cdf).pvalue > ALPHA


# --------------------------------------------------------------------------- sample_noise: scaling, seeds, shapes


def test_coordinates_scale_with_sigma():
    """Y_i = sign |G_i|^(1/M) sigma_i and U = Y/||Y||: with the same seed X(k sigma) = k X(sigma)."""
    s = _sigma_vec(5)
    for radius in ("paper", "as_printed", "tight"):
        x1 = sample_noise(s, ETA, 4, size=1000, rng=3, calibration=radius)
        np.testing.assert_array_equal(
            sample_noise(2 * s, ETA, 4, size=1000, rng=3, calibration=radius), 2 * x1
        )
        np.testing.assert_allclose(
            sample_noise(3 * s, ETA, 4, size=1000, rng=3, calibration=radius),
            3 * x1,
            rtol=1e-12,
            atol=0,
        )
    # X_i / sigma_i are exchangeable, so they have the same law (compare independent halves).
    X = sample_noise(s, ETA, 4, size=N, rng=4)
    half = N // 2
    assert stats.ks_2samp(X[:half, 0] / s[0], X[half:, 4] / s[4]).pvalue > ALPHA


def test_reproducible_by_seed_and_shapes():
    s = _sigma_vec(3)
    a = sample_noise(s, 0.1, 2, size=10, rng=123)
    np.testing.assert_array_equal(a, sample_noise(s, 0.1, 2, size=10, rng=123))
    np.testing.assert_array_equal(
        a, sample_noise(s, 0.1, 2, size=10, rng=np.random.default_rng(123))
    )
    assert not np.array_equal(a, sample_noise(s, 0.1, 2, size=10, rng=124))
    one = sample_noise(s, 0.1, 2, rng=123)
    assert one.shape == (3,)
    np.testing.assert_array_equal(one, sample_noise(s, 0.1, 2, size=1, rng=123)[0])
    assert sample_noise(2.0, 0.1, 2, rng=0).shape == (1,)
    # a shared Generator advances: two calls give different draws
    gen = np.random.default_rng(9)
    assert not np.array_equal(sample_noise(s, 0.1, 2, rng=gen), sample_noise(s, 0.1, 2, rng=gen))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(eta=0.0), "eta"),
        (dict(eta=-0.1), "eta"),
        (dict(eta=0.5000001), "eta"),
        (dict(eta=math.nan), "eta"),
        (dict(sigma=[1.0, 0.0]), "sigma"),
        (dict(sigma=[1.0, -2.0]), "sigma"),
        (dict(sigma=[1.0, math.inf]), "sigma"),
        (dict(sigma=[[1.0, 2.0]]), "sigma"),
        (dict(calibration="laplace"), "calibration"),
        (dict(M=1.5), "M"),  # constant 6.16 needs M >= 2
        (dict(M=0), "M"),
        (dict(size=0), "size"),
        (dict(size=2.5), "size"),
        (dict(constant=5.0), "constant"),
    ],
)
def test_sample_noise_errors_name_the_parameter(kwargs, name):
    args = dict(sigma=[1.0, 2.0], eta=0.2, M=2, rng=0) | kwargs
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        sample_noise(args.pop("sigma"), args.pop("eta"), args.pop("M"), **args)


@pytest.mark.parametrize("bad", [None, 1.5, -1, True, "0", np.random.RandomState(0)])
def test_rng_must_be_generator_or_int(bad):
    with pytest.raises(ValueError, match="rng"):
        sample_noise([1.0], 0.2, rng=bad)
    with pytest.raises(ValueError, match="rng"):
        as_generator(bad)
    with pytest.raises(TypeError):
        sample_noise([1.0], 0.2)  # rng is required (keyword-only, no default)


def test_ragged_algorithm_output_gets_a_sentence():
    """Regression (fixed): estimate_sigma's own check ``thetas.ndim != 2`` ("algorithm must return vectors of the
    same length on every half") is dead code: ``np.asarray`` of ragged vectors raises first
    (NumPy >= 1.24) with "setting an array element with a sequence ... inhomogeneous shape".
    Fix: check the lengths before stacking, e.g.
    ``if len({np.size(t) for t in results}) != 1: raise ValueError("algorithm must return ...")``."""
    ragged = np.column_stack([np.r_[np.ones(10), -np.ones(10)], np.zeros(20)])
    with pytest.raises(ValueError, match="same length"):
        estimate_sigma(ragged, alg_ragged, B=30, rng=0)


def test_large_M_gives_finite_noise():
    """Regression (fixed): |Y_i/sigma_i|^M ~ Gamma(1/M) underflows to exactly 0 for large M (P ~ 3e-3 per draw
    at M = 128), so in d = 1 some Y = 0 and U = Y/||Y|| = 0/0 = NaN. M = 128 is inside the
    documented domain (M > 0). Drawing ``mag = Gamma(1 + 1/M)^(1/M) * (1 - Uniform)``
    (the shape-boost identity Gamma(a) = Gamma(a+1) U^(1/a)) never underflows."""
    with (
        warnings.catch_warnings()
    ):  # the old code also warned on 0/0; the assertion is what matters
        warnings.simplefilter("ignore")
        X = sample_noise([1.0], 0.3, 128, size=10_000, rng=0)
    assert np.all(np.isfinite(X)), f"{int(np.sum(~np.isfinite(X)))} non-finite draws"


# --------------------------------------------------------------------------- random_half


def test_random_half():
    for n in (2, 3, 10, 11):
        idx = random_half(n, 5)
        assert idx.size == n // 2
        assert np.all(np.diff(idx) > 0) and idx.min() >= 0 and idx.max() < n
    with pytest.raises(ValueError, match="n_rows"):
        random_half(1, 0)
    # uniform inclusion: each row in a half of 10 with probability 1/2
    gen = np.random.default_rng(0)
    K = 20_000
    counts = np.zeros(10)
    for _ in range(K):
        counts[random_half(10, gen)] += 1
    assert np.all(np.abs(counts / K - 0.5) <= 5 * math.sqrt(0.25 / K))


# --------------------------------------------------------------------------- estimate_sigma


def alg_mean_and_skew(rows: np.ndarray) -> np.ndarray:
    """Module-level (picklable) base algorithm: the mean and the max of column 0, and a
    constant. The max of a half is skewed, so odd central moments are not zero."""
    rows = np.asarray(rows, dtype=float)
    return np.array([rows[:, 0].mean(), rows[:, 1].mean(), -rows[:, 0].max(), 3.0])


def alg_nonfinite(rows: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.array([np.log(rows[:, 0].min())])  # -inf when a 0 is in the half


def alg_ragged(rows: np.ndarray) -> np.ndarray:
    """Length 1 or 2 depending on the half (column 0 is +-1, ten of each)."""
    return np.zeros(1 + int(rows[:, 0].sum() > 0))


def _data(n=60, seed=0):
    gen = np.random.default_rng(seed)
    return np.column_stack([gen.exponential(1.0, n), gen.standard_normal(n)])


def _direct_sigma(data, alg, B, M, seed):
    gen = np.random.default_rng(seed)
    thetas = np.array([alg(data[random_half(data.shape[0], gen)]) for _ in range(B)])
    dev = np.abs(thetas - thetas.mean(axis=0))
    return (np.mean(dev**M, axis=0)) ** (1.0 / M), thetas


@pytest.mark.parametrize("M", [2, 3, 4, 6])
def test_estimate_sigma_equals_direct_loop(M):
    data = _data()
    want, _ = _direct_sigma(data, alg_mean_and_skew, 50, M, 17)
    got = estimate_sigma(data, alg_mean_and_skew, B=50, M=M, rng=17)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert got[3] == 0.0  # a constant coordinate gets sigma 0
    np.testing.assert_array_equal(got, estimate_sigma(data, alg_mean_and_skew, B=50, M=M, rng=17))
    assert not np.array_equal(got, estimate_sigma(data, alg_mean_and_skew, B=50, M=M, rng=18))
    np.testing.assert_array_equal(
        got, estimate_sigma(data, alg_mean_and_skew, B=50, M=M, rng=np.random.default_rng(17))
    )


def test_estimate_sigma_odd_M_uses_absolute_deviations():
    """Algorithm 1 prints (theta - theta_bar)^M; with M = 3 and a skewed statistic the signed
    average is negative (checked here), so the printed formula has no real cube root.
    |theta - theta_bar|^M gives a positive sigma."""
    data = _data()
    _, thetas = _direct_sigma(data, alg_mean_and_skew, 200, 3, 4)
    signed = np.mean((thetas - thetas.mean(axis=0)) ** 3, axis=0)
    assert signed[2] < 0  # the case the slip gets wrong
    got = estimate_sigma(data, alg_mean_and_skew, B=200, M=3, rng=4)
    assert np.all(got[:3] > 0) and np.all(np.isfinite(got))
    np.testing.assert_allclose(
        got[2], np.mean(np.abs(thetas[:, 2] - thetas[:, 2].mean()) ** 3) ** (1 / 3), rtol=1e-12
    )


def test_estimate_sigma_with_executors_gives_the_same_numbers():
    data = _data(40)
    plain = estimate_sigma(data, alg_mean_and_skew, B=24, M=4, rng=99)
    with ThreadPoolExecutor(max_workers=2) as ex:
        threaded = estimate_sigma(data, alg_mean_and_skew, B=24, M=4, rng=99, executor=ex)
    with ProcessPoolExecutor(max_workers=2) as ex:
        processes = estimate_sigma(data, alg_mean_and_skew, B=24, M=4, rng=99, executor=ex)
    np.testing.assert_array_equal(plain, threaded)
    np.testing.assert_array_equal(plain, processes)


def test_estimate_sigma_is_consistent_for_the_mean():
    """For the mean of a half of size h of n values, sampling without replacement gives
    Var = S^2/h (1 - h/n) with S^2 the (n-1)-variance. The estimator divides by B, so its
    expectation is (B-1)/B of that; its relative sd is sqrt((kurt - 1)/B) with kurt the
    kurtosis of the half-means (estimated from the same draws)."""
    gen = np.random.default_rng(3)
    y = gen.standard_normal(200) ** 2  # skewed data
    n, h, B = y.size, y.size // 2, 4000
    var_true = y.var(ddof=1) / h * (1 - h / n) * (B - 1) / B
    sig = estimate_sigma(y[:, None], lambda r: r.mean(axis=0), B=B, M=2, rng=8)
    _, thetas = _direct_sigma(y[:, None], lambda r: r.mean(axis=0), B, 2, 8)
    kurt = stats.kurtosis(thetas[:, 0], fisher=False)
    rel_sd = math.sqrt((kurt - 1) / B)
    assert abs(sig[0] ** 2 / var_true - 1) <= 5 * rel_sd


def test_estimate_sigma_errors():
    data = _data(20)
    data_with_zero = data.copy()
    data_with_zero[::2, 0] = 0.0
    with pytest.raises(ValueError, match="non-finite"):
        estimate_sigma(data_with_zero, alg_nonfinite, B=10, rng=0)
    with pytest.raises(ValueError, match=r"nan|non-finite"):
        estimate_sigma(data, lambda r: np.array([np.nan]), B=4, rng=0)
    ragged = np.column_stack([np.r_[np.ones(10), -np.ones(10)], np.zeros(20)])
    with pytest.raises(ValueError):
        estimate_sigma(ragged, alg_ragged, B=30, rng=0)
    with pytest.raises(ValueError, match="B"):
        estimate_sigma(data, alg_mean_and_skew, B=1, rng=0)
    with pytest.raises(ValueError, match="M"):
        estimate_sigma(data, alg_mean_and_skew, M=0, rng=0)
    with pytest.raises(ValueError, match="data"):
        estimate_sigma(data[:1], alg_mean_and_skew, rng=0)
    with pytest.raises(ValueError, match="rng"):
        estimate_sigma(data, alg_mean_and_skew, rng=None)


# --------------------------------------------------------------------------- mip_release


def test_mip_release_replicates_algorithm_1():
    """Replicate Algorithm 1 step by step with the same Generator sequence: training half,
    theta on it, sigma from B halves *of the training half*, Corollary 10 noise."""
    data = _data(80, seed=5)
    eta, M, B = 0.2, 4, 32
    rel = mip_release(data, alg_mean_and_skew, eta, M=M, B=B, rng=31)
    assert isinstance(rel, MIPRelease)

    gen = np.random.default_rng(31)
    train = random_half(80, gen)
    theta = alg_mean_and_skew(data[train])
    sigma = estimate_sigma(data[train], alg_mean_and_skew, B=B, M=M, rng=gen)
    live = sigma > 0
    noise = np.zeros_like(theta)
    noise[live] = sample_noise(sigma[live], eta, M, rng=gen)

    np.testing.assert_array_equal(rel.train_index, train)
    assert rel.train_index.size == 40 and np.unique(rel.train_index).size == 40
    np.testing.assert_array_equal(rel.theta, theta)
    np.testing.assert_array_equal(rel.sigma, sigma)
    np.testing.assert_array_equal(rel.noise, noise)
    np.testing.assert_array_equal(rel.theta_hat, rel.theta + rel.noise)
    assert rel.c == pytest.approx(_c(eta, M), rel=1e-14)
    # the constant coordinate has sigma 0 and is released as computed
    assert rel.sigma[3] == 0.0 and rel.noise[3] == 0.0 and rel.theta_hat[3] == 3.0
    assert np.all(rel.noise[:3] != 0.0)


def test_mip_release_uses_only_the_training_half():
    data = _data(80, seed=6)
    rel = mip_release(data, alg_mean_and_skew, 0.3, B=16, rng=8)
    outside = np.setdiff1d(np.arange(80), rel.train_index)
    poisoned = data.copy()
    poisoned[outside] = 1e6  # rows outside the training half must not matter at all
    rel2 = mip_release(poisoned, alg_mean_and_skew, 0.3, B=16, rng=8)
    np.testing.assert_array_equal(rel.train_index, rel2.train_index)
    np.testing.assert_array_equal(rel.sigma, rel2.sigma)
    np.testing.assert_array_equal(rel.theta_hat, rel2.theta_hat)


def test_mip_release_a_priori_sigma_and_zero_sigma():
    data = _data(30, seed=7)
    rel = mip_release(data, alg_mean_and_skew, 0.3, sigma=[0.1, 0.0, 0.2, 0.0], rng=1)
    np.testing.assert_array_equal(rel.sigma, [0.1, 0.0, 0.2, 0.0])
    assert rel.noise[1] == 0.0 and rel.noise[3] == 0.0 and rel.noise[0] != 0.0
    allzero = mip_release(data, alg_mean_and_skew, 0.3, sigma=np.zeros(4), rng=1)
    np.testing.assert_array_equal(allzero.theta_hat, allzero.theta)
    with pytest.raises(ValueError, match="sigma"):
        mip_release(data, alg_mean_and_skew, 0.3, sigma=[0.1, 0.2], rng=1)
    with pytest.raises(ValueError, match="sigma"):
        mip_release(data, alg_mean_and_skew, 0.3, sigma=[0.1, -0.2, 0.1, 0.1], rng=1)
    with pytest.raises(ValueError, match="data"):
        mip_release(data[:3], alg_mean_and_skew, 0.3, rng=1)
    with pytest.raises(ValueError, match="eta"):
        mip_release(data, alg_mean_and_skew, 0.0, rng=1)
    with pytest.raises(ValueError, match="calibration"):
        mip_release(data, alg_mean_and_skew, 0.3, rng=1, calibration="nope")


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
def test_mip_release_noise_law_over_seeds():
    """Over many seeds the released noise of a 1-d mean is Laplace(0, c sigma_hat) given
    sigma_hat; normalised by c sigma_hat it is Laplace(0, 1) (KS on 2000 releases)."""
    data = _data(40, seed=9)
    z = []
    for seed in range(2000):
        rel = mip_release(data[:, :1], lambda r: r.mean(axis=0), 0.3, B=8, rng=seed)
        z.append(rel.noise[0] / (rel.c * rel.sigma[0]))
    assert stats.kstest(z, stats.laplace().cdf).pvalue > ALPHA


# --------------------------------------------------------------------------- Radius


def test_radius_enum_and_its_old_spelling():
    assert RADIUS_VARIANTS == ("gamma", "as_printed")
    assert Radius("gamma") is Radius.GAMMA and Radius("as_printed") is Radius.AS_PRINTED
    assert Radius("theorem9") is Radius.GAMMA  # the name before the enum (old share links)
    s = [1.0, 2.0]
    for spelling in (MipCalibration.PAPER, "paper", "gamma", "theorem9", Radius.GAMMA):
        np.testing.assert_array_equal(
            sample_noise(s, ETA, size=3, rng=4, calibration=spelling),
            sample_noise(s, ETA, size=3, rng=4),
        )
    with pytest.raises(ValueError, match=r"^calibration='laplace' is not one of"):
        sample_noise(s, ETA, rng=0, calibration="laplace")


def test_calibrations_noise_multiplier_and_certified_level():
    """PAPER and AS_PRINTED use Corollary 14's c; TIGHT the smallest certified c; the level
    certified is theorem9.certified_eta except for the printed radius in d > 1 (None)."""
    from mipcore.theorem9 import certified_eta

    c_paper = noise_multiplier_for(0.1, M=2, d=4)
    assert c_paper == pytest.approx((6.16 / 0.1) ** 2)
    assert noise_multiplier_for(0.1, M=2, d=4, calibration="as_printed") == c_paper
    c_tight = noise_multiplier_for(0.1, M=2, d=4, calibration="tight")
    assert c_tight == pytest.approx(-1 / math.log(0.8)) and c_tight < c_paper / 800
    assert certified_level(c_tight, M=2, d=4, calibration="tight") <= 0.1
    assert certified_level(c_paper, M=2, d=4) == certified_eta(c_paper, M=2, d=4)
    assert certified_level(c_paper, M=2, d=4, calibration="as_printed") is None
    assert certified_level(c_paper, M=2, d=1, calibration="as_printed") == certified_eta(
        c_paper, M=2, d=1
    )
    # the tight noise is the paper's noise scaled down: same direction law, radius Gamma(d, c)
    s = [1.0, 3.0, 0.5]
    a = sample_noise(s, 0.1, 2, size=4, rng=7, calibration="tight")
    b = sample_noise(s, 0.1, 2, size=4, rng=7)
    np.testing.assert_allclose(a, b * (c_tight / c_paper), rtol=1e-12)


def test_mip_release_reports_its_calibration_and_certified_level():
    data = _data(60, seed=3)
    rel = mip_release(data, alg_mean_and_skew, 0.2, rng=1, calibration="tight", B=16)
    d = int(np.sum(rel.sigma > 0))
    assert rel.calibration is MipCalibration.TIGHT
    assert rel.certified_eta is not None and rel.certified_eta <= 0.2
    assert rel.c == pytest.approx(noise_multiplier_for(0.2, M=2, d=d, calibration="tight"))
    printed = mip_release(data, alg_mean_and_skew, 0.2, rng=1, calibration="as_printed", B=16)
    assert printed.certified_eta is None  # the Laplace radius in d > 1: no proof covers it
