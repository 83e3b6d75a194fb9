r"""What does my guarantee or DP-SGD run mean for an attacker? Every number of the page.

The page "What does my guarantee or DP-SGD run mean for an attacker?" takes a privacy
guarantee as a privacy engineer states it -- (ε, δ)-DP, μ-GDP, ρ-zCDP, Rényi-DP values at a
few orders, or a DP-SGD run (noise multiplier, Poisson sampling rate, steps) -- and reads it
in attacker terms with :func:`mipcore.guarantees.attacker_bound`:

* η (η-MIP for the membership game of Izzo et al.), the best attacker's accuracy 1/2 + η and
  the membership advantage 2η = TPR − FPR;
* the largest TPR any attacker reaches at FPR 0.1 %, 1 % and 10 %;
* every conversion route side by side (which one gives the tightest valid η, how much the
  loosest valid route overstates it, and -- for add/remove guarantees -- what reading the
  add/remove number as if it were replace-one would report: *not* valid for MIP), with each
  route's ROC bound on a common FPR grid;
* the attacker's confidence in a person it names, at a membership prior π: for pure ε-DP
  the posterior bound π e^ε/(π e^ε + 1 − π) (:func:`mipcore.risk.member_posterior_bound`);
  otherwise the worst case is certainty (δ, or an unbounded likelihood ratio, lets a rare
  release expose a person), and the sound number is the precision of a naming rule at a
  stated FPR, π T/(π T + (1 − π) FPR) with T the TPR bound there (as
  :func:`mipcore.risk.ppv_bound`);
* links to the page "What does ε mean for the people in my data?": first the one that carries
  the guarantee itself -- the same (ε, δ), μ, ρ or Rényi-DP values with the relation they are
  stated for, or the same DP-SGD run -- which that page reads through the same tightest route,
  so both pages show the same numbers (or why it cannot be carried: a value beyond that
  page's controls); then, for comparison, the guarantee's replace-one (ε, δ) (at δ = 10⁻⁵ for
  the kinds without one) and the same η, which overstate the risk at low false-positive
  rates.

:func:`risk_report` returns it all as one frozen :class:`RiskReport`; :func:`noise_for_target`
solves the other way round (the DP-SGD noise multiplier for a target η, or a target TPR at a
given FPR) as a frozen :class:`NoiseSolution`; :func:`parse_rdp` reads Rényi-DP values typed
as text ("2: 0.5, 4: 1.2") without ``eval``, returning a structured verdict for bad input, and
:func:`rdp_text` writes them back as the text it reads exactly (the link's ``rdp``).
Pure Python, no Streamlit, no caching.

References
----------
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4, Theorem 8 corrected, Lemma 12's replace-one pairing).
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
- Bun, Steinke. *Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds*. TCC 2016, arXiv:1605.02065.
- Mironov. *Rényi Differential Privacy*. CSF 2017, arXiv:1702.07476.
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang. *Deep Learning with Differential
  Privacy*. CCS 2016, arXiv:1607.00133 (DP-SGD). The CIFAR-10 preset (σ = 1.1, batch 256 of
  50 000, 50 epochs) is a typical setting, not one paper's.
- Li, Tramèr, Liang, Hashimoto. *Large Language Models Can Be Strong Differentially Private
  Learners*. ICLR 2022, arXiv:2110.05679 (the E2E fine-tuning preset).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlencode

import numpy as np
from numpy.typing import NDArray
from scipy import special

from .._validate import check_range
from ..bounds import eta_from_epsilon, tpr_bound_dp
from ..guarantees import (
    FPR_LEVELS,
    NOISE_TOLERANCE,
    PLD_MIN_NOISE,
    REFERENCE_DELTA,
    AttackerBound,
    DpSgd,
    EpsDelta,
    Gdp,
    Guarantee,
    Kind,
    Profile,
    Rdp,
    Relation,
    Route,
    RouteResult,
    Zcdp,
    attacker_bound,
    delta_from_gdp,
    delta_from_rdp,
    delta_from_zcdp,
    dpsgd_noise_for_eta,
    dpsgd_noise_for_tpr,
    eta_from_dpsgd,
    tpr_bound_gdp,
    tpr_bound_profile,
    tpr_bound_rdp,
    tpr_bound_zcdp,
)
from ..risk import member_posterior_bound

__all__ = [
    "CIFAR10",
    "E2E",
    "EPS_PRESETS",
    "LINK_DELTA_MAX",
    "LINK_EPS_MAX",
    "LINK_MU_MAX",
    "LINK_RHO_MAX",
    "MAX_STEPS",
    "PRESET_DELTA",
    "RDP_MAX_CHARS",
    "RDP_MAX_PAIRS",
    "WHAT_EPS_MEANS_PATH",
    "Confidence",
    "Conversion",
    "CurveSource",
    "DpSgdPreset",
    "LinkBlock",
    "LinkSource",
    "NoiseSolution",
    "RdpParse",
    "RdpProblem",
    "RiskReport",
    "RouteRow",
    "StakeholderLink",
    "Target",
    "convert",
    "noise_for_target",
    "parse_rdp",
    "rdp_text",
    "report_at",
    "risk_report",
    "steps_ceiling",
]

#: ε presets from practice (with δ = :data:`PRESET_DELTA`).
EPS_PRESETS: tuple[float, ...] = (1.0, 3.0, 8.0)
PRESET_DELTA = 1e-5


@dataclass(frozen=True)
class DpSgdPreset:
    """A DP-SGD setting from practice: ``noise_multiplier`` (noise std / clipping norm),
    ``batch`` of ``dataset`` examples (Poisson rate ``batch/dataset``) for ``epochs`` epochs
    (``steps = ceil(epochs · dataset / batch)``)."""

    key: str
    noise_multiplier: float
    batch: int
    dataset: int
    epochs: int

    @property
    def sampling_rate(self) -> float:
        return self.batch / self.dataset

    @property
    def steps(self) -> int:
        return math.ceil(self.epochs * self.dataset / self.batch)


#: CIFAR-10-like DP-SGD: σ = 1.1, batch 256 of 50 000, 50 epochs (9766 steps).
CIFAR10 = DpSgdPreset("cifar10", 1.1, 256, 50_000, 50)
#: LLM fine-tune-like: the E2E setting of Li et al. (ICLR 2022): 42 061 examples, batch 1024,
#: 10 epochs (411 steps), σ calibrated as their script does -- by ``dp_accounting``'s
#: add/remove RDP accountant to ε = 8 at δ = 8·10⁻⁶ (≈ 42 061^−1.1): σ = 0.7184 gives ε = 7.998.
E2E = DpSgdPreset("e2e", 0.7184, 1024, 42_061, 10)

#: Where the page "What does ε mean for the people in my data?" lives, and the largest ε, δ,
#: μ and ρ its controls take (that page reads them from here); its prior is 0.1 %–99.9 %.
WHAT_EPS_MEANS_PATH = "/what_eps_means"
LINK_EPS_MAX = 20.0
LINK_DELTA_MAX = 0.1
LINK_MU_MAX = 50.0
LINK_RHO_MAX = 1000.0
_LINK_PRIOR_PCT = (0.1, 99.9)

#: DP-SGD steps one request may ask for (times the server's work limit; see steps_ceiling).
MAX_STEPS = 100_000

#: Rényi-DP text: at most this many characters and (order, value) pairs.
RDP_MAX_CHARS = 1000
RDP_MAX_PAIRS = 64
_RDP_ORDER_MAX = 1e6
_ITEM_CHARS = 40

# ε grid on which the profile routes' ROC curves are drawn (each point a valid (ε, δ(ε))).
_CURVE_EPS = np.concatenate(([0.0], np.geomspace(1e-4, 60.0, 400)))
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_PAIR_SPLIT = re.compile(r"[,;\n]")


# --------------------------------------------------------------------------- Rényi text


class RdpProblem(StrEnum):
    """Why a Rényi-DP text was refused (the page turns it into a sentence)."""

    EMPTY = "empty"  # no pair at all
    TOO_LONG = "too_long"  # more than RDP_MAX_CHARS characters
    TOO_MANY = "too_many"  # more than RDP_MAX_PAIRS pairs
    NOT_A_PAIR = "not_a_pair"  # an item is not "order: value"
    NOT_A_NUMBER = "not_a_number"  # a side is not a plain decimal number
    NOT_FINITE = "not_finite"  # a number overflows
    ORDER_TOO_SMALL = "order_too_small"  # an order α <= 1
    ORDER_TOO_LARGE = "order_too_large"  # an order α > 10⁶
    NEGATIVE_VALUE = "negative_value"  # ε(α) < 0
    DUPLICATE_ORDER = "duplicate_order"  # the same α twice


@dataclass(frozen=True)
class RdpParse:
    """Rényi-DP values read from text: ``orders``/``values`` sorted by order (empty when
    ``problem`` is set); ``problem``: why the text was refused (None if it was read);
    ``item``: the offending item as typed (cut to 40 characters; user text -- escape it
    before showing); ``position``: its 1-based place among the pairs (0 when not about one)."""

    orders: tuple[float, ...]
    values: tuple[float, ...]
    problem: RdpProblem | None = None
    item: str = ""
    position: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None


def parse_rdp(text: str) -> RdpParse:
    """Read Rényi-DP values typed as ``"α: ε(α), α: ε(α), …"``.

    Pairs are separated by ``,``, ``;`` or line breaks; order and value by ``:`` or ``=``.
    Numbers must be plain decimals (``2``, ``0.5``, ``1e-3``): ``nan``, ``inf``, hex and
    digit separators are refused, and nothing is evaluated. Orders must satisfy
    ``1 < α <= 10⁶`` and be distinct; values ``ε(α) >= 0``. Never raises for bad text: the
    verdict is :attr:`RdpParse.problem`.

    Parameters
    ----------
    text : str, at most :data:`RDP_MAX_CHARS` characters.

    Returns
    -------
    RdpParse

    Examples
    --------
    >>> parse_rdp("4: 1.2, 2: 0.5").orders
    (2.0, 4.0)
    >>> r = parse_rdp("2: 0.5, 3 0.7")
    >>> r.problem.value, r.item, r.position
    ('not_a_pair', '3 0.7', 2)
    """
    if not isinstance(text, str):
        return RdpParse((), (), RdpProblem.NOT_A_PAIR, _cut(repr(text)), 0)
    if len(text) > RDP_MAX_CHARS:
        return RdpParse((), (), RdpProblem.TOO_LONG, "", 0)
    items = [s.strip() for s in _PAIR_SPLIT.split(text)]
    items = [s for s in items if s]
    if not items:
        return RdpParse((), (), RdpProblem.EMPTY)
    if len(items) > RDP_MAX_PAIRS:
        return RdpParse((), (), RdpProblem.TOO_MANY, "", len(items))
    pairs: dict[float, float] = {}
    for k, item in enumerate(items, start=1):
        sides = re.split(r"[:=]", item)
        if len(sides) != 2:
            return RdpParse((), (), RdpProblem.NOT_A_PAIR, _cut(item), k)
        nums = []
        for side in sides:
            s = side.strip()
            if not _NUMBER.fullmatch(s):
                return RdpParse((), (), RdpProblem.NOT_A_NUMBER, _cut(item), k)
            x = float(s)
            if not math.isfinite(x):
                return RdpParse((), (), RdpProblem.NOT_FINITE, _cut(item), k)
            nums.append(x)
        order, value = nums
        if order <= 1.0:
            return RdpParse((), (), RdpProblem.ORDER_TOO_SMALL, _cut(item), k)
        if order > _RDP_ORDER_MAX:
            return RdpParse((), (), RdpProblem.ORDER_TOO_LARGE, _cut(item), k)
        if value < 0.0:
            return RdpParse((), (), RdpProblem.NEGATIVE_VALUE, _cut(item), k)
        if order in pairs:
            return RdpParse((), (), RdpProblem.DUPLICATE_ORDER, _cut(item), k)
        pairs[order] = value + 0.0  # -0.0 -> 0.0
    orders = tuple(sorted(pairs))
    return RdpParse(orders, tuple(pairs[o] for o in orders))


def _rdp_number(x: float) -> str:
    """The shortest decimal that reads back as ``x`` (whole numbers without ``.0``)."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def rdp_text(orders: tuple[float, ...], values: tuple[float, ...]) -> str:
    """Rényi-DP values as the text :func:`parse_rdp` reads back exactly, sorted by order.

    The pages' format, ``"α: ε(α), α: ε(α), …"``, each number the shortest decimal that is
    the same float (so a link carries the values bit for bit).

    Examples
    --------
    >>> rdp_text((4.0, 2.0), (1.0, 0.5))
    '2: 0.5, 4: 1'
    >>> rdp_text((1.5,), (1e-300,)), parse_rdp(rdp_text((1.5,), (1e-300,))).values
    ('1.5: 1e-300', (1e-300,))
    """
    pairs = sorted(zip((float(o) for o in orders), (float(v) for v in values), strict=True))
    return ", ".join(f"{_rdp_number(o)}: {_rdp_number(v)}" for o, v in pairs)


def steps_ceiling(work_limit: float = 1.0) -> int:
    """The most DP-SGD steps one request may ask for: ``MAX_STEPS · work_limit``, at most 10⁷.

    ``work_limit >= 1`` (the server's ``MIP_EXPLORER_WORK_LIMIT``). A conversion of 10⁴ steps
    takes about a second and 10⁶ steps a few; the noise search evaluates it ~20 times.

    Examples
    --------
    >>> steps_ceiling(), steps_ceiling(20)
    (100000, 2000000)
    """
    w = float(check_range("work_limit", work_limit, 1.0, math.inf, hi_open=True))
    return int(min(10**7, math.floor(MAX_STEPS * w)))


def _cut(text: str) -> str:
    return text if len(text) <= _ITEM_CHARS else text[: _ITEM_CHARS - 1] + "…"


# --------------------------------------------------------------------------- the report


class CurveSource(StrEnum):
    """What a route's ROC curve is."""

    TRADEOFF = "tradeoff"  # the route's own trade-off bound
    ETA_LINE = "eta_line"  # the route gives only η: TPR <= min(1, FPR + 2η) (Theorem 8 corr.)
    COMBINED = "combined"  # DP-SGD's PLD route: PLD envelope ∧ sampling-only ∧ (q = 1) exact GDP


class Confidence(StrEnum):
    """Which number bounds the attacker's confidence in a person it names."""

    POSTERIOR = "posterior"  # pure ε-DP: a bound for every named person
    PRECISION = "precision"  # worst case is certainty: the precision of a rule at a stated FPR


class LinkSource(StrEnum):
    """Which (ε, δ) the link to the ε page carries."""

    INPUT = "input"  # the guarantee's own (ε, δ) (replace-one)
    GROUP = "group"  # an add/remove (ε, δ) converted to replace-one: (2ε, (1 + e^ε)δ)
    REFERENCE_POINT = "reference_point"  # the guarantee's ε at δ = 10⁻⁵ (replace-one)
    # an add/remove guarantee's ε at δ = 10⁻⁵, converted to replace-one: (2ε, (1 + e^ε)·10⁻⁵)
    # (Rényi DP, which has no replace-one form to convert to first)
    GROUP_POINT = "group_point"


class LinkBlock(StrEnum):
    """Why a link to the ε page cannot be made (the η link is always there)."""

    NO_POINT = "no_point"  # no (ε, δ) point was computed (DP-SGD with σ < 0.1)
    EPS_TOO_LARGE = "eps_too_large"  # ε above what the ε page takes (20)
    DELTA_TOO_LARGE = "delta_too_large"  # δ above what the ε page takes (0.1)
    MU_TOO_LARGE = "mu_too_large"  # μ above what the ε page takes (50)
    RHO_TOO_LARGE = "rho_too_large"  # ρ above what the ε page takes (1000)
    RDP_TOO_LONG = "rdp_too_long"  # the Rényi-DP text beyond the box (1000 characters, 64 pairs)
    NOT_TAKEN = "not_taken"  # a kind (a privacy profile) or a Rényi text the ε page does not take


@dataclass(frozen=True)
class StakeholderLink:
    """Links to the page "What does ε mean for the people in my data?".

    ``path`` + ``?`` + a query opens it. ``eta_query`` (always): ``kind=mip``, the tightest
    η and the prior in %. ``eps_query`` (None with ``blocked`` set when impossible):
    ``kind=dp`` with ``epsilon``, ``delta`` (replace-one; see ``source``) and the prior;
    ``pair_eta``: Theorem 4's η of that pair and ``pair_ratio = pair_eta / eta`` (None when
    η = 0), how much reading the guarantee as that one pair overstates η. ``same_query``: the
    link that carries the guarantee itself -- an (ε, δ) (``kind=dp``), μ (``kind=gdp``), ρ
    (``kind=zcdp``) or Rényi-DP values (``kind=rdp``, ``rdp`` = :func:`rdp_text`), each with
    ``rel=add_or_remove_one`` when stated for add/remove neighbours, or a DP-SGD run
    (``kind=dpsgd``) -- so the page shows exactly the calculator's numbers; None with
    ``same_blocked`` saying why when the page cannot take it (a value beyond its controls, a
    privacy profile).
    """

    path: str
    prior_pct: float
    eta: float
    eta_query: str
    epsilon: float | None
    delta: float | None
    source: LinkSource | None
    blocked: LinkBlock | None
    eps_query: str | None
    pair_eta: float | None
    pair_ratio: float | None
    same_query: str | None = None
    same_blocked: LinkBlock | None = None


@dataclass(frozen=True)
class RouteRow:
    """One conversion route: ``eta`` and ``accuracy = 1/2 + eta``; ``valid`` (False: the
    add/remove number read as replace-one, not valid for MIP); ``tightest``: the route that
    gave the reported η; ``over_tightest = eta / tightest η`` (1.0 when both are 0, None when
    only the tightest is 0); ``epsilon``/``delta``: the single (ε, δ) point the route uses,
    if any; ``curve``: what ``tpr`` is; ``tpr``: its TPR bound on the report's ``roc_fpr``;
    ``tpr_at_levels``: that curve at the report's ``fpr_levels`` (which are grid points)."""

    route: Route
    valid: bool
    tightest: bool
    eta: float
    accuracy: float
    over_tightest: float | None
    epsilon: float | None
    delta: float | None
    curve: CurveSource
    tpr_at_levels: tuple[float, ...]
    tpr: NDArray[np.float64] = field(repr=False, compare=False)


@dataclass(frozen=True)
class RiskReport:
    """Every number of the risk calculator for one guarantee, prior and stated FPR.

    Attributes
    ----------
    kind, relation : the guarantee's kind and the relation it was stated for (DP-SGD is
        accounted for replace-one directly). ``guarantee``: the guarantee itself.
    eta, accuracy, advantage : :func:`mipcore.guarantees.attacker_bound`'s η, 1/2 + η, 2η.
    route : the route that gave η (the tightest valid one); ``loosest_route`` the valid route
        with the largest η; ``looseness`` = loosest valid η / tightest η
        (:attr:`AttackerBound.looseness`; None when it is infinite, i.e. η = 0 < loosest).
    routes : one :class:`RouteRow` per route, in attacker_bound's order.
    invalid_eta : η of the add/remove number read as replace-one (None when there is no such
        route); ``understated_by = eta / invalid_eta`` (None when not defined).
    fpr_levels, tpr_at_fpr : the TPR bound at FPR 0.1 %, 1 %, 10 %.
    roc_fpr, roc_tpr : the tightest ROC bound (attacker_bound's) on its FPR grid.
    prior : π. ppv_fpr : the stated FPR (one of ``fpr_levels``); ``ppv_tpr`` the TPR bound
        there; ``ppv`` = π T/(π T + (1 − π) f), the largest precision of a naming rule at it.
    confidence_kind : POSTERIOR for pure ε-DP and for η = 0 (``worst_posterior`` < 1 bounds
        every named person; at η = 0 it is the prior), else PRECISION (``worst_posterior`` = 1;
        ``ppv`` is the number to quote).
    replace_epsilon, replace_delta : the replace-one (ε, δ) of an (ε, δ) guarantee
        ((2ε, (1 + e^ε)δ) for add/remove); ``replace_mu`` (GDP: μ or 2μ), ``replace_rho``
        (zCDP: ρ or 4ρ); None where not applicable.
    reference_epsilon : the guarantee's ε at δ = ``reference_delta`` (10⁻⁵) for replace-one
        (the single-point route's), None if not computed.
    epochs : DP-SGD's steps × sampling rate; ``sampling_only_eta`` = (1 − (1 − q)^T)/2, the
        η no amount of noise exceeds; ``pld_interval`` the PLD discretisation (None if unused).
    link : :class:`StakeholderLink`.
    """

    kind: Kind
    relation: Relation
    guarantee: Guarantee
    eta: float
    accuracy: float
    advantage: float
    route: Route
    loosest_route: Route
    looseness: float | None
    routes: tuple[RouteRow, ...]
    invalid_eta: float | None
    understated_by: float | None
    fpr_levels: tuple[float, ...]
    tpr_at_fpr: tuple[float, ...]
    roc_fpr: NDArray[np.float64] = field(repr=False, compare=False)
    roc_tpr: NDArray[np.float64] = field(repr=False, compare=False)
    prior: float
    ppv_fpr: float
    ppv_tpr: float
    ppv: float
    confidence_kind: Confidence
    worst_posterior: float
    replace_epsilon: float | None
    replace_delta: float | None
    replace_mu: float | None
    replace_rho: float | None
    reference_epsilon: float | None
    reference_delta: float
    epochs: float | None
    sampling_only_eta: float | None
    pld_interval: float | None
    link: StakeholderLink


def _ppv(prior: float, fpr: float, tpr: float) -> float:
    """π T/(π T + (1 − π) f) as expit(log(T/f) + logit π) (no cancellation; T >= f)."""
    t = max(tpr, fpr)
    return float(special.expit(math.log(t / fpr) + math.log(prior) - math.log1p(-prior)))


def _profile_curve(fpr: NDArray[np.float64], deltas: NDArray[np.float64], group: bool) -> NDArray:
    eps = _CURVE_EPS
    d = np.clip(deltas, 0.0, 1.0)
    if group:  # add/remove (ε, δ) ⇒ replace-one (2ε, (1 + e^ε)δ)
        with np.errstate(over="ignore"):
            d = np.minimum(1.0, (1.0 + np.exp(np.minimum(eps, 700.0))) * d)
        eps = 2.0 * eps
    return np.asarray(tpr_bound_profile(fpr, eps, d), dtype=float)


def _eta_line(fpr: NDArray[np.float64], eta: float) -> NDArray[np.float64]:
    return np.minimum(1.0, fpr + 2.0 * eta)


def _route_curve(
    g: Guarantee, r: RouteResult, fpr: NDArray[np.float64], bound: AttackerBound
) -> tuple[NDArray[np.float64], CurveSource]:
    """The ROC bound of route ``r`` of guarantee ``g`` on ``fpr`` (see :class:`CurveSource`)."""
    ar = getattr(g, "relation", Relation.REPLACE_ONE) is Relation.ADD_OR_REMOVE_ONE
    route = r.route
    if r.epsilon is not None and r.delta is not None:  # a single (ε, δ) point
        return np.asarray(tpr_bound_dp(fpr, r.epsilon, r.delta), dtype=float), CurveSource.TRADEOFF
    if isinstance(g, EpsDelta | Profile):
        e = np.atleast_1d(np.asarray(g.epsilon if isinstance(g, EpsDelta) else g.epsilons, float))
        d = np.atleast_1d(np.asarray(g.delta if isinstance(g, EpsDelta) else g.deltas, float))

        def g_ar(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.asarray(tpr_bound_profile(x, e, d), dtype=float)

        if route is Route.GROUP_TRADEOFF:
            return g_ar(g_ar(fpr)), CurveSource.TRADEOFF
        if route in (Route.THEOREM4, Route.PROFILE) and ar:  # profile points mapped one by one
            with np.errstate(over="ignore"):
                d2 = np.where(d > 0, np.minimum(1.0, (1.0 + np.exp(np.minimum(e, 700.0))) * d), 0.0)
            return np.asarray(tpr_bound_profile(fpr, 2.0 * e, d2), float), CurveSource.TRADEOFF
        return g_ar(fpr), CurveSource.TRADEOFF  # replace-one, or the invalid reading
    if isinstance(g, Gdp):
        mu = 2.0 * g.mu if ar else g.mu
        if route is Route.GDP_CLOSED_FORM:
            return np.asarray(tpr_bound_gdp(fpr, mu), float), CurveSource.TRADEOFF
        if route is Route.GDP_PROFILE:
            deltas = np.asarray(delta_from_gdp(_CURVE_EPS, mu), float)
            return _profile_curve(fpr, deltas, group=False), CurveSource.TRADEOFF
        if route is Route.VIA_ZCDP:
            return np.asarray(tpr_bound_zcdp(fpr, mu * mu / 2.0), float), CurveSource.TRADEOFF
        if route is Route.ADD_REMOVE_AS_REPLACE:
            return np.asarray(tpr_bound_gdp(fpr, g.mu), float), CurveSource.TRADEOFF
    if isinstance(g, Zcdp):
        rho = 4.0 * g.rho if ar else g.rho
        if route is Route.RENYI_TRADEOFF:
            return np.asarray(tpr_bound_zcdp(fpr, rho), float), CurveSource.TRADEOFF
        if route is Route.BUN_STEINKE:
            deltas = np.asarray(delta_from_zcdp(_CURVE_EPS, rho, "bun_steinke"), float)
            return _profile_curve(fpr, deltas, group=False), CurveSource.TRADEOFF
        if route is Route.IMPROVED_CONVERSION:
            deltas = np.asarray(delta_from_zcdp(_CURVE_EPS, rho, "improved"), float)
            return _profile_curve(fpr, deltas, group=False), CurveSource.TRADEOFF
        if route is Route.ADD_REMOVE_AS_REPLACE:
            return np.asarray(tpr_bound_zcdp(fpr, g.rho), float), CurveSource.TRADEOFF
    if isinstance(g, Rdp):
        o, v = np.array(g.orders), np.array(g.values)
        if route is Route.MIRONOV:
            deltas = np.asarray(delta_from_rdp(_CURVE_EPS, o, v, "mironov"), float)
            return _profile_curve(fpr, deltas, group=ar), CurveSource.TRADEOFF
        if route is Route.IMPROVED_CONVERSION:
            deltas = np.asarray(delta_from_rdp(_CURVE_EPS, o, v, "improved"), float)
            return _profile_curve(fpr, deltas, group=ar), CurveSource.TRADEOFF
        if route is Route.GROUP_TRADEOFF:
            inner = np.asarray(tpr_bound_rdp(fpr, o, v), float)
            return np.asarray(tpr_bound_rdp(inner, o, v), float), CurveSource.TRADEOFF
        if route in (Route.RENYI_TRADEOFF, Route.ADD_REMOVE_AS_REPLACE):
            return np.asarray(tpr_bound_rdp(fpr, o, v), float), CurveSource.TRADEOFF
    if isinstance(g, DpSgd):
        if route is Route.PLD:
            return np.asarray(bound.roc_tpr, float).copy(), CurveSource.COMBINED
        if route is Route.GDP_EXACT:
            mu = 2.0 * math.sqrt(g.steps) / g.noise_multiplier
            return np.asarray(tpr_bound_gdp(fpr, mu), float), CurveSource.TRADEOFF
    # routes that give only η: sampling-only, the add/remove accountants with the triangle
    # inequality, and DP-SGD's invalid reading
    return _eta_line(fpr, r.eta), CurveSource.ETA_LINE


def _rows(
    g: Guarantee, b: AttackerBound, fpr: NDArray[np.float64]
) -> tuple[tuple[RouteRow, ...], Route, float | None, float | None]:
    rows = []
    at = [int(np.flatnonzero(fpr == f)[0]) for f in b.fpr_levels]
    for r in b.routes:
        tpr, source = _route_curve(g, r, fpr, b)
        tpr = np.clip(np.maximum(tpr, fpr), 0.0, 1.0)
        if b.eta > 0:
            over: float | None = r.eta / b.eta
        else:
            over = 1.0 if r.eta == 0 else None
        rows.append(
            RouteRow(
                route=r.route,
                valid=r.valid,
                tightest=r.valid and r.route is b.route,
                eta=float(r.eta),
                accuracy=0.5 + float(r.eta),
                over_tightest=over,
                epsilon=r.epsilon,
                delta=r.delta,
                curve=source,
                tpr_at_levels=tuple(float(tpr[k]) for k in at),
                tpr=tpr,
            )
        )
    valid = [r for r in rows if r.valid]
    loosest = max(valid, key=lambda r: r.eta).route
    invalid = next((r.eta for r in rows if not r.valid), None)
    understated = None
    if invalid is not None and invalid > 0:
        understated = b.eta / invalid
    return tuple(rows), loosest, invalid, understated


def _fmt_query(x: float) -> str:
    return repr(float(x))


def _same_query(g: Guarantee, base: dict[str, str]) -> tuple[str | None, LinkBlock | None]:
    """The query that carries ``g`` itself to the ε page (its relation only when add/remove,
    as that page's own URL has it), or why there is none."""
    query: dict[str, str]
    if isinstance(g, EpsDelta):
        if not g.epsilon <= LINK_EPS_MAX:
            return None, LinkBlock.EPS_TOO_LARGE
        if not g.delta <= LINK_DELTA_MAX:
            return None, LinkBlock.DELTA_TOO_LARGE
        query = {"kind": "dp", "eps": _fmt_query(g.epsilon), "delta": _fmt_query(g.delta)}
    elif isinstance(g, Gdp):
        if not g.mu <= LINK_MU_MAX:
            return None, LinkBlock.MU_TOO_LARGE
        query = {"kind": "gdp", "mu": _fmt_query(g.mu)}
    elif isinstance(g, Zcdp):
        if not g.rho <= LINK_RHO_MAX:
            return None, LinkBlock.RHO_TOO_LARGE
        query = {"kind": "zcdp", "rho": _fmt_query(g.rho)}
    elif isinstance(g, Rdp):
        text = rdp_text(g.orders, g.values)
        if len(text) > RDP_MAX_CHARS or len(g.orders) > RDP_MAX_PAIRS:
            return None, LinkBlock.RDP_TOO_LONG
        read = parse_rdp(text)  # refused: e.g. an order above 10⁶ or the same order twice
        pairs = sorted(zip(g.orders, g.values, strict=True))
        if not read.ok or list(zip(read.orders, read.values, strict=True)) != pairs:
            return None, LinkBlock.NOT_TAKEN
        query = {"kind": "rdp", "rdp": text}
    elif isinstance(g, DpSgd):
        query = {
            "kind": "dpsgd",
            "sigma": _fmt_query(g.noise_multiplier),
            "q": _fmt_query(g.sampling_rate),
            "steps": str(g.steps),
        }
    else:  # a privacy profile
        return None, LinkBlock.NOT_TAKEN
    if getattr(g, "relation", Relation.REPLACE_ONE) is Relation.ADD_OR_REMOVE_ONE:
        query["rel"] = Relation.ADD_OR_REMOVE_ONE.value
    return urlencode({**query, **base}), None


def _link(
    g: Guarantee,
    b: AttackerBound,
    prior: float,
    replace_eps: float | None,
    replace_delta: float | None,
) -> StakeholderLink:
    prior_pct = float(f"{100.0 * prior:.12g}")
    lo, hi = _LINK_PRIOR_PCT
    prior_pct = min(max(prior_pct, lo), hi)
    base = {"prior": _fmt_query(prior_pct)}
    eta_query = urlencode({"kind": "mip", "eta": _fmt_query(b.eta), **base})
    eps: float | None
    dlt: float | None
    source: LinkSource | None
    if isinstance(g, EpsDelta):
        eps, dlt = replace_eps, replace_delta
        source = LinkSource.GROUP if g.relation is Relation.ADD_OR_REMOVE_ONE else LinkSource.INPUT
    else:
        point = next((r for r in b.routes if r.valid and r.route is Route.SINGLE_POINT), None)
        eps = None if point is None else point.epsilon
        dlt = None if point is None else point.delta
        source = (
            None
            if point is None
            else LinkSource.REFERENCE_POINT
            if point.delta == REFERENCE_DELTA
            else LinkSource.GROUP_POINT
        )
    blocked: LinkBlock | None = None
    if eps is None or dlt is None:
        blocked = LinkBlock.NO_POINT
    elif not eps <= LINK_EPS_MAX:
        blocked = LinkBlock.EPS_TOO_LARGE
    elif not dlt <= LINK_DELTA_MAX:
        blocked = LinkBlock.DELTA_TOO_LARGE
    eps_query = pair_eta = pair_ratio = None
    if blocked is None and eps is not None and dlt is not None:
        eps_query = urlencode(
            {"kind": "dp", "eps": _fmt_query(eps), "delta": _fmt_query(dlt), **base}
        )
        pair_eta = float(eta_from_epsilon(eps, dlt))
        pair_ratio = pair_eta / b.eta if b.eta > 0 else None
    same_query, same_blocked = _same_query(g, base)
    return StakeholderLink(
        path=WHAT_EPS_MEANS_PATH,
        prior_pct=prior_pct,
        eta=b.eta,
        eta_query=eta_query,
        epsilon=eps,
        delta=dlt,
        source=source,
        blocked=blocked,
        eps_query=eps_query,
        pair_eta=pair_eta,
        pair_ratio=pair_ratio,
        same_query=same_query,
        same_blocked=same_blocked,
    )


@dataclass(frozen=True)
class Conversion:
    """A guarantee converted by every route: the part of a :class:`RiskReport` that does not
    depend on the prior (the seconds of work for zCDP, Rényi DP, DP-SGD and μ-GDP's curves).

    Attributes
    ----------
    guarantee : the guarantee converted.
    bound : its :func:`mipcore.guarantees.attacker_bound`.
    routes : every route's row with its ROC curve on ``bound.roc_fpr``.
    loosest_route, invalid_eta, understated_by : as in :class:`RiskReport`.
    """

    guarantee: Guarantee
    bound: AttackerBound
    routes: tuple[RouteRow, ...]
    loosest_route: Route
    invalid_eta: float | None
    understated_by: float | None


def convert(
    guarantee: Guarantee, *, progress: Callable[[float, str], None] | None = None
) -> Conversion:
    """Convert ``guarantee`` by every route (:func:`mipcore.guarantees.attacker_bound`) and
    draw each route's ROC bound; :func:`report_at` then reads it at a prior in microseconds.

    Parameters
    ----------
    guarantee : a guarantee of :mod:`mipcore.guarantees` (validated on construction).
    progress : optional ``progress(fraction, message)`` callback (the page's job runner).

    Raises
    ------
    ValueError
        If ``guarantee`` is not a guarantee (from :func:`~mipcore.guarantees.attacker_bound`).

    Examples
    --------
    >>> c = convert(Zcdp(0.5))
    >>> c.bound.route.value, len(c.routes) == len(c.bound.routes)
    ('renyi_tradeoff', True)
    """
    if progress is not None:
        progress(0.05, "converting the guarantee by every route")
    b = attacker_bound(guarantee)
    if progress is not None:
        progress(0.75, "drawing each route's ROC bound")
    rows, loosest, invalid_eta, understated = _rows(
        guarantee, b, np.asarray(b.roc_fpr, dtype=float)
    )
    if progress is not None:
        progress(1.0, "done")
    return Conversion(guarantee, b, rows, loosest, invalid_eta, understated)


def risk_report(
    guarantee: Guarantee,
    *,
    prior: float = 0.01,
    ppv_fpr: float = 0.01,
    progress: Callable[[float, str], None] | None = None,
) -> RiskReport:
    r"""A guarantee in attacker terms, with every route and the reading at a prior:
    :func:`report_at` of :func:`convert`.

    Parameters
    ----------
    guarantee : :class:`~mipcore.guarantees.EpsDelta`, :class:`~mipcore.guarantees.Profile`,
        :class:`~mipcore.guarantees.Gdp`, :class:`~mipcore.guarantees.Zcdp`,
        :class:`~mipcore.guarantees.Rdp` or :class:`~mipcore.guarantees.DpSgd` (validated on
        construction).
    prior : float, ``0 < prior < 1``: the membership prior π (the share of the population
        in the data).
    ppv_fpr : float, one of :data:`mipcore.guarantees.FPR_LEVELS` (0.001, 0.01, 0.1): the
        FPR at which the precision of a naming rule is stated.
    progress : optional ``progress(fraction, message)`` callback (the page's job runner).

    Returns
    -------
    RiskReport
        ``eta``, ``tpr_at_fpr``, ``roc_*`` and every route's η are those of
        :func:`mipcore.guarantees.attacker_bound`; the report adds each route's ROC curve,
        the looseness, the prior's reading and the links.

    Raises
    ------
    ValueError
        If ``guarantee`` is not a guarantee, ``prior`` is not in (0, 1) or ``ppv_fpr`` is not
        one of the FPR levels (the message names the parameter).

    Notes
    -----
    A pure ε-DP guarantee (replace-one ε, or 2ε for add/remove) bounds the likelihood ratio
    of every outcome by e^ε, hence the posterior of every named person. Every other kind
    (δ > 0, GDP, zCDP, Rényi DP, DP-SGD) allows outcomes with an arbitrarily large ratio, so
    the worst-case posterior is 1; the precision of a rule that wrongly accuses a share f of
    non-members is at most π T(f)/(π T(f) + (1 − π) f), with T the TPR bound at f.

    Examples
    --------
    >>> r = risk_report(EpsDelta(1.0, 1e-5), prior=0.01)
    >>> round(r.eta, 4), r.route.value, r.link.eps_query
    (0.2311, 'theorem4', 'kind=dp&eps=1.0&delta=1e-05&prior=1.0')
    >>> r = risk_report(Gdp(1.0))
    >>> r.route.value, round(r.looseness, 2), r.confidence_kind.value
    ('gdp_closed_form', 2.55, 'precision')
    """
    pi, f = _reading(prior, ppv_fpr)  # refused before the seconds of converting
    return _report(convert(guarantee, progress=progress), pi, f)


def _reading(prior: float, ppv_fpr: float) -> tuple[float, float]:
    pi = float(
        check_range(
            "prior",
            prior,
            0.0,
            1.0,
            lo_open=True,
            hi_open=True,
            hint="the share of the population in the data",
        )
    )
    f = float(check_range("ppv_fpr", ppv_fpr, 0.0, 1.0, lo_open=True))
    if f not in FPR_LEVELS:
        raise ValueError(f"ppv_fpr={ppv_fpr!r} is not one of the FPR levels {FPR_LEVELS}")
    return pi, f


def report_at(conversion: Conversion, *, prior: float = 0.01, ppv_fpr: float = 0.01) -> RiskReport:
    """The :class:`RiskReport` of a converted guarantee at the prior ``prior`` and the naming
    FPR ``ppv_fpr`` (as :func:`risk_report`, whose parameters and notes apply): no conversion
    is repeated, so a page can move the prior instantly.

    Examples
    --------
    >>> c = convert(Zcdp(0.5))
    >>> report_at(c, prior=0.1) == risk_report(Zcdp(0.5), prior=0.1)
    True
    """
    if not isinstance(conversion, Conversion):
        raise ValueError(f"conversion must be a Conversion (from convert), got {conversion!r}")
    return _report(conversion, *_reading(prior, ppv_fpr))


def _report(conversion: Conversion, pi: float, f: float) -> RiskReport:
    """:func:`report_at` with its values checked."""
    g, b = conversion.guarantee, conversion.bound
    fpr = np.asarray(b.roc_fpr, dtype=float)
    ar = getattr(g, "relation", Relation.REPLACE_ONE) is Relation.ADD_OR_REMOVE_ONE
    replace_eps = replace_delta = replace_mu = replace_rho = None
    pure_eps: float | None = None
    if isinstance(g, EpsDelta):
        if ar:
            replace_eps = 2.0 * g.epsilon
            replace_delta = min(1.0, (1.0 + math.exp(min(g.epsilon, 700.0))) * g.delta)
        else:
            replace_eps, replace_delta = g.epsilon, g.delta
        if g.delta == 0.0:
            pure_eps = replace_eps
    elif isinstance(g, Gdp):
        replace_mu = 2.0 * g.mu if ar else g.mu
    elif isinstance(g, Zcdp):
        replace_rho = 4.0 * g.rho if ar else g.rho
    reference = next(
        (r.epsilon for r in b.routes if r.valid and r.route is Route.SINGLE_POINT), None
    )

    i = FPR_LEVELS.index(f)
    t = float(b.tpr_at_fpr[i])
    ppv = _ppv(pi, f, t)
    if pure_eps is not None:
        kind, worst = Confidence.POSTERIOR, float(member_posterior_bound(pi, epsilon=pure_eps))
    elif b.eta == 0.0:
        # η = 0 bounds the total variation between the releases with and without a person by
        # 0: they are the same law, so every posterior is the prior (as the stakeholder page)
        kind, worst = Confidence.POSTERIOR, pi
    else:
        kind, worst = Confidence.PRECISION, 1.0

    epochs = sampling_eta = None
    if isinstance(g, DpSgd):
        epochs = g.steps * g.sampling_rate
        q = g.sampling_rate
        tv = 1.0 if q >= 1.0 else -math.expm1(g.steps * math.log1p(-q))
        sampling_eta = 0.5 * tv
    looseness = b.looseness
    return RiskReport(
        kind=b.kind,
        relation=b.relation,
        guarantee=g,
        eta=b.eta,
        accuracy=b.accuracy,
        advantage=2.0 * b.eta,
        route=b.route,
        loosest_route=conversion.loosest_route,
        looseness=looseness if math.isfinite(looseness) else None,
        routes=conversion.routes,
        invalid_eta=conversion.invalid_eta,
        understated_by=conversion.understated_by,
        fpr_levels=tuple(b.fpr_levels),
        tpr_at_fpr=tuple(float(x) for x in b.tpr_at_fpr),
        roc_fpr=fpr,
        roc_tpr=np.asarray(b.roc_tpr, dtype=float),
        prior=pi,
        ppv_fpr=f,
        ppv_tpr=t,
        ppv=ppv,
        confidence_kind=kind,
        worst_posterior=worst,
        replace_epsilon=replace_eps,
        replace_delta=replace_delta,
        replace_mu=replace_mu,
        replace_rho=replace_rho,
        reference_epsilon=reference,
        reference_delta=REFERENCE_DELTA,
        epochs=epochs,
        sampling_only_eta=sampling_eta,
        pld_interval=b.pld_interval,
        link=_link(g, b, pi, replace_eps, replace_delta),
    )


# --------------------------------------------------------------------------- solve for noise


class Target(StrEnum):
    """What the noise multiplier is solved for."""

    ETA = "eta"  # a largest η (best accuracy 1/2 + η)
    TPR = "tpr"  # a largest TPR at a given FPR


@dataclass(frozen=True)
class NoiseSolution:
    """The smallest DP-SGD noise multiplier meeting a target (replace-one, Poisson sampling).

    ``target``: what was solved for; ``eta`` (Target.ETA) or ``tpr`` at ``fpr``
    (Target.TPR) is the target (the others None). ``noise_multiplier``: the answer, rounded
    up -- it meets the target, and ``noise_multiplier / (1 + tolerance)`` does not (relative
    ``tolerance`` = :data:`mipcore.guarantees.NOISE_TOLERANCE`); 0.0 when ``no_noise_needed``
    (the target is at or above what sampling alone guarantees: ``sampling_only_eta`` for
    Target.ETA, ``min(1, fpr + 2·sampling_only_eta)`` for Target.TPR). ``min_noise``: the
    searches never return a value in (0, ``min_noise``) (0.1). ``achieved_eta``: the η of the
    run with the answer's noise (:func:`mipcore.guarantees.eta_from_dpsgd`; the sampling-only
    η when no noise is needed). ``epochs = steps × sampling_rate``.
    """

    target: Target
    eta: float | None
    tpr: float | None
    fpr: float | None
    sampling_rate: float
    steps: int
    epochs: float
    noise_multiplier: float
    no_noise_needed: bool
    tolerance: float
    min_noise: float
    sampling_only_eta: float
    achieved_eta: float


def noise_for_target(
    target: Target | str,
    value: float,
    sampling_rate: float,
    steps: int,
    *,
    fpr: float | None = None,
) -> NoiseSolution:
    """The DP-SGD noise multiplier for a target η, or a target TPR at FPR ``fpr``.

    :func:`mipcore.guarantees.dpsgd_noise_for_eta` (``target="eta"``, ``value`` = η) or
    :func:`mipcore.guarantees.dpsgd_noise_for_tpr` (``target="tpr"``, ``value`` = TPR,
    ``fpr`` required), then the η of the answer.

    Parameters
    ----------
    target : Target or its value ("eta", "tpr").
    value : float, the target: ``1e-6 <= η < 1/2``, or ``fpr < TPR <= 1``.
    sampling_rate : float, ``0 < q <= 1`` (Poisson sampling).
    steps : int, ``1 <= T <= 10**7``.
    fpr : float, ``0 < fpr < 1`` (Target.TPR only).

    Returns
    -------
    NoiseSolution

    Raises
    ------
    ValueError
        On out-of-range input (the message names the parameter), or if the target needs a
        noise multiplier above 10⁹.

    Examples
    --------
    >>> s = noise_for_target("eta", 0.1, 1.0, 100)  # exact: 20/(2Φ⁻¹(0.6)) = 39.46
    >>> round(s.noise_multiplier, 1), s.achieved_eta <= 0.1
    (39.5, True)
    """
    try:
        t = Target(target)
    except ValueError:
        allowed = tuple(m.value for m in Target)
        raise ValueError(f"target={target!r} is not one of {allowed}") from None
    if t is Target.ETA:
        sigma = dpsgd_noise_for_eta(value, sampling_rate, steps)
        eta_t: float | None = float(value)
        tpr_t = fpr_t = None
    else:
        if fpr is None:
            raise ValueError("fpr=None: a TPR target needs the FPR it is stated at")
        sigma = dpsgd_noise_for_tpr(value, fpr, sampling_rate, steps)
        eta_t, tpr_t, fpr_t = None, float(value), float(fpr)
    q, n = float(sampling_rate), int(steps)
    tv = 1.0 if q >= 1.0 else -math.expm1(n * math.log1p(-q))
    achieved = 0.5 * tv if sigma == 0.0 else eta_from_dpsgd(sigma, q, n)
    return NoiseSolution(
        target=t,
        eta=eta_t,
        tpr=tpr_t,
        fpr=fpr_t,
        sampling_rate=q,
        steps=n,
        epochs=n * q,
        noise_multiplier=float(sigma),
        no_noise_needed=sigma == 0.0,
        tolerance=NOISE_TOLERANCE,
        min_noise=PLD_MIN_NOISE,
        sampling_only_eta=0.5 * tv,
        achieved_eta=float(achieved),
    )
