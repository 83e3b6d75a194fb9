"""Can a defense look private while its reference data leak? Weighted ERM, theory and experiment.

Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira, *A Cautionary Tale: On the Role of Reference
Data in Empirical Privacy Defenses*, PETS 2024, arXiv:2310.12112. The controls (the table
:data:`CONTROLS`) → :mod:`mipcore.reference_data` (Figure 2, cached) and
:mod:`mipcore.experiments.reference_sweep` (the sweep through :func:`appkit.jobs.run`, read
for other thresholds without refitting) → :mod:`mipcore.plots.reference_vega` (Vega-Lite) →
the sentences of ``reference_data.md``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import appkit
import appkit.jobs
from appkit import controls, fmt_num, fmt_pct, settings
from appkit.controls import choice, number, slider, toggle
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore.bounds import eta_from_epsilon
from mipcore.experiments import reference_sweep as rs
from mipcore.experiments.reference_sweep import LeakConfig, SweepResult, Target, TrendTest
from mipcore.plots import reference_vega
from mipcore.plots.reference_vega import Unit
from mipcore.reference_data import (
    Figure2Fact,
    SelectionRule,
    equal_privacy_weight,
    figure2,
    split_sizes,
    werm_etas,
)

PAGE = "reference_data"
UNIT_TEXT = {Unit.EPSILON: "ε (Theorem 3.1)", Unit.ETA: "η, as attacker accuracy"}
#: Figure 2's grid of w (the figure adds w* = N_R/N).
WEIGHTS = np.linspace(0.0, 1.0, 21)
ATTACKS = ("confidence", "gap", "loss")
ATTACK_TEXT = {
    "confidence": "confidence threshold (the paper's)",
    "gap": "gap (correct ⇒ member)",
    "loss": "loss threshold",
}
FACT_TEXT = {
    Figure2Fact.SHARED_POINT: r"at $w^*$ both sets get ε₀/N and utility is maximal ($N_\mathrm{eff} = N$)",
    Figure2Fact.N_EFF_AT_MOST_N: "the effective sample size never exceeds N",
    Figure2Fact.UTILITY_RISES_THEN_FALLS: "utility first rises with w, then falls, peaking at $w^*$",
    Figure2Fact.PRIVACY_TRADE: "as w grows, the reference set's ε rises and the training set's falls",
    Figure2Fact.RECIPROCAL_SYMMETRY: "the curves for $N_T/N_R$ and its reciprocal swap roles",
}
RULE_TEXT = {
    SelectionRule.PUBLIC_REFERENCE: ("Public reference data", "attack on $D_T$ ≤"),
    SelectionRule.EQUAL_PRIVACY: ("Equal privacy", "attack gap |$D_T$ − $D_R$| ≤"),
    SelectionRule.HIGH_REFERENCE_PRIVACY: ("Highly private reference data", "attack on $D_R$ ≤"),
}
RULE_CLAIM_TEXT = {
    SelectionRule.PUBLIC_REFERENCE: "The public-reference rule picks a w above w*",
    SelectionRule.EQUAL_PRIVACY: "The equal-privacy rule picks a w within one grid step of w*",
    SelectionRule.HIGH_REFERENCE_PRIVACY: "The high-reference-privacy rule picks a w below w*",
}
BASE = LeakConfig()

CONTROLS = controls.table(
    slider("eps0", "ε₀, the DP-SGD budget (ε₀ ∝ 1/noise)", 10, 5000, 1000, 10),
    slider("N", "$N = N_T + N_R$ records", 1000, 100_000, 20_000, 1000),
    slider("ratio", "$N_T/N_R$, training over reference size", 0.1, 10.0, 0.25, 0.05, "%.2f"),
    choice("unit", "Privacy axis", list(Unit), Unit.EPSILON, UNIT_TEXT, radio=True),
    slider("nt", "$N_T$, training records", 100, 3000, 600, 100),
    slider("nr", "$N_R$, reference records", 100, 3000, 600, 100),
    slider("d", "features (dimension)", 10, 1000, 300, 10),
    slider("sep", "class separation (small = overlapping classes)", 0.2, 3.0, 0.8, 0.1, "%.1f"),
    slider("nw", "number of w values", 3, 21, 11),
    slider("seeds", "seeds (repetitions)", 1, 20, 5),
    number("seed", "first seed", 0, 1_000_000, 0, 1, "%d"),
    choice("attack", "Attack used to judge privacy (and by the selection rules)", ATTACKS, "confidence", ATTACK_TEXT, radio=True),
    slider("t_train", "public reference: attack on $D_T$ at most (%)", 50.0, 70.0, 51.0, 0.5, "%.1f"),
    slider("t_gap", "equal privacy: attack gap at most (points)", 0.0, 20.0, 4.0, 0.5, "%.1f"),
    slider("t_ref", "private reference: attack on $D_R$ at most (%)", 50.0, 70.0, 51.0, 0.5, "%.1f"),
    toggle("train_only", "Report training-data leakage only (as many defenses do)"),
)  # fmt: skip


def verdict_text(holds: bool | None, missing: str = "not judged") -> str:
    return "✅ holds" if holds else ("➖ " + missing if holds is None else "❌ does not hold")


def trend_evidence(t: rs.TrendVerdict) -> str:
    if t.test is TrendTest.NOT_ENOUGH_WEIGHTS:
        return prose_text(PAGE, "trend_none")
    how = (
        say(PAGE, "trend_seeds", seeds=t.n_seeds, agree=t.seeds_with_claimed_sign)
        if t.test is TrendTest.SEED_SLOPE_T_TEST
        else prose_text(PAGE, "trend_single")
    )
    sign = "+" if t.slope >= 0 else "−"
    return say(
        PAGE, "trend", sign=sign, slope=abs(100 * t.slope), p=t.p_value, how=how, alpha=t.alpha
    )


page = appkit.page(PAGE)
prose(PAGE, "intro")

# ================================================================= theory
st.subheader("1. What the theory predicts (the paper's Figure 2)")
theory_slot = page.slot()

# ================================================================= experiment
st.subheader("2. The experiment: WERM on toy data, attacked on both sets")
appkit.explain(
    say(PAGE, "what_is_run", classes=BASE.n_classes, informative=BASE.n_informative,
        flip=fmt_pct(BASE.flip_y, 0), calib=BASE.n_calib, evaluate=BASE.n_eval),
    label="What is run",
)  # fmt: skip
experiment = page.slot()

with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")


def _figure2() -> None:
    """The theory's controls (ε₀, N and N_T/N_R side by side, then the privacy axis), Figure 2
    (or why Theorem 3.1 does not apply), its takeaway, verdicts and caveats."""
    values = []
    for column, key in zip(st.columns(3), ("eps0", "N", "ratio"), strict=True):
        with column:
            values.append(float(controls.draw(CONTROLS[key])))
    (eps0, n_total, ratio), unit = values, controls.draw(CONTROLS["unit"])
    with appkit.guard("Figure 2", stop=True):
        n_train, n_ref = split_sizes(n_total, ratio)
        figure = (  # Theorem 3.1 holds on all of 0 <= w <= 1 for eps0 < min(N_T, N_R)
            appkit.cached(figure2, eps0, n_total, (ratio,), w=WEIGHTS)
            if eps0 < min(n_train, n_ref)
            else None
        )
    if figure is None:
        smaller = min(n_train, n_ref)
        st.warning(
            say(PAGE, "outside", n=n_total, ratio=ratio, smaller=smaller, eps0=eps0), icon="⚠️"
        )
        return
    w_star = float(equal_privacy_weight(n_train, n_ref))
    chart, data = appkit.cached(reference_vega.theory_vega, figure, w_star, unit)
    if unit is Unit.ETA:
        caption = prose_text(PAGE, "theory_caption_eta")
    else:
        caption = say(PAGE, "theory_caption", eps0=eps0, n=n_total, ratio=ratio, w_star=w_star)
    appkit.chart(chart, data, "figure2_theory", key="ref_chart_theory", caption=caption)
    eps_star = eps0 / n_total  # ε_T = ε_R at w*
    illustrated = 0.5 + float(eta_from_epsilon(eps_star))
    as_acc = " " + say(PAGE, "as_accuracy", accuracy=illustrated) if unit is Unit.ETA else ""
    appkit.takeaway(
        say(PAGE, "theory_takeaway", w_star=w_star, eps_star=eps_star, as_accuracy=as_acc)
    )
    facts = "; ".join(("✅ " if v.holds else "❌ ") + FACT_TEXT[v.fact] for v in figure.verdicts)
    st.caption(say(PAGE, "facts", facts=facts))
    # the illustrative η of each set where it is least private (Theorem 3.1's ε there):
    # D_T at w = 0 (ε₀/N_T), D_R at w = 1 (ε₀/N_R)
    ends = werm_etas((0.0, 1.0), n_train, n_ref, eps0)
    train, ref = 0.5 + float(np.asarray(ends.train)[0]), 0.5 + float(np.asarray(ends.reference)[1])
    appkit.explain(
        say(PAGE, "exactness", chance=0.5, train=train, ref=ref), label="How exact is this?"
    )


def _experiment_controls() -> tuple[LeakConfig, str]:
    """The experiment's controls: sizes, data, grid and seeds in three columns, then the
    attack; the sweep they ask for."""
    columns = zip(st.columns(3), (("nt", "nr"), ("d", "sep"), ("nw", "seeds", "seed")), strict=True)
    v: dict = {}
    for column, keys in columns:
        with column:
            v |= controls.draw_all(CONTROLS, *keys)
    attack = controls.draw(CONTROLS["attack"])
    config = LeakConfig(
        n_train=int(v["nt"]),
        n_ref=int(v["nr"]),
        n_features=int(v["d"]),
        n_informative=min(BASE.n_informative, int(v["d"])),
        class_sep=float(v["sep"]),
        weights=rs.weight_grid(int(v["nw"])),
        n_seeds=int(v["seeds"]),
        seed=int(v["seed"]),
    )
    return config, attack


def _sweep(config: LeakConfig) -> SweepResult | None:
    """The sweep's size (a warning above the server's ceiling, else a caption), then the sweep."""
    work = rs.check_work(config, settings.WORK_LIMIT)
    n_w, seeds, records, dim = (
        len(config.weights),
        config.n_seeds,
        config.n_total,
        config.n_features,
    )
    size = say(PAGE, "size", fits=work.fits, n_w=n_w, seeds=seeds, records=records, dim=dim)
    if not work.allowed:
        st.warning(say(PAGE, "too_big", size=size, work=work.work, ceiling=work.ceiling), icon="⚠️")
        return None
    st.caption(say(PAGE, "sweep_size", size=size, work=work.work, ceiling=work.ceiling))
    with appkit.guard("The sweep", stop=True):
        return appkit.jobs.run(
            rs.run_sweep,
            config,
            label="Fitting WERM for every w and seed",
            quick=work.work <= rs.sweep_work(BASE),  # the default's or less
        )


def _picks(res: SweepResult) -> None:
    """What each selection rule picks, one bullet per rule."""
    lines = []
    for s in res.selections:
        name, criterion = RULE_TEXT[s.rule]
        unit = " points" if s.rule is SelectionRule.EQUAL_PRIVACY else "\u00a0%"
        limit = fmt_num(100 * s.threshold, 3) + unit
        outcome = (
            prose_text(PAGE, "pick_none")
            if s.w is None
            else say(
                PAGE, "pick", w=s.w, test=s.test_accuracy, train=s.attack_train, ref=s.attack_ref
            )
        )
        lines.append(
            say(PAGE, "rule", name=name, criterion=criterion, limit=limit, outcome=outcome)
        )
    st.markdown("\n".join(lines))


def _triad(res: SweepResult) -> bool:
    """The training-only toggle and the triad chart; returns the toggle's value."""
    train_only = controls.draw(CONTROLS["train_only"])
    chart, data = appkit.cached(reference_vega.triad_vega, res, train_only)
    attack = res.config.selection_attack.value
    pick = res.training_only_pick.w
    caption = say(
        PAGE,
        "triad_caption",
        attack=reference_vega.ATTACK_NAMES.get(attack, attack).capitalize(),
        seeds=res.config.n_seeds,
        w_star=res.w_star,
        pick=say(PAGE, "triad_pick", w=pick) if pick is not None else ".",
    )
    appkit.chart(chart, data, "reference_triad", key="ref_chart_triad", caption=caption)
    return train_only


def _reading(res: SweepResult, train_only: bool, t_train: float) -> None:
    """The triad's takeaway (the defense's report, or what it leaves out) and unconverged fits."""
    pick = res.training_only_pick
    if pick.w is None:
        appkit.takeaway(say(PAGE, "no_pick", limit=t_train))
    else:
        tr, ref = res.at(pick.w, Target.TRAIN), res.at(pick.w, Target.REFERENCE)
        acc, lo, hi = tr["accuracy_mean"], tr["pooled_ci_low"], tr["pooled_ci_high"]
        if train_only:
            appkit.takeaway(
                say(PAGE, "report", w=pick.w, test=pick.test_accuracy, accuracy=acc, lo=lo, hi=hi)
            )
            st.caption(prose_text(PAGE, "report_hint"))
        else:
            train = (
                say(PAGE, "train_private", accuracy=acc, lo=lo, hi=hi)
                if not lo > 0.5
                else say(PAGE, "train_within", limit=t_train, accuracy=acc)
            )
            r_acc, r_lo, r_hi = ref["accuracy_mean"], ref["pooled_ci_low"], ref["pooled_ci_high"]
            if r_lo > 0.5:  # the reference data leak: empirical lower bounds, not guarantees
                eta, eps = ref["eta_empirical_lower_bound"], ref["epsilon_empirical_lower_bound"]
                leak = say(PAGE, "ref_exposed", accuracy=r_acc, lo=r_lo, hi=r_hi, eta=eta, eps=eps)
            else:
                leak = say(PAGE, "ref_quiet", accuracy=r_acc, lo=r_lo, hi=r_hi)
            appkit.takeaway(say(PAGE, "at_pick", w=pick.w, train=train, ref=leak))
    converged = res.fits["converged"].to_numpy(bool)
    if not converged.all():
        stopped = int((~converged).sum())
        st.warning(
            say(PAGE, "unconverged", unconverged=stopped, fits=int(converged.size)), icon="⚠️"
        )


def _headline(res: SweepResult) -> None:
    """The paper's headline claims judged on this run, as a table, and what they can say."""
    attack = res.config.selection_attack
    st.markdown(say(PAGE, "headline", attack=reference_vega.ATTACK_NAMES[attack.value]))
    trends = [
        ("Reference-data leakage rises with w", res.trend(attack, Target.REFERENCE)),
        ("Training-data leakage falls with w", res.trend(attack, Target.TRAIN)),
    ]
    table = [(claim, verdict_text(t.holds), trend_evidence(t)) for claim, t in trends]
    step = " " + say(PAGE, "rule_step", step=res.tolerance)  # "near w*" of the equal rule
    for s in res.selections:
        near = step if s.rule is SelectionRule.EQUAL_PRIVACY else ""
        evidence = "no w qualifies"
        if s.w is not None:
            evidence = say(PAGE, "rule_pick", w=s.w, w_star=res.w_star, step=near)
        verdict = verdict_text(res.rule_holds(s.rule), "nothing picked")
        table.append((RULE_CLAIM_TEXT[s.rule], verdict, evidence))
    w = res.training_only_pick.w
    if w is None:
        evidence = "no w qualifies"
    else:
        ref = res.at(w, Target.REFERENCE)
        evidence = say(PAGE, "hidden", w=w, lo=ref["pooled_ci_low"], hi=ref["pooled_ci_high"])
    claim = "At the training-only pick, the reference data leak"
    table.append((claim, verdict_text(res.hidden_leak, "nothing picked"), evidence))
    appkit.tables.table(pd.DataFrame(table, columns=["The paper says", "On this run", "Evidence"]))
    appkit.explain(prose_text(PAGE, "can_and_cannot"), label="What the numbers can and cannot say")


def _results(result: SweepResult, attack: str) -> None:
    """The selection rules' thresholds and picks, the triad chart, its reading, the headline."""
    st.markdown(prose_text(PAGE, "rules"))
    limits = []
    for column, key in zip(st.columns(3), ("t_train", "t_gap", "t_ref"), strict=True):
        with column:
            limits.append(controls.draw(CONTROLS[key]))
    t_train, t_gap, t_ref = limits
    with appkit.guard("The selection", stop=True):
        # the sweep read for these thresholds and this attack (no refit); the chart below is
        # keyed by this result, not by hashing its tables again
        res = appkit.cached(
            rs.reselect,
            result,
            attack=attack,
            max_train_attack=t_train / 100,
            max_gap=t_gap / 100,
            max_ref_attack=t_ref / 100,
        )
        _picks(res)  # Table 2's picks, computed inside the guard
    train_only = _triad(res)
    _reading(res, train_only, t_train)
    _headline(res)


def _live() -> None:
    """The live part: the theory and its Figure 2, then the experiment and its results."""
    with theory_slot:
        appkit.messages()
        _figure2()
    with experiment:
        config, attack = _experiment_controls()
        result = _sweep(config)
        if result is not None:
            _results(result, attack)


appkit.live(page, _live)
