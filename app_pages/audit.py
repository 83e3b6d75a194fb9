"""Audit a mechanism: the membership game (Game 1 of ``001``, Definition 1 of ``000``) played
N times against a mean, a count above a threshold, or the covariance release of the Figure 2
experiment, each with a planted canary, with the Proposition 2 likelihood-ratio attacker or a
simple distance-threshold attacker.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import appkit
from appkit import fmt_num
from mipcore.audit_stats import roc_points
from mipcore.canary_audit import (
    AUDIT_MC_SAMPLES,
    COVARIANCE_AUDIT_LR,
    COVARIANCE_AUDIT_T,
    run_canary_audit,
)
from mipcore.covariance_gd import gd_closed_form
from mipcore.lessons.audit import (
    CANARY,
    COV_CANARY,
    COV_DIM,
    N_RECORDS,
    certified_bounds,
    chunk_sizes,
    multiple_testing_trap,
    summarise,
    thin_roc,
)
from mipcore.plots.audit_figs import audit_roc_figure

SEED = 20240501
MECHS = {
    "mean": "mean with a planted outlier",
    "count": "count above a threshold",
    "covariance": "covariance release (Figure 2's mechanism, 2-D records)",
}
NOISES = {
    "none": "none",
    "mip": "MIP at η (Theorem 9 / Corollary 14)",
    "laplace": "DP Laplace at ε (scale Δ₁/ε)",
    "gaussian": "Gaussian (std Δ₂/ε)",
}
ATTACKERS = {"lr": "likelihood ratio (optimal)", "distance": "threshold on distance"}


@st.cache_data(show_spinner=False, max_entries=256)
def _chunk(
    mech: str,
    threshold: float,
    attacker: str,
    kind: str,
    eps: float,
    eta: float,
    size: int,
    index: int,
):
    """One chunk of the game (abstention margin 0: τ is applied afterwards to the scores).

    The first chunk also computes the exact (or, for the noisy covariance, Monte Carlo)
    Proposition 2 accuracy; the others skip it.
    """
    a = run_canary_audit(
        size,
        n=N_RECORDS,
        canary=COV_CANARY if mech == "covariance" else CANARY,
        noise=kind,
        epsilon=eps if kind in ("laplace", "gaussian") else None,
        eta=eta if kind == "mip" else None,
        mechanism=mech,
        threshold=threshold,
        attacker=attacker,
        dim=COV_DIM,
        exact=index == 0,
        rng=np.random.default_rng([SEED, index]),
    )
    meta = {
        "exact_eta": a.exact_eta,
        "exact_acc": a.exact_accuracy,
        "exact_iv": a.exact_interval,
        "method": a.exact_method,
        "sigma": a.sigma,
        "sens": a.sensitivity,
        "sens2": a.sensitivity_l2,
        "law": a.noise,
        "data": a.data,
        "dim": a.output_dim,
    }
    return a.scores, a.labels, meta


def _vec(values) -> str:
    return "(" + ", ".join(fmt_num(v) for v in np.ravel(values)) + ")"


page = appkit.page("audit")
st.markdown(
    "Play the membership game of Definition 1 (`000`) / Game 1 (`001`, Appendix B) **N** times: each "
    "trial draws a random half of the dataset, releases the mechanism's noisy output and asks the "
    "attacker whether the planted canary was in. The attacker may **abstain** when its score ℓ "
    "satisfies |ℓ| ≤ τ (the log-odds for the likelihood-ratio attacker). From the counts we get "
    "*lower* bounds on ε and η that hold with the chosen "
    "confidence, shown beside the *upper* bounds the noise certifies."
)
st.caption(
    "Pure-DP ε-bounds follow Theorem B.1 of `001`; the game's halves follow Definition 1 of `000` "
    "(k = n/2 of n = 8 records)."
)

# ---------------------------------------------------------------- controls
c1, c2, c3 = st.columns(3)
with c1:
    mech = appkit.url_select(
        "Mechanism", "mech", list(MECHS), default="mean", format_func=MECHS.get
    )
    noise = appkit.url_select(
        "Noise", "noise", list(NOISES), default="laplace", format_func=NOISES.get
    )
    attacker = appkit.url_select(
        "Attacker", "attacker", list(ATTACKERS), default="lr", format_func=ATTACKERS.get
    )
    threshold = 0.5
    if mech == "count":
        threshold = appkit.url_slider(
            "Count threshold (records with value > threshold count)",
            "thr",
            min_value=0.0,
            max_value=1.0,
            default=0.5,
            step=0.05,
            format="%.2f",
            help=f"The canary (x* = {CANARY:g}) always exceeds it.",
        )
with c2:
    eta = appkit.url_slider(
        "η (for MIP noise)",
        "eta",
        min_value=0.01,
        max_value=0.5,
        default=0.1,
        step=0.01,
        format="%.2f",
        help="Only used by the MIP noise.",
    )
    eps = appkit.url_slider(
        "ε (for Laplace / Gaussian noise)",
        "eps",
        min_value=0.1,
        max_value=10.0,
        default=1.0,
        step=0.1,
        format="%.1f",
        help="Laplace scale Δ₁/ε and Gaussian std Δ₂/ε per released coordinate, "
        "Δ₁/Δ₂ = the mechanism's L1/L2 sensitivity on this dataset (equal for "
        "the scalar mechanisms: (max − min)/k for the mean, 1 for the count).",
    )
    trials = appkit.url_number(
        "Number of trials N", "N", min_value=100, max_value=100_000, default=10_000, step=1000
    )
with c3:
    tau = appkit.url_slider(
        "Abstention threshold τ (on |score|)",
        "tau",
        min_value=0.0,
        max_value=5.0,
        default=0.0,
        step=0.1,
        format="%.1f",
        help="Guess 'in' if ℓ > τ, 'out' if ℓ < −τ, abstain otherwise.",
    )
    conf = appkit.url_select(
        "Confidence level",
        "conf",
        [0.9, 0.95, 0.99],
        default=0.95,
        format_func=lambda c: f"{100 * c:g} %",
    )
    trap = appkit.url_toggle(
        "Show the multiple-testing trap",
        "trap",
        default=False,
        help="Pick τ after the fact on the same trials vs on held-out trials.",
    )

# ---------------------------------------------------------------- run the game
sizes = chunk_sizes(int(trials))
bar = st.progress(0.0, text=f"Playing {int(trials):,} trials…")
parts = []
with appkit.guard("The audit", stop=True):
    for i, size in enumerate(sizes):
        parts.append(
            _chunk(mech, float(threshold), attacker, noise, float(eps), float(eta), size, i)
        )
        bar.progress(
            (i + 1) / len(sizes), text=f"Played {sum(sizes[: i + 1]):,} of {int(trials):,} trials"
        )
bar.empty()
scores = np.concatenate([p[0] for p in parts])
labels = np.concatenate([p[1] for p in parts])
meta = parts[0][2]
exact_eta, exact_acc, law = meta["exact_eta"], meta["exact_acc"], meta["law"]
monte_carlo = meta["method"] == "monte carlo"
res = summarise(scores, labels, tau, conf)
eta_ub, eps_ub, why = certified_bounds(noise, eta, eps)

if law.kind == "none":
    law_text = "no noise"
elif law.kind == "gamma":
    law_text = (
        f"Theorem 9 noise on all {meta['dim']} entries, density ∝ exp(−‖z‖_(σ,2)/c) with "
        f"c = {fmt_num(law.scale)} (radius Gamma({meta['dim']}, c))"
    )
else:
    law_text = f"{law.kind.capitalize()} noise of scale {fmt_num(law.scale)}" + (
        f" on each of the {meta['dim']} entries" if meta["dim"] > 1 else ""
    )
if mech == "covariance":
    gd = gd_closed_form(1.0, COVARIANCE_AUDIT_T, COVARIANCE_AUDIT_LR)  # the factor multiplying S
    mech_text = (
        f"the {meta['dim']} entries of gradient descent's second-moment estimate A_T = "
        f"(1 − (1 − 2·{COVARIANCE_AUDIT_LR:g})^{COVARIANCE_AUDIT_T})·S = (1 − {fmt_num(1.0 - gd)})·S, "
        f"S = (1/k) Σ x xᵀ over a random half of {N_RECORDS} records in R²: {N_RECORDS - 1} drawn from "
        f"N(0, Σ) with Σ = make_spd_matrix(2, random_state=0) (Figure 2's law), plus the canary "
        f"x* = {_vec(meta['data'][-1])}, length {COV_CANARY:g} along the direction the others vary least"
    )
    sens_text = (
        f"sensitivity Δ₁ = {fmt_num(meta['sens'])} (L1), Δ₂ = {fmt_num(meta['sens2'])} (L2); "
        f"σ per entry = {_vec(meta['sigma'])}"
    )
else:
    mech_text = (
        f"mean of a random half of {N_RECORDS} records, one an outlier canary (x* = {CANARY:g})"
        if mech == "mean"
        else f"number of records above {fmt_num(threshold)} in a random half of {N_RECORDS} records, "
        f"one an outlier canary (x* = {CANARY:g})"
    )
    sens_text = f"sensitivity Δ = {fmt_num(meta['sens'])}, σ = {fmt_num(meta['sigma'])}"
att_text = (
    "likelihood ratio, noise law known (Proposition 2, optimal)"
    if attacker == "lr"
    else "threshold on distance, score ‖y − m_out‖ − ‖y − m_in‖ (not optimal: the exact "
    "Proposition 2 accuracy still bounds it)"
)
st.markdown(f"**Mechanism:** {mech_text}; {sens_text}; {law_text}. **Attacker:** {att_text}.")

# ---------------------------------------------------------------- metrics
pct = f"{100 * conf:g} %"
m1, m2, m3 = st.columns(3)
m1.metric(
    "Accuracy (τ = 0, every trial answered)",
    f"{fmt_num(res.accuracy)}",
    help=f"{res.acc_correct:,} of {res.trials:,} correct; {pct} Clopper–Pearson interval below.",
)
m1.caption(f"{pct} interval [{fmt_num(res.accuracy_ci[0])}, {fmt_num(res.accuracy_ci[1])}]")
if res.cgr is None:
    m2.metric("CGR (correct-guess rate)", "—")
    m2.caption(f"The attacker abstained on all {res.trials:,} trials at τ = {fmt_num(tau)}.")
else:
    m2.metric("CGR (correct-guess rate)", fmt_num(res.cgr))
    m2.caption(
        f"{res.correct:,} of {res.guesses:,} guesses ({res.trials - res.guesses:,} abstentions); "
        f"interval [{fmt_num(res.cgr_ci[0])}, {fmt_num(res.cgr_ci[1])}]"
    )
if monte_carlo:
    lo_iv, hi_iv = meta["exact_iv"]
    m3.metric(
        "True η of this mechanism (Prop. 2, Monte Carlo)",
        fmt_num(exact_eta),
        help="A d-dimensional noisy release has no closed form here: the optimal attacker's "
        "accuracy ∫ max(p_in, p_out)/2 is the average of max(p_in, p_out)/(p_in + p_out) "
        f"over {AUDIT_MC_SAMPLES:,} simulated releases (99 % interval: Hoeffding and "
        "empirical Bernstein, intersected).",
    )
    m3.caption(
        f"optimal accuracy {fmt_num(exact_acc)}, 99 % interval [{fmt_num(lo_iv)}, {fmt_num(hi_iv)}]"
    )
    exact_text = (
        f"the optimal attacker's η is {fmt_num(exact_eta)} (Monte Carlo; 99 % interval "
        f"[{fmt_num(lo_iv - 0.5)}, {fmt_num(hi_iv - 0.5)}])"
    )
else:
    m3.metric("True η of this mechanism (exact, Prop. 2)", fmt_num(exact_eta))
    m3.caption(f"optimal accuracy {fmt_num(exact_acc)}")
    exact_text = f"the exact η is {fmt_num(exact_eta)}"

m4, m5, m6, m7 = st.columns(4)
m4.metric("ε lower bound (measured)", fmt_num(res.epsilon_lower))
m5.metric("η lower bound (measured)", fmt_num(res.eta_lower))
m6.metric("certified η upper bound", fmt_num(eta_ub))
m7.metric("certified ε upper bound", fmt_num(eps_ub) if eps_ub is not None else "none")
st.caption(f"Certificates: {why}.")

if res.eta_lower <= eta_ub:
    verdict = "consistent: the audit cannot contradict the certificate."
else:
    verdict = (
        f"**inconsistent** — the measured lower bound exceeds the certificate; this happens "
        f"with probability below {fmt_num(100 * (1 - conf))} % if the certificate is right."
    )
eps_part = (
    f" For ε: measured ε ≥ {fmt_num(res.epsilon_lower)} beside certified ε ≤ {fmt_num(eps_ub)}."
    if eps_ub is not None
    else " This noise certifies no finite pure ε, so only η can be compared."
)
st.markdown(
    f"**Upper bound beside lower bound.** With {pct} confidence η ≥ **{fmt_num(res.eta_lower)}** "
    f"(measured), while the noise certifies η ≤ **{fmt_num(eta_ub)}**; {exact_text}. "
    f"The two are {verdict}{eps_part}"
)
st.info(
    f"**The largest ε that N = {int(trials):,} trials can ever certify** at {pct} confidence is "
    f"**{fmt_num(res.max_epsilon)}** (every guess correct): about log(N / log(1/(1−confidence))). "
    "However leaky the mechanism, this audit cannot show more.",
    icon="📏",
)

# ---------------------------------------------------------------- ROC
with appkit.guard("The ROC chart"):
    fpr, tpr = roc_points(scores, labels)
    fpr, tpr = thin_roc(fpr, tpr)
    dp_eps = eps if noise == "laplace" else None
    mu = eps if noise == "gaussian" else None
    fig, data = appkit.cached_figure(
        audit_roc_figure,
        fpr,
        tpr,
        eta_ub=eta_ub,
        eps=dp_eps,
        gdp_mu=mu,
        title=f"ROC of the attack over {int(trials):,} trials",
    )
    appkit.chart_with_csv(fig, data, "audit_roc", key="audit_roc_chart")
    st.markdown(
        "**What to notice:** the measured ROC (green) must stay under the corrected Theorem 8 line "
        "TPR ≤ FPR + 2η (red; the paper prints FPR + η, off by a factor 2)"
        + (" and inside the ε-DP region (blue)" if dp_eps is not None else "")
        + (" and under the Gaussian-DP curve (blue, dashed)" if mu is not None else "")
        + ", up to sampling noise. Points on the far left are what an attacker who flags few records "
        "with near certainty achieves."
    )

# ---------------------------------------------------------------- multiple-testing trap
if trap:
    st.subheader("The multiple-testing trap")
    with appkit.guard("The trap comparison"):
        t = multiple_testing_trap(scores, labels, conf)
        if t is None:
            st.warning("The attacker's score is 0 on every trial: no threshold to choose.")
        else:
            a, b = st.columns(2)
            a.metric("ε lower bound, τ picked on the same trials (biased)", fmt_num(t.eps_same))
            a.caption(
                f"τ = {fmt_num(t.tau_same)}, {t.guesses_same:,} guesses, best of many thresholds "
                f"tried on all {int(trials):,} trials"
            )
            b.metric("ε lower bound, τ picked on held-out trials (valid)", fmt_num(t.eps_heldout))
            b.caption(
                f"τ = {fmt_num(t.tau_heldout)} chosen on the first half; bound from the other "
                f"{t.eval_trials:,} trials ({t.guesses_heldout:,} guesses)"
            )
            st.markdown(
                f"Trying many τ and keeping the best makes the same-trials number "
                f"({fmt_num(t.eps_same)}) an over-optimistic claim: the {pct} confidence holds for one "
                f"pre-chosen test, not for the best of many. Choosing τ on half the trials and "
                f"evaluating on the other half gives {fmt_num(t.eps_heldout)}, which keeps its "
                "stated confidence, at the price of fewer trials."
            )
appkit.finish(page)
