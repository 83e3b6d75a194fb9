"""A game's answers kept on the server for the browser that gave them, so a reload keeps them.

Phones discard background tabs, and a reload starts a new Streamlit session: session state
is gone. :class:`ProgressStore` keeps each game's answers in the server's memory, keyed by
the browser (:func:`appkit.internals.browser_id`: a digest of the token inside Streamlit's XSRF
cookie, the same for every tab and every reload of one browser)
and a game key (for the "Play the attacker" page: the settings and the seed). The answers
never go into the link: a link can be edited, and a student could rewrite past answers after
seeing the truths.

Bounded: at most ``max_games`` games (least recently used dropped first) of at most
``max_answers`` answers each, stored as bytes. :data:`STORE` holds 4 096 games of up to 200
answers; ``tests/test_game_progress.py`` measures its full size with ``tracemalloc`` (about 2 MB).
Thread-safe: every session runs in its own thread, and one browser's tabs may answer at once;
an answer is appended only if it is for the next round (:meth:`ProgressStore.answer`), under
one lock.

Without a browser token (``AppTest``, or a client that sends no cookie) :func:`browser_id` is
None and the page keeps the answers in its session only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .internals import browser_id

__all__ = ["STORE", "Progress", "ProgressStore", "browser_id"]


@dataclass(frozen=True)
class Progress:
    """One game's state for one browser: the answers (True = "in") and ``replays``, how many
    times this browser restarted the same rounds (their truths were shown before)."""

    answers: tuple[bool, ...] = ()
    replays: int = 0


class ProgressStore:
    """A bounded, thread-safe map (browser, game key) -> :class:`Progress` (LRU eviction).

    ``max_games``: how many games are kept at most; ``max_answers``: the longest game kept
    (answers beyond it are refused, as an out-of-range round).
    """

    def __init__(self, max_games: int = 4096, max_answers: int = 200) -> None:
        if int(max_games) < 1:
            raise ValueError(f"max_games={max_games!r} must be at least 1")
        if int(max_answers) < 1:
            raise ValueError(f"max_answers={max_answers!r} must be at least 1")
        self.max_games = int(max_games)
        self.max_answers = int(max_answers)
        self._lock = threading.Lock()
        self._games: OrderedDict[tuple[str, Hashable], tuple[bytes, int]] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def _put(self, key: tuple[str, Hashable], answers: bytes, replays: int) -> None:
        self._games[key] = (answers, replays)
        self._games.move_to_end(key)
        while len(self._games) > self.max_games:
            self._games.popitem(last=False)

    def get(self, browser: str, game: Hashable) -> Progress | None:
        """The progress of ``game`` for ``browser``, or None if none is kept."""
        with self._lock:
            held = self._games.get((browser, game))
            if held is None:
                return None
            self._games.move_to_end((browser, game))
        return Progress(tuple(b == 1 for b in held[0]), held[1])

    def put(self, browser: str, game: Hashable, progress: Progress) -> None:
        """Keep ``progress`` (its first ``max_answers`` answers) for ``browser``'s ``game``."""
        data = bytes(1 if a else 0 for a in progress.answers[: self.max_answers])
        with self._lock:
            self._put((browser, game), data, int(progress.replays))

    def answer(
        self, browser: str, game: Hashable, index: int, said_in: bool, start: Sequence[bool] = ()
    ) -> Progress:
        """Record the answer to round ``index`` if it is the next round of the kept game (a
        second tab, or a double click, answering a round again changes nothing); ``start``:
        the answers to begin from when the store holds none for this game (e.g. the session's
        copy after an eviction). Returns the game's progress afterwards."""
        with self._lock:
            held = self._games.get((browser, game))
            if held is None:
                held = (bytes(1 if a else 0 for a in start[: self.max_answers]), 0)
            answers, replays = held
            if index == len(answers) and index < self.max_answers:
                answers = answers + (b"\x01" if said_in else b"\x00")
            self._put((browser, game), answers, replays)
        return Progress(tuple(b == 1 for b in answers), replays)

    def restart(self, browser: str, game: Hashable) -> Progress:
        """Clear the answers of ``game`` for ``browser``; a game with answers (whose truths
        were shown) counts one more replay."""
        with self._lock:
            held = self._games.get((browser, game))
            answers, replays = held if held is not None else (b"", 0)
            replays += 1 if answers else 0
            self._put((browser, game), b"", replays)
        return Progress((), replays)


STORE = ProgressStore()
