"""How private is an (ε, δ) guarantee against a membership attacker?

Theorem 4 (DP ⇒ MIP, tight), its inverse, and the ROC picture of Theorem 8 (corrected) beside
the (ε, δ)-DP hypothesis-testing region. Every number is a formula of :mod:`mipcore.bounds`,
evaluated here (microseconds, no caching); the charts, which follow the sliders on every step,
are drawn by Vega-Lite (:mod:`mipcore.plots.bounds_vega`).
"""

from __future__ import annotations

import math

import streamlit as st

import appkit
from appkit import fmt_num, fmt_pct
from appkit.prose import prose
from appkit.prose import text as prose_text
from mipcore.bounds import (
    attacker_accuracy,
    dp_region_kink,
    epsilon_from_eta,
    epsilon_small_eta_approx,
    eta_from_epsilon,
    eta_small_epsilon_approx,
    tpr_bound_dp,
    tpr_bound_mip,
)
from mipcore.plots import bounds_vega

EPS_MAX = 10.0
DELTA_MAX = 0.5  # linear δ slider
DELTA_STEP = 0.001
LOG_DELTA_RANGE = (-12.0, -1.0)  # log10 δ slider
REFERENCE_DELTAS = bounds_vega.REFERENCE_DELTAS  # the reference curves of the η(ε) chart
_MODE_KEY = "_eta_epsilon_prev_logd"  # plain session keys (not widgets): survive mode switches
_DELTA_KEY = "_eta_epsilon_last_delta"
REF_FPR = 1e-3  # the "low false-positive rate" at which the page compares DP and MIP
GOOD_APPROX = 0.01  # the rule of thumb is "good" below this relative error, "fair" below 10×


def _pct(eta: float) -> str:
    """The best attacker's accuracy 1/2 + η in %, never rounding the edge away."""
    accuracy = attacker_accuracy(eta)
    if eta == 0:
        return "50 %"
    if eta < 5e-4:
        return f"50 % + {fmt_num(100 * eta, 3)} percentage points"
    if 0.5 - eta < 5e-4:
        return f"100 % − {fmt_num(100 * (0.5 - eta), 3)} percentage points"
    return fmt_pct(accuracy)


def _pct_short(eta: float) -> str:
    """The same, short enough for a metric at 1024×768 (the sentence gives the details)."""
    shown = fmt_pct(attacker_accuracy(eta))
    if eta > 0 and shown == "50.0 %":
        return "> 50.0 %"
    if eta < 0.5 and shown == "100.0 %":
        return "< 100.0 %"
    return shown


def _tiny_delta_link() -> None:
    """A link whose δ the linear slider cannot show (``?delta=1e-6`` would read 0.000) opens
    the log-δ view with exactly that δ (δ below 10⁻¹² becomes 10⁻¹², said in a sentence)."""
    raw = st.query_params.get("delta")
    if raw is None or st.query_params.get("logd", "").strip().lower() in ("1", "true", "yes", "on"):
        return
    try:
        d = float(raw)
    except ValueError:
        return  # the δ slider refuses it with a sentence
    if not (math.isfinite(d) and 0.0 < d <= 10.0 ** LOG_DELTA_RANGE[1]) or round(d, 3) == d:
        return
    lg = math.log10(d)
    if lg < LOG_DELTA_RANGE[0]:
        appkit.warn(
            f"The link set δ = {fmt_num(d, 3)}, below the smallest δ this page offers "
            f"(10⁻¹²). Showing δ = 10⁻¹² instead, which changes η by less than 10⁻¹²."
        )
        lg = LOG_DELTA_RANGE[0]
    del st.query_params["delta"]
    st.query_params["logd"] = "1"
    st.query_params["ldelta"] = repr(lg)
    for key in ("logd", "ldelta", "delta"):
        st.session_state.pop(key, None)


page = appkit.page("eta_epsilon")
prose("eta_epsilon", "intro")
main = page.slot()
appkit.takeaway(prose_text("eta_epsilon", "takeaway"))
appkit.explain(prose_text("eta_epsilon", "explain"))
second = page.slot()
st.subheader("The other way round: which ε certifies a target η?")
inverse_area = page.slot()
advantage_slot = None  # the advantage at this ε, drawn by the live part while the maths is open
with appkit.folded("The maths") as shown:
    if shown:
        prose("eta_epsilon", "maths")
        advantage_slot = st.empty()


def _delta_control() -> float:
    """The δ control: a linear slider, or one for log₁₀ δ; δ carried across a switch."""
    log_delta = appkit.url_toggle(
        "log scale for δ",
        "logd",
        default=False,
        help="Pick δ by its order of magnitude, from 10⁻¹² to 10⁻¹.",
    )
    # Carry δ across a switch of the δ control (the hidden widget's state is dropped by Streamlit).
    prev_mode, last_delta = st.session_state.get(_MODE_KEY), st.session_state.get(_DELTA_KEY)
    if prev_mode is not None and prev_mode != log_delta and last_delta is not None:
        if log_delta:
            lg = math.log10(last_delta) if last_delta > 0 else LOG_DELTA_RANGE[0]
            lo, hi = LOG_DELTA_RANGE
            st.session_state["ldelta"] = min(max(round(lg, 2), lo), hi)
        else:
            st.session_state["delta"] = min(round(last_delta, 3), DELTA_MAX)
    if log_delta:
        log10_delta = appkit.url_slider(
            "log₁₀ δ",
            "ldelta",
            min_value=LOG_DELTA_RANGE[0],
            max_value=LOG_DELTA_RANGE[1],
            default=-5.0,
            step=0.01,
            format="%.2f",
            help="δ = 10 to the power of this value. Switch the log scale off to choose δ = 0.",
        )
        delta = float(10.0**log10_delta)
        st.caption(f"δ = {fmt_num(delta, 3)}")
        stale = "delta"
    else:
        delta = appkit.url_slider(
            "δ (chance the ε guarantee fails)",
            "delta",
            min_value=0.0,
            max_value=DELTA_MAX,
            default=0.0,
            step=DELTA_STEP,
            format="%.3f",
            help="δ = 0 is pure ε-DP. Typical deployments use δ far below 1/n: "
            "switch on the log scale to choose such a δ.",
        )
        if round(delta, 3) != delta:  # from a link, between the slider's steps
            st.caption(f"δ = {fmt_num(delta, 4)} (the slider shows it rounded)")
        stale = "ldelta"
    if stale in st.query_params:  # keep shared links unambiguous: one δ parameter at a time
        del st.query_params[stale]
    st.session_state[_MODE_KEY] = log_delta
    st.session_state[_DELTA_KEY] = delta
    return delta


def _rule_quality(epsilon: float, eta: float, approx: float) -> tuple[float, str | None]:
    """The rule of thumb's error relative to η (0 when η = 0) and its quality: None at ε = 0,
    where it is exact, else "good" below 1 %, "fair" below 10 %, "poor" from 10 % on."""
    relative = (approx - eta) / eta if eta > 0 else 0.0
    if epsilon == 0:
        return relative, None
    if relative < GOOD_APPROX:
        return relative, "good"
    return relative, "fair" if relative < 10 * GOOD_APPROX else "poor"


def _metrics(epsilon: float, eta: float, approx: float) -> None:
    (m1, m2), (m3, m4) = st.columns(2), st.columns(2)  # 2 × 2: values never cut at 1024 px
    m1.metric(
        "η (edge)",
        fmt_num(eta),
        help="The best attacker's accuracy is 1/2 + η; its membership advantage "
        f"TPR − FPR is 2η = {fmt_num(2.0 * eta)}.",
    )
    m2.metric(
        "best accuracy",
        _pct_short(eta),
        help=f"1/2 + η = {fmt_num(attacker_accuracy(eta), 6)}: no attacker is right more often.",
    )
    m3.metric("small-ε rule", fmt_num(approx), help="The rule of thumb η ≈ δ/2 + (1−δ)ε/4.")
    relative, quality = _rule_quality(epsilon, eta, approx)
    quality_help = (
        "exact at ε = 0"
        if quality is None
        else f"{fmt_num(100 * relative, 3)} % of η: a {quality} approximation"
    )
    m4.metric(
        "approximation error",
        fmt_num(approx - eta, 3),
        help="rule of thumb − exact η; never negative (the rule overestimates), "
        f"about (1−δ)ε³/48 for small ε. Here: {quality_help}.",
    )


def _reading(epsilon: float, delta: float, eta: float, approx: float, setting: str) -> None:
    """What this (ε, δ) means in one sentence, and how good the rule of thumb is here."""
    if eta == 0:
        reading = (
            f"With {setting} the release reveals nothing about membership: "
            "no attacker can beat blind guessing, which is right 50 % of the time."
        )
    else:
        reading = (
            f"With {setting}, no attacker can be right about membership more than "
            f"**{_pct(eta)}** of the time; guessing gets 50 %."
        )
    if delta > 0:
        reading += (
            f" Of the edge η = {fmt_num(eta)}, δ/2 = {fmt_num(delta / 2)} comes from δ "
            "alone: it is as if, with probability δ, the record leaked outright."
        )
    st.markdown(reading)
    relative, quality = _rule_quality(epsilon, eta, approx)
    if quality is not None:
        above = " (it even exceeds 1/2, the largest possible η)." if approx > 0.5 else "."
        st.caption(
            f"The rule of thumb η ≈ δ/2 + (1−δ)ε/4 gives {fmt_num(approx)}, "
            f"{fmt_num(100 * relative, 3)} % above the exact value: "
            f"a {quality} approximation at this ε{above}"
        )


def _roc(epsilon: float, delta: float, eta: float, setting: str) -> None:
    """The ROC bounds of DP, of MIP and of Theorem 8 as printed, and what they say."""
    log_fpr = appkit.url_toggle(
        "low-FPR view (log axes)",
        "logfpr",
        default=False,
        help="Plot from FPR = 10⁻⁶, on logarithmic axes, "
        "to see what happens when the attacker may not err often.",
    )
    with appkit.guard("The ROC bounds"):
        # The title stays the same while ε moves (the chart is then redrawn in place, not
        # rebuilt); the setting is in the caption.
        fig, data = appkit.cached(
            bounds_vega.roc_vega, epsilon, delta, log_axes=log_fpr, extra_fpr=(REF_FPR,)
        )
        appkit.chart(
            fig,
            data,
            "roc_bounds",
            key="roc_chart",
            caption=f"The bounds at {setting}, where η = {fmt_num(eta, 3)}.",
        )
    tpr_dp = tpr_bound_dp(REF_FPR, epsilon, delta)  # the DP region (Kairouz, Oh, Viswanath)
    tpr_mip = tpr_bound_mip(REF_FPR, eta)  # Theorem 8 corrected: FPR + 2η
    times = f" ({fmt_num(tpr_mip / tpr_dp, 3)} times as much)" if 0 < tpr_dp < tpr_mip else ""
    appkit.takeaway(
        f"At a false-positive rate of {fmt_pct(REF_FPR)}, DP caps the true-positive rate at "
        f"{fmt_num(tpr_dp)}, while η-MIP with the same η allows up to "
        f"{fmt_num(tpr_mip)}{times}."
    )
    appkit.explain(
        f"At FPR → 0, DP allows TPR = δ = {fmt_num(tpr_bound_dp(0.0, epsilon, delta), 3)}, MIP "
        f"allows 2η = {fmt_num(tpr_bound_mip(0.0, eta))}: DP's bound is multiplicative "
        "(exp(ε)·FPR + δ), MIP's only additive, so MIP says much less about an attacker who "
        "flags a few records with near certainty. The two boundaries touch once, at "
        f"FPR* = {fmt_num(dp_region_kink(epsilon, delta))} (black diamond), where TPR − FPR = 2η: "
        f"that attacker is right {_pct(eta)} of the time, so Theorem 4 is tight."
        + (" Turn on the low-FPR view to see this regime." if not log_fpr else "")
    )
    st.info(
        "**Theorem 8 as printed (TPR ≤ FPR + η, purple dash-dot) is too strict by a factor "
        "of 2.** Membership has probability 1/2, so an attacker's accuracy is "
        "(1 + TPR − FPR)/2 and η-MIP only gives TPR − FPR ≤ 2η; the proof in Appendix C drops "
        "that factor 1/2. The corrected bound is tight: the blue DP curve belongs to an η-MIP "
        "algorithm (Theorem 4) and crosses the printed line. At this setting, at "
        f"FPR = {fmt_pct(REF_FPR)}, the printed line would allow only "
        f"{fmt_num(tpr_bound_mip(REF_FPR, eta, as_printed=True))} where {fmt_num(tpr_mip)} is "
        "possible.",
        icon="ℹ️",
    )


def _inverse(target: float, delta: float) -> None:
    """Which ε certifies the target η at this δ (Theorem 4 inverted), or why none does."""
    if target >= 0.5:  # no guarantee: every ε, even ∞, "certifies" it
        st.warning(prose_text("eta_epsilon", "no_guarantee"))
    elif 2.0 * target < delta:  # below δ/2 (not target < δ/2: δ/2 may underflow)
        st.warning(
            f"With δ = {fmt_num(delta, 3)} no ε can certify η = {fmt_num(target)}: "
            f"δ alone already gives the attacker an edge of δ/2 = {fmt_num(delta / 2)} "
            "(Theorem 4 at ε = 0). Lower δ or raise the target η."
        )
    else:
        epsilon = epsilon_from_eta(target, delta)
        rule = epsilon_small_eta_approx(target, delta)  # the rule of thumb inverted
        verdict = (
            "exact here."
            if epsilon == rule
            else "safe, but smaller than the ε you may actually use."
        )
        st.markdown(
            f"At δ = {fmt_num(delta, 3)}, every (ε, δ)-DP algorithm with "
            f"**ε ≤ {fmt_num(epsilon)}** is {fmt_num(target)}-MIP: no attacker "
            f"is right more than {_pct(target)} of the time. "
            "A larger ε does not certify it (Theorem 4 is tight). The small-ε rule of thumb "
            f"would say ε ≈ 4(η − δ/2)/(1 − δ) = {fmt_num(rule)}: {verdict}"
        )


def _advantage(eta: float) -> None:
    """The advantage form of the bound, inside the open maths section."""
    assert advantage_slot is not None
    mace_eta = eta_from_epsilon(1.0)  # MACE's example: advantage ≤ tanh(1/2) = 2η(1, 0)
    advantage_slot.markdown(
        "**Advantage = 2η.** The membership advantage TPR − FPR = 2·accuracy − 1 is at most "
        f"2η (here {fmt_num(2.0 * eta)}). MACE (Liu, Xu, Mukherjee, Lavista Ferres, "
        "*MACE: A Flexible Framework for Membership Privacy Estimation in Generative Models*, "
        "arXiv:2009.05683, Theorem 1) states its ε-DP bound at prior 1/2 as an advantage, "
        f"tanh(ε/2): at ε = 1 that is {fmt_num(2.0 * mace_eta, 3)} = 2η, i.e. accuracy ≤ "
        f"{fmt_pct(0.5 + mace_eta)}."
    )


def _live() -> None:
    with main:
        appkit.messages()
        _tiny_delta_link()
        c_eps, c_delta = st.columns(2)
        with c_eps:
            epsilon = appkit.url_slider(
                "ε (privacy loss)",
                "eps",
                min_value=0.0,
                max_value=EPS_MAX,
                default=1.0,
                step=0.01,
                format="%.2f",
                help="Smaller ε = stronger privacy. ε = 0 means the output ignores any single record.",
            )
        with c_delta:
            delta = _delta_control()
        results = st.container()
        with inverse_area:
            target = appkit.url_number(
                "target η (largest edge you accept)",
                "teta",
                min_value=0.0,
                max_value=0.5,
                default=0.1,
                step=0.001,
                format="%.6f",
                help="For example 0.01: no attacker may be right more than 51 % of the time.",
            )
            inverse_box = st.container()
        with appkit.guard("η for this (ε, δ)", stop=True):
            eta = eta_from_epsilon(epsilon, delta)  # Theorem 4
            approx = eta_small_epsilon_approx(epsilon, delta)  # its small-ε rule of thumb
        setting = f"ε = {fmt_num(epsilon)}" + (f" and δ = {fmt_num(delta, 3)}" if delta > 0 else "")
        with results:
            _metrics(epsilon, eta, approx)
            _reading(epsilon, delta, eta, approx, setting)
            with appkit.guard("The η(ε) curves"):
                fig, data = appkit.cached(
                    bounds_vega.eta_epsilon_vega,
                    epsilon,
                    delta,
                    eps_max=EPS_MAX,
                    reference_deltas=REFERENCE_DELTAS,
                )
                appkit.chart(fig, data, "eta_vs_epsilon", key="eta_eps_chart")
        with second:
            _roc(epsilon, delta, eta, setting)
        with inverse_box:
            _inverse(target, delta)
    if advantage_slot is not None:
        _advantage(eta)


appkit.live(page, _live)
