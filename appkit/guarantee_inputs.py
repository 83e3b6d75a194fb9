"""A guarantee's inputs, shared by the pages that take one, and the link that carries a
guarantee from the risk calculator to "What does ε mean?".

The risk calculator and "Does my model leak?" state a guarantee with the same rows of their
control tables (:func:`rows`: the kind, each kind's own values, a DP-SGD run's rate and
steps, the neighbouring relation), drawn the same way (:func:`draw`), turned into the same
:mod:`mipcore.guarantees` object (:func:`build`) and named in the same words (:func:`name`,
from ``appkit/guarantee_inputs.md``). "What does ε mean?" takes the relation
(:data:`RELATION`, URL key ``rel``) and Rényi-DP values typed as text (:data:`RDP`, URL key
``rdp``, "α: ε(α), …", read by :func:`parse_rdp` without ``eval``) under the same keys, labels
and refusal sentence, and its other controls take the values up to :data:`LINK_MAX`. So the
calculator's link (:func:`guarantee_query`, :func:`stakeholder_link`) carries a guarantee to
that page unchanged, and that page reads it through the same tightest route.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple
from urllib.parse import urlencode

import streamlit as st

from mipcore.guarantees import (
    REFERENCE_DELTA,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Kind,
    Rdp,
    Relation,
    Zcdp,
)

from . import controls, dpsgd
from .cache import cached
from .controls import Control, choice, number, text
from .errors import guard
from .prose import shared
from .safe import quote

__all__ = [
    "DEFAULT_PRIOR",
    "HEAVY",
    "KINDS",
    "LINK_MAX",
    "OWN",
    "RDP",
    "RELATION",
    "RdpParse",
    "build",
    "draw",
    "guarantee_query",
    "link_prior",
    "name",
    "pair_query",
    "parse_rdp",
    "rdp_text",
    "read_rdp",
    "rows",
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

#: The kinds of guarantee a page takes, as its radio buttons name them.
KINDS = {
    Kind.EPS_DELTA: "(ε, δ)-DP",
    Kind.GDP: "μ-GDP",
    Kind.ZCDP: "ρ-zCDP",
    Kind.RDP: "Rényi DP",
    Kind.DPSGD: "DP-SGD run",
}
#: Kinds whose conversion takes a second or more: a page runs it in its own process.
HEAVY = (Kind.ZCDP, Kind.RDP, Kind.DPSGD)
#: Each kind's own rows (left column); a DP-SGD run's rate and steps, or the relation, go right.
OWN = {Kind.EPS_DELTA: ("eps", "delta"), Kind.GDP: ("mu",), Kind.ZCDP: ("rho",), Kind.RDP: ("rdp",)}
OWN[Kind.DPSGD] = ("sigma",)
KIND = choice("kind", "The guarantee", list(KINDS), Kind.EPS_DELTA, KINDS, radio=True)
EPS = number("eps", "ε", 0.0, 50.0, 1.0, 0.1, "%g")
DELTA = number("delta", "δ", 0.0, 1.0, REFERENCE_DELTA, 1e-6, "%g", "0 for pure ε-DP; typically far below 1/n.")  # fmt: skip
MU = number("mu", "μ", 0.0, 50.0, 1.0, 0.1, "%g")
RHO = number("rho", "ρ", 0.0, 1000.0, 0.5, 0.05, "%g")


def rows(**defaults: Any) -> tuple[Control, ...]:
    """A guarantee's rows of a page's control table, in this order: the kind (``kind``), each
    kind's own values (``eps``, ``delta``, ``mu``, ``rho``, ``rdp``, ``sigma``), a DP-SGD run's
    rate and steps (``q``, ``steps``) and the relation (``rel``); ``defaults`` sets a row's
    default by its key (a page's preset guarantee).

    Raises
    ------
    KeyError
        If ``defaults`` names no row.
    """
    out = (KIND, EPS, DELTA, MU, RHO, RDP, dpsgd.SIGMA, dpsgd.RATE, dpsgd.STEPS, RELATION)
    unknown = set(defaults) - {r.key for r in out}
    if unknown:
        raise KeyError(f"no guarantee row {sorted(unknown)}")
    return tuple(replace(r, default=defaults[r.key]) if r.key in defaults else r for r in out)


def draw(table: Mapping[str, Control]) -> tuple[Kind, dict[str, Any]]:
    """Draw a guarantee's rows of ``table`` (:func:`rows`): the kind, then its own values on
    the left and a run's rate and steps, or the relation, on the right. The kind and the
    values read, by key."""
    kind = controls.draw(table["kind"])
    c1, c2 = st.columns(2)
    with c1:
        read = controls.draw_all(table, *OWN[kind])
    with c2:
        more = ("q", "steps") if kind is Kind.DPSGD else ("rel",)
        read |= controls.draw_all(table, *more)
    return kind, read


def build(kind: Kind, read: Mapping[str, Any]) -> Guarantee | None:
    """The guarantee the values ``read`` state (:func:`draw`), as :mod:`mipcore.guarantees`
    states it; None after a sentence when it cannot be built (Rényi-DP text that does not
    read, more DP-SGD steps than the server converts)."""
    parsed = read_rdp(read["rdp"]) if kind is Kind.RDP else None
    if kind is Kind.RDP and parsed is None:  # a sentence said why
        return None
    if kind is Kind.DPSGD and not dpsgd.steps_ok(read["steps"]):
        return None
    rel = read.get("rel", Relation.REPLACE_ONE)
    with guard("This guarantee", stop=True):
        if kind is Kind.EPS_DELTA:
            return EpsDelta(read["eps"], read["delta"], rel)
        if kind is Kind.GDP:
            return Gdp(read["mu"], rel)
        if kind is Kind.ZCDP:
            return Zcdp(read["rho"], rel)
        if parsed is not None:  # Rényi DP
            return Rdp(parsed.orders, parsed.values, rel)
        return DpSgd(read["sigma"], read["q"], read["steps"])
    return None  # pragma: no cover - guard(stop=True) does not return


def name(g: Guarantee) -> str:
    """The guarantee in words, for a page's sentences (``appkit/guarantee_inputs.md``)."""
    module = "guarantee_inputs"
    if isinstance(g, EpsDelta):
        return shared(module, "name_eps_delta", epsilon=g.epsilon, delta=g.delta)
    if isinstance(g, Gdp):
        return shared(module, "name_gdp", mu=g.mu)
    if isinstance(g, Zcdp):
        return shared(module, "name_zcdp", rho=g.rho)
    if isinstance(g, Rdp):
        return shared(module, "name_rdp", orders=len(g.orders))
    if isinstance(g, DpSgd):
        sigma, q, steps = g.noise_multiplier, g.sampling_rate, g.steps
        return shared(module, "name_dpsgd", sigma=sigma, q=q, steps=steps)
    raise ValueError(f"g={g!r} is not a guarantee a page states")


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
