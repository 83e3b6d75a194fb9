""" "Does my model leak?" in a real browser, as a privacy engineer uses it: Debian's Chromium
opens the page, reads the shipped example's verdict (the DP-SGD model's claim consistent),
uploads a CSV of scores (``set_input_files``) and reads the new verdict (refuted, by the ε the
one-run audit proves, computed here with mipcore on the same file), then downloads the chart
as SVG and PNG and the table as CSV from the buttons a person clicks. At 1024×768 (the
projector) and 390×844 (a phone) the page must not be wider than the window. Screenshots go to
tests/artifacts/ (and to $MIP_EVIDENCE_DIR when it is set)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browsertools import RUN_TIMEOUT, assert_no_exception, open_app, streamlit_server, wait_for_run

from appkit import fmt_num
from mipcore.experiments.trained_model import DP_SGD
from mipcore.guarantees import DpSgd
from mipcore.score_audit import audited_claim, claim_verdict, one_run_from_scores

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
JOB_TIMEOUT = 120_000  # ms: the example's training (a job, once per server) and the claim
VERDICT = """(word) => { const m = document.querySelector('[data-testid="stMain"]');
    return m && [...m.querySelectorAll('[data-testid="stAlertContainer"]')]
        .some(a => a.innerText.includes(word)); }"""


@pytest.fixture(scope="module")
def server(chromium_path):
    with streamlit_server() as srv:
        yield srv.url


def _page(browser, width: int, height: int):
    context = browser.new_context(
        viewport={"width": width, "height": height}, accept_downloads=True
    )
    pg = context.new_page()
    pg.js_errors = []
    pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
    return context, pg


def _shot(pg, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / name), full_page=True)
    evidence = os.environ.get("MIP_EVIDENCE_DIR")
    if evidence:
        pg.screenshot(path=str(Path(evidence) / name), full_page=True)


def _verdict(pg) -> str:
    alerts = pg.locator('[data-testid="stMain"] [data-testid="stAlertContainer"]')
    heads = ("Refuted.", "Consistent.", "The audit is too weak")
    texts = [t.strip().lstrip("🚨✅🔍").strip() for t in alerts.all_inner_texts()]
    found = [t for t in texts if t.startswith(heads)]
    assert len(found) == 1, texts
    return found[0]


def _fits(pg, width: int) -> None:
    wide = pg.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width, f"the page is {wide} px wide in a {width} px window"


def _scores_csv() -> tuple[bytes, pd.DataFrame]:
    rng = np.random.default_rng(3)
    member = rng.random(1200) < 0.5
    df = pd.DataFrame({"lira": rng.normal(0, 1, 1200) + 3.0 * member, "member": member.astype(int)})
    return df.to_csv(index=False).encode(), df


def _download(pg, button: str) -> bytes:
    with pg.expect_download(timeout=RUN_TIMEOUT) as info:
        pg.get_by_role("button", name=button).click()
    path = info.value.path()
    return Path(path).read_bytes()


def test_example_verdict_upload_and_exports(browser, server):
    context, pg = _page(browser, 1024, 768)
    try:
        open_app(pg, server, "/audit_model")
        pg.wait_for_function(VERDICT, arg="Consistent.", timeout=JOB_TIMEOUT)
        wait_for_run(pg)
        assert_no_exception(pg)
        text = _verdict(pg)
        assert "ε ≤ 1.16" in text and "DP-SGD with noise multiplier 3" in text
        _fits(pg, 1024)
        _shot(pg, "audit_model_1024.png")
        # the same model trained without DP: its claim is refuted
        pg.get_by_text("the same model, trained without DP").click()
        pg.wait_for_function(VERDICT, arg="Refuted.", timeout=JOB_TIMEOUT)
        wait_for_run(pg)
        # your own scores: a CSV uploaded as a person would
        pg.get_by_text("your own scores (CSV or Parquet)").click()
        wait_for_run(pg)
        raw, df = _scores_csv()
        uploader = pg.locator('[data-testid="stFileUploader"] input[type="file"]')
        uploader.set_input_files(files=[{"name": "my_scores.csv", "mimeType": "text/csv", "buffer": raw}])  # fmt: skip
        pg.wait_for_function(
            """() => document.querySelector('[data-testid="stMain"]').innerText.includes('Read “my_scores.csv”')""",
            timeout=RUN_TIMEOUT,
        )
        wait_for_run(pg)
        pg.wait_for_function(VERDICT, arg="Refuted.", timeout=JOB_TIMEOUT)
        wait_for_run(pg)
        assert_no_exception(pg)
        claim = DpSgd(DP_SGD.noise_multiplier, DP_SGD.sampling_rate, DP_SGD.steps)
        audit = one_run_from_scores(df["lira"], df["member"] == 1, guesses=(25, 25), delta=1e-5)
        v = claim_verdict(audit, audited_claim(claim, 1e-5))
        text = _verdict(pg)
        assert text.startswith("Refuted.") and f"ε ≥ {fmt_num(v.proven_epsilon)}" in text, text
        _shot(pg, "audit_model_upload_1024.png")
        # the exports: the chart as SVG and PNG, the table as CSV
        svg = _download(pg, "Download the chart (SVG)").decode("utf-8")
        assert svg.lstrip().startswith("<svg") and "The attack's ROC and the claim" in svg
        png = _download(pg, "Download the chart (PNG)")
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
        pg.get_by_text("Data behind the charts").click()
        summary = pd.read_csv(io.BytesIO(_download(pg, "audit_summary.csv — The audit beside the claim")))  # fmt: skip
        assert list(summary.columns) == ["quantity", "evidence", "evidence_low", "evidence_high", "claim"]  # fmt: skip
        assert summary["evidence"].iloc[0] == pytest.approx(v.proven_epsilon, rel=1e-12)
        assert summary["claim"].iloc[0] == pytest.approx(v.claimed_epsilon, rel=1e-12)
        assert not pg.js_errors, pg.js_errors
    finally:
        context.close()


def test_a_phone_reads_the_verdict_without_scrolling_sideways(browser, server):
    context, pg = _page(browser, 390, 844)
    try:
        open_app(pg, server, "/audit_model?source=plain")
        pg.wait_for_function(VERDICT, arg="Refuted.", timeout=JOB_TIMEOUT)
        wait_for_run(pg)
        assert_no_exception(pg)
        box = pg.locator('[data-testid="stMain"] [data-testid="stAlertContainer"]').first.bounding_box()  # fmt: skip
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        _fits(pg, 390)
        _shot(pg, "audit_model_390.png")
    finally:
        context.close()
