"""Can an audit catch a leaky mechanism? The membership game with a canary, played N times.

widgets → ``appkit.jobs.run(audit.play_game)`` (own process, progress, a ceiling on trials)
→ ``appkit.cached(audit.summarize)`` → the ROC chart (Vega-Lite,
:mod:`mipcore.plots.audit_vega`) → sentences. Every number quoted is a field of
:class:`mipcore.lessons.audit.AuditGame` or ``AuditSummary``.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

import appkit
from appkit import fmt_num, fmt_pct, jobs, settings
from appkit.prose import prose
from mipcore.canary_audit import (
    AUDIT_MC_SAMPLES,
    COVARIANCE_AUDIT_LR,
    COVARIANCE_AUDIT_T,
    AuditAttacker,
    AuditMechanism,
    AuditNoise,
)
from mipcore.lessons import audit
from mipcore.lessons.audit import CertificateBasis
from mipcore.noise_laws import NoiseKind
from mipcore.plots.audit_vega import audit_roc_vega

MECHS = {
    AuditMechanism.MEAN: "mean with a planted outlier",
    AuditMechanism.COUNT: "count above a threshold",
    AuditMechanism.COVARIANCE: "covariance release (Figure 2's mechanism, 2-D records)",
}
NOISES = {
    AuditNoise.NONE: "none",
    AuditNoise.MIP: "MIP: Theorem 9 noise, Corollary 14's amount for η",
    AuditNoise.LAPLACE: "DP: Laplace at ε (scale Δ₁/ε)",
    AuditNoise.GAUSSIAN: "Gaussian DP: Gaussian at ε (std Δ₂/ε)",
}
ATTACKERS = {
    AuditAttacker.LR: "likelihood ratio (optimal)",
    AuditAttacker.DISTANCE: "threshold on distance",
}
CEILING = audit.trial_ceiling(settings.WORK_LIMIT)

page = appkit.page("audit")
prose("audit", "intro")
appkit.explain(
    "The game is Definition 1 of Izzo, Yoon, Arık and Zou, *Provable Membership Inference "
    "Privacy* (TMLR 2024, arXiv:2211.06582): the training set is a uniformly random half "
    f"(k = {audit.N_RECORDS // 2} of n = {audit.N_RECORDS} records). The attacker may "
    "**abstain** when its score ℓ satisfies |ℓ| ≤ τ (for the likelihood-ratio attacker ℓ is "
    "the posterior log-odds of membership), as in Game 1 of Malek Esmaeili, Mironov, Prasad, "
    "Shilov and Tramèr, *Antipodes of Label Differential Privacy* (NeurIPS 2021, "
    "arXiv:2106.03408), whose Theorem B.1 turns the correct-guess rate into a lower bound "
    "on ε. Results are stated as the attacker's **accuracy**: 50 % is a blind guess, and "
    "η = accuracy − 50 %, the membership advantage TPR − FPR = 2η."
)
main = page.slot()  # URL warnings and controls: rerun on each change
st.caption(
    f"One run plays at most {CEILING:,} trials on this server: a shared server must stay "
    "responsive for everyone. Running the app yourself, raise the ceiling with the setting "
    "`MIP_EXPLORER_WORK_LIMIT` (see the README)."
)
game_area = page.slot()  # the game, then the sentence on the mechanism
# ---------------------------------------------------------------- lower ≤ truth ≤ upper
st.subheader("Lower bound, truth, upper bound")
bounds_area = page.slot()
# ---------------------------------------------------------------- ROC
st.subheader("The attack's ROC under the certified regions")
roc_area = page.slot()
appkit.explain(
    "The paper's Theorem 8 prints TPR ≤ FPR + η; with membership prior ½ an attacker's "
    "accuracy is (1 + TPR − FPR)/2, so η-MIP means TPR − FPR ≤ 2η: the printed line is "
    "a factor 2 too low. Points on the far left are what an attacker who flags few "
    "records, with near certainty, achieves."
)
trap_area = page.slot()  # only with the multiple-testing trap on

with appkit.folded("The maths") as shown:
    if shown:
        prose("audit", "maths")


class Controls(NamedTuple):
    """What the controls chose."""

    mech: AuditMechanism
    threshold: float
    noise: AuditNoise
    attacker: AuditAttacker
    eta: float
    eps: float
    trials: int
    conf: float
    tau: float
    trap: bool


def _game_controls() -> tuple[AuditMechanism, float, AuditNoise, AuditAttacker]:
    """The controls' first row: the mechanism (with the count's threshold), noise, attacker."""
    c1, c2, c3 = st.columns(3)
    with c1:
        mech = appkit.url_select(
            "Mechanism",
            "mech",
            list(MECHS),
            default=AuditMechanism.MEAN,
            format_func=MECHS.get,
            widget="radio",
            horizontal=False,
        )
        threshold = 0.5
        if mech is AuditMechanism.COUNT:
            threshold = appkit.url_slider(
                "Count threshold (records above it count)",
                "thr",
                min_value=0.0,
                max_value=1.0,
                default=0.5,
                step=0.05,
                format="%.2f",
                help=f"The canary (x* = {fmt_num(audit.CANARY)}) always exceeds it.",
            )
    with c2:
        noise = appkit.url_select(
            "Noise",
            "noise",
            list(NOISES),
            default=AuditNoise.LAPLACE,
            format_func=NOISES.get,
            widget="radio",
            horizontal=False,
        )
    with c3:
        attacker = appkit.url_select(
            "Attacker",
            "attacker",
            list(ATTACKERS),
            default=AuditAttacker.LR,
            format_func=ATTACKERS.get,
            widget="radio",
            horizontal=False,
        )
    return mech, threshold, noise, attacker


def _controls() -> Controls:
    """The controls: the game's row, then η and ε, trials and confidence, τ and the trap."""
    mech, threshold, noise, attacker = _game_controls()
    d1, d2, d3 = st.columns(3)
    with d1:
        eta = appkit.url_slider(
            "η (for MIP noise)",
            "eta",
            min_value=0.01,
            max_value=0.5,
            default=0.1,
            step=0.01,
            format="%.2f",
            help="Only used by the MIP noise: Corollary 14's noise multiplier c = (6.16/η)².",
        )
        eps = appkit.url_slider(
            "ε (for Laplace / Gaussian noise)",
            "eps",
            min_value=0.1,
            max_value=10.0,
            default=1.0,
            step=0.1,
            format="%.1f",
            help="Laplace scale Δ₁/ε and Gaussian std Δ₂/ε per released number, Δ₁/Δ₂ the "
            "mechanism's L1/L2 sensitivity on this dataset (equal for the scalar mechanisms: "
            "(max − min)/k for the mean, 1 for the count).",
        )
    with d2:
        trials = appkit.url_number(
            "Number of trials N",
            "N",
            min_value=audit.MIN_TRIALS,
            max_value=CEILING,
            default=10_000,
            step=1000,
            help=f"From {audit.MIN_TRIALS:,} to {CEILING:,} on this server.",
        )
        conf = appkit.url_select(
            "Confidence level",
            "conf",
            [0.9, 0.95, 0.99],
            default=0.95,
            format_func=lambda c: fmt_pct(c, 0),
        )
    with d3:
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
        trap = appkit.url_toggle(
            "Show the multiple-testing trap",
            "trap",
            default=False,
            help="Pick τ after the fact on the same trials vs on held-out trials.",
        )
    return Controls(mech, threshold, noise, attacker, eta, eps, trials, conf, tau, trap)


def _play(c: Controls):
    """The game, played N times in a job, and its summary (the page stops if either fails)."""
    with appkit.guard("The audit", stop=True):
        game = jobs.run(
            audit.play_game,
            c.mech,
            c.noise,
            c.attacker,
            trials=int(c.trials),
            epsilon=float(c.eps),
            eta=float(c.eta),
            threshold=float(c.threshold),
            label=f"Playing {int(c.trials):,} membership games",
            # no larger than the default view: a scalar release at any N (0.6 s at the
            # ceiling), the covariance release up to the default N (about 2 s)
            quick=c.mech is not AuditMechanism.COVARIANCE or int(c.trials) <= 10_000,
        )
        summary = appkit.cached(audit.summarize, game, float(c.tau), float(c.conf), trap=c.trap)
    return game, summary


def _law_text(game, cert, noise: AuditNoise) -> str:
    """The noise law the game added, in words."""
    law = game.law
    d = game.output_dim
    if law.kind is NoiseKind.NONE:
        law_text = "no noise"
    elif noise is AuditNoise.MIP and law.kind is NoiseKind.MIP:
        law_text = (
            f"Theorem 9 noise on all {d} numbers: density ∝ exp(−‖z‖/c) in Corollary 10's "
            f"σ-scaled norm, c = {fmt_num(cert.noise_multiplier)} (Corollary 14's amount for "
            f"η = {fmt_num(cert.target_eta)}), radius drawn from Gamma({d}, c)"
        )
    elif noise is AuditNoise.MIP:
        law_text = (
            f"Theorem 9 noise: Laplace of scale c·σ = {fmt_num(law.scale)}, "
            f"c = {fmt_num(cert.noise_multiplier)} (Corollary 14's amount for "
            f"η = {fmt_num(cert.target_eta)})"
        )
    else:
        what = "scale" if law.kind is NoiseKind.LAPLACE else "standard deviation"
        law_text = f"{law.kind.value.capitalize()} noise of {what} {fmt_num(law.scale)}" + (
            f" on each of the {d} numbers" if d > 1 else ""
        )
    return law_text


def _mechanism_text(game, mech: AuditMechanism) -> tuple[str, str]:
    """The mechanism and its sensitivity and spread, in words."""
    d = game.output_dim
    canary = "(" + ", ".join(fmt_num(v) for v in game.canary) + ")"
    if mech is AuditMechanism.COVARIANCE:
        mech_text = (
            f"the {d} entries of gradient descent's second-moment estimate after "
            f"T = {COVARIANCE_AUDIT_T} steps of learning rate {fmt_num(COVARIANCE_AUDIT_LR)}, "
            f"A = (1 − {fmt_num(game.gd_residual)})·S, where S = (1/k)·Σ x·xᵀ over a random half "
            f"of {audit.N_RECORDS} records in R²: {audit.N_RECORDS - 1} drawn from N(0, Σ) with "
            "Σ = make\\_spd\\_matrix(2, random\\_state=0) (Figure 2's law), plus the canary "
            f"x* = {canary}, of length {fmt_num(audit.COV_CANARY)} along the direction the "
            "others vary least"
        )
        sens_text = (
            f"sensitivity Δ₁ = {fmt_num(game.sensitivity)} (L1), Δ₂ = "
            f"{fmt_num(game.sensitivity_l2)} (L2); σ per entry = "
            "(" + ", ".join(fmt_num(s) for s in game.sigma) + ")"
        )
    elif mech is AuditMechanism.MEAN:
        mech_text = (
            f"mean of a random half of {audit.N_RECORDS} records, one an outlier canary "
            f"(x* = {fmt_num(audit.CANARY)})"
        )
        sens_text = f"sensitivity Δ = {fmt_num(game.sensitivity)}, σ = {fmt_num(game.sigma[0])}"
    else:
        mech_text = (
            f"number of records above {fmt_num(game.threshold)} in a random half of "
            f"{audit.N_RECORDS} records, one an outlier canary (x* = {fmt_num(audit.CANARY)})"
        )
        sens_text = f"sensitivity Δ = {fmt_num(game.sensitivity)}, σ = {fmt_num(game.sigma[0])}"
    return mech_text, sens_text


def _mechanism(game, summary, c: Controls) -> None:
    """The sentence on the mechanism, its noise and the attacker, below the game."""
    law_text = _law_text(game, summary.certificate, c.noise)
    mech_text, sens_text = _mechanism_text(game, c.mech)
    att_text = (
        "likelihood ratio, noise law known (Proposition 2's optimal attacker)"
        if c.attacker is AuditAttacker.LR
        else "threshold on distance, score ‖y − m₀‖ − ‖y − m₁‖ with m₁, m₀ the mean release with "
        "and without the canary (not optimal: the best attack's accuracy still bounds it)"
    )
    st.markdown(f"**Mechanism:** {mech_text}; {sens_text}; {law_text}. **Attacker:** {att_text}.")


def _best_attack(m2, game, summary) -> str:
    """The best attack's metric and caption; returns the same in words for the sentence below."""
    m2.metric("Best attack reaches", fmt_pct(summary.exact_accuracy))
    lo_eta, hi_eta = summary.exact_eta_interval
    if game.monte_carlo:
        m2.caption(
            f"η = {fmt_num(summary.exact_eta)} (Monte Carlo, {AUDIT_MC_SAMPLES:,} draws; 99 % "
            f"interval [{fmt_num(lo_eta)}, {fmt_num(hi_eta)}])"
        )
        exact_text = (
            f"the best attacker's η is {fmt_num(summary.exact_eta)} (Monte Carlo; 99 % interval "
            f"[{fmt_num(lo_eta)}, {fmt_num(hi_eta)}])"
        )
    else:
        m2.caption(
            f"η = {fmt_num(summary.exact_eta)}, advantage {fmt_num(summary.exact_advantage)}; "
            "exact (Proposition 2)"
        )
        exact_text = f"the best attacker's exact η is {fmt_num(summary.exact_eta)}"
    return exact_text


def _certificate_text(cert) -> str:
    """What the noise certifies, and by which theorem, in words."""
    if cert.basis is CertificateBasis.NOTHING:
        cert_text = "no noise: nothing is certified (every mechanism has η ≤ 1/2)"
    elif cert.basis is CertificateBasis.UNCERTIFIED:
        cert_text = f"no proof covers this noise on {cert.dimension} numbers: nothing is certified"
    elif cert.basis is CertificateBasis.THEOREM9:
        cert_text = (
            f"Theorem 9's density certifies η ≤ ½(1 − exp(−1/c)) = {fmt_num(cert.eta)} "
            + ("on this number" if cert.dimension == 1 else f"on these {cert.dimension} numbers")
            + ", as in every dimension; "
            f"Corollary 14 chose this noise for η = {fmt_num(cert.target_eta)}"
        )
    elif cert.basis is CertificateBasis.THEOREM4:
        cert_text = (
            f"Laplace(Δ₁/ε) is ε-DP with ε = {fmt_num(cert.epsilon)}, so Theorem 4 gives "
            f"η ≤ {fmt_num(cert.eta)}"
        )
    else:
        cert_text = (
            f"Gaussian(Δ₂/ε) is μ-Gaussian-DP with μ = {fmt_num(cert.gdp_mu)}, so "
            f"η ≤ Φ(μ/2) − ½ = {fmt_num(cert.eta)}; it is not ε-DP for any finite ε"
        )
    return cert_text


def _bounds(game, summary) -> None:
    """The metrics (audit's lower bound, best attack, certificate), then upper beside lower."""
    cert = summary.certificate
    pct = fmt_pct(summary.confidence, 0)
    m1, m2, m3 = st.columns(3)
    m1.metric("Audit proves at least", fmt_pct(summary.accuracy_lower))
    m1.caption(
        f"η ≥ {fmt_num(summary.eta_lower)}, ε ≥ {fmt_num(summary.epsilon_lower)} ({pct} confidence)"
    )
    exact_text = _best_attack(m2, game, summary)
    m3.metric("Noise certifies at most", fmt_pct(cert.accuracy))
    cert_text = _certificate_text(cert)
    m3.caption(f"η ≤ {fmt_num(cert.eta)}, advantage ≤ {fmt_num(cert.advantage)}")

    if summary.consistent:
        verdict = "consistent: this audit cannot contradict the certificate."
    else:
        verdict = (
            "**inconsistent**: the measured lower bound exceeds the certificate; this happens "
            f"with probability below {fmt_pct(summary.risk, 0)} if the certificate is right."
        )
    st.markdown(
        f"**Upper bound beside lower bound.** With {pct} confidence the audit proves "
        f"η ≥ **{fmt_num(summary.eta_lower)}** (an attacker right {fmt_pct(summary.accuracy_lower)} "
        f"of the time); {cert_text}; {exact_text}. The two bounds are {verdict}"
        + (
            f" For ε: measured ε ≥ {fmt_num(summary.epsilon_lower)} beside certified "
            f"ε ≤ {fmt_num(cert.epsilon)}."
            if cert.epsilon is not None
            else " This noise certifies no finite pure ε, so only η can be compared."
        )
    )


def _measured(summary) -> None:
    """The measured accuracy and correct-guess rate, and the largest ε N trials can certify."""
    pct = fmt_pct(summary.confidence, 0)
    a1, a2 = st.columns(2)
    a1.metric("Measured accuracy (τ = 0)", fmt_pct(summary.accuracy))
    a1.caption(
        f"{summary.answered_correct:,} of {summary.trials:,} right; {pct} interval "
        f"[{fmt_pct(summary.accuracy_interval[0])}, {fmt_pct(summary.accuracy_interval[1])}]"
    )
    if summary.cgr is None or summary.cgr_interval is None:
        a2.metric(f"Correct-guess rate at τ = {fmt_num(summary.tau)}", "—")
        a2.caption(f"The attacker abstained on all {summary.trials:,} trials.")
    else:
        a2.metric(f"Correct-guess rate at τ = {fmt_num(summary.tau)}", fmt_pct(summary.cgr))
        a2.caption(
            f"{summary.correct:,} of {summary.guesses:,} guesses ({summary.abstentions:,} "
            f"abstentions); interval [{fmt_pct(summary.cgr_interval[0])}, "
            f"{fmt_pct(summary.cgr_interval[1])}]"
        )
    st.info(
        f"**The largest ε that N = {summary.trials:,} trials can ever certify** at {pct} "
        f"confidence is **{fmt_num(summary.max_epsilon)}** (every guess correct): about "
        "log(N / log(1/(1 − confidence))). However leaky the mechanism, this audit cannot show "
        "more.",
        icon="📏",
    )


def _roc(summary, attacker: AuditAttacker) -> None:
    """The ROC chart with the certified values in its caption, and its takeaway."""
    cert = summary.certificate
    # The legend names no number, so that moving η or ε redraws the chart in place; the
    # certified values are in the caption.
    fig, data = appkit.cached(audit_roc_vega, summary, attacker)
    certified = [f"η = {fmt_num(cert.eta)}"] if cert.certified else []
    if cert.epsilon is not None:
        certified.append(f"ε = {fmt_num(cert.epsilon)}")
    elif cert.gdp_mu is not None:
        certified.append(f"μ = {fmt_num(cert.gdp_mu)}")
    appkit.chart(
        fig,
        data,
        "audit_roc",
        key="audit_roc_chart",
        caption=f"{summary.trials:,} trials; "
        + ("certified: " + ", ".join(certified) if certified else "nothing certified")
        + ".",
    )
    if not cert.certified:
        appkit.takeaway(
            "Nothing is certified here, so nothing bounds this curve: it shows how far "
            "this attacker gets."
        )
    else:
        region = (
            " and inside the ε-DP region (blue)"
            if cert.epsilon is not None
            else " and under the Gaussian-DP curve (blue)"
            if cert.gdp_mu is not None
            else ""
        )
        appkit.takeaway(
            f"The measured ROC (green) stays under the certified line TPR ≤ FPR + 2η{region}, "
            "up to sampling noise."
        )


def _trap(summary) -> None:
    """The multiple-testing trap: τ picked on the same trials beside τ picked on held-out ones."""
    pct = fmt_pct(summary.confidence, 0)
    st.subheader("The multiple-testing trap")
    t = summary.trap
    if t is None:
        st.warning("The attacker's score is 0 on every trial: there is no threshold to choose.")
        return
    a, b = st.columns(2)
    a.metric("ε lower bound, τ picked on the same trials (biased)", fmt_num(t.eps_same))
    a.caption(
        f"τ = {fmt_num(t.tau_same)}, {t.guesses_same:,} guesses, the best of many "
        f"thresholds tried on all {summary.trials:,} trials"
    )
    b.metric("ε lower bound, τ picked on held-out trials (valid)", fmt_num(t.eps_heldout))
    b.caption(
        f"τ = {fmt_num(t.tau_heldout)} chosen on the first {t.choice_trials:,} trials; "
        f"bound from the other {t.eval_trials:,} ({t.guesses_heldout:,} guesses)"
    )
    appkit.takeaway(
        f"Keeping the best of many thresholds makes {fmt_num(t.eps_same)} an "
        f"over-optimistic claim; choosing τ on held-out trials gives {fmt_num(t.eps_heldout)}, "
        f"which keeps its {pct} confidence."
    )
    appkit.explain(
        f"The {pct} confidence of a lower bound holds for one test chosen in advance, not "
        "for the best of many tried on the same data. Choosing τ on half the trials and "
        "evaluating on the other half keeps the stated confidence, at the price of fewer "
        "trials."
    )


def _live() -> None:
    """The live part: controls, the game and its mechanism, the bounds, the ROC, the trap."""
    with main:
        appkit.messages()
        c = _controls()
    with game_area:
        game, summary = _play(c)
        _mechanism(game, summary, c)
    with bounds_area:
        _bounds(game, summary)
        _measured(summary)
    with roc_area, appkit.guard("The ROC chart"):
        _roc(summary, c.attacker)
    with trap_area:
        if c.trap:
            _trap(summary)


appkit.live(page, _live)
