"""appkit.prose: a page's static text, read from the Markdown file beside its script."""

from __future__ import annotations

import ast
import contextlib
from pathlib import Path

import pytest

from appkit import prose as prose_mod
from appkit.registry import PAGES

ROOT = Path(__file__).resolve().parents[1]


_READERS = ("prose", "prose_text", "say")


def _constants(tree: ast.Module) -> dict[str, object]:
    """The module's top-level names bound to a literal (``PAGE = "eta_epsilon"``)."""
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                with contextlib.suppress(ValueError):
                    out[target.id] = ast.literal_eval(node.value)
    return out


def _value(node: ast.expr, names: dict[str, object]) -> object:
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    return ast.literal_eval(node)


def _calls() -> list[tuple[str, str, str, int, frozenset[str] | None]]:
    """Every ``prose(key, section)`` / ``prose_text(key, section)`` / ``say(key, section,
    **values)`` call in the app's scripts: (file, page key, section, line, the names of the
    values it fills -- None when it fills none or passes them through ``**``)."""
    found = []
    for path in [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _constants(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in _READERS
            ):
                key, section = (_value(a, names) for a in node.args[:2])
                filled = [k.arg for k in node.keywords]
                values = None if not filled or None in filled else frozenset(filled)
                found.append((path.name, key, section, node.lineno, values))
    return found


def test_every_template_is_filled_with_exactly_its_placeholders():
    """A sentence with numbers is a template of the page's Markdown: every ``say`` fills
    exactly the placeholders of its section (a missing or extra value would raise at run time,
    on a state a test may not reach)."""
    checked = 0
    for file, key, section, line, values in _calls():
        if values is None:
            continue
        template = prose_mod.text(key, section)
        wanted = prose_mod.placeholders(template)
        assert values == wanted, f"{file}:{line} fills {sorted(values)} for {sorted(wanted)}"
        checked += 1
    assert checked, "no page fills a template"


def test_every_section_a_page_draws_exists_and_every_section_is_drawn():
    calls = _calls()
    assert calls, "no page reads its prose from Markdown"
    used: dict[str, set[str]] = {}
    for file, key, section, line, _values in calls:
        name = prose_mod._script_name(key)
        script = "app.py" if key == "home" else f"{name}.py"
        assert file == script, f"{file}:{line} draws the prose of another page ({key})"
        assert section in prose_mod.sections(name), f"{file}:{line}: no section {section!r}"
        used.setdefault(name, set()).add(section)
    for md in sorted((ROOT / "app_pages").glob("*.md")):
        unused = set(prose_mod.sections(md.stem)) - used.get(md.stem, set())
        assert not unused, f"{md.name}: sections no page draws: {sorted(unused)}"
        pages = {prose_mod._script_name(p.key) for p in PAGES}
        assert md.stem in pages, f"{md.name} belongs to no page"


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
