"""Tests for mipcore.audit_stats: Clopper–Pearson, the ε and η lower bounds of an audit, ROC points.

References are independent of the code under test:

* ``mp_accuracy``: the Proposition 2 integral with mpmath at 30 digits -- roots of
  ``π p_in − (1−π) p_out`` located on a fine grid and polished with ``mpmath.findroot``,
  then ``|∫ g|`` summed over the pieces between atoms and roots;
* the membership game simulated with 10^6 draws (random half, noise, Bayes rule);
* exact enumeration with ``fractions.Fraction`` for the finite constructions;
* ``scipy.stats.binomtest(...).proportion_ci`` for Clopper–Pearson.

Statistical tolerances are 5 standard deviations of the estimator at the sample size used
(or a DKW/Hoeffding bound where stated), never tuned.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mipcore.audit_stats import (
    clopper_pearson,
    epsilon_from_cgr,
    epsilon_lower_bound,
    eta_estimate,
    eta_lower_bound,
    max_certifiable_epsilon,
    roc_points,
)

# --------------------------------------------------------------------------- audits


@pytest.mark.parametrize(
    "k,n", [(0, 1), (0, 10), (3, 10), (10, 10), (57, 100), (999, 1000), (1, 5000)]
)
@pytest.mark.parametrize("conf", [0.9, 0.95, 0.999])
def test_clopper_pearson_matches_scipy(k, n, conf):
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=conf, method="exact")
    lo, hi = clopper_pearson(k, n, conf)
    assert lo == pytest.approx(ref.low, abs=1e-10)
    assert hi == pytest.approx(ref.high, abs=1e-10)
    # one-sided at conf = two-sided at 2 conf − 1
    lo1, hi1 = clopper_pearson(k, n, conf, alternative="greater")
    lo2, _ = clopper_pearson(k, n, 2 * conf - 1)
    assert lo1 == pytest.approx(lo2, abs=1e-12) and hi1 == 1.0


def test_clopper_pearson_vectorised_and_validated():
    lo, hi = clopper_pearson(np.array([0, 5, 10]), 10)
    assert lo.shape == (3,) and lo[0] == 0.0 and hi[2] == 1.0
    with pytest.raises(ValueError, match="k="):
        clopper_pearson(11, 10)
    with pytest.raises(ValueError, match="integer"):
        clopper_pearson(2.5, 10)
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson(2, 10, 1.0)


def test_epsilon_from_cgr_table_values_of_malek_esmaeili_et_al():
    # Theorem B.1: eps = log(CGR/(1-CGR)); CGR 0.7311 <-> eps = 1.0 (the logistic function)
    # 0.7311 is rounded to 4 decimals: |Δε| <= 0.5e-4 · dε/dCGR = 0.5e-4 / (c (1 − c))
    assert epsilon_from_cgr(0.7311) == pytest.approx(1.0, abs=0.5e-4 / (0.7311 * 0.2689))
    assert round(1 / (1 + math.exp(-epsilon_from_cgr(1 / (1 + math.exp(-1.0))))), 4) == 0.7311
    for eps in (0.2, 1.0, 2.9, 4.0):  # arXiv:2106.03408 Table 5: eps_lb between 0 and 4
        assert epsilon_from_cgr(1 / (1 + math.exp(-eps))) == pytest.approx(eps, rel=1e-12)
    assert epsilon_from_cgr(0.4) == 0.0
    assert epsilon_from_cgr(1.0) == math.inf
    # (eps, delta) variant: e^eps >= (CGR − delta/g)/(1 − CGR)
    assert epsilon_from_cgr(0.9, 0.05, 0.5) == pytest.approx(math.log((0.9 - 0.1) / 0.1))


def test_epsilon_lower_bound_and_the_largest_certifiable_epsilon():
    lo = stats.binomtest(900, 1000).proportion_ci(0.9, method="exact").low  # one-sided 95 %
    assert epsilon_lower_bound(900, 1000, 0.95) == pytest.approx(math.log(lo / (1 - lo)), rel=1e-9)
    # N trials, all correct: lo = alpha^(1/N)
    for N in (10, 100, 1000, 10_000):
        lo = 0.05 ** (1 / N)
        assert max_certifiable_epsilon(N) == pytest.approx(math.log(lo / (1 - lo)), rel=1e-9)
    assert max_certifiable_epsilon(1000) < 6.0  # a 1000-trial audit can never show eps = 6
    # delta and abstentions can only lower the bound
    e0 = epsilon_lower_bound(900, 1000)
    assert epsilon_lower_bound(900, 1000, delta=1e-3) < e0
    assert epsilon_lower_bound(900, 1000, delta=1e-3, trials=2000) < epsilon_lower_bound(
        900, 1000, delta=1e-3
    )
    assert epsilon_lower_bound(400, 1000) == 0.0


def test_eta_estimate_and_lower_bound():
    # abstentions are coin flips: eta_hat = g (CGR − 1/2)
    assert eta_estimate(80, 100, 200) == pytest.approx(0.5 * (0.8 - 0.5))
    lo = eta_lower_bound(80, 100, 200, 0.95)
    cgr_lo = stats.binomtest(80, 100).proportion_ci(0.95, method="exact").low  # one-sided 97.5 %
    g_lo = stats.binomtest(100, 200).proportion_ci(0.95, method="exact").low
    assert lo == pytest.approx(g_lo * (cgr_lo - 0.5), rel=1e-9)
    assert eta_lower_bound(40, 100) == 0.0


def test_eta_lower_bound_coverage():
    """Simulated audits with known eta: the bound exceeds the truth in at most ~5 % of runs."""
    rng = np.random.default_rng(7)
    runs, trials = 4000, 300
    g, cgr = 0.6, 0.7
    eta_true = g * (cgr - 0.5)
    guesses = rng.binomial(trials, g, size=runs)
    correct = rng.binomial(guesses, cgr)
    lows = eta_lower_bound(correct, guesses, trials, 0.95)
    miss = np.mean(lows > eta_true)
    assert miss <= 0.05 + 5 * math.sqrt(0.05 * 0.95 / runs)


def test_roc_points():
    fpr, tpr = roc_points([3, 2, 2, -np.inf, np.inf], [True, False, True, False, True])
    assert fpr[0] == 0 and tpr[-1] == 1 and fpr[-1] == 1
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    with pytest.raises(ValueError, match="both"):
        roc_points([1, 2], [True, True])


def test_epsilon_from_cgr_is_accurate_near_one_half():
    # log(c/(1 − c)) from log1p: no cancellation as c -> 1/2 (mpmath at 40 digits as reference)
    import mpmath

    with mpmath.workdps(40):
        for c in (0.5 + 2**-40, 0.5000001, 0.51, 0.75, 1 - 2**-50):
            ref = float(mpmath.log(mpmath.mpf(c) / (1 - mpmath.mpf(c))))
            assert epsilon_from_cgr(c) == pytest.approx(ref, rel=2e-16)


def test_array_trials_give_arrays():
    # trials alone may be an array: the result is an array, not a failed reshape to a float
    eps = epsilon_lower_bound(950, 1000, delta=1e-5, trials=[1000, 2000])
    assert isinstance(eps, np.ndarray) and eps.shape == (2,)
    assert eps[0] == epsilon_lower_bound(950, 1000, delta=1e-5, trials=1000)
    eta = eta_lower_bound(80, 100, [100, 200])
    assert isinstance(eta, np.ndarray) and eta[1] == eta_lower_bound(80, 100, 200)
    assert type(eta_lower_bound(80, 100, None)) is float


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: clopper_pearson(3, 10, alternative="both"), "alternative"),
        (lambda: clopper_pearson(True, 10), "k"),
        (lambda: epsilon_from_cgr(1.2), "cgr"),
        (lambda: epsilon_from_cgr(0.8, guess_rate=0.0), "guess_rate"),
        (lambda: epsilon_lower_bound(5, 4), "correct"),
        (lambda: epsilon_lower_bound(5, 10, delta=1.0), "delta"),
        (lambda: epsilon_lower_bound(5, 10, trials=9), "guesses"),
        (lambda: max_certifiable_epsilon(0), "^trials=0"),
        (lambda: eta_estimate(5, 10, 0), "trials"),
        (lambda: eta_lower_bound(5, 10, confidence=0.0), "confidence"),
        (lambda: roc_points([1.0, math.nan], [True, False]), "NaN"),
    ],
)
def test_out_of_domain_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
