"""mipcore.score_upload: a file of attack scores, CSV or Parquet, read defensively or refused
with one sentence (cause — fix) and a reason; the score and flag columns guessed and taken."""

from __future__ import annotations

import io
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mipcore import score_upload
from mipcore.score_upload import (
    MAX_SCORE_BYTES,
    MAX_SCORE_ROWS,
    ScoreFile,
    guess_columns,
    read_score_file,
    scores_and_flags,
)
from mipcore.tabular import RejectReason, UploadRejected

R = RejectReason


def _csv(scores, flags, header="score,member") -> bytes:
    rows = "".join(f"{float(s)!r},{f}\n" for s, f in zip(scores, flags, strict=True))
    return (header + "\n" + rows).encode()


def _parquet(table: pa.Table, **kw) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out, **kw)
    return out.getvalue()


def _refused(raw: bytes, reason: RejectReason, **kw) -> UploadRejected:
    with pytest.raises(UploadRejected) as info:
        read_score_file(raw, **kw)
    exc = info.value
    assert exc.reason is reason, (exc.reason, str(exc))
    assert " — " in str(exc)  # cause, then fix
    return exc


GEN = np.random.default_rng(0)
SCORES = GEN.normal(0.0, 1.0, 40)
FLAGS = (np.arange(40) % 2).astype(int)


# --------------------------------------------------------------------------- good files


def test_a_csv_file_is_read_with_its_columns():
    f = read_score_file(_csv(SCORES, FLAGS))
    assert isinstance(f, ScoreFile) and f.format == "csv" and f.rows_read == 40
    np.testing.assert_array_equal(f.data["score"], SCORES)
    s, m = scores_and_flags(f.data, *guess_columns(f.data))  # type: ignore[arg-type]
    np.testing.assert_array_equal(s, SCORES)
    np.testing.assert_array_equal(m, FLAGS == 1)


def test_a_parquet_file_is_read_its_numeric_columns_only():
    table = pa.table(
        {
            "id": pa.array([f"ex{i}" for i in range(40)]),
            "lira": pa.array(SCORES),
            "member": pa.array(FLAGS == 1),  # Booleans count as 0/1
            "count": pa.array(np.arange(40), type=pa.int32()),
            "nested": pa.array([{"a": i} for i in range(40)]),
        }
    )
    f = read_score_file(_parquet(table, row_group_size=7))  # six row groups
    assert f.format == "parquet" and f.rows_read == 40
    assert list(f.data.columns) == ["lira", "member", "count"]
    assert f.dropped_columns == ("id", "nested")
    assert guess_columns(f.data) == ("lira", "member")
    s, m = scores_and_flags(f.data, "lira", "member")
    np.testing.assert_array_equal(s, SCORES)
    np.testing.assert_array_equal(m, FLAGS == 1)


def test_a_parquet_file_is_recognised_by_its_content_and_by_its_name():
    raw = _parquet(pa.table({"score": SCORES, "member": FLAGS}))
    assert read_score_file(raw).format == "parquet"
    assert read_score_file(raw, format="parquet").format == "parquet"


def test_column_names_are_plain_text():
    table = pa.table({"**bold** [x](http://e)\u202e": SCORES, "member": FLAGS})
    f = read_score_file(_parquet(table))
    assert f.data.columns[0] == "**bold** [x](http://e)"  # the override character is gone
    assert f.renamed_columns == ("**bold** [x](http://e)",)


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({"score": [0.1, 0.2], "member": [1.0, 0.0]}, ("score", "member")),
        ({"x": [0.1, 0.2], "y": [1.0, 0.0]}, ("x", "y")),
        ({"IN": [1.0, 0.0], "Loss": [0.3, 0.2], "z": [0.0, 1.0]}, ("Loss", "IN")),
        ({"a": [0.5, 0.7]}, ("a", None)),
        ({"flag": [1.0, 0.0]}, ("flag", "flag")),
    ],
)
def test_guess_columns(columns, expected):
    assert guess_columns(pd.DataFrame(columns)) == expected


# --------------------------------------------------------------------------- hostile files

BAD_CSV = {
    "empty": (b"", R.EMPTY),
    "blank": (b"\n \n\t\n", R.BLANK),
    "binary": (bytes(range(256)) * 8, R.NOT_UTF8),
    "nul bytes": (b"score,member\n" + b"0.1,\x001\n" * 10, R.BINARY),
    "not utf-8": (b"score,member\n" + b"\xff\xfe\xfa,1\n" * 10, R.NOT_UTF8),
    "ragged": (b"score,member\n0.1,1\n0.2,0,7\n" + b"0.3,1\n" * 10, R.MALFORMED),
    "no numeric column": (b"name,city\n" + b"ann,paris\n" * 10, R.NO_NUMERIC_COLUMN),
    "header only": (b"score,member\n", R.NO_DATA_ROWS),
    "too few rows": (b"score,member\n0.1,1\n0.2,0\n", R.TOO_FEW_ROWS),
    "nan score": (_csv([*SCORES[:-1], float("nan")], FLAGS), R.MISSING_VALUES),
    "empty score": (
        _csv(SCORES, FLAGS).replace(repr(float(SCORES[3])).encode(), b"", 1),
        R.MISSING_VALUES,
    ),
    "inf score": (_csv([*SCORES[:-1], float("inf")], FLAGS), R.MISSING_VALUES),
    "huge score": (_csv([*SCORES[:-1], 1e200], FLAGS), R.MISSING_VALUES),
}


@pytest.mark.parametrize("case", list(BAD_CSV))
def test_a_hostile_csv_file_is_refused_with_a_sentence(case):
    raw, reason = BAD_CSV[case]
    _refused(raw, reason)


def test_a_file_over_the_cap_is_refused_before_parsing():
    raw = b"score,member\n" + b"0.5,1\n" * (MAX_SCORE_BYTES // 6 + 1)
    exc = _refused(raw, R.TOO_LARGE)
    assert exc.limit == MAX_SCORE_BYTES == 20_000_000
    assert MAX_SCORE_ROWS == 10**6


def test_more_rows_than_the_cap_are_refused_before_parsing():
    _refused(_csv(SCORES, FLAGS), R.TOO_MANY_ROWS, max_rows=39)
    _refused(_parquet(pa.table({"s": SCORES, "m": FLAGS})), R.TOO_MANY_ROWS, max_rows=39)


def test_a_file_said_to_be_parquet_is_never_read_as_text():
    exc = _refused(_csv(SCORES, FLAGS), R.NOT_PARQUET, format="parquet")
    assert "begins and ends with “PAR1”" in str(exc)


@pytest.mark.parametrize(
    "mangle",
    [
        lambda raw: raw[: len(raw) // 2],  # cut short
        lambda raw: raw[:4] + bytes(len(raw) - 8) + raw[-4:],  # zeros between the magic
        lambda raw: raw[:4] + GEN.bytes(len(raw) - 8) + raw[-4:],  # noise between the magic
        lambda raw: raw[:-8] + (10**9).to_bytes(4, "little") + raw[-4:],  # footer length lies
        lambda raw: b"PAR1",
        lambda raw: b"PAR1" + b"\x00" * 8 + b"PAR1",
    ],
)
def test_a_broken_parquet_file_is_a_sentence(mangle):
    raw = _parquet(pa.table({"score": SCORES, "member": FLAGS}))
    start = time.perf_counter()
    _refused(mangle(raw), R.NOT_PARQUET)
    assert time.perf_counter() - start < 5.0


def test_a_parquet_decompression_bomb_is_refused_from_its_footer():
    """Two million zeros compress to a few kB; the footer's row count refuses them unread."""
    table = pa.table({"score": np.zeros(2 * 10**6), "member": np.zeros(2 * 10**6)})
    raw = _parquet(table, compression="zstd")
    assert len(raw) < 100_000
    start = time.perf_counter()
    _refused(raw, R.TOO_MANY_ROWS)
    assert time.perf_counter() - start < 2.0


def test_a_parquet_file_too_large_once_decompressed_is_refused(monkeypatch):
    monkeypatch.setattr(score_upload, "MAX_PARQUET_BYTES", 500)
    exc = _refused(_parquet(pa.table({"score": SCORES, "member": FLAGS})), R.TOO_LARGE)
    assert exc.limit == 500


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        (pa.table({"name": [f"x{i}" for i in range(20)]}), R.NO_NUMERIC_COLUMN),
        (pa.table({"score": pa.array([], pa.float64())}), R.NO_DATA_ROWS),
        (pa.table({"score": [0.1, 0.2], "member": [1, 0]}), R.TOO_FEW_ROWS),
        (pa.table({"score": pa.array([*SCORES[:-1], None]), "member": FLAGS}), R.MISSING_VALUES),
        (pa.table({"score": [*SCORES[:-1], float("nan")], "member": FLAGS}), R.MISSING_VALUES),
        (pa.table({f"c{i}": SCORES for i in range(21)}), R.TOO_MANY_COLUMNS),
        (pa.table({f"c{i}": [f"x{j}" for j in range(40)] for i in range(41)}), R.TOO_MANY_COLUMNS),
    ],
)
def test_a_hostile_parquet_file_is_refused_with_a_sentence(table, reason):
    _refused(_parquet(table), reason)


def test_the_missing_values_sentence_counts_them():
    exc = _refused(_csv([float("nan"), *SCORES[1:-1], float("inf")], FLAGS), R.MISSING_VALUES)
    assert str(exc).startswith("2 of 40 rows have a missing, non-numeric, infinite or huge")


# --------------------------------------------------------------------------- the two columns


def test_flags_other_than_0_and_1_are_named_with_their_row():
    data = pd.DataFrame({"score": SCORES[:10], "member": [1, 0, 1, 2.5, 0, 1, 0, 3, 1, 0]})
    with pytest.raises(UploadRejected) as info:
        scores_and_flags(data, "score", "member")
    assert info.value.reason is R.NOT_FLAGS
    assert str(info.value).startswith("the member flag “member” holds 2.5 (data row 4) and 2 such")


@pytest.mark.parametrize(("value", "which"), [(1, "a member (1)"), (0, "a non-member (0)")])
def test_one_class_only_is_refused(value, which):
    data = pd.DataFrame({"score": SCORES[:10], "member": [value] * 10})
    with pytest.raises(
        UploadRejected,
        match=rf"every one of the 10 rows is {which.replace('(', '.').replace(')', '.')}",
    ) as info:
        scores_and_flags(data, "score", "member")
    assert info.value.reason is R.ONE_CLASS


def test_the_same_column_twice_is_refused():
    data = pd.DataFrame({"member": [1, 0] * 5})
    with pytest.raises(UploadRejected) as info:
        scores_and_flags(data, "member", "member")
    assert info.value.reason is R.SAME_COLUMN


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10"])
def test_out_of_domain_caps_raise_valueerror_naming_them(bad):
    with pytest.raises(ValueError, match="max_rows"):
        read_score_file(b"x", max_rows=bad)
    with pytest.raises(ValueError, match="format='xlsx'"):
        read_score_file(b"x", format="xlsx")  # type: ignore[arg-type]
