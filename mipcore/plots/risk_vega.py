"""The icon array -- members and non-members, and whom the best attacker calls a member --
drawn by Vega-Lite, on the page and in its exports.

The page "What does ε mean for the people in my data?" redraws its two icon arrays on every
step of its sliders; drawn by Vega-Lite they are updated in place (see
:mod:`mipcore.plots.vega`). The people, their groups and the table are
:func:`mipcore.plots.risk_figs.icon_array_table`'s. The same specification makes the exports:
:func:`chart_svg` (the HTML summary's inline pictures) and :func:`chart_png` (PNG files), by
``vl-convert`` -- no browser on the server.

**100 people** are drawn one icon each: members are vermillion circles, non-members blue
squares (shape and colour), and whom the attacker calls a member is filled, the others are
outlines; each icon's tooltip says who the person is and what the attacker does.
**1 000 or 10 000 people** (a picture large enough that its counts are true; see
:func:`mipcore.risk.icon_array`) are drawn as a grid of cells, one cell per person, row by
row: members first, in vermillion, then non-members in blue; whom the attacker calls a member
is a dark cell, the others pale. Each group is drawn as at most three rectangles (its part of
a first row, its whole rows, its part of a last row) under white grid lines, so 10 000 people
cost a few dozen marks, not 10 000 (the SVG stays small). The specification depends on the
view, the title and the population, not on the counts, so a new ε only changes the tables.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from . import style
from .risk_figs import _COLUMNS, _HOVER, _NAMES, IconPicture, IconView, icon_array_table
from .vega import AUTOSIZE, PADDING, VegaLiteChart, config

__all__ = [
    "chart_png",
    "chart_spec",
    "chart_svg",
    "grid_columns",
    "icon_array_vega",
    "picture_chart",
    "picture_png",
    "picture_svg",
]

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

    Same arguments and checks as :func:`mipcore.plots.risk_figs.icon_array_table` (at most
    10 000 people); the table is its table (``person, row, column, member, called_member,
    group``; above 100 people, rows and columns of the grid of :func:`grid_columns`).
    """
    view = IconView(view)
    total = int(members) + int(non_members)
    columns = grid_columns(total)
    table = icon_array_table(
        members, non_members, called_members, called_non_members, view=view, columns=columns
    )
    names = list(_NAMES[view])
    rows = int(table["row"].max())
    spec: dict[str, Any] = {
        "width": "container",
        "padding": dict(PADDING),
        "autosize": dict(AUTOSIZE),
        "config": config(),
    }
    if title:
        spec["title"] = title

    def by_group(channel_range: list[Any], legend: bool = True) -> dict[str, Any]:
        return {
            "field": "group",
            "type": "nominal",
            "scale": {"domain": names, "range": channel_range},
            "legend": (
                {"title": None, "symbolSize": 220, "symbolStrokeWidth": 2.5} if legend else None
            ),
        }

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
        layer: dict[str, Any] = {
            "data": {"name": "people"},
            "mark": {"type": "point", "strokeWidth": 3, "opacity": 1, "size": 520},
            "encoding": {
                "x": _cells("x", _COLUMNS),
                "y": _cells("y", rows, down=True),
                "shape": by_group(["circle", "circle", "square", "square"]),
                "stroke": by_group(
                    [style.MIP.colour, style.MIP.colour, style.DP.colour, style.DP.colour]
                ),
                "fill": by_group([style.MIP.colour, "#ffffff", style.DP.colour, "#ffffff"]),
                "tooltip": [{"field": "who", "type": "nominal", "title": "who"}],
            },
        }
        spec.update(height=_STEP * rows, layer=[layer])
        return VegaLiteChart(spec=spec, datasets={"people": people}, title=title or ""), table

    sizes = [int(s) for s in table.groupby("group", sort=False).size().reindex(names).fillna(0)]
    runs = _runs(sizes, names, columns)
    runs["people"] = runs["group"].map(dict(zip(names, sizes, strict=True)))
    rows_total = -(-total // columns)
    lines = pd.DataFrame(
        [dict(x=float(c), x2=float(c), y=0.0, y2=float(rows_total)) for c in range(columns + 1)]
        + [dict(x=0.0, x2=float(columns), y=float(r), y2=float(r)) for r in range(rows_total + 1)]
    )
    colours = [
        style.MIP.colour,
        _PALE["member"],
        style.DP.colour,
        _PALE["non-member"],
    ]
    blocks = {
        "data": {"name": "runs"},
        "mark": {"type": "rect", "stroke": None},
        "encoding": {
            "x": _cells("x", columns, edges=True),
            "x2": {"field": "x2"},
            "y": _cells("y", rows_total, edges=True, down=True),
            "y2": {"field": "y2"},
            "fill": by_group(colours),
            "tooltip": [
                {"field": "group", "type": "nominal", "title": "who"},
                {"field": "people", "type": "quantitative", "title": "people"},
            ],
        },
    }
    grid = {
        "data": {"name": "lines"},
        "mark": {"type": "rule", "color": "#ffffff", "strokeWidth": 1 if total > 1_000 else 1.5},
        "encoding": {
            "x": {"field": "x", "type": "quantitative"},
            "x2": {"field": "x2"},
            "y": {"field": "y", "type": "quantitative"},
            "y2": {"field": "y2"},
        },
    }
    spec.update(height=_GRID_HEIGHT[1_000 if total <= 1_000 else 10_000], layer=[blocks, grid])
    chart = VegaLiteChart(spec=spec, datasets={"runs": runs, "lines": lines}, title=title or "")
    return chart, table


def _cells(field: str, n: int, *, edges: bool = False, down: bool = False) -> dict[str, Any]:
    """A hidden position channel over ``n`` cells: centres at 0 … n − 1 (icons), or edges
    0 … n (grid cells); ``down``: the first row at the top."""
    domain = [0, n] if edges else [-0.6, n - 0.4]
    return {
        "field": field,
        "type": "quantitative",
        "scale": {"domain": domain[::-1] if down else domain, "nice": False, "zero": False},
        "title": None,
        "axis": None,
    }


def chart_spec(chart: VegaLiteChart, *, width: int = 640) -> dict[str, Any]:
    """A self-contained Vega-Lite specification of ``chart``: its tables inlined as
    ``datasets`` and a fixed ``width`` in px (an export has no container to fit)."""
    if not 100 <= int(width) <= 4000:
        raise ValueError(f"width={width!r} must be a whole number of pixels in 100-4000")
    spec = {**chart.spec, "width": int(width)}
    spec["autosize"] = {"type": "pad", "contains": "padding"}
    datasets = {name: table.to_dict(orient="records") for name, table in chart.datasets.items()}
    if chart.data is not None:
        spec["data"] = {"values": chart.data.to_dict(orient="records")}
    if datasets:
        spec["datasets"] = datasets
    return spec


def chart_svg(chart: VegaLiteChart, *, width: int = 640) -> str:
    """``chart`` as an SVG document, drawn by ``vl-convert`` (no browser).

    Raises
    ------
    ValueError
        If ``vl-convert-python`` is not installed, or cannot draw the chart (the message says).
    """
    vlc = _vl_convert()
    try:
        return str(vlc.vegalite_to_svg(chart_spec(chart, width=width)))
    except Exception as exc:  # vl-convert's own errors: say so, as a ValueError
        raise ValueError(f"the picture could not be drawn ({type(exc).__name__}: {exc})") from None


def chart_png(chart: VegaLiteChart, *, width: int = 640, scale: float = 2.0) -> bytes:
    """``chart`` as a PNG file (``scale`` × its size in px), drawn by ``vl-convert``.

    Raises
    ------
    ValueError
        If ``scale`` is outside 0.5–4, ``vl-convert-python`` is not installed, or it cannot
        draw the chart.
    """
    if not 0.5 <= float(scale) <= 4.0:
        raise ValueError(f"scale={scale!r} must be in 0.5-4")
    vlc = _vl_convert()
    try:
        return bytes(vlc.vegalite_to_png(chart_spec(chart, width=width), scale=float(scale)))
    except Exception as exc:
        raise ValueError(f"the picture could not be drawn ({type(exc).__name__}: {exc})") from None


def _vl_convert() -> Any:
    try:
        import vl_convert
    except ImportError:
        raise ValueError(
            "pictures for export need the vl-convert-python package on the server "
            "(pip install vl-convert-python)"
        ) from None
    return vl_convert


def picture_chart(picture: IconPicture) -> VegaLiteChart:
    """The chart of :func:`icon_array_vega` for one :class:`IconPicture`."""
    chart, _ = icon_array_vega(
        picture.members,
        picture.non_members,
        picture.called_members,
        picture.called_non_members,
        view=picture.view,
        title=picture.title,
    )
    return chart


def picture_svg(picture: IconPicture) -> str:
    """One picture as an SVG document (:func:`chart_svg`)."""
    return chart_svg(picture_chart(picture))


def picture_png(picture: IconPicture) -> bytes:
    """One picture as a PNG file (:func:`chart_png`, 1280 px wide)."""
    return chart_png(picture_chart(picture))
