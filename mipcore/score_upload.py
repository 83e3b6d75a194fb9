"""Read an uploaded file of attack scores -- CSV or Parquet -- defensively, for an audit.

A privacy engineer's file holds one row per example: an attack's score and a flag, 1 for a
member (trained on, or a canary included) and 0 for a non-member. :func:`read_score_file`
reads it in bounded time and memory, or refuses it with :class:`~mipcore.tabular.UploadRejected`
(a ``ValueError`` whose message is one sentence, cause then fix, and whose
:attr:`~mipcore.tabular.UploadRejected.reason` names the cause); :func:`guess_columns` picks
the score and flag columns a file most likely means, and :func:`scores_and_flags` takes the two
columns out, refusing flags other than 0/1 and a file of one class only. Nothing in a file is
executed or unpickled.

* **CSV**: :func:`mipcore.tabular.parse_numeric_csv` (size, encoding, row and column caps before
  any parsing; pandas' C parser only), with this module's caps: :data:`MAX_SCORE_BYTES`
  (20 MB) and :data:`MAX_SCORE_ROWS` (10⁶ rows, about 11-14 MB of ``score,member`` text).
* **Parquet** (a file that begins and ends with ``PAR1``): ``pyarrow`` reads the footer with
  its Thrift sizes capped and Arrow extension types off (none is deserialised), checks the
  rows, columns, row groups and the uncompressed size the footer declares against the same
  caps before reading any data, then reads only the top-level integer, floating-point and
  Boolean columns, one row group at a time, counting rows as it goes. Anything ``pyarrow``
  cannot read becomes a sentence.

Both refuse a row with a missing, non-numeric, infinite or huge (above 10¹⁰⁰) value in a
numeric column, rather than dropping it as the Wrap page's reader does: an audit counts every
canary, and one left out after the fact changes what the audit proves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ._validate import check_int
from .tabular import (
    MAX_ABS_VALUE,
    MIN_ROWS,
    ParsedTable,
    RejectReason,
    UploadRejected,
    _clean_names,
    parse_numeric_csv,
)

__all__ = [
    "MAX_PARQUET_BYTES",
    "MAX_ROW_GROUPS",
    "MAX_SCORE_BYTES",
    "MAX_SCORE_COLS",
    "MAX_SCORE_ROWS",
    "ScoreFile",
    "guess_columns",
    "read_score_file",
    "scores_and_flags",
]

#: Largest score file: 20 MB (20 000 000 bytes; Streamlit's uploader counts 10⁶ bytes a MB).
MAX_SCORE_BYTES = 20_000_000
#: Most rows (examples) of a score file.
MAX_SCORE_ROWS = 1_000_000
#: Most numeric columns (the header or schema may have twice as many fields in all).
MAX_SCORE_COLS = 20
#: Most bytes the columns of a Parquet file may take once decompressed, as its footer declares
#: them: 10⁶ rows of 12 float64 columns.
MAX_PARQUET_BYTES = 96_000_000
#: Most row groups of a Parquet file (each costs a read of its own).
MAX_ROW_GROUPS = 10_000
_PARQUET_MAGIC = b"PAR1"
_THRIFT_LIMITS = {"thrift_string_size_limit": 1_000_000, "thrift_container_size_limit": 100_000}
_FLAG_NAMES = ("member", "is_member", "membership", "included", "in", "label", "canary", "train")
_SCORE_NAMES = ("score", "scores", "lira", "logit", "confidence", "loss", "likelihood", "llr")


@dataclass(frozen=True)
class ScoreFile:
    """A score file read: ``data``, its numeric columns (float64, every value finite with
    ``|x| <= 1e100``, at least 8 rows, unique plain-text names); ``format``; ``rows_read``;
    ``dropped_columns`` (non-numeric, by cleaned name); ``renamed_columns`` (cleaned names
    that differ from the file's)."""

    data: pd.DataFrame
    format: Literal["csv", "parquet"]
    rows_read: int
    dropped_columns: tuple[str, ...]
    renamed_columns: tuple[str, ...]


def read_score_file(
    raw: bytes,
    *,
    format: Literal["csv", "parquet"] | None = None,
    max_bytes: int = MAX_SCORE_BYTES,
    max_rows: int = MAX_SCORE_ROWS,
) -> ScoreFile:
    """Read a CSV or Parquet file of scores and flags, or refuse it with one sentence.

    Parameters
    ----------
    raw : the file's bytes.
    format : ``"csv"``, ``"parquet"`` or None (by content: Parquet when it begins with
        ``PAR1``). A file said to be Parquet that is not is refused, never read as text.
    max_bytes, max_rows : int ``>= 1``: the caps (defaults :data:`MAX_SCORE_BYTES`,
        :data:`MAX_SCORE_ROWS`).

    Returns
    -------
    ScoreFile

    Raises
    ------
    UploadRejected
        With one sentence and a reason: those of :func:`~mipcore.tabular.parse_numeric_csv`,
        ``NOT_PARQUET`` (not a readable Parquet file), ``MISSING_VALUES`` (a row with a
        missing, non-numeric, infinite or huge value in a numeric column), ``TOO_LARGE``,
        ``TOO_MANY_ROWS``, ``TOO_MANY_COLUMNS``, ``NO_NUMERIC_COLUMN``, ``TOO_FEW_ROWS``.
    ValueError
        If ``format``, ``max_bytes`` or ``max_rows`` is out of range.

    Examples
    --------
    >>> f = read_score_file(b"score,member\\n" + b"0.5,1\\n-0.2,0\\n" * 5)
    >>> f.format, f.data.shape, list(f.data.columns)
    ('csv', (10, 2), ['score', 'member'])
    """
    if format not in (None, "csv", "parquet"):
        raise ValueError(f"format={format!r} is not one of (None, 'csv', 'parquet')")
    max_bytes = check_int("max_bytes", max_bytes, 1)
    max_rows = check_int("max_rows", max_rows, 1)
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise UploadRejected(
            f"raw must be the file's bytes, got {type(raw).__name__} — pass the uploaded "
            "file's getvalue()",
            RejectReason.NOT_BYTES,
        )
    raw = bytes(raw)
    parquet = raw[:4] == _PARQUET_MAGIC if format is None else format == "parquet"
    if not parquet:
        table = parse_numeric_csv(
            raw, max_bytes=max_bytes, max_rows=max_rows, max_cols=MAX_SCORE_COLS
        )
        _refuse_dropped(table)
        return ScoreFile(
            table.data, "csv", table.rows_read, table.dropped_columns, table.renamed_columns
        )
    return _read_parquet(raw, max_bytes, max_rows)


def _refuse_dropped(table: ParsedTable) -> None:
    dropped, large = table.dropped_rows, table.dropped_large_rows
    if dropped or large:
        raise _missing(dropped + large, table.rows_read)


def _missing(bad: int, rows: int) -> UploadRejected:
    verb = "has" if bad == 1 else "have"
    return UploadRejected(
        f"{bad:,} of {rows:,} rows {verb} a missing, non-numeric, infinite or huge (above "
        "1e100) value in a numeric column, e.g. a NaN score — an audit counts every example: "
        "fix or remove those rows (or the column), then upload the file again",
        RejectReason.MISSING_VALUES,
        bad,
        rows,
    )


def _not_parquet(detail: str) -> UploadRejected:
    return UploadRejected(
        f"the file is not a Parquet file this page can read ({detail}) — export it again as "
        "Parquet, or upload a CSV file with a header row",
        RejectReason.NOT_PARQUET,
    )


def _read_parquet(raw: bytes, max_bytes: int, max_rows: int) -> ScoreFile:
    import pyarrow as pa
    import pyarrow.parquet as pq

    size = len(raw)
    if size == 0:
        raise UploadRejected(
            "the file is empty (0 bytes) — choose a Parquet or CSV file with a score and a "
            "member flag per row",
            RejectReason.EMPTY,
        )
    if size > max_bytes:
        raise UploadRejected(
            f"the file has {size:,} bytes, more than the {max_bytes:,} bytes "
            f"({max_bytes / 1e6:.3g} MB) allowed — upload a sample of its rows",
            RejectReason.TOO_LARGE,
            size,
            max_bytes,
        )
    if size < 12 or raw[:4] != _PARQUET_MAGIC or raw[-4:] != _PARQUET_MAGIC:
        raise _not_parquet("a Parquet file begins and ends with “PAR1”")
    errors = (pa.ArrowException, OSError, ValueError, TypeError, IndexError, KeyError)
    try:
        pf = pq.ParquetFile(pa.BufferReader(raw), arrow_extensions_enabled=False, **_THRIFT_LIMITS)
        meta, schema = pf.metadata, pf.schema_arrow
        rows, groups = int(meta.num_rows), int(meta.num_row_groups)
    except errors:
        raise _not_parquet("its footer cannot be read") from None
    _check_shape(rows, len(schema), groups, max_rows)
    numeric = [
        j
        for j, f in enumerate(schema)
        if pa.types.is_integer(f.type)
        or pa.types.is_floating(f.type)
        or pa.types.is_boolean(f.type)
    ]
    names, renamed = _clean_names([str(f.name) for f in schema])
    dropped = tuple(names[j] for j in range(len(names)) if j not in numeric)
    if not numeric:
        raise UploadRejected(
            "no column is numeric (integers, floating-point numbers or Booleans) — store the "
            "scores and the member flags as numbers",
            RejectReason.NO_NUMERIC_COLUMN,
        )
    if len(numeric) > MAX_SCORE_COLS:
        raise UploadRejected(
            f"the file has {len(numeric)} numeric columns; at most {MAX_SCORE_COLS} are allowed "
            "— keep only the score and the member flag",
            RejectReason.TOO_MANY_COLUMNS,
            len(numeric),
            MAX_SCORE_COLS,
        )
    raw_names = [str(f.name) for f in schema]
    if len(set(raw_names)) < len(raw_names):
        raise _not_parquet("two of its columns have the same name")
    try:
        declared = sum(max(int(meta.row_group(g).total_byte_size), 0) for g in range(groups))
    except errors:
        raise _not_parquet("its footer cannot be read") from None
    if declared > MAX_PARQUET_BYTES:
        raise UploadRejected(
            f"its columns take {declared:,} bytes once decompressed, more than the "
            f"{MAX_PARQUET_BYTES:,} allowed — keep only the score and the member flag",
            RejectReason.TOO_LARGE,
            declared,
            MAX_PARQUET_BYTES,
        )
    try:
        parts = _row_groups(pf, [raw_names[j] for j in numeric], groups, max_rows)
    except errors:
        raise _not_parquet("its data cannot be read") from None
    x = np.column_stack([np.concatenate(col) for col in parts]) if rows else np.empty((0, 0))
    n = x.shape[0]
    if n != rows:
        raise _not_parquet("its row groups do not hold the rows its footer declares")
    if n < MIN_ROWS:
        raise UploadRejected(
            f"the file has {n:,} rows; at least {MIN_ROWS} are needed — add rows",
            RejectReason.TOO_FEW_ROWS,
            n,
            MIN_ROWS,
        )
    bad = int(np.count_nonzero(~(np.isfinite(x) & (np.abs(x) <= MAX_ABS_VALUE)).all(axis=1)))
    if bad:
        raise _missing(bad, n)
    kept = [names[j] for j in numeric]
    return ScoreFile(
        pd.DataFrame(x, columns=kept), "parquet", n, dropped, tuple(names[j] for j in renamed)
    )


def _check_shape(rows: int, fields: int, groups: int, max_rows: int) -> None:
    """The footer's rows, columns and row groups against the caps, before any data is read."""
    if rows > max_rows:
        raise UploadRejected(
            f"the file has {rows:,} rows, more than the {max_rows:,} allowed — keep a sample of "
            f"at most {max_rows:,} rows",
            RejectReason.TOO_MANY_ROWS,
            rows,
            max_rows,
        )
    if rows == 0:
        raise UploadRejected(
            "the file has no rows — add a score and a member flag for each example",
            RejectReason.NO_DATA_ROWS,
            0,
            MIN_ROWS,
        )
    if fields > 2 * MAX_SCORE_COLS:
        raise UploadRejected(
            f"the file has {fields:,} columns, more than the {2 * MAX_SCORE_COLS} allowed — "
            "keep only the score and the member flag",
            RejectReason.TOO_MANY_COLUMNS,
            fields,
            2 * MAX_SCORE_COLS,
        )
    if groups > MAX_ROW_GROUPS:
        raise _not_parquet(f"{groups:,} row groups, more than {MAX_ROW_GROUPS:,}")


def _row_groups(pf: Any, columns: Sequence[str], groups: int, max_rows: int) -> list[list[Any]]:
    """The ``columns`` (top-level names) as float64 arrays, one piece per row group, read one
    group at a time (nulls become NaN); stops with a refusal as soon as the rows read pass
    ``max_rows``."""
    import pyarrow as pa

    parts: list[list[Any]] = [[] for _ in columns]
    seen = 0
    for g in range(groups):
        table = pf.read_row_group(g, columns=list(columns), use_threads=False)
        if table.num_columns != len(columns):  # a name that also selects a nested field
            raise _not_parquet("its columns cannot be told apart by name")
        seen += table.num_rows
        if seen > max_rows:
            raise UploadRejected(
                f"the file has more than {max_rows:,} rows — keep a sample of at most "
                f"{max_rows:,} rows",
                RejectReason.TOO_MANY_ROWS,
                seen,
                max_rows,
            )
        for k in range(len(columns)):
            col = table.column(k).cast(pa.float64(), safe=False)
            parts[k].append(np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64))
    return parts


def guess_columns(data: pd.DataFrame) -> tuple[str, str | None]:
    """The score and member-flag columns a table most likely means.

    The flag: the first column holding only 0 and 1 whose name says so (``member``,
    ``included``, ``label``, …, any case), else the first column holding only 0 and 1 -- None
    if no column does. The score: the first other column whose name says so (``score``,
    ``lira``, ``loss``, …), else the first other column (the flag itself if it is alone).

    Examples
    --------
    >>> guess_columns(pd.DataFrame({"id": [1.0, 2.0], "LiRA": [0.3, -1.0], "in": [1.0, 0.0]}))
    ('LiRA', 'in')
    """
    cols = [str(c) for c in data.columns]
    binary = [c for c in cols if bool(np.isin(data[c].to_numpy(), (0.0, 1.0)).all())]
    named = [c for c in binary if c.strip().lower() in _FLAG_NAMES]
    flag = named[0] if named else (binary[0] if binary else None)
    others = [c for c in cols if c != flag] or cols
    score = next((c for c in others if c.strip().lower() in _SCORE_NAMES), others[0])
    return score, flag


def scores_and_flags(
    data: pd.DataFrame, score: str, flag: str
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The ``score`` column and the ``flag`` column as booleans (True = member).

    Raises
    ------
    UploadRejected
        ``SAME_COLUMN`` if they are one column; ``NOT_FLAGS`` if the flag column holds a value
        other than 0 and 1 (the first one and its row are named); ``ONE_CLASS`` if every row
        is a member, or none is.
    KeyError
        If ``data`` has no such column (a caller's mistake, not the file's).
    """
    if score == flag:
        raise UploadRejected(
            f"the score and the member flag are the same column, “{score}” — choose two "
            "different columns",
            RejectReason.SAME_COLUMN,
        )
    s = data[score].to_numpy(dtype=np.float64)
    f = data[flag].to_numpy(dtype=np.float64)
    wrong = np.flatnonzero((f != 0.0) & (f != 1.0))
    if wrong.size:
        row = int(wrong[0])
        raise UploadRejected(
            f"the member flag “{flag}” holds {f[row]:g} (data row {row + 1:,}) and "
            f"{wrong.size:,} such value{'s' if wrong.size > 1 else ''} in all, not only 0 and 1 "
            "— the flag is 1 for a member (trained on) and 0 for a non-member; choose that "
            "column as the flag",
            RejectReason.NOT_FLAGS,
            int(wrong.size),
        )
    member = f == 1.0
    k = int(np.count_nonzero(member))
    if k in (0, member.size):
        which = "a member (1)" if k else "a non-member (0)"
        raise UploadRejected(
            f"every one of the {member.size:,} rows is {which} by “{flag}” — an audit compares "
            "members with non-members: upload the scores of both",
            RejectReason.ONE_CLASS,
            k,
        )
    return s, member
