r"""The canary audit as an experiment: the membership game with a canary, played N times.

Izzo, Yoon, Arık, Zou. *Provable Membership Inference Privacy*. TMLR 2024, arXiv:2211.06582
(Definition 1: the membership game with a random half; Proposition 2: the optimal
attacker; Theorem 4: DP ⇒ MIP; Theorem 9 / Corollary 14: MIP noise). Malek Esmaeili,
Mironov, Prasad, Shilov, Tramèr. *Antipodes of Label Differential Privacy: PATE and ALIBI*.
NeurIPS 2021, arXiv:2106.03408, Appendix B (Game 1 with abstention, Theorem B.1, the
multiple-testing trap).

In three steps: :func:`play_game` (seconds for long or covariance games: a page runs it as
a job) plays :func:`mipcore.canary_audit.run_canary_audit` in chunks of at most
:data:`CHUNK` trials (an :class:`AuditGame`); :func:`summarize` reads the game at an
abstention threshold τ and a confidence level, so that moving τ never replays the game (an
:class:`AuditSummary`: counts, Clopper–Pearson intervals, the ε and η lower bounds, the
largest ε the trials could ever show, the ROC, on request the multiple-testing trap);
:func:`certified_bounds` says what the noise promises (a :class:`Certificate`: which
theorem, η, ε or μ, the noise multiplier and dimension).

The certificate of the MIP noise. The audit adds Theorem 9's noise with Corollary 14's
multiplier ``c = (6.16/η)^2`` (M = 2; :meth:`mipcore.noise_laws.NoiseLaw.mip`, the Gamma
radius) to the d released numbers. What that noise *certifies* is
:func:`mipcore.mechanism.certified_level`: ``(1 − e^{−1/c})/2`` in every dimension (the
dimension-free argument T1-T4 of :mod:`mipcore.theorem9`), far below the η it was
calibrated for. The printed Laplace radius in d > 1 (``MipCalibration.AS_PRINTED``) is
certified by nothing; :func:`certified_bounds` then says so instead of claiming η-MIP.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import as_enum, check_int, check_range
from ..audit_stats import (
    clopper_pearson,
    epsilon_lower_bound,
    eta_estimate,
    eta_lower_bound,
    guess_counts,
    max_certifiable_epsilon,
    roc_points,
    top_k_guess_counts,
)
from ..bounds import eta_from_epsilon
from ..canary_audit import (
    COVARIANCE_AUDIT_LR,
    COVARIANCE_AUDIT_T,
    AuditAttacker,
    AuditMechanism,
    AuditNoise,
    CanaryAudit,
    run_canary_audit,
)
from ..covariance_gd import gd_closed_form
from ..guarantees import eta_from_gdp
from ..mechanism import MipCalibration, certified_level, noise_multiplier_for
from ..noise import COROLLARY14_CONSTANT

__all__ = [
    "CANARY",
    "CHUNK",
    "COV_CANARY",
    "COV_DIM",
    "MAX_TRIALS",
    "MIN_TRIALS",
    "MIP_MOMENT",
    "N_RECORDS",
    "SEED",
    "AuditGame",
    "AuditSummary",
    "Certificate",
    "CertificateBasis",
    "TrapResult",
    "certified_bounds",
    "chunk_sizes",
    "multiple_testing_trap",
    "play_game",
    "summarize",
    "thin_roc",
    "trial_ceiling",
]

N_RECORDS = 8  # 7 ordinary records plus the canary
CANARY = 10.0  # the mean / count canary (records linspace(0, 1, 7))
COV_CANARY = 3.0  # the covariance canary's length (records in R^2, Figure 2's law)
COV_DIM = 2
CHUNK = 10_000
SEED = 20240501
MIN_TRIALS = 100
#: Trials one request may ask for on a server with work limit 1 (:func:`trial_ceiling`).
MAX_TRIALS = 100_000
#: The moment order of the audit's Theorem 9 noise (Corollary 14's M = 2).
MIP_MOMENT = 2

#: ``progress(fraction, message)``, as ``appkit.jobs.run`` passes it.
Progress = Callable[[float, str], None]


def trial_ceiling(work_limit: float = 1.0) -> int:
    """The most trials one request may ask for: ``MAX_TRIALS · work_limit``, at most 10⁷.

    ``work_limit >= 1`` (the server's ``MIP_EXPLORER_WORK_LIMIT``).

    Examples
    --------
    >>> trial_ceiling(), trial_ceiling(20)
    (100000, 2000000)
    """
    w = float(check_range("work_limit", work_limit, 1.0, math.inf, hi_open=True))
    return int(min(10**7, math.floor(MAX_TRIALS * w)))


def chunk_sizes(trials: int, chunk: int = CHUNK) -> list[int]:
    """Split ``trials`` into near-equal chunks of at most ``chunk`` (each >= 100 when trials >= 100).

    Examples
    --------
    >>> chunk_sizes(25_000)
    [8334, 8333, 8333]
    """
    trials = check_int("trials", trials, 1)
    chunk = check_int("chunk", chunk, 1)
    m = max(1, math.ceil(trials / chunk))
    base, extra = divmod(trials, m)
    return [base + (1 if i < extra else 0) for i in range(m)]


# --------------------------------------------------------------------------- certificates


class CertificateBasis(StrEnum):
    """What a noise's certified upper bound rests on."""

    #: No noise: nothing is certified (η ≤ 1/2 holds for every mechanism).
    NOTHING = "nothing"
    #: Theorem 9's density ∝ exp(−||x||/(cσ)): (1 − e^{−1/c})/2, in every dimension (T1-T4).
    THEOREM9 = "theorem9"
    #: Theorem 9 noise with the printed Laplace radius in d > 1: no proof covers it.
    UNCERTIFIED = "uncertified"
    #: Laplace(Δ₁/ε) on every coordinate is ε-DP; Theorem 4 gives η = tanh(ε/2)/2.
    THEOREM4 = "theorem4"
    #: Gaussian(Δ₂/ε) on every coordinate is ε-Gaussian-DP; η = Φ(ε/2) − 1/2.
    GAUSSIAN_DP = "gaussian_dp"


@dataclass(frozen=True)
class Certificate:
    """What a noise promises about every attacker.

    ``eta``: the certified upper bound on η (1/2 when nothing is certified); ``epsilon``:
    a certified pure ε, or None; ``gdp_mu``: μ of a μ-GDP guarantee, or None. For MIP noise:
    ``target_eta`` (the η Corollary 14's multiplier was chosen for), ``noise_multiplier`` c
    and ``calibration``. ``dimension``: how many numbers are released (noised).
    """

    basis: CertificateBasis
    eta: float
    epsilon: float | None
    gdp_mu: float | None
    target_eta: float | None
    noise_multiplier: float | None
    dimension: int
    calibration: MipCalibration | None

    @property
    def certified(self) -> bool:
        """Whether anything beyond the trivial η ≤ 1/2 is certified."""
        return self.basis not in (CertificateBasis.NOTHING, CertificateBasis.UNCERTIFIED)

    @property
    def accuracy(self) -> float:
        """The best attacker's certified accuracy, ``1/2 + η``."""
        return 0.5 + self.eta

    @property
    def advantage(self) -> float:
        """The certified membership advantage TPR − FPR, ``2η``."""
        return 2.0 * self.eta


def certified_bounds(
    noise: AuditNoise | str,
    eta: float,
    epsilon: float,
    *,
    dimension: int = 1,
    M: float = MIP_MOMENT,
    constant: float = COROLLARY14_CONSTANT,
    calibration: MipCalibration | str = MipCalibration.PAPER,
) -> Certificate:
    r"""The certified upper bounds of the audit's noise, as a structured :class:`Certificate`.

    * ``"none"``: nothing certified (η ≤ 1/2 holds for every mechanism).
    * ``"mip"``: Theorem 9 noise with the multiplier ``calibration`` gives for target
      ``eta`` (:func:`mipcore.mechanism.noise_multiplier_for`; the audit's is Corollary
      14's ``(6.16/η)^2``) on ``dimension`` numbers. Certified:
      :func:`mipcore.mechanism.certified_level` -- ``(1 − e^{−1/c})/2`` in every dimension for
      the Gamma radius, far below ``eta``; for the printed Laplace radius and d > 1 nothing
      (basis ``UNCERTIFIED``, η = 1/2). No pure ε.
    * ``"laplace"``: Laplace(Δ₁/ε) on every coordinate (Δ₁ the L1 sensitivity) is ε-DP,
      hence η ≤ tanh(ε/2)/2 (Theorem 4, :func:`mipcore.bounds.eta_from_epsilon`).
    * ``"gaussian"``: Gaussian(std Δ₂/ε) on every coordinate (Δ₂ the L2 sensitivity) is
      μ-GDP with μ = ε; η ≤ Φ(ε/2) − 1/2 (:func:`mipcore.guarantees.eta_from_gdp`). It is not
      ε-DP for any finite ε.

    Parameters
    ----------
    noise : AuditNoise or its value.
    eta : ``0 < eta <= 1/2``, the MIP noise's target (used by ``"mip"``).
    epsilon : ``0 < epsilon < inf`` (used by ``"laplace"`` and ``"gaussian"``).
    dimension : integer ``>= 1``, the number of released (noised) numbers.
    M : moment order of the MIP noise, ``M >= 1``. constant : ``>= 6.16``.
    calibration : :class:`mipcore.mechanism.MipCalibration` or its value.

    Returns
    -------
    Certificate

    Raises
    ------
    ValueError
        Naming the parameter, for input out of its domain.

    Examples
    --------
    >>> round(certified_bounds("laplace", 0.1, 1.0).eta, 4)  # tanh(1/2)/2
    0.2311
    >>> c = certified_bounds("mip", 0.2, 1.0, dimension=4)
    >>> c.basis.value, round(c.noise_multiplier, 2), round(c.eta, 6)
    ('theorem9', 948.64, 0.000527)
    >>> certified_bounds("mip", 0.2, 1.0, dimension=4, calibration="as_printed").basis.value
    'uncertified'
    """
    kind = as_enum("noise", noise, AuditNoise)
    e = float(check_range("eta", eta, 0.0, 0.5, lo_open=True))
    eps = float(check_range("epsilon", epsilon, 0.0, math.inf, lo_open=True, hi_open=True))
    d = check_int("dimension", dimension, 1)
    m = float(check_range("M", M, 1.0, math.inf, hi_open=True))
    cal = as_enum("calibration", calibration, MipCalibration)
    if kind is AuditNoise.NONE:
        return Certificate(CertificateBasis.NOTHING, 0.5, None, None, None, None, d, None)
    if kind is AuditNoise.MIP:
        c = noise_multiplier_for(e, M=m, d=d, calibration=cal, constant=constant)
        level = certified_level(c, M=m, d=d, calibration=cal)
        if level is None:
            return Certificate(CertificateBasis.UNCERTIFIED, 0.5, None, None, e, c, d, cal)
        return Certificate(CertificateBasis.THEOREM9, level, None, None, e, c, d, cal)
    if kind is AuditNoise.LAPLACE:
        return Certificate(
            CertificateBasis.THEOREM4, float(eta_from_epsilon(eps)), eps, None, None, None, d, None
        )
    return Certificate(
        CertificateBasis.GAUSSIAN_DP, float(eta_from_gdp(eps)), None, eps, None, None, d, None
    )


# --------------------------------------------------------------------------- the game


@dataclass(frozen=True)
class AuditGame:
    """Result of :func:`play_game`: every trial, and what the mechanism fixes.

    ``audit`` is the first chunk's own :class:`~mipcore.canary_audit.CanaryAudit`: the
    mechanism (``mechanism``, ``attacker``, ``threshold``, the records ``data`` with the
    canary last, the replace-one ``sensitivity``/``sensitivity_l2``, the exact ``sigma`` per
    released number, the noise law ``noise``, ``output_dim``) and the best attacker
    (Proposition 2: ``exact_accuracy``, ``exact_eta``, ``exact_interval``, exact or Monte
    Carlo by ``exact_method``). ``scores``/``labels``: the attacker's score (posterior log-odds
    for the likelihood-ratio attacker) and the truth (canary in) of every trial. ``noise``:
    the noise asked for; ``certificate``: what it promises.
    """

    noise: AuditNoise
    audit: CanaryAudit
    scores: NDArray[np.float64] = field(repr=False)
    labels: NDArray[np.bool_] = field(repr=False)
    certificate: Certificate

    @property
    def canary(self) -> NDArray[np.float64]:
        """The planted record (the last one), as an array of its coordinates."""
        return np.atleast_1d(self.audit.data[-1])

    @property
    def monte_carlo(self) -> bool:
        """Whether the best attacker's accuracy is a Monte Carlo estimate."""
        return self.audit.exact_method == "monte carlo"

    @property
    def gd_residual(self) -> float | None:
        """``(1 − 2 lr)^T``: the share of S gradient descent has not reached (the covariance
        release only, else None)."""
        if self.audit.mechanism is not AuditMechanism.COVARIANCE:
            return None
        return 1.0 - float(gd_closed_form(1.0, COVARIANCE_AUDIT_T, COVARIANCE_AUDIT_LR))


def play_game(
    mechanism: AuditMechanism | str,
    noise: AuditNoise | str,
    attacker: AuditAttacker | str,
    *,
    trials: int,
    epsilon: float,
    eta: float,
    threshold: float = 0.5,
    progress: Progress | None = None,
) -> AuditGame:
    r"""Play the membership game ``trials`` times against the audit's mechanism.

    The dataset: :data:`N_RECORDS` records, the last the canary (:data:`CANARY` for the mean
    and the count, a vector of length :data:`COV_CANARY` in R² for the covariance release);
    chunk i of :func:`chunk_sizes` is played by :func:`mipcore.canary_audit.run_canary_audit`
    with seed ``[SEED, i]`` and abstention margin 0; the first chunk also computes the best
    attacker's accuracy (exact, or Monte Carlo for the noisy covariance release: seconds).

    Parameters
    ----------
    mechanism, noise, attacker : the enums of :mod:`mipcore.canary_audit` or their values.
    trials : ``100 <= trials <= 10^7``.
    epsilon : ``0 < ε < inf``: Laplace(Δ₁/ε) or Gaussian(Δ₂/ε) noise.
    eta : ``0 < η <= 1/2``: the target of the MIP noise.
    threshold : finite; the count's threshold (unused otherwise).
    progress : optional ``progress(fraction, message)``.

    Returns
    -------
    AuditGame

    Raises
    ------
    ValueError
        Naming the parameter, for input out of its domain (``noise``, ``eta`` and
        ``epsilon`` are checked by :func:`certified_bounds`, before any trial; the attacker and
        the threshold by :func:`mipcore.canary_audit.run_canary_audit`).

    Examples
    --------
    >>> g = play_game("mean", "laplace", "lr", trials=2000, epsilon=1.0, eta=0.1)
    >>> g.scores.shape, round(g.audit.exact_accuracy, 4), round(g.certificate.eta, 4)
    ((2000,), 0.6887, 0.2311)
    """
    mech = as_enum("mechanism", mechanism, AuditMechanism)
    trials = check_int("trials", trials, MIN_TRIALS, 10**7)
    covariance = mech is AuditMechanism.COVARIANCE
    cert = certified_bounds(noise, eta, epsilon, dimension=COV_DIM**2 if covariance else 1)
    kind = AuditNoise(noise)
    sizes = chunk_sizes(trials)
    scores, labels = [], []
    first = None
    for i, size in enumerate(sizes):
        message = (
            "the best possible attack (Monte Carlo) and the first trials"
            if i == 0 and covariance and kind is not AuditNoise.NONE
            else f"playing trials {sum(sizes[:i]) + 1:,} to {sum(sizes[: i + 1]):,}"
        )
        if progress is not None:
            progress(i / len(sizes), message)
        a = run_canary_audit(
            size,
            n=N_RECORDS,
            canary=COV_CANARY if covariance else CANARY,
            noise=kind,
            epsilon=float(epsilon) if kind in (AuditNoise.LAPLACE, AuditNoise.GAUSSIAN) else None,
            eta=float(eta) if kind is AuditNoise.MIP else None,
            mechanism=mech,
            threshold=threshold,
            attacker=attacker,
            dim=COV_DIM,
            exact=i == 0,
            rng=np.random.default_rng([SEED, i]),
        )
        scores.append(a.scores)
        labels.append(a.labels)
        first = first or a
    assert first is not None and first.exact_accuracy is not None
    if progress is not None:
        progress(1.0, f"played {trials:,} trials")
    return AuditGame(kind, first, np.concatenate(scores), np.concatenate(labels), cert)


# --------------------------------------------------------------------------- the summary


@dataclass(frozen=True)
class TrapResult:
    """The multiple-testing trap: the ε lower bound with τ chosen on the same trials
    (``eps_same``, biased) and on held-out trials (``eps_heldout``, valid)."""

    tau_same: float
    eps_same: float
    guesses_same: int
    tau_heldout: float
    eps_heldout: float
    guesses_heldout: int
    eval_trials: int
    choice_trials: int


def multiple_testing_trap(
    scores: ArrayLike, labels: ArrayLike, confidence: float
) -> TrapResult | None:
    """The multiple-testing trap of an audit (Malek Esmaeili et al., Appendix B).

    Same trials: try every abstention threshold τ (guess only where |ℓ| ≥ τ;
    :func:`mipcore.audit_stats.top_k_guess_counts`) and report the largest ε lower bound --
    a maximum over many tests, so its stated confidence is wrong. Held out: pick τ the same
    way on the first half of the trials, then compute the bound once on the second half.
    Returns None when no trial has ℓ ≠ 0.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(2000) < 0.5
    >>> t = multiple_testing_trap(np.where(y, 1.0, -1.0) + rng.normal(0, 2, 2000), y, 0.95)
    >>> t.eps_same >= t.eps_heldout
    True
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    thr, g, c = top_k_guess_counts(s, y)
    if thr.size == 0:
        return None
    eps = np.asarray(epsilon_lower_bound(c, g, conf), dtype=float)
    i = int(np.argmax(eps))
    half = s.size // 2
    thr_h, g_h, c_h = top_k_guess_counts(s[:half], y[:half])
    if thr_h.size == 0:
        return None
    eps_h = np.asarray(epsilon_lower_bound(c_h, g_h, conf), dtype=float)
    tau_h = float(thr_h[int(np.argmax(eps_h))])
    se, ye = s[half:], y[half:]
    # the rule chosen on the first half: guess where |ℓ| >= τ, abstain elsewhere
    g_e, c_e = guess_counts(np.where(np.abs(se) >= tau_h, se, 0.0), ye)
    eps_e = float(epsilon_lower_bound(c_e, g_e, conf)) if g_e else 0.0
    return TrapResult(
        float(thr[i]), float(eps[i]), int(g[i]), tau_h, eps_e, g_e, int(se.size), half
    )


def thin_roc(
    fpr: ArrayLike, tpr: ArrayLike, max_points: int = 2000
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """At most ``max_points`` ROC points (evenly spaced indices, both ends kept) for plotting."""
    f, t = np.asarray(fpr, float), np.asarray(tpr, float)
    if f.size <= max_points:
        return f, t
    idx = np.unique(np.linspace(0, f.size - 1, max_points).round().astype(int))
    return f[idx], t[idx]


@dataclass(frozen=True)
class AuditSummary:
    """What an audit shows at one abstention threshold τ and confidence level.

    The attacker that answers every trial (τ = 0; an exact tie counts as "out"):
    ``answered_correct`` of ``trials`` and the two-sided Clopper–Pearson
    ``accuracy_interval`` of its accuracy. At abstention threshold τ ("in" if ℓ > τ, "out" if
    ℓ < −τ): ``guesses``, ``correct`` and the interval of the correct-guess rate
    ``cgr_interval`` (None if it abstained everywhere); the one-sided lower bounds
    ``eta_lower`` and ``epsilon_lower`` (Theorem B.1) at ``confidence``; ``max_epsilon``, the
    largest ε ``trials`` guesses can ever show. ``certificate``: what the noise promises.
    ``fpr``/``tpr``: the attacker's ROC (at most 2000 points). ``trap``: the multiple-testing
    trap when asked for (None when not asked for or when every score is 0).
    """

    trials: int
    tau: float
    confidence: float
    answered_correct: int
    accuracy_interval: tuple[float, float]
    guesses: int
    correct: int
    cgr_interval: tuple[float, float] | None
    eta_lower: float
    epsilon_lower: float
    max_epsilon: float
    certificate: Certificate
    fpr: NDArray[np.float64] = field(repr=False)
    tpr: NDArray[np.float64] = field(repr=False)
    trap: TrapResult | None

    @property
    def accuracy(self) -> float:
        """The answering attacker's accuracy, ``answered_correct / trials``."""
        return self.answered_correct / self.trials

    @property
    def cgr(self) -> float | None:
        """The correct-guess rate at τ (None if the attacker abstained on every trial)."""
        return self.correct / self.guesses if self.guesses else None

    @property
    def abstentions(self) -> int:
        """Trials on which the attacker abstained at τ."""
        return self.trials - self.guesses

    @property
    def eta_hat(self) -> float:
        """The estimated η, abstentions counted as coin flips."""
        return float(eta_estimate(self.correct, self.guesses, self.trials))

    @property
    def accuracy_lower(self) -> float:
        """The accuracy the audit proves some attacker reaches: ``1/2 + eta_lower``."""
        return 0.5 + self.eta_lower

    @property
    def consistent(self) -> bool:
        """Whether the measured lower bound stays within the certified η."""
        return self.eta_lower <= self.certificate.eta

    @property
    def risk(self) -> float:
        """``1 − confidence``: the chance a correct certificate is contradicted anyway."""
        return 1.0 - self.confidence


def summarize(
    game: AuditGame, tau: float, confidence: float, *, trap: bool = False
) -> AuditSummary:
    r"""Counts and bounds of ``game`` at abstention threshold ``tau`` and ``confidence``.

    Parameters
    ----------
    game : AuditGame
    tau : ``0 <= tau < inf``, the abstention threshold on |score|.
    confidence : ``0 < confidence < 1`` for every interval and lower bound.
    trap : also compute :func:`multiple_testing_trap`.

    Returns
    -------
    AuditSummary

    Raises
    ------
    ValueError
        Naming the parameter, for input out of its domain.

    Examples
    --------
    >>> g = play_game("mean", "laplace", "lr", trials=2000, epsilon=1.0, eta=0.1)
    >>> s = summarize(g, 0.0, 0.95)
    >>> s.guesses == s.trials, s.consistent, s.eta_lower <= s.certificate.eta
    (True, True, True)
    """
    t = float(check_range("tau", tau, 0.0, math.inf, hi_open=True))
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    s, y = game.scores, game.labels
    n = int(s.size)
    # the attacker that answers every trial: "in" when ℓ > 0, else "out" (ties too)
    _, answered = guess_counts(np.where(s > 0, 1.0, -1.0), y)
    lo, hi = clopper_pearson(answered, n, conf)
    guesses, correct = guess_counts(s, y, t)
    cgr_iv: tuple[float, float] | None = None
    eps_lb = eta_lb = 0.0
    if guesses:
        clo, chi = clopper_pearson(correct, guesses, conf)
        cgr_iv = (float(clo), float(chi))
        eps_lb = float(epsilon_lower_bound(correct, guesses, conf))
        eta_lb = float(eta_lower_bound(correct, guesses, n, conf))
    if 0 < int(y.sum()) < n:
        fpr, tpr = thin_roc(*roc_points(s, y))
    else:  # one class only: no ROC to speak of
        fpr, tpr = np.array([0.0, 1.0]), np.array([0.0, 1.0])
    return AuditSummary(
        trials=n,
        tau=t,
        confidence=conf,
        answered_correct=answered,
        accuracy_interval=(float(lo), float(hi)),
        guesses=guesses,
        correct=correct,
        cgr_interval=cgr_iv,
        eta_lower=eta_lb,
        epsilon_lower=eps_lb,
        max_epsilon=float(max_certifiable_epsilon(n, conf)),
        certificate=game.certificate,
        fpr=fpr,
        tpr=tpr,
        trap=multiple_testing_trap(s, y, conf) if trap else None,
    )
