"""Small tables as Markdown: the lightest table a Streamlit page can show.

``st.dataframe`` loads about 1.3 MB of JavaScript (its data grid and Arrow formatting) on a
page's first load, and ``st.table`` still about 0.9 MB (measured in Chromium: the chunks a
page fetches beyond a bare one-slider page); a Markdown table loads nothing. For the dozen
rows of a summary, sorting and scrolling are not worth that. Every cell is shown as text
(:func:`appkit.safe.plain`), so a cell that came from a URL or an upload cannot become a
link, an image or a formula.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from .safe import plain

__all__ = ["help_list", "markdown_table", "show", "table"]

_MAX_CELL = 2000  # characters of one cell (plain() cuts longer text with "…")


def markdown_table(
    data: pd.DataFrame | Mapping[str, Sequence[Any]], *, right: Sequence[str] = ()
) -> str:
    """``data`` (a frame, or column name → values) as a GitHub-flavoured Markdown table,
    every header and cell escaped; the columns named in ``right`` are right-aligned
    (numbers).

    >>> print(markdown_table({"a": [1], "b|c": ["[x](y)"]}))
    | a | b\\|c |
    | :-- | :-- |
    | 1 | \\[x\\]\\(y\\) |
    """
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(dict(data))
    columns = [str(c) for c in frame.columns]
    if not columns:
        raise ValueError("data must have at least one column, got none")
    unknown = sorted(set(right) - set(columns))
    if unknown:
        raise ValueError(f"right={unknown!r} names columns that data does not have: {columns}")

    def cell(value: Any) -> str:
        text = "" if value is None or (isinstance(value, float) and value != value) else value
        return plain(text, max_chars=_MAX_CELL) or " "

    lines = [
        "| " + " | ".join(cell(c) for c in columns) + " |",
        "| " + " | ".join("--:" if c in right else ":--" for c in columns) + " |",
    ]
    for row in frame.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)


def help_list(columns_help: Mapping[str, str]) -> str:
    """Column → one sentence, as the Markdown list :func:`show` folds under a table."""
    return "\n".join(
        f"- **{plain(name)}**: {plain(text, max_chars=_MAX_CELL)}"
        for name, text in columns_help.items()
    )


def show(table_markdown: str, helps: str = "") -> None:
    """A table made by :func:`markdown_table`, and under it, folded away as "What the columns
    mean", ``helps`` (:func:`help_list`) if any: a page that keeps both strings draws the
    table again without building it."""
    st.markdown(table_markdown)
    if helps:
        with st.expander("What the columns mean"):
            st.markdown(helps)


def table(
    data: pd.DataFrame | Mapping[str, Sequence[Any]],
    *,
    right: Sequence[str] = (),
    columns_help: Mapping[str, str] | None = None,
) -> None:
    """Show ``data`` as a Markdown table (see :func:`markdown_table`); ``columns_help``
    (column → one sentence) is listed under it, folded away, as "What the columns mean"."""
    show(markdown_table(data, right=right), help_list(columns_help) if columns_help else "")
