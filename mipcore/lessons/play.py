r"""The "Play the attacker" page: the state of one classroom game after each click.

The rounds, their secret coins, the exact release laws and the scores come from
:mod:`mipcore.game` (the membership game of Definition 1 of Izzo, Yoon, Arık and Zou,
*Provable Membership Inference Privacy*, TMLR 2024, arXiv:2211.06582). This module puts
together what the page shows after ``len(answers)`` clicks, in one call that stays well
under 100 ms for every setting the page offers (:func:`play_state`):

* the round to answer now (:class:`Turn`: its release, never its secret);
* the last answered round, revealed (:class:`Reveal`): the truth, the player's answer, the
  Bayes-optimal answer (Proposition 2: "in" iff ``p_in(y) >= p_out(y)`` at prior 1/2) and
  the likelihood ratio at the release;
* every answered round (:class:`RoundHistory`) and the score (:func:`mipcore.game.score_game`:
  Clopper–Pearson interval, the optimal attacker on the same rounds, the verdict).

From :data:`LUCK_AFTER` answered rounds on (:attr:`PlayState.show_luck`) the page adds the
multiple-testing lesson, :func:`mipcore.game.luck_lesson` for the class size, the number of
rounds answered and the certified η. It depends on nothing a player did, so the page computes
it apart (one result shared by the whole class) rather than on every click.

The two release laws are drawn once per setting (:func:`release_laws`), on a grid that
spans every output of the mechanism ± 6 noise scales (a release beyond it has probability
below ``e^-6``; the curves there are below ``e^-6`` of their peak).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from .._validate import check_int, check_range
from ..audit_stats import clopper_pearson
from ..game import (
    GRID_POINTS,
    GRID_TAIL,
    MAX_ROUNDS,
    GameModel,
    GameScore,
    GameSettings,
    draw_round,
    log_densities,
    score_game,
)

__all__ = [
    "LUCK_AFTER",
    "LawPicture",
    "PlayState",
    "Reveal",
    "RoundHistory",
    "Turn",
    "game_key",
    "play_state",
    "release_laws",
]

LUCK_AFTER = 20  # answered rounds before the page shows the multiple-testing lesson
_MAX_SEED = 2**64 - 1
_LN10 = math.log(10.0)


@dataclass(frozen=True)
class LawPicture:
    """The two release laws of a setting on a grid: ``p_in`` (target in the training half)
    and ``p_out`` (target out), exact finite Laplace mixtures, at the points ``grid``."""

    grid: NDArray[np.float64] = field(repr=False)
    p_in: NDArray[np.float64] = field(repr=False)
    p_out: NDArray[np.float64] = field(repr=False)


@dataclass(frozen=True)
class Turn:
    """The round to answer now: round ``index`` (0-based) and its ``release``.

    ``p_in``/``p_out``: the two laws' densities at the release (what an attacker who knows
    the mechanism reads off the picture). The secret coin is deliberately not held here.
    """

    index: int
    release: float
    p_in: float
    p_out: float


@dataclass(frozen=True)
class Reveal:
    """The last answered round, with its secret.

    ``member``: the target was in the training half; ``answer``: the player said "in";
    ``optimal_guess``: the Bayes-optimal answer (True = "in", ``p_in >= p_out``);
    ``log_likelihood_ratio``: ``log p_in(y) − log p_out(y)`` at the release;
    ``log10_ratio``: ``|log_likelihood_ratio| / ln 10``, how many powers of ten the likelier
    answer wins by (the page prints ``10^log10_ratio`` "times as likely").
    """

    index: int
    release: float
    member: bool
    answer: bool
    optimal_guess: bool
    log_likelihood_ratio: float
    log10_ratio: float
    p_in: float
    p_out: float

    @property
    def correct(self) -> bool:
        """The player was right."""
        return self.answer == self.member

    @property
    def optimal_correct(self) -> bool:
        """The Bayes-optimal attacker was right."""
        return self.optimal_guess == self.member


@dataclass(frozen=True)
class RoundHistory:
    """Every answered round, in order: ``index``, ``release``, ``member`` (the secret),
    ``answer`` (the player's, True = "in"), ``optimal`` (the Bayes-optimal answer) and
    ``log_likelihood_ratio`` at the release."""

    index: NDArray[np.int64] = field(repr=False)
    release: NDArray[np.float64] = field(repr=False)
    member: NDArray[np.bool_] = field(repr=False)
    answer: NDArray[np.bool_] = field(repr=False)
    optimal: NDArray[np.bool_] = field(repr=False)
    log_likelihood_ratio: NDArray[np.float64] = field(repr=False)

    @property
    def correct(self) -> NDArray[np.bool_]:
        """The player's answers that were right."""
        return np.asarray(self.answer == self.member)

    @property
    def optimal_correct(self) -> NDArray[np.bool_]:
        """The Bayes-optimal answers that were right."""
        return np.asarray(self.optimal == self.member)


@dataclass(frozen=True)
class PlayState:
    """The game after ``answered`` of ``rounds`` rounds of ``seed`` (see :func:`play_state`).

    ``turn``: the round to answer (None once ``finished``); ``last``: the last answered round
    revealed (None before the first answer); ``history``: every answered round; ``score``:
    :func:`mipcore.game.score_game` of the answers (None before the first);
    ``optimal_interval``: the two-sided Clopper–Pearson interval of the optimal attacker's
    score on the same rounds (None before the first answer).
    """

    seed: int
    rounds: int
    answered: int
    confidence: float
    turn: Turn | None
    last: Reveal | None
    history: RoundHistory
    score: GameScore | None
    optimal_interval: tuple[float, float] | None

    @property
    def finished(self) -> bool:
        """Every round of the game has been answered."""
        return self.turn is None

    @property
    def show_luck(self) -> bool:
        """Enough answered rounds (:data:`LUCK_AFTER`) for the multiple-testing lesson."""
        return self.answered >= LUCK_AFTER


def game_key(settings: GameSettings, seed: int) -> str:
    """A short text naming one game: its settings and its seed (what a player's answers are
    kept under). Two keys are equal exactly when the games deal the same rounds.

    >>> from mipcore.game import GameSettings
    >>> game_key(GameSettings.dp("mean", 1.0), 7)
    'mean|epsilon|1.0|8|10.0|None|7'
    """
    if not isinstance(settings, GameSettings):
        raise ValueError(f"settings={settings!r} must be a GameSettings (mipcore.game)")
    seed = check_int("seed", seed, 0, _MAX_SEED)
    s = settings
    return "|".join(
        str(v)
        for v in (
            s.mechanism.value,
            s.calibration.value,
            repr(s.level),
            s.n,
            s.canary,
            s.target,
            seed,
        )
    )


def _check_model(model: object) -> GameModel:
    if not isinstance(model, GameModel):
        raise ValueError(f"model={model!r} must be a GameModel (mipcore.game.game_model)")
    return model


def release_laws(model: GameModel) -> LawPicture:
    """The two release laws of ``model`` on :data:`mipcore.game.GRID_POINTS` points.

    The grid spans every output of the mechanism ± 6 noise scales. Exact mixture densities
    (the same computation as :func:`mipcore.game.play_round`'s picture).

    Parameters
    ----------
    model : :class:`mipcore.game.GameModel` (from :func:`mipcore.game.game_model`).

    Returns
    -------
    LawPicture

    Raises
    ------
    ValueError
        If ``model`` is not a :class:`~mipcore.game.GameModel`.

    Examples
    --------
    >>> from mipcore.game import GameSettings, game_model
    >>> laws = release_laws(game_model(GameSettings.dp("mean", 1.0)))
    >>> laws.grid.shape, bool((laws.p_in > 0).all())
    ((401,), True)
    """
    m = _check_model(model)
    b = m.noise.scale
    grid = np.linspace(
        float(m.outputs.min()) - GRID_TAIL * b, float(m.outputs.max()) + GRID_TAIL * b, GRID_POINTS
    )
    log_in, log_out = log_densities(m, grid)
    return LawPicture(grid=grid, p_in=np.exp(log_in), p_out=np.exp(log_out))


def _check_answers(
    answers: Sequence[bool | None] | NDArray[np.bool_], rounds: int
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """(the answers, which rounds were played): None marks a round not played."""
    raw = answers if isinstance(answers, np.ndarray) else list(answers)
    played = np.array([a is not None for a in raw], dtype=bool) if len(raw) else np.zeros(0, bool)
    if len(raw) and not isinstance(raw, np.ndarray) and not played.all():
        raw = [False if a is None else a for a in raw]
    arr = np.asarray(raw)
    if arr.size == 0:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    if arr.ndim != 1:
        raise ValueError(f"answers must be a 1-d sequence of booleans, got shape {arr.shape}")
    if arr.dtype != bool:
        ok = arr.dtype.kind in "iu" and bool(np.all((arr == 0) | (arr == 1)))
        if not ok:
            raise ValueError(
                f"answers must hold booleans (True = 'in', False = 'out'), got {arr[:4].tolist()!r}"
            )
        arr = arr.astype(bool)
    if arr.size > rounds:
        raise ValueError(
            f"answers has {arr.size} answers but the game has rounds={rounds}; "
            "pass at most that many"
        )
    return arr, played


def play_state(
    model: GameModel,
    seed: int,
    answers: Sequence[bool | None] | NDArray[np.bool_],
    rounds: int,
    *,
    confidence: float = 0.95,
) -> PlayState:
    r"""The game of ``seed`` under ``model``'s settings after the player's ``answers``.

    Answer k is the player's answer to round k (True = "in"), or None for a round the player
    did not play (a class skips the rounds whose truths were shown); the round to answer is
    round ``len(answers)``, and the score counts the rounds played. Rounds come from
    :mod:`mipcore.game` (deterministic per seed and round), so every player of the same link
    sees the same rounds whatever they answer.

    Parameters
    ----------
    model : :class:`mipcore.game.GameModel` of the teacher's settings (a cached one).
    seed : ``0 <= seed < 2^64``.
    answers : at most ``rounds`` booleans (or 0/1; None: not played), possibly none.
    rounds : ``1 <= rounds <= 10000``, the length of the game.
    confidence : ``0 < confidence < 1`` for the intervals and verdicts (default 0.95).

    Returns
    -------
    PlayState

    Raises
    ------
    ValueError
        Naming the parameter: an out-of-range seed, rounds or confidence, answers
        that are not booleans, or more answers than rounds.

    Examples
    --------
    >>> from mipcore.game import GameSettings, game_model, play_round
    >>> model = game_model(GameSettings.dp("mean", 1.0))
    >>> s = play_state(model, 7, [], 30)
    >>> s.turn.index, s.last is None, s.score is None
    (0, True, True)
    >>> s.turn.release == play_round(model.settings, 7, 0, model=model).release
    True
    >>> s = play_state(model, 7, [True, False, True], 30)
    >>> s.answered, s.turn.index, s.last.index, s.score.rounds
    (3, 3, 2, 3)
    >>> s = play_state(model, 7, [None, None, True], 30)  # rounds 0 and 1 skipped
    >>> s.answered, s.turn.index, s.last.index, s.history.index.tolist()
    (1, 3, 2, [2])
    """
    m = _check_model(model)
    seed = check_int("seed", seed, 0, _MAX_SEED)
    rounds = check_int("rounds", rounds, 1, MAX_ROUNDS)
    conf = float(check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    ans, played = _check_answers(answers, rounds)
    answered = int(played.sum())
    length = int(ans.size)  # answered or skipped rounds; the round to answer comes next
    shown = length + (1 if length < rounds else 0)  # those rounds and the current one
    draws = [draw_round(m, seed, k) for k in range(shown)]
    member = np.array([d[0] for d in draws], dtype=bool)
    releases = np.array([d[2] for d in draws], dtype=float)
    log_in, log_out = log_densities(m, releases)
    llr = np.asarray(log_in - log_out, dtype=float)
    optimal = llr >= 0.0
    idx = np.flatnonzero(played)
    history = RoundHistory(
        index=idx.astype(np.int64),
        release=releases[idx],
        member=member[idx],
        answer=ans[idx],
        optimal=optimal[idx],
        log_likelihood_ratio=llr[idx],
    )
    turn = None
    if length < rounds:
        turn = Turn(
            index=length,
            release=float(releases[length]),
            p_in=float(math.exp(log_in[length])),
            p_out=float(math.exp(log_out[length])),
        )
    last = None
    score = None
    opt_interval = None
    if answered:
        j = int(idx[-1])
        last = Reveal(
            index=j,
            release=float(releases[j]),
            member=bool(member[j]),
            answer=bool(ans[j]),
            optimal_guess=bool(optimal[j]),
            log_likelihood_ratio=float(llr[j]),
            log10_ratio=float(abs(llr[j]) / _LN10),
            p_in=float(math.exp(log_in[j])),
            p_out=float(math.exp(log_out[j])),
        )
        given = [bool(a) if p else None for a, p in zip(ans, played, strict=True)]
        score = score_game(m.settings, seed, given, confidence=conf, model=m)
        lo, hi = clopper_pearson(score.optimal_correct, answered, conf)
        opt_interval = (float(lo), float(hi))
    return PlayState(
        seed=seed,
        rounds=rounds,
        answered=answered,
        confidence=conf,
        turn=turn,
        last=last,
        history=history,
        score=score,
        optimal_interval=opt_interval,
    )
