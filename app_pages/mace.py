"""How much leaks, judging from samples alone? MACE's estimators against the exact truth.

Liu, Xu, Mukherjee, Lavista Ferres, *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*, arXiv:2009.05683. The controls (the table :data:`CONTROLS`)
→ :func:`mipcore.experiments.mace_synthetic.run` (cached; the KDE runs through
:func:`appkit.jobs.run`), whose :class:`~mipcore.mace.MACEEstimate` the page reads, with
Theorem 1's bound (:mod:`mipcore.mace`) → :mod:`mipcore.plots.mace_vega` (charts whose
specification no slider changes: a slider step redraws them in place) → the sentences of
``mace.md``.
"""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

import appkit
import appkit.jobs
from appkit import controls, fmt_num
from appkit.controls import choice, number, slider
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from mipcore import mace
from mipcore.experiments import mace_synthetic as toy
from mipcore.experiments.mace_synthetic import KDE_MAX_N, Estimator, Shape, ToyRun
from mipcore.plots import mace_vega

PAGE = "mace"
SHAPE_NAME = {Shape.NORMAL: "normal", Shape.LAPLACE: "Laplace", Shape.MIXTURE: "mixture"}
SHAPE_TEXT = {
    Shape.NORMAL: "Members N(s, 1), non-members N(0, 1).",
    Shape.LAPLACE: "Members Laplace(s, 1), non-members Laplace(0, 1).",
    Shape.MIXTURE: "Members ½N(0, 1) + ½N(s, 1), non-members N(0, 1).",
}
#: The advantages the page quotes, each in three units (:func:`mipcore.mace.units`).
UNITS = ("truth", "plugin", "heldout", "lower", "tanh")
#: Beyond this many samples per group the KDE takes about a second: it runs as a job.
HEAVY_KDE_N = 2000
EST_TEXT = {Estimator.HISTOGRAM: "histogram (Lemma 5)", Estimator.KDE: "Gaussian KDE (Lemmas 6–7)"}

CONTROLS = controls.table(
    choice("shape", "Shape of the two laws", list(Shape), Shape.NORMAL, SHAPE_NAME),
    slider("sep", "separation s (members shifted by s)", 0.0, 4.0, 1.0, 0.05, "%.2f"),
    number("N", "N per group (members and non-members each)", 50, 20000, 2000, 50),
    choice("est", "Estimator", list(Estimator), Estimator.HISTOGRAM, EST_TEXT, radio=True),
    slider("bins", "number of bins", 5, 200, 30),
    slider("bw", "KDE bandwidth h (0 = Silverman's rule)", 0.0, 1.0, 0.0, 0.01, "%.2f"),
    number("seed", "random seed", 0, 1_000_000, 0, 1, "%d"),
    slider("p", "prior p (share of members)", 0.05, 0.95, 0.5, 0.01, "%.2f"),
    slider("eps", "ε for the DP (tanh) bound", 0.0, 6.0, 1.0, 0.05, "%.2f"),
)  # fmt: skip


def signed(x: float) -> str:
    return ("+" if x >= 0 else "−") + fmt_num(abs(x), 3)


def in_units(u: mace.Units, relation: str) -> str:
    """“advantage ≤ 0.4621, i.e. η ≤ 0.2311, i.e. an attacker is right at most 73.1 % …”."""
    word = {"≤": "at most ", "≥": "at least "}[relation]
    a, eta, acc = u
    return say(PAGE, "in_units", relation=relation, advantage=a, eta=eta, word=word, accuracy=acc)


page = appkit.page(PAGE)
prose(PAGE, "intro")
appkit.explain(prose_text(PAGE, "units"), label="Advantage, η and accuracy")

main = page.slot()  # controls, metrics and sentences: rerun on each change
st.subheader("The samples and the estimated privacy loss f̂")
chart1 = page.slot()
appkit.takeaway(prose_text(PAGE, "samples_takeaway"))
explain1 = page.slot()
st.subheader("Estimated advantage against the truth and the DP bound")
chart2 = page.slot()
st.subheader("The plug-in estimate drifts above the truth at small N")
chart3 = page.slot()

with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")
        st.latex(
            rf"z_{{1-\delta/4}} = \Phi^{{-1}}(1-\delta/4) = "
            rf"{fmt_num(mace.lemma6_quantile(toy.DELTA))}\quad(\delta = {toy.DELTA})"
        )
        prose(PAGE, "maths_notes")


def _controls() -> tuple[dict[str, Any], int, float]:
    """The controls in three columns: the two laws and N, the estimator (its bins or
    bandwidth, None for Silverman's rule) and the seed, the prior and ε. Returns the
    arguments of the experiment but N, then N and ε."""
    c1, c2, c3 = st.columns(3)
    with c1:
        shape = controls.draw(CONTROLS["shape"])
        st.caption(SHAPE_TEXT[shape])
        sep, n = controls.draw(CONTROLS["sep"]), controls.draw(CONTROLS["N"])
    with c2:
        est, bins, bw = controls.draw(CONTROLS["est"]), 30, None
        if est is Estimator.HISTOGRAM:
            bins = controls.draw(CONTROLS["bins"])
        else:
            h = controls.draw(CONTROLS["bw"])
            bw = float(h) if h > 0 else None
        seed = controls.draw(CONTROLS["seed"])
    with c3:
        p, eps = controls.draw(CONTROLS["p"]), controls.draw(CONTROLS["eps"])
    kw = dict(shape=shape, separation=float(sep), seed=int(seed), estimator=est, bins=int(bins))
    return kw | dict(bandwidth=bw, prior=float(p)), int(n), eps


def _run(kw: dict[str, Any], n: int) -> ToyRun:
    """The MACE estimate (the page stops if it fails), and a note when the KDE is capped."""
    with appkit.guard("The MACE estimate", stop=True):
        if kw["estimator"] is Estimator.KDE and n > HEAVY_KDE_N:
            r = appkit.jobs.run(toy.run, n=n, **kw, label="Estimating with the KDE", quick=True)
        else:
            r = appkit.cached(toy.run, n=n, **kw)
    if r.members.size < n:
        st.info(say(PAGE, "kde_capped", cap=KDE_MAX_N, n=n), icon="ℹ️")
    return r


def _metrics(r: ToyRun, u: dict[str, mace.Units], eps: float) -> None:
    """The five advantages as metrics (truth, plug-in, held-out, its lower bound, tanh bound)."""
    res = r.estimate
    metrics = (
        ("true advantage", u["truth"], None, "The exact Advₚ of the two laws (closed form)."),
        ("plug-in estimate", u["plugin"], res.plugin - r.truth, "In-sample mean |f̂|; the delta is its error against the truth."),
        ("held-out estimate", u["heldout"], res.heldout - r.truth, "The advantage of the fitted attacker sgn(f̂) on the held-out half."),
        ("held-out 95 % lower bound", u["lower"], None, "Advₚ is at least this with probability ≥ 95 % (shown as max(0, ·))."),
        (say(PAGE, "tanh_label", eps=eps), u["tanh"], None, "Theorem 1: no ε-DP release lets any attacker reach a higher advantage."),
    )  # fmt: skip
    # five metrics in a row at 1024 px, three per row in presenter mode (larger type)
    per_row = 3 if appkit.presenter() else 5
    cols = [c for i in range(0, len(metrics), per_row) for c in st.columns(per_row)]
    for col, (label, v, delta, why) in zip(cols, metrics, strict=False):
        shift = None if delta is None else f"{signed(delta)} vs truth"
        col.metric(
            label, fmt_num(v.advantage), delta=shift, delta_color="off", delta_arrow="off", help=why
        )
        col.caption(say(PAGE, "metric_units", eta=v.eta, accuracy=v.accuracy))
    if res.heldout_lower < 0:
        st.caption(say(PAGE, "negative_lower", raw=res.heldout_lower))


def _reading(r: ToyRun, u: dict[str, mace.Units]) -> None:
    """The plug-in estimate against the truth, and whether the lower bound covered it."""
    res, error = r.estimate, r.estimate.plugin - r.truth
    covered = res.heldout_lower <= r.truth  # as it should be with probability ≥ 95 %
    verdict = prose_text(PAGE, "covered") if covered else prose_text(PAGE, "not_covered")
    (fit_m, fit_n), (eval_m, eval_n) = res.n_fit, res.n_eval
    side = "above" if error > 0 else "below"
    st.markdown(
        say(
            PAGE,
            "reading",
            fit_m=fit_m,
            fit_n=fit_n,
            eval_m=eval_m,
            eval_n=eval_n,
            plugin=u["plugin"].advantage,
            truth=u["truth"].advantage,
            side=side,
            error=abs(error),
            lower=u["lower"].advantage,
            verdict=verdict,
        )
    )


def _dp(r: ToyRun, u: dict[str, mace.Units], eps: float) -> None:
    """The truth against Theorem 1's DP bound at this ε (and at this prior)."""
    p, s, truth = r.estimate.prior, r.separation, u["truth"]
    lam = "" if p == 0.5 else " " + say(PAGE, "lam", lam=math.log(p) - math.log1p(-p))
    bound = in_units(u["tanh"], "≤")
    if r.truth > u["tanh"].advantage + 1e-12:  # the pair is not ε-DP
        text = say(PAGE, "dp_exceeds", truth=truth.advantage, eps=eps, bound=bound, lam=lam)
        if r.estimate.heldout_lower > u["tanh"].advantage:
            text += " " + prose_text(PAGE, "dp_proves")
    else:
        a, eta, acc = truth
        text = say(PAGE, "dp_within", eps=eps, bound=bound, lam=lam, truth=a, eta=eta, accuracy=acc)
    if r.shape is Shape.LAPLACE and s > 0:  # the Laplace pair is exactly s-DP
        text += " " + say(PAGE, "dp_laplace", s=s)
    if p != 0.5:
        floor = abs(2.0 * p - 1.0)  # a blind guess of the majority
        text += " " + say(PAGE, "dp_prior", accuracy=mace.units(floor).accuracy, floor=floor)
    st.markdown(text)


def _samples(r: ToyRun) -> None:
    """Chart 1: the samples and the estimated privacy loss f̂ (two panels, one table)."""
    samples_chart, loss_chart, data1 = appkit.cached(mace_vega.samples_loss_vega, r)
    appkit.chart(samples_chart, data1, "mace_samples_loss", key="mace_chart_samples")
    appkit.chart(loss_chart, key="mace_chart_loss")  # same table: one CSV for both panels
    with explain1:
        kde = " " + prose_text(PAGE, "samples_kde") if r.estimate.method == "kde" else ""
        appkit.explain(say(PAGE, "samples_explain", kde=kde))


def _advantage(r: ToyRun, u: dict[str, mace.Units], eps: float) -> None:
    """Chart 2: the estimated advantages against the truth and the DP bound, and what they say."""
    fig2, data2 = appkit.cached(mace_vega.advantage_vega, r, eps)
    caption = say(PAGE, "advantage_caption", eps=eps, bound=u["tanh"].advantage)
    appkit.chart(fig2, data2, "mace_advantage", key="mace_chart_adv", caption=caption)
    lower = in_units(u["lower"], "≥")
    appkit.takeaway(say(PAGE, "advantage_takeaway", lower=lower, plugin=u["plugin"].advantage))
    appkit.explain(prose_text(PAGE, "advantage_explain"))


def _drift(kw: dict[str, Any]) -> None:
    """Chart 3: the plug-in's drift over N and seeds, and why it drifts."""
    kde = kw["estimator"] is Estimator.KDE
    with appkit.guard("The drift experiment"):
        if kde:  # about 3 s
            label = "Repeating the estimate over N and seeds"
            d = appkit.jobs.run(toy.drift, **kw, label=label, quick=True)
        else:
            d = appkit.cached(toy.drift, **kw)
        fig3, data3 = appkit.cached(mace_vega.drift_vega, d)
        appkit.chart(fig3, data3, "mace_drift", key="mace_chart_drift")
        bias = d.plugin_bias
        appkit.takeaway(
            say(
                PAGE,
                "drift_takeaway",
                runs=d.runs,
                small=signed(bias[0]),
                n_small=d.n_values[0],
                large=signed(bias[-1]),
                n_large=d.n_values[-1],
            )
        )
        grid = (
            say(PAGE, "drift_kde_grid", cap=KDE_MAX_N)
            if kde
            else say(PAGE, "drift_hist_grid", bins=kw["bins"])
        )
        appkit.explain(
            say(
                PAGE,
                "drift_explain",
                kde=prose_text(PAGE, "drift_kde") + " " if kde else "",
                above=d.lower_above_truth,
                total=d.runs * len(d.n_values),
                grid=grid,
            )
        )


def _live() -> None:
    """The live part: controls and numbers, then the three charts in their slots."""
    with main:
        kw, n, eps = _controls()
        r = _run(kw, n)
        res = r.estimate
        bound = float(mace.dp_privacy_loss_bound(float(eps), res.prior))
        raw = (r.truth, res.plugin, res.heldout, res.heldout_lower, bound)
        u = {k: mace.units(v, clip=True) for k, v in zip(UNITS, raw, strict=True)}
        _metrics(r, u, eps)
        _reading(r, u)
        _dp(r, u, eps)
    with chart1:
        _samples(r)
    with chart2:
        _advantage(r, u, eps)
    with chart3:
        _drift(kw)


appkit.live(page, _live)
