"""One chart style for the whole app: readable on a projector, colour-blind safe.

Every chart builder (:mod:`mipcore.plots.vega` and the ``*_vega`` modules) draws MIP, DP,
exact and measured curves with :data:`MIP`, :data:`DP`, :data:`EXACT`, :data:`MEASURED` (and
:data:`PRINTED` for a paper's printed variant), so the same thing looks the same on every page.

* **Readable at 1024×768 and on a projector**: 15 px text, 14 px tick labels, 16 px axis
  titles, an 18 px title, near-black ink (#1a1a1a on white, 17:1) -- everything above the
  WCAG AA 4.5:1 contrast (the sizes live in :func:`mipcore.plots.vega.config`).
* **Colour-blind safe, and not by colour alone**: the Okabe–Ito palette, and a second cue on
  every distinction that matters -- MIP is a solid line with circles, DP a dashed line with
  squares, the exact value a thick solid black line, a measurement dots with diamonds, a
  printed (wrong) variant dash-dot.
* **Legends below the plot**: they never take the chart's width on a narrow screen and never
  overlap an axis title.

A style's ``dash`` and ``symbol`` are names (``"dash"``, ``"square"``) that
:data:`mipcore.plots.vega.DASH` and :data:`mipcore.plots.vega.SHAPE` turn into Vega-Lite's
``strokeDash`` arrays and point shapes.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DP",
    "EXACT",
    "GREY",
    "GRID",
    "INK",
    "MEASURED",
    "MIP",
    "PRINTED",
    "SEQUENCE",
    "dashes",
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
    """A curve style: colour, dash name and marker symbol name."""

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
