r"""How private is an (ε, δ) guarantee against a membership attacker? Every number of the page.

The page "How private is an (ε, δ) guarantee against a membership attacker?" shows, for one
``(ε, δ)``:

* Theorem 4's η (DP ⇒ MIP, tight), the best attacker's accuracy ``1/2 + η`` and the
  membership advantage ``2η = TPR − FPR``; how much of η comes from δ alone (δ/2);
* the small-ε rule of thumb ``η ≈ δ/2 + (1−δ)ε/4``, its error and a quality class;
* the ROC picture at a reference false-positive rate: the largest TPR under (ε, δ)-DP
  (Kairouz, Oh and Viswanath's region, :func:`mipcore.bounds.tpr_bound_dp`) and under η-MIP
  (Theorem 8 corrected, :func:`mipcore.bounds.tpr_bound_mip`; the printed variant beside it),
  their ratio, and the kink FPR* where the two boundaries touch
  (:func:`mipcore.bounds.dp_region_kink`);
* the inverse: the largest ε that certifies a target η at this δ, or why none does, and the
  small-ε rule of thumb for it;
* MACE's advantage bound at ε = 1, tanh(1/2), which is 2η at prior 1/2.

:func:`eta_epsilon_lesson` returns all of it as one frozen :class:`EtaEpsilonLesson`; the page
writes the sentences. Pure Python, no Streamlit, no caching.

References
----------
Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582
(Theorem 4; Theorem 8, printed with η where 2η is correct). Kairouz, Oh, Viswanath. *The
Composition Theorem for Differential Privacy*. ICML 2015, arXiv:1311.0776 (Theorem 2.1).
Liu, Xu, Mukherjee, Lavista Ferres. *MACE: A Flexible Framework for Membership Privacy
Estimation in Generative Models*. arXiv:2009.05683 (Theorem 1: advantage ≤ tanh(ε/2) at
prior 1/2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from .._validate import check_range
from ..bounds import (
    attacker_accuracy,
    dp_region_kink,
    epsilon_from_eta,
    eta_from_epsilon,
    eta_small_epsilon_approx,
    tpr_bound_dp,
    tpr_bound_mip,
)

__all__ = [
    "GOOD_APPROX",
    "MACE_EPSILON",
    "REF_FPR",
    "ApproxQuality",
    "EtaEpsilonLesson",
    "InverseResult",
    "InverseStatus",
    "eta_epsilon_lesson",
]

#: The "low false-positive rate" at which the page compares DP and MIP.
REF_FPR = 1e-3
#: ε of MACE's worked example (advantage ≤ tanh(1/2) ≈ 0.462).
MACE_EPSILON = 1.0
#: Relative error below which the rule of thumb is "good"; below 10× this it is "fair".
GOOD_APPROX = 0.01


class ApproxQuality(StrEnum):
    """How close the small-ε rule of thumb is to Theorem 4, by relative error."""

    GOOD = "good"  # below 1 %
    FAIR = "fair"  # below 10 %
    POOR = "poor"  # 10 % or more


class InverseStatus(StrEnum):
    """What the inverse of Theorem 4 gives for a target η at a given δ."""

    CERTIFIED = "certified"  # some ε certifies it: ``epsilon`` is the largest
    NO_GUARANTEE = "no_guarantee"  # target η >= 1/2: not a guarantee, every ε "certifies" it
    BELOW_DELTA = "below_delta"  # target η < δ/2: δ alone gives a larger edge, no ε works


@dataclass(frozen=True)
class InverseResult:
    """The largest ε whose (ε, δ)-DP certifies ``target_eta``-MIP (Theorem 4 inverted).

    ``epsilon`` and ``rule_of_thumb`` (``4(η − δ/2)/(1 − δ)``, the small-ε approximation
    inverted; never above ``epsilon``) are None unless ``status`` is CERTIFIED;
    ``rule_is_exact`` says whether the two agree exactly (only at η = δ/2, where both are 0).
    ``target_accuracy = 1/2 + target_eta``; ``delta_floor = δ/2`` is the edge δ alone gives.
    """

    target_eta: float
    delta: float
    status: InverseStatus
    epsilon: float | None
    rule_of_thumb: float | None
    rule_is_exact: bool
    target_accuracy: float
    delta_floor: float


@dataclass(frozen=True)
class EtaEpsilonLesson:
    """Every number of the η and ε page for one ``(epsilon, delta)`` and one target η.

    Attributes
    ----------
    epsilon, delta : the guarantee.
    eta : Theorem 4's η; ``accuracy = 1/2 + η``; ``advantage = 2η = TPR − FPR`` at best.
    delta_share : δ/2, the part of η that δ alone contributes (η at ε = 0).
    approx : the small-ε rule of thumb ``δ/2 + (1−δ)ε/4``; ``approx_error = approx − eta``
        (never negative); ``approx_relative_error = approx_error/eta`` (0 when η = 0);
        ``approx_quality``: None at ε = 0 (where the rule is exact), else by
        ``approx_relative_error`` (< 1 % good, < 10 % fair, else poor);
        ``approx_exceeds_half``: the rule gives more than 1/2, the largest possible η.
    ref_fpr : the reference false-positive rate; ``tpr_dp_ref`` (DP region) and
        ``tpr_mip_ref`` (corrected Theorem 8, ``min(1, FPR + 2η)``) are the largest TPR
        there, ``tpr_printed_ref`` the printed (invalid) ``min(1, FPR + η)``; ``tpr_ratio =
        tpr_mip_ref / tpr_dp_ref`` (None when ``tpr_dp_ref`` is 0).
    tpr_dp_at_zero, tpr_mip_at_zero : the largest TPR at FPR = 0: δ under DP, ``min(1, 2η)``
        under MIP.
    kink_fpr, kink_tpr : where the DP boundary's two sloped pieces meet and touch the MIP
        line (:func:`mipcore.bounds.dp_region_kink`; ``kink_tpr − kink_fpr = 2η``).
    mace_epsilon, mace_advantage, mace_accuracy : MACE's example, ε = 1: its advantage bound
        ``tanh(1/2) = 2η(1, 0)`` and the matching accuracy ``1/2 + η(1, 0)``.
    inverse : :class:`InverseResult` for the target η at this δ.
    """

    epsilon: float
    delta: float
    eta: float
    accuracy: float
    advantage: float
    delta_share: float
    approx: float
    approx_error: float
    approx_relative_error: float
    approx_quality: ApproxQuality | None
    approx_exceeds_half: bool
    ref_fpr: float
    tpr_dp_ref: float
    tpr_mip_ref: float
    tpr_printed_ref: float
    tpr_ratio: float | None
    tpr_dp_at_zero: float
    tpr_mip_at_zero: float
    kink_fpr: float
    kink_tpr: float
    mace_epsilon: float
    mace_advantage: float
    mace_accuracy: float
    inverse: InverseResult


def _quality(relative_error: float) -> ApproxQuality:
    if relative_error < GOOD_APPROX:
        return ApproxQuality.GOOD
    if relative_error < 10 * GOOD_APPROX:
        return ApproxQuality.FAIR
    return ApproxQuality.POOR


def _inverse(target_eta: float, delta: float) -> InverseResult:
    common = dict(
        target_eta=target_eta,
        delta=delta,
        target_accuracy=0.5 + target_eta,
        delta_floor=delta / 2,
    )
    if target_eta >= 0.5:
        return InverseResult(
            status=InverseStatus.NO_GUARANTEE,
            epsilon=None,
            rule_of_thumb=None,
            rule_is_exact=False,
            **common,
        )
    if 2.0 * target_eta < delta:  # not target < delta/2: delta/2 may underflow
        return InverseResult(
            status=InverseStatus.BELOW_DELTA,
            epsilon=None,
            rule_of_thumb=None,
            rule_is_exact=False,
            **common,
        )
    eps = float(epsilon_from_eta(target_eta, delta))
    rule = 4.0 * (target_eta - delta / 2) / (1.0 - delta)
    return InverseResult(
        status=InverseStatus.CERTIFIED,
        epsilon=eps,
        rule_of_thumb=rule,
        rule_is_exact=eps == rule,
        **common,
    )


def eta_epsilon_lesson(
    epsilon: float, delta: float = 0.0, target_eta: float = 0.1, *, ref_fpr: float = REF_FPR
) -> EtaEpsilonLesson:
    r"""Theorem 4, its inverse and Theorem 8 (corrected) for one ``(epsilon, delta)``.

    Parameters
    ----------
    epsilon : float
        ``0 <= epsilon < inf``.
    delta : float
        ``0 <= delta <= 1``.
    target_eta : float
        ``0 <= target_eta <= 1/2``, the η whose certifying ε the inverse reports.
    ref_fpr : float
        ``0 < ref_fpr <= 1``, the false-positive rate of the DP/MIP comparison (default 10⁻³).

    Returns
    -------
    EtaEpsilonLesson

    Raises
    ------
    ValueError
        If a parameter is NaN or out of its range (the message names it).

    Notes
    -----
    The corrected Theorem 8 gives ``TPR ≤ min(1, FPR + 2η)``; the paper prints ``FPR + η``,
    which randomised response violates (see :func:`mipcore.bounds.tpr_bound_mip`).

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Theorems 4 and 8.

    Examples
    --------
    >>> r = eta_epsilon_lesson(1.0)
    >>> round(r.eta, 4), round(r.accuracy, 4), round(r.advantage, 3)
    (0.2311, 0.7311, 0.462)
    >>> r.approx, r.approx_quality
    (0.25, <ApproxQuality.FAIR: 'fair'>)
    >>> round(r.tpr_dp_ref, 5), round(r.tpr_mip_ref, 4), round(r.kink_fpr, 4)
    (0.00272, 0.4631, 0.2689)
    >>> round(r.inverse.epsilon, 4)  # the largest epsilon certifying eta = 0.1
    0.4055
    """
    eps = float(check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True))
    dlt = float(check_range("delta", delta, 0.0, 1.0))
    target = float(check_range("target_eta", target_eta, 0.0, 0.5))
    f_ref = float(check_range("ref_fpr", ref_fpr, 0.0, 1.0, lo_open=True))

    eta = float(eta_from_epsilon(eps, dlt))
    approx = float(eta_small_epsilon_approx(eps, dlt))
    error = approx - eta
    relative = error / eta if eta > 0 else 0.0
    tpr_dp = float(tpr_bound_dp(f_ref, eps, dlt))
    tpr_mip = float(tpr_bound_mip(f_ref, eta))
    kink = float(dp_region_kink(eps, dlt))
    mace_eta = float(eta_from_epsilon(MACE_EPSILON))
    return EtaEpsilonLesson(
        epsilon=eps,
        delta=dlt,
        eta=eta,
        accuracy=float(attacker_accuracy(eta)),
        advantage=2.0 * eta,
        delta_share=dlt / 2,
        approx=approx,
        approx_error=error,
        approx_relative_error=relative,
        approx_quality=None if eps == 0 else _quality(relative),
        approx_exceeds_half=approx > 0.5,
        ref_fpr=f_ref,
        tpr_dp_ref=tpr_dp,
        tpr_mip_ref=tpr_mip,
        tpr_printed_ref=float(tpr_bound_mip(f_ref, eta, as_printed=True)),
        tpr_ratio=tpr_mip / tpr_dp if tpr_dp > 0 else None,
        tpr_dp_at_zero=float(tpr_bound_dp(0.0, eps, dlt)),
        tpr_mip_at_zero=float(tpr_bound_mip(0.0, eta)),
        kink_fpr=kink,
        kink_tpr=float(tpr_bound_dp(kink, eps, dlt)),
        mace_epsilon=MACE_EPSILON,
        mace_advantage=2.0 * mace_eta,
        mace_accuracy=0.5 + mace_eta,
        inverse=_inverse(target, dlt),
    )
