"""Defensive, bounded-time parsing of an uploaded CSV into a finite numeric table.

An upload is hostile until proven otherwise: it may be huge, binary, in another encoding,
ragged, or crafted to make a parser slow. :func:`parse_numeric_csv` reads it in time linear
in its size (target: at most about a second on a 2-core machine for any file up to
:data:`MAX_UPLOAD_BYTES`; the costliest 5 MB files measured take a few tenths of a second,
see ``benchmarks/uploads.py``) and either returns a finite float table or raises
:class:`UploadRejected`, a ``ValueError`` whose message is one sentence naming the cause and
the fix, and whose :attr:`~UploadRejected.reason` lets a caller branch without reading text.

What is done, in order (each step is linear and cheap before the next, costlier one runs):

1. size: at most ``max_bytes`` (5 MB, 5 000 000 bytes: what Streamlit's uploader accepts
   under ``server.maxUploadSize = 5`` in a browser on Linux or macOS, which counts a MB as
   10⁶ bytes; on Windows it counts 2²⁰, and a file of 5.0–5.24 MB passes the uploader and is
   refused here with a sentence);
2. decoding: UTF-8 (a byte-order mark is dropped); UTF-16 and UTF-32 *with* a byte-order
   mark are decoded too; anything undecodable, or with NUL bytes, is refused as binary;
3. rows: the non-blank lines are counted with vectorised byte comparisons, and a file with
   more than ``max_rows`` data lines is refused before any parsing;
4. delimiter: chosen among ``, ; TAB |`` and runs of white space by counting each
   candidate outside double quotes on the first 50 lines (at most 64 KiB), never with
   :class:`csv.Sniffer` (whose regular expressions take seconds on 64 KB of quotes, and
   which may split a one-column file on a letter of its header);
5. columns: a header with more than ``2 * max_cols`` fields is refused before parsing;
6. parsing: pandas' C engine only (no Python engine, nothing executed or unpickled);
7. values: a column is numeric when at least 90 % of its filled cells are numbers; other
   columns are dropped (and listed). Rows with a missing, non-numeric, NaN or infinite value
   in a numeric column are dropped and counted, and so are rows with a magnitude above
   :data:`MAX_ABS_VALUE` (``1e100``), counted separately (see Notes).

Column names are kept as plain text (Markdown or HTML in a header is data, not markup; the
page renders names as text): control and bidirectional-override characters are removed,
white space collapsed, names cut to :data:`MAX_NAME_CHARS` characters, blank names replaced
by ``column <j>`` and duplicates made unique with `` (2)``, `` (3)``, ...
"""

from __future__ import annotations

import enum
import io
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from ._validate import check_int

__all__ = [
    "MAX_ABS_VALUE",
    "MAX_COLS",
    "MAX_NAME_CHARS",
    "MAX_ROWS",
    "MAX_UPLOAD_BYTES",
    "MIN_ROWS",
    "NUMERIC_SHARE",
    "Delimiter",
    "Encoding",
    "ParsedTable",
    "RejectReason",
    "UploadRejected",
    "parse_numeric_csv",
]

#: The one upload size limit: 5 MB (5 000 000 bytes), the ``server.maxUploadSize = 5`` of
#: Streamlit as its uploader applies it in a browser on Linux and macOS (10⁶ bytes a MB).
MAX_UPLOAD_BYTES = 5_000_000
#: At most this many data rows (below the header).
MAX_ROWS = 200_000
#: At most this many numeric columns; the header may have twice as many fields in all.
MAX_COLS = 20
#: Fewest usable rows: Algorithm 1 splits the data in halves and needs a few rows in each.
MIN_ROWS = 8
#: Rows with a value of larger magnitude are dropped (see :func:`parse_numeric_csv` Notes).
MAX_ABS_VALUE = 1e100
#: Column names are cut to this many characters.
MAX_NAME_CHARS = 40
#: A column is numeric when at least this share of its filled cells parse as numbers.
NUMERIC_SHARE = 0.9

_SAMPLE_BYTES = 65_536  # the delimiter is chosen from at most this many leading bytes
_SAMPLE_LINES = 50  # ... and at most this many non-blank lines
_CHUNK = 4096  # distinct text values converted at a time (see _numeric_column)
_CANDIDATES = (",", ";", "\t", "|")  # in order of precedence on a tie
_WHITESPACE = " "  # ParsedTable.delimiter for "runs of spaces or tabs"

Delimiter = Literal[",", ";", "\t", "|", " "]
Encoding = Literal["utf-8", "utf-8-sig", "utf-16", "utf-32"]


class RejectReason(enum.Enum):
    """Why an upload was refused (``UploadRejected.reason``)."""

    NOT_BYTES = "not_bytes"  # the argument is not bytes (a programming error upstream)
    EMPTY = "empty"  # zero bytes
    BLANK = "blank"  # only white space and line breaks
    TOO_LARGE = "too_large"  # more than max_bytes
    NOT_UTF8 = "not_utf8"  # undecodable as UTF-8 (or as the UTF-16/32 its BOM announces)
    BINARY = "binary"  # NUL bytes: binary, or UTF-16/32 without a byte-order mark
    TOO_MANY_ROWS = "too_many_rows"  # more than max_rows data rows
    TOO_MANY_COLUMNS = "too_many_columns"  # > 2 max_cols fields, or > max_cols numeric
    MALFORMED = "malformed"  # ragged rows or an unclosed quote
    NO_DATA_ROWS = "no_data_rows"  # a header and nothing below it
    NO_NUMERIC_COLUMN = "no_numeric_column"  # no column is >= 90 % numbers
    TOO_FEW_ROWS = "too_few_rows"  # fewer than MIN_ROWS usable rows
    # score files (mipcore.score_upload)
    NOT_PARQUET = "not_parquet"  # said or looks to be Parquet, and pyarrow cannot read it
    MISSING_VALUES = "missing_values"  # a row with a missing, NaN, infinite or huge value
    SAME_COLUMN = "same_column"  # the score and the flag are one column
    NOT_FLAGS = "not_flags"  # a member flag other than 0 and 1
    ONE_CLASS = "one_class"  # only members, or only non-members


class UploadRejected(ValueError):
    """A refused upload: ``str(exc)`` is one sentence (cause, then fix); ``reason`` says why.

    ``found`` and ``limit`` carry the numbers in the sentence where there are some (e.g.
    10 000 columns found, 40 allowed), so a page can write its own text.
    """

    def __init__(
        self,
        message: str,
        reason: RejectReason,
        found: int | None = None,
        limit: int | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.found = found
        self.limit = limit

    def __reduce__(self):  # picklable (caches, process pools) despite the extra fields
        return (type(self), (str(self), self.reason, self.found, self.limit))


@dataclass(frozen=True)
class ParsedTable:
    """A finite numeric table read from an upload, and what was done to get it.

    Attributes
    ----------
    data : float64 DataFrame, ``MIN_ROWS <= len(data) <= max_rows`` rows and
        ``1 <= data.shape[1] <= max_cols`` columns with unique ``str`` names; every value
        finite with ``|x| <= MAX_ABS_VALUE``; index ``0 .. len - 1``.
    delimiter : the field separator used; ``" "`` means runs of spaces or tabs.
    encoding : ``"utf-8"``, ``"utf-8-sig"`` (UTF-8 with a byte-order mark), ``"utf-16"``
        or ``"utf-32"`` (both announced by a byte-order mark).
    rows_read : data rows in the file (below the header, blank lines not counted).
    dropped_columns : names (cleaned as in ``data``) of the columns dropped as non-numeric.
    dropped_rows : rows dropped for a missing, non-numeric, NaN or infinite value in a
        numeric column.
    dropped_large_rows : further rows dropped for a value with ``|x| > MAX_ABS_VALUE``.
    renamed_columns : cleaned names (kept or dropped columns) that differ from the header's
        text: blank, cut to ``MAX_NAME_CHARS``, stripped of control characters, or made unique.
    """

    data: pd.DataFrame
    delimiter: Delimiter
    encoding: Encoding
    rows_read: int
    dropped_columns: tuple[str, ...]
    dropped_rows: int
    dropped_large_rows: int
    renamed_columns: tuple[str, ...]


def parse_numeric_csv(
    raw: bytes,
    *,
    max_bytes: int = MAX_UPLOAD_BYTES,
    max_rows: int = MAX_ROWS,
    max_cols: int = MAX_COLS,
) -> ParsedTable:
    """Parse an uploaded CSV defensively, in bounded time, into a finite numeric table.

    Parameters
    ----------
    raw : the file's bytes (``bytes``, ``bytearray`` or ``memoryview``).
    max_bytes : size limit in bytes, ``>= 1`` (default 5 MB, the uploader's limit).
    max_rows : most data rows below the header, ``>= 1``.
    max_cols : most numeric columns, ``>= 1``; the header may have ``2 * max_cols`` fields
        in all, so a file with a few label columns beside ``max_cols`` numeric ones is read.

    Returns
    -------
    ParsedTable
        The numeric table and structured counts of what was dropped or renamed (no sentences:
        the page writes them).

    Raises
    ------
    UploadRejected
        (a ``ValueError``) with one sentence, cause then fix, and a :class:`RejectReason`:
        not bytes, empty, blank, too large, not UTF-8, binary (NUL bytes), too many rows, too
        many columns, malformed (ragged rows, unclosed quote), no data rows, no numeric
        column, fewer than ``MIN_ROWS`` usable rows.
    ValueError
        if ``max_bytes``, ``max_rows`` or ``max_cols`` is not an integer ``>= 1``.

    Notes
    -----
    Time is linear in ``len(raw)``: every step before pandas' C parser is a vectorised byte
    scan, the delimiter is chosen from at most 64 KiB, and files with too many lines or
    header fields are refused before parsing. A value is numeric when pandas' C parser or
    :func:`pandas.to_numeric` reads it as a float (decimal point, optional exponent,
    ``inf``/``nan`` spellings); ``True``/``False`` columns count as 1/0.

    Magnitude threshold ``MAX_ABS_VALUE = 1e100``: no measured quantity comes near it
    (about 1e80 atoms in the observable universe), and it keeps every number the Wrap page
    derives from the table finite with a wide margin. Second moments are at most 1e200; the
    page then multiplies by at most about 1e9 (20 columns summed and squared in the
    covariance sensitivity, clipping bounds widened tenfold, the MIP noise constant
    ``(6.16/eta)^(1 + 2/M)`` at eta = 0.01, the Gamma radius of 400 coordinates). Checked: 20
    columns of values near +-1e100 give releases of at most about 3e208 for every statistic,
    M in {2, 8} and both radius variants at eta = 0.01, whereas values near +-1e150 overflow
    float64 (1.8e308) in the covariance release. Left in, such values used to surface later
    as a misleading error about the clipping bounds.

    Examples
    --------
    >>> rows = b"".join(b"%d,%d\\n" % (i, i * i) for i in range(10))
    >>> table = parse_numeric_csv(b"x,x squared\\n" + rows)
    >>> table.data.shape, list(table.data.columns), table.delimiter
    ((10, 2), ['x', 'x squared'], ',')
    >>> float(table.data["x squared"].sum())
    285.0
    >>> parse_numeric_csv(b"a;b;label\\n" + b"1;2;x\\n" * 9 + b"1;inf;y\\n").dropped_columns
    ('label',)
    >>> try:
    ...     parse_numeric_csv(b"x,y\\n1,2\\n")
    ... except UploadRejected as exc:
    ...     print(exc.reason.name, "|", exc)
    TOO_FEW_ROWS | only 1 usable row remains of 1 data row; at least 8 are needed — add rows
    """
    max_bytes = check_int("max_bytes", max_bytes, 1)
    max_rows = check_int("max_rows", max_rows, 1)
    max_cols = check_int("max_cols", max_cols, 1)
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise UploadRejected(
            f"raw must be the file's bytes, got {type(raw).__name__} — pass the uploaded "
            "file's getvalue()",
            RejectReason.NOT_BYTES,
        )
    raw = bytes(raw)
    size = len(raw)
    if size == 0:
        raise UploadRejected(
            "the file is empty (0 bytes) — choose a CSV file with a header row and at least "
            f"{MIN_ROWS} data rows",
            RejectReason.EMPTY,
        )
    if size > max_bytes:
        raise UploadRejected(
            f"the file has {size:,} bytes, more than the {max_bytes:,} bytes "
            f"({max_bytes / 1e6:.3g} MB) allowed — upload a sample of its rows or fewer "
            "columns",
            RejectReason.TOO_LARGE,
            size,
            max_bytes,
        )
    data, encoding = _decode(raw)
    first = _FIRST_CONTENT.search(data)
    if first is None:
        raise UploadRejected(
            "the file contains only blank space and line breaks — choose a CSV file with a "
            "header row and data rows",
            RejectReason.BLANK,
        )
    # Drop leading blank lines (pandas' skiprows would count them as the header).
    cut = max(data.rfind(b"\n", 0, first.start()), data.rfind(b"\r", 0, first.start())) + 1
    skipped_lines = _count_line_breaks(data[:cut])
    data = data[cut:]

    arr = np.frombuffer(data, dtype=np.uint8)
    if data.count(b"\n") + data.count(b"\r") > max_rows:  # cheap pre-test, then exact
        lines = _count_nonblank_lines(arr)
        if lines > max_rows + 1:
            raise UploadRejected(
                f"the file has {lines:,} lines, more than a header and {max_rows:,} data rows "
                f"— keep a sample of at most {max_rows:,} rows",
                RejectReason.TOO_MANY_ROWS,
                lines - 1,
                max_rows,
            )
    delimiter, header_fields = _choose_delimiter(arr)
    max_fields = 2 * max_cols
    if header_fields > max_fields:
        raise _too_many_fields(header_fields, max_fields, max_cols)

    sep = r"\s+" if delimiter == _WHITESPACE else delimiter
    try:
        head = pd.read_csv(
            io.BytesIO(data),
            sep=sep,
            engine="c",
            quotechar='"',
            skipinitialspace=True,
            header=None,
            nrows=1,
            dtype=str,
            na_filter=False,
        )
    except pd.errors.EmptyDataError:
        raise UploadRejected(
            "the file has no header row — choose a CSV file with a header row and data rows",
            RejectReason.BLANK,
        ) from None
    except pd.errors.ParserError as exc:
        raise _malformed(exc, skipped_lines, None) from None
    header = ["" if pd.isna(v) else str(v) for v in head.iloc[0].tolist()]
    if len(header) > max_fields:  # the byte scan misjudged a stray quote; pandas did not
        raise _too_many_fields(len(header), max_fields, max_cols)
    names, renamed = _clean_names(header)

    k = len(names)
    try:
        # One name more than the header has: a row with extra fields fills it (ragged), where
        # pandas would otherwise turn the extra leading fields into an index without a word.
        frame = _read_body(data, sep, k + 1, max_rows + 1)
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=list(range(k + 1)))
    except pd.errors.ParserError as exc:
        raise _malformed(exc, skipped_lines, k) from None
    default_index = isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0
    extra = np.flatnonzero(frame[k].notna().to_numpy()) if default_index else np.zeros(1, int)
    if extra.size:
        raise UploadRejected(
            f"the file is ragged: data row {int(extra[0]) + 1:,} has more fields than the "
            f"header's {k} — give every column a name in the header, or quote fields that "
            "contain the delimiter",
            RejectReason.MALFORMED,
            None,
            k,
        )
    n = len(frame)
    if n > max_rows:
        raise UploadRejected(
            f"the file has more than {max_rows:,} data rows — keep a sample of at most "
            f"{max_rows:,} rows",
            RejectReason.TOO_MANY_ROWS,
            n,
            max_rows,
        )
    if n == 0:
        raise UploadRejected(
            f"the file has a header row but no data rows — add at least {MIN_ROWS} rows of "
            "numbers below the header",
            RejectReason.NO_DATA_ROWS,
            0,
            MIN_ROWS,
        )

    values: dict[int, np.ndarray] = {}
    filled: dict[int, int] = {}
    as_text: list[int] = []
    for j in range(k):
        filled[j] = int(frame[j].notna().sum())
        try:
            column = _numeric_column(frame[j])
        except (OverflowError, TypeError):
            as_text.append(j)
            continue
        if column is not None:
            values[j] = column
    if as_text:
        # pandas' C parser turns integers of 20 to 4300 digits into Python ints, which
        # to_numeric cannot convert: read those columns again as text (inf when too large)
        text = _read_body(data, sep, k + 1, max_rows + 1, dtype=dict.fromkeys(as_text, object))
        for j in as_text:
            column = _numeric_column(text[j])
            if column is not None:
                values[j] = column
    kept = sorted(values)
    # a column without a name or a value (e.g. after a delimiter ending every line) is no loss
    dropped_columns = tuple(
        names[j] for j in range(k) if j not in kept and (header[j].strip() or filled[j])
    )
    if not kept:
        raise UploadRejected(
            f"no column is numeric (at least {NUMERIC_SHARE:.0%} of its filled cells numbers) "
            "— check that numbers use a decimal point and the fields are separated by , ; "
            "tab or |",
            RejectReason.NO_NUMERIC_COLUMN,
        )
    if len(kept) > max_cols:
        raise UploadRejected(
            f"the file has {len(kept)} numeric columns; at most {max_cols} are allowed — keep "
            "only the columns you need",
            RejectReason.TOO_MANY_COLUMNS,
            len(kept),
            max_cols,
        )
    x = np.column_stack([values[j] for j in kept])
    finite = np.isfinite(x).all(axis=1)
    large = finite & (np.abs(x) > MAX_ABS_VALUE).any(axis=1)
    keep = finite & ~large
    usable = int(np.count_nonzero(keep))
    dropped_rows = n - int(np.count_nonzero(finite))
    dropped_large = int(np.count_nonzero(large))
    if usable < MIN_ROWS:
        raise UploadRejected(
            _too_few_rows(usable, n, dropped_rows, dropped_large),
            RejectReason.TOO_FEW_ROWS,
            usable,
            MIN_ROWS,
        )
    table = pd.DataFrame(x[keep], columns=[names[j] for j in kept])
    return ParsedTable(
        data=table,
        delimiter=delimiter,
        encoding=encoding,
        rows_read=n,
        dropped_columns=dropped_columns,
        dropped_rows=dropped_rows,
        dropped_large_rows=dropped_large,
        renamed_columns=tuple(names[j] for j in renamed),
    )


# ---------------------------------------------------------------------------- decoding

_FIRST_CONTENT = re.compile(rb"[^ \t\r\n\f\v]")
_BOMS: tuple[tuple[bytes, Encoding], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32"),  # before UTF-16 LE, which it starts with
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
)


def _decode(raw: bytes) -> tuple[bytes, Encoding]:
    """UTF-8 bytes of the text (no byte-order mark) and the encoding it was read in."""
    encoding: Encoding = "utf-8"
    for bom, name in _BOMS:
        if raw.startswith(bom):
            encoding = name
            break
    try:
        if encoding in ("utf-16", "utf-32"):
            data = raw.decode(encoding).encode("utf-8")  # Python's codec consumes the BOM
        else:
            data = raw[3:] if encoding == "utf-8-sig" else raw
            data.decode("utf-8")  # validate only: pandas reads the bytes
    except UnicodeDecodeError as exc:
        where = f"byte 0x{exc.object[exc.start]:02x} at offset {exc.start:,}"
        text = "UTF-8 text" if encoding.startswith("utf-8") else f"valid {encoding.upper()}"
        raise UploadRejected(
            f"the file is not {text} ({where} cannot be decoded), so it is binary (a "
            "spreadsheet?) or in another encoding — export it as “CSV UTF-8”",
            RejectReason.NOT_UTF8,
        ) from None
    if b"\x00" in data:
        raise UploadRejected(
            "the file contains NUL bytes, so it is binary or UTF-16/UTF-32 text without a "
            "byte-order mark — export it as “CSV UTF-8”",
            RejectReason.BINARY,
        )
    return data, encoding


# ---------------------------------------------------------------------------- byte scans


def _count_line_breaks(data: bytes) -> int:
    """Line breaks in ``data`` (CRLF, LF and lone CR each count once)."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


def _count_nonblank_lines(arr: np.ndarray) -> int:
    """Lines with at least one byte other than CR/LF (quotes ignored: an upper bound on the
    records a CSV parser finds, exact for files without line breaks inside quotes)."""
    if arr.size == 0:
        return 0
    content = (arr != 0x0A) & (arr != 0x0D)
    starts = content.copy()
    starts[1:] &= ~content[:-1]
    return int(np.count_nonzero(starts))


def _choose_delimiter(arr: np.ndarray) -> tuple[Delimiter, int]:
    """The delimiter and the number of fields it gives the header line.

    For each candidate, count its occurrences outside double quotes on each of the first
    ``_SAMPLE_LINES`` non-blank lines of the first ``_SAMPLE_BYTES`` bytes. A candidate scores
    the share of data lines with as many as the header (which must have at least one). The
    best score wins if it is at least 1/2 (ties: more fields, then ``, ; TAB |``); otherwise
    runs of white space if they split the header and score 1/2, otherwise a single column.
    """
    sample = arr[:_SAMPLE_BYTES]
    counts, whole = _counts_per_line(sample, cut_last=arr.size > _SAMPLE_BYTES)
    best: tuple[float, int, int] | None = None
    chosen: Delimiter = ","
    for rank, cand in enumerate((*_CANDIDATES, _WHITESPACE)):
        per_line = counts[cand]
        head = int(per_line[0])
        if head == 0:
            continue
        body = per_line[1:]
        score = float(np.mean(body == head)) if body.size else 1.0
        if cand == _WHITESPACE and best is not None:
            break  # white space only when no listed delimiter splits the header
        key = (score, head, -rank)
        if score >= 0.5 and (best is None or key > best):
            best, chosen = key, cand  # type: ignore[assignment]
    if best is None:
        # nothing consistent: the listed candidate splitting the header most (pandas then
        # reports the ragged rows), else one column
        heads = {c: int(counts[c][0]) for c in _CANDIDATES}
        top = max(_CANDIDATES, key=lambda c: heads[c])
        chosen = top if heads[top] > 0 else ","  # type: ignore[assignment]
    if not whole:  # the header line is longer than the sample: count its fields in full
        return chosen, _first_line_fields(arr, chosen)
    return chosen, int(counts[chosen][0]) + 1


def _outside_quotes(arr: np.ndarray) -> np.ndarray:
    """Bytes not inside a double-quoted stretch (after an even number of quotes)."""
    quote = arr == 0x22
    odd = (np.cumsum(quote, dtype=np.uint8) & 1).astype(bool)  # uint8 wraps; parity survives
    return ~odd | quote


def _first_line_fields(arr: np.ndarray, delimiter: Delimiter) -> int:
    """Fields of the first line (up to its first line break outside quotes)."""
    outside = _outside_quotes(arr)
    eol = ((arr == 0x0A) | (arr == 0x0D)) & outside
    end = int(np.argmax(eol)) if eol.any() else arr.size
    head, outside = arr[:end], outside[:end]
    if delimiter != _WHITESPACE:
        return int(np.count_nonzero((head == ord(delimiter)) & outside)) + 1
    token = ~(((head == 0x20) | (head == 0x09)) & outside)
    start = token.copy()
    start[1:] &= ~token[:-1]
    return max(int(np.count_nonzero(start)), 1)


def _counts_per_line(arr: np.ndarray, *, cut_last: bool) -> tuple[dict[str, np.ndarray], bool]:
    """Per non-blank line (at most ``_SAMPLE_LINES``), how many times each candidate delimiter
    occurs outside double quotes, and (for white space) how many runs separate tokens.

    Returns the counts and whether the first line is complete (ends inside ``arr``)."""
    outside = _outside_quotes(arr)
    eol = ((arr == 0x0A) | (arr == 0x0D)) & outside
    line = np.cumsum(eol) - eol  # line index; a line break belongs to the line it ends
    n_lines = int(line[-1]) + 1 if arr.size else 0
    space = ((arr == 0x20) | (arr == 0x09)) & outside
    content = ~eol & ~space
    has_content = np.bincount(line[content], minlength=n_lines) > 0
    complete = np.ones(n_lines, dtype=bool)
    if cut_last and n_lines and not (arr.size and eol[-1]):
        complete[-1] = False  # the sample ends inside this line
    first_whole = n_lines > 0 and bool(complete[0])
    lines = np.flatnonzero(has_content & complete)[:_SAMPLE_LINES]
    if lines.size == 0:  # the only line is incomplete: count it anyway (caller recounts)
        lines = np.flatnonzero(has_content)[:1]
    if lines.size == 0:
        lines = np.zeros(1, dtype=np.int64)
        n_lines = max(n_lines, 1)
    counts: dict[str, np.ndarray] = {}
    for cand in _CANDIDATES:
        hit = (arr == ord(cand)) & outside
        counts[cand] = np.bincount(line[hit], minlength=n_lines)[lines]
    # white space: token starts after the first token of a line
    token = ~space & ~eol
    start = token.copy()
    start[1:] &= ~token[:-1]
    tokens = np.bincount(line[start], minlength=n_lines)[lines]
    counts[_WHITESPACE] = np.maximum(tokens - 1, 0)
    return counts, first_whole


# ---------------------------------------------------------------------------- names, values

_BIDI_CONTROLS = dict.fromkeys(
    map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
)


def _is_control(ch: str) -> bool:
    """Control, format, surrogate, private-use or unassigned (Unicode category C*), except
    the zero-width (non-)joiners that emoji and some scripts need."""
    return unicodedata.category(ch)[0] == "C" and ch not in "\u200c\u200d"


def _clean_names(header: list[str]) -> tuple[list[str], list[int]]:
    """Plain, short, unique column names and the indices of those that differ from the
    header's text."""
    names: list[str] = []
    renamed: list[int] = []
    seen: set[str] = set()
    for j, text in enumerate(header):
        head = text[: 4 * MAX_NAME_CHARS].translate(_BIDI_CONTROLS)
        head = "".join(" " if _is_control(ch) else ch for ch in head)
        name = " ".join(head.split())
        if len(name) > MAX_NAME_CHARS or len(text) > 4 * MAX_NAME_CHARS:
            name = name[: MAX_NAME_CHARS - 1].rstrip() + "…"
        if not name:
            name = f"column {j + 1}"
        base, k = name, 1
        while name in seen:
            k += 1
            suffix = f" ({k})"
            name = base[: MAX_NAME_CHARS - len(suffix)].rstrip() + suffix
        seen.add(name)
        names.append(name)
        if name != text.strip():
            renamed.append(j)
    return names, renamed


def _read_body(
    data: bytes,
    sep: str,
    n_names: int,
    nrows: int,
    *,
    dtype: dict[int, type[object]] | None = None,
) -> pd.DataFrame:
    """The rows below the header, columns named 0 .. n_names - 1 (pandas' C parser)."""
    return pd.read_csv(
        io.BytesIO(data),
        sep=sep,
        engine="c",
        quotechar='"',
        skipinitialspace=True,
        header=None,
        skiprows=1,
        names=list(range(n_names)),
        dtype=dtype,
        nrows=nrows,
        on_bad_lines="error",
        low_memory=False,
    )


def _numeric_column(column: pd.Series) -> np.ndarray | None:
    """The column as float64 (NaN where a cell is empty or not a number; ``True``/``False``
    read as 1/0) if it is numeric -- at least one number, and numbers in at least
    ``NUMERIC_SHARE`` of its filled cells -- else None.

    Text is converted once per distinct value, in chunks, stopping as soon as more than
    ``1 - NUMERIC_SHARE`` of the filled cells are known not to be numbers. Failed
    conversions are the slow ones (about 1 us each, five times a number's), so this bounds
    them to a tenth of a column's cells plus one chunk, and a column of words costs about a
    tenth of its size; the byte limit bounds the number of distinct cells.

    Raises OverflowError or TypeError for a column holding Python ints too large for a float.
    """
    if column.dtype.kind in "fiub":
        numbers = column.to_numpy(dtype=float)
        return numbers if np.any(~np.isnan(numbers)) else None
    codes, distinct = pd.factorize(column)  # a missing cell gets code -1
    if len(distinct) == 0:
        return None
    weight = np.bincount(codes[codes >= 0], minlength=len(distinct))
    filled = int(weight.sum())
    tolerated = filled - NUMERIC_SHARE * filled  # more non-numeric cells than this: not numeric
    texts = np.asarray(distinct, dtype=object)
    as_float = np.empty(len(distinct))
    step = max(_CHUNK, len(distinct) // 16)
    failed = 0
    for lo in range(0, len(distinct), step):
        part = np.asarray(pd.to_numeric(texts[lo : lo + step], errors="coerce"), dtype=float)
        as_float[lo : lo + step] = part
        failed += int(weight[lo : lo + step][np.isnan(part)].sum())
        if failed > tolerated:
            return None
    if failed == filled:
        return None
    return np.where(codes >= 0, as_float[codes], np.nan)


# ---------------------------------------------------------------------------- sentences


def _too_many_fields(found: int, max_fields: int, max_cols: int) -> UploadRejected:
    return UploadRejected(
        f"the file has {found:,} columns; at most {max_fields} are allowed, {max_cols} of them "
        "numeric — keep only the columns you need",
        RejectReason.TOO_MANY_COLUMNS,
        found,
        max_fields,
    )


_SHOWN_MAX_ABS = f"{MAX_ABS_VALUE:.0e}".replace("e+", "e")  # "1e100"
_EXPECTED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_EOF_QUOTE = re.compile(r"EOF inside string starting at row (\d+)")


def _malformed(exc: Exception, skipped_lines: int, header_fields: int | None) -> UploadRejected:
    """One sentence for a pandas ParserError (its text is not shown: it may quote the file).

    ``header_fields``: the header's field count when pandas was given one name more."""
    text = str(exc)
    if m := _EXPECTED.search(text):
        want, line, saw = (int(g) for g in m.groups())
        want = want if header_fields is None else header_fields
        return UploadRejected(
            f"the file is ragged: line {line + skipped_lines:,} has {saw:,} fields but the "
            f"header has {want:,} — give every row as many fields as the header, quoting "
            "fields that contain the delimiter",
            RejectReason.MALFORMED,
            saw,
            want,
        )
    if _EOF_QUOTE.search(text):
        return UploadRejected(
            "the file is malformed: a double quote opens a field that is never closed — "
            "balance the quotes or remove them",
            RejectReason.MALFORMED,
        )
    return UploadRejected(
        "the file is malformed and cannot be read as CSV — check that quotes are balanced "
        "and every row has as many fields as the header",
        RejectReason.MALFORMED,
    )


def _plural(k: int, word: str) -> str:
    return f"{k:,} {word}" + ("" if k == 1 else "s")


def _too_few_rows(usable: int, n: int, dropped: int, large: int) -> str:
    causes = []
    if dropped:
        causes.append(f"{dropped:,} dropped for missing, non-numeric or infinite values")
    if large:
        causes.append(f"{large:,} for magnitudes above {_SHOWN_MAX_ABS}")
    why = f" ({' and '.join(causes)})" if causes else ""
    verb = "remains" if usable == 1 else "remain"
    fixes = ["fill in the missing values"] if dropped else []
    fixes += ["rescale the huge values (change their unit)"] if large else []
    fix = ", ".join([*fixes, "or add rows"]) if fixes else "add rows"
    return (
        f"only {_plural(usable, 'usable row')} {verb} of {_plural(n, 'data row')}{why}; "
        f"at least {MIN_ROWS} are needed — {fix}"
    )
