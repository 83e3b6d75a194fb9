"""The home page's picture: the best attacker's accuracy between a coin flip and certainty.

The home page is the first page every visitor opens and its chart follows the slider on every
step. Its specification never names the guarantee or the accuracy (the bars take their
colours in the table's order), so a new ε only changes the table and the chart is redrawn in
place. It is the one chart written as a dictionary, not in Altair like the chart concepts
(:mod:`mipcore.plots.curves`): Altair's import (about 0.3-0.4 s) would otherwise land on the
first page a server process draws; the app imports Altair in the background after that page.
"""

from __future__ import annotations

import pandas as pd

from . import style
from .vega import AUTOSIZE, PADDING, VegaLiteChart, config

__all__ = ["accuracy_bars"]

TITLE = "How often can an attacker be right about membership?"


def accuracy_bars(accuracy: float, guarantee: str) -> tuple[VegaLiteChart, pd.DataFrame]:
    """Three bars: a blind guess (50 %), the best attacker under ``guarantee`` (``accuracy``),
    and a perfect attacker (100 %); and the table they draw (``who``, ``accuracy`` in [0, 1]).

    ``accuracy`` is in [1/2, 1]; ``guarantee`` names the guarantee in the bar's label
    (e.g. "ε = 1"). The bars differ by more than colour: grey, the MIP colour and white, each
    with a black outline, and each labelled with its value.
    """
    acc = float(accuracy)
    if not 0.5 <= acc <= 1.0:
        raise ValueError(f"accuracy must be in [0.5, 1], got {accuracy!r}")
    names = ["Blind guess", f"Best possible attacker under {guarantee}", "Perfect attacker"]
    data = pd.DataFrame({"who": names, "accuracy": [0.5, acc, 1.0]})
    y = {"field": "who", "type": "nominal", "sort": None, "title": None}
    x = {
        "field": "percent",
        "type": "quantitative",
        "title": "accuracy (%)",
        "scale": {"domain": [0, 124]},
        "axis": {"values": [0, 25, 50, 75, 100], "grid": True},
    }
    spec = {
        "title": TITLE,
        "width": "container",
        "height": {"step": 52},
        "padding": dict(PADDING),
        "autosize": dict(AUTOSIZE),
        "transform": [
            {"calculate": "100 * datum.accuracy", "as": "percent"},
            {"calculate": "format(100 * datum.accuracy, '.1f') + ' %'", "as": "label"},
        ],
        "layer": [
            {
                "mark": {"type": "bar", "stroke": style.INK, "strokeWidth": 1.5, "height": 30},
                "encoding": {
                    "y": y,
                    "x": x,
                    "color": {  # in the table's order: no name in the specification
                        "field": "who",
                        "type": "nominal",
                        "sort": None,
                        "scale": {"range": [style.GREY, style.MIP.colour, "#ffffff"]},
                        "legend": None,
                    },
                    "tooltip": [
                        {"field": "who", "type": "nominal", "title": "who"},
                        {"field": "label", "type": "nominal", "title": "accuracy"},
                    ],
                },
            },
            {
                "mark": {"type": "text", "align": "left", "dx": 6, "fontSize": 15},
                "encoding": {"y": y, "x": x, "text": {"field": "label", "type": "nominal"}},
            },
            {
                "mark": {
                    "type": "rule",
                    "color": style.GREY,
                    "strokeWidth": 2,
                    "strokeDash": [2, 4],
                },
                "data": {"values": [{}]},  # one rule, not one per bar
                "encoding": {"x": {"datum": 50, "type": "quantitative"}},
            },
        ],
        "config": config(),
    }
    chart = VegaLiteChart(spec=spec, data=data, title=TITLE)
    return chart, data
