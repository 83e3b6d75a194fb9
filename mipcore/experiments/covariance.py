r"""The synthetic-covariance experiment of Section 5.2 (Figure 2), its claims and its cost.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582,
Section 5.2 (Figure 2 and its caption). DP-SGD: Abadi, Chu, Goodfellow, McMahan, Mironov,
Talwar, Zhang. *Deep Learning with Differential Privacy*. CCS 2016, arXiv:1607.00133.
Gaussian mechanism: Balle, Wang. *Improving the Gaussian Mechanism for Differential Privacy*.
ICML 2018, arXiv:1805.06530 (as implemented by Google's ``dp_accounting``). GDP: Dong, Roth,
Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.

Setting
-------
``Σ = sklearn.datasets.make_spd_matrix(d, random_state=seed)``; n rows ``x_i ~ N(0, Σ)``; the
training set is a uniformly random half (m = n/2 rows). The base algorithm learns ``A`` by
gradient descent on ``||A − S||_F²`` with ``S = (1/m) Σ x_i x_iᵀ``; from ``A_0 = 0`` with
learning rate ``lr`` the gradient ``2(A − S)`` gives ``A_T = (1 − (1 − 2 lr)^T) S``
(:func:`mipcore.covariance_gd.gd_closed_form`). Error: ``||A − Σ||_F / ||Σ||_F``.

Methods (:class:`Method`)
-------------------------
* **Raw** -- the non-private GD result.
* **MIP** -- θ = the p = d² entries of A; per-coordinate σ_i from B random halves of the
  training set (Algorithm 1; a half's Gram matrix is a sum of precomputed per-row outer
  products, so the B halves are one matrix product,
  :func:`mipcore.covariance_gd.half_split_grams`), noise ``X = rU`` of Corollary 10 under
  one of three calibrations (:class:`mipcore.mechanism.MipCalibration`):

  - ``AS_PRINTED``: c = (constant/η)^(1+2/M) with r ~ Laplace(c), as Corollary 10 and
    Algorithm 1 print it. For p > 1 its density is ``∝ e^{−||x||/c}/||x||^{p−1}`` (unbounded
    likelihood ratios): **no proof certifies it** (:func:`mipcore.mechanism.certified_level`
    is None), so it is never called η-MIP for d > 1.
  - ``PAPER``: the same c with r ~ Gamma(p, c), the density ``∝ e^{−||x||/c}`` Theorem 9
    assumes. Certified in every dimension by the dimension-free argument of
    :mod:`mipcore.theorem9` (steps T1-T4: η ≤ (1 − e^{−1/c})/2); the printed proof covers p = 1
    only. The certified level is far below the target η (c is very large).
  - ``TIGHT``: the smallest certified noise, c = −1/ln(1 − 2η) with the Gamma radius.

* **DP-SGD, full batch** (:func:`mipcore.covariance_gd.dpsgd`) -- per-example gradient
  ``2(A − x xᵀ)``, clipped to Frobenius norm C (:class:`~mipcore.covariance_gd.ClipRule`),
  summed, plus ``N(0, (z·2C)²)`` per entry (2C: the sum's sensitivity to *replacing* one
  record, the neighbouring notion MIP's half-splits use), divided by m, T steps. Per-example
  norms need only ``xᵀAx`` and ``||x||²``
  (``||A − x xᵀ||_F² = ||A||_F² − 2 xᵀAx + ||x||⁴``), so every trajectory (every η, both
  calibrations, and the z = 0 clipped run) shares each pass over the data. z is calibrated
  two ways (:class:`DpCalibration`):

  - ``PAPER``: η → ε by inverting Theorem 4 at δ (the paper does not state δ; 10⁻⁶ by
    default), then the Gaussian noise that makes the T-step composition (ε, δ)-DP:
    ``z = √T · get_sigma_gaussian(ε, δ)``. Conservative: the T steps are exactly μ-GDP with
    μ = √T/z (z is relative to the replace-one sensitivity 2C), whose exact MIP level
    :func:`mipcore.guarantees.eta_from_gdp` is a fraction of the target (:attr:`DpNoise.ratio`).
  - ``TIGHT``: ``μ = 2 Φ⁻¹(1/2 + η)``, ``z = √T/μ``: exactly η by the same GDP formula.

What this module returns
------------------------
:func:`plan_experiment` resolves a configuration into every noise level (cheap, needs
scikit-learn and dp_accounting); :func:`run_experiment` runs the plan and returns an
:class:`ExperimentResult`: the plan and the tidy runs, from which it computes on demand their
summary, the paper's four claims as structured :class:`Verdict` values for every
calibration, and every number the page quotes (clipping bias, noise scales, the radius
ratio; the DP calibration's slack is the plan's). :func:`work`, :func:`measure_speed` and
:func:`estimate_seconds` are the cost model (the page's run-time estimate and its ceiling on
one request's work).

The heavy, rarely needed imports (scikit-learn, dp_accounting, scipy.stats through
:mod:`mipcore.guarantees`) happen inside :func:`plan_experiment` only, so a process that
runs a plan (a job of the app) starts in tens of milliseconds.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special
from threadpoolctl import threadpool_limits

from .._validate import as_enum, check_int, check_range
from ..covariance_gd import (
    ClipRule,
    clip_norm,
    dpsgd,
    gd_closed_form,
    half_split_grams,
    outer_products,
    sample_data,
)
from ..mechanism import MipCalibration, certified_level, noise_multiplier_for
from ..noise import COROLLARY14_CONSTANT
from ..noise_laws import sample_mip_noise

__all__ = [
    "AUTO_RUN_SECONDS",
    "CLAIM_M",
    "NOMINAL_SPEED",
    "ONSET_LATEST",
    "PRESETS",
    "PROBE_SECONDS",
    "REF_ETA",
    "RUN_COLUMNS",
    "WORK_CEILING",
    "Claim",
    "ClipRule",
    "ClippingBias",
    "DpCalibration",
    "DpNoise",
    "ExperimentConfig",
    "ExperimentResult",
    "FailRange",
    "Method",
    "MipNoise",
    "MipScale",
    "Onset",
    "Plan",
    "RadiusRatio",
    "Speed",
    "Verdict",
    "Work",
    "curve",
    "dp_noise_multiplier",
    "estimate_seconds",
    "measure_speed",
    "paper_claims",
    "plan_experiment",
    "run_experiment",
    "simulate",
    "speed_factor",
    "summarize",
    "work",
]


class DpCalibration(StrEnum):
    """How DP-SGD's noise multiplier z is chosen for a target η (module docstring)."""

    #: Theorem 4 inverted at δ, then the analytic Gaussian mechanism (the paper's route).
    PAPER = "paper"
    #: The exact GDP level: μ = 2Φ⁻¹(1/2 + η), z = √T/μ.
    TIGHT = "tight"


class Method(StrEnum):
    """The curves of Figure 2 (plus the clipping-only DP-SGD run)."""

    RAW = "raw"
    MIP = "mip"
    DPSGD = "dpsgd"
    #: DP-SGD with z = 0: clipping only, no noise (how much of DP-SGD's error is bias).
    CLIP_ONLY = "clip_only"


class Claim(StrEnum):
    """The four claims of the Figure 2 caption and text (Section 5.2), in the paper's order."""

    #: "For η ≥ 0.1, MIP with any of the tested M outperforms DP."
    MIP_BEATS_DP_FROM_01 = "mip_beats_dp_from_0.1"
    #: "For the entire tested η range, MIP with M = 4 or 6 outperforms DP."
    M46_BEAT_DP_EVERYWHERE = "m46_beat_dp_everywhere"
    #: "DP is never able to obtain relative error less than 1."
    DP_NEVER_BELOW_1 = "dp_never_below_1"
    #: "MIP obtains relative error less than 1 for η ≈ 0.2 and larger."
    MIP_BELOW_1_FROM_02 = "mip_below_1_from_0.2"


#: The moment orders claim 2 is about.
CLAIM_M: tuple[int, ...] = (4, 6)
#: Claim 4 ("below 1 for η ≈ 0.2 and larger") holds when, for some M, MIP's mean error stays
#: below 1 from this η of the grid on, or from a smaller one.
ONSET_LATEST = 0.3
#: The η the page quotes noise levels at ("from η ≈ 0.2 on"): the grid point nearest it.
REF_ETA = 0.2
#: Configurations estimated to finish faster than this run without a button press.
AUTO_RUN_SECONDS = 4.0

_EPS = 1e-12


# ============================================================================ configuration


@dataclass(frozen=True)
class ExperimentConfig:
    """Every parameter of the Section 5.2 experiment (see the module docstring).

    ``d`` (1-20), ``n`` rows (8 to 5·10⁶), ``seed`` (0 to 2³²−1), ``B`` half-splits (2-4096),
    ``R`` runs (1-100), ``Ms`` moment orders (each 2-64, at least one), ``etas`` (each in
    (0, 1/2), at least one; ≥ δ/2 when the paper's DP calibration is used), ``delta`` in
    (0, 1), ``T`` steps (1-10 000), ``lr`` in (0, 1/2], the clipping rule (``clip_value`` > 0
    finite for :attr:`ClipRule.FIXED`), the DP and MIP calibrations to run, and Corollary
    14's ``constant`` (≥ 6.16).
    """

    d: int = 3
    n: int = 20_000
    seed: int = 0
    B: int = 128
    R: int = 3
    Ms: tuple[int, ...] = (2, 4, 6)
    etas: tuple[float, ...] = tuple(float(x) for x in np.linspace(0.01, 0.45, 15))
    delta: float = 1e-6
    T: int = 20
    lr: float = 0.25
    clip_rule: ClipRule = ClipRule.INITIAL_MEDIAN
    clip_value: float | None = None
    dp_calibrations: tuple[DpCalibration, ...] = tuple(DpCalibration)
    mip_calibrations: tuple[MipCalibration, ...] = tuple(MipCalibration)
    constant: float = COROLLARY14_CONSTANT

    def validated(self) -> ExperimentConfig:
        """The configuration with enums normalised (calibrations in their enums' order,
        without repeats); ``ValueError`` naming a bad field."""
        check_int("d", self.d, 1, 20)
        check_int("n", self.n, 8, 5_000_000)
        check_int("seed", self.seed, 0, 2**32 - 1)
        check_int("B", self.B, 2, 4096)
        check_int("R", self.R, 1, 100)
        if not self.Ms:
            raise ValueError("Ms is empty: at least one moment order M (2 to 64) is needed")
        for M in self.Ms:
            check_int("M", M, 2, 64)
        if not self.etas:
            raise ValueError("etas is empty: at least one η in (0, 1/2) is needed")
        check_range("etas", np.asarray(self.etas), 0.0, 0.5, lo_open=True, hi_open=True)
        check_range("delta", self.delta, 0.0, 1.0, lo_open=True, hi_open=True)
        check_int("T", self.T, 1, 10_000)
        check_range("lr", self.lr, 0.0, 0.5, lo_open=True)
        rule = as_enum("clip_rule", self.clip_rule, ClipRule)
        if rule is ClipRule.FIXED:
            if self.clip_value is None:
                raise ValueError("clip_value=None: the fixed clipping rule needs a clip_value > 0")
            check_range("clip_value", self.clip_value, 0.0, math.inf, lo_open=True, hi_open=True)
        dps = tuple(as_enum("dp_calibrations", c, DpCalibration) for c in self.dp_calibrations)
        mips = tuple(as_enum("mip_calibrations", c, MipCalibration) for c in self.mip_calibrations)
        if DpCalibration.PAPER in dps and min(self.etas) < self.delta / 2:
            raise ValueError(
                f"etas must be >= delta/2 = {self.delta / 2:g} for the paper's DP calibration "
                "(Theorem 4 certifies no η below δ/2)"
            )
        check_range("constant", self.constant, COROLLARY14_CONSTANT, math.inf, hi_open=True)
        fixed = replace(
            self,
            clip_rule=rule,
            Ms=tuple(int(M) for M in self.Ms),
            etas=tuple(float(e) for e in self.etas),
            dp_calibrations=tuple(c for c in DpCalibration if c in dps),
            mip_calibrations=tuple(c for c in MipCalibration if c in mips),
        )
        typed = (
            type(self.clip_rule) is ClipRule
            and all(type(c) is DpCalibration for c in self.dp_calibrations)
            and all(type(c) is MipCalibration for c in self.mip_calibrations)
        )
        return self if typed and fixed == self else fixed

    @property
    def m(self) -> int:
        """Training rows: a random half, ``n // 2``."""
        return self.n // 2

    @property
    def p(self) -> int:
        """Numbers the release holds (and MIP noises): ``d²``."""
        return self.d * self.d


PRESETS: dict[str, ExperimentConfig] = {
    "Quick": ExperimentConfig(n=20_000, R=3),
    "Paper": ExperimentConfig(n=500_000, R=10),
}


# ============================================================================ noise levels


@dataclass(frozen=True)
class DpNoise:
    """DP-SGD's noise multiplier for each η of the grid under one calibration.

    ``exact_eta`` is the calibrated mechanism's exact MIP level: T full-batch steps with
    multiplier z (relative to the replace-one sensitivity 2C) are μ-GDP with μ = √T/z, and
    :func:`mipcore.guarantees.eta_from_gdp` gives η.
    """

    calibration: DpCalibration
    etas: tuple[float, ...]
    z: tuple[float, ...]
    exact_eta: tuple[float, ...]

    @property
    def ratio(self) -> tuple[float, ...]:
        """Exact level over target level at each η (1 for the tight calibration)."""
        return tuple(a / e for a, e in zip(self.exact_eta, self.etas, strict=True))

    @property
    def ratio_range(self) -> tuple[float, float]:
        """The smallest and largest :attr:`ratio` over the grid."""
        return min(self.ratio), max(self.ratio)


@dataclass(frozen=True)
class MipNoise:
    """MIP's noise multiplier c at each η for one calibration and moment order M.

    ``certified`` is :func:`mipcore.mechanism.certified_level` for the p = d² noised numbers:
    the MIP level the noise provably gives (None: not certified -- the printed Laplace
    radius for p > 1).
    """

    calibration: MipCalibration
    M: int
    etas: tuple[float, ...]
    c: tuple[float, ...]
    certified: tuple[float | None, ...]

    @property
    def is_certified(self) -> bool:
        """True when every η of the grid has a certificate at or below the target η."""
        return all(
            lv is not None and lv <= e * (1 + 1e-9)
            for lv, e in zip(self.certified, self.etas, strict=True)
        )


@dataclass(frozen=True)
class Plan:
    """A validated configuration with everything resolved that a run needs but cannot cheaply
    compute itself: Σ, DP-SGD's z and MIP's c for every η (see :func:`plan_experiment`)."""

    config: ExperimentConfig
    sigma: NDArray[np.float64]
    dp: tuple[DpNoise, ...]
    mip: tuple[MipNoise, ...]

    def dp_noise(self, calibration: DpCalibration) -> DpNoise:
        return next(x for x in self.dp if x.calibration is calibration)

    def mip_noise(self, calibration: MipCalibration, M: int) -> MipNoise:
        return next(x for x in self.mip if x.calibration is calibration and x.M == M)


def dp_noise_multiplier(
    eta: float,
    T: int,
    *,
    route: DpCalibration | str = DpCalibration.PAPER,
    delta: float = 1e-6,
) -> float:
    """Noise multiplier z (noise std / the replace-one sensitivity 2C) for T steps to give η.

    Parameters
    ----------
    eta : float
        ``0 < eta < 1/2`` (and ``eta >= delta/2`` for the paper route).
    T : int
        Number of full-batch steps, ``T >= 1``.
    route : DpCalibration or str
        ``"paper"``: ε = Theorem 4 inverted at δ, then
        ``z = √T · dp_accounting.gaussian_mechanism.get_sigma_gaussian(ε, δ)``.
        ``"tight"``: ``z = √T/μ`` with ``μ = 2Φ⁻¹(1/2 + η)`` (the exact μ-GDP level).
    delta : float
        ``0 < delta < 1`` (paper route only).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Naming the parameter out of its domain.

    Examples
    --------
    >>> round(dp_noise_multiplier(0.1, 20, route="tight"), 3)
    8.826
    >>> dp_noise_multiplier(0.1, 20, route="paper") > dp_noise_multiplier(0.1, 20, route="tight")
    True
    """
    e = float(check_range("eta", eta, 0.0, 0.5, lo_open=True, hi_open=True))
    T = check_int("T", T, 1)
    cal = as_enum("route", route, DpCalibration)
    if cal is DpCalibration.PAPER:
        from dp_accounting import gaussian_mechanism  # heavy: imported where needed

        from ..bounds import epsilon_from_eta

        dl = float(check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
        eps = float(epsilon_from_eta(e, dl))
        return math.sqrt(T) * float(gaussian_mechanism.get_sigma_gaussian(eps, dl))
    mu = 2.0 * float(special.ndtri(0.5 + e))
    return math.sqrt(T) / mu


def plan_experiment(config: ExperimentConfig) -> Plan:
    """Validate ``config`` and resolve Σ and every noise level of the run.

    Parameters
    ----------
    config : ExperimentConfig

    Returns
    -------
    Plan

    Raises
    ------
    ValueError
        If a field of ``config`` is out of its domain (naming it).

    Examples
    --------
    >>> plan = plan_experiment(ExperimentConfig(etas=(0.1,)))
    >>> [round(x.c[0], 3) for x in plan.mip if x.M == 2]  # paper, as printed, tight
    [3794.56, 3794.56, 4.481]
    >>> plan.mip_noise(MipCalibration.AS_PRINTED, 2).certified  # d = 3: 9 numbers
    (None,)
    >>> round(plan.dp_noise(DpCalibration.PAPER).ratio[0], 2)  # exact η over target
    0.2
    """
    from ..covariance_gd import make_sigma  # scikit-learn: imported where needed
    from ..guarantees import eta_from_gdp  # scipy.stats: imported where needed

    cfg = config.validated()
    etas = cfg.etas
    dp = []
    for cal in cfg.dp_calibrations:
        zs = tuple(dp_noise_multiplier(e, cfg.T, route=cal, delta=cfg.delta) for e in etas)
        exact = tuple(float(eta_from_gdp(math.sqrt(cfg.T) / z)) for z in zs)
        dp.append(DpNoise(cal, etas, zs, exact))
    mip = []
    for mcal in cfg.mip_calibrations:
        for M in cfg.Ms:
            cs = tuple(
                noise_multiplier_for(e, M=M, d=cfg.p, calibration=mcal, constant=cfg.constant)
                for e in etas
            )
            levels = tuple(certified_level(c, M=M, d=cfg.p, calibration=mcal) for c in cs)
            mip.append(MipNoise(mcal, M, etas, cs, levels))
    sigma = make_sigma(cfg.d, cfg.seed)
    sigma.flags.writeable = False
    return Plan(cfg, sigma, tuple(dp), tuple(mip))


# ============================================================================ the experiment

RUN_COLUMNS = (
    "run",
    "eta",
    "method",
    "M",
    "mip_calibration",
    "dp_calibration",
    "c",
    "z",
    "C",
    "rel_error",
)


def _rel_error(A_flat: NDArray[np.float64], sigma: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(
        np.linalg.norm(A_flat - sigma.ravel()[None, :], axis=-1) / np.linalg.norm(sigma)
    )


def _as_plan(setup: ExperimentConfig | Plan) -> Plan:
    return setup if isinstance(setup, Plan) else plan_experiment(setup)


def simulate(
    setup: ExperimentConfig | Plan, progress: Callable[[float, str], None] | None = None
) -> pd.DataFrame:
    """Run every method over R runs and the η grid: a tidy table of relative errors.

    Columns :data:`RUN_COLUMNS`: ``run``, ``eta``, ``method`` (:class:`Method` value), ``M``,
    ``mip_calibration``, ``dp_calibration`` (enum values, or None), ``c`` (MIP's noise
    multiplier), ``z`` (DP-SGD's), ``C`` (the clipping norm), ``rel_error``. Deterministic
    given ``config.seed`` (run r uses the seed sequence ``(seed, r)``). ``progress(fraction,
    message)`` is called halfway through each run (after the MIP part) and at its end.

    BLAS runs on one thread here: the matrix products are small (d² columns), and on a
    shared, busy machine a multi-threaded BLAS waiting for a descheduled thread made a
    d = 6 run 20 times slower than a single thread.
    """
    plan = _as_plan(setup)
    with threadpool_limits(limits=1, user_api="blas"):
        return _simulate(plan, progress)


def _simulate(plan: Plan, progress: Callable[[float, str], None] | None) -> pd.DataFrame:
    cfg, sigma = plan.config, plan.sigma
    etas = np.asarray(cfg.etas, dtype=float)
    E = etas.size
    cols: dict[str, list[Any]] = {k: [] for k in RUN_COLUMNS}

    def add(run: int, method: Method, errs: ArrayLike, **kw: Any) -> None:
        cols["run"] += [run] * E
        cols["eta"] += etas.tolist()
        cols["method"] += [method.value] * E
        for key in ("M", "mip_calibration", "dp_calibration", "c", "z", "C"):
            value = kw.get(key)
            cols[key] += list(value) if isinstance(value, (list, tuple)) else [value] * E
        cols["rel_error"] += np.broadcast_to(np.asarray(errs, dtype=float), (E,)).tolist()

    for run in range(cfg.R):
        gen = np.random.default_rng([cfg.seed, run])
        X = sample_data(sigma, cfg.n, gen)
        train = np.sort(gen.permutation(cfg.n)[: cfg.m])
        P = outer_products(X[train])
        x2 = np.einsum("ij,ij->i", X[train], X[train])
        A_raw = gd_closed_form(P.mean(axis=0), cfg.T, cfg.lr)
        add(run, Method.RAW, float(_rel_error(A_raw[None, :], sigma)[0]))

        # MIP: sigma_i from B half-splits of the training set (GD output is linear in S)
        thetas = gd_closed_form(half_split_grams(P, cfg.B, gen), cfg.T, cfg.lr)
        dev = np.abs(thetas - thetas.mean(axis=0))
        for M in cfg.Ms:
            sig_M = np.mean(dev**M, axis=0) ** (1.0 / M)
            live = sig_M > 0
            for cal in cfg.mip_calibrations:
                c_eta = np.asarray(plan.mip_noise(cal, M).c)
                noise = np.zeros((E, A_raw.size))
                if live.any():  # X = r U scales linearly in c: one unit draw per eta
                    unit = sample_mip_noise(sig_M[live], float(M), 1.0, E, gen, cal.radius)
                    noise[:, live] = unit * c_eta[:, None]
                errs = _rel_error(A_raw[None, :] + noise, sigma)
                add(run, Method.MIP, errs, M=M, mip_calibration=cal.value, c=c_eta.tolist())

        # DP-SGD: every calibration's trajectories and the z = 0 clipped run share the passes
        if progress is not None:  # about half of a run's time is spent before this point
            progress((run + 0.5) / cfg.R, f"run {run + 1} of {cfg.R}: MIP done, DP-SGD running")
        C = clip_norm(P, x2, rule=cfg.clip_rule, T=cfg.T, lr=cfg.lr, value=cfg.clip_value)
        all_z = np.concatenate([[0.0], *(np.asarray(x.z) for x in plan.dp)])
        finals = dpsgd(P, x2, all_z, C=C, T=cfg.T, lr=cfg.lr, rng=gen)
        errs = _rel_error(finals, sigma)
        add(run, Method.CLIP_ONLY, float(errs[0]), z=0.0, C=C)
        for k, dpn in enumerate(plan.dp):
            block = errs[1 + k * E : 1 + (k + 1) * E]
            add(run, Method.DPSGD, block, dp_calibration=dpn.calibration.value, z=dpn.z, C=C)
        if progress is not None:
            progress((run + 1) / cfg.R, f"run {run + 1} of {cfg.R} done")
    out = pd.DataFrame(cols, columns=list(RUN_COLUMNS))
    out["M"] = out["M"].astype("Int64")
    for key in ("c", "z", "C"):
        out[key] = out[key].astype(float)
    return out


_KEYS = ["method", "M", "mip_calibration", "dp_calibration"]


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error of the mean over runs, per curve and η.

    Columns ``method, M, mip_calibration, dp_calibration, eta, mean, sem, runs`` (one row per
    curve and η; the SEM is 0 for a single run).
    """
    g = runs.groupby([*_KEYS, "eta"], dropna=False, sort=True)["rel_error"]
    out = g.agg(["mean", "std", "count"]).reset_index()
    count = out["count"].to_numpy(dtype=float)
    sem = np.where(count > 1, out["std"].fillna(0.0).to_numpy(dtype=float) / np.sqrt(count), 0.0)
    out = out.assign(sem=sem, runs=count.astype(int))
    out = out.drop(columns=["std", "count"])
    out["M"] = out["M"].astype("Int64")
    return out.reset_index(drop=True)


def curve(
    summary: pd.DataFrame,
    method: Method,
    *,
    M: int | None = None,
    mip: MipCalibration | None = None,
    dp: DpCalibration | None = None,
) -> pd.Series:
    """One curve's mean error, indexed by η (ascending), from a :func:`summarize` table."""
    keep = summary["method"] == method.value
    if M is not None:
        keep &= summary["M"] == M
    if mip is not None:
        keep &= summary["mip_calibration"] == mip.value
    if dp is not None:
        keep &= summary["dp_calibration"] == dp.value
    return summary[keep.fillna(False)].set_index("eta")["mean"].sort_index()


# ============================================================================ the claims


@dataclass(frozen=True)
class FailRange:
    """Where a claim fails: consecutive grid points from ``lo`` to ``hi`` (``points`` of them)
    for moment order ``M`` (None for a DP-only claim)."""

    M: int | None
    lo: float
    hi: float
    points: int


@dataclass(frozen=True)
class Onset:
    """The smallest η from which MIP's mean error stays below 1 for moment order M (None:
    not below 1 at the top of the grid)."""

    M: int
    eta: float | None


@dataclass(frozen=True)
class Verdict:
    """One claim judged on one variant of this run.

    ``mip`` is None for the DP-only claim 3, ``dp`` None for the MIP-only claim 4.
    ``where`` lists the grid ranges where the claim fails (empty when it holds) and
    ``checked`` how many comparisons were made ((M, η) pairs for claims 1-2, η for claim 3,
    M for claim 4). ``dp_min`` (claim 3) is DP-SGD's smallest mean error; ``onsets``
    (claim 4) the η from which each M stays below 1.
    """

    claim: Claim
    mip: MipCalibration | None
    dp: DpCalibration | None
    holds: bool
    where: tuple[FailRange, ...] = ()
    checked: int = 0
    dp_min: float | None = None
    onsets: tuple[Onset, ...] = ()

    @property
    def failed(self) -> int:
        """Comparisons (or grid points) where the claim fails."""
        return sum(r.points for r in self.where)

    @property
    def passed(self) -> int:
        """Comparisons where the claim holds (claims 1-3; for claim 4, the M that pass)."""
        if self.claim is Claim.MIP_BELOW_1_FROM_02:
            return sum(1 for o in self.onsets if o.eta is not None and o.eta <= ONSET_LATEST + _EPS)
        return self.checked - self.failed


def _ranges(
    grid: Sequence[float], bad: Sequence[tuple[int | None, Sequence[float]]]
) -> tuple[FailRange, ...]:
    """Group the failing η of each M into runs of consecutive grid points."""
    index = {float(e): i for i, e in enumerate(grid)}
    out = []
    for M, etas in bad:
        pts = sorted(float(e) for e in etas)
        if not pts:
            continue
        start = prev = pts[0]
        count = 1
        for e in pts[1:]:
            if index[e] != index[prev] + 1:
                out.append(FailRange(M, start, prev, count))
                start, count = e, 0
            prev, count = e, count + 1
        out.append(FailRange(M, start, prev, count))
    return tuple(out)


def _onset(c: pd.Series) -> float | None:
    start = None
    for e in sorted(c.index, reverse=True):
        if c[e] < 1.0:
            start = float(e)
        else:
            break
    return start


def paper_claims(
    summary: pd.DataFrame,
    Ms: Sequence[int],
    mip_calibrations: Sequence[MipCalibration | str],
    dp_calibrations: Sequence[DpCalibration | str],
) -> tuple[Verdict, ...]:
    """Evaluate the four claims of Section 5.2 (:class:`Claim`) on a :func:`summarize` table.

    1. For every (MIP calibration, DP calibration): MIP's mean error is below DP-SGD's at
       every η ≥ 0.1 of the grid, for every M.
    2. For every pair, if M = 4 or 6 was run: the same at every η of the grid for those M.
    3. For every DP calibration: DP-SGD's mean error is ≥ 1 at every η.
    4. For every MIP calibration: for some M, MIP's mean error stays below 1 from η = 0.3 of
       the grid on, or from a smaller η ("for η ≈ 0.2 and larger"; an earlier start is a
       stronger result, not a failure).

    Means are compared (the page shows the SEM beside them). Order: claims 1 and 2 per pair
    (MIP calibration outer), then claim 3 per DP calibration, then claim 4 per MIP
    calibration.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [("dpsgd", None, None, "tight", e, 2.0) for e in (0.1, 0.3)]
    >>> rows += [("mip", 4, "tight", None, e, v) for e, v in ((0.1, 1.5), (0.3, 0.5))]
    >>> s = pd.DataFrame(rows, columns=["method", "M", "mip_calibration", "dp_calibration",
    ...                                 "eta", "mean"])
    >>> [v.holds for v in paper_claims(s, (4,), ("tight",), ("tight",))]
    [True, True, True, True]
    """
    mips = [as_enum("mip_calibrations", c, MipCalibration) for c in mip_calibrations]
    dps = [as_enum("dp_calibrations", c, DpCalibration) for c in dp_calibrations]
    Ms = [int(M) for M in Ms]
    out: list[Verdict] = []
    dp_curves = {dp: curve(summary, Method.DPSGD, dp=dp) for dp in dps}
    grid = sorted(float(e) for e in summary["eta"].unique())
    for mip in mips:
        mc = {M: curve(summary, Method.MIP, M=M, mip=mip) for M in Ms}
        for dp in dps:
            dc = dp_curves[dp]
            bad1: list[tuple[int | None, list[float]]] = [
                (M, [e for e in dc.index if e >= 0.1 - _EPS and not mc[M][e] < dc[e]]) for M in Ms
            ]
            fails1 = _ranges(grid, bad1)
            n1 = len(Ms) * sum(1 for e in dc.index if e >= 0.1 - _EPS)
            out.append(Verdict(Claim.MIP_BEATS_DP_FROM_01, mip, dp, not fails1, fails1, n1))
            m46 = [M for M in Ms if M in CLAIM_M]
            if m46:
                bad2: list[tuple[int | None, list[float]]] = [
                    (M, [e for e in dc.index if not mc[M][e] < dc[e]]) for M in m46
                ]
                fails2 = _ranges(grid, bad2)
                n2 = len(m46) * len(dc)
                out.append(Verdict(Claim.M46_BEAT_DP_EVERYWHERE, mip, dp, not fails2, fails2, n2))
    for dp in dps:
        dc = dp_curves[dp]
        below = [float(e) for e in dc.index if dc[e] < 1.0]
        where = _ranges(grid, [(None, below)])
        out.append(
            Verdict(Claim.DP_NEVER_BELOW_1, None, dp, not below, where, len(dc), float(dc.min()))
        )
    for mip in mips:
        onsets = tuple(Onset(M, _onset(curve(summary, Method.MIP, M=M, mip=mip))) for M in Ms)
        holds = any(o.eta is not None and o.eta <= ONSET_LATEST + _EPS for o in onsets)
        out.append(
            Verdict(Claim.MIP_BELOW_1_FROM_02, mip, None, holds, checked=len(Ms), onsets=onsets)
        )
    return tuple(out)


# ============================================================================ the result


@dataclass(frozen=True)
class ClippingBias:
    """How much of DP-SGD's error (one calibration) is clipping bias: the z = 0 run beside it.

    At the most private η of the grid (``eta``): the noise multiplier ``z``, DP-SGD's and the
    clipping-only run's mean errors; over the grid: the range of the share
    ``min(clip-only/DP-SGD, 1)`` and of DP-SGD's error; ``step_sd`` = lr·z·2C/m, the noise a
    step adds per entry of A, and ``step_sd_rel`` = step_sd/||Σ||_F.
    """

    calibration: DpCalibration
    eta: float
    z: float
    error: float
    clip_only_error: float
    share_min: float
    share_max: float
    step_sd: float
    step_sd_rel: float
    error_min: float
    error_max: float


@dataclass(frozen=True)
class MipScale:
    """MIP's noise multiplier and error for one calibration and M at the grid's ends and at
    the reference η (the grid point nearest :data:`REF_ETA`), with the certified level there
    and ``n_for_error_1``: the n that would bring the error at the reference η down to 1 if
    σ_i ∝ 1/√n and the noise dominates (an extrapolation, n·error²; None when the error is
    already ≤ 1)."""

    calibration: MipCalibration
    M: int
    eta_lo: float
    eta_hi: float
    eta_ref: float
    c_lo: float
    c_hi: float
    c_ref: float
    error_lo: float
    error_hi: float
    error_ref: float
    certified_ref: float | None
    n_for_error_1: float | None


@dataclass(frozen=True)
class RadiusRatio:
    """The Gamma(p, c) radius (paper's constant) against the printed Laplace(c) radius.

    ``expected`` = p = d² (mean radius p·c against E|r| = c); ``observed`` the median ratio of
    the two mean-error curves over the η where both exceed 10 × Raw (None if there are none);
    ``per_M`` the same per moment order.
    """

    expected: int
    observed: float | None
    per_M: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class ExperimentResult:
    """One run of the experiment: its plan, the tidy table of every run (:func:`simulate`),
    its time in seconds and when it finished (``time.time()``). Everything else is computed
    from them on demand, without new randomness (as scipy's ``BinomTestResult``): the
    :attr:`summary`, the paper's claims (:attr:`verdicts`) and every number the covariance
    page quotes."""

    plan: Plan
    runs: pd.DataFrame
    seconds: float = 0.0
    finished_at: float = field(default_factory=time.time)

    @property
    def config(self) -> ExperimentConfig:
        return self.plan.config

    @cached_property
    def summary(self) -> pd.DataFrame:
        """Mean and SEM per curve and η (:func:`summarize`)."""
        return summarize(self.runs)

    def curve(
        self,
        method: Method,
        *,
        M: int | None = None,
        mip: MipCalibration | None = None,
        dp: DpCalibration | None = None,
    ) -> pd.Series:
        """One curve's mean error, indexed by η (:func:`curve` of the summary)."""
        return curve(self.summary, method, M=M, mip=mip, dp=dp)

    @cached_property
    def verdicts(self) -> tuple[Verdict, ...]:
        """The four claims judged on every variant of the run (:func:`paper_claims`)."""
        cfg = self.config
        return paper_claims(self.summary, cfg.Ms, cfg.mip_calibrations, cfg.dp_calibrations)

    @property
    def raw_error(self) -> float:
        """Non-private GD's mean relative error."""
        return float(self.curve(Method.RAW).iloc[0])

    @property
    def clip_norm(self) -> float:
        """DP-SGD's clipping norm C (the median over the runs)."""
        return float(self.runs.loc[self.runs["method"] == Method.CLIP_ONLY.value, "C"].median())

    def verdict(
        self, claim: Claim, *, mip: MipCalibration | None = None, dp: DpCalibration | None = None
    ) -> Verdict | None:
        """The verdict on ``claim`` for a variant (None if not judged on this run)."""
        return next(
            (v for v in self.verdicts if v.claim is claim and v.mip is mip and v.dp is dp), None
        )

    def grid(
        self, dp: DpCalibration | None
    ) -> tuple[tuple[Claim, tuple[tuple[MipCalibration | None, Verdict], ...]], ...]:
        """The verdict table against DP-SGD calibration ``dp``: per claim (rows), the verdict
        for each MIP calibration of the run (columns; claim 3 repeats its DP-only verdict in
        each, and stands alone under None when no MIP calibration was run). Claims without
        a verdict are left out."""
        mips: list[MipCalibration | None] = list(self.config.mip_calibrations) or [None]
        rows = []
        for claim in Claim:
            cells = []
            for m in mips:
                v = self.verdict(
                    claim,
                    mip=None if claim is Claim.DP_NEVER_BELOW_1 else m,
                    dp=None if claim is Claim.MIP_BELOW_1_FROM_02 else dp,
                )
                if v is not None:
                    cells.append((m, v))
            if cells:
                rows.append((claim, tuple(cells)))
        return tuple(rows)

    @cached_property
    def clipping(self) -> tuple[ClippingBias, ...]:
        """The clipping bias of every DP-SGD calibration of the run."""
        cfg, C = self.config, self.clip_norm
        z0 = self.curve(Method.CLIP_ONLY)
        norm = float(np.linalg.norm(self.plan.sigma))
        eta0 = float(min(cfg.etas))
        out = []
        for dpn in self.plan.dp:
            dc = self.curve(Method.DPSGD, dp=dpn.calibration)
            shares = (z0 / dc).clip(upper=1.0)
            z = float(dpn.z[int(np.argmin(cfg.etas))])
            step = cfg.lr * z * 2.0 * C / cfg.m
            error, clip_only = float(dc.loc[eta0]), float(z0.loc[eta0])
            lo, hi = float(shares.min()), float(shares.max())
            bias = (error, clip_only, lo, hi, step, step / norm, float(dc.min()), float(dc.max()))
            out.append(ClippingBias(dpn.calibration, eta0, z, *bias))
        return tuple(out)

    def bias(self, calibration: DpCalibration) -> ClippingBias | None:
        """The clipping-bias figures of one DP-SGD calibration (None if it was not run)."""
        return next((c for c in self.clipping if c.calibration is calibration), None)

    @cached_property
    def scales(self) -> tuple[MipScale, ...]:
        """MIP's noise and error for every calibration and M of the run."""
        cfg = self.config
        etas = np.asarray(cfg.etas)
        i_lo, i_hi = int(np.argmin(etas)), int(np.argmax(etas))
        i_ref = int(np.argmin(np.abs(etas - REF_ETA)))
        out = []
        for x in self.plan.mip:
            c = self.curve(Method.MIP, M=x.M, mip=x.calibration)
            lo, hi, ref = (float(c.loc[etas[i]]) for i in (i_lo, i_hi, i_ref))
            n_for_1 = cfg.n * ref**2 if ref > 1 else None
            at = (float(etas[i_lo]), float(etas[i_hi]), float(etas[i_ref]))
            noise = (x.c[i_lo], x.c[i_hi], x.c[i_ref])
            scale = MipScale(
                x.calibration, x.M, *at, *noise, lo, hi, ref, x.certified[i_ref], n_for_1
            )
            out.append(scale)
        return tuple(out)

    @cached_property
    def radius_ratio(self) -> RadiusRatio | None:
        """The two radius laws compared (None unless both the paper's and the printed
        calibration were run)."""
        cfg, raw = self.config, self.raw_error
        if not {MipCalibration.PAPER, MipCalibration.AS_PRINTED} <= set(cfg.mip_calibrations):
            return None
        ratios: list[float] = []
        per_M = []
        for M in cfg.Ms:
            g = self.curve(Method.MIP, M=M, mip=MipCalibration.PAPER)
            lap = self.curve(Method.MIP, M=M, mip=MipCalibration.AS_PRINTED)
            both = (g > 10 * raw) & (lap > 10 * raw)  # where the noise dominates the error
            if both.any():
                r = (g[both] / lap[both]).to_numpy(dtype=float)
                ratios.extend(r.tolist())
                per_M.append((M, float(np.median(r))))
        return RadiusRatio(cfg.p, float(np.median(ratios)) if ratios else None, tuple(per_M))


def run_experiment(
    setup: ExperimentConfig | Plan, progress: Callable[[float, str], None] | None = None
) -> ExperimentResult:
    """Run the experiment (:func:`simulate`): its :class:`ExperimentResult`.

    Parameters
    ----------
    setup : ExperimentConfig or Plan
        A configuration (planned here) or a :func:`plan_experiment` result (the app plans in
        its server process and runs the plan in a job process).
    progress : callable, optional
        ``progress(fraction, message)``, called twice per run with a non-decreasing fraction.

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ValueError
        If the configuration is invalid (naming the field).

    Examples
    --------
    >>> cfg = ExperimentConfig(d=2, n=400, B=8, R=2, Ms=(4,), etas=(0.1, 0.3), T=5)
    >>> res = run_experiment(cfg)
    >>> len(res.runs), len(res.verdicts)
    (28, 17)
    >>> res.verdict(Claim.DP_NEVER_BELOW_1, dp=DpCalibration.TIGHT).claim.value
    'dp_never_below_1'
    """
    plan = _as_plan(setup)
    t0 = time.perf_counter()
    runs = simulate(plan, progress)
    return ExperimentResult(plan, runs, time.perf_counter() - t0)


# ============================================================================ the cost model


@dataclass(frozen=True)
class Work:
    """What one request costs, counted in the operations that dominate a run.

    ``split_rows`` = R·B·m rows summed over the half-splits; ``traj_rows`` =
    R·m·(T·(K + 1) + T′) row-trajectory-steps of DP-SGD, with K = 1 + #DP calibrations × #η
    trajectories (one more for the per-row work of every step) and T′ = T for the
    trajectory-median clipping rule (0 otherwise); both scaled by (27 + d²)/36 (measured:
    most of a row's cost does not grow with d², which is 9 in the paper); ``runs`` = R (a
    run's own overhead); ``curves`` the number of curves drawn (reported, not timed).
    """

    split_rows: float
    traj_rows: float
    runs: int
    curves: int

    @property
    def units(self) -> float:
        """The work in nominal seconds (:data:`NOMINAL_SPEED`, fixed): what the ceiling counts."""
        return estimate_seconds(self, NOMINAL_SPEED)


def work(config: ExperimentConfig) -> Work:
    """The :class:`Work` of ``config`` (validated first).

    Examples
    --------
    >>> w = work(PRESETS["Quick"])
    >>> w.traj_rows == 3 * 10_000 * 20 * (31 + 1)
    True
    """
    cfg = config.validated()
    K = 1 + len(cfg.dp_calibrations) * len(cfg.etas)
    extra = cfg.T if cfg.clip_rule is ClipRule.TRAJECTORY_MEDIAN else 0
    size = (27 + cfg.p) / 36
    return Work(
        split_rows=cfg.R * cfg.B * cfg.m * size,
        traj_rows=cfg.R * cfg.m * (cfg.T * (K + 1) + extra) * size,
        runs=cfg.R,
        curves=2 + len(cfg.dp_calibrations) + len(cfg.Ms) * len(cfg.mip_calibrations),
    )


@dataclass(frozen=True)
class Speed:
    """Seconds per unit of each :class:`Work` component, plus a fixed cost per request
    (starting a job process, evaluating the runs)."""

    split_row: float
    traj_row: float
    run: float
    fixed: float


#: The unit of work: rates fitted by least squares (relative error) to 27 timed runs of nine
#: configurations (n from 20 000 to 500 000, B up to 512, T up to 60, 40 η, d = 1, 3, 6,
#: both clipping rules), each divided by the :func:`measure_speed` probe's time around it
#: and expressed for a probe time of :data:`PROBE_SECONDS`; ``fixed`` is the cost of one
#: ``appkit.jobs.run`` request beyond its computation (mostly the job process importing
#: Streamlit to run appkit's job wrapper), measured by benchmarks/covariance.py. Fixed: the
#: ceiling is counted in it.
NOMINAL_SPEED = Speed(split_row=1.9e-8, traj_row=9.4e-9, run=0.038, fixed=1.4)
#: The probe's time (seconds) at which :data:`NOMINAL_SPEED` holds.
PROBE_SECONDS = 0.06

#: The most work one request may ask for, in nominal seconds (:attr:`Work.units`): three
#: times the Paper preset. Multiplied by the server's ``MIP_EXPLORER_WORK_LIMIT``.
WORK_CEILING = 65.0


def estimate_seconds(config_or_work: ExperimentConfig | Work, speed: Speed) -> float:
    """The cost model: the seconds a request takes at ``speed`` (:func:`measure_speed`).

    Examples
    --------
    >>> w = work(PRESETS["Paper"])
    >>> round(w.units)  # nominal seconds
    23
    >>> w.units < WORK_CEILING / 2.5
    True
    """
    w = config_or_work if isinstance(config_or_work, Work) else work(config_or_work)
    return (
        speed.fixed
        + w.split_rows * speed.split_row
        + w.traj_rows * speed.traj_row
        + w.runs * speed.run
    )


def _probe_plan(rows: int) -> Plan:
    """A small plan at d = 3 built without scikit-learn or dp_accounting (fixed Σ and z)."""
    etas = (0.05, 0.15, 0.25, 0.35, 0.45)
    cfg = ExperimentConfig(n=2 * rows, B=16, R=1, Ms=(4,), etas=etas, T=4)
    sigma = np.array([[2.0, 0.3, -0.2], [0.3, 1.0, 0.1], [-0.2, 0.1, 0.5]])
    dp = tuple(
        DpNoise(cal, etas, tuple(2.0 / e for e in etas), etas) for cal in cfg.dp_calibrations
    )
    mip = tuple(
        MipNoise(cal, 4, etas, tuple(1.0 / e for e in etas), (None,) * len(etas))
        for cal in cfg.mip_calibrations
    )
    return Plan(cfg, sigma, dp, mip)


def measure_speed(rows: int = 40_000, repeats: int = 7) -> Speed:
    """This machine's speed here and now: :data:`NOMINAL_SPEED` scaled by a timed probe.

    The probe is a small run of the experiment itself (d = 3, ``rows`` training rows, 16
    half-splits, 5 η, 4 steps; :data:`PROBE_SECONDS` on the machine the nominal rates
    describe), timed ``repeats`` times; the lower quartile of the timings (robust to a
    moment when another process takes the CPU) over :data:`PROBE_SECONDS` scales every
    rate: the machine's speed and its current load. (Timing each component separately on a
    small probe misjudges the memory-bound parts of a large run; the rates' proportions are
    fitted on full-size runs instead.) ``rows`` other than 40 000 change the probe and
    therefore the scale; keep the default except in tests.

    Parameters
    ----------
    rows : int
        Training rows of the probe, 2 000 to 1 000 000.
    repeats : int
        Timings, 1 to 9.

    Returns
    -------
    Speed

    Examples
    --------
    >>> speed = measure_speed(rows=4_000, repeats=1)  # every rate scaled by one factor
    >>> factor = speed.fixed / NOMINAL_SPEED.fixed
    >>> math.isclose(speed.traj_row, factor * NOMINAL_SPEED.traj_row)
    True
    """
    m = check_int("rows", rows, 2_000, 1_000_000)
    repeats = check_int("repeats", repeats, 1, 9)
    plan = _probe_plan(m)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        simulate(plan)
        times.append(time.perf_counter() - t0)
    return speed_factor(float(np.percentile(times, 25)) / PROBE_SECONDS)


def speed_factor(factor: float) -> Speed:
    """:data:`NOMINAL_SPEED` with every rate multiplied by ``factor`` (> 0; 2 = twice as slow)."""
    f = float(check_range("factor", factor, 0.0, math.inf, lo_open=True, hi_open=True))
    return Speed(**{k: f * v for k, v in asdict(NOMINAL_SPEED).items()})
