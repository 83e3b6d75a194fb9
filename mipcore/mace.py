r"""MACE: estimating the Bayes-optimal membership advantage from samples.

Liu, Xu, Mukherjee and Lavista Ferres, *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*, arXiv:2009.05683: Experiment 1 and Definition 1 (advantage ``Adv_p = 2 P(correct) − 1`` with membership
prior p), Lemma 2 (Bayes-optimal adversary), Theorem 1 (tanh bound under ε-DP),
Lemmas 5–7 (confidence intervals for the individual privacy loss), Algorithm 1
(sample splitting).

For a scalar statistic with member density P and non-member density Q, and prior p,

.. math:: f_p(z) = \frac{pP - (1-p)Q}{pP + (1-p)Q} = \tanh\frac{\log(P/Q) + \lambda}{2},
          \qquad \lambda = \log\frac{p}{1-p},
          \qquad \mathrm{Adv}_p = \mathbb E_z |f_p(z)| = \int |pP - (1-p)Q| ,

the expectation over ``z ~ pP + (1−p)Q``. At p = 1/2, ``Adv = 2η`` with η the MIP level of
Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582 (Proposition 2), and Theorem 1's bound ``tanh(ε/2)`` is twice their
Theorem 4's η.

**Departures from the printed text (each is a slip or an unstated assumption there):**

1. *Lemma 6 quantile.* The printed Lemma 6 writes ``z_{1−δ/4}`` and then calls it "the
   ``1 − δ/2`` quantile". Each density needs a two-sided interval of level ``1 − δ/2``
   (so that the union bound over P and Q gives ``1 − δ`` in Lemma 7), i.e. the
   ``1 − δ/4`` quantile. We use ``z_{1−δ/4} = Φ⁻¹(1 − δ/4)`` (2.2414 at δ = 0.05).
2. *Lemma 5 levels.* Lemma 5 asks for "δ/2 Clopper–Pearson" bounds for ``p_j`` and never
   defines ``q̂_{j,upper}``/``q̂_{j,lower}``. We use a two-sided Clopper–Pearson interval of
   level ``1 − δ/2`` for each of ``p_j`` and ``q_j``: the same union bound as Lemma 7.
   ``simultaneous=True`` divides δ by the number of bins (Bonferroni), so that *all* bins'
   intervals hold together -- the per-bin statement is only pointwise.
3. *Lemma 6 is asymptotic and about the smoothed density.* Chen (2017)'s interval covers
   ``E p̂_N(x) = (K_h * p)(x)``, not p(x) (the bias is ignored) and only as N → ∞. We
   implement it as printed, clip the lower end at 0, and say so.
4. *Algorithm 1, step 5* prints ``(1/N) Σ f̂_p(z_i^{(2)})`` without the absolute value used
   everywhere else; we report ``(1/N) Σ |f̂_p(z_i^{(2)})|`` (``algorithm1``). Neither that nor the
   in-sample plug-in mean ``|f̂|`` (``plugin``) is a lower bound: ``|f̂|`` is biased upwards
   (noise in f̂ never cancels in ``|·|``; with P = Q the plug-in is still positive). A *valid*
   lower bound needs the held-out evaluation: fit ``f̂`` on one split and score the fixed
   classifier ``sgn(f̂)`` on the other (``heldout``); its advantage is at most ``Adv_p``, and
   the Clopper–Pearson bounds on its TPR and FPR give ``heldout_lower`` with probability
   at least ``1 − δ``.
5. *Theorem 1* needs pure ε-DP; the paper applies it to DP-cGAN trained with
   ``(ε, 10^-5)``-DP (Figures 5, 6). :func:`dp_advantage_bound` gives the sharp bound on the
   *average* advantage for ``(ε, δ)``-DP and any prior.
6. *Prior p.* With separate member and non-member samples (sizes need not match p) the
   prior enters only through the weights; every estimate here is for the stated p.
   Empty bins and points where both densities vanish get the prior-only value
   ``f = 2p − 1`` (the Bayes answer without information); ties ``f̂ = 0`` are classified as
   members when ``p >= 1/2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ._validate import check_int, check_range, scalar_or_array
from .audit_stats import clopper_pearson

__all__ = [
    "GAUSSIAN_KERNEL_MU",
    "MACEEstimate",
    "Units",
    "dp_advantage_bound",
    "dp_privacy_loss_bound",
    "heldout_advantage",
    "histogram_estimate",
    "histogram_loss_interval",
    "kde_estimate",
    "kde_loss_interval",
    "lemma6_quantile",
    "privacy_loss",
    "units",
]

GAUSSIAN_KERNEL_MU = 1.0 / (2.0 * math.sqrt(math.pi))  # ∫ K² for the standard normal kernel

Arr = NDArray[np.float64]
#: A float (scalar inputs) or an array.
FloatOrArray = float | NDArray[np.float64]


class Units(NamedTuple):
    """One advantage in the app's three units: ``advantage = 2·eta = 2·accuracy − 1``."""

    advantage: float
    eta: float
    accuracy: float


def units(advantage: float, *, clip: bool = False) -> Units:
    r"""An advantage ``Adv_p = 2·accuracy − 1`` (Definition 1 of MACE) with its η and accuracy.

    MACE measures leakage by the best attacker's advantage; the rest of the app by MIP's η
    (Izzo, Yoon, Arık, Zou, *Provable Membership Inference Privacy*, TMLR 2024,
    arXiv:2211.06582): an attacker's accuracy is at most ``1/2 + η``. So
    ``advantage = 2η = 2·accuracy − 1``: η = advantage/2, accuracy = (1 + advantage)/2.
    With a prior p ≠ 1/2 the accuracy relation still holds, but a blind guess of the
    majority already reaches ``max(p, 1 − p)``; MIP's η is defined at p = 1/2.

    Parameters
    ----------
    advantage : ``0 <= advantage <= 1``.
    clip : first clip ``advantage`` to [0, 1]: an estimate or a lower bound below 0 (a
        fitted attacker worse than a coin flip) says no more than 0.

    Raises
    ------
    ValueError
        Naming ``advantage`` when it is outside [0, 1] (or NaN).

    Examples
    --------
    >>> u = units(math.tanh(0.5))  # MACE's tanh bound at ε = 1
    >>> round(u.advantage, 4), round(u.eta, 4), round(u.accuracy, 3)
    (0.4621, 0.2311, 0.731)
    >>> units(-0.05, clip=True).advantage
    0.0
    """
    if clip:
        advantage = min(max(float(advantage), 0.0), 1.0)
    a = float(check_range("advantage", advantage, 0.0, 1.0))
    return Units(a, a / 2.0, (1.0 + a) / 2.0)


# --------------------------------------------------------------------------- DP bounds


@overload
def dp_privacy_loss_bound(epsilon: float, prior: float = ...) -> float: ...
@overload
def dp_privacy_loss_bound(epsilon: ArrayLike, prior: ArrayLike = ...) -> FloatOrArray: ...
def dp_privacy_loss_bound(epsilon: ArrayLike, prior: ArrayLike = 0.5) -> FloatOrArray:
    r"""Theorem 1 of MACE: ``|f_p(z)| <= max{|tanh((ε+λ)/2)|, |tanh((λ−ε)/2)|}`` under ε-DP.

    ``λ = log(p/(1−p))``. Under ε-DP, ``log(P/Q) ∈ [−ε, ε]`` and ``f_p = tanh((log(P/Q) + λ)/2)``
    is increasing in ``log(P/Q)``, so ``|f_p|`` is largest at an end. At p = 1/2 it is
    ``tanh(ε/2)`` (0.462 at ε = 1, as the paper says). This bounds every individual loss,
    hence also ``Adv_p`` (Lemma 4); :func:`dp_advantage_bound` is the sharp bound on ``Adv_p``.

    Parameters
    ----------
    epsilon : float or array_like
        ``0 <= epsilon <= inf``.
    prior : float or array_like
        ``0 < p < 1``. Arrays broadcast.

    Returns
    -------
    float or ndarray
        The bound, in ``[0, 1]``.

    References
    ----------
    Liu, Xu, Mukherjee, Lavista Ferres. *MACE: A Flexible Framework for Membership Privacy
    Estimation in Generative Models*. arXiv:2009.05683, Theorem 1.

    Examples
    --------
    >>> dp_privacy_loss_bound(1.0)  # tanh(1/2), "0.462" in the paper
    0.462117157260
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    p = check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True)
    lam = np.log(p) - np.log1p(-p)
    bound = np.maximum(np.abs(np.tanh(0.5 * (eps + lam))), np.abs(np.tanh(0.5 * (lam - eps))))
    return scalar_or_array(bound, epsilon, prior)


@overload
def dp_advantage_bound(epsilon: float, prior: float = ..., delta: float = ...) -> float: ...
@overload
def dp_advantage_bound(
    epsilon: ArrayLike, prior: ArrayLike = ..., delta: ArrayLike = ...
) -> FloatOrArray: ...
def dp_advantage_bound(
    epsilon: ArrayLike, prior: ArrayLike = 0.5, delta: ArrayLike = 0.0
) -> FloatOrArray:
    r"""Largest optimal advantage ``Adv_p`` of an (ε, δ)-DP mechanism (sharp; derived here).

    Every (ε, δ)-DP pair of output laws is a post-processing of the canonical pair on four
    outputs (Kairouz, Oh and Viswanath, ICML 2015, arXiv:1311.0776, Theorem 2.1, as used in
    the proof of Theorem 4 of Izzo et al.): ``P = (δ, 0, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε))`` and Q its mirror image, and
    ``Adv_p = ∫|pP − (1−p)Q|`` can only shrink under post-processing. On that pair

    .. math:: \mathrm{Adv}_p \le \delta + (1-\delta)\,
              \frac{|p e^\varepsilon - (1-p)| + |p - (1-p)e^\varepsilon|}{1 + e^\varepsilon}.

    At p = 1/2 this is ``δ + (1−δ) tanh(ε/2) = 2 η(ε, δ)`` of Theorem 4 of Izzo et al.
    (:func:`mipcore.bounds.eta_from_epsilon`); at δ = 0 it is a mixture of the two tanh
    values of :func:`dp_privacy_loss_bound`, hence at most their maximum (equal at p = 1/2).

    Parameters
    ----------
    epsilon : float or array_like
        ``0 <= epsilon <= inf``.
    prior : float or array_like
        ``0 < p < 1``.
    delta : float or array_like
        ``0 <= delta <= 1``.

    Returns
    -------
    float or ndarray
        The largest ``Adv_p``, in ``[0, 1]``.

    Examples
    --------
    >>> dp_advantage_bound(1.0)  # tanh(1/2) = 2 η(1, 0)
    0.462117157260
    """
    eps = check_range("epsilon", epsilon, 0.0, math.inf)
    p = check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True)
    dlt = check_range("delta", delta, 0.0, 1.0)
    hi, lo = special.expit(eps), special.expit(-eps)  # e^ε/(1+e^ε), 1/(1+e^ε)
    adv = dlt + (1.0 - dlt) * (np.abs(p * hi - (1.0 - p) * lo) + np.abs(p * lo - (1.0 - p) * hi))
    return scalar_or_array(np.minimum(adv, 1.0), epsilon, prior, delta)


@overload
def privacy_loss(p_member: float, p_nonmember: float, prior: float = ...) -> float: ...
@overload
def privacy_loss(
    p_member: ArrayLike, p_nonmember: ArrayLike, prior: ArrayLike = ...
) -> FloatOrArray: ...
def privacy_loss(
    p_member: ArrayLike, p_nonmember: ArrayLike, prior: ArrayLike = 0.5
) -> FloatOrArray:
    r"""Individual privacy loss ``f_p = (pP − (1−p)Q)/(pP + (1−p)Q)`` (Lemma 2, eq. (5) of MACE).

    ``p_member``/``p_nonmember``: likelihoods (densities or probabilities, finite, ``>= 0``) of
    the observed statistic; where both are 0 the prior-only value ``2p − 1`` is returned.
    ``0 < prior < 1``.

    Examples
    --------
    >>> privacy_loss(0.3, 0.1)  # (0.3 − 0.1)/(0.3 + 0.1)
    0.5
    """
    a = check_range("p_member", p_member, 0.0, math.inf, hi_open=True)
    b = check_range("p_nonmember", p_nonmember, 0.0, math.inf, hi_open=True)
    p = check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True)
    num = p * a - (1.0 - p) * b
    den = p * a + (1.0 - p) * b
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(den > 0, num / np.where(den > 0, den, 1.0), 2.0 * p - 1.0)
    return scalar_or_array(f, p_member, p_nonmember, prior)


def _loss_interval(p_lo: Arr, p_hi: Arr, q_lo: Arr, q_hi: Arr, prior: float) -> tuple[Arr, Arr]:
    """Lemma 5/7: f is increasing in P and decreasing in Q, so the ends are (P_lo, Q_hi), (P_hi, Q_lo)."""

    def ratio(a: Arr, b: Arr, worst: float) -> Arr:
        num = prior * a - (1.0 - prior) * b
        den = prior * a + (1.0 - prior) * b
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), worst)

    return ratio(p_lo, q_hi, -1.0), ratio(p_hi, q_lo, 1.0)


@overload
def lemma6_quantile(delta: float) -> float: ...
@overload
def lemma6_quantile(delta: ArrayLike) -> FloatOrArray: ...
def lemma6_quantile(delta: ArrayLike) -> FloatOrArray:
    """``z_{1−δ/4} = Φ⁻¹(1 − δ/4)``: the normal quantile Lemma 6 needs (module docstring, item 1).

    ``0 < delta < 1``.

    Examples
    --------
    >>> lemma6_quantile(0.05)
    2.24140272760
    """
    d = check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return scalar_or_array(special.ndtri(1.0 - d / 4.0), delta)


def histogram_loss_interval(
    count_member: ArrayLike,
    n_member: ArrayLike,
    count_nonmember: ArrayLike,
    n_nonmember: ArrayLike,
    prior: float = 0.5,
    delta: ArrayLike = 0.05,
) -> tuple[FloatOrArray, FloatOrArray]:
    r"""Lemma 5 of MACE: a ``1 − δ`` confidence interval for ``f_p`` on one bin (discrete query).

    ``p_j`` and ``q_j`` each get a two-sided Clopper–Pearson interval of level ``1 − δ/2``
    (module docstring, item 2); f is increasing in ``p_j`` and decreasing in ``q_j``, so

    .. math:: \Bigl[\frac{\hat p_{lo} p - \hat q_{hi}(1-p)}{\hat p_{lo} p + \hat q_{hi}(1-p)},
              \frac{\hat p_{hi} p - \hat q_{lo}(1-p)}{\hat p_{hi} p + \hat q_{lo}(1-p)}\Bigr].

    Parameters
    ----------
    count_member : members in the bin, ``0 <= . <= n_member``; n_member : ``>= 1``.
    count_nonmember, n_nonmember : the same for non-members. prior : ``0 < p < 1``.
    delta : ``0 < delta < 1``. Arrays broadcast (one entry per bin).

    Returns
    -------
    (lower, upper) : tuple of float or ndarray

    Examples
    --------
    >>> histogram_loss_interval(30, 100, 10, 100)  # f̂ = (0.3 − 0.1)/(0.3 + 0.1) = 0.5
    (0.0353522328021, 0.808443515340)
    """
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    d = check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    p_lo, p_hi = clopper_pearson(count_member, n_member, 1.0 - d / 2.0)
    q_lo, q_hi = clopper_pearson(count_nonmember, n_nonmember, 1.0 - d / 2.0)
    lo, hi = _loss_interval(
        np.asarray(p_lo), np.asarray(p_hi), np.asarray(q_lo), np.asarray(q_hi), p
    )
    shape_of = (count_member, n_member, count_nonmember, n_nonmember, delta)
    return scalar_or_array(lo, *shape_of), scalar_or_array(hi, *shape_of)


def kde_loss_interval(
    p_hat: ArrayLike,
    q_hat: ArrayLike,
    n_member: ArrayLike,
    n_nonmember: ArrayLike,
    bandwidth: ArrayLike,
    prior: float = 0.5,
    delta: float = 0.05,
    mu_k: float = GAUSSIAN_KERNEL_MU,
) -> tuple[FloatOrArray, FloatOrArray]:
    r"""Lemmas 6–7 of MACE: interval for ``f_p`` from two KDE values at the same point (d = 1).

    ``p̂ ± z_{1−δ/4} sqrt(μ_K p̂ / (N h))`` for each density (lower end clipped at 0), then
    Lemma 7's monotone combination. Asymptotic and for the smoothed densities (module
    docstring, item 3).

    Parameters
    ----------
    p_hat, q_hat : KDE values ``>= 0``. n_member, n_nonmember : sample sizes ``>= 1``.
    bandwidth : ``h > 0``. prior : ``0 < p < 1``. delta : ``0 < delta < 1``.
    mu_k : ``∫K²``, default the Gaussian kernel's ``1/(2√π)``.

    Returns
    -------
    (lower, upper) : tuple of float or ndarray
    """
    a = check_range("p_hat", p_hat, 0.0, math.inf, hi_open=True)
    b = check_range("q_hat", q_hat, 0.0, math.inf, hi_open=True)
    n1 = check_range("n_member", n_member, 1.0, math.inf, hi_open=True)
    n0 = check_range("n_nonmember", n_nonmember, 1.0, math.inf, hi_open=True)
    h = check_range("bandwidth", bandwidth, 0.0, math.inf, lo_open=True, hi_open=True)
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    z = lemma6_quantile(delta)
    ha = z * np.sqrt(mu_k * a / (n1 * h))
    hb = z * np.sqrt(mu_k * b / (n0 * h))
    lo, hi = _loss_interval(np.maximum(a - ha, 0.0), a + ha, np.maximum(b - hb, 0.0), b + hb, p)
    return scalar_or_array(lo, p_hat, q_hat), scalar_or_array(hi, p_hat, q_hat)


def heldout_advantage(
    pred_member: ArrayLike, pred_nonmember: ArrayLike, prior: float = 0.5, delta: float = 0.05
) -> tuple[float, float]:
    r"""Advantage of a *fixed* classifier on held-out data, with a lower confidence bound.

    ``pred_member``: the classifier's "member" verdicts (booleans) on held-out members;
    ``pred_nonmember``: on held-out non-members. With ``TPR``/``FPR`` their means,

    .. math:: \mathrm{Adv}_p = 2\,[p\,\mathrm{TPR} + (1-p)(1-\mathrm{FPR})] - 1 .

    The lower bound uses one-sided Clopper–Pearson bounds ``TPR_lo`` and ``FPR_hi``, each at
    level ``1 − δ/2``; it holds with probability ``>= 1 − δ`` provided the classifier did not
    see the held-out data. Since no classifier beats the Bayes-optimal one, it is also a lower
    bound on the optimal ``Adv_p``.

    Returns
    -------
    (estimate, lower) : tuple of float

    Examples
    --------
    >>> est, lower = heldout_advantage([True] * 70 + [False] * 30, [True] * 30 + [False] * 70)
    >>> round(est, 12), round(lower, 3)  # 2 (0.5 · 0.7 + 0.5 · 0.7) − 1
    (0.4, 0.2)
    """
    pm = np.asarray(pred_member, dtype=bool).ravel()
    pn = np.asarray(pred_nonmember, dtype=bool).ravel()
    if pm.size == 0 or pn.size == 0:
        raise ValueError("pred_member and pred_nonmember must both be non-empty")
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    d = float(check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    tp, fp = int(pm.sum()), int(pn.sum())
    tpr, fpr = tp / pm.size, fp / pn.size
    tpr_lo, _ = clopper_pearson(tp, pm.size, 1.0 - d / 2.0, alternative="greater")
    _, fpr_hi = clopper_pearson(fp, pn.size, 1.0 - d / 2.0, alternative="less")

    def adv(t: float, f: float) -> float:
        return 2.0 * (p * t + (1.0 - p) * (1.0 - f)) - 1.0

    return adv(tpr, fpr), adv(tpr_lo, fpr_hi)


# --------------------------------------------------------------------------- estimators


@dataclass(frozen=True)
class MACEEstimate:
    """What :func:`histogram_estimate` and :func:`kde_estimate` return.

    Advantage estimates (all for the stated ``prior``):

    * ``plugin`` -- MACE's plug-in ``mean |f̂|`` with f̂ fitted on *all* samples and averaged
      over the same samples (in-sample). Biased upwards; not a bound.
    * ``algorithm1`` -- Algorithm 1 as printed (with ``|·|``): f̂ fitted on the first split,
      ``mean |f̂|`` over the second. Still not a bound.
    * ``heldout`` -- the advantage of the fixed classifier ``sgn(f̂)`` (fitted on the first
      split) measured on the second split; unbiased for that classifier, whose advantage is
      at most the optimal one.
    * ``heldout_lower`` -- its Clopper–Pearson lower bound: ``Adv_p >= heldout_lower`` with
      probability at least ``1 − delta``.
    * ``mean_interval`` -- the average, over the second split, of the per-sample intervals
      for ``|f_p|`` from Lemma 5 (histogram) or Lemmas 6–7 (KDE): the paper's "average
      confidence interval" (Figure 2). Not a confidence interval for ``Adv_p``.

    Per-point data, fitted on the first split: ``points`` (bin centres, or a grid for the
    KDE), ``f_hat``, ``f_lower``, ``f_upper``; ``edges`` (histogram) or ``bandwidth`` (KDE).
    """

    method: Literal["histogram", "kde"]
    prior: float
    delta: float
    plugin: float
    algorithm1: float
    heldout: float
    heldout_lower: float
    mean_interval: tuple[float, float]
    n_fit: tuple[int, int]
    n_eval: tuple[int, int]
    points: Arr = field(repr=False)
    f_hat: Arr = field(repr=False)
    f_lower: Arr = field(repr=False)
    f_upper: Arr = field(repr=False)
    edges: Arr | None = field(default=None, repr=False)
    bandwidth: float | None = None


def _samples(name: str, value: ArrayLike) -> Arr:
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 1 or arr.size < 4:
        raise ValueError(
            f"{name} must be a 1-d array of at least 4 scalar statistics, got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains a non-finite value")
    return arr


def _split(arr: Arr, fit_fraction: float) -> tuple[Arr, Arr]:
    """First ``ceil(fit_fraction N)`` samples fit, the rest evaluate (samples are exchangeable)."""
    k = min(arr.size - 1, max(1, math.ceil(fit_fraction * arr.size)))
    return arr[:k], arr[k:]


def _common(
    members: ArrayLike, nonmembers: ArrayLike, prior: float, delta: float, fit_fraction: float
) -> tuple[Arr, Arr, float, float, float]:
    m = _samples("members", members)
    nm = _samples("nonmembers", nonmembers)
    p = float(check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    d = float(check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    ff = float(check_range("fit_fraction", fit_fraction, 0.0, 1.0, lo_open=True, hi_open=True))
    return m, nm, p, d, ff


def _abs_interval(lo: Arr, hi: Arr) -> tuple[Arr, Arr]:
    """Interval for |f| from an interval [lo, hi] for f."""
    straddle = (lo <= 0) & (hi >= 0)
    return np.where(straddle, 0.0, np.minimum(np.abs(lo), np.abs(hi))), np.maximum(
        np.abs(lo), np.abs(hi)
    )


def _predict(f: Arr, prior: float) -> NDArray[np.bool_]:
    return (f > 0) | ((f == 0) & (prior >= 0.5))


def _mix_mean(v_member: Arr, v_nonmember: Arr, prior: float) -> float:
    return float(prior * np.mean(v_member) + (1.0 - prior) * np.mean(v_nonmember))


def histogram_estimate(
    members: ArrayLike,
    nonmembers: ArrayLike,
    *,
    bins: int | ArrayLike = 100,
    value_range: tuple[float, float] | None = None,
    prior: float = 0.5,
    delta: float = 0.05,
    simultaneous: bool = False,
    fit_fraction: float = 0.5,
) -> MACEEstimate:
    r"""Histogram (discrete-query) estimate of ``Adv_p`` with Lemma 5 intervals (MACE).

    The statistic is binned into ``bins`` equal bins over ``value_range`` (default: the range
    of the fitting split), plus two overflow bins ``(−inf, lo)`` and ``[hi, inf)``; the bin
    frequencies estimate ``p_j``/``q_j`` and ``f̂_j = (p p̂_j − (1−p) q̂_j)/(p p̂_j + (1−p) q̂_j)``.
    See :class:`MACEEstimate` for the outputs and the module docstring for the departures
    from the paper.

    Parameters
    ----------
    members, nonmembers : 1-d arrays (>= 4 each) of the statistic for members / non-members,
        i.i.d. (their order is used for the split: the first ``fit_fraction`` of each fits).
    bins : int, ``1 <= bins <= 10^5``, or an increasing array of edges.
    value_range : optional ``(lo, hi)`` with ``lo < hi``.
    prior : ``0 < p < 1``. delta : ``0 < delta < 1`` (confidence ``1 − δ``).
    simultaneous : Bonferroni over all bins (all intervals hold together).
    fit_fraction : ``0 < . < 1``.

    Returns
    -------
    MACEEstimate

    References
    ----------
    Liu, Xu, Mukherjee, Lavista Ferres. *MACE: A Flexible Framework for Membership Privacy
    Estimation in Generative Models*. arXiv:2009.05683, Lemma 5 and Algorithm 1.

    Examples
    --------
    Members ~ N(1, 1), non-members ~ N(0, 1): the optimal advantage is
    ``2Φ(1/2) − 1 = 0.383``; the held-out lower bound stays below it.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> est = histogram_estimate(rng.normal(1, 1, 400), rng.normal(0, 1, 400), bins=10)
    >>> est.n_fit, est.n_eval
    ((200, 200), (200, 200))
    >>> bool(est.heldout_lower < 0.383)
    True
    """
    m, nm, p, d, ff = _common(members, nonmembers, prior, delta, fit_fraction)
    m_fit, m_eval = _split(m, ff)
    n_fit, n_eval = _split(nm, ff)
    if np.ndim(bins) == 0:
        nb = check_int("bins", bins, 1, 100_000)
        if value_range is None:
            lo = float(min(m_fit.min(), n_fit.min()))
            hi = float(max(m_fit.max(), n_fit.max()))
        else:
            lo, hi = (float(v) for v in value_range)
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError(f"value_range={value_range!r} must be finite with lo < hi")
        if hi <= lo:
            hi = lo + 1.0
        edges = np.linspace(lo, hi, nb + 1)
    else:
        edges = np.asarray(bins, dtype=float)
        if (
            edges.ndim != 1
            or edges.size < 2
            or not np.all(np.isfinite(edges))
            or np.any(np.diff(edges) <= 0)
        ):
            raise ValueError("bins given as edges must be a finite, strictly increasing 1-d array")
    n_bins = edges.size + 1  # with the two overflow bins

    def idx(v: Arr) -> NDArray[np.intp]:
        # 0: below the first edge, 1..B: the bins (the last one closed), B + 1: above
        j = np.searchsorted(edges, v, side="right")
        return np.where(v == edges[-1], edges.size - 1, j)

    def fit(mf: Arr, nf: Arr) -> tuple[NDArray[np.intp], NDArray[np.intp], Arr]:
        cm = np.bincount(idx(mf), minlength=n_bins)
        cn = np.bincount(idx(nf), minlength=n_bins)
        f = privacy_loss(cm / mf.size, cn / nf.size, p)
        return cm, cn, np.asarray(f)

    # in-sample plug-in on all data
    cm_all, cn_all, _ = fit(m, nm)
    plugin = float(np.sum(np.abs(p * cm_all / m.size - (1 - p) * cn_all / nm.size)))
    cm, cn, f_hat = fit(m_fit, n_fit)
    level = d / n_bins if simultaneous else d
    f_lo, f_hi = histogram_loss_interval(cm, m_fit.size, cn, n_fit.size, p, level)
    f_lo, f_hi = np.asarray(f_lo), np.asarray(f_hi)
    jm, jn = idx(m_eval), idx(n_eval)
    alg1 = _mix_mean(np.abs(f_hat[jm]), np.abs(f_hat[jn]), p)
    held, held_lo = heldout_advantage(_predict(f_hat[jm], p), _predict(f_hat[jn], p), p, d)
    alo, ahi = _abs_interval(f_lo, f_hi)
    mean_iv = (_mix_mean(alo[jm], alo[jn], p), _mix_mean(ahi[jm], ahi[jn], p))
    width = edges[1] - edges[0]
    centres = np.r_[edges[0] - 0.5 * width, 0.5 * (edges[:-1] + edges[1:]), edges[-1] + 0.5 * width]
    return MACEEstimate(
        "histogram",
        p,
        d,
        plugin,
        alg1,
        held,
        held_lo,
        mean_iv,
        (m_fit.size, n_fit.size),
        (m_eval.size, n_eval.size),
        centres,
        f_hat,
        f_lo,
        f_hi,
        edges=edges,
    )


Bandwidth = float | Literal["silverman", "scott"]


def _bandwidth(bw: Bandwidth, pooled: Arr) -> float:
    if isinstance(bw, str):
        if bw not in ("silverman", "scott"):
            raise ValueError(f"bandwidth={bw!r} must be a positive number, 'silverman' or 'scott'")
        sd = float(np.std(pooled, ddof=1))
        iqr = float(np.subtract(*np.percentile(pooled, [75, 25]))) / 1.349
        spread = min(sd, iqr) if iqr > 0 else sd
        if spread <= 0:
            raise ValueError("the samples are constant: choose a bandwidth explicitly")
        factor = 0.9 if bw == "silverman" else 1.06
        return factor * spread * pooled.size ** (-0.2)
    return float(check_range("bandwidth", bw, 0.0, math.inf, lo_open=True, hi_open=True))


_KDE_REACH = 9.0  # kernel terms beyond 9 h are below e^{-40.5} = 2.6e-18 of the peak
_KDE_BLOCK = 4 * 10**6  # kernel evaluations per block


def _log_kde(points: Arr, sample: Arr, h: float) -> Arr:
    """``log p̂(x)`` of the Gaussian KDE (eq. (8) of MACE) to a relative error below 1e-12.

    Points are processed in sorted chunks; each chunk sums ``exp(−z²/2)`` over the samples
    within 9 h of it. The skipped samples contribute at most ``N_skipped e^{−40.5}``; a point
    whose windowed sum is not at least 1e12 times that, or below 1e-200 (far tails, where the
    exponentials underflow), is recomputed with a full log-sum-exp, which never underflows.
    """
    srt = np.sort(sample)
    n = srt.size
    const = -math.log(n * h * math.sqrt(2.0 * math.pi))
    order = np.argsort(points, kind="stable")
    pts = points[order]
    out = np.empty(points.size)
    reach = _KDE_REACH * h
    tiny = math.exp(-0.5 * _KDE_REACH**2)
    i = 0
    while i < pts.size:
        j = min(pts.size, i + 512)
        a = int(np.searchsorted(srt, pts[i] - reach, "left"))
        b = int(np.searchsorted(srt, pts[j - 1] + reach, "right"))
        if j - i > 1 and (j - i) * (b - a) > _KDE_BLOCK:
            j = i + max(1, _KDE_BLOCK // max(1, b - a))
            b = int(np.searchsorted(srt, pts[j - 1] + reach, "right"))
        z = (pts[i:j, None] - srt[None, a:b]) / h
        s = np.exp(-0.5 * z * z).sum(axis=1)
        bad = (s < 1e12 * (n - (b - a)) * tiny) | (s < 1e-200)  # skipped mass or underflow
        with np.errstate(divide="ignore"):
            res = np.log(s)
        if np.any(bad):
            zz = (pts[i:j][bad, None] - srt[None, :]) / h
            res[bad] = special.logsumexp(-0.5 * zz * zz, axis=1)
        out[order[i:j]] = res + const
        i = j
    return out


def kde_estimate(
    members: ArrayLike,
    nonmembers: ArrayLike,
    *,
    bandwidth: Bandwidth = "silverman",
    prior: float = 0.5,
    delta: float = 0.05,
    fit_fraction: float = 0.5,
    grid: int = 200,
) -> MACEEstimate:
    r"""Gaussian-KDE (continuous-query) estimate of ``Adv_p`` with Lemma 6–7 intervals (MACE).

    KDEs of the member and non-member statistic (one bandwidth h for both), then
    ``f̂ = tanh((log p̂ − log q̂ + λ)/2)``, computed in log space so that far tails never give
    0/0. See :class:`MACEEstimate` for the outputs and the module docstring for the
    departures from the paper (in particular ``z_{1−δ/4}``).

    Parameters
    ----------
    members, nonmembers : 1-d arrays (>= 4 each), i.i.d.; the first ``fit_fraction`` fits.
    bandwidth : ``h > 0``, or ``"silverman"`` (default, ``0.9 min(sd, IQR/1.349) N^(-1/5)``
        of the pooled fitting split) or ``"scott"`` (1.06 instead of 0.9).
    prior, delta, fit_fraction : as in :func:`histogram_estimate`.
    grid : ``2 <= grid <= 10^5`` points for the reported ``f_hat``/intervals curve.

    Notes
    -----
    Cost ``O(N_eval N_fit)`` kernel evaluations (direct summation).
    """
    m, nm, p, d, ff = _common(members, nonmembers, prior, delta, fit_fraction)
    grid = check_int("grid", grid, 2, 100_000)
    m_fit, m_eval = _split(m, ff)
    n_fit, n_eval = _split(nm, ff)
    h = _bandwidth(bandwidth, np.r_[m_fit, n_fit])
    lam = math.log(p) - math.log1p(-p)

    def f_of(points: Arr, ms: Arr, ns: Arr, hh: float) -> tuple[Arr, Arr, Arr]:
        lp, lq = _log_kde(points, ms, hh), _log_kde(points, ns, hh)
        return np.tanh(0.5 * (lp - lq + lam)), np.exp(lp), np.exp(lq)

    h_all = _bandwidth(bandwidth, np.r_[m, nm])
    fa_m, _, _ = f_of(m, m, nm, h_all)
    fa_n, _, _ = f_of(nm, m, nm, h_all)
    plugin = _mix_mean(np.abs(fa_m), np.abs(fa_n), p)
    f_m, pm_, qm_ = f_of(m_eval, m_fit, n_fit, h)
    f_n, pn_, qn_ = f_of(n_eval, m_fit, n_fit, h)
    alg1 = _mix_mean(np.abs(f_m), np.abs(f_n), p)
    held, held_lo = heldout_advantage(_predict(f_m, p), _predict(f_n, p), p, d)
    lo_m, hi_m = kde_loss_interval(pm_, qm_, m_fit.size, n_fit.size, h, p, d)
    lo_n, hi_n = kde_loss_interval(pn_, qn_, m_fit.size, n_fit.size, h, p, d)
    alo_m, ahi_m = _abs_interval(np.asarray(lo_m), np.asarray(hi_m))
    alo_n, ahi_n = _abs_interval(np.asarray(lo_n), np.asarray(hi_n))
    mean_iv = (_mix_mean(alo_m, alo_n, p), _mix_mean(ahi_m, ahi_n, p))
    lo_x = float(min(m_fit.min(), n_fit.min())) - 3 * h
    hi_x = float(max(m_fit.max(), n_fit.max())) + 3 * h
    pts = np.linspace(lo_x, hi_x, grid)
    f_g, pg, qg = f_of(pts, m_fit, n_fit, h)
    lo_g, hi_g = kde_loss_interval(pg, qg, m_fit.size, n_fit.size, h, p, d)
    return MACEEstimate(
        "kde",
        p,
        d,
        plugin,
        alg1,
        held,
        held_lo,
        mean_iv,
        (m_fit.size, n_fit.size),
        (m_eval.size, n_eval.size),
        pts,
        f_g,
        np.asarray(lo_g),
        np.asarray(hi_g),
        bandwidth=h,
    )
