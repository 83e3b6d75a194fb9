"""A guarantee's inputs shared by the risk calculator and "What does ε mean?", and the link
that carries a guarantee from the one to the other.

Both pages take the neighbouring relation (:data:`RELATION`, URL key ``rel``) and Rényi-DP
values typed as text (:data:`RDP`, URL key ``rdp``, "α: ε(α), …", read by :func:`parse_rdp`
without ``eval``) as rows of their control tables, under the same keys, labels and refusal
sentence; the stakeholder page's other controls take the values up to :data:`LINK_MAX`. So the
calculator's link (:func:`guarantee_query`, :func:`stakeholder_link`) carries a guarantee to
that page unchanged, and that page reads it through the same tightest route.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple
from urllib.parse import urlencode

import streamlit as st

from mipcore.guarantees import DpSgd, EpsDelta, Gdp, Guarantee, Rdp, Relation, Zcdp

from .cache import cached
from .controls import choice, text
from .safe import quote

__all__ = [
    "DEFAULT_PRIOR",
    "LINK_MAX",
    "RDP",
    "RELATION",
    "RdpParse",
    "guarantee_query",
    "link_prior",
    "pair_query",
    "parse_rdp",
    "rdp_text",
    "read_rdp",
    "stakeholder_link",
]

#: The default share of people in the data on both pages: 1 %, because a data set is usually
#: a small part of the population an attacker could test, and at small shares the risk is
#: whom an attacker can name, not its accuracy.
DEFAULT_PRIOR = 0.01
#: Where "What does ε mean for the people in my data?" lives, the largest ε, δ, μ and ρ its
#: controls take, and its share of people in % (what a link to it may carry).
WHAT_EPS_MEANS = "/what_eps_means"
LINK_MAX = {"eps": 20.0, "delta": 0.1, "mu": 50.0, "rho": 1000.0}
LINK_PRIOR_PCT = (0.1, 99.9)
#: Rényi-DP text: at most this many characters and (order, value) pairs; orders up to 10⁶.
RDP_MAX_CHARS = 1000
RDP_MAX_PAIRS = 64
_RDP_ORDER_MAX = 1e6
_ITEM_CHARS = 40
#: The Gaussian mechanism with ρ = 1/4 at five orders (ε(α) = ρα).
RDP_DEFAULT = "2: 0.5, 4: 1, 8: 2, 16: 4, 32: 8"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_PAIR_SPLIT = re.compile(r"[,;\n]")

RELATIONS = {
    Relation.REPLACE_ONE: "replace one record (MIP's game)",
    Relation.ADD_OR_REMOVE_ONE: "add or remove one record (most DP-SGD libraries)",
}
RELATION = choice("rel", "stated for neighbours that", list(RELATIONS), Relation.REPLACE_ONE, RELATIONS, "MIP's game swaps one record; an add/remove guarantee is converted soundly.", radio=True, horizontal=False)  # fmt: skip
RDP = text("rdp", "orders and values, “α: ε(α), …”", RDP_DEFAULT, RDP_MAX_CHARS, "Rényi-DP bounds ε(α) at orders α > 1, e.g. from an RDP accountant. Separate pairs by commas; the default is the Gaussian mechanism with ρ = 1/4.")  # fmt: skip


class RdpParse(NamedTuple):
    """Rényi-DP values read from text: ``orders``/``values`` sorted by order (empty when
    ``problem`` is set); ``problem``: why the text was refused, in words (None if it was
    read); ``item``: the offending item as typed (cut to 40 characters; user text -- show it
    as text); ``position``: its 1-based place among the pairs (0 when not about one)."""

    orders: tuple[float, ...]
    values: tuple[float, ...]
    problem: str | None = None
    item: str = ""
    position: int = 0


def _refused(problem: str, item: str = "", position: int = 0) -> RdpParse:
    cut = item if len(item) <= _ITEM_CHARS else item[: _ITEM_CHARS - 1] + "…"
    return RdpParse((), (), problem, cut, position)


def parse_rdp(text: str) -> RdpParse:
    """Read Rényi-DP values typed as ``"α: ε(α), α: ε(α), …"``.

    Pairs are separated by ``,``, ``;`` or line breaks; order and value by ``:`` or ``=``.
    Numbers must be plain decimals (``2``, ``0.5``, ``1e-3``): ``nan``, ``inf``, hex and
    digit separators are refused, and nothing is evaluated. Orders must satisfy
    ``1 < α <= 10⁶`` and be distinct; values ``ε(α) >= 0``. Never raises for bad text: the
    verdict is :attr:`RdpParse.problem`.

    Examples
    --------
    >>> parse_rdp("4: 1.2, 2: 0.5").orders
    (2.0, 4.0)
    >>> r = parse_rdp("2: 0.5, 3 0.7")
    >>> r.problem, r.item, r.position
    ('it is not one order and one value separated by “:”', '3 0.7', 2)
    """
    if not isinstance(text, str):
        return _refused("it is not one order and one value separated by “:”", repr(text))
    if len(text) > RDP_MAX_CHARS:
        return _refused(f"it is longer than {RDP_MAX_CHARS} characters")
    items = [s for s in (s.strip() for s in _PAIR_SPLIT.split(text)) if s]
    if not items:
        return _refused("it holds no pair")
    if len(items) > RDP_MAX_PAIRS:
        return _refused(f"it has more than {RDP_MAX_PAIRS} pairs", "", len(items))
    pairs: dict[float, float] = {}
    for k, item in enumerate(items, start=1):
        sides = [s.strip() for s in re.split(r"[:=]", item)]
        if len(sides) != 2:
            return _refused("it is not one order and one value separated by “:”", item, k)
        if not all(_NUMBER.fullmatch(s) for s in sides):
            return _refused("a side is not a plain number (like 2, 0.5 or 1e-3)", item, k)
        order, value = (float(s) for s in sides)
        if not (math.isfinite(order) and math.isfinite(value)):
            return _refused("a number is too large", item, k)
        if order <= 1.0:
            return _refused("Rényi orders must be above 1", item, k)
        if order > _RDP_ORDER_MAX:
            return _refused("orders above 10⁶ are not taken", item, k)
        if value < 0.0:
            return _refused("a Rényi divergence bound cannot be negative", item, k)
        if order in pairs:
            return _refused("this order appears twice", item, k)
        pairs[order] = value + 0.0  # -0.0 -> 0.0
    orders = tuple(sorted(pairs))
    return RdpParse(orders, tuple(pairs[o] for o in orders))


def _rdp_number(x: float) -> str:
    """The shortest decimal that reads back as ``x`` (whole numbers without ``.0``)."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def rdp_text(orders: tuple[float, ...], values: tuple[float, ...]) -> str:
    """Rényi-DP values as the text :func:`parse_rdp` reads back exactly, sorted by order
    (each number the shortest decimal that is the same float: a link carries them bit for bit).

    Examples
    --------
    >>> rdp_text((4.0, 2.0), (1.0, 0.5))
    '2: 0.5, 4: 1'
    """
    pairs = sorted(zip((float(o) for o in orders), (float(v) for v in values), strict=True))
    return ", ".join(f"{_rdp_number(o)}: {_rdp_number(v)}" for o, v in pairs)


def read_rdp(text: str) -> RdpParse | None:
    """The values ``text`` holds (:func:`parse_rdp`), or None after a sentence that says what
    was refused and why (the typed item shown as text)."""
    parsed = cached(parse_rdp, text)
    if parsed.problem is None:
        return parsed
    where = f" (pair {parsed.position}, {quote(parsed.item)})" if parsed.item else ""
    st.error(
        f"The Rényi-DP values could not be read{where}: {parsed.problem}. "
        f"Write them as order: value pairs separated by commas, e.g. {RDP_DEFAULT}.",
        icon="🚫",
    )
    return None


def link_prior(prior: float) -> float:
    """The share ``prior`` as the stakeholder page's ``prior``: in %, 12 significant digits,
    within the page's range."""
    lo, hi = LINK_PRIOR_PCT
    return min(max(float(f"{100.0 * prior:.12g}"), lo), hi)


def stakeholder_link(query: dict[str, str], prior: float) -> str:
    """The address of the stakeholder page with ``query`` and the share ``prior``."""
    return f"{WHAT_EPS_MEANS}?{urlencode({**query, 'prior': repr(link_prior(prior))})}"


def _taken(query: dict[str, str]) -> tuple[dict[str, str] | None, str | None]:
    """``query``, or None and the first value above what the stakeholder page takes."""
    for key in ("eps", "delta", "mu", "rho"):
        if key in query and not float(query[key]) <= LINK_MAX[key]:
            return None, key
    return query, None


def pair_query(epsilon: float, delta: float) -> tuple[dict[str, str] | None, str | None]:
    """The stakeholder page's query for one replace-one (ε, δ) pair (see :func:`guarantee_query`)."""
    return _taken({"kind": "dp", "eps": repr(float(epsilon)), "delta": repr(float(delta))})


def guarantee_query(g: Guarantee) -> tuple[dict[str, str] | None, str | None]:
    """The query that opens the stakeholder page on ``g`` itself -- ``kind=dp``, ``gdp``,
    ``zcdp`` or ``rdp`` (``rel=add_or_remove_one`` for an add/remove guarantee), or a DP-SGD
    run -- or None and why that page cannot take it: a key of :data:`LINK_MAX` whose value is
    above it, ``"rdp_long"`` (beyond its text box) or ``"not_taken"`` (e.g. a privacy profile)."""
    query: dict[str, str]
    if isinstance(g, EpsDelta):
        query = {"kind": "dp", "eps": repr(g.epsilon), "delta": repr(g.delta)}
    elif isinstance(g, Gdp):
        query = {"kind": "gdp", "mu": repr(g.mu)}
    elif isinstance(g, Zcdp):
        query = {"kind": "zcdp", "rho": repr(g.rho)}
    elif isinstance(g, Rdp):
        text = rdp_text(g.orders, g.values)
        if len(text) > RDP_MAX_CHARS or len(g.orders) > RDP_MAX_PAIRS:
            return None, "rdp_long"
        read = parse_rdp(text)  # refused: e.g. an order above 10⁶ or the same order twice
        pairs = sorted(zip(g.orders, g.values, strict=True))
        if read.problem is not None or list(zip(read.orders, read.values, strict=True)) != pairs:
            return None, "not_taken"
        query = {"kind": "rdp", "rdp": text}
    elif isinstance(g, DpSgd):
        query = {"kind": "dpsgd", "sigma": repr(g.noise_multiplier), "q": repr(g.sampling_rate)}
        query["steps"] = str(g.steps)
    else:  # a privacy profile
        return None, "not_taken"
    if getattr(g, "relation", None) is Relation.ADD_OR_REMOVE_ONE:
        query["rel"] = Relation.ADD_OR_REMOVE_ONE.value
    return _taken(query)
