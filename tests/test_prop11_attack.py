"""Tests for mipcore.prop11_attack: the exact MIP level of Proposition 11 by enumeration, against
mpmath and the certified bounds.

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

import mpmath
import numpy as np
import pytest
from attack_refs import mp_accuracy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mipcore import prop11
from mipcore.bounds import eta_from_epsilon
from mipcore.optimal_attack import (
    optimal_attack,
)
from mipcore.prop11_attack import (
    prop11_eta_by_target,
    prop11_eta_function,
    prop11_outputs,
    prop11_true_eta,
)

# --------------------------------------------------------------------------- Proposition 11


def test_prop11_outputs_match_an_independent_mpmath_construction():
    for n in (4, 6, 9):
        k = n // 2
        total = math.comb(n, k)
        with mpmath.workdps(60):
            a = 1 / mpmath.sqrt(total) - (2 ** (k - 1) - 1)
            recs = [mpmath.mpf(2) ** i for i in range(n - 1)] + [a]
            ref = sorted(
                float(1 / mpmath.fsum(recs[i] for i in c))
                for c in itertools.combinations(range(n), k)
            )
        out, members = prop11_outputs(n)
        assert members.shape == (total, n) and np.all(members.sum(axis=1) == k)
        np.testing.assert_allclose(np.sort(out), ref, rtol=2.3e-16, atol=0)
        assert np.max(out) == pytest.approx(prop11.special_output(n), rel=1e-15)


def test_prop11_eta_by_target_equals_optimal_attack_per_target():
    out, members = prop11_outputs(8)
    etas = prop11_eta_by_target(8, 0.3)
    for t in range(8):
        res = optimal_attack(out[members[:, t]], out[~members[:, t]], ("laplace", 0.3))
        assert etas[t] == pytest.approx(res.eta, abs=1e-13)
    g = prop11_eta_by_target(8, 0.3, "gaussian")
    for t in (0, 7):
        res = optimal_attack(out[members[:, t]], out[~members[:, t]], ("gaussian", 0.3))
        assert g[t] == pytest.approx(res.eta, abs=1e-13)


def test_prop11_n4_against_mpmath():
    out, members = prop11_outputs(4)
    etas = prop11_eta_by_target(4, 0.5)
    for t in range(4):
        ref, _ = mp_accuracy(out[members[:, t]], out[~members[:, t]], "laplace", 0.5)
        assert etas[t] == pytest.approx(ref - 0.5, abs=1e-13)


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
def test_prop11_eta_function_enumerates_once_and_answers_like_a_fresh_enumeration(monkeypatch):
    # Scales in a scrambled order, one repeated: a call must not disturb the shared
    # enumeration (e.g. by sorting or scaling its arrays in place).
    from mipcore import prop11_attack

    enumerate_halves = prop11_attack.prop11_outputs
    calls: list[int] = []

    def counted(m):
        calls.append(m)
        return enumerate_halves(m)

    scales = [3.0, 0.01, 0.0, 3.0, 250.0, 0.4]
    for n, kind in ((8, "laplace"), (6, "gaussian"), (6, "none")):
        calls.clear()
        monkeypatch.setattr(prop11_attack, "prop11_outputs", counted)
        eta = prop11_eta_function(n, kind)
        got = [eta(b) for b in scales]
        assert calls == [n], calls  # one enumeration for all six scales
        monkeypatch.undo()
        fresh = [max(prop11_eta_by_target(n, b, kind)) for b in scales]
        assert got == fresh, (n, kind)
    # against the independent mpmath integral, worst target, at n = 4
    out, members = prop11_outputs(4)
    ref = max(
        mp_accuracy(out[members[:, t]], out[~members[:, t]], "laplace", 0.5)[0] - 0.5
        for t in range(4)
    )
    assert prop11_eta_function(4)(0.5) == pytest.approx(ref, abs=1e-13)
    with pytest.raises(ValueError, match="enumerat"):
        prop11_eta_function(22)
    with pytest.raises(ValueError, match="noise"):
        prop11_eta_function(8, "cauchy")
    with pytest.raises(ValueError, match="noise_scale"):
        prop11_eta_function(8)(-1.0)
    with pytest.raises(ValueError, match="noise_scale"):
        prop11_eta_function(8)(math.inf)


def test_prop11_without_noise_is_not_private():
    # every half has its own output: the attacker reads the training set off the output
    assert prop11_true_eta(10, 0.0) == 0.5
    assert prop11_true_eta(10, 1.0, "none") == 0.5


def test_prop11_true_eta_is_vectorised_and_validated():
    vals = prop11_true_eta(6, np.array([0.1, 1.0, 10.0]))
    assert vals.shape == (3,) and np.all(np.diff(vals) < 0)
    with pytest.raises(ValueError, match="enumerat"):
        prop11_true_eta(22, 1.0)
    with pytest.raises(ValueError, match="n=18 is out of range"):
        prop11_true_eta(18, 1.0, "gaussian")
    with pytest.raises(ValueError, match="noise"):
        prop11_true_eta(8, 1.0, "cauchy")
    with pytest.raises(ValueError, match="noise_scale"):
        prop11_true_eta(8, -1.0)


def certified_etas(n, b, kind):
    """Upper bounds on η for Proposition 11 + noise of scale b, from the papers' theorems."""
    delta_sens = prop11.sensitivity(n)
    bounds = []
    if kind == "laplace":
        # Theorem 9 / Corollary 14 with M = 2 and M = 4: b = (6.16/η)^(1+2/M) σ_M
        for M in (2, 4):
            sig = prop11.sigma(n, M)
            bounds.append(6.16 * (sig / b) ** (M / (M + 2)))
        # Laplace mechanism: (Δ/b)-DP, then Theorem 4
        bounds.append(eta_from_epsilon(delta_sens / b))
        # (0, TV)-DP with TV of two Laplace laws Δ apart
        bounds.append(0.5 * (1 - math.exp(-delta_sens / (2 * b))))
    else:
        # (0, TV)-DP with TV of two Gaussians Δ apart, then Theorem 4 at eps = 0
        bounds.append(stats.norm.cdf(delta_sens / (2 * b)) - 0.5)
    return min(min(bounds), 0.5)


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from([4, 6, 8, 10, 12]),
    st.floats(-2.0, 4.0),
    st.sampled_from(["laplace", "gaussian"]),
)
def test_exact_eta_never_exceeds_certified_eta(n, log10_b, kind):
    b = 10.0**log10_b
    exact = prop11_true_eta(n, b, kind)
    assert 0.0 <= exact <= certified_etas(n, b, kind) + 1e-12


def test_certified_eta_is_far_from_tight_for_prop11():
    # the point of the exercise: at n = 16 and Theorem 9's noise for eta = 0.1 the true eta is tiny
    sig = prop11.sigma(16)
    b = (6.16 / 0.1) ** 2 * sig
    exact = prop11_true_eta(16, b)
    assert exact < 1e-3 * 0.1
