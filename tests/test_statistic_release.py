"""Tests for mipcore.experiments.statistic_release: MIP (Algorithm 1) beside the DP Laplace
mechanism on one statistic, the clipping bounds, the calibrations and the comparison.

Izzo, Yoon, Arık, Zou, *Provable Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582:
Algorithm 1, Corollary 10, Theorem 9 (certified (1 − e^{−1/c})/2 in every dimension), Corollary 14
and Theorem 4 (``ε = log((1 + 2η)/(1 − 2η))`` at δ = 0).

The sensitivities are checked by brute force: replace one row of a dataset inside the
clipping box by another (random points, all corners) and measure the L1 change of the
statistic directly. The upload parser is tested in ``test_hostile_uploads.py`` (the module's
own csv.Sniffer parser is gone).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from mipcore.experiments import statistic_release as sr
from mipcore.experiments.statistic_release import (
    HEAVY_WORK,
    MAX_WIDEN,
    STATISTICS,
    Statistic,
    Verdict,
    clipping_bounds,
    compare_generated,
    compare_releases,
    dp_l1_sensitivity,
    make_dataset,
    release_work,
    repeat_noise,
    statistic,
    theta_labels,
    wrap_statistic,
)
from mipcore.mechanism import MipCalibration, MIPRelease, mip_release
from mipcore.noise_laws import sigma_norm
from mipcore.theorem9 import certified_eta

TIGHT, PAPER, AS_PRINTED = MipCalibration.TIGHT, MipCalibration.PAPER, MipCalibration.AS_PRINTED


# --------------------------------------------------------------------------- statistics and datasets


def test_statistics():
    gen = np.random.default_rng(0)
    rows = gen.standard_normal((20, 3))
    np.testing.assert_allclose(statistic("mean")(rows), rows.mean(axis=0), rtol=1e-14)
    want = np.array(
        [[np.mean(rows[:, i] * rows[:, j]) for j in range(3)] for i in range(3)]
    ).ravel()
    np.testing.assert_allclose(statistic("covariance")(rows), want, rtol=1e-12)
    beta = np.array([0.5, 2.0, -1.0])
    y = beta[0] + rows[:, :2] @ beta[1:]
    np.testing.assert_allclose(
        statistic("linear regression")(np.column_stack([rows[:, :2], y])), beta, atol=1e-12
    )
    with pytest.raises(ValueError, match="statistic"):
        statistic("median")


def test_statistic_enum_keeps_the_url_values():
    assert STATISTICS == ("mean", "covariance", "linear regression")
    assert [s.value for s in Statistic] == list(STATISTICS)
    assert Statistic("linear regression").min_columns == 2 and Statistic.MEAN.min_columns == 1
    assert [s.has_sensitivity for s in Statistic] == [True, True, False]
    assert [s.released(4) for s in Statistic] == [4, 16, 4]


def test_theta_labels_keep_the_names_as_they_are():
    names = ["[click](http://evil)", "<b>x</b>"]
    assert theta_labels("mean", names) == ("mean([click](http://evil))", "mean(<b>x</b>)")
    assert len(theta_labels("covariance", names)) == 4
    assert theta_labels("linear regression", names) == ("intercept", "coef([click](http://evil))")


@pytest.mark.parametrize("name", STATISTICS)
def test_make_dataset(name):
    df = make_dataset(name, 50, 3, 4)
    assert df.shape == (50, 3)
    pd.testing.assert_frame_equal(df, make_dataset(name, 50, 3, 4))
    assert not df.equals(make_dataset(name, 50, 3, 5))
    if name == "linear regression":
        assert list(df.columns) == ["x1", "x2", "y"]
        with pytest.raises(ValueError, match="d=1 is too small for linear regression"):
            make_dataset(name, 50, 1, 0)
    for bad, field in ((dict(n=7), "n"), (dict(d=0), "d"), (dict(d=21), "d")):
        args = dict(n=50, d=3) | bad
        with pytest.raises(ValueError, match=field):
            make_dataset(name, args["n"], args["d"], 0)


# --------------------------------------------------------------------------- clipping bounds


def test_clipping_bounds_known_values_and_identity_at_one():
    x = np.array([[0.0, 5.0, -1.0]] * 4 + [[2.0, 5.0, 3.0]] * 4)
    b = clipping_bounds(x)
    np.testing.assert_array_equal(b.lo, [0.0, 5.0, -1.0])  # exactly the data range at 1
    np.testing.assert_array_equal(b.hi, [2.0, 6.0, 3.0])  # constant column: [min, min + 1]
    np.testing.assert_array_equal(b.data_hi, [2.0, 5.0, 3.0])
    np.testing.assert_array_equal(b.b, [2.0, 6.0, 3.0])
    w = clipping_bounds(x, 2.0)
    np.testing.assert_array_equal(w.lo, [-1.0, 4.5, -3.0])
    np.testing.assert_array_equal(w.hi, [3.0, 6.5, 5.0])
    assert w.widen == 2.0


@settings(max_examples=60)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=8, max_size=30),
    st.floats(1.0, MAX_WIDEN),
    st.floats(1.0, MAX_WIDEN),
)
def test_clipping_bounds_widen_about_the_centre(values, w1, w2):
    x = np.array(values)[:, None]
    a, b = clipping_bounds(x, min(w1, w2)), clipping_bounds(x, max(w1, w2))
    assert b.lo[0] <= a.lo[0] <= x.min() and x.max() <= a.hi[0] <= b.hi[0]
    width0 = a.hi[0] - a.lo[0]
    assert width0 == pytest.approx(
        (b.hi[0] - b.lo[0]) * min(w1, w2) / max(w1, w2), rel=1e-9, abs=1e-6
    )
    assert (a.lo[0] + a.hi[0]) / 2 == pytest.approx((b.lo[0] + b.hi[0]) / 2, abs=1e-6)


def test_clipping_bounds_errors_name_the_real_cause():
    with pytest.raises(ValueError, match="widen"):
        clipping_bounds(np.ones((8, 1)), 0.5)
    with pytest.raises(ValueError, match="widen"):
        clipping_bounds(np.ones((8, 1)), MAX_WIDEN + 1)
    huge = np.array([[1e308], [-1e308]] * 4)
    with pytest.raises(ValueError, match=r"too large to widen.*rescale"):
        clipping_bounds(huge, 2.0)
    with pytest.raises(ValueError, match="missing or infinite"):
        clipping_bounds(np.array([[1.0], [np.inf]] * 4))
    with pytest.raises(ValueError, match="at least 8 rows"):
        clipping_bounds(np.ones((7, 2)))


def test_plus_minus_1e308_never_blames_the_bounds():
    """The old page reported "lo/hi must give one bound per column" for +-1e308 data (0 * inf
    in the widening made the bounds NaN). Now each failure names its cause."""
    data = pd.DataFrame({"a": [1e308, -1e308] * 10, "b": np.arange(20.0)})
    for name in ("mean", "covariance"):
        with pytest.raises(ValueError) as info:
            wrap_statistic(data, name, 0.2, rng=0, B=8)
        msg = str(info.value)
        assert "one bound per column" not in msg and "rescale" in msg, msg
    with pytest.raises(ValueError, match="one bound per column \\(2\\)"):
        wrap_statistic(data.abs() / 1e300, "mean", 0.2, rng=0, lo=[0.0], hi=[1.0])
    with pytest.raises(ValueError, match="finite"):
        wrap_statistic(data / 1e300, "mean", 0.2, rng=0, lo=[-np.inf, 0.0], hi=[1.0, 20.0])
    with pytest.raises(ValueError, match="column 2 has lo = 5 >= hi = 5"):
        wrap_statistic(data / 1e300, "mean", 0.2, rng=0, lo=[-1.0, 5.0], hi=[1.0, 5.0])
    with pytest.raises(ValueError, match="both lo and hi"):
        wrap_statistic(data / 1e300, "mean", 0.2, rng=0, lo=[-1.0, 5.0])


# --------------------------------------------------------------------------- sensitivities by brute force


def _l1_change(name, data, i, x_new):
    fn = statistic(name)
    other = data.copy()
    other[i] = x_new
    return float(np.abs(fn(data) - fn(other)).sum())


BOXES = [
    (np.array([0.0, -1.0]), np.array([1.0, 1.0])),
    (np.array([-2.0, 0.5, -0.1]), np.array([3.0, 4.0, 0.2])),
    (np.array([1.0]), np.array([2.0])),  # box not containing 0
]


@pytest.mark.parametrize("lo, hi", BOXES)
@pytest.mark.parametrize("name", ["mean", "covariance"])
def test_dp_l1_sensitivity_bounds_every_replacement(name, lo, hi):
    gen = np.random.default_rng(7)
    m = 9
    bound = dp_l1_sensitivity(name, lo, hi, m)
    corners = np.array(list(itertools.product(*zip(lo, hi, strict=True))))
    worst = 0.0
    for _ in range(30):
        data = lo + (hi - lo) * gen.random((m, lo.size))
        data[: corners.shape[0] % m] = corners[: corners.shape[0] % m]
        for x_new in np.vstack([corners, lo + (hi - lo) * gen.random((20, lo.size))]):
            worst = max(worst, _l1_change(name, data, 0, x_new))
    # replacing a corner row by its opposite corner
    for a, b in itertools.product(corners, corners):
        data = np.vstack([a, lo + (hi - lo) * gen.random((m - 1, lo.size))])
        worst = max(worst, _l1_change(name, data, 0, b))
    assert worst <= bound * (1 + 1e-12)
    if name == "mean":  # attained: opposite corners differ by hi - lo in every coordinate
        assert worst == pytest.approx(bound, rel=1e-12)
    elif np.all(lo <= 0) and np.all(hi >= 0):  # within a factor 2 when 0 is in the box
        assert worst >= bound / 2 * (1 - 1e-12)


def test_dp_l1_sensitivity_formulas_and_errors():
    lo, hi = np.array([-1.0, 0.0]), np.array([2.0, 5.0])
    assert dp_l1_sensitivity("mean", lo, hi, 10) == pytest.approx((3 + 5) / 10)
    assert dp_l1_sensitivity("covariance", lo, hi, 10) == pytest.approx(2 * (2 + 5) ** 2 / 10)
    assert dp_l1_sensitivity("linear regression", lo, hi, 10) is None
    with pytest.raises(ValueError, match="lo < hi"):
        dp_l1_sensitivity("mean", [0.0, 1.0], [1.0, 1.0], 10)
    with pytest.raises(ValueError, match="one bound per column"):
        dp_l1_sensitivity("mean", [0.0], [1.0, 2.0], 10)
    with pytest.raises(ValueError, match="finite"):
        dp_l1_sensitivity("mean", [0.0], [np.inf], 10)
    with pytest.raises(ValueError, match="m"):
        dp_l1_sensitivity("mean", lo, hi, 0)
    with pytest.raises(ValueError, match="statistic"):
        dp_l1_sensitivity("median", lo, hi, 10)


def test_mean_sensitivity_scales_with_widen():
    data = make_dataset("mean", 60, 2, 0)
    base = wrap_statistic(data, "mean", 0.2, rng=0, B=8)
    wide = wrap_statistic(data, "mean", 0.2, rng=0, B=8, widen=3.0)
    assert wide.sensitivity == pytest.approx(3 * base.sensitivity, rel=1e-12)
    assert wide.bounds.widen == 3.0


# --------------------------------------------------------------------------- wrap_statistic


@pytest.mark.parametrize("calibration", [PAPER, TIGHT, AS_PRINTED])
@pytest.mark.parametrize("name", STATISTICS)
def test_wrap_statistic_replicates_algorithm_1_and_the_laplace_mechanism(name, calibration):
    data = make_dataset(name, 120, 3, 1)
    eta, M, B, seed = 0.2, 4, 16, 5
    res = wrap_statistic(data, name, eta, M=M, B=B, rng=seed, calibration=calibration)
    rows = data.to_numpy()
    fn = statistic(name)
    gen = np.random.default_rng(seed)
    rel = mip_release(rows, fn, eta, M=M, B=B, rng=gen, calibration=calibration)
    np.testing.assert_array_equal(res.mip.theta, fn(rows[rel.train_index]))
    np.testing.assert_array_equal(res.mip.theta, rel.theta)
    np.testing.assert_array_equal(res.mip.theta_hat, rel.theta_hat)
    np.testing.assert_array_equal(res.mip.sigma, rel.sigma)
    assert len(res.mip.train_index) == 60 and res.mip.c == rel.c
    assert res.mip.certified_eta == rel.certified_eta and res.mip.calibration is calibration
    eps = math.log((1 + 2 * eta) / (1 - 2 * eta))
    assert res.epsilon == pytest.approx(eps, rel=1e-14)
    if name == "linear regression":
        assert res.dp is None and res.dp_scale is None and res.sensitivity is None
        assert res.table()["DP Laplace release"].isna().all()
    else:
        sens = dp_l1_sensitivity(name, rows.min(axis=0), rows.max(axis=0), 60)
        assert res.sensitivity == pytest.approx(sens, rel=1e-14)
        assert res.dp_scale == pytest.approx(sens / eps, rel=1e-14)
        np.testing.assert_array_equal(
            res.dp, rel.theta + gen.laplace(0.0, res.dp_scale, size=rel.theta.shape)
        )
    table = res.table()
    assert len(table) == res.mip.theta.size == len(res.labels) == res.k
    # deterministic by seed
    again = wrap_statistic(data, name, eta, M=M, B=B, rng=seed, calibration=calibration)
    np.testing.assert_array_equal(again.mip.theta_hat, res.mip.theta_hat)
    other = wrap_statistic(data, name, eta, M=M, B=B, rng=seed + 1, calibration=calibration)
    assert not np.array_equal(other.mip.theta_hat, res.mip.theta_hat)


@pytest.mark.parametrize("eta, M", [(0.1, 2), (0.2, 4), (0.01, 8), (0.45, 2)])
def test_calibrations_give_their_c_and_certified_level(eta, M):
    data = make_dataset("mean", 80, 3, 0)
    tight = wrap_statistic(data, "mean", eta, M=M, B=8, rng=0, calibration="tight")
    assert tight.mip.c == pytest.approx(-1 / math.log1p(-2 * eta), rel=1e-12)
    assert tight.mip.certified_eta <= eta and tight.mip.certified_eta == pytest.approx(
        eta, rel=1e-12
    )
    paper = wrap_statistic(data, "mean", eta, M=M, B=8, rng=0, calibration="paper")
    assert paper.mip.c == pytest.approx((6.16 / eta) ** (1 + 2 / M), rel=1e-12)
    assert paper.mip.certified_eta == pytest.approx(-0.5 * math.expm1(-1 / paper.mip.c), rel=1e-12)
    assert paper.mip.certified_eta < tight.mip.certified_eta  # far more noise, far smaller η
    printed = wrap_statistic(data, "mean", eta, M=M, B=8, rng=0, calibration="as_printed")
    assert printed.mip.c == paper.mip.c and printed.mip.certified_eta is None  # k = 3: no proof
    one = wrap_statistic(data[["x1"]], "mean", eta, M=M, B=8, rng=0, calibration="as_printed")
    assert one.mip.certified_eta == pytest.approx(
        paper.mip.certified_eta, rel=1e-12
    )  # k = 1: certified


@pytest.mark.parametrize("legacy", ["gamma", "theorem9"])
def test_legacy_radius_values_mean_the_papers_constant(legacy):
    data = make_dataset("mean", 40, 2, 0)
    a = wrap_statistic(data, "mean", 0.2, B=8, rng=3, calibration=legacy)
    b = wrap_statistic(data, "mean", 0.2, B=8, rng=3, calibration=PAPER)
    assert a.mip.calibration is PAPER
    np.testing.assert_array_equal(a.mip.theta_hat, b.mip.theta_hat)


def test_wrap_statistic_clips_to_the_given_bounds():
    data = make_dataset("mean", 100, 2, 3)
    lo, hi = np.array([-0.5, 0.0]), np.array([0.5, 1.0])
    res = wrap_statistic(data, "mean", 0.3, rng=2, lo=lo, hi=hi, calibration=PAPER)
    gen = np.random.default_rng(2)
    clipped = np.clip(data.to_numpy(), lo, hi)
    rel = mip_release(clipped, statistic("mean"), 0.3, M=2, B=64, rng=gen)
    np.testing.assert_array_equal(res.mip.theta, clipped[rel.train_index].mean(axis=0))
    assert np.all(res.mip.theta >= lo) and np.all(res.mip.theta <= hi)
    assert res.sensitivity == pytest.approx((1.0 + 1.0) / 50)
    assert res.labels == ("mean(x1)", "mean(x2)")
    np.testing.assert_array_equal(res.bounds.lo, lo)


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_wrap_statistic_laplace_noise_law_over_seeds():
    """The DP noise divided by its scale is Laplace(0, 1) (KS over 150 seeds x 9 coordinates)."""
    data = make_dataset("covariance", 40, 3, 0)
    z = []
    for seed in range(150):
        r = wrap_statistic(data, "covariance", 0.25, B=4, rng=seed)
        z.extend((r.dp - r.mip.theta) / r.dp_scale)
    assert sps.kstest(z, sps.laplace().cdf).pvalue > 1e-4


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(name="median"), "statistic"),
        (dict(eta=0.0), "eta"),
        (dict(eta=0.5), "eta"),
        (dict(data=pd.DataFrame({"a": np.arange(7.0)})), "8 rows"),
        (dict(name="linear regression", data=pd.DataFrame({"a": np.arange(10.0)})), "two columns"),
        (dict(rng=None), "rng"),
        (dict(calibration="x"), "calibration"),
        (dict(M=0), "M"),
        (dict(B=1), "B"),
        (dict(widen=0.5), "widen"),
    ],
)
def test_wrap_statistic_errors(kwargs, message):
    args = dict(data=make_dataset("mean", 30, 2, 0), name="mean", eta=0.2, rng=0) | kwargs
    with pytest.raises(ValueError, match=message):
        wrap_statistic(args.pop("data"), args.pop("name"), args.pop("eta"), **args)


def test_progress_reports_the_fits_in_order():
    seen = []
    wrap_statistic(
        make_dataset("mean", 60, 2, 0),
        "mean",
        0.2,
        B=20,
        rng=0,
        progress=lambda f, m: seen.append((f, m)),
    )
    fractions = [f for f, _ in seen]
    assert len(seen) == 10 and fractions == sorted(fractions) and 0 < fractions[-1] <= 1
    assert seen[-1][1] == "20 of 20 fits on random halves"


# --------------------------------------------------------------------------- repeat_noise


@pytest.mark.parametrize("calibration", [PAPER, TIGHT])
def test_repeat_noise_has_the_release_laws(calibration):
    """MIP rows follow Corollary 10 (radius ~ Gamma(k, c) in the sigma-norm), DP rows
    Laplace(scale); sigma = 0 coordinates stay noise-free; no DP rows for regression."""
    data = make_dataset("mean", 400, 3, 0)
    res = wrap_statistic(data, "mean", 0.2, rng=1, B=32, calibration=calibration)
    mip, dp = repeat_noise(res, 20_000, rng=2)
    assert mip.shape == dp.shape == (20_000, 3)
    c = (6.16 / 0.2) ** 2 if calibration is PAPER else -1 / math.log(0.6)
    assert res.mip.c == pytest.approx(c, rel=1e-12)
    r = sigma_norm(mip, res.mip.sigma, 2)
    assert sps.kstest(r, sps.gamma(a=3, scale=c).cdf).pvalue > 1e-4
    assert sps.kstest(dp.ravel(), sps.laplace(scale=res.dp_scale).cdf).pvalue > 1e-4
    again = repeat_noise(res, 20_000, rng=2)
    assert np.array_equal(again[0], mip) and np.array_equal(again[1], dp)
    reg = wrap_statistic(
        make_dataset("linear regression", 400, 3, 0), "linear regression", 0.2, rng=1, B=32
    )
    assert repeat_noise(reg, 10, rng=0)[1] is None
    zero = dataclasses.replace(res.mip, sigma=np.array([0.0, *res.mip.sigma[1:]]))
    res0 = dataclasses.replace(res, mip=zero)
    assert np.all(repeat_noise(res0, 50, rng=0)[0][:, 0] == 0.0)
    with pytest.raises(ValueError, match="draws"):
        repeat_noise(res, 0, rng=0)


def test_repeat_noise_as_printed_has_the_laplace_radius():
    data = make_dataset("mean", 400, 3, 0)
    res = wrap_statistic(data, "mean", 0.2, rng=1, B=32, calibration=AS_PRINTED)
    mip, _ = repeat_noise(res, 20_000, rng=2)
    r = sigma_norm(mip, res.mip.sigma, 2)  # |Laplace(0, c)|, i.e. Exponential(c)
    assert sps.kstest(r, sps.expon(scale=res.mip.c).cdf).pvalue > 1e-4


# --------------------------------------------------------------------------- the comparison


def test_compare_releases_recomputes_from_its_parts():
    data = make_dataset("mean", 2000, 3, 0)
    comp = compare_releases(data, "mean", 0.2, M=2, B=64, seed=0)
    res = comp.release
    same = wrap_statistic(data, "mean", 0.2, M=2, B=64, rng=0)
    np.testing.assert_array_equal(res.mip.theta_hat, same.mip.theta_hat)
    np.testing.assert_array_equal(res.dp, same.dp)
    mip, dp = repeat_noise(res, comp.spread.draws, rng=np.random.default_rng((0, 1)))
    q = np.quantile(np.abs(mip), [0.1, 0.5, 0.9], axis=0)
    np.testing.assert_array_equal(comp.spread.mip, q)
    np.testing.assert_array_equal(comp.spread.dp, np.quantile(np.abs(dp), [0.1, 0.5, 0.9], axis=0))
    ratio = q[1] / comp.spread.dp[1]
    np.testing.assert_array_equal(comp.mip_to_dp, ratio)
    assert comp.mip_wins == int(np.sum(ratio < 1))
    assert comp.verdict is Verdict.DP_LESS and comp.mip_wins == 0  # an ordinary mean
    assert comp.radius_factor == 3
    assert comp.breakeven == pytest.approx(3 * res.mip.c * res.epsilon, rel=1e-14)
    # tight: c·ε = ln((1 + 2η)/(1 − 2η))/ln(1/(1 − 2η)) (c = −1/ln(1 − 2η)): 1.659 at η = 0.2
    assert comp.breakeven == pytest.approx(3 * math.log(1.4 / 0.6) / math.log(1 / 0.6), rel=1e-12)
    np.testing.assert_allclose(comp.delta_over_sigma, res.sensitivity / res.mip.sigma, rtol=1e-14)
    np.testing.assert_allclose(comp.mip_to_sigma, q[1] / res.mip.sigma, rtol=1e-14)
    # the charts' tables are the same numbers
    np.testing.assert_array_equal(
        comp.errors["mip_abs_error"], np.abs(res.mip.theta_hat - res.mip.theta)
    )
    np.testing.assert_array_equal(comp.errors["dp_abs_error"], np.abs(res.dp - res.mip.theta))
    mip_rows = comp.spread_table[comp.spread_table["mechanism"] == "MIP"]
    np.testing.assert_array_equal(mip_rows["median"], q[1])
    assert comp.single[0] == 3
    assert comp.single[1] == int(
        np.sum(np.abs(res.mip.theta_hat - res.mip.theta) < np.abs(res.dp - res.mip.theta))
    )
    assert comp.n_rows == 2000 and comp.columns == ("x1", "x2", "x3") and len(comp.head) == 10


def test_comparison_is_small_and_holds_algorithm_1s_own_release():
    """The comparison keeps the release (with mechanism.mip_release's own MIPRelease), the
    spread and the data's size and head; everything it quotes is computed from them, the same
    after a job's pickle."""
    comp = compare_generated("mean", 300, 3, 0, 0.2, B=16)
    assert [f.name for f in dataclasses.fields(comp)] == ["release", "spread", "n_rows", "head"]
    assert isinstance(comp.release.mip, MIPRelease)
    back = pickle.loads(pickle.dumps(comp))
    assert back.verdict is comp.verdict and back.breakeven == comp.breakeven
    np.testing.assert_array_equal(back.mip_to_dp, comp.mip_to_dp)
    pd.testing.assert_frame_equal(back.spread_table, comp.spread_table)
    pd.testing.assert_frame_equal(back.errors, comp.errors)


def test_the_papers_constant_against_the_tight_one_known_values():
    """At η = 0.1, M = 2: c = 61.6² = 3794.6 certifies (1 − e^{−1/c})/2 = 0.000132 (far below
    0.1), and the tight c = −1/ln(0.8) = 4.481 needs 847× less noise."""
    data = make_dataset("mean", 200, 3, 0)
    comp = compare_releases(data, "mean", 0.1, B=16, calibration="paper")
    paper_c, tight_c = comp.constant(PAPER), comp.constant(TIGHT)
    paper_certified_eta = certified_eta(paper_c, M=2, d=3)
    assert paper_c == pytest.approx(3794.56, rel=1e-6)
    assert tight_c == pytest.approx(4.4814, rel=1e-4)
    assert paper_certified_eta == pytest.approx(0.000132, abs=5e-7)
    assert round(comp.paper_to_tight) == 847
    assert comp.printed_to_tight == pytest.approx(comp.paper_to_tight / 3, rel=1e-12)
    assert comp.release.mip.certified_eta == pytest.approx(paper_certified_eta, rel=1e-12)


def test_regression_is_mip_only_and_zero_sigma_is_no_noise():
    comp = compare_generated("linear regression", 300, 3, 0, 0.2, B=16)
    assert comp.verdict is Verdict.MIP_ONLY and comp.delta_over_sigma is None
    assert comp.compared.sum() == 0 and comp.single[0] == 0
    assert set(comp.spread_table["mechanism"]) == {"MIP"}
    assert comp.errors["dp_abs_error"].isna().all()
    const = pd.DataFrame({"a": np.ones(20), "b": np.arange(20.0)})
    reg = compare_releases(const, "linear regression", 0.2, B=8)
    # an exact fit of b on a constant column: σ may vanish only where θ never varies
    assert reg.verdict in (Verdict.MIP_ONLY, Verdict.NO_NOISE)
    # σ is exactly 0 only where every half gives bit-identical numbers. A fit of y = 2 on a
    # constant x does on some BLAS builds and varies in the last bit (σ ~ 1e-16, correctly
    # noised) on others; a fit of y = 0 is exactly 0 on every half, whatever the rounding.
    flat = pd.DataFrame({"x": np.ones(20), "y": np.zeros(20)})
    none = compare_releases(flat, "linear regression", 0.2, B=8)
    assert none.verdict is Verdict.NO_NOISE and none.release.noised == 0
    assert not np.any(none.release.mip.sigma)
    two = compare_releases(flat.assign(y=2.0), "linear regression", 0.2, B=8)
    assert (two.verdict is Verdict.NO_NOISE) == (not np.any(two.release.mip.sigma))


def test_a_large_sensitivity_makes_mip_win():
    """Wide clipping bounds on few rows: Δ/σ exceeds k·c·ε = 1.66 (k = 1, tight, η = 0.2:
    ln(1.4/0.6)/ln(1/0.6)), so MIP adds less noise. With one number both noises are Laplace
    (MIP's scale c·σ, DP's Δ/ε), so the ratio of their medians is about c·ε·σ/Δ (200 draws:
    ~10 % sampling error)."""
    x = np.random.default_rng(0).uniform(0.0, 1.0, 100)
    comp = compare_releases(pd.DataFrame({"x": x}), "mean", 0.2, B=64, seed=1, widen=10.0)
    ratio = comp.breakeven / comp.delta_over_sigma[0]
    breakeven = math.log(1.4 / 0.6) / math.log(1 / 0.6)
    assert comp.breakeven == pytest.approx(breakeven, rel=1e-12) and ratio < 0.6
    assert comp.verdict is Verdict.MIP_LESS and comp.mip_wins == 1
    assert comp.mip_to_dp[0] == pytest.approx(ratio, rel=0.3)


def test_compare_generated_is_compare_releases_on_make_dataset():
    a = compare_generated("covariance", 100, 2, 5, 0.3, M=3, B=16, seed=2, widen=1.5)
    b = compare_releases(
        make_dataset("covariance", 100, 2, 5), "covariance", 0.3, M=3, B=16, seed=2, widen=1.5
    )
    np.testing.assert_array_equal(a.release.mip.theta_hat, b.release.mip.theta_hat)
    np.testing.assert_array_equal(a.spread.mip, b.spread.mip)
    assert a.release.k == 4 and a.release.bounds.widen == 1.5


@pytest.mark.parametrize(
    "kwargs, message",
    [(dict(seed=-1), "seed"), (dict(draws=0), "draws"), (dict(widen=11.0), "widen")],
)
def test_compare_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compare_releases(make_dataset("mean", 30, 2, 0), "mean", 0.2, B=8, **kwargs)


# --------------------------------------------------------------------------- work model


def test_release_work_model():
    assert release_work(2000, 3, "mean", 64) == 64 * 2000 * 19
    assert release_work(2000, 3, "linear regression", 64) == 64 * 2000 * 28
    assert release_work(2000, 3, "covariance", 64) == release_work(2000, 3, "mean", 64)
    # the page's defaults run in the server; the largest settings in their own process
    assert release_work(2000, 3, "mean", 64) < HEAVY_WORK
    assert release_work(200_000, 3, "mean", 64) < HEAVY_WORK  # about 0.25 to 0.9 s
    assert release_work(200_000, 3, "linear regression", 64) > HEAVY_WORK
    for name in STATISTICS:
        assert release_work(200_000, 20, name, 256) > HEAVY_WORK
        assert release_work(200_000, 10, name, 256) > HEAVY_WORK
    for bad, field in (((0, 3, "mean", 64), "n_rows"), ((10, 0, "mean", 64), "columns")):
        with pytest.raises(ValueError, match=field):
            release_work(*bad)
    with pytest.raises(ValueError, match="statistic"):
        release_work(10, 3, "median", 64)


@settings(max_examples=40)
@given(
    st.integers(1, 200_000),
    st.integers(1, 20),
    st.sampled_from(STATISTICS),
    st.integers(1, 256),
)
def test_release_work_grows_with_each_argument(n, d, name, B):
    w = release_work(n, d, name, B)
    assert release_work(n + 1, d, name, B) > w
    assert release_work(n, d + 1, name, B) > w
    assert release_work(n, d, name, B + 1) > w


def test_module_has_no_parser_any_more():
    for gone in ("parse_numeric_csv", "ParsedTable", "MAX_UPLOAD_BYTES", "MAX_ROWS"):
        assert not hasattr(sr, gone), gone
