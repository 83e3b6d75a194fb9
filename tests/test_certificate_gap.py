"""Tests for mipcore.experiments.certificate_gap (the certified η of Theorems 9 / 4 beside the exact
η of Proposition 11, and the certificates against the dimension) and its charts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipcore import prop11
from mipcore.bounds import eta_from_epsilon
from mipcore.canary_audit import run_canary_audit
from mipcore.constructions import theorem5_indicator_eta, theorem5_publish_eta
from mipcore.experiments import certificate_gap as cg
from mipcore.experiments.certificate_gap import (
    SUFFICIENT_RTOL,
    Route,
    dimension_gap,
    eta_curves,
    exact_eta_grid,
    noise_demand,
)
from mipcore.noise import certified_eta_dp, certified_eta_mip, dp_laplace_scale, mip_noise_scale
from mipcore.plots import looseness_vega as charts
from mipcore.plots.vega import VegaLiteChart
from mipcore.prop11_attack import prop11_true_eta
from mipcore.theorem9 import certified_eta, chain_certified_eta

ETAS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.45]


def sigma_delta(n: int, M: int) -> tuple[float, float]:
    """σ_M and Δ of the Proposition 11 mechanism, as the page reads them from mipcore.prop11."""
    return prop11.output_moments(n, M).sigma, prop11.sensitivity(n)


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


@settings(max_examples=200)
@given(
    st.floats(min_value=1e-6, max_value=1e6),
    st.floats(min_value=1e-3, max_value=1e3),
    st.integers(min_value=2, max_value=6),
    st.sampled_from([6.16, 7.5]),
)
def test_dimension_free_certificate_never_above_the_printed_one(b, sigma, M, constant):
    tight = certified_eta(b / sigma, M=M, d=1)
    assert tight == pytest.approx(-0.5 * math.expm1(-sigma / b), rel=1e-12)
    assert tight <= certified_eta_mip(b, sigma, M, constant) * (1 + 1e-12)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: certified_eta_mip(0.0, 1.0), "scale"),
        (lambda: certified_eta_mip(1.0, -1.0), "sigma"),
        (lambda: certified_eta_mip(1.0, 1.0, M=1, constant=6.16), "M"),
        (lambda: certified_eta_dp(-1.0, 1.0), "scale"),
        (lambda: certified_eta_dp(1.0, -2.0), "sensitivity"),
        (lambda: noise_demand(5, 0.1), "n"),
        (lambda: noise_demand(18, 0.1), "n"),
        (lambda: noise_demand(8, 0.5), "target_eta"),
        (lambda: exact_eta_grid(8, [1.0, -1.0]), "scales"),
        (lambda: exact_eta_grid(8, []), "scales"),
        (lambda: eta_curves(exact_eta_grid(8, [1.0]), M=7), "M"),
        (lambda: eta_curves(exact_eta_grid(8, [1.0]), constant=6.0), "constant"),
        (lambda: eta_curves(exact_eta_grid(6, [1.0]), M=1), "M"),
        (lambda: noise_demand(8, 0.1, M=7), "M"),
        (lambda: noise_demand(8, 0.0), "target_eta"),
        (lambda: noise_demand(7, 0.1), "n"),
        (lambda: cg.theorem4_tightness(1.5), "delta"),
        (lambda: cg.theorem5_table(0.5), "target_eta"),
        (lambda: dimension_gap(0.6), "target_eta"),
        (lambda: dimension_gap(0.1, dimensions=(4, 1)), "dimensions"),
        (lambda: dimension_gap(0.1, dimensions=(0,)), "dimensions"),
        (lambda: dimension_gap(0.1, samples=10), "samples"),
        (lambda: cg.covariance_optimum(-1.0), "noise_multiplier"),
        (lambda: cg.covariance_optimum(1.0, M=7), "M"),
    ],
)
def test_invalid_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("n", [4, 8, 12])
@pytest.mark.parametrize("M, constant", [(2, 6.16), (4, 7.5)])
def test_exact_below_certified_and_monotone(n, M, constant):
    df = eta_curves(exact_eta_grid(n, np.logspace(-6, 6, 49)), M, constant)
    assert list(df.columns) == [
        "scale",
        "exact",
        "certified_mip_tight",
        "certified_mip_printed",
        "certified_dp",
    ]
    assert np.isfinite(df.to_numpy()).all()
    tol = 1e-12
    assert (df["exact"] <= df["certified_mip_tight"] + tol).all()
    assert (df["certified_mip_tight"] <= df["certified_mip_printed"] + tol).all()
    assert (df["exact"] <= df["certified_mip_printed"] + tol).all()
    assert (df["exact"] <= df["certified_dp"] + tol).all()
    # exact η is non-increasing in the Laplace scale (what the bisection relies on)
    assert (np.diff(df["exact"].to_numpy()) <= 1e-13).all()
    assert df["exact"].iloc[0] > 0.45  # almost no noise: almost perfect inference


@pytest.mark.parametrize("n", [4, 6, 8, 10])
@pytest.mark.parametrize("target", [0.02, 0.1, 0.3])
def test_sufficient_scale_hits_target_and_beats_certified(n, target):
    b = noise_demand(n, target).route(Route.SUFFICIENT).scale
    assert prop11_true_eta(n, b) <= target
    # just below the returned scale the exact η exceeds the target (bracket of width rtol)
    assert prop11_true_eta(n, b / (1 + SUFFICIENT_RTOL)) > target
    assert prop11_true_eta(n, b) == pytest.approx(target, rel=1e-2)
    _, delta = sigma_delta(n, 2)
    for M, c in ((2, 6.16), (2, 7.5), (4, 6.16)):
        s_M, _ = sigma_delta(n, M)
        assert b <= mip_noise_scale(target, s_M, M, c)
        # the dimension-free certificate's noise, σ_M / ln(1/(1 − 2η)), is certified: enough
        assert b <= s_M / -math.log1p(-2 * target) * (1 + SUFFICIENT_RTOL)
    assert b <= dp_laplace_scale(target, delta)


def test_noise_demand_consistent_and_known_values():
    d = noise_demand(8, 0.1)
    ok, tight = d.route(Route.SUFFICIENT), d.route(Route.MIP_TIGHT)
    dp, printed = d.route(Route.DP), d.route(Route.MIP_PRINTED)
    assert [r.route for r in d.rows] == [
        Route.SUFFICIENT,
        Route.MIP_TIGHT,
        Route.DP,
        Route.MIP_PRINTED,
    ]
    assert ok.scale <= dp.scale <= printed.scale
    assert ok.scale <= tight.scale <= printed.scale
    assert ok.exact_eta <= 0.1
    assert printed.exact_eta <= dp.exact_eta <= 0.1
    assert tight.exact_eta <= 0.1
    # known values: −1/ln(0.8), (6.16/0.1)^2, Δ/log(1.2/0.8)
    assert d.multiplier_tight == pytest.approx(-1 / math.log(0.8), rel=1e-12)
    assert d.multiplier_printed == pytest.approx(3794.56, rel=1e-12)
    assert dp.scale == pytest.approx(prop11.sensitivity(8) / math.log(1.2 / 0.8), rel=1e-12)
    assert tight.scale == pytest.approx(d.multiplier_tight * d.sigma, rel=1e-12)
    assert d.multiplier_sufficient == pytest.approx(ok.scale / d.sigma)
    for r in d.rows:
        assert r.times_sufficient == pytest.approx(r.scale / ok.scale)
        assert r.orders_of_magnitude == pytest.approx(math.log10(r.times_sufficient))
    assert ok.times_sufficient == 1.0
    assert np.isfinite(d.table[["scale", "exact_eta_at_scale"]].to_numpy()).all()
    assert list(d.table["route"]) == [r.route.value for r in d.rows]
    assert d.sigma == sigma_delta(8, 2)[0] and (d.target_eta, d.M, d.constant) == (0.1, 2, 6.16)


def test_first_certificates():
    curves = eta_curves(exact_eta_grid(8))
    first = cg.first_certificates(curves)
    assert [f.route for f in first] == [Route.MIP_TIGHT, Route.MIP_PRINTED, Route.DP]
    for f in first:
        row = curves[curves["scale"] == f.scale].iloc[0]
        assert f.exact == row["exact"] and f.certified < cg.NONTRIVIAL_ETA
        assert f.ratio == pytest.approx(f.certified / f.exact) and f.ratio >= 1
        earlier = curves[curves["scale"] < f.scale]  # nothing non-trivial before it
        assert not (earlier[cg._CURVE_OF[f.route]] < cg.NONTRIVIAL_ETA).any()
    # Theorem 9's density says something with the least noise, the printed form with the most
    scales = {f.route: f.scale for f in first}
    assert scales[Route.MIP_TIGHT] <= scales[Route.DP] <= scales[Route.MIP_PRINTED]
    assert list(curves["scale"]) == list(cg.SCALE_GRID)
    # the certificates are those of σ_M and Δ of mipcore.prop11
    sigma, delta = sigma_delta(8, 2)
    np.testing.assert_array_equal(curves["certified_dp"], certified_eta_dp(curves["scale"], delta))
    np.testing.assert_array_equal(
        curves["certified_mip_printed"], certified_eta_mip(curves["scale"], sigma, 2, 6.16)
    )


@pytest.mark.parametrize("n, M, constant", [(8, 2, 6.16), (10, 3, 7.5)])
def test_parts_computed_apart_give_the_same_results(n, M, constant):
    # The page computes the exact grid (per n) and σ_M (per n, M) as separate cached jobs and
    # passes them in: the results must be those of the one-call path, to the last bit.
    grid = cg.exact_eta_grid(n)
    sigma = sigma_delta(n, M)[0]
    whole = eta_curves(grid, M, constant)
    parts = eta_curves(grid, M, constant, sigma=sigma)
    assert parts.equals(whole)
    d_whole = noise_demand(n, 0.2, M, constant)
    d_parts = noise_demand(n, 0.2, M, constant, sigma=sigma)
    assert d_parts.table.equals(d_whole.table) and repr(d_parts) == repr(d_whole)
    # a σ that is not σ_M is used as given: the certificates follow it
    other = eta_curves(grid, M, constant, sigma=2 * sigma)
    assert not other["certified_mip_tight"].equals(whole["certified_mip_tight"])
    assert other["exact"].equals(whole["exact"])
    # the exact η of a grid is the enumeration's at each of its scales
    eta = [prop11_true_eta(n, b) for b in cg.SCALE_GRID[::15]]
    assert list(grid.exact[::15]) == eta


def test_parts_are_checked():
    with pytest.raises(ValueError, match="grid is a ndarray, not an exact_eta_grid"):
        eta_curves(np.zeros(len(cg.SCALE_GRID)))
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="sigma"):
            eta_curves(cg.exact_eta_grid(4, [1.0]), sigma=bad)
        with pytest.raises(ValueError, match="sigma"):
            noise_demand(4, 0.1, sigma=bad)
    with pytest.raises(ValueError, match="n"):
        cg.exact_eta_grid(5)


def test_theorem4_and_theorem5_three_ways():
    for delta in (0.0, 0.2, 0.5):
        t4 = cg.theorem4_tightness(delta)
        eps = t4.table["epsilon"].to_numpy()
        printed = delta + (1 - delta) / (1 + np.exp(-eps))  # the printed form, independently
        np.testing.assert_allclose(t4.table["theorem4_accuracy"], printed, rtol=1e-12)
        assert t4.max_gap < 1e-12
    t5 = cg.theorem5_table(0.1)
    for n, v in zip(t5["n"], t5["eta_indicator"], strict=True):
        assert v == pytest.approx(1 / math.comb(int(n), int(n) // 2), rel=1e-15)
    np.testing.assert_allclose(t5["eta_publish"], 0.1, rtol=1e-15)
    assert list(t5["n"]) == list(cg.THEOREM5_NS)
    # what the page quotes at n = 8 with q = 2η = 0.2: the same theory, at one n
    assert theorem5_indicator_eta(8) == pytest.approx(1 / 70)
    assert theorem5_publish_eta(8, 0.2) == 0.1
    assert not any("00" in c for c in t5.columns)  # no file ids in the CSV


# --------------------------------------------------------------------------- the dimension


@pytest.fixture(scope="module")
def small_gap() -> cg.DimensionGap:
    return dimension_gap(0.1, dimensions=(1, 2, 4, 9), samples=20_000)


def test_gap_chain_never_below_dimension_free(small_gap):
    g = small_gap
    c = (6.16 / 0.1) ** 2
    assert g.noise_multiplier == pytest.approx(c, rel=1e-12)
    assert g.tight_eta == pytest.approx(-0.5 * math.expm1(-1 / c), rel=1e-12)
    chain_eta, chain_noise = g.table["chain_eta"], g.table["chain_noise_multiplier"]
    assert np.all(chain_eta >= g.tight_eta)
    assert np.all(np.diff(chain_eta) >= -1e-15)  # non-decreasing in d
    assert g.chain_eta_at(4) == chain_certified_eta(g.noise_multiplier, M=2, d=4)
    assert g.covariance_chain_eta == g.chain_eta_at(4)
    # the noise the chain needs grows with d; the dimension-free one is far smaller
    assert np.all(np.diff(chain_noise) > 0) and np.all(chain_noise > g.tight_noise)
    assert g.tight_noise == pytest.approx(-1 / math.log(0.8), rel=1e-12)
    assert (g.table["corollary14_noise_multiplier"] == g.noise_multiplier).all()
    assert (g.table["corollary14_eta"] == 0.1).all() and g.target_eta == 0.1
    # the chain certifies the promised 0.1 up to d = 4 (0.0837) but not at d = 9 (0.2422)
    assert g.chain_covers_target_up_to == 4
    assert g.chain_eta_at(4) <= 0.1 < g.chain_eta_at(9)
    assert list(g.table["d"]) == [1, 2, 4, 9]


def test_gap_exact_below_both_certificates(small_gap):
    g = small_gap
    lo, hi = g.covariance_interval
    assert lo <= g.covariance_eta <= hi
    assert lo <= g.tight_eta <= g.covariance_chain_eta  # exact (its interval) below both
    assert g.covariance_eta <= g.covariance_chain_eta
    assert g.covariance_eta <= g.tight_eta  # point estimate: 3.96e-5 vs 1.32e-4 at 200 000
    demand = noise_demand(8, 0.1)
    exact_d1 = demand.route(Route.MIP_PRINTED).exact_eta  # Proposition 11, d = 1, same c
    assert exact_d1 <= g.tight_eta <= g.chain_eta_at(1)
    # at d = 1 the Proposition 11 mechanism needs less than the certified noise
    assert demand.multiplier_sufficient <= g.tight_noise <= g.chain_noise_at(1)


def test_covariance_optimum_is_the_audits_monte_carlo_optimum():
    """M = 2, Corollary 14's c: the same law and seed as run_canary_audit's optimum."""
    eta = 0.2
    ref = run_canary_audit(
        100, mechanism="covariance", noise="mip", eta=eta, exact_samples=5000, rng=0
    )
    got, lo, hi = cg.covariance_optimum(ref.noise.scale, 2, samples=5000)
    assert got == pytest.approx(ref.exact_eta, rel=1e-9, abs=1e-15)
    assert (lo, hi) == pytest.approx((ref.exact_interval[0] - 0.5, ref.exact_interval[1] - 0.5))


def test_gap_progress_reports_every_step():
    calls: list[tuple[float, str]] = []
    dimension_gap(0.3, dimensions=(1, 3), samples=1000, progress=lambda f, m: calls.append((f, m)))
    fractions = [f for f, _ in calls]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0 and fractions == sorted(fractions)
    assert any("d = 3" in m for _, m in calls)


# --------------------------------------------------------------------------- charts


def _all_charts(small_gap):
    demand = noise_demand(8, 0.1)
    curves = eta_curves(exact_eta_grid(8))
    return [
        charts.eta_vs_scale_vega(curves, demand, log_y=True),
        charts.eta_vs_scale_vega(curves, demand, log_y=False),
        charts.demanded_vega(demand),
        charts.tightness_vega(cg.theorem4_tightness(0.1)),
        charts.theorem5_vega(cg.theorem5_table(0.1), log_y=True),
        charts.theorem5_vega(cg.theorem5_table(0.1), log_y=False),
        charts.dimension_eta_vega(small_gap, demand),
        charts.dimension_noise_vega(small_gap, demand),
    ]


def _legend_names(chart) -> list[str]:
    return [
        v
        for node in _dicts(chart.spec)
        if isinstance(node.get("scale"), dict) and node["scale"].get("domain")
        for v in node["scale"]["domain"]
        if isinstance(v, str)
    ]


def _dicts(node):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _dicts(v)
    elif isinstance(node, list):
        for v in node:
            yield from _dicts(v)


def test_charts_without_nan_or_file_ids(small_gap):
    for chart, table in _all_charts(small_gap):
        assert isinstance(chart, VegaLiteChart) and isinstance(table, pd.DataFrame)
        for data in chart.datasets.values():
            assert np.isfinite(data.select_dtypes("number").to_numpy(dtype=float)).all()
        for name in _legend_names(chart):
            assert not name.startswith(("000", "001", "003")), name
        assert len(chart.title) <= 55, chart.title


def test_printed_and_dimension_free_curves_are_both_labelled(small_gap):
    demand = noise_demand(8, 0.1)
    names = _legend_names(charts.eta_vs_scale_vega(eta_curves(exact_eta_grid(8)), demand)[0])
    assert any("Corollary 14 as printed" in n for n in names)
    assert any("½(1 − exp(−" in n for n in names)
    gap_names = _legend_names(charts.dimension_eta_vega(small_gap, demand)[0])
    assert any("Monte Carlo" in n for n in gap_names) and any("exact" in n for n in gap_names)
