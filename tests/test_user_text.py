"""What a user or a newcomer reads never names a paper by file id, a path they do not have,
an issue, or raw notation (``_{``, ``^(``, ``10^-36``): on every page, in the READMEs, the
changelog and the docs (whose notes on the paper alone keep their plain-text derivations)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pagetools
import pytest

ROOT = Path(__file__).resolve().parents[1]

FILE_ID = re.compile(r"\b\d{3}_[0-9a-f]{16}\b|`00[0-4]`|\.\./shared|\bshared/papers\b")
ISSUE = re.compile(r"\b(design card|issue[- ]\d+)\b", re.IGNORECASE)
RAW = re.compile(r"_\{|\^\(|\b10\^-?\d|\^\{")
# A "%" after an ordinary space may be set alone at the start of a line ("73.1" | "%"): the
# app keeps it with its number by a no-break space (U+00A0), as fmt_pct writes it.
ORPHAN_PCT = re.compile(r"(?<=\S) %")


def _vega_text(spec: dict, tables: dict) -> list[str]:
    """What a Vega-Lite chart shows as text: its title, axis and legend titles, legend entries
    (a scale's domain), text marks' values and labels, and the values of every column that a
    text, colour, shape or dash channel shows (legend entries and labels come from there)."""
    out: list[str] = []
    shown: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "title" and isinstance(value, str):
                    out.append(value)
                elif key == "title" and isinstance(value, dict):
                    text = value.get("text")
                    out.extend([text] if isinstance(text, str) else list(text or []))
                elif key == "value" and isinstance(value, str):
                    out.append(value)
                elif key == "domain" and isinstance(value, list):
                    out.extend(v for v in value if isinstance(v, str))
                elif key in {"text", "color", "shape", "strokeDash", "tooltip"}:
                    for d in value if isinstance(value, list) else [value]:
                        if isinstance(d, dict) and isinstance(d.get("field"), str):
                            shown.add(d["field"])
                walk(value)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    for table in tables.values():
        for column in shown & {str(c) for c in table.columns}:
            out += [str(v) for v in table[column].unique() if isinstance(v, str)]
    return out


def page_text(at) -> list[str]:
    out = pagetools.texts(at, tables=True)
    out += [e.label for e in at.get("expander")] if hasattr(at, "get") else []
    for kind in ("slider", "number_input", "selectbox", "multiselect", "toggle", "radio"):
        out += [str(w.label) for w in getattr(at, kind)]
        out += [str(w.help) for w in getattr(at, kind) if getattr(w, "help", None)]
    out += (
        [t.value for t in at.title] + [h.value for h in at.header] + [s.value for s in at.subheader]
    )
    for spec, tables in pagetools.vega_charts(at):
        out += _vega_text(spec, tables)
    return out


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_no_file_ids_issues_raw_notation_or_orphaned_percent_on_any_page(app_page):
    at = pagetools.load(app_page.script, via_app=True) if app_page.script else None
    if at is None:
        from streamlit.testing.v1 import AppTest

        at = AppTest.from_file(pagetools.APP, default_timeout=60).run()
    if any(e.label == "The maths" for e in at.expander):
        pagetools.unfold(at)  # drawn only once opened: its prose is read too
    for text in page_text(at):
        assert not FILE_ID.search(text), f"/{app_page.url_path}: {text[:300]}"
        assert not ISSUE.search(text), f"/{app_page.url_path}: {text[:300]}"
        assert not RAW.search(pagetools.unescaped(text)), f"/{app_page.url_path}: {text[:300]}"
        orphan = ORPHAN_PCT.search(text)
        assert not orphan, f"/{app_page.url_path}: a % that can wrap alone: {text[:300]!r}"


def test_vega_chart_text_is_read():
    """The check above reads a Vega-Lite chart's title, axis titles, legend entries and the
    labels it draws from its tables (so a raw notation there would fail it)."""
    spec = {
        "title": "T",
        "layer": [
            {
                "data": {"name": "d"},
                "mark": "text",
                "encoding": {
                    "x": {"field": "x", "type": "quantitative", "title": "axis x"},
                    "text": {"field": "label", "type": "nominal"},
                    "color": {"field": "k", "scale": {"domain": ["k1"]}, "legend": None},
                },
            },
            {"mark": "rule", "encoding": {"text": {"value": "10^-5"}}},
        ],
    }
    import pandas as pd

    tables = {"d": pd.DataFrame({"x": [1.0], "label": ["e^(-3)"], "k": ["k1"]})}
    text = _vega_text(spec, tables)
    assert {"T", "axis x", "k1", "e^(-3)", "10^-5"} <= set(text)
    assert any(RAW.search(t) for t in text)


#: The Markdown a reader meets: the READMEs, the changelog, every page of docs/ and the
#: pages' own prose (app_pages/*.md, drawn by appkit.prose).
READMES = [
    "README.md",
    "benchmarks/README.md",
    "CHANGELOG.md",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app_pages").glob("*.md")),
]
#: The notes on the paper keep their derivations in the plain-text notation they were
#: written in (``p^(−1/2)``, ``Σ_{x∈D}``); every other file writes none.
RAW_NOTATION_ALLOWED = {"docs/paper-notes.md"}
FENCED_CODE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
DISPLAY_MATH = re.compile(r"^\$\$\s*\n.*?\n\$\$\s*$", re.M | re.S)  # LaTeX, drawn by st.latex


def test_the_readme_list_holds_the_docs():
    assert {"docs/paper-notes.md", "docs/speed.md", "docs/deploy.md"} <= set(READMES)
    assert "app_pages/eta_epsilon.md" in READMES


@pytest.mark.parametrize("name", READMES)
def test_no_file_ids_or_issues_in_the_readmes(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert not FILE_ID.search(text), FILE_ID.search(text).group(0)
    assert not ISSUE.search(text), ISSUE.search(text).group(0)


@pytest.mark.parametrize("name", READMES)
def test_no_orphaned_percent_or_raw_notation_in_the_readmes(name):
    """In prose (code blocks and display maths aside) every "%" is held to its number by a no-break space, and
    no raw notation is written outside the notes on the paper."""
    prose = DISPLAY_MATH.sub("", FENCED_CODE.sub("", (ROOT / name).read_text(encoding="utf-8")))
    # Lines joined as Markdown renders them: a "%" that opens a line follows a plain space too.
    joined = " ".join(line.strip() for line in prose.splitlines())
    orphans = [joined[max(m.start() - 40, 0) : m.end()] for m in ORPHAN_PCT.finditer(joined)]
    assert not orphans, f"a % after an ordinary space: {orphans[:5]}"
    if name not in RAW_NOTATION_ALLOWED:
        raw = [line for line in prose.splitlines() if RAW.search(line)]
        assert not raw, f"raw notation: {raw[:5]}"


def _orphan_percents(path: Path) -> list[str]:
    """String literals (not docstrings) of ``path`` in which a "%" follows an ordinary space
    after a word or number: ``"50 %"``, or ``f"{x} %"`` (a literal part starting with " %"
    after a formatted value)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for before, part in itertools.pairwise(node.values):
                if (
                    isinstance(before, ast.FormattedValue)
                    and isinstance(part, ast.Constant)
                    and str(part.value).startswith(" %")
                ):
                    found.append(f"{path.name}:{part.lineno}: {ast.unparse(node)[:80]}")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and ORPHAN_PCT.search(node.value)
        ):
            found.append(f"{path.name}:{node.lineno}: {node.value[:80]!r}")
    return found


def test_no_percent_sign_can_wrap_alone_in_the_app_source():
    """Every "%" the app writes after a number or word is held to it by a no-break space, in
    every state of every page (the page check above sees the default state only): the
    string literals of the pages, appkit and mipcore's experiments and plots hold none after an
    ordinary space. Format strings (``"%.1f"``) are not matched: no space before their %."""
    files = [ROOT / "app.py"]
    for folder in ("app_pages", "appkit", "mipcore/experiments", "mipcore/plots"):
        files += sorted((ROOT / folder).glob("*.py"))
    found = [hit for f in files for hit in _orphan_percents(f)]
    assert not found, "\n".join(found)
