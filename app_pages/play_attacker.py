"""Can you beat the guarantee? Play the attacker of the membership game, round by round.

Each round the app secretly tosses a coin (is the target record in the training half?),
releases a noisy statistic and the player answers "in" or "out" (buttons, or ← and → on
the keyboard). Beside the player's running score: its Clopper–Pearson interval, the best
accuracy any attacker can have (1/2 + η) and the Bayes-optimal attacker on the same rounds.
The teacher's settings and the game number (seed) live in the link, so a whole class plays
the same rounds; "New game" deals a new game number unless the link fixes it (``fixed=1``:
"Replay this game"). The answers never go into the link: they live in the session and, for
a reload, on the server under this browser (:mod:`appkit.progress`).

← and → answer the round whenever the game is on screen, also after a sidebar control was
touched: a small script (:data:`_KEYS`) takes the two keys before any focused control does.

The page's static prose (the maths, fixed captions and sentences) is in ``play_attacker.md``,
drawn through :func:`appkit.prose.prose`; the code writes only sentences that carry numbers.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections import OrderedDict
from typing import NamedTuple

import segno
import streamlit as st

import appkit
from appkit import classroom, classui, fmt_num, registry
from appkit.progress import STORE, Progress, browser_id
from appkit.prose import prose
from appkit.prose import text as prose_text
from mipcore.game import (
    Calibration,
    GameMechanism,
    GameSettings,
    ScoreVerdict,
    game_model,
    luck_lesson,
)
from mipcore.lessons import play
from mipcore.plots import game_vega

SEED_MAX = 999_999
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
# ← and → answer the round whenever the In/Out buttons are on the page. Streamlit's own
# button shortcuts (shortcut="Left"/"Right") listen on the document, so a focused slider
# (its thumb handles the arrow keys itself), radio button or toggle -- a touched sidebar
# setting -- takes the keys first. This listener runs before any of them (window, capture
# phase), answers, and takes the focus off the sidebar control; a held key answers once.
# A text field in the page keeps its arrow keys (the game has none).
#
# One tap, one answer. Each round's buttons have keys of their own (play_in_<game>_<round>),
# so a tap names the round it answers; on the server a second answer to a round changes
# nothing. In the browser, a click (a tap, a mouse click, a key) on a round's buttons is
# dropped with a word when it follows another on the same round within AGAIN_MS (a double
# tap) or comes within ARM_MS of the round's buttons appearing (the second tap of a double
# tap, landing on the next round's button): nobody reads a release in 0.4 s.
_KEYS = """<script>
(() => {
  if (window.__mipGameKeys) return;
  window.__mipGameKeys = true;
  const ARM_MS = 400, AGAIN_MS = 1200;
  const PLAY = '[class*="st-key-play_in_"], [class*="st-key-play_out_"]';
  const seen = new Map(), tapped = new Map();
  const roundOf = (el) => {
    const box = el && el.closest && el.closest(PLAY);
    if (!box) return null;
    const cls = [...box.classList].find((c) => /^st-key-play_(in|out)_/.test(c));
    return cls ? cls.replace(/^st-key-play_(in|out)_/, "") : null;
  };
  const look = () => {
    const now = performance.now();
    document.querySelectorAll(PLAY).forEach((box) => {
      const r = roundOf(box);
      if (r && !seen.has(r)) seen.set(r, now);
    });
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true});
  look();
  const say = (text) => {
    let el = document.getElementById("mip-tap-note");
    if (!el) {
      el = document.createElement("div");
      el.id = "mip-tap-note";
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      Object.assign(el.style, {position: "fixed", left: "50%", top: "0.8rem",
        transform: "translateX(-50%)", zIndex: "1000100", background: "#1a1a1a",
        color: "#ffffff", padding: "0.6rem 1rem", borderRadius: "0.5rem", maxWidth: "90vw",
        font: "600 1rem/1.35 'Source Sans Pro', sans-serif", textAlign: "center",
        boxShadow: "0 2px 10px rgba(0,0,0,0.35)"});
      document.body.appendChild(el);
    }
    el.textContent = text;
    el.style.display = "block";
    clearTimeout(el.hideTimer);
    el.hideTimer = setTimeout(() => { el.style.display = "none"; }, 3500);
  };
  window.addEventListener("click", (e) => {
    const button = e.target && e.target.closest ? e.target.closest("button") : null;
    const r = button ? roundOf(button) : null;
    if (!r) return;
    const now = performance.now();
    const last = tapped.get(r);
    let why = null;
    if (last !== undefined && now - last < AGAIN_MS) {
      why = "One tap, one answer: that second tap was not counted.";
    } else if (now - (seen.has(r) ? seen.get(r) : now) < ARM_MS) {
      why = "Too quick: that tap came as the round appeared, so it was not counted.";
    }
    if (why) {
      e.preventDefault();
      e.stopImmediatePropagation();
      say(why);
      return;
    }
    tapped.set(r, now);
  }, true);
  const typing = (el) => !!el && (el.tagName === "TEXTAREA" || el.isContentEditable ||
    (el.tagName === "INPUT" &&
     !["checkbox", "radio", "range", "button", "submit"].includes((el.type || "").toLowerCase())));
  window.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    const side = e.key === "ArrowLeft" ? "in" : "out";
    const button = [...document.querySelectorAll(`[class*="st-key-play_${side}_"] button`)]
      .find((b) => b.getBoundingClientRect().width > 0);  // Streamlit keeps a hidden copy
    if (!button) return;
    const el = document.activeElement;
    const inSidebar = !!(el && el.closest && el.closest('[data-testid="stSidebar"]'));
    if (!inSidebar && typing(el)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    if (inSidebar) el.blur();
    if (!e.repeat && !button.disabled) button.click();
  }, true);
})();
</script>"""

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


def _pct(p: float) -> str:
    """An accuracy in %, with enough digits that 99.99 % never shows as 100 %."""
    if 0.5 < p < 1.0 and 1.0 - p < 5e-4:
        return f"{fmt_num(100 * p, 6)} %"
    return appkit.fmt_pct(p)


def _prob(p: float) -> str:
    """A probability in %, never rounded to a false 0 % or 100 % (luck never reaches 100 %;
    a float 1.0 here is 1 − something below 10⁻¹⁶)."""
    if 0.0 < p < 0.001:
        return "less than 0.1 %"
    if p > 0.999:
        return "more than 99.9 %"
    return appkit.fmt_pct(p)


def _said(answer: bool) -> str:
    return "in" if answer else "out"


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def _answers(k: int) -> str:
    return f"{k} answer{'s' if k != 1 else ''}"


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
        _note(f"Round {index + 1} was already answered: that second tap was not counted.")


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
        limit = appkit.fmt_count(SEED_MAX)
        appkit.warn(
            f"The link set seed={appkit.plain(text, max_chars=40)}, which is not a game number "
            f"(a whole number from 0 to {limit}); dealing a new game instead."
        )
    value = _fresh_seed()
    st.query_params["seed"] = str(value)
    return value


# ---------------------------------------------------------------- the sidebar


class Chosen(NamedTuple):
    """What the sidebar's controls chose for the single game."""

    settings: GameSettings
    level_name: str
    rounds: int
    players: int
    show_laws: bool
    fixed: bool
    seed: int


def _controls() -> Chosen:
    """The sidebar's game settings, the game number and its button."""
    mech = appkit.url_select(
        "Mechanism",
        "mech",
        list(GameMechanism),
        default=GameMechanism.MEAN,
        widget="radio",
        horizontal=False,
        format_func=MECH_NAMES.get,
    )
    cal = appkit.url_select(
        "Noise set",
        "cal",
        list(Calibration),
        default=Calibration.EPSILON,
        widget="radio",
        horizontal=False,
        format_func=CAL_NAMES.get,
    )
    if cal is Calibration.EPSILON:
        level = appkit.url_slider(
            "ε", "eps", min_value=0.1, max_value=10.0, default=1.0, step=0.1, format="%.1f"
        )
        stale, level_name = "eta", "ε"
    else:
        level = appkit.url_slider(
            "η", "eta", min_value=0.01, max_value=0.49, default=0.1, step=0.01, format="%.2f"
        )
        stale, level_name = "eps", "η"
    if stale in st.query_params:  # one privacy level in a link at a time
        del st.query_params[stale]
    n = appkit.url_slider(
        "Records n", "n", min_value=4, max_value=12, default=8, step=2, validate=_even
    )
    rounds = appkit.url_slider(
        "Rounds in a game", "rounds", min_value=10, max_value=200, default=30, step=5
    )
    players = appkit.url_slider(
        "Players in the class",
        "players",
        min_value=2,
        max_value=300,
        default=30,
        help="For the luck lesson shown after 20 rounds.",
    )
    show_laws = appkit.url_toggle(
        "Show the player the two release laws",
        "laws",
        default=True,
        help="What the attacker of the definition knows. Off: release and target only "
        "(the laws appear when the game is over).",
    )
    fixed = appkit.url_toggle(
        "Same game for the whole class",
        "fixed",
        default=False,
        help="Fixes the game number in the link (fixed=1): everyone who opens the link "
        "plays the same rounds, and “New game” becomes “Replay this game”. Share the link "
        "from “Link to this view” at the bottom of the page.",
    )
    seed = _seed_from_link()
    st.caption(
        f"Game number {seed} (seed={seed} in the link)" + (": the link fixes it." if fixed else ".")
    )
    st.button("Deal a new game number", on_click=_deal, key="play_new_seed")
    return Chosen(
        GameSettings(mech, cal, float(level), int(n)),
        level_name,
        int(rounds),
        int(players),
        show_laws,
        fixed,
        int(seed),
    )


# ---------------------------------------------------------------- a game's parts (single and class)


def _target_name(model) -> str:
    if model.settings.mechanism is GameMechanism.MEAN:
        return f"the canary, {fmt_num(model.target_value, 4)}"
    return f"the record {fmt_num(model.target_value, 4)}"


def _rules(model) -> None:
    """How the game works, with the numbers of ``model``'s setting."""
    s = model.settings
    n = s.n
    if s.mechanism is GameMechanism.MEAN:
        rest = model.records[:-1]
        release_rule = (
            f"the mean of a random half ({n // 2} of {n} records: {n - 1} between "
            f"{fmt_num(rest.min(), 3)} and {fmt_num(rest.max(), 3)}, and the canary)"
        )
    else:
        release_rule = (
            f"1/(sum of a random half) of {n} records (1, 2, 4, …, "
            f"{fmt_num(model.records[-2], 6)} and A = {fmt_num(model.records[-1], 4)})"
        )
    if s.calibration is Calibration.EPSILON:
        noise_rule = f"Laplace noise of scale Δ/ε = {fmt_num(model.noise.scale, 4)}"
        promise = f"ε = {fmt_num(s.level, 3)} (differential privacy)"
    else:
        noise_rule = f"Laplace noise of scale c·σ = {fmt_num(model.noise.scale, 4)} (Theorem 9)"
        promise = f"η = {fmt_num(s.level, 3)} (membership inference privacy)"
    appkit.explain(
        f"Each round the app secretly flips a coin: is the target record, {_target_name(model)}, "
        f"in the training half? The release is {release_rule}, plus {noise_rule}. Click "
        f"**In** or **Out** (or press ← or →). With {promise}, nobody can be right more than "
        f"**{_pct(model.certified_accuracy)}** of the time in the long run: that is the "
        "guarantee to beat.",
        label="How the game works",
    )


def _round(model, turn, rounds: int, game: str, on_answer, args: tuple) -> None:
    """The round to answer: its heading, the target and the In/Out buttons, which call
    ``on_answer(*args, turn.index, said_in)``. The buttons' keys name ``game`` and the round
    (``play_in_<game>_<round>``): a tap answers the round whose buttons it hit, never the next
    one (a callback's arguments are those of its own button), and the page's script drops a
    second tap (:data:`_KEYS`)."""
    st.markdown(
        f"### Round {turn.index + 1} of {rounds} — release y\u00a0=\u00a0{fmt_num(turn.release, 4)}"
    )
    st.caption(f"Target record: {_target_name(model)}. In the training half, or out?")
    tag = f"{game}_{turn.index}"
    with st.container(horizontal=True, key="play_buttons"):
        st.button(
            "In",
            key=f"play_in_{tag}",
            shortcut="Left",
            type="primary",
            width="stretch",
            on_click=on_answer,
            args=(*args, turn.index, True),
            help="The target was in the training half (key ←).",
        )
        st.button(
            "Out",
            key=f"play_out_{tag}",
            shortcut="Right",
            type="primary",
            width="stretch",
            on_click=on_answer,
            args=(*args, turn.index, False),
            help="The target was not in the training half (key →).",
        )


def _game_tag(*parts: object) -> str:
    """A short name of one game for its buttons' keys (letters and digits)."""
    return hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=4).hexdigest()


def _reveal(last) -> None:
    """The last answered round, revealed: its truth, the player's and the optimal answer."""
    if last is None:
        return
    truth, opt = _said(last.member), _said(last.optimal_guess)
    other = _said(not last.optimal_guess)
    ratio = game_vega.times_text(last.log10_ratio)
    if ratio == "1":
        why = "the release is as likely with the target in as out, so it said in (its tie rule)"
    else:
        why = f"this release is {ratio} times as likely with the target {opt} as {other}"
    appkit.takeaway(
        f"Round {last.index + 1} was {truth}: you said {_said(last.answer)} "
        f"{_mark(last.correct)}, and the optimal attacker said {opt} "
        f"{_mark(last.optimal_correct)}, because {why}."
    )


def _laws_chart(laws, state, presenting: bool, *, sealed: bool = False) -> None:
    """The two release laws with this round's release; on a projector the last round's
    reveal under it. ``sealed`` (a class that plays): this round's release only, nothing of
    the past rounds (their marks would tell their truths)."""
    turn, last = state.turn, state.last
    fig, table = appkit.cached(
        game_vega.laws_vega,
        laws,
        turn,
        None if sealed else last,
        state.history,
        height=game_vega.PRESENTER_HEIGHT if presenting else game_vega.LAWS_HEIGHT,
        sealed=sealed,
    )
    appkit.chart(
        fig,
        table,
        "release_laws",
        key="play_laws",
        caption=prose_text("play", "laws_sealed") if sealed else prose_text("play", "laws_caption"),
    )
    if presenting:
        _reveal(last)
    appkit.takeaway(prose_text("play", "laws_takeaway"))


def _score(model, state, replays: int) -> None:
    """The player's score: metrics, the score chart, the verdict and how it works."""
    score = state.score
    cert = model.certified_accuracy
    st.subheader("Score")
    lo, hi = score.interval
    conf, luck = _level(score)
    shown_interval = f"{_pct(lo)} – {_pct(hi)}"
    r1, r2 = st.columns(2)
    r1.metric(f"You: {score.correct} of {score.rounds}", _pct(score.accuracy))
    r2.metric(f"{conf} % interval", shown_interval)
    r3, r4 = st.columns(2)
    r3.metric(
        "Guarantee, 1/2 + η",
        _pct(cert),
        help="Nobody is right more often in the long run. The exact best on this mechanism: "
        f"{_pct(model.optimal_accuracy)}.",
    )
    r4.metric(
        f"Optimal attacker: {score.optimal_correct} of {score.rounds}",
        _pct(score.optimal_correct / score.rounds),
        help="The Bayes-optimal attacker's answers on the same rounds.",
    )
    fig, table = appkit.cached(game_vega.score_vega, score, state.optimal_interval)
    appkit.chart(
        fig,
        table,
        "score",
        key="play_score",
        caption=f"After {score.rounds} round{'s' if score.rounds != 1 else ''}; the bars are "
        f"{conf} % intervals.",
    )
    appkit.takeaway(_verdict(score, cert, shown_interval, replays))
    appkit.explain(
        (
            f"The {conf} % interval is Clopper–Pearson's: intervals built this way contain the "
            f"player's long-run accuracy at least {conf} % of the time. The verdict reads this "
            f"one interval: entirely above {_pct(cert)} (beating the guarantee), above 50 % "
            "(beating coin flips), below 50 % (doing worse than coin flips: flip the answers), "
            f"or around 50 %; each claim is wrong by luck at most {luck} % of the time. The "
            f"optimal attacker knows the two release laws and answers the likelier one; in the "
            f"long run it is right **{_pct(model.optimal_accuracy)}** of the time, the most any "
            f"attacker can reach on this mechanism (the guarantee allows {_pct(cert)}). A player "
            f"right exactly {_pct(cert)} of the time would score {score.correct} or more out of "
            f"{score.rounds} with probability {_prob(score.p_value)}."
        ),
        label="How the interval and the verdict work",
    )


def _level(score) -> tuple[int, str]:
    """The level of the score's interval in %, and how often (in %) one of the verdict's
    claims is wrong by luck at most."""
    return round(100 * score.confidence), fmt_num((100 - 100 * score.confidence) / 2, 3)


def _verdict(score, cert: float, shown_interval: str, replays: int) -> str:
    """The verdict, in the words of the interval the score shows (``shown_interval``)."""
    conf, luck = _level(score)
    itv = f"Your {conf} % interval, {shown_interval},"
    if score.verdict is ScoreVerdict.ABOVE_CERTIFIED:
        text = (
            f"{itv} lies above {_pct(cert)}: evidence of beating the guarantee — which a correct "
            f"guarantee lets one player reach by luck at most {luck} % of the time."
        )
    elif score.verdict is ScoreVerdict.ABOVE_CHANCE:
        text = (
            f"{itv} lies above 50 %: evidence that you beat coin flips, but not that you beat "
            f"{_pct(cert)}."
        )
    elif score.verdict is ScoreVerdict.BELOW_CHANCE:
        flo, fhi = score.flipped_interval
        flipped = score.flipped_correct
        text = (
            f"{itv} lies below 50 %: as informative as beating the coin. Flipping every answer "
            f"would have scored {flipped} of {score.rounds} ({_pct(flipped / score.rounds)}, "
            f"interval {_pct(flo)} – {_pct(fhi)}): your answers do tell in from out, read "
            "backwards. The flipped strategy is an attacker too, bounded by the same guarantee: "
            f"flipped or not, nobody is right more than {_pct(cert)} of the time in the long run."
        )
        if flo > cert:
            text += (
                f" Flipped, the interval lies above {_pct(cert)}: evidence of beating the "
                f"guarantee — which a correct guarantee allows by luck at most {luck} % of the time."
            )
    else:
        text = f"{itv} contains 50 %: no evidence yet that you beat a coin, or do worse than one."
    if replays:
        text = prose_text("play", "replay") + " " + text
    return text


def _again(game: str, browser: str | None, state, c: Chosen) -> None:
    """A new game (or a replay of a fixed one), away from In/Out, with what it does."""
    rounds, seed, fixed = c.rounds, c.seed, c.fixed
    again, why = st.columns([1, 2], vertical_alignment="center")
    again.button(
        "Replay this game" if fixed else "New game",
        key="play_new_game",
        on_click=_new_game,
        args=(game, browser, fixed),
        width="stretch",
    )
    pending = 0 < state.answered < rounds
    if fixed:
        text = (
            f"The link fixes the game (number {seed}): a replay deals the same rounds again, "
            "whose truths you have seen."
        )
        if pending:
            text += f" It clears your {_answers(state.answered)}."
    else:
        text = prose_text("play", "new_game")
        if pending:
            text += f" Your {_answers(state.answered)} to this game will be dropped."
    why.caption(text)


def _luck(model, state, players: int) -> None:
    """Luck in a class: why the best score of many players is no evidence."""
    luck_l = appkit.cached(luck_lesson, players, state.answered, model.certified_eta)
    st.subheader(f"Luck in a class of {luck_l.players}")
    if luck_l.exceed_correct is None:
        appkit.takeaway(
            f"No score can be above {_pct(luck_l.accuracy)}: with η = 1/2 the guarantee "
            "promises nothing, so there is nothing to beat."
        )
    else:
        appkit.takeaway(
            f"If {luck_l.players} players each play {luck_l.rounds} rounds, each right "
            f"{_pct(luck_l.accuracy)} of the time (the most the guarantee allows), someone "
            f"scores above {_pct(luck_l.accuracy)} with probability {_prob(luck_l.p_any)} — "
            "by luck alone."
        )
        if luck_l.alarm_correct is None:
            alarm = (
                f"With {luck_l.rounds} rounds no score is evidence of beating the guarantee: "
                f"even {luck_l.rounds} of {luck_l.rounds} has an interval reaching below it."
            )
        else:
            alarm = (
                f"The interval is the honest test: {luck_l.alarm_correct} of {luck_l.rounds} "
                f"or more would be evidence. Luck gets a given player there with probability "
                f"{_prob(luck_l.p_alarm_one)}, but someone in the class with "
                f"probability {_prob(luck_l.p_alarm_any)}."
            )
        appkit.explain(
            f"Each player alone beats {_pct(luck_l.accuracy)} by luck with probability "
            f"{_prob(luck_l.p_one)}; the best of {luck_l.players} is expected to score "
            f"{_pct(luck_l.expected_best_accuracy)}. So the top score in a class is no "
            "evidence. " + alarm,
            label="Why the top score is no evidence",
        )


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
    if maths_caption is None:
        return
    maths_caption.caption(
        f"Here: noise scale b = {fmt_num(model.noise.scale, 4)}, sensitivity Δ = "
        f"{fmt_num(model.sensitivity, 4)}, spread σ = {fmt_num(model.sigma, 4)}, "
        f"guaranteed η = {fmt_num(model.certified_eta, 6)}, exact η of this target = "
        f"{fmt_num(model.optimal_eta, 6)}. " + prose_text("play", "maths_source")
    )


# ---------------------------------------------------------------- the single game


def _game(c: Chosen, notice) -> None:
    """The single game: the round, the reveal, the laws, the rules, the score and the rest."""
    rounds = c.rounds
    with appkit.guard("This game", stop=True):
        model = appkit.cached(game_model, c.settings)
        laws = appkit.cached(play.release_laws, model)
    game = play.game_key(c.settings, c.seed)
    browser = browser_id()
    progress = _progress(game, browser)
    answers = progress.answers[:rounds]  # a shorter game shows its first rounds
    with appkit.guard("This round", stop=True):
        state = appkit.cached(play.play_state, model, c.seed, answers, rounds)
    score, turn, last = state.score, state.turn, state.last
    presenting = appkit.presenter()

    if 0 < state.answered < rounds:
        notice.warning(
            f"**A game is in progress ({_answers(state.answered)}).** Changing the "
            f"mechanism, the noise, {c.level_name} or n starts a new game: your answers are put "
            "aside, and come back when you set it back. A new game number drops them.",
            icon="⚠️",
        )
    if turn is not None:
        tag = _game_tag(game, progress.replays)
        _round(model, turn, rounds, tag, _answer, (game, browser))
    else:
        st.markdown(
            f"### Game over: {score.correct} of {rounds} right" if score else "### Game over"
        )
    if not presenting:
        _reveal(last)  # right under the buttons (on a projector, under the chart)
    if c.show_laws or turn is None:
        _laws_chart(laws, state, presenting)
    else:
        if presenting:
            _reveal(last)
        st.caption(prose_text("play", "laws_hidden"))
    _rules(model)  # inline; folded in presenter mode (the teacher explains them aloud)
    if score is not None:
        _score(model, state, progress.replays)
    else:
        cert = _pct(model.certified_accuracy)
        st.caption(f"Your score appears after the first answer. The guarantee: {cert}.")
    _again(game, browser, state, c)
    if state.show_luck:
        _luck(model, state, c.players)
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


def _sentence(exc: Exception) -> str:
    """A storage error's message as text that never acts as Markdown (it may hold a code or a
    nickname from a link)."""
    return appkit.plain(str(exc), max_chars=600)


def _unavailable(exc: Exception) -> None:
    st.warning(
        "Class mode is unavailable right now: "
        + _sentence(exc)
        + " The single-player game below still works.",
        icon="⚠️",
    )


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
        _note("Class mode is unavailable right now: " + _sentence(exc))
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
            _note(f"Class {handle.display_code} is deleted, with every nickname and answer in it.")
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


def _resume_teacher() -> None:
    """The teacher's panel back in this session: from ``?teach=`` (a hand-over link, taken
    once; it leaves the address bar at once), else, after a reload or a server restart, the
    newest class this browser runs that is open or closed (not one whose panel it left)."""
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
        return
    if st.session_state.get(TEACHER) is not None:
        return
    left = st.session_state.get(LEFT, set())
    for own in _own_classes():
        if own.state in _RUNNING and own.handle.code not in left:
            st.session_state[TEACHER] = own.handle
            return


def _class_controls(c: Chosen):
    """The sidebar's "Play as a class": return to a class this browser runs, start one, or
    say which one runs; its handle."""
    st.subheader("Play as a class")
    handle = st.session_state.get(TEACHER)
    if handle is not None:
        st.caption(f"Class {handle.display_code} is running: its panel is in the page.")
        return handle
    own = _own_classes()
    for o in own[:3]:
        st.button(
            f"Return to class {o.handle.display_code}",
            key=f"class_return_{o.handle.code}",
            on_click=_return_to,
            args=(o.handle,),
            type="primary",
            help=f"Your class is {o.state.value}; its panel comes back, with every answer.",
        )
    st.button(
        "Start a new class" if own else "Start a class",
        key="class_start",
        on_click=_start_class,
        args=(c.settings, c.rounds),
        help="Every student plays these settings' rounds on their phone; you see the "
        "class's answers live. The class and its answers are deleted after "
        f"{fmt_num(appkit.settings.CLASS_SECONDS / 3600, 3)} h.",
    )
    return None


def _class_reading(sc, luck_l, corrected: float | None, players: int) -> str:
    """One sentence on the best score against the threshold corrected for the class size."""
    best = max((p for p in sc.players if p.answered), key=lambda p: p.accuracy or 0.0)
    said = f"The best score, {best.correct} of {best.answered} ({_pct(best.accuracy)}),"
    who = f"{players} player{'s' if players != 1 else ''}"
    if corrected is None:
        return (
            f"{said} cannot be evidence yet: with {best.answered} rounds no score passes the "
            f"threshold corrected for {who}."
        )
    if best.accuracy > corrected:
        return (
            f"{said} passes {_pct(corrected)}, the threshold corrected for {who}: evidence "
            "that someone beat the guarantee, which a correct guarantee allows by luck at most "
            f"{fmt_num(100 * (1 - _CONFIDENCE) / 2, 3)}\u00a0% of the time."
        )
    side = "above" if best.accuracy > sc.certified_accuracy else "not above"
    return (
        f"{said} is {side} the guarantee {_pct(sc.certified_accuracy)} but below "
        f"{_pct(corrected)}, the threshold corrected for {who}: no evidence — luck alone "
        f"lifts someone in such a class above {_pct(sc.certified_accuracy)} with probability "
        f"{_prob(luck_l.p_any)}."
    )


def _optimal_luck(sc, opt: float, rounds: int) -> str:
    """One sentence on the optimal attacker's score over a finite set of rounds."""
    cert, long_run = _pct(sc.certified_accuracy), _pct(sc.optimal_accuracy)
    over = f"{rounds} round{'s' if rounds != 1 else ''}"
    if opt > sc.certified_accuracy:
        return (
            f"The optimal attacker scored {_pct(opt)} on these {over}, above the guarantee's "
            f"{cert}: a finite set of rounds is a sample, and luck lifts any score above its "
            f"long-run accuracy, the optimal attacker's too. In the long run it is right "
            f"{long_run} of the time, and the guarantee holds every attacker to {cert}."
        )
    return (
        f"The optimal attacker scored {_pct(opt)} on these {over}; luck moves every score "
        f"over a finite set of rounds. In the long run it is right {long_run} of the time, and "
        f"the guarantee holds every attacker to {cert}."
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
    pooled = sc.pooled_accuracy
    c3.metric(
        "The class (every guess)",
        "–" if pooled is None else _pct(pooled),
        help=f"Every guess of every player counted. The guarantee, 1/2 + η: "
        f"{_pct(sc.certified_accuracy)}.",
    )
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
        st.caption(prose_text("play", "scores_later"))
        return
    players = len(answered)
    rounds = max(p.answered for p in answered)
    eta = model.certified_eta
    luck_l = appkit.cached(luck_lesson, players, rounds, eta)
    strict = appkit.cached(
        luck_lesson, players, rounds, eta, confidence=1 - (1 - _CONFIDENCE) / players
    )
    corrected = None if strict.alarm_correct is None else strict.alarm_correct / rounds
    mine = next((p for p in sc.players if p.player_id == you and p.answered), None)
    fig, _table = classui.scores_vega(
        sc, corrected=corrected, optimal=opt, you=None if mine is None else mine.accuracy
    )
    appkit.chart(  # no CSV in the footer: the dashboard refreshes on its own (the teacher
        fig,  # has the class's CSV)
        None,
        "class_scores",
        key=key,
        caption=prose_text("play", "scores_caption"),
    )
    if mine is not None:
        st.caption(
            f"You: {mine.correct} of {mine.answered} right ({_pct(mine.correct / mine.answered)})."
        )
    appkit.takeaway(_class_reading(sc, luck_l, corrected, players))
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
    state = {
        classroom.ClassState.OPEN: "open: students can join and answer",
        classroom.ClassState.CLOSED: "closed: no more joins or answers",
        classroom.ClassState.REVEALED: "revealed: the students see the class picture",
    }[view.state]
    st.caption(f"The class is {state}. This panel refreshes every {CLASS_REFRESH} s.")
    if view.state is classroom.ClassState.OPEN:
        # A projected accuracy that moves after one student's answer gives that round's truth
        # away to the room: while the class plays, the panel counts only.
        _counts(view)
        st.caption(prose_text("play", "dashboard_open"))
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
    st.warning(prose_text("play", "hand_over"), icon="🔒")
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
            st.markdown(
                f"Delete class {handle.display_code} with every nickname and answer in it? "
                "This cannot be undone (download the results first if you want them); "
                f"otherwise it is deleted {appkit.settings.CLASS_SECONDS / 3600:g} h after its start."
            )
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
        prose("play", "join_phone")
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
        _note("Your answer could not be stored: " + _sentence(exc))
    except classroom.Refused as exc:
        _note("Your answer was not counted: " + _sentence(exc))
    else:
        if isinstance(done, classroom.Duplicate):
            _note(
                f"Round {index + 1} was already answered ({_said(done.said_in)}): that second "
                "tap was not counted."
            )


def _student_round(mine, state, model, code: str, token: str) -> None:
    """The heading of a student's game: the round to answer, or why there is none."""
    done = _answers(state.answered)
    if mine.state is not classroom.ClassState.OPEN:
        if state.answered == mine.rounds:
            st.markdown(f"### All {mine.rounds} rounds answered")
        else:
            st.markdown(f"### The teacher has closed the class after {done}")
    elif state.turn is not None:
        _round(model, state.turn, mine.rounds, code.lower(), _class_answer, (code, token))
        if mine.skipped:
            went = "go on" if state.answered else "start"
            st.caption(
                f"{_shown_rounds(mine.truths_shown)} shown when the class was closed, so "
                f"nobody answers them any more: you {went} at round {state.turn.index + 1}."
            )
    elif state.answered == mine.rounds:
        st.markdown(f"### All {mine.rounds} rounds answered")
    else:
        st.markdown(
            f"### No round is left for you ({done}): "
            f"{_shown_rounds(mine.truths_shown).lower()} shown when the class was closed"
        )


def _student_game(s, mine, code: str, token: str) -> None:
    """A joined student's rounds, sealed while the class is open; the class picture after
    "Reveal"."""
    st.markdown(f"You play as {appkit.quote(mine.nickname, max_chars=80)}.")
    st.caption(prose_text("play", "player_link"))
    _show_note()
    model = appkit.cached(game_model, mine.settings)
    laws = appkit.cached(play.release_laws, model)
    upto = mine.rounds if mine.next_round is None else mine.next_round
    state = appkit.cached(play.play_state, model, mine.seed, mine.answers[:upto], mine.rounds)
    sealed = mine.state is classroom.ClassState.OPEN
    _student_round(mine, state, model, code, token)
    if sealed:
        # The whole class plays the same rounds: a truth shown now could be passed around the
        # room, so answers stay sealed -- nothing sent to this phone tells one -- until the
        # teacher closes the class.
        recorded = _answers(state.answered).capitalize()
        st.caption(f"{recorded} recorded. " + prose_text("play", "sealed"))
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
        st.caption(prose_text("play", "class_picture_later"))
        _watch_class(code, token, mine.state)


@st.fragment(run_every=classui.STUDENT_WATCH_S)
def _watch_class(code: str, token: str, drawn: classroom.ClassState) -> None:
    """Every ``classui.STUDENT_WATCH_S`` seconds a student's page looks at the class's state
    (one query, with the player's key) and reruns when the teacher has closed, reopened,
    revealed or deleted it: the sealed answers, the class picture or the sentence that the
    class is gone appear without a tap or a reload. Draws nothing."""
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
        shown = view.truths_shown
        st.caption(
            f"{view.rounds} rounds of the game, the same for the whole class. One player per "
            "browser: another tab or a reload continues your game. Your nickname is shown to "
            "your teacher only."
            + (
                f" {_shown_rounds(shown)} shown when the class was closed: you start at round "
                f"{shown + 1}."
                if shown
                else ""
            )
        )
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
                st.info(prose_text("play", "class_closed"))
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
                st.caption(prose_text("play", "class_settings"))
            return
    with main:
        try:
            _resume_teacher()
        except classroom.StorageUnavailable as exc:
            _unavailable(exc)
    with settings_area:
        notice = st.empty()  # a game in progress: what a change of setting does to it
        c = _controls()
        handle = _class_controls(c)
    with main:
        _show_note()
        if handle is not None:
            _teacher(handle)
        else:
            _game(c, notice)


page = appkit.page("play")
st.html(_BIG + (_PRESENTER if appkit.presenter() else ""))
st.html(_KEYS, unsafe_allow_javascript=True)

with st.sidebar:
    st.subheader("Teacher: game settings")
    settings_area = page.slot()  # the teacher's widgets: live
    st.caption(prose_text("play", "keys"))
main = page.slot()  # the round, the reveal, the rules, the score, the luck lesson: live

maths_caption = None  # this game's numbers, drawn by the live part while the maths is open
with appkit.folded("The maths") as shown:
    if shown:
        prose("play", "maths")
        maths_caption = st.empty()  # this game's numbers

appkit.live(page, _live)
