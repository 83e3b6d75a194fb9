r"""What the reference-data page shows: Figure 2's theory, and the sweep's picks and readings.

Kaplan, Xu, Marfoq, Neglia, Santana de Oliveira. *A Cautionary Tale: On the Role of
Reference Data in Empirical Privacy Defenses*. PETS 2024, arXiv:2310.12112.

The theory lives in :mod:`mipcore.reference_data` (Theorems 3.1 and 3.2, Figure 2, the
selection rules of Table 2) and the experiment in :mod:`mipcore.lessons.reference_leak`
(WERM on toy data, attacked on D_T and on D_R). This module adds what a page needs on top:

* :func:`theory` -- Figure 2 for one ratio N_T/N_R, with the numbers the page quotes (w*,
  ε at w* and at the ends, the same as illustrative η and attacker accuracy) and whether
  ε₀ lies in Theorem 3.1's domain at all (a structured answer, not an error).
* :func:`sweep` -- :func:`reference_leak.run_sweep` with a ``progress(fraction, message)``
  callback, the form :func:`appkit.jobs.run` gives (``run_sweep`` reports
  ``progress(fraction, done, total)``).
* :func:`reselect` -- the sweep's Table 2 picks and verdicts for other thresholds or another
  attack *without refitting*: the fits and attacks do not depend on them. It repeats the
  selection step of :func:`reference_leak.run_sweep` on the sweep's per-w means (the tests
  check that both give identical results).
* :func:`reading` -- the numbers of the plain-language reading at the training-only
  evaluator's pick: the attack on D_T that such an evaluator reports, and the attack on
  D_R that it does not.
* :func:`experiment` -- all of it for one page view: the reselected sweep, the reading, the
  two trend verdicts of the chosen attack and the fits that did not converge
  (:func:`view` collects them for a sweep already reselected).
* :func:`check_work` -- the work one request asks for, against the ceiling a server allows.

Every attack accuracy is measured; the empirical η and ε derived from it are LOWER BOUNDS on
the leakage from one attack -- evidence of a leak, never a privacy guarantee.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validate import as_enum, check_int, check_range
from ..bounds import eta_from_epsilon
from ..reference_data import (
    Figure2Result,
    Selection,
    equal_privacy_weight,
    figure2,
)
from .reference_leak import (
    Attack,
    LeakConfig,
    SweepResult,
    Target,
    TrendVerdict,
    run_sweep,
    selection_verdicts,
)

__all__ = [
    "WORK_CEILING",
    "WORK_PER_FIT",
    "AttackReading",
    "ExperimentView",
    "Reading",
    "TheoryView",
    "Unit",
    "WorkCheck",
    "check_work",
    "experiment",
    "reading",
    "reselect",
    "sweep",
    "sweep_work",
    "theory",
    "view",
    "weight_grid",
]

#: Work units (see :func:`sweep_work`) one request may ask for, before the server's factor
#: ``MIP_EXPLORER_WORK_LIMIT``. The default sweep asks for 8.0 × 10⁷ (about 1.2 s on a busy
#: 2-core machine); sweeps near the ceiling took 6–20 s there (1000 features: 6 s;
#: 2 × 3000 records: 11 s; overlapping classes need more solver iterations). Since the
#: audit scores each matrix once, the sweep's CPU time is mostly its L-BFGS fits: measured
#: on a 2-core machine at load 4–8, 1.8 s for the default (2.4–3.0 s before), 3.8 s for
#: 1000 features, 5.8 s for 2 × 3000 records (``benchmarks/reference_data.py``).
WORK_CEILING = 2.5e8
#: Work units charged per fit on top of its records × features: a fit and its audit cost
#: a few tens of milliseconds however small the data (solver set-up, predictions).
WORK_PER_FIT = 500_000


class Unit(StrEnum):
    """The privacy axis of Figure 2: Theorem 3.1's ε, or the η-MIP level it implies."""

    EPSILON = "eps"
    ETA = "eta"


# --------------------------------------------------------------------------- theory


@dataclass(frozen=True)
class TheoryView:
    """Figure 2 of the paper for one ratio a = N_T/N_R, and what the page quotes about it.

    ``n_train`` = N·a/(1+a), ``n_ref`` = N − n_train. ``in_domain`` is whether
    0 < ε₀ < ``eps0_max`` = min(N_T, N_R), Theorem 3.1's domain on all of w ∈ [0, 1]; when it
    is False, ``figure`` and every ε/η below are None. ``w_star`` = N_R/N (equal privacy,
    maximal utility N_eff = N); ``eps_star`` = ε₀/N is ε_T = ε_R there. ``eps_train_max`` =
    ε₀/N_T (ε_T at w = 0) and ``eps_ref_max`` = ε₀/N_R (ε_R at w = 1). The η fields are
    Theorem 4 of Izzo et al. (δ = 0) applied to those ε, and ``accuracy_*`` = 1/2 + η: an
    illustration only, since Theorem 3.1 states its ε up to constants (O(ε)).
    """

    eps0: float
    n_total: float
    ratio: float
    n_train: float
    n_ref: float
    eps0_max: float
    in_domain: bool
    w_star: float
    figure: Figure2Result | None
    eps_star: float | None
    eta_star: float | None
    accuracy_star: float | None
    eps_train_max: float | None
    eta_train_max: float | None
    accuracy_train_max: float | None
    eps_ref_max: float | None
    eta_ref_max: float | None
    accuracy_ref_max: float | None


def theory(eps0: float, n_total: float, ratio: float, *, points: int = 21) -> TheoryView:
    r"""Figure 2 (Theorems 3.1 and 3.2) for ε₀, N = N_T + N_R and one ratio N_T/N_R.

    Parameters
    ----------
    eps0 : ``eps0 > 0``, the DP-SGD budget of Theorem 3.1 (ε₀ ∝ 1/σ).
    n_total : ``n_total > 0``, N.
    ratio : ``ratio > 0``, N_T/N_R.
    points : ``2 <= points <= 1001`` weights from 0 to 1 (w* is added).

    Returns
    -------
    TheoryView
        ``in_domain`` False (and no curves) when ε₀ ≥ min(N_T, N_R): a state the page
        explains, not an error.

    Raises
    ------
    ValueError
        Naming ``eps0``, ``n_total``, ``ratio`` or ``points`` when outside its domain.

    Examples
    --------
    >>> v = theory(1000.0, 20_000, 1.0)
    >>> v.w_star, v.eps_star, round(v.accuracy_star, 4)  # ε₀/N = 0.05
    (0.5, 0.05, 0.5125)
    >>> theory(5000.0, 20_000, 9.0).in_domain  # N_R = 2000 <= ε₀
    False
    """
    e0 = float(check_range("eps0", eps0, 0.0, math.inf, lo_open=True, hi_open=True))
    n = float(check_range("n_total", n_total, 0.0, math.inf, lo_open=True, hi_open=True))
    a = float(check_range("ratio", ratio, 0.0, math.inf, lo_open=True, hi_open=True))
    k = check_int("points", points, 2, 1001)
    nt = n * a / (1.0 + a)
    nr = n - nt
    cap = min(nt, nr)
    w_star = float(equal_privacy_weight(nt, nr))
    if not e0 < cap:
        return TheoryView(e0, n, a, nt, nr, cap, False, w_star, *([None] * 10))
    fig = figure2(e0, n, (a,), w=np.linspace(0.0, 1.0, k))
    eps_star = e0 / n
    eps_t, eps_r = e0 / nt, e0 / nr

    def eta(eps: float) -> float:
        return float(eta_from_epsilon(eps))

    return TheoryView(
        eps0=e0,
        n_total=n,
        ratio=a,
        n_train=nt,
        n_ref=nr,
        eps0_max=cap,
        in_domain=True,
        w_star=w_star,
        figure=fig,
        eps_star=eps_star,
        eta_star=eta(eps_star),
        accuracy_star=0.5 + eta(eps_star),
        eps_train_max=eps_t,
        eta_train_max=eta(eps_t),
        accuracy_train_max=0.5 + eta(eps_t),
        eps_ref_max=eps_r,
        eta_ref_max=eta(eps_r),
        accuracy_ref_max=0.5 + eta(eps_r),
    )


# --------------------------------------------------------------------------- the sweep


def weight_grid(count: int) -> tuple[float, ...]:
    """``count`` equally spaced weights from 0 to 1 (``2 <= count <= 201``): i/(count − 1).

    Examples
    --------
    >>> weight_grid(5)
    (0.0, 0.25, 0.5, 0.75, 1.0)
    """
    c = check_int("count", count, 2, 201)
    return tuple(i / (c - 1) for i in range(c))


def sweep_work(config: LeakConfig) -> int:
    """The work a sweep asks for: fits × (records × features + :data:`WORK_PER_FIT`).

    Every fit reads the N_T + N_R training records and the audit scores all the records of
    the replicate, so each of the ``len(weights) × n_seeds`` fits costs about
    ``n_total × n_features``, plus a fixed part.

    Examples
    --------
    >>> sweep_work(LeakConfig())  # 55 fits of 3200 records × 300 features
    80300000
    """
    cfg = config.validated()
    fits = len(cfg.weights) * cfg.n_seeds
    return fits * (cfg.n_total * cfg.n_features + WORK_PER_FIT)


@dataclass(frozen=True)
class WorkCheck:
    """``work`` asked for, ``ceiling`` allowed (:data:`WORK_CEILING` × the server's factor),
    ``allowed`` = work ≤ ceiling, and the ``fits`` the sweep would make."""

    work: int
    ceiling: float
    allowed: bool
    fits: int


def check_work(config: LeakConfig, factor: float = 1.0) -> WorkCheck:
    """Compare a sweep's work with the ceiling ``WORK_CEILING × factor`` (``factor >= 1``).

    Examples
    --------
    >>> check_work(LeakConfig()).allowed
    True
    >>> check_work(LeakConfig(n_seeds=20, n_features=1000)).allowed
    False
    """
    f = float(check_range("factor", factor, 1.0, math.inf, hi_open=True))
    work = sweep_work(config)
    ceiling = WORK_CEILING * f
    return WorkCheck(work, ceiling, work <= ceiling, len(config.weights) * config.n_seeds)


def sweep(config: LeakConfig, progress: Callable[[float, str], None] | None = None) -> SweepResult:
    """:func:`reference_leak.run_sweep` reporting ``progress(fraction, message)``.

    Parameters
    ----------
    config : LeakConfig (validated by ``run_sweep``).
    progress : optional; called before the first fit and after every fit.

    Returns
    -------
    SweepResult

    Raises
    ------
    ValueError
        Naming the config field that is out of range.

    Examples
    --------
    >>> cfg = LeakConfig(n_train=60, n_ref=60, n_calib=60, n_eval=60, n_features=10,
    ...                  weights=(0.0, 1.0), n_seeds=1)
    >>> seen = []
    >>> res = sweep(cfg, lambda f, m: seen.append((f, m)))
    >>> seen[0], seen[-1]
    ((0.0, 'fit 0 of 2'), (1.0, 'fit 2 of 2'))
    """
    if progress is None:
        return run_sweep(config)
    report = progress

    def relay(fraction: float, done: int, total: int) -> None:
        report(fraction, f"fit {done} of {total}")

    return run_sweep(config, relay)


def _means(per_w: pd.DataFrame, attack: Attack, target: Target) -> NDArray[np.float64]:
    sub = per_w[(per_w["attack"] == attack.value) & (per_w["target"] == target.value)]
    return sub.sort_values("w")["accuracy_mean"].to_numpy(float)


def reselect(
    result: SweepResult,
    *,
    attack: Attack | str | None = None,
    max_train_attack: float | None = None,
    max_gap: float | None = None,
    max_ref_attack: float | None = None,
) -> SweepResult:
    r"""The sweep's Table 2 picks and their verdicts for other thresholds or another attack.

    The fits, the attacks and the trends do not depend on the selection step, so this
    returns ``result`` with a new ``config`` (the given fields replaced), ``selections``,
    ``training_only_pick``, ``rule_verdicts`` and ``hidden_leak`` -- exactly what
    :func:`reference_leak.run_sweep` returns for that config (both call
    :func:`reference_leak.selection_verdicts`). None keeps a field.

    Parameters
    ----------
    result : a :class:`SweepResult`.
    attack : the attack whose per-w means the rules read (``selection_attack``).
    max_train_attack, max_gap, max_ref_attack : thresholds in [0, 1] (Table 2: 0.51, 0.04,
        0.51).

    Returns
    -------
    SweepResult

    Raises
    ------
    ValueError
        Naming ``attack`` or the threshold that is out of range.
    """
    cfg = result.config
    changes: dict[str, object] = {}
    if attack is not None:
        changes["selection_attack"] = as_enum("attack", attack, Attack)
    for name, value in (
        ("max_train_attack", max_train_attack),
        ("max_gap", max_gap),
        ("max_ref_attack", max_ref_attack),
    ):
        if value is not None:
            changes[name] = float(check_range(name, value, 0.0, 1.0))
    cfg = dataclasses.replace(cfg, **changes).validated()  # type: ignore[arg-type]
    selections, pick, rule_verdicts, hidden = selection_verdicts(
        result.per_w, result.utility, result.w_star, cfg
    )
    return dataclasses.replace(
        result,
        config=cfg,
        selections=selections,
        training_only_pick=pick,
        rule_verdicts=rule_verdicts,
        hidden_leak=hidden,
    )


# --------------------------------------------------------------------------- the reading


@dataclass(frozen=True)
class AttackReading:
    """One attack on one target at one w, pooled over the seeds.

    ``accuracy`` is the mean over seeds; [``ci_low``, ``ci_high``] the Clopper–Pearson
    interval of the pooled counts; ``band`` (min, max) over seeds; ``eta_lower_bound`` and
    ``epsilon_lower_bound`` the EMPIRICAL LOWER BOUNDS from the pooled counts (evidence
    of leakage, never a guarantee); ``beats_chance`` = ``ci_low > 1/2``.
    """

    target: Target
    accuracy: float
    ci_low: float
    ci_high: float
    band: tuple[float, float]
    eta_lower_bound: float
    epsilon_lower_bound: float
    beats_chance: bool


@dataclass(frozen=True)
class Reading:
    """The training-only evaluator's pick (Table 2's public-reference rule) in numbers.

    ``selection`` is that pick (its ``w``, threshold, test accuracy); ``train`` is what the
    evaluator reports, ``reference`` what it does not (both for ``attack``). ``confidence``
    is the interval level of the sweep.
    """

    attack: Attack
    confidence: float
    selection: Selection
    w: float
    test_accuracy: float
    train: AttackReading
    reference: AttackReading


def _attack_reading(result: SweepResult, w: float, attack: Attack, target: Target) -> AttackReading:
    per_w = result.per_w
    row = per_w[
        (per_w["w"] == w) & (per_w["attack"] == attack.value) & (per_w["target"] == target.value)
    ].iloc[0]
    lo = float(row["pooled_ci_low"])
    return AttackReading(
        target=target,
        accuracy=float(row["accuracy_mean"]),
        ci_low=lo,
        ci_high=float(row["pooled_ci_high"]),
        band=(float(row["accuracy_min"]), float(row["accuracy_max"])),
        eta_lower_bound=float(row["eta_empirical_lower_bound"]),
        epsilon_lower_bound=float(row["epsilon_empirical_lower_bound"]),
        beats_chance=lo > 0.5,
    )


def reading(result: SweepResult) -> Reading | None:
    """The numbers of “at w = …, the training data look private, but the reference data…”.

    At ``result.training_only_pick`` (the public-reference rule, which reads training
    leakage only) for ``result.config.selection_attack``; None when that rule picked
    nothing.

    Parameters
    ----------
    result : a :class:`SweepResult` (e.g. from :func:`reselect`).

    Returns
    -------
    Reading or None
    """
    pick = result.training_only_pick
    if pick.w is None or pick.test_accuracy is None:
        return None
    attack = result.config.selection_attack
    return Reading(
        attack=attack,
        confidence=result.config.confidence,
        selection=pick,
        w=pick.w,
        test_accuracy=pick.test_accuracy,
        train=_attack_reading(result, pick.w, attack, Target.TRAIN),
        reference=_attack_reading(result, pick.w, attack, Target.REFERENCE),
    )


# --------------------------------------------------------------------------- one page view


@dataclass(frozen=True)
class ExperimentView:
    """What the page shows about one sweep, for one attack and one set of thresholds.

    ``result`` is the sweep after :func:`reselect`; ``reading`` its :func:`reading` (None
    when the public-reference rule picked nothing); ``trend_reference``/``trend_train`` the
    trend verdicts of ``result.config.selection_attack`` on D_R (rises with w) and D_T
    (falls with w); ``unconverged_fits`` of ``fits`` stopped at the iteration cap.
    """

    result: SweepResult
    reading: Reading | None
    trend_reference: TrendVerdict
    trend_train: TrendVerdict
    unconverged_fits: int
    fits: int


def experiment(
    result: SweepResult,
    *,
    attack: Attack | str | None = None,
    max_train_attack: float | None = None,
    max_gap: float | None = None,
    max_ref_attack: float | None = None,
) -> ExperimentView:
    """:func:`reselect` ``result`` and collect what the page quotes (see :class:`ExperimentView`).

    Parameters and errors as in :func:`reselect`.

    Examples
    --------
    >>> cfg = LeakConfig(n_train=60, n_ref=60, n_calib=60, n_eval=60, n_features=10,
    ...                  weights=(0.0, 0.5, 1.0), n_seeds=2)
    >>> view = experiment(run_sweep(cfg), attack="loss", max_gap=0.1)
    >>> view.result.config.selection_attack.value, view.result.config.max_gap, view.fits
    ('loss', 0.1, 6)
    """
    res = reselect(
        result,
        attack=attack,
        max_train_attack=max_train_attack,
        max_gap=max_gap,
        max_ref_attack=max_ref_attack,
    )
    return view(res)


def view(result: SweepResult) -> ExperimentView:
    """What the page quotes about ``result`` as it is (no reselection; see :func:`experiment`).

    A page that caches :func:`reselect`'s result and this view separately can key the
    triad chart by that result, which a cache would otherwise hash anew on every rerun.

    Examples
    --------
    >>> cfg = LeakConfig(n_train=60, n_ref=60, n_calib=60, n_eval=60, n_features=10,
    ...                  weights=(0.0, 0.5, 1.0), n_seeds=2)
    >>> res = reselect(run_sweep(cfg), attack="loss")
    >>> v = view(res)
    >>> v.result is res, v.reading == experiment(res).reading, v.trend_train.attack.value
    (True, True, 'loss')
    """
    sel = result.config.selection_attack
    converged = result.fits["converged"].to_numpy(bool)
    return ExperimentView(
        result=result,
        reading=reading(result),
        trend_reference=result.trend(sel, Target.REFERENCE),
        trend_train=result.trend(sel, Target.TRAIN),
        unconverged_fits=int((~converged).sum()),
        fits=int(converged.size),
    )
