"""Tests for mipcore.lessons.prop11_view: what the Proposition 11 page quotes.

Izzo, Yoon, Arık, Zou, *Provable Membership Inference Privacy* (TMLR 2024, arXiv:2211.06582),
Proposition 11. References computed here, independently of ``mipcore``:

* a brute force over every half at 60 digits (mpmath) for small n: the outputs, their mean,
  central moments and the largest ordinary output;
* the noise formulas from their definitions: DP ``Δ / log((1+2η)/(1−2η))``, Theorem 9 as
  printed ``(C/η)^(1+2/M) σ``, the smallest certified ``σ / ln(1/(1 − 2η))`` (the inverse of
  ``η = (1 − e^{−1/c})/2``), in mpmath;
* the float64 demonstration summed here in plain Python floats.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipcore import prop11
from mipcore.lessons import prop11_view as lesson
from mipcore.lessons.prop11_view import Float64Outcome

MP = mpmath.mp.clone()
MP.dps = 40


def brute(n: int, M: int = 2):
    """(outputs of every half, mean, M-th central moment) at 60 digits."""
    with mpmath.workdps(60):
        k = n // 2
        a = 1 / mpmath.sqrt(math.comb(n, k)) - (2 ** (k - 1) - 1)
        records = [mpmath.mpf(2) ** i for i in range(n - 1)] + [a]
        vals = [1 / mpmath.fsum(records[i] for i in D) for D in itertools.combinations(range(n), k)]
        mean = mpmath.fsum(vals) / len(vals)
        moment = mpmath.fsum(abs(v - mean) ** M for v in vals) / len(vals)
        return vals, mean, moment


# --------------------------------------------------------------------------- the view


@pytest.mark.parametrize("n, M", [(4, 2), (8, 2), (8, 3), (10, 4)])
def test_view_against_brute_force(n, M):
    v = lesson.prop11_view(n, M)
    vals, mean, moment = brute(n, M)
    _, _, var = brute(n, 2)
    C = math.comb(n, n // 2)
    assert (v.n, v.M, v.k, v.n_subsets) == (n, M, n // 2, C)
    assert v.delta == pytest.approx(
        float(MP.sqrt(C) - MP.mpf(1) / (2 ** (n - 2) + 2 ** (n // 2 - 1) - 1)), rel=1e-14
    )
    assert v.special == pytest.approx(math.sqrt(C), rel=1e-15)
    assert v.moments2.mean == pytest.approx(float(mean), rel=1e-11)
    assert v.sigma2 >= float(var) ** 0.5 * (1 - 1e-15)  # an upper bound ...
    assert v.sigma2 == pytest.approx(float(var) ** 0.5, rel=1e-11)  # ... and a tight one
    assert v.sigma_m == pytest.approx(float(moment) ** (1 / M), rel=1e-10)
    assert v.delta_over_sigma == pytest.approx(v.delta / v.sigma_m, rel=1e-15)
    special = max(vals)
    ordinary = sorted(vals)[-2]  # every half but D*
    assert v.v_max >= float(ordinary) * (1 - 1e-15)  # a certified bin edge above the largest
    assert v.rest_bound == pytest.approx(max(v.v_max, v.moments2.mean) ** 2, rel=1e-15)
    # the special half's share of the variance, p (1/√p − μ)², written as (1 − μ√p)²
    with mpmath.workdps(60):
        share = (special - mean) ** 2 / C
    assert v.special_term == pytest.approx(float(share), rel=1e-12)
    if M == 2:
        assert v.moments_m is v.moments2


def test_view_identity_sigma_is_about_one_and_delta_explodes():
    """The page's message: σ₂ ≈ 1 while Δ ≈ √C(n, n/2) (n = 48, certified)."""
    v = lesson.prop11_view(48)
    assert v.sigma2 == pytest.approx(1.0, abs=1e-12)
    assert v.delta == pytest.approx(math.sqrt(math.comb(48, 24)), rel=1e-12)
    assert v.moments2.moment <= 1.0 and v.special_term <= 1.0


# --------------------------------------------------------------------------- the noise


def own_noise(eta, delta, sigma, M=2, C=6.16):
    eta = MP.mpf(eta)
    dp = MP.mpf(delta) / MP.log((1 + 2 * eta) / (1 - 2 * eta))
    printed = (MP.mpf(C) / eta) ** (1 + MP.mpf(2) / M) * MP.mpf(sigma)
    cert = MP.mpf(sigma) / -MP.log(1 - 2 * eta)
    return float(dp), float(printed), float(cert)


def test_noise_at_eta_known_values():
    """η = 0.1, M = 2, σ = 1: printed (61.6)² = 3794.56, certified −1/ln(0.8) = 4.4814,
    847 times less."""
    z = lesson.noise_at_eta(0.1, delta=1e6, sigma_m=1.0, sigma2=1.0, M=2)
    dp, printed, cert = own_noise(0.1, 1e6, 1.0)
    assert z.dp_scale == pytest.approx(dp, rel=1e-14)
    assert z.paper_scale == pytest.approx(printed, rel=1e-14) == pytest.approx(3794.56)
    assert z.certified_scale == pytest.approx(cert, rel=1e-14)
    assert round(z.certified_scale, 4) == 4.4814
    assert round(z.paper_over_certified) == 847
    assert z.epsilon == pytest.approx(math.log(1.2 / 0.8), rel=1e-15)
    # Δ/ε over σ/ln(1/(1 − 2η)): (Δ/σ)·ln(1/0.8)/ln(1.5), between Δ/(2σ) and Δ/σ
    assert z.dp_over_certified == pytest.approx(1e6 * math.log(1 / 0.8) / math.log(1.5), rel=1e-12)


def test_view_noise_matches_the_definitions():
    for n, M in ((20, 2), (48, 3)):
        v = lesson.prop11_view(n, M)
        dp, printed, cert = own_noise(0.1, v.delta, v.sigma_m, M)
        z = v.noise
        assert (z.eta, z.M, z.constant) == (0.1, M, 6.16)
        assert z.dp_scale == pytest.approx(dp, rel=1e-13)
        assert z.paper_scale == pytest.approx(printed, rel=1e-13)
        assert z.certified_scale == pytest.approx(cert, rel=1e-13)
        assert z.certified_scale_sigma2 == pytest.approx(
            own_noise(0.1, v.delta, v.sigma2, M)[2], rel=1e-13
        )
        assert z.dp_over_paper == pytest.approx(dp / printed, rel=1e-12)


@settings(max_examples=60)
@given(
    eta=st.floats(1e-4, 0.4999),
    delta=st.floats(1e-3, 1e30),
    sigma=st.floats(1e-3, 1e20),
    M=st.integers(2, 8),
)
def test_dp_over_certified_lies_between_delta_over_two_sigma_and_delta_over_sigma(
    eta, delta, sigma, M
):
    """DP needs (Δ/σ)·ln(1/(1 − 2η))/ln((1 + 2η)/(1 − 2η)) times the certified minimum:
    between Δ/(2σ) (η → 0) and Δ/σ (η → 1/2); the printed noise is always above the minimum."""
    z = lesson.noise_at_eta(eta, delta=delta, sigma_m=sigma, sigma2=sigma, M=M)
    ratio = delta / sigma * math.log1p(-2 * eta) / -math.log((1 + 2 * eta) / (1 - 2 * eta))
    assert z.dp_over_certified == pytest.approx(ratio, rel=1e-9)
    assert delta / (2 * sigma) * (1 - 1e-9) <= z.dp_over_certified <= delta / sigma * (1 + 1e-9)
    assert z.paper_over_certified > 1.0
    assert -0.5 * math.expm1(-1 / z.certified_multiplier) == pytest.approx(eta, rel=1e-12)


# --------------------------------------------------------------------------- float64


@pytest.mark.parametrize(
    "n, outcome",
    [
        (48, Float64Outcome.CLOSE),
        (56, Float64Outcome.CLOSE),
        (58, Float64Outcome.ZERO),
        (60, Float64Outcome.ZERO),
        (110, Float64Outcome.TOO_LARGE),
        (150, Float64Outcome.NEGATIVE),
    ],
)
def test_float64_demo(n, outcome):
    v = lesson.prop11_view(n)
    f = v.float64
    k = n // 2
    s = float(v.dataset.a_value)  # summed here, left to right
    for i in range(k - 1):
        s += float(2**i)
    assert f.naive_sum == s
    assert f.outcome is outcome
    assert f.sqrt_p == pytest.approx(1 / math.sqrt(math.comb(n, k)), rel=1e-15)
    assert f.a_ulp == math.ulp(v.dataset.a_value) and f.precision_bits == 2 * n + 128
    if outcome is Float64Outcome.ZERO:
        assert f.naive_output is None
    else:
        assert f.naive_output == 1 / s
    assert f.harmless == (n == 48)  # relative error 4.4e-4 at n = 48, 0.30 at n = 56


def test_float64_outcome_changes():
    """Computed one n at a time above; here the runs: close up to 56, zero 58-108, too large at
    110, negative from 112 (the page used to say "from n = 56 on the sum is 0")."""
    changes = lesson.float64_outcomes(200)
    assert [(n, o.value) for n, o in changes] == [
        (4, "close"),
        (58, "zero"),
        (110, "too_large"),
        (112, "negative"),
    ]


# --------------------------------------------------------------------------- distribution, growth


@pytest.mark.parametrize("n", [4, 8, 12])
def test_distribution_against_brute_force(n):
    d = lesson.distribution(n)
    vals, _, _ = brute(n)
    C = math.comb(n, n // 2)
    assert sum(int(c) for c in d.histogram["count"]) == C
    assert list(d.csv["count"]) == [str(c) for c in d.histogram["count"]]
    ordinary = sorted(float(x) for x in vals)[:-1]
    assert d.v_max >= max(ordinary) * (1 - 1e-15)
    hist = d.histogram[d.histogram["group"] != "special D*"]
    heavy = hist.loc[hist["probability"].idxmax()]
    assert (d.heavy_probability, d.heavy_min, d.heavy_max) == (
        heavy["probability"],
        heavy["value_min"],
        heavy["value_max"],
    )
    inside = sum(1 for x in ordinary if d.heavy_min * (1 - 1e-12) <= x <= d.heavy_max * (1 + 1e-12))
    assert inside >= round(d.heavy_probability * C)


@pytest.mark.slow
def test_growth():
    g = lesson.growth(2)
    assert list(g.table["n"]) == list(range(4, 201, 2))
    assert g.last_n == 200
    assert g.last_rate == pytest.approx(2 ** (200 / 3), rel=1e-15)
    assert g.last_ratio == pytest.approx(prop11.sensitivity(200) / g.table["sigma"].iloc[-1])


# --------------------------------------------------------------------------- inputs


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: lesson.prop11_view(3), "n="),
        (lambda: lesson.prop11_view(402), "n="),
        (lambda: lesson.prop11_view(8, 1), "M="),
        (lambda: lesson.prop11_view(8, eta=0.5), "eta="),
        (lambda: lesson.prop11_view(8, constant=5.0), "constant="),
        (lambda: lesson.noise_at_eta(0.1, delta=-1.0, sigma_m=1.0, sigma2=1.0, M=2), "delta="),
        (lambda: lesson.noise_at_eta(0.1, delta=1.0, sigma_m=-1.0, sigma2=1.0, M=2), "sigma_m="),
        (lambda: lesson.distribution(2), "n="),
        (lambda: lesson.growth(17), "M="),
        (lambda: lesson.naive_float_special_sum(1.0, 0), "k="),
        (lambda: lesson.float64_outcomes(2), "n_max="),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- figures


def test_builders_return_charts_without_nan():
    import numpy as np

    from mipcore.plots import prop11_vega

    table = prop11.growth_table([4, 20, 48, 100, 200], 3, rtol=1e-6, max_nodes=400)
    for chart, drawn in (
        prop11_vega.growth_vega(table, n_chosen=48, M=3),
        prop11_vega.growth_vega(table, n_chosen=50, M=3),  # n not in the table: no markers
        prop11_vega.distribution_vega(lesson.distribution(200)),
        prop11_vega.distribution_vega(lesson.distribution(4)),
    ):
        assert drawn is table or drawn.columns.tolist() == list(lesson.distribution(4).csv)
        for t in chart.datasets.values():
            assert np.isfinite(t.select_dtypes("number").to_numpy(dtype=float)).all()
        assert chart.spec["config"]["legend"]["orient"] == "bottom"  # legends below the plot
        assert len(chart.title) <= 60
        for layer in chart.spec["layer"]:
            for channel in ("x", "y"):
                enc = layer.get("encoding", {}).get(channel, {})
                if enc.get("scale", {}).get("type") == "log":  # labelled as 10ⁿ, 14 px
                    assert "labelExpr" in enc["axis"]
    assert chart.spec["config"]["axis"]["labelFontSize"] >= 14
