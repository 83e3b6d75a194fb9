"""mipcore.lessons.reference_view: Figure 2 for the page, the sweep's reselection and reading.

The theory view is checked against mipcore.reference_data's formulas (known values of the
paper's Figure 2, the shared point, the domain edge); :func:`reselect` against
:func:`run_sweep` itself (same config, same picks and verdicts, for every attack and for
thresholds that pick nothing); :func:`reading` against the sweep's per-w table; the work
model by its formula.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from mipcore.bounds import eta_from_epsilon
from mipcore.lessons import reference_view as rv
from mipcore.lessons.reference_leak import Attack, LeakConfig, Target, run_sweep
from mipcore.plots import reference_vega
from mipcore.reference_data import effective_sample_size, werm_epsilons

SMALL = LeakConfig(
    n_train=100,
    n_ref=100,
    n_features=10,
    n_informative=10,
    weights=rv.weight_grid(3),
    n_seeds=2,
)


@pytest.fixture(scope="module")
def small():
    return run_sweep(SMALL)


# --------------------------------------------------------------------------- theory


def test_theory_known_values_of_figure2():
    """Figure 2 (ε₀ = 1000, N = 20 000): every curve passes through (N, ε₀/N) at w* = N_R/N."""
    for ratio, w_star in ((0.25, 0.8), (1.0, 0.5), (9.0, 0.1)):
        v = rv.theory(1000.0, 20_000, ratio)
        assert v.in_domain and v.w_star == pytest.approx(w_star)
        assert v.eps_star == 0.05 and v.eta_star == pytest.approx(0.5 * math.tanh(0.025))
        assert v.accuracy_star == pytest.approx(0.5 + v.eta_star)
        assert v.n_train + v.n_ref == pytest.approx(20_000)
        assert v.n_train / v.n_ref == pytest.approx(ratio)
        assert all(f.holds for f in v.figure.verdicts)
        star = v.figure.curves[v.figure.curves["is_equal_privacy"]]
        assert star["n_eff"].item() == pytest.approx(20_000)


def test_theory_ends_match_theorem_31():
    v = rv.theory(800.0, 10_000, 4.0)  # N_T = 8000, N_R = 2000
    assert v.eps_train_max == pytest.approx(werm_epsilons(0.0, 8000, 2000, 800.0).train)
    assert v.eps_ref_max == pytest.approx(werm_epsilons(1.0, 8000, 2000, 800.0).reference)
    assert v.eta_train_max == pytest.approx(eta_from_epsilon(0.1))
    c = v.figure.curves
    np.testing.assert_allclose(
        c["n_eff"], effective_sample_size(c["w"].to_numpy(), 8000, 2000), rtol=1e-12
    )
    assert len(c) == 21 and c["w"].is_monotonic_increasing  # w* = 0.2 is a grid point
    off = rv.theory(800.0, 9_000, 2.0).figure.curves  # w* = 1/3 is added to the 21 points
    assert len(off) == 22 and off.loc[off["is_equal_privacy"], "w"].item() == pytest.approx(1 / 3)


def test_theory_outside_the_domain_is_a_state_not_an_error():
    v = rv.theory(2000.0, 20_000, 9.0)  # N_R = 2000 = ε₀: the domain is open
    assert not v.in_domain and v.figure is None and v.eps_star is None
    assert v.eps0_max == pytest.approx(2000.0)
    assert rv.theory(1999.0, 20_000, 9.0).in_domain


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(eps0=0.0), "eps0"),
        (dict(n_total=-1.0), "n_total"),
        (dict(ratio=0.0), "ratio"),
        (dict(points=1), "points"),
    ],
)
def test_theory_errors_name_the_parameter(kw, name):
    args = dict(eps0=100.0, n_total=1000.0, ratio=1.0) | kw
    points = args.pop("points", 21)
    with pytest.raises(ValueError, match=name):
        rv.theory(**args, points=points)


# --------------------------------------------------------------------------- work


def test_weight_grid_and_work():
    assert rv.weight_grid(11) == tuple(i / 10 for i in range(11))
    with pytest.raises(ValueError, match="count"):
        rv.weight_grid(1)
    cfg = LeakConfig()
    assert rv.sweep_work(cfg) == 55 * (3200 * 300 + rv.WORK_PER_FIT)
    chk = rv.check_work(cfg, 1.0)
    assert chk.allowed and chk.fits == 55 and chk.ceiling == rv.WORK_CEILING
    big = dataclasses.replace(cfg, n_train=3000, n_ref=3000, n_features=1000)
    assert not rv.check_work(big).allowed
    need = rv.sweep_work(big) / rv.WORK_CEILING
    assert rv.check_work(big, need).allowed  # the server's factor raises the ceiling
    with pytest.raises(ValueError, match="factor"):
        rv.check_work(cfg, 0.5)


# --------------------------------------------------------------------------- sweep


def test_sweep_relays_progress_as_messages():
    seen: list[tuple[float, str]] = []
    cfg = dataclasses.replace(SMALL, weights=(0.0, 1.0), n_seeds=1)
    res = rv.sweep(cfg, lambda f, m: seen.append((f, m)))
    assert seen == [(0.0, "fit 0 of 2"), (0.5, "fit 1 of 2"), (1.0, "fit 2 of 2")]
    assert len(res.fits) == 2
    assert rv.sweep(cfg).per_w.equals(res.per_w)  # without progress: the same result


def _same_selection(a, b) -> None:
    assert a.config == b.config
    assert a.selections == b.selections
    assert a.training_only_pick == b.training_only_pick
    assert a.rule_verdicts == b.rule_verdicts
    assert a.hidden_leak == b.hidden_leak


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(attack="gap"),
        dict(attack=Attack.LOSS, max_gap=0.1),
        dict(max_train_attack=0.5, max_ref_attack=0.55),  # the public rule picks nothing
        dict(max_train_attack=0.7, max_gap=0.0, max_ref_attack=0.0),
    ],
)
def test_reselect_equals_run_sweep_with_that_config(small, kw):
    fields = {
        "selection_attack": Attack(kw["attack"]) if "attack" in kw else None,
        "max_train_attack": kw.get("max_train_attack"),
        "max_gap": kw.get("max_gap"),
        "max_ref_attack": kw.get("max_ref_attack"),
    }
    cfg = dataclasses.replace(SMALL, **{k: v for k, v in fields.items() if v is not None})
    _same_selection(rv.reselect(small, **kw), run_sweep(cfg))


def test_reselect_keeps_fits_and_trends(small):
    out = rv.reselect(small, attack="loss", max_gap=0.2)
    assert out.per_w is small.per_w and out.trends == small.trends
    assert out.config.selection_attack is Attack.LOSS and out.config.max_gap == 0.2


def test_reselect_errors(small):
    with pytest.raises(ValueError, match="attack"):
        rv.reselect(small, attack="svm")
    with pytest.raises(ValueError, match="max_gap"):
        rv.reselect(small, max_gap=1.5)


# --------------------------------------------------------------------------- reading


def test_reading_is_the_per_w_rows_at_the_pick(small):
    ex = rv.experiment(small, attack="confidence")
    r = ex.reading
    assert r is not None and r.w == ex.result.training_only_pick.w
    assert r.test_accuracy == ex.result.training_only_pick.test_accuracy
    for part in (r.train, r.reference):
        row = small.per_w[
            (small.per_w["w"] == r.w)
            & (small.per_w["attack"] == "confidence")
            & (small.per_w["target"] == part.target.value)
        ].iloc[0]
        assert part.accuracy == row["accuracy_mean"]
        assert (part.ci_low, part.ci_high) == (row["pooled_ci_low"], row["pooled_ci_high"])
        assert part.band == (row["accuracy_min"], row["accuracy_max"])
        assert part.epsilon_lower_bound == row["epsilon_empirical_lower_bound"]
        assert part.beats_chance == (row["pooled_ci_low"] > 0.5)
    h = ex.result.hidden_leak
    assert (h.ref_ci_low, h.attack_ref) == (r.reference.ci_low, r.reference.accuracy)
    assert h.holds == r.reference.beats_chance


def test_experiment_view(small):
    ex = rv.experiment(small, attack="gap", max_train_attack=0.5)
    assert ex.reading is None and ex.result.training_only_pick.w is None
    assert ex.trend_reference == small.trend(Attack.GAP, Target.REFERENCE)
    assert ex.trend_train == small.trend(Attack.GAP, Target.TRAIN)
    assert ex.fits == 6 and ex.unconverged_fits == int((~small.fits["converged"]).sum())


# --------------------------------------------------------------------------- figures


def test_figures_headless_without_nan(small):
    v = rv.theory(1000.0, 20_000, 0.25)
    for unit in rv.Unit:
        chart, table = reference_vega.theory_vega(v, unit)
        assert len(table) == len(v.figure.curves)
        for t in chart.datasets.values():
            assert not t.isna().any().any()
    with pytest.raises(ValueError, match="domain"):
        reference_vega.theory_vega(rv.theory(5000.0, 20_000, 9.0), rv.Unit.EPSILON)
    full, t_full = reference_vega.triad_vega(small, False)
    part, t_part = reference_vega.triad_vega(small, True)
    for chart in (full, part):
        for t in chart.datasets.values():
            assert not t.isna().any().any()
    assert any("reference" in n for n in full.datasets["lines"]["series"])
    assert not any("reference" in n for n in part.datasets["lines"]["series"])
    assert any(c.startswith("attack_reference_") for c in t_full.columns)
    assert not any(c.startswith("attack_reference_") for c in t_part.columns)
