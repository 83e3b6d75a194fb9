"""What a user or a newcomer reads never names a paper by file id, a path they do not have,
an issue, or raw notation (``_{``, ``^(``, ``10^-36``): on every page, in the README and in the
benchmarks' README."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pagetools
import pytest

ROOT = Path(__file__).resolve().parents[1]

FILE_ID = re.compile(r"\b\d{3}_[0-9a-f]{16}\b|`00[0-4]`|\.\./shared|\bshared/papers\b")
ISSUE = re.compile(r"\b(design card|issue[- ]\d+)\b", re.IGNORECASE)
RAW = re.compile(r"_\{|\^\(|\b10\^-?\d|\^\{")


def _chart_text(spec: str) -> list[str]:
    """Titles, axis titles, legend names and annotations of a Plotly spec."""
    fig = json.loads(spec)
    out = []
    layout = fig.get("layout", {})

    def title(node):
        t = node.get("title") if isinstance(node, dict) else None
        if isinstance(t, dict):
            return t.get("text") or ""
        return t or ""

    out.append(title(layout))
    for key, value in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(value, dict):
            out.append(title(value))
    out += [a.get("text", "") for a in layout.get("annotations", [])]
    out += [str(t.get("name", "")) for t in fig.get("data", [])]
    return [t for t in out if t]


def page_text(at) -> list[str]:
    out = pagetools.texts(at, tables=True)
    out += [e.label for e in at.get("expander")] if hasattr(at, "get") else []
    for kind in ("slider", "number_input", "selectbox", "multiselect", "toggle", "radio"):
        out += [str(w.label) for w in getattr(at, kind)]
        out += [str(w.help) for w in getattr(at, kind) if getattr(w, "help", None)]
    out += (
        [t.value for t in at.title] + [h.value for h in at.header] + [s.value for s in at.subheader]
    )
    for c in at.get("plotly_chart"):
        out += _chart_text(c.proto.spec)
    return out


def test_no_file_ids_issues_or_raw_notation_on_any_page(app_page):
    at = pagetools.load(app_page.script, via_app=True) if app_page.script else None
    if at is None:
        from streamlit.testing.v1 import AppTest

        at = AppTest.from_file(pagetools.APP, default_timeout=60).run()
    for text in page_text(at):
        assert not FILE_ID.search(text), f"/{app_page.url_path}: {text[:300]}"
        assert not ISSUE.search(text), f"/{app_page.url_path}: {text[:300]}"
        assert not RAW.search(pagetools.unescaped(text)), f"/{app_page.url_path}: {text[:300]}"


@pytest.mark.parametrize("name", ["README.md", "benchmarks/README.md", "CHANGELOG.md"])
def test_no_file_ids_or_issues_in_the_readmes(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert not FILE_ID.search(text), FILE_ID.search(text).group(0)
    assert not ISSUE.search(text), ISSUE.search(text).group(0)
