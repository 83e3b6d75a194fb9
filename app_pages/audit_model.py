"""Does my model leak? Audit it from its attack scores.

widgets (the table :data:`CONTROLS`; the claim's rows, drawn, built and named by
:mod:`appkit.guarantee_inputs`) → the scores: the shipped example
(:func:`~mipcore.experiments.trained_model.run_trained_model_example`, a job with progress,
cached for the server) or an upload (:func:`~mipcore.score_upload.read_score_file`, parsed once
per content) → the audits of :mod:`mipcore.score_audit` (:func:`~mipcore.score_audit.one_run_from_scores`
for one training run; :func:`~mipcore.score_audit.audit_scores` for independent trials and for
the ROC) and the claim where they test it (:func:`~mipcore.score_audit.audited_claim`; its ROC,
:func:`~mipcore.guarantees.attacker_bound`) → :func:`~mipcore.score_audit.claim_verdict` → the
chart (:mod:`mipcore.plots.score_audit_vega`, also as SVG and PNG) → sentences, every one with a
number a template of ``audit_model.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

import appkit
from appkit import controls, fmt_num, fmt_pct, guarantee_inputs, jobs
from appkit.controls import choice, number, toggle
from appkit.prose import prose, say
from appkit.prose import text as prose_text
from appkit.safe import plain, quote
from mipcore.experiments.trained_model import (
    DP_SGD,
    ONE_RUN_GUESSES,
    TrainedModelExample,
    run_trained_model_example,
)
from mipcore.guarantees import (
    CIFAR10,
    REFERENCE_DELTA,
    AttackerBound,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Kind,
    Relation,
    attacker_bound,
)
from mipcore.plots.score_audit_vega import audit_roc_vega
from mipcore.plots.vega import VegaLiteChart, chart_png, chart_svg
from mipcore.score_audit import (
    MAX_GUESSES_SEARCHED,
    MAX_TRIALS_SEARCHED,
    AuditedClaim,
    ClaimVerdict,
    OneRunAudit,
    ScoreAudit,
    Verdict,
    audit_scores,
    audited_claim,
    claim_verdict,
    one_run_from_scores,
)
from mipcore.score_upload import (
    MAX_SCORE_BYTES,
    MAX_SCORE_ROWS,
    guess_columns,
    read_score_file,
    scores_and_flags,
)
from mipcore.tabular import UploadRejected

PAGE = "audit_model"
SOURCES = {
    "dp": "the example model, trained with DP-SGD",
    "plain": "the same model, trained without DP",
    "upload": "your own scores (CSV or Parquet)",
}
ATTACKS = {"lira": "LiRA (shadow models)", "loss": "loss threshold"}
DESIGNS = {
    "one_run": "one training run, each example in or out by a fair coin",
    "trials": "independent trials: each row from a training run of its own",
}
DIRECTIONS = {"higher": "higher (LiRA, likelihood, confidence)", "lower": "lower (a loss)"}
UPLOAD_MB = MAX_SCORE_BYTES // 10**6  # Streamlit's uploader counts 10⁶ bytes a MB
HEAVY_ROWS = 100_000  # larger audits run in their own process (appkit.jobs)
TPR_FPR = 0.01  # the FPR at which the metrics compare the attack with the claim
PRESET = {
    "kind": Kind.DPSGD,
    "sigma": DP_SGD.noise_multiplier,
    "q": DP_SGD.sampling_rate,
    "steps": DP_SGD.steps,
}

CONTROLS = controls.table(
    choice("source", "Scores from", list(SOURCES), "dp", SOURCES, radio=True),
    choice("attack", "Attack", list(ATTACKS), "lira", ATTACKS, radio=True, horizontal=True),
    choice("higher", "A member's score is", list(DIRECTIONS), "higher", DIRECTIONS, radio=True, horizontal=True),
    choice("design", "How the rows were made", list(DESIGNS), "one_run", DESIGNS, radio=True),
    number("kin", "guess “in” for the highest", 0, MAX_SCORE_ROWS, ONE_RUN_GUESSES[0], 1, None, "How many of the highest-scoring examples the audit calls members."),
    number("kout", "guess “out” for the lowest", 0, MAX_SCORE_ROWS, ONE_RUN_GUESSES[1], 1, None, "How many of the lowest-scoring examples the audit calls non-members."),
    number("conf", "confidence", 0.5, 0.999, 0.95, 0.01, "%g", "Were the claim true, the audit would refute it with probability at most 1 − confidence."),
    number("adelta", "δ of the audit", 0.0, 0.1, REFERENCE_DELTA, 1e-6, "%g", "The δ at which the audit bounds ε; the claim is read at the same δ."),
    *guarantee_inputs.rows(**PRESET),
    toggle("logfpr", "low-FPR view (log axes)", False, "Plot from FPR = 10⁻⁵ on logarithmic axes: membership attacks are judged where they may not err often."),
)  # fmt: skip

T = TypeVar("T")


class Evidence(NamedTuple):
    """The scores to audit (high means member), the member flags, and whether they come from
    the shipped example (one training run, by construction)."""

    scores: np.ndarray
    member: np.ndarray
    example: bool


class Audit(NamedTuple):
    """The scores' audits: ``scores`` (ROC, AUC, and the bounds for independent trials) and,
    for one training run, ``one_run``; ``audit`` is the one the verdict reads."""

    scores: ScoreAudit
    one_run: OneRunAudit | None

    @property
    def audit(self) -> OneRunAudit | ScoreAudit:
        return self.one_run if self.one_run is not None else self.scores


page = appkit.page(PAGE)
prose(PAGE, "intro")
verdict_area = page.slot()
main = page.slot()
details = page.slot()
with appkit.folded("The maths") as shown:
    if shown:
        prose(PAGE, "maths")


def _computed(fn: Callable[..., T], *args: Any, rows: int, label: str, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` cached: in this process for a small audit, in its own
    (``appkit.jobs``) beyond :data:`HEAVY_ROWS` rows."""
    if rows <= HEAVY_ROWS:
        return appkit.cached(fn, *args, **kwargs)
    return jobs.run(fn, *args, label=label, **kwargs)


# ================================================================= the evidence
def _example(source: str) -> Evidence:
    """The shipped example's scores: both models trained once per server, as a job."""
    attack = controls.draw(CONTROLS["attack"])
    ex: TrainedModelExample = jobs.run(
        run_trained_model_example, label="Training the example's models", quick=True
    )
    model = ex.dp if source == "dp" else ex.non_dp
    config = model.config
    if source == "dp":
        how = say(PAGE, "how_dp", sigma=config.noise_multiplier, q=config.sampling_rate, steps=config.steps, clip=config.clip_norm)  # fmt: skip
    else:
        how = say(PAGE, "how_plain", steps=config.steps, q=config.sampling_rate)
    named = say(PAGE, "attack_lira", shadows=ex.shadows) if attack == "lira" else prose_text(PAGE, "attack_loss")  # fmt: skip
    st.caption(
        say(
            PAGE,
            "example",
            examples=ex.member.size,
            members=int(ex.member.sum()),
            how=how,
            train=model.train_accuracy,
            test=model.test_accuracy,
            attack=named,
            shadows=ex.shadows,
            seconds=ex.seconds,
        )
    )
    scores = model.lira_scores if attack == "lira" else model.loss_scores
    return Evidence(scores, ex.member, True)


class Upload(NamedTuple):
    """An uploaded file's numeric columns, its name (as text, quoted) and its format."""

    data: pd.DataFrame
    name: str
    format: str


def _file() -> Upload | None:
    """The uploader and its file's numeric columns, or None after a sentence."""
    upload = st.file_uploader(
        "Scores file (CSV or Parquet)",
        type=["csv", "txt", "parquet", "pq"],
        key="scores_file",
        max_upload_size=UPLOAD_MB,
        help=say(PAGE, "upload_help", mb=UPLOAD_MB, rows=MAX_SCORE_ROWS),
    )
    if upload is None:
        st.info(say(PAGE, "no_file", mb=UPLOAD_MB), icon="📄")
        return None
    kind = "parquet" if Path(upload.name).suffix.lower() in (".parquet", ".pq") else None
    try:
        read = appkit.cached(read_score_file, upload.getvalue(), format=kind)
    except UploadRejected as exc:
        st.error(f"This file cannot be used: {plain(exc, max_chars=400)}.", icon="🚫")
        return None
    if read.dropped_columns:
        names = ", ".join(quote(c, max_chars=60) for c in read.dropped_columns[:8])
        st.caption(say(PAGE, "dropped", columns=names))
    if read.data.shape[1] < 2:
        st.warning(say(PAGE, "one_column", column=quote(read.data.columns[0])), icon="⚠️")
        return None
    return Upload(read.data, quote(upload.name, max_chars=80), read.format.upper())


def _upload() -> Evidence | None:
    """Your own scores: the file, its score and flag columns, the score's direction."""
    got = _file()
    if got is None:
        return None
    columns = [str(c) for c in got.data.columns]
    score, flag = guess_columns(got.data)
    c1, c2 = st.columns(2)
    # the columns belong to the file, which a link cannot carry: plain widgets, not the URL's
    score = c1.selectbox("score column", columns, index=columns.index(score), key="score_col")
    flag_at = columns.index(flag) if flag is not None else min(1, len(columns) - 1)
    flag = c2.selectbox("member flag (1 = member)", columns, index=flag_at, key="flag_col")
    higher = controls.draw(CONTROLS["higher"]) == "higher"
    try:
        scores, member = appkit.cached(scores_and_flags, got.data, score, flag)
    except UploadRejected as exc:
        st.error(f"This file cannot be used: {plain(exc, max_chars=400)}.", icon="🚫")
        return None
    members, non_members = int(member.sum()), int((~member).sum())
    st.caption(
        say(
            PAGE,
            "read",
            name=got.name,
            rows=member.size,
            members=members,
            non_members=non_members,
            format=got.format,
        )
    )
    return Evidence(scores if higher else -scores, member, False)


def _evidence() -> Evidence | None:
    """Section 1: where the scores come from, and the scores."""
    prose(PAGE, "evidence")
    source = controls.draw(CONTROLS["source"])
    if source == "upload":
        return _upload()
    return _example(source)


def _design(ev: Evidence) -> tuple[float, float, tuple[int, int] | None]:
    """How the rows were made, the confidence and δ, and the one-run audit's guesses."""
    design = controls.draw(CONTROLS["design"])
    st.caption(prose_text(PAGE, "design_help"))
    if ev.example and design == "trials":
        st.warning(prose_text(PAGE, "example_trials"), icon="⚠️")
    c1, c2 = st.columns(2)
    with c1:
        confidence = controls.draw(CONTROLS["conf"])
    with c2:
        delta = controls.draw(CONTROLS["adelta"])
    if design != "one_run":
        return confidence, delta, None
    c3, c4 = st.columns(2)
    with c3:
        k_in = controls.draw(CONTROLS["kin"])
    with c4:
        k_out = controls.draw(CONTROLS["kout"])
    st.caption(prose_text(PAGE, "guesses_help"))
    return confidence, delta, (k_in, k_out)


# ================================================================= the claim
def _claim(ev: Evidence) -> Guarantee | None:
    """Section 2: the claimed guarantee (preset to the example's DP-SGD run)."""
    prose(PAGE, "claim")
    kind, read = guarantee_inputs.draw(CONTROLS)
    preset = kind is Kind.DPSGD and all(read[k] == PRESET[k] for k in ("sigma", "q", "steps"))
    if ev.example and preset:
        st.caption(say(PAGE, "claim_preset", sigma=read["sigma"], q=read["q"], steps=read["steps"]))
    return guarantee_inputs.build(kind, read)


def _read_claim(g: Guarantee, delta: float) -> tuple[AttackerBound, AuditedClaim]:
    """The claim's ROC region and η, and its ε at the audit's δ (add/remove); the accountant's
    work (zCDP, Rényi DP, DP-SGD) in its own process."""
    heavy = not isinstance(g, EpsDelta | Gdp)
    quick = not isinstance(g, DpSgd) or g.steps <= CIFAR10.steps
    with appkit.guard("The claim", stop=True):
        if heavy:
            bound = jobs.run(attacker_bound, g, label="Reading the claim", quick=quick)
        else:
            bound = appkit.cached(attacker_bound, g)
        if isinstance(g, DpSgd):
            label = "The claim's ε at the audit's δ"
            claim = jobs.run(audited_claim, g, delta, label=label, quick=quick)
        else:
            claim = appkit.cached(audited_claim, g, delta)
    return bound, claim


# ================================================================= the audit and its verdict
def _audits(
    ev: Evidence, confidence: float, delta: float, guesses: tuple[int, int] | None
) -> Audit | None:
    """The scores' audits (None after a sentence when the guesses outnumber the examples)."""
    rows = ev.scores.size
    if guesses is not None and sum(guesses) > rows:
        st.error(say(PAGE, "too_many_guesses", guesses=sum(guesses), canaries=rows), icon="🚫")
        return None
    pos, neg = ev.scores[ev.member], ev.scores[~ev.member]
    with appkit.guard("The audit", stop=True):
        label = "Auditing the scores"
        scores = _computed(audit_scores, pos, neg, delta=delta, confidence=confidence, rows=rows, label=label)  # fmt: skip
        one_run = None
        if guesses is not None:
            one_run = _computed(
                one_run_from_scores,
                ev.scores,
                ev.member,
                guesses=guesses,
                delta=delta,
                confidence=confidence,
                rows=rows,
                label="The one-run audit",
            )
    return Audit(scores, one_run)


def _needed(v: ClaimVerdict, a: Audit) -> str:
    """How many canaries (or rows) would test a claim this audit is too weak for."""
    one = a.one_run
    if one is not None and one.guesses == 0:
        return prose_text(PAGE, "needed_no_guess")
    if one is not None:
        share = one.guesses / one.canaries
        if v.canaries_needed is not None:
            return say(PAGE, "needed_one_run", share=share, needed=v.canaries_needed)
        most = int(MAX_GUESSES_SEARCHED / share)
        if v.delta > 0:
            return say(PAGE, "needed_none", most=most, delta=v.delta)
        return say(PAGE, "needed_beyond", most=most)
    share = a.scores.members / (a.scores.members + a.scores.non_members)
    if v.canaries_needed is not None:
        return say(PAGE, "needed_trials", share=share, needed=v.canaries_needed)
    return say(PAGE, "needed_beyond", most=MAX_TRIALS_SEARCHED)


def _verdict_text(v: ClaimVerdict, a: Audit, name: str) -> str:
    """The verdict in one sentence (and by how much, or what would tell)."""
    if v.verdict is Verdict.REFUTED:
        return say(PAGE, "verdict_refuted", v=v, claim=name, alpha=1.0 - v.confidence)
    if v.one_run:
        best = prose_text(PAGE, "best_one_run")
    else:
        best = prose_text(PAGE, "best_trials")
    if v.verdict is Verdict.CONSISTENT:
        return say(PAGE, "verdict_consistent", v=v, claim=name, best=best)
    if v.claimed_epsilon == float("inf"):
        return say(PAGE, "verdict_nothing", claim=name, delta=v.delta)
    return say(PAGE, "verdict_too_weak", v=v, claim=name, needed=_needed(v, a), best=best)


def _relation(g: Guarantee, claim: AuditedClaim) -> str:
    """Which neighbours the claim is tested for, and the assumption when there is one."""
    if isinstance(g, DpSgd):
        return say(PAGE, "dpsgd_add_remove", epsilon=claim.epsilon, delta=claim.delta)
    if claim.read_as_add_remove:
        return prose_text(PAGE, "read_as_add_remove")
    assert g.relation is Relation.ADD_OR_REMOVE_ONE
    return prose_text(PAGE, "stated_add_remove")


def _verdict(v: ClaimVerdict, a: Audit, g: Guarantee, claim: AuditedClaim, name: str) -> None:
    """The verdict box at the top of the page: the sentence, then the relation tested."""
    text = _verdict_text(v, a, name)
    with verdict_area:
        if v.verdict is Verdict.REFUTED:
            st.warning(text, icon="🚨")
        elif v.verdict is Verdict.CONSISTENT:
            st.success(text, icon="✅")
        else:
            st.info(text, icon="🔍")
        st.caption(_relation(g, claim))


# ================================================================= why: numbers, chart, table
def _metrics(v: ClaimVerdict, a: Audit, bound: AttackerBound) -> None:
    """The headline numbers: proven, claimed and best ε; the AUC; the TPR at 1 % FPR."""
    conf, delta = v.confidence, v.delta
    m1, m2, m3 = st.columns(3)
    m1.metric("ε the audit proves ≥", fmt_num(v.proven_epsilon), help=say(PAGE, "metric_proven", delta=delta, confidence=conf))  # fmt: skip
    m2.metric("ε the claim allows ≤", fmt_num(v.claimed_epsilon), help=say(PAGE, "metric_claimed", delta=delta))  # fmt: skip
    m3.metric("most it could prove", fmt_num(v.best_epsilon), help=prose_text(PAGE, "metric_best"))
    m4, m5, m6 = st.columns(3)
    m4.metric("AUC of the attack", fmt_num(a.scores.auc, 3))
    tpr = a.scores.tpr_at(TPR_FPR).estimate
    allowed = bound.tpr_at_fpr[bound.fpr_levels.index(TPR_FPR)]
    m5.metric(f"TPR at {fmt_pct(TPR_FPR)} FPR", fmt_pct(tpr), help=say(PAGE, "metric_tpr", fpr=TPR_FPR, claim=allowed))  # fmt: skip
    m6.metric("η the claim certifies ≤", fmt_num(bound.eta), help=say(PAGE, "metric_eta", accuracy=bound.accuracy))  # fmt: skip


def _detail(a: Audit, bound: AttackerBound, asked: tuple[int, int] | None) -> None:
    """What the audit did, and the claim and the evidence in MIP's terms (η)."""
    one = a.one_run
    if one is not None:
        shown = fmt_pct(one.precision) if one.precision is not None else "no guess"
        st.markdown(say(PAGE, "one_run_detail", a=one, precision=shown))
        if asked is not None and one.guesses < sum(asked):
            st.caption(prose_text(PAGE, "ties"))
        st.markdown(say(PAGE, "eta_one_run", claim_eta=bound.eta, accuracy=bound.accuracy))
        return
    s = a.scores
    st.markdown(say(PAGE, "trials_detail", a=s))
    proven = 0.5 + s.eta
    text = say(PAGE, "eta_trials", a=s, claim_eta=bound.eta, accuracy=bound.accuracy, proven_accuracy=proven)  # fmt: skip
    st.markdown(text)


def _chart(a: Audit, bound: AttackerBound, name: str) -> VegaLiteChart:
    """The measured ROC on the claim's region (band and corner for independent trials)."""
    band = a.one_run is None
    log_axes = controls.draw(CONTROLS["logfpr"])
    fig, data = appkit.cached(audit_roc_vega, a.scores, bound, band=band, log_axes=log_axes)
    extra = say(PAGE, "chart_band", confidence=a.scores.confidence) if band else ""
    caption = say(PAGE, "chart_caption", claim=name, eta=bound.eta, band=extra)
    appkit.chart(fig, data, "audit_roc", key="audit_roc_chart", caption=caption)
    if not log_axes:
        st.caption(prose_text(PAGE, "chart_log_hint"))
    return fig


Row = tuple[str, float, float, float, float]  # quantity, evidence, its interval, the claim
SUMMARY = ["quantity", "evidence", "evidence_low", "evidence_high", "claim"]


def _summary(v: ClaimVerdict, a: Audit, bound: AttackerBound) -> list[Row]:
    """The evidence beside the claim, one row per quantity (numbers; NaN where none)."""
    s, nan = a.scores, float("nan")
    rows: list[Row] = [("ε at the audit's δ", v.proven_epsilon, nan, nan, v.claimed_epsilon)]
    eta = s.eta if a.one_run is None else nan
    rows.append(("η", eta, nan, nan, bound.eta))
    for f, allowed in zip(bound.fpr_levels, bound.tpr_at_fpr, strict=True):
        t = s.tpr_at(f)
        low, high = (t.low, t.high) if a.one_run is None else (nan, nan)
        rows.append((f"TPR at FPR {fmt_pct(f)}", t.estimate, low, high, allowed))
    return rows


def _cell(x: float, pct: bool, sign: str = "") -> str:
    """A table cell: ``sign`` and the number (a rate in %), or "—" where there is none."""
    if x != x:  # NaN: no number of this kind (no one-run bound for η, no band)
        return "—"
    return sign + (fmt_pct(x) if pct else fmt_num(x))


def _table(v: ClaimVerdict, a: Audit, bound: AttackerBound) -> None:
    """The table of evidence and claim (also a CSV of the page's footer)."""
    rows = _summary(v, a, bound)
    shown = []
    for i, (quantity, value, low, high, claim) in enumerate(rows):
        pct = i >= 2  # the TPRs
        evidence = _cell(value, pct, "" if pct else "≥ ")
        if low == low:  # an interval (independent trials)
            evidence += f" [{_cell(low, pct)}, {_cell(high, pct)}]"
        shown.append((quantity, evidence, _cell(claim, pct, "≤ ")))
    st.caption(say(PAGE, "table_caption", delta=v.delta, confidence=v.confidence))
    head = ("", "the audit (evidence)", "the claim allows")
    appkit.tables.table(pd.DataFrame(shown, columns=list(head)), right=list(head[1:]))
    df = pd.DataFrame(rows, columns=SUMMARY)
    page.downloads.append(("audit_summary", "The audit beside the claim", df))


def _pictures(fig: VegaLiteChart) -> None:
    """The chart as SVG and PNG files (drawn when a button is clicked)."""
    c1, c2, _ = st.columns([1, 1, 1])
    c1.download_button("Download the chart (SVG)", functools.partial(chart_svg, fig), file_name="audit_roc.svg", mime="image/svg+xml", key="svg_chart", on_click="ignore", icon=":material/image:")  # fmt: skip
    c2.download_button("Download the chart (PNG)", functools.partial(chart_png, fig), file_name="audit_roc.png", mime="image/png", key="png_chart", on_click="ignore", icon=":material/image:")  # fmt: skip


def _live() -> None:
    with main:
        appkit.messages()
        ev = _evidence()
        if ev is None:
            return
        confidence, delta, guesses = _design(ev)
        g = _claim(ev)
        if g is None:  # a sentence said why
            return
    with details:
        bound, claim = _read_claim(g, delta)
        a = _audits(ev, confidence, delta, guesses)
        if a is None:
            return
        with appkit.guard("The verdict", stop=True):
            v = appkit.cached(claim_verdict, a.audit, claim)
        name = guarantee_inputs.name(g)
        _verdict(v, a, g, claim, name)
        st.subheader("Why: the numbers, the chart and the table")
        _metrics(v, a, bound)
        _detail(a, bound, guesses)
        fig = _chart(a, bound, name)
        _pictures(fig)
        _table(v, a, bound)


appkit.live(page, _live)
