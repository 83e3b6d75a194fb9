"""η and ε: how a differential-privacy guarantee translates into membership inference privacy.

Theorem 4 of ``000_ece03c98c31c7b12.txt`` (DP -> MIP, tight), its inverse, and the
ROC picture of Theorem 8 beside the (ε, δ)-DP hypothesis-testing region.
"""

from __future__ import annotations

import math

import streamlit as st

import appkit
from appkit import fmt_num
from mipcore.bounds import (
    attacker_accuracy,
    epsilon_from_eta,
    eta_from_epsilon,
    eta_small_epsilon_approx,
    tpr_bound_dp,
)
from mipcore.plots.bounds_figs import eta_epsilon_chart, roc_chart

EPS_MAX = 10.0
DELTA_MAX = 0.5  # linear δ slider
LOG_DELTA_RANGE = (-12.0, -1.0)  # log10 δ slider
REFERENCE_DELTAS = (0.0, 1e-5, 1e-3, 1e-2, 0.1)  # the reference curves of the η(ε) chart
REF_FPR = 1e-3  # the "low false-positive rate" the ROC sentence quotes
_MODE_KEY = "_eta_epsilon_prev_logd"  # plain session keys (not widgets): survive mode switches
_DELTA_KEY = "_eta_epsilon_last_delta"


def _pct(eta: float) -> str:
    """The optimal attacker's accuracy 1/2 + η as a percentage that never rounds the edge away."""
    if eta == 0:
        return "50 %"
    if eta < 5e-4:
        return f"50 % + {fmt_num(100 * eta, 3)} percentage points"
    if 0.5 - eta < 5e-4:
        return f"100 % − {fmt_num(100 * (0.5 - eta), 3)} percentage points"
    return f"{100 * (0.5 + eta):.1f} %"


def _delta_text(delta: float) -> str:
    return fmt_num(delta, 3)


page = appkit.page("eta_epsilon")
st.markdown(
    "A differentially private release with parameters **(ε, δ)** is also membership-inference "
    "private: this page shows *how* private, i.e. the largest edge **η** over blind guessing "
    "that any attacker can have (Theorem 4), and what that means for an attacker's true- and "
    "false-positive rates (Theorem 8)."
)

# ---------------------------------------------------------------- controls

c_eps, c_delta = st.columns(2)
with c_eps:
    epsilon = appkit.url_slider(
        "ε (privacy loss of the DP guarantee)",
        "eps",
        min_value=0.0,
        max_value=EPS_MAX,
        default=1.0,
        step=0.01,
        format="%.2f",
        help="Smaller ε = stronger privacy. ε = 0 means the output ignores any single record.",
    )
with c_delta:
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
            help="δ = 10^(this value). Switch the toggle off to choose δ = 0.",
        )
        delta = float(10.0**log10_delta)
        st.caption(f"δ = {_delta_text(delta)}")
        stale = "delta"
    else:
        delta = appkit.url_slider(
            "δ (probability that the ε guarantee may fail)",
            "delta",
            min_value=0.0,
            max_value=DELTA_MAX,
            default=0.0,
            step=0.001,
            format="%.3f",
            help="δ = 0 is pure ε-DP. Typical deployments use δ far below 1/n.",
        )
        stale = "ldelta"
    if stale in st.query_params:  # keep shared links unambiguous: one δ parameter at a time
        del st.query_params[stale]
    st.session_state[_MODE_KEY] = log_delta
    st.session_state[_DELTA_KEY] = delta

# ---------------------------------------------------------------- numbers
with appkit.guard("η for this (ε, δ)", stop=True):
    eta = eta_from_epsilon(epsilon, delta)
    accuracy = attacker_accuracy(eta)
    approx = eta_small_epsilon_approx(epsilon, delta)
approx_err = approx - eta

m1, m2, m3, m4 = st.columns(4)
m1.metric("η (attacker's edge)", fmt_num(eta))
m2.metric("best attacker accuracy 1/2 + η", f"{fmt_num(100 * accuracy, 6)} %")
m3.metric("small-ε approximation δ/2 + (1−δ)ε/4", fmt_num(approx))
m4.metric(
    "approximation error",
    fmt_num(approx_err, 3),
    help="approximation − exact η; always ≥ 0 (the approximation overestimates), "
    "about (1−δ)ε³/48 for small ε.",
)

setting = f"ε = {fmt_num(epsilon)}" + (f" and δ = {_delta_text(delta)}" if delta > 0 else "")
if eta == 0:
    reading = (
        f"With {setting} the release reveals nothing about membership: "
        "no attacker can beat blind guessing, which is right 50 % of the time."
    )
else:
    reading = (
        f"With {setting}, no attacker can be right about membership more than "
        f"**{_pct(eta)}** of the time; guessing gets 50 %."
    )
if delta > 0:
    reading += (
        f" Of the edge η = {fmt_num(eta)}, δ/2 = {fmt_num(delta / 2)} comes from δ alone: "
        "it is as if, with probability δ, the record leaked outright."
    )
st.markdown(reading)
if epsilon > 0:
    rel = approx_err / eta if eta > 0 else 0.0
    quality = "good" if rel < 0.01 else "fair" if rel < 0.1 else "poor"
    st.caption(
        f"The rule of thumb η ≈ δ/2 + (1−δ)ε/4 gives {fmt_num(approx)}, "
        f"{fmt_num(100 * rel, 3)} % above the exact value: a {quality} approximation at this ε"
        + (" (it even exceeds 1/2, the largest possible η)." if approx > 0.5 else ".")
    )

# ---------------------------------------------------------------- charts
c_left, c_right = st.columns(2)
# Both charts come from mipcore's memoised chart functions: a rerun that revisits a
# setting gets the same figure and CSV table back without recomputing or rebuilding.
with c_left, appkit.guard("The η(ε) curves"):
    fig1, data1 = eta_epsilon_chart(
        epsilon, delta, eps_max=EPS_MAX, reference_deltas=REFERENCE_DELTAS
    )
    appkit.chart_with_csv(fig1, data1, "eta_vs_epsilon", key="eta_eps_chart")
    st.markdown(
        "**What to notice:** η grows almost linearly (slope (1−δ)/4) for small ε, then "
        "saturates at 1/2: beyond ε ≈ 5 a DP guarantee says little about membership. "
        "Small δ (10⁻⁵) is indistinguishable from δ = 0 here; δ only matters once it is "
        "comparable to η, because it adds δ/2 to η at every ε. The dashed line is the "
        "small-ε approximation, which always overestimates η."
    )

with c_right:
    log_fpr = appkit.url_toggle(
        "low-FPR view (log–log axes)",
        "logfpr",
        default=False,
        help="Plot from FPR = 10⁻⁶, on logarithmic axes, "
        "to see what happens when the attacker may not err often.",
    )
    f_star = (1.0 - delta) / (1.0 + math.exp(epsilon))  # where the DP boundary's two pieces meet
    with appkit.guard("The ROC bounds"):
        title = (
            f"ROC bounds at ε = {fmt_num(epsilon)}, δ = {_delta_text(delta)}, η = {fmt_num(eta, 3)}"
        )
        fig2, data2 = roc_chart(epsilon, delta, log_axes=log_fpr, title=title, extra_fpr=(REF_FPR,))
        appkit.chart_with_csv(fig2, data2, "roc_bounds", key="roc_chart")
        dp_ref = float(tpr_bound_dp(REF_FPR, epsilon, delta))
        mip_ref = min(1.0, REF_FPR + 2.0 * eta)
        times = f" ({fmt_num(mip_ref / dp_ref, 3)} times as much)" if dp_ref > 0 else ""
        st.markdown(
            f"**What to notice:** at a false-positive rate of {fmt_num(100 * REF_FPR)} %, DP "
            f"caps the true-positive rate at **{fmt_num(dp_ref)}** (e^ε·FPR + δ), while η-MIP "
            f"with the same η = {fmt_num(eta)} allows up to **{fmt_num(mip_ref)}**{times}. "
            f"At FPR → 0 DP allows TPR = δ = {_delta_text(delta)}, MIP allows 2η = "
            f"{fmt_num(2 * eta)}: DP's bound is multiplicative, MIP's only additive, so MIP says "
            "much less about an attacker who flags a few records with near certainty. "
            f"The two boundaries touch once, at FPR = {fmt_num(f_star)} (black diamond), where "
            f"TPR − FPR = 2η: that attacker is right {_pct(eta)} of the time, "
            "so Theorem 4 is tight."
            + (" Turn on the low-FPR view to see this regime." if not log_fpr else "")
        )
    st.info(
        "**Theorem 8 as printed (TPR ≤ FPR + η, dashed) is too strict by a factor of 2.** "
        "Membership has probability 1/2, so an attacker's accuracy is (1 + TPR − FPR)/2 and "
        "η-MIP only gives TPR − FPR ≤ 2η; the proof in Appendix C drops that factor 1/2. "
        "The corrected bound is tight: the blue DP curve belongs to an η-MIP algorithm "
        "(Theorem 4) and crosses the dashed line. Randomised response that reports "
        "membership truthfully with probability 1/2 + η has TPR = 1/2 + η and FPR = 1/2 − η.",
        icon="ℹ️",
    )

# ---------------------------------------------------------------- inverse
st.subheader("The other way round: which ε certifies a target η?")
target = appkit.url_number(
    "target η (the largest attacker edge you accept)",
    "teta",
    min_value=0.0,
    max_value=0.5,
    default=0.1,
    step=0.001,
    format="%.6f",
    help="For example 0.01: no attacker may be right more than 51 % of the time.",
)
if target >= 0.5:
    st.warning(
        "η = 1/2 is no guarantee at all (an attacker may always be right), so every ε, "
        "even ε = ∞, 'certifies' it. Choose a target η below 1/2."
    )
elif target < delta / 2:
    st.warning(
        f"With δ = {_delta_text(delta)} no ε can certify η = {fmt_num(target)}: δ alone already "
        f"gives the attacker an edge of δ/2 = {fmt_num(delta / 2)} (Theorem 4 at ε = 0). "
        "Lower δ or raise the target η."
    )
else:
    with appkit.guard("ε for this target η"):
        eps_needed = epsilon_from_eta(target, delta)
        rule = 4.0 * (target - delta / 2) / (1.0 - delta)
        st.markdown(
            f"At δ = {_delta_text(delta)}, every (ε, δ)-DP algorithm with "
            f"**ε ≤ {fmt_num(eps_needed)}** "
            f"is {fmt_num(target)}-MIP: no attacker is right more than {_pct(target)} of the time. "
            f"A larger ε does not certify it (Theorem 4 is tight). The small-ε rule of thumb "
            f"would say ε ≈ 4(η − δ/2)/(1 − δ) = {fmt_num(rule)}: "
            + (
                "exact here."
                if eps_needed == rule
                else "safe, but smaller than the ε you may actually use."
            )
        )

# ---------------------------------------------------------------- maths
with st.expander("The maths"):
    st.markdown(
        "**Theorem 4** (DP ⇒ MIP, tight). If an algorithm is (ε, δ)-DP, then it is η-MIP with"
    )
    st.latex(
        r"\eta = \delta + \frac{1-\delta}{1+e^{-\varepsilon}} - \frac12"
        r"= \frac{\delta}{2} + \frac{1-\delta}{2}\tanh\frac{\varepsilon}{2},"
    )
    st.markdown(
        "using 1/(1 + e^−ε) − 1/2 = tanh(ε/2)/2. The tanh form is the one computed: it keeps full "
        "precision for tiny ε, where the printed form subtracts two numbers close to 1/2. "
        "For every ε > 0 and 0 ≤ δ < 1 some (ε, δ)-DP algorithm reaches it. For small ε:"
    )
    st.latex(
        r"\eta \approx \frac{\delta}{2} + \frac{(1-\delta)\,\varepsilon}{4},"
        r"\qquad 0 \le \text{error} \le \frac{(1-\delta)\,\varepsilon^3}{48}."
    )
    st.markdown("**The inverse**, for δ/2 ≤ η < 1/2:")
    st.latex(
        r"\varepsilon = 2\,\operatorname{artanh}\frac{2\eta-\delta}{1-\delta}"
        r"= \log\frac{1 + 2\eta - 2\delta}{1 - 2\eta}."
    )
    st.markdown(
        "**The DP region** (Kairouz, Oh and Viswanath 2015, Theorem 2.1): every test of an "
        "(ε, δ)-DP algorithm satisfies"
    )
    st.latex(
        r"\mathrm{TPR} \le \min\bigl(1,\; e^{\varepsilon}\,\mathrm{FPR} + \delta,\;"
        r"1 - e^{-\varepsilon}(1 - \delta - \mathrm{FPR})\bigr)."
    )
    st.markdown(
        "Its two sloped pieces meet at FPR* = (1 − δ)/(1 + e^ε), where TPR − FPR = "
        "δ + (1 − δ) tanh(ε/2) = 2η. Since the accuracy at prior 1/2 is (1 + TPR − FPR)/2, "
        "the best test has accuracy 1/2 + η: this is Theorem 4 and why it is tight."
    )
    st.markdown("**Theorem 8** (MIP at low FPR), as printed:")
    st.latex(r"\mathrm{TPR} \le \mathrm{FPR} + \eta.")
    st.markdown("Corrected: membership has prior 1/2, so for any attacker")
    st.latex(
        r"\tfrac12 + \eta \;\ge\; \Pr[\text{correct}]"
        r"= \tfrac12\,\mathrm{TPR} + \tfrac12(1-\mathrm{FPR})"
        r"\quad\Longrightarrow\quad \mathrm{TPR} \le \min(1,\ \mathrm{FPR} + 2\eta),"
    )
    st.markdown(
        "and the DP region above meets this line at FPR*, so 2η cannot be improved. "
        "Sources: `000_ece03c98c31c7b12.txt`, Sections 3.4–3.5 and Appendices B–C. At ε = 1, "
        "δ = 0 the membership advantage 2·accuracy − 1 = TPR − FPR is at most "
        "2η = tanh(1/2) ≈ 0.462, the value quoted in `004_fccc9ab652da6648.txt` "
        "(Theorem 1 there, prior 1/2)."
    )
appkit.finish(page)
