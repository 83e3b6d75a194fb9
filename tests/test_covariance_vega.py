"""The covariance page's chart drawn by Vega-Lite (mipcore.plots.covariance_vega): schema-valid,
drawing the frame's rows, a specification that the run's numbers do not change, and MIP and
DP-SGD told apart by more than colour."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from test_vega import valid_vega_lite

from mipcore.experiments.covariance import DpCalibration
from mipcore.mechanism import MipCalibration
from mipcore.plots import covariance_vega as cvv
from mipcore.plots.vega import DASH

ETAS = np.linspace(0.01, 0.45, 12)
COLUMNS = ["curve", "method", "M", "mip_calibration", "dp_calibration", "eta", "mean", "sem"]
COLUMNS.append("runs")


def frame(scale: float = 1.0, etas: np.ndarray = ETAS) -> pd.DataFrame:
    """A curve_frame-like table: Raw, both DP-SGD calibrations, MIP M = 4 and 6 (two
    calibrations); ``scale`` moves every error (as another run would)."""
    rows = []

    def add(method, M, mip, dp, errors, sem):
        name = cvv.curve_name(method, M=M, mip=mip, dp=dp, certified=mip != "as_printed")
        for e, m, s in zip(etas, errors, sem, strict=True):
            rows.append((name, method, M, mip, dp, float(e), float(m), float(s), 3))

    n = len(etas)
    add("raw", None, None, None, np.full(n, 0.02 * scale), np.full(n, np.nan))
    for dp in ("tight", "paper"):
        add("dpsgd", None, None, dp, np.full(n, 1.3 * scale), np.full(n, 0.01))
    for M in (4, 6):
        for mip in ("tight", "as_printed"):
            err = scale * (0.05 + 3.0 / (etas * M))
            add("mip", M, mip, None, err, (0.6 if M == 4 else 1.2) * err)  # some reach 0
    return pd.DataFrame(
        rows,
        columns=COLUMNS,
    )


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def layer(chart, name):
    def walk(spec):
        for x in spec.get("layer", []):
            yield x
            yield from walk(x)

    (found,) = [x for x in walk(chart.spec) if x.get("data", {}).get("name") == name]
    return found


def marks_legend(chart) -> dict:
    """The chart's one legend: the markers' colour, shape and fill share it; no other layer
    has one."""
    marks = layer(chart, "markers")["encoding"]
    legends = [marks[c]["legend"] for c in ("color", "shape", "fill")]
    assert all(x == legends[0] for x in legends) and legends[0]
    for name in ("lines", "bands"):
        enc = layer(chart, name)["encoding"]
        assert all(enc[c].get("legend", None) is None for c in ("color", "strokeDash") if c in enc)
    return legends[0]


@pytest.mark.parametrize("log_y", [True, False])
def test_valid_and_draws_every_row_of_the_frame(log_y):
    f = frame()
    chart, table = cvv.error_vega(f, log_y=log_y, x_range=(0.01, 0.45))
    valid_vega_lite(chart)
    assert table is f  # the CSV is exactly the frame the page passes
    lines = chart.datasets["lines"]
    merged = lines.merge(f, on=["curve", "eta", "mean"], how="left", validate="one_to_one")
    assert len(lines) == len(f) and merged["method"].notna().all()
    assert np.allclose(merged["sem_x"], np.nan_to_num(merged["sem_y"].to_numpy(float)))
    # markers: rows of the lines, at most nine per curve, both ends kept
    markers = chart.datasets["markers"]
    assert len(markers.merge(lines, how="inner")) == len(markers)
    for curve, rows in markers.groupby("curve"):
        assert 2 <= len(rows) <= 9
        full = lines[lines["curve"] == curve]["eta"]
        assert rows["eta"].min() == full.min() and rows["eta"].max() == full.max()
    for t in chart.datasets.values():
        assert not t.isna().any().any()
        assert np.isfinite(t.select_dtypes("number").to_numpy(float)).all()


def test_bands_are_mean_plus_minus_sem_floored_on_log():
    f = frame()
    log, _ = cvv.error_vega(f, log_y=True)
    linear, _ = cvv.error_vega(f, log_y=False)
    private = f[f["method"] != "raw"].assign(sem=lambda d: d["sem"].fillna(0.0))
    for chart, floor in ((log, True), (linear, False)):
        band = chart.datasets["bands"].merge(private, on=["curve", "eta"])
        assert len(band) == len(private)  # every private curve, no Raw band
        lower = band["mean"] - band["sem"]
        if floor:
            lower = np.maximum(lower, cvv.LOG_BAND_FLOOR * band["mean"])
            assert (band["lower"] > 0).all()
        assert np.allclose(band["lower"], lower)
        assert np.allclose(band["upper"], band["mean"] + band["sem"])
    assert cvv.band_clipped(f)


def test_the_spec_does_not_depend_on_the_run_numbers():
    a, _ = cvv.error_vega(frame(1.0), x_range=(0.01, 0.45), title="Relative error vs η (All η)")
    b, _ = cvv.error_vega(frame(7.0), x_range=(0.01, 0.45), title="Relative error vs η (All η)")
    assert spec_text(a) == spec_text(b)
    assert not a.datasets["lines"].equals(b.datasets["lines"])
    c, _ = cvv.error_vega(frame(), log_y=False, x_range=(0.01, 0.45))
    assert spec_text(c) != spec_text(a)  # the log toggle does change it


def test_legend_in_order_one_column_and_more_than_colour():
    chart, _ = cvv.error_vega(frame())
    enc = layer(chart, "lines")["encoding"]
    names = enc["color"]["scale"]["domain"]
    assert names[:3] == [
        "Raw (no privacy)",
        "DP-SGD, tight calibration",
        "DP-SGD, paper calibration",
    ]
    assert marks_legend(chart)["columns"] == 1  # one legend, long names in one column
    dashes = dict(zip(names, enc["strokeDash"]["scale"]["range"], strict=True))
    marks = layer(chart, "markers")["encoding"]
    shapes = dict(zip(names, marks["shape"]["scale"]["range"], strict=True))
    fills = dict(zip(names, marks["fill"]["scale"]["range"], strict=True))
    looks = {n: (json.dumps(dashes[n]), shapes[n], fills[n]) for n in names}
    assert len(set(looks.values())) == len(names)  # every curve differs beyond its colour
    dp, mip = "DP-SGD, tight calibration", "MIP M=4, smallest certified noise"
    assert dashes[dp] == DASH["dash"] and dashes[mip] == DASH["solid"]
    assert shapes[dp] == "square" and shapes[mip] != "square"
    assert "MIP M=4, as printed (Laplace radius, not certified)" in names


def test_curve_styles_differ_for_every_calibration():
    styles = {json.dumps(cvv.curve_style("mip", mip=m), sort_keys=True) for m in MipCalibration}
    styles |= {json.dumps(cvv.curve_style("dpsgd", dp=d), sort_keys=True) for d in DpCalibration}
    assert len(styles) == 5


def test_log_axis_labels_powers_of_ten_without_e_notation():
    chart, _ = cvv.error_vega(frame())
    axis = layer(chart, "lines")["encoding"]["y"]["axis"]
    assert "10⁻⁵" in axis["labelExpr"] and "e-" not in axis["labelExpr"]
    assert "values" not in axis  # ticks follow the data's range, the spec does not


def test_bad_input_raises():
    with pytest.raises(ValueError, match="nothing to draw"):
        cvv.error_vega(frame().iloc[:0])
    with pytest.raises(ValueError, match="x_range"):
        cvv.error_vega(frame(), x_range=(0.3, 0.1))
