r"""The canary audit: play the membership game against a mechanism with a planted record.

The dataset is a handful of ordinary records plus a planted outlier, the canary (the
target). Each trial draws a uniformly random training half (Definition 1 of Izzo, Yoon,
Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582),
releases a noisy statistic of it, and an attacker -- the optimal likelihood-ratio attacker
of Proposition 2 over all halves, or a simple distance rule -- says "in", "out" or abstains
(Game 1 of Malek Esmaeili et al., *Antipodes of Label Differential Privacy*, NeurIPS 2021,
arXiv:2106.03408). :func:`run_canary_audit` returns the counts, the lower bounds they prove
(:mod:`mipcore.audit_stats`) and the exact optimal accuracy for the same mechanism.

The ROC points it returns obey the corrected Theorem 8, ``TPR ≤ FPR + 2η``
(:func:`mipcore.bounds.tpr_bound_mip`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import as_enum, as_generator, check_int, check_range
from .audit_stats import (
    epsilon_lower_bound,
    eta_estimate,
    eta_lower_bound,
    guess_counts,
    roc_points,
)
from .covariance_gd import gd_closed_form, make_sigma, outer_products, sample_data
from .noise_laws import NoiseKind, NoiseLaw, log_mixture
from .optimal_attack import optimal_attack, optimal_attack_accuracy_mc

__all__ = [
    "AUDIT_ATTACKERS",
    "AUDIT_MC_SAMPLES",
    "AUDIT_MECHANISMS",
    "AUDIT_NOISES",
    "COVARIANCE_AUDIT_LR",
    "COVARIANCE_AUDIT_T",
    "AuditAttacker",
    "AuditMechanism",
    "AuditNoise",
    "CanaryAudit",
    "CanaryMechanism",
    "ExactMethod",
    "canary_mechanism",
    "covariance_audit_records",
    "run_canary_audit",
]


class AuditNoise(StrEnum):
    """The noise an audited mechanism adds."""

    NONE = "none"
    LAPLACE = "laplace"
    GAUSSIAN = "gaussian"
    MIP = "mip"


class AuditMechanism(StrEnum):
    """The statistic an audited mechanism releases."""

    MEAN = "mean"
    COUNT = "count"
    COVARIANCE = "covariance"


class AuditAttacker(StrEnum):
    """Who plays the attacker."""

    LR = "lr"  # the optimal likelihood-ratio attacker
    DISTANCE = "distance"  # a simple, not optimal, distance rule


AUDIT_NOISES: tuple[str, ...] = tuple(k.value for k in AuditNoise)
AUDIT_MECHANISMS: tuple[str, ...] = tuple(k.value for k in AuditMechanism)
AUDIT_ATTACKERS: tuple[str, ...] = tuple(k.value for k in AuditAttacker)
#: How the exact optimal accuracy was obtained (see :class:`CanaryAudit`).
ExactMethod = Literal["exact", "certified", "monte carlo"]
#: GD settings of the covariance release (the defaults of the Figure 2 experiment,
#: :class:`mipcore.experiments.covariance.ExperimentConfig`): ``A_T = (1 − (1 − 2 lr)^T) S``.
COVARIANCE_AUDIT_T = 20
COVARIANCE_AUDIT_LR = 0.25
#: Monte Carlo samples for the exact-accuracy estimate of a d > 1 noisy release.
AUDIT_MC_SAMPLES = 200_000


@dataclass(frozen=True)
class CanaryAudit:
    """Outcome of :func:`run_canary_audit`.

    Counts: ``trials``, ``guesses`` (non-abstaining), ``correct``, ``abstentions``.
    ``cgr = correct/guesses``; ``eta_hat`` (abstentions as coin flips) and its lower bound
    ``eta_lower``; ``epsilon_lower`` (Theorem B.1 of Malek Esmaeili et al., one-sided at
    ``confidence``).
    ``exact_accuracy``/``exact_eta``: Proposition 2 for the same mechanism (the likelihood-ratio
    attacker is that optimal one, so ``1/2 + eta_hat`` estimates ``exact_accuracy``);
    ``exact_interval`` an interval that contains the true optimal accuracy and ``exact_method``
    how it was obtained: ``"exact"`` (closed form / exact counts; interval = ± the rounding
    bound), ``"certified"`` (Gaussian root isolation, ± the certified error bound) or
    ``"monte carlo"`` (d > 1 outputs with noise: an estimate with a 99 % interval, see
    :func:`optimal_attack_accuracy_mc`).
    All three are None when ``exact=False`` was passed.
    ``fpr``/``tpr``: the ROC of the attacker's score over the trials.
    ``noise``: the noise law used (for ``"mip"``, Theorem 9 noise with the exact σ's).
    ``sensitivity``/``sensitivity_l2``: the mechanism's replace-one L1 / L2 sensitivity on
    this dataset (equal for scalar outputs): ``max_{i,j} ||v_i − v_j|| / k`` where ``v_i`` is
    record i's contribution (the value for the mean, ``(1 − (1−2lr)^T) vec(x xᵀ)`` for the
    covariance); 1 for the count.
    ``sigma``: the exact standard deviation of the output over all halves -- a float for the
    scalar mechanisms, a tuple (one per released coordinate) for the covariance.
    ``output_dim``: the number of released coordinates (1, or d² for the covariance).
    ``mechanism``/``attacker``/``threshold``: as passed, as enums (``threshold`` is None unless
    count).
    """

    trials: int
    guesses: int
    correct: int
    abstentions: int
    cgr: float | None  # None when the attacker abstained on every trial
    eta_hat: float
    eta_lower: float
    epsilon_lower: float
    exact_accuracy: float | None
    exact_eta: float | None
    confidence: float
    noise: NoiseLaw
    sensitivity: float
    sigma: float | tuple[float, ...]
    data: NDArray[np.float64] = field(repr=False)
    scores: NDArray[np.float64] = field(repr=False)
    labels: NDArray[np.bool_] = field(repr=False)
    fpr: NDArray[np.float64] = field(repr=False)
    tpr: NDArray[np.float64] = field(repr=False)
    mechanism: AuditMechanism = AuditMechanism.MEAN
    attacker: AuditAttacker = AuditAttacker.LR
    threshold: float | None = None
    sensitivity_l2: float = 0.0
    output_dim: int = 1
    exact_interval: tuple[float, float] | None = None
    exact_method: ExactMethod | None = None


@dataclass(frozen=True)
class CanaryMechanism:
    """The audited mechanism, enumerated over all ``C(n, n/2)`` training halves.

    What :func:`canary_mechanism` builds and :func:`run_canary_audit` plays against.

    ``records``: the dataset, shape (n,) for mean/count or (n, dim) for the covariance; the
    canary (the target) is the last record, index ``n − 1``. ``halves``: (H, k) indices of
    every training half, in ``itertools.combinations(range(n), k)`` order;
    ``membership[h, i]``: record i is in half h; ``member = membership[:, n − 1]``.
    ``outputs``: the base statistic ``f`` of each half, (H,) for scalar releases or
    (H, output_dim). ``noise``: the calibrated :class:`~mipcore.noise_laws.NoiseLaw`
    (``Laplace(Δ₁/ε)``, ``N(0, (Δ₂/ε)²)``, Theorem 9 with the exact σ, the given scale, or
    none). ``sensitivity``/``sensitivity_l2``: replace-one L1 / L2 sensitivity on this
    dataset; ``sigma``: the exact standard deviation of the output over all halves (a float,
    or a tuple per coordinate when ``output_dim > 1``).
    """

    n: int
    mechanism: AuditMechanism
    noise: NoiseLaw
    records: NDArray[np.float64] = field(repr=False)
    halves: NDArray[np.int64] = field(repr=False)
    membership: NDArray[np.bool_] = field(repr=False)
    outputs: NDArray[np.float64] = field(repr=False)
    sensitivity: float
    sensitivity_l2: float
    sigma: float | tuple[float, ...]
    threshold: float | None
    output_dim: int

    @property
    def k(self) -> int:
        """The training-half size ``n/2``."""
        return self.n // 2

    @property
    def target(self) -> int:
        """Index of the canary among the records: ``n − 1``."""
        return self.n - 1

    @property
    def member(self) -> NDArray[np.bool_]:
        """``member[h]``: the canary is in half h."""
        return self.membership[:, self.n - 1]

    @property
    def sigmas(self) -> tuple[float, ...]:
        """:attr:`sigma` as a tuple in every case: one entry per released coordinate."""
        return self.sigma if isinstance(self.sigma, tuple) else (self.sigma,)


def canary_mechanism(
    *,
    n: int = 8,
    canary: ArrayLike | None = None,
    noise: AuditNoise | str = AuditNoise.LAPLACE,
    noise_scale: float = 1.0,
    epsilon: float | None = None,
    eta: float | None = None,
    data: ArrayLike | None = None,
    mechanism: AuditMechanism | str = AuditMechanism.MEAN,
    threshold: float = 0.5,
    dim: int = 2,
) -> CanaryMechanism:
    r"""The mechanism of a canary audit: records, outputs over all halves and the noise law.

    Everything :func:`run_canary_audit` plays against, without playing: the dataset (``data``
    plus the canary as the last record), the statistic ``f`` on every one of the
    ``C(n, n/2)`` training halves, who is in each half, the replace-one sensitivities, the
    exact standard deviation σ of ``f`` over the halves, and the noise law calibrated from
    them. The parameters are those of :func:`run_canary_audit` (see there for the
    mechanisms and the calibration).

    Parameters
    ----------
    n : int
        Even, ``4 <= n <= 16``.
    canary : float, array_like or None
        The planted record (finite): a value for mean/count (default 10), a scalar or
        ``dim`` values for the covariance (default 3; see :func:`covariance_audit_records`).
    noise : AuditNoise or str
        ``"none"``, ``"laplace"``, ``"gaussian"`` or ``"mip"``.
    noise_scale : float
        ``0 < noise_scale < inf`` for Laplace/Gaussian when ``epsilon`` is None (ignored
        otherwise).
    epsilon : float or None
        ``0 < epsilon < inf``: calibrate Laplace to ``Δ₁/ε`` or Gaussian to ``Δ₂/ε`` (ignored
        for none/mip).
    eta : float or None
        ``0 < eta <= 1/2``, required for ``"mip"``.
    data : array_like or None
        The n − 1 ordinary records: values (mean/count; default ``linspace(0, 1, n − 1)``) or
        an (n − 1, dim) array (covariance).
    mechanism : AuditMechanism or str
        ``"mean"``, ``"count"`` or ``"covariance"``.
    threshold : float
        Finite; only for ``"count"``.
    dim : int
        ``1 <= dim <= 4``; only for ``"covariance"``.

    Returns
    -------
    CanaryMechanism

    Raises
    ------
    ValueError
        If a parameter is out of range, ``noise="mip"`` comes without ``eta``, or ``epsilon``
        calibration meets a sensitivity of 0.

    Examples
    --------
    The mean of a random half of ``linspace(0, 1, 7)`` plus the canary 10: replacing the
    canary by 0 moves the mean by ``10/4``, so ε = 1 needs ``Laplace(2.5)``.

    >>> m = canary_mechanism(n=8, noise="laplace", epsilon=1.0)
    >>> m.outputs.shape, int(m.member.sum()), m.sensitivity, m.noise.scale
    ((70,), 35, 2.5, 2.5)
    >>> m.sigmas == (m.sigma,)
    True
    >>> canary_mechanism(n=8, mechanism="covariance", dim=2, noise="none").output_dim
    4
    """
    n = check_int("n", n, 4, 16, even=True)
    noise_kind = as_enum("noise", noise, AuditNoise)
    mech = as_enum("mechanism", mechanism, AuditMechanism)
    thr: float | None = None
    if mech is AuditMechanism.COUNT:
        thr = float(
            check_range("threshold", threshold, -math.inf, math.inf, lo_open=True, hi_open=True)
        )
    k = n // 2
    if mech is AuditMechanism.COVARIANCE:
        dim = check_int("dim", dim, 1, 4)
        records = covariance_audit_records(n, dim, 3.0 if canary is None else canary, data)
        # each record's share of A_T = (1 − (1 − 2 lr)^T) S, the base algorithm of Figure 2
        contrib = gd_closed_form(outer_products(records), COVARIANCE_AUDIT_T, COVARIANCE_AUDIT_LR)
    else:
        c_value = float(
            check_range(
                "canary",
                10.0 if canary is None else canary,
                -math.inf,
                math.inf,
                lo_open=True,
                hi_open=True,
            )
        )
        if data is None:
            base = np.linspace(0.0, 1.0, n - 1)
        else:
            base = check_range(
                "data", data, -math.inf, math.inf, lo_open=True, hi_open=True
            ).ravel()
            if base.size != n - 1:
                raise ValueError(
                    f"data has {base.size} values but n={n} needs n - 1 = {n - 1} ordinary records"
                )
        records = np.append(base, c_value)
        contrib = (records > thr).astype(float) if thr is not None else records
    halves = np.array(list(itertools.combinations(range(n), k)), dtype=np.int64)
    if mech is AuditMechanism.COUNT:
        outputs = contrib[halves].sum(axis=1)
        sens1 = sens2 = 1.0
    else:
        outputs = contrib[halves].sum(axis=1) / k
        sens1, sens2 = _pair_sensitivity(contrib, k)
    if outputs.ndim == 2 and outputs.shape[1] == 1:  # the covariance of 1-D records: a scalar
        outputs = outputs[:, 0]
    out_dim = 1 if outputs.ndim == 1 else int(outputs.shape[1])
    membership = np.zeros((halves.shape[0], n), dtype=bool)
    membership[np.arange(halves.shape[0])[:, None], halves] = True
    sig = np.std(outputs, axis=0)
    sigma: float | tuple[float, ...] = float(sig) if out_dim == 1 else tuple(float(s) for s in sig)
    law: NoiseLaw
    if noise_kind is AuditNoise.NONE:
        law = NoiseLaw.none()
    elif noise_kind is AuditNoise.MIP:
        if eta is None:
            raise ValueError("noise='mip' needs eta (0 < eta <= 1/2)")
        law = NoiseLaw.mip(eta, np.where(np.atleast_1d(sig) > 0, sig, 1e-300))
    else:
        if epsilon is not None:
            eps = float(check_range("epsilon", epsilon, 0.0, math.inf, lo_open=True, hi_open=True))
            scale = (sens1 if noise_kind is AuditNoise.LAPLACE else sens2) / eps
            if scale == 0.0:
                raise ValueError(
                    f"the {mech.value} has sensitivity 0 on this dataset: nothing to calibrate "
                    "the noise to (use noise_scale)"
                )
        else:
            scale = float(
                check_range("noise_scale", noise_scale, 0.0, math.inf, lo_open=True, hi_open=True)
            )
        law = NoiseLaw(NoiseKind(noise_kind.value), scale)
    return CanaryMechanism(
        n=n,
        mechanism=mech,
        noise=law,
        records=records,
        halves=halves,
        membership=membership,
        outputs=outputs,
        sensitivity=sens1,
        sensitivity_l2=sens2,
        sigma=sigma,
        threshold=thr,
        output_dim=out_dim,
    )


def _lr_scores(
    y: NDArray[np.float64],
    outputs: NDArray[np.float64],
    member: NDArray[np.bool_],
    law: NoiseLaw,
    pick: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Posterior log-odds of membership over all halves (the Proposition 2 attacker).

    Scalar outputs: ``y`` (T,), ``outputs`` (H,). d-dimensional: ``y`` (T, d), ``outputs``
    (H, d); without noise these need ``pick`` (the half of each trial), since then
    ``y = outputs[pick]`` exactly and the log-odds is a function of the released atom.
    """
    trials = y.shape[0]
    if outputs.ndim == 2:
        if law.is_none:
            vals, inv = np.unique(outputs, axis=0, return_inverse=True)
            inv = inv.reshape(-1)
            c_in = np.bincount(inv[member], minlength=vals.shape[0]).astype(float)
            c_out = np.bincount(inv[~member], minlength=vals.shape[0]).astype(float)
            with np.errstate(divide="ignore"):
                atom_score = np.log(c_in) - np.log(c_out)
            return atom_score[inv[pick]]
        vin, cin = np.unique(outputs[member], axis=0, return_counts=True)
        vout, cout = np.unique(outputs[~member], axis=0, return_counts=True)
        return log_mixture(y, vin, cin.astype(float), law) - log_mixture(
            y, vout, cout.astype(float), law
        )
    vin, cin = np.unique(outputs[member], return_counts=True)
    vout, cout = np.unique(outputs[~member], return_counts=True)
    if law.is_none:
        n_in = np.zeros(trials)
        n_out = np.zeros(trials)
        pos_in = np.searchsorted(vin, y).clip(0, vin.size - 1)
        hit_in = vin[pos_in] == y
        n_in[hit_in] = cin[pos_in[hit_in]]
        pos_out = np.searchsorted(vout, y).clip(0, vout.size - 1)
        hit_out = vout[pos_out] == y
        n_out[hit_out] = cout[pos_out[hit_out]]
        with np.errstate(divide="ignore"):
            scores = np.log(n_in) - np.log(n_out)  # ±inf where only one side can produce y
    else:
        scores = log_mixture(y, vin, cin.astype(float), law) - log_mixture(
            y, vout, cout.astype(float), law
        )
    return scores


def covariance_audit_records(
    n: int = 8, dim: int = 2, canary: ArrayLike = 3.0, data: ArrayLike | None = None
) -> NDArray[np.float64]:
    r"""The dataset of the covariance audit: n − 1 ordinary records in R^dim plus the canary.

    Ordinary records: ``data`` (shape (n − 1, dim)) or, by default, n − 1 draws from
    ``N(0, Σ)`` with ``Σ = make_spd_matrix(dim, random_state=0)`` (seed 0: the same dataset
    every time, like the mean's ``linspace``). The canary is the last row: ``canary`` itself
    if it is a vector of length dim, or, for a scalar c, ``c u`` with u the unit direction
    in which the ordinary records vary least (the eigenvector of the smallest eigenvalue of
    their second-moment matrix, first non-zero entry made positive) -- an outlier whose
    outer product stands out in the released matrix. ``n`` even in ``[4, 16]``,
    ``1 <= dim <= 4``.

    Examples
    --------
    >>> covariance_audit_records(8, 2).shape
    (8, 2)
    """
    n = check_int("n", n, 4, 16, even=True)
    dim = check_int("dim", dim, 1, 4)
    if data is None:
        base = sample_data(make_sigma(dim, 0), n - 1, rng=0)
    else:
        base = check_range("data", data, -math.inf, math.inf, lo_open=True, hi_open=True)
        if base.ndim == 1 and dim == 1:
            base = base[:, None]
        if base.shape != (n - 1, dim):
            raise ValueError(
                f"data has shape {base.shape} but n={n}, dim={dim} needs "
                f"(n - 1, dim) = ({n - 1}, {dim}) ordinary records"
            )
    c = check_range("canary", canary, -math.inf, math.inf, lo_open=True, hi_open=True)
    if c.ndim == 0:
        _, vecs = np.linalg.eigh(base.T @ base / base.shape[0])
        u = vecs[:, 0]
        u = u * np.sign(u[np.flatnonzero(u)[0]])
        c = float(c) * u
    elif c.shape != (dim,):
        raise ValueError(
            f"canary has shape {c.shape}; the covariance audit needs a scalar or {dim} values"
        )
    return np.vstack([base, c[None, :]])


def _pair_sensitivity(v: NDArray[np.float64], k: int) -> tuple[float, float]:
    """``max_{i,j} ||v_i − v_j||_1 / k`` and the L2 version: replacing record i by record j."""
    v2 = v[:, None] if v.ndim == 1 else v
    diff = v2[:, None, :] - v2[None, :, :]
    return (
        float(np.max(np.sum(np.abs(diff), axis=-1)) / k),
        float(np.max(np.sqrt(np.sum(diff * diff, axis=-1))) / k),
    )


def run_canary_audit(
    trials: int = 10_000,
    *,
    n: int = 8,
    canary: ArrayLike | None = None,
    noise: AuditNoise | str = AuditNoise.LAPLACE,
    noise_scale: float = 1.0,
    epsilon: float | None = None,
    eta: float | None = None,
    margin: float = 0.0,
    confidence: float = 0.95,
    data: ArrayLike | None = None,
    mechanism: AuditMechanism | str = AuditMechanism.MEAN,
    threshold: float = 0.5,
    attacker: AuditAttacker | str = AuditAttacker.LR,
    dim: int = 2,
    exact: bool = True,
    exact_samples: int = AUDIT_MC_SAMPLES,
    rng: np.random.Generator | int,
) -> CanaryAudit:
    r"""Audit a mechanism with a planted canary in the MIP game.

    The dataset is ``data`` (n − 1 ordinary records) plus a planted outlier, the canary (the
    target x*). Each trial draws a uniformly random half ``D_train`` (k = n/2, Definition 1
    of Izzo et al.) and releases ``f(D_train) + Z`` with

    * ``mechanism="mean"``: ``f`` = the mean of the half; records default to
      ``linspace(0, 1, n−1)`` plus the canary (default 10);
    * ``mechanism="count"``: ``f`` = the number of records of the half whose value exceeds
      ``threshold`` (replace-one sensitivity 1); same default records;
    * ``mechanism="covariance"``: the release of the Figure 2 experiment on a tiny
      dataset -- records in R^dim (:func:`covariance_audit_records`; canary default 3, along
      the ordinary records' least-variance direction), ``f`` = the d² entries of gradient
      descent's estimate ``A_T = (1 − (1 − 2 lr)^T) S`` of the second-moment matrix
      ``S = (1/k) Σ_{x∈D_train} x xᵀ`` (T = 20, lr = 0.25), noise added to all d² entries as
      the Figure 2 experiment does.

    Noise: ``"none"``; ``"laplace"`` / ``"gaussian"`` with scale ``noise_scale`` per
    coordinate, or -- when ``epsilon`` is given -- calibrated to this dataset's replace-one
    sensitivity: ``Laplace(Δ₁/ε)`` (ε-DP) or ``N(0, (Δ₂/ε)²)`` (ε-Gaussian-DP), with Δ₁/Δ₂ the
    L1/L2 sensitivities (equal for scalar outputs); ``"mip"``: Theorem 9 / Corollary 14 noise
    for ``eta`` with the exact per-coordinate standard deviations σ of ``f`` over all C(n, k)
    halves (M = 2; in 1-D that is ``Laplace(c σ)``, in d > 1 the density ``∝ exp(−||x||_{σ,2}/c)``).

    The mechanism (records, outputs over all halves, sensitivities, σ, the calibrated noise
    law) is :func:`canary_mechanism`'s. The attacker then says whether the canary was in:

    * ``attacker="lr"``: the likelihood-ratio attacker (it knows the dataset and the noise
      law, i.e. the optimal attacker of Proposition 2); its score is the posterior log-odds ℓ
      over all halves.
    * ``attacker="distance"``: a simple, *not optimal* attacker whose score is
      ``||y − m_out|| − ||y − m_in||`` (Euclidean), with ``m_in`` / ``m_out`` the mean output
      over the halves that contain / do not contain the canary. Being one particular
      attacker, its accuracy is still bounded by the exact Proposition 2 accuracy.

    Either way it says "in" if ``score > margin``, "out" if ``score < −margin`` and abstains
    otherwise. ``exact_accuracy``/``exact_eta`` are always those of the optimal attacker:
    exact for scalar outputs and for the noiseless covariance, a Monte Carlo estimate with a
    99 % interval (``exact_samples`` draws, its own fixed seed, so it does not
    depend on ``rng``) for the noisy covariance.

    Parameters
    ----------
    trials : ``100 <= trials <= 10^7``.
    n : even, ``4 <= n <= 16`` (the attacker enumerates the halves).
    canary : the planted record (finite): a value for mean/count (default 10), a scalar or
        ``dim`` values for the covariance (default 3; see :func:`covariance_audit_records`).
    noise : :class:`AuditNoise` or its value: ``"none"``, ``"laplace"``, ``"gaussian"`` or
        ``"mip"``.
    noise_scale : ``> 0`` for Laplace/Gaussian when ``epsilon`` is None (ignored otherwise).
    epsilon : ``> 0``: calibrate Laplace/Gaussian to Δ/ε as above (ignored for none/mip).
    eta : ``0 < eta <= 1/2``, only for ``"mip"``.
    margin : ``>= 0``, abstention margin on the score (0: abstain only on exact ties).
    confidence : ``0 < confidence < 1`` for the lower bounds.
    data : optional ordinary records: n − 1 values (mean/count) or an (n − 1, dim) array.
    mechanism : :class:`AuditMechanism` or its value: ``"mean"`` (default), ``"count"`` or
        ``"covariance"``.
    threshold : finite; only for ``"count"`` (a record counts when its value is ``> threshold``).
    attacker : :class:`AuditAttacker` or its value: ``"lr"`` (default, optimal) or
        ``"distance"`` (not optimal).
    dim : ``1 <= dim <= 4``, the records' dimension; only for ``"covariance"``.
    exact : compute the Proposition 2 accuracy (set False to skip it, e.g. for the later
        chunks of one long game; the ``exact_*`` fields are then None).
    exact_samples : ``1000 <= exact_samples <= 10^8``, Monte Carlo draws for d > 1 with noise.
    rng : Generator or int seed.

    Returns
    -------
    CanaryAudit

    Raises
    ------
    ValueError
        If a parameter is out of range or not one of its variants (see
        :func:`canary_mechanism`).

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Definition 1 and Proposition 2. Malek Esmaeili, Mironov, Prasad,
    Shilov, Tramèr. *Antipodes of Label Differential Privacy: PATE and ALIBI*. NeurIPS 2021,
    arXiv:2106.03408, Appendix B (Game 1, Theorem B.1).

    Examples
    --------
    ε = 1 Laplace noise on the mean with a canary: the optimal attacker's exact accuracy is
    below Theorem 4's ``1/(1 + e^{−1}) = 0.731``, and 2000 trials estimate it.

    >>> a = run_canary_audit(2000, n=8, noise="laplace", epsilon=1.0, rng=0)
    >>> round(a.exact_accuracy, 4), a.exact_method
    (0.6887, 'exact')
    >>> a.trials == a.guesses  # margin 0: no abstentions
    True
    >>> bool(abs(0.5 + a.eta_hat - a.exact_accuracy) < 0.04)  # 4 standard errors
    True
    """
    trials = check_int("trials", trials, 100, 10**7)
    att = as_enum("attacker", attacker, AuditAttacker)
    m = float(check_range("margin", margin, 0.0, math.inf, hi_open=True))
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    exact_samples = check_int("exact_samples", exact_samples, 1000, 10**8)
    mech = canary_mechanism(
        n=n,
        canary=canary,
        noise=noise,
        noise_scale=noise_scale,
        epsilon=epsilon,
        eta=eta,
        data=data,
        mechanism=mechanism,
        threshold=threshold,
        dim=dim,
    )
    gen = as_generator(rng)
    outputs, member, law, out_dim = mech.outputs, mech.member, mech.noise, mech.output_dim
    exact_acc: float | None = None
    exact_eta: float | None = None
    exact_iv: tuple[float, float] | None = None
    method: ExactMethod | None = None
    if exact:
        if out_dim == 1 or law.is_none:
            ex = optimal_attack(outputs[member], outputs[~member], law)
            exact_acc, exact_eta = ex.accuracy, ex.eta
            exact_iv = (
                max(0.5, ex.accuracy - ex.error_bound),
                min(1.0, ex.accuracy + ex.error_bound),
            )
            method = "certified" if law.kind is NoiseKind.GAUSSIAN else "exact"
        else:
            exact_acc, lo, hi = optimal_attack_accuracy_mc(
                outputs[member],
                outputs[~member],
                law,
                samples=exact_samples,
                rng=np.random.default_rng([20240501, mech.n, out_dim]),
                confidence=0.99,
            )
            exact_eta, exact_iv, method = exact_acc - 0.5, (lo, hi), "monte carlo"
    pick = gen.integers(outputs.shape[0], size=trials)
    labels = member[pick]
    y = outputs[pick] + (
        law.sample(trials, gen) if out_dim == 1 else law.sample_nd(trials, out_dim, gen)
    )
    if att is AuditAttacker.DISTANCE:
        # not optimal: ||y − m_out|| − ||y − m_in||, m_in / m_out = mean output over halves with / without x*
        m_in, m_out = np.mean(outputs[member], axis=0), np.mean(outputs[~member], axis=0)
        if out_dim == 1:
            scores = np.abs(y - float(m_out)) - np.abs(y - float(m_in))
        else:
            scores = np.linalg.norm(y - m_out, axis=1) - np.linalg.norm(y - m_in, axis=1)
    else:
        scores = _lr_scores(y, outputs, member, law, pick)
    guesses, correct = guess_counts(scores, labels, m)
    fpr, tpr = (
        roc_points(scores, labels) if 0 < labels.sum() < trials else (np.array([0.0, 1.0]),) * 2
    )
    cgr: float | None = None
    eps_lb = eta_lb = 0.0
    if guesses > 0:
        eps_lb = epsilon_lower_bound(correct, guesses, conf)
        eta_lb = eta_lower_bound(correct, guesses, trials, conf)
        cgr = correct / guesses
    return CanaryAudit(
        trials=trials,
        guesses=guesses,
        correct=correct,
        abstentions=trials - guesses,
        cgr=cgr,
        eta_hat=eta_estimate(correct, guesses, trials),
        eta_lower=eta_lb,
        epsilon_lower=eps_lb,
        exact_accuracy=exact_acc,
        exact_eta=exact_eta,
        confidence=conf,
        noise=law,
        sensitivity=mech.sensitivity,
        sigma=mech.sigma,
        data=mech.records,
        scores=scores,
        labels=labels,
        fpr=fpr,
        tpr=tpr,
        mechanism=mech.mechanism,
        attacker=att,
        threshold=mech.threshold,
        sensitivity_l2=mech.sensitivity_l2,
        output_dim=out_dim,
        exact_interval=exact_iv,
        exact_method=method,
    )
