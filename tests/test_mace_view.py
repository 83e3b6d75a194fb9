"""mipcore.lessons.mace_view: what the MACE page shows, and its figures.

Known values (the tanh bound at ε = 1 is advantage 0.4621 = 2η with η = 0.2311, accuracy
73.1 %), identities (advantage = 2η = 2·accuracy − 1; the drift's run 0 is the page's own
estimate; the shown lower bound is max(0, raw)), and brute force (the view's numbers
recomputed from mipcore.mace on the same samples).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from mipcore import mace
from mipcore.lessons import mace_synthetic
from mipcore.lessons import mace_view as mv
from mipcore.lessons.mace_synthetic import Shape
from mipcore.plots import mace_vega


@pytest.fixture(scope="module")
def default_view() -> mv.MaceView:
    return mv.mace_view()


@pytest.fixture(scope="module")
def default_drift() -> mv.DriftResult:
    return mv.drift()


# --------------------------------------------------------------------------- units


def test_units_known_value_of_the_tanh_bound():
    u = mv.units(math.tanh(0.5))
    assert round(u.advantage, 4) == 0.4621
    assert round(u.eta, 4) == 0.2311
    assert f"{100 * u.accuracy:.1f}" == "73.1"


@given(st.floats(0.0, 1.0))
def test_units_identity(a):
    u = mv.units(a)
    assert u.advantage == pytest.approx(2 * u.eta) == pytest.approx(2 * u.accuracy - 1)


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan")])
def test_units_refuse_out_of_range(bad):
    with pytest.raises(ValueError, match="advantage"):
        mv.units(bad)


# --------------------------------------------------------------------------- one estimate


def test_view_matches_the_truth_and_the_bound(default_view):
    v = default_view
    assert v.truth.advantage == mace_synthetic.true_advantage("normal", 1.0, 0.5)
    assert v.tanh_bound.advantage == pytest.approx(math.tanh(0.5), abs=1e-15)
    assert v.tanh_bound.eta == pytest.approx(0.5 * math.tanh(0.5))
    assert v.lam == 0.0 and v.prior_floor == 0.0
    assert v.estimator is mv.Estimator.HISTOGRAM and v.shape is Shape.NORMAL


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(shape="laplace", separation=2.0, prior=0.3, bins=80),
        dict(shape="mixture", separation=2.5, n=500, seed=7, epsilon=0.5),
    ],
)
def test_view_is_mace_on_the_same_samples(kw):
    """Brute force: the view's numbers from mipcore.mace on the very same samples."""
    v = mv.mace_view(**kw)
    m, nm = mace_synthetic.sample(v.shape, v.separation, v.n_used, v.seed)
    est = mace.histogram_estimate(m, nm, bins=v.bins, prior=v.prior, delta=mv.DELTA)
    assert v.plugin.advantage == est.plugin
    assert v.heldout_raw == est.heldout and v.heldout_lower_raw == est.heldout_lower
    assert v.algorithm1 == est.algorithm1 and v.mean_interval == est.mean_interval
    assert v.plugin_error == pytest.approx(est.plugin - v.truth.advantage, abs=1e-15)
    np.testing.assert_array_equal(v.f_hat, est.f_hat[1:-1])  # overflow bins left out
    np.testing.assert_array_equal(v.edges, est.edges)
    assert v.tanh_bound.advantage == mace.dp_privacy_loss_bound(v.epsilon, v.prior)
    hm, _ = np.histogram(m, v.edges, density=True)
    np.testing.assert_array_equal(v.member_density, hm)
    assert v.covered == (est.heldout_lower <= v.truth.advantage)


def test_negative_lower_bound_is_shown_as_zero_and_kept_raw():
    v = mv.mace_view("normal", 0.0, n=50, seed=0)  # P = Q: the bound has nothing to find
    assert v.heldout_lower_raw < 0
    assert v.heldout_lower.advantage == 0.0 and v.heldout_lower.accuracy == 0.5
    chart, table = mace_vega.advantage_vega(v)
    raw = table.loc[table["quantity"] == "held-out 95 % lower bound (raw)", "advantage"]
    drawn = table.loc[table["quantity"].str.contains("lower bound, max"), "advantage"]
    assert raw.item() == v.heldout_lower_raw and drawn.item() == 0.0
    (point,) = (
        chart.datasets["estimates"].query("name.str.startswith('held-out 95 %')").itertuples()
    )
    assert point.advantage == 0.0 and point.raw == v.heldout_lower_raw


@pytest.mark.parametrize("seed", range(4))
def test_shown_values_are_max_zero_raw(seed):
    v = mv.mace_view("mixture", 0.3, n=100, seed=seed)
    assert v.heldout_lower.advantage == max(0.0, v.heldout_lower_raw)
    assert v.heldout.advantage == max(0.0, v.heldout_raw)


def test_dp_verdicts():
    far = mv.mace_view("normal", 4.0, n=5000)  # truth 2Φ(2) − 1 = 0.954 > tanh(1/2)
    assert far.exceeds_bound and far.lower_bound_proves_not_dp
    lap = mv.mace_view("laplace", 1.0, epsilon=1.0)  # exactly 1-DP: the bound must hold
    assert lap.exact_dp_epsilon == 1.0 and not lap.exceeds_bound
    assert mv.mace_view("normal", 1.0).exact_dp_epsilon is None


def test_prior_floor_and_lambda():
    v = mv.mace_view(prior=0.8)
    assert v.prior_floor == pytest.approx(0.6) and v.lam == pytest.approx(math.log(4))
    assert v.truth.advantage >= v.prior_floor
    assert v.blind_guess.accuracy == pytest.approx(0.8) and v.blind_guess.advantage == v.prior_floor


def test_kde_is_capped_and_uses_silverman():
    v = mv.mace_view(estimator="kde", n=6000, separation=1.0)
    assert v.kde_capped and v.n_used == mv.KDE_MAX_N and v.n_requested == 6000
    assert v.bandwidth is not None and v.bandwidth > 0
    assert v.edges.size == 61 and v.points.size == 200
    assert mv.view_is_heavy("kde", 6000) and not mv.view_is_heavy("histogram", 20000)


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(shape="cauchy"), "shape"),
        (dict(separation=-1.0), "separation"),
        (dict(n=2), "n"),
        (dict(seed=-1), "seed"),
        (dict(estimator="svm"), "estimator"),
        (dict(bins=0), "bins"),
        (dict(bandwidth=0.0), "bandwidth"),
        (dict(prior=1.0), "prior"),
        (dict(epsilon=-0.1), "epsilon"),
    ],
)
def test_view_errors_name_the_parameter(kw, name):
    with pytest.raises(ValueError, match=name):
        mv.mace_view(**kw)
    if name not in ("n", "epsilon"):
        with pytest.raises(ValueError, match=name):
            mv.drift(**kw)


# --------------------------------------------------------------------------- drift


def test_drift_run0_is_the_pages_estimate(default_drift):
    d = default_drift
    assert d.n_values == mv.DRIFT_N and d.runs == mv.DRIFT_RUNS[mv.Estimator.HISTOGRAM]
    i = d.n_values.index(2000)
    v = mv.mace_view(n=2000, seed=0)
    assert d.plugin[i, 0] == v.plugin.advantage
    assert d.heldout[i, 0] == v.heldout_raw and d.heldout_lower_raw[i, 0] == v.heldout_lower_raw
    v1 = mv.mace_view(n=50, seed=1)  # run 1 uses seed + 1
    assert d.plugin[0, 1] == v1.plugin.advantage


def test_drift_numbers(default_drift):
    d = default_drift
    assert d.truth == mace_synthetic.true_advantage("normal", 1.0)
    bias = d.plugin.mean(axis=1) - d.truth
    np.testing.assert_allclose(d.plugin_bias, bias)
    assert d.bias_small_n == bias[0] and d.bias_large_n == bias[-1]
    np.testing.assert_array_equal(d.heldout_lower, np.maximum(d.heldout_lower_raw, 0.0))
    assert d.lower_above_truth == int((d.heldout_lower_raw > d.truth).sum())
    assert d.lower_max == d.heldout_lower_raw.max()
    # each run's lower bound fails with probability <= 5 %: 99.9 % binomial ceiling
    runs = d.plugin.size
    assert d.lower_above_truth <= stats.binom.ppf(0.999, runs, 0.05)


def test_plugin_drifts_upwards_when_nothing_leaks():
    """P = Q: the truth is 0, yet |f̂| averages above 0 at every N, most at small N."""
    d = mv.drift("normal", 0.0)
    assert d.truth == 0.0
    assert (d.plugin > 0).all()
    assert d.bias_small_n > d.bias_large_n > 0


def test_drift_progress_and_heaviness():
    seen = []
    d = mv.drift("laplace", 0.5, progress=lambda f, m: seen.append((f, m)))
    assert len(seen) == len(d.n_values) * d.runs and seen[-1][0] == 1.0
    assert all(isinstance(m, str) for _, m in seen)
    assert mv.drift_is_heavy("kde") and not mv.drift_is_heavy("histogram")


@pytest.mark.slow
def test_kde_drift_stops_at_the_cap():
    d = mv.drift(estimator="kde")
    assert d.n_values == tuple(n for n in mv.DRIFT_N if n <= mv.KDE_MAX_N)
    assert d.runs == mv.DRIFT_RUNS[mv.Estimator.KDE]


# --------------------------------------------------------------------------- figures


@pytest.mark.parametrize("kw", [dict(), dict(estimator="kde", n=400, bandwidth=0.3)])
def test_figures_headless_without_nan(kw):
    v = mv.mace_view(**kw)
    *charts, table = mace_vega.samples_loss_vega(v)
    adv, adv_table = mace_vega.advantage_vega(v)
    for t in (table, adv_table):
        assert isinstance(t, pd.DataFrame) and len(t) > 0
    drift, table = mace_vega.drift_vega(mv.drift("mixture", 1.5, bins=20))
    for chart in (*charts, adv, drift):
        for data in chart.datasets.values():
            assert np.isfinite(data.select_dtypes("number").to_numpy(dtype=float)).all()
    assert list(table["N"]) == list(mv.DRIFT_N)
    assert "held-out 95 % lower bound: raw mean" in table.columns
