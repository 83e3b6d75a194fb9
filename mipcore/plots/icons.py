"""The icon array, written once in Altair: people as icons -- members and non-members, and
whom an attacker calls a member -- on the page and in its exports.

For the page "What does ε mean for the people in my data?", from the counts of
:func:`mipcore.risk.icon_array`.
:func:`icon_array_table` lays the people out row by row from the top left: members called
members, members missed, non-members wrongly accused, non-members left alone; the legend's
and the tooltips' wording per :class:`IconView`. The page redraws its two icon arrays on every
step of its sliders; like every chart concept (:mod:`mipcore.plots.curves`), the
specification is built once per look in the app's one bounded cache
(:data:`mipcore.plots.vega.SPEC_MEMO`) and its layers read named datasets, so a new ε only
changes the tables and the chart is redrawn in place. The same specification makes the
exports: :func:`picture_svg` (the HTML summary's inline pictures) and :func:`picture_png` (PNG
files), through :func:`mipcore.plots.vega.chart_svg` and :func:`~mipcore.plots.vega.chart_png`
-- no browser on the server -- and :func:`summary_html` the one-page, standalone HTML summary a
page offers for download (its pictures inline SVG, so it opens offline and stays small; every
given string HTML-escaped).

**100 people** are drawn one icon each: members are vermillion circles, non-members blue
squares (shape and colour), and whom the attacker calls a member is filled, the others are
outlines; each icon's tooltip says who the person is and what the attacker does.
**1 000 or 10 000 people** (a picture large enough that its counts are true; see
:func:`mipcore.risk.icon_array`) are drawn as a grid of cells, one cell per person, row by
row: members first, in vermillion, then non-members in blue; whom the attacker calls a member
is a dark cell, the others pale. Each group is drawn as at most three rectangles (its part of
a first row, its whole rows, its part of a last row) under white grid lines, so 10 000 people
cost a few dozen marks, not 10 000 (the SVG stays small). The look -- the view, the title and
the grid's size -- never includes the counts.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from . import curves, distributions, style
from .vega import VegaLiteChart, chart_png, chart_svg

__all__ = [
    "IconPicture",
    "IconView",
    "grid_columns",
    "icon_array_table",
    "icon_array_vega",
    "picture_chart",
    "picture_png",
    "picture_svg",
    "picture_vega",
    "summary_html",
]

_COLUMNS = 10


class IconView(StrEnum):
    """What the filled icons mean."""

    ACCURACY = "accuracy"  # the best attacker's answer for each person (right or wrong)
    NAMING = "naming"  # whom an attacker names while capping its false accusations


_NAMES = {
    IconView.ACCURACY: (
        "member, called a member (right)",
        "member, missed (wrong)",
        "non-member, called a member (wrong)",
        "non-member, called a non-member (right)",
    ),
    IconView.NAMING: (
        "member, named",
        "member, not named",
        "non-member, wrongly accused",
        "non-member, not accused",
    ),
}
_HOVER = {
    IconView.ACCURACY: (
        "a member; the attacker says “member” (right)",
        "a member; the attacker says “not a member” (wrong)",
        "not a member; the attacker says “member” (wrong)",
        "not a member; the attacker says “not a member” (right)",
    ),
    IconView.NAMING: (
        "a member; the attacker names them",
        "a member; the attacker does not name them",
        "not a member; the attacker wrongly accuses them",
        "not a member; the attacker leaves them alone",
    ),
}


def icon_array_table(
    members: int,
    non_members: int,
    called_members: int,
    called_non_members: int,
    *,
    view: IconView = IconView.ACCURACY,
    columns: int = _COLUMNS,
) -> pd.DataFrame:
    """The people of an icon array, one row each: ``person`` (1-based), ``row``, ``column``,
    ``member``, ``called_member``, ``group`` (the legend's label in ``view``'s wording).

    People are laid out row by row, ``columns`` per row (10 by default, 1-200), in four groups: members called members,
    members not called, non-members called members, non-members not called.

    Raises
    ------
    ValueError
        If a count is negative or not whole, a called count exceeds its group, or the number
        of people is not between 1 and 10 000.
    """
    counts = {
        "members": members,
        "non_members": non_members,
        "called_members": called_members,
        "called_non_members": called_non_members,
    }
    for name, value in counts.items():
        if isinstance(value, bool) or int(value) != value or value < 0:
            raise ValueError(f"{name}={value!r} must be a whole number >= 0")
    total = members + non_members
    if not 1 <= total <= 10_000:
        raise ValueError(f"members + non_members = {total} must be between 1 and 10000")
    if called_members > members:
        raise ValueError(f"called_members={called_members} exceeds members={members}")
    if called_non_members > non_members:
        raise ValueError(
            f"called_non_members={called_non_members} exceeds non_members={non_members}"
        )
    if isinstance(columns, bool) or int(columns) != columns or not 1 <= columns <= 200:
        raise ValueError(f"columns={columns!r} must be a whole number in 1-200")
    view = IconView(view)
    sizes = [
        int(called_members),
        int(members - called_members),
        int(called_non_members),
        int(non_members - called_non_members),
    ]
    index = np.arange(int(total))
    group = np.repeat(np.arange(4), sizes)
    return pd.DataFrame(
        {
            "person": index + 1,
            "row": index // int(columns) + 1,
            "column": index % int(columns) + 1,
            "member": group < 2,
            "called_member": group % 2 == 0,
            "group": np.asarray(_NAMES[view], dtype=object)[group],
        }
    )


@dataclass(frozen=True)
class IconPicture:
    """The arguments of :func:`icon_array_vega` for one picture
    (hashable: a cache key or a job's input)."""

    members: int
    non_members: int
    called_members: int
    called_non_members: int
    view: IconView = IconView.ACCURACY
    title: str | None = None


_STEP = 34  # px per person, across and down (100 people)
#: Columns of the grid for a population above 100 (40 × 25 for 1 000, 100 × 100 for 10 000).
_GRID_COLUMNS = {1_000: 40, 10_000: 100}
_GRID_HEIGHT = {1_000: 400, 10_000: 600}
_PALE = {"member": "#f3c3a6", "non-member": "#b9d7ee"}


def grid_columns(people: int) -> int:
    """Columns of the picture for ``people`` people: 10 up to 100 people, 40 up to 1 000,
    else 100."""
    if people <= 100:
        return _COLUMNS
    return 40 if people <= 1_000 else 100


def _runs(sizes: list[int], names: list[str], columns: int) -> pd.DataFrame:
    """Each group's cells (laid out row by row, groups one after another) as at most three
    rectangles: ``group, x, x2, y, y2`` in cell units (y down)."""
    rows: list[dict[str, Any]] = []
    start = 0
    for name, size in zip(names, sizes, strict=True):
        end = start + size  # cells [start, end)
        a = start
        while a < end:
            r, c = divmod(a, columns)
            if c == 0 and end - a >= columns:  # whole rows
                full = (end - a) // columns
                rows.append(dict(group=name, x=0, x2=columns, y=r, y2=r + full))
                a += full * columns
            else:  # part of a row
                b = min(end, (r + 1) * columns)
                rows.append(dict(group=name, x=c, x2=c + (b - a), y=r, y2=r + 1))
                a = b
        start = end
    return pd.DataFrame(rows, columns=["group", "x", "x2", "y", "y2"])


def icon_array_vega(
    members: int,
    non_members: int,
    called_members: int,
    called_non_members: int,
    *,
    view: IconView = IconView.ACCURACY,
    title: str | None = None,
) -> tuple[VegaLiteChart, pd.DataFrame]:
    """An icon array of ``members + non_members`` people and the table it draws.

    Same arguments and checks as :func:`icon_array_table` (at most
    10 000 people); the table is its table (``person, row, column, member, called_member,
    group``; above 100 people, rows and columns of the grid of :func:`grid_columns`). The
    specification depends on ``view``, ``title`` and the grid's size only (its columns and
    rows), never on the counts: the datasets are "people" (100 people at most) or "runs" and
    "lines" (the grid's rectangles and its white lines).
    """
    view = IconView(view)
    total = int(members) + int(non_members)
    columns = grid_columns(total)
    table = icon_array_table(
        members, non_members, called_members, called_non_members, view=view, columns=columns
    )
    names = list(_NAMES[view])
    rows = int(table["row"].max())
    if total <= 100:
        hover = dict(zip(names, _HOVER[view], strict=True))
        people = table.assign(
            x=table["column"] - 1,
            y=table["row"] - 1,
            who=[
                f"Person {p}: {hover[g]}"
                for p, g in zip(table["person"], table["group"], strict=True)
            ],
        )[["x", "y", "group", "who"]]
        chart = curves.chart(
            title or "", {"people": people}, _icons, view, rows, height=_STEP * rows
        )
    else:
        sizes = [int(s) for s in table.groupby("group", sort=False).size().reindex(names).fillna(0)]
        runs = _runs(sizes, names, columns)
        runs["people"] = runs["group"].map(dict(zip(names, sizes, strict=True)))
        lines = pd.DataFrame(
            [dict(x=float(c), x2=float(c), y=0.0, y2=float(rows)) for c in range(columns + 1)]
            + [dict(x=0.0, x2=float(columns), y=float(r), y2=float(r)) for r in range(rows + 1)]
        )
        height = _GRID_HEIGHT[1_000 if total <= 1_000 else 10_000]
        datasets = {"runs": runs, "lines": lines}
        chart = curves.chart(
            title or "", datasets, _grid, view, columns, rows, total > 1_000, height=height
        )
    if not title:
        chart.spec.pop("title")  # no title line at all (Altair writes an empty one)
    return chart, table


def _cells(
    channel: type[alt.X] | type[alt.Y],
    field: str,
    n: int,
    *,
    edges: bool = False,
    down: bool = False,
) -> Any:
    """A hidden position channel (``alt.X``/``alt.Y``) of ``field`` over ``n`` cells: centres
    at 0 … n − 1 (icons), or edges 0 … n (grid cells); ``down``: the first row at the top."""
    domain = [0, n] if edges else [-0.6, n - 0.4]
    return channel(
        field,
        type="quantitative",
        scale=alt.Scale(domain=domain[::-1] if down else domain, nice=False, zero=False),
        title=None,
        axis=None,
    )


def _by_group(channel: Any, view: IconView, values: list[Any]) -> Any:
    """The ``channel`` (shape, stroke, fill) of the people's groups in ``view``'s wording, one
    value per group, all sharing the one legend of the four groups."""
    shown = alt.Legend(title=None, symbolSize=220, symbolStrokeWidth=2.5)
    return curves.by(channel, "group", dict(zip(_NAMES[view], values, strict=True)), shown)


def _icons(view: IconView, rows: int) -> list[Any]:
    """Up to 100 people in ``rows`` rows of ten: one icon each, members circles and
    non-members squares, filled where the attacker calls them members."""
    mip, dp, white = style.MIP.colour, style.DP.colour, "#ffffff"
    icon = curves.dataset("people").mark_point(strokeWidth=3, opacity=1, size=520)
    return [
        icon.encode(
            x=_cells(alt.X, "x", _COLUMNS),
            y=_cells(alt.Y, "y", rows, down=True),
            shape=_by_group(alt.Shape, view, ["circle", "circle", "square", "square"]),
            stroke=_by_group(alt.Stroke, view, [mip, mip, dp, dp]),
            fill=_by_group(alt.Fill, view, [mip, white, dp, white]),
            tooltip=[alt.Tooltip("who", type="nominal", title="who")],
        )
    ]


def _grid(view: IconView, columns: int, rows: int, thin: bool) -> list[Any]:
    """A grid of ``columns`` × ``rows`` cells: each group's rectangles (dataset "runs"), dark
    where the attacker calls them members, pale where not, under white grid lines (dataset
    "lines"; ``thin``: 1 px, else 1.5 px)."""
    colours = [style.MIP.colour, _PALE["member"], style.DP.colour, _PALE["non-member"]]
    x, y = _cells(alt.X, "x", columns, edges=True), _cells(alt.Y, "y", rows, edges=True, down=True)
    blocks = distributions.bins("runs", x, "x2", y, "y2", stroke=None).encode(
        fill=_by_group(alt.Fill, view, colours),
        tooltip=[
            alt.Tooltip("group", type="nominal", title="who"),
            alt.Tooltip("people", type="quantitative", title="people"),
        ],
    )
    lines = (
        curves.dataset("lines")
        .mark_rule(color="#ffffff", strokeWidth=1 if thin else 1.5)
        .encode(
            x=alt.X("x", type="quantitative"),
            x2=alt.X2("x2"),
            y=alt.Y("y", type="quantitative"),
            y2=alt.Y2("y2"),
        )
    )
    return [blocks, lines]


def picture_vega(p: IconPicture) -> tuple[VegaLiteChart, pd.DataFrame]:
    """:func:`icon_array_vega` of one :class:`IconPicture`: its chart and table."""
    counts = (p.members, p.non_members, p.called_members, p.called_non_members)
    return icon_array_vega(*counts, view=p.view, title=p.title)


def picture_chart(picture: IconPicture) -> VegaLiteChart:
    """The chart of :func:`icon_array_vega` for one :class:`IconPicture`."""
    return picture_vega(picture)[0]


def picture_svg(picture: IconPicture) -> str:
    """One picture as an SVG document (:func:`chart_svg`)."""
    return chart_svg(picture_chart(picture))


def picture_png(picture: IconPicture) -> bytes:
    """One picture as a PNG file (:func:`chart_png`, 1280 px wide)."""
    return chart_png(picture_chart(picture))


_CSS = """
body { font-family: "Source Sans Pro", Helvetica, Arial, sans-serif; color: #1a1a1a;
       max-width: 860px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
li { margin: 0.35em 0; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #b0b0b0; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
.small { font-size: 0.9em; color: #4a4f55; }
a { color: #0b5394; word-break: break-all; }
figure.chart { margin: 1em 0; } figure.chart svg { max-width: 100%; height: auto; }
"""


def summary_html(
    *,
    title: str,
    sentences: Sequence[str],
    url: str,
    figures: Sequence[str] = (),
    table_header: Sequence[str] = (),
    table_rows: Sequence[Sequence[str]] = (),
    notes: Sequence[str] = (),
) -> str:
    """A one-page standalone HTML summary: title, sentences, figures, a table, the view's URL.

    Parameters
    ----------
    title : the page's heading (and the document title).
    sentences : plain-text sentences, shown as a list.
    url : the address that recreates the view; a link when it is an ``http(s)`` URL, else
        plain text.
    figures : the pictures as SVG documents (``<svg …>…</svg>``, e.g. from
        :func:`picture_svg`), inlined: no script, no network, a few tens of KB each. A figure
        that is not an SVG without script is refused.
    table_header, table_rows : an optional table of plain-text cells.
    notes : plain-text lines in small print at the end (sources, rounding).

    Returns
    -------
    str
        A complete HTML document. Every given string is HTML-escaped (quotes too): text from a
        crafted URL cannot add markup or script to the file.

    Raises
    ------
    ValueError
        If a figure is not an SVG document, or holds a script or an event handler.
    """
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
    ]
    if sentences:
        parts.append("<ul>" + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>")
    for i, svg in enumerate(figures):
        text = svg.strip()
        if text.startswith("<?xml"):
            text = text[text.index("?>") + 2 :].strip()
        if not text.startswith("<svg") or re.search(r"<script|\son[a-z]+\s*=", text, re.I):
            raise ValueError(f"figures[{i}] is not an SVG picture without script")
        parts.append(f'<figure class="chart" id="mip-figure-{i + 1}">{text}</figure>')
    if table_rows:
        head = "".join(f"<th>{esc(h)}</th>" for h in table_header)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in table_rows
        )
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    shown = esc(url)
    if url.startswith(("https://", "http://")):
        link = f'<a href="{esc(url, quote=True)}">{shown}</a>'
    else:
        link = f"<code>{shown or '(this page with its default settings)'}</code>"
    parts.append(f'<h2>Recreate this view</h2><p class="small">{link}</p>')
    parts.extend(f'<p class="small">{esc(n)}</p>' for n in notes)
    parts.append("</body></html>")
    return "\n".join(parts)
