"""The shape the code keeps: a number two hops from its theory (no lessons layer between a
page and mipcore), modules and page functions a reader can hold in their head, and every page's
controls declared in one table."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))]
MODULE_LINES = 1200
BLOCK_LINES = 60


def test_there_is_no_lessons_layer():
    """Pages build theory's inputs and read theory's results; experiments live in
    mipcore/experiments, each with a small result."""
    assert not (ROOT / "mipcore" / "lessons").exists()


def test_no_mipcore_module_is_over_1200_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted((ROOT / "mipcore").rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert not long, long


def _spans(tree: ast.Module) -> list[tuple[str, int, int]]:
    """(what, first line, lines) of every function (methods and nested ones too) and every
    other module-level statement."""
    out = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((type(node).__name__, node.lineno, node.end_lineno - node.lineno + 1))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((f"def {node.name}", node.lineno, node.end_lineno - node.lineno + 1))
    return out


def test_no_page_function_or_module_level_block_is_over_60_lines():
    long = [
        f"{p.name}:{line} {what} ({n} lines)"
        for p in PAGES
        for what, line, n in _spans(ast.parse(p.read_text(encoding="utf-8")))
        if n > BLOCK_LINES
    ]
    assert not long, long


def test_every_page_draws_its_controls_from_its_table():
    """A page's controls are one table of appkit.controls rows: no page binds a widget to the
    link itself (appkit.url_*), so every control's key, label, range, default, step, format and
    help stand in one line of that table."""
    from appkit import state

    widgets = {name for name in state.__all__ if name.startswith("url_")}
    assert widgets, "appkit.state has no URL-bound widgets any more: update this test"
    found = []
    for p in PAGES:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
            if name in widgets:
                found.append(f"{p.name}:{node.lineno} {name}")
    assert not found, found
