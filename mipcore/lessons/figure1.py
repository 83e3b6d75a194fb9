r"""Figure 1 of the paper: the noise that certifies η-MIP, directly or through DP.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.1 (Figure 1 and its caption), on the dataset of Proposition 11
(:mod:`mipcore.prop11`). For a dataset of size n, with Δ(n) its sensitivity and σ_M(n) the
certified upper bound on ``(E|𝒜 − E𝒜|^M)^{1/M}``, three Laplace scales are compared:

* **MIP, Theorem 9 as printed** (Corollary 14 with constant 6.16 for M >= 2, Theorem 9 with
  7.5): ``(C/η)^{1+2/M} · σ_M`` -- the curve of the paper's Figure 1, reproduced as printed;
* **MIP, the smallest certified noise**: Theorem 9's noise with multiplier c certifies
  ``η <= (1 − e^{−1/c})/2`` in every dimension (:mod:`mipcore.theorem9`, steps T1-T4), for any
  ``σ`` bounding a moment of order ``M >= 1`` -- the page's σ_M qualifies. The smallest
  certified noise is therefore ``σ_M / ln(1/(1 − 2η))``
  (:func:`mipcore.theorem9.required_noise_multiplier`); it is ``(C/η)^{1+2/M} ln(1/(1 − 2η))``
  times smaller than the printed one (847 times at η = 0.1, M = 2, C = 6.16);
* **DP** (Laplace mechanism and Theorem 4 at δ = 0): ``Δ / ε(η)`` with
  ``ε(η) = log((1 + 2η)/(1 − 2η))``.

DP's noise over the smallest certified MIP noise is ``(Δ/σ_M)·g(η)`` with
``g(η) = ln(1/(1 − 2η)) / ln((1 + 2η)/(1 − 2η))``, which rises from 1/2 (η → 0) to 1
(η → 1/2). The two crossovers of the printed curve with DP's (MIP cheaper only between them)
become at most one: the certified-minimum MIP is cheaper than DP at every η when
``Δ >= 2σ_M`` (:attr:`NoiseRow.certified_ratio`, the ratio's least value), at no η when
``Δ <= σ_M``, and from one η on in between.

The paper writes the MIP scale with "σ an upper bound on the variance"; with M = 2 the theorem
needs σ² >= Var, so σ is a *standard deviation* (σ₂ ≈ 1 here, so the figure is the same).

The paper's reading of Figure 1 is evaluated, never restated (:func:`paper_claims`): every
verdict is a structured value computed from the curves, over every even n that is checked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import prop11
from .._validate import check_int, check_range
from ..noise import (
    COROLLARY14_CONSTANT,
    crossover_etas,
    dp_laplace_scale,
    mip_noise_multiplier,
    mip_noise_scale,
)
from ..theorem9 import required_noise_multiplier

__all__ = [
    "CLAIMED_FIRST_N",
    "PAPER_PRESET",
    "READ_ETA",
    "SAME_SIGMA",
    "Coverage",
    "CrossKind",
    "Crossing",
    "DpLeavesPlotClaim",
    "Figure1View",
    "MipCheaperClaim",
    "NoiseRow",
    "PaperClaims",
    "PaperPreset",
    "Peak",
    "Reading",
    "RowOnRange",
    "StartsAtClaim",
    "certified_noise_scale",
    "certified_ratio_shape",
    "crossover_table",
    "dp_visibility",
    "eta_grid",
    "figure1_view",
    "noise_curves",
    "noise_rows",
    "paper_claims",
    "paper_over_certified",
    "reading",
]


@dataclass(frozen=True)
class PaperPreset:
    """The settings of the paper's Figure 1 (Section 5.1).

    The paper prints no axis limits; ``eta_min``/``eta_max`` are the range its text discusses
    (η >= 0.01, up to just below the no-privacy end 1/2).
    """

    ns: tuple[int, ...] = (30, 36, 42, 48)
    M: int = 2
    constant: float = COROLLARY14_CONSTANT
    eta_min: float = 0.01
    eta_max: float = 0.49
    log_y: bool = False


PAPER_PRESET = PaperPreset()
#: The η the plain-language reading quotes (clamped to the range shown).
READ_ETA = 0.1
#: MIP curves of different n count as one line when their σ_M agree to this relative width.
SAME_SIGMA = 1e-3
#: "For datasets with at least n = 36 points ..." (the Figure 1 caption).
CLAIMED_FIRST_N = 36
#: The y-axis of the paper's plot shows the DP curve of n = 48 and none of n > 48.
_CLAIMED_LAST_VISIBLE = 48


# --------------------------------------------------------------------------- validation


def _check_ns(ns: Iterable[int]) -> list[int]:
    out = [check_int("n", n, prop11.N_MIN, prop11.N_MAX) for n in ns]
    if not out:
        raise ValueError("ns=[] is empty: choose at least one dataset size n")
    return out


def _check_eta_range(eta_min: float, eta_max: float) -> tuple[float, float]:
    lo = float(check_range("eta_min", eta_min, 0.0, 0.5, lo_open=True, hi_open=True))
    hi = float(check_range("eta_max", eta_max, 0.0, 0.5, lo_open=True, hi_open=True))
    if not lo < hi:
        raise ValueError(f"eta_min={lo!r} must be below eta_max={hi!r}")
    return lo, hi


def _check_m_c(M: int, constant: float) -> tuple[int, float]:
    m = check_int("M", M, 2, 16)
    c = float(
        check_range(
            "constant",
            constant,
            COROLLARY14_CONSTANT,
            math.inf,
            hi_open=True,
            hint="6.16 (Corollary 14) or 7.5 (Theorem 9)",
        )
    )
    return m, c


# --------------------------------------------------------------------------- formulas


def eta_grid(eta_min: float, eta_max: float, points: int = 300) -> NDArray[np.float64]:
    """A grid on [eta_min, eta_max], denser near both ends (where the curves bend).

    ``0 < eta_min < eta_max < 1/2``; ``10 <= points <= 100000``. Both ends are included.
    """
    lo, hi = _check_eta_range(eta_min, eta_max)
    points = check_int("points", points, 10, 100_000)
    u = (1 - np.cos(np.linspace(0, np.pi, points))) / 2  # Chebyshev-like spacing
    geo = np.exp(np.log(lo) + u * (np.log(hi) - np.log(lo)))
    return np.unique(np.concatenate([geo, [lo, hi]]))


def certified_noise_scale(
    eta: float | NDArray[np.float64], sigma: float, M: int
) -> float | NDArray[np.float64]:
    r"""The smallest certified MIP noise scale: ``σ / ln(1/(1 − 2η))`` (rounded up).

    Theorem 9's noise with multiplier c certifies ``η <= (1 − e^{−1/c})/2`` in every dimension
    (:func:`mipcore.theorem9.certified_eta`); the smallest c for a target η is
    ``−1/ln(1 − 2η)`` (:func:`mipcore.theorem9.required_noise_multiplier`), and the noise
    scale is ``c σ``. ``0 < eta < 1/2``; ``sigma >= 0`` bounds a moment of order ``M >= 1``.

    Examples
    --------
    >>> round(certified_noise_scale(0.1, 1.0, 2), 4)  # −1 / ln(0.8)
    4.4814
    """
    s = float(check_range("sigma", sigma, 0.0, math.inf, hi_open=True))
    c = required_noise_multiplier(eta, M=M, d=1)
    return c * s


def paper_over_certified(
    eta: float | NDArray[np.float64], M: int, constant: float = COROLLARY14_CONSTANT
) -> float | NDArray[np.float64]:
    r"""How many times the printed noise ``(C/η)^{1+2/M} σ`` exceeds the smallest certified
    ``σ / ln(1/(1 − 2η))``: ``(C/η)^{1+2/M} · ln(1/(1 − 2η))`` (the same for every σ and n).

    Examples
    --------
    >>> round(paper_over_certified(0.1, 2))  # (6.16/0.1)^2 · ln(1/0.8)
    847
    """
    return mip_noise_multiplier(eta, M, constant) / required_noise_multiplier(eta, M=M, d=1)


# --------------------------------------------------------------------------- one row per n


@dataclass(frozen=True)
class NoiseRow:
    """Δ, σ_M and where the noise curves of one n cross (for M and the constant C).

    ``crossover_eta``: the printed MIP noise is below DP's for η above it (None: never).
    ``upper_eta``: DP's noise is below again above it, ``upper_gap = 1/2 − upper_eta``
    (``0.0`` when below the smallest double), ``upper_epsilon`` the DP ε there (``inf``
    beyond the largest double) and ``upper_log10_gap`` = log₁₀ of the gap, finite whenever
    ``upper_epsilon`` is (the gap is ``1/(1 + e^ε)``). ``best_eta``/``max_ratio``: where DP
    needs the most times the printed MIP noise, and that ratio. ``certified_ratio`` =
    Δ/(2σ_M): the least value of DP's noise divided by the smallest certified MIP noise,
    which rises with η from it (η → 0) to Δ/σ_M (η → 1/2). ``certified_crossover_eta``: where
    that ratio crosses 1 when ``σ_M < Δ < 2σ_M`` (the certified MIP noise is below DP's above
    it); None otherwise (below DP's at every η when ``Δ >= 2σ_M``, at none when ``Δ <= σ_M``).
    """

    n: int
    M: int
    constant: float
    sensitivity: float
    sigma: float
    crossover_eta: float | None
    upper_eta: float | None
    upper_gap: float | None
    upper_epsilon: float | None
    upper_log10_gap: float | None
    best_eta: float
    max_ratio: float
    certified_ratio: float
    certified_crossover_eta: float | None = None

    @property
    def mip_ever_cheaper(self) -> bool:
        """Whether the printed MIP noise is below DP's for some η."""
        return self.crossover_eta is not None

    @property
    def certified_cheaper(self) -> bool:
        """Whether the smallest certified MIP noise is below DP's at every η (Δ > 2σ_M)."""
        return self.certified_ratio > 1.0


def certified_ratio_shape(eta: float | NDArray[np.float64]) -> float | NDArray[np.float64]:
    r"""``g(η) = ln(1/(1 − 2η)) / ln((1 + 2η)/(1 − 2η))``: DP's noise over the smallest certified
    MIP noise is ``(Δ/σ_M)·g(η)``. Increasing on (0, 1/2), from 1/2 to 1.

    Examples
    --------
    >>> round(certified_ratio_shape(0.1), 6)  # ln(1.25)/ln(1.5)
    0.550340
    """
    e = np.asarray(eta, dtype=float)
    g = np.log1p(-2.0 * e) / -np.log((1.0 + 2.0 * e) / (1.0 - 2.0 * e))
    return float(g) if np.ndim(eta) == 0 else g


def _certified_crossover(ratio_over_g: float) -> float | None:
    """The η where (Δ/σ)·g(η) = 1, for 1 < Δ/σ < 2 (g rises from 1/2 to 1); else None."""
    if not 1.0 < ratio_over_g < 2.0:
        return None
    from scipy.optimize import brentq

    target = 1.0 / ratio_over_g

    def gap(e: float) -> float:
        return float(certified_ratio_shape(e)) - target

    return float(brentq(gap, 1e-12, 0.5 - 1e-15, xtol=1e-15))


def _row(n: int, M: int, constant: float, sigma: float, delta: float) -> NoiseRow:
    c = crossover_etas(sigma, delta, M, constant)
    log10_gap: float | None = None
    if c.high_epsilon is not None and math.isfinite(c.high_epsilon):
        log10_gap = -float(np.logaddexp(0.0, c.high_epsilon)) / math.log(10.0)
    return NoiseRow(
        n=n,
        M=M,
        constant=constant,
        sensitivity=delta,
        sigma=sigma,
        crossover_eta=c.low,
        upper_eta=c.high,
        upper_gap=c.high_gap,
        upper_epsilon=c.high_epsilon,
        upper_log10_gap=log10_gap,
        best_eta=c.best_eta,
        max_ratio=c.best_ratio,
        certified_ratio=delta / (2.0 * sigma),
        certified_crossover_eta=_certified_crossover(delta / sigma) if sigma > 0 else None,
    )


def noise_rows(
    ns: Sequence[int], M: int = 2, constant: float = COROLLARY14_CONSTANT
) -> tuple[NoiseRow, ...]:
    """One :class:`NoiseRow` per n (sorted, repeats dropped), with the certified σ_M and Δ.

    ``4 <= n <= 400`` (:data:`mipcore.prop11.N_MAX`), ``2 <= M <= 16``, ``constant >= 6.16``.
    The slow part is certifying σ_M (up to about half a second per n).

    Examples
    --------
    >>> (row,) = noise_rows([30])
    >>> round(row.crossover_eta, 5), round(row.certified_ratio)
    (0.01219, 6227)
    """
    m, c = _check_m_c(M, constant)
    out = []
    for n in sorted(set(_check_ns(ns))):
        sig = prop11.output_moments(n, m).sigma
        out.append(_row(n, m, c, sig, prop11.sensitivity(n)))
    return tuple(out)


def crossover_table(
    ns: Sequence[int], M: int = 2, constant: float = COROLLARY14_CONSTANT
) -> pd.DataFrame:
    """:func:`noise_rows` as a table, in the order of ``ns`` (repeats kept).

    Columns: ``n``, ``sensitivity``, ``sigma``, ``crossover_eta`` (printed MIP cheaper above;
    NaN if never), ``upper_crossover_gap``, ``upper_crossover_epsilon``, ``best_eta``,
    ``max_ratio_dp_over_mip`` and ``certified_ratio_dp_over_mip`` (Δ/(2σ_M), the least ratio
    over η).
    """
    checked = _check_ns(ns)
    by_n = {r.n: r for r in noise_rows(checked, M, constant)}

    def nan(x: float | None) -> float:
        return math.nan if x is None else x

    return pd.DataFrame(
        [
            {
                "n": n,
                "sensitivity": by_n[n].sensitivity,
                "sigma": by_n[n].sigma,
                "crossover_eta": nan(by_n[n].crossover_eta),
                "upper_crossover_gap": nan(by_n[n].upper_gap),
                "upper_crossover_epsilon": nan(by_n[n].upper_epsilon),
                "best_eta": by_n[n].best_eta,
                "max_ratio_dp_over_mip": by_n[n].max_ratio,
                "certified_ratio_dp_over_mip": by_n[n].certified_ratio,
            }
            for n in checked
        ]
    )


def noise_curves(
    ns: Sequence[int],
    eta_min: float,
    eta_max: float,
    M: int = 2,
    constant: float = COROLLARY14_CONSTANT,
    points: int = 300,
) -> pd.DataFrame:
    """Long table of the printed Figure 1 curves: one MIP and one DP row per (n, η).

    Columns: ``n``, ``eta``, ``method`` ("MIP" or "DP"), ``noise_scale``, ``sigma``
    (certified σ_M used by MIP) and ``sensitivity`` (Δ used by DP).
    """
    ns = _check_ns(ns)
    m, c = _check_m_c(M, constant)
    etas = eta_grid(eta_min, eta_max, points)
    frames = []
    for n in ns:
        sig = prop11.output_moments(n, m).sigma
        delta = prop11.sensitivity(n)
        mip = np.asarray(mip_noise_scale(etas, sig, m, c))
        dp = np.asarray(dp_laplace_scale(etas, delta))
        for method, scale in (("MIP", mip), ("DP", dp)):
            frames.append(
                pd.DataFrame(
                    {
                        "n": n,
                        "eta": etas,
                        "method": method,
                        "noise_scale": scale,
                        "sigma": sig,
                        "sensitivity": delta,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def dp_visibility(n: int, eta_max: float) -> float:
    """The smallest DP noise scale of n's curve on η <= eta_max (attained at eta_max).

    The DP curve of n shows on a plot whose y-axis reaches ``y_top`` iff this is <= y_top.
    ``0 < eta_max < 1/2``.
    """
    _, hi = _check_eta_range(min(0.01, eta_max / 2), eta_max)
    return float(dp_laplace_scale(hi, prop11.sensitivity(n)))


# --------------------------------------------------------------------------- one view


class Coverage(StrEnum):
    """Where, on the η range shown, the printed MIP noise is below DP's."""

    EVERYWHERE = "everywhere"  # on the whole range
    FROM = "from"  # from the crossover (inside the range) to the end of the range
    UNTIL = "until"  # from the start of the range up to the upper crossover (inside)
    BETWEEN = "between"  # between the two crossovers, both inside the range
    OUTSIDE = "outside"  # only for η outside the range
    NEVER = "never"  # at no η at all


class CrossKind(StrEnum):
    """Which crossover: the printed MIP noise becomes cheaper, or DP's becomes cheaper again."""

    MIP_CHEAPER_ABOVE = "mip_cheaper_above"
    DP_CHEAPER_ABOVE = "dp_cheaper_above"


@dataclass(frozen=True)
class Crossing:
    """A crossover inside the η range: both noises equal ``scale`` at ``eta``."""

    n: int
    eta: float
    scale: float
    kind: CrossKind


@dataclass(frozen=True)
class Peak:
    """Where DP needs the most times the printed MIP noise (inside the η range)."""

    n: int
    eta: float
    ratio: float


@dataclass(frozen=True)
class RowOnRange:
    """One n on the η range shown: coverage, its DP curve's lowest value, hidden by the cap."""

    row: NoiseRow
    coverage: Coverage
    dp_floor: float
    dp_hidden: bool


@dataclass(frozen=True)
class Figure1View:
    """Everything the Figure 1 page draws and quotes for one setting.

    ``curves`` (one row per n and η): ``n, eta, mip_paper, mip_certified, dp,
    ratio_dp_over_mip, ratio_dp_over_certified``. ``y_top``: the paper-like cap (the printed
    MIP noise at ``eta_min`` of the largest σ), None without the cap. ``mip_curves_coincide``:
    the σ_M of all n agree within :data:`SAME_SIGMA`. ``factor_at_min``/``factor_at_max``:
    printed ÷ smallest certified MIP noise at the ends of the range.
    """

    M: int
    constant: float
    eta_min: float
    eta_max: float
    curves: pd.DataFrame
    rows: tuple[RowOnRange, ...]
    crossings: tuple[Crossing, ...]
    peaks: tuple[Peak, ...]
    y_top: float | None
    mip_curves_coincide: bool
    factor_at_min: float
    factor_at_max: float

    @property
    def hidden(self) -> tuple[RowOnRange, ...]:
        """The n whose DP curve lies entirely above the cap."""
        return tuple(r for r in self.rows if r.dp_hidden)

    @property
    def certified_cheaper_ns(self) -> tuple[int, ...]:
        """The n for which the smallest certified MIP noise is below DP's at every η."""
        return tuple(r.row.n for r in self.rows if r.row.certified_cheaper)


def _coverage(row: NoiseRow, lo: float, hi: float) -> Coverage:
    if row.crossover_eta is None:
        return Coverage.NEVER
    low = row.crossover_eta
    high = 0.5 if row.upper_eta is None else row.upper_eta
    if low >= hi or high <= lo:
        return Coverage.OUTSIDE
    starts_inside = low > lo
    ends_inside = high <= hi
    if starts_inside and ends_inside:
        return Coverage.BETWEEN
    if starts_inside:
        return Coverage.FROM
    if ends_inside:
        return Coverage.UNTIL
    return Coverage.EVERYWHERE


def figure1_view(
    rows: Sequence[NoiseRow],
    eta_min: float,
    eta_max: float,
    *,
    cap: bool = True,
    points: int = 200,
) -> Figure1View:
    """The curves, crossovers, peaks and cap of Figure 1 for ``rows`` on [eta_min, eta_max].

    ``rows`` come from :func:`noise_rows` (one M and constant); ``0 < eta_min < eta_max < 1/2``;
    ``points`` per curve (10 to 100000). Cheap: no σ is certified here.

    Examples
    --------
    >>> v = figure1_view(noise_rows([30]), 0.01, 0.49)
    >>> v.rows[0].coverage.value, round(v.y_top), round(v.factor_at_max, 3)
    ('from', 379456, 618.259)
    """
    if not rows:
        raise ValueError("rows=() is empty: choose at least one dataset size n")
    M, constant = rows[0].M, rows[0].constant
    if any(r.M != M or r.constant != constant for r in rows):
        raise ValueError("rows mix moment orders or constants: compute them with one M and C")
    lo, hi = _check_eta_range(eta_min, eta_max)
    etas = eta_grid(lo, hi, points)
    c_paper = np.asarray(mip_noise_multiplier(etas, M, constant))
    c_cert = np.asarray(required_noise_multiplier(etas, M=M, d=1))
    frames, on_range, crossings, peaks = [], [], [], []
    sig_max = max(r.sigma for r in rows)
    y_top = float(mip_noise_scale(lo, sig_max, M, constant)) if cap else None
    for r in rows:
        mip = c_paper * r.sigma
        cert = c_cert * r.sigma
        dp = np.asarray(dp_laplace_scale(etas, r.sensitivity))
        frames.append(
            pd.DataFrame(
                {
                    "n": r.n,
                    "eta": etas,
                    "mip_paper": mip,
                    "mip_certified": cert,
                    "dp": dp,
                    "ratio_dp_over_mip": dp / mip,
                    "ratio_dp_over_certified": dp / cert,
                }
            )
        )
        floor = float(dp_laplace_scale(hi, r.sensitivity))
        on_range.append(
            RowOnRange(r, _coverage(r, lo, hi), floor, y_top is not None and floor > y_top)
        )
        for eta_x, kind in (
            (r.crossover_eta, CrossKind.MIP_CHEAPER_ABOVE),
            (r.upper_eta, CrossKind.DP_CHEAPER_ABOVE),
        ):
            if eta_x is not None and lo <= eta_x <= hi:
                scale = float(mip_noise_scale(eta_x, r.sigma, M, constant))
                crossings.append(Crossing(r.n, eta_x, scale, kind))
        if lo <= r.best_eta <= hi:
            peaks.append(Peak(r.n, r.best_eta, r.max_ratio))
    sigmas = [r.sigma for r in rows]
    coincide = max(sigmas) / min(sigmas) - 1 < SAME_SIGMA
    return Figure1View(
        M=M,
        constant=constant,
        eta_min=lo,
        eta_max=hi,
        curves=pd.concat(frames, ignore_index=True),
        rows=tuple(on_range),
        crossings=tuple(crossings),
        peaks=tuple(peaks),
        y_top=y_top,
        mip_curves_coincide=bool(coincide),
        factor_at_min=float(paper_over_certified(lo, M, constant)),
        factor_at_max=float(paper_over_certified(hi, M, constant)),
    )


# --------------------------------------------------------------------------- the reading


@dataclass(frozen=True)
class Reading:
    """The numbers of the plain-language reading at η = :data:`READ_ETA` (clamped to the range).

    For the largest n chosen (``n_big``): the three noise scales and their ratios. For the
    smallest (``n_small``, the same as ``n_big`` when one n is chosen): its coverage on the
    range and its largest DP ÷ printed-MIP ratio.
    """

    eta: float
    accuracy: float
    n_big: int
    sigma: float
    mip_scale: float
    certified_scale: float
    dp_scale: float
    dp_over_mip: float
    dp_over_certified: float
    paper_over_certified: float
    n_small: int
    small_coverage: Coverage
    small_crossover: float | None
    small_max_ratio: float


def reading(view: Figure1View) -> Reading:
    """The plain-language reading of ``view`` (:class:`Reading`).

    Examples
    --------
    >>> r = reading(figure1_view(noise_rows([30, 48]), 0.01, 0.49))
    >>> r.n_big, round(r.dp_over_mip), round(r.paper_over_certified)
    (48, 3691, 847)
    """
    big, small = view.rows[-1], view.rows[0]
    eta = min(max(READ_ETA, view.eta_min), view.eta_max)
    mip = float(mip_noise_scale(eta, big.row.sigma, view.M, view.constant))
    cert = float(certified_noise_scale(eta, big.row.sigma, view.M))
    dp = float(dp_laplace_scale(eta, big.row.sensitivity))
    return Reading(
        eta=eta,
        accuracy=0.5 + eta,
        n_big=big.row.n,
        sigma=big.row.sigma,
        mip_scale=mip,
        certified_scale=cert,
        dp_scale=dp,
        dp_over_mip=dp / mip,
        dp_over_certified=dp / cert,
        paper_over_certified=mip / cert,
        n_small=small.row.n,
        small_coverage=small.coverage,
        small_crossover=small.row.crossover_eta,
        small_max_ratio=small.row.max_ratio,
    )


# --------------------------------------------------------------------------- the paper's claims


@dataclass(frozen=True)
class MipCheaperClaim:
    """ "For n >= 36 and η >= 0.01, MIP needs less noise than DP" (Section 5.1).

    Judged for every even n from ``n_from`` to ``n_max`` on [eta_min, eta_max]: ``failures``
    lists the n where the printed MIP noise is not below DP's on the whole range;
    ``worst_n``/``worst_crossover``: the n with the largest lower crossover (inf: never cheaper).
    """

    holds: bool
    n_from: int
    n_max: int
    failures: tuple[int, ...]
    worst_n: int
    worst_crossover: float


@dataclass(frozen=True)
class StartsAtClaim:
    """ "n = 36 is where this starts" (the caption's "at least n = 36 points").

    Judged over *every* even n in ``ns_checked`` (from 4): ``cheaper[i]`` says whether the
    printed MIP noise is below DP's on all of [eta_min, eta_max] at ``ns_checked[i]``, whose
    lower crossover is ``crossovers[i]`` (None: never cheaper). ``first_n``: the first even n
    where it holds (None: nowhere); ``holds_from_first_on``: it holds for every checked n
    above ``first_n`` too. The claim holds when ``first_n`` is 36 and it holds from there on.
    """

    holds: bool
    claimed_n: int
    first_n: int | None
    holds_from_first_on: bool
    ns_checked: tuple[int, ...]
    cheaper: tuple[bool, ...]
    crossovers: tuple[float | None, ...]

    def crossover_of(self, n: int) -> float | None:
        """The lower crossover of a checked n (``ValueError`` if n was not checked)."""
        if n not in self.ns_checked:
            lo, hi = self.ns_checked[0], self.ns_checked[-1]
            raise ValueError(f"n={n!r} was not checked: allowed even n from {lo} to {hi}")
        return self.crossovers[self.ns_checked.index(n)]


@dataclass(frozen=True)
class DpLeavesPlotClaim:
    """ "For n > 48 the DP curves leave the plotted range" (the Figure 1 caption).

    With the y-axis topped at the printed MIP noise at ``eta_min`` (``y_top``, σ of n = 48),
    ``first_hidden`` is the first even n whose DP curve lies entirely above it. The statement
    (48 visible, 50 not) holds exactly for a y-axis top in ``[top_low, top_high)``.
    """

    holds: bool
    y_top: float
    first_hidden: int | None
    top_low: float
    top_high: float


@dataclass(frozen=True)
class PaperClaims:
    """The three statements of Section 5.1 about Figure 1, judged; and the same question for
    the smallest certified MIP noise (``certified_first_n``: the first even n from which it is
    below DP's at every η, for every checked n after it; None: for none)."""

    M: int
    constant: float
    eta_min: float
    eta_max: float
    n_max: int
    mip_cheaper: MipCheaperClaim
    starts_at: StartsAtClaim
    leaves_plot: DpLeavesPlotClaim
    certified_first_n: int | None
    certified_cheaper: tuple[bool, ...]

    @property
    def verdicts(self) -> tuple[bool, bool, bool]:
        """``holds`` of the three claims, in the paper's order."""
        return (self.mip_cheaper.holds, self.starts_at.holds, self.leaves_plot.holds)


def _first_from_on(ns: Sequence[int], ok: Sequence[bool]) -> tuple[int | None, bool]:
    first = next((n for n, o in zip(ns, ok, strict=True) if o), None)
    if first is None:
        return None, False
    return first, all(o for n, o in zip(ns, ok, strict=True) if n >= first)


def _from_on(ns: Sequence[int], ok: Sequence[bool]) -> int | None:
    """The smallest checked n from which every checked n passes (None if the last fails)."""
    start = None
    for n, o in zip(ns, ok, strict=True):
        if not o:
            start = None
        elif start is None:
            start = n
    return start


def _cheaper_on(lo: float, hi: float, low: float | None, high: float | None) -> bool:
    return low is not None and low <= lo and high is not None and high > hi


def paper_claims(
    eta_min: float = PAPER_PRESET.eta_min,
    eta_max: float = PAPER_PRESET.eta_max,
    M: int = 2,
    constant: float = COROLLARY14_CONSTANT,
    n_max: int = 200,
) -> PaperClaims:
    """Judge the paper's reading of Figure 1 (Section 5.1) from the curves.

    1. "For n >= 36 and η >= eta_min, MIP needs less noise": for every even n in
       [36, n_max], the printed MIP noise is below DP's on all of [eta_min, eta_max] --
       checked through the crossovers, which bracket exactly where MIP is cheaper.
    2. "n = 36 is where this starts": the same test for *every* even n from 4 to n_max; the
       claim holds if the first n where it holds is 36 (and it holds for every n after).
    3. "For n > 48 the DP curves leave the plotted range": the paper gives no axis limits.
       With the y-axis topped at the printed MIP noise at eta_min, the first n whose DP curve
       lies entirely above it, and the interval of tops for which the statement is exact.

    σ_M is certified to a relative 1e-6 (a certified *upper* bound: a "cheaper" verdict is
    valid); a "not cheaper" verdict is confirmed with σ's certified lower end, and recomputed
    at full precision if the two ends disagree. ``0 < eta_min < eta_max < 1/2``,
    ``2 <= M <= 16``, ``constant >= 6.16``, ``36 <= n_max <= 400``. About 5 s.

    Examples
    --------
    >>> cl = paper_claims(n_max=40)
    >>> cl.verdicts, cl.starts_at.first_n, cl.certified_first_n
    ((True, False, False), 32, 4)
    """
    lo, hi = _check_eta_range(eta_min, eta_max)
    m, c = _check_m_c(M, constant)
    n_max = check_int("n_max", n_max, CLAIMED_FIRST_N, prop11.N_MAX)
    ns = tuple(range(prop11.N_MIN, n_max + 1, 2))
    cheaper, lows, cert = [], [], []
    for n in ns:
        delta = prop11.sensitivity(n)
        mom = prop11.output_moments(n, m, rtol=1e-6, max_nodes=400)
        x = crossover_etas(mom.sigma, delta, m, c)
        ok = _cheaper_on(lo, hi, x.low, x.high)
        if not ok:
            sig_low = math.nextafter(mom.moment_interval[0] ** (1.0 / m), 0.0)
            y = crossover_etas(max(sig_low, 1e-300), delta, m, c)
            if _cheaper_on(lo, hi, y.low, y.high):  # the bound decides: certify σ tighter
                x = crossover_etas(prop11.output_moments(n, m).sigma, delta, m, c)
                ok = _cheaper_on(lo, hi, x.low, x.high)
        cheaper.append(ok)
        lows.append(x.low)
        cert.append(delta > 2.0 * mom.sigma)

    # 1. n >= 36
    from36 = [(n, ok, low) for n, ok, low in zip(ns, cheaper, lows, strict=True) if n >= 36]
    failures = tuple(n for n, ok, _ in from36 if not ok)
    worst_n, worst = max(
        ((n, math.inf if low is None else low) for n, _, low in from36), key=lambda t: t[1]
    )
    claim1 = MipCheaperClaim(not failures, CLAIMED_FIRST_N, n_max, failures, worst_n, worst)

    # 2. where it starts
    first, after = _first_from_on(ns, cheaper)
    claim2 = StartsAtClaim(
        holds=first == CLAIMED_FIRST_N and after,
        claimed_n=CLAIMED_FIRST_N,
        first_n=first,
        holds_from_first_on=after,
        ns_checked=ns,
        cheaper=tuple(cheaper),
        crossovers=tuple(lows),
    )

    # 3. which DP curves leave the plot
    sig48 = prop11.output_moments(_CLAIMED_LAST_VISIBLE, m).sigma
    y_top = float(mip_noise_scale(lo, sig48, m, c))
    first_hidden = next(
        (n for n in range(30, prop11.N_MAX + 1, 2) if dp_visibility(n, hi) > y_top), None
    )
    claim3 = DpLeavesPlotClaim(
        holds=first_hidden == _CLAIMED_LAST_VISIBLE + 2,
        y_top=y_top,
        first_hidden=first_hidden,
        top_low=dp_visibility(_CLAIMED_LAST_VISIBLE, hi),
        top_high=dp_visibility(_CLAIMED_LAST_VISIBLE + 2, hi),
    )
    return PaperClaims(
        M=m,
        constant=c,
        eta_min=lo,
        eta_max=hi,
        n_max=n_max,
        mip_cheaper=claim1,
        starts_at=claim2,
        leaves_plot=claim3,
        certified_first_n=_from_on(ns, cert),
        certified_cheaper=tuple(cert),
    )
