"""What the families of :mod:`mipcore.guarantees` share: the guarantee types and the result.

The enums (:class:`Relation`, :class:`Kind`, :class:`Route`), the guarantee dataclasses
(:class:`EpsDelta`, :class:`Profile`, :class:`Gdp`, :class:`Zcdp`, :class:`Rdp`,
:class:`DpSgd`, each validated on construction by the helpers here, which the families' own
functions use too), the one group-privacy conversion from add/remove to replace-one
(:func:`group_of_two` for an (ε, δ) pair; ``Gdp.replace_mu`` and ``Zcdp.replace_rho``), the
result (:class:`RouteResult`, :class:`AttackerBound`, assembled by ``_finish``), the FPR
levels and ROC grid every bound reports on, and the δ of the single (ε, δ) point routes.
Import them from :mod:`mipcore.guarantees`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_int, check_range

FloatOrArray: TypeAlias = float | NDArray[np.float64]

#: False-positive rates at which :class:`AttackerBound` reports the TPR bound.
FPR_LEVELS: tuple[float, ...] = (0.001, 0.01, 0.1)
#: The δ of the "single (ε, δ) point" routes (the customary 1e-5).
REFERENCE_DELTA = 1e-5
_MAX_STEPS = 10**7
# ROC grid: log-spaced for low-FPR plots, linear for ordinary ones, plus the reported levels.
_ROC_FPR = np.unique(
    np.concatenate(([0.0], np.logspace(-6.0, 0.0, 121), np.linspace(0.0, 1.0, 41), FPR_LEVELS))
)


class Relation(StrEnum):
    """Neighbouring relation a guarantee is stated for."""

    REPLACE_ONE = "replace_one"  # MIP's relation: same size, one record swapped
    ADD_OR_REMOVE_ONE = "add_or_remove_one"  # what DP-SGD libraries usually report


class Kind(StrEnum):
    """The kind of privacy guarantee."""

    EPS_DELTA = "eps_delta"
    PROFILE = "profile"
    GDP = "gdp"
    ZCDP = "zcdp"
    RDP = "rdp"
    DPSGD = "dpsgd"


class Route(StrEnum):
    """A way of turning a guarantee into an attacker bound (see :func:`attacker_bound`)."""

    THEOREM4 = "theorem4"  # Theorem 4 on the one (ε, δ) pair
    PROFILE = "profile"  # minimum of Theorem 4 over a profile's points
    GDP_CLOSED_FORM = "gdp_closed_form"  # Φ(μ/2) − 1/2
    GDP_PROFILE = "gdp_profile"  # the analytic Gaussian profile on an ε grid
    SINGLE_POINT = "single_point"  # the guarantee's ε at δ = REFERENCE_DELTA, then Theorem 4
    VIA_ZCDP = "via_zcdp"  # μ-GDP ⇒ μ²/2-zCDP, then the zCDP bound
    BUN_STEINKE = "bun_steinke"  # zCDP → (ε, δ) profile by Bun & Steinke, Prop 1.3
    MIRONOV = "mironov"  # RDP → (ε, δ) profile by Mironov, Prop 3
    IMPROVED_CONVERSION = "improved_conversion"  # RDP → (ε, δ) by Canonne-Kamath-Steinke
    RENYI_TRADEOFF = "renyi_tradeoff"  # Rényi bounds straight to a trade-off bound
    GROUP_TRADEOFF = "group_tradeoff"  # add/remove trade-off g, replace-one g∘g
    PLD = "pld"  # dp_accounting's PLD accountant, replace-one, η = δ(0)/2
    PLD_ADD_REMOVE_GROUP = "pld_add_remove_group"  # PLD add/remove, TV triangle inequality
    RDP_ACCOUNTANT_GROUP = "rdp_accountant_group"  # RDP accountant add/remove, TV triangle
    SAMPLING_ONLY = "sampling_only"  # ignores the noise: the record is used at all
    GDP_EXACT = "gdp_exact"  # DP-SGD at sampling rate 1: exactly 2√T/σ-GDP
    ADD_REMOVE_AS_REPLACE = "add_remove_as_replace"  # NOT valid: relation ignored


# --------------------------------------------------------------------------- guarantees


def group_of_two(epsilon: ArrayLike, delta: ArrayLike) -> tuple[Any, Any]:
    """An add/remove (ε, δ) pair as a replace-one pair: ``(2ε, min(1, (1 + e^ε) δ))``.

    A replacement is a removal and an addition, so group privacy for groups of two applies
    (Dong, Roth, Su, *Gaussian Differential Privacy*, JRSS-B 2022, arXiv:1905.02383, the
    classical corollary of their Theorem 2.14; module docstring of :mod:`mipcore.guarantees`).
    ``e^ε`` is taken at ``min(ε, 700)`` (no overflow; δ is then capped at 1 anyway). Scalars
    give Python floats (``math.exp``), arrays arrays (``numpy.exp``; the two may differ in the
    last bit, so each caller keeps the one it always used). Inputs are trusted: the
    guarantees that call it were checked on construction.

    Examples
    --------
    >>> group_of_two(1.0, 1e-5) == (2.0, (1.0 + math.e) * 1e-5)
    True
    """
    if np.ndim(epsilon) == 0 and np.ndim(delta) == 0:
        e = float(epsilon)  # type: ignore[arg-type]
        return 2.0 * e, min(1.0, (1.0 + math.exp(min(e, 700.0))) * float(delta))  # type: ignore[arg-type]
    e_arr = np.asarray(epsilon, dtype=float)
    with np.errstate(over="ignore"):
        return 2.0 * e_arr, np.minimum(1.0, (1.0 + np.exp(np.minimum(e_arr, 700.0))) * delta)


def sampling_only_tv(sampling_rate: float, steps: int) -> float:
    """P(a record is sampled at least once in ``steps`` Poisson rounds) = 1 − (1 − q)^T: it
    bounds the total variation of a DP-SGD run whatever its noise."""
    q = sampling_rate
    return 1.0 if q >= 1.0 else float(-math.expm1(steps * math.log1p(-q)))


def _finite_nonneg(name: str, value: Any) -> float:
    return float(check_range(name, value, 0.0, math.inf, hi_open=True))


def _as_relation(value: Any) -> Relation:
    try:
        return Relation(value)
    except ValueError:
        allowed = tuple(m.value for m in Relation)
        raise ValueError(f"relation={value!r} is not one of {allowed}") from None


def _paired(
    name_a: str, a: np.ndarray, name_b: str, b: np.ndarray, b_scalar: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` as equal-length 1-d arrays; ``b`` may be a scalar (then repeated), but a
    sequence of another length -- a length-1 list included -- is refused, never broadcast."""
    a1, b1 = np.atleast_1d(a), np.atleast_1d(b)
    if b_scalar:
        b1 = np.full(a1.shape, float(b1[0]))
    if a1.shape != b1.shape:
        raise ValueError(
            f"{name_a} (length {a1.size}) and {name_b} (length {b1.size}) must have equal "
            f"lengths (or give {name_b} as one number)"
        )
    return a1, b1


def _as_profile(epsilons: ArrayLike, deltas: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    e = check_range("epsilons", epsilons, 0.0, math.inf)
    d = check_range("deltas", deltas, 0.0, 1.0)
    if e.ndim > 1 or d.ndim > 1:
        raise ValueError(
            f"epsilons and deltas must be 1-d (one profile), got shapes {e.shape} and {d.shape}"
        )
    e, d = _paired("epsilons", e, "deltas", d, np.ndim(deltas) == 0)
    if e.size == 0:
        raise ValueError("epsilons=[] is empty: a profile needs at least one (epsilon, delta)")
    return np.array(e, dtype=float), np.array(d, dtype=float)


def _as_rdp(orders: ArrayLike, rdp_values: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    o = check_range("orders", orders, 1.0, math.inf, lo_open=True, hi_open=True)
    v = check_range("rdp_values", rdp_values, 0.0, math.inf)
    if o.ndim > 1 or v.ndim > 1:
        raise ValueError(f"orders and rdp_values must be 1-d, got shapes {o.shape} and {v.shape}")
    o, v = _paired("orders", o, "rdp_values", v, np.ndim(rdp_values) == 0)
    if o.size == 0:
        raise ValueError("orders=[] is empty: give at least one (order, value) pair")
    return np.array(o, dtype=float), np.array(v, dtype=float)


def _check_dpsgd(noise_multiplier: Any, sampling_rate: Any, steps: Any) -> tuple[float, float, int]:
    s = float(
        check_range("noise_multiplier", noise_multiplier, 0.0, math.inf, lo_open=True, hi_open=True)
    )
    q = float(check_range("sampling_rate", sampling_rate, 0.0, 1.0, lo_open=True))
    t = check_int("steps", steps, 1, _MAX_STEPS)
    return s, q, t


@dataclass(frozen=True)
class EpsDelta:
    """An (ε, δ)-DP guarantee. ``0 <= epsilon < inf``, ``0 <= delta <= 1``."""

    epsilon: float
    delta: float = 0.0
    relation: Relation = Relation.REPLACE_ONE

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _finite_nonneg("epsilon", self.epsilon))
        object.__setattr__(self, "delta", float(check_range("delta", self.delta, 0.0, 1.0)))
        object.__setattr__(self, "relation", _as_relation(self.relation))

    @property
    def replace_pair(self) -> tuple[float, float]:
        """(ε, δ) for replace-one neighbours: :func:`group_of_two` for add/remove."""
        if self.relation is Relation.ADD_OR_REMOVE_ONE:
            return group_of_two(self.epsilon, self.delta)
        return self.epsilon, self.delta


@dataclass(frozen=True)
class Profile:
    """(ε_i, δ_i)-DP for every listed pair (a privacy profile; tuples, so hashable)."""

    epsilons: tuple[float, ...]
    deltas: tuple[float, ...]
    relation: Relation = Relation.REPLACE_ONE

    def __post_init__(self) -> None:
        e, d = _as_profile(self.epsilons, self.deltas)
        object.__setattr__(self, "epsilons", tuple(float(x) for x in e))
        object.__setattr__(self, "deltas", tuple(float(x) for x in d))
        object.__setattr__(self, "relation", _as_relation(self.relation))


@dataclass(frozen=True)
class Gdp:
    """μ-Gaussian DP, ``0 <= mu < inf``."""

    mu: float
    relation: Relation = Relation.REPLACE_ONE

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", _finite_nonneg("mu", self.mu))
        object.__setattr__(self, "relation", _as_relation(self.relation))

    @property
    def replace_mu(self) -> float:
        """μ for replace-one neighbours: 2μ for an add/remove guarantee (group privacy)."""
        return 2.0 * self.mu if self.relation is Relation.ADD_OR_REMOVE_ONE else self.mu


@dataclass(frozen=True)
class Zcdp:
    """ρ-zero-concentrated DP, ``0 <= rho < inf``."""

    rho: float
    relation: Relation = Relation.REPLACE_ONE

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", _finite_nonneg("rho", self.rho))
        object.__setattr__(self, "relation", _as_relation(self.relation))

    @property
    def replace_rho(self) -> float:
        """ρ for replace-one neighbours: 4ρ for an add/remove guarantee (group privacy)."""
        return 4.0 * self.rho if self.relation is Relation.ADD_OR_REMOVE_ONE else self.rho


@dataclass(frozen=True)
class Rdp:
    """(α_i, ε_i)-Rényi DP at every listed order α_i > 1 (tuples, so hashable)."""

    orders: tuple[float, ...]
    values: tuple[float, ...]
    relation: Relation = Relation.REPLACE_ONE

    def __post_init__(self) -> None:
        o, v = _as_rdp(self.orders, self.values)
        object.__setattr__(self, "orders", tuple(float(x) for x in o))
        object.__setattr__(self, "values", tuple(float(x) for x in v))
        object.__setattr__(self, "relation", _as_relation(self.relation))


@dataclass(frozen=True)
class DpSgd:
    """A DP-SGD run: Poisson sampling, Gaussian noise, ``steps`` steps (replace-one computed).

    ``noise_multiplier > 0`` (noise std / clipping norm), ``0 < sampling_rate <= 1``,
    ``1 <= steps <= 10**7``.
    """

    noise_multiplier: float
    sampling_rate: float
    steps: int

    def __post_init__(self) -> None:
        s, q, t = _check_dpsgd(self.noise_multiplier, self.sampling_rate, self.steps)
        object.__setattr__(self, "noise_multiplier", s)
        object.__setattr__(self, "sampling_rate", q)
        object.__setattr__(self, "steps", t)

    @property
    def epochs(self) -> float:
        """Steps × sampling rate: how often an average record is used."""
        return self.steps * self.sampling_rate

    @property
    def sampling_only_eta(self) -> float:
        """(1 − (1 − q)^T)/2, the η no amount of noise exceeds (:func:`sampling_only_tv`)."""
        return 0.5 * sampling_only_tv(self.sampling_rate, self.steps)


Guarantee: TypeAlias = EpsDelta | Profile | Gdp | Zcdp | Rdp | DpSgd


@dataclass(frozen=True)
class RouteResult:
    """One route's η. ``epsilon``/``delta``: the single (ε, δ) point used, if the route uses one."""

    route: Route
    eta: float
    valid: bool = True
    epsilon: float | None = None
    delta: float | None = None


@dataclass(frozen=True)
class AttackerBound:
    """A guarantee in attacker terms (see :func:`attacker_bound`).

    ``eta``: the smallest η over the valid routes (the best attacker's accuracy is at most
    ``accuracy = 1/2 + eta``); ``route``: the route that gave it; ``routes``: every route
    evaluated; ``tpr_at_fpr[i]``: the TPR bound at ``fpr_levels[i]``; ``roc_fpr``/``roc_tpr``:
    the upper boundary of the attainable ROC region; ``relation``: the relation the input was
    stated for (the bound itself is always for MIP's replace-one game); ``pld_interval``: the
    PLD discretisation used (DP-SGD only).
    """

    kind: Kind
    relation: Relation
    eta: float
    accuracy: float
    route: Route
    routes: tuple[RouteResult, ...]
    fpr_levels: tuple[float, ...]
    tpr_at_fpr: tuple[float, ...]
    roc_fpr: NDArray[np.float64] = field(repr=False, compare=False)
    roc_tpr: NDArray[np.float64] = field(repr=False, compare=False)
    pld_interval: float | None = None

    @property
    def loosest(self) -> RouteResult:
        """The valid route with the largest η (the first, if several)."""
        return max((r for r in self.routes if r.valid), key=lambda r: r.eta)

    @property
    def invalid(self) -> RouteResult | None:
        """The route that is not valid for MIP (the add/remove number read as replace-one)."""
        return next((r for r in self.routes if not r.valid), None)

    def over_tightest(self, r: RouteResult) -> float | None:
        """Route ``r``'s η over the reported η (1.0 when both are 0, None when only this is 0)."""
        if self.eta > 0:
            return r.eta / self.eta
        return 1.0 if r.eta == 0 else None

    @property
    def looseness(self) -> float:
        """Loosest valid route's η over the tightest (1.0 when all agree; inf if η = 0 < max)."""
        etas = [r.eta for r in self.routes if r.valid]
        hi, lo = max(etas), min(etas)
        if hi == lo:
            return 1.0
        return math.inf if lo == 0.0 else hi / lo


def _finish(
    kind: Kind,
    relation: Relation,
    routes: list[RouteResult],
    roc_tpr: np.ndarray,
    at_levels: np.ndarray,
    pld_interval: float | None = None,
) -> AttackerBound:
    valid = [r for r in routes if r.valid]
    lowest = min(r.eta for r in valid)
    # The first route (in order of preference) within rounding of the lowest η.
    best = next(r for r in valid if r.eta <= lowest * (1.0 + 1e-12))
    eta = float(np.clip(best.eta, 0.0, 0.5))
    roc = np.array(roc_tpr, dtype=float)
    for f, v in zip(FPR_LEVELS, at_levels, strict=True):  # the refined values, on the curve too
        at_f = np.flatnonzero(np.equal(_ROC_FPR, f))
        roc[at_f] = np.minimum(roc[at_f], v)
    return AttackerBound(
        kind=kind,
        relation=relation,
        eta=eta,
        accuracy=0.5 + eta,
        route=best.route,
        routes=tuple(routes),
        fpr_levels=FPR_LEVELS,
        tpr_at_fpr=tuple(float(v) for v in at_levels),
        roc_fpr=_ROC_FPR.copy(),
        roc_tpr=np.clip(roc, _ROC_FPR, 1.0),
        pld_interval=pld_interval,
    )
