r"""Release your own statistic: Algorithm 1 (MIP) beside the DP Laplace mechanism, same data.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582:
Section 4 (Theorem 9, Corollary 10, Algorithm 1), Appendix D (Corollary 14) and Theorem 4
(pure ε-DP implies η-MIP with ``ε = log((1 + 2η)/(1 − 2η))``); the Laplace mechanism
(Dwork, McSherry, Nissim, Smith, *Calibrating Noise to Sensitivity in Private Data
Analysis*, TCC 2006).

Statistics (:class:`Statistic`): the column means, the second-moment matrix ``(1/m) Σ x xᵀ``
(called "covariance": it is the covariance for centred columns) and the least-squares
intercept and coefficients of the last column on the others.

**The noise of the MIP release** (:class:`mipcore.mechanism.MipCalibration`). Theorem 9's
density ``∝ exp(−||x||_{σ,M}/c)`` in the k released numbers certifies ``(1 − e^{−1/c})/2`` in
every dimension (:func:`mipcore.theorem9.certified_eta`). ``TIGHT`` takes the smallest such c,
``−1/ln(1 − 2η)``; ``PAPER`` Corollary 14's ``(6.16/η)^(1+2/M)`` (certified in every dimension
with a very large margin: 3795 instead of 4.48 at η = 0.1, M = 2); ``AS_PRINTED`` the same c
with the Laplace radius that Corollary 10 / Algorithm 1 print, which has that density only
for k = 1 -- for k > 1 no proof covers it (``WrapResult.mip.certified_eta`` is None).

**The clipping bounds** (:func:`clipping_bounds`, the one definition both releases and the
page use). Each column's interval ``[min, max]`` of the data (``[min, min + 1]`` for a
constant column), stretched about its centre by a factor ``widen >= 1``. Both releases see
the data clipped to these bounds (at ``widen >= 1`` nothing is clipped). Bounds read off the
data are not private (they reveal the extremes); a real deployment fixes them in advance.

**The DP side** needs the L1 *sensitivity* for replacing one of the m training rows
(:func:`dp_l1_sensitivity`), with every column clipped to ``[lo_j, hi_j]`` and
``b_j = max(|lo_j|, |hi_j|)``:

* mean: ``Σ_j (hi_j − lo_j) / m`` (attained by opposite corners);
* second moments (k = d² entries): ``(x xᵀ − x' x'ᵀ)/m`` has L1 norm at most
  ``2 (Σ_j b_j)² / m``;
* least squares: unbounded without assumptions on the design (one record can move the fit
  arbitrarily when the design is near-singular), so no DP release -- only MIP, which needs no
  sensitivity.

This module never imports Streamlit and never caches; :func:`compare_releases` and
:func:`compare_generated` return one small frozen result (:class:`Comparison`) holding
Algorithm 1's own :class:`~mipcore.mechanism.MIPRelease`; every number the page quotes is
computed from it on demand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from threadpoolctl import threadpool_limits

from .._validate import as_enum, as_generator, check_int, check_range
from ..bounds import epsilon_from_eta
from ..mechanism import MipCalibration, MIPRelease, mip_release, noise_multiplier_for
from ..noise_laws import Radius, sample_mip_noise
from ..tabular import MAX_COLS, MIN_ROWS

__all__ = [
    "DRAWS",
    "HEAVY_WORK",
    "MAX_COLS",
    "MAX_WIDEN",
    "SPREAD_QUANTILES",
    "STATISTICS",
    "ClipBounds",
    "Comparison",
    "NoiseSpread",
    "Statistic",
    "Verdict",
    "WrapResult",
    "clipping_bounds",
    "compare_generated",
    "compare_releases",
    "dp_l1_sensitivity",
    "make_dataset",
    "release_work",
    "repeat_noise",
    "statistic",
    "theta_labels",
    "wrap_statistic",
]


class Statistic(StrEnum):
    """The statistics a user can release (the values are the page's URL values)."""

    MEAN = "mean"
    COVARIANCE = "covariance"  # the second-moment matrix (1/m) Σ x xᵀ
    LINEAR_REGRESSION = "linear regression"  # last column on the others, with intercept

    @property
    def min_columns(self) -> int:
        """Fewest data columns: regression needs a feature and the response."""
        return 2 if self is Statistic.LINEAR_REGRESSION else 1

    @property
    def has_sensitivity(self) -> bool:
        """Whether a bounded L1 sensitivity (hence a DP Laplace release) exists."""
        return self is not Statistic.LINEAR_REGRESSION

    def released(self, columns: int) -> int:
        """How many numbers the statistic of ``columns`` data columns releases (k)."""
        if self is Statistic.COVARIANCE:
            return columns * columns
        return columns


STATISTICS: tuple[str, ...] = tuple(s.value for s in Statistic)
#: How much the page may widen the clipping bounds (checked finite up to 1e100 data).
MAX_WIDEN = 10.0
#: Further releases drawn to show the noise's spread.
DRAWS = 200
#: Quantiles of |noise| over the draws: the band and its middle.
SPREAD_QUANTILES = (0.1, 0.5, 0.9)
#: Work units (:func:`release_work`) above which a release may take a second or more on a
#: busy 2-core machine (0.3 s at about 1e9 units per second, 1 s at 3e8): a page runs such a
#: release in its own process.
HEAVY_WORK = 3.0e8


def _stat(name: Statistic | str) -> Statistic:
    return as_enum("statistic", name, Statistic)


# --------------------------------------------------------------------------- data


def make_dataset(
    statistic_name: Statistic | str, n: int, d: int, rng: np.random.Generator | int
) -> pd.DataFrame:
    """A generated dataset suited to the statistic: n rows, d columns ``x1, x2, …``.

    For the mean and the second moments: d independent normal columns with means from 0 to 2
    and standard deviations from 1 to 2. For linear regression: ``x1 … x(d−1)`` standard
    normal and the response ``y = x·β + 0.5 + N(0, 0.5²)`` with β from 1 down to −1.

    Parameters
    ----------
    statistic_name : a :class:`Statistic` or its value.
    n : rows, ``8 <= n <= 1_000_000``.
    d : columns, ``1 <= d <= MAX_COLS`` (``d >= 2`` for linear regression).
    rng : Generator or seed.

    Examples
    --------
    >>> list(make_dataset("linear regression", 10, 3, 0).columns)
    ['x1', 'x2', 'y']
    """
    stat = _stat(statistic_name)
    n = check_int("n", n, MIN_ROWS, 1_000_000)
    d = check_int("d", d, 1, MAX_COLS)
    gen = as_generator(rng)
    if d < stat.min_columns:
        raise ValueError(
            f"d={d} is too small for linear regression: it needs at least 2 columns "
            "(the features, then the response)"
        )
    if stat is Statistic.LINEAR_REGRESSION:
        X = gen.standard_normal((n, d - 1))
        beta = np.linspace(1.0, -1.0, d - 1)
        y = X @ beta + 0.5 + 0.5 * gen.standard_normal(n)
        cols = {f"x{j + 1}": X[:, j] for j in range(d - 1)} | {"y": y}
        return pd.DataFrame(cols)
    mean = np.linspace(0.0, 2.0, d)
    X = mean + gen.standard_normal((n, d)) * np.linspace(1.0, 2.0, d)
    return pd.DataFrame({f"x{j + 1}": X[:, j] for j in range(d)})


# --------------------------------------------------------------------------- statistics


def _mean(rows: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(rows.mean(axis=0), dtype=float)


def _second_moment(rows: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray((rows.T @ rows / rows.shape[0]).ravel(), dtype=float)


def _least_squares(rows: NDArray[np.float64]) -> NDArray[np.float64]:
    X = np.column_stack([np.ones(rows.shape[0]), rows[:, :-1]])
    coef, *_ = np.linalg.lstsq(X, rows[:, -1], rcond=None)
    return np.asarray(coef, dtype=float)


_STATS: dict[Statistic, Callable[[NDArray[np.float64]], NDArray[np.float64]]] = {
    Statistic.MEAN: _mean,
    Statistic.COVARIANCE: _second_moment,
    Statistic.LINEAR_REGRESSION: _least_squares,
}


def statistic(name: Statistic | str) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    """The base algorithm of a statistic: rows in, a 1-d vector θ out (module-level, picklable).

    Examples
    --------
    >>> statistic("mean")(np.array([[1.0, 2.0], [3.0, 6.0]])).tolist()
    [2.0, 4.0]
    """
    return _STATS[_stat(name)]


def theta_labels(name: Statistic | str, columns: Sequence[object]) -> tuple[str, ...]:
    """Names of the released numbers, built from the column names as they are (raw text:
    a page shows them as text, a figure html-escapes them).

    Examples
    --------
    >>> theta_labels("covariance", ["a", "b"])
    ('E[a·a]', 'E[a·b]', 'E[b·a]', 'E[b·b]')
    >>> theta_labels("linear regression", ["x", "y"])
    ('intercept', 'coef(x)')
    """
    stat = _stat(name)
    cols = [str(c) for c in columns]
    if stat is Statistic.MEAN:
        return tuple(f"mean({c})" for c in cols)
    if stat is Statistic.COVARIANCE:
        return tuple(f"E[{a}·{b}]" for a in cols for b in cols)
    return ("intercept", *(f"coef({c})" for c in cols[:-1]))


# --------------------------------------------------------------------------- clipping, DP


@dataclass(frozen=True)
class ClipBounds:
    """The clipping bounds both releases use, and the data range they come from.

    ``data_lo``/``data_hi``: each column's min and max; ``lo``/``hi``: the clipping interval
    (the range, ``[min, min + 1]`` for a constant column, stretched about its centre by
    ``widen``); ``b = max(|lo|, |hi|)`` enters the second moments' sensitivity.
    """

    data_lo: NDArray[np.float64]
    data_hi: NDArray[np.float64]
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    widen: float

    @property
    def b(self) -> NDArray[np.float64]:
        return np.maximum(np.abs(self.lo), np.abs(self.hi))


def _finite_rows(data: ArrayLike | pd.DataFrame) -> NDArray[np.float64]:
    rows = np.asarray(data, dtype=float)
    if rows.ndim != 2 or rows.shape[0] < MIN_ROWS or rows.shape[1] < 1:
        raise ValueError(
            f"data must be a table with at least {MIN_ROWS} rows and 1 column, got shape "
            f"{rows.shape}"
        )
    if not np.all(np.isfinite(rows)):
        bad = int(np.count_nonzero(~np.isfinite(rows).all(axis=1)))
        raise ValueError(
            f"data has {bad} row(s) with a missing or infinite value; drop them first "
            "(mipcore.tabular.parse_numeric_csv does)"
        )
    return rows


def clipping_bounds(data: ArrayLike | pd.DataFrame, widen: float = 1.0) -> ClipBounds:
    """The clipping bounds of the module docstring: the data range stretched by ``widen``.

    Parameters
    ----------
    data : finite table, at least ``MIN_ROWS`` rows.
    widen : ``1 <= widen <= MAX_WIDEN``; at 1 the bounds are exactly the data range.

    Raises
    ------
    ValueError
        For non-finite data, an out-of-range ``widen``, or bounds that are not finite numbers
        (values near ±1.8e308; rescale the data).

    Examples
    --------
    >>> b = clipping_bounds(np.array([[0.0, 5.0]] * 4 + [[2.0, 5.0]] * 4), widen=2.0)
    >>> b.lo.tolist(), b.hi.tolist()
    ([-1.0, 4.5], [3.0, 6.5])
    """
    return _clipping_bounds(_finite_rows(data), float(check_range("widen", widen, 1.0, MAX_WIDEN)))


def _clipping_bounds(rows: NDArray[np.float64], w: float) -> ClipBounds:
    """:func:`clipping_bounds` of checked inputs."""
    data_lo, data_hi = rows.min(axis=0), rows.max(axis=0)
    box_hi = np.where(data_hi > data_lo, data_hi, data_lo + 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        pad = (w - 1.0) * (box_hi - data_lo) / 2.0
        lo, hi = data_lo - pad, box_hi + pad
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(hi > lo)):
        raise ValueError(
            "the clipping bounds overflow: the data's values are too large to widen "
            f"(largest |x| = {float(np.max(np.abs(rows))):.3g}) — rescale the data (change "
            "its unit) or widen less"
        )
    return ClipBounds(data_lo, data_hi, lo, hi, w)


def dp_l1_sensitivity(name: Statistic | str, lo: ArrayLike, hi: ArrayLike, m: int) -> float | None:
    """Replace-one L1 sensitivity of the statistic on data clipped to ``[lo, hi]``.

    Parameters
    ----------
    name : a :class:`Statistic`.
    lo, hi : one finite bound per column, ``lo < hi``.
    m : rows of the data it is computed on, ``m >= 1``.

    Returns
    -------
    float, or None for linear regression (no bounded sensitivity).

    Examples
    --------
    >>> dp_l1_sensitivity("mean", [0.0, -1.0], [1.0, 1.0], 10)
    0.3
    >>> dp_l1_sensitivity("covariance", [0.0, -1.0], [1.0, 1.0], 10)
    0.8
    """
    lo_a, hi_a = _check_bounds(lo, hi)
    return _l1_sensitivity(_stat(name), lo_a, hi_a, check_int("m", m, 1))


def _l1_sensitivity(
    stat: Statistic, lo_a: NDArray[np.float64], hi_a: NDArray[np.float64], m: int
) -> float | None:
    """:func:`dp_l1_sensitivity` of checked inputs."""
    if stat is Statistic.MEAN:
        return float(np.sum(hi_a - lo_a) / m)
    if stat is Statistic.COVARIANCE:
        b = np.maximum(np.abs(lo_a), np.abs(hi_a))
        return float(2.0 * np.sum(b) ** 2 / m)
    return None


# --------------------------------------------------------------------------- one release


@dataclass(frozen=True)
class WrapResult:
    """One MIP release (Algorithm 1) and one DP Laplace release of the same statistic.

    ``mip`` is Algorithm 1's own result (:class:`mipcore.mechanism.MIPRelease`: θ on the
    random training half, never published, σ, the release, the noise multiplier c and what
    it certifies for the noised numbers -- None for the printed Laplace radius in more than
    one dimension, which no proof covers); ``dp`` the Laplace release (None when the
    statistic has no bounded sensitivity), ``sensitivity`` its L1 sensitivity Δ, ``labels``
    the names of the released numbers.
    """

    mip: MIPRelease
    dp: NDArray[np.float64] | None
    sensitivity: float | None
    statistic: Statistic
    eta: float
    M: int
    bounds: ClipBounds
    labels: tuple[str, ...]

    @property
    def epsilon(self) -> float:
        """The pure-DP ε that certifies ``eta``: ``log((1 + 2η)/(1 − 2η))`` (Theorem 4)."""
        return float(epsilon_from_eta(self.eta))

    @property
    def dp_scale(self) -> float | None:
        """The Laplace scale Δ/ε (None without a DP release)."""
        return None if self.sensitivity is None else self.sensitivity / self.epsilon

    @property
    def k(self) -> int:
        """How many numbers are released."""
        return int(self.mip.theta.size)

    @property
    def noised(self) -> int:
        """How many of them get MIP noise (σ > 0)."""
        return int(np.count_nonzero(self.mip.sigma > 0))

    def table(self) -> pd.DataFrame:
        """One row per released number: θ, σ and both releases (NaN: no DP release)."""
        df = pd.DataFrame(
            {
                "quantity": list(self.labels),
                "non-private θ": self.mip.theta,
                "σ (Algorithm 1)": self.mip.sigma,
                "MIP release": self.mip.theta_hat,
            }
        )
        df["DP Laplace release"] = self.dp if self.dp is not None else np.nan
        return df


class _Counting:
    """The statistic, reporting every tenth of the B fits to ``progress``."""

    def __init__(
        self,
        fn: Callable[[NDArray[np.float64]], NDArray[np.float64]],
        B: int,
        progress: Callable[[float, str], None] | None,
    ) -> None:
        self.fn, self.B, self.progress, self.calls = fn, B, progress, 0
        self.every = max(1, B // 10)

    def __call__(self, rows: NDArray[np.float64]) -> NDArray[np.float64]:
        out = self.fn(rows)
        self.calls += 1
        fits = self.calls - 1  # the first call is θ on the training half
        if self.progress is not None and fits > 0 and fits % self.every == 0:
            self.progress(0.95 * fits / self.B, f"{fits} of {self.B} fits on random halves")
        return out


def _check_bounds(
    lo: ArrayLike, hi: ArrayLike, columns: int | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Explicit bounds: one finite bound per column (``columns`` of them when given),
    ``lo < hi``; each failure with its own cause."""
    lo_a = np.atleast_1d(np.asarray(lo, dtype=float))
    hi_a = np.atleast_1d(np.asarray(hi, dtype=float))
    if lo_a.shape != hi_a.shape or lo_a.ndim != 1 or columns not in (None, lo_a.size):
        raise ValueError(
            f"lo and hi must give one bound per column{f' ({columns})' if columns else ''}, "
            f"got shapes {lo_a.shape} and {hi_a.shape}"
        )
    if not (np.all(np.isfinite(lo_a)) and np.all(np.isfinite(hi_a))):
        raise ValueError("lo and hi must be finite numbers (is the data's range overflowing?)")
    if np.any(~(hi_a > lo_a)):
        j = int(np.flatnonzero(~(hi_a > lo_a))[0])
        raise ValueError(
            f"each clipping bound needs lo < hi; column {j + 1} has lo = {lo_a[j]:.6g} >= "
            f"hi = {hi_a[j]:.6g}"
        )
    return lo_a, hi_a


def wrap_statistic(
    data: ArrayLike | pd.DataFrame,
    name: Statistic | str,
    eta: float,
    *,
    M: int = 2,
    B: int = 64,
    rng: np.random.Generator | int,
    lo: ArrayLike | None = None,
    hi: ArrayLike | None = None,
    widen: float = 1.0,
    calibration: MipCalibration | str = MipCalibration.TIGHT,
    progress: Callable[[float, str], None] | None = None,
) -> WrapResult:
    """Release a statistic of ``data`` with MIP (Algorithm 1) and with the DP Laplace mechanism.

    Both target η against membership inference on the random training half: MIP through
    Theorem 9's noise with the ``calibration``'s c (certified in every dimension unless
    ``AS_PRINTED`` with more than one noised number), DP through pure ε-DP with
    ``ε = log((1+2η)/(1−2η))`` (Theorem 4). Both see the data clipped to the same bounds.

    Parameters
    ----------
    data : finite table (rows = records), at least ``MIN_ROWS`` rows; at least 2 columns for
        linear regression.
    name : a :class:`Statistic` or its value.
    eta : target, ``0 < eta < 1/2``.
    M : moment order of σ, integer ``1 <= M <= 16``.
    B : random halves for σ, ``2 <= B <= 100_000``.
    rng : Generator or seed; the training half, the B halves, the MIP noise and then the
        Laplace noise are drawn from it in that order.
    lo, hi : explicit clipping bounds (one finite bound per column, ``lo < hi``); default
        :func:`clipping_bounds` of the data with ``widen``.
    widen : ``1 <= widen <= MAX_WIDEN`` (only used without ``lo``/``hi``).
    calibration : :class:`mipcore.mechanism.MipCalibration` (default ``TIGHT``: the least
        noise certified).
    progress : optional ``progress(fraction, message)`` called during the B fits.

    Returns
    -------
    WrapResult

    Raises
    ------
    ValueError
        Naming the parameter, for any input out of its domain.

    Examples
    --------
    >>> data = make_dataset("mean", 200, 2, 0)
    >>> res = wrap_statistic(data, "mean", 0.1, rng=1)
    >>> round(res.mip.c, 4), round(res.mip.certified_eta, 4), res.labels
    (4.4814, 0.1, ('mean(x1)', 'mean(x2)'))
    >>> wrap_statistic(data, "mean", 0.1, rng=1, calibration="as_printed").mip.certified_eta is None
    True
    """
    stat = _stat(name)
    e = float(check_range("eta", eta, 0.0, 0.5, lo_open=True, hi_open=True))
    m_order = check_int("M", M, 1, 16)
    B = check_int("B", B, 2, 100_000)
    rows = _finite_rows(data)
    if rows.shape[1] < stat.min_columns:
        raise ValueError(
            "linear regression needs at least two columns (features, then the response); "
            f"data has {rows.shape[1]}"
        )
    gen = as_generator(rng)
    if lo is None and hi is None:
        bounds = _clipping_bounds(rows, float(check_range("widen", widen, 1.0, MAX_WIDEN)))
    elif lo is None or hi is None:
        raise ValueError("give both lo and hi, or neither")
    else:
        lo_a, hi_a = _check_bounds(lo, hi, rows.shape[1])
        bounds = ClipBounds(rows.min(axis=0), rows.max(axis=0), lo_a, hi_a, 1.0)
    clipped = np.clip(rows, bounds.lo, bounds.hi)
    fn = _Counting(statistic(stat), B, progress)
    with threadpool_limits(limits=1, user_api="blas"), np.errstate(over="ignore"):
        # one BLAS thread: B small products; on a busy 2-core machine OpenBLAS's thread
        # hand-offs made them up to 30 times slower
        rel = mip_release(clipped, fn, e, M=m_order, B=B, rng=gen, calibration=calibration)
    if not (np.all(np.isfinite(rel.theta_hat)) and np.all(np.isfinite(rel.sigma))):
        raise ValueError(
            "the release is not finite: the data's values are too large for this statistic "
            "— rescale the data (change its unit)"
        )
    sens = _l1_sensitivity(stat, bounds.lo, bounds.hi, len(rel.train_index))
    columns = data.columns if isinstance(data, pd.DataFrame) else range(1, rows.shape[1] + 1)
    res = WrapResult(rel, None, sens, stat, e, m_order, bounds, theta_labels(stat, list(columns)))
    if res.dp_scale is None:
        return res
    return replace(res, dp=rel.theta + gen.laplace(0.0, res.dp_scale, size=rel.theta.shape))


def repeat_noise(
    result: WrapResult, draws: int, *, rng: np.random.Generator | int
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Noise of ``draws`` more releases of the same θ: ``(mip, dp)``, each ``(draws, k)``.

    The MIP rows are Theorem 9 noise with the result's σ, c and radius law (coordinates with
    σ = 0 get none, as in :func:`mipcore.mechanism.mip_release`); the DP rows are Laplace with
    the result's scale (None without a DP release). Shows how much each release scatters
    around θ, which one release alone cannot.

    Parameters
    ----------
    result : from :func:`wrap_statistic`.
    draws : ``1 <= draws <= 100_000``.
    rng : Generator or seed.
    """
    draws = check_int("draws", draws, 1, 100_000)
    gen = as_generator(rng)
    rel = result.mip
    mip = np.zeros((draws, result.k))
    live = rel.sigma > 0
    if live.any():
        radius = rel.calibration.radius
        mip[:, live] = sample_mip_noise(rel.sigma[live], float(result.M), rel.c, draws, gen, radius)
    scale = result.dp_scale
    dp = None if scale is None else gen.laplace(0.0, scale, size=(draws, result.k))
    return mip, dp


# --------------------------------------------------------------------------- the comparison


class Verdict(StrEnum):
    """Which release adds less noise (median |noise| over the repeated draws)."""

    DP_LESS = "dp_less"  # on every coordinate with noise on both sides
    MIP_LESS = "mip_less"
    MIXED = "mixed"
    NOT_COMPARABLE = "not_comparable"  # a DP release, but no coordinate noised on both sides
    MIP_ONLY = "mip_only"  # no DP release (unbounded sensitivity)
    NO_NOISE = "no_noise"  # no DP release and every σ = 0


@dataclass(frozen=True)
class NoiseSpread:
    """Quantiles (:data:`SPREAD_QUANTILES`) of |noise| per released number over ``draws``
    further releases: rows q10, median, q90; ``dp`` None without a DP release."""

    draws: int
    mip: NDArray[np.float64]  # shape (3, k)
    dp: NDArray[np.float64] | None


@dataclass(frozen=True)
class Comparison:
    """One statistic released both ways (:func:`compare_releases`), and what compares them.

    ``release`` is the :class:`WrapResult`, ``spread`` the repeated draws' quantiles,
    ``n_rows`` and ``head`` (its first rows) the data, so a page needs nothing else. The rest
    is computed from them on demand, as scipy's ``BinomTestResult`` does: which release adds
    less noise (:attr:`verdict`), where MIP would win (:attr:`breakeven`), the paper's and
    the tight constant, and the charts' tables (:attr:`errors`, :attr:`spread_table`).
    """

    release: WrapResult
    spread: NoiseSpread
    n_rows: int
    head: pd.DataFrame

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.head.columns)

    @property
    def compared(self) -> NDArray[np.bool_]:
        """The numbers noised on both sides (median |noise| > 0 over the draws)."""
        if self.spread.dp is None:
            return np.zeros(self.release.k, dtype=bool)
        return np.asarray((self.release.mip.sigma > 0) & (self.spread.dp[1] > 0))

    @property
    def mip_to_dp(self) -> NDArray[np.float64]:
        """MIP's median |noise| over DP's on the :attr:`compared` numbers."""
        if self.spread.dp is None:
            return np.zeros(0)
        both = self.compared
        return np.asarray(self.spread.mip[1][both] / self.spread.dp[1][both], dtype=float)

    @property
    def mip_wins(self) -> int:
        """On how many compared numbers MIP adds less noise."""
        return int(np.count_nonzero(self.mip_to_dp < 1))

    @property
    def verdict(self) -> Verdict:
        ratio, wins = self.mip_to_dp, self.mip_wins
        if self.spread.dp is None:
            return Verdict.MIP_ONLY if self.release.noised else Verdict.NO_NOISE
        if ratio.size == 0:
            return Verdict.NOT_COMPARABLE
        return (
            Verdict.DP_LESS
            if not wins
            else Verdict.MIP_LESS
            if wins == ratio.size
            else Verdict.MIXED
        )

    @property
    def radius_factor(self) -> int:
        """``E|noise_j| ≈ radius_factor · c · σ_j``: the noised count with the Gamma radius
        (whose mean is that count times c), 1 with the printed Laplace radius."""
        gamma = self.release.mip.calibration.radius is Radius.GAMMA
        return max(self.release.noised, 1) if gamma else 1

    @property
    def breakeven(self) -> float:
        """``radius_factor · c · ε``: MIP adds less noise on number j roughly when ``Δ/σ_j``
        exceeds it."""
        res = self.release
        return float(self.radius_factor * res.mip.c * res.epsilon)

    @property
    def delta_over_sigma(self) -> NDArray[np.float64] | None:
        """``Δ/σ_j`` on the compared numbers (None without a DP release)."""
        res = self.release
        return None if res.sensitivity is None else res.sensitivity / res.mip.sigma[self.compared]

    @property
    def mip_to_sigma(self) -> NDArray[np.float64]:
        """MIP's median |noise| over σ_j on the numbers with σ > 0."""
        sigma = self.release.mip.sigma
        return np.asarray(self.spread.mip[1][sigma > 0] / sigma[sigma > 0], dtype=float)

    def constant(self, calibration: MipCalibration) -> float:
        """The noise multiplier c of ``calibration`` at this η and M for the noised numbers."""
        res = self.release
        return noise_multiplier_for(res.eta, M=res.M, d=max(res.noised, 1), calibration=calibration)

    @property
    def paper_to_tight(self) -> float:
        """How much more noise the paper's constant adds than the tight one (same radius law)."""
        return self.constant(MipCalibration.PAPER) / self.constant(MipCalibration.TIGHT)

    @property
    def printed_to_tight(self) -> float:
        """The typical noise of the printed Laplace radius with the paper's c over the tight
        calibration's: ``paper_c / (noised · tight_c)``."""
        d = max(self.release.noised, 1)
        return self.constant(MipCalibration.PAPER) / (d * self.constant(MipCalibration.TIGHT))

    @property
    def single(self) -> tuple[int, int]:
        """In the one release shown: how many numbers have noise on both sides, and on how
        many of them MIP landed closer to θ than DP."""
        mip_err, dp_err = (self.errors[c].to_numpy() for c in ("mip_abs_error", "dp_abs_error"))
        both = (self.release.mip.sigma > 0) & np.isfinite(dp_err) & (dp_err > 0)
        return int(np.count_nonzero(both)), int(np.count_nonzero(both & (mip_err < dp_err)))

    @cached_property
    def errors(self) -> pd.DataFrame:
        """The error chart's table: |release − θ| per released number (NaN: no DP release)."""
        res, rel = self.release, self.release.mip
        dp_err = np.abs(res.dp - rel.theta) if res.dp is not None else np.full(res.k, np.nan)
        return pd.DataFrame(
            {
                "quantity": list(res.labels),
                "theta": rel.theta,
                "mip_abs_error": np.abs(rel.theta_hat - rel.theta),
                "dp_abs_error": dp_err,
            }
        )

    @cached_property
    def spread_table(self) -> pd.DataFrame:
        """The spread chart's table: the quantiles of each release per released number."""
        parts = []
        for mech, q in (("MIP", self.spread.mip), ("DP", self.spread.dp)):
            if q is None:
                continue
            labels, sigma, draws = self.release.labels, self.release.mip.sigma, self.spread.draws
            columns = ("quantity", "mechanism", "draws", "q10", "median", "q90", "sigma")
            values = (list(labels), mech, draws, q[0], q[1], q[2], sigma)
            parts.append(pd.DataFrame(dict(zip(columns, values, strict=True))))
        return pd.concat(parts, ignore_index=True)


def _quantiles(noise: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(np.quantile(np.abs(noise), SPREAD_QUANTILES, axis=0), dtype=float)


def release_work(n_rows: int, columns: int, name: Statistic | str, B: int) -> float:
    """Work units of one comparison: ``B · n_rows · (16 + columns)`` (``4 · columns`` for
    least squares), about a nanosecond each on one core of a 2-core machine under load.

    Each of the B fits draws a random half of the training half (a permutation and a sort,
    which dominate: the per-row term) and copies its rows (the per-column term); least
    squares costs a few times more per column. Measured with one BLAS thread on a shared
    2-core machine (load average about 9): 200 000 rows, 20 columns, B = 256 -- the largest
    upload -- took 1.7 s (mean), 1.3 s (second moments) and 3.9 s (least squares), about
    1e9 units per second; at load 15 the rate fell to about 3e8 units per second.

    A page runs a comparison above :data:`HEAVY_WORK` in its own process.

    Examples
    --------
    >>> release_work(2000, 3, "mean", 64) < HEAVY_WORK
    True
    >>> release_work(200_000, 20, "covariance", 256) > HEAVY_WORK
    True
    """
    stat = _stat(name)
    n_rows = check_int("n_rows", n_rows, 1)
    columns = check_int("columns", columns, 1)
    B = check_int("B", B, 1)
    per_row = 16 + columns * (4 if stat is Statistic.LINEAR_REGRESSION else 1)
    return float(B) * n_rows * per_row


def compare_releases(
    data: pd.DataFrame,
    name: Statistic | str,
    eta: float,
    *,
    M: int = 2,
    B: int = 64,
    seed: int = 0,
    widen: float = 1.0,
    calibration: MipCalibration | str = MipCalibration.TIGHT,
    draws: int = DRAWS,
    progress: Callable[[float, str], None] | None = None,
) -> Comparison:
    """One MIP and one DP release of the statistic (:func:`wrap_statistic` with ``rng=seed``),
    ``draws`` further draws of both noises (seeded ``(seed, 1)``) and the numbers comparing
    them (:class:`Comparison`).

    Parameters
    ----------
    data : finite table with named columns (e.g. ``parse_numeric_csv(raw).data``).
    name, eta, M, B, widen, calibration : as in :func:`wrap_statistic`.
    seed : integer ``0 <= seed < 2**63``.
    draws : further releases, ``1 <= draws <= 100_000``.
    progress : optional ``progress(fraction, message)``.

    Examples
    --------
    >>> comp = compare_releases(make_dataset("mean", 2000, 3, 0), "mean", 0.2)
    >>> comp.verdict.value, comp.radius_factor, round(comp.breakeven, 3)
    ('dp_less', 3, 4.976)
    """
    seed = check_int("seed", seed, 0, 2**63 - 1)
    res = wrap_statistic(
        data, name, eta, M=M, B=B, rng=seed, widen=widen, calibration=calibration, progress=progress
    )
    mip, dp = repeat_noise(res, draws, rng=np.random.default_rng((seed, 1)))
    spread = NoiseSpread(int(draws), _quantiles(mip), None if dp is None else _quantiles(dp))
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(np.asarray(data))
    return Comparison(res, spread, len(frame), frame.head(10).reset_index(drop=True))


def compare_generated(
    name: Statistic | str, n: int, d: int, data_seed: int, eta: float, **options: Any
) -> Comparison:
    """:func:`compare_releases` (with its keyword ``options``) on ``make_dataset(name, n, d,
    data_seed)``: the data are regenerated here (cheap) instead of being kept by a caller.

    Examples
    --------
    >>> compare_generated("covariance", 100, 2, 0, 0.2, B=16).release.k
    4
    """
    return compare_releases(make_dataset(name, n, d, data_seed), name, eta, **options)
