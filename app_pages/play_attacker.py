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
"""

from __future__ import annotations

import secrets
from collections import OrderedDict

import streamlit as st

import appkit
from appkit import fmt_num
from appkit.progress import STORE, Progress, browser_id
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
.st-key-play_in button, .st-key-play_out button { min-height: 4.2rem; }
.st-key-play_in button p, .st-key-play_out button p { font-size: 1.8rem; font-weight: 600; }
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
_KEYS = """<script>
(() => {
  if (window.__mipGameKeys) return;
  window.__mipGameKeys = true;
  const typing = (el) => !!el && (el.tagName === "TEXTAREA" || el.isContentEditable ||
    (el.tagName === "INPUT" &&
     !["checkbox", "radio", "range", "button", "submit"].includes((el.type || "").toLowerCase())));
  window.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    const button = [...document.querySelectorAll(
      e.key === "ArrowLeft" ? ".st-key-play_in button" : ".st-key-play_out button")]
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
    second tab, counts once)."""
    mine = _session_games().get(game, Progress())
    if browser:
        _keep(game, STORE.answer(browser, game, index, said_in, start=mine.answers))
    elif len(mine.answers) == index:
        _keep(game, Progress((*mine.answers, said_in), mine.replays))


def _fresh_seed() -> int:
    return 1 + secrets.randbelow(SEED_MAX)


def _new_game(game: str, browser: str | None, fixed: bool) -> None:
    """New rounds (a new game number in the link), or with a fixed game the same rounds again."""
    if not fixed:
        st.query_params["seed"] = str(_fresh_seed())
        return
    if browser:
        _keep(game, STORE.restart(browser, game))
    else:
        mine = _session_games().get(game, Progress())
        _keep(game, Progress((), mine.replays + (1 if mine.answers else 0)))


def _deal() -> None:
    st.query_params["seed"] = str(_fresh_seed())


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


# ---------------------------------------------------------------- widgets

page = appkit.page("play")
st.html(_BIG + (_PRESENTER if appkit.presenter() else ""))
st.html(_KEYS, unsafe_allow_javascript=True)

with st.sidebar:
    st.subheader("Teacher: game settings")
    settings_area = page.slot()  # the teacher's widgets: live
    st.caption("← and → answer the round, also right after you touched a setting here.")
main = page.slot()  # the round, the reveal, the rules, the score, the luck lesson: live

maths_caption = None  # this game's numbers, drawn by the live part while the maths is open
with appkit.folded("The maths") as shown:
    if shown:
        st.markdown(
            "A training half D is drawn with the target x* in it or not (probability 1/2 each). "
            "The release is y = 𝒜(D) + noise with Laplace density f. The two release laws:"
        )
        st.latex(r"p_{\mathrm{in}}(y)=\operatorname*{mean}_{D\ni x^*} f\big(y-\mathcal{A}(D)\big)")
        st.latex(
            r"p_{\mathrm{out}}(y)=\operatorname*{mean}_{D\not\ni x^*} f\big(y-\mathcal{A}(D)\big)"
        )
        st.markdown("The Bayes-optimal attacker (Proposition 2) and its accuracy:")
        st.latex(r"\text{say in} \iff p_{\mathrm{in}}(y) \ge p_{\mathrm{out}}(y)")
        st.latex(
            r"\Pr[\text{right}] = \tfrac12 \int \max\big(p_{\mathrm{in}}, p_{\mathrm{out}}\big)\,dy"
            r" \;\le\; \tfrac12 + \eta"
        )
        st.markdown(
            "With k right out of R rounds, the two-sided Clopper–Pearson interval [L, U] at level "
            "1 − α (the verdict reads it: L above 1/2 + η, L above 1/2, U below 1/2), and the "
            "chance that at least one of P players, each lucky with probability p₁, gets there:"
        )
        st.latex(
            r"L = \mathrm{Beta}^{-1}\big(\tfrac{\alpha}{2};\ k,\ R-k+1\big),\quad "
            r"U = \mathrm{Beta}^{-1}\big(1-\tfrac{\alpha}{2};\ k+1,\ R-k\big)"
        )
        st.latex(r"\Pr[\text{someone}] = 1-(1-p_1)^{P}")
        maths_caption = st.empty()  # this game's numbers


def _verdict(score, cert: float, shown_interval: str, replays: int) -> str:
    """The verdict, in the words of the interval the score shows (``shown_interval``)."""
    conf = round(100 * score.confidence)
    luck = fmt_num((100 - 100 * score.confidence) / 2, 3)
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
        text = (
            "A replay: you have seen the truths of these rounds before, so this score says "
            "nothing about the guarantee. " + text
        )
    return text


def _answers(k: int) -> str:
    return f"{k} answer{'s' if k != 1 else ''}"


def _live() -> None:
    with main:
        appkit.messages()
    with settings_area:
        notice = st.empty()  # a game in progress: what a change of setting does to it
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
            f"Game number {seed} (seed={seed} in the link)"
            + (": the link fixes it." if fixed else ".")
        )
        st.button("Deal a new game number", on_click=_deal, key="play_new_seed")
    with main:
        # ---------------------------------------------------------------- the lesson

        settings = GameSettings(mech, cal, float(level), int(n))
        with appkit.guard("This game", stop=True):
            model = appkit.cached(game_model, settings)
            laws = appkit.cached(play.release_laws, model)
        game = play.game_key(settings, int(seed))
        browser = browser_id()
        progress = _progress(game, browser)
        answers = progress.answers[: int(rounds)]  # a shorter game shows its first rounds
        with appkit.guard("This round", stop=True):
            state = appkit.cached(play.play_state, model, int(seed), answers, int(rounds))
        score, turn, last = state.score, state.turn, state.last
        cert = model.certified_accuracy
        presenting = appkit.presenter()

        if 0 < state.answered < int(rounds):
            a = state.answered
            notice.warning(
                f"**A game is in progress ({_answers(a)}).** Changing the "
                f"mechanism, the noise, {level_name} or n starts a new game: your answers are put "
                "aside, and come back when you set it back. A new game number drops them.",
                icon="⚠️",
            )

        # ---------------------------------------------------------------- the round

        if turn is not None:
            st.markdown(
                f"### Round {turn.index + 1} of {rounds} — release y\u00a0=\u00a0"
                f"{fmt_num(turn.release, 4)}"
            )
            st.caption(f"Target record: {_target_name(model)}. In the training half, or out?")
            with st.container(horizontal=True, key="play_buttons"):
                st.button(
                    "In",
                    key="play_in",
                    shortcut="Left",
                    type="primary",
                    width="stretch",
                    on_click=_answer,
                    args=(game, browser, turn.index, True),
                    help="The target was in the training half (key ←).",
                )
                st.button(
                    "Out",
                    key="play_out",
                    shortcut="Right",
                    type="primary",
                    width="stretch",
                    on_click=_answer,
                    args=(game, browser, turn.index, False),
                    help="The target was not in the training half (key →).",
                )
        else:
            st.markdown(
                f"### Game over: {score.correct} of {rounds} right" if score else "### Game over"
            )

        # ---------------------------------------------------------------- the reveal of the last round

        def reveal() -> None:
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

        if not presenting:
            reveal()  # right under the buttons (on a projector, under the chart)

        if show_laws or turn is None:
            fig, table = appkit.cached(
                game_vega.laws_vega,
                laws,
                turn,
                last,
                state.history,
                height=game_vega.PRESENTER_HEIGHT if presenting else game_vega.LAWS_HEIGHT,
            )
            appkit.chart(
                fig,
                table,
                "release_laws",
                key="play_laws",
                caption="Black line: this round's release. Dotted line and diamonds: the last round's "
                "release and its two densities. Ticks on the axis: the past releases (a bar where the "
                "target was in, a cross where it was out).",
            )
            if presenting:
                reveal()
            appkit.takeaway(
                "The optimal attacker answers whichever curve is higher at the release; where the "
                "curves overlap, even it must guess."
            )
        else:
            if presenting:
                reveal()
            st.caption(
                "The teacher has hidden the two release laws: you see the release and the target "
                "only. They appear when the game is over."
            )

        _rules(model)  # inline; folded in presenter mode (the teacher explains them aloud)

        # ---------------------------------------------------------------- the score

        if score is not None:
            st.subheader("Score")
            lo, hi = score.interval
            conf = round(100 * score.confidence)
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
            appkit.takeaway(_verdict(score, cert, shown_interval, progress.replays))
            luck = fmt_num((100 - 100 * score.confidence) / 2, 3)
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
        else:
            st.caption(f"Your score appears after the first answer. The guarantee: {_pct(cert)}.")

        # ---------------------------------------------------------------- a new game, away from In/Out

        again, why = st.columns([1, 2], vertical_alignment="center")
        again.button(
            "Replay this game" if fixed else "New game",
            key="play_new_game",
            on_click=_new_game,
            args=(game, browser, fixed),
            width="stretch",
        )
        pending = 0 < state.answered < int(rounds)
        if fixed:
            text = (
                f"The link fixes the game (number {seed}): a replay deals the same rounds again, "
                "whose truths you have seen."
            )
            if pending:
                text += f" It clears your {_answers(state.answered)}."
        else:
            text = "New rounds, under a new game number in the link."
            if pending:
                text += f" Your {_answers(state.answered)} to this game will be dropped."
        why.caption(text)

        # ---------------------------------------------------------------- luck in a class

        if state.show_luck:
            luck_l = appkit.cached(luck_lesson, int(players), state.answered, model.certified_eta)
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

        # ---------------------------------------------------------------- every round, the maths

        if state.answered:
            h = state.history
            with st.expander(f"Every round so far ({state.answered})"):
                appkit.tables.table(
                    {
                        "round": list(h.index + 1),
                        "release": [fmt_num(v, 4) for v in h.release],
                        "target was": ["in" if v else "out" for v in h.member],
                        "you said": ["in" if v else "out" for v in h.answer],
                        "optimal said": ["in" if v else "out" for v in h.optimal],
                    },
                    right=["round", "release"],
                )

    if maths_caption is None:
        return
    maths_caption.caption(
        f"Here: noise scale b = {fmt_num(model.noise.scale, 4)}, sensitivity Δ = "
        f"{fmt_num(model.sensitivity, 4)}, spread σ = {fmt_num(model.sigma, 4)}, "
        f"guaranteed η = {fmt_num(model.certified_eta, 6)}, exact η of this target = "
        f"{fmt_num(model.optimal_eta, 6)}. Definition 1 and Proposition 2 of Izzo, Yoon, "
        "Arık and Zou, Provable Membership Inference Privacy (TMLR 2024, arXiv:2211.06582)."
    )


appkit.live(page, _live)
