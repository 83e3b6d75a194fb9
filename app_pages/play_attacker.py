"""Can you beat the guarantee? Play the attacker of the membership game, round by round.

Each round the app secretly tosses a coin (is the target record in the training half?),
releases a noisy statistic and the player answers "in" or "out" (buttons, or ← and → on
the keyboard). Beside the player's running score: its Clopper–Pearson interval, the best
accuracy any attacker can have (1/2 + η) and the Bayes-optimal attacker on the same rounds.
The teacher's settings and the game number (seed) live in the link, so a whole class plays
the same rounds; the answers live in the session only.
"""

from __future__ import annotations

import secrets

import streamlit as st

import appkit
from appkit import fmt_num
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
_GAME = "_play_game"  # session: {"key": (settings, seed), "answers": [bool, ...]}
_BIG = """<style>
.st-key-play_in button, .st-key-play_out button { min-height: 4.2rem; }
.st-key-play_in button p, .st-key-play_out button p { font-size: 1.8rem; font-weight: 600; }
</style>"""

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
        return f"{fmt_num(100 * p, 6)} %"
    return appkit.fmt_pct(p)


def _prob(p: float) -> str:
    """A probability in %, never rounded to a false 0 % or 100 % (luck never reaches 100 %;
    a float 1.0 here is 1 − something below 10⁻¹⁶)."""
    if 0.0 < p < 0.001:
        return "less than 0.1 %"
    if p > 0.999:
        return "more than 99.9 %"
    return appkit.fmt_pct(p)


def _said(answer: bool) -> str:
    return "in" if answer else "out"


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


# ---------------------------------------------------------------- session state (answers)


def _game(key: tuple) -> dict:
    """This session's game for ``key`` = (settings, seed): a new one when the key changed."""
    game = st.session_state.get(_GAME)
    if game is None or game["key"] != key:
        game = {"key": key, "answers": []}
        st.session_state[_GAME] = game
    return game


def _answer(key: tuple, index: int, said_in: bool) -> None:
    """A click: counted only for the round it was shown for (a double click counts once)."""
    game = st.session_state.get(_GAME)
    if game is not None and game["key"] == key and len(game["answers"]) == index:
        game["answers"].append(said_in)


def _new_game() -> None:
    st.session_state.pop(_GAME, None)


def _new_seed() -> None:
    st.session_state["seed"] = 1 + secrets.randbelow(SEED_MAX)
    st.session_state.pop(_GAME, None)


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
st.html(_BIG)

with st.sidebar:
    st.subheader("Teacher: game settings")
    settings_area = page.slot()  # the teacher's widgets: live
    st.caption(
        "Changing a setting starts a new game. Share the page's link: same rounds for all. "
        "Then click the page once: a focused slider or option takes the ← → keys."
    )
main = page.slot()  # the rules, the round, the reveal, the score, the luck lesson: live

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
            "With k right out of R rounds, the one-sided Clopper–Pearson lower bound at level "
            "1 − α, and the chance that at least one of P players, each lucky with probability "
            "p₁, gets there:"
        )
        st.latex(r"L = \mathrm{Beta}^{-1}\big(\alpha;\ k,\ R-k+1\big)")
        st.latex(r"\Pr[\text{someone}] = 1-(1-p_1)^{P}")
        maths_caption = st.empty()  # this game's numbers


def _live() -> None:
    with main:
        appkit.messages()
    with settings_area:
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
            stale = "eta"
        else:
            level = appkit.url_slider(
                "η", "eta", min_value=0.01, max_value=0.49, default=0.1, step=0.01, format="%.2f"
            )
            stale = "eps"
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
        seed = appkit.url_number(
            "Game number (seed)", "seed", min_value=0, max_value=SEED_MAX, default=1, step=1
        )
        st.button("Draw a new game number", on_click=_new_seed, key="play_new_seed")
    with main:
        # ---------------------------------------------------------------- the lesson

        settings = GameSettings(mech, cal, float(level), int(n))
        with appkit.guard("This game", stop=True):
            model = appkit.cached(game_model, settings)
            laws = appkit.cached(play.release_laws, model)
        key = (settings, int(seed))
        game = _game(key)
        del game["answers"][int(rounds) :]  # a shorter game keeps its first rounds
        with appkit.guard("This round", stop=True):
            state = appkit.cached(
                play.play_state, model, int(seed), tuple(game["answers"]), int(rounds)
            )
        score, turn, last = state.score, state.turn, state.last
        cert = model.certified_accuracy

        # ---------------------------------------------------------------- the round

        if not appkit.presenter():
            _rules(model)

        head, restart = st.columns([3, 1], vertical_alignment="center")
        if turn is not None:
            head.markdown(f"### Round {turn.index + 1} of {rounds}")
        else:
            head.markdown(
                f"### Game over: {score.correct} of {rounds} right" if score else "### Game over"
            )
        restart.button("New game", on_click=_new_game, key="play_new_game", width="stretch")

        if turn is not None:
            m1, m2 = st.columns(2)
            m1.metric("Release y", fmt_num(turn.release, 4))
            m2.metric(
                "Target record",
                fmt_num(model.target_value, 4),
                help=f"Target: {_target_name(model)}.",
            )
            b_in, b_out = st.columns(2)
            b_in.button(
                "In",
                key="play_in",
                shortcut="Left",
                type="primary",
                width="stretch",
                on_click=_answer,
                args=(key, turn.index, True),
                help="The target was in the training half (key ←).",
            )
            b_out.button(
                "Out",
                key="play_out",
                shortcut="Right",
                type="primary",
                width="stretch",
                on_click=_answer,
                args=(key, turn.index, False),
                help="The target was not in the training half (key →).",
            )

        # ---------------------------------------------------------------- the reveal of the last round

        if last is not None:
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

        if show_laws or turn is None:
            fig, table = appkit.cached(game_vega.laws_vega, laws, turn, last, state.history)
            appkit.chart(
                fig,
                table,
                "release_laws",
                key="play_laws",
                caption="Black line: this round's release. Dotted line and diamonds: the last round's "
                "release and its two densities. Ticks on the axis: the past releases (a bar where the "
                "target was in, a cross where it was out).",
            )
            appkit.takeaway(
                "The optimal attacker answers whichever curve is higher at the release; where the "
                "curves overlap, even it must guess."
            )
        else:
            st.caption(
                "The teacher has hidden the two release laws: you see the release and the target "
                "only. They appear when the game is over."
            )

        if appkit.presenter():
            _rules(model)  # folded: the teacher explains the rules aloud

        # ---------------------------------------------------------------- the score

        if score is not None:
            st.subheader("Score")
            lo, hi = score.interval
            conf = round(100 * score.confidence)
            r1, r2 = st.columns(2)
            r1.metric(f"You: {score.correct} of {score.rounds}", _pct(score.accuracy))
            r2.metric(f"{conf} % interval", f"{_pct(lo)} – {_pct(hi)}")
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
                f"{conf} % intervals.",
            )
            lb = _pct(score.lower_bound)
            if score.verdict is ScoreVerdict.ABOVE_CERTIFIED:
                verdict = (
                    f"Your lower bound, {lb}, is above {_pct(cert)}: that is evidence ({conf} %) of "
                    f"beating the guarantee — which a correct guarantee lets happen only by luck, at "
                    f"most {100 - conf} % of the time."
                )
            elif score.verdict is ScoreVerdict.ABOVE_CHANCE:
                verdict = (
                    f"Your lower bound, {lb}, is above 50 %: evidence that you beat coin flips, "
                    f"but not that you beat {_pct(cert)}."
                )
            else:
                verdict = (
                    f"Your lower bound, {lb}, is not above 50 %: no evidence yet of beating a coin."
                )
            appkit.takeaway(verdict)
            appkit.explain(
                f"The {conf} % interval is Clopper–Pearson's: intervals built this way contain the "
                f"player's long-run accuracy at least {conf} % of the time. The verdict uses the "
                f"one-sided lower bound ({lb}). The optimal attacker knows the two release laws and "
                f"answers the likelier one; in the long run it is right "
                f"**{_pct(model.optimal_accuracy)}** of the time, the most any attacker can reach on "
                f"this mechanism (the guarantee allows {_pct(cert)}). A player right exactly "
                f"{_pct(cert)} of the time would score {score.correct} or more out of {score.rounds} "
                f"with probability {_prob(score.p_value)}.",
                label="How the interval and the verdict work",
            )
        else:
            st.caption(f"Your score appears after the first answer. The guarantee: {_pct(cert)}.")

        # ---------------------------------------------------------------- luck in a class

        if state.show_luck:
            luck = appkit.cached(luck_lesson, int(players), state.answered, model.certified_eta)
            st.subheader(f"Luck in a class of {luck.players}")
            if luck.exceed_correct is None:
                appkit.takeaway(
                    f"No score can be above {_pct(luck.accuracy)}: with η = 1/2 the guarantee "
                    "promises nothing, so there is nothing to beat."
                )
            else:
                appkit.takeaway(
                    f"If {luck.players} players each play {luck.rounds} rounds, each right "
                    f"{_pct(luck.accuracy)} of the time (the most the guarantee allows), someone scores "
                    f"above {_pct(luck.accuracy)} with probability {_prob(luck.p_any)} — by luck alone."
                )
                if luck.alarm_correct is None:
                    alarm = (
                        f"With {luck.rounds} rounds no score is evidence of beating the guarantee: "
                        f"even {luck.rounds} of {luck.rounds} has a lower bound below it."
                    )
                else:
                    alarm = (
                        f"The interval is the honest test: {luck.alarm_correct} of {luck.rounds} or "
                        f"more would be evidence. Luck gets a given player there with probability "
                        f"{_prob(luck.p_alarm_one)}, but someone in the class with "
                        f"probability {_prob(luck.p_alarm_any)}."
                    )
                appkit.explain(
                    f"Each player alone beats {_pct(luck.accuracy)} by luck with probability "
                    f"{_prob(luck.p_one)}; the best of {luck.players} is expected to score "
                    f"{_pct(luck.expected_best_accuracy)}. So the top score in a class is no evidence. "
                    + alarm,
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
