"""MIP Explorer: entry point (``streamlit run app.py``).

Builds ``st.navigation`` from the page registry (:mod:`appkit.registry`), grouped by the
question a visitor brings, draws the presenter-mode toggle every page shares, and holds the
home page.
"""

from __future__ import annotations

import secrets
from typing import NamedTuple
from urllib.parse import urlencode

import streamlit as st

import appkit
from appkit import controls, registry
from appkit.controls import slider
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.bounds import attacker_accuracy, epsilon_from_eta, eta_from_epsilon
from mipcore.plots.home_vega import accuracy_bars

AUDIENCES = (
    (
        "Someone asked you “what does ε = 1 mean for our people?”",
        "what_eps_means",
        "A guarantee as a picture of 100 people, and a sentence you can repeat in a meeting.",
    ),
    (
        "You teach a class about privacy",
        "play",
        "Let the class play the attacker against the guarantee (arrow keys on a projector), then "
        "run thousands of games on the audit page; presenter mode is in the sidebar.",
    ),
    (
        "You have a privacy guarantee or a DP-SGD run",
        "risk_calculator",
        "Any guarantee in attacker terms: accuracy, TPR at low false-positive rates, every "
        "conversion route side by side.",
    ),
    (
        "You have a statistic of your own",
        "wrap",
        "Release it with MIP noise and with DP noise, side by side.",
    ),
    (
        "You read the paper",
        "noise_vs_eta",
        "Every figure and claim of the paper, recomputed, with what does and does not hold.",
    ),
)


class LessonStep(NamedTuple):
    """One stop of the 50-minute class: minutes, the page, its settings, a question to ask."""

    minutes: int
    page: str  # a registry key
    params: dict[str, str]  # the page's link settings (presenter mode is added to every link)
    question: str


#: "Teach a 50-minute class": the order of the pages and the question to put to the room.
LESSON: tuple[LessonStep, ...] = (
    LessonStep(
        4,
        "home",
        {},
        "A coin flip is right half the time. How far above 50 % would an attacker have to get "
        "before you worried about your own record?",
    ),
    LessonStep(
        12,
        "play",
        {"eps": "1", "rounds": "20", "fixed": "1"},
        "Every student plays the same 20 rounds. Who beat the guarantee — and with a whole "
        "class trying, was it skill or luck?",
    ),
    LessonStep(
        8,
        "what_eps_means",
        {"eps": "1"},
        "ε = 1, drawn as people, 1 % of them in the data: would you accept it for your own "
        "health record? What changes when half of them are?",
    ),
    LessonStep(
        7,
        "eta_epsilon",
        {},
        "Why does δ put a floor under the attacker's edge that no small ε removes?",
    ),
    LessonStep(
        8,
        "audit",
        {},
        "Thousands of games instead of twenty: what can an audit prove that the class's game "
        "could not?",
    ),
    LessonStep(
        7,
        "noise_vs_eta",
        {},
        "Why can MIP certify the same protection with far less noise than DP here — and when "
        "could it not?",
    ),
    LessonStep(
        4,
        "risk_calculator",
        {},
        "A company says it trains with DP-SGD and ε = 8. Which numbers do you ask it for, and "
        "what do they mean for one person?",
    ),
)

PAGE = "home"  # its prose: app_pages/home.md
#: The home page's one control.
CONTROLS = controls.table(
    slider("eps", "ε, the privacy parameter of a differentially private release", 0.0, 10.0, 1.0, 0.05, "%.2f", "Smaller ε means stronger privacy; ε = 0 means the release ignores every record."),
)  # fmt: skip

_LESSON_SEED = "_lesson_seed"  # session: the game number of this teacher's lesson links
_GAME_SEED_MAX = 999_999  # the game page's largest game number


def _lesson_links() -> tuple[int, dict[str, str]]:
    """This session's game number (drawn once, so the links stay put) and the game's link
    settings with it fixed."""
    seed = st.session_state.setdefault(_LESSON_SEED, 1 + secrets.randbelow(_GAME_SEED_MAX))
    game = next(step for step in LESSON if step.page == "play")
    return seed, {**game.params, "seed": str(seed)}


def _teaching_path() -> None:
    """The teacher's path: the pages in order, a question for each, presenter-mode links."""
    seed, game = _lesson_links()
    with st.expander(f"Teach a {sum(s.minutes for s in LESSON)}-minute class"):
        st.markdown(say(PAGE, "teaching", seed=seed))
        for i, step in enumerate(LESSON, start=1):
            spec = registry.by_key(step.page)
            st.markdown(f"**{i}. {spec.title}** ({step.minutes} min)  \nAsk: *{step.question}*")
            if spec.script is None:
                st.caption(prose_text(PAGE, "this_page"))
                continue
            params = game if step.page == "play" else step.params
            st.page_link(
                spec.script,
                label=f"Open “{spec.label}” in presenter mode",
                icon=spec.icon,
                query_params={**params, "present": "1"},
            )
        try:
            origin = str(st.context.url or "").split("?")[0].rstrip("/")
        except Exception:  # pragma: no cover - outside a browser session (AppTest)
            origin = ""
        prose(PAGE, "students_link")
        st.text(f"{origin}/{registry.by_key('play').url_path}?{urlencode(game)}")


def _legacy_eta_link() -> None:
    """Links made when the home page asked for η (``?eta=0.1``) still open the same view."""
    raw = st.query_params.get("eta")
    if raw is None or "eps" in st.query_params:
        return
    del st.query_params["eta"]
    try:
        eta = float(raw)
        eps = float(epsilon_from_eta(eta)) if 0.0 <= eta < 0.5 else None
    except ValueError:
        eps = None
    if eps is None or not eps <= CONTROLS["eps"].hi:
        appkit.warn(say(PAGE, "legacy_refused", eta=raw))
        return
    step = CONTROLS["eps"].step
    st.query_params["eps"] = f"{round(eps / step) * step:.2f}"
    st.info(say(PAGE, "legacy", eta=eta, eps=eps), icon="ℹ️")


def home() -> None:
    current = appkit.page(PAGE)
    _legacy_eta_link()
    prose(PAGE, "intro")
    live = current.slot()  # the slider, the chart and its sentence: rerun on each move
    st.subheader("Where to start")
    for who, key, why in AUDIENCES:
        spec = registry.by_key(key)
        st.markdown(f"**{who}**: {why}")
        st.page_link(spec.script or "", label=spec.label, icon=spec.icon)
        if key == "play":
            _teaching_path()
    st.caption(prose_text(PAGE, "every_page"))

    def _live() -> None:
        with live:
            eps = controls.draw(CONTROLS["eps"])
            eta = float(eta_from_epsilon(eps))
            acc = float(attacker_accuracy(eta))
            fig, data = appkit.cached(accuracy_bars, acc, f"ε = {appkit.fmt_num(eps, 3)}")
            appkit.chart(fig, data, "attacker_accuracy", key="home_chart")
            if eps == 0:
                appkit.takeaway(prose_text(PAGE, "nothing"))
            else:
                appkit.takeaway(say(PAGE, "reading", eps=eps, accuracy=acc, eta=eta))

    appkit.live(current, _live)


def main() -> None:
    appkit.heap.freeze_imports()  # Streamlit's collection after each run skips the modules
    appkit.internals.coalesce_wakeups()  # one wake-up of the event loop per batch of messages
    st.set_page_config(page_title="MIP Explorer", page_icon="🔐", layout="wide")
    page = st.navigation(appkit.navigation(home), expanded=True)  # every page, no "view more"
    appkit.jobs.warm_up()  # the heavy jobs' fork server, started once per process
    appkit.presenter_toggle()
    with appkit.turns.hold():  # runs compute one at a time by default (appkit.turns)
        page.run()
    # the chart pages' grammar (Altair), loaded while the visitor reads this first page
    appkit.heap.import_soon("altair")


# Streamlit runs this script as __main__. A heavy job's process (appkit.jobs) may be told to
# import it as __mp_main__ when a job starts while a script run holds __main__: it must not
# run the app there.
if __name__ == "__main__":
    main()
