"""Tests for mipcore.canary_audit: the membership game with a planted canary against Proposition 2.

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

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from mipcore.audit_stats import eta_estimate
from mipcore.canary_audit import (
    AuditAttacker,
    AuditMechanism,
    AuditNoise,
    CanaryMechanism,
    canary_mechanism,
    run_canary_audit,
)
from mipcore.noise_laws import NoiseKind, NoiseLaw

# --------------------------------------------------------------------------- canary audit


@pytest.mark.parametrize(
    "noise,kw",
    [
        ("none", {}),
        ("laplace", {"noise_scale": 1.5}),
        ("gaussian", {"noise_scale": 1.0}),
        ("mip", {"eta": 0.2}),
    ],
)
def test_canary_audit_matches_proposition2(noise, kw):
    audit = run_canary_audit(20_000, n=8, canary=6.0, noise=noise, rng=123, **kw)
    assert audit.trials == 20_000 and audit.guesses + audit.abstentions == audit.trials
    # the attacker is Proposition 2's: its accuracy (abstentions as coin flips) estimates the exact one
    sd = math.sqrt(0.25 / audit.trials)
    assert abs(0.5 + audit.eta_hat - audit.exact_accuracy) <= 5 * sd
    assert audit.eta_lower <= audit.exact_eta + 1e-12
    # ROC: TPR − FPR <= 2η (Theorem 8 corrected) up to the DKW deviation of both empirical curves
    n_pos, n_neg = int(audit.labels.sum()), int((~audit.labels).sum())
    dkw = math.sqrt(math.log(2 / 1e-6) / (2 * n_pos)) + math.sqrt(math.log(2 / 1e-6) / (2 * n_neg))
    assert np.max(audit.tpr - audit.fpr) <= 2 * audit.exact_eta + dkw
    if noise == "mip":
        assert audit.exact_eta <= 0.2  # Theorem 9 certifies 0.2
    if noise == "none":
        assert audit.exact_eta == 0.5 and audit.correct == audit.trials


def test_canary_audit_margin_abstains_and_is_reproducible():
    a = run_canary_audit(5000, noise="laplace", noise_scale=2.0, margin=1.0, rng=9)
    b = run_canary_audit(5000, noise="laplace", noise_scale=2.0, margin=1.0, rng=9)
    assert a.abstentions > 0 and a.correct == b.correct and a.cgr == b.cgr
    assert a.cgr > 0.5 + a.eta_hat  # the confident guesses are better than average
    with pytest.raises(ValueError, match="eta"):
        run_canary_audit(1000, noise="mip", rng=1)
    with pytest.raises(ValueError, match="n="):
        run_canary_audit(1000, n=7, rng=1)
    with pytest.raises(ValueError, match="data has"):
        run_canary_audit(1000, n=8, data=[1, 2], rng=1)
    with pytest.raises(ValueError, match="rng"):
        run_canary_audit(1000, rng=1.5)


def _brute_force_count_eta(records, threshold):
    """Exact η of the noiseless count by enumerating every half (independent of the module)."""
    n = len(records)
    c_in, c_out = {}, {}
    for half in itertools.combinations(range(n), n // 2):
        value = sum(1 for i in half if records[i] > threshold)
        side = c_in if n - 1 in half else c_out
        side[value] = side.get(value, 0) + 1
    total = sum(c_in.values()) + sum(c_out.values())
    acc = Fraction(sum(max(c_in.get(v, 0), c_out.get(v, 0)) for v in set(c_in) | set(c_out)), total)
    return acc - Fraction(1, 2)


@pytest.mark.parametrize(
    "n,threshold,data",
    [(8, 0.5, None), (6, 0.5, None), (8, 0.2, None), (8, 2.0, [0, 3, 3, 1, 5, 0.5, 2])],
)
def test_canary_audit_count_exact_eta_matches_brute_force(n, threshold, data):
    audit = run_canary_audit(
        1000, n=n, noise="none", mechanism="count", threshold=threshold, data=data, rng=5
    )
    records = [*list(np.linspace(0.0, 1.0, n - 1) if data is None else data), 10.0]
    assert audit.exact_eta == pytest.approx(
        float(_brute_force_count_eta(records, threshold)), abs=1e-12
    )
    assert audit.sensitivity == 1.0 and audit.mechanism == "count" and audit.threshold == threshold
    # the attacker is still Proposition 2's, and the MIP noise uses the count's exact σ
    counts = [
        sum(records[i] > threshold for i in h) for h in itertools.combinations(range(n), n // 2)
    ]
    assert audit.sigma == pytest.approx(float(np.std(counts)), rel=1e-12)
    mip = run_canary_audit(
        20_000, n=n, noise="mip", eta=0.2, mechanism="count", threshold=threshold, data=data, rng=6
    )
    assert mip.noise.scale == pytest.approx(NoiseLaw.mip(0.2, mip.sigma).scale, rel=1e-12)
    assert abs(0.5 + mip.eta_hat - mip.exact_accuracy) <= 5 * math.sqrt(0.25 / mip.trials)
    assert mip.exact_eta <= 0.2


@pytest.mark.parametrize("mechanism", ["mean", "count"])
@pytest.mark.parametrize(
    "noise,kw",
    [
        ("none", {}),
        ("laplace", {"noise_scale": 1.5}),
        ("gaussian", {"noise_scale": 0.7}),
        ("mip", {"eta": 0.3}),
    ],
)
def test_distance_attacker_never_beats_the_optimum_and_lr_beats_it(mechanism, noise, kw):
    N = 20_000
    sd = math.sqrt(0.25 / N)
    dist = run_canary_audit(N, noise=noise, mechanism=mechanism, attacker="distance", rng=31, **kw)
    lr = run_canary_audit(N, noise=noise, mechanism=mechanism, attacker="lr", rng=31, **kw)
    assert dist.attacker == "distance" and dist.exact_accuracy == lr.exact_accuracy
    acc_dist, acc_lr = 0.5 + dist.eta_hat, 0.5 + lr.eta_hat
    assert acc_dist <= dist.exact_accuracy + 5 * sd
    # same seed: same halves and noise, so the comparison is paired
    assert np.array_equal(dist.labels, lr.labels)
    assert acc_lr >= acc_dist - 5 * math.sqrt(2) * sd


def test_distance_attacker_is_not_optimal_somewhere():
    """A bimodal dataset where |y − m_out| − |y − m_in| loses clearly to the likelihood ratio."""
    kw = {
        "n": 8,
        "canary": 0.5,
        "noise": "laplace",
        "noise_scale": 0.3,
        "data": [-5, -5, -5, 5, 5, 5, 5],
    }
    dist = run_canary_audit(50_000, attacker="distance", rng=2, **kw)
    lr = run_canary_audit(50_000, attacker="lr", rng=2, **kw)
    assert lr.eta_hat > dist.eta_hat + 5 * math.sqrt(0.5 / 50_000)


def test_canary_audit_new_parameters_are_validated():
    with pytest.raises(ValueError, match="mechanism="):
        run_canary_audit(1000, mechanism="shadow-model", rng=1)
    with pytest.raises(ValueError, match="attacker="):
        run_canary_audit(1000, attacker="shadow", rng=1)
    with pytest.raises(ValueError, match="threshold"):
        run_canary_audit(1000, mechanism="count", threshold=math.nan, rng=1)
    with pytest.raises(ValueError, match="threshold"):
        run_canary_audit(1000, mechanism="count", threshold=math.inf, rng=1)
    assert (
        run_canary_audit(1000, threshold=math.nan, rng=1).threshold is None
    )  # ignored for the mean


# --------------------------------------------------------------------------- canary_mechanism


def _brute_force_mean_mechanism(records, k):
    """Every half's mean, who is in it, and the replace-one L1 sensitivity (plain loops)."""
    n = len(records)
    halves = list(itertools.combinations(range(n), k))
    outputs = [sum(records[i] for i in h) / k for h in halves]
    member = [n - 1 in h for h in halves]
    sens = max(abs(a - b) for a in records for b in records) / k
    return halves, outputs, member, sens


@pytest.mark.parametrize("n", [4, 8, 10])
def test_canary_mechanism_matches_brute_force(n):
    data = np.linspace(-1.0, 2.0, n - 1)
    m = canary_mechanism(n=n, canary=7.0, data=data, noise="laplace", epsilon=0.5)
    records = [*data.tolist(), 7.0]
    halves, outputs, member, sens = _brute_force_mean_mechanism(records, n // 2)
    assert isinstance(m, CanaryMechanism) and m.mechanism is AuditMechanism.MEAN
    assert m.n == n and m.k == n // 2 and m.target == n - 1 and m.output_dim == 1
    np.testing.assert_array_equal(m.records, records)
    assert [tuple(h) for h in m.halves.tolist()] == halves
    np.testing.assert_allclose(m.outputs, outputs, rtol=1e-15)
    assert m.member.tolist() == member and int(m.member.sum()) == math.comb(n - 1, n // 2 - 1)
    assert m.membership.sum(axis=1).tolist() == [n // 2] * len(halves)
    assert m.sensitivity == pytest.approx(sens, rel=1e-15) and m.sensitivity_l2 == m.sensitivity
    assert m.sigma == pytest.approx(float(np.std(outputs)), rel=1e-12) and m.sigmas == (m.sigma,)
    assert m.noise == NoiseLaw.laplace(m.sensitivity / 0.5) and m.threshold is None


@pytest.mark.parametrize(
    "noise,kw",
    [
        ("none", {}),
        ("laplace", {"noise_scale": 1.5}),
        ("gaussian", {"epsilon": 2.0}),
        ("mip", {"eta": 0.2}),
    ],
)
@pytest.mark.parametrize("mechanism", ["mean", "count", "covariance"])
def test_run_canary_audit_plays_against_canary_mechanism(noise, kw, mechanism):
    m = canary_mechanism(n=6, noise=noise, mechanism=mechanism, **kw)
    a = run_canary_audit(200, n=6, noise=noise, mechanism=mechanism, exact=False, rng=3, **kw)
    assert a.noise == m.noise and a.sigma == m.sigma and a.output_dim == m.output_dim
    assert len(m.sigmas) == m.output_dim
    assert a.sensitivity == m.sensitivity and a.sensitivity_l2 == m.sensitivity_l2
    np.testing.assert_array_equal(a.data, m.records)
    assert a.mechanism is m.mechanism and a.threshold == m.threshold
    assert a.eta_hat == eta_estimate(a.correct, a.guesses, a.trials)


def test_canary_mechanism_is_what_the_game_needs():
    """game.py's mean model: records, outputs as it recomputes them, Δ, σ and the law."""
    for kw in ({"noise": "laplace", "epsilon": 1.0}, {"noise": "mip", "eta": 0.1}):
        m = canary_mechanism(n=8, canary=10.0, mechanism="mean", **kw)
        a = run_canary_audit(100, n=8, canary=10.0, mechanism="mean", exact=False, rng=0, **kw)
        halves = np.array(list(itertools.combinations(range(8), 4)))
        np.testing.assert_array_equal(m.outputs, a.data[halves].sum(axis=1) / 4)
        np.testing.assert_array_equal(m.halves, halves)
        assert m.noise.one_dimensional() == a.noise.one_dimensional()
        assert m.sensitivity == a.sensitivity == 10.0 / 4 and m.sigma == a.sigma


def test_enums_or_their_values_at_the_boundary():
    a = run_canary_audit(
        200,
        noise=AuditNoise.GAUSSIAN,
        noise_scale=1.0,
        mechanism=AuditMechanism.COUNT,
        attacker=AuditAttacker.DISTANCE,
        rng=1,
    )
    b = run_canary_audit(
        200, noise="gaussian", noise_scale=1.0, mechanism="count", attacker="distance", rng=1
    )
    assert a.mechanism is AuditMechanism.COUNT and a.attacker is AuditAttacker.DISTANCE
    assert a.mechanism == "count" and a.attacker == "distance"  # StrEnum: equal to its value
    assert a.noise.kind is NoiseKind.GAUSSIAN and a.correct == b.correct and a.cgr == b.cgr
    assert a.exact_method == "certified"


@pytest.mark.parametrize(
    "kwargs,pattern",
    [
        (
            {"noise": "cauchy"},
            r"^noise='cauchy' is not one of \('none', 'laplace', 'gaussian', 'mip'\)$",
        ),
        ({"mechanism": "median"}, r"^mechanism='median' is not one of"),
        ({"n": 5}, r"^n=5 must be even$"),
        ({"n": 18}, r"^n=18 is out of range: allowed 4 <= n <= 16$"),
        ({"noise": "mip"}, r"needs eta"),
        ({"noise": "mip", "eta": 0.0}, r"^eta=0\.0 is out of range"),
        ({"epsilon": -1.0}, r"^epsilon=-1\.0 is out of range"),
        ({"noise_scale": 0.0}, r"^noise_scale=0\.0 is out of range"),
        ({"canary": math.inf}, r"^canary=inf is out of range"),
        ({"data": [1.0, 2.0]}, r"^data has 2 values but n=8"),
        ({"mechanism": "count", "threshold": math.nan}, r"^threshold=nan contains NaN"),
        ({"mechanism": "covariance", "dim": 5}, r"^dim=5 is out of range"),
        ({"mechanism": "covariance", "canary": [1.0, 2.0, 3.0]}, r"^canary has shape \(3,\)"),
        (
            {
                "mechanism": "count",
                "noise": "laplace",
                "epsilon": 1.0,
                "data": [5.0] * 7,
                "canary": 5.0,
                "threshold": 9.0,
            },
            None,
        ),
    ],
)
def test_canary_mechanism_errors_name_the_parameter(kwargs, pattern):
    if pattern is None:  # the count of a dataset entirely below the threshold still has Δ = 1
        assert canary_mechanism(**kwargs).noise == NoiseLaw.laplace(1.0)
        return
    with pytest.raises(ValueError, match=pattern):
        canary_mechanism(**kwargs)


def test_canary_mechanism_zero_sensitivity_cannot_be_calibrated():
    with pytest.raises(ValueError, match="sensitivity 0"):
        canary_mechanism(data=[3.0] * 7, canary=3.0, noise="laplace", epsilon=1.0)
