"""Tests for mipcore.game: the "Play the attacker" classroom game.

Determinism (same seed and round, same everything, in any order of play), the exact release
laws against a direct sum over all training halves, the exact optimal accuracy against
quadrature and against the long-run frequency of the Bayes-optimal answers (binomial
tolerance), the calibration really certifying (exact optimum <= 1/2 + η), agreement with the
canary audit and Proposition 11 machinery, scoring, the multiple-testing lesson against
direct binomial sums, and a game in play (``game_state``: every round against ``play_round``,
its score against ``score_game``, the release laws against a direct sum over all halves).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mipcore.audit_stats import clopper_pearson
from mipcore.bounds import eta_from_epsilon
from mipcore.canary_audit import run_canary_audit
from mipcore.game import (
    GRID_POINTS,
    Calibration,
    GameMechanism,
    GameSettings,
    ScoreVerdict,
    game_model,
    game_state,
    luck_lesson,
    play_round,
    release_laws,
    score_game,
    score_games,
)
from mipcore.prop11_attack import prop11_eta_by_target

MEAN_DP = GameSettings.dp("mean", 1.0)
PROP11_DP = GameSettings.dp("prop11", 8.0, n=4)
MODELS = {s: game_model(s) for s in (MEAN_DP, PROP11_DP)}


def short(s: GameSettings) -> str:
    return f"{s.mechanism}-{s.calibration}{s.level:g}-n{s.n}"


ALL_SETTINGS = [
    GameSettings(mech, cal, level, n)
    for mech in GameMechanism
    for n in (4, 8, 12)
    for cal, level in (
        (Calibration.EPSILON, 0.1),
        (Calibration.EPSILON, 1.0),
        (Calibration.EPSILON, 8.0),
        (Calibration.ETA, 0.05),
        (Calibration.ETA, 0.25),
        (Calibration.ETA, 0.49),
    )
]

# --------------------------------------------------------------------------- settings & model


def test_settings_coerce_and_defaults():
    s = GameSettings("prop11", "eta", 0.2, 10)
    assert s.mechanism is GameMechanism.PROP11 and s.calibration is Calibration.ETA
    assert s == GameSettings.mip(GameMechanism.PROP11, 0.2, 10)
    assert GameSettings() == GameSettings.dp("mean", 1.0, 8)
    assert hash(s) == hash(GameSettings.mip("prop11", 0.2, 10))


def test_mean_model_is_the_canary_audit():
    m = MODELS[MEAN_DP]
    audit = run_canary_audit(100, n=8, noise="laplace", epsilon=1.0, rng=0)
    np.testing.assert_array_equal(m.records, audit.data)
    assert m.noise == audit.noise and m.noise.scale == 10.0 / 4  # Δ = (10 − 0)/k
    assert m.sensitivity == audit.sensitivity and m.sigma == audit.sigma
    assert m.target == 7 and m.target_value == 10.0  # the canary is the worst-case target
    assert m.optimal_accuracy == audit.exact_accuracy
    # η mode: the same mechanism, with the smallest certified Theorem 9 noise (the audit page
    # offers Corollary 14's larger noise); the game's exact optimum is the audit's at that scale
    mip = game_model(GameSettings.mip("mean", 0.1))
    c = -1.0 / math.log(0.8)
    assert mip.sigma == audit.sigma and mip.noise.scale == pytest.approx(c * mip.sigma)
    audit_mip = run_canary_audit(100, n=8, noise="laplace", noise_scale=mip.noise.scale, rng=0)
    assert mip.optimal_accuracy == audit_mip.exact_accuracy
    assert 0.5 < mip.optimal_accuracy <= 0.6  # a real game: above a coin flip, below 1/2 + η


@pytest.mark.parametrize("n", [4, 8])
def test_prop11_model_matches_prop11_attack(n):
    s = GameSettings.dp("prop11", 2.0, n)
    m = game_model(s)
    by_target = prop11_eta_by_target(n, m.noise.scale)
    np.testing.assert_allclose(m.eta_by_target, by_target, rtol=0, atol=0)
    assert m.target == int(np.flatnonzero(by_target == by_target.max())[-1])
    assert m.optimal_eta == pytest.approx(float(by_target.max()), abs=1e-13)
    assert m.records[m.target] == 2.0**m.target  # a power of two (A is last)
    # prop11_outputs enumerates the halves in the same order as the model's halves
    np.testing.assert_array_equal(m.member, np.any(m.halves == m.target, axis=1))


@pytest.mark.parametrize("s", ALL_SETTINGS, ids=short)
def test_calibration_certifies(s):
    m = game_model(s)
    assert 0.5 <= m.optimal_accuracy <= m.certified_accuracy + m.optimal_error_bound
    assert (m.eta_by_target <= m.certified_eta + 1e-12).all()  # every target, not only ours
    if s.calibration is Calibration.EPSILON:
        assert m.certified_eta == pytest.approx(float(eta_from_epsilon(s.level)), rel=1e-15)
        assert m.noise.scale == pytest.approx(m.sensitivity / s.level, rel=1e-15)
    else:
        assert m.certified_eta == s.level
        # the smallest certified Theorem 9 noise: c = −1/ln(1 − 2η), so (1 − e^{−1/c})/2 = η
        c = -1.0 / math.log1p(-2.0 * s.level)
        assert m.noise.scale == pytest.approx(c * m.sigma, rel=1e-12)
        assert -0.5 * math.expm1(-m.sigma / m.noise.scale) <= s.level * (1 + 1e-12)


def test_chosen_target():
    m = game_model(GameSettings(GameMechanism.MEAN, Calibration.EPSILON, 1.0, 8, target=0))
    assert m.target == 0 and m.optimal_accuracy < MODELS[MEAN_DP].optimal_accuracy


# --------------------------------------------------------------------------- determinism


def rounds_equal(a, b) -> bool:
    return (
        a == b
        and np.array_equal(a.grid, b.grid)
        and np.array_equal(a.p_in, b.p_in)
        and np.array_equal(a.p_out, b.p_out)
    )


@pytest.mark.parametrize("s", [MEAN_DP, PROP11_DP], ids=short)
def test_round_is_determined_by_seed_and_index(s):
    m = MODELS[s]
    order = list(range(12))
    first = {k: play_round(s, 99, k, model=m) for k in order}
    rng = np.random.default_rng(0)
    for k in rng.permutation(order):  # another order of play, no model passed
        assert rounds_equal(play_round(s, 99, int(k)), first[int(k)])
    # different rounds/seeds really differ
    assert len({r.release for r in first.values()}) == 12
    assert play_round(s, 100, 0, model=m).release != first[0].release


def test_coin_is_the_same_for_every_mechanism():
    coins = [[play_round(s, 5, k, model=MODELS[s]).member for k in range(40)] for s in MODELS]
    assert coins[0] == coins[1]
    assert 0 < sum(coins[0]) < 40


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), index=st.integers(0, 2**32 - 1))
def test_round_determinism_property(seed, index):
    a = play_round(MEAN_DP, seed, index, model=MODELS[MEAN_DP])
    b = play_round(MEAN_DP, seed, index, model=MODELS[MEAN_DP])
    assert rounds_equal(a, b)
    assert a.member == (MODELS[MEAN_DP].target in a.half)
    assert len(a.half) == 4


# --------------------------------------------------------------------------- exact laws


def direct_densities(m, y):
    """Mean over all halves with / without the target of the Laplace density, term by term."""
    b = m.noise.scale
    dens = np.exp(-np.abs(y[:, None] - m.outputs[None, :]) / b) / (2 * b)
    return dens[:, m.member].mean(axis=1), dens[:, ~m.member].mean(axis=1)


@pytest.mark.parametrize("s", [MEAN_DP, PROP11_DP], ids=short)
def test_densities_are_the_exact_mixtures(s):
    m = MODELS[s]
    r = play_round(s, 3, 4, model=m)
    assert r.grid.shape == r.p_in.shape == r.p_out.shape == (GRID_POINTS,)
    p_in, p_out = direct_densities(m, r.grid)
    np.testing.assert_allclose(r.p_in, p_in, rtol=1e-12)
    np.testing.assert_allclose(r.p_out, p_out, rtol=1e-12)
    d_in, d_out = direct_densities(m, np.array([r.release]))
    assert r.log_likelihood_ratio == pytest.approx(math.log(d_in[0] / d_out[0]), abs=1e-12)
    assert r.optimal_guess == (d_in[0] >= d_out[0])
    assert r.likelihood_ratio == pytest.approx(d_in[0] / d_out[0], rel=1e-12)
    # the grid covers the release and 6 noise scales beyond every output: mass >= 1 - e^-6
    assert r.grid[0] < r.release < r.grid[-1]
    for p in (r.p_in, r.p_out):
        mass = np.trapezoid(p, r.grid)
        assert 1 - math.exp(-6) - 1e-3 <= mass <= 1 + 1e-3


@pytest.mark.parametrize("s", [MEAN_DP, PROP11_DP], ids=short)
def test_optimal_accuracy_by_quadrature(s):
    # Proposition 2 as an integral: 1/2 ∫ max(p_in, p_out), on a fine grid (Laplace tails
    # beyond 30 scales carry < e^-30 of the mass)
    m = MODELS[s]
    b = m.noise.scale
    y = np.linspace(m.outputs.min() - 30 * b, m.outputs.max() + 30 * b, 100_001)
    p_in, p_out = direct_densities(m, y)
    acc = 0.5 * np.trapezoid(np.maximum(p_in, p_out), y)
    assert acc == pytest.approx(m.optimal_accuracy, abs=1e-6)


@pytest.mark.parametrize("s", [MEAN_DP, PROP11_DP], ids=short)
def test_long_run_frequency_of_the_optimal_attacker(s):
    # each round is an independent game, so the optimal score is Binomial(R, exact accuracy)
    m = MODELS[s]
    rounds = 4000
    sc = score_game(s, 20240601, [True] * rounds, model=m)
    lo, hi = stats.binom.interval(0.999, rounds, m.optimal_accuracy)
    assert lo <= sc.optimal_correct <= hi
    # the secret coin is fair: "always in" scores Binomial(R, 1/2)
    lo, hi = stats.binom.interval(0.999, rounds, 0.5)
    assert lo <= sc.correct <= hi


def test_optimal_score_uses_the_round_decisions():
    m = MODELS[MEAN_DP]
    rs = [play_round(MEAN_DP, 11, k, model=m) for k in range(30)]
    answers = [r.optimal_guess for r in rs]
    sc = score_game(MEAN_DP, 11, answers, model=m)
    assert sc.correct == sc.optimal_correct == sum(r.optimal_correct for r in rs)


# --------------------------------------------------------------------------- scoring


def test_score_statistics():
    m = MODELS[MEAN_DP]
    rs = [play_round(MEAN_DP, 1, k, model=m) for k in range(50)]
    answers = [r.member if k % 5 else not r.member for k, r in enumerate(rs)]  # 40/50 right
    sc = score_game(MEAN_DP, 1, answers, model=m)
    assert (sc.rounds, sc.correct, sc.accuracy) == (50, 40, 0.8)
    assert sc.interval == pytest.approx(clopper_pearson(40, 50, 0.95))
    ref = stats.binomtest(40, 50, sc.certified_accuracy, alternative="greater").pvalue
    assert sc.p_value == pytest.approx(ref, rel=1e-10)
    assert sc.certified_accuracy == pytest.approx(0.5 + math.tanh(0.5) / 2)
    # the interval's lower end, 0.6628, is above 1/2 but not above 0.7311
    assert 0.5 < sc.interval[0] < sc.certified_accuracy
    assert sc.verdict is ScoreVerdict.ABOVE_CHANCE and not sc.beats_certified


def test_knowing_the_secret_beats_the_certificate():
    m = MODELS[MEAN_DP]
    answers = [play_round(MEAN_DP, 2, k, model=m).member for k in range(200)]
    sc = score_game(MEAN_DP, 2, answers, model=m)
    assert sc.correct == 200 and sc.beats_certified
    assert sc.verdict is ScoreVerdict.ABOVE_CERTIFIED
    wrong = score_game(MEAN_DP, 2, [not a for a in answers], model=m)
    assert wrong.correct == 0 and wrong.verdict is ScoreVerdict.BELOW_CHANCE
    assert wrong.flipped_correct == 200 and wrong.flipped_interval == pytest.approx(sc.interval)


@pytest.mark.parametrize(
    "correct, rounds", [(4, 20), (5, 20), (6, 20), (9, 20), (11, 20), (14, 20), (15, 20)]
)
def test_the_verdict_reads_the_one_interval_it_reports(correct, rounds):
    """Each verdict is decided by the two-sided interval the score carries (and shows)."""
    m = MODELS[MEAN_DP]
    truth = [play_round(MEAN_DP, 3, k, model=m).member for k in range(rounds)]
    answers = [t if k < correct else not t for k, t in enumerate(truth)]
    sc = score_game(MEAN_DP, 3, answers, model=m)
    lo, hi = clopper_pearson(correct, rounds, 0.95)
    assert sc.correct == correct and sc.interval == pytest.approx((lo, hi), rel=1e-12)
    expected = (
        ScoreVerdict.ABOVE_CERTIFIED
        if lo > sc.certified_accuracy
        else ScoreVerdict.ABOVE_CHANCE
        if lo > 0.5
        else ScoreVerdict.BELOW_CHANCE
        if hi < 0.5
        else ScoreVerdict.NO_EVIDENCE
    )
    assert sc.verdict is expected
    # 4 and 5 of 20 are significantly below a coin (upper ends 0.437 and 0.491), 6 of 20 not;
    # 15 of 20 is above it (lower end 0.509), 14 of 20 not
    below = {4: True, 5: True, 6: False, 9: False, 11: False, 14: False, 15: False}[correct]
    assert (sc.verdict is ScoreVerdict.BELOW_CHANCE) == below
    assert (sc.verdict is ScoreVerdict.ABOVE_CHANCE) == (correct == 15)
    assert sc.flipped_interval == pytest.approx(clopper_pearson(rounds - correct, rounds, 0.95))


def test_answers_as_integers():
    a = score_game(MEAN_DP, 4, [1, 0, 1, 1], model=MODELS[MEAN_DP])
    b = score_game(MEAN_DP, 4, [True, False, True, True], model=MODELS[MEAN_DP])
    assert a == b


def test_a_class_scored_at_once_scores_each_player_as_alone():
    """score_games (the class dashboard's scoring) draws the rounds once for every list: each
    score equals score_game of that list alone, whatever the lists' lengths and order."""
    m = MODELS[MEAN_DP]
    rng = np.random.default_rng(5)
    lists = [rng.random(n) < 0.5 for n in (30, 1, 200, 7, 30)]
    lists.append([play_round(MEAN_DP, 9, k, model=m).member for k in range(40)])  # all right
    together = score_games(MEAN_DP, 9, lists, model=m)
    assert together == tuple(score_game(MEAN_DP, 9, a, model=m) for a in lists)
    assert together[-1].verdict is ScoreVerdict.ABOVE_CERTIFIED
    assert [s.rounds for s in together] == [30, 1, 200, 7, 30, 40]
    # without a model, and for no players at all
    assert score_games(MEAN_DP, 9, lists[:2]) == together[:2]
    assert score_games(MEAN_DP, 9, [], model=m) == ()
    with pytest.raises(ValueError, match="answers"):
        score_games(MEAN_DP, 9, [[True], []], model=m)


# --------------------------------------------------------------------------- luck lesson


def test_luck_for_one_player_is_the_binomial():
    le = luck_lesson(1, 30, 0.1)
    assert le.exceed_correct == 19  # 19/30 > 0.6 >= 18/30
    direct = sum(stats.binom.pmf(x, 30, 0.6) for x in range(19, 31))
    assert le.p_one == pytest.approx(direct, rel=1e-12) and le.p_any == le.p_one
    assert le.expected_best_correct == pytest.approx(18.0, rel=1e-12)  # E X = R p
    assert le.p_alarm_one <= 0.025  # the interval's lower end is a valid 97.5 % bound
    lo_prev = clopper_pearson(le.alarm_correct - 1, 30, 0.95)[0]
    lo_at = clopper_pearson(le.alarm_correct, 30, 0.95)[0]
    assert lo_prev <= 0.6 < lo_at  # the count where score_game's verdict starts
    sc = score_game(MEAN_DP, 1, [True] * 30, model=MODELS[MEAN_DP])
    assert sc.certified_accuracy > 0.6  # (ε = 1: 73.1 %) -- the alarm agrees with the verdict:
    le1 = luck_lesson(1, 30, MODELS[MEAN_DP].certified_eta)
    lo_alarm = clopper_pearson(le1.alarm_correct, 30, 0.95)[0]
    assert lo_alarm > sc.certified_accuracy >= clopper_pearson(le1.alarm_correct - 1, 30, 0.95)[0]


@pytest.mark.parametrize("players, rounds, eta", [(2, 5, 0.1), (3, 4, 0.0), (4, 6, 0.25)])
def test_luck_by_enumeration(players, rounds, eta):
    p = 0.5 + eta
    pmf = stats.binom.pmf(np.arange(rounds + 1), rounds, p)
    e_max, p_any = 0.0, 0.0
    thr = math.floor(rounds * p) + 1
    for xs in itertools.product(range(rounds + 1), repeat=players):
        w = float(np.prod(pmf[list(xs)]))
        e_max += w * max(xs)
        p_any += w * (max(xs) >= thr)
    le = luck_lesson(players, rounds, eta)
    assert le.expected_best_correct == pytest.approx(e_max, rel=1e-12)
    assert le.p_any == pytest.approx(p_any, rel=1e-12)


def test_luck_grows_with_the_class():
    small, big = luck_lesson(5, 30, 0.1), luck_lesson(100, 30, 0.1)
    assert big.p_any > small.p_any and big.p_alarm_any > small.p_alarm_any
    assert big.expected_best_accuracy > small.expected_best_accuracy > 0.6
    assert luck_lesson(10, 10, 0.5).exceed_correct is None  # nobody beats accuracy 1


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: GameSettings("median"), "mechanism"),
        (lambda: GameSettings(calibration="delta"), "calibration"),
        (lambda: GameSettings(level=0.0), "level"),
        (lambda: GameSettings(level=math.inf), "level"),
        (lambda: GameSettings(calibration="eta", level=0.6), "level"),
        (lambda: GameSettings(n=7), "n"),
        (lambda: GameSettings(n=14), "n"),
        (lambda: GameSettings(canary=math.nan), "canary"),
        (lambda: GameSettings(target=8), "target"),
        (lambda: game_model("mean"), "settings"),
        (lambda: play_round(MEAN_DP, -1, 0), "seed"),
        (lambda: play_round(MEAN_DP, 0, -3), "index"),
        (lambda: play_round(MEAN_DP, 0, 0, model=MODELS[PROP11_DP]), "model"),
        (lambda: score_game(MEAN_DP, 0, []), "answers"),
        (lambda: score_game(MEAN_DP, 0, ["in", "out"]), "answers"),
        (lambda: score_game(MEAN_DP, 0, [True] * 10_001), "answers"),
        (lambda: score_game(MEAN_DP, 0, [True], confidence=1.0), "confidence"),
        (lambda: luck_lesson(0, 10, 0.1), "players"),
        (lambda: luck_lesson(10, 0, 0.1), "rounds"),
        (lambda: luck_lesson(10, 10, 0.7), "eta"),
        (lambda: luck_lesson(10, 10, 0.1, confidence=0.0), "confidence"),
        (lambda: game_state("model", 1, [], 10), "model"),
        (lambda: game_state(MODELS[MEAN_DP], -1, [], 10), "seed"),
        (lambda: game_state(MODELS[MEAN_DP], 1, [], 0), "rounds"),
        (lambda: game_state(MODELS[MEAN_DP], 1, [], 10, confidence=1.0), "confidence"),
        (lambda: game_state(MODELS[MEAN_DP], 1, [True] * 11, 10), "answers"),
        (lambda: game_state(MODELS[MEAN_DP], 1, ["in"], 10), "answers"),
        (lambda: game_state(MODELS[MEAN_DP], 1, [[True]], 10), "answers"),
        (lambda: release_laws(MEAN_DP), "model"),
        (lambda: MEAN_DP.game_key(-1), "seed"),
    ],
)
def test_out_of_domain_raises_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_a_score_over_the_rounds_played_skips_the_rest():
    """None marks a round not played (a class skips the rounds whose truths were shown): the
    score counts the rounds played, the optimal attacker on the same rounds, by brute force
    over the drawn rounds."""
    from mipcore.game import GameSettings, draw_round, game_model, log_densities, score_game

    settings = GameSettings.dp("mean", 1.0)
    model = game_model(settings)
    answers = [None, None, True, False, None, True, True]
    played = [k for k, a in enumerate(answers) if a is not None]
    draws = [draw_round(model, 11, k) for k in range(len(answers))]
    truth = [d[0] for d in draws]
    log_in, log_out = log_densities(model, np.array([d[2] for d in draws]))
    optimal = [bool(v) for v in (log_in - log_out >= 0.0)]
    sc = score_game(settings, 11, answers)
    assert sc.rounds == len(played) == 4
    assert sc.correct == sum(answers[k] == truth[k] for k in played)
    assert sc.optimal_correct == sum(optimal[k] == truth[k] for k in played)
    assert sc.accuracy == sc.correct / 4
    with pytest.raises(ValueError, match="at least one answer"):
        score_game(settings, 11, [None, None])


# --------------------------------------------------------------------------- a game in play


@pytest.mark.parametrize(
    "setting",
    [MEAN_DP, GameSettings.dp("prop11", 2.0, n=6), GameSettings.mip("mean", 0.3, n=4)],
    ids=short,
)
def test_game_state_is_play_round_round_by_round(setting):
    m = game_model(setting)
    answers = [bool(k % 3) for k in range(12)]
    state = game_state(m, 42, answers, 30)
    rounds = [play_round(setting, 42, k, model=m) for k in range(13)]
    h = state.history
    for k, r in enumerate(rounds[:12]):
        assert h.release[k] == r.release and h.member[k] == r.member
        assert h.optimal[k] == r.optimal_guess
        assert h.log_likelihood_ratio[k] == pytest.approx(r.log_likelihood_ratio, abs=1e-12)
    assert state.turn.index == 12 and state.turn.release == rounds[12].release
    last = state.last
    assert (last.index, last.release, last.member) == (11, rounds[11].release, rounds[11].member)
    assert last.answer == answers[11] and last.correct == (answers[11] == rounds[11].member)
    assert last.optimal_guess == rounds[11].optimal_guess
    assert last.log10_ratio == pytest.approx(abs(rounds[11].log_likelihood_ratio) / math.log(10))
    assert last.p_in / last.p_out == pytest.approx(rounds[11].likelihood_ratio, rel=1e-10)
    d_in, d_out = direct_densities(m, np.array([rounds[11].release]))  # the chart's diamonds
    assert last.p_in == pytest.approx(d_in[0], rel=1e-12)
    assert last.p_out == pytest.approx(d_out[0], rel=1e-12)


def test_game_state_scores_with_score_game():
    m = MODELS[MEAN_DP]
    answers = [bool(k % 2) for k in range(25)]
    s = game_state(m, 9, answers, 30)
    ref = score_game(MEAN_DP, 9, answers, model=m)
    assert s.score == ref and s.answered == 25 and s.turn.index == 25
    assert int(s.history.correct.sum()) == ref.correct
    assert int(s.history.optimal_correct.sum()) == ref.optimal_correct
    assert ref.optimal_interval == pytest.approx(clopper_pearson(ref.optimal_correct, 25, 0.95))
    lo, hi = ref.optimal_interval
    assert 0.0 <= lo <= ref.optimal_correct / 25 <= hi <= 1.0


def test_answers_never_change_the_rounds():
    m = MODELS[MEAN_DP]
    a = game_state(m, 5, [True] * 8, 30)
    b = game_state(m, 5, [False] * 8, 30)
    np.testing.assert_array_equal(a.history.release, b.history.release)
    np.testing.assert_array_equal(a.history.member, b.history.member)
    assert a.turn == b.turn
    # the round on screen is the same before and after answers, whatever they are
    assert game_state(m, 5, [], 30).turn.release == a.history.release[0]


def test_start_and_end_of_a_game():
    m = MODELS[MEAN_DP]
    s = game_state(m, 3, [], 10)
    assert (s.answered, s.turn.index, s.last, s.score) == (0, 0, None, None)
    assert s.history.release.size == 0
    done = game_state(m, 3, [True] * 10, 10)
    assert done.turn is None and done.last.index == 9
    assert done.score.rounds == 10


def test_release_laws_are_the_exact_mixtures():
    for s in (MEAN_DP, GameSettings.dp("prop11", 2.0, n=6)):
        m = game_model(s)
        laws = release_laws(m)
        p_in, p_out = direct_densities(m, laws.grid)
        np.testing.assert_allclose(laws.p_in, p_in, rtol=1e-12)
        np.testing.assert_allclose(laws.p_out, p_out, rtol=1e-12)
        b = m.noise.scale
        assert laws.grid[0] == pytest.approx(m.outputs.min() - 6 * b)
        assert laws.grid[-1] == pytest.approx(m.outputs.max() + 6 * b)
        for p in (laws.p_in, laws.p_out):  # mass within 6 scales of every output >= 1 - e^-6
            assert 1 - math.exp(-6) - 1e-3 <= np.trapezoid(p, laws.grid) <= 1 + 1e-3


def test_a_game_key_names_the_rounds_it_deals():
    """Two keys are equal exactly when the games deal the same rounds."""
    assert MEAN_DP.game_key(7) == "mean|epsilon|1.0|8|10.0|None|7"
    assert MEAN_DP.game_key(7) == GameSettings().game_key(7) != MEAN_DP.game_key(8)
    assert MEAN_DP.game_key(7) != GameSettings.dp("mean", 1.0, n=6).game_key(7)
    assert MEAN_DP.game_key(7) != GameSettings(target=3).game_key(7)


def test_a_game_from_its_kept_rounds_is_the_game_drawn_again():
    """game_state(..., drawn=draw_rounds(...)) (what the app keeps once per game) is the same
    state as drawing the rounds on the call, for no, some and skipped answers; rounds of
    another length are refused with a sentence."""
    from mipcore.game import draw_rounds

    model = game_model(GameSettings.dp("mean", 1.0))
    drawn = draw_rounds(model, 11, 12)
    for answers in ([], [True, False, True], [None, None, True, False], [False] * 12):
        a, b = game_state(model, 11, answers, 12), game_state(model, 11, answers, 12, drawn=drawn)
        assert a.turn == b.turn
        for field in ("index", "release", "member", "answer", "log_in", "log_out"):
            assert np.array_equal(getattr(a.history, field), getattr(b.history, field))
        assert (a.score is None) == (b.score is None)
        if a.score is not None:
            assert (a.score.correct, a.score.rounds) == (b.score.correct, b.score.rounds)
    with pytest.raises(ValueError, match="drawn holds 12 rounds"):
        game_state(model, 11, [], 13, drawn=drawn)
