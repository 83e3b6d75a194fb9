"""AppTest for the page "Does my model leak? Audit it from its attack scores"
(app_pages/audit_model.py).

The verdicts and numbers shown are compared with the theory the page reads, called here on
the same inputs: :func:`mipcore.experiments.trained_model.run_trained_model_example` (the
shipped example), :func:`mipcore.score_upload.read_score_file` and
:func:`~mipcore.score_upload.scores_and_flags` (an upload),
:func:`mipcore.score_audit.one_run_from_scores`, :func:`~mipcore.score_audit.audit_scores`,
:func:`~mipcore.score_audit.audited_claim` and :func:`~mipcore.score_audit.claim_verdict`
(tested on their own in test_score_audit.py and test_claim_verdict.py).
"""

from __future__ import annotations

import io

import numpy as np
import pagetools
import pandas as pd
import pytest
from pagetools import metric, texts, unescaped
from streamlit.testing.v1 import AppTest

from appkit import fmt_num
from mipcore.experiments.trained_model import DP_SGD, run_trained_model_example
from mipcore.guarantees import DpSgd, EpsDelta, Gdp, Kind, Relation
from mipcore.score_audit import (
    Verdict,
    audit_scores,
    audited_claim,
    claim_verdict,
    one_run_from_scores,
)

pytestmark = pytest.mark.apptest

PAGE = "app_pages/audit_model.py"
CLAIM = DpSgd(DP_SGD.noise_multiplier, DP_SGD.sampling_rate, DP_SGD.steps)
HEADS = {
    Verdict.REFUTED: "**Refuted.**",
    Verdict.CONSISTENT: "**Consistent.**",
    Verdict.TOO_WEAK: "**The audit is too weak to tell.**",
}


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=180, **params)


def verdict(at: AppTest) -> str:
    """The one verdict sentence of the page."""
    found = [
        e.value
        for kind in (at.warning, at.success, at.info)
        for e in kind
        if e.value.startswith(tuple(HEADS.values()))
    ]
    assert len(found) == 1, found
    return found[0]


def no_verdict(at: AppTest) -> None:
    assert not [
        e.value for k in (at.warning, at.success, at.info) for e in k if e.value.startswith("**")
    ]


@pytest.fixture(scope="module")
def example():
    return run_trained_model_example()


def one_run(scores, member, delta=1e-5, confidence=0.95, guesses=(25, 25), claim=CLAIM):
    audit = one_run_from_scores(scores, member, guesses=guesses, delta=delta, confidence=confidence)
    return audit, claim_verdict(audit, audited_claim(claim, delta))


# ------------------------------------------------------------------ the example, its verdicts
@pytest.mark.parametrize(
    ("source", "expected"), [("dp", Verdict.CONSISTENT), ("plain", Verdict.REFUTED)]
)
def test_the_example_models_verdicts_are_mipcores(example, source, expected):
    at = load() if source == "dp" else load(source=source)
    model = example.dp if source == "dp" else example.non_dp
    audit, v = one_run(model.lira_scores, example.member)
    assert v.verdict is expected  # the DP model's claim holds, the plain model's is refuted
    text = verdict(at)
    assert text.startswith(HEADS[expected])
    assert metric(at, "ε the audit proves") == fmt_num(v.proven_epsilon)
    assert metric(at, "ε the claim allows") == fmt_num(v.claimed_epsilon) == "1.16"
    assert metric(at, "most it could prove") == fmt_num(v.best_epsilon)
    assert f"ε ≥ {fmt_num(v.proven_epsilon)}" in text
    shown = " ".join(texts(at))
    assert f"{audit.correct} of {audit.guesses} guesses right" in shown
    assert "DP-SGD with noise multiplier 3, sampling rate 0.05 and 300 steps" in text
    if expected is Verdict.REFUTED:
        assert f"{fmt_num(v.excess)} more" in text
    # the relation tested, where the verdict is shown
    assert any("**add/remove** guarantee" in c.value for c in at.caption)
    pagetools.assert_clean(at)


def test_the_default_view_is_the_dp_example_with_its_claim_preset():
    at = load()
    assert at.radio(key="source").value == "dp"
    assert at.radio(key="kind").value.value == "dpsgd"
    assert at.number_input(key="sigma").value == DP_SGD.noise_multiplier
    assert at.number_input(key="q").value == DP_SGD.sampling_rate
    assert at.number_input(key="steps").value == DP_SGD.steps
    assert any("Preset to the example's DP-SGD run" in c.value for c in at.caption)
    assert any("1 797 handwritten digits" in c.value for c in at.caption)
    ((_spec, tables),) = pagetools.vega_charts(at)
    assert "band" not in tables  # one training run: no confidence band
    assert {"region", "lines", "markers", "measured"} <= set(tables)


def test_the_loss_attack_and_independent_trials(example):
    at = load(attack="loss", design="trials")
    assert any("one** training run" in w.value for w in at.warning)  # shown for comparison
    s = example.dp.loss_scores
    audit = audit_scores(s[example.member], s[~example.member], delta=1e-5)
    v = claim_verdict(audit, audited_claim(CLAIM, 1e-5))
    assert verdict(at).startswith(HEADS[v.verdict])
    assert "members perfectly told apart" in verdict(at)  # not "every guess right"
    assert metric(at, "ε the audit proves") == fmt_num(v.proven_epsilon)
    assert metric(at, "AUC") == fmt_num(audit.auc, 3)
    ((_, tables),) = pagetools.vega_charts(at)
    assert "band" in tables and len(tables["band"]) > 10
    assert "kin" not in [n.key for n in at.number_input]  # no guesses for independent trials


# ------------------------------------------------------------------ controls
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_every_control_changes_what_the_page_says(example):
    at = load()
    before = pagetools.snapshot(at)
    changes = [
        ("radio", "attack", "loss"),
        ("number_input", "conf", 0.9),
        ("number_input", "adelta", 1e-4),
        ("number_input", "kin", 40),
        ("number_input", "kout", 10),
        ("toggle", "logfpr", True),
        ("number_input", "sigma", 1.0),
        ("number_input", "q", 0.1),
        ("number_input", "steps", 500),
        ("radio", "design", "trials"),
    ]
    for kind, key, value in changes:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, (key, [e.value for e in at.exception])
        now = pagetools.snapshot(at)
        assert now != before, key
        before = now
    for kind, key, value in ((Kind.EPS_DELTA, "eps", 3.0), (Kind.GDP, "mu", 2.0), (Kind.ZCDP, "rho", 0.3), (Kind.RDP, "rdp", "2: 0.4, 8: 1.5"), (Kind.EPS_DELTA, "rel", Relation.ADD_OR_REMOVE_ONE)):  # fmt: skip
        at.radio(key="kind").set_value(kind).run()
        widget = at.radio(key=key) if key == "rel" else at.text_input(key=key) if key == "rdp" else at.number_input(key=key)  # fmt: skip
        widget.set_value(value).run()
        assert not at.exception, (key, [e.value for e in at.exception])
        now = pagetools.snapshot(at)
        assert now != before, key
        before = now
        verdict(at)
    assert at.query_params["attack"] in (["loss"], "loss")
    assert at.query_params["logfpr"] in (["1"], "1", ["true"], "true")


@pytest.mark.parametrize(
    ("params", "claim"),
    [
        ({"kind": "eps_delta", "eps": "0.5", "delta": "1e-6"}, EpsDelta(0.5, 1e-6)),
        ({"kind": "eps_delta", "eps": "0.5", "delta": "1e-6", "rel": "add_or_remove_one"}, EpsDelta(0.5, 1e-6, Relation.ADD_OR_REMOVE_ONE)),
        ({"kind": "gdp", "mu": "0.2"}, Gdp(0.2)),
    ],
)  # fmt: skip
def test_other_claims_read_at_the_audits_delta(example, params, claim):
    at = load(source="plain", **params)
    _audit, v = one_run(example.non_dp.lira_scores, example.member, claim=claim)
    assert verdict(at).startswith(HEADS[v.verdict])
    assert metric(at, "ε the claim allows") == fmt_num(v.claimed_epsilon)
    relation = " ".join(c.value for c in at.caption)
    if getattr(claim, "relation", None) is Relation.REPLACE_ONE:
        assert "stated for **replace-one** neighbours" in relation
    else:
        assert "stated for **add/remove** neighbours" in relation


def test_a_claim_the_audit_cannot_test_says_how_many_canaries_would(example):
    at = load(kind="eps_delta", eps="8", delta="0", adelta="0")
    _audit, v = one_run(example.dp.lira_scores, example.member, delta=0.0, claim=EpsDelta(8.0, 0.0))
    assert v.verdict is Verdict.TOO_WEAK and v.canaries_needed is not None
    text = verdict(at)
    assert text.startswith(HEADS[Verdict.TOO_WEAK])
    assert f"{v.canaries_needed:,}".replace(",", " ") in unescaped(text)


def test_a_claim_of_no_finite_epsilon_at_the_audits_delta():
    at = load(kind="eps_delta", eps="1", delta="0.01", adelta="0.001")
    assert "certifies no finite ε" in verdict(at)


@pytest.mark.parametrize(
    "params",
    [
        {"conf": "2"},
        {"source": "evil"},
        {"kin": "-1"},
        {"adelta": "nan"},
        {"design": "<b>x</b>"},
        {"steps": "1e99"},
    ],
)
def test_refused_link_values_get_a_sentence(params):
    at = load(**params)
    assert not at.exception
    assert at.error or at.warning, params
    verdict(at)  # the page still judges the default


def test_too_many_guesses_is_a_sentence():
    at = load(kin="1500", kout="1500")
    assert any("more than the 1 797 examples" in e.value for e in at.error)
    no_verdict(at)


# ------------------------------------------------------------------ uploads
def scores_frame(n=1000, shift=3.0, seed=1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    member = rng.random(n) < 0.5
    return pd.DataFrame(
        {
            "id": np.arange(n),
            "lira": rng.normal(0, 1, n) + shift * member,
            "member": member.astype(int),
        }
    )


def upload(content: bytes, name: str = "scores.csv", **params: str) -> AppTest:
    at = load(source="upload", **params)
    at.file_uploader(key="scores_file").set_value((name, content, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_upload_without_a_file_says_the_link_does_not_carry_it():
    at = load(source="upload")
    assert any("**but not the file**" in i.value for i in at.info)
    assert at.file_uploader(key="scores_file").proto.max_upload_size_mb == 20
    no_verdict(at)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_good_upload_is_audited_as_mipcore_audits_it(fmt):
    df = scores_frame()
    if fmt == "csv":
        raw, name = df.to_csv(index=False).encode(), "scores.csv"
    else:
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        raw, name = buf.getvalue(), "scores.parquet"
    at = upload(raw, name)
    assert at.selectbox(key="score_col").value == "lira"
    assert at.selectbox(key="flag_col").value == "member"
    member = df["member"].to_numpy() == 1
    _audit, v = one_run(df["lira"].to_numpy(), member)
    assert v.verdict is Verdict.REFUTED
    assert verdict(at).startswith(HEADS[Verdict.REFUTED])
    assert metric(at, "ε the audit proves") == fmt_num(v.proven_epsilon)
    read = " ".join(c.value for c in at.caption)
    assert f"{int(member.sum())} members" in read and fmt.upper() in read
    # lower scores for members: the direction control turns the verdict around
    at.radio(key="higher").set_value("lower").run()
    _audit, v = one_run(-df["lira"].to_numpy(), member)
    assert verdict(at).startswith(HEADS[v.verdict]) and v.verdict is not Verdict.REFUTED
    # independent trials: audit_scores' bound
    at.radio(key="design").set_value("trials").run()
    s = -df["lira"].to_numpy()
    trials = audit_scores(s[member], s[~member], delta=1e-5)
    assert metric(at, "ε the audit proves") == fmt_num(trials.epsilon)
    pagetools.assert_clean(at)


def test_the_upload_name_is_text_not_markdown():
    at = upload(scores_frame().to_csv(index=False).encode(), name="[x](http://evil)**b**.csv")
    (read,) = [c.value for c in at.caption if c.value.startswith("Read ")]
    assert "](http://evil)" not in read.replace("\\", "") or "\\[" in read
    assert "**b**" not in read


GOOD_ROWS = "".join(f"{0.1 * i},{i % 2}\n" for i in range(20))


@pytest.mark.parametrize(
    ("content", "name", "words"),
    [
        (b"", "empty.csv", "empty"),
        (bytes(range(256)) * 10, "binary.csv", "not UTF-8"),
        (b"score,member\n" + b"0.5,1\n" * 3_500_000, "huge.csv", "more than the 20,000,000 bytes"),
        (b"score,member\n1,0\n2,1,3\n4\n", "ragged.csv", "ragged"),
        (b"a,b\n" + b"x,y\n" * 20, "words.csv", "no column is numeric"),
        (("score,member\n" + GOOD_ROWS + "nan,0\n").encode(), "nan.csv", "missing"),
        (("score,member\n" + GOOD_ROWS + "0.3,2\n").encode(), "flags.csv", "0"),
        (("score,member\n" + "".join(f"{i},1\n" for i in range(20))).encode(), "one.csv", "member"),
        (b"PAR1 not really parquet PAR1", "fake.parquet", "not a Parquet file"),
        (b"PAR1" + bytes(1000), "zeros.parquet", "Parquet"),
    ],
    ids=["empty", "binary", "huge", "ragged", "no_numeric", "nan", "flags", "one_class", "not_parquet", "zeros_parquet"],
)  # fmt: skip
def test_hostile_uploads_get_a_sentence(content, name, words):
    at = upload(content, name)
    errors = [unescaped(e.value) for e in at.error]
    assert errors and errors[0].startswith("This file cannot be used"), (name, errors)
    assert words in errors[0], (name, errors)
    no_verdict(at)
    assert not pagetools.vega_charts(at)


def test_a_large_upload_is_audited_in_its_own_process(monkeypatch):
    """Beyond HEAVY_ROWS rows the audits run as jobs (appkit.jobs): the same verdict."""
    from appkit import jobs

    ran = []
    real = jobs.run
    monkeypatch.setattr(
        jobs, "run", lambda fn, *a, **k: ran.append(fn.__name__) or real(fn, *a, **k)
    )
    df = scores_frame(n=150_000, shift=0.3, seed=5)
    at = upload(df[["lira", "member"]].to_csv(index=False).encode(), "big.csv")
    assert {"audit_scores", "one_run_from_scores"} <= set(ran)
    member = df["member"].to_numpy() == 1
    _audit, v = one_run(df["lira"].to_numpy(), member)
    assert verdict(at).startswith(HEADS[v.verdict])
    assert metric(at, "ε the audit proves") == fmt_num(v.proven_epsilon)
    assert any("150 000 rows" in c.value for c in at.caption)
