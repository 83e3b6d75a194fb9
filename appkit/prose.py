"""A page's static prose, read from the Markdown file beside its script.

A page ``app_pages/<name>.py`` keeps the text that carries no computed number (its
introduction, its explanations, "The maths") in ``app_pages/<name>.md`` (the home page, a
function of ``app.py``, in ``app_pages/home.md``), cut into named sections by HTML comments
on a line of their own::

    <!-- intro -->
    A differentially private release …

    <!-- maths -->
    **Theorem 4** (DP ⇒ MIP, tight). If an algorithm is (ε, δ)-DP, then it is η-MIP with

    $$
    \\eta = \\frac{\\delta}{2} + \\frac{1-\\delta}{2}\\tanh\\frac{\\varepsilon}{2}
    $$

:func:`prose` draws one section: each ``$$ … $$`` block (on lines of its own) through
``st.latex``, the text between through ``st.markdown`` (a line ``<!-- -->`` ends one
Markdown element and starts the next, as two ``st.markdown`` calls would). The file is the app's own, never a
user's, so its Markdown is trusted; it is read once per process.

**Sentences with numbers are templates** in the same file: named placeholders in braces,
filled by :func:`say` from the page's results, each formatted by the app's one rounding rule
(:mod:`mipcore.plots.formatting`) as its format says::

    <!-- reading -->
    With {setting}, no attacker is right more than **{accuracy:pct}** of the time; η = {eta:num}.

A placeholder may read a field of a result handed whole (``{row.low:num}`` with
``row=row``), so that a sentence names the theory's own result and the page passes it once.
``{x:num}`` (4 significant digits, :func:`~mipcore.plots.formatting.fmt_num`), ``{x:num3}``
(3), ``{x:pct}`` (a share in %, :func:`~mipcore.plots.formatting.fmt_pct`), ``{x:count}``
(a count with thin spaces), ``{x:text}`` (text from a link, an upload or a person: shown as
text, never as Markdown), ``{x}`` (the page's own words, as they are). A placeholder the page
does not fill, or a value it fills that no placeholder reads, raises ``KeyError`` (a test
draws every section).

Words several pages share -- a guarantee named in words (:mod:`appkit.guarantee_inputs`) --
are sections of the Markdown file beside the ``appkit`` module that writes them
(``appkit/guarantee_inputs.md``), filled the same way by :func:`shared`.
"""

from __future__ import annotations

import functools
import re
import string
from pathlib import Path
from typing import Any

import streamlit as st

from mipcore.plots.formatting import fmt_count, fmt_num, fmt_pct

from .registry import by_key
from .safe import plain

__all__ = ["prose", "say", "sections", "shared"]

_PAGES = Path(__file__).resolve().parents[1] / "app_pages"
_APPKIT = Path(__file__).resolve().parent
_MARK = re.compile(r"^<!--\s*([a-z0-9_]+)\s*-->\s*$", re.M)
_MATH = re.compile(r"^\$\$\s*\n(.*?)\n\$\$\s*$", re.S | re.M)
_BREAK = re.compile(r"^<!--\s*-->\s*$", re.M)  # ends one Markdown element, starts the next


@functools.cache
def sections(name: str) -> dict[str, list[tuple[str, str]]]:
    """The sections of ``app_pages/<name>.md``: for each, its parts in order, each
    ``("markdown", text)`` or ``("latex", formula)``.

    Raises
    ------
    KeyError
        If a section name appears twice.
    FileNotFoundError
        If the page has no Markdown file.
    """
    return _parse(_PAGES / f"{name}.md")


@functools.cache
def _shared_sections(module: str) -> dict[str, list[tuple[str, str]]]:
    """The sections of ``appkit/<module>.md`` (see :func:`sections`)."""
    return _parse(_APPKIT / f"{module}.md")


def _parse(path: Path) -> dict[str, list[tuple[str, str]]]:
    text = path.read_text(encoding="utf-8")
    marks = list(_MARK.finditer(text))
    out: dict[str, list[tuple[str, str]]] = {}
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        body = text[mark.end() : following.start() if following else len(text)]
        if mark[1] in out:
            raise KeyError(f"{path.parent.name}/{path.name} has two sections named {mark[1]!r}")
        parts: list[tuple[str, str]] = []
        last = 0
        for math in _MATH.finditer(body):
            parts += [("markdown", s) for s in _BREAK.split(body[last : math.start()])]
            parts.append(("latex", math[1].strip()))
            last = math.end()
        parts += [("markdown", s) for s in _BREAK.split(body[last:])]
        out[mark[1]] = [(kind, s.strip()) for kind, s in parts if s.strip()]
    return out


@functools.lru_cache(maxsize=4096)  # one entry per section of the pages' files
def text(page_key: str, section: str) -> str:
    """Section ``section`` of page ``page_key`` as one Markdown string (for a section with no
    formula, e.g. to hand to :func:`appkit.explain` or :func:`appkit.takeaway`). Read once per
    section: a press on a page fills dozens of sentences."""
    parts = sections(_script_name(page_key))[section]
    if any(kind == "latex" for kind, _ in parts):
        raise ValueError(f"section {section!r} of page {page_key!r} holds formulas: use prose()")
    return "\n\n".join(s for _, s in parts)


def prose(page_key: str, section: str, **values: Any) -> None:
    """Draw section ``section`` of page ``page_key``'s Markdown file, its placeholders filled
    with ``values`` (see :func:`say`) when given."""
    for kind, s in sections(_script_name(page_key))[section]:
        if kind == "latex":
            st.latex(s)
        else:
            st.markdown(_fill(s, values) if values else s)


class _Numbers(string.Formatter):
    """``{x:num}``, ``{x:num3}``, ``{x:pct}``, ``{x:count}``, ``{x:text}``: the app's one
    rounding rule and safe text; any other format as Python's."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec.startswith("num"):
            return fmt_num(value, int(format_spec[3:] or 4))
        if format_spec.startswith("pct"):
            return fmt_pct(value, int(format_spec[3:] or 1))
        if format_spec == "count":
            return fmt_count(value)
        if format_spec == "text":
            return plain(str(value))
        return super().format_field(value, format_spec)


_FORMATTER = _Numbers()


def placeholders(template: str) -> set[str]:
    """The names a template reads: ``{eta:num}`` reads ``eta``, ``{row.low:num}`` reads
    ``row`` (a result's field, through the placeholder itself)."""
    return set(_placeholders(template))


@functools.lru_cache(maxsize=4096)  # templates come from the pages' files: a few hundred
def _placeholders(template: str) -> frozenset[str]:
    found = {name for _, name, _, _ in _FORMATTER.parse(template) if name}
    return frozenset(re.split(r"[.\[]", name, maxsplit=1)[0] for name in found)


def _fill(template: str, values: dict[str, Any]) -> str:
    wanted = _placeholders(template)
    unused = set(values) - wanted
    if unused:
        raise KeyError(f"values {sorted(unused)} fill no placeholder of {template[:60]!r}…")
    return _FORMATTER.vformat(template, (), values)


def say(page_key: str, section: str, **values: Any) -> str:
    """Section ``section`` of page ``page_key`` as one Markdown string, its placeholders
    filled with ``values``: a sentence that carries numbers, for :func:`appkit.takeaway`,
    ``st.caption``, a metric's help.

    Raises
    ------
    KeyError
        If a placeholder has no value, or a value no placeholder.
    """
    return _fill(text(page_key, section), values)


def shared(module: str, section: str, **values: Any) -> str:
    """Section ``section`` of ``appkit/<module>.md`` -- words several pages share -- as one
    Markdown string, its placeholders filled with ``values`` as :func:`say` fills them.

    Raises
    ------
    KeyError
        If a placeholder has no value, or a value no placeholder.
    """
    parts = _shared_sections(module)[section]
    return _fill("\n\n".join(s for _, s in parts), values)


def _script_name(page_key: str) -> str:
    """The name of the page's Markdown file: its script's, or for the home page (a function of
    app.py, no script) its key: ``app_pages/home.md``."""
    script = by_key(page_key).script
    return page_key if script is None else Path(script).stem
