"""Can you beat the guarantee? Play the attacker of the membership game, round by round.

Each round the app secretly tosses a coin (is the target record in the training half?),
releases a noisy statistic and the player answers "in" or "out" (buttons, or ← and → on
the keyboard). Beside the player's running score: its Clopper–Pearson interval, the best
accuracy any attacker can have (1/2 + η) and the Bayes-optimal attacker on the same rounds.
The teacher's settings and the game number (seed) live in the link, so a whole class plays
the same rounds; "New game" deals a new game number unless the link fixes it (``fixed=1``:
"Replay this game"). The answers never go into the link: they live in the session and, for
a reload, on the server under this browser (:mod:`appkit.progress`).

The game is :mod:`mipcore.game`'s (:func:`~mipcore.game.game_state` after the answers, the
two laws of :func:`~mipcore.game.release_laws`), drawn by :mod:`mipcore.plots.game_vega`. The
controls are the table :data:`CONTROLS`; every sentence with a number is a template of
``play_attacker.md``, beside the page's static prose. ← and → answer the round whenever the
game is on screen, also after a sidebar control was touched: the script
``play_attacker.js`` takes the two keys before any focused control does.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections import OrderedDict
from pathlib import Path

import segno
import streamlit as st

import appkit
from appkit import classroom, classui, controls, fmt_num, registry
from appkit.controls import choice, slider, toggle
from appkit.progress import STORE, Progress, browser_id
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.game import (
    Calibration,
    GameMechanism,
    GameSettings,
    ScoreVerdict,
    draw_rounds,
    game_model,
    game_state,
    luck_lesson,
    release_laws,
)
from mipcore.plots import game_vega

PAGE = "play"
SEED_MAX = 999_999
LUCK_AFTER = 20  # answered rounds before the page shows the multiple-testing lesson
GAMES = "_play_games"  # session: game key -> Progress, the last few games of this session
_SESSION_GAMES = 16
_BIG = """<style>
.st-key-play_buttons button { min-height: 4.2rem; }
.st-key-play_buttons button p { font-size: 1.8rem; font-weight: 600; }
</style>"""
# Presenter mode at 1024×768 with the sidebar open: the round, its buttons and the release
# chart on one screen. A shorter header on this page only (the element goes with the page).
_PRESENTER = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 1.6rem; }
[data-testid="stMain"] h1 { font-size: 1.75rem; padding-bottom: 0.2rem; }
[data-testid="stMain"] h3 { padding: 0.2rem 0; }
</style>"""
# ← and → answer the round whenever the In/Out buttons are on the page: Streamlit's own button
# shortcuts listen on the document, so a focused sidebar control would take the keys first;
# the script listens on the window, in the capture phase, answers and takes the focus off the
# sidebar (a held key answers once; a text field keeps its arrow keys). One tap, one answer:
# each round's buttons have keys of their own (play_in_<game>_<round>), so a tap names its
# round and the server counts a second answer to it as nothing; the script drops, with a word,
# a click on a round's buttons within AGAIN_MS of another (a double tap) or within ARM_MS of
# their appearing (a double tap's second tap landing on the next round): nobody reads a
# release in 0.4 s.
_KEYS = Path(__file__).with_name("play_attacker.js")

MECH_NAMES = {
    GameMechanism.MEAN: "Noisy mean with a canary",
    GameMechanism.PROP11: "Proposition 11: 1/Σx plus noise",
}
CAL_NAMES = {
    Calibration.EPSILON: "by ε (differential privacy)",
    Calibration.ETA: "by η (MIP, Theorem 9)",
}


def _even(v) -> None:
    if int(v) % 2:
        raise ValueError("n must be even")


CONTROLS = controls.table(
    choice("mech", "Mechanism", list(GameMechanism), GameMechanism.MEAN, MECH_NAMES.get, radio=True, horizontal=False),
    choice("cal", "Noise set", list(Calibration), Calibration.EPSILON, CAL_NAMES.get, radio=True, horizontal=False),
    slider("eps", "ε", 0.1, 10.0, 1.0, 0.1, "%.1f"),
    slider("eta", "η", 0.01, 0.49, 0.1, 0.01, "%.2f"),
    slider("n", "Records n", 4, 12, 8, 2, validate=_even),
    slider("rounds", "Rounds in a game", 10, 200, 30, 5),
    slider("players", "Players in the class", 2, 300, 30, help="For the luck lesson shown after 20 rounds."),
    toggle("laws", "Show the player the two release laws", True, "What the attacker of the definition knows. Off: release and target only (the laws appear when the game is over)."),
    toggle("fixed", "Same game for the whole class", False, "Fixes the game number in the link (fixed=1): everyone who opens the link plays the same rounds, and “New game” becomes “Replay this game”. Share the link from “Link to this view” at the bottom of the page."),
)  # fmt: skip


def _pct(p: float) -> str:
    """An accuracy in %, with enough digits that 99.99 % never shows as 100 %."""
    if 0.5 < p < 1.0 and 1.0 - p < 5e-4:
        return f"{fmt_num(100 * p, 6)}\u00a0%"
    return appkit.fmt_pct(p)


def _prob(p: float) -> str:
    """A probability in %, never rounded to a false 0 % or 100 % (luck never reaches 100 %;
    a float 1.0 here is 1 − something below 10⁻¹⁶)."""
    if 0.0 < p < 0.001:
        return "less than 0.1\u00a0%"
    if p > 0.999:
        return "more than 99.9\u00a0%"
    return appkit.fmt_pct(p)


def _said(answer: bool) -> str:
    return "in" if answer else "out"


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def _many(k: int, what: str) -> str:
    """``k`` and ``what``, plural unless k is 1: "1 answer", "3 answers"."""
    return f"{k} {what}{'s' if k != 1 else ''}"


# ---------------------------------------------------------------- the game's answers


def _session_games() -> OrderedDict:
    games = st.session_state.get(GAMES)
    if not isinstance(games, OrderedDict):
        games = OrderedDict(games or {})
        st.session_state[GAMES] = games
    return games


def _keep(game: str, progress: Progress) -> Progress:
    games = _session_games()
    games[game] = progress
    games.move_to_end(game)
    while len(games) > _SESSION_GAMES:
        games.popitem(last=False)
    return progress


def _progress(game: str, browser: str | None) -> Progress:
    """This browser's progress in ``game``: the server's copy (it survives a reload), else the
    session's (no browser token, or the server's copy was evicted)."""
    held = STORE.get(browser, game) if browser else None
    if held is None:
        held = _session_games().get(game, Progress())
        if browser and (held.answers or held.replays):
            STORE.put(browser, game, held)
    return _keep(game, held)


def _answer(game: str, browser: str | None, index: int, said_in: bool) -> None:
    """A click or a key: counted only for the round it was shown for (a double click, or a
    second tab, counts once, and says so)."""
    mine = _session_games().get(game, Progress())
    if browser:
        before = STORE.get(browser, game)
        answered = len(before.answers if before is not None else mine.answers)
        _keep(game, STORE.answer(browser, game, index, said_in, start=mine.answers))
    else:
        answered = len(mine.answers)
        if answered == index:
            _keep(game, Progress((*mine.answers, said_in), mine.replays))
    if index < answered:
        _note(say(PAGE, "answered_twice", round=index + 1))


def _fresh_seed() -> int:
    return 1 + secrets.randbelow(SEED_MAX)


def _deal() -> None:
    st.query_params["seed"] = str(_fresh_seed())


def _new_game(game: str, browser: str | None, fixed: bool) -> None:
    """New rounds (a new game number in the link), or with a fixed game the same rounds again."""
    if not fixed:
        _deal()
        return
    if browser:
        _keep(game, STORE.restart(browser, game))
    else:
        mine = _session_games().get(game, Progress())
        _keep(game, Progress((), mine.replays + (1 if mine.answers else 0)))


def _seed_from_link() -> int:
    """The game number of the link (``seed``); a new one, written into the link, if it has none
    or one that is not a game number (with a sentence)."""
    raw = st.query_params.get_all("seed")
    if raw:
        text = str(raw[-1]).strip()
        try:
            value = int(text)
        except ValueError:
            value = -1
        if 0 <= value <= SEED_MAX and len(raw) == 1:
            return value
        seed = appkit.plain(text, max_chars=40)
        appkit.warn(say(PAGE, "seed_refused", seed=seed, limit=SEED_MAX))
    value = _fresh_seed()
    st.query_params["seed"] = str(value)
    return value


# ---------------------------------------------------------------- the sidebar


def _controls() -> tuple[GameSettings, dict]:
    """The sidebar's game settings, the game number and its button: the settings, and every
    control's value by key (``level``: the privacy level's key, ``seed``: the game number)."""
    chosen = controls.draw_all(CONTROLS, "mech", "cal")
    level, stale = ("eps", "eta") if chosen["cal"] is Calibration.EPSILON else ("eta", "eps")
    chosen[level] = controls.draw(CONTROLS[level])
    if stale in st.query_params:  # one privacy level in a link at a time
        del st.query_params[stale]
    chosen |= controls.draw_all(CONTROLS, "n", "rounds", "players", "laws", "fixed")
    seed = chosen["seed"] = _seed_from_link()
    if chosen["fixed"]:
        st.caption(say(PAGE, "game_number_fixed", seed=seed))
    else:
        st.caption(say(PAGE, "game_number", seed=seed))
    st.button("Deal a new game number", on_click=_deal, key="play_new_seed")
    chosen |= {"level": level, "rounds": int(chosen["rounds"]), "players": int(chosen["players"])}
    settings = GameSettings(chosen["mech"], chosen["cal"], float(chosen[level]), int(chosen["n"]))
    return settings, chosen


# ---------------------------------------------------------------- a game's parts (single and class)


def _target_name(model) -> str:
    if model.settings.mechanism is GameMechanism.MEAN:
        return say(PAGE, "target_mean", value=model.target_value)
    return say(PAGE, "target_prop11", value=model.target_value)


def _rules(model) -> None:
    """How the game works, with the numbers of ``model``'s setting."""
    s, records = model.settings, model.records
    if s.mechanism is GameMechanism.MEAN:
        lo, hi = records[:-1].min(), records[:-1].max()
        release = say(PAGE, "release_mean", k=s.n // 2, n=s.n, others=s.n - 1, lo=lo, hi=hi)
    else:
        release = say(PAGE, "release_prop11", n=s.n, top=records[-2], a=records[-1])
    if s.calibration is Calibration.EPSILON:
        noise = say(PAGE, "noise_epsilon", scale=model.noise.scale)
        promise = say(PAGE, "promise_epsilon", level=s.level)
    else:
        noise = say(PAGE, "noise_eta", scale=model.noise.scale)
        promise = say(PAGE, "promise_eta", level=s.level)
    target, cert = _target_name(model), _pct(model.certified_accuracy)
    rules = say(
        PAGE, "rules", target=target, release=release, noise=noise, promise=promise, cert=cert
    )
    appkit.explain(rules, label="How the game works")


def _round(model, turn, rounds: int, game: str, on_answer, args: tuple) -> None:
    """The round to answer: its heading, the target and the In/Out buttons, which call
    ``on_answer(*args, turn.index, said_in)``. The buttons' keys name ``game`` and the round
    (``play_in_<game>_<round>``): a tap answers the round whose buttons it hit, never the next
    one (a callback's arguments are those of its own button), and the page's script drops a
    second tap (:data:`_KEYS`)."""
    st.markdown(say(PAGE, "round", round=turn.index + 1, rounds=rounds, release=turn.release))
    st.caption(say(PAGE, "target", target=_target_name(model)))
    tag = f"{game}_{turn.index}"
    with st.container(horizontal=True, key="play_buttons"):
        for label, said_in, side, key, help_ in _BUTTONS:
            st.button(
                label,
                key=f"play_{side}_{tag}",
                shortcut=key,
                type="primary",
                width="stretch",
                on_click=on_answer,
                args=(*args, turn.index, said_in),
                help=help_,
            )


_BUTTONS = (  # label, the answer, its key's side, its shortcut, its help
    ("In", True, "in", "Left", "The target was in the training half (key ←)."),
    ("Out", False, "out", "Right", "The target was not in the training half (key →)."),
)


def _game_tag(*parts: object) -> str:
    """A short name of one game for its buttons' keys (letters and digits)."""
    return hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=4).hexdigest()


def _reveal(last) -> None:
    """The last answered round, revealed: its truth, the player's and the optimal answer."""
    if last is None:
        return
    opt, other = _said(last.optimal_guess), _said(not last.optimal_guess)
    ratio = game_vega.times_text(last.log10_ratio)
    if ratio == "1":
        why = prose_text(PAGE, "why_tie")
    else:
        why = say(PAGE, "why", ratio=ratio, optimal=opt, other=other)
    appkit.takeaway(
        say(
            PAGE,
            "reveal",
            round=last.index + 1,
            truth=_said(last.member),
            said=_said(last.answer),
            mark=_mark(last.correct),
            optimal=opt,
            optimal_mark=_mark(last.optimal_correct),
            why=why,
        )
    )


def _laws_chart(laws, state, presenting: bool, *, sealed: bool = False) -> None:
    """The two release laws with this round's release; on a projector the last round's
    reveal under it. ``sealed`` (a class that plays): this round's release only, nothing of
    the past rounds (their marks would tell their truths)."""
    height = game_vega.PRESENTER_HEIGHT if presenting else game_vega.LAWS_HEIGHT
    if sealed:  # the round to answer only: one chart for every student at that round
        fig, table = appkit.cached(game_vega.sealed_laws_vega, laws, state.turn, height=height)
    else:
        fig, table = appkit.cached(game_vega.laws_vega, laws, state, height=height)
    caption = prose_text(PAGE, "laws_sealed") if sealed else prose_text(PAGE, "laws_caption")
    appkit.chart(fig, table, "release_laws", key="play_laws", caption=caption)
    if presenting:
        _reveal(state.last)
    appkit.takeaway(prose_text(PAGE, "laws_takeaway"))


def _score(model, state, replays: int) -> None:
    """The player's score: metrics, the score chart, the verdict and how it works."""
    score = state.score
    cert, optimal = _pct(model.certified_accuracy), _pct(model.optimal_accuracy)
    level, luck = round(100 * score.confidence), (100 - 100 * score.confidence) / 2
    interval = f"{_pct(score.interval[0])} – {_pct(score.interval[1])}"
    st.subheader("Score")
    r1, r2 = st.columns(2)
    r1.metric(f"You: {score.correct} of {score.rounds}", _pct(score.accuracy))
    r2.metric(f"{level}\u00a0% interval", interval)
    r3, r4 = st.columns(2)
    r3.metric("Guarantee, 1/2 + η", cert, help=say(PAGE, "guarantee_help", optimal=optimal))
    r4.metric(
        f"Optimal attacker: {score.optimal_correct} of {score.rounds}",
        _pct(score.optimal_correct / score.rounds),
        help="The Bayes-optimal attacker's answers on the same rounds.",
    )
    fig, table = appkit.cached(game_vega.score_vega, score)
    caption = say(PAGE, "score_caption", rounds=_many(score.rounds, "round"), level=level)
    appkit.chart(fig, table, "score", key="play_score", caption=caption)
    appkit.takeaway(_verdict(score, cert, interval, replays))
    explain = say(
        PAGE,
        "score_explain",
        level=level,
        certified=cert,
        luck=luck,
        optimal=optimal,
        score=score,
        p_value=_prob(score.p_value),
    )
    appkit.explain(explain, label="How the interval and the verdict work")


def _verdict(score, cert: str, interval: str, replays: int) -> str:
    """The verdict, in the words of the interval the score shows (``interval``)."""
    level, luck = round(100 * score.confidence), (100 - 100 * score.confidence) / 2
    if score.verdict is ScoreVerdict.ABOVE_CERTIFIED:
        text = say(
            PAGE, "verdict_above_certified", level=level, interval=interval, cert=cert, luck=luck
        )
    elif score.verdict is ScoreVerdict.ABOVE_CHANCE:
        text = say(PAGE, "verdict_above_chance", level=level, interval=interval, cert=cert)
    elif score.verdict is ScoreVerdict.BELOW_CHANCE:
        flo, fhi = score.flipped_interval
        text = say(
            PAGE,
            "verdict_below_chance",
            level=level,
            interval=interval,
            score=score,
            flipped_accuracy=_pct(score.flipped_correct / score.rounds),
            flipped_interval=f"{_pct(flo)} – {_pct(fhi)}",
            cert=cert,
        )
        if flo > score.certified_accuracy:
            text += " " + say(PAGE, "verdict_flipped_above", cert=cert, luck=luck)
    else:
        text = say(PAGE, "verdict_no_evidence", level=level, interval=interval)
    if replays:
        text = prose_text(PAGE, "replay") + " " + text
    return text


def _again(game: str, browser: str | None, state, chosen: dict) -> None:
    """A new game (or a replay of a fixed one), away from In/Out, with what it does."""
    fixed = chosen["fixed"]
    again, why = st.columns([1, 2], vertical_alignment="center")
    again.button(
        "Replay this game" if fixed else "New game",
        key="play_new_game",
        on_click=_new_game,
        args=(game, browser, fixed),
        width="stretch",
    )
    pending = 0 < state.answered < chosen["rounds"]
    answers = _many(state.answered, "answer")
    if fixed:
        text = say(PAGE, "replay_fixed", seed=chosen["seed"])
        if pending:
            text += " " + say(PAGE, "replay_clears", answers=answers)
    else:
        text = prose_text(PAGE, "new_game")
        if pending:
            text += " " + say(PAGE, "new_game_drops", answers=answers)
    why.caption(text)


def _luck(model, state, players: int) -> None:
    """Luck in a class: why the best score of many players is no evidence."""
    luck = appkit.cached(luck_lesson, players, state.answered, model.certified_eta)
    accuracy = _pct(luck.accuracy)
    st.subheader(f"Luck in a class of {luck.players}")
    if luck.exceed_correct is None:
        appkit.takeaway(say(PAGE, "luck_nothing", accuracy=accuracy))
        return
    appkit.takeaway(say(PAGE, "luck", luck=luck, accuracy=accuracy, p_any=_prob(luck.p_any)))
    if luck.alarm_correct is None:
        alarm = say(PAGE, "luck_no_alarm", luck=luck)
    else:
        p_one, p_any = _prob(luck.p_alarm_one), _prob(luck.p_alarm_any)
        alarm = say(PAGE, "luck_alarm", luck=luck, p_one=p_one, p_any=p_any)
    explain = say(
        PAGE,
        "luck_explain",
        accuracy=accuracy,
        p_one=_prob(luck.p_one),
        luck=luck,
        best=_pct(luck.expected_best_accuracy),
        alarm=alarm,
    )
    appkit.explain(explain, label="Why the top score is no evidence")


def _history(state) -> None:
    """Every round so far, in a folded table."""
    h = state.history
    with st.expander(f"Every round so far ({state.answered})"):
        appkit.tables.table(
            {
                "round": list(h.index + 1),
                "release": [fmt_num(v, 4) for v in h.release],
                "target was": [_said(v) for v in h.member],
                "you said": [_said(v) for v in h.answer],
                "optimal said": [_said(v) for v in h.optimal],
            },
            right=["round", "release"],
        )


def _maths_caption(model) -> None:
    """This game's numbers under the open maths section."""
    if maths_caption is not None:
        maths_caption.caption(say(PAGE, "maths_numbers", model=model))


# ---------------------------------------------------------------- the single game


def _game(settings: GameSettings, chosen: dict, notice) -> None:
    """The single game: the round, the reveal, the laws, the rules, the score and the rest."""
    rounds, seed = chosen["rounds"], chosen["seed"]
    with appkit.guard("This game", stop=True):
        model = appkit.cached(game_model, settings)
        laws = appkit.cached(release_laws, model)
    game = settings.game_key(seed)
    browser = browser_id()
    progress = _progress(game, browser)
    answers = progress.answers[:rounds]  # a shorter game shows its first rounds
    with appkit.guard("This round", stop=True):
        drawn = appkit.cached(draw_rounds, model, seed, rounds)  # once per game
        state = appkit.cached(game_state, model, seed, answers, rounds, drawn=drawn)
    score, turn, presenting = state.score, state.turn, appkit.presenter()
    if 0 < state.answered < rounds:
        said = say(
            PAGE,
            "in_progress",
            answers=_many(state.answered, "answer"),
            level=CONTROLS[chosen["level"]].label,
        )
        notice.warning(said, icon="⚠️")
    if turn is not None:
        _round(model, turn, rounds, _game_tag(game, progress.replays), _answer, (game, browser))
    elif score is not None:
        st.markdown(say(PAGE, "game_over", correct=score.correct, rounds=rounds))
    else:
        st.markdown("### Game over")
    if not presenting:
        _reveal(state.last)  # right under the buttons (on a projector, under the chart)
    if chosen["laws"] or turn is None:
        _laws_chart(laws, state, presenting)
    else:
        if presenting:
            _reveal(state.last)
        st.caption(prose_text(PAGE, "laws_hidden"))
    _rules(model)  # inline; folded in presenter mode (the teacher explains them aloud)
    if score is not None:
        _score(model, state, progress.replays)
    else:
        st.caption(say(PAGE, "score_later", certified=_pct(model.certified_accuracy)))
    _again(game, browser, state, chosen)
    if state.answered >= LUCK_AFTER:
        _luck(model, state, chosen["players"])
    if state.answered:
        _history(state)
    _maths_caption(model)


# ---------------------------------------------------------------- class mode
#
# A teacher starts a class from the page's settings; students join at ?class=<code> and play
# its rounds; the answers go to the class storage (appkit.classroom, one Store per process:
# appkit.classui.store). One browser is one player of a class and the teacher of the classes it
# started: the store keeps a digest of the browser's own secret (appkit.internals.browser_id),
# so a second tab continues the same player and a reload or a server restart brings the
# teacher's panel back. The player's key also goes into the student's link
# (?class=<code>&player=<key>): another device comes back to the same player; the page says
# that this link is personal. The teacher's key never appears on the page: a one-time link
# (?teach=<code.key>, 10 minutes) hands the panel to another device deliberately.

TEACHER = "_class_teacher"  # session: the TeacherHandle of the class this session runs
LEFT = "_class_left"  # session: codes of this browser's classes whose panel it left
PLAYERS = "_class_players"  # session: class code -> this session's player key
CLASS_NOTE = "_class_note"  # session: a refusal from a button's callback, shown on the next run
CLASS_REFRESH = classui.DASHBOARD_S  # seconds between two refreshes of the teacher's dashboard
_CONFIDENCE = 0.95
_RUNNING = (classroom.ClassState.OPEN, classroom.ClassState.CLOSED)
_CLASS_STATES = {
    classroom.ClassState.OPEN: "open: students can join and answer",
    classroom.ClassState.CLOSED: "closed: no more joins or answers",
    classroom.ClassState.REVEALED: "revealed: the students see the class picture",
}


def _sentence(exc: Exception) -> str:
    """A storage error's message as text that never acts as Markdown (it may hold a code or a
    nickname from a link)."""
    return appkit.plain(str(exc), max_chars=600)


def _unavailable(exc: Exception) -> None:
    st.warning(say(PAGE, "unavailable", why=_sentence(exc)), icon="⚠️")


def _refused(exc: Exception) -> None:
    st.warning(_sentence(exc), icon="⚠️")


def _link(query: str, origin: str | None = None) -> str:
    """This page's address with ``query``, on the class's public address
    (:func:`appkit.classui.join_origin`) unless ``origin`` is given."""
    base = classui.join_origin()[0] if origin is None else origin
    return f"{base}/{registry.by_key('play').url_path}?{query}"


def _note(text: str) -> None:
    st.session_state[CLASS_NOTE] = text


def _show_note() -> None:
    text = st.session_state.pop(CLASS_NOTE, None)
    if text:
        st.warning(text, icon="⚠️")


def _shown_rounds(shown: int) -> str:
    """Which rounds' truths were shown, in words."""
    return "Round 1 was" if shown == 1 else f"Rounds 1–{shown} were"


def _own_classes() -> tuple[classroom.OwnClass, ...]:
    """The live classes this browser runs as their teacher (none without a browser key, or
    when the storage cannot say)."""
    browser = browser_id()
    if browser is None:
        return ()
    try:
        return classui.store().teacher_classes(browser)
    except classroom.ClassroomError:
        return ()


def _start_class(settings: GameSettings, rounds: int) -> None:
    """ "Start a class": a class of the page's settings and a fresh 63-bit game number (a
    6-digit one could be found from the releases by trying every number, and with it every
    truth), run by this browser."""
    try:
        handle = classui.store().create_class(
            settings, rounds, 1 + secrets.randbelow(classroom.MAX_SEED), device=browser_id()
        )
    except classroom.StorageUnavailable as exc:
        _note(say(PAGE, "class_unavailable", why=_sentence(exc)))
        return
    except classroom.Refused as exc:
        _note(_sentence(exc))
        return
    st.session_state[TEACHER] = handle


def _return_to(handle: classroom.TeacherHandle) -> None:
    st.session_state[TEACHER] = handle
    st.session_state.setdefault(LEFT, set()).discard(handle.code)


def _teacher_action(action: str) -> None:
    handle = st.session_state.get(TEACHER)
    if handle is None:
        return
    try:
        s = classui.store()
        if action == "close":
            s.close(handle.code, handle.teacher_token)
        elif action == "reopen":
            s.reopen(handle.code, handle.teacher_token)
        elif action == "reveal":
            s.reveal(handle.code, handle.teacher_token)
        elif action == "delete":
            s.delete(handle.code, handle.teacher_token)
            del st.session_state[TEACHER]
            _note(say(PAGE, "deleted", code=handle.display_code))
    except classroom.ClassroomError as exc:
        _note(_sentence(exc))


def _leave_class() -> None:
    handle = st.session_state.pop(TEACHER, None)
    if handle is not None:
        st.session_state.setdefault(LEFT, set()).add(handle.code)


def _class_csv(code: str, token: str) -> bytes:
    """The class's answers as CSV (built on click), UTF-8 with a BOM for Excel; while the
    class is open, without the truths."""
    try:
        return classui.store().results_csv(code, token).encode("utf-8-sig")
    except classroom.ClassroomError as exc:
        return f"error\n{exc}\n".encode("utf-8-sig")


def _resume_teacher() -> tuple[classroom.OwnClass, ...] | None:
    """The teacher's panel back in this session: from ``?teach=`` (a hand-over link, taken
    once; it leaves the address bar at once), else, after a reload or a server restart, the
    newest class this browser runs that is open or closed (not one whose panel it left).
    Returns the classes this browser runs when it read them (for the sidebar: one query a
    run), else None."""
    raw = st.query_params.get_all("teach")
    if raw:
        del st.query_params["teach"]
        try:
            handle = classui.store().resume_teacher(str(raw[-1]), device=browser_id())
        except classroom.StorageUnavailable as exc:
            _unavailable(exc)
        except classroom.Refused as exc:
            _refused(exc)
        else:
            _return_to(handle)
        return None
    if st.session_state.get(TEACHER) is not None:
        return None
    left = st.session_state.get(LEFT, set())
    classes = _own_classes()
    for own in classes:
        if own.state in _RUNNING and own.handle.code not in left:
            st.session_state[TEACHER] = own.handle
            break
    return classes


def _class_controls(settings: GameSettings, rounds: int, own=None):
    """The sidebar's "Play as a class": return to a class this browser runs (``own``, when
    this run read them already), start one, or say which one runs; its handle."""
    st.subheader("Play as a class")
    handle = st.session_state.get(TEACHER)
    if handle is not None:
        st.caption(say(PAGE, "running", code=handle.display_code))
        return handle
    own = _own_classes() if own is None else own
    for o in own[:3]:
        st.button(
            f"Return to class {o.handle.display_code}",
            key=f"class_return_{o.handle.code}",
            on_click=_return_to,
            args=(o.handle,),
            type="primary",
            help=say(PAGE, "return_help", state=o.state.value),
        )
    st.button(
        "Start a new class" if own else "Start a class",
        key="class_start",
        on_click=_start_class,
        args=(settings, rounds),
        help=say(PAGE, "start_help", hours=appkit.settings.CLASS_SECONDS / 3600),
    )
    return None


def _class_reading(sc, luck, corrected: float | None, players: int) -> str:
    """One sentence on the best score against the threshold corrected for the class size."""
    best = max((p for p in sc.players if p.answered), key=lambda p: p.accuracy or 0.0)
    accuracy, who = _pct(best.accuracy), _many(players, "player")
    if corrected is None:
        return say(PAGE, "reading_not_yet", best=best, accuracy=accuracy, players=who)
    if best.accuracy > corrected:
        return say(
            PAGE,
            "reading_evidence",
            best=best,
            accuracy=accuracy,
            corrected=_pct(corrected),
            players=who,
            luck=100 * (1 - _CONFIDENCE) / 2,
        )
    side = "above" if best.accuracy > sc.certified_accuracy else "not above"
    return say(
        PAGE,
        "reading_luck",
        best=best,
        accuracy=accuracy,
        side=side,
        certified=_pct(sc.certified_accuracy),
        corrected=_pct(corrected),
        players=who,
        p_any=_prob(luck.p_any),
    )


def _optimal_luck(sc, opt: float, rounds: int) -> str:
    """One sentence on the optimal attacker's score over a finite set of rounds."""
    optimal, over, cert = _pct(opt), _many(rounds, "round"), _pct(sc.certified_accuracy)
    long_run = _pct(sc.optimal_accuracy)
    if opt > sc.certified_accuracy:
        return say(
            PAGE, "optimal_above", optimal=optimal, rounds=over, certified=cert, long_run=long_run
        )
    return say(
        PAGE, "optimal_below", optimal=optimal, rounds=over, certified=cert, long_run=long_run
    )


def _counts(view) -> None:
    """How many players the class has and how many guesses they made."""
    c1, c2 = st.columns(2)
    c1.metric("Players", appkit.fmt_count(view.players))
    c2.metric("Guesses so far", appkit.fmt_count(view.guesses))


def _class_picture(res, model, *, key: str, you: int | None = None) -> None:
    """The class's picture: players, guesses, the pooled accuracy beside 1/2 + η and the
    optimal attacker on the same rounds, the distribution of scores with the guarantee, the
    evidence threshold, the optimal attacker and (on a student's phone: ``you``, their player
    number) their own score, and what to read in it."""
    sc = classroom.score_class(res, confidence=_CONFIDENCE, model=model)
    _counts(res.view)
    c3, c4 = st.columns(2)
    pooled, certified = sc.pooled_accuracy, _pct(sc.certified_accuracy)
    help_ = say(PAGE, "class_help", certified=certified)
    c3.metric("The class (every guess)", "–" if pooled is None else _pct(pooled), help=help_)
    guesses = [c.answers for c in res.per_round]
    total = sum(guesses)
    opt = (
        sum(n for n, t, o in zip(guesses, sc.truth, sc.optimal, strict=True) if t == o) / total
        if total
        else None
    )
    c4.metric(
        "Optimal attacker, same rounds",
        "–" if opt is None else _pct(opt),
        help="The Bayes-optimal attacker's answers to the rounds the class answered, weighted "
        "as the class's guesses are.",
    )
    answered = [p for p in sc.players if p.answered]
    if not answered:
        st.caption(prose_text(PAGE, "scores_later"))
        return
    players, rounds, eta = len(answered), max(p.answered for p in answered), model.certified_eta
    luck = appkit.cached(luck_lesson, players, rounds, eta)
    strict = appkit.cached(
        luck_lesson, players, rounds, eta, confidence=1 - (1 - _CONFIDENCE) / players
    )
    corrected = None if strict.alarm_correct is None else strict.alarm_correct / rounds
    mine = next((p for p in sc.players if p.player_id == you and p.answered), None)
    fig, _table = classui.scores_vega(
        sc, corrected=corrected, optimal=opt, you=None if mine is None else mine.accuracy
    )
    # no CSV in the footer: the dashboard refreshes on its own (the teacher has the class's CSV)
    appkit.chart(fig, None, "class_scores", key=key, caption=prose_text(PAGE, "scores_caption"))
    if mine is not None:
        scored = _pct(mine.correct / mine.answered)
        st.caption(say(PAGE, "you_scored", you=mine, accuracy=scored))
    appkit.takeaway(_class_reading(sc, luck, corrected, players))
    if opt is not None:
        st.caption(_optimal_luck(sc, opt, sum(1 for n in guesses if n)))


def _closed_results(code: str, token: str, _state, _players: int, _guesses: int):
    """The class's results once it is closed or revealed (nothing changes then): read once per
    state, number of players and of guesses, whoever refreshes (:func:`appkit.cached`)."""
    return classui.store().results(code, token)


@st.fragment(run_every=CLASS_REFRESH)
def _dashboard(code: str, token: str) -> None:
    """The teacher's live numbers, refreshed every CLASS_REFRESH seconds on their own (the
    teacher's controls are outside: a refresh never reruns them). While the class plays, a
    refresh reads two counts in one query; once it is closed, the class's answers are read and
    scored once, not at every refresh."""
    try:
        view = classui.store().teacher_view(code, token)  # one query: the key, the counts
        if view.state is not classroom.ClassState.OPEN:
            res = appkit.cached(
                _closed_results, code, token, view.state, view.players, view.guesses
            )
    except classroom.StorageUnavailable as exc:
        _unavailable(exc)
        return
    except classroom.Refused as exc:
        _refused(exc)
        return
    st.caption(say(PAGE, "class_state", state=_CLASS_STATES[view.state], refresh=CLASS_REFRESH))
    if view.state is classroom.ClassState.OPEN:
        # A projected accuracy that moves after one student's answer gives that round's truth
        # away to the room: while the class plays, the panel counts only.
        _counts(view)
        st.caption(prose_text(PAGE, "dashboard_open"))
        return
    _class_picture(res, appkit.cached(game_model, view.settings), key="class_dashboard_scores")


@st.dialog("Open this panel on another device")
def _hand_over(handle: classroom.TeacherHandle) -> None:
    """A one-time link (and its QR code) that opens the teacher's panel on another device."""
    try:
        link = _link(f"teach={classui.store().handoff(handle.code, handle.teacher_token)}")
    except classroom.ClassroomError as exc:
        _refused(exc)
        return
    st.warning(prose_text(PAGE, "hand_over"), icon="🔒")
    st.text(link)
    st.image(segno.make(link, error="m").svg_inline(scale=4, border=2), width=200)


def _teacher_buttons(handle, view) -> None:
    """Close (or reopen), reveal, the CSV, the hand-over and delete: one row at the top of
    the panel, on the first screen of a projector."""
    with st.container(horizontal=True, key="class_controls"):
        if view is not None and view.state is classroom.ClassState.CLOSED:
            st.button("Reopen the class", on_click=_teacher_action, args=("reopen",))
        else:
            st.button(
                "Close the class",
                on_click=_teacher_action,
                args=("close",),
                disabled=view is None or not view.is_open,
                help="No more joins or answers; each student sees the truths of the rounds "
                "they answered (you can reopen: those rounds are then skipped).",
            )
        st.button(
            "Reveal",
            on_click=_teacher_action,
            args=("reveal",),
            disabled=view is None or view.state is classroom.ClassState.REVEALED,
            help="Close the class for good and show the students the class picture.",
        )
        st.download_button(
            "Download results (CSV)",
            functools.partial(_class_csv, handle.code, handle.teacher_token),
            file_name=f"class-{handle.code}.csv",
            mime="text/csv",
            on_click="ignore",
            key="class_csv",
            help="Every answer. While the class is open, without the truths: a file opened "
            "in front of the room would tell them.",
        )
        if st.button("Open on another device…", key="class_hand_over"):
            _hand_over(handle)
        with st.popover("Delete the class…", key="class_delete"):
            hours = appkit.settings.CLASS_SECONDS / 3600
            st.markdown(say(PAGE, "delete_confirm", code=handle.display_code, hours=hours))
            st.button(
                f"Yes, delete class {handle.display_code}",
                on_click=_teacher_action,
                args=("delete",),
                type="primary",
            )


def _teacher(handle) -> None:
    """The teacher's panel: its buttons first, then the join link, its QR code and the code,
    then the dashboard."""
    st.subheader(f"Class {handle.display_code}")
    try:
        view = classui.store().teacher_view(handle.code, handle.teacher_token)
    except classroom.ClassroomError:
        view = None
    _teacher_buttons(handle, view)
    origin, warning = classui.join_origin()
    url = _link(f"class={handle.code}", origin)
    if warning:
        st.warning(warning, icon="📵")
    qr_col, text_col = st.columns([1, 2])
    with qr_col:
        st.image(segno.make(url, error="m").svg_inline(scale=6, border=2), width=220)
    with text_col:
        prose(PAGE, "join_phone")
        st.text(url)
        st.markdown(f"**Class code: {handle.display_code}**")
    with st.container(key="class_dashboard"):
        _dashboard(handle.code, handle.teacher_token)
    st.button("Back to the single game (the class keeps running)", on_click=_leave_class)


def _class_answer(code: str, token: str, index: int, said_in: bool) -> None:
    """A student's tap on round ``index``: stored once; a second tap, or one for a round no
    longer shown, is not counted, with a word."""
    try:
        done = classui.store().answer(code, token, index, said_in)
    except classroom.StorageUnavailable as exc:
        _note(say(PAGE, "not_stored", why=_sentence(exc)))
    except classroom.Refused as exc:
        _note(say(PAGE, "not_counted", why=_sentence(exc)))
    else:
        if isinstance(done, classroom.Duplicate):
            _note(say(PAGE, "answered_twice_class", round=index + 1, said=_said(done.said_in)))


def _student_round(mine, state, model, code: str, token: str) -> None:
    """The heading of a student's game: the round to answer, or why there is none."""
    done = _many(state.answered, "answer")
    if mine.state is not classroom.ClassState.OPEN:
        if state.answered == mine.rounds:
            st.markdown(say(PAGE, "all_answered", rounds=mine.rounds))
        else:
            st.markdown(say(PAGE, "closed_after", answers=done))
    elif state.turn is not None:
        _round(model, state.turn, mine.rounds, code.lower(), _class_answer, (code, token))
        if mine.skipped:
            went, shown = "go on" if state.answered else "start", _shown_rounds(mine.truths_shown)
            st.caption(say(PAGE, "skipped", shown=shown, went=went, round=state.turn.index + 1))
    elif state.answered == mine.rounds:
        st.markdown(say(PAGE, "all_answered", rounds=mine.rounds))
    else:
        shown = _shown_rounds(mine.truths_shown).lower()
        st.markdown(say(PAGE, "none_left", answers=done, shown=shown))


def _student_game(s, mine, code: str, token: str) -> None:
    """A joined student's rounds, sealed while the class is open; the class picture after
    "Reveal"."""
    st.markdown(say(PAGE, "you_play", nickname=appkit.quote(mine.nickname, max_chars=80)))
    st.caption(prose_text(PAGE, "player_link"))
    _show_note()
    model = appkit.cached(game_model, mine.settings)
    laws = appkit.cached(release_laws, model)
    upto = mine.rounds if mine.next_round is None else mine.next_round
    drawn = appkit.cached(draw_rounds, model, mine.seed, mine.rounds)  # once for the class
    state = appkit.cached(
        game_state, model, mine.seed, mine.answers[:upto], mine.rounds, drawn=drawn
    )
    sealed = mine.state is classroom.ClassState.OPEN
    _student_round(mine, state, model, code, token)
    if sealed:
        # The whole class plays the same rounds: a truth shown now could be passed around the
        # room, so answers stay sealed -- nothing sent to this phone tells one -- until the
        # teacher closes the class.
        st.caption(say(PAGE, "recorded", answers=_many(state.answered, "answer").capitalize()))
    else:
        _reveal(state.last)
    if state.turn is not None:
        _laws_chart(laws, state, False, sealed=sealed)
    if state.score is not None and not sealed:
        _score(model, state, 0)
    if mine.state is classroom.ClassState.REVEALED:
        st.subheader("The class")
        try:
            res = s.revealed_results(code)
        except classroom.ClassroomError as exc:
            _refused(exc)
        else:
            _class_picture(res, model, key="class_picture_scores", you=mine.player_id)
    else:
        st.caption(prose_text(PAGE, "class_picture_later"))
        st.session_state[_WATCH_READ] = True  # this run read the class's state just now
        _watch_class(code, token, mine.state)


_WATCH_READ = "_class_watch_read"  # set by the page's run just before it calls _watch_class


@st.fragment(run_every=classui.STUDENT_WATCH_S)
def _watch_class(code: str, token: str, drawn: classroom.ClassState) -> None:
    """Every ``classui.STUDENT_WATCH_S`` seconds a student's page looks at the class's state
    (one query, with the player's key) and reruns when the teacher has closed, reopened,
    revealed or deleted it: the sealed answers, the class picture or the sentence that the
    class is gone appear without a tap or a reload. Draws nothing. Called by the page's own
    run, which has just read the state, it asks nothing (a tap costs one query less)."""
    if st.session_state.pop(_WATCH_READ, False):
        return
    try:
        state = classui.store().player_state(code, token)
    except classroom.StorageUnavailable:
        return  # the page says so at its next run
    except classroom.Refused:
        st.rerun()  # deleted (or expired): the page says so now
    if state is not drawn:
        st.rerun()


def _join_form(s, view, browser: str | None):
    """The join form of an open class (Enter on a phone's keyboard joins); the new player's
    handle once joined, else None."""
    form = st.empty()
    with form.container():
        with st.form("class_join_form", border=False):
            nickname = st.text_input(
                "Your nickname", max_chars=s.limits.nickname_chars, key="class_nickname"
            )
            joined = st.form_submit_button("Join", key="class_join", type="primary")
        caption = say(PAGE, "join_caption", rounds=view.rounds)
        if view.truths_shown:
            shown = _shown_rounds(view.truths_shown)
            caption += " " + say(PAGE, "join_skipped", shown=shown, round=view.truths_shown + 1)
        st.caption(caption)
    if not joined:
        return None
    try:
        handle = s.join(view.code, nickname, device=browser, client=classui.client_key())
    except classroom.Refused as exc:
        _refused(exc)
        return None
    form.empty()
    return handle


def _known_player(s, code: str, browser: str | None):
    """(key, view) of the player this session, its link or its browser already is in class
    ``code``, or (None, None). A stale key is dropped with a sentence."""
    tokens = st.session_state.setdefault(PLAYERS, {})
    token = tokens.get(code)
    linked = st.query_params.get_all("player")
    if token is None and linked:
        token = str(linked[-1])
    if token is not None:
        try:
            return token, s.player_view(code, token)
        except classroom.Refused as exc:
            _refused(exc)
            tokens.pop(code, None)
            if "player" in st.query_params:
                del st.query_params["player"]
    if browser is not None:
        back = s.rejoin(code, browser)  # a second tab of the join link: the same player
        if back is not None:
            return back.player_token, s.player_view(code, back.player_token)
    return None, None


def _student(raw_code: str) -> bool:
    """The student's view of ``?class=``; False if the storage is unreachable (the page then
    shows the single game). A player (their key in the session, the link or the browser) is
    never refused for wrong codes tried in the room; only a new visitor's code is looked up
    under the limit (per browser)."""
    s = classui.store()
    browser = browser_id()
    try:
        code = classroom.normalize_code(raw_code)
    except classroom.Refused as exc:
        _refused(exc)
        return True
    try:
        token, mine = _known_player(s, code, browser)
        if mine is None:
            view = s.class_view(code, client=classui.client_key())
            st.subheader(f"Class {view.display_code}")
            if not view.is_open:
                st.info(prose_text(PAGE, "class_closed"))
                return True
            handle = _join_form(s, view, browser)
            if handle is None:
                return True
            token, mine = handle.player_token, s.player_view(code, handle.player_token)
        else:
            st.subheader(f"Class {classroom.display_code(code)}")
    except classroom.StorageUnavailable as exc:
        _unavailable(exc)
        return False
    except classroom.Refused as exc:
        _refused(exc)
        return True
    st.session_state.setdefault(PLAYERS, {})[code] = token
    if st.query_params.get("player") != token:
        st.query_params["player"] = token
    _student_game(s, mine, code, token)
    return True


# ---------------------------------------------------------------- the page


def _live() -> None:
    """The live part: a student's class (``?class=``), else the teacher's settings and the
    single game or the teacher's class panel."""
    with main:
        appkit.messages()
    raw_class = st.query_params.get_all("class")
    if raw_class:
        with main:
            try:
                in_class = _student(str(raw_class[-1]))
            except classroom.StorageUnavailable as exc:
                _unavailable(exc)
                in_class = False
        if in_class:
            with settings_area:
                st.caption(prose_text(PAGE, "class_settings"))
            return
    own = None
    with main:
        try:
            own = _resume_teacher()
        except classroom.StorageUnavailable as exc:
            _unavailable(exc)
    with settings_area:
        notice = st.empty()  # a game in progress: what a change of setting does to it
        settings, chosen = _controls()
        handle = _class_controls(settings, chosen["rounds"], own)
    with main:
        _show_note()
        if handle is not None:
            _teacher(handle)
        else:
            _game(settings, chosen, notice)


page = appkit.page(PAGE)
st.html(_BIG + (_PRESENTER if appkit.presenter() else ""))
keys = appkit.cached(Path.read_text, _KEYS, encoding="utf-8")  # read once
st.html(f"<script>\n{keys}</script>", unsafe_allow_javascript=True)

with st.sidebar:
    st.subheader("Teacher: game settings")
    settings_area = page.slot()  # the teacher's widgets: live
    st.caption(prose_text(PAGE, "keys"))
main = page.slot()  # the round, the reveal, the rules, the score, the luck lesson: live

maths_caption = None  # this game's numbers, drawn by the live part while the maths is open
with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")
        maths_caption = st.empty()  # this game's numbers

appkit.live(page, _live)
