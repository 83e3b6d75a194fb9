r"""Play the attacker: the membership game of Definition 1 as a classroom game.

Each round the app secretly tosses a fair coin: heads, the target record is in the training
half; tails, it is not. A uniformly random training half consistent with the coin is drawn
(k = n/2 records, so the target is in it with probability exactly 1/2, as in Definition 1 of
Izzo, Yoon, Arık and Zou, *Provable Membership Inference Privacy*, TMLR 2024,
arXiv:2211.06582), a small mechanism releases a noisy statistic of it, and the player sees the
release, the target and (if the teacher allows) the two release laws, and clicks "in" or "out".

**Mechanisms** (:class:`GameMechanism`), both on n records (even, 4 <= n <= 12):

* ``MEAN`` -- the mean of the training half plus noise, on the canary audit's dataset
  (:func:`mipcore.canary_audit.canary_mechanism`, ``mechanism="mean"``): ``n − 1`` ordinary
  records ``linspace(0, 1, n − 1)`` and a planted canary (default 10); the replace-one
  sensitivity and σ come from that mechanism.
* ``PROP11`` -- Proposition 11's ``𝒜(D) = 1/Σ_{x∈D} x`` on ``{2^0, …, 2^(n−2)} ∪ {A}``
  (:func:`mipcore.prop11_attack.prop11_outputs`) plus noise: bounded spread, huge sensitivity.

**Noise** (:class:`Calibration`), Laplace in both cases:

* ``EPSILON`` -- ``Laplace(Δ/ε)`` with Δ the replace-one sensitivity: ε-DP, so Theorem 4
  certifies ``η = tanh(ε/2)/2`` (:func:`mipcore.bounds.eta_from_epsilon`);
* ``ETA`` -- Theorem 9's noise in one dimension, ``Laplace(c σ)`` with the smallest
  certified ``c = −1/ln(1 − 2η)`` (:func:`mipcore.theorem9.required_noise_multiplier`: the
  release is then ``(1 − e^{−1/c})/2 <= η``-MIP) and σ the standard deviation of the output over all
  training halves (for Proposition 11 the certified upper end of
  :func:`mipcore.prop11.output_moments` at relative width 1e-6). Corollary 14's printed
  ``c = (6.16/η)²`` would add about 850 times more noise at η = 0.1 and make every game a
  coin toss. ``0 < η < 1/2``.

**What each round knows exactly.** The release laws are finite Laplace mixtures,
``p_in(y) = mean_{D ∋ x*} f(y − 𝒜(D))`` and ``p_out`` likewise over the halves without the
target, evaluated in closed form; the Bayes-optimal attacker (Proposition 2) says "in" iff
``p_in(y) >= p_out(y)`` (prior 1/2), and its long-run accuracy is computed exactly by
:func:`mipcore.optimal_attack.optimal_attack`. It never exceeds the certified ``1/2 + η``.

**Determinism.** Round k of seed s is drawn from ``numpy.random.default_rng([s, k])`` alone,
in a fixed order (membership coin, training half, noise): the same for every student who
opens the same link, whatever order the rounds are played in and whatever was answered. The
coin does not depend on the settings, so the same seed gives the same secret coins for every
mechanism.

**Scoring** (:func:`score_game`): the player's correct count with one two-sided
Clopper–Pearson interval, the Bayes-optimal attacker's score on the same rounds, and a verdict
read off that same interval: its lower end above ``1/2 + η`` (evidence of beating the
certificate -- which a correct certificate lets happen only by luck, with probability at most
(1 − confidence)/2), above 1/2 (better than coin flips), its upper end below 1/2 (worse than
coin flips: the answers carry information, read backwards), or none of these. The page shows
exactly this interval, so the verdict never quotes a bound the score does not show.
:func:`luck_lesson` says how likely such luck is when a whole class plays.

**A game in play** (:func:`game_state`): after a player's answers, the round to answer (its
release, never its secret), every answered round with its truth and the Bayes-optimal answer,
the last one revealed with its likelihood ratio, and the score; the two release laws to draw
beside them come once per setting (:func:`release_laws`).

The target record is, unless chosen, the record whose membership is easiest to infer (the
largest exact η over the n records): the canary for ``MEAN``, the worst-case record for
``PROP11``. MIP is a worst case over targets, so that is the record the certificate must cover.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from . import prop11
from ._validate import as_enum, check_int, check_range
from .audit_stats import clopper_pearson
from .bounds import eta_from_epsilon
from .canary_audit import canary_mechanism
from .noise_laws import NoiseLaw, log_mixture
from .optimal_attack import optimal_attack
from .prop11_attack import prop11_eta_by_target, prop11_outputs
from .theorem9 import required_noise_multiplier

__all__ = [
    "GAME_N_MAX",
    "GAME_N_MIN",
    "GRID_POINTS",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "Calibration",
    "GameMechanism",
    "GameModel",
    "GameScore",
    "GameSettings",
    "GameState",
    "LuckLesson",
    "ReleaseLaws",
    "Reveal",
    "Round",
    "RoundHistory",
    "ScoreVerdict",
    "Turn",
    "draw_round",
    "draw_rounds",
    "game_model",
    "game_state",
    "log_densities",
    "luck_lesson",
    "play_round",
    "release_laws",
    "score_game",
    "score_games",
]

GAME_N_MIN = 4
GAME_N_MAX = 12  # C(12, 6) = 924 training halves: a round stays well under 100 ms
GRID_POINTS = 401  # points of the density picture
GRID_TAIL = 6.0  # the picture spans the atoms and the release ± 6 noise scales
MAX_ROUNDS = 10_000
MAX_PLAYERS = 1_000_000
_MAX_SEED = 2**64 - 1
_MAX_INDEX = 2**32 - 1
_CANARY_DEFAULT = 10.0
_PROP11_SIGMA_RTOL = 1e-6
_LN10 = math.log(10.0)


class GameMechanism(StrEnum):
    """The mechanism the player attacks."""

    MEAN = "mean"  # noisy mean of the canary audit's records
    PROP11 = "prop11"  # Proposition 11's 1/Σx plus noise


class Calibration(StrEnum):
    """How the noise is calibrated."""

    EPSILON = "epsilon"  # Laplace(Δ/ε): ε-DP, Theorem 4 certifies tanh(ε/2)/2
    ETA = "eta"  # Theorem 9 / Corollary 14: Laplace(c σ) certifies η


class ScoreVerdict(StrEnum):
    """What a player's score is evidence of, read off its two-sided Clopper–Pearson interval
    (:attr:`GameScore.interval`): each verdict is a one-sided test at level (1 − confidence)/2."""

    ABOVE_CERTIFIED = "above_certified"  # interval's lower end > 1/2 + η: beats the certificate
    ABOVE_CHANCE = "above_chance"  # 1/2 < lower end <= 1/2 + η: better than coin flips
    BELOW_CHANCE = "below_chance"  # upper end < 1/2: worse than coin flips (flip every answer)
    NO_EVIDENCE = "no_evidence"  # the interval contains 1/2


@dataclass(frozen=True)
class GameSettings:
    """The teacher's settings; together with a seed they fix every round.

    Parameters
    ----------
    mechanism : :class:`GameMechanism` (or its value), default ``MEAN``.
    calibration : :class:`Calibration` (or its value), default ``EPSILON``.
    level : ε (``0 < level < inf``) for ``EPSILON``, η (``0 < level <= 1/2``) for ``ETA``.
    n : number of records, even, ``4 <= n <= 12`` (default 8).
    canary : the planted record of ``MEAN`` (finite; default 10; ignored by ``PROP11``).
    target : index of the target record (``0 <= target < n``), or None (default) for the
        record with the largest exact η (the canary for ``MEAN``).

    Raises
    ------
    ValueError
        Naming the field, its value and the allowed range.
    """

    mechanism: GameMechanism = GameMechanism.MEAN
    calibration: Calibration = Calibration.EPSILON
    level: float = 1.0
    n: int = 8
    canary: float = _CANARY_DEFAULT
    target: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "mechanism", as_enum("mechanism", self.mechanism, GameMechanism))
        set_(self, "calibration", as_enum("calibration", self.calibration, Calibration))
        if self.calibration is Calibration.EPSILON:
            level = check_range(
                "level",
                self.level,
                0.0,
                math.inf,
                lo_open=True,
                hi_open=True,
                hint="level is epsilon for calibration 'epsilon'",
            )
        else:
            level = check_range(
                "level",
                self.level,
                0.0,
                0.5,
                lo_open=True,
                hi_open=True,
                hint="level is eta for calibration 'eta'",
            )
        if level.ndim != 0:
            raise ValueError(f"level={self.level!r} must be a scalar")
        set_(self, "level", float(level))
        set_(self, "n", check_int("n", self.n, GAME_N_MIN, GAME_N_MAX, even=True))
        canary = check_range("canary", self.canary, -math.inf, math.inf, lo_open=True, hi_open=True)
        if canary.ndim != 0:
            raise ValueError(f"canary={self.canary!r} must be a scalar")
        set_(self, "canary", float(canary))
        if self.target is not None:
            set_(self, "target", check_int("target", self.target, 0, self.n - 1))

    @classmethod
    def dp(cls, mechanism: GameMechanism | str, epsilon: float, n: int = 8) -> GameSettings:
        """Settings with ε-DP Laplace noise."""
        return cls(GameMechanism(mechanism), Calibration.EPSILON, epsilon, n)

    @classmethod
    def mip(cls, mechanism: GameMechanism | str, eta: float, n: int = 8) -> GameSettings:
        """Settings with Theorem 9's smallest certified noise for η-MIP."""
        return cls(GameMechanism(mechanism), Calibration.ETA, eta, n)

    def game_key(self, seed: int) -> str:
        """A short text naming the game of these settings and ``seed`` (``0 <= seed < 2^64``),
        what a player's answers are kept under: two keys are equal exactly when the games deal
        the same rounds.

        >>> GameSettings.dp("mean", 1.0).game_key(7)
        'mean|epsilon|1.0|8|10.0|None|7'
        """
        seed = check_int("seed", seed, 0, _MAX_SEED)
        fields = (self.mechanism.value, self.calibration.value, repr(self.level), self.n)
        return "|".join(str(v) for v in (*fields, self.canary, self.target, seed))


@dataclass(frozen=True)
class GameModel:
    """Everything about one setting that does not change from round to round.

    ``records`` (n values; the last is the canary / A), ``target`` (its index), ``halves``
    (all C(n, n/2) training halves, shape (H, n/2), in ``itertools.combinations`` order),
    ``outputs`` (the base output on each half), ``member`` (the target is in the half),
    ``noise`` (the calibrated Laplace law), ``sensitivity`` (replace-one Δ), ``sigma`` (σ of
    the output over the halves; for Proposition 11 the certified upper end),
    ``certified_eta`` (Theorem 4 for ε, η itself for Theorem 9), ``optimal_accuracy`` (exact
    Proposition 2 accuracy against the target, ± ``optimal_error_bound``) and
    ``eta_by_target`` (exact η of every record as the target).
    """

    settings: GameSettings
    records: NDArray[np.float64] = field(repr=False, compare=False)
    target: int
    halves: NDArray[np.int64] = field(repr=False, compare=False)
    outputs: NDArray[np.float64] = field(repr=False, compare=False)
    member: NDArray[np.bool_] = field(repr=False, compare=False)
    noise: NoiseLaw
    sensitivity: float
    sigma: float
    certified_eta: float
    optimal_accuracy: float
    optimal_error_bound: float
    eta_by_target: NDArray[np.float64] = field(repr=False, compare=False)

    @property
    def certified_accuracy(self) -> float:
        """``1/2 + η`` certified by the calibration."""
        return 0.5 + self.certified_eta

    @property
    def optimal_eta(self) -> float:
        """Exact η of the mechanism against the target (``optimal_accuracy − 1/2``)."""
        return self.optimal_accuracy - 0.5

    @property
    def target_value(self) -> float:
        return float(self.records[self.target])


def _worst_target(eta_by_target: NDArray[np.float64]) -> int:
    """Index of the largest η; ties go to the highest index (the canary / A come last)."""
    rev = eta_by_target[::-1]
    return int(eta_by_target.size - 1 - np.argmax(rev))


def _calibrated(settings: GameSettings, sensitivity: float, sigma: float) -> NoiseLaw:
    """Laplace(Δ/ε) for ``EPSILON``; Laplace(c σ), c = −1/ln(1 − 2η), for ``ETA``."""
    if settings.calibration is Calibration.EPSILON:
        return NoiseLaw.laplace(sensitivity / settings.level)
    c = float(required_noise_multiplier(settings.level, M=2, d=1))
    return NoiseLaw.laplace(c * sigma)


def game_model(settings: GameSettings) -> GameModel:
    """Build the :class:`GameModel` of a setting (calibration, all halves, exact optimum).

    Cost: a few ms; up to ~40 ms for ``PROP11`` at n = 12 (certified σ, 924 halves).
    The UI may cache it and pass it to :func:`play_round` / :func:`score_game`.

    Examples
    --------
    >>> m = game_model(GameSettings.dp("mean", 1.0))
    >>> m.target_value, m.noise.scale  # the canary; Laplace(Δ/ε) with Δ = 10/4
    (10.0, 2.5)
    >>> round(m.optimal_accuracy, 4), round(m.certified_accuracy, 4)  # exact vs Theorem 4
    (0.6887, 0.7311)

    Raises
    ------
    ValueError
        If ``settings`` is not a :class:`GameSettings`.
    """
    if not isinstance(settings, GameSettings):
        raise ValueError(f"settings={settings!r} must be a GameSettings")
    n, k = settings.n, settings.n // 2
    halves = np.array(list(itertools.combinations(range(n), k)), dtype=np.int64)
    if settings.mechanism is GameMechanism.MEAN:
        mech = canary_mechanism(n=n, canary=settings.canary, mechanism="mean", noise="none")
        records = np.asarray(mech.records, dtype=float)
        outputs = np.asarray(mech.outputs, dtype=float)
        membership = np.asarray(mech.membership, dtype=bool)
        sensitivity = float(mech.sensitivity)
        sigma = float(mech.sigmas[0])
        law = _calibrated(settings, sensitivity, sigma)
        eta_t = np.array(
            [
                optimal_attack(outputs[membership[:, i]], outputs[~membership[:, i]], law).eta
                for i in range(n)
            ]
        )
    else:
        outputs, membership = prop11_outputs(n)
        ds = prop11.dataset(n)
        records = np.array([2.0**i for i in ds.powers] + [ds.a_value])
        sensitivity = float(prop11.sensitivity(n))
        # certified upper end of σ; rtol 1e-6 keeps it within 1e-6 of the exact value (so the
        # noise is at most that much larger than needed) at ~10 ms instead of ~100 ms at n = 12
        sigma = float(prop11.output_moments(n, 2, rtol=_PROP11_SIGMA_RTOL).sigma)
        law = _calibrated(settings, sensitivity, sigma)
        eta_t = np.asarray(prop11_eta_by_target(n, law.scale, "laplace"), dtype=float)
    target = _worst_target(eta_t) if settings.target is None else settings.target
    member = membership[:, target]
    best = optimal_attack(outputs[member], outputs[~member], law)
    if settings.calibration is Calibration.EPSILON:
        certified = float(eta_from_epsilon(settings.level))
    else:
        certified = settings.level
    return GameModel(
        settings=settings,
        records=records,
        target=target,
        halves=halves,
        outputs=np.asarray(outputs, dtype=float),
        member=np.asarray(member, dtype=bool),
        noise=law,
        sensitivity=sensitivity,
        sigma=sigma,
        certified_eta=certified,
        optimal_accuracy=best.accuracy,
        optimal_error_bound=best.error_bound,
        eta_by_target=eta_t,
    )


def _model_for(settings: GameSettings, model: GameModel | None) -> GameModel:
    if model is None:
        return game_model(settings)
    if not isinstance(model, GameModel) or model.settings != settings:
        raise ValueError(
            f"model={model!r} was built for other settings; pass game_model(settings) or None"
        )
    return model


def draw_round(model: GameModel, seed: int, index: int) -> tuple[bool, int, float]:
    """(membership coin, training half index, release) of round ``index`` of ``seed``."""
    gen = np.random.default_rng([seed, index])
    member = bool(gen.random() < 0.5)
    pool = np.flatnonzero(model.member if member else ~model.member)
    half = int(pool[gen.integers(pool.size)])
    release = float(model.outputs[half] + model.noise.sample(1, gen)[0])
    return member, half, release


def log_densities(
    model: GameModel, y: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log p_in(y)``, ``log p_out(y)`` (normalised Laplace mixtures)."""
    b = model.noise.scale
    out: list[NDArray[np.float64]] = []
    for mask in (model.member, ~model.member):
        atoms, counts = np.unique(model.outputs[mask], return_counts=True)
        lm = log_mixture(y, atoms, counts.astype(float), model.noise)
        out.append(lm - math.log(2.0 * b) - math.log(int(mask.sum())))
    return out[0], out[1]


@dataclass(frozen=True)
class Round:
    """One round of the game. ``member`` and ``half`` are the secret: reveal after the answer.

    ``release``: what the player sees; ``target_index``/``target_value``: the target record;
    ``grid``/``p_in``/``p_out``: the two release laws on a grid that covers every output and
    the release ± 6 noise scales (exact mixture densities); ``log_likelihood_ratio`` =
    ``log p_in(release) − log p_out(release)``; ``optimal_guess``: the Bayes-optimal answer at
    prior 1/2 (True = "in", i.e. ``p_in >= p_out``); ``optimal_accuracy``: that attacker's
    exact long-run accuracy (Proposition 2); ``certified_accuracy``: ``1/2 + η`` certified.
    """

    seed: int
    index: int
    member: bool
    half: tuple[int, ...]
    target_index: int
    target_value: float
    release: float
    grid: NDArray[np.float64] = field(repr=False, compare=False)
    p_in: NDArray[np.float64] = field(repr=False, compare=False)
    p_out: NDArray[np.float64] = field(repr=False, compare=False)
    log_likelihood_ratio: float
    optimal_guess: bool
    optimal_accuracy: float
    certified_accuracy: float

    @property
    def likelihood_ratio(self) -> float:
        """``p_in/p_out`` at the release (``inf`` beyond float range)."""
        llr = self.log_likelihood_ratio
        return math.exp(llr) if llr < 709.0 else math.inf

    @property
    def optimal_correct(self) -> bool:
        return self.optimal_guess == self.member


def _check_seed_index(seed: object, index: object) -> tuple[int, int]:
    return check_int("seed", seed, 0, _MAX_SEED), check_int("index", index, 0, _MAX_INDEX)


def play_round(
    settings: GameSettings, seed: int, index: int, *, model: GameModel | None = None
) -> Round:
    """Round ``index`` of the game with ``seed`` under ``settings`` (fully deterministic).

    Parameters
    ----------
    settings : :class:`GameSettings`.
    seed : ``0 <= seed < 2^64``, e.g. from the shared link.
    index : ``0 <= index < 2^32``, the round number.
    model : optional :func:`game_model` of these settings (a cached one); built if None.

    Returns
    -------
    Round

    Raises
    ------
    ValueError
        For an out-of-range seed or index, or a model of other settings.

    Examples
    --------
    >>> r = play_round(GameSettings.dp("mean", 1.0), seed=7, index=0)
    >>> r.target_value, r.optimal_accuracy <= r.certified_accuracy
    (10.0, True)
    >>> r.member == play_round(GameSettings.dp("mean", 1.0), seed=7, index=0).member
    True
    """
    seed, index = _check_seed_index(seed, index)
    m = _model_for(settings, model)
    member, h, release = draw_round(m, seed, index)
    b = m.noise.scale
    lo = min(float(m.outputs.min()), release) - GRID_TAIL * b
    hi = max(float(m.outputs.max()), release) + GRID_TAIL * b
    grid = np.linspace(lo, hi, GRID_POINTS)
    ys = np.append(grid, release)
    log_in, log_out = log_densities(m, ys)
    llr = float(log_in[-1] - log_out[-1])
    return Round(
        seed=seed,
        index=index,
        member=member,
        half=tuple(int(i) for i in m.halves[h]),
        target_index=m.target,
        target_value=m.target_value,
        release=release,
        grid=grid,
        p_in=np.exp(log_in[:-1]),
        p_out=np.exp(log_out[:-1]),
        log_likelihood_ratio=llr,
        optimal_guess=llr >= 0.0,
        optimal_accuracy=m.optimal_accuracy,
        certified_accuracy=m.certified_accuracy,
    )


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class GameScore:
    """A player's score over the ``rounds`` rounds they played of one seed (rounds ``0 …
    rounds − 1``, or the rounds not skipped: see :func:`score_game`).

    ``correct``/``accuracy``: the player's; ``interval``: the two-sided Clopper–Pearson
    interval at ``confidence``, the only interval the verdict reads; ``optimal_correct``: the Bayes-optimal attacker's count on the same rounds;
    ``optimal_accuracy``: its exact long-run accuracy; ``certified_accuracy``: ``1/2 + η``;
    ``p_value``: ``P(X >= correct)`` for ``X ~ Binomial(rounds, certified_accuracy)`` (how
    surprising the score is if the certificate holds with equality); ``verdict``: see
    :class:`ScoreVerdict`.
    """

    rounds: int
    correct: int
    accuracy: float
    interval: tuple[float, float]
    confidence: float
    optimal_correct: int
    optimal_accuracy: float
    certified_accuracy: float
    p_value: float
    verdict: ScoreVerdict

    @property
    def beats_certified(self) -> bool:
        """True when the score is evidence (at ``confidence``) of beating ``1/2 + η``."""
        return self.verdict is ScoreVerdict.ABOVE_CERTIFIED

    @property
    def flipped_correct(self) -> int:
        """What flipping every answer would have scored on the same rounds."""
        return self.rounds - self.correct

    @functools.cached_property
    def optimal_interval(self) -> tuple[float, float]:
        """The two-sided Clopper–Pearson interval of the optimal attacker's score on the same
        rounds, at the same confidence (computed once per score: a tap reads it thrice)."""
        lo, hi = clopper_pearson(self.optimal_correct, self.rounds, self.confidence)
        return (float(lo), float(hi))

    @property
    def flipped_interval(self) -> tuple[float, float]:
        """The interval of the flipped answers: ``(1 − high, 1 − low)`` (Clopper–Pearson is
        symmetric under ``k -> n − k``)."""
        lo, hi = self.interval
        return (1.0 - hi, 1.0 - lo)


def _check_answers(
    answers: Sequence[bool | None] | NDArray[np.bool_], most: int = MAX_ROUNDS, *, some: bool = True
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``answers`` as (the answers, which rounds were played): None marks a round not played;
    at most ``most`` answers and, if ``some``, at least one played."""
    raw = list(answers) if not isinstance(answers, np.ndarray) else answers
    if isinstance(raw, list) and any(a is None for a in raw):
        played = np.array([a is not None for a in raw], dtype=bool)
        arr = np.asarray([False if a is None else a for a in raw])
    else:
        arr = np.asarray(raw)
        played = np.ones(arr.shape[:1] if arr.ndim == 1 else (0,), dtype=bool)
    if arr.ndim != 1 or (some and not played.any()) or arr.size > most:
        raise ValueError(
            f"answers must be a 1-d sequence of at most {most} answers (True = 'in', None = "
            f"round not played){' with at least one answer' if some else ''}, got shape {arr.shape}"
        )
    if arr.dtype != bool:
        ok = arr.dtype.kind in "iuf" and bool(np.all((arr == 0) | (arr == 1)))
        if not ok:
            raise ValueError(
                f"answers must hold booleans (True = 'in', False = 'out'), got {arr[:4].tolist()!r}…"
            )
        arr = arr.astype(bool)
    return arr, played


def score_game(
    settings: GameSettings,
    seed: int,
    answers: Sequence[bool | None] | NDArray[np.bool_],
    *,
    confidence: float = 0.95,
    model: GameModel | None = None,
) -> GameScore:
    """Score a player's answers to rounds ``0, 1, …, len(answers) − 1`` of ``seed``.

    Parameters
    ----------
    settings : :class:`GameSettings`. seed : ``0 <= seed < 2^64``.
    answers : ``1 <= len <= 10000`` entries, answer k for round k (True = "in"); None for a
        round the player did not play (a class skips the rounds whose truths were shown): the
        score counts the rounds played, and the optimal attacker is scored on the same rounds.
    confidence : ``0 < confidence < 1`` for the Clopper–Pearson bounds (default 0.95).
    model : optional cached :func:`game_model` of these settings.

    Returns
    -------
    GameScore

    Examples
    --------
    >>> s = GameSettings.dp("mean", 1.0)
    >>> sc = score_game(s, 7, [True] * 30)
    >>> sc.rounds, sc.verdict in tuple(ScoreVerdict)
    (30, True)
    """
    return score_games(settings, seed, [answers], confidence=confidence, model=model)[0]


def score_games(
    settings: GameSettings,
    seed: int,
    answer_lists: Sequence[Sequence[bool | None] | NDArray[np.bool_]],
    *,
    confidence: float = 0.95,
    model: GameModel | None = None,
) -> tuple[GameScore, ...]:
    """:func:`score_game` of several players of the same game at once (a class): the rounds
    are drawn once, for the longest list, and the intervals computed together. Each score
    equals :func:`score_game` of that list.

    Parameters
    ----------
    answer_lists : one list of answers per player, as :func:`score_game`'s ``answers``.
    settings, seed, confidence, model : as :func:`score_game`.

    Returns
    -------
    tuple of GameScore, in the order of ``answer_lists``

    Examples
    --------
    >>> s = GameSettings.dp("mean", 1.0)
    >>> a, b = score_games(s, 7, [[True] * 30, [False] * 10])
    >>> a == score_game(s, 7, [True] * 30), b.rounds
    (True, 10)
    >>> score_game(s, 7, [None, None, True, False]).rounds  # rounds 2 and 3 played
    2
    """
    seed = check_int("seed", seed, 0, _MAX_SEED)
    checked = [_check_answers(answers) for answers in answer_lists]
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    m = _model_for(settings, model)
    if not checked:
        return ()
    truth, releases = _draws(m, seed, max(ans.size for ans, _ in checked))
    log_in, log_out = log_densities(m, releases)
    return _scores(m, truth, log_in - log_out >= 0.0, checked, conf)


def _draws(
    model: GameModel, seed: int, rounds: int
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """The secret coins and the releases of rounds ``0 … rounds − 1`` of ``seed``."""
    draws = [draw_round(model, seed, k) for k in range(rounds)]
    return np.array([d[0] for d in draws], dtype=bool), np.array([d[2] for d in draws], dtype=float)


def draw_rounds(
    model: GameModel, seed: int, rounds: int
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """Every round of the game of ``seed``: (secret coins, releases), each of length
    ``rounds``, as :func:`draw_round` draws them (deterministic per seed and round).

    For a caller that keeps them (the app, in its bounded cache) and hands them to
    :func:`game_state` (``drawn=``): a class's players all play the same rounds, and a tap then
    draws nothing, instead of every round so far again.

    Parameters
    ----------
    model : :class:`GameModel`. seed : ``0 <= seed < 2^64``.
    rounds : ``1 <= rounds <= 10000``, the length of the game.

    Raises
    ------
    ValueError
        Naming the parameter: a model that is not a :class:`GameModel`, an out-of-range seed
        or rounds.

    Examples
    --------
    >>> model = game_model(GameSettings.dp("mean", 1.0))
    >>> member, releases = draw_rounds(model, 7, 30)
    >>> bool(member[3]) == draw_round(model, 7, 3)[0], releases.size
    (True, 30)
    """
    m = _check_model(model)
    seed = check_int("seed", seed, 0, _MAX_SEED)
    rounds = check_int("rounds", rounds, 1, MAX_ROUNDS)
    return _draws(m, seed, rounds)


def _scores(
    m: GameModel,
    truth: NDArray[np.bool_],
    optimal: NDArray[np.bool_],
    checked: Sequence[tuple[NDArray[np.bool_], NDArray[np.bool_]]],
    conf: float,
) -> tuple[GameScore, ...]:
    """The scores of checked answers, given each round's truth and optimal answer."""
    optimal_right = optimal == truth  # the optimal attacker right in round k
    rounds = np.array([int(played.sum()) for _, played in checked])
    correct = np.array(
        [int(np.sum((ans == truth[: ans.size]) & played)) for ans, played in checked]
    )
    best = [int(np.sum(optimal_right[: ans.size] & played)) for ans, played in checked]
    lows, highs = clopper_pearson(correct, rounds, conf)
    cert = m.certified_accuracy
    p_values = stats.binom.sf(correct - 1, rounds, min(cert, 1.0))
    scores = []
    for k, n, opt, lo, hi, p in zip(
        correct.tolist(),
        rounds.tolist(),
        best,
        np.atleast_1d(lows).tolist(),
        np.atleast_1d(highs).tolist(),
        np.atleast_1d(p_values).tolist(),
        strict=True,
    ):
        if lo > cert:
            verdict = ScoreVerdict.ABOVE_CERTIFIED
        elif lo > 0.5:
            verdict = ScoreVerdict.ABOVE_CHANCE
        elif hi < 0.5:
            verdict = ScoreVerdict.BELOW_CHANCE
        else:
            verdict = ScoreVerdict.NO_EVIDENCE
        scores.append(
            GameScore(
                rounds=n,
                correct=k,
                accuracy=k / n,
                interval=(lo, hi),
                confidence=conf,
                optimal_correct=opt,
                optimal_accuracy=m.optimal_accuracy,
                certified_accuracy=cert,
                p_value=p,
                verdict=verdict,
            )
        )
    return tuple(scores)


# --------------------------------------------------------------------------- a game in play


@dataclass(frozen=True)
class ReleaseLaws:
    """The two release laws of a setting on a grid: ``p_in`` (target in the training half)
    and ``p_out`` (target out), exact finite Laplace mixtures, at the points ``grid``."""

    grid: NDArray[np.float64] = field(repr=False)
    p_in: NDArray[np.float64] = field(repr=False)
    p_out: NDArray[np.float64] = field(repr=False)


def release_laws(model: GameModel) -> ReleaseLaws:
    """The two release laws of ``model`` on :data:`GRID_POINTS` points that span every output
    of the mechanism ± 6 noise scales (a release beyond has probability below ``e^-6``); the
    same exact mixtures as :func:`play_round`'s picture, the same for every round.

    Parameters
    ----------
    model : :class:`GameModel` of the settings (:func:`game_model`).

    Returns
    -------
    ReleaseLaws

    Raises
    ------
    ValueError
        If ``model`` is not a :class:`GameModel`.

    Examples
    --------
    >>> laws = release_laws(game_model(GameSettings.dp("mean", 1.0)))
    >>> laws.grid.shape, bool((laws.p_in > 0).all())
    ((401,), True)
    """
    m = _check_model(model)
    b = m.noise.scale
    lo, hi = float(m.outputs.min()) - GRID_TAIL * b, float(m.outputs.max()) + GRID_TAIL * b
    grid = np.linspace(lo, hi, GRID_POINTS)
    log_in, log_out = log_densities(m, grid)
    return ReleaseLaws(grid=grid, p_in=np.exp(log_in), p_out=np.exp(log_out))


@dataclass(frozen=True)
class Turn:
    """The round to answer now: round ``index`` (0-based) and its ``release`` (its secret
    coin is deliberately not held here)."""

    index: int
    release: float


@dataclass(frozen=True)
class RoundHistory:
    """Every answered round, in order: ``index``, ``release``, ``member`` (the secret),
    ``answer`` (the player's, True = "in") and ``log_in``/``log_out``, the two laws'
    log-densities at the release."""

    index: NDArray[np.int64] = field(repr=False)
    release: NDArray[np.float64] = field(repr=False)
    member: NDArray[np.bool_] = field(repr=False)
    answer: NDArray[np.bool_] = field(repr=False)
    log_in: NDArray[np.float64] = field(repr=False)
    log_out: NDArray[np.float64] = field(repr=False)

    @property
    def log_likelihood_ratio(self) -> NDArray[np.float64]:
        """``log p_in(y) − log p_out(y)`` at each release."""
        return np.asarray(self.log_in - self.log_out, dtype=float)

    @property
    def optimal(self) -> NDArray[np.bool_]:
        """The Bayes-optimal answers (Proposition 2 at prior 1/2: "in" iff ``p_in >= p_out``)."""
        return self.log_likelihood_ratio >= 0.0

    @property
    def correct(self) -> NDArray[np.bool_]:
        """The player's answers that were right."""
        return np.asarray(self.answer == self.member)

    @property
    def optimal_correct(self) -> NDArray[np.bool_]:
        """The Bayes-optimal answers that were right."""
        return np.asarray(self.optimal == self.member)


@dataclass(frozen=True)
class Reveal:
    """The last answered round, with its secret: ``member`` (the target was in), ``answer``
    (the player said "in"), ``log_likelihood_ratio`` and the densities ``p_in``, ``p_out`` at
    the release."""

    index: int
    release: float
    member: bool
    answer: bool
    log_likelihood_ratio: float
    p_in: float
    p_out: float

    @property
    def optimal_guess(self) -> bool:
        """The Bayes-optimal answer (True = "in", ``p_in >= p_out``)."""
        return self.log_likelihood_ratio >= 0.0

    @property
    def log10_ratio(self) -> float:
        """How many powers of ten the likelier answer wins by: ``|log_likelihood_ratio| / ln 10``."""
        return abs(self.log_likelihood_ratio) / _LN10

    @property
    def correct(self) -> bool:
        """The player was right."""
        return self.answer == self.member

    @property
    def optimal_correct(self) -> bool:
        """The Bayes-optimal attacker was right."""
        return self.optimal_guess == self.member


@dataclass(frozen=True)
class GameState:
    """A game after the player's answers (see :func:`game_state`): ``turn``, the round to
    answer (None once every round is answered); ``history``, every answered round; ``score``,
    :func:`score_game` of the answers (None before the first)."""

    turn: Turn | None
    history: RoundHistory
    score: GameScore | None

    @property
    def answered(self) -> int:
        """How many rounds were answered (skipped rounds not counted)."""
        return int(self.history.index.size)

    @property
    def last(self) -> Reveal | None:
        """The last answered round, revealed (None before the first answer)."""
        h = self.history
        if not h.index.size:
            return None
        log_in, log_out = float(h.log_in[-1]), float(h.log_out[-1])
        return Reveal(
            int(h.index[-1]),
            float(h.release[-1]),
            bool(h.member[-1]),
            bool(h.answer[-1]),
            float(h.log_likelihood_ratio[-1]),
            math.exp(log_in),
            math.exp(log_out),
        )


def _check_model(model: object) -> GameModel:
    if not isinstance(model, GameModel):
        raise ValueError(f"model={model!r} must be a GameModel (from game_model)")
    return model


def game_state(
    model: GameModel,
    seed: int,
    answers: Sequence[bool | None] | NDArray[np.bool_],
    rounds: int,
    *,
    confidence: float = 0.95,
    drawn: tuple[NDArray[np.bool_], NDArray[np.float64]] | None = None,
) -> GameState:
    r"""The game of ``seed`` under ``model``'s settings after the player's ``answers``, in one
    call that stays well under 100 ms for every setting the game offers.

    Answer k is the player's answer to round k (True = "in"), or None for a round the player
    did not play (a class skips the rounds whose truths were shown); the round to answer is
    round ``len(answers)``, and the score counts the rounds played. The rounds are
    :func:`draw_round`'s (deterministic per seed and round), so every player of the same link
    sees the same rounds whatever they answer.

    Parameters
    ----------
    model : :class:`GameModel` of the settings (:func:`game_model`; a cached one).
    seed : ``0 <= seed < 2^64``.
    answers : at most ``rounds`` booleans (or 0/1; None: not played), possibly none.
    rounds : ``1 <= rounds <= 10000``, the length of the game.
    confidence : ``0 < confidence < 1`` for the intervals and the verdict (default 0.95).
    drawn : the game's rounds from :func:`draw_rounds` (``model``, ``seed``, ``rounds``), if
        the caller keeps them; else the rounds needed are drawn here.

    Returns
    -------
    GameState

    Raises
    ------
    ValueError
        Naming the parameter: a model that is not a :class:`GameModel`, an out-of-range
        seed, rounds or confidence, answers that are not booleans, or more answers than rounds.

    Examples
    --------
    >>> model = game_model(GameSettings.dp("mean", 1.0))
    >>> s = game_state(model, 7, [], 30)
    >>> s.turn.index, s.last is None, s.score is None
    (0, True, True)
    >>> s.turn.release == play_round(model.settings, 7, 0, model=model).release
    True
    >>> s = game_state(model, 7, [True, False, True], 30)
    >>> s.answered, s.turn.index, s.last.index, s.score.rounds
    (3, 3, 2, 3)
    >>> s = game_state(model, 7, [None, None, True], 30)  # rounds 0 and 1 skipped
    >>> s.answered, s.turn.index, s.last.index, s.history.index.tolist()
    (1, 3, 2, [2])
    """
    m = _check_model(model)
    seed = check_int("seed", seed, 0, _MAX_SEED)
    rounds = check_int("rounds", rounds, 1, MAX_ROUNDS)
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    ans, played = _check_answers(answers, rounds, some=False)
    length = int(ans.size)  # answered or skipped rounds; the round to answer comes next
    needed = length + (1 if length < rounds else 0)
    if drawn is None:
        member, releases = _draws(m, seed, needed)
    else:
        member = np.asarray(drawn[0], dtype=bool)
        releases = np.asarray(drawn[1], dtype=float)
        if member.shape != (rounds,) or releases.shape != (rounds,):
            raise ValueError(
                f"drawn holds {member.size} rounds: allowed draw_rounds(model, seed, {rounds}), "
                f"the {rounds} rounds of this game"
            )
        member, releases = member[:needed], releases[:needed]
    log_in, log_out = log_densities(m, releases)
    idx = np.flatnonzero(played)
    history = RoundHistory(
        idx.astype(np.int64), releases[idx], member[idx], ans[idx], log_in[idx], log_out[idx]
    )
    turn = Turn(length, float(releases[length])) if length < rounds else None
    score = None
    if idx.size:
        optimal = log_in[:length] - log_out[:length] >= 0.0
        score = _scores(m, member[:length], optimal, [(ans, played)], conf)[0]
    return GameState(turn, history, score)


# --------------------------------------------------------------------------- luck


@dataclass(frozen=True)
class LuckLesson:
    """How often luck alone "beats" ``1/2 + η`` when a class plays at exactly that accuracy.

    ``players`` players each play ``rounds`` rounds, each round correct independently with
    probability ``accuracy = 1/2 + eta``.

    * ``exceed_correct``: the smallest count whose observed accuracy is strictly above
      ``1/2 + η``; ``p_one``: ``P(X >= exceed_correct)`` for one player; ``p_any``: that at
      least one player gets there, ``1 − (1 − p_one)^players``.
    * ``expected_best_correct`` / ``expected_best_accuracy``: the expected best score of the
      class, ``E max_j X_j = Σ_{x<R} (1 − F(x)^players)``.
    * ``alarm_correct``: the smallest count whose two-sided Clopper–Pearson interval at
      ``confidence`` lies above ``1/2 + η`` (:class:`ScoreVerdict` ``ABOVE_CERTIFIED``, the
      verdict of :func:`score_game`), None if no count of ``rounds`` does; ``p_alarm_one``
      (at most (1 − confidence)/2) and
      ``p_alarm_any``: the chance that one given player / at least one player gets that
      verdict by luck.
    """

    players: int
    rounds: int
    eta: float
    accuracy: float
    confidence: float
    exceed_correct: int | None
    p_one: float
    p_any: float
    expected_best_correct: float
    expected_best_accuracy: float
    alarm_correct: int | None
    p_alarm_one: float
    p_alarm_any: float


def _any_of(p: float, players: int) -> float:
    """``1 − (1 − p)^players`` without cancellation."""
    if p >= 1.0:
        return 1.0
    return float(-math.expm1(players * math.log1p(-p)))


def luck_lesson(players: int, rounds: int, eta: float, *, confidence: float = 0.95) -> LuckLesson:
    r"""The multiple-testing lesson: P players, R rounds each, all at accuracy ``1/2 + η``.

    Exact binomial computations (scipy), no simulation. Observed accuracy "exceeds the
    bound" means ``X/R > 1/2 + η`` strictly, decided in exact rational arithmetic on the
    float η given.

    Parameters
    ----------
    players : ``1 <= players <= 10^6``.
    rounds : ``1 <= rounds <= 10000``.
    eta : ``0 <= eta <= 1/2``.
    confidence : ``0 < confidence < 1`` for the alarm (default 0.95).

    Returns
    -------
    LuckLesson

    Examples
    --------
    >>> le = luck_lesson(30, 100, 0.1)  # 30 students, 100 rounds each, at exactly 60 %
    >>> le.exceed_correct, round(le.p_one, 3), round(le.expected_best_accuracy, 3)
    (61, 0.462, 0.699)
    >>> le.alarm_correct, round(le.p_alarm_one, 3), round(le.p_alarm_any, 3)
    (70, 0.025, 0.529)
    """
    players = check_int("players", players, 1, MAX_PLAYERS)
    rounds = check_int("rounds", rounds, 1, MAX_ROUNDS)
    e = float(check_range("eta", eta, 0.0, 0.5))
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    p = 0.5 + e
    # smallest x with x/R > 1/2 + eta, exactly: x > R (1/2 + eta)
    bound = rounds * (Fraction(1, 2) + Fraction(e))
    first = math.floor(bound) + 1
    exceed = first if first <= rounds else None
    binom = stats.binom(rounds, p)
    p_one = float(binom.sf(first - 1)) if exceed is not None else 0.0
    xs = np.arange(rounds)
    sf = binom.sf(xs)
    with np.errstate(divide="ignore"):
        log_cdf = np.where(sf < 0.5, np.log1p(-sf), np.log(binom.cdf(xs)))
        tail = -np.expm1(players * log_cdf)  # P(max > x)
    best = float(math.fsum(tail.tolist()))
    ks = np.arange(rounds + 1)
    lo, _ = clopper_pearson(ks, rounds, conf)  # the interval score_game's verdict reads
    hits = np.flatnonzero(np.asarray(lo) > p)
    alarm = int(hits[0]) if hits.size else None
    p_alarm = float(binom.sf(alarm - 1)) if alarm is not None else 0.0
    return LuckLesson(
        players=players,
        rounds=rounds,
        eta=e,
        accuracy=p,
        confidence=conf,
        exceed_correct=exceed,
        p_one=p_one,
        p_any=_any_of(p_one, players),
        expected_best_correct=best,
        expected_best_accuracy=best / rounds,
        alarm_correct=alarm,
        p_alarm_one=p_alarm,
        p_alarm_any=_any_of(p_alarm, players),
    )
