"""Can an audit catch a leaky mechanism? The membership game with a canary, played N times.

The controls (the table :data:`CONTROLS`) → ``appkit.jobs.run(canary_game.play_game)`` (own
process, progress, a ceiling on trials) → ``appkit.cached(canary_game.summarize)`` → the ROC
chart (Vega-Lite, :mod:`mipcore.plots.audit_vega`) → the sentences of ``audit.md``. Every
number quoted is read from :class:`mipcore.experiments.canary_game.AuditGame` (and the
:class:`~mipcore.canary_audit.CanaryAudit` it holds) or ``AuditSummary``.
"""

from __future__ import annotations

import streamlit as st

import appkit
from appkit import controls, fmt_num, fmt_pct, jobs, settings
from appkit.controls import choice, number, slider, toggle
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.canary_audit import (
    AUDIT_MC_SAMPLES,
    COVARIANCE_AUDIT_LR,
    COVARIANCE_AUDIT_T,
    AuditAttacker,
    AuditMechanism,
    AuditNoise,
)
from mipcore.experiments import canary_game
from mipcore.experiments.canary_game import (
    CANARY,
    COV_CANARY,
    MIN_TRIALS,
    N_RECORDS,
    AuditGame,
    AuditSummary,
    Certificate,
    CertificateBasis,
)
from mipcore.noise_laws import NoiseKind
from mipcore.plots.audit_vega import audit_roc_vega

PAGE = "audit"
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
CEILING = canary_game.trial_ceiling(settings.WORK_LIMIT)

CONTROLS = controls.table(
    choice("mech", "Mechanism", list(MECHS), AuditMechanism.MEAN, MECHS, radio=True, horizontal=False),
    slider("thr", "Count threshold (records above it count)", 0.0, 1.0, 0.5, 0.05, "%.2f", f"The canary (x* = {fmt_num(CANARY)}) always exceeds it."),
    choice("noise", "Noise", list(NOISES), AuditNoise.LAPLACE, NOISES, radio=True, horizontal=False),
    choice("attacker", "Attacker", list(ATTACKERS), AuditAttacker.LR, ATTACKERS, radio=True, horizontal=False),
    slider("eta", "η (for MIP noise)", 0.01, 0.5, 0.1, 0.01, "%.2f", "Only used by the MIP noise: Corollary 14's noise multiplier c = (6.16/η)²."),
    slider("eps", "ε (for Laplace / Gaussian noise)", 0.1, 10.0, 1.0, 0.1, "%.1f", "Laplace scale Δ₁/ε and Gaussian std Δ₂/ε per released number, Δ₁/Δ₂ the mechanism's L1/L2 sensitivity on this dataset (equal for the scalar mechanisms: (max − min)/k for the mean, 1 for the count)."),
    number("N", "Number of trials N", MIN_TRIALS, CEILING, 10_000, 1000, None, f"From {MIN_TRIALS:,} to {CEILING:,} on this server."),
    choice("conf", "Confidence level", [0.9, 0.95, 0.99], 0.95, lambda c: fmt_pct(c, 0)),
    slider("tau", "Abstention threshold τ (on |score|)", 0.0, 5.0, 0.0, 0.1, "%.1f", "Guess 'in' if ℓ > τ, 'out' if ℓ < −τ, abstain otherwise."),
    toggle("trap", "Show the multiple-testing trap", False, "Pick τ after the fact on the same trials vs on held-out trials."),
)  # fmt: skip

page = appkit.page(PAGE)
prose(PAGE, "intro")
appkit.explain(say(PAGE, "game", k=N_RECORDS // 2, n=N_RECORDS))
main = page.slot()  # URL warnings and controls: rerun on each change
st.caption(say(PAGE, "ceiling", ceiling=CEILING))
game_area = page.slot()  # the game, then the sentence on the mechanism
# ---------------------------------------------------------------- lower ≤ truth ≤ upper
st.subheader("Lower bound, truth, upper bound")
bounds_area = page.slot()
# ---------------------------------------------------------------- ROC
st.subheader("The attack's ROC under the certified regions")
roc_area = page.slot()
appkit.explain(prose_text(PAGE, "printed"))
trap_area = page.slot()  # only with the multiple-testing trap on

with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")


def _controls() -> dict:
    """The controls: the mechanism (with the count's threshold), noise, attacker; then η and
    ε, trials and confidence, τ and the trap."""
    c1, c2, c3 = st.columns(3)
    with c1:
        c = {"mech": controls.draw(CONTROLS["mech"]), "thr": 0.5}
        if c["mech"] is AuditMechanism.COUNT:
            c["thr"] = controls.draw(CONTROLS["thr"])
    with c2:
        c["noise"] = controls.draw(CONTROLS["noise"])
    with c3:
        c["attacker"] = controls.draw(CONTROLS["attacker"])
    second = (("eta", "eps"), ("N", "conf"), ("tau", "trap"))
    for column, keys in zip(st.columns(3), second, strict=True):
        with column:
            c |= controls.draw_all(CONTROLS, *keys)
    return c


def _play(c: dict) -> tuple[AuditGame, AuditSummary]:
    """The game, played N times in a job, and its summary (the page stops if either fails)."""
    with appkit.guard("The audit", stop=True):
        game = jobs.run(
            canary_game.play_game,
            c["mech"],
            c["noise"],
            c["attacker"],
            trials=int(c["N"]),
            epsilon=float(c["eps"]),
            eta=float(c["eta"]),
            threshold=float(c["thr"]),
            label=say(PAGE, "playing", trials=int(c["N"])),
            # no larger than the default view: a scalar release at any N (0.6 s at the
            # ceiling), the covariance release up to the default N (about 2 s)
            quick=c["mech"] is not AuditMechanism.COVARIANCE or int(c["N"]) <= 10_000,
        )
        summary = appkit.cached(
            canary_game.summarize, game, float(c["tau"]), float(c["conf"]), trap=c["trap"]
        )
    return game, summary


def _law_text(game: AuditGame) -> str:
    """The noise law the game added, in words."""
    law, cert, d = game.audit.noise, game.certificate, game.audit.output_dim
    if law.kind is NoiseKind.NONE:
        return prose_text(PAGE, "law_none")
    if game.noise is AuditNoise.MIP and law.kind is NoiseKind.MIP:
        return say(PAGE, "law_mip_nd", d=d, c=cert.noise_multiplier, eta=cert.target_eta)
    if game.noise is AuditNoise.MIP:
        return say(PAGE, "law_mip", scale=law.scale, c=cert.noise_multiplier, eta=cert.target_eta)
    what = "scale" if law.kind is NoiseKind.LAPLACE else "standard deviation"
    each = " " + say(PAGE, "law_each", d=d) if d > 1 else ""
    return say(
        PAGE, "law_dp", kind=law.kind.value.capitalize(), what=what, scale=law.scale, each=each
    )


def _mechanism_text(game: AuditGame) -> tuple[str, str]:
    """The mechanism and its sensitivity and spread, in words."""
    a = game.audit
    if a.mechanism is AuditMechanism.COVARIANCE:
        canary = "(" + ", ".join(fmt_num(v) for v in game.canary) + ")"
        mech = say(
            PAGE,
            "mech_covariance",
            d=a.output_dim,
            T=COVARIANCE_AUDIT_T,
            lr=COVARIANCE_AUDIT_LR,
            residual=game.gd_residual,
            n=N_RECORDS,
            others=N_RECORDS - 1,
            canary=canary,
            length=COV_CANARY,
        )
        sigma = ", ".join(fmt_num(s) for s in a.sigma)  # type: ignore[union-attr]
        sens = say(PAGE, "sens_covariance", l1=a.sensitivity, l2=a.sensitivity_l2, sigma=sigma)
        return mech, sens
    if a.mechanism is AuditMechanism.MEAN:
        mech = say(PAGE, "mech_mean", n=N_RECORDS, canary=CANARY)
    else:
        mech = say(PAGE, "mech_count", threshold=a.threshold, n=N_RECORDS, canary=CANARY)
    return mech, say(PAGE, "sens_scalar", sensitivity=a.sensitivity, sigma=a.sigma)


def _mechanism(game: AuditGame) -> None:
    """The sentence on the mechanism, its noise and the attacker, below the game."""
    mech, sens = _mechanism_text(game)
    lr = game.audit.attacker is AuditAttacker.LR
    attacker = prose_text(PAGE, "attacker_lr") if lr else prose_text(PAGE, "attacker_distance")
    law = _law_text(game)
    st.markdown(
        say(PAGE, "mechanism", mechanism=mech, sensitivity=sens, law=law, attacker=attacker)
    )


def _best_attack(m2, game: AuditGame) -> str:
    """The best attack's metric and caption; returns the same in words for the sentence below."""
    a = game.audit
    assert a.exact_accuracy is not None and a.exact_eta is not None
    assert a.exact_interval is not None
    m2.metric("Best attack reaches", fmt_pct(a.exact_accuracy))
    lo, hi = a.exact_interval[0] - 0.5, a.exact_interval[1] - 0.5
    if game.monte_carlo:
        m2.caption(say(PAGE, "best_mc", eta=a.exact_eta, samples=AUDIT_MC_SAMPLES, lo=lo, hi=hi))
        return say(PAGE, "best_mc_text", eta=a.exact_eta, lo=lo, hi=hi)
    m2.caption(say(PAGE, "best_exact", eta=a.exact_eta, advantage=2.0 * a.exact_eta))
    return say(PAGE, "best_exact_text", eta=a.exact_eta)


def _certificate_text(cert: Certificate) -> str:
    """What the noise certifies, and by which theorem, in words."""
    d = cert.dimension
    if cert.basis is CertificateBasis.NOTHING:
        return prose_text(PAGE, "cert_nothing")
    if cert.basis is CertificateBasis.UNCERTIFIED:
        return say(PAGE, "cert_uncertified", d=d)
    if cert.basis is CertificateBasis.THEOREM9:
        where = prose_text(PAGE, "cert_on_one") if d == 1 else say(PAGE, "cert_on_many", d=d)
        return say(PAGE, "cert_theorem9", eta=cert.eta, where=where, target=cert.target_eta)
    if cert.basis is CertificateBasis.THEOREM4:
        return say(PAGE, "cert_theorem4", eps=cert.epsilon, eta=cert.eta)
    return say(PAGE, "cert_gdp", mu=cert.gdp_mu, eta=cert.eta)


def _bounds(game: AuditGame, s: AuditSummary) -> None:
    """The metrics (audit's lower bound, best attack, certificate), then upper beside lower."""
    cert, pct = s.certificate, fmt_pct(s.confidence, 0)
    m1, m2, m3 = st.columns(3)
    m1.metric("Audit proves at least", fmt_pct(s.accuracy_lower))
    m1.caption(say(PAGE, "lower_caption", eta=s.eta_lower, eps=s.epsilon_lower, pct=pct))
    best = _best_attack(m2, game)
    m3.metric("Noise certifies at most", fmt_pct(cert.accuracy))
    m3.caption(say(PAGE, "cert_caption", eta=cert.eta, advantage=cert.advantage))
    risk = fmt_pct(s.risk, 0)
    verdict = (
        prose_text(PAGE, "consistent") if s.consistent else say(PAGE, "inconsistent", risk=risk)
    )
    if cert.epsilon is None:
        epsilon = " " + prose_text(PAGE, "beside_no_eps")
    else:
        epsilon = " " + say(PAGE, "beside_eps", measured=s.epsilon_lower, certified=cert.epsilon)
    st.markdown(
        say(
            PAGE,
            "beside",
            pct=pct,
            eta=s.eta_lower,
            accuracy=s.accuracy_lower,
            certificate=_certificate_text(cert),
            best=best,
            verdict=verdict,
            epsilon=epsilon,
        )
    )


def _measured(s: AuditSummary) -> None:
    """The measured accuracy and correct-guess rate, and the largest ε N trials can certify."""
    pct = fmt_pct(s.confidence, 0)
    a1, a2 = st.columns(2)
    a1.metric("Measured accuracy (τ = 0)", fmt_pct(s.accuracy))
    lo, hi = s.accuracy_interval
    a1.caption(
        say(PAGE, "answered", correct=s.answered_correct, trials=s.trials, pct=pct, lo=lo, hi=hi)
    )
    label = say(PAGE, "cgr_label", tau=s.tau)
    if s.cgr is None or s.cgr_interval is None:
        a2.metric(label, "—")
        a2.caption(say(PAGE, "all_abstain", trials=s.trials))
    else:
        a2.metric(label, fmt_pct(s.cgr))
        lo, hi = s.cgr_interval
        a2.caption(
            say(
                PAGE,
                "cgr_caption",
                correct=s.correct,
                guesses=s.guesses,
                abstentions=s.abstentions,
                lo=lo,
                hi=hi,
            )
        )
    st.info(say(PAGE, "max_epsilon", trials=s.trials, pct=pct, eps=s.max_epsilon), icon="📏")


def _roc(s: AuditSummary, attacker: AuditAttacker) -> None:
    """The ROC chart with the certified values in its caption, and its takeaway."""
    cert = s.certificate
    # The legend names no number, so that moving η or ε redraws the chart in place; the
    # certified values are in the caption.
    fig, data = appkit.cached(audit_roc_vega, s, attacker)
    certified = [say(PAGE, "certified_eta", eta=cert.eta)] if cert.certified else []
    if cert.epsilon is not None:
        certified.append(say(PAGE, "certified_eps", eps=cert.epsilon))
    elif cert.gdp_mu is not None:
        certified.append(say(PAGE, "certified_mu", mu=cert.gdp_mu))
    named = "certified: " + ", ".join(certified) if certified else "nothing certified"
    caption = say(PAGE, "roc_caption", trials=s.trials, certified=named)
    appkit.chart(fig, data, "audit_roc", key="audit_roc_chart", caption=caption)
    if not cert.certified:
        appkit.takeaway(prose_text(PAGE, "roc_uncertified"))
        return
    region = (
        " and inside the ε-DP region (blue)"
        if cert.epsilon is not None
        else " and under the Gaussian-DP curve (blue)"
        if cert.gdp_mu is not None
        else ""
    )
    appkit.takeaway(say(PAGE, "roc_certified", region=region))


def _trap(s: AuditSummary) -> None:
    """The multiple-testing trap: τ picked on the same trials beside τ picked on held-out ones."""
    pct = fmt_pct(s.confidence, 0)
    st.subheader("The multiple-testing trap")
    t = s.trap
    if t is None:
        st.warning(prose_text(PAGE, "no_threshold"))
        return
    a, b = st.columns(2)
    a.metric("ε lower bound, τ picked on the same trials (biased)", fmt_num(t.eps_same))
    a.caption(say(PAGE, "trap_same", tau=t.tau_same, guesses=t.guesses_same, trials=s.trials))
    b.metric("ε lower bound, τ picked on held-out trials (valid)", fmt_num(t.eps_heldout))
    b.caption(
        say(
            PAGE,
            "trap_heldout",
            tau=t.tau_heldout,
            choice=t.choice_trials,
            evaluated=t.eval_trials,
            guesses=t.guesses_heldout,
        )
    )
    appkit.takeaway(say(PAGE, "trap_takeaway", same=t.eps_same, heldout=t.eps_heldout, pct=pct))
    appkit.explain(say(PAGE, "trap_explain", pct=pct))


def _live() -> None:
    """The live part: controls, the game and its mechanism, the bounds, the ROC, the trap."""
    with main:
        appkit.messages()
        c = _controls()
    with game_area:
        game, summary = _play(c)
        _mechanism(game)
    with bounds_area:
        _bounds(game, summary)
        _measured(summary)
    with roc_area, appkit.guard("The ROC chart"):
        _roc(summary, game.audit.attacker)
    with trap_area:
        if c["trap"]:
            _trap(summary)


appkit.live(page, _live)
