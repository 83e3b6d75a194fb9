"""How much leaks, judging from samples alone? MACE's estimators against the exact truth.

Liu, Xu, Mukherjee, Lavista Ferres, *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*, arXiv:2009.05683. Widgets → :mod:`mipcore.lessons.mace_view`
(cached; the KDE runs through :func:`appkit.jobs.run`) → :mod:`mipcore.plots.mace_vega` (charts
whose specification no slider changes: a slider step redraws them in place) → sentences.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

import appkit
import appkit.jobs
from appkit import fmt_num, fmt_pct
from appkit.prose import prose
from mipcore import mace
from mipcore.lessons import mace_view as mv
from mipcore.lessons.mace_synthetic import Shape
from mipcore.plots import mace_vega

SHAPE_NAME = {Shape.NORMAL: "normal", Shape.LAPLACE: "Laplace", Shape.MIXTURE: "mixture"}
SHAPE_TEXT = {
    Shape.NORMAL: "Members N(s, 1), non-members N(0, 1).",
    Shape.LAPLACE: "Members Laplace(s, 1), non-members Laplace(0, 1).",
    Shape.MIXTURE: "Members ½N(0, 1) + ½N(s, 1), non-members N(0, 1).",
}
EST_TEXT = {
    mv.Estimator.HISTOGRAM: "histogram (Lemma 5)",
    mv.Estimator.KDE: "Gaussian KDE (Lemmas 6–7)",
}


def signed(x: float) -> str:
    return ("+" if x >= 0 else "−") + fmt_num(abs(x), 3)


def in_units(u: mv.Units, relation: str = "=") -> str:
    """“advantage ≤ 0.4621, i.e. η ≤ 0.2311, i.e. an attacker right at most 73.1 % of the time”."""
    word = {"=": "", "≤": "at most ", "≥": "at least "}[relation]
    return (
        f"advantage {relation} {fmt_num(u.advantage)}, i.e. η {relation} {fmt_num(u.eta)}, "
        f"i.e. an attacker is right {word}{fmt_pct(u.accuracy)} of the time"
    )


page = appkit.page("mace")
prose("mace", "intro")
appkit.explain(
    "**One leak, three units.** MACE's advantage is 2·accuracy − 1 of the best attacker "
    "(TPR − FPR at p = ½). The rest of the app speaks of MIP's η, how far the best attacker's "
    "accuracy can rise above a coin flip's 50 %. So **advantage = 2η = 2·accuracy − 1**: "
    "MACE's tanh bound tanh(ε/2) = 0.4621 at ε = 1 is η = 0.2311 on the η–ε page, an attacker "
    "right at most 73.1 % of the time. Every advantage below is given in all three units.",
    label="Advantage, η and accuracy",
)

main = page.slot()  # controls, metrics and sentences: rerun on each change
st.subheader("The samples and the estimated privacy loss f̂")
chart1 = page.slot()
appkit.takeaway(
    "Where few samples fall, f̂ is mostly noise: its 95 % intervals are widest in the tails."
)
explain1 = page.slot()
st.subheader("Estimated advantage against the truth and the DP bound")
chart2 = page.slot()
st.subheader("The plug-in estimate drifts above the truth at small N")
chart3 = page.slot()

with appkit.folded("The maths") as shown:
    if shown:
        prose("mace", "maths")
        st.latex(
            rf"z_{{1-\delta/4}} = \Phi^{{-1}}(1-\delta/4) = "
            rf"{fmt_num(mace.lemma6_quantile(mv.DELTA))}\quad(\delta = {mv.DELTA})"
        )
        prose("mace", "maths_notes")


class Controls(NamedTuple):
    """What the controls chose (bw None: Silverman's rule)."""

    shape: Shape
    sep: float
    n: int
    est: mv.Estimator
    bins: int
    bw: float | None
    seed: int
    p: float
    eps: float


def _estimator_controls() -> tuple[mv.Estimator, int, float | None, int]:
    """The middle column: the estimator, its bins or bandwidth, and the random seed."""
    est = appkit.url_select(
        "Estimator",
        "est",
        list(mv.Estimator),
        default=mv.Estimator.HISTOGRAM,
        widget="radio",
        format_func=lambda e: EST_TEXT[e],
    )
    bins, bw = 30, None
    if est is mv.Estimator.HISTOGRAM:
        bins = appkit.url_slider("number of bins", "bins", min_value=5, max_value=200, default=30)
    else:
        h = appkit.url_slider(
            "KDE bandwidth h (0 = Silverman's rule)",
            "bw",
            min_value=0.0,
            max_value=1.0,
            default=0.0,
            step=0.01,
            format="%.2f",
        )
        bw = float(h) if h > 0 else None
    seed = appkit.url_number(
        "random seed",
        "seed",
        min_value=0,
        max_value=1_000_000,
        default=0,
        step=1,
        format="%d",
    )
    return est, bins, bw, seed


def _controls() -> Controls:
    """The controls in three columns: the two laws and N, the estimator, the prior and ε."""
    c1, c2, c3 = st.columns(3)
    with c1:
        shape = appkit.url_select(
            "Shape of the two laws",
            "shape",
            list(Shape),
            default=Shape.NORMAL,
            format_func=lambda s: SHAPE_NAME[s],
        )
        st.caption(SHAPE_TEXT[shape])
        sep = appkit.url_slider(
            "separation s (members shifted by s)",
            "sep",
            min_value=0.0,
            max_value=4.0,
            default=1.0,
            step=0.05,
            format="%.2f",
        )
        n = appkit.url_number(
            "N per group (members and non-members each)",
            "N",
            min_value=50,
            max_value=20000,
            default=2000,
            step=50,
        )
    with c2:
        est, bins, bw, seed = _estimator_controls()
    with c3:
        p = appkit.url_slider(
            "prior p (share of members)",
            "p",
            min_value=0.05,
            max_value=0.95,
            default=0.5,
            step=0.01,
            format="%.2f",
        )
        eps = appkit.url_slider(
            "ε for the DP (tanh) bound",
            "eps",
            min_value=0.0,
            max_value=6.0,
            default=1.0,
            step=0.05,
            format="%.2f",
        )
    return Controls(shape, sep, n, est, bins, bw, seed, p, eps)


def _view(c: Controls):
    """The MACE estimate (the page stops if it fails), and a note when the KDE is capped."""
    args = (
        c.shape,
        float(c.sep),
        int(c.n),
        int(c.seed),
        c.est,
        int(c.bins),
        c.bw,
        float(c.p),
        float(c.eps),
    )
    with appkit.guard("The MACE estimate", stop=True):
        if mv.view_is_heavy(c.est, int(c.n)):
            view = appkit.jobs.run(mv.mace_view, *args, label="Estimating with the KDE", quick=True)
        else:
            view = appkit.cached(mv.mace_view, *args)

    if view.kde_capped:
        st.info(
            f"The KDE costs O(N²): it uses the first N = {mv.KDE_MAX_N} samples per group "
            f"(of the {view.n_requested} asked for; choose the histogram for larger N).",
            icon="ℹ️",
        )
    return view


def _metrics(view, eps: float) -> None:
    """The five advantages as metrics (truth, plug-in, held-out, its lower bound, tanh bound)."""
    metrics = (
        ("true advantage", view.truth, None, "The exact Advₚ of the two laws (closed form)."),
        (
            "plug-in estimate",
            view.plugin,
            view.plugin_error,
            "In-sample mean |f̂|; the delta is its error against the truth.",
        ),
        (
            "held-out estimate",
            view.heldout,
            view.heldout_error,
            "The advantage of the fitted attacker sgn(f̂) on the held-out half.",
        ),
        (
            "held-out 95 % lower bound",
            view.heldout_lower,
            None,
            "Advₚ is at least this with probability ≥ 95 % (shown as max(0, ·)).",
        ),
        (
            f"tanh bound at ε = {fmt_num(eps)}",
            view.tanh_bound,
            None,
            "Theorem 1: no ε-DP release lets any attacker reach a higher advantage.",
        ),
    )
    # five metrics in a row at 1024 px, three per row in presenter mode (larger type)
    per_row = 3 if appkit.presenter() else 5
    cols = [c for i in range(0, len(metrics), per_row) for c in st.columns(per_row)]
    for col, (label, u, delta, why) in zip(cols, metrics, strict=False):
        col.metric(
            label,
            fmt_num(u.advantage),
            delta=None if delta is None else f"{signed(delta)} vs truth",
            delta_color="off",
            delta_arrow="off",
            help=why,
        )
        col.caption(f"η {fmt_num(u.eta)} · accuracy {fmt_pct(u.accuracy)}")
    if view.heldout_lower_raw < 0:
        st.caption(
            f"The held-out lower bound came out at {fmt_num(view.heldout_lower_raw, 3)}: below 0, "
            "which says no more than 0 (the data do not show that the fitted attacker beats a "
            "coin flip). It is shown as 0; the raw value is in the chart's hover text and data."
        )


def _reading(view) -> None:
    """The plug-in estimate against the truth, and whether the lower bound covered it."""
    reading = (
        f"With {view.n_fit[0]} + {view.n_fit[1]} samples fitting f̂ and {view.n_eval[0]} + "
        f"{view.n_eval[1]} scoring it, the plug-in estimate is **{fmt_num(view.plugin.advantage)}** "
        f"against a true advantage of **{fmt_num(view.truth.advantage)}** "
        f"({'above' if view.plugin_error > 0 else 'below'} it by {fmt_num(abs(view.plugin_error), 3)}). "
        f"The held-out lower bound {fmt_num(view.heldout_lower.advantage)} "
    )
    reading += (
        "is below the truth, as it should be with probability ≥ 95 %."
        if view.covered
        else "is *above* the truth: one of the ≤ 5 % of runs where the bound fails."
    )
    st.markdown(reading)


def _dp(view, eps: float) -> None:
    """The truth against Theorem 1's DP bound at this ε (and at this prior)."""
    lam_text = "" if view.prior == 0.5 else f" (λ = log(p/(1−p)) = {fmt_num(view.lam)})"
    bound_units = in_units(view.tanh_bound, "≤")
    if view.exceeds_bound:
        dp_text = (
            f"The true advantage ({fmt_num(view.truth.advantage)}) exceeds Theorem 1's bound "
            f"at ε = {fmt_num(eps)}, {bound_units}{lam_text}: this pair of laws is **not** "
            f"ε-DP for ε = {fmt_num(eps)}."
        )
        if view.lower_bound_proves_not_dp:
            dp_text += (
                " The held-out lower bound alone already proves it (with 95 % confidence): "
                "this is how MACE audits a DP claim."
            )
    else:
        dp_text = (
            f"At ε = {fmt_num(eps)}, Theorem 1 allows {bound_units}{lam_text}. The true "
            f"advantage, {fmt_num(view.truth.advantage)} (η = {fmt_num(view.truth.eta)}, an "
            f"attacker right {fmt_pct(view.truth.accuracy)} of the time), is within it."
        )
    if view.exact_dp_epsilon is not None:
        dp_text += (
            f" The Laplace pair is exactly ε-DP with ε = s = {fmt_num(view.exact_dp_epsilon)} "
            "(|log P/Q| ≤ s), so at ε ≥ s the bound must hold."
        )
    if view.prior != 0.5:
        dp_text += (
            f" With p ≠ ½ even a blind guess of the majority is right "
            f"{fmt_pct(view.blind_guess.accuracy)} of "
            f"the time (advantage |2p − 1| = {fmt_num(view.prior_floor)}), so no bound or estimate "
            "goes below it; MIP's η is defined at p = ½."
        )
    st.markdown(dp_text)


def _samples(view) -> None:
    """Chart 1: the samples and the estimated privacy loss f̂ (two panels, one table)."""
    samples_chart, loss_chart, data1 = appkit.cached(mace_vega.samples_loss_vega, view)
    appkit.chart(samples_chart, data1, "mace_samples_loss", key="mace_chart_samples")
    appkit.chart(loss_chart, key="mace_chart_loss")  # same table: one CSV for both panels


def _samples_explained(est: mv.Estimator) -> None:
    """What chart 1's intervals are, below its takeaway."""
    appkit.explain(
        "f̂ is fitted on the first half of each sample; its 95 % intervals are per bin / per "
        "point, not simultaneous. Fewer samples or more bins (smaller h) make them wider. "
        "Where fₚ > 0 the best attacker says “member”."
        + (
            " The KDE interval covers the *smoothed* density and is only asymptotic (Lemma 6)."
            if est is mv.Estimator.KDE
            else ""
        )
    )


def _advantage(view, eps: float) -> None:
    """Chart 2: the estimated advantages against the truth and the DP bound, and what they say."""
    fig2, data2 = appkit.cached(mace_vega.advantage_vega, view)
    appkit.chart(
        fig2,
        data2,
        "mace_advantage",
        key="mace_chart_adv",
        caption=f"The dashed blue line is Theorem 1's tanh bound at ε = {fmt_num(eps)} "
        f"(advantage {fmt_num(view.tanh_bound.advantage)}). Algorithm 1's bar is the paper's "
        "average interval, not a confidence interval.",
    )
    appkit.takeaway(
        "Only the held-out lower bound is a guarantee: with 95 % confidence "
        f"{in_units(view.heldout_lower, '≥')}; the plug-in ({fmt_num(view.plugin.advantage)}) "
        "is no bound at all."
    )
    appkit.explain(
        "The held-out value is the advantage of the attacker sgn(f̂) and can only fall short of "
        "the best one. The plug-in and Algorithm 1 values are neither lower nor upper bounds: "
        "the average of |f̂| picks up the noise of f̂ and tends to land above the truth. "
        "The top axis reads the same advantage as the attacker's accuracy, 50 % + 50 % × advantage."
    )


def _drift(c: Controls) -> None:
    """Chart 3: the plug-in's drift over N and seeds, and why it drifts."""
    dargs = (c.shape, float(c.sep), int(c.seed), c.est, int(c.bins), c.bw, float(c.p))
    with appkit.guard("The drift experiment"):
        if mv.drift_is_heavy(c.est):
            drift = appkit.jobs.run(
                mv.drift, *dargs, label="Repeating the estimate over N and seeds", quick=True
            )
        else:
            drift = appkit.cached(mv.drift, *dargs)
        fig3, data3 = appkit.cached(mace_vega.drift_vega, drift)
        appkit.chart(fig3, data3, "mace_drift", key="mace_chart_drift")
        appkit.takeaway(
            f"Averaged over {drift.runs} seeds, plug-in minus truth is {signed(drift.bias_small_n)} "
            f"at N = {drift.n_values[0]} and {signed(drift.bias_large_n)} at "
            f"N = {drift.n_values[-1]}: with few samples the plug-in reports leakage that is not there."
        )
        appkit.explain(
            "Noise in f̂ never cancels inside |·|, so at small N the plug-in is pushed upwards "
            "(set s = 0: P = Q, yet it is positive). "
            + (
                "The KDE's smoothing pulls the other way (it flattens the true difference), so its "
                "plug-in can also land below the truth; either way it is not a bound. "
                if c.est is mv.Estimator.KDE
                else ""
            )
            + "The held-out estimate scatters around or below the truth and its lower bound stays "
            f"below it (in {drift.lower_above_truth} of {drift.runs * len(drift.n_values)} runs it "
            "lies above, each run allowed ≤ 5 %); both tighten as N grows. Bars: range over the "
            "seeds; values below 0 are drawn at 0."
            + (
                f" (KDE: N up to {mv.KDE_MAX_N}.)"
                if c.est is mv.Estimator.KDE
                else f" (Histogram with {c.bins} bins at every N.)"
            )
        )


def _live() -> None:
    """The live part: controls and numbers, then the three charts in their slots."""
    with main:
        c = _controls()
        view = _view(c)
        _metrics(view, c.eps)
        _reading(view)
        _dp(view, c.eps)
    with chart1:
        _samples(view)
    with explain1:
        _samples_explained(c.est)
    with chart2:
        _advantage(view, c.eps)
    with chart3:
        _drift(c)


appkit.live(page, _live)
