"""DP-SGD in attacker terms, through ``dp_accounting``'s privacy-loss-distribution accountant.

A run is Poisson sampling at rate q, Gaussian noise with noise multiplier σ (noise standard
deviation / clipping norm, the Opacus/TF-Privacy convention: see :mod:`mipcore.guarantees`,
whose docstring the docstrings below call the "module docstring") and T steps; the
replace-one relation is computed directly. :func:`eta_from_dpsgd` and
:func:`dpsgd_attacker_bound` convert a run; :func:`dpsgd_noise_for_eta` and
:func:`dpsgd_noise_for_tpr` find the smallest noise multiplier for a target η or TPR
(:func:`dpsgd_noise_and_eta` with the η it then achieves);
:data:`CIFAR10` and :data:`E2E` are two settings from practice (:class:`DpSgdPreset`).
``dp_accounting`` is imported inside the functions that use it, so importing this module
stays light.

References
----------
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang. *Deep Learning with
  Differential Privacy*. CCS 2016, arXiv:1607.00133.
- Koskela, Jälkö, Honkela. *Computing Tight Differential Privacy Guarantees Using FFT*.
  AISTATS 2020, arXiv:1906.03049; Doroshenko, Ghazi, Kamath, Kumar, Manurangsi. *Connect
  the Dots: Tighter Discrete Approximations of Privacy Loss Distributions*. PETS 2022,
  arXiv:2207.04380 (the privacy-loss-distribution accountant of ``dp_accounting``).
- Zhu, Dong, Wang. *Optimal Accounting of Differential Privacy via Characteristic
  Function*. AISTATS 2022, arXiv:2106.08567.
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383.
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Theorem 4 and Lemma 12).
- Li, Tramèr, Liang, Hashimoto. *Large Language Models Can Be Strong Differentially Private
  Learners*. ICLR 2022, arXiv:2110.05679 (the E2E preset).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize
from scipy.stats import norm

from .._validate import check_int, check_range
from ..bounds import eta_from_epsilon, tpr_bound_dp
from ._common import (
    _MAX_STEPS,
    _ROC_FPR,
    FPR_LEVELS,
    REFERENCE_DELTA,
    AttackerBound,
    DpSgd,
    Kind,
    Relation,
    Route,
    RouteResult,
    _check_dpsgd,
    _finish,
    sampling_only_tv,
)
from .gdp import eta_from_gdp, tpr_bound_gdp
from .renyi import eta_from_rdp

#: PLD discretisation: ``value_discretization_interval = PLD_RESOLUTION × (per-step loss scale)``.
PLD_RESOLUTION = 0.05
_PLD_COARSE_RESOLUTION = 0.4  # bracketing phase of the inverse searches only
_PLD_MAX_INTERVAL = 3e-2
#: Below this noise multiplier the DP-SGD routes use the sampling-only bound (see eta_from_dpsgd).
PLD_MIN_NOISE = 0.1
#: Relative tolerance of the noise-multiplier searches (the answer is rounded up).
NOISE_TOLERANCE = 1e-3
_PLD_PROFILE_POINTS = 128


@dataclass(frozen=True)
class DpSgdPreset:
    """A DP-SGD setting from practice: ``noise_multiplier`` (noise std / clipping norm),
    ``batch`` of ``dataset`` examples (Poisson rate ``batch/dataset``) for ``epochs`` epochs
    (``steps = ceil(epochs · dataset / batch)``)."""

    key: str
    noise_multiplier: float
    batch: int
    dataset: int
    epochs: int

    @property
    def sampling_rate(self) -> float:
        return self.batch / self.dataset

    @property
    def steps(self) -> int:
        return math.ceil(self.epochs * self.dataset / self.batch)


#: CIFAR-10-like DP-SGD: σ = 1.1, batch 256 of 50 000, 50 epochs (9766 steps): a typical
#: setting (Abadi et al. 2016 train CIFAR-10 with DP-SGD), not one paper's.
CIFAR10 = DpSgdPreset("cifar10", 1.1, 256, 50_000, 50)
#: LLM fine-tune-like: the E2E setting of Li, Tramèr, Liang, Hashimoto, *Large Language
#: Models Can Be Strong Differentially Private Learners* (ICLR 2022, arXiv:2110.05679):
#: 42 061 examples, batch 1024, 10 epochs (411 steps), σ calibrated as their script does --
#: by ``dp_accounting``'s add/remove RDP accountant to ε = 8 at δ = 8·10⁻⁶
#: (≈ 42 061^−1.1): σ = 0.7184 gives ε = 7.998.
E2E = DpSgdPreset("e2e", 0.7184, 1024, 42_061, 10)


def _pld_interval(sigma: float, q: float, resolution: float = PLD_RESOLUTION) -> float:
    """PLD grid step: ``resolution`` × the per-step privacy-loss scale 2q·√(e^{1/σ²} − 1).

    The scale is the central-limit μ of one replace-one step (the subsampled-Gaussian CLT of
    Dong, Roth & Su, Section 5, doubled for a replacement); at q = 1 and large σ it is 2/σ,
    the exact per-step μ.
    """
    scale = 2.0 * q * math.sqrt(math.expm1(min(1.0 / (sigma * sigma), 700.0)))
    return float(min(max(resolution * scale, 1e-12), _PLD_MAX_INTERVAL))


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
    tv = sampling_only_tv(q, steps)
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
    tv = sampling_only_tv(q, steps)
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
    tv = sampling_only_tv(q, t)
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
        e < 0.5 * sampling_only_tv(q, t),
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
        target < min(1.0, f + sampling_only_tv(q, t)),
        value,
        target,
        _noise_guess(mu, q, t),
        "tpr",
    )


def dpsgd_noise_and_eta(
    eta: float | None,
    sampling_rate: float,
    steps: int,
    *,
    tpr: float | None = None,
    fpr: float | None = None,
) -> tuple[float, float]:
    """The smallest noise multiplier for a target and the η of the run with it, in one call.

    :func:`dpsgd_noise_for_eta` (a target ``eta``) or :func:`dpsgd_noise_for_tpr` (``eta=None``
    and a target ``tpr`` at ``fpr``), then :func:`eta_from_dpsgd` of the answer -- the
    sampling-only η, (1 − (1 − q)^T)/2, when no noise is needed (σ = 0). Both take seconds for
    many steps: a page runs them as one job. Parameters and Raises as those functions.

    Examples
    --------
    >>> sigma, eta = dpsgd_noise_and_eta(0.1, 1.0, 100)  # exact: 20/(2Φ⁻¹(0.6)) = 39.46
    >>> round(sigma, 1), eta <= 0.1
    (39.5, True)
    """
    q, n = float(sampling_rate), int(steps)
    if eta is not None:
        sigma = dpsgd_noise_for_eta(eta, q, n)
    elif tpr is None or fpr is None:
        raise ValueError(f"tpr={tpr!r}, fpr={fpr!r}: without eta, give a target tpr at an fpr")
    else:
        sigma = dpsgd_noise_for_tpr(tpr, fpr, q, n)
    if sigma == 0.0:
        return sigma, 0.5 * sampling_only_tv(q, n)
    return sigma, float(eta_from_dpsgd(sigma, q, n))


def _noise_guess(mu_total: float, q: float, steps: int) -> float:
    """σ with 2q√T·√(e^{1/σ²} − 1) = μ (central-limit approximation, replace-one)."""
    per_step = max(mu_total, 1e-12) / (2.0 * q * math.sqrt(steps))
    return 1.0 / math.sqrt(math.log1p(per_step * per_step))
