"""The icon array: 100 people, members and non-members, and whom the best attacker calls a member.

Drawn for the page "What does ε mean for the people in my data?" from the counts of
:func:`mipcore.risk.icon_array` (the page's lesson, :mod:`mipcore.lessons.what_eps_means`).

Colour-blind safe and readable without colour: **members are vermillion circles, non-members
blue squares** (shape and colour), and **whom the attacker calls a member is filled**, the
others are outlines. Each of the four groups is its own legend entry; the hover label of each
icon says who the person is and what the attacker does. People are laid out row by row from
the top left: members called members, members missed, non-members wrongly accused,
non-members left alone.

:func:`icon_arrays_png` renders pictures as PNG files on the server (kaleido and a
Chrome/Chromium browser; several seconds: a page runs it as a heavy job, on request).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import style

__all__ = ["IconPicture", "IconView", "icon_array_figure", "icon_array_table", "icon_arrays_png"]

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
) -> pd.DataFrame:
    """The people of an icon array, one row each: ``person`` (1-based), ``row``, ``column``,
    ``member``, ``called_member``, ``group`` (the legend's label in ``view``'s wording).

    People are laid out row by row, ten per row, in four groups: members called members,
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
            "row": index // _COLUMNS + 1,
            "column": index % _COLUMNS + 1,
            "member": group < 2,
            "called_member": group % 2 == 0,
            "group": np.asarray(_NAMES[view], dtype=object)[group],
        }
    )


def icon_array_figure(
    members: int,
    non_members: int,
    called_members: int,
    called_non_members: int,
    *,
    view: IconView = IconView.ACCURACY,
    title: str | None = None,
    height: int = 470,
) -> tuple[go.Figure, pd.DataFrame]:
    """An icon array of ``members + non_members`` people and the table it draws.

    Parameters
    ----------
    members, non_members : how many people are and are not in the data (``>= 0``, at least one
        person, at most 10 000).
    called_members : members the attacker calls members (``0 <= called_members <= members``).
    called_non_members : non-members it calls members (``0 <= … <= non_members``).
    view : :class:`IconView`, the wording of the legend and hover labels.
    title : the chart's title.
    height : figure height in pixels.

    Returns
    -------
    (figure, table)
        The table is :func:`icon_array_table`'s.

    Raises
    ------
    ValueError
        If a count is negative, a called count exceeds its group, or there is nobody.
    """
    view = IconView(view)
    table = icon_array_table(members, non_members, called_members, called_non_members, view=view)
    rows_total = int(table["row"].max())
    marker_size = 26 if rows_total <= 10 else max(4, int(260 / rows_total))
    data: list[dict[str, Any]] = []
    for g, name in enumerate(_NAMES[view]):
        people = table[table["group"] == name]
        if people.empty:
            continue
        is_member = g < 2
        base = style.MIP if is_member else style.DP
        symbol = base["symbol"] + ("" if g % 2 == 0 else "-open")
        data.append(
            dict(
                type="scatter",
                x=(people["column"] - 1).tolist(),
                y=(rows_total - people["row"]).tolist(),
                mode="markers",
                name=name,
                marker=dict(
                    symbol=symbol,
                    size=marker_size,
                    color=base.colour,
                    line=dict(color=base.colour, width=3),
                ),
                customdata=people["person"].tolist(),
                hovertemplate=f"Person %{{customdata}}: {_HOVER[view][g]}<extra></extra>",
            )
        )
    hidden = dict(
        visible=True,
        showticklabels=False,
        showgrid=False,
        zeroline=False,
        showline=False,
        ticks="",
        title=None,
        fixedrange=True,
    )
    layout = style.layout(
        title=title,
        height=height,
        xaxis={**hidden, "range": [-0.6, _COLUMNS - 0.4]},
        yaxis={**hidden, "range": [-0.6, rows_total - 0.4], "scaleanchor": "x", "scaleratio": 1},
        hovermode="closest",
    )
    layout["legend"]["y"] = -0.04
    return go.Figure(data=data, layout=layout), table


@dataclass(frozen=True)
class IconPicture:
    """The arguments of :func:`icon_array_figure` for one picture (hashable: a job's input)."""

    members: int
    non_members: int
    called_members: int
    called_non_members: int
    view: IconView = IconView.ACCURACY
    title: str | None = None


def icon_arrays_png(
    pictures: tuple[IconPicture, ...], *, width: int = 1000, height: int = 640
) -> tuple[bytes, ...]:
    """The icon arrays of ``pictures`` as PNG files, ``width`` × ``height`` pixels each.

    Rendered by kaleido (>= 1.0) in one headless Chrome/Chromium session (found on the PATH,
    or through ``BROWSER_PATH``); MathJax is off, so nothing is fetched from the network.
    Takes several seconds: call it as a heavy job.

    Raises
    ------
    ValueError
        If ``width``/``height`` are outside 200–4000, a picture's counts are invalid, or the
        server cannot render (kaleido not installed, no browser): the message says which.
    """
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or int(value) != value or not 200 <= value <= 4000:
            raise ValueError(f"{name}={value!r} must be a whole number of pixels in 200-4000")
    figures = [icon_array_figure(**asdict(p))[0].to_dict() for p in pictures]
    try:
        import kaleido
    except ImportError:
        raise ValueError(
            "PNG pictures need the kaleido package on the server (pip install kaleido) "
            "and a Chrome or Chromium browser"
        ) from None
    opts = dict(format="png", width=int(width), height=int(height), scale=1)

    async def render() -> list[bytes]:
        async with kaleido.Kaleido(n=1, mathjax=False) as k:
            return [await k.calc_fig(f, opts=opts) for f in figures]

    def run_in_a_fresh_loop() -> list[bytes]:
        # asyncio.run refuses to run inside a thread whose event loop is already running (a
        # notebook, an async server, Playwright's sync API): give the render its own thread.
        out: list[list[bytes]] = []
        errors: list[BaseException] = []

        def target() -> None:
            try:
                out.append(asyncio.run(render()))
            except BaseException as exc:  # re-raised in the caller's thread
                errors.append(exc)

        worker = threading.Thread(target=target, name="kaleido-render")
        worker.start()
        worker.join()
        if errors:
            raise errors[0]
        return out[0]

    try:
        images = run_in_a_fresh_loop()
    except Exception as exc:  # the browser could not start or render: an environment problem
        raise ValueError(
            f"the server could not draw PNG pictures ({type(exc).__name__}: {exc}); "
            "it needs a Chrome or Chromium browser that kaleido can start"
        ) from None
    return tuple(bytes(i) for i in images)
