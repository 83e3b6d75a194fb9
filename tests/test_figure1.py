"""Tests for mipcore.figure1: the Figure 1 curves (Section 5.1 of 000_ece03c98c31c7b12.txt).

Expected values are computed independently of ``mipcore``:

* the MIP scale ``(C/eta)^(1+2/M) sigma`` and the DP scale ``Δ / log((1+2eta)/(1-2eta))``
  are evaluated in a private mpmath context from the printed formulas;
* Δ(n) = sqrt(C(n,k)) − 1/(2^(n−2) + 2^(k−1) − 1) (derived in mipcore.prop11's docstring
  and checked against an exhaustive enumeration for n <= 16 in tests/test_prop11.py);
* σ(n) for M = 2 is bracketed from the construction alone (see tests/test_prop11.py's
  module docstring): with p = 1/C(n,k), t = 2^-(k-2) and the mean μ in
  (sqrt(p), sqrt(p) + t),
  ``1 − p − sqrt(p)·t <= σ`` and ``σ^2 <= (1 − p)^2 + (sqrt(p) + t)^2``,
  so for the n of the figure σ is known to about 1e-8 without any branch-and-bound.
* crossovers are solved with scipy.optimize.brentq on this own formula.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq

from mipcore import prop11
from mipcore.lessons import figure1
from mipcore.noise import COROLLARY14_CONSTANT, dp_laplace_scale, mip_noise_scale

MP = mpmath.mp.clone()
MP.dps = 40


def own_delta(n: int) -> float:
    k = n // 2
    return float(MP.sqrt(math.comb(n, k)) - MP.mpf(1) / (2 ** (n - 2) + 2 ** (k - 1) - 1))


def own_sigma_bracket(n: int) -> tuple[float, float]:
    """(lower, upper) bounds on σ_2 from the construction (module docstring)."""
    k = n // 2
    C = math.comb(n, k)
    p = MP.mpf(1) / C
    sp = MP.sqrt(p)
    t = MP.mpf(2) ** (-(k - 2))
    lo = 1 - p - sp * t
    hi = MP.sqrt((1 - p) ** 2 + (sp + t) ** 2)
    return float(lo), float(hi)


def own_mip(eta, sigma, M=2, C=6.16):
    eta, sigma, M, C = (MP.mpf(v) for v in (eta, sigma, M, C))
    return (C / eta) ** (1 + 2 / M) * sigma


def own_dp(eta, delta):
    eta, delta = MP.mpf(eta), MP.mpf(delta)
    return delta / MP.log((1 + 2 * eta) / (1 - 2 * eta))


def own_crossover(
    sigma: float, delta: float, M: int = 2, C: float = 6.16, a: float = 1e-8, b: float = 0.3
) -> float:
    """The lower root of log MIP − log DP (MIP cheaper just above it), by brentq."""

    def f(eta):
        eps = math.log1p(2 * eta) - math.log1p(-2 * eta)
        log_mip = (1 + 2 / M) * (math.log(C) - math.log(eta)) + math.log(sigma)
        return log_mip - (math.log(delta) - math.log(eps))

    assert f(a) > 0 > f(b)
    return brentq(f, a, b, xtol=1e-16, rtol=1e-15)


@pytest.fixture(scope="module")
def claims():
    return figure1.paper_claims()


# --------------------------------------------------------------------------- presets


def test_paper_preset():
    P = figure1.PAPER_PRESET
    assert tuple(P["ns"]) == (30, 36, 42, 48)
    assert P["M"] == 2
    assert P["constant"] == 6.16 == COROLLARY14_CONSTANT
    assert (P["eta_min"], P["eta_max"]) == (0.01, 0.49)
    assert P["log_y"] is False


def test_own_sigma_bracket_agrees_with_prop11():
    for n in (14, 16, 30, 36, 48, 100):
        lo, hi = own_sigma_bracket(n)
        s = prop11.output_moments(n, 2).sigma  # certified upper end
        assert lo <= s * (1 + 1e-15)
        assert s <= hi * (1 + 1e-12)  # hi is a proven upper bound; s exceeds σ by its width only
        assert own_delta(n) == pytest.approx(prop11.sensitivity(n), rel=1e-14)


# --------------------------------------------------------------------------- noise_curves


@pytest.mark.parametrize(
    "ns, M, C, points",
    [
        ((30, 36, 42, 48), 2, 6.16, 60),
        ((31, 40), 4, 7.5, 25),  # odd n is allowed (k = floor(n/2)); M > 2 and Theorem 9's constant
    ],
)
def test_noise_curves_columns_and_values(ns, M, C, points):
    eta_min, eta_max = 0.01, 0.49
    df = figure1.noise_curves(ns, eta_min, eta_max, M=M, constant=C, points=points)
    assert list(df.columns) == ["n", "eta", "method", "noise_scale", "sigma", "sensitivity"]
    assert set(df["method"]) == {"MIP", "DP"}
    assert sorted(set(df["n"])) == sorted(ns)
    etas0 = None
    for (n, method), g in df.groupby(["n", "method"]):
        etas = g["eta"].to_numpy()
        assert np.all(np.diff(etas) > 0)
        assert etas[0] == eta_min and etas[-1] == eta_max
        assert points <= len(etas) <= points + 2
        if etas0 is None:
            etas0 = etas
        np.testing.assert_array_equal(etas, etas0)  # one grid for all curves
        sig = prop11.output_moments(n, M).sigma
        delta = prop11.sensitivity(n)
        assert (g["sigma"] == sig).all() and (g["sensitivity"] == delta).all()
        for eta, scale in zip(etas, g["noise_scale"], strict=True):
            ref = own_mip(eta, sig, M, C) if method == "MIP" else own_dp(eta, own_delta(n))
            assert abs(scale - float(ref)) <= 1e-12 * float(ref), (n, method, eta)
        # and the module's own formulas give the same column
        if method == "MIP":
            np.testing.assert_allclose(
                g["noise_scale"], mip_noise_scale(etas, sig, M, C), rtol=1e-14
            )
        else:
            np.testing.assert_allclose(g["noise_scale"], dp_laplace_scale(etas, delta), rtol=1e-14)
    assert len(df) == 2 * len(ns) * len(etas0)


def test_noise_curves_mip_is_one_line_for_m2():
    """For M = 2, σ_2 is within 1e-3 of 1 for n >= 14, so the MIP curves (nearly) coincide."""
    df = figure1.noise_curves((30, 36, 42, 48), 0.01, 0.49, points=20)
    mip = df[df.method == "MIP"].pivot(index="eta", columns="n", values="noise_scale")
    spread = (mip.max(axis=1) - mip.min(axis=1)) / mip.min(axis=1)
    assert (spread < 1e-7).all()


# --------------------------------------------------------------------------- crossovers


def test_crossover_table():
    ns = (30, 36, 42, 48, 31)
    df = figure1.crossover_table(ns)
    assert list(df.columns) == [
        "n",
        "sensitivity",
        "sigma",
        "crossover_eta",
        "upper_crossover_gap",
        "upper_crossover_epsilon",
        "best_eta",
        "max_ratio_dp_over_mip",
    ]
    assert df["n"].tolist() == list(ns)
    for row in df.itertuples():
        e = row.crossover_eta
        assert 0 < e < 0.5
        mip, dp = mip_noise_scale(e, row.sigma), dp_laplace_scale(e, row.sensitivity)
        assert abs(mip - dp) <= 1e-9 * dp, row.n
        above, below = e * (1 + 1e-6), e * (1 - 1e-6)
        assert mip_noise_scale(above, row.sigma) < dp_laplace_scale(above, row.sensitivity)
        assert mip_noise_scale(below, row.sigma) > dp_laplace_scale(below, row.sensitivity)
        # the module's root equals an independent brentq root on the own formula
        assert own_crossover(row.sigma, own_delta(row.n)) == pytest.approx(e, rel=1e-9)
        assert row.max_ratio_dp_over_mip > 1 and e < row.best_eta < 0.5


def test_crossover_n30_above_and_n36_below_one_percent():
    """Derived from own Δ and own σ bracket only (no mipcore numbers)."""
    for n, side in ((30, "above"), (36, "below")):
        lo, hi = own_sigma_bracket(n)
        roots = [own_crossover(s, own_delta(n)) for s in (lo, hi)]
        if side == "above":
            assert min(roots) > 0.01, roots
        else:
            assert max(roots) < 0.01, roots
    df = figure1.crossover_table([30, 36]).set_index("n")
    assert df.loc[30, "crossover_eta"] > 0.01 > df.loc[36, "crossover_eta"]


# --------------------------------------------------------------------------- paper claims


def test_paper_claims_shape(claims):
    assert len(claims) == 3
    for c in claims:
        assert isinstance(c, figure1.Claim)
        assert isinstance(c.holds, bool)
        assert isinstance(c.statement, str) and c.statement
        assert isinstance(c.evidence, str) and c.evidence


def test_claim1_mip_cheaper_for_n_at_least_36(claims):
    """Independent verdict: even n in 36..200, fine η grid on [0.01, 0.49], own Δ and σ bound.

    log(MIP/DP) is convex in log ε (mipcore.noise docstring), so a violation anywhere
    on the range would show at an end point; the grid adds interior points anyway.
    """
    etas = np.unique(np.concatenate([np.geomspace(0.01, 0.49, 800), np.linspace(0.01, 0.49, 800)]))
    eps = np.log1p(2 * etas) - np.log1p(-2 * etas)
    verdict = True
    worst = (None, 0.0)
    for n in range(36, 201, 2):
        sig_hi = own_sigma_bracket(n)[1]
        delta = own_delta(n)
        mip = (6.16 / etas) ** 2 * sig_hi
        dp = delta / eps
        if not np.all(mip < dp):
            verdict = False
        root = own_crossover(sig_hi, delta, a=1e-300)
        if root > worst[1]:
            worst = (n, root)
    assert verdict is True
    assert claims[0].holds == verdict
    assert worst[0] == 36
    assert f"{worst[1]:.3g}" in claims[0].evidence and "n = 36" in claims[0].evidence


def test_claim2_fails_at_n30(claims):
    lo, _hi = own_sigma_bracket(30)
    root = own_crossover(lo, own_delta(30))  # the smallest σ gives the smallest crossover
    not_cheaper_on_range = root > 0.01
    assert not_cheaper_on_range is True
    assert claims[1].holds == not_cheaper_on_range
    sig30 = prop11.output_moments(30, 2, rtol=1e-6, max_nodes=400).sigma  # what the claim uses
    assert f"{own_crossover(sig30, own_delta(30)):.4g}" in claims[1].evidence


def test_claim3_first_hidden_dp_curve(claims):
    """First n whose DP scale at η = 0.49 exceeds the MIP scale at η = 0.01 (σ of n = 48)."""
    sig48 = own_sigma_bracket(48)  # bracket: the answer must not depend on where σ lies in it
    firsts = set()
    for sig in sig48:
        y_top = own_mip(0.01, sig)
        first = next(n for n in range(30, 401, 2) if own_dp(0.49, own_delta(n)) > y_top)
        firsts.add(first)
    assert len(firsts) == 1
    first = firsts.pop()
    assert first == 46  # (the paper says n > 48)
    assert claims[2].holds == (first == 50)
    assert claims[2].holds is False
    assert f"is n = {first}." in claims[2].evidence
    v48, v50 = float(own_dp(0.49, own_delta(48))), float(own_dp(0.49, own_delta(50)))
    assert f"[{v48:.4g}, {v50:.4g})" in claims[2].evidence
    assert figure1.dp_visibility(48, 0.49) == pytest.approx(v48, rel=1e-13)


def test_paper_claims_other_range():
    """A range from η = 0.02: n = 30's crossover (≈ 0.0122) is then below it, so claim 2 fails."""
    cl = figure1.paper_claims(eta_min=0.02, eta_max=0.4, n_max=60)
    assert cl[0].holds is True
    lo, _ = own_sigma_bracket(30)
    assert own_crossover(lo, own_delta(30)) < 0.02
    assert cl[1].holds is False


# --------------------------------------------------------------------------- inputs


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: figure1.noise_curves([], 0.01, 0.49), "ns="),
        (lambda: figure1.noise_curves([30], 0.2, 0.2), "eta_min="),
        (lambda: figure1.noise_curves([30], 0.3, 0.2), "eta_min="),
        (lambda: figure1.noise_curves([30], 0.01, 0.5), "eta_max="),
        (lambda: figure1.noise_curves([30], 0.0, 0.4), "eta_min="),
        (lambda: figure1.noise_curves([3], 0.01, 0.49), "n="),
        (lambda: figure1.noise_curves([30.5], 0.01, 0.49), "n="),
        (lambda: figure1.noise_curves([30], 0.01, 0.49, M=1), "M="),
        (lambda: figure1.noise_curves([30], 0.01, 0.49, constant=5.0), "constant="),
        (lambda: figure1.noise_curves([30], 0.01, 0.49, points=2), "points="),
        (lambda: figure1.crossover_table([]), "ns="),
        (lambda: figure1.crossover_table([401]), "n="),
        (lambda: figure1.paper_claims(eta_min=0.3, eta_max=0.2), "eta_min="),
        (lambda: figure1.paper_claims(eta_max=0.5), "eta_max="),
        (lambda: figure1.paper_claims(n_max=34), "n_max="),
        (lambda: figure1.dp_visibility(30, 0.5), "eta_max="),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_odd_n_allowed():
    df = figure1.crossover_table([31, 37])
    assert df["n"].tolist() == [31, 37]
    assert np.isfinite(df["crossover_eta"]).all()
    curves = figure1.noise_curves([31], 0.01, 0.49, points=10)
    assert isinstance(curves, pd.DataFrame) and len(curves) >= 20
