r"""Class mode's storage: one game for a whole room, every student's guesses in one database.

Plain Python (SQLAlchemy Core; never Streamlit), so that the teacher's dashboard, the
students' view, the tests and the benchmarks share one implementation. The UI keeps one
:class:`Store` per process (e.g. in ``st.cache_resource``) and turns every
:class:`ClassroomError` into its message: each is a sentence written for the page.

**The game.** A teacher creates a class from :class:`mipcore.game.GameSettings`, a number of
rounds and a seed; together they fix every round (:func:`mipcore.game.draw_round`), so the
store keeps no truths. Students join with the public class code and a nickname, then answer
round by round, in order (:attr:`PlayerView.next_round`); the class is one attacker
(:func:`score_class`: the pooled answers and the majority answer per round). The teacher closes
the class (no more answers; each student may now see the truths of the rounds they answered,
so every round answered so far counts as shown: :attr:`ClassView.truths_shown`), may reopen it
(nobody then answers a round whose truth was shown: players go on after them), reveals it (the
truths may be shown), and may delete it at once; every class is deleted anyway
``lifetime_seconds`` after its creation (24 h by default, ``MIP_EXPLORER_CLASS_HOURS``).

**Browsers** (``device=``: a secret of the browser, e.g. a digest of its cookie's token, never
shown to anyone). One browser is one player of a class (:meth:`Store.rejoin`: a second tab
continues the same player) and the teacher of the classes it started
(:meth:`Store.teacher_classes`: the panel survives a reload and a restart). The store keeps a
digest of the browser's secret and, per class and role, the digest of a key derived from it:
a player's key in a link opens nothing else.

**Who may do what.**

======================================  ==========================================
call                                    needs
======================================  ==========================================
:meth:`Store.create_class`              nothing (returns the teacher's secret)
:meth:`Store.class_view`                the code (public; limited per client)
:meth:`Store.join`                      the code and a nickname (or a player's key)
:meth:`Store.rejoin`                    the code and the browser
:meth:`Store.player_view`,              the code and that player's key (their token,
:meth:`Store.player_state`,             or their browser's key)
:meth:`Store.answer`
:meth:`Store.teacher_classes`           the browser
:meth:`Store.resume_teacher`            the teacher token, or a one-time hand-over
:meth:`Store.teacher_view`,             a teacher's key (the token, a browser's key
:meth:`Store.handoff`,
:meth:`Store.close`, :meth:`Store.reopen`,   or a handed-over key)
:meth:`Store.reveal`, :meth:`Store.delete`,
:meth:`Store.results`, :meth:`Store.results_csv`
======================================  ==========================================

**What is stored.** The class's settings (the :class:`~mipcore.game.GameSettings` fields, the
rounds, the seed), its state, times and ``truths_shown``, a hash of the teacher token; per
player a nickname, a join number and a hash of the player token; per guess the player, the
round and the answer; per browser key a digest of the browser's secret. Nothing else about a
person: no time of an answer, no address.

**Security choices.**

* *Teacher rights come only from the teacher token* (``secrets.token_urlsafe(32)``: 256
  bits), never from the public code. The store keeps its SHA-256 and compares with
  :func:`hmac.compare_digest`. A player token (192 bits) is found by its SHA-256 (an index
  lookup: a hash of a random secret leaks nothing through timing). Refusals never echo a
  token.
* *Class codes* are 8 characters of Crockford's base 32 (``0-9`` and ``A-Z`` without
  ``I L O U``): exactly 40 bits, easy to read off a projector and to type on a phone
  (``O``/``I``/``L`` typed by mistake read as ``0``/``1``/``1``; dashes and spaces are
  ignored). A code only lets one join as a student. With 1 000 classes alive at once a
  random guess finds one with probability 1000/2^40 ≈ 10^-9; a client that guesses wrong
  ``lookup_burst`` times (20) then gets one more guess every 30 s (:class:`Limits`): about
  3 000 guesses a day, a hit expected after some 10^5 days. The UI passes the client key
  (``client=``): the browser, else the session -- never the address, which a school's phones
  share (one student's typos would lock out the room). A guesser who drops the cookie to get a
  new key each time meets the server-wide bucket (``lookup_global_burst``): every lookup by
  code then waits up to 2 s, which slows guessing to a few codes a second and refuses nobody.
  Players and teachers hold a key and are never limited.
* *Joins are rate-limited per class* by a token bucket (``join_burst`` = 100 joins at once,
  then ``join_per_second`` = 2): a class of 60 joins in the same second, and a script
  cannot fill a class to its 500 players at once. The bucket lives in the class's row: every
  join locks that row anyway (to count the players and pick a unique nickname), so it costs
  nothing, and it holds across every app process that serves the class. Failed lookups are
  counted per client key in each process instead: an unknown code has no row, and writing one
  per wrong guess would let a guesser make the database write; with several processes the
  allowance is that many times larger, which 40 bits absorb.
* *Caps* (:class:`Limits`): 500 players a class, 200 rounds, 2 000 live classes; beyond them
  :class:`LimitReached`.
* *Nicknames* (:func:`clean_nickname`): control characters, direction overrides and other
  invisible characters removed, spaces collapsed, at most 24 characters, at least one visible
  character; unique within a class regardless of case and of look-alike letters (a second
  "ada", or a Cyrillic "Аda", becomes "ada 2").

**Backends.** SQLite by default: a file ``classes.sqlite3`` in ``MIP_EXPLORER_DATA_DIR``
(``~/.cache/mip-explorer``), in WAL mode, so ``streamlit run app.py`` needs nothing else.
Any SQLAlchemy URL otherwise (the ``url`` argument, else ``MIP_EXPLORER_DATABASE_URL``);
PostgreSQL through psycopg 3 (``postgresql://…`` is read as ``postgresql+psycopg://…``)
when several app processes serve one course. The schema is created on first use and its
version is kept in the table ``classroom_schema``; a database written by a newer version is
refused (:class:`SchemaMismatch`), never silently changed.

**Concurrency.** Every call is one short transaction. An answer is unique per player and
round (the guesses' primary key, ``INSERT … ON CONFLICT DO NOTHING``): a second answer to a
round, however concurrent, is not counted twice and does not change the first
(:class:`Duplicate`). On PostgreSQL an answer holds a share lock on its class's row, so an
answer and :meth:`Store.close` are strictly ordered; SQLite writes one transaction at a time
(``BEGIN IMMEDIATE``). A busy SQLite file or a serialization failure is retried with
exponential backoff for up to ``busy_seconds``; a database that cannot be reached raises
:class:`StorageUnavailable` at once, so the page can say so while the single-player game keeps
working.

**Errors.** :class:`ClassroomError` is the base of everything raised here; :class:`Refused`
(a ``ValueError``) for a refused request, in words a student or teacher can read (a
programming error names the parameter and its value; never a token); :class:`StorageUnavailable`
(a ``RuntimeError``) when the storage cannot serve -- also when its SQLite file was deleted,
replaced or made read-only while the app runs (noticed at the next call, by a stat). A sentence
never holds a server path, a host or a driver's message: those go to the server's log.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import hmac
import io
import logging
import math
import os
import random
import secrets
import sqlite3
import stat
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects.postgresql import insert as _pg_insert
from sqlalchemy.dialects.sqlite import insert as _sqlite_insert
from sqlalchemy.engine import URL, Connection, Engine, make_url

from mipcore.game import (
    Calibration,
    GameMechanism,
    GameModel,
    GameScore,
    GameSettings,
    draw_round,
    game_model,
    log_densities,
    score_games,
)

from . import settings as app_settings
from . import turns

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "MAX_SEED",
    "SCHEMA_VERSION",
    "Accepted",
    "ClassClosed",
    "ClassNotFound",
    "ClassResults",
    "ClassScore",
    "ClassState",
    "ClassView",
    "ClassroomError",
    "Duplicate",
    "InvalidInput",
    "InvalidToken",
    "LimitReached",
    "Limits",
    "OwnClass",
    "PlayerAnswers",
    "PlayerHandle",
    "PlayerScore",
    "PlayerView",
    "RateLimited",
    "Refused",
    "RoundCounts",
    "RoundPassed",
    "SchemaMismatch",
    "StorageUnavailable",
    "Store",
    "TeacherHandle",
    "clean_nickname",
    "default_url",
    "display_code",
    "normalize_code",
    "score_class",
    "truths",
]

SCHEMA_VERSION = 2  # 2: truths_shown, device and hand-over keys (a version-1 file is upgraded)
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: 5 bits a character
CODE_LENGTH = 8  # 40 bits
MAX_SEED = 2**63 - 1  # a signed 64-bit column on every backend
_CODE_READS = str.maketrans("OIL", "011")  # Crockford: what a mistyped letter stands for
_TEACHER_BYTES = 32
_PLAYER_BYTES = 24
_MAX_TOKEN_CHARS = 200  # longer is not one of ours; refused before hashing
_NICK_COLUMN = 64  # the column's width; Limits.nickname_chars may not exceed it
_MAX_RAW_NICK = 1000  # raw input longer than this is refused before it is cleaned
_MAX_CLIENTS = 10_000  # client keys whose failed lookups are remembered (least recent dropped)
_PG_SCHEMA_LOCK = 0x6D69_7063_6C61_7373  # pg_advisory_xact_lock key of the schema set-up
_MAX_LOOKUP_PAUSE = 2.0  # s: the longest a lookup waits while the server sees many unknown codes
_HANDOFF_SECONDS = 600.0  # a link that hands the teacher's panel to another device: 10 minutes
_log = logging.getLogger("mip_explorer.classroom")


# --------------------------------------------------------------------------- errors


class ClassroomError(Exception):
    """Base of every exception of this module; its message is a sentence for the page."""


class Refused(ClassroomError, ValueError):
    """The request is refused: bad input, missing rights, the class's state, or a limit. The
    message names the parameter, its value (never a token's) and the rule."""


class InvalidInput(Refused):
    """A parameter is not of the allowed type or range (a malformed code, an empty nickname,
    a round out of range, …)."""


class ClassNotFound(Refused):
    """No live class has this code (never created, expired, or deleted)."""


class InvalidToken(Refused):
    """A teacher or player token does not belong to a live class of this code. Also raised
    when no live class has the code (it expired, or was deleted): calls that carry a token
    never tell whether a code exists, only :meth:`Store.class_view` and :meth:`Store.join`
    do, and those limit each client's wrong codes."""


class ClassClosed(Refused):
    """The class takes no more joins or answers (closed or revealed), or cannot go back."""


class RoundPassed(Refused):
    """The answer is for a round the player skipped: its truth was shown (the class was closed)
    before the player reached it."""


class LimitReached(Refused):
    """A cap of :class:`Limits` is reached: players in a class, rounds, live classes."""


class RateLimited(Refused):
    """Too many joins to one class, or failed lookups from one client, in a short time;
    ``retry_after`` says in how many seconds one more is allowed."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = float(retry_after)


class StorageUnavailable(ClassroomError, RuntimeError):
    """The storage cannot serve (unreachable, misconfigured, or busy for too long). Class
    mode is off until it is back; nothing else in the app depends on it."""


class SchemaMismatch(StorageUnavailable):
    """The database holds a schema version this code does not know (e.g. written by a newer
    MIP Explorer): refused rather than changed."""


# --------------------------------------------------------------------------- values


class ClassState(StrEnum):
    """A class's state: ``OPEN`` (joins and answers taken), ``CLOSED`` (neither; may reopen),
    ``REVEALED`` (closed for good: the truths may be shown)."""

    OPEN = "open"
    CLOSED = "closed"
    REVEALED = "revealed"


@dataclass(frozen=True)
class Limits:
    """Caps, rates and lifetimes of one :class:`Store` (the defaults suit a public server).

    Parameters
    ----------
    lifetime_seconds : how long a class lives after its creation; None (default) reads
        ``MIP_EXPLORER_CLASS_HOURS`` (:data:`appkit.settings.CLASS_SECONDS`, 24 h).
    max_players : players a class may have (500).
    max_rounds : rounds a class may have (200).
    max_classes : classes alive at once in one store (2 000).
    nickname_chars : the longest nickname, in characters (24; at most 64).
    join_burst, join_per_second : the token bucket of joins per class: ``join_burst`` at
        once, then ``join_per_second`` (100, then 2 a second).
    lookup_burst, lookup_per_second : the token bucket of failed lookups (an unknown code)
        per client key (a browser, else a session), in each process (20, then one every 30 s):
        that client is then refused.
    lookup_global_burst, lookup_global_per_second : the same for every client of a process
        together (200, then 2 a second): beyond it every lookup by code waits (at most 2 s),
        which slows a guesser who takes a new identity for each try and refuses nobody.
    busy_seconds : how long a busy database is retried before :class:`StorageUnavailable`
        (10 s).

    Raises
    ------
    InvalidInput
        For a non-positive or non-finite value, or ``nickname_chars`` above 64.
    """

    lifetime_seconds: float | None = None
    max_players: int = 500
    max_rounds: int = 200
    max_classes: int = 2000
    nickname_chars: int = 24
    join_burst: int = 100
    join_per_second: float = 2.0
    lookup_burst: int = 20
    lookup_per_second: float = 1.0 / 30.0
    lookup_global_burst: int = 200
    lookup_global_per_second: float = 2.0
    busy_seconds: float = 10.0

    def __post_init__(self) -> None:
        if self.lifetime_seconds is None:
            object.__setattr__(self, "lifetime_seconds", float(app_settings.CLASS_SECONDS))
        for name in (
            "lifetime_seconds",
            "join_per_second",
            "lookup_per_second",
            "lookup_global_per_second",
            "busy_seconds",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidInput(f"{name}={value!r} must be a number.")
            if not (math.isfinite(value) and value > 0):
                raise InvalidInput(f"{name}={value!r} must be a finite number above 0.")
            object.__setattr__(self, name, float(value))
        hi = {"nickname_chars": _NICK_COLUMN}
        for name in ("max_players", "max_rounds", "max_classes", "nickname_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidInput(f"{name}={value!r} must be a whole number.")
            if not 1 <= value <= hi.get(name, 10**9):
                raise InvalidInput(
                    f"{name}={value!r} is out of range: allowed 1 <= {name} <= {hi.get(name, 10**9)}."
                )
        for name in ("join_burst", "lookup_burst", "lookup_global_burst"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"{name}={value!r} must be a whole number of at least 1.")

    @property
    def lifetime(self) -> float:
        """``lifetime_seconds`` as a float (never None once constructed)."""
        return float(self.lifetime_seconds or 0.0)


@dataclass(frozen=True)
class TeacherHandle:
    """What :meth:`Store.create_class` gives the teacher. ``teacher_token`` is the secret
    (show it only to the teacher; the store keeps only its hash and cannot tell it again);
    ``link_token`` packs code and token into one URL-safe value for the teacher's own link
    (bookmark it; never project it), read back by :meth:`Store.resume_teacher`."""

    code: str
    teacher_token: str = field(repr=False)
    expires_at: float

    @property
    def display_code(self) -> str:
        """The code as shown to the class, ``ABCD-EFGH``."""
        return display_code(self.code)

    @property
    def link_token(self) -> str:
        """``CODE.TOKEN``: one URL-safe value (``token_urlsafe`` never writes a dot)."""
        return f"{self.code}.{self.teacher_token}"


@dataclass(frozen=True)
class PlayerHandle:
    """One student in one class. ``player_id``: the join number within the class (1, 2, …);
    ``nickname``: as stored (cleaned, maybe suffixed to be unique); ``player_token``: the
    secret that lets this browser answer as this player and come back after a reload."""

    code: str
    player_id: int
    nickname: str
    player_token: str = field(repr=False)


@dataclass(frozen=True)
class Accepted:
    """The answer to ``round_index`` is stored."""

    round_index: int
    said_in: bool


@dataclass(frozen=True)
class Duplicate:
    """This player had answered ``round_index`` already: nothing changed. ``said_in`` is the
    stored (first) answer, ``attempted`` the answer just refused."""

    round_index: int
    said_in: bool
    attempted: bool


@dataclass(frozen=True)
class ClassView:
    """What anyone with the code may know of a class (the students' view reads it).

    ``seed`` fixes every round's truth: the server needs it to draw the rounds, but a page must
    never show it to students before the class is revealed (it is left out of ``repr``).
    ``players``: how many joined; ``guesses``: answers stored; times are Unix seconds;
    ``truths_shown``: rounds ``0 … truths_shown − 1`` may have had their truths shown (a close
    shows each student the truths of the rounds they answered), so nobody answers them any more.
    """

    code: str
    settings: GameSettings
    rounds: int
    seed: int = field(repr=False)
    state: ClassState
    players: int
    guesses: int
    created_at: float
    expires_at: float
    truths_shown: int = 0

    @property
    def display_code(self) -> str:
        return display_code(self.code)

    @property
    def is_open(self) -> bool:
        return self.state is ClassState.OPEN


@dataclass(frozen=True)
class PlayerView:
    """One player's progress and what they need to play (one query; no count of the class).

    ``answers[k]``: the answer to round k (True = "in") or None; ``settings``, ``rounds``,
    ``seed`` (never shown to a student before the reveal), ``state`` and ``truths_shown`` are the
    class's (see :class:`ClassView`). A player answers the rounds in order and never one whose
    truth may have been shown: :attr:`next_round`.
    """

    code: str
    player_id: int
    nickname: str
    state: ClassState
    answers: tuple[bool | None, ...]
    settings: GameSettings
    seed: int = field(repr=False)
    truths_shown: int = 0

    @property
    def rounds(self) -> int:
        return len(self.answers)

    @property
    def answered(self) -> int:
        return sum(a is not None for a in self.answers)

    @property
    def next_round(self) -> int | None:
        """The round this player answers now: after their last answer and after the rounds
        whose truths were shown (None: no round is left)."""
        return _next_round(self.answers, self.truths_shown)

    @property
    def skipped(self) -> int:
        """Rounds before :attr:`next_round` this player never answered (their truths were
        shown before the player reached them)."""
        upto = len(self.answers) if self.next_round is None else self.next_round
        return sum(a is None for a in self.answers[:upto])


def _next_round(answers: tuple[bool | None, ...], truths_shown: int) -> int | None:
    last = max((k for k, a in enumerate(answers) if a is not None), default=-1)
    k = max(truths_shown, last + 1)
    return k if k < len(answers) else None


@dataclass(frozen=True)
class OwnClass:
    """A live class this browser runs as its teacher (:meth:`Store.teacher_classes`)."""

    handle: TeacherHandle
    state: ClassState
    created_at: float


@dataclass(frozen=True)
class PlayerAnswers:
    """One player's answers in :class:`ClassResults`: ``answers[k]`` for round k or None."""

    player_id: int
    nickname: str
    answers: tuple[bool | None, ...]

    @property
    def answered(self) -> int:
        return sum(a is not None for a in self.answers)


@dataclass(frozen=True)
class RoundCounts:
    """How many players said "in" and "out" to round ``round_index``."""

    round_index: int
    said_in: int
    said_out: int

    @property
    def answers(self) -> int:
        return self.said_in + self.said_out


@dataclass(frozen=True)
class ClassResults:
    """Everything the teacher's dashboard needs: the class (``view``), every player's answers
    in join order, and the counts per round. Score it with :func:`score_class`."""

    view: ClassView
    players: tuple[PlayerAnswers, ...]
    per_round: tuple[RoundCounts, ...]


# --------------------------------------------------------------------------- small helpers


def normalize_code(code: object) -> str:
    """The canonical form of a typed class code: upper case, dashes and spaces dropped,
    ``O``/``I``/``L`` read as ``0``/``1``/``1``.

    >>> normalize_code(" abcd-efgh ")
    'ABCDEFGH'
    >>> normalize_code("0o1iL234")
    '00111234'

    Raises
    ------
    InvalidInput
        If the result is not 8 characters of :data:`CODE_ALPHABET`.
    """
    if not isinstance(code, str):
        raise InvalidInput(
            f"{_short(code)} is not a class code: a code is text of {CODE_LENGTH} characters."
        )
    text = code.strip().upper().replace("-", "").replace(" ", "").translate(_CODE_READS)
    if len(text) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in text):
        raise InvalidInput(
            f"{_short(code)} is not a class code: a code has {CODE_LENGTH} letters and "
            f"digits (no I, L, O or U), e.g. {display_code('7KQ2MXR4')}."
        )
    return text


def display_code(code: str) -> str:
    """``ABCDEFGH`` as shown on a projector: ``ABCD-EFGH``."""
    return f"{code[:4]}-{code[4:]}"


def _short(value: object, chars: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= chars else text[: chars - 1] + "…"


# Direction controls (bidi overrides, isolates, marks) and blank-looking letters.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_DROP = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_ZWJ = "\u200d"  # kept inside a word: it joins emoji (👩‍💻)


def clean_nickname(nickname: object, max_chars: int = 24) -> str:
    """A nickname as stored: NFC, control characters, direction overrides, other format
    characters and blank fillers removed, every run of spaces one space, ends trimmed.

    >>> clean_nickname("  Ada\\u202e  Love\\u0000lace ")
    'Ada Lovelace'

    Raises
    ------
    InvalidInput
        If it is not text, has no visible character once cleaned, or is longer than
        ``max_chars`` characters.
    """
    if not isinstance(nickname, str):
        raise InvalidInput("A nickname must be text.")
    if len(nickname) > _MAX_RAW_NICK:
        raise InvalidInput(
            f"This nickname has {len(nickname)} characters: at most {max_chars} are allowed."
        )
    kept = []
    for ch in unicodedata.normalize("NFC", nickname):
        cat = unicodedata.category(ch)
        if ch.isspace() or cat == "Zs":
            kept.append(" ")
        elif ch in _BIDI or ch in _BLANKS or (cat in _DROP and ch != _ZWJ):
            continue
        else:
            kept.append(ch)
    text = " ".join("".join(kept).split()).strip(_ZWJ + " ")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in text):
        raise InvalidInput(
            "A nickname needs at least one visible letter, digit or sign: spaces, control "
            "characters and direction marks do not count."
        )
    if len(text) > max_chars:
        raise InvalidInput(
            f"This nickname has {len(text)} characters: at most {max_chars} are allowed."
        )
    return text


def _nickname_key(nickname: str) -> str:
    """What two nicknames must not share in one class: NFKC, case folded, and every character
    that looks like a Latin letter or digit read as it (Unicode's confusables, through
    ``confusable_homoglyphs``): a Cyrillic "Аda" and "Ada" share a key, so the second one gets a
    number, and nobody passes for someone else on the projector.

    >>> _nickname_key("\u0410da") == _nickname_key("ADA") == "ada"
    True
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", nickname).casefold())
    return "".join(_latin_look_alike(ch) for ch in folded)


@functools.lru_cache(maxsize=4096)
def _latin_look_alike(ch: str) -> str:
    """The ASCII letter or digit ``ch`` is confusable with (case folded), else ``ch``."""
    if ch.isascii():
        return ch
    from confusable_homoglyphs import confusables  # 0.5 s to load its table: on first use

    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"])
    for glyph in found[0]["homoglyphs"] if found else ():
        if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalnum():
            return glyph["c"].casefold()
    return ch


def _unique_nickname(nickname: str, taken: set[str], max_chars: int) -> str:
    if _nickname_key(nickname) not in taken:
        return nickname
    k = 2
    while True:
        suffix = f" {k}"
        candidate = nickname[: max_chars - len(suffix)].rstrip() + suffix
        if _nickname_key(candidate) not in taken:
            return candidate
        k += 1


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


_MAX_DEVICE_CHARS = 200


def _check_device(device: object) -> str | None:
    if device is None:
        return None
    if not isinstance(device, str) or not 0 < len(device) <= _MAX_DEVICE_CHARS:
        raise InvalidInput(
            f"device must be a browser's key: text of 1 to {_MAX_DEVICE_CHARS} characters, or None."
        )
    return device


def _device_hash(device: str) -> str:
    """What the store keeps to find a browser's classes: a digest of the browser's secret."""
    return _hash(f"mip-device:{device}")


def _device_key(device: str, role: str, code: str) -> str:
    """The key a browser holds as ``role`` of class ``code``: derived from the browser's own
    secret, never stored (its digest is), and different in every class and role, so that a
    player's key in a link opens nothing else."""
    return _hash(f"mip-device:{role}:{code}:{device}")


def _add_device_key(
    conn: Connection,
    class_id: int,
    role: str,
    code: str,
    device: str,
    *,
    player_id: int | None = None,
) -> None:
    """Record ``device`` as ``role`` of the class (once: a second time changes nothing)."""
    held = conn.execute(
        sa.select(keys.c.key_hash).where(
            keys.c.class_id == class_id,
            keys.c.role == role,
            keys.c.device_hash == _device_hash(device),
        )
    ).first()
    if held is None:
        conn.execute(
            sa.insert(keys).values(
                key_hash=_hash(_device_key(device, role, code)),
                class_id=class_id,
                role=role,
                device_hash=_device_hash(device),
                player_id=player_id,
            )
        )


def _device_player(conn: Connection, code: str, device: str, now: float) -> Any:
    """(number, nickname) of the player ``device`` is in the live class ``code``, or None."""
    return conn.execute(
        sa.select(players.c.number, players.c.nickname)
        .select_from(
            keys.join(players, keys.c.player_id == players.c.id).join(
                classes, keys.c.class_id == classes.c.id
            )
        )
        .where(
            classes.c.code == code,
            classes.c.expires_at > now,
            keys.c.role == "player",
            keys.c.device_hash == _device_hash(device),
        )
    ).one_or_none()


def _check_token(name: str, token: object) -> str:
    if not isinstance(token, str) or not 0 < len(token) <= _MAX_TOKEN_CHARS:
        who = "teacher's" if name == "teacher_token" else "player's"
        raise InvalidToken(
            f"This {who} link is damaged: its key is not one this app hands out. Open the link "
            "again from where you got it."
        )
    return token


def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidInput(f"{name}={_short(value)} must be a whole number.")
    if not lo <= int(value) <= hi:
        raise InvalidInput(f"{name}={int(value)} is out of range: allowed {lo} <= {name} <= {hi}.")
    return int(value)


def default_url() -> str:
    """The database a :class:`Store` without ``url`` uses: ``MIP_EXPLORER_DATABASE_URL``, else
    ``sqlite:///<MIP_EXPLORER_DATA_DIR>/classes.sqlite3``."""
    if app_settings.DATABASE_URL:
        return app_settings.DATABASE_URL
    return f"sqlite:///{Path(app_settings.DATA_DIR) / 'classes.sqlite3'}"


# --------------------------------------------------------------------------- schema

metadata = sa.MetaData()

schema_table = sa.Table(
    "classroom_schema",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
)

classes = sa.Table(
    "classroom_class",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("code", sa.String(CODE_LENGTH), nullable=False, unique=True),
    sa.Column("teacher_hash", sa.String(64), nullable=False),
    sa.Column("mechanism", sa.String(16), nullable=False),
    sa.Column("calibration", sa.String(16), nullable=False),
    sa.Column("level", sa.Double, nullable=False),
    sa.Column("n", sa.Integer, nullable=False),
    sa.Column("canary", sa.Double, nullable=False),
    sa.Column("target", sa.Integer, nullable=True),
    sa.Column("rounds", sa.Integer, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("state", sa.String(8), nullable=False),
    sa.Column("created_at", sa.Double, nullable=False),
    sa.Column("expires_at", sa.Double, nullable=False, index=True),
    # the join token bucket: tokens left at join_at (Unix seconds)
    sa.Column("join_tokens", sa.Double, nullable=False),
    sa.Column("join_at", sa.Double, nullable=False),
    # rounds 0 .. truths_shown - 1 may have had their truths shown (a close shows each student
    # the truths of the rounds they answered): nobody may answer them any more
    sa.Column("truths_shown", sa.Integer, nullable=False, server_default="0"),
    sa.CheckConstraint("state IN ('open', 'closed', 'revealed')", name="classroom_class_state"),
)

players = sa.Table(
    "classroom_player",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "class_id",
        sa.Integer,
        sa.ForeignKey("classroom_class.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("nickname", sa.String(_NICK_COLUMN), nullable=False),
    sa.Column("nickname_key", sa.String(4 * _NICK_COLUMN), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.UniqueConstraint("class_id", "number", name="classroom_player_number"),
    sa.UniqueConstraint("class_id", "nickname_key", name="classroom_player_nickname"),
)

guesses = sa.Table(
    "classroom_guess",
    metadata,
    sa.Column(
        "class_id",
        sa.Integer,
        sa.ForeignKey("classroom_class.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column(
        "player_id",
        sa.Integer,
        sa.ForeignKey("classroom_player.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("said_in", sa.Boolean, nullable=False),
    # one answer per player and round: the idempotence of Store.answer
    sa.PrimaryKeyConstraint("player_id", "round", name="classroom_guess_once"),
    sa.Index("classroom_guess_class_round", "class_id", "round"),
)


# A key besides the teacher and player tokens: a browser's (``device_hash``: a digest of its own
# secret, so that one browser is one player of a class and its teacher's panel survives a reload)
# or a teacher's panel handed to another device. ``key_hash`` is the digest of the credential a
# request presents (see _device_key), never the credential itself.
keys = sa.Table(
    "classroom_key",
    metadata,
    sa.Column("key_hash", sa.String(64), primary_key=True),
    sa.Column(
        "class_id",
        sa.Integer,
        sa.ForeignKey("classroom_class.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("role", sa.String(8), nullable=False),
    sa.Column("device_hash", sa.String(64), nullable=True),
    sa.Column(
        "player_id",
        sa.Integer,
        sa.ForeignKey("classroom_player.id", ondelete="CASCADE"),
        nullable=True,
    ),
    sa.CheckConstraint("role IN ('teacher', 'player')", name="classroom_key_role"),
    # one player per browser and class
    sa.Index("classroom_key_one_device", "class_id", "role", "device_hash", unique=True),
    sa.Index("classroom_key_device", "device_hash", "role"),
)

# A one-time link that hands the teacher's panel to another device (short-lived).
handoffs = sa.Table(
    "classroom_handoff",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column(
        "class_id",
        sa.Integer,
        sa.ForeignKey("classroom_class.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("expires_at", sa.Double, nullable=False),
)


# --------------------------------------------------------------------------- rate limits


class _Buckets:
    """Token buckets per key in this process (failed lookups per client), LRU-bounded."""

    def __init__(self, burst: int, per_second: float, max_keys: int = _MAX_CLIENTS) -> None:
        self.burst, self.rate, self.max_keys = float(burst), per_second, max_keys
        self._lock = threading.Lock()
        self._held: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _tokens(self, key: str, now: float) -> float:
        tokens, at = self._held.get(key, (self.burst, now))
        return min(self.burst, tokens + max(0.0, now - at) * self.rate)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try once more (0: now)."""
        with self._lock:
            tokens = self._tokens(key, now)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def spend(self, key: str, now: float) -> None:
        with self._lock:
            self._held[key] = (max(0.0, self._tokens(key, now) - 1.0), now)
            self._held.move_to_end(key)
            while len(self._held) > self.max_keys:
                self._held.popitem(last=False)


# --------------------------------------------------------------------------- the store

T = TypeVar("T")


def _sqlite_path(url: URL) -> Path | None:
    db = url.database
    if not db or db == ":memory:" or db.startswith("file:"):
        return None
    return Path(db)


def _where(url: URL) -> str:
    """Where the data live, for a sentence (no password)."""
    if url.get_backend_name() == "sqlite":
        return f"the SQLite file {url.database}"
    host = url.host or "localhost"
    port = f":{url.port}" if url.port else ""
    return f"the {url.get_backend_name()} database {url.database or ''} at {host}{port}"


def _reason(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = " ".join(str(orig).split())
    return (text[:200] + "…") if len(text) > 200 else (text or type(orig).__name__)


class Store:
    """The class-mode storage (thread-safe; one per process, e.g. in ``st.cache_resource``).

    Parameters
    ----------
    url : a SQLAlchemy database URL; None (default) is :func:`default_url`
        (``MIP_EXPLORER_DATABASE_URL``, else a SQLite file in ``MIP_EXPLORER_DATA_DIR``).
        ``postgresql://`` and ``postgres://`` mean ``postgresql+psycopg://``.
    limits : caps, rates and lifetimes (:class:`Limits`; default ``Limits()``).
    clock : the time in Unix seconds (default :func:`time.time`; tests pass a fake one).

    Nothing connects until the first call; that call creates the schema if it is missing and
    checks its version. After :func:`os.fork`, build a new Store in the child.

    Raises
    ------
    StorageUnavailable
        If ``url`` is not a database URL, or its driver is not installed.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limits = limits if limits is not None else Limits()
        if not isinstance(self.limits, Limits):
            raise InvalidInput(f"limits={_short(limits)} must be a Limits.")
        self._clock = clock
        raw = default_url() if url is None else url
        try:
            parsed = make_url(raw)
        except (sa_exc.ArgumentError, ValueError, TypeError):
            raise StorageUnavailable(
                "The class storage is not configured correctly: url (or "
                "MIP_EXPLORER_DATABASE_URL) is not a database URL such as "
                "postgresql+psycopg://user:password@host/database (its value is not shown: it "
                "may hold a password). Class mode is off; the single-player game still works."
            ) from None
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        self._url = parsed
        self.backend: str = parsed.get_backend_name()
        self.where = _where(parsed)  # for the server's log: may name a file or a host
        # what a sentence on the page calls it: never a path, a host or a driver's message
        self.said = (
            "The class storage (a file on this server)"
            if self.backend == "sqlite"
            else "The class storage (a database server)"
        )
        if self.backend == "sqlite" and _sqlite_path(parsed) is None:
            raise StorageUnavailable(
                f"The class storage url={self.url!r} is a SQLite database in memory: every "
                "connection would see a database of its own. Give a file, e.g. "
                "sqlite:////path/to/classes.sqlite3. Class mode is off; the single-player game "
                "still works."
            )
        try:
            self._engine = self._make_engine(parsed)
        except (sa_exc.SQLAlchemyError, ImportError, OSError) as exc:
            raise self._unavailable(exc) from exc
        self._file = _sqlite_path(parsed) if self.backend == "sqlite" else None
        self._file_id: tuple[int, int] | None = None  # (device, inode) once the schema is set up
        self._ready = False
        self._ready_lock = threading.Lock()
        self._writer = threading.Lock()  # SQLite: this process's writers queue here (_run)
        self._lookups = _Buckets(self.limits.lookup_burst, self.limits.lookup_per_second)
        self._all_lookups = _Buckets(
            self.limits.lookup_global_burst, self.limits.lookup_global_per_second, max_keys=1
        )

    # ----------------------------------------------------------------- engine

    @property
    def url(self) -> str:
        """The database URL with its password hidden."""
        return self._url.render_as_string(hide_password=True)

    def _make_engine(self, url: URL) -> Engine:
        if self.backend == "sqlite":
            path = _sqlite_path(url)
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                except OSError as exc:
                    _log.warning(f"class storage: cannot create {path.parent}: {exc}")
                    raise StorageUnavailable(
                        "The class storage cannot create its folder on this server (the person "
                        "running the app can set MIP_EXPLORER_DATA_DIR to a writable folder). "
                        "Class mode is off; the single-player game still works."
                    ) from exc
                # Made here, private, if it is new; a file that exists keeps the mode its
                # owner gave it (SQLite would create it with the process's umask).
                with contextlib.suppress(FileExistsError):
                    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            timeout = min(2.0, self.limits.busy_seconds / 2.0)
            engine = sa.create_engine(
                url, connect_args={"timeout": timeout, "check_same_thread": False}
            )

            @event.listens_for(engine, "connect")
            def _on_connect(dbapi_conn: Any, _record: Any) -> None:
                dbapi_conn.isolation_level = None  # the begin hook below issues BEGIN
                cur = dbapi_conn.cursor()
                try:
                    cur.execute("PRAGMA journal_mode=WAL")
                    cur.execute("PRAGMA synchronous=NORMAL")
                    cur.execute("PRAGMA foreign_keys=ON")
                finally:
                    cur.close()

            @event.listens_for(engine, "begin")
            def _on_begin(conn: Connection) -> None:
                # A write takes SQLite's write lock at BEGIN: a deferred transaction that
                # reads first could not take it later while another one commits.
                write = conn.get_execution_options().get("classroom_write", False)
                conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

            return engine
        options: dict[str, Any] = {"pool_pre_ping": True}
        if self.backend == "postgresql":
            options.update(
                pool_size=10,
                max_overflow=20,
                pool_timeout=self.limits.busy_seconds,
                connect_args={"connect_timeout": 5},
            )
        return sa.create_engine(url, **options)

    def dispose(self) -> None:
        """Close every pooled connection (e.g. at shutdown; the store stays usable)."""
        self._engine.dispose()

    def _unavailable(self, exc: BaseException) -> StorageUnavailable:
        _log.warning(f"class storage {self.where} unavailable: {_reason(exc)}")
        return StorageUnavailable(
            f"{self.said} cannot be reached right now. Class mode is off until it is back; the "
            "single-player game still works."
        )

    def _transient(self, exc: sa_exc.DBAPIError) -> bool:
        """A failure that goes away by itself: retried with backoff."""
        orig = exc.orig
        if self.backend == "sqlite":
            text = str(orig).lower()
            return isinstance(orig, sqlite3.OperationalError) and (
                "locked" in text or "busy" in text
            )
        if getattr(orig, "sqlstate", None) in {"40001", "40P01", "55P03"}:
            return True  # serialization failure, deadlock, lock not available
        return bool(exc.connection_invalidated)

    @contextlib.contextmanager
    def _write_turn(self, write: bool, deadline: float) -> Iterator[None]:
        """On SQLite, a write transaction waits for this process's other writers on a lock.

        SQLite lets one transaction write at a time. A writer whose ``BEGIN IMMEDIATE`` finds
        the file locked is put to sleep by SQLite's busy handler for 1, 2, 5, 10, … up to 100 ms
        before it looks again, however soon the lock is free: with 60 players answering once a
        second, a stored guess waited up to half a second for a lock held 2 ms (p99 ~60 ms on
        2 busy cores). Queued on a Python lock, a writer starts as soon as the last one has
        committed. Writers in other processes still meet SQLite's own lock (one app process
        per SQLite file is the supported setup; several use PostgreSQL). A run keeps its turn
        (:mod:`appkit.turns`) while it waits here: whoever holds this lock already has one,
        and never waits for another while holding it."""
        if not (write and self.backend == "sqlite"):
            yield
            return
        if not self._writer.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise StorageUnavailable(
                f"{self.said} stayed busy for {self.limits.busy_seconds:g} s (other answers of "
                "this server). Try again in a moment; the single-player game still works."
            )
        try:
            yield
        finally:
            self._writer.release()

    def _check_file(self, write: bool) -> None:
        """A SQLite file that was deleted, replaced or made read-only while the app runs is a
        sentence at once: an open connection would otherwise go on writing to a deleted file
        (answers lost at the next start) or to a file its owner made read-only. A stat, a few
        microseconds a call. A file without write permission for its owner counts as read-only
        even where the process could still write it (as root)."""
        if self._file is None:
            return
        try:
            st: os.stat_result | None = os.stat(self._file)
        except OSError:
            st = None
        if self._file_id is not None and (st is None or (st.st_dev, st.st_ino) != self._file_id):
            _log.error(f"class storage {self.where} was deleted or replaced while in use")
            raise StorageUnavailable(
                f"{self.said} was deleted or replaced while the app was running, so nothing can "
                "be stored: the person running the app must restart it (the classes in the old "
                "file are lost). The single-player game still works."
            )
        if (
            write
            and st is not None
            and (not st.st_mode & stat.S_IWUSR or not os.access(self._file, os.W_OK))
        ):
            _log.error(f"class storage {self.where} is read-only")
            raise StorageUnavailable(
                f"{self.said} is read-only, so no answer, join or change can be stored: the "
                "person running the app must make it writable. The single-player game still "
                "works."
            )

    def _run(self, work: Callable[[Connection], T], *, write: bool, setup: bool = False) -> T:
        """``work`` in one transaction, retried while the database is busy."""
        if not setup:
            self._ensure_schema()
            self._check_file(write)
        deadline = time.monotonic() + self.limits.busy_seconds
        attempt = 0
        while True:
            try:
                with self._write_turn(write, deadline), self._engine.connect() as conn:
                    if write:
                        conn.execution_options(classroom_write=True)
                    with conn.begin():
                        return work(conn)
            except ClassroomError:
                raise
            except sa_exc.DBAPIError as exc:
                # an IntegrityError: two new classes drew the same code at once; draw again
                if isinstance(exc, sa_exc.IntegrityError):
                    retry = attempt < 3
                else:
                    retry = self._transient(exc)
                if not retry:
                    raise self._unavailable(exc) from exc
                if time.monotonic() >= deadline:
                    _log.warning(f"class storage {self.where} busy: {_reason(exc)}")
                    raise StorageUnavailable(
                        f"{self.said} stayed busy for {self.limits.busy_seconds:g} s. Try again "
                        "in a moment; the single-player game still works."
                    ) from exc
            except (sa_exc.SQLAlchemyError, OSError) as exc:
                raise self._unavailable(exc) from exc
            attempt += 1
            pause = min(0.25, 0.004 * 2**attempt) * random.uniform(0.5, 1.0)
            with turns.step_aside():  # no lock is held here: another run computes meanwhile
                time.sleep(min(pause, max(0.0, deadline - time.monotonic())))

    def _ensure_schema(self) -> None:
        if self._ready:
            return
        with self._ready_lock:
            if self._ready:
                return
            self._check_file(True)  # a read-only file is a sentence, not a driver's error

            def work(conn: Connection) -> int:
                if self.backend == "postgresql":  # one process sets the schema up at a time
                    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SCHEMA_LOCK)))
                if sa.inspect(conn).has_table(schema_table.name):
                    found = conn.execute(sa.select(schema_table.c.version)).scalars().all()
                    if found and max(found) == 1:
                        _upgrade_from_1(conn)
                    elif found and max(found) != SCHEMA_VERSION:
                        return max(found)  # someone else's schema: change nothing
                metadata.create_all(conn)
                if conn.execute(sa.select(schema_table.c.version)).first() is None:
                    conn.execute(sa.insert(schema_table).values(version=SCHEMA_VERSION))
                return SCHEMA_VERSION

            version = self._run(work, write=True, setup=True)
            if version != SCHEMA_VERSION:
                newer = version > SCHEMA_VERSION
                _log.warning(f"class storage {self.where}: schema version {version}")
                raise SchemaMismatch(
                    f"{self.said} holds schema version {version}, and this "
                    f"MIP Explorer knows version {SCHEMA_VERSION} only"
                    + (
                        ": it was written by a newer version. Upgrade the app, or point "
                        if newer
                        else ". Point "
                    )
                    + "MIP_EXPLORER_DATABASE_URL (or MIP_EXPLORER_DATA_DIR) elsewhere. Nothing "
                    "was changed; class mode is off, the single-player game still works."
                )
            if self._file is not None:
                with contextlib.suppress(OSError):
                    st = os.stat(self._file)
                    self._file_id = (st.st_dev, st.st_ino)
            self._ready = True

    def check(self) -> None:
        """Connect, create the schema if needed and check its version (e.g. at start-up).

        Raises
        ------
        StorageUnavailable
            Also :class:`SchemaMismatch`.
        """
        self._ensure_schema()

    # ----------------------------------------------------------------- lookups

    def _now(self) -> float:
        return float(self._clock())

    def _class_row(self, conn: Connection, code: str, now: float, *, lock: bool = False) -> Any:
        query = sa.select(classes).where(classes.c.code == code, classes.c.expires_at > now)
        row = conn.execute(query.with_for_update() if lock else query).one_or_none()
        if row is None:
            raise ClassNotFound(
                f"{display_code(code)} is not a live class: it was never created, has expired or "
                "was deleted. Check the code on the projector."
            )
        return row

    def _teacher_row(self, conn: Connection, code: str, token: str, now: float, lock: bool) -> Any:
        """The class if ``token`` is its teacher's: the teacher token, or a key of a browser or
        device the teacher runs it from (:meth:`teacher_classes`, :meth:`resume_teacher`). An
        unknown code and a wrong token are one refusal, so that calls with a token never tell
        whether a code exists."""
        query = sa.select(classes).where(classes.c.code == code, classes.c.expires_at > now)
        row = conn.execute(query.with_for_update() if lock else query).one_or_none()
        held = row.teacher_hash if row is not None else _hash("")
        ok = hmac.compare_digest(held, _hash(token)) and row is not None
        if not ok and row is not None:
            ok = (
                conn.execute(
                    sa.select(keys.c.class_id).where(
                        keys.c.key_hash == _hash(token),
                        keys.c.class_id == row.id,
                        keys.c.role == "teacher",
                    )
                ).first()
                is not None
            )
        if not ok:
            raise InvalidToken(
                f"This browser is not the teacher of class {display_code(code)}: only the teacher "
                "who started it, or a device the teacher handed the panel to, may do this. A "
                f"class ends {self.limits.lifetime / 3600:g} h after its start or when it is "
                "deleted."
            )
        return row

    def _view(self, conn: Connection, row: Any) -> ClassView:
        # the two counts in one query (a teacher's dashboard reads them every 2 s)
        n_players, n_guesses = conn.execute(
            sa.select(
                sa.select(sa.func.count())
                .select_from(players)
                .where(players.c.class_id == row.id)
                .scalar_subquery(),
                sa.select(sa.func.count())
                .select_from(guesses)
                .where(guesses.c.class_id == row.id)
                .scalar_subquery(),
            )
        ).one()
        return ClassView(
            code=row.code,
            settings=_settings_of(row),
            rounds=int(row.rounds),
            seed=int(row.seed),
            state=ClassState(row.state),
            players=int(n_players),
            guesses=int(n_guesses),
            created_at=float(row.created_at),
            expires_at=float(row.expires_at),
            truths_shown=int(row.truths_shown),
        )

    def _check_client(self, client: str | None, now: float) -> None:
        """Before a lookup by code alone: a client (a browser, else a session) that tried too
        many unknown codes is refused; every lookup waits while the whole server has seen too
        many unknown codes lately (``lookup_global_burst``: a guesser with a new identity for
        every try is slowed, nobody is refused). Players and teachers, who hold a key, never
        come here."""
        if client is not None:
            wait = self._lookups.wait(client, now)
            if wait > 0:
                raise RateLimited(
                    f"Too many unknown class codes were tried in this browser: "
                    f"{self.limits.lookup_burst} wrong codes at most, then one every "
                    f"{1 / self.limits.lookup_per_second:g} s. Try again in {math.ceil(wait)} s.",
                    retry_after=wait,
                )
        wait = self._all_lookups.wait("", now)
        if wait > 0:
            with turns.step_aside():
                time.sleep(min(wait, _MAX_LOOKUP_PAUSE))

    def _missed(self, client: str | None, now: float) -> None:
        """An unknown code was looked up: counted for its client and for the server."""
        if client is not None:
            self._lookups.spend(client, now)
        self._all_lookups.spend("", now)

    # ----------------------------------------------------------------- teacher

    def create_class(
        self, settings: GameSettings, rounds: int, seed: int, *, device: str | None = None
    ) -> TeacherHandle:
        """Create a class (and first purge the expired ones).

        Parameters
        ----------
        settings : the game's :class:`~mipcore.game.GameSettings`.
        rounds : ``1 <= rounds <= limits.max_rounds`` (200).
        seed : ``0 <= seed <= 2^63 − 1``; with ``settings`` it fixes every round.
        device : the teacher's browser (a secret of the browser, e.g.
            :func:`appkit.internals.browser_id`), or None: the class is then this browser's too,
            and :meth:`teacher_classes` finds it after a reload or a server restart.

        Returns
        -------
        TeacherHandle
            The public code and the teacher's secret token (kept only as a hash).

        Raises
        ------
        InvalidInput, LimitReached, StorageUnavailable
        """
        if not isinstance(settings, GameSettings):
            raise InvalidInput(f"settings={_short(settings)} must be a mipcore.game.GameSettings.")
        if (
            not isinstance(rounds, (bool, np.bool_))
            and isinstance(rounds, (int, np.integer))
            and rounds > self.limits.max_rounds
        ):
            raise LimitReached(
                f"rounds={int(rounds)} is more than a class may play: at most "
                f"{self.limits.max_rounds} rounds."
            )
        rounds = _check_int("rounds", rounds, 1, self.limits.max_rounds)
        seed = _check_int("seed", seed, 0, MAX_SEED)
        device = _check_device(device)
        now = self._now()
        self.purge_expired(now)
        token = secrets.token_urlsafe(_TEACHER_BYTES)
        expires = now + self.limits.lifetime

        def work(conn: Connection) -> str:
            # a soft cap: creations at the same instant may pass it by a few
            live = conn.execute(
                sa.select(sa.func.count()).select_from(classes).where(classes.c.expires_at > now)
            ).scalar_one()
            if live >= self.limits.max_classes:
                raise LimitReached(
                    f"This server already keeps {live} classes, the most it may. Try again once "
                    "one has ended."
                )
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                taken = conn.execute(
                    sa.select(classes.c.id).where(classes.c.code == code)
                ).one_or_none()
                if taken is None:
                    break
            class_id = conn.execute(
                sa.insert(classes)
                .values(
                    code=code,
                    teacher_hash=_hash(token),
                    mechanism=settings.mechanism.value,
                    calibration=settings.calibration.value,
                    level=settings.level,
                    n=settings.n,
                    canary=settings.canary,
                    target=settings.target,
                    rounds=rounds,
                    seed=seed,
                    state=ClassState.OPEN.value,
                    created_at=now,
                    expires_at=expires,
                    join_tokens=float(self.limits.join_burst),
                    join_at=now,
                    truths_shown=0,
                )
                .returning(classes.c.id)
            ).scalar_one()
            if device is not None:
                _add_device_key(conn, class_id, "teacher", code, device)
            return code

        code = self._run(work, write=True)
        return TeacherHandle(code=code, teacher_token=token, expires_at=expires)

    def teacher_classes(self, device: str) -> tuple[OwnClass, ...]:
        """The live classes ``device`` (a browser's secret, as given to :meth:`create_class`)
        runs as their teacher, newest first; each :class:`OwnClass` holds a handle whose
        ``teacher_token`` is this device's key of that class (it works only from this device's
        requests, and in no other class).

        Raises
        ------
        InvalidInput, StorageUnavailable
        """
        dev = _check_device(device)
        if dev is None:
            raise InvalidInput("device must be a browser's key, not None.")
        now = self._now()

        def work(conn: Connection) -> list[Any]:
            return list(
                conn.execute(
                    sa.select(
                        classes.c.code, classes.c.state, classes.c.created_at, classes.c.expires_at
                    )
                    .select_from(keys.join(classes, keys.c.class_id == classes.c.id))
                    .where(
                        keys.c.device_hash == _device_hash(dev),
                        keys.c.role == "teacher",
                        classes.c.expires_at > now,
                    )
                    .order_by(classes.c.created_at.desc(), classes.c.id.desc())
                ).all()
            )

        return tuple(
            OwnClass(
                TeacherHandle(
                    code=r.code,
                    teacher_token=_device_key(dev, "teacher", r.code),
                    expires_at=float(r.expires_at),
                ),
                ClassState(r.state),
                float(r.created_at),
            )
            for r in self._run(work, write=False)
        )

    def handoff(self, code: str, teacher_token: str) -> str:
        """A one-time link token (``CODE.TOKEN``) that hands the teacher's panel to another
        device: :meth:`resume_teacher` takes it once, within 10 minutes.

        Raises
        ------
        InvalidInput, InvalidToken, StorageUnavailable
        """
        code = normalize_code(code)
        token = _check_token("teacher_token", teacher_token)
        now = self._now()
        secret = secrets.token_urlsafe(_TEACHER_BYTES)

        def work(conn: Connection) -> None:
            row = self._teacher_row(conn, code, token, now, True)
            conn.execute(sa.delete(handoffs).where(handoffs.c.expires_at <= now))
            conn.execute(
                sa.insert(handoffs).values(
                    token_hash=_hash(secret),
                    class_id=row.id,
                    expires_at=min(now + _HANDOFF_SECONDS, float(row.expires_at)),
                )
            )

        self._run(work, write=True)
        return f"{code}.{secret}"

    def resume_teacher(self, link_token: str, *, device: str | None = None) -> TeacherHandle:
        """The teacher's panel on this device, from a link token: the teacher's own
        (:attr:`TeacherHandle.link_token`) or a hand-over from :meth:`handoff` (taken once).
        With ``device``, the class becomes this device's too (:meth:`teacher_classes`).

        Raises
        ------
        InvalidInput
            If ``link_token`` is not ``CODE.TOKEN``.
        InvalidToken, StorageUnavailable
        """
        if not isinstance(link_token, str) or link_token.count(".") != 1:
            raise InvalidInput(
                "This is not a teacher's link: its key is damaged or incomplete. Ask the teacher "
                "for a new one."
            )
        raw_code, token = link_token.split(".")
        code = normalize_code(raw_code)
        token = _check_token("teacher_token", token)
        dev = _check_device(device)
        now = self._now()
        fresh = secrets.token_urlsafe(_TEACHER_BYTES)

        def work(conn: Connection) -> tuple[str, float]:
            row = conn.execute(
                sa.select(classes).where(classes.c.code == code, classes.c.expires_at > now)
            ).one_or_none()
            own = row is not None and hmac.compare_digest(row.teacher_hash, _hash(token))
            if row is not None and not own:
                used = conn.execute(
                    sa.delete(handoffs)
                    .where(
                        handoffs.c.token_hash == _hash(token),
                        handoffs.c.class_id == row.id,
                        handoffs.c.expires_at > now,
                    )
                    .returning(handoffs.c.class_id)
                ).first()
                if used is None:
                    row = None
            if row is None:
                raise InvalidToken(
                    f"This teacher's link for class {display_code(code)} is no longer valid: a "
                    "hand-over link works once, within 10 minutes, and a class ends "
                    f"{self.limits.lifetime / 3600:g} h after its start or when it is deleted."
                )
            if dev is not None:
                _add_device_key(conn, row.id, "teacher", code, dev)
                return _device_key(dev, "teacher", code), float(row.expires_at)
            if own:
                return token, float(row.expires_at)
            conn.execute(
                sa.insert(keys).values(key_hash=_hash(fresh), class_id=row.id, role="teacher")
            )
            return fresh, float(row.expires_at)

        held, expires = self._run(work, write=True)
        return TeacherHandle(code=code, teacher_token=held, expires_at=expires)

    def _set_state(
        self, code: str, teacher_token: str, to: ClassState, allowed: tuple[ClassState, ...]
    ) -> ClassView:
        code = normalize_code(code)
        token = _check_token("teacher_token", teacher_token)
        now = self._now()

        def work(conn: Connection) -> ClassView:
            row = self._teacher_row(conn, code, token, now, True)
            state = ClassState(row.state)
            if state is not to:
                if state not in allowed:
                    raise ClassClosed(
                        f"Class {display_code(code)} is {state.value}: the truths are out, so "
                        "it stays so."
                    )
                values: dict[str, Any] = {"state": to.value}
                if to is ClassState.REVEALED:
                    values["truths_shown"] = int(row.rounds)
                elif to is ClassState.CLOSED:
                    # each student now sees the truths of the rounds they answered: nobody may
                    # answer those rounds after a reopen
                    answered = conn.execute(
                        sa.select(sa.func.max(guesses.c.round)).where(guesses.c.class_id == row.id)
                    ).scalar_one()
                    if answered is not None:
                        values["truths_shown"] = max(int(row.truths_shown), int(answered) + 1)
                conn.execute(sa.update(classes).where(classes.c.id == row.id).values(**values))
            return self._view(conn, self._class_row(conn, code, now))

        return self._run(work, write=True)

    def close(self, code: str, teacher_token: str) -> ClassView:
        """Stop taking joins and answers (a closed class may :meth:`reopen`). Idempotent. The
        students then see the truths of the rounds they answered: every round answered so far
        counts as shown (:attr:`ClassView.truths_shown`).

        Raises
        ------
        InvalidToken, ClassClosed (revealed already), StorageUnavailable
        """
        return self._set_state(code, teacher_token, ClassState.CLOSED, (ClassState.OPEN,))

    def reopen(self, code: str, teacher_token: str) -> ClassView:
        """Take joins and answers again after :meth:`close` (not after :meth:`reveal`); the
        players go on after the rounds whose truths were shown."""
        return self._set_state(code, teacher_token, ClassState.OPEN, (ClassState.CLOSED,))

    def reveal(self, code: str, teacher_token: str) -> ClassView:
        """Close the class for good: from now on the page may show the truths. Idempotent."""
        return self._set_state(
            code, teacher_token, ClassState.REVEALED, (ClassState.OPEN, ClassState.CLOSED)
        )

    def delete(self, code: str, teacher_token: str) -> None:
        """Delete the class, its nicknames and its answers now.

        Raises
        ------
        InvalidToken, StorageUnavailable
        """
        code = normalize_code(code)
        token = _check_token("teacher_token", teacher_token)
        now = self._now()

        def work(conn: Connection) -> None:
            row = self._teacher_row(conn, code, token, now, True)
            _delete_classes(conn, classes.c.id == row.id)

        self._run(work, write=True)

    def teacher_view(self, code: str, teacher_token: str) -> ClassView:
        """:meth:`class_view` for the class's teacher (the key checked, its counts in the same
        short transaction): what the dashboard reads at every refresh while the class plays.

        Raises
        ------
        InvalidToken, StorageUnavailable
        """
        code = normalize_code(code)
        token = _check_token("teacher_token", teacher_token)
        now = self._now()
        return self._run(
            lambda c: self._view(c, self._teacher_row(c, code, token, now, False)), write=False
        )

    def results(self, code: str, teacher_token: str) -> ClassResults:
        """Every player's answers and the counts per round (teacher only).

        Raises
        ------
        InvalidToken, StorageUnavailable
        """
        code = normalize_code(code)
        token = _check_token("teacher_token", teacher_token)
        now = self._now()

        def work(conn: Connection) -> ClassResults:
            return self._results(conn, self._teacher_row(conn, code, token, now, False))

        return self._run(work, write=False)

    def revealed_results(self, code: str, *, client: str | None = None) -> ClassResults:
        """The class picture for anyone with the code, once the teacher has revealed the class:
        :meth:`results` with every nickname left out (``""``), the answers in join order.
        ``client``: as :meth:`class_view` (None for a player of the class).

        Raises
        ------
        InvalidInput, ClassNotFound, ClassClosed (not revealed yet), RateLimited,
        StorageUnavailable
        """
        code = normalize_code(code)
        now = self._now()
        self._check_client(client, now)

        def work(conn: Connection) -> ClassResults:
            row = self._class_row(conn, code, now)
            if row.state != ClassState.REVEALED.value:
                raise ClassClosed(
                    f"Class {display_code(code)} is not revealed yet: its answers and truths are "
                    "shown once the teacher reveals it."
                )
            res = self._results(conn, row)
            return ClassResults(
                view=res.view,
                players=tuple(PlayerAnswers(p.player_id, "", p.answers) for p in res.players),
                per_round=res.per_round,
            )

        try:
            return self._run(work, write=False)
        except ClassNotFound:
            self._missed(client, now)
            raise

    def _results(self, conn: Connection, row: Any) -> ClassResults:
        """Every player's answers and the counts per round of the class ``row``."""
        view = self._view(conn, row)
        people = conn.execute(
            sa.select(players.c.id, players.c.number, players.c.nickname)
            .where(players.c.class_id == row.id)
            .order_by(players.c.number)
        ).all()
        answers: dict[int, list[bool | None]] = {p.id: [None] * view.rounds for p in people}
        said_in = [0] * view.rounds
        said_out = [0] * view.rounds
        # Fetched at once and unpacked as tuples: iterating the result row by row and reading
        # each Row's attributes cost ~8 µs a guess, 100 ms for 60 players x 200 rounds, on
        # every refresh of the teacher's dashboard.
        found = conn.execute(
            sa.select(
                guesses.c.player_id,
                guesses.c.round,
                sa.type_coerce(guesses.c.said_in, sa.Integer),  # no bool() per row; read below
            ).where(guesses.c.class_id == row.id)
        ).all()
        for player_id, k, said in found:
            answers[player_id][k] = bool(said)
            if said:
                said_in[k] += 1
            else:
                said_out[k] += 1
        return ClassResults(
            view=view,
            players=tuple(
                PlayerAnswers(int(p.number), p.nickname, tuple(answers[p.id])) for p in people
            ),
            per_round=tuple(RoundCounts(k, said_in[k], said_out[k]) for k in range(view.rounds)),
        )

    def results_csv(self, code: str, teacher_token: str, *, model: GameModel | None = None) -> str:
        """The class's answers as CSV, one row per guess, in join order then round order:
        ``nickname, round, answer, truth, correct`` with ``round`` counted from 1 (as the page
        numbers rounds), ``answer`` and ``truth`` "in" or "out", ``correct`` 1 or 0. While the
        class is open the file holds ``nickname, round, answer`` only: a truth in a file opened
        in front of the room would tell it. A nickname that a spreadsheet would read as a
        formula (first character ``= + - @``, tab or carriage return) gets a leading ``'``.
        Encode as UTF-8 with a BOM (``utf-8-sig``) for Excel.

        ``model``: an optional cached :func:`~mipcore.game.game_model` of the class's settings.
        """
        res = self.results(code, teacher_token)
        sealed = res.view.state is ClassState.OPEN
        truth = (
            () if sealed else truths(res.view.settings, res.view.seed, res.view.rounds, model=model)
        )
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["nickname", "round", "answer"] + ([] if sealed else ["truth", "correct"]))
        for p in res.players:
            name = (
                "'" + p.nickname
                if p.nickname[:1] in ("=", "+", "-", "@", "\t", "\r")
                else p.nickname
            )
            for k, a in enumerate(p.answers):
                if a is None:
                    continue
                row: list[object] = [name, k + 1, _word(a)]
                if not sealed:
                    row += [_word(truth[k]), 1 if a == truth[k] else 0]
                writer.writerow(row)
        return out.getvalue()

    # ----------------------------------------------------------------- anyone

    def class_view(self, code: str, *, client: str | None = None) -> ClassView:
        """What the students' view shows before joining (public: needs the code).

        ``client``: a key of the asking client (its browser, else its session), so that one
        client's wrong codes are limited (:class:`Limits`); None: not limited per client.

        Raises
        ------
        InvalidInput, ClassNotFound, RateLimited, StorageUnavailable
        """
        code = normalize_code(code)
        now = self._now()
        self._check_client(client, now)
        try:
            return self._run(lambda c: self._view(c, self._class_row(c, code, now)), write=False)
        except ClassNotFound:
            self._missed(client, now)
            raise

    def rejoin(self, code: str, device: str) -> PlayerHandle | None:
        """The player ``device`` (a browser's secret) already is in this class, or None (also
        for a code that is not a live class: this says nothing about codes, and is not limited).
        A second tab of the join link continues the same player. The handle's ``player_token``
        is this device's key of that player.

        Raises
        ------
        InvalidInput, StorageUnavailable
        """
        code = normalize_code(code)
        dev = _check_device(device)
        if dev is None:
            raise InvalidInput("device must be a browser's key, not None.")
        now = self._now()
        found = self._run(lambda c: _device_player(c, code, dev, now), write=False)
        if found is None:
            return None
        return PlayerHandle(
            code, int(found.number), found.nickname, _device_key(dev, "player", code)
        )

    def join(
        self,
        code: str,
        nickname: str | None = None,
        *,
        player_token: str | None = None,
        device: str | None = None,
        client: str | None = None,
    ) -> PlayerHandle:
        """Join a class as a new player, or come back as the same one after a reload.

        Parameters
        ----------
        code : the class code (any case; dashes and spaces ignored).
        nickname : the new player's nickname (:func:`clean_nickname`; if another player of
            the class has it, whatever the case, " 2", " 3", … is appended).
        player_token : a token this browser kept from an earlier join. If it belongs to a
            player of this class, that player is returned (even when the class is closed;
            ``nickname`` is then ignored and no join is counted). If not, a new player joins
            with ``nickname``, or, without one, :class:`InvalidToken`.
        device : the joining browser (a secret of the browser): one browser is one player of a
            class -- if it joined before, that player is returned whatever ``nickname`` says.
        client : a key of the asking client, see :meth:`class_view`.

        A new player starts after the rounds whose truths were shown (:attr:`ClassView.truths_shown`).

        Returns
        -------
        PlayerHandle

        Raises
        ------
        InvalidInput, ClassNotFound, InvalidToken, ClassClosed, LimitReached, RateLimited,
        StorageUnavailable
        """
        code = normalize_code(code)
        dev = _check_device(device)
        now = self._now()
        if player_token is not None:
            token = _check_token("player_token", player_token)

            def again(conn: Connection) -> Any:
                return conn.execute(
                    sa.select(players.c.number, players.c.nickname)
                    .select_from(players.join(classes, players.c.class_id == classes.c.id))
                    .where(
                        classes.c.code == code,
                        classes.c.expires_at > now,
                        players.c.token_hash == _hash(token),
                    )
                ).one_or_none()

            found = self._run(again, write=False)
            if found is not None:
                return PlayerHandle(code, int(found.number), found.nickname, token)
            if nickname is None:
                raise self._bad_player(code)
        if dev is not None:
            back = self.rejoin(code, dev)
            if back is not None:
                return back
        if nickname is None:
            raise InvalidInput("A new player needs a nickname.")
        nick = clean_nickname(nickname, self.limits.nickname_chars)
        self._check_client(client, now)
        new_token = secrets.token_urlsafe(_PLAYER_BYTES)
        lim = self.limits

        def work(conn: Connection) -> PlayerHandle:
            row = self._class_row(conn, code, now, lock=True)  # joins to a class queue here
            if dev is not None:  # another tab of this browser joined a moment ago
                twin = _device_player(conn, code, dev, now)
                if twin is not None:
                    key = _device_key(dev, "player", code)
                    return PlayerHandle(code, int(twin.number), twin.nickname, key)
            if row.state != ClassState.OPEN.value:
                raise ClassClosed(
                    f"Class {display_code(code)} is {row.state}: it takes no new players."
                )
            tokens = min(
                float(lim.join_burst),
                float(row.join_tokens) + max(0.0, now - float(row.join_at)) * lim.join_per_second,
            )
            if tokens < 1.0:
                wait = (1.0 - tokens) / lim.join_per_second
                raise RateLimited(
                    f"Class {display_code(code)} takes {lim.join_burst} new players at once, then "
                    f"{lim.join_per_second:g} a second. Try again in {math.ceil(wait)} s.",
                    retry_after=wait,
                )
            conn.execute(
                sa.update(classes)
                .where(classes.c.id == row.id)
                .values(join_tokens=tokens - 1.0, join_at=now)
            )
            taken = set(
                conn.execute(
                    sa.select(players.c.nickname_key).where(players.c.class_id == row.id)
                ).scalars()
            )
            if len(taken) >= lim.max_players:
                raise LimitReached(
                    f"Class {display_code(code)} is full: it has {len(taken)} players, the most "
                    "a class may have."
                )
            final = _unique_nickname(nick, taken, lim.nickname_chars)
            number = len(taken) + 1
            player_id = conn.execute(
                sa.insert(players)
                .values(
                    class_id=row.id,
                    number=number,
                    nickname=final,
                    nickname_key=_nickname_key(final),
                    token_hash=_hash(new_token),
                )
                .returning(players.c.id)
            ).scalar_one()
            if dev is not None:
                _add_device_key(conn, row.id, "player", code, dev, player_id=player_id)
            return PlayerHandle(code, number, final, new_token)

        try:
            return self._run(work, write=True)
        except ClassNotFound:
            self._missed(client, now)
            raise

    def _player_row(self, conn: Connection, code: str, token: str, now: float, lock: bool) -> Any:
        """The player ``token`` stands for (their token, or their browser's key) with their
        class's state: one query, two when the token is a browser's key."""
        columns = (
            classes.c.id.label("class_id"),
            classes.c.state,
            classes.c.rounds,
            classes.c.truths_shown,
            classes.c.seed,
            classes.c.mechanism,
            classes.c.calibration,
            classes.c.level,
            classes.c.n,
            classes.c.canary,
            classes.c.target,
            players.c.id.label("player_id"),
            players.c.number,
            players.c.nickname,
        )
        live = (classes.c.code == code, classes.c.expires_at > now)
        query = (
            sa.select(*columns)
            .select_from(players.join(classes, players.c.class_id == classes.c.id))
            .where(*live, players.c.token_hash == _hash(token))
        )
        if lock:
            query = query.with_for_update(read=True, of=classes)
        row = conn.execute(query).one_or_none()
        if row is None:
            by_key = (
                sa.select(*columns)
                .select_from(
                    keys.join(players, keys.c.player_id == players.c.id).join(
                        classes, players.c.class_id == classes.c.id
                    )
                )
                .where(*live, keys.c.key_hash == _hash(token), keys.c.role == "player")
            )
            if lock:
                by_key = by_key.with_for_update(read=True, of=classes)
            row = conn.execute(by_key).one_or_none()
        if row is None:
            raise self._bad_player(code)
        return row

    def _bad_player(self, code: str) -> InvalidToken:
        # one refusal for an unknown code and a wrong token: calls with a token never tell
        # whether a code exists (only class_view and join do, limited per client)
        return InvalidToken(
            f"This link is not one of class {display_code(code)}'s players: the class may have "
            f"ended ({self.limits.lifetime / 3600:g} h after its start) or been deleted, or the "
            "link was cut short. Join again with a nickname."
        )

    def player_view(self, code: str, player_token: str) -> PlayerView:
        """This player's nickname, their class (settings, state) and their answers so far: what
        a student's page needs, in one query for the player and one for the answers.

        Raises
        ------
        InvalidInput, InvalidToken, StorageUnavailable
        """
        code = normalize_code(code)
        token = _check_token("player_token", player_token)
        now = self._now()

        def work(conn: Connection) -> PlayerView:
            row = self._player_row(conn, code, token, now, False)
            answers: list[bool | None] = [None] * int(row.rounds)
            for k, said in conn.execute(
                sa.select(guesses.c.round, guesses.c.said_in).where(
                    guesses.c.player_id == row.player_id
                )
            ).all():
                answers[k] = bool(said)
            return PlayerView(
                code,
                int(row.number),
                row.nickname,
                ClassState(row.state),
                tuple(answers),
                _settings_of(row),
                int(row.seed),
                int(row.truths_shown),
            )

        return self._run(work, write=False)

    def player_state(self, code: str, player_token: str) -> ClassState:
        """The state of this player's class: one short query (a student's page looks every
        few seconds whether the teacher closed or revealed the class).

        Raises
        ------
        InvalidInput, InvalidToken, StorageUnavailable
        """
        code = normalize_code(code)
        token = _check_token("player_token", player_token)
        now = self._now()
        row = self._run(lambda c: self._player_row(c, code, token, now, False), write=False)
        return ClassState(row.state)

    def answer(
        self, code: str, player_token: str, round_index: int, said_in: bool
    ) -> Accepted | Duplicate:
        """Store a player's answer to one round, once: the round they are at
        (:attr:`PlayerView.next_round`), never a later one and never one whose truth was shown.

        Parameters
        ----------
        code : the class code. player_token : this player's token (from :meth:`join`).
        round_index : ``0 <= round_index < rounds`` (rounds are numbered from 0 here): the
            round shown to the player when they answered.
        said_in : True for "in", False for "out".

        Returns
        -------
        Accepted
            The answer is stored.
        Duplicate
            The player had answered this round: nothing changed (also when two answers to
            the same round arrive at once: exactly one is :class:`Accepted`).

        Raises
        ------
        InvalidInput
            ``round_index`` out of range, or not the round the player is at (a later round).
        RoundPassed
            The round was skipped: its truth was shown (a close) before the player reached it.
        InvalidToken, ClassClosed, StorageUnavailable
        """
        code = normalize_code(code)
        token = _check_token("player_token", player_token)
        index = _check_int("round_index", round_index, 0, 2**31 - 1)
        if not isinstance(said_in, (bool, np.bool_)):
            raise InvalidInput(f"said_in={_short(said_in)} must be True (in) or False (out).")
        said = bool(said_in)
        now = self._now()

        def work(conn: Connection) -> Accepted | Duplicate:
            row = self._player_row(conn, code, token, now, True)
            if row.state != ClassState.OPEN.value:
                raise ClassClosed(
                    f"Class {display_code(code)} is {row.state}: it takes no more answers."
                )
            if index >= row.rounds:
                raise InvalidInput(
                    f"round_index={index} is out of range: class {display_code(code)} has "
                    f"{row.rounds} rounds, 0 <= round_index < {row.rounds}."
                )
            last = conn.execute(
                sa.select(sa.func.max(guesses.c.round)).where(guesses.c.player_id == row.player_id)
            ).scalar_one()
            at = max(int(row.truths_shown), 0 if last is None else int(last) + 1)
            if index > at:
                raise InvalidInput(
                    f"Round {index + 1} is not shown yet: this player is at round {at + 1}."
                )
            if index == at:
                values = {
                    "class_id": row.class_id,
                    "player_id": row.player_id,
                    "round": index,
                    "said_in": said,
                }
                if self._insert_once(conn, values):
                    return Accepted(index, said)
            stored = conn.execute(
                sa.select(guesses.c.said_in).where(
                    guesses.c.player_id == row.player_id, guesses.c.round == index
                )
            ).scalar_one_or_none()
            if stored is None:
                raise RoundPassed(
                    f"Round {index + 1}'s truth was shown when the class was closed, so it can no "
                    f"longer be answered: this player is at round {at + 1}."
                )
            return Duplicate(index, bool(stored), said)

        return self._run(work, write=True)

    def _insert_once(self, conn: Connection, values: dict[str, Any]) -> bool:
        """Insert a guess unless this player answered this round; True if inserted."""
        if self.backend in ("sqlite", "postgresql"):
            ins = _sqlite_insert if self.backend == "sqlite" else _pg_insert
            # RETURNING, not rowcount: SQLAlchemy reports no rowcount for an INSERT
            stmt = ins(guesses).values(**values).on_conflict_do_nothing().returning(guesses.c.round)
            return conn.execute(stmt).first() is not None
        try:  # another backend: a savepoint around a plain insert
            with conn.begin_nested():
                conn.execute(sa.insert(guesses).values(**values))
        except sa_exc.IntegrityError:
            return False
        return True

    # ----------------------------------------------------------------- housekeeping

    def purge_expired(self, now: float | None = None) -> int:
        """Delete every class (with its players and answers) expired at ``now`` (default: the
        store's clock). Also run by :meth:`create_class`. Returns how many were deleted."""
        at = self._now() if now is None else float(now)

        def work(conn: Connection) -> int:
            return _delete_classes(conn, classes.c.expires_at <= at)

        return self._run(work, write=True)


def _upgrade_from_1(conn: Connection) -> None:
    """Version 1 -> 2, in the set-up's transaction: the classes' ``truths_shown`` (0 for a
    class that was never closed; a closed one may have shown truths, so it counts every round
    answered so far) and the new tables (made by the caller's ``create_all``)."""
    conn.execute(
        sa.text("ALTER TABLE classroom_class ADD COLUMN truths_shown INTEGER NOT NULL DEFAULT 0")
    )
    shown = (
        sa.select(sa.func.coalesce(sa.func.max(guesses.c.round) + 1, 0))
        .where(guesses.c.class_id == classes.c.id)
        .scalar_subquery()
    )
    conn.execute(
        sa.update(classes)
        .where(classes.c.state != ClassState.OPEN.value)
        .values(truths_shown=shown)
    )
    conn.execute(sa.update(schema_table).values(version=SCHEMA_VERSION))


def _delete_classes(conn: Connection, where: Any) -> int:
    """Delete the classes ``where`` selects and everything in them (explicitly: foreign keys
    may not be enforced, e.g. on SQLite without its pragma)."""
    ids = sa.select(classes.c.id).where(where).scalar_subquery()
    conn.execute(sa.delete(handoffs).where(handoffs.c.class_id.in_(ids)))
    conn.execute(sa.delete(keys).where(keys.c.class_id.in_(ids)))
    conn.execute(sa.delete(guesses).where(guesses.c.class_id.in_(ids)))
    conn.execute(sa.delete(players).where(players.c.class_id.in_(ids)))
    return int(conn.execute(sa.delete(classes).where(where)).rowcount)


def _settings_of(row: Any) -> GameSettings:
    return GameSettings(
        mechanism=GameMechanism(row.mechanism),
        calibration=Calibration(row.calibration),
        level=float(row.level),
        n=int(row.n),
        canary=float(row.canary),
        target=None if row.target is None else int(row.target),
    )


def _word(said_in: bool) -> str:
    return "in" if said_in else "out"


# --------------------------------------------------------------------------- scoring


def truths(
    settings: GameSettings, seed: int, rounds: int, *, model: GameModel | None = None
) -> tuple[bool, ...]:
    """The secret of every round: True if the target was in the training half
    (:func:`mipcore.game.draw_round`, the same rounds every student plays).

    Raises
    ------
    ValueError
        From :mod:`mipcore.game` for settings or a model that do not fit.
    """
    m = model if model is not None else game_model(settings)
    if m.settings != settings:
        raise InvalidInput("model was built for other settings; pass game_model(settings) or None.")
    return tuple(draw_round(m, seed, k)[0] for k in range(rounds))


@dataclass(frozen=True)
class PlayerScore:
    """One player's score: ``correct`` of ``answered`` rounds; ``score``: mipcore's
    :class:`~mipcore.game.GameScore` (interval, verdict) over the rounds the player answered
    (None before the first answer)."""

    player_id: int
    nickname: str
    answered: int
    correct: int
    score: GameScore | None

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class ClassScore:
    """The class as one attacker (:func:`score_class`).

    * ``truth[k]``: the secret of round k; ``optimal[k]``: the Bayes-optimal attacker's
      answer (True = "in").
    * ``majority[k]``: the class's answer to round k, the majority of its players' answers
      (a tie says "in", as the optimal attacker does at a likelihood ratio of 1), None if
      nobody answered; ``majority_correct`` of ``majority_rounds`` rounds with an answer.
      ``majority_score``: :func:`mipcore.game.score_game` of the majority's answers to the
      rounds anyone answered (None if nobody answered): its Clopper–Pearson interval and
      verdict beside ``1/2 + η``.
    * ``pooled_correct`` of ``pooled_guesses``: every answer of every player counted. No
      interval: the answers to one round share its release, so they are not independent.
    * ``per_round_correct[k]``: how many players answered round k correctly.
    * ``players``: :class:`PlayerScore` in join order.
    * ``certified_accuracy`` (``1/2 + η``) and ``optimal_accuracy`` (exact long-run accuracy
      of the Bayes-optimal attacker), from the game model.
    """

    truth: tuple[bool, ...]
    optimal: tuple[bool, ...]
    majority: tuple[bool | None, ...]
    majority_rounds: int
    majority_correct: int
    majority_score: GameScore | None
    pooled_guesses: int
    pooled_correct: int
    per_round_correct: tuple[int, ...]
    players: tuple[PlayerScore, ...]
    certified_accuracy: float
    optimal_accuracy: float

    @property
    def pooled_accuracy(self) -> float | None:
        return self.pooled_correct / self.pooled_guesses if self.pooled_guesses else None

    @property
    def majority_accuracy(self) -> float | None:
        return self.majority_correct / self.majority_rounds if self.majority_rounds else None


def score_class(
    results: ClassResults, *, confidence: float = 0.95, model: GameModel | None = None
) -> ClassScore:
    """Score a class with :mod:`mipcore.game` (the truths are recomputed, never stored).

    Parameters
    ----------
    results : :meth:`Store.results` of the class.
    confidence : for the Clopper–Pearson intervals (default 0.95).
    model : an optional cached :func:`~mipcore.game.game_model` of the class's settings.

    Returns
    -------
    ClassScore
    """
    view = results.view
    m = model if model is not None else game_model(view.settings)
    if m.settings != view.settings:
        raise InvalidInput("model was built for other settings; pass game_model(settings) or None.")
    draws = [draw_round(m, view.seed, k) for k in range(view.rounds)]
    truth = tuple(d[0] for d in draws)
    releases = np.array([d[2] for d in draws])
    log_in, log_out = log_densities(m, releases)
    optimal = tuple(bool(v) for v in (log_in - log_out >= 0.0))

    majority: list[bool | None] = []
    for c in results.per_round:
        majority.append(None if c.answers == 0 else c.said_in >= c.said_out)
    answered = [k for k, a in enumerate(majority) if a is not None]
    per_round = [c.said_in if truth[c.round_index] else c.said_out for c in results.per_round]

    # Every score at once (score_games: the rounds drawn once, the intervals together): one
    # score_game per player drew every round again, 1.5 s for 60 players x 200 rounds. A player
    # (and the majority) is scored on the rounds they answered: after a close and a reopen the
    # rounds whose truths were shown are skipped.
    def played(answers: tuple[bool | None, ...]) -> list[bool | None]:
        last = max((k for k, a in enumerate(answers) if a is not None), default=-1)
        return list(answers[: last + 1])

    lists = [played(tuple(majority))] if answered else []
    lists += [played(p.answers) for p in results.players if p.answered]
    scored = iter(score_games(view.settings, view.seed, lists, confidence=confidence, model=m))
    majority_score = next(scored) if answered else None
    scores = []
    for p in results.players:
        correct = sum(a == truth[k] for k, a in enumerate(p.answers) if a is not None)
        score = next(scored) if p.answered else None
        scores.append(PlayerScore(p.player_id, p.nickname, p.answered, int(correct), score))
    return ClassScore(
        truth=truth,
        optimal=optimal,
        majority=tuple(majority),
        majority_rounds=len(answered),
        majority_correct=sum(majority[k] == truth[k] for k in answered),
        majority_score=majority_score,
        pooled_guesses=sum(c.answers for c in results.per_round),
        pooled_correct=int(sum(per_round)),
        per_round_correct=tuple(int(v) for v in per_round),
        players=tuple(scores),
        certified_accuracy=m.certified_accuracy,
        optimal_accuracy=m.optimal_accuracy,
    )
