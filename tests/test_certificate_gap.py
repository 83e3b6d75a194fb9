"""Tests for mipcore.lessons.certificate_gap: certified η of Theorems 9 / 4 vs the exact η of Proposition 11."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mipcore.bounds import eta_from_epsilon
from mipcore.lessons.certificate_gap import (
    SUFFICIENT_RTOL,
    demanded_scales,
    eta_curves,
    prop11_constants,
    sufficient_scale,
)
from mipcore.noise import certified_eta_dp, certified_eta_mip, dp_laplace_scale, mip_noise_scale
from mipcore.prop11_attack import prop11_true_eta

ETAS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.45]


@pytest.mark.parametrize("M", [2, 3, 6])
@pytest.mark.parametrize("constant", [6.16, 7.5])
def test_certified_mip_inverts_mip_noise_scale(M, constant):
    sigma = 0.83
    for eta in ETAS:
        b = mip_noise_scale(eta, sigma, M, constant)
        assert certified_eta_mip(b, sigma, M, constant) == pytest.approx(eta, rel=1e-12)


def test_certified_mip_formula_and_cap():
    assert certified_eta_mip(100.0, 1.0, 2, 6.16) == pytest.approx(min(0.5, 6.16 * 0.01**0.5))
    assert certified_eta_mip(1e-3, 1.0) == 0.5
    assert certified_eta_mip(5.0, 0.0) == 0.0
    out = certified_eta_mip(np.array([1.0, 1e6]), 1.0)
    assert out.shape == (2,) and out[0] == 0.5 and out[1] < 0.5


def test_certified_dp_inverts_dp_laplace_scale():
    for eta in ETAS:
        b = dp_laplace_scale(eta, 3.7)
        assert certified_eta_dp(b, 3.7) == pytest.approx(eta, rel=1e-12)
    assert certified_eta_dp(2.0, 1.0) == pytest.approx(eta_from_epsilon(0.5))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: certified_eta_mip(0.0, 1.0), "scale"),
        (lambda: certified_eta_mip(1.0, -1.0), "sigma"),
        (lambda: certified_eta_mip(1.0, 1.0, M=1, constant=6.16), "M"),
        (lambda: certified_eta_dp(-1.0, 1.0), "scale"),
        (lambda: certified_eta_dp(1.0, -2.0), "sensitivity"),
        (lambda: sufficient_scale(5, 0.1), "n"),
        (lambda: sufficient_scale(18, 0.1), "n"),
        (lambda: sufficient_scale(8, 0.5), "target_eta"),
        (lambda: sufficient_scale(8, 0.1, noise="gaussian"), "noise"),
        (lambda: eta_curves(8, [1.0, -1.0]), "scales"),
        (lambda: eta_curves(8, [1.0], M=7), "M"),
    ],
)
def test_invalid_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("n", [4, 8, 12])
@pytest.mark.parametrize("M, constant", [(2, 6.16), (4, 7.5)])
def test_exact_below_certified_and_monotone(n, M, constant):
    df = eta_curves(n, np.logspace(-6, 6, 49), M, constant)
    assert list(df.columns) == ["scale", "exact", "certified_mip", "certified_dp"]
    assert np.isfinite(df.to_numpy()).all()
    tol = 1e-12
    assert (df["exact"] <= df["certified_mip"] + tol).all()
    assert (df["exact"] <= df["certified_dp"] + tol).all()
    # exact η is non-increasing in the Laplace scale (what the bisection relies on)
    assert (np.diff(df["exact"].to_numpy()) <= 1e-13).all()
    assert df["exact"].iloc[0] > 0.45  # almost no noise: almost perfect inference


@pytest.mark.parametrize("n", [4, 6, 8, 10])
@pytest.mark.parametrize("target", [0.02, 0.1, 0.3])
def test_sufficient_scale_hits_target_and_beats_certified(n, target):
    b = sufficient_scale(n, target)
    assert prop11_true_eta(n, b) <= target
    # just below the returned scale the exact η exceeds the target (bracket of width rtol)
    assert prop11_true_eta(n, b / (1 + SUFFICIENT_RTOL)) > target
    assert prop11_true_eta(n, b) == pytest.approx(target, rel=1e-2)
    _, delta = prop11_constants(n, 2)
    for M, c in ((2, 6.16), (2, 7.5), (4, 6.16)):
        s_M, _ = prop11_constants(n, M)
        assert b <= mip_noise_scale(target, s_M, M, c)
    assert b <= dp_laplace_scale(target, delta)


def test_demanded_scales_consistent():
    d = demanded_scales(8, 0.1)
    assert d["sufficient"] <= d["dp"] <= d["mip"]
    assert d["exact_at_sufficient"] <= 0.1
    assert d["exact_at_mip"] <= d["exact_at_dp"] <= 0.1
    assert all(math.isfinite(v) for v in d.values())
