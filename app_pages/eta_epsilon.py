"""How private is an (ε, δ) guarantee against a membership attacker?

Theorem 4 (DP ⇒ MIP, tight), its inverse, and the ROC picture of Theorem 8 (corrected) beside
the (ε, δ)-DP hypothesis-testing region. Every number is a formula of :mod:`mipcore.bounds`,
evaluated here (microseconds, no caching); the charts, which follow the sliders on every step,
are drawn by Vega-Lite (:mod:`mipcore.plots.bounds_vega`). The controls are the table
:data:`CONTROLS`; every sentence with a number is a template of ``eta_epsilon.md``.
"""

from __future__ import annotations

import math

import streamlit as st

import appkit
from appkit import controls, fmt_num, fmt_pct
from appkit.controls import number, slider, toggle
from appkit.prose import prose, say
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
LOG_DELTA_RANGE = (-12.0, -1.0)  # log10 δ slider
REFERENCE_DELTAS = bounds_vega.REFERENCE_DELTAS  # the reference curves of the η(ε) chart
REF_FPR = 1e-3  # the "low false-positive rate" at which the page compares DP and MIP
GOOD_APPROX = 0.01  # the rule of thumb is "good" below this relative error, "fair" below 10×
_MODE_KEY = "_eta_epsilon_prev_logd"  # plain session keys (not widgets): survive mode switches
_DELTA_KEY = "_eta_epsilon_last_delta"
PAGE = "eta_epsilon"

CONTROLS = controls.table(
    slider("eps", "ε (privacy loss)", 0.0, EPS_MAX, 1.0, 0.01, "%.2f", "Smaller ε = stronger privacy. ε = 0 means the output ignores any single record."),
    toggle("logd", "log scale for δ", False, "Pick δ by its order of magnitude, from 10⁻¹² to 10⁻¹."),
    slider("ldelta", "log₁₀ δ", *LOG_DELTA_RANGE, -5.0, 0.01, "%.2f", "δ = 10 to the power of this value. Switch the log scale off to choose δ = 0."),
    slider("delta", "δ (chance the ε guarantee fails)", 0.0, 0.5, 0.0, 0.001, "%.3f", "δ = 0 is pure ε-DP. Typical deployments use δ far below 1/n: switch on the log scale to choose such a δ."),
    number("teta", "target η (largest edge you accept)", 0.0, 0.5, 0.1, 0.001, "%.6f", "For example 0.01: no attacker may be right more than 51 % of the time."),
    toggle("logfpr", "low-FPR view (log axes)", False, "Plot from FPR = 10⁻⁶, on logarithmic axes, to see what happens when the attacker may not err often."),
)  # fmt: skip


def _pct(eta: float) -> str:
    """The best attacker's accuracy 1/2 + η in %, never rounding the edge away."""
    if eta == 0:
        return "50 %"
    if eta < 5e-4:
        return f"50 % + {fmt_num(100 * eta, 3)} percentage points"
    if 0.5 - eta < 5e-4:
        return f"100 % − {fmt_num(100 * (0.5 - eta), 3)} percentage points"
    return fmt_pct(attacker_accuracy(eta))


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
        appkit.warn(say(PAGE, "tiny_delta", delta=d))
        lg = LOG_DELTA_RANGE[0]
    del st.query_params["delta"]
    st.query_params["logd"] = "1"
    st.query_params["ldelta"] = repr(lg)
    for key in ("logd", "ldelta", "delta"):
        st.session_state.pop(key, None)


page = appkit.page(PAGE)
prose(PAGE, "intro")
main = page.slot()
appkit.takeaway(prose_text(PAGE, "takeaway"))
appkit.explain(prose_text(PAGE, "explain"))
second = page.slot()
st.subheader("The other way round: which ε certifies a target η?")
inverse_area = page.slot()
advantage_slot = None  # the advantage at this ε, drawn by the live part while the maths is open
with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")
        advantage_slot = st.empty()


def _delta_control() -> float:
    """The δ control: a linear slider, or one for log₁₀ δ; δ carried across a switch."""
    log_delta = controls.draw(CONTROLS["logd"])
    # Carry δ across a switch of the δ control (the hidden widget's state is dropped by Streamlit).
    prev_mode, last_delta = st.session_state.get(_MODE_KEY), st.session_state.get(_DELTA_KEY)
    if prev_mode is not None and prev_mode != log_delta and last_delta is not None:
        if log_delta:
            lg = math.log10(last_delta) if last_delta > 0 else LOG_DELTA_RANGE[0]
            lo, hi = LOG_DELTA_RANGE
            st.session_state["ldelta"] = min(max(round(lg, 2), lo), hi)
        else:
            st.session_state["delta"] = min(round(last_delta, 3), CONTROLS["delta"].hi)
    if log_delta:
        delta = float(10.0 ** controls.draw(CONTROLS["ldelta"]))
        st.caption(say(PAGE, "delta_shown", delta=delta))
        stale = "delta"
    else:
        delta = controls.draw(CONTROLS["delta"])
        if round(delta, 3) != delta:  # from a link, between the slider's steps
            st.caption(say(PAGE, "delta_rounded", delta=delta))
        stale = "ldelta"
    if stale in st.query_params:  # keep shared links unambiguous: one δ parameter at a time
        del st.query_params[stale]
    st.session_state[_MODE_KEY] = log_delta
    st.session_state[_DELTA_KEY] = delta
    return delta


def _rule_quality(epsilon: float, eta: float, approx: float) -> tuple[float, str | None]:
    """The rule of thumb's error relative to η (0 when η = 0) and its quality: None at ε = 0,
    where it is exact, else "good" below 1 %, "fair" below 10 %, "poor" from 10 % on."""
    relative = (approx - eta) / eta if eta > 0 else 0.0
    if epsilon == 0:
        return relative, None
    if relative < GOOD_APPROX:
        return relative, "good"
    return relative, "fair" if relative < 10 * GOOD_APPROX else "poor"


def _metrics(epsilon: float, eta: float, approx: float) -> None:
    (m1, m2), (m3, m4) = st.columns(2), st.columns(2)  # 2 × 2: values never cut at 1024 px
    m1.metric("η (edge)", fmt_num(eta), help=say(PAGE, "eta_help", advantage=2.0 * eta))
    accuracy = attacker_accuracy(eta)
    m2.metric("best accuracy", _pct_short(eta), help=say(PAGE, "accuracy_help", accuracy=accuracy))
    m3.metric("small-ε rule", fmt_num(approx), help="The rule of thumb η ≈ δ/2 + (1−δ)ε/4.")
    relative, quality = _rule_quality(epsilon, eta, approx)
    quality_help = (
        "exact at ε = 0"
        if quality is None
        else say(PAGE, "quality", relative=100 * relative, quality=quality)
    )
    error_help = say(PAGE, "error_help", quality=quality_help)
    m4.metric("approximation error", fmt_num(approx - eta, 3), help=error_help)


def _reading(epsilon: float, delta: float, eta: float, approx: float, setting: str) -> None:
    """What this (ε, δ) means in one sentence, and how good the rule of thumb is here."""
    if eta == 0:
        reading = say(PAGE, "reading_nothing", setting=setting)
    else:
        reading = say(PAGE, "reading", setting=setting, accuracy=_pct(eta))
    if delta > 0:
        reading += " " + say(PAGE, "reading_delta", eta=eta, half_delta=delta / 2)
    st.markdown(reading)
    relative, quality = _rule_quality(epsilon, eta, approx)
    if quality is not None:
        above = " (it even exceeds 1/2, the largest possible η)." if approx > 0.5 else "."
        st.caption(
            say(PAGE, "rule", approx=approx, relative=100 * relative, quality=quality, above=above)
        )


def _roc(epsilon: float, delta: float, eta: float, setting: str) -> None:
    """The ROC bounds of DP, of MIP and of Theorem 8 as printed, and what they say."""
    log_fpr = controls.draw(CONTROLS["logfpr"])
    with appkit.guard("The ROC bounds"):
        # The title stays the same while ε moves (the chart is then redrawn in place, not
        # rebuilt); the setting is in the caption.
        fig, data = appkit.cached(
            bounds_vega.roc_vega, epsilon, delta, log_axes=log_fpr, extra_fpr=(REF_FPR,)
        )
        caption = say(PAGE, "roc_caption", setting=setting, eta=eta)
        appkit.chart(fig, data, "roc_bounds", key="roc_chart", caption=caption)
    tpr_dp = tpr_bound_dp(REF_FPR, epsilon, delta)  # the DP region (Kairouz, Oh, Viswanath)
    tpr_mip = tpr_bound_mip(REF_FPR, eta)  # Theorem 8 corrected: FPR + 2η
    times = " " + say(PAGE, "times", ratio=tpr_mip / tpr_dp) if 0 < tpr_dp < tpr_mip else ""
    appkit.takeaway(
        say(PAGE, "roc_takeaway", fpr=REF_FPR, tpr_dp=tpr_dp, tpr_mip=tpr_mip, times=times)
    )
    hint = " Turn on the low-FPR view to see this regime." if not log_fpr else ""
    dp0, mip0 = tpr_bound_dp(0.0, epsilon, delta), tpr_bound_mip(0.0, eta)
    kink = dp_region_kink(epsilon, delta)
    appkit.explain(
        say(PAGE, "roc_explain", dp0=dp0, mip0=mip0, kink=kink, accuracy=_pct(eta), hint=hint)
    )
    printed = tpr_bound_mip(REF_FPR, eta, as_printed=True)
    st.info(say(PAGE, "printed", fpr=REF_FPR, printed=printed, tpr_mip=tpr_mip), icon="ℹ️")


def _inverse(target: float, delta: float) -> None:
    """Which ε certifies the target η at this δ (Theorem 4 inverted), or why none does."""
    if target >= 0.5:  # no guarantee: every ε, even ∞, "certifies" it
        st.warning(prose_text(PAGE, "no_guarantee"))
    elif 2.0 * target < delta:  # below δ/2 (not target < δ/2: δ/2 may underflow)
        st.warning(say(PAGE, "below_delta", delta=delta, target=target, half_delta=delta / 2))
    else:
        epsilon = epsilon_from_eta(target, delta)
        rule = epsilon_small_eta_approx(target, delta)  # the rule of thumb inverted
        verdict = (
            "exact here."
            if epsilon == rule
            else "safe, but smaller than the ε you may actually use."
        )
        st.markdown(
            say(
                PAGE,
                "inverse",
                delta=delta,
                epsilon=epsilon,
                target=target,
                accuracy=_pct(target),
                rule=rule,
                verdict=verdict,
            )
        )


def _advantage(eta: float) -> None:
    """The advantage form of the bound, inside the open maths section."""
    assert advantage_slot is not None
    mace = eta_from_epsilon(1.0)  # MACE's example: advantage ≤ tanh(1/2) = 2η(1, 0)
    advantage_slot.markdown(
        say(PAGE, "advantage", advantage=2.0 * eta, mace=2.0 * mace, mace_accuracy=0.5 + mace)
    )


def _live() -> None:
    with main:
        appkit.messages()
        _tiny_delta_link()
        c_eps, c_delta = st.columns(2)
        with c_eps:
            epsilon = controls.draw(CONTROLS["eps"])
        with c_delta:
            delta = _delta_control()
        results = st.container()
        with inverse_area:
            target = controls.draw(CONTROLS["teta"])
            inverse_box = st.container()
        with appkit.guard("η for this (ε, δ)", stop=True):
            eta = eta_from_epsilon(epsilon, delta)  # Theorem 4
            approx = eta_small_epsilon_approx(epsilon, delta)  # its small-ε rule of thumb
        and_delta = " " + say(PAGE, "and_delta", delta=delta) if delta > 0 else ""
        setting = say(PAGE, "setting", epsilon=epsilon, and_delta=and_delta)
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
