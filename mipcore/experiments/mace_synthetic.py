r"""MACE on toy data whose advantage is known exactly: one estimate, and the plug-in's drift.

Three pairs of densities of a scalar statistic z, indexed by a separation ``s >= 0``
(non-members Q, members P, unit scale), named by :class:`Shape`:

* ``NORMAL``  -- Q = N(0, 1),        P = N(s, 1);
* ``LAPLACE`` -- Q = Laplace(0, 1),  P = Laplace(s, 1) (then ``|log P/Q| <= s``: the pair is
  exactly s-DP, so Theorem 1 of MACE applies with ε = s);
* ``MIXTURE`` -- Q = N(0, 1),        P = ½ N(0, 1) + ½ N(s, 1) (only half of the members
  leave a trace).

For each pair ``log P/Q`` is non-decreasing in z, so the Bayes-optimal adversary of
Lemma 2 of MACE says "member" on a half-line ``A = {z > t}`` and, with prior p,

.. math:: \mathrm{Adv}_p = \int |pP - (1-p)Q| = 2\,[p P(A) - (1-p) Q(A)] - (2p - 1),

since ``∫ (pP − (1−p)Q) = 2p − 1``. The threshold t solves ``log P/Q(t) = −λ`` with
``λ = log(p/(1−p))``; closed forms below (``A`` may be empty or everything).

The experiments run the estimators of :mod:`mipcore.mace` (histogram: Lemma 5; Gaussian KDE:
Lemmas 6–7; Algorithm 1) on samples of these laws:

* :func:`run` -- one estimate (N samples per group, one seed) beside the exact advantage: a
  :class:`ToyRun` holding the samples, MACE's own :class:`~mipcore.mace.MACEEstimate` and
  the truth.
* :func:`drift` -- the same estimate over a grid of N and several seeds: the plug-in
  ``mean |f̂|`` drifts *above* the truth at small N (noise in f̂ never cancels inside
  ``|·|``), while the held-out lower bound stays below it.

References
----------
Liu, Xu, Mukherjee, Lavista Ferres. *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*. arXiv:2009.05683 (Definition 1, Lemma 2, Theorem 1,
Lemmas 5–7, Algorithm 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from .. import mace
from .._validate import as_enum, check_int, check_range

__all__ = [
    "DELTA",
    "DRIFT_N",
    "DRIFT_RUNS",
    "KDE_MAX_N",
    "SHAPES",
    "DriftResult",
    "Estimator",
    "Shape",
    "ToyRun",
    "densities",
    "drift",
    "run",
    "sample",
    "true_advantage",
]


class Shape(StrEnum):
    """The pair of member / non-member laws (see the module docstring)."""

    NORMAL = "normal"
    LAPLACE = "laplace"
    MIXTURE = "mixture"


#: The shapes' names, in :class:`Shape` order (every function also takes these strings).
SHAPES: tuple[str, ...] = tuple(s.value for s in Shape)


def _laplace_sf(x: float) -> float:
    """P(X > x) for the standard Laplace law."""
    return 1.0 - 0.5 * math.exp(x) if x < 0 else 0.5 * math.exp(-x)


def true_advantage(shape: Shape | str, separation: float, prior: float = 0.5) -> float:
    r"""Bayes-optimal membership advantage ``Adv_p = ∫|pP − (1−p)Q|`` (exact, closed form).

    The advantage is ``2·accuracy − 1`` of the best attacker (Definition 1 of MACE); at
    p = 1/2 it is ``2η`` with η the MIP level of Izzo et al.

    Parameters
    ----------
    shape : Shape or its value (``"normal"``, ``"laplace"``, ``"mixture"``).
    separation : ``0 <= s <= 50`` (the member law's shift, in units of the scale).
    prior : membership prior, ``0 < p < 1``.

    Returns
    -------
    float
        ``Adv_p`` in ``[|2p − 1|, 1]``.

    Raises
    ------
    ValueError
        Naming ``shape``, ``separation`` or ``prior`` when outside its domain.

    Examples
    --------
    At s = 0 (P = Q) only the prior is left, ``|2p − 1|``; at p = 1/2 the normal shape
    gives ``2Φ(s/2) − 1``:

    >>> true_advantage("normal", 0.0, 0.8)
    0.600000000000
    >>> round(true_advantage(Shape.NORMAL, 1.0), 6)  # 2Φ(1/2) − 1
    0.382925
    """
    kind = as_enum("shape", shape, Shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    lam = math.log(p) - math.log1p(-p)
    base = abs(2.0 * p - 1.0)
    if s == 0.0:
        return base
    if kind is Shape.NORMAL:  # log P/Q = s z − s²/2
        t = s / 2.0 - lam / s
        pa, qa = float(special.ndtr(s - t)), float(special.ndtr(-t))
    elif kind is Shape.LAPLACE:  # log P/Q = clip(2z − s, −s, s)
        if -lam < -s or -lam >= s:  # everything, or nothing, is "member"
            return base
        t = (s - lam) / 2.0
        pa, qa = _laplace_sf(t - s), _laplace_sf(t)
    else:  # mixture: P/Q = ½ + ½ exp(s z − s²/2) > (1−p)/p  <=>  exp(...) > 2(1−p)/p − 1
        r = 2.0 * (1.0 - p) / p - 1.0
        if r <= 0.0:  # p >= 2/3: P/Q > 1/2 >= (1−p)/p everywhere
            return base
        t = (math.log(r) + s * s / 2.0) / s
        pa = float(0.5 * special.ndtr(-t) + 0.5 * special.ndtr(s - t))
        qa = float(special.ndtr(-t))
    adv = 2.0 * (p * pa - (1.0 - p) * qa) - (2.0 * p - 1.0)
    return float(min(max(adv, base), 1.0))


def densities(
    shape: Shape | str, separation: float, z: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(P(z), Q(z))``: member and non-member densities at the points ``z``.

    Parameters
    ----------
    shape : Shape or its value.
    separation : ``0 <= s <= 50``.
    z : finite numbers (any shape).

    Returns
    -------
    (P, Q) : tuple of ndarray, each shaped like ``z``.

    Examples
    --------
    >>> p, q = densities("laplace", 1.0, [0.0, 1.0])
    >>> p.round(4).tolist(), q.round(4).tolist()
    ([0.1839, 0.5], [0.5, 0.1839])
    """
    kind = as_enum("shape", shape, Shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    x = check_range("z", z, -math.inf, math.inf, lo_open=True, hi_open=True)
    if kind is Shape.LAPLACE:
        return 0.5 * np.exp(-np.abs(x - s)), 0.5 * np.exp(-np.abs(x))
    phi0 = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    phis = np.exp(-0.5 * (x - s) ** 2) / math.sqrt(2.0 * math.pi)
    if kind is Shape.NORMAL:
        return phis, phi0
    return 0.5 * phi0 + 0.5 * phis, phi0


def sample(
    shape: Shape | str, separation: float, n: int, seed: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(members, nonmembers)``: n i.i.d. draws from each law.

    Parameters
    ----------
    shape : Shape or its value.
    separation : ``0 <= s <= 50``.
    n : ``4 <= n <= 10^7`` draws per group.
    seed : ``0 <= seed <= 2^32 − 1``, for ``numpy.random.default_rng(seed)``.

    Returns
    -------
    (members, nonmembers) : tuple of ndarray of length n.

    Examples
    --------
    >>> m, nm = sample("normal", 1.0, 1000, seed=0)
    >>> m.shape, bool(abs(m.mean() - nm.mean() - 1.0) < 0.2)
    ((1000,), True)
    """
    kind = as_enum("shape", shape, Shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    n = check_int("n", n, 4, 10_000_000)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rng = np.random.default_rng(seed)
    if kind is Shape.LAPLACE:
        members = s + rng.laplace(0.0, 1.0, n)
        nonmembers = rng.laplace(0.0, 1.0, n)
    elif kind is Shape.NORMAL:
        members = s + rng.standard_normal(n)
        nonmembers = rng.standard_normal(n)
    else:
        members = rng.standard_normal(n) + s * (rng.random(n) < 0.5)
        nonmembers = rng.standard_normal(n)
    return members, nonmembers


# --------------------------------------------------------------------------- the estimates

#: Confidence parameter of every interval (level 1 − δ = 95 %).
DELTA = 0.05
#: The KDE costs O(N²): it uses at most this many samples per group.
KDE_MAX_N = 5000
#: The N grid of the drift experiment (the KDE stops at :data:`KDE_MAX_N`).
DRIFT_N: tuple[int, ...] = (50, 100, 200, 500, 1000, 2000, 5000, 20000)


class Estimator(StrEnum):
    """MACE's two estimators of the privacy loss f̂."""

    HISTOGRAM = "histogram"  # discrete query, Lemma 5
    KDE = "kde"  # continuous query, Gaussian KDE, Lemmas 6–7


#: Repetitions (seeds) per N in the drift experiment.
DRIFT_RUNS: dict[Estimator, int] = {Estimator.HISTOGRAM: 5, Estimator.KDE: 3}


@dataclass(frozen=True)
class ToyRun:
    """One MACE estimate on samples of a toy pair of laws, beside the exact truth.

    ``members``/``nonmembers`` are the samples used (the KDE's first :data:`KDE_MAX_N`);
    ``estimate`` is what :mod:`mipcore.mace` returns for them; ``truth`` the exact ``Adv_p``
    (:func:`true_advantage`) of ``shape`` at ``separation`` and the estimate's prior.
    """

    shape: Shape
    separation: float
    members: NDArray[np.float64] = field(repr=False)
    nonmembers: NDArray[np.float64] = field(repr=False)
    estimate: mace.MACEEstimate
    truth: float


def run(
    shape: Shape | str = Shape.NORMAL,
    separation: float = 1.0,
    n: int = 2000,
    seed: int = 0,
    estimator: Estimator | str = Estimator.HISTOGRAM,
    bins: int = 30,
    bandwidth: float | None = None,
    prior: float = 0.5,
) -> ToyRun:
    r"""One MACE estimate on toy samples, beside the exact advantage.

    Draws ``n`` members and ``n`` non-members (:func:`sample` with ``seed``; the KDE uses the
    first :data:`KDE_MAX_N` of each) and estimates ``Adv_p`` with the histogram (``bins``
    equal bins, Lemma 5, :func:`mipcore.mace.histogram_estimate`) or the Gaussian KDE
    (``bandwidth`` h, None for Silverman's rule, Lemmas 6–7,
    :func:`mipcore.mace.kde_estimate`) at level 1 − :data:`DELTA`.

    Parameters
    ----------
    shape, separation, n, seed : as in :func:`sample`.
    estimator : :class:`Estimator` or its value.
    bins : ``1 <= bins <= 10^5`` (histogram only).
    bandwidth : ``h > 0`` or None (KDE only).
    prior : membership prior, ``0 < p < 1``.

    Returns
    -------
    ToyRun

    Raises
    ------
    ValueError
        Naming the parameter that is outside its domain (checked by :func:`sample`,
        :func:`true_advantage` and the estimator of :mod:`mipcore.mace`).

    Examples
    --------
    >>> r = run("normal", 1.0, n=2000, seed=0)
    >>> round(r.truth, 4), r.estimate.method, r.members.size
    (0.3829, 'histogram', 2000)
    """
    est = as_enum("estimator", estimator, Estimator)
    members, nonmembers = sample(
        shape, separation, min(n, KDE_MAX_N) if est is Estimator.KDE else n, seed
    )
    if est is Estimator.HISTOGRAM:
        res = mace.histogram_estimate(members, nonmembers, bins=bins, prior=prior, delta=DELTA)
    else:
        h: mace.Bandwidth = "silverman" if bandwidth is None else bandwidth
        res = mace.kde_estimate(members, nonmembers, bandwidth=h, prior=prior, delta=DELTA)
    kind = Shape(shape)
    return ToyRun(
        kind, float(separation), members, nonmembers, res, true_advantage(kind, separation, prior)
    )


# --------------------------------------------------------------------------- drift


@dataclass(frozen=True)
class DriftResult:
    """The estimate repeated over N (rows) and seeds ``seed, seed + 1, …`` (columns).

    ``plugin``, ``heldout`` and ``heldout_lower_raw`` are (len(n_values) × runs) arrays of
    advantages; ``truth`` the exact one. The rest is computed from them.
    """

    truth: float
    n_values: tuple[int, ...]
    plugin: NDArray[np.float64] = field(repr=False)
    heldout: NDArray[np.float64] = field(repr=False)
    heldout_lower_raw: NDArray[np.float64] = field(repr=False)

    @property
    def runs(self) -> int:
        """Seeds per N."""
        return int(self.plugin.shape[1])

    @property
    def heldout_lower(self) -> NDArray[np.float64]:
        """``max(0, heldout_lower_raw)``: what the chart draws."""
        return np.maximum(self.heldout_lower_raw, 0.0)

    @property
    def plugin_bias(self) -> NDArray[np.float64]:
        """The mean plug-in over the runs minus ``truth``, per N."""
        return np.asarray(self.plugin.mean(axis=1) - self.truth, dtype=float)

    @property
    def lower_above_truth(self) -> int:
        """Runs whose raw lower bound exceeds the truth (each with probability at most δ)."""
        return int(np.sum(self.heldout_lower_raw > self.truth))


def drift(
    shape: Shape | str = Shape.NORMAL,
    separation: float = 1.0,
    seed: int = 0,
    estimator: Estimator | str = Estimator.HISTOGRAM,
    bins: int = 30,
    bandwidth: float | None = None,
    prior: float = 0.5,
    progress: Callable[[float, str], None] | None = None,
) -> DriftResult:
    r"""The plug-in's drift: :func:`run` over :data:`DRIFT_N` and seeds.

    For every N of :data:`DRIFT_N` (for the KDE only N ≤ :data:`KDE_MAX_N`) and every run
    r < :data:`DRIFT_RUNS`, the samples of seed ``seed + r`` are estimated exactly as
    :func:`run` does (so run 0 at the page's N is the page's own estimate).

    Parameters
    ----------
    shape, separation, seed, estimator, bins, bandwidth, prior : as in :func:`run`.
    progress : optional ``progress(fraction, message)``, called after every estimate.

    Returns
    -------
    DriftResult

    Raises
    ------
    ValueError
        Naming the parameter that is outside its domain.

    Examples
    --------
    With P = Q (s = 0) the truth is 0, yet the plug-in is positive at every N:

    >>> d = drift("normal", 0.0)
    >>> bias = d.plugin_bias
    >>> d.truth, bool((d.plugin > 0).all()), bool(bias[0] > bias[-1] > 0)
    (0.0, True, True)
    """
    est = as_enum("estimator", estimator, Estimator)
    ns = tuple(n for n in DRIFT_N if est is Estimator.HISTOGRAM or n <= KDE_MAX_N)
    runs = DRIFT_RUNS[est]
    out = np.empty((3, len(ns), runs))
    truth = 0.0
    for i, n in enumerate(ns):
        for r in range(runs):
            res = run(shape, separation, n, seed + r, est, bins, bandwidth, prior)
            out[:, i, r] = (res.estimate.plugin, res.estimate.heldout, res.estimate.heldout_lower)
            truth = res.truth
            if progress is not None:
                progress((i * runs + r + 1) / (len(ns) * runs), f"N = {n}, run {r + 1} of {runs}")
    return DriftResult(truth, ns, out[0], out[1], out[2])
