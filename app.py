"""MIP Explorer: entry point (``streamlit run app.py``).

Builds ``st.navigation`` from the page registry (:mod:`appkit.registry`), grouped by the
question a visitor brings, draws the presenter-mode toggle every page shares, and holds the
home page.
"""

from __future__ import annotations

import streamlit as st

import appkit
from appkit import registry
from mipcore.bounds import attacker_accuracy, epsilon_from_eta, eta_from_epsilon
from mipcore.plots.home_figs import accuracy_bars

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
    if eps is None or not eps <= 10.0:
        appkit.warn(
            f"The link set η = {appkit.quote(raw)}; this page now asks for ε, and that η has "
            "no ε between 0 and 10. Showing the default, ε = 1."
        )
        return
    st.query_params["eps"] = f"{round(eps / 0.05) * 0.05:.2f}"
    st.info(
        f"This link gave η = {appkit.fmt_num(eta, 3)}; the home page now asks for ε. "
        f"ε = {appkit.fmt_num(eps, 3)} gives that η (shown rounded to the slider's step).",
        icon="ℹ️",
    )


def home() -> None:
    current = appkit.page("home")
    _legacy_eta_link()
    st.markdown(
        "**Membership inference privacy (MIP)** asks one concrete question about a released "
        "model or statistic: *can an attacker tell whether your record was used?* "
        "The data owner trains on a random half of the dataset; the attacker sees the release "
        "and one record, and guesses “in” or “out”. Guessing blindly is right 50 % of the "
        "time. A release is **η-MIP** when *no* attacker, however clever, is right more than "
        "**50 % + η** of the time. Differential privacy with parameter ε implies MIP with "
        "η = tanh(ε/2)/2; when a statistic's spread is far smaller than its worst-case "
        "sensitivity, MIP can be certified with less noise than DP (the pages show when, "
        "and when not)."
    )
    live = current.slot()  # the slider, the chart and its sentence: rerun on each move
    st.subheader("Where to start")
    for who, key, why in AUDIENCES:
        spec = registry.by_key(key)
        st.markdown(f"**{who}**: {why}")
        st.page_link(spec.script or "", label=spec.label, icon=spec.icon)
    st.caption("Every page is in the sidebar, grouped by the question it answers.")

    def _live() -> None:
        with live:
            eps = appkit.url_slider(
                "ε, the privacy parameter of a differentially private release",
                "eps",
                min_value=0.0,
                max_value=10.0,
                default=1.0,
                step=0.05,
                format="%.2f",
                help="Smaller ε means stronger privacy; ε = 0 means the release ignores every record.",
            )
            eta = float(eta_from_epsilon(eps))
            acc = float(attacker_accuracy(eta))
            fig, data = appkit.cached(accuracy_bars, acc, f"ε = {appkit.fmt_num(eps, 3)}")
            appkit.chart(fig, data, "attacker_accuracy", key="home_chart")
            if eps == 0:
                appkit.takeaway(
                    "With ε = 0 the release ignores every record: no attacker beats a coin flip."
                )
            else:
                appkit.takeaway(
                    f"With ε = {appkit.fmt_num(eps, 3)}, no attacker can tell members from non-members "
                    f"more than {appkit.fmt_pct(acc)} of the time (η = {appkit.fmt_pct(eta)}); "
                    "guessing gets 50 %."
                )

    appkit.live(current, _live)


def main() -> None:
    appkit.heap.freeze_imports()  # Streamlit's collection after each run skips the modules
    st.set_page_config(page_title="MIP Explorer", page_icon="🔐", layout="wide")
    page = st.navigation(appkit.navigation(home), expanded=True)  # every page, no "view more"
    appkit.jobs.warm_up()  # the heavy jobs' fork server, started once per process
    appkit.presenter_toggle()
    page.run()


# Streamlit runs this script as __main__. A heavy job's process (appkit.jobs) may be told to
# import it as __mp_main__ when a job starts while a script run holds __main__: it must not
# run the app there.
if __name__ == "__main__":
    main()
