"""The icon array's people: members and non-members, and whom the best attacker calls a member.

For the page "What does ε mean for the people in my data?", from the counts of
:func:`mipcore.risk.icon_array` (the page's lesson, :mod:`mipcore.lessons.what_eps_means`).
:func:`icon_array_table` lays the people out row by row from the top left: members called
members, members missed, non-members wrongly accused, non-members left alone; the legend's
and the tooltips' wording per :class:`IconView`. The chart itself -- on the page and in the
exports (SVG, PNG) -- is :func:`mipcore.plots.risk_vega.icon_array_vega`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

__all__ = ["IconPicture", "IconView", "icon_array_table"]

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
    """The arguments of :func:`mipcore.plots.risk_vega.icon_array_vega` for one picture
    (hashable: a cache key or a job's input)."""

    members: int
    non_members: int
    called_members: int
    called_non_members: int
    view: IconView = IconView.ACCURACY
    title: str | None = None
