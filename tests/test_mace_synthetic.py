"""mipcore.experiments.mace_synthetic: the closed-form Bayes advantage against numerical
integration, and MACE's estimates on the toy laws.

Known values, identities (the drift's run 0 is the page's own estimate; the shown lower
bound is max(0, raw)) and brute force (a run's numbers recomputed from mipcore.mace on the
same samples).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from mipcore import mace
from mipcore.experiments import mace_synthetic
from mipcore.experiments.mace_synthetic import DRIFT_N, DRIFT_RUNS, KDE_MAX_N, Estimator, Shape


def adv_quad(shape: str, s: float, p: float) -> float:
    """∫ |pP − (1−p)Q| by scipy.integrate.quad over [−40, 40 + s] (tails < 1e-17 beyond)."""

    def g(z):
        a, b = mace_synthetic.densities(shape, s, z)
        return abs(p * a - (1 - p) * b)

    pts = [0.0, s / 2, s] if s > 0 else [0.0]
    val, err = integrate.quad(g, -40.0, 40.0 + s, points=pts, limit=400, epsabs=1e-12, epsrel=1e-12)
    assert err < 1e-9
    return val


@pytest.mark.parametrize("shape", mace_synthetic.SHAPES)
@pytest.mark.parametrize("s", [0.0, 0.3, 1.0, 2.5, 6.0])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.7, 0.95])
def test_closed_form_matches_quad(shape, s, p):
    assert mace_synthetic.true_advantage(shape, s, p) == pytest.approx(
        adv_quad(shape, s, p), abs=1e-8
    )


def test_known_values():
    # N(1,1) vs N(0,1) at p = 1/2: 2Φ(1/2) − 1 = 0.38292
    assert mace_synthetic.true_advantage("normal", 1.0) == pytest.approx(
        math.erf(0.5 / math.sqrt(2)), abs=1e-12
    )
    assert mace_synthetic.true_advantage("laplace", 0.0, 0.8) == pytest.approx(0.6)
    # Laplace pair is s-DP: the advantage at p = 1/2 is at most tanh(s/2) (Theorem 1 of 004)
    for s in (0.1, 1.0, 3.0):
        assert mace_synthetic.true_advantage("laplace", s) <= math.tanh(s / 2) + 1e-12


def test_sample_is_seeded_and_validates():
    a = mace_synthetic.sample("mixture", 1.0, 100, seed=3)
    b = mace_synthetic.sample("mixture", 1.0, 100, seed=3)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    with pytest.raises(ValueError):
        mace_synthetic.true_advantage("cauchy", 1.0)
    with pytest.raises(ValueError):
        mace_synthetic.true_advantage("normal", -1.0)
    with pytest.raises(ValueError):
        mace_synthetic.true_advantage("normal", 1.0, prior=1.0)
    with pytest.raises(ValueError):
        mace_synthetic.sample("normal", 1.0, 2)


# --------------------------------------------------------------------------- one estimate


@pytest.fixture(scope="module")
def default_drift() -> mace_synthetic.DriftResult:
    return mace_synthetic.drift()


def test_run_holds_the_truth_and_maces_estimate():
    r = mace_synthetic.run()
    assert r.truth == mace_synthetic.true_advantage("normal", 1.0, 0.5)
    assert r.shape is Shape.NORMAL and r.separation == 1.0
    assert r.estimate.method == "histogram" and r.estimate.prior == 0.5
    assert r.members.size == r.nonmembers.size == 2000


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(shape="laplace", separation=2.0, prior=0.3, bins=80),
        dict(shape="mixture", separation=2.5, n=500, seed=7),
    ],
)
def test_run_is_mace_on_the_same_samples(kw):
    """Brute force: the run's estimate is mipcore.mace's on the very same samples."""
    r = mace_synthetic.run(**kw)
    m, nm = mace_synthetic.sample(r.shape, r.separation, kw.get("n", 2000), kw.get("seed", 0))
    np.testing.assert_array_equal(r.members, m)
    np.testing.assert_array_equal(r.nonmembers, nm)
    est = mace.histogram_estimate(
        m, nm, bins=kw.get("bins", 30), prior=kw.get("prior", 0.5), delta=mace_synthetic.DELTA
    )
    assert r.estimate.plugin == est.plugin and r.estimate.algorithm1 == est.algorithm1
    assert r.estimate.heldout == est.heldout and r.estimate.heldout_lower == est.heldout_lower
    assert r.estimate.mean_interval == est.mean_interval
    np.testing.assert_array_equal(r.estimate.f_hat, est.f_hat)
    np.testing.assert_array_equal(r.estimate.edges, est.edges)


def test_a_negative_lower_bound_is_shown_as_zero_and_kept_raw():
    r = mace_synthetic.run("normal", 0.0, n=50, seed=0)  # P = Q: the bound has nothing to find
    assert r.estimate.heldout_lower < 0
    shown = mace.units(r.estimate.heldout_lower, clip=True)
    assert shown.advantage == 0.0 and shown.accuracy == 0.5


@pytest.mark.parametrize("seed", range(4))
def test_shown_values_are_max_zero_raw(seed):
    est = mace_synthetic.run("mixture", 0.3, n=100, seed=seed).estimate
    for raw in (est.heldout_lower, est.heldout, est.plugin):
        assert mace.units(raw, clip=True).advantage == max(0.0, raw)


def test_dp_facts_of_the_toy_laws():
    """The facts the page's DP sentence rests on: the normal pair at s = 4 exceeds Theorem 1's
    bound at ε = 1 and its held-out lower bound proves it; the Laplace pair at s = 1 is
    exactly 1-DP, so the bound holds."""
    bound = mace.dp_privacy_loss_bound(1.0)
    far = mace_synthetic.run("normal", 4.0, n=5000)  # truth 2Φ(2) − 1 = 0.954 > tanh(1/2)
    assert far.truth > bound + 1e-12 and far.estimate.heldout_lower > bound
    assert mace_synthetic.run("laplace", 1.0).truth <= bound


def test_prior_floor():
    r = mace_synthetic.run(prior=0.8)
    assert r.truth >= abs(2 * 0.8 - 1)
    assert mace.units(abs(2 * 0.8 - 1)).accuracy == pytest.approx(0.8)


def test_kde_is_capped_and_uses_silverman():
    r = mace_synthetic.run(estimator="kde", n=6000, separation=1.0)
    assert r.members.size == KDE_MAX_N
    assert r.estimate.bandwidth is not None and r.estimate.bandwidth > 0
    assert r.estimate.edges is None and r.estimate.points.size == 200


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(shape="cauchy"), "shape"),
        (dict(separation=-1.0), "separation"),
        (dict(n=2), "n"),
        (dict(seed=-1), "seed"),
        (dict(estimator="svm"), "estimator"),
        (dict(bins=0), "bins"),
        (dict(estimator="kde", bandwidth=0.0), "bandwidth"),
        (dict(prior=1.0), "prior"),
    ],
)
def test_errors_name_the_parameter(kw, name):
    with pytest.raises(ValueError, match=name):
        mace_synthetic.run(**kw)
    if name != "n":
        with pytest.raises(ValueError, match=name):
            mace_synthetic.drift(**kw)


# --------------------------------------------------------------------------- drift


def test_drift_run0_is_the_pages_estimate(default_drift):
    d = default_drift
    assert d.n_values == DRIFT_N and d.runs == DRIFT_RUNS[Estimator.HISTOGRAM]
    i = d.n_values.index(2000)
    est = mace_synthetic.run(n=2000, seed=0).estimate
    assert d.plugin[i, 0] == est.plugin
    assert d.heldout[i, 0] == est.heldout and d.heldout_lower_raw[i, 0] == est.heldout_lower
    assert d.plugin[0, 1] == mace_synthetic.run(n=50, seed=1).estimate.plugin  # run 1: seed + 1


def test_drift_numbers(default_drift):
    d = default_drift
    assert d.truth == mace_synthetic.true_advantage("normal", 1.0)
    np.testing.assert_allclose(d.plugin_bias, d.plugin.mean(axis=1) - d.truth)
    np.testing.assert_array_equal(d.heldout_lower, np.maximum(d.heldout_lower_raw, 0.0))
    assert d.lower_above_truth == int((d.heldout_lower_raw > d.truth).sum())
    # each run's lower bound fails with probability <= 5 %: 99.9 % binomial ceiling
    assert d.lower_above_truth <= stats.binom.ppf(0.999, d.plugin.size, 0.05)


def test_plugin_drifts_upwards_when_nothing_leaks():
    """P = Q: the truth is 0, yet |f̂| averages above 0 at every N, most at small N."""
    d = mace_synthetic.drift("normal", 0.0)
    assert d.truth == 0.0
    assert (d.plugin > 0).all()
    assert d.plugin_bias[0] > d.plugin_bias[-1] > 0


def test_drift_progress():
    seen = []
    d = mace_synthetic.drift("laplace", 0.5, progress=lambda f, m: seen.append((f, m)))
    assert len(seen) == len(d.n_values) * d.runs and seen[-1][0] == 1.0
    assert all(isinstance(m, str) for _, m in seen)


@pytest.mark.slow
def test_kde_drift_stops_at_the_cap():
    d = mace_synthetic.drift(estimator="kde")
    assert d.n_values == tuple(n for n in DRIFT_N if n <= KDE_MAX_N)
    assert d.runs == DRIFT_RUNS[Estimator.KDE]
