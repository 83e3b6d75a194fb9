r"""Audit a model from its attack scores: certified ε, η and μ lower bounds, ROC and TPR.

Someone has run a membership attack on their own model and holds one score per record,
with the truth of whether the record was a member. This module turns the scores into what
they *prove* about every privacy guarantee the model could have, with a stated confidence:

* :func:`audit_scores` -- member and non-member scores in, one small frozen
  :class:`ScoreAudit` out: the ROC, the AUC, the TPR at chosen FPRs with intervals, and lower
  bounds on ε (of (ε, δ)-DP), on η (of η-MIP) and on μ (of μ-GDP) over the attack's thresholds,
  the multiple-threshold problem handled by an explicit :class:`ThresholdStrategy`, as
  jax_privacy's ``CanaryScoreAuditor`` names it.
* :func:`clopper_pearson_epsilon`, :func:`eta_from_counts`, :func:`mu_from_counts` -- the same
  three bounds from the four counts of one attack rule (TP of the members, FP of the
  non-members).
* :func:`one_run_epsilon` and :func:`one_run_from_scores` -- the one-run audit of Steinke, Nasr
  and Jagielski, sound when all scores come from ONE training run whose canaries were each
  included independently with probability 1/2.

Which audit applies
-------------------
The Clopper–Pearson bounds treat every score as an independent trial of one membership
experiment: a record's membership decided by a fair coin, a model trained, the record
scored -- independently of every other score. That holds for a canary audited over many
training runs (one canary, or a few, per run), or for a scored record of each of many
models. Scores of many records of *one* model are dependent (they share the model), and a
Clopper–Pearson interval over them is not a valid confidence statement: a mechanism that
with probability p publishes its whole training set is (0, p)-DP and p/2-MIP, yet shows every
record's membership at once with probability p, and a "95 %" bound then exceeds the truth
with probability p, whatever the number of records. For one training run use
:func:`one_run_from_scores`: Steinke et al. prove that under (ε, δ)-DP the number of correct
guesses is dominated by a binomial (with a δ term), however the records interact. There is
no such result for η-MIP (the mechanism above is p/2-MIP), so the one-run audit bounds ε only.

References
----------
- Steinke, Nasr, Jagielski. *Privacy Auditing with One (1) Training Run*. NeurIPS 2023,
  arXiv:2305.08846 (Theorem 3 and the code of its Appendix D).
- Nasr, Song, Thakurta, Papernot, Carlini. *Adversary Instantiation: Lower Bounds for
  Differentially Private Machine Learning*. IEEE S&P 2021, arXiv:2101.04535 (ε from a
  Clopper–Pearson (FPR, FNR) pair).
- Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383 (the
  μ-GDP trade-off curve, Φ(Φ⁻¹(FPR) + μ)).
- Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
  arXiv:2211.06582 (Definition 1: η-MIP bounds a balanced attacker's accuracy by 1/2 + η).
- Carlini, Chien, Nasr, Song, Terzis, Tramèr. *Membership Inference Attacks From First
  Principles*. IEEE S&P 2022, arXiv:2112.03570 (TPR at low FPR as the measure of an attack).
- Clopper, Pearson. *The Use of Confidence or Fiducial Limits Illustrated in the Case of the
  Binomial*. Biometrika 26(4), 1934.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._score_audit import (
    _auc,
    _bounds_at,
    _candidate_ranks,
    _check_flags,
    _check_four,
    _check_fprs,
    _check_guess_split,
    _check_one_run,
    _check_scores,
    _eps_from_rates,
    _mu_from_rates,
    _one_run_epsilon,
    _one_run_p,
    _ranked,
    _rates,
    _scalar_or_array,
    _separated_epsilon,
    _sizes,
    _smallest,
    _tpr_interval,
)
from ._validate import as_enum, as_float_array, as_generator, check_int, check_range
from .audit_stats import _check_conf
from .guarantees import DpSgd, Guarantee, Relation, epsilon_at

__all__ = [
    "DEFAULT_FPRS",
    "MAX_THRESHOLDS",
    "AuditedClaim",
    "CertifiedPoint",
    "ClaimVerdict",
    "OneRunAudit",
    "ScoreAudit",
    "ThresholdStrategy",
    "TprAtFpr",
    "Verdict",
    "audit_scores",
    "audited_claim",
    "claim_verdict",
    "clopper_pearson_epsilon",
    "eta_from_counts",
    "mu_from_counts",
    "one_run_epsilon",
    "one_run_from_scores",
    "one_run_p_value",
]

#: False-positive rates at which :func:`audit_scores` reports the TPR by default.
DEFAULT_FPRS: tuple[float, ...] = (0.001, 0.01, 0.1)
#: Most candidate thresholds the Bonferroni strategy tests (its default ``max_thresholds``).
MAX_THRESHOLDS = 1000
_MAX_THRESHOLDS_CEILING = 100_000
_ROC_POINTS = 2000  # default of ScoreAudit.roc(max_points=...)


class ThresholdStrategy(StrEnum):
    """How :func:`audit_scores` handles choosing the attack's threshold after seeing the data.

    ``BONFERRONI``: every candidate rule is certified at level α/(2K) per rate, so every
    certified point holds simultaneously and the best may be picked afterwards.
    ``SPLIT``: a random fraction of the scores picks the rule, the rest certifies that one
    rule at α/2 per rate. ``EXPLICIT``: one threshold fixed before seeing the scores.
    """

    BONFERRONI = "bonferroni"
    SPLIT = "split"
    EXPLICIT = "explicit"


# ------------------------------------------------------------------------- the four counts


@overload
def clopper_pearson_epsilon(
    tp: int, members: int, fp: int, non_members: int, *, delta: float, confidence: float = ...
) -> float: ...
@overload
def clopper_pearson_epsilon(
    tp: ArrayLike,
    members: ArrayLike,
    fp: ArrayLike,
    non_members: ArrayLike,
    *,
    delta: ArrayLike,
    confidence: ArrayLike = ...,
) -> float | NDArray[np.float64]: ...
def clopper_pearson_epsilon(
    tp: ArrayLike,
    members: ArrayLike,
    fp: ArrayLike,
    non_members: ArrayLike,
    *,
    delta: ArrayLike,
    confidence: ArrayLike = 0.95,
) -> float | NDArray[np.float64]:
    r"""Lower bound on ε from one attack rule's counts: ``ln((TPR_lo − δ)/FPR_hi)``.

    If the mechanism is (ε, δ)-DP, every test of "member" against "non-member" has
    ``TPR ≤ e^ε FPR + δ`` (Kairouz, Oh and Viswanath, *The Composition Theorem for Differential
    Privacy*, ICML 2015, arXiv:1311.0776, Theorem 2.1; averaged over neighbouring pairs the
    inequality stays, being linear). With ``TPR_lo`` the one-sided Clopper–Pearson lower bound
    on the TPR from ``tp`` of ``members`` and ``FPR_hi`` the upper bound on the FPR from ``fp``
    of ``non_members``, each at level ``1 − (1 − confidence)/2``, both hold together with
    probability at least ``confidence`` (union bound), and then
    ``ε ≥ ln((TPR_lo − δ)/FPR_hi)``.

    Edges, all finite: 0 when ``TPR_lo <= δ`` or ``TPR_lo − δ <= FPR_hi`` (nothing proved);
    ``FPR_hi > 0`` always (at ``fp = 0`` it is ``1 − (α/2)^(1/non_members)``), so the bound is
    never infinite however clean the attack. The reverse rule ("non-member when flagged") is a
    test too: its bound is this function with the roles swapped,
    ``clopper_pearson_epsilon(non_members − fp, non_members, members − tp, members)``
    (Clopper–Pearson is symmetric, so it uses the same two confidence statements).

    Parameters
    ----------
    tp, members : int or array_like of int
        Members flagged, of ``members >= 1`` (``0 <= tp <= members``).
    fp, non_members : int or array_like of int
        Non-members flagged, of ``non_members >= 1`` (``0 <= fp <= non_members``).
    delta : float or array_like
        ``0 <= delta < 1``.
    confidence : float or array_like
        ``0 < confidence < 1``; the pair of bounds holds jointly at this level.

    Returns
    -------
    float or ndarray
        The lower bound on ε, ``>= 0`` and finite.

    Raises
    ------
    ValueError
        If a count is not an integer or out of range, or ``delta``/``confidence`` is.

    Notes
    -----
    Valid when each scored record is an independent trial of the membership experiment (see
    the module docstring); for the scores of one training run use :func:`one_run_epsilon`.

    References
    ----------
    Nasr, Song, Thakurta, Papernot, Carlini. *Adversary Instantiation: Lower Bounds for
    Differentially Private Machine Learning*. IEEE S&P 2021, arXiv:2101.04535.

    Examples
    --------
    >>> clopper_pearson_epsilon(500, 1000, 10, 1000, delta=1e-5)  # TPR 50 % at FPR 1 %
    3.24199524944
    >>> clopper_pearson_epsilon(10, 1000, 10, 1000, delta=1e-5)  # no better than a coin
    0.0
    """
    t, m, f, n = _check_four(tp, members, fp, non_members)
    d = check_range("delta", delta, 0.0, 1.0, hi_open=True)
    alpha = 1.0 - _check_conf(confidence)
    tpr_lo, fpr_hi = _rates(t, m, f, n, alpha / 2.0)
    eps = _eps_from_rates(tpr_lo, fpr_hi, d)
    return _scalar_or_array(eps, tp, members, fp, non_members, delta, confidence)


@overload
def eta_from_counts(
    tp: int, members: int, fp: int, non_members: int, *, confidence: float = ...
) -> float: ...
@overload
def eta_from_counts(
    tp: ArrayLike,
    members: ArrayLike,
    fp: ArrayLike,
    non_members: ArrayLike,
    *,
    confidence: ArrayLike = ...,
) -> float | NDArray[np.float64]: ...
def eta_from_counts(
    tp: ArrayLike,
    members: ArrayLike,
    fp: ArrayLike,
    non_members: ArrayLike,
    *,
    confidence: ArrayLike = 0.95,
) -> float | NDArray[np.float64]:
    r"""Lower bound on the MIP level η from one attack rule's counts: ``(TPR_lo − FPR_hi)/2``.

    η-MIP bounds every attacker's accuracy in the balanced membership game by ``1/2 + η``
    (Definition 1 of Izzo et al.). The rule "member when flagged" has balanced accuracy
    ``(1 + TPR − FPR)/2``; with ``TPR_lo`` and ``FPR_hi`` one-sided Clopper–Pearson bounds at
    level ``1 − (1 − confidence)/2`` each (jointly ``confidence``), the balanced accuracy is at
    least ``(1 + TPR_lo − FPR_hi)/2``, so ``η ≥ (TPR_lo − FPR_hi)/2``, clamped at 0. The same
    bound holds for the reverse rule (its balanced accuracy is ``(1 + TNR − FNR)/2``, the same
    number), and it is Theorem 8 corrected, ``TPR ≤ FPR + 2η``, read backwards.

    Parameters
    ----------
    tp, members, fp, non_members : int or array_like of int
        As :func:`clopper_pearson_epsilon`.
    confidence : float or array_like
        ``0 < confidence < 1``.

    Returns
    -------
    float or ndarray
        The lower bound on η, in ``[0, 1/2)``.

    Raises
    ------
    ValueError
        If a count is not an integer or out of range, or ``confidence`` is.

    Notes
    -----
    Named so as not to clash with :func:`mipcore.audit_stats.eta_lower_bound`, which bounds η
    from the correct guesses of a game with abstentions. Valid for independent trials only (see
    the module docstring).

    References
    ----------
    Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024,
    arXiv:2211.06582, Definition 1 and Theorem 8.

    Examples
    --------
    >>> eta_from_counts(700, 1000, 300, 1000)  # balanced accuracy 70 %
    0.170538321303
    """
    t, m, f, n = _check_four(tp, members, fp, non_members)
    alpha = 1.0 - _check_conf(confidence)
    tpr_lo, fpr_hi = _rates(t, m, f, n, alpha / 2.0)
    eta = np.maximum(0.5 * (tpr_lo - fpr_hi), 0.0)
    return _scalar_or_array(eta, tp, members, fp, non_members, confidence)


@overload
def mu_from_counts(
    tp: int, members: int, fp: int, non_members: int, *, confidence: float = ...
) -> float: ...
@overload
def mu_from_counts(
    tp: ArrayLike,
    members: ArrayLike,
    fp: ArrayLike,
    non_members: ArrayLike,
    *,
    confidence: ArrayLike = ...,
) -> float | NDArray[np.float64]: ...
def mu_from_counts(
    tp: ArrayLike,
    members: ArrayLike,
    fp: ArrayLike,
    non_members: ArrayLike,
    *,
    confidence: ArrayLike = 0.95,
) -> float | NDArray[np.float64]:
    r"""Lower bound on the μ of μ-GDP from one attack rule's counts: ``Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi)``.

    μ-GDP allows a test with false-positive rate FPR at most the true-positive rate
    ``Φ(Φ⁻¹(FPR) + μ)`` (the trade-off curve ``G_μ`` of Dong, Roth and Su, Definition 2.6 read
    as TPR against FPR). A certified corner ``(FPR_hi, TPR_lo)`` -- one-sided Clopper–Pearson at
    level ``1 − (1 − confidence)/2`` each -- is allowed only if
    ``μ ≥ Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi)``, the smallest μ whose curve passes through it; clamped
    at 0 (also when ``TPR_lo = 0``). The trade-off curve is symmetric, so the reverse rule
    gives the same number.

    Parameters
    ----------
    tp, members, fp, non_members : int or array_like of int
        As :func:`clopper_pearson_epsilon`.
    confidence : float or array_like
        ``0 < confidence < 1``.

    Returns
    -------
    float or ndarray
        The lower bound on μ, ``>= 0`` and finite.

    Raises
    ------
    ValueError
        If a count is not an integer or out of range, or ``confidence`` is.

    References
    ----------
    Dong, Roth, Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383,
    Definition 2.6 (μ-GDP: every trade-off at least ``G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)``).

    Examples
    --------
    >>> mu_from_counts(500, 1000, 10, 1000)  # TPR 50 % at FPR 1 %
    2.01098593958
    """
    t, m, f, n = _check_four(tp, members, fp, non_members)
    alpha = 1.0 - _check_conf(confidence)
    tpr_lo, fpr_hi = _rates(t, m, f, n, alpha / 2.0)
    return _scalar_or_array(
        _mu_from_rates(tpr_lo, fpr_hi), tp, members, fp, non_members, confidence
    )


# ------------------------------------------------------------------------- the one-run audit


def one_run_p_value(
    canaries: int, guesses: int, correct: int, epsilon: float, *, delta: float
) -> float:
    r"""Theorem 3 of Steinke, Nasr and Jagielski: how likely ``correct`` or more under (ε, δ)-DP.

    m canaries are each included in the training data independently with probability 1/2; an
    auditor sees the trained model, guesses "in" or "out" for ``guesses`` = r of them and
    abstains on the rest. If the training is (ε, δ)-DP for adding or removing one canary, then
    for every v

    ``P[correct >= v] ≤ P[B >= v] + 2 m δ · max_{1 <= i <= m} P[v > B >= v − i] / i``,

    ``B ~ Binomial(r, e^ε/(1 + e^ε))``. This is that right-hand side (capped at 1), evaluated
    as the code of the paper's Appendix D does (the maximum is attained at ``i <= v``: beyond,
    the probability no longer grows and the ratio falls).

    Parameters
    ----------
    canaries : int, ``>= 1`` (m).
    guesses : int, ``0 <= guesses <= canaries`` (r).
    correct : int, ``0 <= correct <= guesses`` (v).
    epsilon : float, ``>= 0``.
    delta : float, ``0 <= delta < 1``.

    Returns
    -------
    float
        The p-value bound, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    Steinke, Nasr, Jagielski. *Privacy Auditing with One (1) Training Run*. NeurIPS 2023,
    arXiv:2305.08846, Theorem 3 and Appendix D.

    Examples
    --------
    >>> one_run_p_value(1000, 100, 100, 0.0, delta=0.0)  # 100 right of 100 coin flips
    7.88860905221e-31
    """
    m, r, v = _check_one_run(canaries, guesses, correct)
    e = float(check_range("epsilon", epsilon, 0.0, math.inf, hi_open=True))
    d = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    return _one_run_p(m, r, v, e, d)


def one_run_epsilon(
    canaries: int,
    guesses: int,
    correct: int,
    *,
    delta: float,
    confidence: float = 0.95,
) -> float:
    r"""Lower bound on ε from ONE training run (Steinke, Nasr and Jagielski, Theorem 3).

    The largest ε for which :func:`one_run_p_value` is at most ``1 − confidence``: were the
    training (ε', δ)-DP for any ε' below it, seeing ``correct`` or more correct guesses would
    have had probability below ``1 − confidence``. 0 when even ε = 0 is not rejected.

    The paper's bisection (Appendix D) assumes that the p-value increases with ε. Its first
    term does; its δ term is a maximum of binomial probabilities some of which fall as ε grows,
    and no proof of the sum's monotonicity is given. No decrease showed in 6 000 random
    (m, r, v, δ) on a grid of ε, but rather than rely on it, the bound here is the supremum
    of the rejected ε, which is what makes it valid (were the training (ε', δ)-DP, it would
    also be (ε'', δ)-DP for every ε'' >= ε', so rejecting any of them rejects ε'): searched
    below ε_β, where the first term alone reaches ``1 − confidence``, by scanning 65 points
    down from ε_β and refining the first rejected one with Brent's method (to 1e-13). A
    rejected island narrower than the grid's step would be missed, which only makes the bound
    smaller (still valid). Where the p-value increases the result is the paper's bisection:
    in the tested cases the two agreed to 1e-13 (the tests require 1e-6).

    Parameters
    ----------
    canaries : int, ``>= 1`` -- m, each included independently with probability 1/2.
    guesses : int, ``0 <= guesses <= canaries`` -- r, the non-abstaining guesses.
    correct : int, ``0 <= correct <= guesses`` -- v.
    delta : float, ``0 <= delta < 1``.
    confidence : float, ``0 < confidence < 1``.

    Returns
    -------
    float
        The lower bound on ε, ``>= 0``.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Notes
    -----
    The neighbouring relation is add/remove of one canary (Steinke et al.'s setting). The
    guesses may depend on the trained model and on anything independent of the inclusion
    coins (shadow models, the canaries themselves), never on the coins.

    References
    ----------
    Steinke, Nasr, Jagielski. *Privacy Auditing with One (1) Training Run*. NeurIPS 2023,
    arXiv:2305.08846, Theorem 3 and Appendix D.

    Examples
    --------
    >>> round(one_run_epsilon(1000, 1000, 1000, delta=1e-5), 2)  # all 1000 guesses right
    5.78
    >>> one_run_epsilon(1000, 100, 50, delta=1e-5)  # half right: nothing proved
    0.0
    """
    m, r, v = _check_one_run(canaries, guesses, correct)
    d = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    alpha = 1.0 - float(_check_conf(confidence))
    return _one_run_epsilon(m, r, v, d, alpha)


@dataclass(frozen=True)
class OneRunAudit:
    """Outcome of :func:`one_run_from_scores`.

    ``canaries`` (m), ``guesses_in`` (the k₊ highest scores guessed "in"), ``guesses_out``
    (the k₋ lowest guessed "out"), ``guesses`` (r = k₊ + k₋), ``correct`` (v) of which
    ``correct_in`` were "in" guesses; ``epsilon``: :func:`one_run_epsilon` of (m, r, v) at
    ``delta`` and ``confidence``; ``threshold_in``/``threshold_out``: the lowest score guessed
    "in" and the highest guessed "out" (in the caller's orientation; None without such
    guesses). Fewer guesses than asked means a tie at a cut: a tied group straddling a cut is
    never split, its records abstain.
    """

    canaries: int
    guesses_in: int
    guesses_out: int
    guesses: int
    correct: int
    correct_in: int
    delta: float
    confidence: float
    epsilon: float
    threshold_in: float | None
    threshold_out: float | None

    @property
    def precision(self) -> float | None:
        """Share of the guesses that were right (None without guesses)."""
        return self.correct / self.guesses if self.guesses else None


def one_run_from_scores(
    scores: ArrayLike,
    included: ArrayLike,
    *,
    guesses: int | tuple[int, int],
    delta: float,
    confidence: float = 0.95,
    higher_means_member: bool = True,
) -> OneRunAudit:
    r"""The one-run audit of Steinke et al. from each canary's score and inclusion coin.

    The auditor guesses "in" for the ``guesses_in`` highest scores and "out" for the
    ``guesses_out`` lowest, and abstains on the rest (Steinke et al., Section 5 and Appendix
    D); the number of correct guesses then goes to :func:`one_run_epsilon`. The guesses use
    the scores alone -- never the coins -- and a group of tied scores that straddles a cut
    abstains as a whole, so no tie is broken by the rows' order (which may follow the coins,
    as in a file listing the members first).

    Parameters
    ----------
    scores : array_like of float, one per canary, no NaN (``±inf`` allowed), at least one.
    included : array_like of bool or 0/1, one per canary: whether it was trained on. Each must
        have been decided by an independent fair coin before training.
    guesses : int or (int, int)
        ``(guesses_in, guesses_out)``, each ``>= 0`` with sum ``<= len(scores)``; an int r
        means ``(r − r // 2, r // 2)``. Fix it before looking at the results: choosing it
        as the best of several is a multiple-testing problem this function does not correct.
    delta : float, ``0 <= delta < 1``.
    confidence : float, ``0 < confidence < 1``.
    higher_means_member : bool
        False when a low score means "member" (e.g. a loss).

    Returns
    -------
    OneRunAudit

    Raises
    ------
    ValueError
        If an argument is out of range, ``scores`` has NaN or ``included`` is not boolean.

    References
    ----------
    Steinke, Nasr, Jagielski. *Privacy Auditing with One (1) Training Run*. NeurIPS 2023,
    arXiv:2305.08846, Theorem 3 and Appendix D.

    Examples
    --------
    >>> s = [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    >>> a = one_run_from_scores(s, [1, 1, 0, 1, 0, 0], guesses=(2, 2), delta=0.0)
    >>> a.guesses, a.correct, a.epsilon
    (4, 4, 0.0)
    """
    s = _check_scores("scores", scores)
    inc = _check_flags("included", included, s.size)
    d = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    alpha = 1.0 - float(_check_conf(confidence))
    if not isinstance(higher_means_member, bool | np.bool_):
        raise ValueError(f"higher_means_member={higher_means_member!r} must be True or False")
    m = s.size
    k_in, k_out = _check_guess_split(guesses, m)
    if not higher_means_member:
        s = -s
    order = np.argsort(-s, kind="stable")
    desc = s[order]
    flags = inc[order]
    # "in": the first k_in in descending order, minus a tie group crossing position k_in
    n_in = k_in
    if 0 < k_in < m and desc[k_in - 1] == desc[k_in]:
        n_in = int(np.searchsorted(-desc, -desc[k_in], side="left"))
    # "out": the last k_out, minus a tie group crossing position m − k_out
    n_out = k_out
    cut = m - k_out
    if 0 < k_out < m and desc[cut - 1] == desc[cut]:
        n_out = m - int(np.searchsorted(-desc, -desc[cut - 1], side="right"))
    correct_in = int(flags[:n_in].sum())
    correct_out = int((~flags[m - n_out :]).sum()) if n_out else 0
    r, v = n_in + n_out, correct_in + correct_out
    sign = 1.0 if higher_means_member else -1.0
    return OneRunAudit(
        canaries=m,
        guesses_in=n_in,
        guesses_out=n_out,
        guesses=r,
        correct=v,
        correct_in=correct_in,
        delta=d,
        confidence=1.0 - alpha,
        epsilon=_one_run_epsilon(m, r, v, d, alpha),
        threshold_in=float(sign * desc[n_in - 1]) if n_in else None,
        threshold_out=float(sign * desc[m - n_out]) if n_out else None,
    )


# ------------------------------------------------------------------------- scores -> audit


@dataclass(frozen=True)
class CertifiedPoint:
    """One attack rule and what its counts certify: ``FPR <= fpr_high`` and ``TPR >= tpr_low``.

    ``threshold``: the rule flags scores above it (``higher_means_member``; below it
    otherwise); ``inclusive``: whether a score equal to it is flagged (the Bonferroni rules
    flag part of a tie at random, see :func:`audit_scores`: then ``inclusive`` is None).
    ``tp`` of ``members`` and ``fp`` of ``non_members``: the counts that certify (for
    ``SPLIT``, those of the certification part).
    """

    threshold: float
    inclusive: bool | None
    tp: int
    members: int
    fp: int
    non_members: int
    tpr_low: float
    fpr_high: float


@dataclass(frozen=True)
class TprAtFpr:
    """TPR of the score's threshold rules at false-positive rate ``fpr``.

    ``estimate``: the TPR of the rule with the most flags among those whose empirical FPR is
    at most ``fpr``; ``low``/``high``: a ``confidence`` interval for the population TPR at
    FPR ``fpr`` (see :meth:`ScoreAudit.tpr_at`).
    """

    fpr: float
    estimate: float
    low: float
    high: float


Bound = Literal["epsilon", "eta", "mu"]


@dataclass(frozen=True)
class ScoreAudit:
    """What member and non-member attack scores prove (see :func:`audit_scores`).

    Fields: the sample sizes, ``delta``, ``confidence``, ``strategy``, ``thresholds_tested``
    (the K of the Bonferroni correction; 1 otherwise), the three lower bounds ``epsilon``
    (of (ε, δ)-DP, at this ``delta``), ``eta`` (of η-MIP) and ``mu`` (of μ-GDP), ``auc`` (ties
    count 1/2) and ``fprs`` (the FPRs :attr:`tpr_at_fprs` reports). On demand: :meth:`roc`,
    :meth:`tpr_at`, :attr:`tpr_at_fprs`, :meth:`certified_point`, :meth:`certified_points`,
    :meth:`certified_roc`.
    """

    members: int
    non_members: int
    delta: float
    confidence: float
    strategy: ThresholdStrategy
    thresholds_tested: int
    epsilon: float
    eta: float
    mu: float
    auc: float
    fprs: tuple[float, ...]
    # TP(k): members ranked above the (k+1)-th non-member (random tie order), k < non_members
    _tp_at_rank: NDArray[np.int64] = field(repr=False, compare=False)
    _points: tuple[CertifiedPoint, ...] = field(repr=False, compare=False)
    _best: tuple[int, int, int] = field(repr=False, compare=False)
    # how the rules were chosen, for what a larger audit of the same design could prove
    _max_thresholds: int = field(default=MAX_THRESHOLDS, repr=False, compare=False)
    _split_fraction: float = field(default=0.5, repr=False, compare=False)

    def certified_point(self, bound: Bound = "epsilon") -> CertifiedPoint:
        """The rule, counts and certified rates behind ``epsilon``, ``eta`` or ``mu``."""
        names = ("epsilon", "eta", "mu")
        if bound not in names:
            raise ValueError(f"bound={bound!r} is not one of {names}")
        return self._points[self._best[names.index(bound)]]

    def certified_points(self) -> tuple[CertifiedPoint, ...]:
        """Every rule certified: the K ranks of ``BONFERRONI``, the rules of ``SPLIT`` (for ε, η,
        μ) or the one of ``EXPLICIT``."""
        return self._points

    def certified_roc(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(fpr_high, tpr_low)`` of every certified rule, by increasing ``fpr_high``.

        Under ``BONFERRONI`` they hold simultaneously at ``confidence``: the population ROC
        passes above-left of each point, a staircase a chart can draw under the empirical ROC.
        Under ``SPLIT`` and ``EXPLICIT``, the one to three rules certified, each on its own.
        """
        f = np.array([p.fpr_high for p in self._points])
        t = np.array([p.tpr_low for p in self._points])
        order = np.argsort(f, kind="stable")
        return f[order], t[order]

    def roc(
        self, max_points: int | None = _ROC_POINTS
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Empirical ROC ``(fpr, tpr)``, from (0, ·) to (1, 1), at most ``max_points`` points.

        The corners of the staircase of the rules "flag everything ranked above the (k+1)-th
        non-member" (ties in random order, as the certified rules): ``(k/n, TP(k)/m)`` and
        ``((k+1)/n, TP(k)/m)``. With ``max_points`` (``>= 4``) the corners are thinned to
        those nearest a grid of FPRs spaced evenly both on a log scale (down to ``1/n``, for a
        log-FPR chart) and on a linear one; ``None`` returns every corner.
        """
        mp = None if max_points is None else check_int("max_points", max_points, 4)
        tp = self._tp_at_rank
        n, m = self.non_members, self.members
        k = np.arange(n)
        fpr = np.empty(2 * n + 1)
        tpr = np.empty(2 * n + 1)
        fpr[0:-1:2], tpr[0:-1:2] = k / n, tp / m
        fpr[1::2], tpr[1::2] = (k + 1) / n, tp / m
        fpr[-1], tpr[-1] = 1.0, 1.0
        if mp is None or fpr.size <= mp:
            return fpr, tpr
        half = max(2, (mp - 2) // 4)  # corner pairs: both corners of each picked step
        grid = np.unique(
            np.concatenate((np.geomspace(1.0 / n, 1.0, half), np.linspace(0.0, 1.0, half)))
        )
        steps = np.unique(np.minimum((grid * n).astype(np.int64), n - 1))
        pick = np.unique(np.concatenate(([0], 2 * steps, 2 * steps + 1, [2 * n])))
        return fpr[pick], tpr[pick]

    def tpr_at(self, fpr: float) -> TprAtFpr:
        r"""TPR at false-positive rate ``fpr`` (``0 < fpr < 1``), with a ``confidence`` interval.

        The rules are those of :meth:`roc`; the (k+1)-th highest non-member score is an order
        statistic, so the FPR of rule k has the law of the (k+1)-th smallest of n uniforms:
        ``P[FPR_k > CP_hi(k)] = α'`` and ``P[FPR_k < CP_lo(k + 1)] = α'`` exactly, with the
        one-sided Clopper–Pearson bounds at level ``1 − α'``, ``α' = (1 − confidence)/4``.
        Low end: the rule with the largest k such that ``CP_hi(k) <= fpr``; its FPR is then at
        most ``fpr``, and its TPR, at least its lower bound (given the non-member scores, its
        TP is binomial), is at most the population TPR at ``fpr``. High end: the smallest k
        with ``CP_lo(k + 1) >= fpr`` and the upper bound on its TPR. Four statements at α'
        each: the interval holds with probability ``confidence`` (for this ``fpr``; several
        FPRs are not covered jointly). 0 and 1 where no rule qualifies.
        """
        f = float(check_range("fpr", fpr, 0.0, 1.0, lo_open=True, hi_open=True))
        return self._tpr_at(f)

    @property
    def tpr_at_fprs(self) -> tuple[TprAtFpr, ...]:
        """:meth:`tpr_at` at each of :attr:`fprs`."""
        return tuple(self._tpr_at(f) for f in self.fprs)

    def _tpr_at(self, f: float) -> TprAtFpr:
        conf = self.confidence
        est, low, high = _tpr_interval(self._tp_at_rank, self.members, self.non_members, f, conf)
        return TprAtFpr(f, est, min(low, est), max(high, est))


def audit_scores(
    member_scores: ArrayLike,
    non_member_scores: ArrayLike,
    *,
    delta: float,
    confidence: float = 0.95,
    fprs: ArrayLike = DEFAULT_FPRS,
    higher_means_member: bool = True,
    strategy: ThresholdStrategy | str = ThresholdStrategy.BONFERRONI,
    max_thresholds: int = MAX_THRESHOLDS,
    split_fraction: float = 0.5,
    threshold: float | None = None,
    rng: np.random.Generator | int = 0,
) -> ScoreAudit:
    r"""What a membership attack's scores prove: ε, η and μ lower bounds, ROC, AUC, TPR at FPR.

    Each score is one trial: a record (a canary), its membership decided by a fair coin, the
    model trained, the record scored -- independently of the other scores (see the module
    docstring; for the scores of one training run use :func:`one_run_from_scores`). An
    attack rule flags high scores (low ones if ``higher_means_member=False``); its counts, TP
    of the members and FP of the non-members, certify ``TPR >= TPR_lo`` and
    ``FPR <= FPR_hi`` (one-sided Clopper–Pearson), and every certified corner proves:

    * ε of (ε, δ)-DP ``>= ln((TPR_lo − δ)/FPR_hi)`` and ``>= ln((1 − FPR_hi − δ)/(1 − TPR_lo))``
      (the rule and its reverse, "non-member when not flagged", are both tests; the second
      needs a symmetric neighbouring relation, which replace-one and add/remove are), as
      :func:`clopper_pearson_epsilon`;
    * η of η-MIP ``>= (TPR_lo − FPR_hi)/2``, as :func:`eta_from_counts`;
    * μ of μ-GDP ``>= Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi)``, as :func:`mu_from_counts`.

    Each is clamped at 0 and finite. The three bounds maximise over rules chosen after seeing
    the scores, which the ``strategy`` makes sound:

    ``"bonferroni"`` (default)
        The rules are "flag every record ranked above the (k+1)-th highest non-member" for at
        most ``max_thresholds`` (1 000) ranks k, fixed by the number of non-members alone:
        all k when there are at most that many non-members, else ranks spaced geometrically
        from 0 to n − 1 (dense at low FPR, where ε is decided). Ties are put in a random order
        (``rng``), so rule k flags exactly k non-members. Every rate is certified at level
        ``1 − α/(2K)``, α = 1 − confidence, K the number of ranks: all 2K statements hold
        together with probability ``confidence``, so ε, η and μ hold jointly, each at its best
        rule. Why the data-dependent thresholds are sound: rule k's FPR is the (k+1)-th
        smallest of n uniform variables, so ``P[FPR_k > CP_hi(k)]`` is exactly the level, and
        given the non-member scores, rule k's TP is binomial.
    ``"split"``
        A random ``split_fraction`` of the members and of the non-members (``rng``) picks,
        for each of ε, η and μ, the rule "score > t" that maximises it there (at level α/2 per
        rate, uncorrected); the rest certifies that one rule at α/2 per rate. Each bound holds
        at ``confidence`` on its own. Better than Bonferroni when the scores are many and the
        best rule is clear; worse when they are few.
    ``"explicit"``
        The rule "score >= ``threshold``" (``<=`` if ``higher_means_member=False``), fixed
        before seeing the scores, certified on all of them at α/2 per rate.

    The ROC, the AUC and the TPR at ``fprs`` describe all the scores whatever the strategy;
    the TPR intervals (:meth:`ScoreAudit.tpr_at`) are separate ``confidence`` statements.

    Parameters
    ----------
    member_scores, non_member_scores : array_like of float
        One-dimensional, at least one each (two each for ``"split"``), no NaN (``±inf``
        allowed).
    delta : float, ``0 <= delta < 1``. The δ at which ε is bounded.
    confidence : float, ``0 < confidence < 1``.
    fprs : sequence of float, 1 to 50 rates in ``(0, 1)`` (default 0.1 %, 1 %, 10 %).
    higher_means_member : bool. False when a low score means "member" (a loss, say).
    strategy : ThresholdStrategy or its value, ``"bonferroni"``, ``"split"`` or ``"explicit"``.
    max_thresholds : int, ``1 <= max_thresholds <= 100000`` (Bonferroni's K at most).
    split_fraction : float, ``0 < split_fraction < 1`` (``"split"`` only): the share that
        picks the rule.
    threshold : float, required by ``"explicit"`` and refused otherwise; no NaN.
    rng : numpy Generator or int seed ``>= 0`` (default 0): the random tie order and split.
        Same seed, same result.

    Returns
    -------
    ScoreAudit

    Raises
    ------
    ValueError
        If an argument is out of range, a score is NaN, an array is empty or not
        one-dimensional, or ``threshold`` does not match the strategy.

    Notes
    -----
    Time: one sort of all the scores (two if some are tied, for the random order), one of the
    non-members for the AUC, and Clopper–Pearson at the K ranks: 10⁶ scores took 0.4–0.8 s
    on one core of a loaded 2-core machine (``benchmarks/score_audit.py``).

    References
    ----------
    Nasr, Song, Thakurta, Papernot, Carlini. *Adversary Instantiation: Lower Bounds for
    Differentially Private Machine Learning*. IEEE S&P 2021, arXiv:2101.04535. Dong, Roth,
    Su. *Gaussian Differential Privacy*. JRSS-B 2022, arXiv:1905.02383. Izzo, Yoon, Arık,
    Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582. Carlini,
    Chien, Nasr, Song, Terzis, Tramèr. *Membership Inference Attacks From First Principles*.
    IEEE S&P 2022, arXiv:2112.03570.

    Examples
    --------
    >>> gen = np.random.default_rng(1)
    >>> audit = audit_scores(gen.normal(2.0, 1.0, 5000), gen.normal(0.0, 1.0, 5000), delta=1e-5)
    >>> audit.thresholds_tested, round(audit.auc, 3)  # 557 distinct ranks of the 1000 asked
    (557, 0.922)
    >>> round(audit.mu, 2), round(audit.eta, 3)  # the truth: μ = 2, η = Φ(1) − 1/2 = 0.341
    (1.87, 0.324)
    >>> round(audit.epsilon, 2)  # the truth at δ = 1e-5: ε = 10.0
    3.56
    >>> audit.tpr_at(0.01)  # doctest: +ELLIPSIS
    TprAtFpr(fpr=0.01, estimate=0.398, low=0.3339..., high=0.4602...)
    """
    pos = _check_scores("member_scores", member_scores)
    neg = _check_scores("non_member_scores", non_member_scores)
    d = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    conf = float(_check_conf(confidence))
    fpr_levels = _check_fprs(fprs)
    if not isinstance(higher_means_member, bool | np.bool_):
        raise ValueError(f"higher_means_member={higher_means_member!r} must be True or False")
    strat = as_enum("strategy", strategy, ThresholdStrategy)
    k_max = check_int("max_thresholds", max_thresholds, 1, _MAX_THRESHOLDS_CEILING)
    frac = float(
        check_range("split_fraction", split_fraction, 0.0, 1.0, lo_open=True, hi_open=True)
    )
    if strat is ThresholdStrategy.EXPLICIT:
        if threshold is None:
            raise ValueError('threshold is required with strategy="explicit"')
        thr = float(as_float_array("threshold", threshold))
    elif threshold is not None:
        raise ValueError(f'threshold={threshold!r} is only used with strategy="explicit"')
    if strat is ThresholdStrategy.SPLIT:
        for name, arr in (("member_scores", pos), ("non_member_scores", neg)):
            if arr.size < 2:
                raise ValueError(f'{name} has {arr.size} score; "split" needs at least 2')
    gen = as_generator(rng)

    alpha = 1.0 - conf
    sign = 1.0 if higher_means_member else -1.0
    p, q = sign * pos, sign * neg  # from here on, high means member
    m, n = p.size, q.size
    tp_rank, kth_neg = _ranked(p, q, gen)

    points: list[CertifiedPoint] = []
    if strat is ThresholdStrategy.BONFERRONI:
        ks = _candidate_ranks(n, k_max)
        tp = tp_rank[ks].astype(float)
        tpr_lo, fpr_hi, eps, eta, mu = _bounds_at(
            tp, m, ks.astype(float), n, alpha / (2 * ks.size), d
        )
        points = [
            CertifiedPoint(
                float(sign * kth_neg[k]), None, int(tp_rank[k]), m, int(k), n, float(t), float(f)
            )
            for k, t, f in zip(ks, tpr_lo, fpr_hi, strict=True)
        ]
        best = (int(np.argmax(eps)), int(np.argmax(eta)), int(np.argmax(mu)))
        values = (float(eps[best[0]]), float(eta[best[1]]), float(mu[best[2]]))
        tested = int(ks.size)
    else:
        if strat is ThresholdStrategy.SPLIT:
            pm, qm = gen.permutation(p), gen.permutation(q)
            cut_m = min(max(int(frac * m), 1), m - 1)
            cut_n = min(max(int(frac * n), 1), n - 1)
            sel_p, cert_p = pm[:cut_m], pm[cut_m:]
            sel_q, cert_q = qm[:cut_n], qm[cut_n:]
            tp_sel, kth_sel = _ranked(sel_p, sel_q, gen)
            ks = _candidate_ranks(sel_q.size, k_max)
            sel = _bounds_at(
                tp_sel[ks].astype(float), sel_p.size, ks.astype(float), sel_q.size, alpha / 2, d
            )
            cuts = [float(kth_sel[ks[int(np.argmax(b))]]) for b in sel[2:]]
            inclusive = False
        else:
            cert_p, cert_q = p, q
            cuts = [sign * thr] * 3
            inclusive = True
        values_l: list[float] = []
        for j, t in enumerate(cuts):
            if inclusive:
                tp_c, fp_c = int(np.sum(cert_p >= t)), int(np.sum(cert_q >= t))
            else:
                tp_c, fp_c = int(np.sum(cert_p > t)), int(np.sum(cert_q > t))
            tl, fh, e, h, u = _bounds_at(
                np.array([float(tp_c)]),
                cert_p.size,
                np.array([float(fp_c)]),
                cert_q.size,
                alpha / 2,
                d,
            )
            values_l.append(float((e, h, u)[j][0]))
            points.append(
                CertifiedPoint(
                    sign * t,
                    inclusive,
                    tp_c,
                    cert_p.size,
                    fp_c,
                    cert_q.size,
                    float(tl[0]),
                    float(fh[0]),
                )
            )
        if strat is ThresholdStrategy.EXPLICIT:
            points = points[:1]
            best = (0, 0, 0)
        else:
            best = (0, 1, 2)
        values = (values_l[0], values_l[1], values_l[2])
        tested = 1

    return ScoreAudit(
        members=m,
        non_members=n,
        delta=d,
        confidence=conf,
        strategy=strat,
        thresholds_tested=tested,
        epsilon=values[0],
        eta=values[1],
        mu=values[2],
        auc=_auc(p, q),
        fprs=fpr_levels,
        _tp_at_rank=tp_rank,
        _points=tuple(points),
        _best=best,
        _max_thresholds=k_max,
        _split_fraction=frac,
    )


# ------------------------------------------------------------------------- a claim, audited

#: Most guesses (one run) a larger audit is tried with when searching how many canaries would
#: test a claim; most rows (independent trials) likewise.
MAX_GUESSES_SEARCHED = 1_000_000
MAX_TRIALS_SEARCHED = 10**9


class Verdict(StrEnum):
    """What an audit says of a claimed guarantee (see :func:`claim_verdict`).

    ``REFUTED``: the audit proves a larger ε than the claim allows. ``CONSISTENT``: the
    audit could have refuted the claim (its best outcome proves more) and did not.
    ``TOO_WEAK``: no outcome of this audit could exceed the claim.
    """

    REFUTED = "refuted"
    CONSISTENT = "consistent"
    TOO_WEAK = "too_weak"


@dataclass(frozen=True)
class AuditedClaim:
    """A claimed guarantee read where an audit tests it: ``epsilon`` at ``delta`` for
    add/remove neighbours (one canary in or out), ``math.inf`` when the claim certifies no
    finite ε there. ``read_as_add_remove``: the claim is stated for replace-one neighbours and
    is tested as the add/remove guarantee with the same (ε, δ) -- an assumption, true of
    DP-SGD (whose clipped sum moves less when a record is removed than when it is replaced)
    but not of every mechanism."""

    epsilon: float
    delta: float
    read_as_add_remove: bool


def audited_claim(guarantee: Guarantee, delta: float) -> AuditedClaim:
    r"""The claim's ε at the audit's ``delta`` for the audit's neighbours: add/remove one canary.

    Both audits of this module include each canary, or each trial's record, by a coin: they
    test the add/remove relation. A :class:`~mipcore.guarantees.DpSgd` run is read for it
    directly (its accountant computes add/remove, which ``dp_accounting`` proves for Poisson
    sampling); a guarantee stated for add/remove as stated; a guarantee stated for
    replace-one as the add/remove guarantee with the same (ε, δ), with
    ``read_as_add_remove=True`` (sound for DP-SGD, an assumption otherwise: a mechanism that
    publishes the data's size is replace-one 0-DP and add/remove DP for no ε). The value is
    :func:`mipcore.guarantees.epsilon_at`.

    Parameters
    ----------
    guarantee : a guarantee of :mod:`mipcore.guarantees`.
    delta : float, ``0 <= delta < 1``: the audit's δ.

    Returns
    -------
    AuditedClaim

    Raises
    ------
    ValueError
        If ``guarantee`` is not a guarantee or ``delta`` is out of range.

    Examples
    --------
    >>> from mipcore.guarantees import DpSgd, EpsDelta
    >>> c = audited_claim(DpSgd(3.0, 0.05, 300), 1e-5)  # the digits example's DP-SGD run
    >>> round(c.epsilon, 2), c.read_as_add_remove
    (1.16, False)
    >>> audited_claim(EpsDelta(2.0, 1e-6), 1e-5)
    AuditedClaim(epsilon=2.0, delta=1e-05, read_as_add_remove=True)
    """
    d = float(check_range("delta", delta, 0.0, 1.0, hi_open=True))
    if isinstance(guarantee, DpSgd):
        eps = epsilon_at(guarantee, d, relation=Relation.ADD_OR_REMOVE_ONE)
        return AuditedClaim(eps, d, False)
    eps = epsilon_at(guarantee, d)
    return AuditedClaim(eps, d, guarantee.relation is Relation.REPLACE_ONE)


@dataclass(frozen=True)
class ClaimVerdict:
    """Outcome of :func:`claim_verdict`.

    ``verdict``; ``claimed_epsilon`` (the claim's ε at ``delta``, add/remove; inf: it
    certifies nothing there); ``proven_epsilon`` (the audit's lower bound); ``best_epsilon``
    (the most any outcome of this audit could prove: every guess right, or members and
    non-members perfectly apart); ``canaries`` (the audit's canaries, or rows for independent
    trials); ``canaries_needed`` (``TOO_WEAK`` only: the fewest canaries, or rows, at which an
    audit of the same design -- the same share of guesses, or of members -- proves more than
    the claim with every guess right, or perfectly apart; None otherwise, when the claim is
    infinite, when the audit makes no guess, or when no audit up to
    :data:`MAX_GUESSES_SEARCHED` guesses or :data:`MAX_TRIALS_SEARCHED` rows would -- at
    δ > 0 the one-run bound's δ term, 2mδ times a binomial probability, grows with the
    canaries as fast as the evidence, so past some ε no number of them suffices);
    ``one_run``: which audit.
    """

    verdict: Verdict
    claimed_epsilon: float
    proven_epsilon: float
    best_epsilon: float
    delta: float
    confidence: float
    canaries: int
    canaries_needed: int | None
    one_run: bool

    @property
    def excess(self) -> float:
        """How much more the audit proves than the claim allows (``proven − claimed``)."""
        return self.proven_epsilon - self.claimed_epsilon


def claim_verdict(audit: OneRunAudit | ScoreAudit, claim: AuditedClaim | float) -> ClaimVerdict:
    r"""Does the audit refute the claim, is it consistent with it, or too weak to tell?

    ``REFUTED`` when the audit's ε lower bound exceeds the claim's ε at the audit's δ (at the
    audit's confidence: were the claim true, an audit would refute it with probability at most
    ``1 − confidence``); ``TOO_WEAK`` when even the audit's best outcome could not -- every
    one of its guesses right (one run: :func:`one_run_epsilon` with ``correct = guesses``), or
    the members all ranked above the non-members (independent trials: the rule that flags
    every member and no non-member, certified as the audit's strategy certifies its rules);
    ``CONSISTENT`` otherwise: the audit could have refuted the claim and did not.

    For ``TOO_WEAK`` it computes how many canaries would test the claim: the smallest m at
    which the same share of guesses (``round(share · m)``, at least 1), all right, makes the
    one-run p-value of the claimed ε (:func:`one_run_p_value`) at most ``1 − confidence`` --
    the claim rejected; for independent trials, the fewest rows, members in the same share,
    at which a perfect separation proves more than the claim. Searched by doubling, then
    bisection: the number returned passes and the one below it fails.

    Parameters
    ----------
    audit : OneRunAudit or ScoreAudit.
    claim : AuditedClaim (:func:`audited_claim`) or the claimed ε at the audit's δ for
        add/remove neighbours, ``>= 0`` (``math.inf`` allowed: nothing claimed). An
        AuditedClaim must be read at the audit's δ.

    Returns
    -------
    ClaimVerdict

    Raises
    ------
    ValueError
        If ``audit`` is not an audit, the claimed ε is negative or NaN, or the claim's δ is
        not the audit's.

    Examples
    --------
    >>> audit = one_run_from_scores(range(200), [0] * 100 + [1] * 100, guesses=50, delta=1e-5)
    >>> v = claim_verdict(audit, 1.0)  # 50 of 50 guesses right
    >>> v.verdict.value, round(v.proven_epsilon, 2), round(v.best_epsilon, 2)
    ('refuted', 2.78, 2.78)
    >>> v = claim_verdict(audit, 4.0)  # guesses on 1/4 of the canaries, all right, from 675 on
    >>> v.verdict.value, v.canaries_needed
    ('too_weak', 675)
    """
    if not isinstance(audit, OneRunAudit | ScoreAudit):
        raise ValueError(f"audit={audit!r} is not a OneRunAudit or a ScoreAudit")
    if isinstance(claim, AuditedClaim) and claim.delta != audit.delta:
        raise ValueError(
            f"claim.delta={claim.delta!r} is not the audit's delta ({audit.delta!r}): read the "
            "claim at the audit's delta"
        )
    claimed = (
        claim.epsilon
        if isinstance(claim, AuditedClaim)
        else float(check_range("claim", claim, 0.0, math.inf))
    )
    alpha, d = 1.0 - audit.confidence, audit.delta
    if isinstance(audit, OneRunAudit):
        size, r = audit.canaries, audit.guesses
        best, share = _one_run_epsilon(size, r, r, d, alpha), r / size
        ceiling = math.floor(MAX_GUESSES_SEARCHED / share) if r else 0

        def refutes(m: int) -> bool:  # every guess right rejects the claimed ε
            k = min(max(round(share * m), 1), m)
            return _one_run_p(m, k, k, claimed, d) <= alpha

    else:
        size, ceiling = audit.members + audit.non_members, MAX_TRIALS_SEARCHED
        share, split = audit.members / size, audit.strategy is ThresholdStrategy.SPLIT
        bonferroni = audit.strategy is ThresholdStrategy.BONFERRONI
        design = (bonferroni, split, audit._max_thresholds, audit._split_fraction, alpha, d)
        best = _separated_epsilon(audit.members, audit.non_members, *design)

        def refutes(m: int) -> bool:  # members and non-members perfectly apart prove more
            members, non_members = _sizes(m, share)
            return _separated_epsilon(members, non_members, *design) > claimed

    needed = None
    if audit.epsilon > claimed:
        verdict = Verdict.REFUTED
    elif best > claimed:
        verdict = Verdict.CONSISTENT
    else:
        verdict = Verdict.TOO_WEAK
        if math.isfinite(claimed) and ceiling > size:
            needed = _smallest(refutes, size, ceiling)
    return ClaimVerdict(
        verdict=verdict,
        claimed_epsilon=claimed,
        proven_epsilon=audit.epsilon,
        best_epsilon=best,
        delta=d,
        confidence=audit.confidence,
        canaries=size,
        canaries_needed=needed,
        one_run=isinstance(audit, OneRunAudit),
    )
