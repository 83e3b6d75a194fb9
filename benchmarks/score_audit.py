"""Timings of "audit your own model from its attack scores", and the shipped example, in one run.

Prints:
1. a CSV of 10⁶ rows ``score,member`` (11 MB) parsed by :func:`mipcore.tabular.parse_numeric_csv`
   -- with its size and row limits raised for the purpose: the upload defaults (5 MB, 200 000
   rows) refuse such a file -- and the same 10⁶ scores audited by
   :func:`mipcore.score_audit.audit_scores` with each strategy, then the one-run audit of them
   (target: parse + audit <= 2 s on this machine);
2. the page's own path ("Does my model leak?", ``app_pages/audit_model.py``) on the same 10⁶
   rows, as a CSV and as a Parquet file: :func:`mipcore.score_upload.read_score_file` (the
   page's caps: 20 MB, 10⁶ rows), :func:`~mipcore.score_upload.scores_and_flags`, the audits
   the page runs (the one-run audit with its default guesses, or independent trials), the
   claim read at the audit's δ (:func:`~mipcore.score_audit.audited_claim` of the example's
   DP-SGD run), :func:`~mipcore.score_audit.claim_verdict` and the chart's table
   (:func:`mipcore.plots.score_audit_vega.audit_roc_table`); target: <= 2 s per design;
3. the shipped example, :func:`mipcore.experiments.trained_model.run_trained_model_example`
   (both targets and their shadows; target: 10-20 s), and what its scores show: AUC, TPR at
   1 % FPR, the ε/η/μ lower bounds (Bonferroni, 95 %, δ = 1e-5) and the one-run ε for each
   model and attack, beside the DP model's claimed ε.

One BLAS thread (as the app's jobs run). Never asserts; exits 0. Run:
``python benchmarks/score_audit.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from mipcore.experiments import trained_model as tm  # noqa: E402
from mipcore.guarantees import DpSgd, attacker_bound  # noqa: E402
from mipcore.plots.score_audit_vega import audit_roc_table  # noqa: E402
from mipcore.score_audit import (  # noqa: E402
    audit_scores,
    audited_claim,
    claim_verdict,
    one_run_from_scores,
)
from mipcore.score_upload import read_score_file, scores_and_flags  # noqa: E402
from mipcore.tabular import parse_numeric_csv  # noqa: E402

ROWS = 1_000_000


def _csv(rows: int) -> bytes:
    """``score,member`` rows: members' scores N(0.5, 1), non-members' N(0, 1), 6 decimals."""
    gen = np.random.default_rng(0)
    member = gen.random(rows) < 0.5
    score = gen.normal(0.0, 1.0, rows) + 0.5 * member
    body = "\n".join(f"{s:.6f},{int(m)}" for s, m in zip(score, member, strict=True))
    return ("score,member\n" + body + "\n").encode()


def _parquet(raw: bytes) -> bytes:
    """The same rows as a Parquet file (pyarrow, its default compression)."""
    import io

    buf = io.BytesIO()
    table = parse_numeric_csv(raw, max_bytes=len(raw), max_rows=ROWS).data
    table.astype({"member": "int8"}).to_parquet(buf, index=False)
    return buf.getvalue()


def _page_path(raw: bytes, kind: str) -> None:
    """What the page does with an upload of ``raw``, timed step by step, for both designs."""
    claim = DpSgd(tm.DP_SGD.noise_multiplier, tm.DP_SGD.sampling_rate, tm.DP_SGD.steps)
    bound = attacker_bound(claim)  # the page's claim (cached per server; not the upload's cost)
    audited = audited_claim(claim, tm.DELTA)
    t0 = time.perf_counter()
    read = read_score_file(raw, format="parquet" if kind == "Parquet" else None)
    scores, member = scores_and_flags(read.data, "score", "member")
    parse = time.perf_counter() - t0
    print(f"  {kind}, {len(raw) / 1e6:.1f} MB: read_score_file + scores_and_flags {parse:.2f} s")
    for design in ("one run", "trials"):
        t0 = time.perf_counter()
        audit = audit_scores(scores[member], scores[~member], delta=tm.DELTA)
        one = None
        if design == "one run":
            one = one_run_from_scores(scores, member, guesses=tm.ONE_RUN_GUESSES, delta=tm.DELTA)
        verdict = claim_verdict(one if one is not None else audit, audited)
        table = audit_roc_table(audit, bound, band=one is None)
        spent = time.perf_counter() - t0
        print(
            f"    {design:<8} audits + verdict + chart table {spent:.2f} s;  parse + all "
            f"{parse + spent:.2f} s (target <= 2 s):  {verdict.verdict.value}, ε ≥ "
            f"{verdict.proven_epsilon:.3f} vs claimed {verdict.claimed_epsilon:.3f}, "
            f"{len(table)} chart rows"
        )


def main() -> int:
    threadpool_limits(1)
    load = os.getloadavg()
    print(f"score audit timings, {os.cpu_count()} cores, load average {load[0]:.2f} (1 min)\n")

    raw = _csv(ROWS)
    t0 = time.perf_counter()
    table = parse_numeric_csv(raw, max_bytes=len(raw), max_rows=ROWS)
    parse = time.perf_counter() - t0
    score = table.data["score"].to_numpy()
    member = table.data["member"].to_numpy() == 1.0
    print(f"parse_numeric_csv, {ROWS:,} rows, {len(raw) / 1e6:.1f} MB:  {parse:.2f} s")
    print("    (the upload defaults refuse it: 5 MB and 200 000 rows; limits raised here)")
    for strategy in ("bonferroni", "split"):
        t0 = time.perf_counter()
        audit = audit_scores(score[member], score[~member], delta=1e-5, strategy=strategy)
        spent = time.perf_counter() - t0
        t0 = time.perf_counter()
        tprs = audit.tpr_at_fprs
        roc = audit.roc()
        extra = time.perf_counter() - t0
        print(
            f"audit_scores {strategy:<10} {spent:.2f} s  (+ TPR at 3 FPRs and a "
            f"{roc[0].size}-point ROC: {extra:.3f} s);  parse + audit {parse + spent:.2f} s   "
            "(target <= 2 s)"
        )
        print(
            f"    ε ≥ {audit.epsilon:.3f}, η ≥ {audit.eta:.4f}, μ ≥ {audit.mu:.3f}, "
            f"AUC {audit.auc:.4f}, TPR at 1 % FPR {tprs[1].estimate:.4f} "
            f"[{tprs[1].low:.4f}, {tprs[1].high:.4f}]   (truth: μ = 0.5, η = 0.0987)"
        )
    t0 = time.perf_counter()
    one = one_run_from_scores(score, member, guesses=(1000, 1000), delta=1e-5)
    print(
        f"one_run_from_scores, 2 000 guesses of {ROWS:,}:  {time.perf_counter() - t0:.2f} s "
        f"(ε ≥ {one.epsilon:.3f}, {one.correct} right)\n"
    )

    print("the page's own path (Does my model leak?), 10⁶ rows uploaded:")
    _page_path(raw, "CSV")
    _page_path(_parquet(raw), "Parquet")
    print()

    t0 = time.perf_counter()
    ex = tm.run_trained_model_example(rng=0)
    total = time.perf_counter() - t0
    print(
        f"trained_model example (rng=0, {ex.shadows} shadows per target): {total:.2f} s   "
        "(target 10-20 s)"
    )
    print(
        f"    without DP {ex.non_dp.seconds:.2f} s, DP-SGD {ex.dp.seconds:.2f} s, "
        f"accountant and the rest {total - ex.non_dp.seconds - ex.dp.seconds:.2f} s"
    )
    g = ex.guarantee
    print(
        f"    DP-SGD σ = {g.noise_multiplier}, q = {g.sampling_rate}, T = {g.steps}: claimed "
        f"ε = {g.epsilon:.3f} at δ = {g.delta:g} (replace-one), η = {g.eta:.4f}"
    )
    print(
        f"\n    {'model':<11}{'attack':<7}{'acc tr/te':>11}{'AUC':>7}{'TPR@1%':>8}"
        f"{'[low, high]':>16}{'ε_lb':>7}{'η_lb':>8}{'μ_lb':>7}{'one-run ε':>11}"
    )
    m = ex.member
    for name, model in (("without DP", ex.non_dp), ("DP-SGD", ex.dp)):
        for attack, scores in (("loss", model.loss_scores), ("LiRA", model.lira_scores)):
            a = audit_scores(scores[m], scores[~m], delta=tm.DELTA)
            t = a.tpr_at(0.01)
            o = one_run_from_scores(scores, m, guesses=tm.ONE_RUN_GUESSES, delta=tm.DELTA)
            print(
                f"    {name:<11}{attack:<7}{model.train_accuracy:>5.3f}/{model.test_accuracy:.3f}"
                f"{a.auc:>7.3f}{t.estimate:>8.3f}   [{t.low:.3f}, {t.high:.3f}]"
                f"{a.epsilon:>7.2f}{a.eta:>8.4f}{a.mu:>7.2f}{o.epsilon:>7.2f} ({o.correct}/{o.guesses})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
