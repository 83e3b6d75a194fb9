r"""How loose are the certified η bounds? The exact best attack beside what the theorems certify.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582
(the later version; "the arXiv version" is v1): Proposition 2 (the optimal attacker),
Theorem 4 (DP ⇒ MIP, tight), Theorem 5 (MIP does not imply DP), Theorem 9 / Corollary 14
(noise that certifies η-MIP) and Proposition 11 (the ``1/Σx`` mechanism).

What the page "How loose are the certified bounds?" shows, one small result per section (a
few fields, the rest computed on demand):

* :func:`exact_eta_grid` and :func:`eta_curves` -- for the Proposition 11 mechanism plus
  Laplace noise of scale b, on a grid of b: the **exact** η (Proposition 2 by full
  enumeration, :func:`mipcore.prop11_attack.prop11_true_eta`) beside three certificates, all
  upper bounds on it:

  - **Theorem 9's density, dimension-free** (:func:`mipcore.theorem9.certified_eta`, steps
    T1-T4 of :mod:`mipcore.theorem9`): noise ``∝ exp(−|x|/(cσ))`` is ``(1 − e^{−1/c})/2``-MIP, so
    Laplace(b) certifies ``η = (1 − e^{−σ_M/b})/2``, in every dimension, attained exactly by a
    two-point mechanism with the same moment;
  - **Corollary 14 / Theorem 9 as printed**: inverting ``b = (constant/η)^(1+2/M) σ_M``
    gives ``η = constant · (σ_M/b)^(M/(M+2))``, capped at 1/2
    (:func:`mipcore.noise.certified_eta_mip`). Valid (the dimension-free bound is below it),
    and far looser;
  - **pure DP + Theorem 4**: the Laplace mechanism is ``Δ/b``-DP, so
    ``η = tanh(Δ/(2b))/2`` (:func:`mipcore.noise.certified_eta_dp`).

* :func:`noise_demand` -- the noise each route asks for a target η beside the noise that is
  actually enough (bisection on the exact η, within :data:`SUFFICIENT_RTOL`).
* :func:`theorem4_tightness` and :func:`theorem5_table` -- Theorem 4 is attained; small η with
  no finite ε.
* :func:`dimension_gap` -- why the dimension mattered only for the printed proof: at the
  noise Corollary 14 prescribes, the certified η against the dimension d of the release
  (the paper's proof, repaired for d dimensions, :func:`mipcore.theorem9.chain_certified_eta`,
  beside the dimension-free ``(1 − e^{−1/c})/2``, flat in d), the noise each needs against d, and
  the best attack on a release of d = 4 numbers (the covariance release of the canary audit,
  :mod:`mipcore.canary_audit`, by Monte Carlo with a 99 % interval).

**Monotonicity** (used by the bisection). For ``b₂ > b₁`` and ``r = b₁/b₂`` the
characteristic functions satisfy ``1/(1+b₂²t²) = 1/(1+b₁²t²) · (r² + (1−r²)/(1+b₂²t²))``,
i.e. Laplace(b₂) = Laplace(b₁) ⊛ (r² δ₀ + (1−r²) Laplace(b₂)). So the b₂-release is a
post-processing of the b₁-release and, for every target record, the optimal attacker's
accuracy cannot grow (data processing): the exact η is non-increasing in b. The tests also
check this numerically on a grid.

This module is pure Python (no Streamlit, no caching). Each public function checks its own
inputs (n even up to :data:`LOOSENESS_N_MAX`, the target η, M up to 6) and leaves the rest to
the theory it calls.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import prop11
from .._validate import check_int, check_range
from ..bounds import eta_from_epsilon
from ..canary_audit import AUDIT_MC_SAMPLES, canary_mechanism
from ..constructions import (
    theorem4_tightness_accuracy,
    theorem5_indicator_eta,
    theorem5_publish_eta,
)
from ..noise import (
    COROLLARY14_CONSTANT,
    certified_eta_dp,
    certified_eta_mip,
    dp_laplace_scale,
    mip_noise_multiplier,
    mip_noise_scale,
)
from ..noise_laws import NoiseKind, NoiseLaw
from ..optimal_attack import optimal_attack_accuracy_mc
from ..prop11_attack import prop11_eta_function, prop11_true_eta  # noqa: F401 -- doctests
from ..theorem9 import (
    certified_eta,
    chain_certified_eta,
    chain_certified_eta_by_dimension,
    chain_required_noise_multiplier,
    required_noise_multiplier,
)
from .canary_game import COV_CANARY, COV_DIM, N_RECORDS

__all__ = [
    "COVARIANCE_GAP_DIM",
    "GAP_DIMENSIONS",
    "LOOSENESS_N_MAX",
    "NONTRIVIAL_ETA",
    "SCALE_GRID",
    "SUFFICIENT_RTOL",
    "THEOREM5_NS",
    "DimensionGap",
    "ExactEtaGrid",
    "FirstCertificate",
    "NoiseDemand",
    "Progress",
    "Route",
    "RouteDemand",
    "Theorem4Tightness",
    "covariance_optimum",
    "dimension_gap",
    "eta_curves",
    "exact_eta_grid",
    "first_certificates",
    "noise_demand",
    "theorem4_tightness",
    "theorem5_table",
]

#: Largest n: exact enumeration of C(n, n/2) halves (12 870 at n = 16, ~0.1 s per noise scale).
LOOSENESS_N_MAX = 16
#: Relative width of the final bisection bracket on the sufficient scale.
SUFFICIENT_RTOL = 1e-4
#: The Laplace scales of the η-against-noise chart.
SCALE_GRID: tuple[float, ...] = tuple(float(b) for b in np.logspace(-6, 6, 61))
#: A certificate "says something" once it certifies η below this.
NONTRIVIAL_ETA = 0.49
#: The dimensions of the "certificate against d" charts (d = 4: the covariance audit;
#: d = 9: the 3×3 matrix of the Figure 2 experiment).
GAP_DIMENSIONS: tuple[int, ...] = (1, 2, 3, 4, 6, 9, 12, 16)
#: Numbers released by the covariance audit (a 2×2 matrix).
COVARIANCE_GAP_DIM = COV_DIM * COV_DIM
#: Dataset sizes of the Theorem 5 chart.
THEOREM5_NS: tuple[int, ...] = tuple(range(2, 42, 2))

#: ``progress(fraction, message)``, as :func:`appkit.jobs.run` passes it.
Progress = Callable[[float, str], None]


class Route(StrEnum):
    """Where a noise level (or a certified η) comes from."""

    #: The smallest noise whose exact η meets the target (bisection on Proposition 2).
    SUFFICIENT = "sufficient"
    #: Theorem 9's density, certified in every dimension: ``(1 − e^{−1/c})/2`` (T1-T4).
    MIP_TIGHT = "mip_tight"
    #: Corollary 14 / Theorem 9 as printed: ``c = (constant/η)^(1+2/M)``.
    MIP_PRINTED = "mip_printed"
    #: The Laplace mechanism (ε = Δ/b) and Theorem 4.
    DP = "dp"


def _check_n(n: object) -> int:
    return check_int("n", n, 4, LOOSENESS_N_MAX, even=True)


def _check_target(target_eta: float) -> float:
    return float(check_range("target_eta", target_eta, 0.0, 0.5, lo_open=True, hi_open=True))


def _check_m(M: int) -> int:
    """The experiment's moment orders (the page's charts have fixed axes that fit M <= 6)."""
    return check_int("M", M, 2, 6)


def _sigma(sigma: float | None, n: int, M: int) -> float:
    """σ_M as given (positive, finite), or certified (:func:`mipcore.prop11.output_moments`)."""
    if sigma is None:
        return float(prop11.output_moments(n, M).sigma)
    return float(check_range("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True))


def _report(progress: Progress | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(fraction, message)


def _sufficient(n: int, t: float, rtol: float, exact: Callable[[float], float]) -> float:
    r"""The smallest Laplace scale b whose exact η at n (``exact``, the enumeration of
    :func:`~mipcore.prop11_attack.prop11_eta_function`) is ``<= t``: the noise that is enough.

    Bisection in ``log b`` on the exact η, which is non-increasing in b (module docstring). The
    upper end starts at the DP demand (:func:`mipcore.noise.dp_laplace_scale`; Theorem 4
    certifies it, so its exact η is below the target); the lower end is divided by 10 until
    the exact η exceeds the target. Returned is the upper end ``hi`` of a final bracket
    ``[hi/(1+rtol), hi]``: ``exact(hi) <= t < exact(hi/(1+rtol))``, so ``hi`` is within
    relative ``rtol`` of the true threshold and never below it.
    """
    hi = float(dp_laplace_scale(t, float(prop11.sensitivity(n))))
    while exact(hi) > t:  # pragma: no cover - Theorem 4 guarantees exact(hi) <= t
        hi *= 10.0
    lo = hi / 10.0
    while exact(lo) <= t:
        hi, lo = lo, lo / 10.0
    log_stop = math.log1p(rtol)
    while math.log(hi) - math.log(lo) > log_stop:
        mid = math.exp(0.5 * (math.log(lo) + math.log(hi)))
        if exact(mid) <= t:
            hi = mid
        else:
            lo = mid
    return hi


# --------------------------------------------------------------------------- η against b


@dataclass(frozen=True)
class ExactEtaGrid:
    """Result of :func:`exact_eta_grid`: the exact η of the Proposition 11 mechanism plus
    Laplace(b) at each b of ``scales``, for one n. It depends on n alone, not on M, the
    constant or a target η."""

    n: int
    scales: NDArray[np.float64] = field(repr=False)
    exact: NDArray[np.float64] = field(repr=False)


def exact_eta_grid(
    n: int,
    scales: Sequence[float] | NDArray[np.float64] = SCALE_GRID,
    *,
    progress: Progress | None = None,
) -> ExactEtaGrid:
    r"""The exact η (Proposition 2, every training half enumerated) on a grid of Laplace scales.

    The expensive part of the η-against-noise chart (about 1.8 s at n = 16 on
    :data:`SCALE_GRID` on a 2-core machine), computed once per n: a change of M or the
    constant only redraws the certificates beside it (:func:`eta_curves`).

    Parameters
    ----------
    n : int
        Even, ``4 <= n <= 16``.
    scales : sequence of float
        Positive finite Laplace scales (a non-empty 1-d sequence); :data:`SCALE_GRID` by default.
    progress : callable, optional
        ``progress(fraction, message)`` after each scale.

    Returns
    -------
    ExactEtaGrid

    Raises
    ------
    ValueError
        Naming the parameter, for input out of its domain.

    Examples
    --------
    >>> g = exact_eta_grid(4)
    >>> g.exact.shape == (len(SCALE_GRID),) and bool((g.exact[:-1] >= g.exact[1:]).all())
    True
    """
    n = _check_n(n)
    b = np.atleast_1d(check_range("scales", scales, 0.0, math.inf, lo_open=True, hi_open=True))
    if b.ndim != 1 or b.size == 0:
        raise ValueError(f"scales must be a non-empty 1-d sequence, got shape {b.shape}")
    eta = prop11_eta_function(n, "laplace")  # the halves enumerated once for the grid
    exact = np.empty(b.size)
    for i, x in enumerate(b):
        exact[i] = eta(float(x))
        _report(progress, (i + 1) / b.size, f"exact η at {i + 1} of {b.size} noise scales")
    return ExactEtaGrid(n, np.asarray(b, dtype=float), exact)


def eta_curves(
    grid: ExactEtaGrid,
    M: int = 2,
    constant: float = COROLLARY14_CONSTANT,
    *,
    sigma: float | None = None,
) -> pd.DataFrame:
    r"""The exact η of ``grid`` beside the three certificates for the same Laplace noise.

    Parameters
    ----------
    grid : ExactEtaGrid
        :func:`exact_eta_grid` of the n to draw.
    M : int
        Moment order, ``2 <= M <= 6``.
    constant : float
        6.16 (Corollary 14) or 7.5 (Theorem 9); any value ``>= 6.16``.
    sigma : float, optional
        σ_M, certified by :func:`mipcore.prop11.output_moments` when omitted (a branch and
        bound of 0.2-0.3 s at n = 16). Any other positive value is used as given.

    Returns
    -------
    pandas.DataFrame
        Columns ``scale``; ``exact`` (Proposition 2 by enumeration); ``certified_mip_tight``
        (``(1 − e^{−σ_M/b})/2``, :func:`mipcore.theorem9.certified_eta` at ``c = b/σ_M``);
        ``certified_mip_printed`` (:func:`mipcore.noise.certified_eta_mip`);
        ``certified_dp`` (:func:`mipcore.noise.certified_eta_dp` with Δ of
        :func:`mipcore.prop11.sensitivity`).

    Raises
    ------
    ValueError
        Naming the parameter, for input out of its domain.

    Examples
    --------
    >>> df = eta_curves(exact_eta_grid(4, [1.0, 100.0]))
    >>> bool((df["exact"] <= df["certified_mip_tight"]).all())
    True
    >>> bool((df["certified_mip_tight"] <= df["certified_mip_printed"]).all())
    True
    """
    if not isinstance(grid, ExactEtaGrid):
        raise ValueError(f"grid is a {type(grid).__name__}, not an exact_eta_grid(n)")
    M = _check_m(M)
    sigma = _sigma(sigma, grid.n, M)
    b, delta = grid.scales, float(prop11.sensitivity(grid.n))
    return pd.DataFrame(
        {
            "scale": b,
            "exact": grid.exact,
            "certified_mip_tight": np.asarray(certified_eta(b / sigma, M=M, d=1), dtype=float),
            "certified_mip_printed": np.asarray(
                certified_eta_mip(b, sigma, M, constant), dtype=float
            ),
            "certified_dp": np.asarray(certified_eta_dp(b, delta), dtype=float),
        }
    )


@dataclass(frozen=True)
class FirstCertificate:
    """Where a certificate first says something: the smallest grid scale at which it
    certifies ``η < NONTRIVIAL_ETA``, what it certifies there and the exact η there."""

    route: Route
    scale: float
    certified: float
    exact: float

    @property
    def ratio(self) -> float:
        """Certified η over exact η (how many times the certificate overstates the leak)."""
        return self.certified / self.exact


_CURVE_OF = {
    Route.MIP_TIGHT: "certified_mip_tight",
    Route.MIP_PRINTED: "certified_mip_printed",
    Route.DP: "certified_dp",
}


def first_certificates(curves: pd.DataFrame) -> tuple[FirstCertificate, ...]:
    """Where each certificate of :func:`eta_curves` first becomes non-trivial (in the order
    MIP_TIGHT, MIP_PRINTED, DP; a certificate that never does is left out).

    Examples
    --------
    >>> [f.route.value for f in first_certificates(eta_curves(exact_eta_grid(4)))]
    ['mip_tight', 'mip_printed', 'dp']
    """
    first = []
    for route, col in _CURVE_OF.items():
        rows = curves[(curves[col] < NONTRIVIAL_ETA) & (curves["exact"] > 0)]
        if not rows.empty:
            r = rows.iloc[0]
            first.append(
                FirstCertificate(route, float(r["scale"]), float(r[col]), float(r["exact"]))
            )
    return tuple(first)


# --------------------------------------------------------------------------- noise demanded


@dataclass(frozen=True)
class RouteDemand:
    """The Laplace scale one route asks for, the exact η there and its ratio to the noise that
    is actually enough."""

    route: Route
    scale: float
    exact_eta: float
    times_sufficient: float

    @property
    def orders_of_magnitude(self) -> float:
        """``log10(times_sufficient)``: how many powers of ten more noise than enough."""
        return math.log10(self.times_sufficient)


@dataclass(frozen=True)
class NoiseDemand:
    """Result of :func:`noise_demand`: ``rows``, one :class:`RouteDemand` per route in the
    order SUFFICIENT, MIP_TIGHT, DP, MIP_PRINTED, for ``target_eta`` with σ_M = ``sigma``.
    The noise multipliers ``c = b/σ_M`` and the table are computed on demand."""

    target_eta: float
    M: int
    constant: float
    sigma: float
    rows: tuple[RouteDemand, ...]

    def route(self, route: Route | str) -> RouteDemand:
        """The row of ``route``."""
        r = Route(route)
        return next(row for row in self.rows if row.route is r)

    @property
    def multiplier_sufficient(self) -> float:
        """What is enough, in noise-multiplier units ``c = b/σ_M``."""
        return self.route(Route.SUFFICIENT).scale / self.sigma

    @property
    def multiplier_tight(self) -> float:
        """Theorem 9's density: ``c = −1/ln(1 − 2η)``."""
        return float(required_noise_multiplier(self.target_eta, M=self.M, d=1))

    @property
    def multiplier_printed(self) -> float:
        """Corollary 14 / Theorem 9 as printed: ``c = (constant/η)^(1+2/M)``."""
        return float(mip_noise_multiplier(self.target_eta, self.M, self.constant))

    @property
    def table(self) -> pd.DataFrame:
        """The rows as a table (the chart's data): ``route, scale, exact_eta_at_scale,
        times_the_sufficient_noise``."""
        return pd.DataFrame(
            {
                "route": [r.route.value for r in self.rows],
                "scale": [r.scale for r in self.rows],
                "exact_eta_at_scale": [r.exact_eta for r in self.rows],
                "times_the_sufficient_noise": [r.times_sufficient for r in self.rows],
            }
        )


def noise_demand(
    n: int,
    target_eta: float,
    M: int = 2,
    constant: float = COROLLARY14_CONSTANT,
    *,
    sigma: float | None = None,
    progress: Progress | None = None,
) -> NoiseDemand:
    r"""Noise each route demands for ``target_eta`` beside the noise that is actually enough.

    For the Proposition 11 mechanism with Laplace noise: the dimension-free Theorem 9
    certificate ``b = σ_M / ln(1/(1 − 2η))`` (:func:`mipcore.theorem9.required_noise_multiplier`),
    Corollary 14 / Theorem 9 as printed ``b = (constant/η)^(1+2/M) σ_M``
    (:func:`mipcore.noise.mip_noise_scale`), DP through Theorem 4 ``b = Δ/log((1+2η)/(1−2η))``
    (:func:`mipcore.noise.dp_laplace_scale`), and the smallest scale whose exact η meets the
    target (bisection, never below it, within relative :data:`SUFFICIENT_RTOL`); with the
    exact η at each.

    Parameters
    ----------
    n : even, ``4 <= n <= 16``. target_eta : ``0 < η < 1/2``. M : ``2 <= M <= 6``.
    constant : ``>= 6.16``.
    sigma : optional σ_M, as for :func:`eta_curves`.
    progress : optional ``progress(fraction, message)``.

    Returns
    -------
    NoiseDemand

    Raises
    ------
    ValueError
        Naming the parameter, for input out of its domain.

    Examples
    --------
    >>> d = noise_demand(8, 0.1)
    >>> [r.route.value for r in d.rows]
    ['sufficient', 'mip_tight', 'dp', 'mip_printed']
    >>> round(d.multiplier_tight, 3), round(d.multiplier_printed, 1)
    (4.481, 3794.6)
    >>> all(r.exact_eta <= 0.1 for r in d.rows)
    True
    >>> b = d.route("sufficient").scale
    >>> prop11_true_eta(8, b) <= 0.1 < prop11_true_eta(8, b / (1 + SUFFICIENT_RTOL))
    True
    """
    n = _check_n(n)
    t = _check_target(target_eta)
    M = _check_m(M)
    sigma = _sigma(sigma, n, M)
    _report(progress, 0.0, "bisecting on the exact η")
    exact = prop11_eta_function(n, "laplace")  # the halves enumerated once for every scale
    b_ok = _sufficient(n, t, SUFFICIENT_RTOL, exact)
    scales = {
        Route.SUFFICIENT: b_ok,
        Route.MIP_TIGHT: float(required_noise_multiplier(t, M=M, d=1)) * sigma,
        Route.DP: float(dp_laplace_scale(t, float(prop11.sensitivity(n)))),
        Route.MIP_PRINTED: float(mip_noise_scale(t, sigma, M, constant)),
    }
    _report(progress, 0.9, "exact η at each route's noise")
    rows = tuple(RouteDemand(route, b, exact(b), b / b_ok) for route, b in scales.items())
    return NoiseDemand(t, M, float(constant), sigma, rows)


# --------------------------------------------------------------------------- Theorems 4 and 5


@dataclass(frozen=True)
class Theorem4Tightness:
    """Result of :func:`theorem4_tightness`: ``table`` with columns ``epsilon``,
    ``exact_accuracy`` (the construction's optimal attacker) and ``theorem4_accuracy``
    (``1/2 + η(ε, δ)``, :func:`mipcore.bounds.eta_from_epsilon`); ``max_gap`` the largest
    absolute difference of the two."""

    table: pd.DataFrame = field(repr=False)
    max_gap: float


def theorem4_tightness(delta: float = 0.0) -> Theorem4Tightness:
    """Theorem 4's bound beside the exact optimal accuracy of its tightness construction.

    ``0 <= delta <= 1``; ε on 31 points from 0 to 6
    (:func:`mipcore.constructions.theorem4_tightness_accuracy`, which checks δ).

    Examples
    --------
    >>> theorem4_tightness(0.2).max_gap < 1e-12
    True
    """
    eps = np.linspace(0.0, 6.0, 31)
    exact = np.asarray(theorem4_tightness_accuracy(eps, delta), dtype=float)
    bound = 0.5 + np.asarray(eta_from_epsilon(eps, delta), dtype=float)
    table = pd.DataFrame({"epsilon": eps, "exact_accuracy": exact, "theorem4_accuracy": bound})
    return Theorem4Tightness(table, float(np.max(np.abs(exact - bound))))


def theorem5_table(target_eta: float) -> pd.DataFrame:
    """Theorem 5's two counterexamples on :data:`THEOREM5_NS`: columns ``n``,
    ``eta_indicator`` (the TMLR version's ``1{D = D*}``, η = 1/C(n, n/2),
    :func:`mipcore.constructions.theorem5_indicator_eta`) and ``eta_publish`` (the arXiv
    version's "publish each training record with probability q", with ``q = 2·target_eta``,
    η = q/2, :func:`mipcore.constructions.theorem5_publish_eta`; that mechanism is
    (0, q)-DP). ``0 < target_eta < 1/2``.

    Examples
    --------
    >>> t = theorem5_table(0.1)
    >>> round(float(t["eta_indicator"][1]), 4), float(t["eta_publish"][0])
    (0.1667, 0.1)
    """
    q = 2.0 * _check_target(target_eta)
    ns = np.array(THEOREM5_NS)
    return pd.DataFrame(
        {
            "n": ns,
            "eta_indicator": np.asarray(theorem5_indicator_eta(ns), dtype=float),
            "eta_publish": np.asarray(theorem5_publish_eta(ns, q), dtype=float),
        }
    )


# --------------------------------------------------------------------------- the dimension


@dataclass(frozen=True)
class DimensionGap:
    """Result of :func:`dimension_gap`: what the dimension d of a release changes.

    ``table``, one row per d: at the fixed noise Corollary 14 prescribes for ``target_eta``
    (``corollary14_noise_multiplier``, the same c in every row), ``chain_eta`` the paper's
    proof repaired for d (:func:`mipcore.theorem9.chain_certified_eta`) and
    ``dimension_free_eta`` ``(1 − e^{−1/c})/2``; for the fixed target η,
    ``chain_noise_multiplier`` the smallest c the repaired chain accepts (``inf`` beyond the
    float range) and ``dimension_free_noise_multiplier`` ``−1/ln(1 − 2η)``.

    The best attack on the covariance release of the canary audit (a 2×2 matrix of
    :data:`COVARIANCE_GAP_DIM` = 4 numbers, 8 records, Theorem 9 noise with this c and the
    exact per-coordinate σ_M): ``covariance_eta`` (Monte Carlo, ``samples`` draws) and its
    99 % interval ``covariance_interval``; ``covariance_chain_eta`` the repaired chain at
    d = 4.
    """

    target_eta: float
    table: pd.DataFrame = field(repr=False)
    covariance_eta: float
    covariance_interval: tuple[float, float]
    samples: int
    covariance_chain_eta: float

    def _first(self, column: str) -> float:
        return float(self.table[column].iloc[0])

    @property
    def noise_multiplier(self) -> float:
        """Corollary 14's ``c = (constant/η)^(1+2/M)`` for the target: the noise held fixed."""
        return self._first("corollary14_noise_multiplier")

    @property
    def tight_eta(self) -> float:
        """What Theorem 9's density certifies at that c in every dimension."""
        return self._first("dimension_free_eta")

    @property
    def tight_noise(self) -> float:
        """The c Theorem 9's density needs for the target in every dimension."""
        return self._first("dimension_free_noise_multiplier")

    @property
    def chain_covers_target_up_to(self) -> int | None:
        """The largest listed d at which the repaired chain still certifies the target (None:
        not even the first)."""
        ok = self.table["d"][self.table["chain_eta"] <= self.target_eta]
        return int(ok.iloc[-1]) if len(ok) else None

    def _at(self, column: str, d: int) -> float:
        return float(self.table[column][list(self.table["d"]).index(d)])

    def chain_eta_at(self, d: int) -> float:
        """The repaired chain's η at a listed dimension d."""
        return self._at("chain_eta", d)

    def chain_noise_at(self, d: int) -> float:
        """The repaired chain's noise multiplier at a listed dimension d."""
        return self._at("chain_noise_multiplier", d)


def _check_dimensions(dimensions: Sequence[int]) -> NDArray[np.int64]:
    dims = [check_int("dimensions", d, 1, 10_000) for d in dimensions]
    if not dims or dims != sorted(set(dims)):
        raise ValueError(
            f"dimensions={tuple(dimensions)!r} must be a non-empty increasing sequence of "
            "integers from 1 to 10000"
        )
    return np.array(dims, dtype=np.int64)


def covariance_optimum(
    noise_multiplier: float, M: int = 2, *, samples: int = AUDIT_MC_SAMPLES
) -> tuple[float, float, float]:
    r"""The best attack on the canary audit's covariance release with Theorem 9 noise.

    The mechanism of :func:`mipcore.canary_audit.canary_mechanism` with
    ``mechanism="covariance"`` (8 records in R², 4 released numbers) plus noise of density
    ``∝ exp(−||x||_{σ,M}/c)`` with the exact per-coordinate σ_M over all halves. With M = 2,
    ``c = (6.16/η)^2`` and the default samples this is exactly the Monte Carlo optimum
    :func:`mipcore.canary_audit.run_canary_audit` reports for ``noise="mip"`` (same law, same
    seed).

    Parameters
    ----------
    noise_multiplier : ``c > 0``. M : ``2 <= M <= 6``.
    samples : ``1000 <= samples <= 10^8`` Monte Carlo draws.

    Returns
    -------
    (eta, lo, hi) : the optimal attacker's η and a 99 % interval for it.

    Examples
    --------
    >>> eta, lo, hi = covariance_optimum(3.0, samples=2000)
    >>> bool(lo <= eta <= hi <= -0.5 * math.expm1(-1 / 3.0) + 0.05)
    True
    """
    c = float(
        check_range("noise_multiplier", noise_multiplier, 0.0, math.inf, lo_open=True, hi_open=True)
    )
    return _covariance_optimum(c, _check_m(M), samples)


def _covariance_optimum(c: float, m: int, samples: int) -> tuple[float, float, float]:
    mech = canary_mechanism(
        n=N_RECORDS, canary=COV_CANARY, mechanism="covariance", dim=COV_DIM, noise="none"
    )
    out, member = mech.outputs, mech.member
    if m == 2:
        sig = np.std(out, axis=0)  # what canary_mechanism calibrates its MIP noise with
    else:
        sig = np.mean(np.abs(out - out.mean(axis=0)) ** m, axis=0) ** (1.0 / m)
    sig = np.where(sig > 0, sig, 1e-300)
    law = NoiseLaw(NoiseKind.MIP, c, tuple(float(s) for s in sig), float(m))
    acc, lo, hi = optimal_attack_accuracy_mc(
        out[member],
        out[~member],
        law,
        samples=samples,
        rng=np.random.default_rng([20240501, mech.n, mech.output_dim]),  # run_canary_audit's
        confidence=0.99,
    )
    return acc - 0.5, lo - 0.5, hi - 0.5


def dimension_gap(
    target_eta: float,
    M: int = 2,
    constant: float = COROLLARY14_CONSTANT,
    *,
    dimensions: Sequence[int] = GAP_DIMENSIONS,
    samples: int = AUDIT_MC_SAMPLES,
    progress: Progress | None = None,
) -> DimensionGap:
    r"""Certified η and noise against the dimension d, beside the best attack at d = 4.

    Fix the noise Corollary 14 prescribes for ``target_eta``, ``c = (constant/η)^(1+2/M)``.
    The paper's proof of Theorem 9 bounds the tail of ``||X||`` as in one dimension; redone
    with the correct Gamma(d) tail (:mod:`mipcore.theorem9`, S1-S12) it certifies less and
    less as d grows (``chain_eta``), and needs noise growing exponentially in d/M
    (``chain_noise_multiplier``). The statement nevertheless holds in every dimension, by the
    dimension-free certificate ``(1 − e^{−1/c})/2`` (T1-T4), which needs only
    ``c = −1/ln(1 − 2η)``. The exact η of a release of d = 4 numbers
    (:func:`covariance_optimum`) shows how much both overstate the leak.

    Parameters
    ----------
    target_eta : ``0 < η < 1/2``. M : ``2 <= M <= 6``. constant : ``>= 6.16``.
    dimensions : increasing integers from 1 to 10 000 (the chart's d values).
    samples : Monte Carlo draws of the d = 4 optimum, ``1000 <= samples <= 10^8``.
    progress : optional ``progress(fraction, message)``.

    Returns
    -------
    DimensionGap

    Raises
    ------
    ValueError
        Naming the parameter, for input out of its domain.

    Examples
    --------
    >>> g = dimension_gap(0.1, dimensions=(1, 4, 9), samples=2000)
    >>> round(g.noise_multiplier, 1), round(g.tight_eta, 6)
    (3794.6, 0.000132)
    >>> [round(float(x), 4) for x in g.table["chain_eta"]], g.chain_covers_target_up_to
    ([0.027, 0.0837, 0.2422], 4)
    >>> round(g.tight_noise, 3), [round(float(x), -1) for x in g.table["chain_noise_multiplier"]]
    (4.481, [260.0, 2460.0, 60760.0])
    """
    t = _check_target(target_eta)
    M = _check_m(M)
    dims = _check_dimensions(dimensions)
    samples = check_int("samples", samples, 1000, 10**8)
    c = float(mip_noise_multiplier(t, M, constant))
    steps = dims.size + 2
    _report(progress, 0.0, "the paper's proof, repaired, in each dimension")
    chain_eta = np.asarray(chain_certified_eta_by_dimension(c, M=M, ds=dims), dtype=float)
    chain_noise = np.empty(dims.size)
    for i, d in enumerate(dims):
        _report(progress, (i + 1) / steps, f"noise the repaired proof needs at d = {d}")
        chain_noise[i] = float(chain_required_noise_multiplier(t, M=M, d=int(d)))
    _report(
        progress,
        (dims.size + 1) / steps,
        f"the best attack on 4 released numbers ({samples:,} Monte Carlo draws)",
    )
    cov_eta, cov_lo, cov_hi = _covariance_optimum(c, M, samples)
    table = pd.DataFrame(
        {
            "d": dims,
            "chain_eta": chain_eta,
            "dimension_free_eta": np.full(dims.size, float(certified_eta(c, M=M, d=1))),
            "corollary14_eta": np.full(dims.size, t),
            "chain_noise_multiplier": chain_noise,
            "dimension_free_noise_multiplier": np.full(
                dims.size, float(required_noise_multiplier(t, M=M, d=1))
            ),
            "corollary14_noise_multiplier": np.full(dims.size, c),
        }
    )
    _report(progress, 1.0, "done")
    chain4 = float(chain_certified_eta(c, M=M, d=COVARIANCE_GAP_DIM))
    return DimensionGap(t, table, cov_eta, (cov_lo, cov_hi), samples, chain4)
