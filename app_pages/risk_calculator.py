"""What does my guarantee or DP-SGD run mean for an attacker? The risk calculator.

widgets (the table :data:`CONTROLS`; the guarantee's rows -- drawn, built as
:mod:`mipcore.guarantees` states it and named in words -- come from
:mod:`appkit.guarantee_inputs`, shared with "Does my model leak?") → the guarantee → :func:`~mipcore.guarantees.route_curves` (its
:func:`~mipcore.guarantees.attacker_bound` and every route's ROC bound; ``appkit.cached`` for
the closed forms, ``appkit.jobs.run`` -- own process, progress, stopped when a control changes
-- for zCDP, Rényi DP and DP-SGD), read at the share of people in microseconds (moving the
share converts nothing again) with :mod:`mipcore.risk`; or, in solve mode,
:func:`~mipcore.guarantees.dpsgd_noise_and_eta` (the noise for a target and its η, a job)
→ the routes' ROC chart (:mod:`mipcore.plots.guarantee_vega`, Vega-Lite) → sentences, every
one with a number a template of ``risk_calculator.md``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import streamlit as st

import appkit
from appkit import controls, dpsgd, fmt_num, fmt_pct, guarantee_inputs, jobs
from appkit.controls import choice, number, toggle
from appkit.guarantee_inputs import (
    DEFAULT_PRIOR,
    HEAVY,
    LINK_MAX,
    RDP_MAX_CHARS,
    RDP_MAX_PAIRS,
    guarantee_query,
    link_prior,
    pair_query,
    stakeholder_link,
)
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.bounds import eta_from_epsilon
from mipcore.guarantees import (
    CIFAR10,
    E2E,
    FPR_LEVELS,
    NOISE_TOLERANCE,
    PLD_MIN_NOISE,
    REFERENCE_DELTA,
    CurveSource,
    DpSgd,
    DpSgdPreset,
    EpsDelta,
    Gdp,
    Kind,
    Relation,
    Route,
    RouteCurves,
    Zcdp,
    dpsgd_noise_and_eta,
    route_curves,
)
from mipcore.plots.guarantee_vega import route_label, routes_roc_vega
from mipcore.risk import Confidence, named_confidence, ppv

PAGE = "risk_calculator"
MODES = {"assess": "What does my guarantee mean?", "solve": "How much DP-SGD noise for a target?"}
TARGETS = {"eta": "a largest η (accuracy)", "tpr": "a largest TPR at an FPR"}
EPS_PRESETS = (1.0, 3.0, 8.0)  # ε presets from practice, with δ = PRESET_DELTA
PRESET_DELTA = 1e-5

CONTROLS = controls.table(
    choice("mode", "I want to know", list(MODES), "assess", MODES, radio=True),
    choice("target", "Target", list(TARGETS), "eta", TARGETS),
    number("teta", "largest η", 1e-6, 0.499, 0.1, 0.01, "%g", "No attacker may be right more than 1/2 + η of the time."),
    number("ttpr", "largest TPR", 1e-6, 1.0, 0.05, 0.01, "%g", "The share of members any attacker may find …"),
    number("tfpr", "at FPR", 1e-6, 0.5, 0.01, 0.001, "%g", "… while wrongly accusing this share of non-members."),
    *guarantee_inputs.rows(),
    number("prior", "share of people in the data (%)", 0.1, 99.9, 100 * DEFAULT_PRIOR, 0.5, "%g", "The membership prior: how likely a person is to be in the data before the release."),
    choice("pfpr", "naming rule's false-positive rate", list(FPR_LEVELS), 0.01, lambda f: f"{fmt_num(100 * f)}\u00a0%", "The share of non-members a rule that names members may wrongly accuse."),
    toggle("invalid", "show the invalid route", False, "An add/remove number read as if it were replace-one (shown for comparison).")
)  # fmt: skip
_BLOCKED_BY = {"eps": "ε", "delta": "δ", "mu": "μ", "rho": "ρ"}  # a value above LINK_MAX


def _set_eps(eps: float) -> None:
    st.session_state.update(mode="assess", kind=Kind.EPS_DELTA, eps=eps, delta=PRESET_DELTA)


def _set_dpsgd(p: DpSgdPreset) -> None:
    st.session_state.update(
        mode="assess", kind=Kind.DPSGD, sigma=p.noise_multiplier, q=p.sampling_rate, steps=p.steps
    )


def _assess_sigma(sigma: float) -> None:
    st.session_state.update(mode="assess", kind=Kind.DPSGD, sigma=sigma)


page = appkit.page(PAGE)
prose(PAGE, "intro")
main = page.slot()  # slot: everything below depends on the mode and the inputs


# ================================================================= solve mode
class Goal(NamedTuple):
    """What solve mode's controls chose: the run's sampling rate and steps, and the target."""

    q: float
    steps: int
    target: str  # "eta" or "tpr"
    value: float  # the largest η, or the largest TPR
    fpr: float | None  # a TPR target: the FPR it is taken at


def _goal() -> Goal | None:
    """Solve mode's controls (the run's rate and steps on the left, the target on the right),
    or None after a sentence that says why they cannot be searched for."""
    c1, c2 = st.columns(2)
    with c1:
        q, steps = controls.draw(CONTROLS["q"]), controls.draw(CONTROLS["steps"])
    with c2:
        target = controls.draw(CONTROLS["target"])
        if target == "eta":
            value, fpr = controls.draw(CONTROLS["teta"]), None
            st.caption(say(PAGE, "target_accuracy", accuracy=0.5 + value))
        else:
            value, fpr = controls.draw(CONTROLS["ttpr"]), controls.draw(CONTROLS["tfpr"])
    if not dpsgd.steps_ok(steps):
        return None
    if fpr is not None and not value > fpr:
        st.error(say(PAGE, "no_target", tpr=value, fpr=fpr), icon="🚫")
        return None
    return Goal(q, steps, target, value, fpr)


def _noise(c: Goal) -> tuple[float, float]:
    """The smallest noise multiplier for the target, and the η of the run with it (a job)."""
    label, quick = "Searching for the noise multiplier", c.steps <= CIFAR10.steps
    if c.fpr is None:
        return jobs.run(dpsgd_noise_and_eta, c.value, c.q, c.steps, label=label, quick=quick)
    return jobs.run(
        dpsgd_noise_and_eta, None, c.q, c.steps, tpr=c.value, fpr=c.fpr, label=label, quick=quick
    )


def _solution(c: Goal, sigma: float, eta: float) -> None:
    """The answer: the noise multiplier, its η and epochs, the tolerance and the way back."""
    if c.fpr is None:
        goal = say(PAGE, "goal_eta", eta=c.value, accuracy=0.5 + c.value)
    else:
        goal = say(PAGE, "goal_tpr", tpr=c.value, fpr=c.fpr)
    if sigma == 0.0:
        appkit.takeaway(say(PAGE, "no_noise", goal=goal, q=c.q, steps=c.steps, eta=eta))
        return
    m1, m2, m3 = st.columns(3)
    m1.metric("noise multiplier σ", fmt_num(sigma))
    m2.metric("η at this σ", fmt_pct(eta))
    m3.metric("epochs", fmt_num(c.steps * c.q, 3))
    appkit.takeaway(
        say(
            PAGE, "noise", goal=goal, q=c.q, steps=c.steps, sigma=sigma, eta=eta, accuracy=0.5 + eta
        )
    )
    tolerance = NOISE_TOLERANCE
    st.markdown(say(PAGE, "tolerance", tolerance=tolerance, percent=tolerance, least=PLD_MIN_NOISE))
    if sigma > 1e6:
        st.caption(prose_text(PAGE, "too_much_noise"))
    else:
        st.button(
            "Read a run with this noise in attacker terms",
            key="assess_sigma",
            on_click=_assess_sigma,
            args=(sigma,),
            icon=":material/arrow_forward:",
        )


def _solve() -> None:
    """The smallest noise multiplier for a target (mode "solve")."""
    prose(PAGE, "solve_intro")
    c = _goal()
    if c is None:
        return
    with appkit.guard("The noise multiplier for this target"):
        _solution(c, *_noise(c))
    appkit.explain(prose_text(PAGE, "solve_explain"))


# ================================================================= assess mode
def _presets() -> None:
    """The preset buttons from practice, and what they set."""
    prose(PAGE, "presets")
    cols = st.columns(len(EPS_PRESETS) + 2)
    for col, eps_p in zip(cols, EPS_PRESETS, strict=False):
        col.button(
            f"ε = {fmt_num(eps_p)}",
            key=f"preset_eps_{fmt_num(eps_p)}",
            on_click=_set_eps,
            args=(eps_p,),
            width="stretch",
        )
    for col, preset, label in ((cols[-2], CIFAR10, "CIFAR-10"), (cols[-1], E2E, "LLM (E2E)")):
        key = f"preset_{preset.key}"
        col.button(label, key=key, on_click=_set_dpsgd, args=(preset,), width="stretch")
    c, e = CIFAR10, E2E
    st.caption(
        say(
            PAGE,
            "presets_caption",
            c_sigma=c.noise_multiplier,
            c_batch=c.batch,
            c_dataset=c.dataset,
            c_epochs=c.epochs,
            c_steps=c.steps,
            e_batch=e.batch,
            e_dataset=e.dataset,
            e_epochs=e.epochs,
            e_steps=e.steps,
            e_sigma=e.noise_multiplier,
        )
    )


def _stated() -> tuple[Kind, dict[str, Any], float, float, bool]:
    """Assess mode's controls: the guarantee (its kind, its own values, the relation; a run's
    rate and steps), the share in the data, the naming FPR, the invalid route's toggle."""
    kind, read = guarantee_inputs.draw(CONTROLS)
    c3, c4, c5 = st.columns(3)
    with c3:
        prior_pct = controls.draw(CONTROLS["prior"])
    with c4:
        pfpr = controls.draw(CONTROLS["pfpr"])
    with c5:
        show_invalid = controls.draw(CONTROLS["invalid"])
    return kind, read, prior_pct, pfpr, show_invalid


def _curves(kind: Kind, read: dict[str, Any]) -> RouteCurves | None:
    """The guarantee converted by every route (None after a sentence that says why not)."""
    guarantee = guarantee_inputs.build(kind, read)
    if guarantee is None:  # a sentence said why
        return None
    with appkit.guard("This guarantee", stop=True):
        if kind not in HEAVY:  # the conversion does not depend on the share of people
            return appkit.cached(route_curves, guarantee)
        return jobs.run(
            route_curves,
            guarantee,
            label="Converting the guarantee by every route",
            # a DP-SGD run's accounting grows with its steps: the default's or fewer is quick
            quick=kind is not Kind.DPSGD or read["steps"] <= CIFAR10.steps,
        )


def _metrics(c: RouteCurves, pi: float, pfpr: float, precision: float) -> None:
    """The headline's metrics: η, best accuracy, right when naming, TPR at three FPRs."""
    b = c.bound
    (m1, m2, m3), (m4, m5, m6) = st.columns(3), st.columns(3)
    m1.metric(
        "η (edge)", fmt_pct(b.eta), help=say(PAGE, "eta_help", advantage=2.0 * b.eta, eta=b.eta)
    )
    m2.metric(
        "best accuracy", fmt_pct(b.accuracy), help=say(PAGE, "accuracy_help", accuracy=b.accuracy)
    )
    label, help_ = say(PAGE, "naming_label", prior=pi), say(PAGE, "naming_help", fpr=pfpr)
    m3.metric(label, fmt_pct(precision), help=help_)
    for m, f, t in zip((m4, m5, m6), b.fpr_levels, b.tpr_at_fpr, strict=True):
        m.metric(say(PAGE, "tpr_label", fpr=f), fmt_pct(t), help=say(PAGE, "tpr_help", tpr=t))


def _relation(c: RouteCurves) -> str:
    """The relation the guarantee is stated for, and how it was converted to replace-one."""
    g = c.guarantee
    if isinstance(g, DpSgd):
        small = ""
        if g.noise_multiplier < PLD_MIN_NOISE:
            small = " " + say(PAGE, "small_noise", least=PLD_MIN_NOISE)
        return say(PAGE, "dpsgd_relation", epochs=g.epochs, small=small)
    if g.relation is Relation.REPLACE_ONE:
        return prose_text(PAGE, "replace_one")
    if isinstance(g, EpsDelta):
        eps, delta = g.replace_pair
        conversion = say(PAGE, "group_eps_delta", epsilon=eps, delta=delta)
    elif isinstance(g, Gdp):
        conversion = say(PAGE, "group_gdp", mu=g.replace_mu)
    elif isinstance(g, Zcdp):
        conversion = say(PAGE, "group_zcdp", rho=g.replace_rho)
    else:
        conversion = prose_text(PAGE, "group_rdp")
    bad, invalid = c.bound.invalid, ""
    if bad is not None and bad.eta > 0:
        times = c.bound.eta / bad.eta
        invalid = " " + say(PAGE, "understated", eta=bad.eta, times=times)
    return say(PAGE, "add_remove", conversion=conversion, invalid=invalid)


def _headline(c: RouteCurves, name: str) -> None:
    """The headline's takeaway: what the best attacker can do, and the tightest route."""
    b = c.bound
    if b.eta == 0:
        appkit.takeaway(say(PAGE, "nothing", name=name))
    elif b.eta >= 0.5:
        appkit.takeaway(say(PAGE, "no_limit", name=name))
    else:
        route = route_label(b.route)
        appkit.takeaway(say(PAGE, "headline", name=name, accuracy=b.accuracy, route=route))


def _prior(c: RouteCurves, pi: float, pfpr: float, precision: float) -> None:
    """The prior: what an attacker naming people achieves when a share is in the data."""
    g, b = c.guarantee, c.bound
    pure = g.replace_pair[0] if isinstance(g, EpsDelta) and g.delta == 0.0 else None
    kind, confidence = named_confidence(pi, precision, eta=b.eta, pure_epsilon=pure)
    if kind is Confidence.POSTERIOR and pure is None:  # η = 0
        st.markdown(say(PAGE, "prior_zero", prior=pi, posterior=confidence))
    elif kind is Confidence.POSTERIOR:
        st.markdown(
            say(PAGE, "prior_pure", prior=pi, posterior=confidence, fpr=pfpr, ppv=precision)
        )
    else:
        if isinstance(g, EpsDelta):
            why = prose_text(PAGE, "why_delta")
        else:
            why = prose_text(PAGE, "why_other")
        tpr = b.tpr_at_fpr[FPR_LEVELS.index(pfpr)]
        st.markdown(
            say(PAGE, "prior_precision", prior=pi, fpr=pfpr, ppv=precision, tpr=tpr, why=why)
        )


def _roc(c: RouteCurves, name: str, show_invalid: bool) -> None:
    """The ROC chart of every route, its takeaway and how to read it."""
    b = c.bound
    with appkit.guard("The ROC chart"):
        fig, data = appkit.cached(routes_roc_vega, c, show_invalid=show_invalid)
        caption = say(PAGE, "roc_caption", name=name)
        appkit.chart(fig, data, "roc_by_route", key="roc_routes", caption=caption)
    valid = [x for x in c.curves if x.result.valid]
    loose = next(x for x in valid if x.result.route is b.loosest.route)
    # the comparison a reader knows: one (ε, δ) pair, else the loosest valid route
    versus = next((x for x in valid if x.result.route is Route.SINGLE_POINT), loose)
    t0, f0, v0 = b.tpr_at_fpr[0], b.fpr_levels[0], versus.at_levels[0]
    if fmt_pct(v0) != fmt_pct(t0):  # a difference the reader can see
        route = route_label(versus.result.route)
        appkit.takeaway(say(PAGE, "roc_versus", fpr=f0, tpr=t0, route=route, versus=v0))
    else:
        appkit.takeaway(say(PAGE, "roc_agree", fpr=f0, tpr=t0))
    combined = any(x.source is CurveSource.COMBINED for x in c.curves)
    pld = prose_text(PAGE, "roc_pld") + " " if combined else ""
    appkit.explain(say(PAGE, "roc_explain", pld=pld))


def _routes(c: RouteCurves) -> None:
    """Every route, side by side: the table and how loose the loosest valid route is."""
    b = c.bound
    st.subheader("Every route, side by side")
    ordered = sorted(c.curves, key=lambda x: (not x.result.valid, not x.tightest, x.result.eta))
    tpr_head = say(PAGE, "tpr_column", fpr=b.fpr_levels[0])
    appkit.tables.table(
        {
            "route": [
                route_label(x.result.route) + (" (tightest)" if x.tightest else "") for x in ordered
            ],
            "valid": ["yes" if x.result.valid else "NO" for x in ordered],
            "η": [fmt_pct(x.result.eta) for x in ordered],
            "best accuracy": [fmt_pct(0.5 + x.result.eta) for x in ordered],
            "× tightest": [fmt_num(b.over_tightest(x.result), 4) for x in ordered],
            tpr_head: [fmt_pct(x.at_levels[0]) for x in ordered],
        },
        right=["η", "best accuracy", "× tightest", tpr_head],
    )
    loose = b.loosest
    if b.looseness == float("inf"):
        st.markdown(say(PAGE, "loose_zero", route=route_label(loose.route), eta=loose.eta))
    elif b.looseness == 1.0:
        st.markdown(prose_text(PAGE, "agree"))
    else:
        route, accuracy = route_label(loose.route), 0.5 + loose.eta
        looseness = b.looseness
        st.markdown(
            say(
                PAGE, "loose", route=route, looseness=looseness, loose=accuracy, accuracy=b.accuracy
            )
        )
    single = next((r for r in b.routes if r.route is Route.SINGLE_POINT), None)
    point = next((r for r in b.routes if r.valid and r.route is Route.SINGLE_POINT), None)
    if single is not None and single.epsilon is not None and point and point.epsilon is not None:
        eps, eta = point.epsilon, single.eta
        st.caption(say(PAGE, "single_point", delta=REFERENCE_DELTA, epsilon=eps, eta=eta))


def _why_blocked(reason: str) -> str:
    """Why a link to "What does ε mean?" cannot carry a guarantee, in words."""
    if reason in _BLOCKED_BY:
        return say(PAGE, "block_max", what=_BLOCKED_BY[reason], most=LINK_MAX[reason])
    if reason == "rdp_long":
        return say(PAGE, "block_rdp_long", chars=RDP_MAX_CHARS, pairs=RDP_MAX_PAIRS)
    if reason == "not_taken":
        return prose_text(PAGE, "block_not_taken")
    return prose_text(PAGE, "block_no_point")


def _pair(c: RouteCurves) -> tuple[float | None, float | None, str]:
    """The one (ε, δ) pair a link may carry, and what it is: the guarantee's own (replace-one,
    or converted to it), else its single (ε, δ) point at δ = 10⁻⁵ (for add/remove Rényi DP: its
    add/remove ε, converted); (None, None, "") when no point was computed."""
    g, b = c.guarantee, c.bound
    point = next((r for r in b.routes if r.valid and r.route is Route.SINGLE_POINT), None)
    if isinstance(g, EpsDelta) and g.relation is Relation.ADD_OR_REMOVE_ONE:
        return *g.replace_pair, prose_text(PAGE, "pair_group")
    if isinstance(g, EpsDelta):
        return *g.replace_pair, prose_text(PAGE, "pair_input")
    if point is not None and point.delta == REFERENCE_DELTA:
        return point.epsilon, point.delta, prose_text(PAGE, "pair_point")
    if point is not None:
        return point.epsilon, point.delta, prose_text(PAGE, "pair_group_point")
    return None, None, ""


def _links(c: RouteCurves, name: str, pi: float) -> list[str]:
    """The links to "What does ε mean?" as Markdown list items: the guarantee itself first (or
    why it cannot be carried), then the looser readings."""
    g, b = c.guarantee, c.bound
    share = link_prior(pi) / 100
    if getattr(g, "relation", None) is Relation.ADD_OR_REMOVE_ONE:
        name += " (add/remove)"
    same, same_blocked = guarantee_query(g)
    lines = []
    if same is not None:
        link = stakeholder_link(same, pi)
        lines.append(say(PAGE, "link_same", name=name, share=share, link=link))
    elif same_blocked is not None:
        lines.append(say(PAGE, "link_blocked", name=name, why=_why_blocked(same_blocked)))
    eps, delta, what = _pair(c)
    pair, blocked = (None, "no_point") if eps is None or delta is None else pair_query(eps, delta)
    if pair is not None and pair != same and eps is not None and delta is not None:
        link = stakeholder_link(pair, pi)
        ratio = float(eta_from_epsilon(eps, delta)) / b.eta if b.eta > 0 else None
        over = ""
        if ratio is not None and ratio > 1.0 + 1e-9:  # the single pair overstates η
            over = say(PAGE, "link_overstates", ratio=ratio)
        looser = " " + prose_text(PAGE, "link_looser") if same is not None else ""
        lines.append(
            say(
                PAGE,
                "link_pair",
                epsilon=eps,
                delta=delta,
                share=share,
                link=link,
                what=what,
                over=over,
                looser=looser,
            )
        )
    elif pair is None and same is None and blocked != same_blocked:
        lines.append(say(PAGE, "link_pair_blocked", why=_why_blocked(blocked or "no_point")))
    link = stakeholder_link({"kind": "mip", "eta": repr(b.eta)}, pi)
    lines.append(say(PAGE, "link_eta", eta=b.eta, share=share, link=link))
    return lines


def _stakeholder(c: RouteCurves, name: str, pi: float) -> None:
    """For a stakeholder: the guarantee in one plain sentence, and the links to show it."""
    b = c.bound
    st.subheader("For a stakeholder")
    if b.eta >= 0.5:
        st.markdown(prose_text(PAGE, "stakeholder_none"))
    elif b.eta == 0:
        st.markdown(prose_text(PAGE, "stakeholder_zero"))
    else:
        n, tpr = round(1 / b.fpr_levels[0]), b.tpr_at_fpr[0]
        st.markdown(say(PAGE, "stakeholder", accuracy=b.accuracy, n=n, tpr=tpr))
    st.markdown(say(PAGE, "links", lines="\n".join(_links(c, name, pi))))


def _assess() -> None:
    """A guarantee read in attacker terms (mode "assess")."""
    _presets()
    kind, read, prior_pct, pfpr, show_invalid = _stated()
    c = _curves(kind, read)
    if c is None:
        return
    pi, b = prior_pct / 100.0, c.bound
    precision = ppv(pi, pfpr, b.tpr_at_fpr[FPR_LEVELS.index(pfpr)])
    name = guarantee_inputs.name(c.guarantee)
    _metrics(c, pi, pfpr, precision)
    st.markdown(_relation(c))
    _headline(c, name)
    _prior(c, pi, pfpr, precision)
    _roc(c, name, show_invalid)
    _routes(c)
    _stakeholder(c, name, pi)
    with appkit.folded("The maths") as shown:
        if shown:
            prose(PAGE, "maths")


def _live() -> None:
    with main:
        appkit.messages()
        if controls.draw(CONTROLS["mode"]) == "solve":
            _solve()
        else:
            _assess()


appkit.live(page, _live)
