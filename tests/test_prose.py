"""appkit.prose: a page's static text, read from the Markdown file beside its script."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from appkit import prose as prose_mod
from appkit.registry import PAGES

ROOT = Path(__file__).resolve().parents[1]


def _calls() -> list[tuple[str, str, str, int]]:
    """Every ``prose(key, section)`` / ``prose_text(key, section)`` call in the app's scripts:
    (file, page key, section, line)."""
    found = []
    for path in [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("prose", "prose_text")
            ):
                key, section = (ast.literal_eval(a) for a in node.args[:2])
                found.append((path.name, key, section, node.lineno))
    return found


def test_every_section_a_page_draws_exists_and_every_section_is_drawn():
    calls = _calls()
    assert calls, "no page reads its prose from Markdown"
    used: dict[str, set[str]] = {}
    for file, key, section, line in calls:
        name = prose_mod._script_name(key)
        assert file == f"{name}.py", f"{file}:{line} draws the prose of another page ({key})"
        assert section in prose_mod.sections(name), f"{file}:{line}: no section {section!r}"
        used.setdefault(name, set()).add(section)
    for md in sorted((ROOT / "app_pages").glob("*.md")):
        unused = set(prose_mod.sections(md.stem)) - used.get(md.stem, set())
        assert not unused, f"{md.name}: sections no page draws: {sorted(unused)}"
        assert (ROOT / "app_pages" / f"{md.stem}.py").exists(), f"{md.name} has no page script"


def test_sections_split_text_and_formulas(tmp_path, monkeypatch):
    (tmp_path / "demo.md").write_text(
        "ignored before the first mark\n<!-- intro -->\nSome *text*.\n\n$$\n"
        "a^2 + b^2\n$$\n\nMore text.\n<!-- -->\nA second element.\n<!-- other -->\nOnly text.\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(prose_mod, "_PAGES", tmp_path)
    prose_mod.sections.cache_clear()
    try:
        got = prose_mod.sections("demo")
    finally:
        prose_mod.sections.cache_clear()
    assert got == {
        "intro": [
            ("markdown", "Some *text*."),
            ("latex", "a^2 + b^2"),
            ("markdown", "More text."),
            ("markdown", "A second element."),
        ],
        "other": [("markdown", "Only text.")],
    }


def test_a_section_named_twice_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "twice.md").write_text("<!-- a -->\nx\n<!-- a -->\ny\n", encoding="utf-8")
    monkeypatch.setattr(prose_mod, "_PAGES", tmp_path)
    prose_mod.sections.cache_clear()
    try:
        with pytest.raises(KeyError, match="two sections named 'a'"):
            prose_mod.sections("twice")
    finally:
        prose_mod.sections.cache_clear()


def test_text_refuses_a_section_with_formulas():
    page = next(p for p in PAGES if p.script and Path(p.script).stem == "eta_epsilon")
    assert "Theorem 4" in "".join(s for _, s in prose_mod.sections("eta_epsilon")["maths"])
    with pytest.raises(ValueError, match="holds formulas"):
        prose_mod.text(page.key, "maths")
    assert prose_mod.text(page.key, "takeaway").startswith("η grows almost linearly")
