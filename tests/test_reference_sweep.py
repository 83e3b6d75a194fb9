"""Tests for mipcore.experiments.reference_sweep: WERM on toy data, attacked on D_T and D_R.

The objective is checked three ways: against a brute-force replication of records (rational
weights, plain unit-weight fit), against a direct minimisation of the paper's equation (13)
plus weight decay, and by the swap identity (D_T, D_R, w) ~ (D_R, D_T, 1 − w). Statistical
checks use fixed seeds and 99.9 % Clopper–Pearson intervals from the counts: under "no
membership signal" the number of correct guesses of a fixed decision rule on k members and
k non-members has mean k and variance ≤ k/2, so the binomial(2k, 1/2) interval is
conservative.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.optimize import minimize
from scipy.special import log_expit
from sklearn.linear_model import LogisticRegression

from mipcore.audit_stats import clopper_pearson, epsilon_lower_bound
from mipcore.bounds import epsilon_from_eta
from mipcore.experiments import reference_sweep as rl
from mipcore.experiments.reference_sweep import (
    Attack,
    LeakConfig,
    ModelKind,
    Part,
    Splits,
    SweepStopped,
    Target,
    TrendTest,
    audit_model,
    fit_werm,
    make_splits,
    run_sweep,
    werm_sample_weights,
)
from mipcore.reference_data import SelectionRule, select_instance

SMALL = LeakConfig(
    n_train=80,
    n_ref=60,
    n_calib=100,
    n_eval=100,
    n_features=20,
    n_informative=5,
    weights=(0.0, 0.25, 0.5, 0.75, 1.0),
    n_seeds=2,
)
CONF999 = 0.999


def _part(gen: np.random.Generator, n: int, d: int, signal: bool = True) -> Part:
    X = gen.standard_normal((n, d))
    if signal:
        y = (X[:, 0] + 0.8 * gen.standard_normal(n) > 0).astype(np.int64)
    else:
        y = gen.integers(0, 2, n).astype(np.int64)
    return Part(X, y)


@pytest.fixture(scope="module")
def small_sweep():
    return run_sweep(SMALL)


@pytest.fixture(scope="module")
def default_sweep():
    return run_sweep()


# --------------------------------------------------------------------------- WERM objective


def test_sample_weights_sum_to_one_and_split_the_mass():
    s = werm_sample_weights(0.3, 7, 3)
    assert s.sum() == pytest.approx(1.0, rel=1e-15)
    assert s[:7].sum() == pytest.approx(0.7) and s[7:].sum() == pytest.approx(0.3)
    with pytest.raises(ValueError, match="w="):
        werm_sample_weights(1.2, 7, 3)
    with pytest.raises(ValueError, match="n_train"):
        werm_sample_weights(0.3, 0, 3)


def test_werm_equals_brute_force_replication():
    """w = 1/3, N_T = 30, N_R = 20: weights 1/45 and 1/60 = 4 and 3 copies out of 180.

    sklearn's C·Σ sᵢℓᵢ + ½‖β‖² with Σ sᵢℓᵢ = (1/180)·Σ_copies ℓ equals an unweighted fit
    of the replicated records with C/180.
    """
    gen = np.random.default_rng(11)
    T, R = _part(gen, 30, 4), _part(gen, 20, 4)
    l2 = 0.1
    fit = fit_werm(T, R, 1 / 3, l2=l2, tol=1e-12, max_iter=10_000)
    assert fit.converged
    X = np.concatenate([T.X] * 4 + [R.X] * 3)
    y = np.concatenate([T.y] * 4 + [R.y] * 3)
    rep = LogisticRegression(C=(1 / l2) / 180, tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(fit.estimator.coef_, rep.coef_, atol=1e-8)
    np.testing.assert_allclose(fit.estimator.intercept_, rep.intercept_, atol=1e-8)


@pytest.mark.parametrize("w", [0.0, 0.2, 0.7, 1.0])
def test_werm_minimises_the_papers_objective(w):
    """Direct BFGS on (1−w)·L_T + w·L_R + (l2/2)‖β‖² (intercept unpenalised)."""
    gen = np.random.default_rng(5)
    d, l2 = 3, 0.05
    T, R = _part(gen, 40, d), _part(gen, 25, d)

    def mean_loss(P, th):
        z = P.X @ th[:d] + th[d]
        return -log_expit((2 * P.y - 1) * z).mean()

    def objective(th):
        return (1 - w) * mean_loss(T, th) + w * mean_loss(R, th) + 0.5 * l2 * th[:d] @ th[:d]

    best = minimize(objective, np.zeros(d + 1), method="BFGS", options={"gtol": 1e-11}).x
    fit = fit_werm(T, R, w, l2=l2, tol=1e-12, max_iter=10_000)
    np.testing.assert_allclose(fit.estimator.coef_[0], best[:d], atol=1e-6)
    np.testing.assert_allclose(fit.estimator.intercept_[0], best[d], atol=1e-6)


def test_werm_swap_identity():
    gen = np.random.default_rng(3)
    T, R = _part(gen, 50, 5), _part(gen, 35, 5)
    a = fit_werm(T, R, 0.3, tol=1e-12).estimator
    b = fit_werm(R, T, 0.7, tol=1e-12).estimator
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-9)


def test_w0_ignores_reference_and_w1_ignores_training_exactly():
    gen = np.random.default_rng(4)
    T, R, R2 = _part(gen, 40, 3), _part(gen, 30, 3), _part(gen, 55, 3, signal=False)
    np.testing.assert_array_equal(
        fit_werm(T, R, 0.0).estimator.coef_, fit_werm(T, R2, 0.0).estimator.coef_
    )
    np.testing.assert_array_equal(
        fit_werm(R, T, 1.0).estimator.coef_, fit_werm(R2, T, 1.0).estimator.coef_
    )


def test_mlp_werm_runs_and_drops_zero_weight_records():
    gen = np.random.default_rng(8)
    T, R, R2 = _part(gen, 60, 4), _part(gen, 40, 4), _part(gen, 40, 4, signal=False)
    kw = dict(model=ModelKind.MLP, hidden_layer_sizes=(8,), max_iter=300, random_state=1)
    a = fit_werm(T, R, 0.0, **kw).estimator
    b = fit_werm(T, R2, 0.0, **kw).estimator
    for ca, cb in zip(a.coefs_, b.coefs_, strict=True):
        np.testing.assert_array_equal(ca, cb)


def test_fit_werm_errors():
    gen = np.random.default_rng(0)
    T, R = _part(gen, 20, 2), _part(gen, 20, 2)
    with pytest.raises(ValueError, match="w="):
        fit_werm(T, R, -0.1)
    with pytest.raises(ValueError, match="l2"):
        fit_werm(T, R, 0.5, l2=-1.0)
    with pytest.raises(ValueError, match="tol"):
        fit_werm(T, R, 0.5, tol=0.0)
    with pytest.raises(ValueError, match="max_iter"):
        fit_werm(T, R, 0.5, max_iter=0)
    with pytest.raises(ValueError, match="random_state"):
        fit_werm(T, R, 0.5, random_state=-1)
    one_class = Part(T.X, np.zeros(20, dtype=np.int64))
    with pytest.raises(ValueError, match="train"):
        fit_werm(one_class, R, 0.0)
    with pytest.raises(ValueError, match="reference"):
        fit_werm(T, one_class, 1.0)
    with pytest.raises(ValueError, match="model"):
        fit_werm(T, R, 0.5, model="logistic")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- attacks


def test_best_threshold_matches_brute_force():
    gen = np.random.default_rng(2)
    for _ in range(20):
        s_in = np.round(gen.normal(0.6, 0.2, gen.integers(5, 40)), 2)
        s_out = np.round(gen.normal(0.5, 0.2, gen.integers(5, 40)), 2)
        tau = rl._best_threshold(s_in, s_out)
        cands = np.concatenate([[-np.inf], s_in, s_out])
        bal = [(np.mean(s_in > t) + np.mean(s_out <= t)) / 2 for t in cands]
        assert (np.mean(s_in > tau) + np.mean(s_out <= tau)) / 2 == pytest.approx(max(bal))


def test_low_fpr_threshold_keeps_the_calibration_fpr():
    gen = np.random.default_rng(6)
    for n in (10, 99, 1000):
        s = gen.random(n)
        for f in (0.01, 0.05, 0.5):
            tau = rl._low_fpr_threshold(s, f)
            assert np.mean(s > tau) <= f
            # brute force: no smaller order statistic keeps the FPR at or below f
            smaller = np.sort(s)[np.sort(s) < tau]
            if smaller.size:
                assert np.mean(s > smaller[-1]) > f


def _splits_for(seed: int = 0) -> tuple[Splits, rl.WermFit]:
    cfg = dataclasses.replace(SMALL, n_features=30, flip_y=0.2)
    splits = make_splits(cfg, seed)
    return splits, fit_werm(splits.train, splits.reference, 0.5)


def _poison(p: Part, gen: np.random.Generator) -> Part:
    return Part(gen.standard_normal(p.X.shape) * 50.0, 1 - p.y)


def test_calibration_never_reads_evaluation_data():
    """Poisoning every evaluation part leaves the thresholds unchanged (and moves the scores).

    The model is fixed; if a threshold read ``*_eval`` or ``holdout_eval`` it would move.
    Poisoning the calibration parts instead does move them, so the check has teeth.
    """
    splits, fit = _splits_for()
    gen = np.random.default_rng(99)
    clean = audit_model(fit, splits)
    poisoned_eval = dataclasses.replace(
        splits,
        train_eval=_poison(splits.train_eval, gen),
        ref_eval=_poison(splits.ref_eval, gen),
        holdout_eval=_poison(splits.holdout_eval, gen),
    )
    dirty = audit_model(fit, poisoned_eval)
    for a, b in zip(clean.outcomes, dirty.outcomes, strict=True):
        assert a.threshold == b.threshold
    for a, b in zip(clean.low_fpr, dirty.low_fpr, strict=True):
        assert a.threshold == b.threshold
    assert [o.accuracy for o in clean.outcomes] != [o.accuracy for o in dirty.outcomes]
    assert clean.test_accuracy != dirty.test_accuracy

    poisoned_cal = dataclasses.replace(
        splits,
        train_calib=_poison(splits.train_calib, gen),
        ref_calib=_poison(splits.ref_calib, gen),
        holdout_calib=_poison(splits.holdout_calib, gen),
    )
    moved = audit_model(fit, poisoned_cal)
    conf = [o.threshold for o in clean.outcomes if o.attack is not Attack.GAP]
    assert conf != [o.threshold for o in moved.outcomes if o.attack is not Attack.GAP]


def test_outcome_counts_intervals_and_empirical_bounds():
    splits, fit = _splits_for(1)
    audit = audit_model(fit, splits, confidence=0.9)
    for o in audit.outcomes:
        members = len(splits.members(o.target)[1])
        k = min(members, len(splits.holdout_eval))
        assert o.trials == 2 * k
        assert o.accuracy == o.correct / o.trials
        assert o.accuracy == pytest.approx((1 + o.tpr - o.fpr) / 2)
        lo, hi = clopper_pearson(o.correct, o.trials, 0.9)
        assert (o.ci_low, o.ci_high) == (lo, hi) and lo <= o.accuracy <= hi
        # η̂ = acc − 1/2 and ε̂ = log(acc/(1 − acc)): Theorem 4's inverse at the accuracy
        assert o.eta_empirical == max(o.accuracy - 0.5, 0.0)
        if o.accuracy > 0.5:
            assert o.epsilon_empirical == pytest.approx(math.log(o.accuracy / (1 - o.accuracy)))
        # the lower-bound route agrees with Theorem B.1's ε bound from the same counts
        assert o.epsilon_empirical_lower_bound == pytest.approx(
            epsilon_lower_bound(o.correct, o.trials, 0.9), abs=1e-12
        )
        assert o.eta_empirical_lower_bound <= o.eta_empirical + 1e-15
        assert o.epsilon_empirical_lower_bound == pytest.approx(
            epsilon_from_eta(o.eta_empirical_lower_bound)
        )
    assert audit.outcome(Attack.GAP, Target.REFERENCE).threshold is None
    with pytest.raises(KeyError):
        audit.outcome("gap", Target.TRAIN)  # type: ignore[arg-type]


def test_audit_model_errors():
    splits, fit = _splits_for()
    with pytest.raises(ValueError, match="confidence"):
        audit_model(fit, splits, confidence=1.0)
    with pytest.raises(ValueError, match="low_fpr"):
        audit_model(fit, splits, low_fpr=0.7)


def _true_class_proba(est, part: Part):
    """f(x)_y from scikit-learn's predict_proba (0 for a label the model never saw)."""
    return rl._own_label_proba(est.predict_proba(part.X), est.classes_, part.y)


class _SklearnScorer(rl._Scorer):
    """The audit's scorer asking scikit-learn itself, once per call (the audit before it
    scored each matrix once from one product)."""

    def predict(self, part: Part):
        return self.est.predict(part.X)

    def own_label_proba(self, part: Part):
        return _true_class_proba(self.est, part)


@pytest.mark.parametrize(
    "n_classes, model",
    [(2, ModelKind.LOGISTIC), (3, ModelKind.LOGISTIC), (5, ModelKind.LOGISTIC), (2, ModelKind.MLP)],
)
def test_scorer_is_scikit_learn_bit_for_bit(n_classes, model):
    """Labels and f(x)_y from one product per matrix equal scikit-learn's predict and
    predict_proba exactly, on every part (views, copies, one record), with a label the model
    never saw (f(x)_y = 0)."""
    cfg = dataclasses.replace(SMALL, n_classes=n_classes, n_informative=5, n_features=12)
    splits = make_splits(cfg, 3)
    fit = fit_werm(splits.train, splits.reference, 0.3, model=model, max_iter=300)
    est = fit.estimator
    score = rl._Scorer(est)
    parts = [
        splits.train_calib,
        splits.holdout_eval,
        splits.holdout_eval.head(17),  # a view of the same memory with another shape
        splits.train,  # a fresh copy
        splits.ref_eval.head(1),
        Part(splits.ref_calib.X, np.full(len(splits.ref_calib), n_classes + 4)),  # unseen label
    ]
    for part in parts * 2:  # the second time from the scorer's memory
        np.testing.assert_array_equal(score.predict(part), est.predict(part.X))
        got, want = score.own_label_proba(part), _true_class_proba(est, part)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    assert not score.own_label_proba(parts[-1]).any()


def test_audit_outcomes_equal_one_call_per_attack():
    """The audit's intervals, computed for all attacks together, equal the scalar formulas;
    with scikit-learn asked on every call instead of the scorer, the audit is the same."""
    for seed, conf in ((0, 0.95), (1, 0.9), (2, 0.999)):
        splits, fit = _splits_for(seed)
        audit = audit_model(fit, splits, confidence=conf)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(rl, "_Scorer", _SklearnScorer)
            slow = audit_model(fit, splits, confidence=conf)
        assert audit == slow
        for o in audit.outcomes:
            lo, hi = clopper_pearson(o.correct, o.trials, conf)
            eta_lb = float(rl.eta_lower_bound(o.correct, o.trials, confidence=conf))
            assert (o.ci_low, o.ci_high) == (float(lo), float(hi))
            assert o.eta_empirical_lower_bound == eta_lb
            assert o.epsilon_empirical_lower_bound == float(epsilon_from_eta(eta_lb))
            assert o.epsilon_empirical == float(epsilon_from_eta(o.eta_empirical))
    # the ends: every guess right (η̂ = 1/2, ε̂ = ∞) and every guess wrong
    ends = [
        (Attack.GAP, Target.TRAIN, None, 10, 10, 1.0, 0.0),
        (Attack.GAP, Target.REFERENCE, None, 0, 10, 0.0, 1.0),
    ]
    best, worst = rl._outcomes(ends, 0.95)
    assert best.eta_empirical == 0.5 and best.epsilon_empirical == math.inf
    assert best.ci_high == 1.0 and worst.ci_low == 0.0 and worst.eta_empirical == 0.0
    assert rl._outcomes([], 0.95) == []


def test_sweep_rows_are_each_models_audit(small_sweep):
    """run_sweep's rows (intervals computed for the whole sweep at once) are audit_model's
    outcomes for each (w, seed), fitted again."""
    rows = small_sweep.rows.set_index(["w", "seed", "attack", "target"])
    for seed in range(SMALL.n_seeds):
        splits = make_splits(SMALL, seed)
        for w in (SMALL.weights[0], SMALL.weights[2]):
            fit = fit_werm(splits.train, splits.reference, w, l2=SMALL.l2, random_state=seed)
            for o in audit_model(fit, splits, confidence=SMALL.confidence).outcomes:
                row = rows.loc[(w, seed, o.attack.value, o.target.value)]
                for name in ("correct", "trials", "accuracy", "ci_low", "ci_high", "tpr", "fpr"):
                    assert row[name] == getattr(o, name), name
                for name in ("eta_empirical_lower_bound", "epsilon_empirical_lower_bound"):
                    assert row[name] == getattr(o, name), name


def test_random_labels_leak_near_chance():
    """A 2-feature linear model on 8 000 random labels memorises almost nothing.

    Its attack accuracies (4 000 guesses each) must contain 1/2 in their 99.9 % interval
    (half-width ≈ 0.026; memorisation adds ≈ 0.002 at this d/N, measured over 20 seeds).
    """
    gen = np.random.default_rng([7, 0])
    n, d = 2000, 2
    parts = [_part(gen, m, d, signal=False) for m in (n, n, n, n, 2 * n, 2 * n)]
    splits = Splits(*parts)
    fit = fit_werm(splits.train, splits.reference, 0.5)
    audit = audit_model(fit, splits, confidence=CONF999)
    for o in audit.outcomes:
        assert o.trials == 2 * n
        assert o.ci_low <= 0.5 <= o.ci_high, (o.attack, o.target, o.accuracy)


# --------------------------------------------------------------------------- sweep


def test_w0_reference_and_w1_training_leak_at_chance(small_sweep):
    """At w = 0 the model never saw D_R; at w = 1 never D_T: pooled attacks contain 1/2."""
    rows = small_sweep.rows
    for w, target in ((0.0, Target.REFERENCE), (1.0, Target.TRAIN)):
        for attack in Attack:
            sub = rows[
                (rows.w == w) & (rows.target == target.value) & (rows.attack == attack.value)
            ]
            lo, hi = clopper_pearson(int(sub.correct.sum()), int(sub.trials.sum()), CONF999)
            assert lo <= 0.5 <= hi, (w, target, attack, sub.accuracy.tolist())


def test_sweep_shapes_and_aggregates(small_sweep):
    res = small_sweep
    n_w, n_s = len(SMALL.weights), SMALL.n_seeds
    assert len(res.fits) == n_w * n_s
    assert len(res.rows) == n_w * n_s * len(Attack) * len(Target)
    assert len(res.per_w) == n_w * len(Attack) * len(Target)
    assert res.w_star == pytest.approx(60 / 140)
    pooled = res.rows.groupby(["w", "attack", "target"])[["correct", "trials"]].sum()
    merged = res.per_w.set_index(["w", "attack", "target"])
    pd.testing.assert_frame_equal(
        merged[["correct", "trials"]], pooled, check_dtype=False, check_names=False
    )
    means = res.rows.groupby(["w", "attack", "target"])["accuracy"].agg(["mean", "min", "max"])
    np.testing.assert_allclose(merged["accuracy_mean"], means["mean"])
    assert (merged["accuracy_min"] <= merged["accuracy_mean"]).all()
    assert (merged["pooled_ci_low"] <= merged["accuracy_mean"] + 1e-12).all()
    assert not res.per_w.isna().any().any() and not res.rows.isna().any().any()
    assert set(res.training_only.columns).isdisjoint({"target"})
    assert len(res.training_only) == n_w * len(Attack)
    assert res.utility["n_eff"].max() <= 140
    # the rules' picks are select_instance on the per-w means of the selection attack
    conf = res.per_w[res.per_w.attack == "confidence"]
    a_t = conf[conf.target == "train"].sort_values("w")["accuracy_mean"]
    a_r = conf[conf.target == "reference"].sort_values("w")["accuracy_mean"]
    for sel in res.selections:
        again = select_instance(
            sel.rule, res.utility.w, res.utility.test_accuracy_mean, a_t, a_r, sel.threshold
        )
        assert again == sel
    assert res.training_only_pick == res.selection(SelectionRule.PUBLIC_REFERENCE)
    assert [(t.attack, t.target) for t in res.trends] == [(a, t) for a in Attack for t in Target]
    assert res.trend(Attack.LOSS, Target.TRAIN).test is TrendTest.SEED_SLOPE_T_TEST
    assert res.tolerance == 0.25  # the grid's largest step


def test_trend_verdict_matches_a_t_test_on_seed_slopes(small_sweep):
    rows = small_sweep.rows
    for attack in Attack:
        for target in Target:
            t = small_sweep.trend(attack, target)
            sub = rows[(rows.attack == attack.value) & (rows.target == target.value)]
            slopes = [np.polyfit(g.w, g.accuracy, 1)[0] for _, g in sub.groupby("seed")]
            alt = "greater" if target is Target.REFERENCE else "less"
            ref = stats.ttest_1samp(slopes, 0.0, alternative=alt)
            assert t.slope == pytest.approx(np.mean(slopes))
            assert t.p_value == pytest.approx(ref.pvalue)
            assert t.holds == bool(
                ref.pvalue < SMALL.trend_alpha
                and np.sign(t.slope) == (1 if alt == "greater" else -1)
            )


def test_single_seed_uses_regression():
    res = run_sweep(dataclasses.replace(SMALL, n_seeds=1))
    t = res.trend(Attack.GAP, Target.REFERENCE)
    assert t.test is TrendTest.SINGLE_SEED_REGRESSION
    sub = res.rows[(res.rows.attack == "gap") & (res.rows.target == "reference")]
    ref = stats.linregress(sub.w, sub.accuracy, alternative="greater")
    assert t.p_value == pytest.approx(ref.pvalue) and t.slope == pytest.approx(ref.slope)
    one = run_sweep(dataclasses.replace(SMALL, n_seeds=1, weights=(0.5,)))
    assert one.trend(Attack.GAP, Target.REFERENCE).holds is None


def test_sweep_is_deterministic_by_seed(small_sweep):
    again = run_sweep(SMALL)
    pd.testing.assert_frame_equal(small_sweep.rows, again.rows)
    pd.testing.assert_frame_equal(small_sweep.fits, again.fits)
    other = run_sweep(dataclasses.replace(SMALL, seed=1))
    assert not other.rows["accuracy"].equals(small_sweep.rows["accuracy"])
    a, b = make_splits(SMALL, 1), make_splits(SMALL, 1)
    np.testing.assert_array_equal(a.holdout_eval.X, b.holdout_eval.X)


def test_splits_are_disjoint_and_sized():
    s = make_splits(SMALL, 0)
    parts = [s.train_calib, s.train_eval, s.ref_calib, s.ref_eval, s.holdout_calib, s.holdout_eval]
    assert [len(p) for p in parts] == [40, 40, 30, 30, 100, 100]
    rows = np.concatenate([p.X for p in parts])
    assert np.unique(rows, axis=0).shape[0] == rows.shape[0]
    assert len(s.train) == 80 and len(s.reference) == 60


def test_progress_and_stop():
    calls: list[tuple[float, str]] = []
    cfg = dataclasses.replace(SMALL, weights=(0.0, 1.0), n_seeds=2)
    run_sweep(cfg, lambda f, m: calls.append((f, m)))
    assert calls[0] == (0.0, "fit 0 of 4") and calls[-1] == (1.0, "fit 4 of 4")
    assert [c[1] for c in calls] == [f"fit {i} of 4" for i in range(5)]
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(SweepStopped) as info:
        run_sweep(cfg, should_stop=stop)
    assert (info.value.done, info.value.total) == (3, 4)


def test_default_sweep_shows_the_lesson(default_sweep):
    """At the defaults (11 w × 5 seeds): the headline verdicts, evaluated on this run."""
    res = default_sweep
    assert len(res.fits) == 55 and res.fits.converged.all()
    assert res.w_star == 0.5
    assert res.trend(Attack.CONFIDENCE, Target.REFERENCE).holds
    assert res.trend(Attack.CONFIDENCE, Target.TRAIN).holds
    pick = res.training_only_pick
    assert res.hidden_leak and pick.w is not None and pick.w > res.w_star
    assert pick.attack_train <= 0.51 < res.at(pick.w, Target.REFERENCE)["pooled_ci_low"]
    assert res.rule_holds(SelectionRule.PUBLIC_REFERENCE)
    assert res.rule_holds(SelectionRule.HIGH_REFERENCE_PRIVACY)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("n_train", 5),
        ("n_ref", 10**7),
        ("n_calib", 0),
        ("n_eval", 2.5),
        ("n_features", 1),
        ("n_informative", 0),
        ("n_classes", 1),
        ("class_sep", 0.0),
        ("flip_y", 1.0),
        ("weights", ()),
        ("weights", (0.5, 1.5)),
        ("weights", (0.5, 0.5)),
        ("n_seeds", 0),
        ("seed", -1),
        ("model", "mlp"),
        ("l2", -1.0),
        ("hidden_layer_sizes", (0,)),
        ("max_iter", 0),
        ("tol", 0.0),
        ("confidence", 1.0),
        ("low_fpr", 0.0),
        ("selection_attack", "confidence"),
        ("max_train_attack", 1.5),
        ("max_gap", -0.1),
        ("max_ref_attack", 2.0),
        ("trend_alpha", 0.0),
    ],
)
def test_config_errors_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        run_sweep(dataclasses.replace(SMALL, **{field: value}))


def test_config_cross_field_errors():
    with pytest.raises(ValueError, match="n_classes"):
        LeakConfig(n_informative=2, n_classes=5).validated()
    with pytest.raises(ValueError, match="n_train \\+ n_ref"):
        LeakConfig(n_train=100_000, n_ref=100_000, n_calib=100_000).validated()
    with pytest.raises(ValueError, match="replicate"):
        make_splits(SMALL, -1)


# --------------------------------------------------------------------------- for a page
# (the sweep's size, its job, reselection and the rows at a pick: what the page reads)

PAGE_SMALL = LeakConfig(
    n_train=100,
    n_ref=100,
    n_features=10,
    n_informative=10,
    weights=rl.weight_grid(3),
    n_seeds=2,
)


@pytest.fixture(scope="module")
def page_sweep():
    return run_sweep(PAGE_SMALL)


def test_weight_grid_and_work():
    assert rl.weight_grid(11) == tuple(i / 10 for i in range(11))
    with pytest.raises(ValueError, match="count"):
        rl.weight_grid(1)
    cfg = LeakConfig()
    assert rl.sweep_work(cfg) == 55 * (3200 * 300 + rl.WORK_PER_FIT)
    chk = rl.check_work(cfg, 1.0)
    assert chk.allowed and chk.fits == 55 and chk.ceiling == rl.WORK_CEILING
    big = dataclasses.replace(cfg, n_train=3000, n_ref=3000, n_features=1000)
    assert not rl.check_work(big).allowed
    need = rl.sweep_work(big) / rl.WORK_CEILING
    assert rl.check_work(big, need).allowed  # the server's factor raises the ceiling
    with pytest.raises(ValueError, match="factor"):
        rl.check_work(cfg, 0.5)


def test_sweep_reports_progress_as_messages():
    seen: list[tuple[float, str]] = []
    cfg = dataclasses.replace(PAGE_SMALL, weights=(0.0, 1.0), n_seeds=1)
    res = run_sweep(cfg, lambda f, m: seen.append((f, m)))
    assert seen == [(0.0, "fit 0 of 2"), (0.5, "fit 1 of 2"), (1.0, "fit 2 of 2")]
    assert len(res.fits) == 2
    assert run_sweep(cfg).per_w.equals(res.per_w)  # without progress: the same result


def _same_selection(a, b) -> None:
    assert a.config == b.config
    assert a.selections == b.selections
    assert a.training_only_pick == b.training_only_pick
    assert [a.rule_holds(r) for r in SelectionRule] == [b.rule_holds(r) for r in SelectionRule]
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
def test_reselect_equals_run_sweep_with_that_config(page_sweep, kw):
    fields = {
        "selection_attack": Attack(kw["attack"]) if "attack" in kw else None,
        "max_train_attack": kw.get("max_train_attack"),
        "max_gap": kw.get("max_gap"),
        "max_ref_attack": kw.get("max_ref_attack"),
    }
    cfg = dataclasses.replace(PAGE_SMALL, **{k: v for k, v in fields.items() if v is not None})
    _same_selection(rl.reselect(page_sweep, **kw), run_sweep(cfg))


def test_reselect_keeps_fits_and_trends(page_sweep):
    out = rl.reselect(page_sweep, attack="loss", max_gap=0.2)
    assert out.per_w is page_sweep.per_w and out.trends == page_sweep.trends
    assert out.config.selection_attack is Attack.LOSS and out.config.max_gap == 0.2


def test_reselect_errors(page_sweep):
    with pytest.raises(ValueError, match="attack"):
        rl.reselect(page_sweep, attack="svm")
    with pytest.raises(ValueError, match="max_gap"):
        rl.reselect(page_sweep, max_gap=1.5)
    with pytest.raises(ValueError, match="max_train_attack"):
        rl.reselect(page_sweep, max_train_attack=-0.1)
    with pytest.raises(ValueError, match="max_ref_attack"):
        rl.reselect(page_sweep, max_ref_attack=float("nan"))


@pytest.mark.parametrize("attack", list(Attack))
def test_the_rows_at_the_pick_are_the_per_w_rows(page_sweep, attack):
    res = rl.reselect(page_sweep, attack=attack, max_train_attack=1.0)
    pick = res.training_only_pick
    assert pick.w is not None and pick.test_accuracy is not None
    per_w = page_sweep.per_w
    for target in Target:
        row = per_w[
            (per_w["w"] == pick.w)
            & (per_w["attack"] == attack.value)
            & (per_w["target"] == target.value)
        ].iloc[0]
        pd.testing.assert_series_equal(res.at(pick.w, target), row)
    ref = res.at(pick.w, Target.REFERENCE)
    assert res.hidden_leak == (ref["pooled_ci_low"] > 0.5)


def test_rule_verdicts_by_brute_force(page_sweep):
    """Each rule's verdict is where its pick lies against w* (public: above; equal: within
    one grid step; high reference privacy: below), None when it picks nothing."""
    for kw in (dict(), dict(max_train_attack=1.0, max_gap=1.0, max_ref_attack=1.0)):
        res = rl.reselect(page_sweep, **kw)
        for rule in SelectionRule:
            w = res.selection(rule).w
            if w is None:
                want = None
            elif rule is SelectionRule.PUBLIC_REFERENCE:
                want = w > res.w_star
            elif rule is SelectionRule.EQUAL_PRIVACY:
                want = abs(w - res.w_star) <= 0.5 + 1e-12
            else:
                want = w < res.w_star
            assert res.rule_holds(rule) == want


def test_nothing_picked(page_sweep):
    res = rl.reselect(page_sweep, attack="gap", max_train_attack=0.0)
    assert res.training_only_pick.w is None and res.hidden_leak is None
    assert res.rule_holds(SelectionRule.PUBLIC_REFERENCE) is None
    assert res.trend(Attack.GAP, Target.REFERENCE) == page_sweep.trend(Attack.GAP, Target.REFERENCE)
    assert res.fits is page_sweep.fits
