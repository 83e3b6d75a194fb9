"""The reference-data page's charts drawn by Vega-Lite (mipcore.plots.reference_vega):
schema-valid, drawing the tables' numbers, a specification that ε₀ (the page's first slider)
does not change, and the two sets told apart by more than colour."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.experiments import reference_sweep as rl
from mipcore.experiments.reference_sweep import LeakConfig, Target
from mipcore.plots import reference_vega as R
from mipcore.plots.vega import DASH
from mipcore.reference_data import equal_privacy_weight, figure2, split_sizes

GRID = np.linspace(0.0, 1.0, 21)  # the page's grid of w


def theory(eps0: float, n_total: float, ratio: float):
    """What the page passes the theory chart: Figure 2 for one ratio and its w*."""
    fig = figure2(eps0, n_total, (ratio,), w=GRID)
    return fig, float(equal_privacy_weight(*split_sizes(n_total, ratio)))


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def layer(chart, name):
    (found,) = [x for x in chart.spec["layer"] if x.get("data", {}).get("name") == name]
    return found


@pytest.fixture(scope="module")
def sweep():
    config = LeakConfig(
        n_train=100, n_ref=100, n_features=10, weights=rl.weight_grid(3), n_seeds=2, seed=0
    )
    return rl.run_sweep(config)


@pytest.mark.parametrize("unit", list(R.Unit))
def test_theory_draws_figure2(unit):
    fig, w_star = theory(1000.0, 20_000, 0.25)
    chart, table = R.theory_vega(fig, w_star, unit)
    valid_vega_lite(chart)
    c = fig.curves.sort_values("w").reset_index(drop=True)
    assert len(table) == len(c) == 21  # every w of the figure (w* = 0.8 is a grid point)
    assert np.allclose(table["n_eff"], c["n_eff"]) and np.allclose(table["eps_ref"], c["eps_ref"])
    assert np.allclose(table["accuracy_bound_ref"], 0.5 + c["eta_ref"])
    lines = chart.datasets["lines"]
    train = lines[lines["set"] == R.TRAIN_NAME]
    full = table.set_index("w").loc[train["w"]]
    x = full["eps_train"] if unit is R.Unit.EPSILON else 100 * full["accuracy_bound_train"]
    assert np.allclose(train["x"], x) and np.allclose(train["n_eff"], full["n_eff"])
    assert train["w"].min() == 0 and train["w"].max() == 1  # ends kept
    assert np.isclose(train["w"], w_star).any()  # and w*
    assert len(train) <= len(table) // 2 + 3  # thinned: smooth curves
    (star,) = chart.datasets["star"].itertuples()
    assert (star.n_eff, star.w) == (20_000, w_star)
    # the shared point: ε₀/N = 0.05, or an attacker right at most 1/2 + tanh(0.025)/2
    x_star = 0.05 if unit is R.Unit.EPSILON else 100 * (0.5 + 0.5 * np.tanh(0.025))
    assert star.x == pytest.approx(x_star, rel=1e-14)
    for t in chart.datasets.values():
        assert not t.isna().any().any()


def test_theory_spec_does_not_depend_on_eps0():
    a, _ = R.theory_vega(*theory(1000.0, 20_000, 0.25), R.Unit.EPSILON)
    b, _ = R.theory_vega(*theory(500.0, 20_000, 0.25), R.Unit.EPSILON)
    assert spec_text(a) == spec_text(b)
    assert not a.datasets["lines"].equals(b.datasets["lines"])  # the setting: in the caption


def test_sets_differ_beyond_colour():
    chart, _ = R.theory_vega(*theory(1000.0, 20_000, 0.25), R.Unit.EPSILON)
    enc = layer(chart, "lines")["encoding"]
    dashes = enc["strokeDash"]["scale"]["range"]
    assert dashes[0] == DASH["dash"] and dashes[1] == DASH["solid"]  # D_T dashed, D_R solid
    shapes = layer(chart, "markers")["encoding"]["shape"]["scale"]["range"]
    assert len(set(shapes)) == 3  # D_T, D_R, w*


def test_more_than_one_ratio_raises():
    """The chart draws one ratio (outside Theorem 3.1's domain figure2 itself refuses)."""
    with pytest.raises(ValueError, match="ratios"):
        R.theory_vega(figure2(1000.0, 20_000, (0.25, 4.0), w=GRID), 0.8, R.Unit.EPSILON)
    with pytest.raises(ValueError, match="ratios"):
        R.theory_table(figure2(w=GRID))


@pytest.mark.parametrize("training_only", [False, True])
def test_triad_draws_the_sweep(sweep, training_only):
    chart, table = R.triad_vega(sweep, training_only)
    valid_vega_lite(chart)
    lines = chart.datasets["lines"]
    test = lines[lines["series"] == R.TEST_NAME]
    assert np.allclose(test["mean"], 100 * table["test_accuracy_mean"])
    attack = sweep.config.selection_attack.value
    per = sweep.per_w[
        (sweep.per_w["attack"] == attack) & (sweep.per_w["target"] == Target.TRAIN.value)
    ].sort_values("w")
    train = lines[lines["series"].str.endswith("training data D_T")]
    assert np.allclose(train["mean"], 100 * per["accuracy_mean"].to_numpy(float))
    assert np.allclose(train["lo"], 100 * per["accuracy_min"].to_numpy(float))
    has_ref = bool(lines["series"].str.contains("reference").any())
    assert has_ref is (not training_only)
    assert any(c.startswith("attack_reference_") for c in table.columns) is (not training_only)
    verticals = chart.datasets["verticals"]
    assert verticals["w"].iloc[0] == sweep.w_star
    for t in chart.datasets.values():
        assert not t.isna().any().any()


def test_triad_spec_does_not_depend_on_the_picks(sweep):
    """Thresholds move the training-only pick (a table), never the specification."""
    loose = rl.reselect(sweep, max_train_attack=1.0, max_gap=1.0, max_ref_attack=1.0)
    strict = rl.reselect(sweep, max_train_attack=0.0, max_gap=0.0, max_ref_attack=0.0)
    a, _ = R.triad_vega(loose, False)
    b, _ = R.triad_vega(strict, False)
    assert spec_text(a) == spec_text(b)
    assert not a.datasets["verticals"].equals(b.datasets["verticals"])
    c, _ = R.triad_vega(loose, True)
    assert spec_text(c) != spec_text(a)  # training only: a curve fewer, another title
