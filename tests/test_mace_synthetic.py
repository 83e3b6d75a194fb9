"""mipcore.lessons.mace_synthetic: the closed-form Bayes advantage against numerical integration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from mipcore.lessons import mace_synthetic


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
