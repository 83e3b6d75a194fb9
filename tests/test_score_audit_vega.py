"""The model audit's chart (mipcore.plots.score_audit_vega) and the roc module's Band layer: a
valid specification that no number changes (a new confidence, δ or claim redraws it in place),
tables that hold the audit's and the claim's own numbers, the band and the certified corner
for independent trials only, log axes without zeros, and claim and evidence told apart by dash
and marker as well as colour."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.guarantees import DpSgd, EpsDelta, attacker_bound
from mipcore.plots import roc, style
from mipcore.plots import score_audit_vega as sv
from mipcore.score_audit import audit_scores

RNG = np.random.default_rng(7)
MEMBERS, OTHERS = RNG.normal(0.6, 1.0, 800), RNG.normal(0.0, 1.0, 900)


@pytest.fixture(scope="module")
def audit():
    return audit_scores(MEMBERS, OTHERS, delta=1e-5)


@pytest.fixture(scope="module")
def bound():
    return attacker_bound(EpsDelta(1.0, 1e-5))


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("band", [False, True])
@pytest.mark.parametrize("log_axes", [False, True])
def test_the_spec_is_valid_and_no_number_changes_it(audit, bound, band, log_axes):
    chart, _ = sv.audit_roc_vega(audit, bound, band=band, log_axes=log_axes)
    valid_vega_lite(chart)
    other = audit_scores(MEMBERS + 1.0, OTHERS, delta=1e-3, confidence=0.8)
    chart2, _ = sv.audit_roc_vega(
        other, attacker_bound(DpSgd(1.0, 0.01, 1000)), band=band, log_axes=log_axes
    )
    assert spec_text(chart) == spec_text(chart2)
    assert set(chart.datasets) == set(chart2.datasets)


def test_the_table_holds_the_audits_and_the_claims_numbers(audit, bound):
    _, table = sv.audit_roc_vega(audit, bound, band=True)
    claim = table[table["curve"] == "claim"]
    np.testing.assert_array_equal(claim["fpr"], bound.roc_fpr)
    np.testing.assert_array_equal(claim["tpr"], bound.roc_tpr)
    eta = table[table["curve"] == "claim_eta"]
    np.testing.assert_allclose(eta["tpr"], np.minimum(1.0, bound.roc_fpr + 2 * bound.eta))
    f, t = audit.roc(max_points=sv.ROC_POINTS)
    measured = table[table["curve"] == "measured"]
    np.testing.assert_array_equal(measured["fpr"], f)
    np.testing.assert_array_equal(measured["tpr"], t)
    band = table[table["curve"] == "measured_band"]
    for row in band.itertuples():
        got = audit.tpr_at(row.fpr)
        assert (row.tpr, row.tpr_low, row.tpr_high) == (got.estimate, got.low, got.high)
        assert row.tpr_low <= row.tpr <= row.tpr_high
    (corner,) = table[table["curve"] == "certified_corner"].itertuples()
    point = audit.certified_point("epsilon")
    assert (corner.fpr, corner.tpr) == (point.fpr_high, point.tpr_low)
    assert audit.epsilon > 0
    # the corner is what the ε lower bound reads: TPR_lo − δ = e^ε · FPR_hi, or the same of the
    # rule's complement (1 − FPR_hi − δ = e^ε · (1 − TPR_lo)), whichever proves more
    t, f, d = corner.tpr, corner.fpr, audit.delta
    read = max(np.log((t - d) / f), np.log((1 - f - d) / (1 - t)))
    assert read == pytest.approx(audit.epsilon, rel=1e-12)


def test_one_run_draws_no_band_and_no_corner(audit, bound):
    chart, table = sv.audit_roc_vega(audit, bound, band=False)
    assert set(table["curve"]) == {"claim", "claim_eta", "measured"}
    assert table["tpr_low"].isna().all()
    assert "band" not in chart.datasets and "corner" not in chart.datasets


def test_no_corner_when_the_audit_proves_nothing(bound):
    nothing = audit_scores(OTHERS[:400], OTHERS[400:], delta=1e-5)
    assert nothing.epsilon == 0
    chart, table = sv.audit_roc_vega(nothing, bound, band=True)
    assert "certified_corner" not in set(table["curve"])
    assert chart.datasets["corner"].empty  # the layer stays: the same spec


def test_log_axes_draw_no_zero_and_the_band_from_the_floor(audit, bound):
    chart, _ = sv.audit_roc_vega(audit, bound, band=True, log_axes=True)
    for name in ("lines", "measured", "markers"):
        d = chart.datasets[name]
        assert (d["fpr"] > 0).all() and (d["tpr"] > 0).all(), name
    assert (chart.datasets["band"]["low"] >= sv.FLOOR).all()
    assert (chart.datasets["region"]["low"] == sv.FLOOR).all()
    lin, _ = sv.audit_roc_vega(audit, bound, band=True)
    assert (lin.datasets["region"]["low"] == 0).all()


def test_claim_and_evidence_differ_in_dash_and_marker_not_only_colour(audit, bound):
    chart, _ = sv.audit_roc_vega(audit, bound, band=True)
    (lines,) = [la for la in chart.spec["layer"] if la["data"] == {"name": "lines"}]
    scale = lines["encoding"]["color"]["scale"]
    names = scale["domain"]
    assert names[:4] == [sv.CLAIM_NAME, sv.ETA_NAME, sv.ROC_NAME, sv.GUESS_NAME]
    dashes = lines["encoding"]["strokeDash"]["scale"]["range"]
    shapes = lines["encoding"]["shape"]["scale"]["range"] if "shape" in lines["encoding"] else None
    claim, measured = names.index(sv.CLAIM_NAME), names.index(sv.ROC_NAME)
    assert dashes[claim] != dashes[measured]
    if shapes is not None:
        assert shapes[claim] != shapes[measured]
    assert scale["range"][claim] == style.DP.colour
    assert scale["range"][measured] == style.MEASURED.colour


def test_the_band_layer_is_an_area_between_two_columns():
    import pandas as pd

    data = {
        "b": pd.DataFrame({"fpr": [0.1, 0.5], "low": [0.1, 0.4], "high": [0.3, 0.9]}),
        "c": pd.DataFrame({"fpr": [0.0, 1.0], "tpr": [0.0, 1.0], "name": ["x", "x"]}),
    }
    chart = roc.chart(
        "T",
        data,
        plane=roc.Plane(),
        entries={"x": roc.CHANCE},
        layers=[roc.Band("b", style.GREEN, 0.3), roc.Curves("c")],
        height=200,
    )
    valid_vega_lite(chart)
    (band,) = [la for la in chart.spec["layer"] if la["data"] == {"name": "b"}]
    assert band["mark"] == {"type": "area", "opacity": 0.3, "clip": True}
    assert band["encoding"]["y"]["field"] == "low" and band["encoding"]["y2"]["field"] == "high"
    assert band["encoding"]["color"] == {"value": style.GREEN}
