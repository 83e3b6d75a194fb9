"""Can a defense look private while its reference data leak? Weighted ERM, theory and experiment.

Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira, *A Cautionary Tale: On the Role of Reference
Data in Empirical Privacy Defenses*, PETS 2024, arXiv:2310.12112. Widgets →
:mod:`mipcore.reference_data` (Figure 2, cached) and :mod:`mipcore.lessons.reference_leak`
(the sweep through :func:`appkit.jobs.run`, reselected without refitting) →
:mod:`mipcore.plots.reference_vega` (Vega-Lite) → sentences.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

import appkit
import appkit.jobs
from appkit import fmt_num, fmt_pct, settings
from appkit.prose import prose
from mipcore.bounds import eta_from_epsilon
from mipcore.lessons import reference_leak as rl
from mipcore.lessons.reference_leak import LeakConfig, TrendTest, TrendVerdict
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


def pct(x: float) -> str:
    return fmt_pct(x)


def verdict_text(holds: bool | None, missing: str = "not judged") -> str:
    return "✅ holds" if holds else ("➖ " + missing if holds is None else "❌ does not hold")


def trend_evidence(t: TrendVerdict) -> str:
    if t.test is TrendTest.NOT_ENOUGH_WEIGHTS:
        return "too few w values to judge a trend"
    slope = f"{'+' if t.slope >= 0 else '−'}{fmt_num(abs(100 * t.slope), 3)} points per unit of w"
    how = (
        f"one-sided t-test on the {t.n_seeds} seeds' slopes; {t.seeds_with_claimed_sign} of "
        f"{t.n_seeds} seeds agree"
        if t.test is TrendTest.SEED_SLOPE_T_TEST
        else "one-sided regression test on the single seed"
    )
    return f"slope {slope}, p = {fmt_num(t.p_value, 2)} ({how}; holds if p < {fmt_num(t.alpha)})"


page = appkit.page("reference_data")
prose("reference_data", "intro")

# ================================================================= theory
st.subheader("1. What the theory predicts (the paper's Figure 2)")
theory_slot = page.slot()

# ================================================================= experiment
st.subheader("2. The experiment: WERM on toy data, attacked on both sets")
BASE = LeakConfig()
appkit.explain(
    f"Synthetic classification data ({BASE.n_classes} classes, {BASE.n_informative} "
    f"informative features, {fmt_pct(BASE.flip_y, 0)} random labels): $D_T$ and $D_R$ of the "
    f"sizes chosen below, {BASE.n_calib} fresh records to calibrate the attacks and "
    f"{BASE.n_eval} to evaluate them (and to measure test accuracy). A logistic regression "
    "is fitted by WERM for every w of the grid, on every seed; each model is attacked on "
    "$D_T$ and on $D_R$ by black-box attacks that know each record's label, scored on half of "
    "each set against as many fresh records (a coin flip gets 50 %). The paper uses neural "
    "networks; a small MLP took about 8 s per fit here, too slow for a page, so this page "
    "fits logistic regressions only.",
    label="What is run",
)
experiment = page.slot()

with appkit.folded("The maths") as shown:
    if shown:
        prose("reference_data", "maths")


class Theory(NamedTuple):
    """What the theory's controls chose."""

    eps0: float
    n_total: float
    ratio: float
    unit: Unit


class Experiment(NamedTuple):
    """What the experiment's controls chose."""

    n_train: int
    n_ref: int
    dim: int
    class_sep: float
    n_w: int
    n_seeds: int
    seed: int
    attack: str


class Thresholds(NamedTuple):
    """What the selection rules' controls chose: attack accuracies in %, the gap in points."""

    t_train: float
    t_gap: float
    t_ref: float


def _theory_controls() -> Theory:
    """The theory's controls: ε₀, N and N_T/N_R side by side, then the privacy axis."""
    c1, c2, c3 = st.columns(3)
    with c1:
        eps0 = appkit.url_slider(
            "ε₀, the DP-SGD budget (ε₀ ∝ 1/noise)",
            "eps0",
            min_value=10,
            max_value=5000,
            default=1000,
            step=10,
        )
    with c2:
        n_total = appkit.url_slider(
            "$N = N_T + N_R$ records",
            "N",
            min_value=1000,
            max_value=100_000,
            default=20_000,
            step=1000,
        )
    with c3:
        ratio = appkit.url_slider(
            "$N_T/N_R$, training over reference size",
            "ratio",
            min_value=0.1,
            max_value=10.0,
            default=0.25,
            step=0.05,
            format="%.2f",
        )
    unit = appkit.url_select(
        "Privacy axis",
        "unit",
        list(Unit),
        default=Unit.EPSILON,
        widget="radio",
        format_func=lambda u: UNIT_TEXT[u],
    )
    return Theory(eps0, n_total, ratio, unit)


def _figure2(t: Theory) -> None:
    """Figure 2 (or why Theorem 3.1 does not apply), its takeaway, verdicts and caveats."""
    eps0, n_total, ratio = float(t.eps0), float(t.n_total), float(t.ratio)
    with appkit.guard("Figure 2", stop=True):
        n_train, n_ref = split_sizes(n_total, ratio)
        figure = (  # Theorem 3.1 holds on all of 0 <= w <= 1 for eps0 < min(N_T, N_R)
            appkit.cached(figure2, eps0, n_total, (ratio,), w=WEIGHTS)
            if eps0 < min(n_train, n_ref)
            else None
        )
    if figure is None:
        st.warning(
            f"With N = {fmt_num(t.n_total)} and $N_T/N_R$ = {fmt_num(t.ratio, 3)} the smaller set has "
            f"{fmt_num(min(n_train, n_ref))} records. Theorem 3.1 holds only for ε₀ below that (so that "
            f"both sets' ε stay below 1), and ε₀ = {fmt_num(t.eps0)} is not: lower ε₀, raise N, or "
            "move $N_T/N_R$ towards 1.",
            icon="⚠️",
        )
        return
    w_star = float(equal_privacy_weight(n_train, n_ref))
    chart, data = appkit.cached(reference_vega.theory_vega, figure, w_star, t.unit)
    appkit.chart(
        chart,
        data,
        "figure2_theory",
        key="ref_chart_theory",
        caption=reference_vega.theory_caption(figure, w_star, t.unit),
    )
    eps_star = eps0 / n_total  # ε_T = ε_R at w*
    as_acc = (
        " (illustratively, an attacker right at most "
        f"{pct(0.5 + float(eta_from_epsilon(eps_star)))} of the time)"
        if t.unit is Unit.ETA
        else ""
    )
    appkit.takeaway(
        f"At $w^* = N_R/N$ = {fmt_num(w_star, 3)} both sets get ε = ε₀/N = "
        f"{fmt_num(eps_star, 3)}{as_acc} and utility is at its maximum; any other w "
        "buys one set's privacy with the other's, and with utility."
    )
    facts = "; ".join(f"{'✅' if v.holds else '❌'} {FACT_TEXT[v.fact]}" for v in figure.verdicts)
    st.caption(
        f"The paper's statements about Figure 2, evaluated exactly on these curves: {facts}."
    )
    # the illustrative η of each set where it is least private (Theorem 3.1's ε there):
    # D_T at w = 0 (ε₀/N_T), D_R at w = 1 (ε₀/N_R)
    ends = werm_etas((0.0, 1.0), n_train, n_ref, eps0)
    eta_train_max = float(np.asarray(ends.train)[0])  # D_T at w = 0
    eta_ref_max = float(np.asarray(ends.reference)[1])  # D_R at w = 1
    appkit.explain(
        "Theorem 3.1: WERM trained with DP-SGD is (O($\\varepsilon_T$), δ)-DP for $D_T$ and "
        "(O($\\varepsilon_R$), δ)-DP for $D_R$, with $\\varepsilon_T = \\varepsilon_0(1-w)/N_T$ "
        "and $\\varepsilon_R = \\varepsilon_0 w/N_R$. It states **orders of "
        "magnitude**: the constants are not given, only the ratio of the two ε is exact. The η "
        "axis applies Theorem 4 of *Provable Membership Inference Privacy* (Izzo, Yoon, Arık, "
        "Zou, TMLR 2024, arXiv:2211.06582; δ = 0) to these ε, so its accuracies "
        f"(from {pct(0.5)} up to {pct(0.5 + eta_train_max)} for $D_T$ at w = 0 "
        f"and {pct(0.5 + eta_ref_max)} for $D_R$ at w = 1) "
        "illustrate the trade; they certify nothing. Utility is Theorem 3.2's effective sample "
        "size $N_\\mathrm{eff}$ (see “The maths”), which governs WERM's generalisation bound.",
        label="How exact is this?",
    )


def _experiment_controls() -> Experiment:
    """The experiment's controls: sizes, data, grid and seeds in three columns, then the attack."""
    e1, e2, e3 = st.columns(3)
    with e1:
        n_train = appkit.url_slider(
            "$N_T$, training records",
            "nt",
            min_value=100,
            max_value=3000,
            default=600,
            step=100,
        )
        n_ref = appkit.url_slider(
            "$N_R$, reference records",
            "nr",
            min_value=100,
            max_value=3000,
            default=600,
            step=100,
        )
    with e2:
        dim = appkit.url_slider(
            "features (dimension)", "d", min_value=10, max_value=1000, default=300, step=10
        )
        class_sep = appkit.url_slider(
            "class separation (small = overlapping classes)",
            "sep",
            min_value=0.2,
            max_value=3.0,
            default=0.8,
            step=0.1,
            format="%.1f",
        )
    with e3:
        n_w = appkit.url_slider("number of w values", "nw", min_value=3, max_value=21, default=11)
        n_seeds = appkit.url_slider(
            "seeds (repetitions)", "seeds", min_value=1, max_value=20, default=5
        )
        seed = appkit.url_number(
            "first seed",
            "seed",
            min_value=0,
            max_value=1_000_000,
            default=0,
            step=1,
            format="%d",
        )
    attack = appkit.url_select(
        "Attack used to judge privacy (and by the selection rules)",
        "attack",
        ATTACKS,
        default="confidence",
        widget="radio",
        format_func=lambda a: ATTACK_TEXT[a],
    )
    return Experiment(n_train, n_ref, dim, class_sep, n_w, n_seeds, seed, attack)


def _sweep(e: Experiment) -> rl.SweepResult | None:
    """The sweep's size (a warning above the server's ceiling, else a caption), then the sweep."""
    config = LeakConfig(
        n_train=int(e.n_train),
        n_ref=int(e.n_ref),
        n_features=int(e.dim),
        n_informative=min(BASE.n_informative, int(e.dim)),
        class_sep=float(e.class_sep),
        weights=rl.weight_grid(int(e.n_w)),
        n_seeds=int(e.n_seeds),
        seed=int(e.seed),
    )
    work = rl.check_work(config, settings.WORK_LIMIT)
    records = config.n_total
    if not work.allowed:
        st.warning(
            f"This sweep asks for {work.fits} fits ({e.n_w} w values × {e.n_seeds} seeds) of "
            f"{fmt_num(records)} records × {e.dim} features: {fmt_num(work.work, 3)} units of work, "
            f"above the {fmt_num(work.ceiling, 3)} one request may ask for on this server. Use "
            "fewer seeds, w values, features or records. On your own machine you can raise the "
            "ceiling: `MIP_EXPLORER_WORK_LIMIT=10 streamlit run app.py`.",
            icon="⚠️",
        )
        return None
    st.caption(
        f"This sweep: {work.fits} fits ({e.n_w} w values × {e.n_seeds} seeds) of "
        f"{fmt_num(records)} records × {e.dim} features, {fmt_num(work.work, 3)} units of work "
        f"(one request may ask for {fmt_num(work.ceiling, 3)}; `MIP_EXPLORER_WORK_LIMIT` "
        "raises it on your own machine)."
    )
    with appkit.guard("The sweep", stop=True):
        result = appkit.jobs.run(
            rl.sweep,
            config,
            label="Fitting WERM for every w and seed",
            quick=work.work <= rl.sweep_work(BASE),  # the default's or less
        )
    return result


def _threshold_controls() -> Thresholds:
    """Table 2's selection rules: a sentence, then each rule's threshold side by side."""
    st.markdown("**Table 2's selection rules** pick the most useful w under a privacy constraint:")
    t1, t2, t3 = st.columns(3)
    with t1:
        t_train = appkit.url_slider(
            "public reference: attack on $D_T$ at most (%)",
            "t_train",
            min_value=50.0,
            max_value=70.0,
            default=51.0,
            step=0.5,
            format="%.1f",
        )
    with t2:
        t_gap = appkit.url_slider(
            "equal privacy: attack gap at most (points)",
            "t_gap",
            min_value=0.0,
            max_value=20.0,
            default=4.0,
            step=0.5,
            format="%.1f",
        )
    with t3:
        t_ref = appkit.url_slider(
            "private reference: attack on $D_R$ at most (%)",
            "t_ref",
            min_value=50.0,
            max_value=70.0,
            default=51.0,
            step=0.5,
            format="%.1f",
        )
    return Thresholds(t_train, t_gap, t_ref)


def _picks(res) -> None:
    """What each selection rule picks, one bullet per rule."""
    lines = []
    for s in res.selections:
        name, crit = RULE_TEXT[s.rule]
        limit = fmt_num(100 * s.threshold, 3) + (
            " points" if s.rule is SelectionRule.EQUAL_PRIVACY else " %"
        )
        if s.w is None:
            lines.append(f"- **{name}** ({crit} {limit}): no w qualifies on this run.")
        else:
            assert s.test_accuracy is not None and s.attack_train is not None
            assert s.attack_ref is not None
            lines.append(
                f"- **{name}** ({crit} {limit}): picks **w = {fmt_num(s.w, 3)}** — test "
                f"accuracy {pct(s.test_accuracy)}, attack on $D_T$ {pct(s.attack_train)}, on "
                f"$D_R$ {pct(s.attack_ref)}."
            )
    st.markdown("\n".join(lines))


def _triad(res) -> bool:
    """The training-only toggle and the triad chart; returns the toggle's value."""
    train_only = appkit.url_toggle(
        "Report training-data leakage only (as many defenses do)",
        "train_only",
        default=False,
    )
    chart, data = appkit.cached(reference_vega.triad_vega, res, train_only)
    appkit.chart(
        chart,
        data,
        "reference_triad",
        key="ref_chart_triad",
        caption=reference_vega.triad_caption(res),
    )
    return train_only


def _reading(ex, train_only: bool, t_train: float) -> None:
    """The triad's takeaway (the defense's report, or what it leaves out) and unconverged fits."""
    r = ex.reading
    if r is None:
        appkit.takeaway(
            f"No w keeps the attack on the training data at or below {fmt_num(t_train, 3)} %: "
            "the training-only evaluator has nothing to report (raise its threshold)."
        )
    elif train_only:
        appkit.takeaway(
            f"The defense's report: at w = {fmt_num(r.w, 3)}, test accuracy "
            f"{pct(r.test_accuracy)} and an attack on the training data right "
            f"{pct(r.train.accuracy)} of the time (95 % interval {pct(r.train.ci_low)}–"
            f"{pct(r.train.ci_high)}): the training data look private. Nothing is said about "
            "the reference data."
        )
        st.caption("Turn the toggle off to see what this report leaves out.")
    else:
        train_part = (
            f"the training data look private (attack accuracy {pct(r.train.accuracy)}, 95 % "
            f"interval {pct(r.train.ci_low)}–{pct(r.train.ci_high)})"
            if not r.train.beats_chance
            else f"the attack on the training data stays within the rule's "
            f"{fmt_num(t_train, 3)} % ({pct(r.train.accuracy)})"
        )
        if r.reference.beats_chance:
            ref_part = (
                f"but the reference data are exposed (attack accuracy "
                f"{pct(r.reference.accuracy)}, 95 % interval {pct(r.reference.ci_low)}–"
                f"{pct(r.reference.ci_high)}; empirical η ≥ {fmt_num(r.reference.eta_lower_bound, 3)}, "
                f"ε ≥ {fmt_num(r.reference.epsilon_lower_bound, 3)} — lower bounds from this "
                "attack, not guarantees)"
            )
        else:
            ref_part = (
                f"and on this run the reference data show no leak either (attack accuracy "
                f"{pct(r.reference.accuracy)}, 95 % interval {pct(r.reference.ci_low)}–"
                f"{pct(r.reference.ci_high)}, which includes 50 %)"
            )
        appkit.takeaway(f"At w = {fmt_num(r.w, 3)}, {train_part}, {ref_part}.")
    if ex.unconverged_fits:
        st.warning(
            f"{ex.unconverged_fits} of {ex.fits} fits stopped at the solver's iteration cap "
            "before converging; their numbers are less reliable.",
            icon="⚠️",
        )


def _headline(res, ex, attack: str) -> None:
    """The paper's headline claims judged on this run, as a table, and what they can say."""
    st.markdown(
        f"**The paper's headline, evaluated on this run** ({reference_vega.ATTACK_NAMES[attack]}):"
    )
    rows = [
        (
            "Reference-data leakage rises with w",
            verdict_text(ex.trend_reference.holds),
            trend_evidence(ex.trend_reference),
        ),
        (
            "Training-data leakage falls with w",
            verdict_text(ex.trend_train.holds),
            trend_evidence(ex.trend_train),
        ),
    ]
    for v in res.rule_verdicts:
        rows.append(
            (
                RULE_CLAIM_TEXT[v.rule],
                verdict_text(v.holds, "nothing picked"),
                "no w qualifies"
                if v.w_pick is None
                else f"picked w = {fmt_num(v.w_pick, 3)}, w* = {fmt_num(v.w_star, 3)}"
                + (
                    f" (one grid step = {fmt_num(v.tolerance, 3)})"
                    if v.rule is SelectionRule.EQUAL_PRIVACY
                    else ""
                ),
            )
        )
    h = res.hidden_leak
    rows.append(
        (
            "At the training-only pick, the reference data leak",
            verdict_text(h.holds, "nothing picked"),
            "no w qualifies"
            if h.w_pick is None or h.ref_ci_low is None or h.ref_ci_high is None
            else f"w = {fmt_num(h.w_pick, 3)}: reference attack 95 % interval "
            f"{pct(h.ref_ci_low)}–{pct(h.ref_ci_high)}; holds if it lies above 50 %",
        )
    )
    appkit.tables.table(pd.DataFrame(rows, columns=["The paper says", "On this run", "Evidence"]))
    appkit.explain(
        "Attack accuracies are measured, so every empirical η and ε here is a **lower bound** "
        "on the leakage of this procedure from one kind of attack — evidence that data leak, "
        "never a guarantee that they do not: a stronger attack may do better. The bands show "
        "the spread over seeds; the intervals pool the seeds' guesses (Clopper–Pearson, 95 %).",
        label="What the numbers can and cannot say",
    )


def _results(result, attack: str) -> None:
    """The selection rules' thresholds and picks, the triad chart, its reading, the headline."""
    t = _threshold_controls()
    with appkit.guard("The selection", stop=True):
        # the picks for these thresholds and this attack, from the sweep (no refit);
        # the chart below is keyed by this result, not by hashing its tables again
        res = appkit.cached(
            rl.reselect,
            result,
            attack=attack,
            max_train_attack=t.t_train / 100,
            max_gap=t.t_gap / 100,
            max_ref_attack=t.t_ref / 100,
        )
        ex = appkit.cached(rl.experiment_view, res)
    _picks(res)
    train_only = _triad(res)
    _reading(ex, train_only, t.t_train)
    _headline(res, ex, attack)


def _live() -> None:
    """The live part: the theory and its Figure 2, then the experiment and its results."""
    with theory_slot:
        appkit.messages()
        _figure2(_theory_controls())
    with experiment:
        e = _experiment_controls()
        result = _sweep(e)
        if result is not None:
            _results(result, e.attack)


appkit.live(page, _live)
