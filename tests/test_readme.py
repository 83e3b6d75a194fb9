"""The README and the docs it points to hold up as printed: every Python snippet runs (from a
file, as a newcomer would run it), and every relative link and ``#anchor`` reaches an existing
file and heading."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The Markdown a reader follows from the README.
MARKDOWN = [
    README,
    ROOT / "CHANGELOG.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
#: The snippets that must run: the README's and those of the docs.
SNIPPET_FILES = [README, *sorted((ROOT / "docs").glob("*.md"))]
SNIPPETS = [
    (path, i, block)
    for path in SNIPPET_FILES
    for i, block in enumerate(
        re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    )
]


def test_the_readme_has_a_python_snippet():
    assert any(path == README for path, _, _ in SNIPPETS)
    assert len(SNIPPETS) >= 2  # the README's and the parallel Algorithm 1 of docs/mipcore.md


@pytest.mark.parametrize(
    ("path", "i", "block"),
    SNIPPETS,
    ids=[f"{p.relative_to(ROOT)}:{i}" for p, i, _ in SNIPPETS],
)
def test_snippet_runs_as_printed(path, i, block, tmp_path):
    script = tmp_path / f"snippet_{i}.py"
    script.write_text(block, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]


FENCE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]+`")
LINK = re.compile(r"!?\[(?:[^\[\]\n]|\[[^\]\n]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
HTML_ID = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)


def _prose(text: str) -> str:
    """The text without fenced code blocks (links and headings there are not links)."""
    return FENCE.sub("", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text, lower case, punctuation dropped,
    spaces as hyphens."""
    text = re.sub(r"<[^>]+>", "", heading)  # inline HTML (an <a id> anchor)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link: its text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every ``#anchor`` a link into ``path`` may use: its headings' slugs (a repeated one gets
    ``-1``, ``-2``, …) and the ids of its ``<a id="…">`` anchors."""
    text = _prose(path.read_text(encoding="utf-8"))
    found: set[str] = set(HTML_ID.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        slug = _slug(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def broken_links(path: Path) -> list[str]:
    """The relative links of a Markdown file whose file or anchor does not exist."""
    text = INLINE_CODE.sub("code", _prose(path.read_text(encoding="utf-8")))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, …
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no such heading or anchor in {dest.name}")
    return broken


@pytest.mark.parametrize("path", MARKDOWN, ids=[str(p.relative_to(ROOT)) for p in MARKDOWN])
def test_every_relative_link_resolves(path):
    assert not broken_links(path), broken_links(path)


def test_the_link_check_catches_a_broken_file_and_anchor(tmp_path):
    (tmp_path / "other.md").write_text(
        '# Other\n\n## `mipcore` in brief, again\n\n1. <a id="note-1"></a>A note.\n',
        encoding="utf-8",
    )
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Settings\n\n"
        "[ok](other.md) [ok](other.md#mipcore-in-brief-again) [ok](other.md#note-1) "
        "[ok](#settings) [ok](https://example.org/x) ![ok](other.md)\n"
        "[no file](missing.md) [no heading](other.md#nowhere) [no anchor](#nowhere)\n"
        "```\n[in code, not a link](missing-too.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no such heading or anchor in other.md",
        "#nowhere: no such heading or anchor in page.md",
    ]
    assert _slug("Why Vega-Lite, not Plotly") == "why-vega-lite-not-plotly"
    assert _slug("What does ε mean for the people in my data?") == (
        "what-does-ε-mean-for-the-people-in-my-data"
    )
