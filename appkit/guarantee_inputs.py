"""A guarantee's controls shared by the risk calculator and "What does ε mean?".

Both pages take the neighbouring relation (URL key ``rel``) and Rényi-DP values typed as
text (URL key ``rdp``, "α: ε(α), …") under the same keys, labels and refusal sentences, so
the calculator's link carries a guarantee to the stakeholder page unchanged.
"""

from __future__ import annotations

import streamlit as st

from mipcore.guarantees import Relation
from mipcore.lessons.risk_calculator import (
    RDP_MAX_CHARS,
    RDP_MAX_PAIRS,
    RdpParse,
    RdpProblem,
    parse_rdp,
)

from .cache import cached
from .safe import quote
from .state import url_select, url_text

__all__ = ["RDP_DEFAULT", "RELATIONS", "rdp_control", "read_rdp", "relation_control"]

RELATIONS = {
    Relation.REPLACE_ONE: "replace one record (MIP's game)",
    Relation.ADD_OR_REMOVE_ONE: "add or remove one record (most DP-SGD libraries)",
}
#: The Gaussian mechanism with ρ = 1/4 at five orders (ε(α) = ρα).
RDP_DEFAULT = "2: 0.5, 4: 1, 8: 2, 16: 4, 32: 8"
_RDP_PROBLEMS = {
    RdpProblem.EMPTY: "it holds no pair",
    RdpProblem.TOO_LONG: f"it is longer than {RDP_MAX_CHARS} characters",
    RdpProblem.TOO_MANY: f"it has more than {RDP_MAX_PAIRS} pairs",
    RdpProblem.NOT_A_PAIR: "it is not one order and one value separated by “:”",
    RdpProblem.NOT_A_NUMBER: "a side is not a plain number (like 2, 0.5 or 1e-3)",
    RdpProblem.NOT_FINITE: "a number is too large",
    RdpProblem.ORDER_TOO_SMALL: "Rényi orders must be above 1",
    RdpProblem.ORDER_TOO_LARGE: "orders above 10⁶ are not taken",
    RdpProblem.NEGATIVE_VALUE: "a Rényi divergence bound cannot be negative",
    RdpProblem.DUPLICATE_ORDER: "this order appears twice",
}


def relation_control(container=None) -> Relation:
    """The neighbouring relation the guarantee is stated for (URL key ``rel``)."""
    return url_select(
        "stated for neighbours that",
        "rel",
        list(RELATIONS),
        default=Relation.REPLACE_ONE,
        widget="radio",
        horizontal=False,
        format_func=RELATIONS.get,
        help="MIP's game swaps one record; an add/remove guarantee is converted soundly.",
        container=container,
    )


def rdp_control() -> str:
    """The Rényi-DP text box (URL key ``rdp``); :func:`read_rdp` reads what it holds."""
    return url_text(
        "orders and values, “α: ε(α), …”",
        "rdp",
        default=RDP_DEFAULT,
        max_chars=RDP_MAX_CHARS,
        help="Rényi-DP bounds ε(α) at orders α > 1, e.g. from an RDP accountant. "
        "Separate pairs by commas; the default is the Gaussian mechanism with ρ = 1/4.",
    )


def read_rdp(text: str) -> RdpParse | None:
    """The values ``text`` holds (:func:`~mipcore.lessons.risk_calculator.parse_rdp`), or None
    after a sentence that says what was refused and why (the typed item shown as text)."""
    parsed = cached(parse_rdp, text)
    if parsed.ok:
        return parsed
    where = f" (pair {parsed.position}, {quote(parsed.item)})" if parsed.item else ""
    st.error(
        f"The Rényi-DP values could not be read{where}: "
        f"{_RDP_PROBLEMS[parsed.problem] if parsed.problem else 'not understood'}. "
        f"Write them as order: value pairs separated by commas, e.g. {RDP_DEFAULT}.",
        icon="🚫",
    )
    return None
