"""Parse time of hostile uploads: the old ``parse_numeric_csv`` beside ``mipcore.tabular``'s.

For each file (the 64 KB ``csv.Sniffer`` payload, 5 MiB just under and just over the limit,
10 000 columns, a million rows, binary junk, UTF-16, +-1e308, NaN/inf text, markup in the
header, empty and blank files, CRLF/semicolon/tab, a one-column file, quoted delimiters, and
the slowest files the new parser still reads), prints the median of ``--repeats`` parse times
with the new parser (in this process) and with the old one, and their ratio.

The old parser can hold the GIL for many seconds, so each of its runs happens in a
subprocess killed after ``--timeout`` seconds (default 30); the time is measured inside the
subprocess around the call only (interpreter start-up and imports are not counted). The old
function is imported from ``mipcore.wrap`` or ``mipcore.lessons.statistic_release``; if
neither holds the csv.Sniffer version any more, it is cut out of the newest commit of either
file that does (``git show``), so the "before" column survives the switch to the new parser.

Never asserts; exits 0. Run: ``python benchmarks/uploads.py [--repeats 5] [--timeout 30]``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import itertools
import json
import os
import platform
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from mipcore import tabular  # noqa: E402

LIMIT = tabular.MAX_UPLOAD_BYTES
OLD_MODULES = (
    "mipcore.wrap",
    "mipcore.lessons.statistic_release",
    "mipcore.experiments.statistic_release",
)


# ---------------------------------------------------------------------------- the files


def _csv(header: str, rows) -> bytes:
    return (header + "\n" + "".join(r + "\n" for r in rows)).encode()


def _numeric(target: int, cols: int = 20) -> bytes:
    """A numeric CSV of just under ``target`` bytes (a 1000-row block repeated)."""
    gen = np.random.default_rng(0)
    header = (",".join(f"x{j}" for j in range(cols)) + "\n").encode()
    block = "".join(
        ",".join(f"{v:.6f}" for v in row) + "\n" for row in gen.normal(size=(1000, cols))
    ).encode()
    out, size = [header], len(header)
    reps = (target - size) // len(block)
    out.append(block * reps)
    size += reps * len(block)
    for line in block.splitlines(keepends=True):
        if size + len(line) > target:
            break
        out.append(line)
        size += len(line)
    return b"".join(out)


def _short_cells(target: int) -> bytes:
    """The most cells the limit allows: 40 columns (the most the header may have) of
    one-character cells, a letter in every 20th row, so pandas reads every column as text
    and each must be converted; all 40 stay numeric (95 %), so the file is refused after
    parsing for too many numeric columns."""
    k = 2 * tabular.MAX_COLS
    header = ",".join(f"c{j}" for j in range(k)) + "\n"
    block = (",".join(str(j % 10) for j in range(k)) + "\n") * 19 + ",".join(["x"] * k) + "\n"
    reps = (target - len(header)) // len(block)
    return (header + block * reps).encode()


def _mixed_distinct(target: int) -> bytes:
    """The slowest file that is still read: 20 numeric columns of distinct values with a
    stray word in every 20th row (so they are parsed as text) beside 20 columns of distinct
    words, 5 MiB in all."""
    k = tabular.MAX_COLS
    header = ",".join([f"x{j}" for j in range(k)] + [f"label{j}" for j in range(k)]) + "\n"
    out, size, i = [header], len(header), 0
    while True:
        nums = [
            "n/a" if i % 20 == 19 else f"{(i * 7919 + j * 104729) % 100003 / 7:.3f}"
            for j in range(k)
        ]
        words = [f"w{i}_{j}" for j in range(k)]
        line = ",".join(nums + words) + "\n"
        if size + len(line) > target:
            break
        out.append(line)
        size += len(line)
        i += 1
    return "".join(out).encode()


def _distinct_words(target: int) -> bytes:
    """The costliest text per byte: 40 columns of distinct three-character words (a number
    fails to parse from each, the slow case of pandas.to_numeric)."""
    alphabet = string.ascii_letters + string.digits
    words = ["".join(w) for w in itertools.product(alphabet, repeat=3)]
    k = 2 * tabular.MAX_COLS
    header = ",".join(f"c{j}" for j in range(k)) + "\n"
    out, size, i = [header], len(header), 0
    while True:
        line = ",".join(words[(i * 41 + j * 7919) % len(words)] for j in range(k)) + "\n"
        if size + len(line) > target:
            break
        out.append(line)
        size += len(line)
        i += 1
    return "".join(out).encode()


def hostile_files() -> list[tuple[str, bytes]]:
    rows = [f"{i},{i * 0.5},{-i}e-1" for i in range(1000)]
    plain = _csv("a,b,c", rows)
    just_under = _numeric(LIMIT)
    return [
        ("sniffer payload 'a,\"b' * 16000", ('a,"b' * 16000).encode()),
        ("5 MiB numeric, just under", just_under),
        ("5 MiB + 1 byte", just_under + b"1" * (LIMIT + 1 - len(just_under))),
        (
            "10,000 columns x 100 rows",
            _csv(",".join(f"c{j}" for j in range(10_000)), [",".join(["1"] * 10_000)] * 100),
        ),
        ("1,000,000 short rows", b"x\n" + b"1\n" * 1_000_000),
        ("binary junk, 64 KiB", random.Random(0).randbytes(65_536)),
        ("UTF-16 with BOM, 1000 rows", plain.decode().encode("utf-16")),
        ("+-1e308 among 1000 rows", plain + b"1e308,1,2\n-1e308,3,4\n"),
        ("nan/inf/-inf text", plain + b"nan,1,2\ninf,3,4\n-inf,5,6\n"),
        (
            "Markdown/HTML header",
            _csv("<img src=x onerror=alert(1)>,[click](http://evil),`code`", rows),
        ),
        ("empty file", b""),
        ("whitespace only", b" \n\t\r\n   \n"),
        ("CRLF line ends", plain.replace(b"\n", b"\r\n")),
        ("semicolon-separated", plain.replace(b",", b";")),
        ("tab-separated", plain.replace(b",", b"\t")),
        ("one column 'value'", _csv("value", [f"{i}.5" for i in range(1000)])),
        (
            "quoted fields with delimiters",
            _csv("x,label,y", [f'{i},"a, b; c|d\tz",{i}' for i in range(1000)]),
        ),
        ("5 MiB, 40 cols of 1-char cells", _short_cells(LIMIT)),
        ("5 MiB, 20 numeric + 20 text cols", _mixed_distinct(LIMIT)),
        ("5 MiB, 40 cols of distinct words", _distinct_words(LIMIT)),
        ("1200 integers of 4000 digits", _csv("a,b", [f"{'1' * 4000},{i}" for i in range(1200)])),
        ("5 MiB of double quotes", b'"' * (LIMIT - 1)),
    ]


# ---------------------------------------------------------------------------- the parsers


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def _old_source_from_git() -> tuple[str, str]:
    """The newest committed csv.Sniffer version of the old parser's module, and its origin."""
    paths = [name.replace(".", "/") + ".py" for name in OLD_MODULES]
    commits = _git("rev-list", "HEAD", "--", *paths).stdout.split()
    for commit in commits:
        for path in paths:
            shown = _git("show", f"{commit}:{path}")
            if shown.returncode == 0 and "csv.Sniffer" in shown.stdout:
                return shown.stdout, f"git {commit[:7]}:{path}"
    raise LookupError("no committed version of the csv.Sniffer parser was found")


def _old_from_git() -> tuple[Callable[[bytes], object], str]:
    """The old parser, cut out of its committed module (only what it needs)."""
    source, origin = _old_source_from_git()
    tree = ast.parse(source)
    wanted = ("ParsedTable", "parse_numeric_csv")
    keep = [
        node
        for node in tree.body
        if (isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and not node.level))
        or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id.startswith("MAX_") for t in node.targets)
        )
        or (isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in wanted)
    ]
    old = types.ModuleType("old_upload_parser")  # dataclasses look their module up
    sys.modules[old.__name__] = old
    module = ast.Module(body=keep, type_ignores=[])
    exec(compile(module, origin, "exec"), old.__dict__)  # our own repository's committed code
    return old.parse_numeric_csv, origin


def load_old() -> tuple[Callable[[bytes], object], str]:
    """The csv.Sniffer-based parser and where it came from: imported if a module still holds
    it, else cut out of the newest commit that does."""
    import importlib
    import inspect

    for name in OLD_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        fn = getattr(module, "parse_numeric_csv", None)
        try:
            is_old = fn is not None and "csv.Sniffer" in inspect.getsource(fn)
        except (OSError, TypeError):
            is_old = False
        if is_old:
            return fn, name  # type: ignore[return-value]
    return _old_from_git()


def _outcome_new(raw: bytes) -> str:
    try:
        t = tabular.parse_numeric_csv(raw)
    except tabular.UploadRejected as exc:
        return f"refused: {exc.reason.value}"
    extra = []
    if t.dropped_rows:
        extra.append(f"-{t.dropped_rows} rows")
    if t.dropped_large_rows:
        extra.append(f"-{t.dropped_large_rows} huge")
    if t.dropped_columns:
        extra.append(f"-{len(t.dropped_columns)} cols")
    return f"table {t.data.shape[0]}x{t.data.shape[1]}" + (
        f" ({', '.join(extra)})" if extra else ""
    )


def time_new(raw: bytes, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        with contextlib.suppress(ValueError):
            tabular.parse_numeric_csv(raw)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _worker(path: str) -> int:
    """Subprocess side: one timed call of the old parser on the file at ``path``."""
    fn, origin = load_old()
    raw = Path(path).read_bytes()
    t0 = time.perf_counter()
    try:
        result = fn(raw)
        data = getattr(result, "data", None)
        outcome = f"table {data.shape[0]}x{data.shape[1]}" if data is not None else "table"
    except ValueError as exc:
        text = str(exc).splitlines()[0] if str(exc) else ""
        outcome = "refused: " + (text[:38] + "…" if len(text) > 39 else text)
    except Exception as exc:  # the old parser's escapes are part of the comparison
        outcome = f"crashed: {type(exc).__name__}"
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "outcome": outcome, "origin": origin}))
    return 0


def time_old(path: Path, repeats: int, timeout: float) -> tuple[float | None, str, str]:
    """Median seconds of the old parser (None if a run timed out), outcome, origin."""
    times, outcome, origin = [], "", ""
    for _ in range(repeats):
        try:
            proc = subprocess.run(
                [sys.executable, __file__, "--old-worker", str(path)],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return None, f"killed after {timeout:g} s", origin
        if proc.returncode != 0 or not proc.stdout.strip():
            tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            return None, f"worker failed: {tail[0][:40]}", origin
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        times.append(report["seconds"])
        outcome, origin = report["outcome"], report["origin"]
    return statistics.median(times), outcome, origin


# ---------------------------------------------------------------------------- main


def _fmt_s(x: float | None, timeout: float) -> str:
    if x is None:
        return f">{timeout:g} s"
    return f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"


def _fmt_ratio(r: float) -> str:
    return f"{r:.1f}x" if r < 10 else f"{r:,.0f}x"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per file (median)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per old run")
    parser.add_argument("--old-worker", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.old_worker:
        return _worker(args.old_worker)

    print(
        f"Upload parsing, median of {args.repeats} runs; {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, pandas {pd.__version__}\n"
    )
    files = hostile_files()
    rows = []
    origin = ""
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, raw) in enumerate(files):
            path = Path(tmp) / f"{i}.csv"
            path.write_bytes(raw)
            t_old, old_outcome, where = time_old(path, args.repeats, args.timeout)
            origin = where or origin
            t_new = time_new(raw, args.repeats)
            ratio = _fmt_ratio(args.timeout / t_new if t_old is None else t_old / t_new)
            if t_old is None:
                ratio = ">" + ratio
            rows.append((name, len(raw), t_old, old_outcome, t_new, _outcome_new(raw), ratio))
            print(f"  measured: {name}", file=sys.stderr, flush=True)

    print(f"old parser: {origin or 'unavailable'}; new parser: mipcore.tabular\n")
    head = (
        f"{'file':32} {'bytes':>10}  {'old':>9}  {'old outcome':42} {'new':>9}  "
        f"{'new outcome':34} {'old/new':>8}"
    )
    print(head)
    print("-" * len(head))
    for name, size, t_old, old_out, t_new, new_out, ratio in rows:
        print(
            f"{name:32} {size:>10,}  {_fmt_s(t_old, args.timeout):>9}  {old_out[:42]:42} "
            f"{_fmt_s(t_new, args.timeout):>9}  {new_out[:34]:34} {ratio:>8}"
        )
    worst = max(rows, key=lambda r: r[4])
    print(
        f"\nslowest file for the new parser: {worst[0]} ({_fmt_s(worst[4], args.timeout)}; "
        "target <= ~1 s for every file up to the 5 MiB limit)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
