"""Tests for mipcore.tabular: the upload parser against hostile and ordinary files.

Every file gives either a finite numeric table or an ``UploadRejected`` (a ``ValueError``)
whose ``reason`` says why and whose message is one sentence, cause then fix. The hostile
files are the ones that froze or misled the old parser (``csv.Sniffer`` on 64 KB of quotes,
a million rows, ten thousand columns, +-1e308) plus binary junk, other encodings and markup
in the header. The parser tests of the old ``parse_numeric_csv`` are repeated here against
the new API (structured counts instead of sentences in the result).
"""

from __future__ import annotations

import csv
import importlib
import io
import pickle
import random
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipcore.tabular import (
    MAX_ABS_VALUE,
    MAX_COLS,
    MAX_NAME_CHARS,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    MIN_ROWS,
    ParsedTable,
    RejectReason,
    UploadRejected,
    parse_numeric_csv,
)

R = RejectReason


def _csv(header: str, rows) -> bytes:
    return (header + "\n" + "".join(r + "\n" for r in rows)).encode()


GOOD_ROWS = [f"{i},{i * 0.5},{-i}e-1" for i in range(12)]
GOOD = np.array([[i, i * 0.5, -i / 10] for i in range(12)])

# The ONLY timing assert in this module, and deliberately generous: the old parser took
# 6-15 s on the 64 KB sniffer payload and 2-8 s on the row/column bombs; the new one takes
# milliseconds to a few tenths of a second (exact figures: benchmarks/uploads.py). Three
# seconds catches a quadratic regression without failing on a loaded machine.
GUARD_SECONDS = 3.0


def _timed(raw: bytes) -> ParsedTable | UploadRejected:
    t0 = time.perf_counter()
    try:
        out: ParsedTable | UploadRejected = parse_numeric_csv(raw)
    except UploadRejected as exc:
        out = exc
    elapsed = time.perf_counter() - t0
    assert elapsed < GUARD_SECONDS, f"parsing took {elapsed:.1f} s"
    return out


def _rejected(raw: bytes, reason: RejectReason, **kwargs) -> UploadRejected:
    with pytest.raises(UploadRejected) as info:
        parse_numeric_csv(raw, **kwargs)
    exc = info.value
    assert exc.reason is reason, (exc.reason, str(exc))
    _assert_sentence(str(exc))
    return exc


def _assert_sentence(msg: str) -> None:
    """One sentence: cause, a dash, the fix; no traceback, no full stop inside or at the end
    (the page writes "This file cannot be used: {message}.")."""
    assert msg and len(msg) < 300 and "\n" not in msg and "Traceback" not in msg
    assert " — " in msg and ". " not in msg and not msg.endswith(".")
    assert msg[0].islower()


def _assert_valid(t: ParsedTable, max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS) -> None:
    """What every returned table promises."""
    x = t.data.to_numpy()
    assert t.data.dtypes.eq(np.float64).all()
    assert np.isfinite(x).all() and (np.abs(x) <= MAX_ABS_VALUE).all()
    assert MIN_ROWS <= len(t.data) <= max_rows and 1 <= t.data.shape[1] <= max_cols
    assert isinstance(t.data.index, pd.RangeIndex) and t.data.index.start == 0
    names = list(t.data.columns) + list(t.dropped_columns)
    assert all(isinstance(c, str) and 0 < len(c) <= MAX_NAME_CHARS for c in names)
    assert len(set(names)) == len(names)
    assert t.rows_read == len(t.data) + t.dropped_rows + t.dropped_large_rows
    assert t.delimiter in (",", ";", "\t", "|", " ")
    assert t.encoding in ("utf-8", "utf-8-sig", "utf-16", "utf-32")


def _numeric_file(target_bytes: int, cols: int = 20) -> bytes:
    """A numeric CSV of just under ``target_bytes`` (a 1000-row block repeated)."""
    gen = np.random.default_rng(0)
    header = (",".join(f"x{j}" for j in range(cols)) + "\n").encode()
    block = "".join(
        ",".join(f"{v:.6f}" for v in row) + "\n" for row in gen.normal(size=(1000, cols))
    )
    block_b = block.encode()
    lines = block_b.splitlines(keepends=True)
    out = [header]
    size = len(header)
    reps = (target_bytes - size) // len(block_b)
    out.extend([block_b] * reps)
    size += reps * len(block_b)
    for line in lines:
        if size + len(line) > target_bytes:
            break
        out.append(line)
        size += len(line)
    return b"".join(out)


# --------------------------------------------------------------------------- good input (as before)


def test_good_csv():
    t = parse_numeric_csv(_csv("a,b,c", GOOD_ROWS))
    assert isinstance(t, ParsedTable)
    assert list(t.data.columns) == ["a", "b", "c"]
    assert t.data.dtypes.eq(float).all()
    np.testing.assert_array_equal(t.data.to_numpy(), GOOD)
    assert list(t.data.index) == list(range(12))
    assert (t.dropped_columns, t.dropped_rows, t.dropped_large_rows, t.renamed_columns) == (
        (),
        0,
        0,
        (),
    )
    assert (t.delimiter, t.encoding, t.rows_read) == (",", "utf-8", 12)
    _assert_valid(t)


@pytest.mark.parametrize(
    "raw, delimiter, encoding",
    [
        (_csv("a;b;c", [r.replace(",", ";") for r in GOOD_ROWS]), ";", "utf-8"),
        (_csv("a\tb\tc", [r.replace(",", "\t") for r in GOOD_ROWS]), "\t", "utf-8"),
        (_csv("a|b|c", [r.replace(",", "|") for r in GOOD_ROWS]), "|", "utf-8"),
        (_csv("a  b c", [r.replace(",", "  ") for r in GOOD_ROWS]), " ", "utf-8"),
        (_csv("a,b,c", GOOD_ROWS).replace(b"\n", b"\r\n"), ",", "utf-8"),  # Windows line ends
        (_csv("a,b,c", GOOD_ROWS).replace(b"\n", b"\r"), ",", "utf-8"),  # classic Mac
        (b"\xef\xbb\xbf" + _csv("a,b,c", GOOD_ROWS), ",", "utf-8-sig"),  # Excel's BOM
        (_csv("a,b,c", GOOD_ROWS).decode().encode("utf-16"), ",", "utf-16"),  # BOM + LE
        (b"\xfe\xff" + _csv("a,b,c", GOOD_ROWS).decode().encode("utf-16-be"), ",", "utf-16"),
        (_csv("a,b,c", GOOD_ROWS).decode().encode("utf-32"), ",", "utf-32"),
        (
            _csv('"a","b","c"', [",".join(f'"{v}"' for v in r.split(",")) for r in GOOD_ROWS]),
            ",",
            "utf-8",
        ),  # every field quoted
        (_csv("a, b, c", [r.replace(",", ", ") for r in GOOD_ROWS]), ",", "utf-8"),
        (b"\n\n  \n" + _csv("a,b,c", GOOD_ROWS) + b"\n\n", ",", "utf-8"),  # blank lines
    ],
)
def test_other_dialects_give_the_same_table(raw, delimiter, encoding):
    t = _timed(raw)
    assert isinstance(t, ParsedTable)
    assert list(t.data.columns) == ["a", "b", "c"]
    assert (t.delimiter, t.encoding) == (delimiter, encoding)
    assert (t.dropped_columns, t.dropped_rows, t.renamed_columns) == ((), 0, ())
    np.testing.assert_array_equal(t.data.to_numpy(), GOOD)


def test_non_numeric_columns_dropped_and_named():
    rows = [f"{i},name{i},{i * 2},2024-01-0{i % 9 + 1}" for i in range(10)]
    t = parse_numeric_csv(_csv("x,who,y,when", rows))
    assert list(t.data.columns) == ["x", "y"]
    assert t.dropped_columns == ("who", "when") and t.dropped_rows == 0


def test_nan_inf_and_stray_text_rows_dropped_and_counted():
    rows = [f"{i},{i}" for i in range(20)] + ["inf,1", "2,-inf", "nan,3", ",4", "5,oops"]
    t = parse_numeric_csv(_csv("a,b", rows))
    assert list(t.data.columns) == ["a", "b"]  # 'b' is 24/25 numeric: kept, the stray row dropped
    assert len(t.data) == 20 and t.dropped_rows == 5 and t.dropped_columns == ()
    _assert_valid(t)
    short = parse_numeric_csv(_csv("a,b", [f"{i},{i}" for i in range(10)] + ["7"]))  # short row
    assert len(short.data) == 10 and short.dropped_rows == 1


@pytest.mark.parametrize("spelling", ["nan", "NaN", "NA", "null", "inf", "-inf", "Infinity"])
def test_nan_and_inf_spellings_drop_their_row(spelling):
    rows = [f"{i},{i}" for i in range(10)] + [f"{spelling},1", f"2,{spelling}"]
    t = _timed(_csv("a,b", rows))
    assert isinstance(t, ParsedTable)
    assert len(t.data) == 10 and t.dropped_rows == 2 and t.dropped_columns == ()


# --------------------------------------------------------------------------- refusals (as before)


@pytest.mark.parametrize(
    "raw, kwargs, reason, words",
    [
        (b"", {}, R.EMPTY, "empty"),
        (b"\n\n   \n", {}, R.BLANK, "blank"),
        (b"a,b\n", {}, R.NO_DATA_ROWS, "no data rows"),
        (b"a,b", {}, R.NO_DATA_ROWS, "no data rows"),
        (_csv("a,b", [f"{i},{i}" for i in range(10)] + ["1,2,3"]), {}, R.MALFORMED, "ragged"),
        (b"a,b\n1,2\x00\n" + b"3,4\n" * 10, {}, R.BINARY, "NUL"),
        (bytes(range(256)) * 4, {}, R.NOT_UTF8, "not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", {}, R.NOT_UTF8, "not UTF-8"),
        ("a,b\ncafé,1\n".encode("latin-1"), {}, R.NOT_UTF8, "not UTF-8"),
        # UTF-16 with a BOM is now decoded (the old parser refused it); one row is too few
        ("a,b\n1,2\n".encode("utf-16"), {}, R.TOO_FEW_ROWS, "only 1 usable row"),
        ("a,b\n1,2\n".encode("utf-16-le"), {}, R.BINARY, "byte-order mark"),  # no BOM
        (_csv("a,b,c", GOOD_ROWS), dict(max_bytes=50), R.TOO_LARGE, "more than the 50 bytes"),
        (_csv("a,b,c", GOOD_ROWS), dict(max_rows=11), R.TOO_MANY_ROWS, "11 data rows"),
        (_csv("a,b,c", GOOD_ROWS), dict(max_cols=2), R.TOO_MANY_COLUMNS, "3 numeric columns"),
        (_csv("a,b,c", GOOD_ROWS), dict(max_cols=1), R.TOO_MANY_COLUMNS, "3 columns"),
        (_csv("a,b", [f"{i},{i}" for i in range(7)]), {}, R.TOO_FEW_ROWS, "only 7 usable rows"),
        (
            _csv("a,b", [f"{i},{i}" for i in range(7)] + ["inf,0"] * 5),
            {},
            R.TOO_FEW_ROWS,
            "only 7 usable rows remain of 12 data rows (5 dropped",
        ),
        (_csv("a,b", ["x,y"] * 10), {}, R.NO_NUMERIC_COLUMN, "no column is numeric"),
    ],
)
def test_refusals_are_sentences_with_a_reason(raw, kwargs, reason, words):
    exc = _rejected(raw, reason, **kwargs)
    assert words in str(exc)
    assert isinstance(exc, ValueError)


def test_rejects_non_bytes_and_applies_the_default_limit():
    _rejected("a,b\n1,2\n", R.NOT_BYTES)  # type: ignore[arg-type]
    exc = _rejected(b"a\n" + b"1\n" * (MAX_UPLOAD_BYTES // 2), R.TOO_LARGE)
    assert (exc.found, exc.limit) == (MAX_UPLOAD_BYTES + 2, MAX_UPLOAD_BYTES)
    assert "5 MB" in str(exc) and "5,000,000 bytes" in str(exc)
    raw = _csv("a,b,c", GOOD_ROWS)
    assert isinstance(parse_numeric_csv(bytearray(raw)), ParsedTable)
    assert isinstance(parse_numeric_csv(memoryview(raw)), ParsedTable)


def test_the_limit_is_the_uploaders_5_mb():
    """The page's uploader says max_upload_size=5: Streamlit's uploader counts 10^6 bytes a MB
    (in a browser on Linux or macOS; the browser test uploads files on either side of it), its
    server 2^20. The one cap is the smaller: 5 000 000 bytes, within what the server takes
    (server.maxUploadSize, 20 for the score audit's uploader)."""
    import tomllib
    from pathlib import Path

    from pagetools import load

    root = Path(__file__).resolve().parents[1]
    mb = tomllib.loads((root / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    at = load("app_pages/wrap_statistic.py", src="upload CSV")
    own = at.file_uploader(key="upload").proto.max_upload_size_mb
    assert own * 10**6 == MAX_UPLOAD_BYTES
    assert mb * 2**20 >= own * 2**20 >= MAX_UPLOAD_BYTES  # the server never refuses what it takes


@pytest.mark.parametrize("param", ["max_bytes", "max_rows", "max_cols"])
@pytest.mark.parametrize("bad", [0, -3, 2.5, "10"])
def test_out_of_domain_limits_raise_valueerror_naming_the_parameter(param, bad):
    with pytest.raises(ValueError, match=param) as info:
        parse_numeric_csv(_csv("a,b,c", GOOD_ROWS), **{param: bad})
    assert not isinstance(info.value, UploadRejected)


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
    assert list(t.data.columns) == ["x"] and t.dropped_columns == ("evil",)
    assert not sentinel.exists()
    # a pickle is binary, never unpickled: refused as not text
    _rejected(pickle.dumps({"a": [1, 2, 3]}), R.NOT_UTF8)
    # code in a header is only a column name
    header = f"__import__('os').system('touch {sentinel}'),b"
    t = parse_numeric_csv(_csv(header, [f"{i},{i}" for i in range(10)]))
    assert not sentinel.exists() and t.data.shape == (10, 2)


@pytest.mark.parametrize(
    "header, values",
    [
        ("value", [f"{i}.5" for i in range(10)]),
        ("energy", [f"{i}.5e3" for i in range(1, 11)]),
        ("x1", [f"{i}1.5" for i in range(10)]),
        ("a b", [f"{i}" for i in range(10)]),  # a space in the only name is not a delimiter
    ],
)
def test_single_column_csv_is_not_split_on_a_header_letter(header, values):
    """Regression: pandas' ``sep=None`` (csv.Sniffer on the first line) split a one-column file
    on its header's first letter: "value" on 'v', "energy" on 'e' (1.5e3 became 1.5 and 3)."""
    t = _timed(_csv(header, values))
    assert isinstance(t, ParsedTable)
    assert list(t.data.columns) == [header] and t.delimiter == ","
    np.testing.assert_array_equal(t.data[header].to_numpy(), [float(v) for v in values])
    assert t.dropped_columns == () and t.dropped_rows == 0


# --------------------------------------------------------------------------- hostile files


def test_sniffer_payload_is_refused_in_milliseconds_not_seconds():
    """64 KB of ``a,"b``: csv.Sniffer's regular expressions ran 6-13 s on it holding the GIL
    (every session of the server froze). Counting commas outside quotes sees 8 001 fields."""
    out = _timed(('a,"b' * 16000).encode())
    assert isinstance(out, UploadRejected) and out.reason is R.TOO_MANY_COLUMNS
    assert (out.found, out.limit) == (8001, 2 * MAX_COLS)
    _assert_sentence(str(out))
    for variant in ('a;"b' * 16000, 'a"b' * 16000, '"' * 65536, '""a,' * 16000):
        assert isinstance(_timed(variant.encode()), (ParsedTable, UploadRejected))


def test_five_mib_numeric_file_just_under_the_limit_is_read():
    raw = _numeric_file(MAX_UPLOAD_BYTES)
    assert MAX_UPLOAD_BYTES - 200 < len(raw) <= MAX_UPLOAD_BYTES
    t = _timed(raw)
    assert isinstance(t, ParsedTable)
    _assert_valid(t)
    assert t.data.shape[1] == 20 and t.rows_read == len(t.data) == raw.count(b"\n") - 1


def test_one_byte_over_the_limit_is_refused_before_reading():
    raw = _numeric_file(MAX_UPLOAD_BYTES)
    raw += b"1" * (MAX_UPLOAD_BYTES + 1 - len(raw))
    out = _timed(raw)
    assert isinstance(out, UploadRejected) and out.reason is R.TOO_LARGE
    assert out.found == MAX_UPLOAD_BYTES + 1


def test_ten_thousand_columns_are_refused_from_the_header():
    header = ",".join(f"c{j}" for j in range(10_000))
    row = ",".join("1" for _ in range(10_000))
    out = _timed(_csv(header, [row] * 20))
    assert isinstance(out, UploadRejected) and out.reason is R.TOO_MANY_COLUMNS
    assert out.found == 10_000 and "10,000 columns" in str(out)


def test_a_million_short_rows_are_refused_from_the_line_count():
    out = _timed(b"x\n" + b"1\n" * 1_000_000)
    assert isinstance(out, UploadRejected) and out.reason is R.TOO_MANY_ROWS
    assert out.found == 1_000_000 and out.limit == MAX_ROWS
    # CRLF lines are counted once each, blank lines not at all
    ok = _timed(b"x\r\n" + b"1\r\n\r\n" * MAX_ROWS)
    assert isinstance(ok, ParsedTable) and len(ok.data) == MAX_ROWS


def test_binary_junk_is_refused():
    out = _timed(random.Random(0).randbytes(65_536))
    assert isinstance(out, UploadRejected) and out.reason is R.NOT_UTF8
    _assert_sentence(str(out))


def test_utf16_with_bom_is_decoded():
    rows = [f"{i};{i * i}" for i in range(10)]
    for enc in ("utf-16", "utf-32"):
        t = _timed(("température;énergie\n" + "\r\n".join(rows)).encode(enc))
        assert isinstance(t, ParsedTable) and t.encoding == enc
        assert list(t.data.columns) == ["température", "énergie"]
        np.testing.assert_array_equal(t.data["énergie"], [i * i for i in range(10)])
    _rejected(b"\xff\xfe" + b"a\x00,\x00b\x00\n\x00" + b"\x00\xd8", R.NOT_UTF8)  # lone surrogate


def test_huge_magnitudes_are_dropped_and_counted_not_passed_on():
    rows = [f"{i},{i}" for i in range(10)] + ["1e308,1", "-1e308,2", "3,1e101", "4,-1e100"]
    t = _timed(_csv("a,b", rows))
    assert isinstance(t, ParsedTable)
    assert t.dropped_large_rows == 3 and t.dropped_rows == 0  # |-1e100| is at the limit: kept
    assert len(t.data) == 11 and t.data["b"].min() == -1e100
    _assert_valid(t)
    everything = [f"{(-1) ** i}e308,{i}" for i in range(10)]
    exc = _rejected(_csv("a,b", everything), R.TOO_FEW_ROWS)
    assert "10 for magnitudes above 1e100" in str(exc) and "rescale" in str(exc)
    # 1e400 is not a float64: it reads as infinite and is dropped as such
    t = parse_numeric_csv(_csv("a,b", [f"{i},{i}" for i in range(10)] + ["1e400,1"]))
    assert (t.dropped_rows, t.dropped_large_rows) == (1, 0)


def _statistic_module():
    """The module with the Wrap page's wrap_statistic (it has moved before)."""
    for name in ("mipcore.experiments.statistic_release", "mipcore.lessons.statistic_release"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    pytest.fail("no module provides wrap_statistic (mipcore.experiments.statistic_release?)")


@pytest.mark.parametrize("name", ["mean", "covariance", "linear regression"])
def test_values_at_the_magnitude_limit_keep_the_wrap_releases_finite(name):
    """Why 1e100: 20 columns near +-MAX_ABS_VALUE, eight rows, eta = 0.01 and the clipping
    bounds widened tenfold as the page allows still give finite releases (the largest is
    about 3e208), so no misleading error about the bounds can follow from the parser's
    output."""
    wrap = _statistic_module()
    gen = np.random.default_rng(0)
    x = MAX_ABS_VALUE * gen.choice([-1.0, 1.0], size=(8, 20)) * gen.uniform(0.5, 1.0, (8, 20))
    rows = [",".join(repr(float(v)) for v in r) for r in x]
    t = parse_numeric_csv(_csv(",".join(f"c{j}" for j in range(20)), rows))
    assert t.dropped_large_rows == 0 and t.data.shape == (8, 20)
    data = t.data.to_numpy()
    lo, hi = data.min(axis=0), data.max(axis=0)
    pad = (10.0 - 1.0) * (hi - lo) / 2.0  # the page's "widen" slider at its maximum, 10
    with np.errstate(all="raise"):
        res = wrap.wrap_statistic(t.data, name, 0.01, M=2, B=16, rng=1, lo=lo - pad, hi=hi + pad)
        mip, dp = wrap.repeat_noise(res, 50, rng=2)
    rel = res.mip
    for arr in (
        rel.theta,
        rel.sigma,
        rel.theta_hat,
        mip,
        *((res.dp, dp) if res.dp is not None else ()),
    ):
        assert np.all(np.isfinite(arr))


def test_markdown_and_html_headers_are_plain_data():
    header = "<img src=x onerror=alert(1)>,[click](http://evil),`rm -rf /`,**bold** _x_,<b>"
    names = header.split(",")
    t = _timed(_csv(header, [",".join(str(i) for _ in names) for i in range(10)]))
    assert isinstance(t, ParsedTable)
    assert list(t.data.columns) == names and t.renamed_columns == ()


def test_names_are_cut_cleaned_and_made_unique():
    long_a, long_b = "y" * 60, "y" * 70
    header = f"x,x,x,{long_a},{long_b},,a\u202eb\x1bc,  spaced   out  "
    rows = [",".join([str(i)] * 8) for i in range(10)]
    t = parse_numeric_csv(_csv(header, rows))
    cols = list(t.data.columns)
    assert cols[:3] == ["x", "x (2)", "x (3)"]
    assert cols[3] == "y" * (MAX_NAME_CHARS - 1) + "…"
    assert cols[4] == "y" * (MAX_NAME_CHARS - 4) + " (2)"
    assert cols[5] == "column 6"  # a blank name
    assert cols[6] == "ab c"  # bidirectional override removed, control character -> space
    assert cols[7] == "spaced out"
    assert all(len(c) <= MAX_NAME_CHARS for c in cols) and len(set(cols)) == 8
    assert set(t.renamed_columns) == set(cols[1:8])  # white space collapsed too
    # a name longer than the 64 KiB the delimiter is chosen from
    huge = "z" * 100_000
    t = _timed(_csv(f"{huge},{huge}", [f"{i},{i}" for i in range(10)]))
    assert isinstance(t, ParsedTable)
    assert list(t.data.columns) == ["z" * 39 + "…", "z" * 36 + " (2)"]


def test_a_delimiter_ending_every_line_adds_no_column():
    t = parse_numeric_csv(_csv("a,b,", [f"{i},{i}," for i in range(10)]))
    assert list(t.data.columns) == ["a", "b"] and t.dropped_columns == ()
    # but a named empty column is reported, and an unnamed one with text too
    t = parse_numeric_csv(_csv("a,b,c,", [f"{i},{i},,x" for i in range(10)]))
    assert t.dropped_columns == ("c", "column 4")


def test_quoted_fields_with_delimiters_and_line_breaks():
    rows = [f'{i},"Smith, J; ""Jr"" |\n tab\t",{i / 2}' for i in range(12)]
    t = _timed(_csv('x,"name, full",y', rows))
    assert isinstance(t, ParsedTable) and t.delimiter == ","
    assert list(t.data.columns) == ["x", "y"] and t.dropped_columns == ("name, full",)
    np.testing.assert_array_equal(t.data["y"], np.arange(12) / 2)
    exc = _rejected(_csv("a,b", [f"{i},{i}" for i in range(10)] + ['1,"2']), R.MALFORMED)
    assert "quote" in str(exc)


def test_rows_longer_than_the_header_are_ragged_wherever_they_are():
    body = [f"{i},{i}" for i in range(10)]
    cases = {
        "data row 1 has more fields": ["1,2,3", *body],  # pandas would make it an index
        "data row 11 has more fields": [*body, "1,2,3"],
        "data row 1 has more": [f"{i},{i},{i}" for i in range(10)],  # every row one longer
        "line 12 has 4 fields but the header has 2": [*body, "1,2,3,4"],
    }
    for words, rows in cases.items():
        exc = _rejected(_csv("a,b", rows), R.MALFORMED)
        assert words in str(exc) and "ragged" in str(exc)
    exc = _rejected(b"\n\n" + _csv("a,b", [*body, "1,2,3,4"]), R.MALFORMED)
    assert "line 14 has 4 fields but the header has 2" in str(exc)  # lines of the file


def test_long_integers_are_read_as_floats_or_dropped_as_infinite():
    """pandas' C parser turns integers of 20-4300 digits into Python ints; they must still
    come out as floats (inf beyond 1.8e308, then dropped)."""
    rows = [f"{i},{'9' * 30}" for i in range(10)] + [f"1,{'1' * 400}"]
    t = _timed(_csv("a,b", rows))
    assert isinstance(t, ParsedTable)
    assert t.data["b"].iloc[0] == pytest.approx(1e30) and t.dropped_rows == 1


@pytest.mark.parametrize("words_first", [False, True])
@pytest.mark.parametrize("n_words, kept", [(1000, True), (1001, False)])
def test_the_ninety_percent_rule_is_exact_on_long_columns(n_words, kept, words_first):
    """A text-typed column is numeric when at least 90 % of its filled cells are numbers; it is
    converted in chunks of distinct values and given up early, which must not move the line
    (10 000 distinct cells: more than two chunks; the words first or last)."""
    n = 10_000
    words = [f"w{i}" for i in range(n_words)]
    numbers = [f"{i}.25" for i in range(n - n_words)]
    cells = words + numbers if words_first else numbers + words
    t = parse_numeric_csv(_csv("x,id", [f"{c},{i}" for i, c in enumerate(cells)]))
    assert ("x" in t.data.columns) is kept and ("x" in t.dropped_columns) is not kept
    assert t.dropped_rows == (n_words if kept else 0) and len(t.data) == n - t.dropped_rows


def test_true_false_columns_are_one_and_zero():
    t = parse_numeric_csv(_csv("a,flag", [f"{i},{i % 2 == 0}" for i in range(10)]))
    np.testing.assert_array_equal(t.data["flag"], [1.0, 0.0] * 5)


@pytest.mark.parametrize("raw", [b"", b"   ", b" \n\t\r\n  \n", b"\r\r\r"])
def test_empty_and_whitespace_only_files(raw):
    out = _timed(raw)
    assert isinstance(out, UploadRejected) and out.reason in (R.EMPTY, R.BLANK)
    assert (out.reason is R.EMPTY) == (raw == b"")


def test_the_header_may_have_label_columns_beside_max_cols_numeric_ones():
    k = MAX_COLS
    header = ",".join([f"x{j}" for j in range(k)] + [f"label{j}" for j in range(k)])
    rows = [",".join([str(i)] * k + ["a"] * k) for i in range(10)]
    t = parse_numeric_csv(_csv(header, rows))
    assert t.data.shape == (10, k) and len(t.dropped_columns) == k
    exc = _rejected(_csv(header + ",x", [r + ",1" for r in rows]), R.TOO_MANY_COLUMNS)
    assert (exc.found, exc.limit) == (2 * k + 1, 2 * k)
    numeric = ",".join(f"x{j}" for j in range(k + 1))
    exc = _rejected(
        _csv(numeric, [",".join([str(i)] * (k + 1)) for i in range(10)]), R.TOO_MANY_COLUMNS
    )
    assert (exc.found, exc.limit) == (k + 1, k)


def test_upload_rejected_pickles_with_its_reason():
    exc = _rejected(b"a,b\n", R.NO_DATA_ROWS)
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is UploadRejected and back.reason is exc.reason and str(back) == str(exc)
    assert (back.found, back.limit) == (exc.found, exc.limit)


# --------------------------------------------------------------------------- fuzzing


def _check_any_outcome(raw: bytes) -> None:
    try:
        t = parse_numeric_csv(raw)
    except UploadRejected as exc:
        assert isinstance(exc.reason, RejectReason)
        _assert_sentence(str(exc))
        return
    _assert_valid(t)


# deadline=None: a loaded machine can stretch one example past 200 ms; time is bounded above
@settings(deadline=None)
@given(st.binary(max_size=4096))
def test_fuzz_arbitrary_bytes(raw):
    _check_any_outcome(raw)


CSVISH = st.text(alphabet='0123456789.,;\t| \n\r"-+eEinfaNxyz#\u00e9\u202e', max_size=3000)


@settings(deadline=None)
@given(CSVISH)
def test_fuzz_csv_like_text(text):
    _check_any_outcome(text.encode())


@settings(deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.floats(allow_nan=True, allow_infinity=True).map(repr),
                st.integers(min_value=-(10**30), max_value=10**30).map(str),
                st.sampled_from(["", "nan", "inf", "x", '"1,5"', " 3 ", "1e400"]),
            ),
            min_size=1,
            max_size=6,
        ),
        min_size=0,
        max_size=40,
    ),
    st.sampled_from([",", ";", "\t", "|"]),
    st.sampled_from(["\n", "\r\n"]),
)
def test_fuzz_tables(rows, sep, eol):
    width = max((len(r) for r in rows), default=1)
    header = sep.join(f"c{j}" for j in range(width))
    raw = (eol.join([header, *(sep.join(r) for r in rows)]) + eol).encode()
    _check_any_outcome(raw)
