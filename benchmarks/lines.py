"""What the presentation layers are made of, line by line, and the floor under their size.

    python benchmarks/lines.py            # the working tree
    python benchmarks/lines.py --rev REV  # a commit (read through git, nothing checked out)

Every line of the Python files of ``mipcore/experiments`` (``mipcore/lessons`` at older
commits), ``mipcore/plots``, ``app_pages`` and ``appkit`` falls in the first of these kinds that claims it (read with ``ast`` and
``tokenize``):

* **blank**, **comment** (a line holding only a comment), **docstring**;
* **import** (an ``import`` or ``from ... import`` statement);
* **computed**: a line holding an f-string (a sentence that carries a computed number);
* **static**: a line holding nothing but plain string literals, an argument name such as
  ``help=`` and punctuation aside (text that could move to a page's Markdown file and leave
  no line behind; a call that shows a static string keeps its line, as it would with the
  text in Markdown);
* **validation**: a line of a ``raise`` statement or of a call to a ``check_*``/``as_enum``
  helper (what refuses a value);
* **widget**: a line of a call to ``appkit.url_*`` (a control bound to the URL);
* **field**: an annotated name in a class body (a dataclass or NamedTuple field);
* **plumbing**: a keyword argument's line in a call to a class with four or more of them
  (a typed result filled field by field: what a rewrite that returned theory's own results
  could drop);
* **code**: the rest.

The **floor** printed last is what is left when every blank line, comment and docstring is
deleted and every static string leaves the Python files: the lines that compute, lay out,
bind and say what the app shows. **logic** is the floor without imports, validation, fields
and plumbing as well: what is left if every result were passed on as theory returns it and
every value were checked once, elsewhere. A layer cannot be shorter than that without
removing some of what it computes, draws or says (or writing more per line than the
formatter allows).
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import tokenize
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = (
    "mipcore/lessons",
    "mipcore/experiments",
    "mipcore/plots",
    "app_pages",
    "appkit",
)  # lessons: older commits
KINDS = (
    "blank",
    "comment",
    "docstring",
    "import",
    "static",
    "computed",
    "validation",
    "widget",
    "field",
    "plumbing",
    "code",
)
CHECKS = ("check_", "_check", "as_enum")


def _name(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Attribute):
        base = f.value.id if isinstance(f.value, ast.Name) else ""
        return f"{base}.{f.attr}"
    return f.id if isinstance(f, ast.Name) else ""


def _span(node: ast.AST) -> range:
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)  # type: ignore[attr-defined]


def line_kinds(source: str) -> dict[int, str]:
    """The kind of each line (numbered from 1) of one Python file."""
    lines = source.splitlines()
    kind: dict[int, str] = {}

    def claim(span: range, what: str) -> None:
        for n in span:
            kind.setdefault(n, what)

    for n, text in enumerate(lines, 1):
        if not text.strip():
            kind[n] = "blank"
        elif text.strip().startswith("#"):
            kind[n] = "comment"
    tree = ast.parse(source)
    docs: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            docs.update(_span(body[0]))
    for n in sorted(docs):
        kind.setdefault(n, "docstring")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            claim(_span(node), "import")
    # per line: does it hold an f-string, and is every token on it a plain string (an
    # argument name and punctuation aside)?
    fstring, plain, other = set(), set(), set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        rows = range(tok.start[0], tok.end[0] + 1)
        if tok.type == tokenize.STRING:
            quote = min(i for i in (tok.string.find('"'), tok.string.find("'")) if i >= 0)
            (fstring if "f" in tok.string[:quote].lower() else plain).update(rows)
        elif tok.type == tokenize.NAME and tok.end[0] == tok.start[0]:
            other.add(tok.start[0])  # an argument name is told apart below
        elif tok.type == tokenize.NUMBER:
            other.add(tok.start[0])
    for n in sorted(fstring):
        kind.setdefault(n, "computed")
    for n in sorted(plain):
        text = lines[n - 1].strip()
        keyword = text.split("=", 1)[0].isidentifier() and "=" in text.split('"')[0]
        if n not in other or (keyword and text.split("=", 1)[1].lstrip()[:1] in "\"'("):
            kind.setdefault(n, "static")
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            claim(_span(node), "validation")
        elif isinstance(node, ast.Call):
            name = _name(node).rsplit(".", 1)[-1]
            if name.startswith(CHECKS) or name == "as_enum":
                claim(_span(node), "validation")
            elif _name(node).startswith("appkit.url_") or name.startswith("url_"):
                claim(_span(node), "widget")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign):
                    claim(_span(item), "field")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _name(node).rsplit(".", 1)[-1][:1].isupper()
            and len(node.keywords) >= 4
        ):
            for kw in node.keywords:
                claim(_span(kw.value), "plumbing")
    return {n: kind.get(n, "code") for n in range(1, len(lines) + 1)}


def classify(source: str) -> Counter[str]:
    """The number of lines of each kind in one Python file."""
    return Counter(line_kinds(source).values())


def _files(rev: str | None) -> dict[str, str]:
    """Path -> source of every Python file of the four layers, at ``rev`` or in the tree."""
    if rev is None:
        return {
            str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
            for layer in LAYERS
            for p in sorted((ROOT / layer).rglob("*.py"))
        }
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, "--", *LAYERS],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        name: subprocess.run(
            ["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
        for name in names
        if name.endswith(".py")
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", help="a commit to read instead of the working tree")
    parser.add_argument("--files", action="store_true", help="also one row per file")
    args = parser.parse_args()
    per_layer: dict[str, Counter[str]] = {layer: Counter() for layer in LAYERS}
    per_file: dict[str, Counter[str]] = {}
    for path, source in _files(args.rev).items():
        counts = classify(source)
        per_file[path] = counts
        per_layer[next(layer for layer in LAYERS if path.startswith(layer + "/"))] += counts
    total: Counter[str] = Counter()
    for counts in per_layer.values():
        total += counts
    header = ["layer", *KINDS, "all", "floor", "logic"]
    rows = [(layer, per_layer[layer]) for layer in LAYERS] + [("sum", total)]
    if args.files:
        rows = sorted(per_file.items()) + rows
    width = max(len(r[0]) for r in rows)
    print(f"{header[0]:{width}s} " + " ".join(f"{h:>10s}" for h in header[1:]))
    for name, counts in rows:
        all_ = sum(counts.values())
        floor = all_ - sum(counts[k] for k in ("blank", "comment", "docstring", "static"))
        logic = floor - sum(counts[k] for k in ("import", "validation", "field", "plumbing"))
        cells = [counts[k] for k in KINDS] + [all_, floor, logic]
        print(f"{name:{width}s} " + " ".join(f"{c:10d}" for c in cells))


if __name__ == "__main__":
    main()
