r"""What the MACE page shows: one estimate against the exact truth, and the plug-in's drift.

Liu, Xu, Mukherjee, Lavista Ferres. *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*. arXiv:2009.05683 -- the estimators of :mod:`mipcore.mace`
(histogram: Lemma 5; Gaussian KDE: Lemmas 6–7; Algorithm 1; Theorem 1's tanh bound) run on
samples from the toy laws of :mod:`mipcore.lessons.mace_synthetic`, whose advantage is known
exactly.

* :func:`mace_view` -- one estimate (N samples per group, one seed) with every number the
  page quotes: the truth, the plug-in, Algorithm 1, the held-out estimate and its lower
  confidence bound, the tanh bound at ε, each also as η and as an attacker's accuracy
  (:class:`Units`), and the data of the samples / privacy-loss chart.
* :func:`drift` -- the same estimate repeated over a grid of N and several seeds: the
  plug-in ``mean |f̂|`` drifts *above* the truth at small N (noise in f̂ never cancels
  inside ``|·|``), while the held-out lower bound stays below it.

Units
-----
MACE measures leakage by the membership *advantage* ``Adv_p = 2·accuracy − 1`` of the best
attacker (Definition 1 of MACE). The rest of the app speaks of MIP's η (Izzo, Yoon, Arık,
Zou, *Provable Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582): an attacker's
accuracy is at most ``1/2 + η``. So ``advantage = 2η = 2·accuracy − 1``; the tanh bound
``tanh(ε/2)`` of MACE's Theorem 1 (0.4621 at ε = 1) is ``2η`` with η = 0.2311 of Theorem 4
of Izzo et al., an attacker right at most 73.1 % of the time. With a prior p ≠ 1/2 the
accuracy relation still holds (``accuracy = (1 + Adv_p)/2``), but a blind guess of the
majority already reaches ``max(p, 1 − p)``; MIP's η is defined at p = 1/2.

The held-out lower bound is a Clopper–Pearson bound on an advantage and can be negative
(the data then do not even show that the fitted attacker beats a coin flip); an advantage
below 0 says nothing more than 0, so the results keep the raw value *and* ``max(0, raw)``,
which is what the page shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

from .. import mace
from .._validate import as_enum, check_int, check_range
from . import mace_synthetic
from .mace_synthetic import Shape

__all__ = [
    "DELTA",
    "DRIFT_N",
    "DRIFT_RUNS",
    "KDE_MAX_N",
    "DriftResult",
    "Estimator",
    "MaceView",
    "Units",
    "drift",
    "drift_is_heavy",
    "mace_view",
    "units",
    "view_is_heavy",
]

#: Confidence parameter of every interval (level 1 − δ = 95 %).
DELTA = 0.05
#: The KDE costs O(N²): it uses at most this many samples per group.
KDE_MAX_N = 5000
#: The N grid of the drift experiment (the KDE stops at :data:`KDE_MAX_N`).
DRIFT_N: tuple[int, ...] = (50, 100, 200, 500, 1000, 2000, 5000, 20000)
#: Bins of the display histogram behind a KDE estimate.
_KDE_DISPLAY_BINS = 60
#: Points of the exact curves on the samples chart.
_GRID_POINTS = 400


class Estimator(StrEnum):
    """MACE's two estimators of the privacy loss f̂."""

    HISTOGRAM = "histogram"  # discrete query, Lemma 5
    KDE = "kde"  # continuous query, Gaussian KDE, Lemmas 6–7


#: Repetitions (seeds) per N in the drift experiment.
DRIFT_RUNS: dict[Estimator, int] = {Estimator.HISTOGRAM: 5, Estimator.KDE: 3}


@dataclass(frozen=True)
class Units:
    """One advantage in the app's three units: ``advantage = 2·eta = 2·accuracy − 1``."""

    advantage: float
    eta: float
    accuracy: float


def units(advantage: float) -> Units:
    """An advantage in ``[0, 1]`` with its η (= advantage/2) and accuracy (= (1 + advantage)/2).

    Examples
    --------
    >>> u = units(math.tanh(0.5))  # MACE's tanh bound at ε = 1
    >>> round(u.advantage, 4), round(u.eta, 4), round(u.accuracy, 3)
    (0.4621, 0.2311, 0.731)
    """
    a = float(check_range("advantage", advantage, 0.0, 1.0))
    return Units(a, a / 2.0, (1.0 + a) / 2.0)


@dataclass(frozen=True)
class MaceView:
    """Everything the MACE page quotes about one estimate.

    Inputs as used: ``n_requested`` samples per group were asked for, ``n_used`` were used
    (``kde_capped``: the KDE stops at :data:`KDE_MAX_N`); ``bandwidth`` is the KDE's h
    actually used (None for the histogram).

    Advantages (each with η and accuracy, :class:`Units`): ``truth`` (exact),
    ``plugin`` (in-sample mean |f̂|, biased upwards), ``heldout`` (the fitted attacker
    sgn(f̂) scored on the second split; ``max(0, heldout_raw)``), ``heldout_lower`` (its
    1 − δ lower bound, ``max(0, heldout_lower_raw)``), ``tanh_bound`` (Theorem 1 at
    ``epsilon``). An advantage below 0 (a fitted attacker worse than a coin flip on the
    held-out half) says no more than 0: the raw values are kept for the data tables.
    ``algorithm1`` is Algorithm 1's mean |f̂| on the second split and ``mean_interval`` the
    paper's average interval (neither is a bound). ``plugin_error``/``heldout_error`` are
    the estimates minus the truth. ``lam`` = log(p/(1−p)); ``prior_floor`` = |2p − 1|, the
    advantage of a blind guess of the majority, and ``blind_guess`` the same in all units
    (its accuracy is max(p, 1 − p)).

    Verdicts: ``covered`` (the raw lower bound is at most the truth, as it should be with
    probability ≥ 1 − δ), ``exceeds_bound`` (the truth is above the tanh bound: the pair is
    not ε-DP), ``lower_bound_proves_not_dp`` (the lower bound alone is above the tanh
    bound), ``exact_dp_epsilon`` (the Laplace pair is exactly s-DP: s; None otherwise).

    Chart data: ``edges`` of the display histogram and the sample densities
    ``member_density``/``nonmember_density`` on them; the exact ``grid``, ``p_true``,
    ``q_true``, ``f_true``; the fitted ``points``, ``f_hat``, ``f_lower``, ``f_upper``
    (the histogram's two overflow bins left out).
    """

    shape: Shape
    separation: float
    estimator: Estimator
    n_requested: int
    n_used: int
    kde_capped: bool
    seed: int
    bins: int
    bandwidth: float | None
    prior: float
    epsilon: float
    delta: float
    n_fit: tuple[int, int]
    n_eval: tuple[int, int]
    truth: Units
    plugin: Units
    heldout: Units
    heldout_raw: float
    heldout_lower: Units
    heldout_lower_raw: float
    tanh_bound: Units
    algorithm1: float
    mean_interval: tuple[float, float]
    plugin_error: float
    heldout_error: float
    lam: float
    prior_floor: float
    blind_guess: Units
    covered: bool
    exceeds_bound: bool
    lower_bound_proves_not_dp: bool
    exact_dp_epsilon: float | None
    edges: NDArray[np.float64] = field(repr=False)
    member_density: NDArray[np.float64] = field(repr=False)
    nonmember_density: NDArray[np.float64] = field(repr=False)
    grid: NDArray[np.float64] = field(repr=False)
    p_true: NDArray[np.float64] = field(repr=False)
    q_true: NDArray[np.float64] = field(repr=False)
    f_true: NDArray[np.float64] = field(repr=False)
    points: NDArray[np.float64] = field(repr=False)
    f_hat: NDArray[np.float64] = field(repr=False)
    f_lower: NDArray[np.float64] = field(repr=False)
    f_upper: NDArray[np.float64] = field(repr=False)


def _check_common(
    shape: Shape | str,
    separation: float,
    seed: int,
    estimator: Estimator | str,
    bins: int,
    bandwidth: float | None,
    prior: float,
) -> tuple[Shape, float, int, Estimator, int, float | None, float]:
    kind = as_enum("shape", shape, Shape)
    s = float(check_range("separation", separation, 0.0, 50.0))
    sd = check_int("seed", seed, 0, 2**32 - 1 - max(DRIFT_RUNS.values()))
    est = as_enum("estimator", estimator, Estimator)
    nb = check_int("bins", bins, 1, 100_000)
    bw = None
    if bandwidth is not None:
        bw = float(check_range("bandwidth", bandwidth, 0.0, math.inf, lo_open=True, hi_open=True))
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    return kind, s, sd, est, nb, bw, p


def _estimate(
    kind: Shape, s: float, n: int, seed: int, est: Estimator, bins: int, bw: float | None, p: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], mace.MACEEstimate]:
    members, nonmembers = mace_synthetic.sample(kind, s, n, seed)
    if est is Estimator.HISTOGRAM:
        res = mace.histogram_estimate(members, nonmembers, bins=bins, prior=p, delta=DELTA)
    else:
        res = mace.kde_estimate(
            members, nonmembers, bandwidth="silverman" if bw is None else bw, prior=p, delta=DELTA
        )
    return members, nonmembers, res


def mace_view(
    shape: Shape | str = Shape.NORMAL,
    separation: float = 1.0,
    n: int = 2000,
    seed: int = 0,
    estimator: Estimator | str = Estimator.HISTOGRAM,
    bins: int = 30,
    bandwidth: float | None = None,
    prior: float = 0.5,
    epsilon: float = 1.0,
) -> MaceView:
    r"""One MACE estimate on toy samples, beside the exact advantage and the tanh bound.

    Draws ``n`` members and ``n`` non-members (:func:`mace_synthetic.sample` with ``seed``;
    the KDE uses the first :data:`KDE_MAX_N` of each), estimates ``Adv_p`` with the
    histogram (``bins`` equal bins, Lemma 5) or the Gaussian KDE (``bandwidth`` h, None for
    Silverman's rule, Lemmas 6–7) at level 1 − :data:`DELTA`, and compares with the exact
    ``Adv_p`` and with Theorem 1's ``max{|tanh((ε+λ)/2)|, |tanh((λ−ε)/2)|}``.

    Parameters
    ----------
    shape : :class:`Shape` or its value.
    separation : ``0 <= s <= 50``.
    n : samples per group, ``4 <= n <= 10^7``.
    seed : ``0 <= seed <= 2^32 − 6``.
    estimator : :class:`Estimator` or its value.
    bins : ``1 <= bins <= 10^5`` (histogram only).
    bandwidth : ``h > 0`` or None (KDE only).
    prior : membership prior, ``0 < p < 1``.
    epsilon : ``0 <= epsilon <= 50`` for the tanh bound.

    Returns
    -------
    MaceView

    Raises
    ------
    ValueError
        Naming the parameter that is outside its domain.

    Examples
    --------
    >>> v = mace_view("normal", 1.0, n=2000, seed=0)
    >>> round(v.truth.advantage, 4), round(v.tanh_bound.eta, 4)
    (0.3829, 0.2311)
    >>> v.heldout_lower.advantage == max(0.0, v.heldout_lower_raw)
    True
    """
    kind, s, sd, est, nb, bw, p = _check_common(
        shape, separation, seed, estimator, bins, bandwidth, prior
    )
    n_req = check_int("n", n, 4, 10_000_000)
    eps = float(check_range("epsilon", epsilon, 0.0, 50.0))
    n_used = min(n_req, KDE_MAX_N) if est is Estimator.KDE else n_req
    members, nonmembers, res = _estimate(kind, s, n_used, sd, est, nb, bw, p)

    truth = mace_synthetic.true_advantage(kind, s, p)
    bound = float(mace.dp_privacy_loss_bound(eps, p))
    lam = math.log(p) - math.log1p(-p)

    if res.edges is not None:
        edges = np.asarray(res.edges, dtype=float)
        keep = slice(1, -1)  # the two overflow bins are not drawn
    else:
        edges = np.linspace(float(res.points[0]), float(res.points[-1]), _KDE_DISPLAY_BINS + 1)
        keep = slice(None)
    hm, _ = np.histogram(members, edges, density=True)
    hn, _ = np.histogram(nonmembers, edges, density=True)
    grid = np.linspace(float(edges[0]), float(edges[-1]), _GRID_POINTS)
    p_true, q_true = mace_synthetic.densities(kind, s, grid)
    f_true = np.asarray(mace.privacy_loss(p_true, q_true, p), dtype=float)

    def clip01(x: float) -> float:
        return min(max(float(x), 0.0), 1.0)

    lower_raw = float(res.heldout_lower)
    return MaceView(
        shape=kind,
        separation=s,
        estimator=est,
        n_requested=n_req,
        n_used=n_used,
        kde_capped=n_used < n_req,
        seed=sd,
        bins=nb,
        bandwidth=res.bandwidth,
        prior=p,
        epsilon=eps,
        delta=DELTA,
        n_fit=res.n_fit,
        n_eval=res.n_eval,
        truth=units(truth),
        plugin=units(clip01(res.plugin)),
        heldout=units(clip01(res.heldout)),
        heldout_raw=float(res.heldout),
        heldout_lower=units(clip01(lower_raw)),
        heldout_lower_raw=lower_raw,
        tanh_bound=units(bound),
        algorithm1=float(res.algorithm1),
        mean_interval=(float(res.mean_interval[0]), float(res.mean_interval[1])),
        plugin_error=float(res.plugin) - truth,
        heldout_error=float(res.heldout) - truth,
        lam=lam,
        prior_floor=abs(2.0 * p - 1.0),
        blind_guess=units(abs(2.0 * p - 1.0)),
        covered=lower_raw <= truth,
        exceeds_bound=truth > bound + 1e-12,
        lower_bound_proves_not_dp=lower_raw > bound,
        exact_dp_epsilon=s if kind is Shape.LAPLACE and s > 0 else None,
        edges=edges,
        member_density=np.asarray(hm, dtype=float),
        nonmember_density=np.asarray(hn, dtype=float),
        grid=grid,
        p_true=np.asarray(p_true, dtype=float),
        q_true=np.asarray(q_true, dtype=float),
        f_true=f_true,
        points=np.asarray(res.points[keep], dtype=float),
        f_hat=np.asarray(res.f_hat[keep], dtype=float),
        f_lower=np.asarray(res.f_lower[keep], dtype=float),
        f_upper=np.asarray(res.f_upper[keep], dtype=float),
    )


# --------------------------------------------------------------------------- drift


@dataclass(frozen=True)
class DriftResult:
    """The estimate repeated over N (rows) and seeds ``seed, seed + 1, …`` (columns).

    ``plugin``, ``heldout`` and ``heldout_lower_raw`` are (len(n_values) × runs) arrays of
    advantages; ``heldout_lower`` is ``max(0, heldout_lower_raw)`` (what the chart draws).
    ``plugin_bias`` is the mean plug-in over the runs minus ``truth``, per N;
    ``bias_small_n``/``bias_large_n`` its first and last entries. ``lower_above_truth``
    counts the runs whose raw lower bound exceeds the truth (each run fails with
    probability at most δ); ``lower_max`` is the largest raw lower bound of all runs.
    """

    shape: Shape
    separation: float
    estimator: Estimator
    seed: int
    bins: int
    bandwidth: float | None
    prior: float
    truth: float
    n_values: tuple[int, ...]
    runs: int
    plugin: NDArray[np.float64] = field(repr=False)
    heldout: NDArray[np.float64] = field(repr=False)
    heldout_lower_raw: NDArray[np.float64] = field(repr=False)
    heldout_lower: NDArray[np.float64] = field(repr=False)
    plugin_bias: NDArray[np.float64] = field(repr=False)
    bias_small_n: float
    bias_large_n: float
    lower_above_truth: int
    lower_max: float


def view_is_heavy(estimator: Estimator | str, n: int) -> bool:
    """Whether :func:`mace_view` may take about a second: the KDE beyond 2000 samples per group.

    Examples
    --------
    >>> view_is_heavy("kde", 5000), view_is_heavy("kde", 500), view_is_heavy("histogram", 10**6)
    (True, False, False)
    """
    est = as_enum("estimator", estimator, Estimator)
    return est is Estimator.KDE and check_int("n", n, 0) > 2000


def drift_is_heavy(estimator: Estimator | str) -> bool:
    """Whether :func:`drift` takes more than about a second (the KDE's does: about 3 s).

    Examples
    --------
    >>> drift_is_heavy("kde"), drift_is_heavy(Estimator.HISTOGRAM)
    (True, False)
    """
    return as_enum("estimator", estimator, Estimator) is Estimator.KDE


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
    r"""The plug-in's drift: the estimate of :func:`mace_view` over :data:`DRIFT_N` and seeds.

    For every N of :data:`DRIFT_N` (for the KDE only N ≤ :data:`KDE_MAX_N`) and every run
    r < :data:`DRIFT_RUNS`, the samples of seed ``seed + r`` are estimated exactly as
    :func:`mace_view` does (so run 0 at the page's N is the page's own estimate).

    Parameters
    ----------
    shape, separation, seed, estimator, bins, bandwidth, prior : as in :func:`mace_view`.
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
    >>> d.truth, bool((d.plugin > 0).all()), d.bias_small_n > d.bias_large_n > 0
    (0.0, True, True)
    """
    kind, s, sd, est, nb, bw, p = _check_common(
        shape, separation, seed, estimator, bins, bandwidth, prior
    )
    ns = tuple(n for n in DRIFT_N if est is Estimator.HISTOGRAM or n <= KDE_MAX_N)
    runs = DRIFT_RUNS[est]
    out = np.empty((3, len(ns), runs))
    total = len(ns) * runs
    done = 0
    for i, n in enumerate(ns):
        for r in range(runs):
            _, _, res = _estimate(kind, s, n, sd + r, est, nb, bw, p)
            out[:, i, r] = (res.plugin, res.heldout, res.heldout_lower)
            done += 1
            if progress is not None:
                progress(done / total, f"N = {n}, run {r + 1} of {runs}")
    truth = mace_synthetic.true_advantage(kind, s, p)
    bias = out[0].mean(axis=1) - truth
    return DriftResult(
        shape=kind,
        separation=s,
        estimator=est,
        seed=sd,
        bins=nb,
        bandwidth=bw,
        prior=p,
        truth=truth,
        n_values=ns,
        runs=runs,
        plugin=out[0],
        heldout=out[1],
        heldout_lower_raw=out[2],
        heldout_lower=np.maximum(out[2], 0.0),
        plugin_bias=bias,
        bias_small_n=float(bias[0]),
        bias_large_n=float(bias[-1]),
        lower_above_truth=int(np.sum(out[2] > truth)),
        lower_max=float(out[2].max()),
    )
