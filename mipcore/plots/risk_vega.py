"""The icon array of :mod:`mipcore.plots.risk_figs`, drawn by Vega-Lite.

The page "What does ε mean for the people in my data?" redraws its two icon arrays on every
step of its sliders; drawn by Vega-Lite they are updated in place (see
:mod:`mipcore.plots.vega`). The people, their groups and the table are
:func:`mipcore.plots.risk_figs.icon_array_table`'s; the PNG export of the meeting summary
keeps the Plotly pictures.

The same cues: **members are vermillion circles, non-members blue squares** (shape and
colour), and **whom the attacker calls a member is filled**, the others are outlines; each of
the four groups is a legend entry, and each icon's tooltip says who the person is and what the
attacker does. The specification depends on the view, the title and the number of rows of
people, not on the counts, so a new ε only changes the table.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from . import style
from .risk_figs import _COLUMNS, _HOVER, _NAMES, IconView, icon_array_table
from .vega import AUTOSIZE, PADDING, VegaLiteChart, config

__all__ = ["icon_array_vega"]

_STEP = 34  # px per person, across and down


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

    Same arguments and checks as :func:`mipcore.plots.risk_figs.icon_array_figure`; the table
    is :func:`~mipcore.plots.risk_figs.icon_array_table`'s (``person, row, column, member,
    called_member, group``).
    """
    view = IconView(view)
    table = icon_array_table(members, non_members, called_members, called_non_members, view=view)
    names = list(_NAMES[view])
    hover = dict(zip(names, _HOVER[view], strict=True))
    rows = int(table["row"].max())
    people = table.assign(
        x=table["column"] - 1,
        y=table["row"] - 1,
        who=[
            f"Person {p}: {hover[g]}" for p, g in zip(table["person"], table["group"], strict=True)
        ],
    )[["x", "y", "group", "who"]]
    size = 520 if rows <= 10 else max(16, int(520 * (10 / rows) ** 2))

    def by_group(channel_range: list[Any]) -> dict[str, Any]:
        return {
            "field": "group",
            "type": "nominal",
            "scale": {"domain": names, "range": channel_range},
            "legend": {"title": None, "symbolSize": 220, "symbolStrokeWidth": 2.5},
        }

    hidden = {"title": None, "axis": None}
    layer: dict[str, Any] = {
        "data": {"name": "people"},
        "mark": {"type": "point", "strokeWidth": 3, "opacity": 1, "size": size},
        "encoding": {
            "x": {
                "field": "x",
                "type": "quantitative",
                "scale": {"domain": [-0.6, _COLUMNS - 0.4], "nice": False},
                **hidden,
            },
            "y": {
                "field": "y",
                "type": "quantitative",
                "scale": {"domain": [rows - 0.4, -0.6], "nice": False},
                **hidden,
            },
            "shape": by_group(["circle", "circle", "square", "square"]),
            "stroke": by_group(
                [style.MIP.colour, style.MIP.colour, style.DP.colour, style.DP.colour]
            ),
            "fill": by_group([style.MIP.colour, "#ffffff", style.DP.colour, "#ffffff"]),
            "tooltip": [{"field": "who", "type": "nominal", "title": "who"}],
        },
    }
    spec: dict[str, Any] = {
        "width": "container",
        "height": _STEP * rows,
        "padding": dict(PADDING),
        "autosize": dict(AUTOSIZE),
        "layer": [layer],
        "config": config(),
    }
    if title:
        spec["title"] = title
    chart = VegaLiteChart(spec=spec, datasets={"people": people}, title=title or "")
    return chart, table
