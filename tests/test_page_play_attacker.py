"""The "Play the attacker" page (app_pages/play_attacker.py), through AppTest. Its theory (a
game in play: mipcore.game.game_state, release_laws) is tested in test_game.py, its charts
(mipcore.plots.game_vega) in test_game_vega.py.

A full game clicked with the Bayes-optimal answers computed here from mipcore (the page's score
is then the optimal attacker's count), "always in", the reveal sentence, the luck lesson from
20 rounds on, the laws hidden when the teacher says so, the URL round trip (a fresh session of
the same link shows the same first round), refusals of bad links, and extreme settings
answered with sentences; no Plotly chart, and the charts' specifications unchanged by a click.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import pagetools
import pytest
from pagetools import assert_clean, play_button, texts, unescaped
from streamlit.testing.v1 import AppTest

from appkit import fmt_num, fmt_pct
from appkit.progress import Progress
from appkit.registry import by_key
from mipcore.game import (
    Calibration,
    GameMechanism,
    GameSettings,
    ScoreVerdict,
    game_model,
    luck_lesson,
    play_round,
    score_game,
)
from mipcore.plots import game_vega

PAGE = "app_pages/play_attacker.py"
GAMES = "_play_games"  # the page's session copy of its games: game key -> Progress
DEFAULT = GameSettings()  # mean, ε = 1, n = 8 (the page's defaults)
MODEL = game_model(DEFAULT)


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=60, **params)


def heading(at: AppTest) -> str:
    """The round heading without the release: "### Round 3 of 30" or "### Game over: …"."""
    (h,) = [m.value for m in at.markdown if m.value.startswith("### ")]
    return h.split(" — ")[0]


def link(at: AppTest, key: str) -> str | None:
    """The link's value of ``key`` (AppTest holds a string or a list)."""
    v = at.query_params.get(key)
    return v[-1] if isinstance(v, list) else v


def release_shown(at: AppTest) -> str:
    """The release of the round on screen, as the heading prints it."""
    (h,) = [m.value for m in at.markdown if m.value.startswith("### Round")]
    return h.split(" — release y\u00a0=\u00a0")[1]


def metric(at: AppTest, start: str) -> str:
    return pagetools.metric(at, start)


def shown_text(at: AppTest) -> str:
    """Everything the page says, headers included."""
    return " ".join(texts(at) + [h.value for h in at.subheader])


def charts(at: AppTest) -> list[dict]:
    """The page's charts' specifications (all Vega-Lite: the page draws no Plotly chart)."""
    assert not at.get("plotly_chart")
    return [spec for spec, _tables in pagetools.vega_charts(at)]


def laws_shown(at: AppTest) -> bool:
    return any(spec["title"] == game_vega.LAWS_TITLE for spec in charts(at))


def release_text(x: float) -> str:
    """The page's format of a release."""
    return fmt_num(x, 4)


def prob(p: float) -> str:
    """The page's format of a probability (luck): never a false 0 % or 100 %."""
    if 0 < p < 0.001:
        return "less than 0.1 %"
    return "more than 99.9 %" if p > 0.999 else fmt_pct(p)


def pct(p: float) -> str:
    """The page's accuracy format for accuracies away from 100 %."""
    return fmt_pct(p)


def with_answers(
    answers: list[bool], settings=DEFAULT, seed: int = 1, replays: int = 0, **params: str
) -> AppTest:
    """The page with ``answers`` already given in this session (as after that many clicks)."""
    at = AppTest.from_file(pagetools.APP, default_timeout=60)
    at.run()
    at.query_params["seed"] = str(seed)
    for k, v in params.items():
        at.query_params[k] = v
    at.session_state[GAMES] = OrderedDict(
        {settings.game_key(seed): Progress(tuple(bool(a) for a in answers), replays)}
    )
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# =========================================================================== the page


def test_a_click_changes_the_charts_tables_not_their_specs():
    """Both charts are redrawn in place on every answer: only their tables change."""
    at = load(seed="3")
    play_button(at, "in").click().run()
    before = pagetools.vega_charts(at)
    assert [spec["title"] for spec, _ in before] == [game_vega.LAWS_TITLE, game_vega.SCORE_TITLE]
    play_button(at, "out").click().run()
    after = pagetools.vega_charts(at)
    assert [spec for spec, _ in after] == [spec for spec, _ in before]
    assert not after[0][1]["past"].equals(before[0][1]["past"])
    assert not after[1][1]["scores"].equals(before[1][1]["scores"])
    captions = [c.value for c in at.caption]
    assert "After 2 rounds; the bars are 95 % intervals." in captions
    r = play_round(DEFAULT, 3, 2, model=MODEL)
    assert after[0][1]["now"]["release"].tolist() == [r.release]  # the round to answer
    assert_clean(at)


def test_page_loads_clean_via_app_and_standalone():
    at = load(seed="1")
    assert at.title[0].value == by_key("play").title
    assert heading(at) == "### Round 1 of 30"
    r0 = play_round(DEFAULT, 1, 0, model=MODEL)
    assert release_shown(at) == release_text(r0.release)
    assert "Target record: the canary, 10. In the training half, or out?" in texts(at)
    assert laws_shown(at) and not any(m.label.startswith("You") for m in at.metric)
    assert play_button(at, "in").proto.shortcut == "left"
    assert play_button(at, "out").proto.shortcut == "right"
    assert_clean(at)
    alone = pagetools.load(PAGE, via_app=False)
    assert_clean(alone)
    assert heading(alone) == "### Round 1 of 30"


@pytest.mark.slow
def test_full_game_with_the_optimal_answers():
    """20 rounds clicked with the Bayes-optimal answer: the page's score is the optimal count."""
    seed, rounds = 11, 20
    at = load(seed=str(seed), rounds=str(rounds))
    expected = [play_round(DEFAULT, seed, k, model=MODEL) for k in range(rounds)]
    for k, r in enumerate(expected):
        assert heading(at) == f"### Round {k + 1} of {rounds}"
        assert release_shown(at) == release_text(r.release)
        assert ("Luck in a class" in shown_text(at)) == (k >= 20)
        play_button(at, "in" if r.optimal_guess else "out").click().run()
        assert not at.exception
    sc = score_game(DEFAULT, seed, [r.optimal_guess for r in expected], model=MODEL)
    assert sc.correct == sc.optimal_correct
    assert heading(at) == f"### Game over: {sc.correct} of {rounds} right"
    assert metric(at, f"You: {sc.correct} of {rounds}") == pct(sc.accuracy)
    assert metric(at, f"Optimal attacker: {sc.optimal_correct} of {rounds}") == pct(sc.accuracy)
    lo, hi = sc.interval
    assert metric(at, "95 % interval") == f"{pct(lo)} – {pct(hi)}"
    assert metric(at, "Guarantee, 1/2 + η") == pct(MODEL.certified_accuracy) == "73.1 %"
    shown = shown_text(at)
    assert f"Your 95 % interval, {pct(lo)} – {pct(hi)}," in shown
    phrase = {
        ScoreVerdict.ABOVE_CERTIFIED: "of beating the guarantee",
        ScoreVerdict.ABOVE_CHANCE: "evidence that you beat coin flips",
        ScoreVerdict.BELOW_CHANCE: "as informative as beating the coin",
        ScoreVerdict.NO_EVIDENCE: "no evidence yet",
    }
    assert phrase[sc.verdict] in shown
    luck = luck_lesson(30, rounds, MODEL.certified_eta)
    assert "Luck in a class of 30" in shown
    assert f"someone scores above 73.1 % with probability {prob(luck.p_any)}" in shown
    assert f"{luck.alarm_correct} of {rounds} or more would be evidence" in shown
    assert not [b for b in at.button if (b.key or "").startswith("play_in")]  # nothing left
    assert laws_shown(at)
    assert_clean(at)
    (history,) = pagetools.markdown_tables(at)  # "Every round so far", as plain Markdown
    assert not at.dataframe and len(history) == rounds
    assert list(history["target was"]) == ["in" if r.member else "out" for r in expected]
    assert list(history["you said"]) == list(history["optimal said"])
    # New game: back to round 1 of a new game number, written into the link
    assert at.button(key="play_new_game").label == "New game"
    at.button(key="play_new_game").click().run()
    assert heading(at) == f"### Round 1 of {rounds}"
    new = int(link(at, "seed"))
    assert new != seed and 1 <= new <= 999_999
    assert release_shown(at) == release_text(play_round(DEFAULT, new, 0, model=MODEL).release)


def test_the_luck_lesson_comes_after_twenty_answers():
    assert "Luck in a class" not in shown_text(with_answers([True] * 19, seed=1))
    assert "Luck in a class of 30" in shown_text(with_answers([True] * 20, seed=1))


def test_always_in_and_the_reveal_sentence():
    seed = 5
    at = load(seed=str(seed), rounds="10")
    expected = [play_round(DEFAULT, seed, k, model=MODEL) for k in range(10)]
    for r in expected:
        play_button(at, "in").click().run()
        reveal = [t for t in texts(at) if t.startswith(f"**Round {r.index + 1} was ")]
        assert len(reveal) == 1, texts(at)
        truth = "in" if r.member else "out"
        opt = "in" if r.optimal_guess else "out"
        other = "out" if r.optimal_guess else "in"
        ratio = game_vega.times_text(abs(r.log_likelihood_ratio) / math.log(10))
        assert reveal[0] == (
            f"**Round {r.index + 1} was {truth}: you said in {'✓' if r.member else '✗'}, and the "
            f"optimal attacker said {opt} {'✓' if r.optimal_correct else '✗'}, because this "
            f"release is {ratio} times as likely with the target {opt} as {other}.**"
        )
    members = sum(r.member for r in expected)
    assert metric(at, f"You: {members} of 10") == pct(members / 10)
    assert "Luck in a class" not in shown_text(at)  # fewer than 20 rounds
    assert_clean(at)


def test_hidden_laws_until_the_game_is_over():
    at = load(laws="0", rounds="10", seed="2")
    assert not laws_shown(at)
    assert any("hidden the two release laws" in t for t in texts(at))
    play_button(at, "out").click().run()
    assert not laws_shown(at) and len(charts(at)) == 1  # the score chart only
    done = with_answers([True] * 10, seed=2, laws="0", rounds="10")
    assert heading(done).startswith("### Game over")
    assert laws_shown(done)
    shown = load(laws="1", rounds="10", seed="2")
    assert laws_shown(shown)


def test_link_round_trip_shows_the_same_first_round():
    params = dict(
        mech="prop11", cal="eta", eta="0.2", n="6", rounds="40", players="12", laws="0", seed="777"
    )
    a, b = load(**params), load(**params)
    assert not a.warning
    assert a.radio(key="mech").value is GameMechanism.PROP11
    assert a.radio(key="cal").value is Calibration.ETA
    assert a.slider(key="eta").value == 0.2 and a.slider(key="n").value == 6
    assert a.slider(key="rounds").value == 40 and a.slider(key="players").value == 12
    assert a.toggle(key="laws").value is False and link(a, "seed") == "777"
    assert "Game number 777 (seed=777 in the link)." in texts(a)
    s = GameSettings("prop11", "eta", 0.2, 6)
    r0 = play_round(s, 777, 0)
    assert release_shown(a) == release_shown(b) == release_text(r0.release)
    assert heading(a) == "### Round 1 of 40"
    assert_clean(a)
    # the URL follows the widgets; the ε/η keys never both
    at = load(seed="3")
    at.slider(key="eps").set_value(2.0).run()
    assert at.query_params["eps"] == ["2"] or at.query_params["eps"] == "2"
    at.radio(key="cal").set_value(Calibration.ETA).run()
    assert "eps" not in at.query_params and at.slider(key="eta").value == 0.1


def test_each_control_changes_the_round():
    at = load(seed="4")
    assert release_shown(at) == release_text(play_round(DEFAULT, 4, 0, model=MODEL).release)
    at.radio(key="mech").set_value(GameMechanism.PROP11).run()
    p = GameSettings.dp("prop11", 1.0)
    assert release_shown(at) == release_text(play_round(p, 4, 0).release)
    at.slider(key="n").set_value(10).run()
    p10 = GameSettings.dp("prop11", 1.0, n=10)
    assert release_shown(at) == release_text(play_round(p10, 4, 0).release)
    at.button(key="play_new_seed").click().run()  # the teacher deals a new game number
    new = int(link(at, "seed"))
    assert new != 4 and release_shown(at) == release_text(play_round(p10, new, 0).release)
    assert_clean(at)


def notice(at: AppTest) -> list[str]:
    """The sidebar's sentences about a game in progress."""
    return [w.value for w in at.sidebar.warning if "in progress" in w.value]


def test_a_settings_change_says_what_it_does_and_changing_back_restores_the_game():
    at = load(seed="3")
    assert not notice(at)  # nothing to lose yet
    play_button(at, "in").click().run()
    play_button(at, "out").click().run()
    assert heading(at) == "### Round 3 of 30"
    (said,) = notice(at)
    assert "**A game is in progress (2 answers).**" in said
    assert "Changing the mechanism, the noise, ε or n starts a new game" in said
    assert "come back when you set it back" in said
    at.slider(key="eps").set_value(3.0).run()
    assert heading(at) == "### Round 1 of 30" and not notice(at)
    at.slider(key="eps").set_value(1.0).run()  # back: the game of ε = 1 with its 2 answers
    assert heading(at) == "### Round 3 of 30"
    assert metric(at, "You: ") in (pct(0), pct(0.5), pct(1))
    # rounds, players and the laws toggle keep the game
    at.slider(key="rounds").set_value(40).run()
    at.slider(key="players").set_value(12).run()
    at.toggle(key="laws").set_value(False).run()
    assert heading(at) == "### Round 3 of 40"
    # a finished game has nothing in progress
    done = with_answers([True] * 10, seed=3, rounds="10")
    assert heading(done).startswith("### Game over") and not notice(done)


def test_new_game_deals_a_new_game_number_unless_the_link_fixes_it():
    at = load(seed="8")
    play_button(at, "in").click().run()
    (cap,) = [t for t in texts(at) if t.startswith("New rounds, under a new game number")]
    assert "Your 1 answer to this game will be dropped." in cap
    at.button(key="play_new_game").click().run()
    seed = int(link(at, "seed"))
    assert seed != 8 and heading(at) == "### Round 1 of 30"
    assert release_shown(at) == release_text(play_round(DEFAULT, seed, 0, model=MODEL).release)
    # the teacher's link: seed=<N>&fixed=1 -- the button replays the same rounds
    fixed = load(seed="8", fixed="1")
    assert fixed.toggle(key="fixed").value is True
    button = fixed.button(key="play_new_game")
    assert button.label == "Replay this game"
    first = release_shown(fixed)
    play_button(fixed, "out").click().run()
    play_button(fixed, "out").click().run()
    assert heading(fixed) == "### Round 3 of 30"
    fixed.button(key="play_new_game").click().run()
    assert link(fixed, "seed") == "8" and heading(fixed) == "### Round 1 of 30"
    assert release_shown(fixed) == first
    play_button(fixed, "in").click().run()
    assert any(t.startswith("**A replay: you have seen the truths") for t in texts(fixed))


def test_a_link_without_a_game_number_deals_one_and_writes_it():
    at = load()
    seed = link(at, "seed")
    assert 1 <= int(seed) <= 999_999
    assert release_shown(at) == release_text(play_round(DEFAULT, int(seed), 0, model=MODEL).release)
    assert f"Game number {seed} (seed={seed} in the link)." in texts(at)


def answers_scoring(correct: int, rounds: int, seed: int, settings=DEFAULT) -> list[bool]:
    """Answers to the first ``rounds`` rounds of ``seed`` of which exactly ``correct`` are right."""
    model = game_model(settings)
    truth = [play_round(settings, seed, k, model=model).member for k in range(rounds)]
    return [t if k < correct else not t for k, t in enumerate(truth)]


def verdict(at: AppTest) -> str:
    """The verdict (every "%" after a no-break space, as the page writes it)."""
    (v,) = [t for t in texts(at) if "\u00a0% interval, " in t and t.startswith("**")]
    return v


@pytest.mark.parametrize(
    "correct, rounds, kind",
    [
        (4, 20, ScoreVerdict.BELOW_CHANCE),
        (10, 20, ScoreVerdict.NO_EVIDENCE),
        (16, 20, ScoreVerdict.ABOVE_CHANCE),
        (30, 30, ScoreVerdict.ABOVE_CERTIFIED),
    ],
)
def test_the_verdict_quotes_the_interval_the_score_shows(correct, rounds, kind):
    """One interval: the verdict's numbers are exactly the ones in the score's metric."""
    answers = answers_scoring(correct, rounds, seed=6)
    sc = score_game(DEFAULT, 6, answers, model=MODEL)
    assert sc.correct == correct and sc.verdict is kind
    at = with_answers(answers, seed=6, rounds=str(rounds))
    assert_clean(at)
    shown = metric(at, "95 % interval")
    lo, hi = (float(v.strip().rstrip("%").strip()) for v in shown.split("–"))
    assert (lo, hi) == pytest.approx((100 * sc.interval[0], 100 * sc.interval[1]), abs=0.051)
    v = verdict(at)
    assert v.startswith(f"**Your 95 % interval, {shown}, ")
    assert "lower bound" not in v and "one-sided" not in v  # no other bound is quoted
    if kind is ScoreVerdict.BELOW_CHANCE:
        flo, fhi = 1 - sc.interval[1], 1 - sc.interval[0]
        assert "as informative as beating the coin" in v
        assert f"Flipping every answer would have scored 16 of 20 ({pct(0.8)}, interval " in v
        assert f"{pct(flo)} – {pct(fhi)}" in v
        assert "bounded by the same guarantee" in v and pct(MODEL.certified_accuracy) in v
    else:
        assert "Flipping" not in v


@pytest.mark.parametrize(
    "params, sentence",
    [
        (dict(cal="eta", eta="0.49"), "someone scores above 99"),
        (dict(eps="10"), "someone scores above 99.9955 % with probability more than 99.9 %"),
        (dict(eps="0.1"), "someone scores above 52.5 %"),
        (dict(mech="prop11", n="12", eps="10"), "no score is evidence of beating the guarantee"),
    ],
)
def test_extreme_settings_give_sentences(params, sentence):
    settings = GameSettings(
        params.get("mech", "mean"),
        params.get("cal", "epsilon"),
        float(params.get("eps", params.get("eta", 1.0))),
        int(params.get("n", 8)),
    )
    at = with_answers([k % 3 == 0 for k in range(25)], settings=settings, seed=1, **params)
    assert_clean(at)
    shown = shown_text(at)
    assert sentence in shown, shown
    assert "Luck in a class of 30" in shown and "Round 26 of 30" in heading(at)


@pytest.mark.parametrize(
    "params, key",
    [
        (dict(mech="median"), "mech"),
        (dict(eps="99"), "eps"),
        (dict(cal="eta", eta="0.9"), "eta"),
        (dict(n="7"), "n"),
        (dict(seed="-4"), "seed"),
        (dict(rounds="abc"), "rounds"),
        (dict(laws="maybe"), "laws"),
    ],
)
def test_bad_links_warn_and_fall_back(params, key):
    at = load(**params)
    assert not at.exception
    warned = [unescaped(w.value) for w in at.warning] + [unescaped(e.value) for e in at.error]
    assert any(key in w or "refused" in w or "outside" in w for w in warned), warned
    assert heading(at).startswith("### Round 1 of")


def test_crafted_link_text_stays_text():
    at = load(mech="[click](https://example.com)", seed="1")
    assert at.warning
    for w in at.warning:
        assert "](" not in w.value.replace("\\]\\(", "")
    assert_clean(at)


def test_class_size_sets_the_luck_lesson():
    at = with_answers([k % 4 != 0 for k in range(22)], seed=1, players="12")
    luck = luck_lesson(12, 22, MODEL.certified_eta)
    shown = shown_text(at)
    assert "Luck in a class of 12" in shown
    assert f"someone scores above 73.1 % with probability {prob(luck.p_any)}" in shown
    assert f"by luck with probability {prob(luck.p_one)}" in shown
    assert f"expected to score {pct(luck.expected_best_accuracy)}" in shown
    assert f"{luck.alarm_correct} of 22 or more would be evidence" in shown
    assert f"someone in the class with probability {prob(luck.p_alarm_any)}" in shown
    assert_clean(at)


def test_presenter_mode_folds_the_rules_below_the_round():
    at = load(seed="1")
    at.toggle(key="present").set_value(True).run()
    labels = [e.label for e in at.expander]
    assert "How the game works" in labels
    body = [m.value for m in at.markdown]
    first_round = next(i for i, v in enumerate(body) if v.startswith("### Round 1"))
    rules = next(i for i, v in enumerate(body) if v.startswith("Each round the app"))
    assert first_round < rules  # the round and its buttons come first on a projector
    assert play_button(at, "in") and play_button(at, "out")
    assert_clean(at)


def test_eta_one_half_from_a_link_is_refused_with_a_sentence():
    """η = 1/2 promises nothing and needs no noise: the game offers 0 < η <= 0.49."""
    at = load(cal="eta", eta="0.5")
    assert_clean(at)
    assert any("eta=0.5" in pagetools.unescaped(w.value) for w in at.warning)
