"""Pure-Python helpers for the "Audit a mechanism" page (no Streamlit).

The page runs :func:`mipcore.canary_audit.run_canary_audit` in chunks (for a progress bar and
caching) with abstention margin 0, keeps the likelihood-ratio scores and labels, and
re-derives everything that depends on the abstention threshold τ or the confidence level
here, from the same scores -- so moving τ never re-runs the game.

Sources: ``000`` Definition 1 and Theorem 4, ``001`` Appendix B (Game 1, Theorem B.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..audit_stats import (
    clopper_pearson,
    epsilon_lower_bound,
    eta_estimate,
    eta_lower_bound,
    max_certifiable_epsilon,
)
from ..bounds import eta_from_epsilon

__all__ = [
    "CANARY",
    "CHUNK",
    "COV_CANARY",
    "COV_DIM",
    "N_RECORDS",
    "AuditSummary",
    "TrapResult",
    "certified_bounds",
    "chunk_sizes",
    "multiple_testing_trap",
    "summarise",
    "thin_roc",
]

N_RECORDS = 8  # 7 ordinary records plus the canary
CANARY = 10.0  # the mean / count canary (records linspace(0, 1, 7))
COV_CANARY = 3.0  # the covariance canary's length (records in R^2, Figure 2's law)
COV_DIM = 2
CHUNK = 10_000


def chunk_sizes(trials: int, chunk: int = CHUNK) -> list[int]:
    """Split ``trials`` into near-equal chunks of at most ``chunk`` (each >= 100 when trials >= 100)."""
    m = max(1, math.ceil(trials / chunk))
    base, extra = divmod(trials, m)
    return [base + (1 if i < extra else 0) for i in range(m)]


def certified_bounds(noise: str, eta: float, eps: float) -> tuple[float, float | None, str]:
    """Certified upper bounds ``(η_ub, ε_ub or None, reason)`` for the chosen noise.

    * none: nothing certified (η ≤ 1/2 trivially).
    * MIP at η (Theorem 9 / Corollary 14): η-MIP; no ε.
    * Laplace(Δ₁/ε) on every coordinate (Δ₁ the L1 sensitivity): ε-DP, hence
      η ≤ tanh(ε/2)/2 (Theorem 4).
    * Gaussian(std Δ₂/ε) on every coordinate (Δ₂ the L2 sensitivity): μ-GDP with μ = ε; the total-variation distance between neighbours
      is 2Φ(μ/2) − 1, and it is jointly convex over the matched pairs of the game, so
      η ≤ Φ(ε/2) − 1/2. No finite pure ε.
    """
    if noise == "none":
        return 0.5, None, "no noise: nothing is certified (η ≤ 1/2 holds for every mechanism)"
    if noise == "mip":
        return float(eta), None, f"Theorem 9 / Corollary 14 noise certifies η-MIP with η = {eta:g}"
    if noise == "laplace":
        return (
            float(eta_from_epsilon(eps)),
            float(eps),
            "Laplace(Δ₁/ε) is ε-DP, so Theorem 4 gives η",
        )
    if noise == "gaussian":
        return (
            float(stats.norm.cdf(eps / 2.0) - 0.5),
            None,
            "Gaussian(std Δ₂/ε) is ε-Gaussian-DP: η ≤ Φ(ε/2) − 1/2; it is not ε-DP for any finite ε",
        )
    raise ValueError(f"noise={noise!r} is not one of none, mip, laplace, gaussian")


@dataclass(frozen=True)
class AuditSummary:
    trials: int
    acc_correct: int  # τ = 0 attacker (answers every trial; exact ties -> "out")
    accuracy: float
    accuracy_ci: tuple[float, float]
    guesses: int
    correct: int
    cgr: float | None
    cgr_ci: tuple[float, float] | None
    eta_hat: float
    eta_lower: float
    epsilon_lower: float
    max_epsilon: float


def summarise(scores, labels, tau: float, confidence: float) -> AuditSummary:
    """Counts and bounds at abstention threshold τ: 'in' if ℓ > τ, 'out' if ℓ < −τ, else abstain."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    n = int(s.size)
    acc_correct = int(np.sum((s > 0) == y))
    lo, hi = clopper_pearson(acc_correct, n, confidence)
    g_in, g_out = s > tau, s < -tau
    guesses = int(np.sum(g_in | g_out))
    correct = int(np.sum((g_in & y) | (g_out & ~y)))
    if guesses:
        clo, chi = clopper_pearson(correct, guesses, confidence)
        cgr, cgr_ci = correct / guesses, (float(clo), float(chi))
        eps_lb = float(epsilon_lower_bound(correct, guesses, confidence))
        eta_lb = float(eta_lower_bound(correct, guesses, n, confidence))
        eta_hat = float(eta_estimate(correct, guesses, n))
    else:
        cgr, cgr_ci, eps_lb, eta_lb, eta_hat = None, None, 0.0, 0.0, 0.0
    return AuditSummary(
        n,
        acc_correct,
        acc_correct / n,
        (float(lo), float(hi)),
        guesses,
        correct,
        cgr,
        cgr_ci,
        eta_hat,
        eta_lb,
        eps_lb,
        float(max_certifiable_epsilon(n, confidence)),
    )


def _top_k_counts(scores: np.ndarray, labels: np.ndarray, max_candidates: int = 200):
    """For the rules 'guess on the k most confident trials' (|ℓ| ≥ threshold, no tie split):
    arrays (thresholds, guesses, correct) over up to ``max_candidates`` values of k."""
    a = np.abs(scores)
    right = (scores > 0) == labels
    order = np.argsort(-a, kind="stable")
    a, right = a[order], right[order]
    cum = np.cumsum(right)
    ends = np.flatnonzero(np.r_[a[1:] != a[:-1], True])  # last index of each tie group
    ends = ends[a[ends] > 0]  # never "guess" on ℓ = 0
    if ends.size == 0:
        return np.empty(0), np.empty(0, int), np.empty(0, int)
    if ends.size > max_candidates:
        pick = np.unique(np.geomspace(1, ends.size, max_candidates).astype(int) - 1)
        ends = ends[pick]
    return a[ends], ends + 1, cum[ends]


@dataclass(frozen=True)
class TrapResult:
    tau_same: float
    eps_same: float  # ε lower bound with τ picked to maximise it on the same trials (biased)
    guesses_same: int
    tau_heldout: float
    eps_heldout: float  # τ picked on the first half, bound computed on the second half only
    guesses_heldout: int
    eval_trials: int


def multiple_testing_trap(scores, labels, confidence: float) -> TrapResult | None:
    """The multiple-testing trap of an audit (``001`` Appendix B).

    Same trials: try every abstention threshold τ (guess only where |ℓ| ≥ τ) and report the
    largest ε lower bound -- a maximum over many tests, so its stated confidence is wrong.
    Held out: pick τ the same way on the first half of the trials, then compute the bound once
    on the second half. Returns None when no trial has ℓ ≠ 0.
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    thr, g, c = _top_k_counts(s, y)
    if thr.size == 0:
        return None
    eps = np.asarray(epsilon_lower_bound(c, g, confidence), dtype=float)
    i = int(np.argmax(eps))
    half = s.size // 2
    thr_h, g_h, c_h = _top_k_counts(s[:half], y[:half])
    if thr_h.size == 0:
        return None
    eps_h = np.asarray(epsilon_lower_bound(c_h, g_h, confidence), dtype=float)
    tau_h = float(thr_h[int(np.argmax(eps_h))])
    se, ye = s[half:], y[half:]
    guess = np.abs(se) >= tau_h
    g_e = int(guess.sum())
    c_e = int(np.sum(guess & ((se > 0) == ye)))
    eps_e = float(epsilon_lower_bound(c_e, g_e, confidence)) if g_e else 0.0
    return TrapResult(float(thr[i]), float(eps[i]), int(g[i]), tau_h, eps_e, g_e, int(se.size))


def thin_roc(fpr, tpr, max_points: int = 2000):
    """At most ``max_points`` ROC points (evenly spaced indices, both ends kept) for plotting."""
    fpr, tpr = np.asarray(fpr, float), np.asarray(tpr, float)
    if fpr.size <= max_points:
        return fpr, tpr
    idx = np.unique(np.linspace(0, fpr.size - 1, max_points).round().astype(int))
    return fpr[idx], tpr[idx]
