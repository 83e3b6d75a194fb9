"""Tests for mipcore.experiments.figure1: Figure 1 of Izzo, Yoon, Arık, Zou, *Provable Membership
Inference Privacy* (TMLR 2024, arXiv:2211.06582), Section 5.1.

Expected values are computed independently of ``mipcore``:

* the printed MIP scale ``(C/eta)^(1+2/M) sigma`` and the DP scale ``Δ / log((1+2eta)/(1-2eta))``
  are evaluated in a private mpmath context from the printed formulas;
* the smallest certified MIP scale is ``sigma / ln(1/(1 − 2 eta))`` ((1 − e^{−1/c})/2
  inverted), and the certified level of a multiplier is ``(1 − e^{−1/c})/2`` evaluated here;
* Δ(n) = sqrt(C(n,k)) − 1/(2^(n−2) + 2^(k−1) − 1) (derived in mipcore.prop11's docstring and
  checked against an exhaustive enumeration for n <= 16 in tests/test_prop11.py);
* σ(n) for M = 2 is bracketed from the construction alone (see tests/test_prop11.py's module
  docstring): with p = 1/C(n,k), t = 2^-(k-2) and the mean μ in (sqrt(p), sqrt(p) + t),
  ``1 − p − sqrt(p)·t <= σ`` and ``σ^2 <= (1 − p)^2 + (sqrt(p) + t)^2``; for n <= 12 it is
  computed by enumerating every half at 60 digits;
* crossovers are solved with scipy.optimize.brentq on these formulas.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from mipcore import prop11, theorem9
from mipcore.experiments import figure1
from mipcore.experiments.figure1 import Coverage, CrossKind
from mipcore.noise import COROLLARY14_CONSTANT, dp_laplace_scale, mip_noise_scale
from mipcore.plots import figure1_vega

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


def brute_sigma(n: int, M: int = 2) -> float:
    """(E|𝒜 − E𝒜|^M)^(1/M) by enumerating every half at 60 digits (small n only)."""
    with mpmath.workdps(60):
        k = n // 2
        a = 1 / mpmath.sqrt(math.comb(n, k)) - (2 ** (k - 1) - 1)
        records = [mpmath.mpf(2) ** i for i in range(n - 1)] + [a]
        vals = [1 / mpmath.fsum(records[i] for i in D) for D in itertools.combinations(range(n), k)]
        mean = mpmath.fsum(vals) / len(vals)
        return float((mpmath.fsum(abs(v - mean) ** M for v in vals) / len(vals)) ** (1 / M))


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


def own_cheaper_on(sigma: float, delta: float, lo: float, hi: float) -> bool:
    """MIP below DP on all of [lo, hi]: log(MIP/DP) is convex in log ε (mipcore.noise
    docstring), so checking the ends suffices; a fine grid is checked as well."""
    etas = np.unique(np.concatenate([np.geomspace(lo, hi, 400), np.linspace(lo, hi, 400)]))
    eps = np.log1p(2 * etas) - np.log1p(-2 * etas)
    return bool(np.all((6.16 / etas) ** 2 * sigma < delta / eps))


@pytest.fixture(scope="module")
def claims() -> figure1.PaperClaims:
    return figure1.paper_claims()


@pytest.fixture(scope="module")
def paper_rows() -> tuple[figure1.NoiseRow, ...]:
    return figure1.noise_rows(figure1.PAPER_PRESET.ns)


# --------------------------------------------------------------------------- presets


def test_paper_preset():
    P = figure1.PAPER_PRESET
    assert P.ns == (30, 36, 42, 48)
    assert P.M == 2
    assert P.constant == 6.16 == COROLLARY14_CONSTANT
    assert (P.eta_min, P.eta_max) == (0.01, 0.49)
    assert P.log_y is False


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
def test_own_sigma_bracket_agrees_with_prop11():
    for n in (14, 16, 30, 36, 48, 100):
        lo, hi = own_sigma_bracket(n)
        s = prop11.output_moments(n, 2).sigma  # certified upper end
        assert lo <= s * (1 + 1e-15)
        assert s <= hi * (1 + 1e-12)  # hi is a proven upper bound; s exceeds σ by its width only
        assert own_delta(n) == pytest.approx(prop11.sensitivity(n), rel=1e-14)


# --------------------------------------------------------------------------- the curves


@pytest.mark.parametrize(
    "ns, M, C, points",
    [
        ((30, 36, 42, 48), 2, 6.16, 60),
        ((31, 40), 4, 7.5, 25),  # odd n is allowed (k = floor(n/2)); M > 2 and Theorem 9's constant
    ],
)
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_view_curves_columns_and_values(ns, M, C, points):
    eta_min, eta_max = 0.01, 0.49
    rows = figure1.noise_rows(ns, M, C)
    df = figure1.figure1_view(rows, eta_min, eta_max, points=points).curves
    assert sorted(set(df["n"])) == sorted(ns) == [r.n for r in rows]
    etas0 = None
    for row in rows:
        n, g = row.n, df[df["n"] == row.n]
        etas = g["eta"].to_numpy()
        assert np.all(np.diff(etas) > 0)
        assert etas[0] == eta_min and etas[-1] == eta_max
        assert points <= len(etas) <= points + 2
        if etas0 is None:
            etas0 = etas
        np.testing.assert_array_equal(etas, etas0)  # one grid for all curves
        sig = prop11.output_moments(n, M).sigma
        delta = prop11.sensitivity(n)
        assert (row.sigma, row.sensitivity) == (sig, delta)
        for eta, mip, dp in zip(etas, g["mip_paper"], g["dp"], strict=True):
            for scale, ref in ((mip, own_mip(eta, sig, M, C)), (dp, own_dp(eta, own_delta(n)))):
                assert abs(scale - float(ref)) <= 1e-12 * float(ref), (n, eta)
        np.testing.assert_allclose(g["mip_paper"], mip_noise_scale(etas, sig, M, C), rtol=1e-14)
        np.testing.assert_allclose(g["dp"], dp_laplace_scale(etas, delta), rtol=1e-14)
    assert len(df) == len(ns) * len(etas0)


def test_mip_curves_are_one_line_for_m2():
    """For M = 2, σ_2 is within 1e-3 of 1 for n >= 14, so the MIP curves (nearly) coincide."""
    view = figure1.figure1_view(figure1.noise_rows((30, 36, 42, 48)), 0.01, 0.49, points=20)
    mip = view.curves.pivot(index="eta", columns="n", values="mip_paper")
    spread = (mip.max(axis=1) - mip.min(axis=1)) / mip.min(axis=1)
    assert (spread < 1e-7).all() and view.mip_curves_coincide


# --------------------------------------------------------------------------- the certified minimum


def test_certified_noise_known_values_and_inverse():
    """σ/ln(1/(1 − 2η)), the smallest certified noise the page quotes (σ = 1: the multiplier of
    :func:`mipcore.theorem9.required_noise_multiplier`): known value at η = 0.1, and
    (1 − e^{−1/c})/2 of it is η (round trip, never above: the multiplier is rounded up by 8
    ulps, about 1.8e-15 relative)."""
    c01 = theorem9.required_noise_multiplier(0.1, M=2, d=1)
    assert c01 == pytest.approx(-1 / math.log(0.8), rel=4e-15) and round(c01, 4) == 4.4814
    for eta in (1e-6, 0.01, 0.1, 0.3, 0.49, 0.4999):
        c = theorem9.required_noise_multiplier(eta, M=2, d=1)
        assert theorem9.certified_eta(c, M=2, d=1) <= eta  # the certificate, as evaluated
        exact = (1 - MP.exp(-1 / MP.mpf(c))) / 2  # exact: at most η, within a few ulp of it
        assert exact <= MP.mpf(eta) and MP.mpf(eta) - exact <= 4e-15 * eta


def test_paper_over_certified_is_847_at_eta_01():
    """(6.16/0.1)² · ln(1/0.8) = 846.7 (the factor the page quotes)."""
    want = float((MP.mpf("6.16") / MP.mpf("0.1")) ** 2 * -MP.log(1 - MP.mpf("0.2")))
    assert figure1.paper_over_certified(0.1, 2) == pytest.approx(want, rel=1e-13)
    assert round(want) == 847
    # Theorem 9's constant, M = 4: (7.5/η)^1.5 · ln(1/(1 − 2η))
    assert figure1.paper_over_certified(0.2, 4, 7.5) == pytest.approx(
        (7.5 / 0.2) ** 1.5 * -math.log(0.6), rel=1e-13
    )


@settings(max_examples=40)
@given(
    eta=st.floats(0.001, 0.499),
    M=st.integers(2, 16),
    C=st.sampled_from([6.16, 7.5]),
)
def test_printed_noise_is_always_above_the_certified_minimum(eta, M, C):
    """(C/η)^(1+2/M) >= −1/ln(1 − 2η) on (0, 1/2): the printed noise is always certified."""
    assert figure1.paper_over_certified(eta, M, C) > 1.0


def test_certified_ratio_rises_from_delta_over_two_sigma_to_delta_over_sigma(paper_rows):
    """DP ÷ certified MIP = (Δ/σ)·ln(1/(1 − 2η))/ln((1 + 2η)/(1 − 2η)): Δ/(2σ) as η → 0
    (``certified_ratio``, its least value), rising to Δ/σ as η → 1/2 (closed form, and the
    view's curves, checked against an independent evaluation)."""
    view = figure1.figure1_view(paper_rows, 0.001, 0.499, points=300)
    for r in paper_rows:
        delta = own_delta(r.n)
        assert r.certified_ratio == pytest.approx(delta / (2 * r.sigma), rel=1e-14)
        cv = view.curves[view.curves["n"] == r.n]
        eta = cv["eta"].to_numpy()
        want = delta / r.sigma * np.log1p(-2 * eta) / -np.log((1 + 2 * eta) / (1 - 2 * eta))
        ratio = cv["ratio_dp_over_certified"].to_numpy()
        np.testing.assert_allclose(ratio, want, rtol=1e-12)
        assert np.all(np.diff(ratio) >= 0) and ratio[0] >= r.certified_ratio
        assert ratio[-1] < delta / r.sigma
        own = np.array([float(own_dp(e, delta)) for e in eta[::37]])
        np.testing.assert_allclose(
            cv["mip_certified"].to_numpy()[::37] * ratio[::37], own, rtol=1e-12
        )


def test_certified_minimum_is_cheaper_from_n4_at_m2_and_not_at_m8():
    """Δ > 2σ₂ already at n = 4 (σ₂ by enumeration); at M = 8, n = 4 has Δ < 2σ₈."""
    for n in (4, 6, 8):
        s = brute_sigma(n, 2)
        assert own_delta(n) > 2 * s
        (row,) = figure1.noise_rows([n])
        assert row.certified_cheaper and row.certified_ratio == pytest.approx(
            own_delta(n) / (2 * s), rel=1e-9
        )
    (row8,) = figure1.noise_rows([4], 8)
    assert own_delta(4) < 2 * brute_sigma(4, 8)
    assert not row8.certified_cheaper


# --------------------------------------------------------------------------- crossovers


@pytest.mark.slow  # a heavy check of numbers: CI's full suite runs it, the quick loop does not
def test_noise_rows_crossovers():
    ns = (30, 36, 42, 48, 31, 30)
    rows = figure1.noise_rows(ns)
    assert [r.n for r in rows] == [30, 31, 36, 42, 48]  # sorted, repeats dropped
    for row in rows:
        e = row.crossover.low
        assert 0 < e < 0.5
        mip, dp = mip_noise_scale(e, row.sigma), dp_laplace_scale(e, row.sensitivity)
        assert abs(mip - dp) <= 1e-9 * dp, row.n
        above, below = e * (1 + 1e-6), e * (1 - 1e-6)
        assert mip_noise_scale(above, row.sigma) < dp_laplace_scale(above, row.sensitivity)
        assert mip_noise_scale(below, row.sigma) > dp_laplace_scale(below, row.sensitivity)
        assert own_crossover(row.sigma, own_delta(row.n)) == pytest.approx(e, rel=1e-9)
        assert row.crossover.best_ratio > 1 and e < row.crossover.best_eta < 0.5
        assert row.certified_ratio == pytest.approx(row.sensitivity / (2 * row.sigma), rel=1e-15)


def test_crossover_n30_above_and_n36_below_one_percent():
    """Derived from own Δ and own σ bracket only (no mipcore numbers)."""
    for n, side in ((30, "above"), (36, "below")):
        lo, hi = own_sigma_bracket(n)
        roots = [own_crossover(s, own_delta(n)) for s in (lo, hi)]
        if side == "above":
            assert min(roots) > 0.01, roots
        else:
            assert max(roots) < 0.01, roots
    row30, row36 = figure1.noise_rows([30, 36])
    assert row30.crossover.low > 0.01 > row36.crossover.low


def test_upper_crossover_below_the_smallest_double_keeps_its_size():
    """n = 48: 1/2 − η_high = 1/(1 + e^ε) with ε ≈ 37413 underflows to 0; its log₁₀ does not
    (this was the page's "at most 0 below it")."""
    (row,) = figure1.noise_rows([48])
    assert row.crossover.high_gap == 0.0
    eps = MP.mpf(row.crossover.high_epsilon)
    assert row.upper_log10_gap == pytest.approx(float(-MP.log10(1 + MP.exp(eps))), rel=1e-12)
    assert row.upper_log10_gap < -16000
    # the crossover itself: MIP = DP at η = tanh(ε/2)/2, written via ε
    log_dp = math.log(row.sensitivity) - math.log(row.crossover.high_epsilon)
    log_mip = 2 * (math.log(6.16) - math.log(0.5)) + math.log(row.sigma)
    assert log_mip == pytest.approx(log_dp, abs=1e-9)
    (row30,) = figure1.noise_rows([30])  # a gap float64 still holds: both agree
    assert math.log10(row30.crossover.high_gap) == pytest.approx(row30.upper_log10_gap, rel=1e-12)


# --------------------------------------------------------------------------- the view


@pytest.mark.parametrize(
    "ns, lo, hi, want",
    [
        ((4,), 0.01, 0.49, Coverage.NEVER),
        ((36,), 0.01, 0.49, Coverage.EVERYWHERE),
        ((30,), 0.01, 0.49, Coverage.FROM),
        ((22,), 0.1, 0.499, Coverage.BETWEEN),
        ((22,), 0.25, 0.499, Coverage.UNTIL),
        ((22,), 0.001, 0.1, Coverage.OUTSIDE),
        ((24,), 0.2, 0.499, Coverage.EVERYWHERE),
    ],
)
def test_coverage_cases(ns, lo, hi, want):
    """Each case checked against an own grid of MIP < DP on [lo, hi] (bracketed σ)."""
    view = figure1.figure1_view(figure1.noise_rows(ns), lo, hi)
    (r,) = view.rows
    assert view.coverage(r) is want
    etas = np.linspace(lo, hi, 2001)
    eps = np.log1p(2 * etas) - np.log1p(-2 * etas)
    grids = [(6.16 / etas) ** 2 * sig < own_delta(r.n) / eps for sig in own_sigma_bracket(r.n)]
    np.testing.assert_array_equal(grids[0], grids[1])  # the bracket decides every grid point
    c = grids[0]
    own = (
        Coverage.NEVER
        if r.n == 4
        else Coverage.EVERYWHERE
        if c.all()
        else Coverage.OUTSIDE
        if not c.any()
        else Coverage.BETWEEN
        if not c[0] and not c[-1]
        else Coverage.FROM
        if not c[0]
        else Coverage.UNTIL
    )
    assert own is want


def test_view_cap_hidden_curves_crossings_and_peaks(paper_rows):
    view = figure1.figure1_view(paper_rows, 0.01, 0.49, cap=True)
    assert list(view.curves.columns) == [
        "n",
        "eta",
        "mip_paper",
        "mip_certified",
        "dp",
        "ratio_dp_over_mip",
        "ratio_dp_over_certified",
    ]
    assert not view.curves.isna().any().any()
    sig_max = max(r.sigma for r in paper_rows)
    assert view.y_top == pytest.approx(float(own_mip(0.01, sig_max)), rel=1e-13)
    assert view.y_top == pytest.approx(616.0**2, rel=1e-3)
    assert [r.n for r in view.hidden] == [48]  # DP of n = 48 lies above 616²
    for r in view.rows:
        assert view.dp_floor(r) == pytest.approx(float(own_dp(0.49, own_delta(r.n))), rel=1e-12)
        assert (r in view.hidden) == (view.dp_floor(r) > view.y_top)
    (cross,) = view.crossings  # n = 30's lower crossover is the only one in the range
    assert cross.n == 30 and cross.kind is CrossKind.MIP_CHEAPER_ABOVE
    assert cross.scale == pytest.approx(float(own_dp(cross.eta, own_delta(30))), rel=1e-9)
    assert {p.n for p in view.peaks} == {30, 36, 42, 48}
    assert view.mip_curves_coincide
    factor_at_min = figure1.paper_over_certified(view.eta_min, view.M, view.constant)
    assert factor_at_min == pytest.approx(616.0**2 * -math.log1p(-0.02), rel=1e-12)
    assert tuple(r.n for r in view.rows if r.certified_cheaper) == (30, 36, 42, 48)
    assert figure1.figure1_view(paper_rows, 0.01, 0.49, cap=False).y_top is None


def test_view_marks_an_upper_crossover_inside_the_range():
    view = figure1.figure1_view(figure1.noise_rows([22]), 0.1, 0.499)
    kinds = sorted(c.kind.value for c in view.crossings)
    assert kinds == ["dp_cheaper_above", "mip_cheaper_above"]
    up = next(c for c in view.crossings if c.kind is CrossKind.DP_CHEAPER_ABOVE)
    assert up.scale == pytest.approx(float(own_dp(up.eta, own_delta(22))), rel=1e-8)


def test_m_above_2_separates_the_mip_curves():
    view = figure1.figure1_view(figure1.noise_rows([20, 40], 3), 0.01, 0.49)
    assert not view.mip_curves_coincide


def test_reading_numbers():
    """The plain-language reading quotes the largest n at η = 0.1, its three noise scales from
    mipcore.noise and mipcore.theorem9 (as the page computes them), and the smallest n's
    coverage from the view."""
    view = figure1.figure1_view(figure1.noise_rows([30, 48]), 0.01, 0.49)
    big, small = view.rows[-1], view.rows[0]
    assert (big.n, small.n) == (48, 30)
    sig48 = prop11.output_moments(48, 2).sigma
    mip = mip_noise_scale(0.1, big.sigma, view.M, view.constant)
    dp = dp_laplace_scale(0.1, big.sensitivity)
    cert = theorem9.required_noise_multiplier(0.1, M=2, d=1) * big.sigma
    assert mip == pytest.approx(float(own_mip(0.1, sig48)), rel=1e-13)
    assert dp == pytest.approx(float(own_dp(0.1, own_delta(48))), rel=1e-13)
    assert cert == pytest.approx(sig48 / -math.log(0.8), rel=1e-13)
    assert mip / cert == pytest.approx(846.7, abs=0.1)
    assert mip / cert == pytest.approx(figure1.paper_over_certified(0.1, 2), rel=1e-14)
    # DP's Δ/ln(1.5) over σ/ln(1/0.8): between Δ/(2σ) and Δ/σ
    ratio = own_delta(48) / sig48 * math.log(1 / 0.8) / math.log(1.5)
    assert dp / cert == pytest.approx(ratio, rel=1e-12)
    assert round(dp / mip) == 3691
    assert view.coverage(small) is Coverage.FROM
    assert small.crossover.low == pytest.approx(0.012189, rel=1e-4)


# --------------------------------------------------------------------------- paper claims


def test_paper_claims_shape(claims):
    assert isinstance(claims, figure1.PaperClaims)
    assert all(isinstance(v, bool) for v in claims.verdicts)
    assert claims.verdicts == (True, False, False)
    assert claims.ns == tuple(range(4, 201, 2)) and claims.n_max == 200
    assert len(claims.cheaper) == len(claims.crossovers) == len(claims.ns)


def test_claim1_mip_cheaper_for_n_at_least_36(claims):
    """Independent verdict: even n in 36..200, fine η grid on [0.01, 0.49], own Δ and σ bound."""
    verdict = all(
        own_cheaper_on(own_sigma_bracket(n)[1], own_delta(n), 0.01, 0.49) for n in range(36, 201, 2)
    )
    worst = max(
        (
            (n, own_crossover(own_sigma_bracket(n)[1], own_delta(n), a=1e-300))
            for n in range(36, 201, 2)
        ),
        key=lambda t: t[1],
    )
    assert verdict is True
    assert claims.verdicts[0] == verdict
    assert claims.failures == ()
    worst_n, worst_crossover = claims.worst
    assert worst_n == worst[0] == 36
    assert worst_crossover == pytest.approx(worst[1], rel=1e-6)


def test_claim2_checked_over_every_even_n(claims):
    """Independent: for every even n from 4 to 200 decide "MIP below DP on all of [0.01, 0.49]"
    with both ends of the own σ bracket (σ by enumeration for n <= 12); they must agree. The
    first such n is 32 (crossovers 0.00619 at n = 32 and 0.00314 at n = 34), not 36."""
    own = []
    for n in range(4, 201, 2):
        sigmas = (brute_sigma(n),) if n <= 12 else own_sigma_bracket(n)
        verdicts = {own_cheaper_on(s, own_delta(n), 0.01, 0.49) for s in sigmas}
        assert len(verdicts) == 1, n  # the bracket decides every n
        own.append(verdicts.pop())
    first = next(n for n, ok in zip(range(4, 201, 2), own, strict=True) if ok)
    assert first == 32
    assert all(ok for n, ok in zip(range(4, 201, 2), own, strict=True) if n >= first)
    s = claims
    assert list(s.cheaper) == own
    assert s.first_n == first and s.holds_from_first_on
    assert s.verdicts[1] is False and figure1.CLAIMED_FIRST_N == 36
    x32, x34 = s.crossover_of(32), s.crossover_of(34)
    assert x32 == pytest.approx(own_crossover(own_sigma_bracket(32)[1], own_delta(32)), rel=1e-6)
    assert x34 == pytest.approx(own_crossover(own_sigma_bracket(34)[1], own_delta(34)), rel=1e-6)
    assert (round(x32, 5), round(x34, 5)) == (0.00619, 0.00314)
    assert s.crossover_of(30) > 0.01 and s.crossover_of(4) is None
    with pytest.raises(ValueError, match="n=33"):
        s.crossover_of(33)


def test_certified_first_n(claims):
    """With the smallest certified MIP noise, every even n from 4 on is cheaper than DP (M = 2)."""
    assert claims.certified_first_n == 4
    assert all(claims.certified_cheaper)
    for n in (4, 6, 8, 10):
        assert own_delta(n) > 2 * brute_sigma(n)


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
    c = claims
    assert c.verdicts[2] == (first == 50)
    assert c.verdicts[2] is False
    assert c.first_hidden == first
    v48, v50 = float(own_dp(0.49, own_delta(48))), float(own_dp(0.49, own_delta(50)))
    top_low, top_high = c.top_range
    assert top_low == pytest.approx(v48, rel=1e-13) and top_high == pytest.approx(v50, rel=1e-13)


def test_paper_claims_other_range():
    """A range from η = 0.02: n = 30's crossover (≈ 0.0122) is then below it, so MIP is cheaper
    on the whole range from n = 30 on (n = 28's crossover ≈ 0.024 is above 0.02)."""
    cl = figure1.paper_claims(eta_min=0.02, eta_max=0.4, n_max=60)
    assert cl.verdicts[0] is True
    lo, _ = own_sigma_bracket(30)
    assert own_crossover(lo, own_delta(30)) < 0.02
    assert own_crossover(own_sigma_bracket(28)[0], own_delta(28)) > 0.02
    assert cl.first_n == 30 and cl.verdicts[1] is False


# --------------------------------------------------------------------------- figures


def finite(chart) -> bool:
    """No NaN or infinity in any table a chart draws."""
    return all(
        np.isfinite(t.select_dtypes("number").to_numpy(dtype=float)).all()
        for t in chart.datasets.values()
    )


@pytest.mark.parametrize("log_x, log_y, certified", [(False, False, True), (True, True, False)])
def test_builders_return_charts_without_nan(paper_rows, log_x, log_y, certified):
    view = figure1.figure1_view(paper_rows, 0.01, 0.49, cap=True)
    noise, noise_table = figure1_vega.noise_vega(
        view, log_x=log_x, log_y=log_y, show_certified=certified
    )
    ratio, ratio_table = figure1_vega.ratio_vega(view, log_x=log_x, show_certified=certified)
    assert noise_table is view.curves and list(ratio_table["n"]) == list(view.curves["n"])
    for chart in (noise, ratio):
        assert finite(chart)
        assert len(chart.title) <= 55
        assert chart.spec["config"]["legend"]["orient"] == "bottom"  # legends below the plot
    keys = set(noise.datasets["key"]["key"])
    assert ("MIP, smallest certified noise (½(1 − exp(−1/c)) bound)" in keys) is certified
    assert ratio.spec["layer"][1]["encoding"]["y"]["scale"]["type"] == "log"
    y = noise.spec["layer"][0]["encoding"]["y"]
    assert (y["scale"].get("type") == "log") is log_y
    # the cap: the y-axis (spanning the data) ends at the printed MIP maximum
    assert noise.datasets["curves"]["noise"].max() == pytest.approx(view.y_top, rel=1e-12)


def test_builders_at_extreme_settings():
    rows = figure1.noise_rows([4, 200], 8, 7.5)
    view = figure1.figure1_view(rows, 0.001, 0.499, cap=True)
    for chart, _table in (
        figure1_vega.noise_vega(view, log_x=True, log_y=True),
        figure1_vega.ratio_vega(view, log_x=True),
    ):
        assert finite(chart)


# --------------------------------------------------------------------------- inputs


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: figure1.figure1_view(figure1.noise_rows([]), 0.01, 0.49), "rows="),
        (lambda: figure1.figure1_view(figure1.noise_rows([30]), 0.2, 0.2), "eta_min="),
        (lambda: figure1.figure1_view(figure1.noise_rows([30]), 0.3, 0.2), "eta_min="),
        (lambda: figure1.figure1_view(figure1.noise_rows([30]), 0.01, 0.5), "eta_max="),
        (lambda: figure1.figure1_view(figure1.noise_rows([30]), 0.0, 0.4), "eta_min="),
        (lambda: figure1.figure1_view(figure1.noise_rows([30]), 0.01, 0.49, points=2), "points="),
        (lambda: figure1.noise_rows([3]), "n="),
        (lambda: figure1.noise_rows([401]), "n="),
        (lambda: figure1.noise_rows([30.5]), "n="),
        (lambda: figure1.noise_rows([30], M=1), "M="),
        (lambda: figure1.noise_rows([30], M=17), "M="),
        (lambda: figure1.noise_rows([30], constant=5.0), "constant="),
        (lambda: figure1.paper_over_certified(0.0, 2), "eta="),
        (lambda: figure1.paper_claims(eta_min=0.3, eta_max=0.2), "eta_min="),
        (lambda: figure1.paper_claims(eta_max=0.5), "eta_max="),
        (lambda: figure1.paper_claims(n_max=34), "n_max="),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_view_refuses_mixed_rows():
    rows = figure1.noise_rows([20], 2) + figure1.noise_rows([20], 3)
    with pytest.raises(ValueError, match="rows mix"):
        figure1.figure1_view(rows, 0.01, 0.49)


def test_odd_n_allowed():
    rows = figure1.noise_rows([31, 37])
    assert [r.n for r in rows] == [31, 37]
    assert all(math.isfinite(r.crossover.low) for r in rows)
    curves = figure1.figure1_view(rows[:1], 0.01, 0.49, points=10).curves
    assert len(curves) >= 10 and np.isfinite(curves.drop(columns="n").to_numpy()).all()


def test_certified_crossover_where_delta_is_between_sigma_and_two_sigma():
    """n = 4 at M = 8: σ₈ < Δ < 2σ₈, so the smallest certified MIP noise is below DP's only
    above one η, where the two scales are equal (an independent evaluation of both)."""
    (row,) = figure1.noise_rows([4], 8)
    assert row.sigma < own_delta(4) < 2 * row.sigma and not row.certified_cheaper
    eta = row.certified_crossover_eta
    assert eta is not None and 0 < eta < 0.5
    dp = float(own_dp(eta, own_delta(4)))
    cert = row.sigma / -math.log1p(-2 * eta)
    assert cert == pytest.approx(dp, rel=1e-9)
    for e, cheaper in ((eta * 0.9, False), (min(0.4999, eta * 1.1), True)):
        assert (row.sigma / -math.log1p(-2 * e) < float(own_dp(e, own_delta(4)))) is cheaper
    # no crossover where the ratio never reaches 1, or always exceeds it
    (big,) = figure1.noise_rows([30], 2)
    assert big.certified_cheaper and big.certified_crossover_eta is None
