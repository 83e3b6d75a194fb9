"""Tests for mipcore.experiments.trained_model: the digits MLP, with and without DP-SGD, attacked.

References independent of the code under test: per-example gradients by central finite
differences of the loss; the noise's standard deviation estimated from a step with no data
(tolerance: 5 standard errors of a standard-deviation estimate from that many draws);
``dp_accounting``'s PLD accountant called directly. The slow tests train the shipped models
(about 4 s) and audit them with :mod:`mipcore.score_audit`: the model without DP must show
leakage the one-run audit certifies at 95 %, the DP model must stay inside its guarantee.
"""

from __future__ import annotations

import copy
import itertools
import math

import numpy as np
import pytest

from mipcore.bounds import tpr_bound_dp
from mipcore.experiments import trained_model as tm
from mipcore.score_audit import audit_scores, one_run_from_scores

SMALL_NON_DP = tm.TrainingConfig(hidden=8, steps=30, learning_rate=0.5, sampling_rate=0.1)
SMALL_DP = tm.TrainingConfig(8, 30, 0.25, 0.05, clip_norm=1.0, noise_multiplier=3.0)


def _small(**kwargs):
    return tm.run_trained_model_example(
        **{"shadows": 4, "non_dp": SMALL_NON_DP, "dp": SMALL_DP, **kwargs}
    )


def _loss(w1, w2, x, onehot):
    return -float(np.sum(onehot * _log_softmax(tm._logits(w1, w2, x[None])[1][0])))


def _log_softmax(z):
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


def test_per_example_gradients_and_clipping_are_honest():
    gen = np.random.default_rng(0)
    x, y = tm.load_data()
    x1 = np.hstack((x, np.ones((x.shape[0], 1))))[:5]
    onehot = np.eye(10)[y[:5]]
    w1, w2 = gen.normal(0, 0.5, (65, 6)), gen.normal(0, 0.5, (7, 10))
    norms = []
    for i in range(5):
        g1, g2 = tm._gradient_sum(w1, w2, x1[i : i + 1], onehot[i : i + 1], None)
        # central finite differences on a few coordinates of each layer
        for w, g, idx in ((w1, g1, [(3, 2), (64, 5), (20, 0)]), (w2, g2, [(0, 1), (6, 9)])):
            for a, b in idx:
                h = 1e-6
                w[a, b] += h
                up = _loss(w1, w2, x1[i], onehot[i])
                w[a, b] -= 2 * h
                down = _loss(w1, w2, x1[i], onehot[i])
                w[a, b] += h
                assert g[a, b] == pytest.approx((up - down) / (2 * h), abs=1e-6)
        norms.append(math.sqrt(np.sum(g1**2) + np.sum(g2**2)))
    # clipped: each example's gradient has norm min(norm, C), and the batch sums them
    clip = 0.5 * float(np.median(norms))
    total1, total2 = tm._gradient_sum(w1, w2, x1, onehot, clip)
    s1, s2 = np.zeros_like(w1), np.zeros_like(w2)
    for i in range(5):
        g1, g2 = tm._gradient_sum(w1, w2, x1[i : i + 1], onehot[i : i + 1], clip)
        assert math.sqrt(np.sum(g1**2) + np.sum(g2**2)) == pytest.approx(min(norms[i], clip))
        s1 += g1
        s2 += g2
    np.testing.assert_allclose(total1, s1, atol=1e-12)
    np.testing.assert_allclose(total2, s2, atol=1e-12)


def test_dp_sgd_noise_has_the_stated_standard_deviation():
    """One step with no member sampled: the update is the noise alone, σC·N(0, 1) per weight,
    times learning_rate/(q·N/2)."""
    x, _ = tm.load_data()
    x1 = np.hstack((x, np.ones((x.shape[0], 1))))
    config = tm.TrainingConfig(64, 1, 0.25, 0.05, clip_norm=2.0, noise_multiplier=3.0)
    gen = np.random.default_rng(1)
    twin = copy.deepcopy(gen)
    w1, w2 = tm._train(x1, np.eye(10)[np.zeros(x1.shape[0], int)], np.array([], int), config, gen)
    w1_0 = twin.normal(0.0, 1.0 / math.sqrt(65), (65, 64))
    w2_0 = twin.normal(0.0, 1.0 / math.sqrt(65), (65, 10))
    scale = 0.25 / (0.05 * x1.shape[0] / 2)
    noise = np.concatenate(((w1_0 - w1).ravel(), (w2_0 - w2).ravel())) / scale
    k = noise.size
    assert float(np.mean(noise)) == pytest.approx(0.0, abs=5 * 6.0 / math.sqrt(k))
    assert float(np.std(noise)) == pytest.approx(6.0, rel=5 / math.sqrt(2 * k))


def test_same_seed_same_result_and_progress():
    calls = []
    a = _small(rng=3, progress=lambda f, m: calls.append((f, m)))
    b = _small(rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a.member, b.member)
    for x, y in ((a.non_dp, b.non_dp), (a.dp, b.dp)):
        np.testing.assert_array_equal(x.loss_scores, y.loss_scores)
        np.testing.assert_array_equal(x.lira_scores, y.lira_scores)
    c = _small(rng=4)
    assert not np.array_equal(a.member, c.member)
    fractions = [f for f, _ in calls]
    assert len(calls) == 2 * (4 + 1) + 1 and fractions[-1] == 1.0
    assert all(0 < f1 < f2 for f1, f2 in itertools.pairwise(fractions))
    assert all(isinstance(m, str) and m for _, m in calls)
    assert 0.3 < a.member.mean() < 0.7 and a.member.size == 1797
    assert np.all(np.isfinite(a.dp.lira_scores)) and np.all(a.non_dp.loss_scores <= 0)


def test_guarantee_is_dp_accountings_replace_one_epsilon():
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    g = _small().guarantee
    acc = pld_privacy_accountant.PLDAccountant(
        dp_accounting.NeighboringRelation.REPLACE_ONE, value_discretization_interval=1e-3
    )
    acc.compose(
        dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(0.05, dp_accounting.GaussianDpEvent(3.0)), 30
        )
    )
    assert g.delta == 1e-5 and (g.noise_multiplier, g.sampling_rate, g.steps) == (3.0, 0.05, 30)
    # both pessimistic PLDs, on different grids: within 1 %
    assert g.epsilon == pytest.approx(acc.get_epsilon(1e-5), rel=0.01)
    assert 0 < g.eta < 0.5


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(shadows=3), "shadows"),
        (dict(shadows=2), "shadows"),
        (dict(shadows=66), "shadows"),
        (dict(non_dp=SMALL_DP), "non_dp"),
        (dict(dp=SMALL_NON_DP), "dp"),
        (dict(rng=-1), "rng"),
    ],
)
def test_run_refuses_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _small(**kwargs)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(hidden=0), "hidden"),
        (dict(steps=0), "steps"),
        (dict(learning_rate=0.0), "learning_rate"),
        (dict(sampling_rate=1.5), "sampling_rate"),
        (dict(clip_norm=-1.0), "clip_norm"),
        (dict(noise_multiplier=1.0), "noise_multiplier"),  # noise without clipping
    ],
)
def test_training_config_refuses_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tm.TrainingConfig(
            **{"hidden": 8, "steps": 5, "learning_rate": 0.1, "sampling_rate": 0.1, **kwargs}
        )


# ----------------------------------------------------------------------------- shipped models


@pytest.fixture(scope="module")
def shipped():
    return tm.run_trained_model_example(rng=0)


@pytest.mark.slow
def test_model_without_dp_leaks_significantly(shipped):
    member = shipped.member
    model = shipped.non_dp
    assert model.train_accuracy == 1.0 and model.test_accuracy > 0.9
    lira = model.lira_scores
    one_run = one_run_from_scores(lira, member, guesses=tm.ONE_RUN_GUESSES, delta=tm.DELTA)
    assert one_run.epsilon > 1.0  # proved at 95 % from this one training run
    audit = audit_scores(lira[member], lira[~member], delta=tm.DELTA)
    assert audit.auc > 0.55 and audit.epsilon > 0 and audit.eta > 0
    assert audit.tpr_at(0.01).low > 0.01  # at FPR 1 %, more than 1 % of members found


@pytest.mark.slow
def test_dp_model_stays_inside_its_guarantee(shipped):
    member, g = shipped.member, shipped.guarantee
    assert shipped.dp.test_accuracy > 0.8  # still a useful model
    assert 2.0 < g.epsilon < 2.7  # σ = 3, q = 0.05, T = 300, replace-one, δ = 1e-5
    for scores in (shipped.dp.loss_scores, shipped.dp.lira_scores):
        one_run = one_run_from_scores(scores, member, guesses=tm.ONE_RUN_GUESSES, delta=g.delta)
        assert one_run.epsilon <= g.epsilon
        audit = audit_scores(scores[member], scores[~member], delta=g.delta)
        assert audit.epsilon <= g.epsilon and audit.eta <= g.eta
        # every certified corner lies inside the (ε, δ) region of the guarantee
        for p in audit.certified_points():
            assert p.tpr_low <= tpr_bound_dp(p.fpr_high, g.epsilon, g.delta)
            assert p.tpr_low <= np.interp(p.fpr_high, g.bound.roc_fpr, g.bound.roc_tpr) + 1e-12
