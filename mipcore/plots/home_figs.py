"""The home page's picture: the best attacker's accuracy between a coin flip and certainty."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from . import style

__all__ = ["accuracy_bars"]


def accuracy_bars(accuracy: float, guarantee: str) -> tuple[go.Figure, pd.DataFrame]:
    """Three bars: a blind guess (50 %), the best attacker under ``guarantee`` (``accuracy``),
    and a perfect attacker (100 %); and the table they draw.

    ``accuracy`` is in [1/2, 1]; ``guarantee`` names the guarantee in the bar's label
    (e.g. "ε = 1").
    """
    names = ["Blind guess", f"Best possible attacker under {guarantee}", "Perfect attacker"]
    values = [0.5, float(accuracy), 1.0]
    colours = [style.GREY, style.MIP.colour, "#ffffff"]
    fig = go.Figure(
        data=[
            dict(
                type="bar",
                x=[100 * v for v in values],
                y=names,
                orientation="h",
                marker=dict(color=colours, line=dict(color=style.INK, width=1.5)),
                text=[f"{100 * v:.1f} %" for v in values],
                textposition="outside",
                textfont=dict(size=15, color=style.INK),
                cliponaxis=False,
                hovertemplate="%{y}: %{x:.2f} %<extra></extra>",
            )
        ],
        layout=style.layout(
            title="How often can an attacker be right about membership?",
            x="accuracy (%)",
            height=300,
            xaxis=dict(range=[0, 124], tickvals=[0, 25, 50, 75, 100]),
            yaxis=dict(autorange="reversed"),
            showlegend=False,
            shapes=[
                dict(
                    type="line",
                    x0=50,
                    x1=50,
                    y0=0,
                    y1=1,
                    yref="paper",
                    line=dict(dash="dot", color=style.GREY, width=2),
                )
            ],
        ),
    )
    data = pd.DataFrame({"who": names, "accuracy": values})
    return fig, data
