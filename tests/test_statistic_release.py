"""Tests for mipcore.lessons.statistic_release: defensive CSV parsing, DP sensitivities, MIP beside DP on one statistic.

Source: ``000_ece03c98c31c7b12.txt`` Section 4 (Algorithm 1, Corollary 10) and Theorem 4
(``epsilon = log((1 + 2 eta)/(1 - 2 eta))`` at delta = 0); the Laplace mechanism.

The sensitivities are checked by brute force: replace one row of a dataset inside the
clipping box by another (random points, all corners) and measure the L1 change of the
statistic directly.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import pickle

import numpy as np
import pandas as pd
import pytest

from mipcore.lessons.statistic_release import (
    MAX_UPLOAD_BYTES,
    STATISTICS,
    ParsedTable,
    dp_l1_sensitivity,
    make_dataset,
    parse_numeric_csv,
    statistic,
    wrap_statistic,
)
from mipcore.mechanism import mip_release


def _csv(header: str, rows) -> bytes:
    return (header + "\n" + "".join(r + "\n" for r in rows)).encode()


GOOD_ROWS = [f"{i},{i * 0.5},{-i}e-1" for i in range(12)]

# --------------------------------------------------------------------------- parse_numeric_csv: good input


def test_good_csv():
    t = parse_numeric_csv(_csv("a,b,c", GOOD_ROWS))
    assert isinstance(t, ParsedTable) and t.notes == ()
    assert list(t.data.columns) == ["a", "b", "c"]
    assert t.data.dtypes.eq(float).all()
    np.testing.assert_array_equal(t.data.to_numpy(), [[i, i * 0.5, -i / 10] for i in range(12)])
    assert list(t.data.index) == list(range(12))


@pytest.mark.parametrize(
    "raw",
    [
        _csv("a;b;c", [r.replace(",", ";") for r in GOOD_ROWS]),  # semicolon-separated
        _csv("a\tb\tc", [r.replace(",", "\t") for r in GOOD_ROWS]),  # tab-separated
        _csv("a,b,c", GOOD_ROWS).replace(b"\n", b"\r\n"),  # Windows line ends
        b"\xef\xbb\xbf" + _csv("a,b,c", GOOD_ROWS),  # UTF-8 byte-order mark (Excel)
        _csv(
            '"a","b","c"', [",".join(f'"{v}"' for v in r.split(",")) for r in GOOD_ROWS]
        ),  # quoted
        _csv("a, b, c", [r.replace(",", ", ") for r in GOOD_ROWS]),  # spaces after commas
    ],
)
def test_other_dialects_give_the_same_table(raw):
    t = parse_numeric_csv(raw)
    assert list(t.data.columns) == ["a", "b", "c"] and t.notes == ()
    np.testing.assert_array_equal(
        t.data.to_numpy(), parse_numeric_csv(_csv("a,b,c", GOOD_ROWS)).data.to_numpy()
    )


def test_non_numeric_columns_dropped_with_a_note():
    rows = [f"{i},name{i},{i * 2},2024-01-0{i % 9 + 1}" for i in range(10)]
    t = parse_numeric_csv(_csv("x,who,y,when", rows))
    assert list(t.data.columns) == ["x", "y"]
    assert (
        len(t.notes) == 1
        and "who" in t.notes[0]
        and "when" in t.notes[0]
        and "non-numeric" in t.notes[0]
    )


def test_nan_inf_and_stray_text_rows_dropped_with_a_note():
    rows = [f"{i},{i}" for i in range(20)] + ["inf,1", "2,-inf", "nan,3", ",4", "5,oops"]
    t = parse_numeric_csv(_csv("a,b", rows))
    assert list(t.data.columns) == ["a", "b"]  # 'b' is 24/25 numeric: kept, the stray row dropped
    assert len(t.data) == 20 and np.all(np.isfinite(t.data.to_numpy()))
    assert len(t.notes) == 1 and "Dropped 5 row(s)" in t.notes[0]
    short = parse_numeric_csv(_csv("a,b", [f"{i},{i}" for i in range(10)] + ["7"]))  # a short row
    assert len(short.data) == 10 and "Dropped 1 row(s)" in short.notes[0]


# --------------------------------------------------------------------------- parse_numeric_csv: errors


@pytest.mark.parametrize(
    "raw, kwargs, message",
    [
        (b"", {}, "empty"),
        (b"\n\n   \n", {}, "no content"),
        (b"a,b\n", {}, "no data rows"),
        (b"a,b", {}, "no data rows"),
        (_csv("a,b", [f"{i},{i}" for i in range(10)] + ["1,2,3"]), {}, "ragged"),
        (b"a,b\n1,2\x00\n" + b"3,4\n" * 10, {}, "NUL"),
        (bytes(range(256)) * 4, {}, "not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", {}, "not UTF-8"),
        ("a,b\ncafé,1\n".encode("latin-1"), {}, "not UTF-8"),
        ("a,b\n1,2\n".encode("utf-16"), {}, "not UTF-8"),
        (_csv("a,b,c", GOOD_ROWS), dict(max_bytes=50), "limit is 50"),
        (_csv("a,b,c", GOOD_ROWS), dict(max_rows=11), "more than 11 rows"),
        (_csv("a,b,c", GOOD_ROWS), dict(max_cols=2), "3 numeric columns; the limit is 2"),
        (_csv("a,b", [f"{i},{i}" for i in range(7)]), {}, "only 7 usable row"),
        (_csv("a,b", [f"{i},{i}" for i in range(7)] + ["inf,0"] * 5), {}, "only 7 usable row"),
        (_csv("a,b", ["x,y"] * 10), {}, "no numeric columns"),
    ],
)
def test_parse_errors_are_sentences(raw, kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_numeric_csv(raw, **kwargs)
    msg = str(info.value)
    assert msg and "Traceback" not in msg and len(msg) < 300


def test_parse_rejects_non_bytes_and_default_limit():
    with pytest.raises(ValueError, match="bytes"):
        parse_numeric_csv("a,b\n1,2\n")
    with pytest.raises(ValueError, match="limit"):
        parse_numeric_csv(b"a\n" + b"1\n" * (MAX_UPLOAD_BYTES // 2))
    assert isinstance(parse_numeric_csv(bytearray(_csv("a,b,c", GOOD_ROWS))), ParsedTable)


def test_nothing_in_the_file_is_executed(tmp_path):
    sentinel = tmp_path / "pwned"
    payloads = [
        "=cmd()",
        '=HYPERLINK("http://x")',
        f"__import__('os').system('touch {sentinel}')",
        f"exec(\"open('{sentinel}','w')\")",
        "@SUM(1+1)",
    ]
    buf = io.StringIO()
    writer = csv.writer(buf)  # proper quoting: payloads with commas and quotes stay one field
    writer.writerow(["x", "evil"])
    writer.writerows([i, payloads[i % len(payloads)]] for i in range(15))
    t = parse_numeric_csv(buf.getvalue().encode())
    assert list(t.data.columns) == ["x"] and "evil" in t.notes[0]
    assert not sentinel.exists()
    # a pickle is binary, never unpickled: rejected as not text
    with pytest.raises(ValueError):
        parse_numeric_csv(pickle.dumps({"a": [1, 2, 3]}))
    # code in a header is only a column name
    t = parse_numeric_csv(
        _csv(f"__import__('os').system('touch {sentinel}'),b", [f"{i},{i}" for i in range(10)])
    )
    assert not sentinel.exists() and t.data.shape == (10, 2)


@pytest.mark.parametrize(
    "header, values",
    [
        ("value", [f"{i}.5" for i in range(10)]),
        ("energy", [f"{i}.5e3" for i in range(1, 11)]),
        ("x1", [f"{i}1.5" for i in range(10)]),
    ],
)
def test_single_column_csv_is_not_split_on_a_header_letter(header, values):
    """Regression (fixed): pandas' ``sep=None`` sniffs the delimiter from the *first line only* with
    ``csv.Sniffer``, which accepts any character; for a one-column file it picks the header's
    first letter. "value" -> 'v': the column becomes "Unnamed: 0" with a note "Dropped
    non-numeric column(s): alue."; "energy" -> 'e': 1.5e3 is split into 1.5 and 3 (two
    plausible numeric columns, silently wrong data). Fix: sniff once over a sample of the
    text with candidate delimiters restricted, falling back to ',' (one column), e.g.
    ``try: sep = csv.Sniffer().sniff(text[:65536], delimiters=",;\\t|").delimiter``
    ``except csv.Error: sep = ","`` and pass ``sep=sep`` to ``pd.read_csv``."""
    t = parse_numeric_csv(_csv(header, values))
    assert list(t.data.columns) == [header]
    np.testing.assert_array_equal(t.data[header].to_numpy(), [float(v) for v in values])
    assert t.notes == ()


# --------------------------------------------------------------------------- statistics and datasets


def test_statistics():
    gen = np.random.default_rng(0)
    rows = gen.standard_normal((20, 3))
    np.testing.assert_allclose(statistic("mean")(rows), rows.mean(axis=0), rtol=1e-14)
    want = np.array(
        [[np.mean(rows[:, i] * rows[:, j]) for j in range(3)] for i in range(3)]
    ).ravel()
    np.testing.assert_allclose(statistic("covariance")(rows), want, rtol=1e-12)
    beta = np.array([0.5, 2.0, -1.0])
    y = beta[0] + rows[:, :2] @ beta[1:]
    np.testing.assert_allclose(
        statistic("linear regression")(np.column_stack([rows[:, :2], y])), beta, atol=1e-12
    )
    with pytest.raises(ValueError, match="statistic"):
        statistic("median")


@pytest.mark.parametrize("name", STATISTICS)
def test_make_dataset(name):
    df = make_dataset(name, 50, 3, 4)
    assert df.shape == (50, 3)
    pd.testing.assert_frame_equal(df, make_dataset(name, 50, 3, 4))
    assert not df.equals(make_dataset(name, 50, 3, 5))
    if name == "linear regression":
        assert list(df.columns) == ["x1", "x2", "y"]
        with pytest.raises(ValueError, match="d=1"):
            make_dataset(name, 50, 1, 0)
    for bad, field in ((dict(n=7), "n"), (dict(d=0), "d"), (dict(d=21), "d")):
        args = dict(n=50, d=3) | bad
        with pytest.raises(ValueError, match=field):
            make_dataset(name, args["n"], args["d"], 0)


# --------------------------------------------------------------------------- sensitivities by brute force


def _l1_change(name, data, i, x_new):
    fn = statistic(name)
    other = data.copy()
    other[i] = x_new
    return float(np.abs(fn(data) - fn(other)).sum())


BOXES = [
    (np.array([0.0, -1.0]), np.array([1.0, 1.0])),
    (np.array([-2.0, 0.5, -0.1]), np.array([3.0, 4.0, 0.2])),
    (np.array([1.0]), np.array([2.0])),  # box not containing 0
]


@pytest.mark.parametrize("lo, hi", BOXES)
@pytest.mark.parametrize("name", ["mean", "covariance"])
def test_dp_l1_sensitivity_bounds_every_replacement(name, lo, hi):
    gen = np.random.default_rng(7)
    m = 9
    bound = dp_l1_sensitivity(name, lo, hi, m)
    corners = np.array(list(itertools.product(*zip(lo, hi, strict=True))))
    worst = 0.0
    for _ in range(30):
        data = lo + (hi - lo) * gen.random((m, lo.size))
        data[: corners.shape[0] % m] = corners[: corners.shape[0] % m]
        for x_new in np.vstack([corners, lo + (hi - lo) * gen.random((20, lo.size))]):
            worst = max(worst, _l1_change(name, data, 0, x_new))
    # replacing a corner row by its opposite corner
    for a, b in itertools.product(corners, corners):
        data = np.vstack([a, lo + (hi - lo) * gen.random((m - 1, lo.size))])
        worst = max(worst, _l1_change(name, data, 0, b))
    assert worst <= bound * (1 + 1e-12)
    if name == "mean":  # attained: opposite corners differ by hi - lo in every coordinate
        assert worst == pytest.approx(bound, rel=1e-12)
    elif np.all(lo <= 0) and np.all(
        hi >= 0
    ):  # the covariance bound is within a factor 2 when 0 is in the box
        assert worst >= bound / 2 * (1 - 1e-12)


def test_dp_l1_sensitivity_formulas_and_errors():
    lo, hi = np.array([-1.0, 0.0]), np.array([2.0, 5.0])
    assert dp_l1_sensitivity("mean", lo, hi, 10) == pytest.approx((3 + 5) / 10)
    assert dp_l1_sensitivity("covariance", lo, hi, 10) == pytest.approx(2 * (2 + 5) ** 2 / 10)
    assert dp_l1_sensitivity("linear regression", lo, hi, 10) is None
    with pytest.raises(ValueError, match="lo < hi"):
        dp_l1_sensitivity("mean", [0.0, 1.0], [1.0, 1.0], 10)
    with pytest.raises(ValueError, match="lo < hi"):
        dp_l1_sensitivity("mean", [0.0], [1.0, 2.0], 10)
    with pytest.raises(ValueError, match="m"):
        dp_l1_sensitivity("mean", lo, hi, 0)
    with pytest.raises(ValueError, match="statistic"):
        dp_l1_sensitivity("median", lo, hi, 10)


# --------------------------------------------------------------------------- wrap_statistic


@pytest.mark.parametrize("name", STATISTICS)
def test_wrap_statistic_replicates_algorithm_1_and_the_laplace_mechanism(name):
    data = make_dataset(name, 120, 3, 1)
    eta, M, B, seed = 0.2, 4, 16, 5
    res = wrap_statistic(data, name, eta, M=M, B=B, rng=seed)
    rows = data.to_numpy()
    fn = statistic(name)
    gen = np.random.default_rng(seed)
    rel = mip_release(rows, fn, eta, M=M, B=B, rng=gen)  # default bounds = data range: no clipping
    np.testing.assert_array_equal(res.theta, fn(rows[rel.train_index]))
    np.testing.assert_array_equal(res.theta, rel.theta)
    np.testing.assert_array_equal(res.mip, rel.theta_hat)
    np.testing.assert_array_equal(res.sigma, rel.sigma)
    assert res.n_train == 60 and res.mip_c == rel.c
    eps = math.log((1 + 2 * eta) / (1 - 2 * eta))
    assert res.epsilon == pytest.approx(eps, rel=1e-14)
    if name == "linear regression":
        assert res.dp is None and res.dp_scale is None and res.sensitivity is None
        assert res.table()["DP Laplace release"].isna().all()
    else:
        sens = dp_l1_sensitivity(name, rows.min(axis=0), rows.max(axis=0), 60)
        assert res.sensitivity == pytest.approx(sens, rel=1e-14)
        assert res.dp_scale == pytest.approx(sens / eps, rel=1e-14)
        np.testing.assert_array_equal(
            res.dp, rel.theta + gen.laplace(0.0, res.dp_scale, size=rel.theta.shape)
        )
    table = res.table()
    assert len(table) == res.theta.size == len(res.labels)
    # deterministic by seed
    again = wrap_statistic(data, name, eta, M=M, B=B, rng=seed)
    np.testing.assert_array_equal(again.mip, res.mip)
    other = wrap_statistic(data, name, eta, M=M, B=B, rng=seed + 1)
    assert not np.array_equal(other.mip, res.mip)


def test_wrap_statistic_clips_to_the_given_bounds():
    data = make_dataset("mean", 100, 2, 3)
    lo, hi = np.array([-0.5, 0.0]), np.array([0.5, 1.0])
    res = wrap_statistic(data, "mean", 0.3, rng=2, lo=lo, hi=hi)
    gen = np.random.default_rng(2)
    clipped = np.clip(data.to_numpy(), lo, hi)
    rel = mip_release(clipped, statistic("mean"), 0.3, M=2, B=64, rng=gen)
    np.testing.assert_array_equal(res.theta, clipped[rel.train_index].mean(axis=0))
    assert np.all(res.theta >= lo) and np.all(res.theta <= hi)
    assert res.sensitivity == pytest.approx((1.0 + 1.0) / 50)
    assert res.labels == ["mean(x1)", "mean(x2)"]


def test_wrap_statistic_laplace_noise_law_over_seeds():
    """The DP noise divided by its scale is Laplace(0, 1) (KS over 300 seeds x 9 coordinates)."""
    from scipy import stats

    data = make_dataset("covariance", 40, 3, 0)
    z = []
    for seed in range(300):
        r = wrap_statistic(data, "covariance", 0.25, B=4, rng=seed)
        z.extend((r.dp - r.theta) / r.dp_scale)
    assert stats.kstest(z, stats.laplace().cdf).pvalue > 1e-4


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(name="median"), "statistic"),
        (dict(eta=0.0), "eta"),
        (dict(eta=0.5), "eta"),
        (dict(data=pd.DataFrame({"a": np.arange(7.0)})), "8 rows"),
        (dict(name="linear regression", data=pd.DataFrame({"a": np.arange(10.0)})), "two columns"),
        (dict(rng=None), "rng"),
        (dict(radius="x"), "calibration"),
    ],
)
def test_wrap_statistic_errors(kwargs, message):
    args = dict(data=make_dataset("mean", 30, 2, 0), name="mean", eta=0.2, rng=0) | kwargs
    with pytest.raises(ValueError, match=message):
        wrap_statistic(args.pop("data"), args.pop("name"), args.pop("eta"), **args)


def test_repeat_noise_has_the_release_laws():
    """repeat_noise: MIP rows follow Corollary 10 (radius ~ Gamma(d, c) in the sigma-norm),
    DP rows Laplace(scale); sigma = 0 coordinates stay noise-free; no DP rows for regression."""
    from scipy import stats as sps

    from mipcore.lessons.statistic_release import make_dataset, repeat_noise, wrap_statistic
    from mipcore.noise import mip_noise_multiplier
    from mipcore.noise_laws import sigma_norm

    data = make_dataset("mean", 400, 3, 0)
    res = wrap_statistic(data, "mean", 0.2, rng=1, B=32)
    mip, dp = repeat_noise(res, 0.2, 20_000, rng=2)
    assert mip.shape == dp.shape == (20_000, 3)
    c = mip_noise_multiplier(0.2, 2)
    r = sigma_norm(mip, res.sigma, 2)
    assert sps.kstest(r, sps.gamma(a=3, scale=c).cdf).pvalue > 1e-4
    assert sps.kstest(dp.ravel(), sps.laplace(scale=res.dp_scale).cdf).pvalue > 1e-4
    again = repeat_noise(res, 0.2, 20_000, rng=2)
    assert np.array_equal(again[0], mip) and np.array_equal(again[1], dp)
    reg = wrap_statistic(
        make_dataset("linear regression", 400, 3, 0), "linear regression", 0.2, rng=1, B=32
    )
    assert repeat_noise(reg, 0.2, 10, rng=0)[1] is None
    from mipcore.lessons.statistic_release import WrapResult

    res0 = WrapResult(
        res.labels,
        res.theta,
        np.array([0.0, *res.sigma[1:]]),
        res.mip,
        res.mip_c,
        res.dp,
        res.dp_scale,
        res.epsilon,
        res.sensitivity,
        res.n_train,
    )
    assert np.all(repeat_noise(res0, 0.2, 50, rng=0)[0][:, 0] == 0.0)
    with pytest.raises(ValueError, match="draws"):
        repeat_noise(res, 0.2, 0, rng=0)
