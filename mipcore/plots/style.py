"""One chart style for the whole app: readable on a projector, colour-blind safe.

Every figure builder starts from :func:`layout` and draws MIP, DP, exact and measured curves
with :data:`MIP`, :data:`DP`, :data:`EXACT`, :data:`MEASURED` (and :data:`PRINTED` for a
paper's printed variant), so the same thing looks the same on every page.

* **Readable at 1024×768 and on a projector**: 15 px text, 14 px tick labels (log axes label
  only the powers of ten, never 9 px minor labels), 16 px axis titles, near-black ink
  (#1a1a1a on white, 17:1) -- everything above the WCAG AA 4.5:1 contrast.
* **Colour-blind safe, and not by colour alone**: the Okabe–Ito palette, and a second cue on
  every distinction that matters -- MIP is a solid line with circles, DP a dashed line with
  squares, the exact value a thick solid black line, a measurement dots with diamonds, a
  printed (wrong) variant dash-dot.
* **Legends below the plot**, in rows: they never take the chart's width on a narrow screen
  and never overlap an axis title.
* **Cheap to build**: no Plotly template (a named template costs ~30 ms of validation per
  figure); the layout sets every property explicitly.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DP",
    "EXACT",
    "GREY",
    "INK",
    "MEASURED",
    "MIP",
    "PRINTED",
    "SEQUENCE",
    "dashes",
    "layout",
    "line",
    "log_axis",
    "marker",
]

INK = "#1a1a1a"  # text and axes: 17:1 on white
GREY = "#5f6368"  # reference lines and secondary text: 6.0:1 on white
GRID = "#e3e3e3"

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common form of
# colour-vision deficiency. (Yellow #F0E442 is left out: 1.2:1 on white.)
BLUE = "#0072B2"
VERMILLION = "#D55E00"
GREEN = "#009E73"
PURPLE = "#CC79A7"
ORANGE = "#E69F00"
SKY = "#56B4E9"
BLACK = "#000000"

#: Colours for a family of curves (one per n, per M, …), paired with :func:`dashes`.
SEQUENCE = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, BLACK)
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


class _Style(dict[str, Any]):
    """A curve style: colour, dash, marker symbol (a dict so it reads as Plotly keywords)."""

    @property
    def colour(self) -> str:
        return str(self["colour"])


MIP = _Style(colour=VERMILLION, dash="solid", symbol="circle")
DP = _Style(colour=BLUE, dash="dash", symbol="square")
EXACT = _Style(colour=BLACK, dash="solid", symbol="diamond")
MEASURED = _Style(colour=GREEN, dash="dot", symbol="diamond")
PRINTED = _Style(colour=PURPLE, dash="dashdot", symbol="x")


def dashes(i: int) -> str:
    """The i-th dash pattern of a family of curves (the second cue beside the colour)."""
    return _DASHES[i % len(_DASHES)]


def line(style: dict[str, Any], width: float = 2.5, **extra: Any) -> dict[str, Any]:
    """Plotly ``line`` properties for a :data:`MIP`/:data:`DP`/… style."""
    return dict(color=style["colour"], dash=style["dash"], width=width, **extra)


def marker(style: dict[str, Any], size: float = 8, **extra: Any) -> dict[str, Any]:
    """Plotly ``marker`` properties for a style."""
    return dict(color=style["colour"], symbol=style["symbol"], size=size, **extra)


def trace(
    look: dict[str, Any],
    x: Any,
    y: Any,
    name: str,
    *,
    mode: str = "lines+markers",
    hover: str | None = None,
    size: float = 8,
    **extra: Any,
) -> dict[str, Any]:
    """One scatter trace drawn in a style: its line (for a ``lines`` mode) and its markers
    (for a ``markers`` mode) both from ``look``, so that colour is never the only cue."""
    t: dict[str, Any] = dict(type="scatter", mode=mode, x=x, y=y, name=name, **extra)
    if "lines" in mode:
        t["line"] = line(look)
    if "markers" in mode:
        t["marker"] = marker(look, size=size)
    if hover is not None:
        t["hovertemplate"] = hover
    return t


def _axis(title: str | None) -> dict[str, Any]:
    return dict(
        title=dict(text=title, font=dict(size=16, color=INK), standoff=8),
        tickfont=dict(size=14, color=INK),
        color=INK,
        gridcolor=GRID,
        linecolor="#444444",
        zerolinecolor="#b0b0b0",
        automargin=True,
        exponentformat="power",
    )


def log_axis(title: str | None = None, **extra: Any) -> dict[str, Any]:
    """A log axis that labels only the powers of ten (as 10ⁿ), at full size."""
    return {**_axis(title), "type": "log", "dtick": 1, **extra}


def layout(
    *,
    title: str | None = None,
    x: str | None = None,
    y: str | None = None,
    height: int = 420,
    **extra: Any,
) -> dict[str, Any]:
    """The base layout of every chart; ``extra`` entries override or extend it.

    ``title`` is the chart's title, ``x``/``y`` the axis titles. ``xaxis``/``yaxis`` given
    in ``extra`` are merged into the styled axes (so a builder sets a range or a log type
    without losing the style).
    """
    xaxis = {**_axis(x), **extra.pop("xaxis", {})}
    yaxis = {**_axis(y), **extra.pop("yaxis", {})}
    base: dict[str, Any] = dict(
        # No Plotly template: "plotly_white" costs ~30 ms of validation per figure, which a
        # page pays on every rerun whose figure changes. Everything it set is set here.
        template="none",
        colorway=list(SEQUENCE),
        font=dict(size=15, color=INK, family="Source Sans Pro, Helvetica, Arial, sans-serif"),
        title=dict(text=title, font=dict(size=18, color=INK), x=0.0, xanchor="left"),
        xaxis=xaxis,
        yaxis=yaxis,
        height=height,
        margin=dict(l=10, r=10, t=56 if title else 20, b=10),
        legend=dict(
            orientation="h",
            x=0.0,
            xanchor="left",
            y=-0.3,  # clear of the x-axis title also when the legend takes several rows
            yanchor="top",
            font=dict(size=14, color=INK),
            bgcolor="rgba(255,255,255,0)",
        ),
        hoverlabel=dict(font=dict(size=14)),
        paper_bgcolor="white",
        plot_bgcolor="white",
    )
    base.update(extra)
    return base
