"""What does my guarantee or DP-SGD run mean for an attacker? The risk calculator.

widgets → :func:`mipcore.lessons.risk_calculator.convert` (``appkit.cached`` for the
closed forms; ``appkit.jobs.run`` -- own process, progress, stopped when a control changes --
for zCDP, Rényi DP and DP-SGD), read at the prior by
:func:`~mipcore.lessons.risk_calculator.report_at` (cached, instant: moving the prior converts
nothing again), or :func:`~mipcore.lessons.risk_calculator.noise_for_target`
(solve mode, a job) → the routes' ROC chart (:mod:`mipcore.plots.guarantee_vega`, Vega-Lite) →
sentences. Every number quoted is a field of ``RiskReport`` or ``NoiseSolution``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import streamlit as st

import appkit
from appkit import dpsgd, fmt_count, fmt_num, fmt_pct, jobs
from appkit.guarantee_inputs import rdp_control, read_rdp, relation_control
from appkit.prose import prose
from mipcore.guarantees import (
    FPR_LEVELS,
    PLD_MIN_NOISE,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Kind,
    Rdp,
    Relation,
    Route,
    Zcdp,
)
from mipcore.lessons.risk_calculator import (
    CIFAR10,
    E2E,
    EPS_PRESETS,
    LINK_DELTA_MAX,
    LINK_EPS_MAX,
    LINK_MU_MAX,
    LINK_RHO_MAX,
    PRESET_DELTA,
    RDP_MAX_CHARS,
    RDP_MAX_PAIRS,
    Confidence,
    Conversion,
    CurveSource,
    DpSgdPreset,
    LinkBlock,
    LinkSource,
    NoiseSolution,
    RiskReport,
    Target,
    convert,
    noise_for_target,
    report_at,
)
from mipcore.lessons.what_eps_means import DEFAULT_PRIOR
from mipcore.plots.guarantee_vega import route_label, routes_roc_vega

KINDS = {
    Kind.EPS_DELTA: "(ε, δ)-DP",
    Kind.GDP: "μ-GDP",
    Kind.ZCDP: "ρ-zCDP",
    Kind.RDP: "Rényi DP",
    Kind.DPSGD: "DP-SGD run",
}
HEAVY = (Kind.ZCDP, Kind.RDP, Kind.DPSGD)  # a second or more: in their own process
MODES = {
    "assess": "What does my guarantee mean?",
    "solve": "How much DP-SGD noise for a target?",
}
TARGETS = {Target.ETA: "a largest η (accuracy)", Target.TPR: "a largest TPR at an FPR"}


_LINK_BLOCKS = {  # why a link to "What does ε mean?" cannot carry a guarantee
    LinkBlock.NO_POINT: "no single (ε, δ) pair was computed for this run",
    LinkBlock.EPS_TOO_LARGE: f"its ε is above {fmt_num(LINK_EPS_MAX)}, more than that page shows",
    LinkBlock.DELTA_TOO_LARGE: f"its δ is above {fmt_num(LINK_DELTA_MAX)}, more than that page "
    "shows",
    LinkBlock.MU_TOO_LARGE: f"its μ is above {fmt_num(LINK_MU_MAX)}, more than that page shows",
    LinkBlock.RHO_TOO_LARGE: f"its ρ is above {fmt_num(LINK_RHO_MAX)}, more than that page shows",
    LinkBlock.RDP_TOO_LONG: "its Rényi-DP values, written out in full, are more than that page's "
    f"box takes ({fmt_count(RDP_MAX_CHARS)} characters, {RDP_MAX_PAIRS} pairs)",
    LinkBlock.NOT_TAKEN: "that page does not take it as it is stated",
}


def _acc(accuracy: float) -> str:
    """The best attacker's accuracy 1/2 + η, by the app's one precision rule."""
    return fmt_pct(accuracy)


_pc = _short = _given = fmt_pct  # one precision rule for every probability and share


def _set_eps(eps: float) -> None:
    st.session_state.update(mode="assess", kind=Kind.EPS_DELTA, eps=eps, delta=PRESET_DELTA)


def _set_dpsgd(p: DpSgdPreset) -> None:
    st.session_state.update(
        mode="assess",
        kind=Kind.DPSGD,
        sigma=p.noise_multiplier,
        q=p.sampling_rate,
        steps=p.steps,
    )


def _assess_sigma(sigma: float) -> None:
    st.session_state.update(mode="assess", kind=Kind.DPSGD, sigma=sigma)


def _describe(L: RiskReport) -> str:
    """The guarantee in words, for the sentences."""
    g = L.guarantee
    if isinstance(g, EpsDelta):
        return f"(ε, δ) = ({fmt_num(g.epsilon)}, {fmt_num(g.delta, 3)})"
    if isinstance(g, Gdp):
        return f"μ = {fmt_num(g.mu)} GDP"
    if isinstance(g, Zcdp):
        return f"ρ = {fmt_num(g.rho)} zCDP"
    if isinstance(g, Rdp):
        return f"Rényi DP at {len(g.orders)} orders"
    assert isinstance(g, DpSgd)
    return (
        f"DP-SGD with noise multiplier {fmt_num(g.noise_multiplier)}, sampling rate "
        f"{fmt_num(g.sampling_rate)} and {g.steps:,} steps"
    )


def _stakeholder_links(L: RiskReport, name: str) -> list[str]:
    """The links to "What does ε mean?" as Markdown list items: the guarantee itself first (or
    why it cannot be carried), then the looser readings."""
    link = L.link
    share = fmt_pct(link.prior_pct / 100)
    if L.relation is Relation.ADD_OR_REMOVE_ONE:
        name += " (add/remove)"
    lines = []
    if link.same_query is not None:
        lines.append(
            f"- [{name}, {share} in the data]({link.path}?{link.same_query}) — **this guarantee "
            "itself**, read by the same route: the same numbers as here"
        )
    elif link.same_blocked is not None:
        lines.append(
            f"- {name} itself cannot be carried there: {_LINK_BLOCKS[link.same_blocked]}; "
            "below are looser readings only"
        )
    if link.eps_query is not None and link.epsilon is not None and link.delta is not None:
        if link.eps_query != link.same_query:
            what = {
                LinkSource.INPUT: "the same (ε, δ)",
                LinkSource.GROUP: "the replace-one (ε, δ) it converts to",
                LinkSource.REFERENCE_POINT: "one (ε, δ) pair it implies (its ε at δ = 10⁻⁵, "
                "replace-one)",
                LinkSource.GROUP_POINT: "one (ε, δ) pair it implies (its add/remove ε at "
                "δ = 10⁻⁵, converted to replace-one: 2ε and (1 + e^ε)·10⁻⁵)",
            }[link.source or LinkSource.INPUT]
            over = (
                ""
                if link.pair_ratio is None or link.pair_ratio <= 1.0 + 1e-9
                else f"; that single pair overstates η by a factor of {fmt_num(link.pair_ratio, 3)}"
            )
            lines.append(
                f"- [ε = {fmt_num(link.epsilon)}, δ = {fmt_num(link.delta, 3)}, "
                f"{share} in the data]({link.path}?{link.eps_query}) — {what}{over}"
                + (" (looser: for comparison only)" if link.same_query is not None else "")
            )
    elif link.blocked is not None and link.same_query is None and link.blocked != link.same_blocked:
        lines.append(f"- (ε, δ): {_LINK_BLOCKS[link.blocked]}; use the η link.")
    lines.append(
        f"- [η = {fmt_pct(link.eta)}, {share} in the data]({link.path}?{link.eta_query}) — the "
        "same η, read as η-MIP alone (looser at low false-positive rates)"
    )
    return lines


page = appkit.page("risk_calculator")
prose("risk_calculator", "intro")
main = page.slot()  # slot: everything below depends on the mode and the inputs


# ================================================================= solve mode
class Goal(NamedTuple):
    """What solve mode's controls chose: the run's sampling rate and steps, and the target."""

    q: float
    steps: int
    target: Target
    value: float  # the largest η (Target.ETA) or the largest TPR (Target.TPR)
    fpr: float | None  # Target.TPR: the FPR the TPR is taken at; None for Target.ETA


def _target_controls() -> tuple[Target, float, float | None]:
    """Solve mode's target: a largest η, or a largest TPR at an FPR."""
    target = appkit.url_select(
        "Target", "target", list(Target), default=Target.ETA, format_func=TARGETS.get
    )
    if target is Target.ETA:
        t_eta = appkit.url_number(
            "largest η",
            "teta",
            min_value=1e-6,
            max_value=0.499,
            default=0.1,
            step=0.01,
            format="%g",
            help="No attacker may be right more than 1/2 + η of the time.",
        )
        st.caption(f"Best accuracy at most {_given(0.5 + t_eta)}.")
        return target, t_eta, None
    t_tpr = appkit.url_number(
        "largest TPR",
        "ttpr",
        min_value=1e-6,
        max_value=1.0,
        default=0.05,
        step=0.01,
        format="%g",
        help="The share of members any attacker may find …",
    )
    t_fpr = appkit.url_number(
        "at FPR",
        "tfpr",
        min_value=1e-6,
        max_value=0.5,
        default=0.01,
        step=0.001,
        format="%g",
        help="… while wrongly accusing this share of non-members.",
    )
    return target, t_tpr, t_fpr


def _solve_controls() -> Goal:
    """Solve mode's controls: the run's rate and steps on the left, the target on the right."""
    c1, c2 = st.columns(2)
    with c1:
        q, steps = dpsgd.rate_and_steps_controls()
    with c2:
        target, value, fpr = _target_controls()
    return Goal(q, steps, target, value, fpr)


def _goal_ok(c: Goal) -> bool:
    """Whether the run's steps and the target can be searched for (if not, a sentence why)."""
    ok = dpsgd.steps_ok(c.steps)
    if ok and c.target is Target.TPR:
        assert c.fpr is not None  # a TPR target comes with its FPR
        if not c.value > c.fpr:
            st.error(
                f"A TPR of {_given(c.value)} at an FPR of {_given(c.fpr)} is no target: guessing "
                "at random already finds as many members as it wrongly accuses (TPR = FPR). "
                "Choose a TPR above the FPR.",
                icon="🚫",
            )
            ok = False
    return ok


def _noise_search(c: Goal) -> NoiseSolution:
    """The smallest noise multiplier for the target (a job)."""
    if c.target is Target.ETA:
        return jobs.run(
            noise_for_target,
            Target.ETA,
            float(c.value),
            c.q,
            c.steps,
            label="Searching for the noise multiplier",
            quick=c.steps <= CIFAR10.steps,
        )
    assert c.fpr is not None  # a TPR target comes with its FPR
    return jobs.run(
        noise_for_target,
        Target.TPR,
        float(c.value),
        c.q,
        c.steps,
        fpr=float(c.fpr),
        label="Searching for the noise multiplier",
        quick=c.steps <= CIFAR10.steps,
    )


def _solution(sol: NoiseSolution) -> None:
    """The answer: the noise multiplier, its η and epochs, the tolerance and the way back."""
    goal = (
        f"η ≤ {fmt_num(sol.eta)} (accuracy ≤ {_given(0.5 + (sol.eta or 0.0))})"
        if sol.target is Target.ETA
        else f"TPR ≤ {_given(sol.tpr or 0.0)} at FPR {_given(sol.fpr or 0.0)}"
    )
    if sol.no_noise_needed:
        appkit.takeaway(
            f"No noise is needed for {goal}: with q = {fmt_num(sol.sampling_rate)} and "
            f"{sol.steps:,} steps a record takes part in training only by chance, and "
            f"sampling alone already keeps η ≤ {fmt_num(sol.sampling_only_eta)}."
        )
        return
    m1, m2, m3 = st.columns(3)
    m1.metric("noise multiplier σ", fmt_num(sol.noise_multiplier))
    m2.metric("η at this σ", fmt_pct(sol.achieved_eta))
    m3.metric("epochs", fmt_num(sol.epochs, 3))
    appkit.takeaway(
        f"For {goal} with q = {fmt_num(sol.sampling_rate)} and {sol.steps:,} steps, "
        f"DP-SGD needs a noise multiplier of at least {fmt_num(sol.noise_multiplier)}; "
        f"the run is then {fmt_num(sol.achieved_eta)}-MIP (best accuracy "
        f"{_acc(0.5 + sol.achieved_eta)})."
    )
    st.markdown(
        f"**Tolerance.** The search brackets σ and halves the bracket (on a log scale) "
        f"until its ends differ by a factor of at most 1 + {fmt_num(sol.tolerance)}; "
        "it returns the upper end, where the accountant certifies the target, so the "
        f"answer is sound and at most {fmt_pct(sol.tolerance)} above the smallest σ the "
        "accountant certifies. It never returns a σ between 0 and "
        f"{fmt_num(sol.min_noise)}: below that, sampling alone is the bound."
    )
    if sol.noise_multiplier > 1e6:
        st.caption("The assessment takes noise multipliers up to 10⁶; this one is larger.")
    else:
        st.button(
            "Read a run with this noise in attacker terms",
            key="assess_sigma",
            on_click=_assess_sigma,
            args=(sol.noise_multiplier,),
            icon=":material/arrow_forward:",
        )


def _solve() -> None:
    """The smallest noise multiplier for a target (mode "solve")."""
    st.markdown(
        "The smallest noise multiplier (noise std / clipping norm, the Opacus and TensorFlow "
        "Privacy convention) whose DP-SGD run meets a target for MIP's replace-one game."
    )
    c = _solve_controls()
    if not _goal_ok(c):
        return
    with appkit.guard("The noise multiplier for this target"):
        _solution(_noise_search(c))
    appkit.explain(
        "The accountant is the privacy-loss-distribution (PLD) accountant of Google's "
        "`dp_accounting` for the **replace-one** relation of MIP's game, with Poisson "
        "sampling (each record joins each batch independently with probability q); η is "
        "half the total variation between the output laws with and without a record. "
        "Shuffled fixed-size batches, which many training loops use, are a different "
        "sampling scheme that this accounting does not cover exactly."
    )


# ================================================================= assess mode
class Stated(NamedTuple):
    """What assess mode's controls chose: the guarantee, and how to read it for people."""

    kind: Kind
    relation: Relation
    read: dict[str, Any]  # the kind's own values (see _guarantee_controls)
    prior_pct: float
    ppv_fpr: float
    show_invalid: bool


def _presets() -> None:
    """The preset buttons from practice, and what they set."""
    st.markdown("**Presets from practice**")
    cols = st.columns(len(EPS_PRESETS) + 2)
    for col, eps_p in zip(cols, EPS_PRESETS, strict=False):
        col.button(
            f"ε = {fmt_num(eps_p)}",
            key=f"preset_eps_{fmt_num(eps_p)}",
            on_click=_set_eps,
            args=(eps_p,),
            width="stretch",
        )
    cols[-2].button(
        "CIFAR-10", key="preset_cifar10", on_click=_set_dpsgd, args=(CIFAR10,), width="stretch"
    )
    cols[-1].button(
        "LLM (E2E)", key="preset_e2e", on_click=_set_dpsgd, args=(E2E,), width="stretch"
    )
    st.caption(
        "ε presets: δ = 10⁻⁵, as often reported. "
        f"CIFAR-10 DP-SGD: σ = {fmt_num(CIFAR10.noise_multiplier)}, batch {CIFAR10.batch} of "
        f"{CIFAR10.dataset:,} images, {CIFAR10.epochs} epochs ({CIFAR10.steps:,} steps). "
        f"LLM fine-tune: the E2E setting of Li, Tramèr, Liang, Hashimoto, *Large Language Models "
        f"Can Be Strong Differentially Private Learners* (ICLR 2022, arXiv:2110.05679): batch "
        f"{E2E.batch} of {E2E.dataset:,} examples, {E2E.epochs} epochs ({E2E.steps} steps), "
        f"σ = {fmt_num(E2E.noise_multiplier)} — the noise their script's add/remove RDP accounting "
        "calibrates to ε = 8 at δ = 8 × 10⁻⁶."
    )


def _guarantee_controls() -> tuple[Kind, Relation, dict[str, Any]]:
    """The guarantee's kind, its own values (by variable name) and the relation it is stated for."""
    kind = appkit.url_select(
        "The guarantee",
        "kind",
        list(KINDS),
        default=Kind.EPS_DELTA,
        widget="radio",
        format_func=KINDS.get,
    )
    c1, c2 = st.columns(2)
    relation = Relation.REPLACE_ONE
    read: dict[str, Any] = {}
    with c1:
        if kind is Kind.EPS_DELTA:
            read["eps"] = appkit.url_number(
                "ε", "eps", min_value=0.0, max_value=50.0, default=1.0, step=0.1, format="%g"
            )
            read["delta"] = appkit.url_number(
                "δ",
                "delta",
                min_value=0.0,
                max_value=1.0,
                default=PRESET_DELTA,
                step=1e-6,
                format="%g",
                help="0 for pure ε-DP; typically far below 1/n.",
            )
        elif kind is Kind.GDP:
            read["mu"] = appkit.url_number(
                "μ", "mu", min_value=0.0, max_value=50.0, default=1.0, step=0.1, format="%g"
            )
        elif kind is Kind.ZCDP:
            read["rho"] = appkit.url_number(
                "ρ", "rho", min_value=0.0, max_value=1000.0, default=0.5, step=0.05, format="%g"
            )
        elif kind is Kind.RDP:
            read["rdp_text"] = rdp_control()
        else:
            read["sigma"] = dpsgd.sigma_control()
    with c2:
        if kind is Kind.DPSGD:
            read["q"], read["steps"] = dpsgd.rate_and_steps_controls()
        else:
            relation = relation_control()
    return kind, relation, read


def _assess_controls() -> Stated:
    """Assess mode's controls: the guarantee, the share in the data, the naming FPR, the toggle."""
    kind, relation, read = _guarantee_controls()
    c3, c4, c5 = st.columns(3)
    prior_pct = appkit.url_number(
        "share of people in the data (%)",
        "prior",
        min_value=0.1,
        max_value=99.9,
        default=100 * DEFAULT_PRIOR,  # the stakeholder page's default too (see its lesson)
        step=0.5,
        format="%g",
        help="The membership prior: how likely a person is to be in the data before the release.",
        container=c3,
    )
    ppv_fpr = appkit.url_select(
        "naming rule's false-positive rate",
        "pfpr",
        list(FPR_LEVELS),
        default=0.01,
        format_func=lambda f: f"{fmt_num(100 * f)} %",
        help="The share of non-members a rule that names members may wrongly accuse.",
        container=c4,
    )
    show_invalid = appkit.url_toggle(
        "show the invalid route",
        "invalid",
        default=False,
        help="An add/remove number read as if it were replace-one (shown for comparison).",
        container=c5,
    )
    return Stated(kind, relation, read, prior_pct, ppv_fpr, show_invalid)


def _report(c: Stated) -> RiskReport | None:
    """The guarantee converted by every route (None after a sentence that says why not)."""
    kind, relation, read = c.kind, c.relation, c.read
    parsed = read_rdp(read["rdp_text"]) if kind is Kind.RDP else None
    if kind is Kind.RDP and parsed is None:  # a sentence said why
        return None
    if kind is Kind.DPSGD and not dpsgd.steps_ok(read["steps"]):
        return None
    guarantee: Guarantee
    with appkit.guard("This guarantee", stop=True):
        if kind is Kind.EPS_DELTA:
            guarantee = EpsDelta(read["eps"], read["delta"], relation)
        elif kind is Kind.GDP:
            guarantee = Gdp(read["mu"], relation)
        elif kind is Kind.ZCDP:
            guarantee = Zcdp(read["rho"], relation)
        elif parsed is not None:  # Rényi DP
            guarantee = Rdp(parsed.orders, parsed.values, relation)
        else:
            guarantee = DpSgd(read["sigma"], read["q"], read["steps"])
        # the conversion does not depend on the prior: moving the prior only reads it again
        if kind in HEAVY:
            conversion: Conversion = jobs.run(
                convert,
                guarantee,
                label="Converting the guarantee by every route",
                # a DP-SGD run's accounting grows with its steps: the default's or fewer is quick
                quick=kind is not Kind.DPSGD or read["steps"] <= CIFAR10.steps,
            )
        else:
            conversion = appkit.cached(convert, guarantee)
        return appkit.cached(
            report_at, conversion, prior=c.prior_pct / 100.0, ppv_fpr=float(c.ppv_fpr)
        )


def _metrics(L: RiskReport) -> None:
    """The headline's metrics: η, best accuracy, right when naming, TPR at three FPRs."""
    (m1, m2, m3), (m4, m5, m6) = st.columns(3), st.columns(3)
    m1.metric(
        "η (edge)",
        fmt_pct(L.eta),
        help=f"Membership advantage TPR − FPR ≤ 2η = {fmt_pct(L.advantage)} (η = "
        f"{fmt_num(L.eta, 6)}).",
    )
    m2.metric("best accuracy", fmt_pct(L.accuracy), help=f"1/2 + η = {fmt_num(L.accuracy, 6)}.")
    m3.metric(
        f"right when naming (π = {_given(L.prior)})",
        _short(L.ppv),
        help=f"Precision of a rule that wrongly accuses at most {_given(L.ppv_fpr)} of non-members.",
    )
    for m, f, t in zip((m4, m5, m6), L.fpr_levels, L.tpr_at_fpr, strict=True):
        m.metric(f"TPR at {fmt_pct(f)} FPR", fmt_pct(t), help=f"TPR ≤ {fmt_num(t, 6)}")


def _relation_text(L: RiskReport, kind: Kind, relation: Relation) -> str:
    """The relation the guarantee is stated for, and how it was converted to replace-one."""
    if kind is Kind.DPSGD:
        g = L.guarantee
        assert isinstance(g, DpSgd)
        relation_text = (
            f"{fmt_num(L.epochs, 4)} epochs (T · q). DP-SGD is accounted for **replace-one** "
            "directly (MIP's game swaps one record), with Poisson sampling."
        )
        if g.noise_multiplier < PLD_MIN_NOISE:
            relation_text += (
                f" Below σ = {fmt_num(PLD_MIN_NOISE)} the accountant's grid would be huge; the "
                "bound is then the sampling-only one, which noise this small essentially attains "
                "(every step that samples the record reveals it)."
            )
        return relation_text
    if relation is Relation.REPLACE_ONE:
        return "Stated for **replace-one** neighbours, the relation of MIP's game: used as it is."
    conv = {
        Kind.EPS_DELTA: f"the pair becomes (2ε, (1 + eᵋ)δ) = ({fmt_num(L.replace_epsilon)}, "
        f"{fmt_num(L.replace_delta, 3)}), and the trade-off curve is applied twice",
        Kind.GDP: f"μ doubles to {fmt_num(L.replace_mu)}",
        Kind.ZCDP: f"ρ quadruples to {fmt_num(L.replace_rho)}",
        Kind.RDP: "each (ε, δ) point of the conversions becomes (2ε, (1 + eᵋ)δ), and the Rényi "
        "trade-off curve is applied twice",
    }[kind]
    relation_text = (
        "Stated for **add/remove** neighbours; MIP's game replaces a record (a removal and an "
        f"addition), so it was converted by group privacy for two: {conv}."
    )
    if L.invalid_eta is not None and L.understated_by is not None:
        relation_text += (
            f" Reading the add/remove number as if it were replace-one would report "
            f"η = {fmt_num(L.invalid_eta)}: {fmt_num(L.understated_by, 3)} times too small, and "
            "not valid for MIP."
        )
    return relation_text


def _headline(L: RiskReport, name: str) -> None:
    """The headline's takeaway: what the best attacker can do, and the tightest route."""
    if L.eta == 0:
        appkit.takeaway(
            f"With {name}, the release ignores every single record: no attacker beats a blind guess."
        )
    elif L.eta >= 0.5:
        appkit.takeaway(
            f"With {name}, no route limits a membership attacker at all: it may be right every "
            "time. Add noise, sample less or train for fewer steps."
        )
    else:
        appkit.takeaway(
            f"With {name}, no attacker can tell whether a record was used more than "
            f"{_acc(L.accuracy)} of the time (a blind guess gets 50 %); the tightest "
            f"sound route is “{route_label(L.route)}”."
        )


def _prior(L: RiskReport, kind: Kind) -> None:
    """The prior: what an attacker naming people achieves when a share is in the data."""
    prior_text = _given(L.prior)
    if L.confidence_kind is Confidence.POSTERIOR:
        if L.eta == 0.0 and kind is not Kind.EPS_DELTA:
            st.markdown(
                f"**If {prior_text} of the population is in the data**, η = 0: the release is the "
                "same whether a person is in the data or not, so no attacker's belief that a "
                f"person it names is a member can exceed **{_pc(L.worst_posterior)}**, the share "
                "before the release."
            )
            return
        st.markdown(
            f"**If {prior_text} of the population is in the data**, pure ε-DP bounds every outcome: "
            f"no attacker's belief that a person it names is a member can exceed "
            f"**{_pc(L.worst_posterior)}** (up from {prior_text} before the release). A rule that "
            f"wrongly accuses at most {_given(L.ppv_fpr)} of non-members is right at most "
            f"{_pc(L.ppv)} of the time."
        )
    else:
        why = (
            "δ allows a rare release that gives a person away outright"
            if kind is Kind.EPS_DELTA
            else "this kind of guarantee bounds the privacy loss only in distribution, so a rare "
            "release may still give a person away"
        )
        st.markdown(
            f"**If {prior_text} of the population is in the data**, an attacker that wrongly "
            f"accuses at most {_given(L.ppv_fpr)} of non-members is right about the people it "
            f"names at most **{_pc(L.ppv)}** of the time (up from {prior_text}): it finds at most "
            f"{_pc(L.ppv_tpr)} of the members. No limit holds for every single person: {why}."
        )


def _loosest(L: RiskReport):
    """The loosest valid route (the comparison the page quotes against the tightest)."""
    return next(r for r in L.routes if r.valid and r.route is L.loosest_route)


def _roc(L: RiskReport, name: str, show_invalid: bool) -> None:
    """The ROC chart of every route, its takeaway and how to read it."""
    with appkit.guard("The ROC chart"):
        fig, data = appkit.cached(routes_roc_vega, L, show_invalid=show_invalid)
        appkit.chart(fig, data, "roc_by_route", key="roc_routes", caption=f"For {name}.")
    loose = _loosest(L)
    # the comparison a reader knows: one (ε, δ) pair, else the loosest valid route
    versus = next((r for r in L.routes if r.valid and r.route is Route.SINGLE_POINT), loose)
    t0, f0 = L.tpr_at_fpr[0], L.fpr_levels[0]
    if _pc(versus.tpr_at_levels[0]) != _pc(t0):  # a difference the reader can see
        appkit.takeaway(
            f"At a false-positive rate of {_given(f0)}, no attacker finds more than {_pc(t0)} of "
            f"the members; read through “{route_label(versus.route)}”, the same guarantee would "
            f"seem to allow {_pc(versus.tpr_at_levels[0])}."
        )
    else:
        appkit.takeaway(
            f"At a false-positive rate of {_given(f0)}, no attacker finds more than {_pc(t0)} of "
            "the members; the routes agree there."
        )
    appkit.explain(
        "Each curve is the largest true-positive rate a conversion route allows at each "
        "false-positive rate; every attacker's (FPR, TPR) lies on or below every valid curve, so "
        "the lowest one — the thick black line — is the one to quote. Routes marked “η only” "
        "give a single number η and hence only the line TPR ≤ FPR + 2η (Theorem 8, corrected). "
        + (
            "The PLD route's curve is the envelope of the accountant's (ε, δ(ε)) regions, "
            "intersected with the sampling-only region. "
            if any(r.curve is CurveSource.COMBINED for r in L.routes)
            else ""
        )
        + "On log axes the low-FPR regime, where membership attacks are judged, is visible."
    )


def _routes(L: RiskReport) -> None:
    """Every route, side by side: the table and how loose the loosest valid route is."""
    st.subheader("Every route, side by side")
    loose = _loosest(L)
    ordered = sorted(L.routes, key=lambda r: (not r.valid, not r.tightest, r.eta))
    tpr_head = f"TPR @ {fmt_pct(L.fpr_levels[0])}"
    appkit.tables.table(
        {
            "route": [
                route_label(r.route) + (" (tightest)" if r.tightest else "") for r in ordered
            ],
            "valid": ["yes" if r.valid else "NO" for r in ordered],
            "η": [fmt_pct(r.eta) for r in ordered],
            "best accuracy": [_pc(r.accuracy) for r in ordered],
            "× tightest": [fmt_num(r.over_tightest, 4) for r in ordered],
            tpr_head: [_pc(r.tpr_at_levels[0]) for r in ordered],
        },
        right=["η", "best accuracy", "× tightest", tpr_head],
    )
    if L.looseness is None:
        st.markdown(
            f"The tightest route gives η = 0, while “{route_label(loose.route)}” gives "
            f"η = {fmt_num(loose.eta)}: a loose conversion can turn a guarantee that reveals "
            "nothing into one that seems to reveal something."
        )
    elif L.looseness == 1.0:
        st.markdown("All valid routes agree here.")
    else:
        st.markdown(
            f"The loosest valid route, “{route_label(loose.route)}”, overstates η by a factor of "
            f"**{fmt_num(L.looseness, 3)}** (best accuracy {_pc(loose.accuracy)} instead of "
            f"{_pc(L.accuracy)}). Every valid route is a sound bound; the smallest is the one to "
            "report."
        )
    single = next((r for r in L.routes if r.route is Route.SINGLE_POINT), None)
    if single is not None and single.epsilon is not None and L.reference_epsilon is not None:
        st.caption(
            f"“One (ε, δ) point”: the guarantee's ε at δ = {fmt_num(L.reference_delta)} "
            f"(replace-one) is {fmt_num(L.reference_epsilon)}; Theorem 4 on that single pair gives "
            f"η = {fmt_num(single.eta)}. Reporting only (ε, δ) discards the rest of the curve."
        )


def _stakeholder(L: RiskReport, name: str) -> None:
    """For a stakeholder: the guarantee in one plain sentence, and the links to show it."""
    st.subheader("For a stakeholder")
    t0, f0 = L.tpr_at_fpr[0], L.fpr_levels[0]
    stake = (
        f"Whoever sees the result and one person's record cannot tell whether that person's "
        f"record was used more than **{_acc(L.accuracy)}** of the time — a coin flip gets 50 %. "
        f"An attacker allowed to wrongly accuse only 1 in {round(1 / f0):,} of the people who "
        f"were not used finds at most **{_pc(t0)}** of those who were."
    )
    if L.eta >= 0.5:
        stake = (
            "This guarantee does not protect membership: someone who sees the result may be able "
            "to tell, for every person, whether their record was used."
        )
    elif L.eta == 0:
        stake = (
            "The result does not depend on any single person's record: nobody can tell whether a "
            "person's record was used better than a coin flip."
        )
    st.markdown(stake)
    st.markdown(
        "Show it as people on the page “What does ε mean for the people in my data?”:\n"
        + "\n".join(_stakeholder_links(L, name))
    )


def _assess() -> None:
    """A guarantee read in attacker terms (mode "assess")."""
    _presets()
    c = _assess_controls()
    L = _report(c)
    if L is None:
        return
    name = _describe(L)
    _metrics(L)
    st.markdown(_relation_text(L, c.kind, c.relation))
    _headline(L, name)
    _prior(L, c.kind)
    _roc(L, name, c.show_invalid)
    _routes(L)
    _stakeholder(L, name)
    with appkit.folded("The maths") as shown:
        if shown:
            prose("risk_calculator", "maths")


def _live() -> None:
    with main:
        appkit.messages()
        mode = appkit.url_select(
            "I want to know",
            "mode",
            list(MODES),
            default="assess",
            widget="radio",
            format_func=MODES.get,
        )
        if mode == "solve":
            _solve()
        else:
            _assess()


appkit.live(page, _live)
