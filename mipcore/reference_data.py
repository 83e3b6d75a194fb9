r"""Reference data in empirical privacy defenses: the theory of weighted ERM (WERM).

Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira. *A Cautionary Tale: On the Role of
Reference Data in Empirical Privacy Defenses*. PETS 2024, arXiv:2310.12112, Section 3
(Theorems 3.1 and 3.2, Figure 2) and Section 4.4 (the selection rules of Table 2).

A defense that trains on its private training set D_T (N_T records) *and* on a reference
set D_R (N_R records) can look private on D_T while leaking D_R. WERM makes the trade
explicit: it minimises

.. math:: L^w_D(f_\theta) = (1-w)\,L_{D_T}(f_\theta) + w\,L_{D_R}(f_\theta),
          \qquad w \in [0, 1]

(equation (13)); w = 0 ignores D_R, w = 1 ignores D_T.

* :func:`werm_epsilons` -- Theorem 3.1: trained with DP-SGD, WERM is (O(ε_T), δ)-DP for
  D_T and (O(ε_R), δ)-DP for D_R with ε_T = ε₀(1−w)/N_T and ε_R = ε₀·w/N_R.
* :func:`werm_etas` -- the η-MIP levels those ε give through Theorem 4 of Izzo, Yoon, Arık,
  Zou, *Provable Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582
  (:func:`mipcore.bounds.eta_from_epsilon`). Theorem 3.1 only states orders of magnitude
  (O(ε)), so these η are illustrative, not certificates.
* :func:`effective_sample_size` -- Theorem 3.2's N_eff = [(1−w)²/N_T + w²/N_R]⁻¹, the
  sample size that governs WERM's generalisation bound.
* :func:`equal_privacy_weight` -- w* = N_R/(N_T + N_R): ε_T = ε_R = ε₀/N and N_eff = N.
* :func:`split_sizes` -- (N_T, N_R) from N and the ratio N_T/N_R; Theorem 3.1 holds on all of
  w ∈ [0, 1] for 0 < ε₀ < min(N_T, N_R).
* :func:`figure2` -- the paper's Figure 2 (ε₀ = 1000, N = 20 000, N_T/N_R ∈ {0.25, 1, 9})
  as curves, with the facts its text states *evaluated* (exactly, in rational arithmetic)
  rather than asserted.
* :func:`select_public_reference`, :func:`select_equal_privacy`,
  :func:`select_high_reference_privacy` (and :func:`select_instance`) -- the three
  selection rules of Table 2 (Sections 4.4.2--4.4.4), with adjustable thresholds.

Notes on the paper
------------------
* Section 5.1 attributes the ratio ε_T/ε_R = (1−w)/w · N_R/N_T to "the equations in
  Theorem 3.2"; it follows from Theorem 3.1 (equation (16)).
* Theorem 3.1 numbers two lines (16); the domain 0 < ε₀ < min(N_T/(1−w), N_R/w) is what
  makes ε_T < 1 and ε_R < 1 (Appendix A.3), with N/0 read as +∞ at w ∈ {0, 1}.
* The "public reference data" rule (Section 4.4.2) bounds the attack accuracy on the
  *training* data (≤ 51 %), not on the reference data: when D_R is public its leakage does
  not matter, and the defense should spend it to protect D_T. Table 2's public-reference
  rows all have "MIA Train" ≤ 51 % and "MIA Ref" up to 84 %.
* The "equal privacy" threshold of 4 % (Section 4.4.3) is read as 4 percentage points of
  attack accuracy, |acc_train − acc_ref| ≤ 0.04: Table 2's AdvReg-RT instance on
  Purchase100 (61.1 % vs 57.1 %) meets it only in that reading (a relative 4 % would
  exclude it).
* Section 4.4.1 quotes "87% / 54.7% / 54.9%" for WERM at w = 0.5 on Purchase100, but
  Table 2 lists 87.0 % / 61.5 % / 61.5 % for WERM and 83.6 % / 54.7 % / 54.9 % for WERM-ES:
  the sentence mixes WERM's test accuracy with WERM-ES's attack accuracies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ._validate import as_float_array, check_range, scalar_or_array
from .bounds import eta_from_epsilon

__all__ = [
    "FIGURE2_EPS0",
    "FIGURE2_N",
    "FIGURE2_RATIOS",
    "SELECTION_DEFAULTS",
    "FactFailure",
    "FactVerdict",
    "Figure2Fact",
    "Figure2Result",
    "PrivacyPair",
    "Selection",
    "SelectionOutcome",
    "SelectionRule",
    "effective_sample_size",
    "equal_privacy_weight",
    "figure2",
    "select_equal_privacy",
    "select_high_reference_privacy",
    "select_instance",
    "select_public_reference",
    "split_sizes",
    "werm_epsilons",
    "werm_etas",
]

FloatOrArray = float | NDArray[np.float64]

#: Figure 2's parameters: ε₀, N = N_T + N_R and the ratios N_T/N_R.
FIGURE2_EPS0 = 1000.0
FIGURE2_N = 20_000
FIGURE2_RATIOS: tuple[float, ...] = (0.25, 1.0, 9.0)


class PrivacyPair(NamedTuple):
    """A quantity for the training set and for the reference set (ε or η)."""

    train: FloatOrArray
    reference: FloatOrArray


# --------------------------------------------------------------------------- Theorems 3.1, 3.2


def _sizes(n_train: ArrayLike, n_ref: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    nt = check_range("n_train", n_train, 0.0, math.inf, lo_open=True, hi_open=True)
    nr = check_range("n_ref", n_ref, 0.0, math.inf, lo_open=True, hi_open=True)
    return nt, nr


def _eps0_cap(w: NDArray[np.float64], nt: NDArray[np.float64], nr: NDArray[np.float64]):
    """min(N_T/(1−w), N_R/w) with N/0 = +inf (Theorem 3.1's domain for ε₀)."""
    with np.errstate(divide="ignore"):
        cap_t = np.where(w < 1.0, nt / np.where(w < 1.0, 1.0 - w, 1.0), math.inf)
        cap_r = np.where(w > 0.0, nr / np.where(w > 0.0, w, 1.0), math.inf)
    return np.minimum(cap_t, cap_r)


def werm_epsilons(
    w: ArrayLike, n_train: ArrayLike, n_ref: ArrayLike, eps0: ArrayLike
) -> PrivacyPair:
    r"""(ε_T, ε_R) of Theorem 3.1: WERM's per-dataset DP levels under DP-SGD.

    .. math:: \varepsilon_T = \varepsilon_0 \frac{1-w}{N_T}, \qquad
              \varepsilon_R = \varepsilon_0 \frac{w}{N_R},
              \qquad 0 < \varepsilon_0 < \min\Big(\frac{N_T}{1-w}, \frac{N_R}{w}\Big).

    WERM trained with DP-SGD at noise scale σ ∝ 1/ε₀ (equation (17)) is (O(ε_T), δ)-DP
    with respect to D_T and (O(ε_R), δ)-DP with respect to D_R. The ratio
    ε_T/ε_R = (1−w)N_R/(w N_T) does not depend on ε₀; at w = N_R/(N_T+N_R) both equal ε₀/N.

    Parameters
    ----------
    w : float or array, ``0 <= w <= 1`` -- the reference-data weight of equation (13).
    n_train, n_ref : float or array, ``> 0`` -- N_T and N_R (counts; real values are
        accepted so that a ratio of a total can be plotted).
    eps0 : float or array, ``0 < eps0 < min(n_train/(1-w), n_ref/w)`` (N/0 = +∞): the
        theorem's domain, which keeps ε_T < 1 and ε_R < 1.

    Returns
    -------
    PrivacyPair
        ``(train, reference)`` = (ε_T, ε_R); Python floats for scalar input, arrays
        broadcast over all inputs otherwise.

    Raises
    ------
    ValueError
        Naming ``w``, ``n_train``, ``n_ref`` or ``eps0`` when outside its domain.

    Notes
    -----
    Theorem 3.1 bounds the DP levels up to constants (O(ε_T), O(ε_R)): the values are
    orders of magnitude, exact only in their ratio.

    References
    ----------
    Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira. *A Cautionary Tale: On the Role of
    Reference Data in Empirical Privacy Defenses*. PETS 2024, arXiv:2310.12112, Theorem 3.1.

    Examples
    --------
    >>> werm_epsilons(0.5, 10_000, 10_000, 1000.0)
    PrivacyPair(train=0.05, reference=0.05)
    >>> eps_t, eps_r = werm_epsilons(0.1, 18_000, 2_000, 1000.0)  # w* = N_R/N = 0.1
    >>> round(eps_t, 12), round(eps_r, 12)  # both eps0/N = 1000/20000
    (0.05, 0.05)
    """
    ww = check_range("w", w, 0.0, 1.0)
    nt, nr = _sizes(n_train, n_ref)
    e0 = check_range("eps0", eps0, 0.0, math.inf, lo_open=True, hi_open=True)
    bw, bt, br, be = np.broadcast_arrays(ww, nt, nr, e0)
    cap = _eps0_cap(bw, bt, br)
    bad = be >= cap
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise ValueError(
            f"eps0={float(be.ravel()[i])!r} is out of range for w={float(bw.ravel()[i])!r}, "
            f"n_train={float(bt.ravel()[i])!r}, n_ref={float(br.ravel()[i])!r}: allowed "
            f"0 < eps0 < min(n_train/(1-w), n_ref/w) = {float(cap.ravel()[i])!r} "
            "(Theorem 3.1 needs eps_T < 1 and eps_R < 1)"
        )
    eps_t = be * (1.0 - bw) / bt
    eps_r = be * bw / br
    return PrivacyPair(
        scalar_or_array(eps_t, w, n_train, n_ref, eps0),
        scalar_or_array(eps_r, w, n_train, n_ref, eps0),
    )


def werm_etas(
    w: ArrayLike, n_train: ArrayLike, n_ref: ArrayLike, eps0: ArrayLike, delta: ArrayLike = 0.0
) -> PrivacyPair:
    r"""η-MIP levels (η_T, η_R) implied by Theorem 3.1's (ε_T, δ) and (ε_R, δ) -- illustrative.

    η = δ/2 + (1−δ)·tanh(ε/2)/2 (Theorem 4 of *Provable Membership Inference Privacy*,
    :func:`mipcore.bounds.eta_from_epsilon`) applied to each ε of :func:`werm_epsilons`.

    Parameters
    ----------
    w, n_train, n_ref, eps0 : as in :func:`werm_epsilons`.
    delta : float or array, ``0 <= delta <= 1``.

    Returns
    -------
    PrivacyPair
        ``(train, reference)`` = (η_T, η_R), each in ``[0, 1/2]``.

    Notes
    -----
    Theorem 3.1 states its DP levels only up to constants (O(ε)); these η therefore show
    how the two datasets' exposure moves with w, not certified values. Theorem 4 itself is
    tight: an (ε, δ)-DP algorithm is η-MIP with exactly this η in the worst case.

    Examples
    --------
    >>> eta_t, eta_r = werm_etas(0.5, 10_000, 10_000, 1000.0)
    >>> round(eta_t, 6) == round(eta_r, 6) == round(0.5 * math.tanh(0.025), 6)
    True
    """
    eps = werm_epsilons(w, n_train, n_ref, eps0)
    return PrivacyPair(eta_from_epsilon(eps.train, delta), eta_from_epsilon(eps.reference, delta))


def effective_sample_size(w: ArrayLike, n_train: ArrayLike, n_ref: ArrayLike) -> FloatOrArray:
    r"""Theorem 3.2's effective number of samples N_eff of WERM.

    .. math:: N_\mathrm{eff} = \Big[\frac{(1-w)^2}{N_T} + \frac{w^2}{N_R}\Big]^{-1}
              = \frac{N_T N_R}{(1-w)^2 N_R + w^2 N_T}.

    N_eff ≤ N = N_T + N_R with equality exactly at w* = N_R/N (Cauchy–Schwarz); N_eff = N_T
    at w = 0 and N_R at w = 1. The generalisation bound (18) shrinks like N_eff^(−1/2).

    Parameters
    ----------
    w : float or array, ``0 <= w <= 1``.
    n_train, n_ref : float or array, ``> 0``.

    Returns
    -------
    float or ndarray, in ``(0, n_train + n_ref]``.

    Raises
    ------
    ValueError
        Naming ``w``, ``n_train`` or ``n_ref`` when outside its domain.

    Examples
    --------
    >>> effective_sample_size(0.5, 10_000, 10_000)
    20000.0
    >>> effective_sample_size([0.0, 1.0], 4_000, 16_000).tolist()
    [4000.0, 16000.0]
    """
    ww = check_range("w", w, 0.0, 1.0)
    nt, nr = _sizes(n_train, n_ref)
    n_eff = nt * nr / ((1.0 - ww) ** 2 * nr + ww**2 * nt)
    return scalar_or_array(n_eff, w, n_train, n_ref)


def equal_privacy_weight(n_train: ArrayLike, n_ref: ArrayLike) -> FloatOrArray:
    r"""w* = N_R/(N_T + N_R): equal privacy (ε_T = ε_R = ε₀/N) and maximal utility (N_eff = N).

    Every record then carries the same weight 1/N: WERM is plain ERM on D_T ∪ D_R.

    Parameters
    ----------
    n_train, n_ref : float or array, ``> 0``.

    Returns
    -------
    float or ndarray in ``(0, 1)``.

    Examples
    --------
    >>> equal_privacy_weight(18_000, 2_000)
    0.1
    """
    nt, nr = _sizes(n_train, n_ref)
    return scalar_or_array(nr / (nt + nr), n_train, n_ref)


def split_sizes(n_total: float, ratio: float) -> tuple[float, float]:
    r"""(N_T, N_R) for N = N_T + N_R records in the ratio a = N_T/N_R, in float arithmetic.

    N_T = N·a/(1+a) and N_R = N − N_T, as :func:`figure2` splits N (there in exact rational
    arithmetic, so the two may differ in the last bit). Theorem 3.1 holds on all of
    w ∈ [0, 1] exactly when 0 < ε₀ < min(N_T, N_R) (Figure 2's domain).

    Parameters
    ----------
    n_total : ``n_total > 0``, N.
    ratio : ``ratio > 0``, N_T/N_R.

    Returns
    -------
    tuple of float
        ``(n_train, n_ref)``.

    Raises
    ------
    ValueError
        Naming ``n_total`` or ``ratio`` when outside its domain.

    Examples
    --------
    >>> split_sizes(20_000, 1.0)
    (10000.0, 10000.0)
    >>> n_train, n_ref = split_sizes(20_000, 9.0)
    >>> n_train, n_ref, 5000.0 < min(n_train, n_ref)  # ε₀ = 5000 is outside the domain
    (18000.0, 2000.0, False)
    """
    n = float(check_range("n_total", n_total, 0.0, math.inf, lo_open=True, hi_open=True))
    a = float(check_range("ratio", ratio, 0.0, math.inf, lo_open=True, hi_open=True))
    n_train = n * a / (1.0 + a)
    return n_train, n - n_train


# --------------------------------------------------------------------------- Figure 2


class Figure2Fact(Enum):
    """A statement of Section 3.5 (Figure 2) and its footnote 4, evaluated by :func:`figure2`."""

    #: "all curves share the point (N, ε₀/N)": at w* = N_R/N, N_eff = N and ε_T = ε_R = ε₀/N.
    SHARED_POINT = "shared_point"
    #: "N_eff ≤ N" (Section 3.4): the effective sample size never exceeds the total.
    N_EFF_AT_MOST_N = "n_eff_at_most_n"
    #: "increasing the weight causes the model utility to first increase and then decrease",
    #: with the maximum at w*.
    UTILITY_RISES_THEN_FALLS = "utility_rises_then_falls"
    #: "as w increases, ... ε_R increasing leads to ... ε_T decreasing".
    PRIVACY_TRADE = "privacy_trade"
    #: Footnote 4: the training (reference) curve of N_T/N_R = a coincides with the reference
    #: (training) curve of 1/a (at weight 1 − w).
    RECIPROCAL_SYMMETRY = "reciprocal_symmetry"


Quantity = Literal["n_eff", "eps_train", "eps_ref"]


@dataclass(frozen=True)
class FactFailure:
    """Where a fact fails: the curve (ratio N_T/N_R), the weight and the quantity.

    ``expected`` is the value the fact requires for an equality. It is None for an order
    violation, where ``value`` is the increment (from the previous grid point to ``w``) that
    has the wrong sign, and for a misplaced maximum of N_eff (at a grid end or not at w*),
    where ``w`` and ``value`` are the grid maximum's.
    """

    ratio: float
    w: float
    quantity: Quantity
    value: float
    expected: float | None


@dataclass(frozen=True)
class FactVerdict:
    """One fact of Figure 2: does it hold on every curve and grid point, and where not."""

    fact: Figure2Fact
    holds: bool
    failures: tuple[FactFailure, ...]


@dataclass(frozen=True)
class Figure2Result:
    """Figure 2's curves and the evaluated facts of its text.

    ``curves`` has one row per (ratio, w): ``ratio`` (N_T/N_R), ``n_train``, ``n_ref``,
    ``w``, ``is_equal_privacy`` (w = w*), ``n_eff``, ``eps_train``, ``eps_ref``,
    ``eta_train``, ``eta_ref`` (illustrative, :func:`werm_etas`). Each curve's w grid is the
    requested one plus its w* (so the shared point is on every curve).
    """

    eps0: float
    n_total: float
    ratios: tuple[float, ...]
    delta: float
    curves: pd.DataFrame
    shared_point: tuple[float, float]
    verdicts: tuple[FactVerdict, ...]

    def verdict(self, fact: Figure2Fact) -> FactVerdict:
        """The verdict for one fact."""
        for v in self.verdicts:
            if v.fact is fact:
                return v
        raise KeyError(fact)  # pragma: no cover - every fact is evaluated


def _exact_curve(w: list[Fraction], nt: Fraction, nr: Fraction, e0: Fraction):
    n_eff = [nt * nr / ((1 - x) ** 2 * nr + x**2 * nt) for x in w]
    eps_t = [e0 * (1 - x) / nt for x in w]
    eps_r = [e0 * x / nr for x in w]
    return n_eff, eps_t, eps_r


def _split_sizes(n_total: Fraction, ratio: Fraction) -> tuple[Fraction, Fraction]:
    nt = n_total * ratio / (1 + ratio)
    return nt, n_total - nt


def figure2(
    eps0: float = FIGURE2_EPS0,
    n_total: float = FIGURE2_N,
    ratios: ArrayLike = FIGURE2_RATIOS,
    w: ArrayLike | None = None,
    delta: float = 0.0,
) -> Figure2Result:
    r"""Figure 2 of *A Cautionary Tale*: N_eff against ε_T and ε_R as w runs over [0, 1].

    For each ratio a = N_T/N_R, N_T = N·a/(1+a) and N_R = N − N_T; every w of the grid gives
    a point (N_eff, ε_T) on the training curve and (N_eff, ε_R) on the reference curve.

    The facts of the text are *evaluated* in exact rational arithmetic (each float input is
    converted exactly), on the grid actually plotted:

    * ``SHARED_POINT`` -- at w* = N_R/N every curve has N_eff = N and ε_T = ε_R = ε₀/N;
    * ``N_EFF_AT_MOST_N`` -- N_eff ≤ N at every grid point;
    * ``UTILITY_RISES_THEN_FALLS`` -- N_eff strictly increases up to its grid maximum, which
      is at w*, and strictly decreases after it, with points on both sides;
    * ``PRIVACY_TRADE`` -- ε_T strictly decreases and ε_R strictly increases in w;
    * ``RECIPROCAL_SYMMETRY`` -- (N_eff, ε_T) of ratio a at w equals (N_eff, ε_R) of ratio
      1/a at 1 − w (and vice versa).

    Parameters
    ----------
    eps0 : ``0 < eps0 < min(N_T, N_R)`` for every ratio (Theorem 3.1's domain on all of
        w ∈ [0, 1]); default 1000.
    n_total : N = N_T + N_R, ``> 0``; default 20 000.
    ratios : N_T/N_R values, each ``> 0``, at least one; default (0.25, 1, 9).
    w : weights in [0, 1] (default: 101 points from 0 to 1); sorted and deduplicated.
    delta : ``0 <= delta <= 1``, only for the illustrative η columns.

    Returns
    -------
    Figure2Result

    Raises
    ------
    ValueError
        Naming ``eps0``, ``n_total``, ``ratios``, ``w`` or ``delta``.

    Examples
    --------
    >>> fig = figure2()
    >>> fig.shared_point
    (20000.0, 0.05)
    >>> [(v.fact.value, v.holds) for v in fig.verdicts]  # doctest: +NORMALIZE_WHITESPACE
    [('shared_point', True), ('n_eff_at_most_n', True), ('utility_rises_then_falls', True),
     ('privacy_trade', True), ('reciprocal_symmetry', True)]
    """
    n = float(check_range("n_total", n_total, 0.0, math.inf, lo_open=True, hi_open=True))
    r_arr = np.atleast_1d(
        check_range("ratios", ratios, 0.0, math.inf, lo_open=True, hi_open=True)
    ).ravel()
    if r_arr.size == 0:
        raise ValueError("ratios=[] is empty: give at least one ratio N_T/N_R > 0")
    e0 = float(check_range("eps0", eps0, 0.0, math.inf, lo_open=True, hi_open=True))
    dlt = float(check_range("delta", delta, 0.0, 1.0))
    grid = np.linspace(0.0, 1.0, 101) if w is None else np.atleast_1d(as_float_array("w", w))
    grid = np.unique(check_range("w", grid, 0.0, 1.0).ravel())
    if grid.size == 0:
        raise ValueError("w=[] is empty: give at least one weight in [0, 1]")

    N = Fraction(n)
    E0 = Fraction(e0)
    ratios_t = tuple(float(r) for r in r_arr)
    frames = []
    failures: dict[Figure2Fact, list[FactFailure]] = {f: [] for f in Figure2Fact}
    exact: dict[float, tuple[list[Fraction], list[Fraction], list[Fraction], list[Fraction]]] = {}
    for r in ratios_t:
        nt, nr = _split_sizes(N, Fraction(r))
        if min(nt, nr) <= E0:
            raise ValueError(
                f"eps0={e0!r} is out of range for ratio N_T/N_R={r!r} (N_T={float(nt):g}, "
                f"N_R={float(nr):g}): allowed 0 < eps0 < min(N_T, N_R) = {float(min(nt, nr)):g}, "
                "Theorem 3.1's domain on all of 0 <= w <= 1"
            )
        w_star = nr / N
        # the grid plus w* exactly (a grid value that rounds to w* is replaced by it)
        ws = sorted({Fraction(float(x)) for x in grid if float(x) != float(w_star)} | {w_star})
        n_eff, eps_t, eps_r = _exact_curve(ws, nt, nr, E0)
        exact[r] = (ws, n_eff, eps_t, eps_r)
        wf = np.array([float(x) for x in ws])
        ef_t = np.array([float(x) for x in eps_t])
        ef_r = np.array([float(x) for x in eps_r])
        frames.append(
            pd.DataFrame(
                {
                    "ratio": r,
                    "n_train": float(nt),
                    "n_ref": float(nr),
                    "w": wf,
                    "is_equal_privacy": [x == w_star for x in ws],
                    "n_eff": [float(x) for x in n_eff],
                    "eps_train": ef_t,
                    "eps_ref": ef_r,
                    "eta_train": np.asarray(eta_from_epsilon(ef_t, dlt)),
                    "eta_ref": np.asarray(eta_from_epsilon(ef_r, dlt)),
                }
            )
        )

        # SHARED_POINT
        i_star = ws.index(w_star)
        target = E0 / N
        checks: tuple[tuple[Quantity, Fraction, Fraction], ...] = (
            ("n_eff", n_eff[i_star], N),
            ("eps_train", eps_t[i_star], target),
            ("eps_ref", eps_r[i_star], target),
        )
        for q, val, exp in checks:
            if val != exp:
                failures[Figure2Fact.SHARED_POINT].append(
                    FactFailure(r, float(w_star), q, float(val), float(exp))
                )
        # N_EFF_AT_MOST_N
        for x, v in zip(ws, n_eff, strict=True):
            if v > N:
                failures[Figure2Fact.N_EFF_AT_MOST_N].append(
                    FactFailure(r, float(x), "n_eff", float(v), float(N))
                )
        # UTILITY_RISES_THEN_FALLS
        m = max(range(len(ws)), key=lambda i: n_eff[i])
        if m == 0 or m == len(ws) - 1 or ws[m] != w_star:
            failures[Figure2Fact.UTILITY_RISES_THEN_FALLS].append(
                FactFailure(r, float(ws[m]), "n_eff", float(n_eff[m]), None)
            )
        for i in range(len(ws) - 1):
            step = n_eff[i + 1] - n_eff[i]
            if (i < m and step <= 0) or (i >= m and step >= 0):
                failures[Figure2Fact.UTILITY_RISES_THEN_FALLS].append(
                    FactFailure(r, float(ws[i + 1]), "n_eff", float(step), None)
                )
        # PRIVACY_TRADE
        for i in range(len(ws) - 1):
            if eps_t[i + 1] - eps_t[i] >= 0:
                failures[Figure2Fact.PRIVACY_TRADE].append(
                    FactFailure(
                        r, float(ws[i + 1]), "eps_train", float(eps_t[i + 1] - eps_t[i]), None
                    )
                )
            if eps_r[i + 1] - eps_r[i] <= 0:
                failures[Figure2Fact.PRIVACY_TRADE].append(
                    FactFailure(
                        r, float(ws[i + 1]), "eps_ref", float(eps_r[i + 1] - eps_r[i]), None
                    )
                )

    # RECIPROCAL_SYMMETRY: ratio a at w against ratio 1/a at 1 - w (on the same grid).
    for r in ratios_t:
        ws, n_eff, eps_t, eps_r = exact[r]
        nt_b, nr_b = _split_sizes(N, 1 / Fraction(r))
        mirrored = [1 - x for x in ws]
        n_eff_b, eps_t_b, eps_r_b = _exact_curve(mirrored, nt_b, nr_b, E0)
        for i, x in enumerate(ws):
            pairs: tuple[tuple[Quantity, Fraction, Fraction], ...] = (
                ("n_eff", n_eff[i], n_eff_b[i]),
                ("eps_train", eps_t[i], eps_r_b[i]),
                ("eps_ref", eps_r[i], eps_t_b[i]),
            )
            for q, a, b in pairs:
                if a != b:
                    failures[Figure2Fact.RECIPROCAL_SYMMETRY].append(
                        FactFailure(r, float(x), q, float(a), float(b))
                    )

    verdicts = tuple(FactVerdict(f, not failures[f], tuple(failures[f])) for f in Figure2Fact)
    return Figure2Result(
        eps0=e0,
        n_total=n,
        ratios=ratios_t,
        delta=dlt,
        curves=pd.concat(frames, ignore_index=True),
        shared_point=(n, float(E0 / N)),
        verdicts=verdicts,
    )


# --------------------------------------------------------------------------- Table 2 rules


class SelectionRule(Enum):
    """The three privacy settings of Table 2 (Sections 4.4.2--4.4.4)."""

    #: D_R is public: among instances with training-attack accuracy ≤ 51 %, best test accuracy.
    PUBLIC_REFERENCE = "public_reference"
    #: Equal privacy: among instances with |train − reference attack accuracy| ≤ 4 points,
    #: best test accuracy.
    EQUAL_PRIVACY = "equal_privacy"
    #: D_R highly private: among instances with reference-attack accuracy ≤ 51 %, best test
    #: accuracy.
    HIGH_REFERENCE_PRIVACY = "high_reference_privacy"


#: The paper's thresholds (attack accuracies as fractions).
SELECTION_DEFAULTS: dict[SelectionRule, float] = {
    SelectionRule.PUBLIC_REFERENCE: 0.51,
    SelectionRule.EQUAL_PRIVACY: 0.04,
    SelectionRule.HIGH_REFERENCE_PRIVACY: 0.51,
}


class SelectionOutcome(Enum):
    """Why a rule returned what it did."""

    #: Some instance met the criterion; the one with the best test accuracy was chosen.
    CHOSEN = "chosen"
    #: No instance met the criterion (Table 2's "–").
    NO_ELIGIBLE_INSTANCE = "no_eligible_instance"


@dataclass(frozen=True)
class Selection:
    """A Table 2 rule applied to a set of model instances (one per weight w).

    ``criterion_value`` is the chosen instance's value of the constrained quantity
    (training attack, |train − ref| gap, or reference attack); ``eligible_w`` every w that
    met the criterion; ``tied_w`` other eligible w with exactly the chosen test accuracy
    (ties are broken by the smaller criterion value, then the smaller w).
    """

    rule: SelectionRule
    threshold: float
    outcome: SelectionOutcome
    w: float | None
    test_accuracy: float | None
    attack_train: float | None
    attack_ref: float | None
    criterion_value: float | None
    eligible_w: tuple[float, ...]
    tied_w: tuple[float, ...]


def _instances(w, test_accuracy, attack_train, attack_ref):
    arrays = []
    for name, v, lo, hi in (
        ("w", w, 0.0, 1.0),
        ("test_accuracy", test_accuracy, 0.0, 1.0),
        ("attack_train", attack_train, 0.0, 1.0),
        ("attack_ref", attack_ref, 0.0, 1.0),
    ):
        a = np.atleast_1d(check_range(name, v, lo, hi))
        if a.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
        arrays.append(a)
    sizes = {a.size for a in arrays}
    if len(sizes) != 1:
        raise ValueError(
            "w, test_accuracy, attack_train and attack_ref must have the same length, got "
            + ", ".join(str(a.size) for a in arrays)
        )
    if arrays[0].size == 0:
        raise ValueError("w=[] is empty: give at least one model instance")
    return arrays


def select_instance(
    rule: SelectionRule,
    w: ArrayLike,
    test_accuracy: ArrayLike,
    attack_train: ArrayLike,
    attack_ref: ArrayLike,
    threshold: float | None = None,
) -> Selection:
    r"""Apply one of Table 2's selection rules to model instances (one per weight w).

    Step 1 keeps the instances meeting the rule's criterion (comparisons are ≤, inclusive,
    as in the paper); step 2 picks the best test accuracy among them:

    * ``PUBLIC_REFERENCE``: attack accuracy on the *training* data ≤ threshold (0.51);
    * ``EQUAL_PRIVACY``: |attack_train − attack_ref| ≤ threshold (0.04, absolute);
    * ``HIGH_REFERENCE_PRIVACY``: attack accuracy on the *reference* data ≤ threshold (0.51).

    Parameters
    ----------
    rule : SelectionRule.
    w : weights, each in [0, 1] (one per instance).
    test_accuracy, attack_train, attack_ref : accuracies in [0, 1], same length as ``w``
        (the paper uses means over seeds of the confidence-threshold attack).
    threshold : in [0, 1]; None for the paper's value (:data:`SELECTION_DEFAULTS`).

    Returns
    -------
    Selection
        ``w`` is None (outcome ``NO_ELIGIBLE_INSTANCE``) when nothing qualifies.

    Raises
    ------
    ValueError
        Naming ``rule``, ``threshold`` or an input array that is out of range or of
        mismatched length.

    Examples
    --------
    >>> s = select_instance(
    ...     SelectionRule.HIGH_REFERENCE_PRIVACY,
    ...     w=[0.0, 0.5, 1.0],
    ...     test_accuracy=[0.80, 0.85, 0.79],
    ...     attack_train=[0.60, 0.55, 0.50],
    ...     attack_ref=[0.50, 0.56, 0.62],
    ... )
    >>> s.w, s.outcome.value
    (0.0, 'chosen')
    """
    if not isinstance(rule, SelectionRule):
        raise ValueError(
            f"rule={rule!r} is not a SelectionRule ({[r.value for r in SelectionRule]})"
        )
    thr = (
        SELECTION_DEFAULTS[rule]
        if threshold is None
        else float(check_range("threshold", threshold, 0.0, 1.0))
    )
    ww, acc, a_t, a_r = _instances(w, test_accuracy, attack_train, attack_ref)
    if rule is SelectionRule.PUBLIC_REFERENCE:
        crit = a_t
    elif rule is SelectionRule.EQUAL_PRIVACY:
        crit = np.abs(a_t - a_r)
    else:
        crit = a_r
    ok = crit <= thr
    eligible = tuple(float(x) for x in ww[ok])
    if not ok.any():
        return Selection(
            rule, thr, SelectionOutcome.NO_ELIGIBLE_INSTANCE, None, None, None, None, None, (), ()
        )
    idx = np.flatnonzero(ok)
    best = max(float(acc[i]) for i in idx)
    top = [int(i) for i in idx if acc[i] == best]
    top.sort(key=lambda i: (float(crit[i]), float(ww[i])))
    i = top[0]
    return Selection(
        rule=rule,
        threshold=thr,
        outcome=SelectionOutcome.CHOSEN,
        w=float(ww[i]),
        test_accuracy=float(acc[i]),
        attack_train=float(a_t[i]),
        attack_ref=float(a_r[i]),
        criterion_value=float(crit[i]),
        eligible_w=eligible,
        tied_w=tuple(float(ww[j]) for j in top[1:]),
    )


def select_public_reference(
    w: ArrayLike,
    test_accuracy: ArrayLike,
    attack_train: ArrayLike,
    attack_ref: ArrayLike,
    *,
    max_train_attack: float = 0.51,
) -> Selection:
    """Table 2, public reference data (Section 4.4.2): training attack ≤ ``max_train_attack``.

    The reference data's leakage is ignored; the rule spends it for utility and training
    privacy. See :func:`select_instance` for the inputs.

    Examples
    --------
    >>> select_public_reference([0.0, 1.0], [0.8, 0.7], [0.6, 0.5], [0.5, 0.6]).w
    1.0
    """
    return select_instance(
        SelectionRule.PUBLIC_REFERENCE, w, test_accuracy, attack_train, attack_ref, max_train_attack
    )


def select_equal_privacy(
    w: ArrayLike,
    test_accuracy: ArrayLike,
    attack_train: ArrayLike,
    attack_ref: ArrayLike,
    *,
    max_gap: float = 0.04,
) -> Selection:
    """Table 2, equal privacy (Section 4.4.3): |train − reference attack| ≤ ``max_gap``.

    See :func:`select_instance` for the inputs.

    Examples
    --------
    >>> select_equal_privacy([0.0, 0.5, 1.0], [0.8, 0.85, 0.7], [0.6, 0.55, 0.5], [0.5, 0.54, 0.6]).w
    0.5
    """
    return select_instance(
        SelectionRule.EQUAL_PRIVACY, w, test_accuracy, attack_train, attack_ref, max_gap
    )


def select_high_reference_privacy(
    w: ArrayLike,
    test_accuracy: ArrayLike,
    attack_train: ArrayLike,
    attack_ref: ArrayLike,
    *,
    max_ref_attack: float = 0.51,
) -> Selection:
    """Table 2, high reference data privacy (Section 4.4.4): reference attack ≤ ``max_ref_attack``.

    See :func:`select_instance` for the inputs.

    Examples
    --------
    >>> select_high_reference_privacy([0.0, 1.0], [0.8, 0.7], [0.6, 0.5], [0.5, 0.6]).w
    0.0
    """
    return select_instance(
        SelectionRule.HIGH_REFERENCE_PRIVACY,
        w,
        test_accuracy,
        attack_train,
        attack_ref,
        max_ref_attack,
    )
