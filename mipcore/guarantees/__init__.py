r"""Any privacy guarantee in attacker terms: the best membership attacker's edge and ROC.

A privacy engineer arrives with an (ε, δ) pair, a privacy profile, a μ-GDP or ρ-zCDP
parameter, Rényi-DP values at a few orders, or a DP-SGD run (noise multiplier,
Poisson sampling rate, steps). This module turns each into

* ``eta`` -- the best membership attacker's accuracy edge over 1/2 at prior 1/2
  (η-MIP, Definition 1 of Izzo et al. with k = n/2), and
* the largest true-positive rate any attacker reaches at a given false-positive rate.

Why one number per pair of neighbours suffices
----------------------------------------------
In the MIP game the training set is a uniformly random half of the data. Lemma 12 of
Izzo et al. pairs every half without the target x* with a half that contains it and
differs in *one replaced record*. The attacker's error is the average, over these pairs,
of its two error rates on the pair; for one pair of output distributions (P, Q) the two
rates sum to at least ``1 − TV(P, Q)``. Hence

    accuracy ≤ 1/2 + sup TV / 2,     i.e.   η = (1/2) · sup over replace-one pairs of TV,

and TV is the hockey-stick divergence at ε = 0: ``η = δ(0)/2`` for the privacy profile
δ(ε) of the replace-one relation. Theorem 4 (``mipcore.bounds.eta_from_epsilon``) is the
largest TV an (ε, δ)-DP pair can have, halved. For the ROC: each pair's (FPR, TPR) lies in
the pair's trade-off region; the game's (FPR, TPR) is their average, and the region
``TPR ≤ g(FPR)`` with g concave is convex, so any symmetric trade-off bound g valid for
replace-one pairs bounds the game's TPR at every FPR (Theorem 8 of the paper, corrected
in ``mipcore.bounds.tpr_bound_mip``, is the weaker consequence TPR ≤ FPR + 2η).

**Neighbouring relation.** Everything above needs the guarantee for *replace-one*
neighbours (same dataset size, one record swapped). Most DP-SGD libraries report
add-or-remove guarantees. A replacement is a removal followed by an addition, so an
add/remove guarantee is converted by group privacy for groups of two: μ → 2μ for GDP
(Dong, Roth & Su, group privacy), ρ → 4ρ for zCDP (Bun & Steinke, group privacy), and the
trade-off bound g → g∘g otherwise (Dong, Roth & Su, Theorem 2.14; for a single (ε, δ)
point also the classical (2ε, (1 + e^ε)δ)). Each guarantee class carries a ``relation``
field; the DP-SGD route computes the replace-one relation directly.

**Noise-multiplier convention.** DP-SGD's noise multiplier is the Opacus/TF-Privacy one:
per-step noise standard deviation = noise multiplier × clipping norm C. Replacing a record
moves the clipped gradient sum by up to 2C, so full-batch DP-SGD (sampling rate 1) with
noise multiplier σ for T steps is exactly μ-GDP with **μ = 2√T/σ** for the replace-one
relation (√T/σ is its add/remove value). The covariance experiment
(``mipcore.lessons.figure2``) instead scales its noise to the replace sensitivity 2C; its
multiplier z equals σ/2 here.

Routes
------
:func:`attacker_bound` evaluates, for one guarantee, every route that applies (:class:`Route`)
and keeps the smallest valid η; the ``routes`` field lists them side by side so a page
can show how much a loose conversion overstates the risk. Every route is a valid upper
bound on the same quantity; only :attr:`Route.ADD_REMOVE_AS_REPLACE` (the add/remove
number used as if it were replace-one) is marked ``valid=False``, to show what ignoring the
relation would report.

References
----------
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4 and Lemma 12).
- Kairouz, Oh, Viswanath. *The Composition Theorem for Differential Privacy*. ICML 2015,
  arXiv:1311.0776 (the (ε, δ) hypothesis-testing region, Theorem 2.1).
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
- Balle, Wang. *Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising*. ICML 2018, arXiv:1805.06530.
- Bun, Steinke. *Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds*. TCC 2016, arXiv:1605.02065.
- Mironov. *Rényi Differential Privacy*. CSF 2017, arXiv:1702.07476.
- Canonne, Kamath, Steinke. *The Discrete Gaussian for Differential Privacy*. NeurIPS 2020,
  arXiv:2004.00010.
- Balle, Barthe, Gaboardi, Hsu, Sato. *Hypothesis Testing Interpretations and Rényi
  Differential Privacy*. AISTATS 2020, arXiv:1905.09982.
- Zhu, Dong, Wang. *Optimal Accounting of Differential Privacy via Characteristic
  Function*. AISTATS 2022, arXiv:2106.08567.
- Koskela, Jälkö, Honkela. *Computing Tight Differential Privacy Guarantees Using FFT*.
  AISTATS 2020, arXiv:1906.03049; Doroshenko, Ghazi, Kamath, Kumar, Manurangsi. *Connect
  the Dots: Tighter Discrete Approximations of Privacy Loss Distributions*. PETS 2022,
  arXiv:2207.04380 (the privacy-loss-distribution accountant of ``dp_accounting``).
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang. *Deep Learning with
  Differential Privacy*. CCS 2016, arXiv:1607.00133.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special
from scipy.stats import norm

from .._validate import check_int, check_range, scalar_or_array
from ..bounds import eta_from_epsilon, tpr_bound_dp

__all__ = [
    "FPR_LEVELS",
    "NOISE_TOLERANCE",
    "PLD_MIN_NOISE",
    "PLD_RESOLUTION",
    "REFERENCE_DELTA",
    "AttackerBound",
    "DpSgd",
    "EpsDelta",
    "Gdp",
    "Guarantee",
    "Kind",
    "Profile",
    "Rdp",
    "Relation",
    "Route",
    "RouteResult",
    "Zcdp",
    "attacker_bound",
    "delta_from_gdp",
    "delta_from_rdp",
    "delta_from_zcdp",
    "dpsgd_attacker_bound",
    "dpsgd_noise_for_eta",
    "dpsgd_noise_for_tpr",
    "epsilon_from_gdp",
    "eta_from_dpsgd",
    "eta_from_gdp",
    "eta_from_profile",
    "eta_from_rdp",
    "eta_from_zcdp",
    "tpr_bound_gdp",
    "tpr_bound_profile",
    "tpr_bound_rdp",
    "tpr_bound_zcdp",
]

FloatOrArray: TypeAlias = float | NDArray[np.float64]

#: False-positive rates at which :class:`AttackerBound` reports the TPR bound.
FPR_LEVELS: tuple[float, ...] = (0.001, 0.01, 0.1)
#: The δ of the "single (ε, δ) point" routes (the customary 1e-5).
REFERENCE_DELTA = 1e-5
#: PLD discretisation: ``value_discretization_interval = PLD_RESOLUTION × (per-step loss scale)``.
PLD_RESOLUTION = 0.05
_PLD_COARSE_RESOLUTION = 0.4  # bracketing phase of the inverse searches only
_PLD_MAX_INTERVAL = 3e-2
#: Below this noise multiplier the DP-SGD routes use the sampling-only bound (see eta_from_dpsgd).
PLD_MIN_NOISE = 0.1
#: Relative tolerance of the noise-multiplier searches (the answer is rounded up).
NOISE_TOLERANCE = 1e-3
_MAX_STEPS = 10**7
_PLD_PROFILE_POINTS = 128
# ε grid for profile routes: 0 (the total variation), then geometric up to 60 (Theorem 4 is
# within 1e-26 of 1/2 beyond that). Each grid point is a valid (ε, δ(ε)) pair, so the minimum
# over the grid is a valid bound whatever the grid; a local refinement around the best point
# makes it accurate.
_EPS_GRID = np.concatenate(([0.0], np.geomspace(1e-6, 60.0, 600)))
# Rényi orders for zCDP (α = 1 is the Kullback-Leibler limit, implied by zCDP).
_ZCDP_ORDERS = np.concatenate(([1.0], 1.0 + np.geomspace(1e-3, 1e4, 113)))
# Orders over which the Canonne-Kamath-Steinke conversion of zCDP is minimised.
_CKS_ORDERS = 1.0 + np.geomspace(1e-4, 1e6, 1001)
# ROC grid: log-spaced for low-FPR plots, linear for ordinary ones, plus the reported levels.
_ROC_FPR = np.unique(
    np.concatenate(([0.0], np.logspace(-6.0, 0.0, 121), np.linspace(0.0, 1.0, 41), FPR_LEVELS))
)
_BISECT_STEPS = 90
_LOGIT_CAP = 800.0  # |logit| beyond which probabilities are 0 or 1 in float64
# Relative margin added to Rényi-route results: the divergences are evaluated to ~1e-12
# relative, so the bisection boundary may sit that far on the wrong side.
_ROUNDING_MARGIN = 1e-9


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


def _finite_nonneg(name: str, value: Any) -> float:
    return float(check_range(name, value, 0.0, math.inf, hi_open=True))


def _as_relation(value: Any) -> Relation:
    try:
        return Relation(value)
    except ValueError:
        allowed = tuple(m.value for m in Relation)
        raise ValueError(f"relation={value!r} is not one of {allowed}") from None


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


@dataclass(frozen=True)
class Zcdp:
    """ρ-zero-concentrated DP, ``0 <= rho < inf``."""

    rho: float
    relation: Relation = Relation.REPLACE_ONE

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", _finite_nonneg("rho", self.rho))
        object.__setattr__(self, "relation", _as_relation(self.relation))


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
    def looseness(self) -> float:
        """Loosest valid route's η over the tightest (1.0 when all agree; inf if η = 0 < max)."""
        etas = [r.eta for r in self.routes if r.valid]
        hi, lo = max(etas), min(etas)
        if hi == lo:
            return 1.0
        return math.inf if lo == 0.0 else hi / lo


# --------------------------------------------------------------------------- Gaussian DP


def eta_from_gdp(mu: ArrayLike) -> FloatOrArray:
    r"""MIP level of a μ-GDP mechanism (replace-one): :math:`\eta = \Phi(\mu/2) - 1/2`.

    A μ-GDP pair is at least as hard to tell apart as N(0, 1) from N(μ, 1), whose total
    variation is :math:`2\Phi(\mu/2) - 1`; η is half of it (module docstring). Evaluated as
    :math:`\tfrac12\,\mathrm{erf}(\mu/(2\sqrt2))`, which keeps full relative precision for
    tiny μ.

    Parameters
    ----------
    mu : float or array, ``0 <= mu <= inf`` (``inf`` gives 1/2). The GDP parameter for the
        replace-one relation (for an add/remove guarantee use 2μ, or :class:`Gdp`).

    Returns
    -------
    eta : float or ndarray in ``[0, 1/2]``.

    Raises
    ------
    ValueError
        If ``mu`` is negative or NaN.

    References
    ----------
    Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383
    (Corollary 2.13 for the profile). Izzo et al., TMLR 2024,
    arXiv:2211.06582, Theorem 4's pairing argument.

    Examples
    --------
    >>> round(eta_from_gdp(1.0), 6)
    0.191462
    >>> eta_from_gdp(0.0)
    0.0
    """
    m = check_range("mu", mu, 0.0, math.inf)
    eta = 0.5 * special.erf(m / (2.0 * math.sqrt(2.0)))
    return scalar_or_array(eta, mu)


def tpr_bound_gdp(fpr: ArrayLike, mu: ArrayLike) -> FloatOrArray:
    r"""Largest TPR at a given FPR under μ-GDP: :math:`1 - \Phi(\Phi^{-1}(1-\mathrm{FPR}) - \mu)`.

    Equal to :math:`\Phi(\Phi^{-1}(\mathrm{FPR}) + \mu)`, evaluated as
    ``norm.sf(norm.isf(fpr) - mu)``: both tails are computed directly, so FPR = 1e-300 and
    TPR near 1 keep their relative precision (no ``1 - tiny``).

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    mu : float or array, ``0 <= mu <= inf`` (``inf``: TPR 1 at every FPR).

    Returns
    -------
    tpr : float or ndarray, the trade-off curve's upper boundary.

    Raises
    ------
    ValueError
        If ``fpr`` is outside [0, 1] or ``mu`` negative.

    References
    ----------
    Dong, Roth, Su, arXiv:1905.02383, Equation (6) (the trade-off function G_μ).

    Examples
    --------
    >>> round(tpr_bound_gdp(0.01, 1.0), 6)
    0.092362
    >>> tpr_bound_gdp(1e-300, 1.0) > 1e-300
    True
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    m = check_range("mu", mu, 0.0, math.inf)
    f, m = np.broadcast_arrays(f, m)
    finite = np.isfinite(m)
    tpr = norm.sf(norm.isf(f) - np.where(finite, m, 0.0))
    tpr = np.where(finite, tpr, 1.0)
    return scalar_or_array(tpr, fpr, mu)


def delta_from_gdp(epsilon: ArrayLike, mu: ArrayLike) -> FloatOrArray:
    r"""Privacy profile of μ-GDP: :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2)`.

    Computed as :math:`\Phi(a)\,(-\mathrm{expm1}(\varepsilon + \log\Phi(b) - \log\Phi(a)))`
    with ``log_ndtr``, so it keeps relative precision where δ is tiny.

    Parameters
    ----------
    epsilon : float or array, ``0 <= epsilon <= inf``.
    mu : float or array, ``0 <= mu <= inf``.

    Returns
    -------
    delta : float or ndarray in [0, 1].

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    Balle, Wang. ICML 2018, arXiv:1805.06530, Theorem 8 (analytic Gaussian mechanism);
    Dong, Roth, Su, arXiv:1905.02383, Corollary 2.13.
    """
    e = check_range("epsilon", epsilon, 0.0, math.inf)
    m = check_range("mu", mu, 0.0, math.inf)
    e, m = np.broadcast_arrays(e, m)
    ok = (m > 0) & np.isfinite(m) & np.isfinite(e)
    ms = np.where(ok, m, 1.0)
    es = np.where(ok, e, 0.0)
    la = special.log_ndtr(-es / ms + ms / 2.0)
    lb = special.log_ndtr(-es / ms - ms / 2.0)
    d = np.exp(la) * -np.expm1(np.minimum(es + lb - la, 0.0))
    d = np.where(ok, d, np.where(np.isinf(m) & np.isfinite(e), 1.0, 0.0))
    return scalar_or_array(np.clip(d, 0.0, 1.0), epsilon, mu)


def epsilon_from_gdp(delta: ArrayLike, mu: ArrayLike) -> FloatOrArray:
    """Smallest ε with ``delta_from_gdp(ε, mu) <= delta`` (rounded up so it certifies).

    Parameters
    ----------
    delta : float or array, ``0 < delta <= 1``.
    mu : float or array, ``0 <= mu <= inf``.

    Returns
    -------
    epsilon : float or ndarray (0 when δ ≥ δ(0) = 2Φ(μ/2) − 1; inf when μ = inf).

    Raises
    ------
    ValueError
        If an argument is out of range.
    """
    d = check_range("delta", delta, 0.0, 1.0, lo_open=True)
    m = check_range("mu", mu, 0.0, math.inf)
    d, m = np.broadcast_arrays(d, m)
    out = np.empty(d.shape)
    for idx in np.ndindex(d.shape):
        out[idx] = _epsilon_from_gdp_scalar(float(d[idx]), float(m[idx]))
    return scalar_or_array(out, delta, mu)


def _epsilon_from_gdp_scalar(dl: float, mu: float) -> float:
    if mu == 0.0:
        return 0.0
    if math.isinf(mu):
        return 0.0 if dl >= 1.0 else math.inf

    def delta_at(e: float) -> float:
        return float(delta_from_gdp(e, mu))

    if delta_at(0.0) <= dl:
        return 0.0
    hi = mu * mu / 2.0 + mu * float(norm.isf(dl)) + 1.0  # δ(hi) <= Φ(−isf(δ) − 1/μ) < δ
    eps = float(optimize.brentq(lambda e: delta_at(e) - dl, 0.0, hi, xtol=1e-14, rtol=1e-14))
    while delta_at(eps) > dl:  # round up: the answer must certify
        eps = eps * (1.0 + 1e-12) + 1e-15
    return eps


# --------------------------------------------------------------------------- privacy profiles


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


def eta_from_profile(epsilons: ArrayLike, deltas: ArrayLike) -> float:
    r"""Tightest η over a privacy profile: the minimum of Theorem 4 over its points.

    The mechanism is (ε_i, δ_i)-DP for every listed i (replace-one), so each point alone
    certifies ``eta_from_epsilon(ε_i, δ_i)``; the minimum is never looser than any single
    point. If the profile is *tight* and includes ε = 0, δ(0) is the total variation and the
    ε = 0 point gives exactly ``TV/2``, the true η (module docstring): no other point can
    beat it, since each gives at least the largest TV its (ε, δ) allows.

    Parameters
    ----------
    epsilons : 1-d array, ``0 <= epsilon <= inf``.
    deltas : 1-d array (same length, or a scalar), ``0 <= delta <= 1``.

    Returns
    -------
    eta : float in [0, 1/2].

    Raises
    ------
    ValueError
        If an entry is out of range, the lengths differ, or the profile is empty.

    References
    ----------
    Izzo et al., TMLR 2024, arXiv:2211.06582, Theorem 4.

    Examples
    --------
    >>> eps = [0.0, 0.5, 1.0, 2.0]
    >>> round(eta_from_profile(eps, delta_from_gdp(eps, 1.0)), 6)  # = eta_from_gdp(1.0)
    0.191462
    >>> round(eta_from_profile(eps[1:], delta_from_gdp(eps[1:], 1.0)), 6)  # without ε = 0
    0.212473
    """
    e, d = _as_profile(epsilons, deltas)
    return float(np.min(eta_from_epsilon(e, d)))


def tpr_bound_profile(fpr: ArrayLike, epsilons: ArrayLike, deltas: ArrayLike) -> FloatOrArray:
    """Largest TPR at ``fpr`` over the intersection of the profile points' (ε, δ) regions.

    The minimum over points of :func:`mipcore.bounds.tpr_bound_dp` (Kairouz, Oh & Viswanath,
    Theorem 2.1). With a fine ε grid of a tight profile this is the trade-off curve itself
    (Dong, Roth & Su, Proposition 2.12).

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    epsilons, deltas : the profile, as in :func:`eta_from_profile`.

    Returns
    -------
    tpr : float or ndarray shaped like ``fpr``.

    Raises
    ------
    ValueError
        As :func:`eta_from_profile`, or if ``fpr`` is outside [0, 1].
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    e, d = _as_profile(epsilons, deltas)
    tpr = np.min(np.asarray(tpr_bound_dp(f[..., None], e, d)), axis=-1)
    return scalar_or_array(tpr, fpr)


def _profile_route_eta(delta_fn: Callable[[np.ndarray], np.ndarray], group: bool) -> float:
    """min over ε of Theorem 4 at (ε, δ(ε)); with ``group`` each point is mapped to replace-one.

    Grid ``_EPS_GRID``, then a bounded scalar refinement between the best point's neighbours.
    Every evaluated ε is a valid point, so the result is a valid bound.
    """

    def etas(eps: np.ndarray) -> np.ndarray:
        d = np.clip(delta_fn(eps), 0.0, 1.0)
        if group:  # (ε, δ) add/remove ⇒ (2ε, (1 + e^ε)δ) replace-one
            with np.errstate(over="ignore"):
                d = np.minimum(1.0, (1.0 + np.exp(eps)) * d)
            eps = 2.0 * eps
        return np.asarray(eta_from_epsilon(eps, d), dtype=float)

    grid = _EPS_GRID
    vals = etas(grid)
    i = int(np.argmin(vals))
    best = float(vals[i])
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    if hi > lo:
        res = optimize.minimize_scalar(
            lambda x: float(etas(np.array([x]))[0]),
            bounds=(lo, hi),
            method="bounded",
            options={"xatol": 1e-9 + 1e-6 * lo},
        )
        best = min(best, float(res.fun))
    return best


# --------------------------------------------------------------------------- Rényi machinery


def _as_rdp(orders: ArrayLike, rdp_values: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    o = check_range("orders", orders, 1.0, math.inf, lo_open=True, hi_open=True)
    v = check_range("rdp_values", rdp_values, 0.0, math.inf)
    if o.ndim > 1 or v.ndim > 1:
        raise ValueError(f"orders and rdp_values must be 1-d, got shapes {o.shape} and {v.shape}")
    o, v = _paired("orders", o, "rdp_values", v, np.ndim(rdp_values) == 0)
    if o.size == 0:
        raise ValueError("orders=[] is empty: give at least one (order, value) pair")
    return np.array(o, dtype=float), np.array(v, dtype=float)


def _log_expit(u: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -u)  # log σ(u)


def _log_expit_neg(u: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, u)  # log(1 − σ(u))


def _renyi_excess(
    alpha: np.ndarray,
    r: np.ndarray,
    lt: np.ndarray,
    l1t: np.ndarray,
    la: np.ndarray,
    l1a: np.ndarray,
) -> np.ndarray:
    """> 0 iff D_α(Bern(t) ‖ Bern(a)) > r (α = 1: Kullback-Leibler). Inputs are logs.

    For α > 1 compares ``log Σ`` with ``(α − 1) r``, Σ = t·(t/a)^{α−1} + (1−t)·((1−t)/(1−a))^{α−1}.
    Where the exponents are small, ``log Σ = log1p(t·expm1(c ℓ₁) + (1−t)·expm1(c ℓ₂))``
    (c = α − 1) keeps relative precision -- the naive log-sum-exp loses all of it when
    (α − 1)·D is ~1e-11 -- elsewhere log-sum-exp avoids overflow. r = inf never binds.
    """
    kl = alpha == 1.0
    c = np.where(kl, 1.0, alpha - 1.0)
    with np.errstate(invalid="ignore", over="ignore"):
        l1, l2 = lt - la, l1t - l1a
        t, u = np.exp(lt), np.exp(l1t)
        big = np.logaddexp(lt + c * l1, l1t + c * l2)
        small = np.log1p(
            np.where(t > 0, t * np.expm1(np.minimum(c * l1, 1.0)), 0.0)
            + np.where(u > 0, u * np.expm1(np.minimum(c * l2, 1.0)), 0.0)
        )
        use_small = np.maximum(np.where(t > 0, c * l1, -np.inf), np.where(u > 0, c * l2, -np.inf))
        s = np.where(use_small < 1.0, small, big) - c * r
        klv = np.where(t > 0, t * l1, 0.0) + np.where(u > 0, u * l2, 0.0) - r
    out = np.where(kl, klv, s)
    return np.where(np.isinf(r), -np.inf, out)


_PINSKER_BELOW = 1e-8


def _renyi_eta(alpha: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Largest TV/2 of a pair with D_α ≤ r both ways, elementwise (tight; binary pairs attain it).

    The feasible (FPR, TPR) region is convex (Rényi divergence is jointly quasi-convex) and
    symmetric under (a, t) → (1 − t, 1 − a), so TPR − FPR is largest at t = 1 − a: the pair
    Bern(1 − a), Bern(a). Bisection on u = logit(a) ∈ [−800, 0]; the feasible end is kept
    and a relative margin of 1e-9 added, so the returned η is an upper bound.
    """
    alpha, r = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(r, float))
    lo = np.full(alpha.shape, -_LOGIT_CAP)
    hi = np.zeros(alpha.shape)

    def excess(u: np.ndarray) -> np.ndarray:
        la, l1a = _log_expit(u), _log_expit_neg(u)
        return _renyi_excess(alpha, r, l1a, la, la, l1a)  # t = 1 − a

    free = excess(lo) <= 0
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        bad = excess(mid) > 0
        lo = np.where(bad, mid, lo)
        hi = np.where(bad, hi, mid)
    hi = np.where(free, -_LOGIT_CAP, hi)
    eta = 0.5 * np.tanh(-0.5 * hi)  # 1/2 − σ(u), accurate near u = 0
    eta = np.minimum(0.5, eta * (1.0 + _ROUNDING_MARGIN))  # float rounding in the divergences
    # Below r ~ 1e-8 the divergences cancel in float64 and the bisection can end at u = 0
    # (η = 0: unsound). There Pinsker's inequality is used instead: D_α >= KL for α > 1 and
    # TV <= sqrt(KL/2), so η = TV/2 <= ½·sqrt(r/2) -- a valid upper bound for every pair.
    pinsker = 0.5 * np.sqrt(0.5 * r)
    return np.where(r < _PINSKER_BELOW, pinsker, eta)


def _renyi_tpr(a: np.ndarray, alpha: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Largest t ≥ a with D_α(Bern(t)‖Bern(a)) ≤ r and D_α(Bern(a)‖Bern(t)) ≤ r; 0 < a < 1.

    Both divergences grow with t on [a, 1]; bisection on v = logit(t) keeps the infeasible
    end (plus a margin of 1e-9·(t − a)), so the returned TPR is an upper bound.
    """
    a, alpha, r = np.broadcast_arrays(
        np.asarray(a, float), np.asarray(alpha, float), np.asarray(r, float)
    )
    la, l1a = np.log(a), np.log1p(-a)
    lo = la - l1a
    hi = np.full(a.shape, _LOGIT_CAP)

    def excess(v: np.ndarray) -> np.ndarray:
        lt, l1t = _log_expit(v), _log_expit_neg(v)
        return np.maximum(
            _renyi_excess(alpha, r, lt, l1t, la, l1a), _renyi_excess(alpha, r, la, l1a, lt, l1t)
        )

    free = excess(hi) <= 0
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        bad = excess(mid) > 0
        hi = np.where(bad, mid, hi)
        lo = np.where(bad, lo, mid)
    t = special.expit(hi)
    t = np.minimum(1.0, t + _ROUNDING_MARGIN * (t - a))  # float rounding in the divergences
    return np.where(free, 1.0, t)


def _tradeoff_tpr(f: np.ndarray, orders: np.ndarray, values: np.ndarray) -> np.ndarray:
    """TPR bound at FPRs ``f`` from Rényi bounds at ``orders``: minimum over orders."""
    flat = f.ravel()
    if np.all(np.isinf(values)):
        return np.ones(f.shape)
    out = np.where(flat >= 1.0, 1.0, 0.0)
    inner = (flat > 0.0) & (flat < 1.0)
    if inner.any():
        tpr = _renyi_tpr(flat[inner][:, None], orders[None, :], values[None, :])
        out[inner] = np.min(tpr, axis=1)
    return out.reshape(f.shape)


# --------------------------------------------------------------------------- Rényi DP


def eta_from_rdp(orders: ArrayLike, rdp_values: ArrayLike) -> float:
    r"""Tightest η implied by Rényi-DP values (α_i, ε_i), replace-one.

    Converts the Rényi bounds straight into a bound on total variation, without an (ε, δ)
    detour. By data processing, a test with error rates (a, 1 − t) turns the pair into
    Bern(t) vs Bern(a) with :math:`D_\alpha \le \varepsilon(\alpha)` both ways (the hypothesis-
    testing reading of RDP: Balle et al. 2020; Zhu, Dong & Wang 2022, Appendix F). The
    feasible region is convex and symmetric, so TV is largest on a symmetric pair
    Bern(1 − a), Bern(a), found by bisection for each order; the largest feasible a over all
    orders gives :math:`\eta = 1/2 - a`. The bound is **tight** for the information given:
    that binary pair itself satisfies every listed Rényi bound and has this TV. It is never
    looser than the (ε, δ) conversions (Mironov; Canonne, Kamath & Steinke) followed by
    Theorem 4, which :func:`attacker_bound` shows side by side.

    At order 2 it has the closed form :math:`\eta = \tfrac12\sqrt{(e^{r}-1)/(e^{r}+3)}`.

    Parameters
    ----------
    orders : 1-d array, each ``1 < alpha < inf``.
    rdp_values : 1-d array (same length, or a scalar), each ``0 <= value <= inf``
        (``inf``: no information at that order). Replace-one values (for add/remove values
        use :class:`Rdp` with ``relation``).

    Returns
    -------
    eta : float in [0, 1/2], an upper bound (bisection keeps the feasible end, 90 steps).

    Raises
    ------
    ValueError
        If an order is not > 1, a value is negative, the lengths differ, or it is empty.

    References
    ----------
    Mironov. *Rényi Differential Privacy*. CSF 2017, arXiv:1702.07476. Balle, Barthe,
    Gaboardi, Hsu, Sato. AISTATS 2020, arXiv:1905.09982. Zhu, Dong, Wang. AISTATS 2022,
    arXiv:2106.08567, Appendix F.

    Examples
    --------
    >>> round(eta_from_rdp([2.0], [0.5]), 6)
    0.186781
    >>> round(eta_from_rdp([2.0, 4.0, 8.0], [0.1, 0.2, 0.4]), 6)
    0.08003
    """
    o, v = _as_rdp(orders, rdp_values)
    return float(np.min(_renyi_eta(o, v)))


def tpr_bound_rdp(fpr: ArrayLike, orders: ArrayLike, rdp_values: ArrayLike) -> FloatOrArray:
    """Largest TPR at ``fpr`` allowed by Rényi-DP values (replace-one; see :func:`eta_from_rdp`).

    For each order, the largest t with :math:`D_\\alpha(\\mathrm{Bern}(t)\\|\\mathrm{Bern}(a))`
    and the reverse divergence both within the bound (a = FPR); the minimum over orders.

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    orders, rdp_values : as :func:`eta_from_rdp`.

    Returns
    -------
    tpr : float or ndarray shaped like ``fpr`` (an upper bound).

    Raises
    ------
    ValueError
        As :func:`eta_from_rdp`, or if ``fpr`` is outside [0, 1].
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    o, v = _as_rdp(orders, rdp_values)
    return scalar_or_array(_tradeoff_tpr(f, o, v), fpr)


def delta_from_rdp(
    epsilon: ArrayLike,
    orders: ArrayLike,
    rdp_values: ArrayLike,
    conversion: Literal["improved", "mironov"] = "improved",
) -> FloatOrArray:
    r"""(ε, δ(ε)) profile implied by Rényi-DP values: the minimum over orders.

    ``"mironov"`` (Mironov 2017, Proposition 3):
    :math:`\delta = e^{(\alpha-1)(\varepsilon_\alpha - \varepsilon)}`.
    ``"improved"`` (Canonne, Kamath & Steinke 2020, Proposition 12; also Balle et al. 2020):
    :math:`\delta = \frac{e^{(\alpha-1)(\varepsilon_\alpha-\varepsilon)}}{\alpha}
    (1 - 1/\alpha)^{\alpha-1}`, the formula of ``dp_accounting.rdp.compute_delta`` (which
    also takes a minimum with a Kullback-Leibler bound; this function does not).

    Parameters
    ----------
    epsilon : float or array, ``0 <= epsilon <= inf``.
    orders, rdp_values : as :func:`eta_from_rdp`.
    conversion : "improved" or "mironov".

    Returns
    -------
    delta : float or ndarray in [0, 1], shaped like ``epsilon``.

    Raises
    ------
    ValueError
        On out-of-range input or an unknown ``conversion``.
    """
    e = check_range("epsilon", epsilon, 0.0, math.inf)
    o, v = _as_rdp(orders, rdp_values)
    if conversion not in ("improved", "mironov"):
        raise ValueError(f"conversion={conversion!r} is not one of ('improved', 'mironov')")
    ee = e[..., None]
    with np.errstate(invalid="ignore"):
        logd = (o - 1.0) * (v - ee)
    logd = np.where(np.isinf(v), math.inf, logd)
    if conversion == "improved":
        logd = logd + (o - 1.0) * np.log1p(-1.0 / o) - np.log(o)
    d = np.exp(np.minimum(np.min(logd, axis=-1), 0.0))
    return scalar_or_array(d, epsilon)


def _rdp_epsilon_at(delta: float, orders: np.ndarray, values: np.ndarray) -> float:
    """Smallest ε of the improved conversion at δ (dp_accounting's compute_epsilon formula)."""
    with np.errstate(divide="ignore"):
        eps = values + np.log1p(-1.0 / orders) - np.log(delta * orders) / (orders - 1.0)
    return float(max(0.0, np.min(eps)))


# --------------------------------------------------------------------------- zCDP


def eta_from_zcdp(rho: ArrayLike) -> FloatOrArray:
    r"""Tightest η of a ρ-zCDP mechanism (replace-one).

    ρ-zCDP means Rényi DP with :math:`\varepsilon(\alpha) = \rho\alpha` at every order α > 1
    (Bun & Steinke 2016, Definition 1.1), hence also :math:`D_{KL} \le \rho` (α → 1). The
    Rényi-to-trade-off reduction of :func:`eta_from_rdp` is applied over a grid of 114
    orders (α = 1 and 1 + 10^-3 … 1 + 10^4) with a local refinement; each order is a valid
    constraint, so the result is an upper bound, and it is attained by a binary
    (randomised-response) pair, so it is tight. In every case tried the α → 1 (KL)
    constraint binds, giving :math:`\eta = x/2` with :math:`2x\,\mathrm{artanh}(x) = \rho`.

    **ρ-zCDP does not imply √(2ρ)-GDP.** The Gaussian mechanism with μ = √(2ρ) is ρ-zCDP,
    but so is a randomised-response pair with a larger total variation: this η exceeds
    ``eta_from_gdp(sqrt(2*rho))`` (for small ρ, √(ρ/2)/2 against √(ρ/π)/2).

    Parameters
    ----------
    rho : float or array, ``0 <= rho <= inf``.

    Returns
    -------
    eta : float or ndarray in [0, 1/2].

    Raises
    ------
    ValueError
        If ``rho`` is negative or NaN.

    References
    ----------
    Bun, Steinke. TCC 2016, arXiv:1605.02065. Zhu, Dong, Wang. AISTATS 2022,
    arXiv:2106.08567, Appendix F.

    Examples
    --------
    >>> round(eta_from_zcdp(math.atanh(0.5)), 9)
    0.25
    >>> eta_from_zcdp(0.5) > eta_from_gdp(1.0)
    True
    """
    r = check_range("rho", rho, 0.0, math.inf)
    out = np.array([_zcdp_eta_scalar(float(x)) for x in r.ravel()]).reshape(r.shape)
    return scalar_or_array(out, rho)


def _zcdp_eta_scalar(rho: float) -> float:
    if rho == 0.0:
        return 0.0
    if math.isinf(rho):
        return 0.5
    etas = _renyi_eta(_ZCDP_ORDERS, rho * _ZCDP_ORDERS)
    i = int(np.argmin(etas))
    best = float(etas[i])
    if 0 < i < _ZCDP_ORDERS.size - 1:  # interior best order: refine in log(α − 1)
        lo = math.log(1e-7) if i == 1 else math.log(_ZCDP_ORDERS[i - 1] - 1.0)
        hi = math.log(_ZCDP_ORDERS[i + 1] - 1.0)

        def eta_at(x: float) -> float:
            a = 1.0 + math.exp(x)
            return float(_renyi_eta(np.array(a), np.array(rho * a)))

        res = optimize.minimize_scalar(eta_at, bounds=(lo, hi), method="bounded")
        best = min(best, float(res.fun))
    return best


def tpr_bound_zcdp(fpr: ArrayLike, rho: float) -> FloatOrArray:
    """Largest TPR at ``fpr`` under ρ-zCDP (replace-one; Rényi reduction over 114 orders).

    Parameters
    ----------
    fpr : float or array, ``0 <= fpr <= 1``.
    rho : float, ``0 <= rho <= inf``.

    Returns
    -------
    tpr : float or ndarray shaped like ``fpr`` (an upper bound).

    Raises
    ------
    ValueError
        If ``fpr`` is outside [0, 1], or ``rho`` is negative or not a scalar.
    """
    f = check_range("fpr", fpr, 0.0, 1.0)
    r = check_range("rho", rho, 0.0, math.inf)
    if r.ndim:
        raise ValueError(f"rho must be a scalar, got shape {r.shape}")
    rv = float(r)
    if rv == 0.0:
        return scalar_or_array(f.copy(), fpr)
    if math.isinf(rv):
        return scalar_or_array(np.ones(f.shape), fpr)
    return scalar_or_array(_tradeoff_tpr(f, _ZCDP_ORDERS, rv * _ZCDP_ORDERS), fpr)


def delta_from_zcdp(
    epsilon: ArrayLike,
    rho: ArrayLike,
    conversion: Literal["improved", "bun_steinke"] = "improved",
) -> FloatOrArray:
    r"""(ε, δ(ε)) profile of ρ-zCDP.

    ``"bun_steinke"`` (Bun & Steinke 2016, Proposition 1.3: ρ-zCDP ⇒
    :math:`(\rho + 2\sqrt{\rho\log(1/\delta)}, \delta)`-DP), i.e.
    :math:`\delta(\varepsilon) = e^{-(\varepsilon-\rho)^2/(4\rho)}` for ε ≥ ρ.
    ``"improved"`` (Canonne, Kamath & Steinke 2020, Corollary 13):
    :math:`\delta = \min_{\alpha>1} \frac{e^{(\alpha-1)(\alpha\rho-\varepsilon)}}{\alpha-1}
    (1-1/\alpha)^{\alpha}`, minimised over 1001 orders 1 + 10^-4 … 1 + 10^6 and then 65 orders
    between the best one's neighbours (each order is a valid bound, so the minimum over the
    orders tried is too).

    Parameters
    ----------
    epsilon : float or array, ``0 <= epsilon <= inf``.
    rho : float or array, ``0 <= rho < inf``.
    conversion : "improved" or "bun_steinke".

    Returns
    -------
    delta : float or ndarray in [0, 1].

    Raises
    ------
    ValueError
        On out-of-range input or an unknown ``conversion``.
    """
    e = check_range("epsilon", epsilon, 0.0, math.inf)
    r = check_range("rho", rho, 0.0, math.inf, hi_open=True)
    if conversion not in ("improved", "bun_steinke"):
        raise ValueError(f"conversion={conversion!r} is not one of ('improved', 'bun_steinke')")
    e, r = np.broadcast_arrays(e, r)
    rs = np.where(r > 0, r, 1.0)
    es = np.where(np.isfinite(e), e, 0.0)
    if conversion == "bun_steinke":
        d = np.where(es >= rs, np.exp(-((es - rs) ** 2) / (4.0 * rs)), 1.0)
    else:

        def log_cks(a: np.ndarray) -> np.ndarray:
            return (
                (a - 1.0) * (a * rs[..., None] - es[..., None])
                - np.log(a - 1.0)
                + a * np.log1p(-1.0 / a)
            )

        grid = _CKS_ORDERS
        logd = log_cks(np.broadcast_to(grid, (*rs.shape, grid.size)))
        i = np.argmin(logd, axis=-1)
        lo, hi = grid[np.maximum(i - 1, 0)], grid[np.minimum(i + 1, grid.size - 1)]
        fine = lo[..., None] + (hi - lo)[..., None] * np.linspace(0.0, 1.0, 65)
        best = np.minimum(np.min(logd, axis=-1), np.min(log_cks(fine), axis=-1))
        d = np.exp(np.minimum(best, 0.0))
    d = np.where((r == 0) | np.isinf(e), 0.0, d)
    return scalar_or_array(d, epsilon, rho)


# --------------------------------------------------------------------------- group of two


def _group_eta(g: Callable[[np.ndarray], np.ndarray]) -> float:
    """η for replace-one from an add/remove TPR bound g: (1/2) sup_a [g(g(a)) − a].

    Dong, Roth & Su, Theorem 2.14: f-DP for add/remove gives 1 − (1 − f)∘(1 − f) for a
    replacement, i.e. TPR ≤ g(g(FPR)). g is concave and nondecreasing (the upper boundary of
    a convex region), so h(a) = g(g(a)) − a is concave: a 257-point grid locates the maximum,
    golden-section search narrows it to a bracket [a, b] of width 1e-10, and concavity bounds
    h on the bracket by the chord slopes at its best point, so the result is an upper bound
    (up to float rounding in g).
    """

    def h(x: np.ndarray) -> np.ndarray:
        return np.asarray(g(np.asarray(g(x), dtype=float)), dtype=float) - x

    grid = np.linspace(0.0, 1.0, 257)
    hv = h(grid)
    i = int(np.argmax(hv))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    invphi = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - invphi * (b - a), a + invphi * (b - a)
    hc, hd = h(np.array([c, d]))
    while b - a > 1e-10:
        if hc >= hd:
            b, d, hd = d, c, hc
            c = b - invphi * (b - a)
            hc = float(h(np.array([c]))[0])
        else:
            a, c, hc = c, d, hd
            d = a + invphi * (b - a)
            hd = float(h(np.array([d]))[0])
    x2, h2 = (c, hc) if hc >= hd else (d, hd)
    ha, hb = h(np.array([a, b]))
    up = 0.0
    if x2 > a:
        up = max(up, (h2 - ha) / (x2 - a) * (b - x2))
    if b > x2:
        up = max(up, (h2 - hb) / (b - x2) * (x2 - a))
    sup = max(float(np.max(hv)), float(h2) + max(up, 0.0), float(ha), float(hb))
    return float(np.clip(0.5 * sup, 0.0, 0.5))


# --------------------------------------------------------------------------- DP-SGD


def _check_dpsgd(noise_multiplier: Any, sampling_rate: Any, steps: Any) -> tuple[float, float, int]:
    s = float(
        check_range("noise_multiplier", noise_multiplier, 0.0, math.inf, lo_open=True, hi_open=True)
    )
    q = float(check_range("sampling_rate", sampling_rate, 0.0, 1.0, lo_open=True))
    t = check_int("steps", steps, 1, _MAX_STEPS)
    return s, q, t


def _pld_interval(sigma: float, q: float, resolution: float = PLD_RESOLUTION) -> float:
    """PLD grid step: ``resolution`` × the per-step privacy-loss scale 2q·√(e^{1/σ²} − 1).

    The scale is the central-limit μ of one replace-one step (the subsampled-Gaussian CLT of
    Dong, Roth & Su, Section 5, doubled for a replacement); at q = 1 and large σ it is 2/σ,
    the exact per-step μ.
    """
    scale = 2.0 * q * math.sqrt(math.expm1(min(1.0 / (sigma * sigma), 700.0)))
    return float(min(max(resolution * scale, 1e-12), _PLD_MAX_INTERVAL))


def _sampling_only_tv(q: float, steps: int) -> float:
    """P(the record is sampled at least once) = 1 − (1 − q)^T: bounds TV for any noise."""
    return 1.0 if q >= 1.0 else float(-math.expm1(steps * math.log1p(-q)))


def _pld_accountant(sigma: float, q: float, steps: int, relation: Relation, interval: float) -> Any:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    rel = (
        dp_accounting.NeighboringRelation.REPLACE_ONE
        if relation is Relation.REPLACE_ONE
        else dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    )
    acc = pld_privacy_accountant.PLDAccountant(rel, value_discretization_interval=interval)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )
    acc.compose(event)
    return acc


def _acc_delta(acc: Any, eps: float) -> float:
    return float(min(1.0, max(0.0, acc.get_delta(float(eps)))))


def _dpsgd_eta(sigma: float, q: float, steps: int, resolution: float = PLD_RESOLUTION) -> float:
    if q == 1.0:  # every step sees the record: exactly (2√T/σ)-GDP, no accountant needed
        return float(eta_from_gdp(2.0 * math.sqrt(steps) / sigma))
    tv = _sampling_only_tv(q, steps)
    if sigma < PLD_MIN_NOISE:
        return 0.5 * tv
    acc = _pld_accountant(
        sigma, q, steps, Relation.REPLACE_ONE, _pld_interval(sigma, q, resolution)
    )
    return min(0.5 * _acc_delta(acc, 0.0), 0.5 * tv)


def eta_from_dpsgd(noise_multiplier: float, sampling_rate: float, steps: int) -> float:
    r"""η of DP-SGD with Poisson sampling for MIP's replace-one relation.

    ``dp_accounting``'s PLD accountant (``PLDAccountant(REPLACE_ONE)`` composing
    ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)``) gives the
    privacy loss distribution of the pair q·N(−1, σ²) + (1 − q)·N(0, σ²) versus
    q·N(1, σ²) + (1 − q)·N(0, σ²) per step (the record's clipped gradient, C = 1, replaced
    by its opposite), composed T times. η = δ(0)/2, the total variation halved (module
    docstring). That this pair dominates every replacement (any two clipped gradients in
    the ball of radius C) is ``dp_accounting``'s model of REPLACE_ONE; the tests check it by
    brute force on a 2-d grid for one step (dominating pairs then compose: Zhu, Dong &
    Wang 2022). :func:`dpsgd_attacker_bound` also reports a route that needs only the
    add/remove pairs (:attr:`Route.PLD_ADD_REMOVE_GROUP`). Also: η ≤ (1 − (1 − q)^T)/2, since the output ignores a record that is never
    sampled; at q = 1 the composition is exactly (2√T/σ)-GDP, which is returned without the
    accountant (``eta_from_dpsgd(3.0, 1.0, 10**7)`` took about 280 s through it).

    Accuracy: the PLD uses pessimistic (connect-the-dots) discretisation with interval
    ``PLD_RESOLUTION`` (0.05) × the per-step loss scale 2q√(e^{1/σ²} − 1) (at most 0.03), so
    δ(0) is an upper bound up to float rounding in the FFT composition and the accountant's
    1e-15 tail truncation. Over σ ∈ {0.5, …, 100}, q ∈ {10⁻³, …, 1}, T ∈ {1, 100, 10⁴} its
    excess was 1.4·10⁻⁴ relative (median), 2.6·10⁻⁴ (90th percentile), 1.2·10⁻³ at worst
    (σ = 0.5), and it was never below the exact value where that is known (q = 1: GDP;
    T = 1: q·(2Φ(1/σ) − 1)). References elsewhere: the smallest value on grids 2 and 3 times
    finer; still finer grids get *worse* (float error in the FFT composition), which is why
    the grid is not refined further. For σ < 0.1 the PLD grid would be huge;
    there the sampling-only bound (1 − (1 − q)^T)/2 is returned, which such noise essentially
    attains (a sampled step then reveals the record: TV of N(±1, σ²) ≥ 1 − 10⁻²³).

    Parameters
    ----------
    noise_multiplier : float, ``> 0``. Noise std per step / clipping norm (Opacus/TF-Privacy).
    sampling_rate : float, ``0 < q <= 1``. Poisson sampling probability per step.
    steps : int, ``1 <= T <= 10**7``.

    Returns
    -------
    eta : float in [0, 1/2], an upper bound.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    Abadi et al. CCS 2016, arXiv:1607.00133. Koskela, Jälkö, Honkela. AISTATS 2020,
    arXiv:1906.03049. Doroshenko et al. PETS 2022, arXiv:2207.04380. Izzo et al. TMLR 2024,
    arXiv:2211.06582, Theorem 4.

    Examples
    --------
    >>> round(eta_from_dpsgd(20.0, 1.0, 100), 6)  # exactly Φ(1/2) − 1/2: μ = 2·10/20 = 1
    0.191462
    >>> 0.32 < eta_from_dpsgd(1.1, 0.01, 10_000) < 0.34
    True
    """
    s, q, t = _check_dpsgd(noise_multiplier, sampling_rate, steps)
    return _dpsgd_eta(s, q, t)


def _pld_profile(acc: Any, points: int) -> tuple[np.ndarray, np.ndarray]:
    """The PLD's (pessimistic) δ on ``points`` ε values in [0, ε(δ = 1e-10)]."""
    e_max = float(acc.get_epsilon(1e-10))
    if not math.isfinite(e_max) or e_max > 500.0:
        e_max = 500.0 if math.isfinite(e_max) else 50.0
    eps = np.linspace(0.0, max(e_max, 1e-9), points)
    deltas = np.array([_acc_delta(acc, x) for x in eps])
    return eps, deltas


def _pld_tpr(
    acc: Any,
    fprs: np.ndarray,
    points: int,
    refine: bool,
    hints: np.ndarray | None = None,
    profile: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """TPR bound at ``fprs`` from the envelope of the PLD's (ε, δ(ε)) regions.

    Without ``hints``: ``points`` ε values, then (``refine``) a bounded scalar minimisation
    between the best value's neighbours, per FPR. With ``hints`` (one ε > 0 per FPR, e.g. the
    best ε of a nearby noise multiplier): only a bounded minimisation on [ε/1.3, 1.3ε]. Every
    ε evaluated is a valid (ε, δ) point, so the result is a valid bound either way. Returns
    the TPR bounds and the best ε found for each FPR.
    """
    flat = fprs.ravel()
    best_eps = np.zeros(flat.shape)

    def tpr_at(f: float, x: float) -> float:
        return float(tpr_bound_dp(f, x, _acc_delta(acc, x)))

    def local(f: float, lo: float, hi: float, x0: float, v0: float) -> tuple[float, float]:
        res = optimize.minimize_scalar(
            lambda x: tpr_at(f, x),
            bounds=(lo, hi),
            method="bounded",
            options={"xatol": 1e-5 * (hi - lo)},
        )
        return (float(res.fun), float(res.x)) if float(res.fun) < v0 else (v0, x0)

    if hints is not None:
        tpr = np.empty(flat.shape)
        for k, (f, h) in enumerate(zip(flat, hints.ravel(), strict=True)):
            v0 = tpr_at(f, h)
            tpr[k], best_eps[k] = local(f, h / 1.3, h * 1.3, h, v0)
        return tpr.reshape(fprs.shape), best_eps.reshape(fprs.shape)
    eps, deltas = _pld_profile(acc, points) if profile is None else profile
    vals = np.asarray(tpr_bound_dp(flat[:, None], eps[None, :], deltas[None, :]))
    idx = np.argmin(vals, axis=1)
    tpr = vals[np.arange(flat.size), idx]
    best_eps = eps[idx]
    if refine:
        for k, f in enumerate(flat):
            i = int(idx[k])
            lo, hi = eps[max(i - 1, 0)], eps[min(i + 1, eps.size - 1)]
            if 0.0 < f < 1.0 and hi > lo:
                tpr[k], best_eps[k] = local(f, lo, hi, best_eps[k], tpr[k])
    return tpr.reshape(fprs.shape), best_eps.reshape(fprs.shape)


def _dpsgd_tpr(
    sigma: float,
    q: float,
    steps: int,
    fprs: np.ndarray,
    *,
    resolution: float = PLD_RESOLUTION,
    points: int = _PLD_PROFILE_POINTS,
    refine: bool = True,
    acc: Any = None,
    hints: np.ndarray | None = None,
    profile: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """TPR bound of DP-SGD at ``fprs``: PLD envelope ∧ sampling-only ∧ (q = 1) exact GDP."""
    tv = _sampling_only_tv(q, steps)
    tpr = np.asarray(tpr_bound_dp(fprs, 0.0, tv), dtype=float)
    best_eps = None
    if sigma >= PLD_MIN_NOISE:
        if acc is None:
            acc = _pld_accountant(
                sigma, q, steps, Relation.REPLACE_ONE, _pld_interval(sigma, q, resolution)
            )
        pld_tpr, best_eps = _pld_tpr(acc, fprs, points, refine, hints, profile)
        tpr = np.minimum(tpr, pld_tpr)
    if q == 1.0:
        tpr = np.minimum(tpr, np.asarray(tpr_bound_gdp(fprs, 2.0 * math.sqrt(steps) / sigma)))
    return tpr, best_eps


def dpsgd_attacker_bound(
    noise_multiplier: float, sampling_rate: float, steps: int
) -> AttackerBound:
    """:func:`attacker_bound` of ``DpSgd(noise_multiplier, sampling_rate, steps)``.

    Routes: :attr:`Route.PLD` (replace-one PLD, η = δ(0)/2; its ROC is the envelope of the
    PLD's (ε, δ(ε)) regions on 128 ε values), :attr:`Route.SAMPLING_ONLY`,
    :attr:`Route.SINGLE_POINT` (the PLD's ε at δ = 1e-5, then Theorem 4),
    :attr:`Route.PLD_ADD_REMOVE_GROUP` and :attr:`Route.RDP_ACCOUNTANT_GROUP` (add/remove
    accounting -- which ``dp_accounting`` proves for Poisson sampling -- then
    TV(replace) ≤ 2·TV(add/remove) by the triangle inequality; ``RdpAccountant`` rejects
    Poisson sampling with REPLACE_ONE), :attr:`Route.GDP_EXACT` at q = 1, and the
    not-valid :attr:`Route.ADD_REMOVE_AS_REPLACE` (the add/remove η, as if it were MIP's).

    Parameters and Raises as :func:`eta_from_dpsgd`.
    """
    return _dpsgd_bound(DpSgd(noise_multiplier, sampling_rate, steps))


def _dpsgd_bound(g: DpSgd) -> AttackerBound:
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    s, q, t = g.noise_multiplier, g.sampling_rate, g.steps
    tv = _sampling_only_tv(q, t)
    # Listed in order of preference: among routes with equal η the first is reported.
    routes = []
    if q == 1.0:
        routes.append(RouteResult(Route.GDP_EXACT, float(eta_from_gdp(2.0 * math.sqrt(t) / s))))
    interval = _pld_interval(s, q)
    acc = None
    invalid = []
    if s >= PLD_MIN_NOISE:
        acc = _pld_accountant(s, q, t, Relation.REPLACE_ONE, interval)
        routes.append(RouteResult(Route.PLD, 0.5 * _acc_delta(acc, 0.0)))
        eps5 = float(acc.get_epsilon(REFERENCE_DELTA))
        routes.append(
            RouteResult(
                Route.SINGLE_POINT,
                float(eta_from_epsilon(eps5, REFERENCE_DELTA)),
                epsilon=eps5,
                delta=REFERENCE_DELTA,
            )
        )
        acc_ar = _pld_accountant(s, q, t, Relation.ADD_OR_REMOVE_ONE, interval)
        tv_ar = _acc_delta(acc_ar, 0.0)
        routes.append(RouteResult(Route.PLD_ADD_REMOVE_GROUP, min(0.5, tv_ar)))
        invalid.append(RouteResult(Route.ADD_REMOVE_AS_REPLACE, 0.5 * tv_ar, valid=False))
    rdp_acc = rdp_privacy_accountant.RdpAccountant()
    rdp_acc.compose(
        dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), t
        )
    )
    rdp = np.asarray(rdp_acc.rdp, dtype=float)
    # NaN: orders the accountant gave up on. <= 0: float cancellation in the accountant (with
    # q > 0 the true value is positive, e.g. -2.4e-22 at sigma = 1e6, q = 1e-6): no information
    # at that order either -- reading it as 0 would claim eta = 0.
    rdp = np.where(np.isnan(rdp) | (rdp <= 0.0), math.inf, rdp)
    eta_ar = eta_from_rdp(rdp_acc.orders, rdp)
    routes.append(RouteResult(Route.RDP_ACCOUNTANT_GROUP, min(0.5, 2.0 * eta_ar)))
    routes.append(RouteResult(Route.SAMPLING_ONLY, 0.5 * tv))
    routes += invalid
    profile = None if acc is None else _pld_profile(acc, _PLD_PROFILE_POINTS)
    roc, _ = _dpsgd_tpr(s, q, t, _ROC_FPR, refine=False, acc=acc, profile=profile)
    at, _ = _dpsgd_tpr(s, q, t, np.array(FPR_LEVELS), refine=True, acc=acc, profile=profile)
    return _finish(
        Kind.DPSGD,
        Relation.REPLACE_ONE,
        routes,
        roc,
        at,
        pld_interval=interval if acc is not None else None,
    )


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


# --------------------------------------------------------------------------- inverse searches


def _noise_search(
    infeasible_at_zero: bool,
    value: Callable[[float, float], float],
    target: float,
    guess: float,
    name: str,
) -> float:
    """Smallest σ with value(σ, resolution) ≤ target; value decreasing in σ. Rounded up.

    Bracket and bisect on log σ with the coarse PLD grid (fast) to a 5 % bracket, then
    bisect with the standard grid to ``NOISE_TOLERANCE``; the returned σ is the upper end of
    the final bracket, where the standard-grid bound was checked to be ≤ target.
    """
    if not infeasible_at_zero:
        return 0.0
    coarse, fine = _PLD_COARSE_RESOLUTION, PLD_RESOLUTION
    floor = PLD_MIN_NOISE
    guess = min(max(guess, floor), 1e8)

    def ok(sig: float, res: float) -> bool:
        return value(sig, res) <= target

    lo = hi = guess
    if ok(guess, coarse):
        while True:
            if lo <= floor:
                lo = floor * (1.0 - 1e-12)  # below the floor the sampling-only bound applies
                break
            hi, lo = lo, max(lo / 2.0, floor)
            if not ok(lo, coarse):
                break
    else:
        while not ok(hi, coarse):
            lo, hi = hi, hi * 2.0
            if hi > 1e9:
                raise ValueError(
                    f"{name}={target!r} needs a noise multiplier above 1e9; not searched"
                )
    while hi / lo > 1.05:
        mid = math.sqrt(lo * hi)
        if ok(mid, coarse):
            hi = mid
        else:
            lo = mid
    # Standard grid: make sure the bracket is a bracket for it too.
    while not ok(hi, fine):
        lo, hi = hi, hi * 1.05
    while lo >= floor and ok(lo, fine):
        hi, lo = lo, lo / 1.05
    if lo < floor:
        lo = floor * (1.0 - 1e-12)
        if hi <= floor:
            return float(floor)
    while hi / lo > 1.0 + NOISE_TOLERANCE:
        mid = math.sqrt(lo * hi)
        if ok(mid, fine):
            hi = mid
        else:
            lo = mid
    return float(hi)


def dpsgd_noise_for_eta(eta: float, sampling_rate: float, steps: int) -> float:
    r"""Smallest noise multiplier σ whose DP-SGD run is η-MIP (replace-one), rounded up.

    Searches :func:`eta_from_dpsgd` on log σ: brackets with a coarse PLD grid (interval
    0.4 × loss scale), then bisects with the standard grid until the bracket's ends differ by
    a factor ``1 + NOISE_TOLERANCE`` (1 + 10⁻³). The returned σ is the bracket's upper end,
    where ``eta_from_dpsgd(σ, q, T) <= eta`` was checked; σ/(1 + 10⁻³) fails the check. So the
    answer certifies, and is within 0.1 % of the smallest σ that the accountant certifies.
    Returns 0.0 when no noise is needed (η ≥ (1 − (1 − q)^T)/2); never returns a value in
    (0, 0.1) (see :func:`eta_from_dpsgd`).

    Parameters
    ----------
    eta : float, ``1e-6 <= eta < 1/2``.
    sampling_rate : float, ``0 < q <= 1``.
    steps : int, ``1 <= T <= 10**7``.

    Returns
    -------
    noise_multiplier : float.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Examples
    --------
    >>> sigma = dpsgd_noise_for_eta(0.1, 1.0, 100)  # exact answer: 2·10 / (2Φ⁻¹(0.6)) = 39.46
    >>> round(sigma, 1), eta_from_dpsgd(sigma, 1.0, 100) <= 0.1
    (39.5, True)
    """
    e = float(check_range("eta", eta, 1e-6, 0.5, hi_open=True))
    q = float(check_range("sampling_rate", sampling_rate, 0.0, 1.0, lo_open=True))
    t = check_int("steps", steps, 1, _MAX_STEPS)
    guess = _noise_guess(2.0 * float(norm.ppf(0.5 + e)), q, t)
    return _noise_search(
        e < 0.5 * _sampling_only_tv(q, t),
        lambda sig, res: _dpsgd_eta(sig, q, t, res),
        e,
        guess,
        "eta",
    )


def dpsgd_noise_for_tpr(tpr: float, fpr: float, sampling_rate: float, steps: int) -> float:
    """Smallest noise multiplier σ with every attacker's TPR ≤ ``tpr`` at FPR ``fpr``, rounded up.

    The TPR bound is the one of :func:`dpsgd_attacker_bound` (envelope of the PLD's (ε, δ(ε))
    regions, here on 40 ε values refined locally around the best, later evaluations only near
    the previous best ε; sampling-only region; exact GDP at q = 1); the search is that of :func:`dpsgd_noise_for_eta` (coarse bracketing with
    16 ε values and no refinement, then relative tolerance 10⁻³, answer rounded up). Every
    ε evaluated is a valid (ε, δ) point, so fewer points only loosen, never invalidate. Returns 0.0 when no noise
    is needed (``tpr >= min(1, fpr + 1 − (1 − q)^T)``).

    Parameters
    ----------
    tpr : float, ``fpr < tpr <= 1``.
    fpr : float, ``0 < fpr < 1``.
    sampling_rate : float, ``0 < q <= 1``.
    steps : int, ``1 <= T <= 10**7``.

    Returns
    -------
    noise_multiplier : float.

    Raises
    ------
    ValueError
        If an argument is out of range (``tpr <= fpr`` cannot be certified by any noise).
    """
    f = float(check_range("fpr", fpr, 0.0, 1.0, lo_open=True, hi_open=True))
    target = float(check_range("tpr", tpr, f, 1.0, lo_open=True, hint="tpr must exceed fpr"))
    q = float(check_range("sampling_rate", sampling_rate, 0.0, 1.0, lo_open=True))
    t = check_int("steps", steps, 1, _MAX_STEPS)
    fa = np.array([f])
    hint: list[np.ndarray] = []  # best ε of the last standard-grid evaluation

    def value(sig: float, res: float) -> float:
        coarse = res > PLD_RESOLUTION
        tpr, best_eps = _dpsgd_tpr(
            sig,
            q,
            t,
            fa,
            resolution=res,
            points=16 if coarse else 40,
            refine=not coarse,
            hints=None if coarse or not hint else hint[-1],
        )
        if not coarse and best_eps is not None and float(best_eps[0]) > 0.0:
            hint.append(best_eps)
        return float(tpr[0])

    mu = float(norm.ppf(min(target, 1.0 - 1e-16)) - norm.ppf(f))
    return _noise_search(
        target < min(1.0, f + _sampling_only_tv(q, t)),
        value,
        target,
        _noise_guess(mu, q, t),
        "tpr",
    )


def _noise_guess(mu_total: float, q: float, steps: int) -> float:
    """σ with 2q√T·√(e^{1/σ²} − 1) = μ (central-limit approximation, replace-one)."""
    per_step = max(mu_total, 1e-12) / (2.0 * q * math.sqrt(steps))
    return 1.0 / math.sqrt(math.log1p(per_step * per_step))


# --------------------------------------------------------------------------- the uniform entry


def attacker_bound(guarantee: Guarantee) -> AttackerBound:
    """Any guarantee in attacker terms: η, best accuracy, TPR at FPR, ROC, and every route.

    ``guarantee`` is one of :class:`EpsDelta`, :class:`Profile`, :class:`Gdp`, :class:`Zcdp`,
    :class:`Rdp`, :class:`DpSgd`. Routes evaluated (all valid upper bounds on the same η
    unless ``valid=False``; ``eta`` is their minimum, ``route`` the one attaining it):

    * EpsDelta: Theorem 4. Profile: minimum of Theorem 4 over the points.
    * Gdp: closed form; the analytic profile on an ε grid; the single point at δ = 1e-5;
      via zCDP (μ²/2).
    * Zcdp: Rényi trade-off; Bun-Steinke and Canonne-Kamath-Steinke profiles; the
      Bun-Steinke ε at δ = 1e-5.
    * Rdp: Rényi trade-off; Mironov and Canonne-Kamath-Steinke profiles; the improved ε at
      δ = 1e-5.
    * DpSgd: see :func:`dpsgd_attacker_bound`.

    An add/remove guarantee (``relation=Relation.ADD_OR_REMOVE_ONE``) is first converted to
    replace-one by group privacy for two (module docstring): GDP μ → 2μ, zCDP ρ → 4ρ, profile
    points (ε, δ) → (2ε, (1 + e^ε)δ), and the trade-off bound g → g∘g
    (:attr:`Route.GROUP_TRADEOFF`); :attr:`Route.ADD_REMOVE_AS_REPLACE` (``valid=False``) shows
    the number one would get by ignoring the relation.

    The ROC (``roc_fpr``/``roc_tpr``) and ``tpr_at_fpr`` use the tightest valid trade-off
    bound available for the kind.

    Parameters
    ----------
    guarantee : a guarantee dataclass (validated on construction).

    Returns
    -------
    AttackerBound

    Raises
    ------
    ValueError
        If ``guarantee`` is not a guarantee dataclass.

    Examples
    --------
    >>> b = attacker_bound(Gdp(1.0))
    >>> round(b.eta, 6), b.route.value
    (0.191462, 'gdp_closed_form')
    >>> round(attacker_bound(Gdp(1.0, Relation.ADD_OR_REMOVE_ONE)).eta, 6)  # 2μ-GDP
    0.341345
    >>> b.looseness > 1.5  # the single (ε, 1e-5) point overstates η
    True
    """
    if isinstance(guarantee, DpSgd):
        return _dpsgd_bound(guarantee)
    if isinstance(guarantee, Gdp):
        return _gdp_bound(guarantee)
    if isinstance(guarantee, Zcdp):
        return _zcdp_bound(guarantee)
    if isinstance(guarantee, Rdp):
        return _rdp_bound(guarantee)
    if isinstance(guarantee, EpsDelta | Profile):
        return _profile_bound(guarantee)
    raise ValueError(
        f"guarantee={guarantee!r} is not one of EpsDelta, Profile, Gdp, Zcdp, Rdp, DpSgd"
    )


def _gdp_bound(g: Gdp) -> AttackerBound:
    add_remove = g.relation is Relation.ADD_OR_REMOVE_ONE
    mu = 2.0 * g.mu if add_remove else g.mu
    eps5 = float(epsilon_from_gdp(REFERENCE_DELTA, mu))
    routes = [
        RouteResult(Route.GDP_CLOSED_FORM, float(eta_from_gdp(mu))),
        RouteResult(
            Route.GDP_PROFILE,
            _profile_route_eta(lambda e: np.asarray(delta_from_gdp(e, mu)), group=False),
        ),
        RouteResult(
            Route.SINGLE_POINT,
            float(eta_from_epsilon(eps5, REFERENCE_DELTA)),
            epsilon=eps5,
            delta=REFERENCE_DELTA,
        ),
        RouteResult(Route.VIA_ZCDP, float(eta_from_zcdp(mu * mu / 2.0))),
    ]
    if add_remove:
        routes.append(
            RouteResult(Route.ADD_REMOVE_AS_REPLACE, float(eta_from_gdp(g.mu)), valid=False)
        )
    roc = np.asarray(tpr_bound_gdp(_ROC_FPR, mu))
    at = np.asarray(tpr_bound_gdp(np.array(FPR_LEVELS), mu))
    return _finish(Kind.GDP, g.relation, routes, roc, at)


def _zcdp_bound(g: Zcdp) -> AttackerBound:
    add_remove = g.relation is Relation.ADD_OR_REMOVE_ONE
    rho = 4.0 * g.rho if add_remove else g.rho
    eps5 = rho + 2.0 * math.sqrt(rho * math.log(1.0 / REFERENCE_DELTA))
    routes = [
        RouteResult(Route.RENYI_TRADEOFF, float(eta_from_zcdp(rho))),
        RouteResult(
            Route.BUN_STEINKE,
            _profile_route_eta(
                lambda e: np.asarray(delta_from_zcdp(e, rho, "bun_steinke")), group=False
            ),
        ),
        RouteResult(
            Route.IMPROVED_CONVERSION,
            _profile_route_eta(
                lambda e: np.asarray(delta_from_zcdp(e, rho, "improved")), group=False
            ),
        ),
        RouteResult(
            Route.SINGLE_POINT,
            float(eta_from_epsilon(eps5, REFERENCE_DELTA)),
            epsilon=eps5,
            delta=REFERENCE_DELTA,
        ),
    ]
    if add_remove:
        routes.append(
            RouteResult(Route.ADD_REMOVE_AS_REPLACE, float(eta_from_zcdp(g.rho)), valid=False)
        )
    roc = np.asarray(tpr_bound_zcdp(_ROC_FPR, rho))
    at = np.asarray(tpr_bound_zcdp(np.array(FPR_LEVELS), rho))
    return _finish(Kind.ZCDP, g.relation, routes, roc, at)


def _rdp_bound(g: Rdp) -> AttackerBound:
    o, v = np.array(g.orders), np.array(g.values)
    add_remove = g.relation is Relation.ADD_OR_REMOVE_ONE
    eps5 = _rdp_epsilon_at(REFERENCE_DELTA, o, v)

    def mironov(e: np.ndarray) -> np.ndarray:
        return np.asarray(delta_from_rdp(e, o, v, "mironov"))

    def improved(e: np.ndarray) -> np.ndarray:
        return np.asarray(delta_from_rdp(e, o, v, "improved"))

    routes = [
        RouteResult(Route.MIRONOV, _profile_route_eta(mironov, group=add_remove)),
        RouteResult(Route.IMPROVED_CONVERSION, _profile_route_eta(improved, group=add_remove)),
    ]
    if add_remove:

        def g_ar(x: np.ndarray) -> np.ndarray:
            return np.asarray(tpr_bound_rdp(x, o, v), dtype=float)

        eps_g = 2.0 * eps5
        d_g = min(1.0, (1.0 + math.exp(min(eps5, 700.0))) * REFERENCE_DELTA)
        routes += [
            RouteResult(Route.GROUP_TRADEOFF, _group_eta(g_ar)),
            RouteResult(
                Route.SINGLE_POINT, float(eta_from_epsilon(eps_g, d_g)), epsilon=eps_g, delta=d_g
            ),
            RouteResult(Route.ADD_REMOVE_AS_REPLACE, eta_from_rdp(o, v), valid=False),
        ]
        roc = g_ar(g_ar(_ROC_FPR))
        at = g_ar(g_ar(np.array(FPR_LEVELS)))
    else:
        routes += [
            RouteResult(Route.RENYI_TRADEOFF, eta_from_rdp(o, v)),
            RouteResult(
                Route.SINGLE_POINT,
                float(eta_from_epsilon(eps5, REFERENCE_DELTA)),
                epsilon=eps5,
                delta=REFERENCE_DELTA,
            ),
        ]
        roc = np.asarray(tpr_bound_rdp(_ROC_FPR, o, v))
        at = np.asarray(tpr_bound_rdp(np.array(FPR_LEVELS), o, v))
    return _finish(Kind.RDP, g.relation, routes, roc, at)


def _profile_bound(g: EpsDelta | Profile) -> AttackerBound:
    if isinstance(g, EpsDelta):
        kind, route = Kind.EPS_DELTA, Route.THEOREM4
        e, d = np.array([g.epsilon]), np.array([g.delta])
    else:
        kind, route = Kind.PROFILE, Route.PROFILE
        e, d = np.array(g.epsilons), np.array(g.deltas)
    levels = np.array(FPR_LEVELS)
    if g.relation is Relation.REPLACE_ONE:
        routes = [RouteResult(route, eta_from_profile(e, d))]
        roc = np.asarray(tpr_bound_profile(_ROC_FPR, e, d))
        at = np.asarray(tpr_bound_profile(levels, e, d))
        return _finish(kind, g.relation, routes, roc, at)
    with np.errstate(over="ignore"):
        e2 = 2.0 * e
        d2 = np.where(d > 0, np.minimum(1.0, (1.0 + np.exp(np.minimum(e, 700.0))) * d), 0.0)

    def g_ar(x: np.ndarray) -> np.ndarray:
        return np.asarray(tpr_bound_profile(x, e, d), dtype=float)

    single = kind is Kind.EPS_DELTA
    routes = [
        RouteResult(
            route,
            eta_from_profile(e2, d2),
            epsilon=float(e2[0]) if single else None,
            delta=float(d2[0]) if single else None,
        ),
        RouteResult(Route.GROUP_TRADEOFF, _group_eta(g_ar)),
        RouteResult(Route.ADD_REMOVE_AS_REPLACE, eta_from_profile(e, d), valid=False),
    ]
    roc = np.minimum(g_ar(g_ar(_ROC_FPR)), np.asarray(tpr_bound_profile(_ROC_FPR, e2, d2)))
    at = np.minimum(g_ar(g_ar(levels)), np.asarray(tpr_bound_profile(levels, e2, d2)))
    return _finish(kind, g.relation, routes, roc, at)
