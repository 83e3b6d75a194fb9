"""Class mode's storage (:mod:`appkit.classroom`), every storage test on SQLite and on a real
PostgreSQL.

PostgreSQL comes from ``MIP_EXPLORER_TEST_POSTGRES_URL`` (e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/mip``; ``.ci/run`` starts a throw-away one);
each test gets a schema of its own there, dropped afterwards. Without the variable the
PostgreSQL variants skip with a reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import csv
import functools
import io
import multiprocessing
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy as sa

from appkit import classroom
from appkit.classroom import (
    CODE_ALPHABET,
    CODE_LENGTH,
    SCHEMA_VERSION,
    Accepted,
    ClassClosed,
    ClassNotFound,
    ClassState,
    Duplicate,
    InvalidInput,
    InvalidToken,
    LimitReached,
    Limits,
    RateLimited,
    SchemaMismatch,
    StorageUnavailable,
    Store,
    clean_nickname,
    normalize_code,
    score_class,
)
from mipcore.game import GameSettings, draw_round, game_model, score_game

ROOT = Path(__file__).resolve().parents[1]
POSTGRES_URL = os.environ.get("MIP_EXPLORER_TEST_POSTGRES_URL", "").strip()
IN_CI = os.environ.get("CI") == "true"
SETTINGS = GameSettings.dp("mean", 1.0)


class Clock:
    """A clock the test moves by hand (Unix seconds)."""

    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


# --------------------------------------------------------------------------- backends


def _pg_url(url: str) -> sa.URL:
    parsed = sa.make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


@pytest.fixture(scope="module")
def pg_admin():
    """An engine on the test PostgreSQL (skip without one; fail under CI=true)."""
    if not POSTGRES_URL:
        reason = (
            "MIP_EXPLORER_TEST_POSTGRES_URL is not set: the PostgreSQL variants of the class "
            "storage tests need a server (.ci/run starts one)"
        )
        if IN_CI:
            pytest.fail(f"{reason} (CI=true: they must run)", pytrace=False)
        pytest.skip(reason)
    engine = sa.create_engine(_pg_url(POSTGRES_URL), connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.OperationalError as exc:
        shown = _pg_url(POSTGRES_URL).render_as_string(hide_password=True)
        pytest.fail(f"MIP_EXPLORER_TEST_POSTGRES_URL={shown} cannot be reached: {exc.orig}")
    yield engine
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    """A fresh, empty database: a SQLite file, or a PostgreSQL schema of this test's own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'classes.sqlite3'}"
        return
    admin = request.getfixturevalue("pg_admin")
    schema = f"test_{uuid.uuid4().hex[:16]}"
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = _pg_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with admin.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture
def make_store(db_url):
    made: list[Store] = []

    def make(**kwargs) -> Store:
        s = Store(db_url, **kwargs)
        made.append(s)
        return s

    yield make
    for s in made:
        s.dispose()


@pytest.fixture
def store(make_store):
    return make_store()


def _count(store: Store, table: sa.Table) -> int:
    with store._engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


def _truths(settings: GameSettings, seed: int, rounds: int) -> list[bool]:
    model = game_model(settings)
    return [draw_round(model, seed, k)[0] for k in range(rounds)]


# --------------------------------------------------------------------------- one class


@pytest.mark.parametrize(
    "settings",
    [
        GameSettings.dp("mean", 1.0),
        GameSettings("prop11", "eta", 0.1 + 0.2 / 3, n=6, canary=-2.5, target=2),
    ],
    ids=["dp-mean", "eta-prop11"],
)
def test_a_class_keeps_its_settings_exactly(store, settings):
    h = store.create_class(settings, rounds=7, seed=classroom.MAX_SEED)
    view = store.class_view(h.code)
    assert view.settings == settings  # every field, the float level to the last bit
    assert (view.rounds, view.seed, view.state) == (7, classroom.MAX_SEED, ClassState.OPEN)
    assert (view.players, view.guesses) == (0, 0)
    assert str(classroom.MAX_SEED) not in repr(view)  # the seed stays out of logs


def test_join_answer_results_round_trip(store):
    h = store.create_class(SETTINGS, rounds=5, seed=11)
    ada = store.join(h.display_code.lower(), "Ada")
    bob = store.join(h.code, "Bob")
    assert (ada.player_id, bob.player_id) == (1, 2)
    assert store.answer(h.code, ada.player_token, 0, True) == Accepted(0, True)
    assert store.answer(h.code, ada.player_token, 1, False) == Accepted(1, False)
    assert store.answer(h.code, bob.player_token, 0, False) == Accepted(0, False)
    assert store.answer(h.code, bob.player_token, 1, True) == Accepted(1, True)
    view = store.class_view(h.code)
    assert (view.players, view.guesses) == (2, 4)
    res = store.results(h.code, h.teacher_token)
    assert [(p.player_id, p.nickname, p.answers) for p in res.players] == [
        (1, "Ada", (True, False, None, None, None)),
        (2, "Bob", (False, True, None, None, None)),
    ]
    assert [(c.said_in, c.said_out) for c in res.per_round] == [(1, 1), (1, 1), (0, 0)] + [
        (0, 0)
    ] * 2


def test_a_second_answer_to_a_round_changes_nothing(store):
    h = store.create_class(SETTINGS, rounds=3, seed=1)
    p = store.join(h.code, "Ada")
    assert store.answer(h.code, p.player_token, 0, True) == Accepted(0, True)
    assert store.answer(h.code, p.player_token, 0, False) == Duplicate(0, True, False)
    assert store.answer(h.code, p.player_token, 0, True) == Duplicate(0, True, True)
    assert store.class_view(h.code).guesses == 1
    assert store.player_view(h.code, p.player_token).answers == (True, None, None)


def test_an_answer_names_its_round_and_comes_in_order(store):
    """A tap that arrives late (for a round already answered) is a Duplicate; a tap for a
    round not shown yet is refused: never counted for another round."""
    h = store.create_class(SETTINGS, rounds=4, seed=1)
    p = store.join(h.code, "Ada")
    with pytest.raises(InvalidInput, match=r"Round 2 is not shown yet: this player is at round 1"):
        store.answer(h.code, p.player_token, 1, True)
    assert store.answer(h.code, p.player_token, 0, True) == Accepted(0, True)
    assert store.answer(h.code, p.player_token, 1, False) == Accepted(1, False)
    assert store.answer(h.code, p.player_token, 0, False) == Duplicate(0, True, False)
    with pytest.raises(InvalidInput, match="Round 4 is not shown yet"):
        store.answer(h.code, p.player_token, 3, True)
    assert store.player_view(h.code, p.player_token).answers == (True, False, None, None)


def test_rounds_whose_truths_were_shown_are_skipped_after_a_reopen(store):
    """A close shows each student the truths of the rounds they answered: after a reopen
    nobody answers those rounds -- a new player and one who fell behind start after them."""
    h = store.create_class(SETTINGS, rounds=6, seed=1)
    ada, bob = store.join(h.code, "Ada"), store.join(h.code, "Bob")
    for k in range(3):
        store.answer(h.code, ada.player_token, k, True)
    store.answer(h.code, bob.player_token, 0, False)
    assert store.close(h.code, h.teacher_token).truths_shown == 3
    assert store.reopen(h.code, h.teacher_token).truths_shown == 3
    view = store.player_view(h.code, bob.player_token)
    assert (view.next_round, view.skipped, view.truths_shown) == (3, 2, 3)
    with pytest.raises(classroom.RoundPassed, match="Round 2's truth was shown"):
        store.answer(h.code, bob.player_token, 1, True)
    assert store.answer(h.code, bob.player_token, 0, True) == Duplicate(0, False, True)
    assert store.answer(h.code, bob.player_token, 3, True) == Accepted(3, True)
    eve = store.join(h.code, "Eve")
    assert store.player_view(h.code, eve.player_token).next_round == 3
    with pytest.raises(classroom.RoundPassed):
        store.answer(h.code, eve.player_token, 0, True)
    assert store.answer(h.code, eve.player_token, 3, False) == Accepted(3, False)
    # a second close counts every round answered so far; a reveal shows them all
    store.answer(h.code, ada.player_token, 3, True)
    store.answer(h.code, ada.player_token, 4, True)
    assert store.close(h.code, h.teacher_token).truths_shown == 5
    assert store.reveal(h.code, h.teacher_token).truths_shown == 6
    # scores count the rounds each one played
    sc = classroom.score_class(store.results(h.code, h.teacher_token))
    assert [(p.answered, p.score.rounds) for p in sc.players] == [(5, 5), (2, 2), (1, 1)]


def test_one_browser_is_one_player_of_a_class(store):
    """A second tab of the join link (the same browser, no player token) continues the same
    player, whatever nickname it types; another browser is another player."""
    h = store.create_class(SETTINGS, rounds=3, seed=1)
    assert store.rejoin(h.code, "browser-a") is None
    ada = store.join(h.code, "Ada", device="browser-a")
    again = store.rejoin(h.code, "browser-a")
    assert again is not None and (again.player_id, again.nickname) == (1, "Ada")
    assert store.join(h.code, "Eve", device="browser-a").player_id == 1
    store.answer(h.code, again.player_token, 0, True)  # the second tab answers as Ada
    assert store.answer(h.code, ada.player_token, 0, False) == Duplicate(0, True, False)
    assert store.player_view(h.code, again.player_token).answers[0] is True
    assert store.join(h.code, "Bob", device="browser-b").player_id == 2
    assert store.class_view(h.code).players == 2
    # the browser's key of one class opens nothing in another class, nor the teacher's rights
    other = store.create_class(SETTINGS, rounds=3, seed=2)
    with pytest.raises(InvalidToken):
        store.player_view(other.code, again.player_token)
    with pytest.raises(InvalidToken):
        store.results(h.code, again.player_token)
    assert store.rejoin("ZZZZZZZZ", "browser-a") is None  # an unknown code: the same None
    store.close(h.code, h.teacher_token)
    assert store.rejoin(h.code, "browser-a").player_id == 1  # closed: still comes back


def test_a_teachers_browser_finds_its_classes_and_hands_one_over_once(store):
    h = store.create_class(SETTINGS, rounds=3, seed=1, device="teacher-laptop")
    old = store.create_class(SETTINGS, rounds=3, seed=2, device="teacher-laptop")
    store.create_class(SETTINGS, rounds=3, seed=3, device="someone-else")
    own = store.teacher_classes("teacher-laptop")
    assert {o.handle.code for o in own} == {old.code, h.code}
    key = next(o.handle for o in own if o.handle.code == h.code)
    assert key.teacher_token != h.teacher_token
    assert store.close(h.code, key.teacher_token).state is ClassState.CLOSED  # it holds rights
    with pytest.raises(InvalidToken):
        store.close(old.code, key.teacher_token)  # in its own class only
    assert store.teacher_classes("a-student") == ()
    # a hand-over link works once: on a tablet (its own browser) and never again
    link = store.handoff(h.code, key.teacher_token)
    tablet = store.resume_teacher(link, device="tablet")
    assert [o.handle.code for o in store.teacher_classes("tablet")] == [h.code]
    assert store.results(h.code, tablet.teacher_token).view.code == h.code
    with pytest.raises(InvalidToken, match="no longer valid"):
        store.resume_teacher(link, device="thief")
    # without a browser key (no cookie), the hand-over gives a key of its own
    bare = store.resume_teacher(store.handoff(h.code, h.teacher_token))
    assert bare.teacher_token not in (h.teacher_token, key.teacher_token)
    assert store.reopen(h.code, bare.teacher_token).state is ClassState.OPEN
    with pytest.raises(InvalidToken):
        store.handoff(h.code, "not-a-key")
    assert store.teacher_classes("thief") == ()


def test_newest_own_class_first(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    first = store.create_class(SETTINGS, rounds=3, seed=1, device="laptop")
    clock.t += 5
    second = store.create_class(SETTINGS, rounds=3, seed=2, device="laptop")
    assert [o.handle.code for o in store.teacher_classes("laptop")] == [second.code, first.code]


def test_a_hand_over_link_expires(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    h = store.create_class(SETTINGS, rounds=3, seed=1)
    link = store.handoff(h.code, h.teacher_token)
    clock.t += 601
    with pytest.raises(InvalidToken, match="within 10 minutes"):
        store.resume_teacher(link, device="late")


def test_progress_survives_a_reload(store):
    h = store.create_class(SETTINGS, rounds=4, seed=3)
    p = store.join(h.code, "Ada")
    store.answer(h.code, p.player_token, 0, True)
    store.answer(h.code, p.player_token, 1, False)
    again = store.join(h.code, player_token=p.player_token)  # a reload: the token only
    assert again == p
    assert store.join(h.code, "someone else", player_token=p.player_token) == p
    assert store.class_view(h.code).players == 1  # no second player
    view = store.player_view(h.code, p.player_token)
    assert (view.nickname, view.answers, view.next_round, view.answered) == (
        "Ada",
        (True, False, None, None),
        2,
        2,
    )
    store.close(h.code, h.teacher_token)
    assert store.join(h.code, player_token=p.player_token) == p  # closed: still comes back


def test_a_token_of_another_class_is_not_a_rejoin(store):
    a = store.create_class(SETTINGS, rounds=2, seed=1)
    b = store.create_class(SETTINGS, rounds=2, seed=2)
    pa = store.join(a.code, "Ada")
    with pytest.raises(InvalidToken, match=r"This link is not one of class .*'s players"):
        store.join(b.code, player_token=pa.player_token)
    pb = store.join(b.code, "Ada", player_token=pa.player_token)  # a stale token: a new player
    assert pb.player_token != pa.player_token and pb.player_id == 1


def test_the_lifecycle_open_closed_revealed(store):
    h = store.create_class(SETTINGS, rounds=3, seed=5)
    p = store.join(h.code, "Ada")
    assert store.close(h.code, h.teacher_token).state is ClassState.CLOSED
    assert store.close(h.code, h.teacher_token).state is ClassState.CLOSED  # idempotent
    with pytest.raises(ClassClosed, match=r"is closed: it takes no more answers"):
        store.answer(h.code, p.player_token, 0, True)
    with pytest.raises(ClassClosed, match="takes no new players"):
        store.join(h.code, "Bob")
    assert store.reopen(h.code, h.teacher_token).state is ClassState.OPEN
    assert store.answer(h.code, p.player_token, 0, True) == Accepted(0, True)
    assert store.reveal(h.code, h.teacher_token).state is ClassState.REVEALED
    assert store.player_view(h.code, p.player_token).state is ClassState.REVEALED
    with pytest.raises(ClassClosed, match="is revealed"):
        store.answer(h.code, p.player_token, 1, True)
    for again in (store.reopen, store.close):
        with pytest.raises(ClassClosed, match="truths are out, so it stays so"):
            again(h.code, h.teacher_token)
    assert store.class_view(h.code).guesses == 1


def test_revealed_results_are_public_once_revealed_without_nicknames(store):
    h = store.create_class(SETTINGS, rounds=3, seed=5)
    p = store.join(h.code, "Ada")
    store.answer(h.code, p.player_token, 0, True)
    with pytest.raises(ClassClosed, match="is not revealed yet"):
        store.revealed_results(h.code)
    store.reveal(h.code, h.teacher_token)
    res = store.revealed_results(h.code.lower())
    assert [q.nickname for q in res.players] == [""]
    assert res.players[0].answers == (True, None, None)
    assert res.per_round == store.results(h.code, h.teacher_token).per_round
    with pytest.raises(ClassNotFound):
        store.revealed_results("ZZZZZZZZ")


def test_delete_removes_everything_of_the_class(store):
    keep = store.create_class(SETTINGS, rounds=2, seed=1)
    store.answer(keep.code, store.join(keep.code, "Kim").player_token, 0, True)
    h = store.create_class(SETTINGS, rounds=2, seed=1)
    for name in ("Ada", "Bob"):
        store.answer(h.code, store.join(h.code, name, device=name).player_token, 0, False)
    store.handoff(h.code, h.teacher_token)
    store.delete(h.code, h.teacher_token)
    with pytest.raises(ClassNotFound, match="is not a live class"):
        store.class_view(h.code)
    tables = (classroom.classes, classroom.players, classroom.guesses)
    assert [_count(store, t) for t in tables] == [1, 1, 1]
    assert [_count(store, t) for t in (classroom.keys, classroom.handoffs)] == [0, 0]


# --------------------------------------------------------------------------- rights


def test_teacher_rights_come_only_from_the_teacher_token(store):
    h = store.create_class(SETTINGS, rounds=2, seed=1)
    other = store.create_class(SETTINGS, rounds=2, seed=1)
    p = store.join(h.code, "Ada")
    wrong = [other.teacher_token, h.code, p.player_token, h.teacher_token[:-1] + "x", "", "x" * 500]
    calls = [
        store.close,
        store.reopen,
        store.reveal,
        store.delete,
        store.results,
        store.results_csv,
        store.teacher_view,
        store.handoff,
    ]
    for token in wrong:
        for call in calls:
            with pytest.raises(InvalidToken, match=r"(not the teacher|link is damaged)") as err:
                call(h.code, token)
            if token:
                assert token not in str(err.value)  # a refusal never echoes a token
    with pytest.raises(InvalidToken):
        store.resume_teacher(f"{h.code}.{other.teacher_token}")
    assert store.resume_teacher(h.link_token) == h
    assert store.teacher_view(h.code, h.teacher_token) == store.class_view(h.code)
    assert store.resume_teacher(f"{h.display_code.lower()}.{h.teacher_token}") == h
    assert store.class_view(h.code).state is ClassState.OPEN  # nothing happened


def test_tokens_are_stored_only_as_hashes(store):
    h = store.create_class(SETTINGS, rounds=2, seed=1)
    p = store.join(h.code, "Ada")
    assert len(h.teacher_token) >= 43 and len(p.player_token) >= 32  # 256 and 192 bits
    dump = []
    with store._engine.connect() as conn:
        for table in classroom.metadata.sorted_tables:
            dump += [str(v) for row in conn.execute(sa.select(table)) for v in row]
    assert not any(h.teacher_token in v or p.player_token in v for v in dump)
    assert h.teacher_token not in repr(h) and p.player_token not in repr(p)


def test_a_player_answers_only_for_themselves(store):
    a = store.create_class(SETTINGS, rounds=2, seed=1)
    b = store.create_class(SETTINGS, rounds=2, seed=1)
    pa = store.join(a.code, "Ada")
    for code, token in [
        (b.code, pa.player_token),  # a player of another class
        (a.code, a.teacher_token),  # the teacher is not a player
        (a.code, pa.player_token + "x"),
        ("ZZZZZZZZ", pa.player_token),  # an unknown code: the same refusal, no oracle
    ]:
        with pytest.raises(InvalidToken, match=r"(not one of class .*'s players|is damaged)"):
            store.answer(code, token, 0, True)
        with pytest.raises(InvalidToken):
            store.player_view(code, token)
    assert store.class_view(a.code).guesses == store.class_view(b.code).guesses == 0


def test_what_is_stored_about_a_person(store):
    """Nickname, join number, token hash; per guess: player, round, answer. Nothing else."""
    store.check()
    inspector = sa.inspect(store._engine)
    assert {c["name"] for c in inspector.get_columns("classroom_player")} == {
        "id",
        "class_id",
        "number",
        "nickname",
        "nickname_key",
        "token_hash",
    }
    assert {c["name"] for c in inspector.get_columns("classroom_guess")} == {
        "class_id",
        "player_id",
        "round",
        "said_in",
    }


# --------------------------------------------------------------------------- input checks


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        ({"rounds": 0}, InvalidInput, r"rounds=0 is out of range: allowed 1 <= rounds <= 200"),
        ({"rounds": 201}, LimitReached, r"rounds=201 is more than a class may play: at most 200"),
        ({"rounds": 2.0}, InvalidInput, r"rounds=2\.0 must be a whole number"),
        ({"rounds": True}, InvalidInput, r"rounds=True must be a whole number"),
        ({"seed": -1}, InvalidInput, r"seed=-1 is out of range: allowed 0 <= seed <= "),
        ({"seed": 2**63}, InvalidInput, r"seed=9223372036854775808 is out of range"),
        ({"settings": {"n": 8}}, InvalidInput, r"settings=\{'n': 8\} must be a mipcore"),
    ],
)
def test_create_class_refusals_name_parameter_value_and_rule(store, kwargs, error, pattern):
    args = {"settings": SETTINGS, "rounds": 10, "seed": 1} | kwargs
    with pytest.raises(error, match=pattern):
        store.create_class(**args)


def test_answer_refusals_name_parameter_value_and_rule(store):
    h = store.create_class(SETTINGS, rounds=3, seed=1)
    p = store.join(h.code, "Ada")
    cases = [
        ({"round_index": 3}, r"round_index=3 is out of range: class .* has 3 rounds"),
        ({"round_index": -1}, r"round_index=-1 is out of range: allowed 0 <= round_index"),
        ({"round_index": "0"}, r"round_index='0' must be a whole number"),
        ({"said_in": 1}, r"said_in=1 must be True \(in\) or False \(out\)"),
        ({"said_in": "in"}, r"said_in='in' must be True"),
        ({"code": "nope"}, r"'nope' is not a class code: a code has 8 letters and digits"),
    ]
    for change, pattern in cases:
        args = {"code": h.code, "player_token": p.player_token, "round_index": 0, "said_in": True}
        with pytest.raises(InvalidInput, match=pattern):
            store.answer(**(args | change))
    assert store.class_view(h.code).guesses == 0


def test_codes_are_40_bits_of_an_unambiguous_alphabet(store):
    assert len(set(CODE_ALPHABET)) == 32 and CODE_LENGTH * 5 >= 40
    assert not set("ILOU") & set(CODE_ALPHABET)
    codes = {store.create_class(SETTINGS, rounds=1, seed=1).code for _ in range(20)}
    assert len(codes) == 20
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)


def test_typed_codes_are_forgiving_but_exact():
    assert normalize_code(" abcd-efgh ") == "ABCDEFGH"
    assert normalize_code("ab cd ef gh") == "ABCDEFGH"
    assert normalize_code("o1IL2345") == "01112345"  # Crockford: O is 0, I and L are 1
    for bad in ["ABCDEFG", "ABCDEFGHJ", "ABCDEFGU", "ABCD_EFG", "", 12345678, None]:
        with pytest.raises(InvalidInput, match=r".* is not a class code"):
            normalize_code(bad)


@pytest.mark.parametrize(
    "raw, cleaned",
    [
        ("Ada", "Ada"),
        ("  Ada   Lovelace  ", "Ada Lovelace"),
        ("Ada\u202eecalevoL", "AdaecalevoL"),  # right-to-left override
        ("\u2066Ada\u2069\u200f", "Ada"),  # isolates, a direction mark
        ("Ada\x00\x07\x1b[31m", "Ada[31m"),  # control characters
        ("Ada\nLovelace\t!", "Ada Lovelace !"),  # line breaks and tabs are spaces
        ("A\u200bd\ufeffa\u00ad", "Ada"),  # zero-width space, BOM, soft hyphen
        ("\u3164Ada\u2800", "Ada"),  # blank-looking letters
        ("👩\u200d💻 Zoë", "👩\u200d💻 Zoë"),  # an emoji sequence keeps its joiner
        ("Zoe\u0308", "Zoë"),  # NFC
    ],
)
def test_nicknames_are_cleaned(raw, cleaned):
    assert clean_nickname(raw) == cleaned


@pytest.mark.parametrize(
    "raw, pattern",
    [
        ("", r"A nickname needs at least one visible letter, digit or sign"),
        ("  \t ", r"spaces, control characters and direction marks do not count"),
        ("\u202e\u200b\u2066", r"needs at least one visible"),
        ("\u200d", r"needs at least one visible"),
        ("x" * 25, r"This nickname has 25 characters: at most 24 are allowed"),
        ("x" * 5000, r"This nickname has 5000 characters: at most 24"),
        (None, r"A nickname must be text"),
        (42, r"A nickname must be text"),
    ],
)
def test_nickname_refusals(raw, pattern):
    with pytest.raises(InvalidInput, match=pattern):
        clean_nickname(raw)


def test_nicknames_are_unique_in_a_class_whatever_the_case(store):
    h = store.create_class(SETTINGS, rounds=1, seed=1)
    names = [store.join(h.code, n).nickname for n in ["Ada", "ADA", "ada", "Ａｄａ", "Ada 2"]]
    assert names == ["Ada", "ADA 2", "ada 3", "Ａｄａ 4", "Ada 2 2"]  # Ａｄａ: fullwidth, NFKC
    long = "L" * 24
    assert store.join(h.code, long).nickname == long
    assert store.join(h.code, long.lower()).nickname == "l" * 22 + " 2"  # still 24 characters
    # Look-alikes from other scripts: Cyrillic А and а, Greek Α, Armenian օ.
    assert store.join(h.code, "\u0410da").nickname == "\u0410da 5"
    assert store.join(h.code, "Ad\u0430").nickname == "Ad\u0430 6"
    assert store.join(h.code, "\u0391da").nickname == "\u0391da 7"
    assert store.join(h.code, "Bob").nickname == "Bob"
    assert store.join(h.code, "B\u0585b").nickname == "B\u0585b 2"  # Armenian oh
    assert store.join(h.code, "Ада").nickname == "Ада"  # a Russian name is not a look-alike
    other = store.create_class(SETTINGS, rounds=1, seed=1)
    assert store.join(other.code, "Ada").nickname == "Ada"  # unique within a class only
    with pytest.raises(InvalidInput, match="A new player needs a nickname"):
        store.join(h.code)
    with pytest.raises(InvalidInput, match="needs at least one visible"):
        store.join(h.code, "\u202e")


# --------------------------------------------------------------------------- limits


def test_a_class_holds_at_most_max_players(make_store):
    store = make_store(limits=Limits(max_players=3))
    h = store.create_class(SETTINGS, rounds=1, seed=1)
    for name in "ABC":
        store.join(h.code, name)
    with pytest.raises(LimitReached, match=r"is full: it has 3 players, the most"):
        store.join(h.code, "D")
    assert store.class_view(h.code).players == 3


def test_the_default_caps():
    lim = Limits()
    assert (lim.max_players, lim.max_rounds, lim.nickname_chars) == (500, 200, 24)
    assert Limits(lifetime_seconds=None).lifetime == pytest.approx(24 * 3600)
    with pytest.raises(InvalidInput, match=r"nickname_chars=65 is out of range"):
        Limits(nickname_chars=65)
    with pytest.raises(InvalidInput, match=r"busy_seconds=nan must be a finite number"):
        Limits(busy_seconds=float("nan"))


def test_a_store_keeps_at_most_max_classes(make_store):
    clock = Clock()
    store = make_store(limits=Limits(max_classes=2, lifetime_seconds=60), clock=clock)
    store.create_class(SETTINGS, rounds=1, seed=1)
    store.create_class(SETTINGS, rounds=1, seed=1)
    with pytest.raises(LimitReached, match=r"already keeps 2 classes, the most it may"):
        store.create_class(SETTINGS, rounds=1, seed=1)
    clock.t += 60
    store.create_class(SETTINGS, rounds=1, seed=1)  # the expired ones were purged first
    assert _count(store, classroom.classes) == 1


def test_joins_are_rate_limited_per_class_across_stores(make_store):
    clock = Clock()
    limits = Limits(join_burst=3, join_per_second=0.5)
    one, two = make_store(limits=limits, clock=clock), make_store(limits=limits, clock=clock)
    h = one.create_class(SETTINGS, rounds=1, seed=1)
    busy = one.create_class(SETTINGS, rounds=1, seed=1)
    a = one.join(h.code, "A")
    two.join(h.code, "B")
    one.join(h.code, "C")
    with pytest.raises(RateLimited, match=r"takes 3 new players at once, then 0\.5 a second") as e:
        two.join(h.code, "D")  # another process of the same course: the bucket is in the row
    assert e.value.retry_after == pytest.approx(2.0)
    two.join(busy.code, "D")  # another class has its own bucket
    assert two.join(h.code, player_token=a.player_token) == a  # a reload is not a join
    clock.t += 1.9
    with pytest.raises(RateLimited):
        one.join(h.code, "E")
    clock.t += 0.2
    one.join(h.code, "E")
    assert one.class_view(h.code).players == 4  # A, B, C, E: refused joins left nothing


def test_unknown_codes_are_rate_limited_per_client(make_store):
    clock = Clock()
    store = make_store(limits=Limits(lookup_burst=2, lookup_per_second=0.1), clock=clock)
    h = store.create_class(SETTINGS, rounds=1, seed=1)
    for guess in ("AAAAAAAA", "BBBBBBBB"):
        with pytest.raises(ClassNotFound):
            store.join(guess, "Eve", client="eve")
    with pytest.raises(
        RateLimited, match=r"in this browser: 2 wrong codes at most, then one every 10 s"
    ) as e:
        store.class_view(h.code, client="eve")  # even a right code: this client must wait
    assert e.value.retry_after == pytest.approx(10.0)
    assert store.class_view(h.code, client="ada").code == h.code  # other clients are not
    assert store.join(h.code, "Ada").nickname == "Ada"  # no client key: not limited
    with pytest.raises(ClassNotFound):
        store.class_view("CCCCCCCC")
    clock.t += 10.0
    assert store.class_view(h.code, client="eve").code == h.code
    for _ in range(3):  # a right code costs nothing
        store.class_view(h.code, client="eve")


def test_a_server_wide_burst_of_unknown_codes_slows_every_lookup_and_refuses_none(
    make_store, monkeypatch
):
    """A guesser who takes a new identity for every try is not refused per client: the
    server's own bucket then makes every lookup by code wait (at most 2 s), slowing the
    guesser; nobody is refused, and players with a key never wait."""
    clock = Clock()
    store = make_store(
        limits=Limits(lookup_global_burst=3, lookup_global_per_second=0.5), clock=clock
    )
    pauses: list[float] = []
    monkeypatch.setattr(classroom.time, "sleep", pauses.append)
    h = store.create_class(SETTINGS, rounds=2, seed=1)
    p = store.join(h.code, "Ada")
    for i in range(3):
        with pytest.raises(ClassNotFound):
            store.class_view("ZZZZZZZZ", client=f"identity {i}")
    assert pauses == []
    assert store.class_view(h.code, client="a new student").code == h.code
    assert pauses == [pytest.approx(2.0)]  # the bucket is empty: 2 s to the next token
    store.player_view(h.code, p.player_token)
    store.answer(h.code, p.player_token, 0, True)
    assert len(pauses) == 1  # a player with a key never waits
    clock.t += 2.0
    store.class_view(h.code, client="later")
    assert len(pauses) == 1


# --------------------------------------------------------------------------- expiry


def test_classes_expire_and_are_purged(make_store):
    clock = Clock()
    store = make_store(limits=Limits(lifetime_seconds=100.0), clock=clock)
    h = store.create_class(SETTINGS, rounds=2, seed=1)
    p = store.join(h.code, "Ada")
    store.answer(h.code, p.player_token, 0, True)
    assert h.expires_at == clock.t + 100.0
    clock.t += 99.0
    assert store.class_view(h.code).guesses == 1
    clock.t += 1.0  # expired: gone for everyone at once, purged or not
    with pytest.raises(ClassNotFound):
        store.class_view(h.code)
    with pytest.raises(InvalidToken):
        store.answer(h.code, p.player_token, 1, True)
    with pytest.raises(InvalidToken):
        store.results(h.code, h.teacher_token)
    assert _count(store, classroom.guesses) == 1
    assert store.purge_expired(clock.t - 1.0) == 0
    assert store.purge_expired() == 1
    assert [
        _count(store, t) for t in (classroom.classes, classroom.players, classroom.guesses)
    ] == [
        0,
        0,
        0,
    ]


def test_creating_a_class_purges_the_expired_ones(make_store):
    clock = Clock()
    store = make_store(limits=Limits(lifetime_seconds=10.0), clock=clock)
    old = store.create_class(SETTINGS, rounds=1, seed=1)
    store.join(old.code, "Ada")
    clock.t += 10.0
    store.create_class(SETTINGS, rounds=1, seed=1)
    assert (_count(store, classroom.classes), _count(store, classroom.players)) == (1, 0)


# --------------------------------------------------------------------------- results


def test_csv_holds_every_guess_with_its_truth(store):
    settings = GameSettings.mip("mean", 0.2)
    seed, rounds = 2024, 6
    h = store.create_class(settings, rounds=rounds, seed=seed)
    rng = random.Random(7)
    names = ["Ada", 'Bob, "the" 2nd', "=1+1", "-minus", "Zoë 👩\u200d💻"]
    submitted: dict[tuple[str, int], bool] = {}
    for name in names:
        p = store.join(h.code, name)
        for k in range(rng.randint(0, rounds)):  # a player answers the rounds in order
            said = rng.random() < 0.5
            store.answer(h.code, p.player_token, k, said)
            store.answer(h.code, p.player_token, k, not said)  # a duplicate: not in the CSV
            submitted[(p.nickname, k)] = said
    # while the class is open the file tells no truth: it could be opened before the room
    sealed = list(csv.reader(io.StringIO(store.results_csv(h.code, h.teacher_token))))
    assert sealed[0] == ["nickname", "round", "answer"] and all(len(r) == 3 for r in sealed)
    assert len(sealed) - 1 == len(submitted)
    store.close(h.code, h.teacher_token)
    truth = _truths(settings, seed, rounds)
    rows = list(csv.reader(io.StringIO(store.results_csv(h.code, h.teacher_token))))
    assert rows[0] == ["nickname", "round", "answer", "truth", "correct"]
    got = {}
    for nickname, rnd, answer, true, correct in rows[1:]:
        if nickname.startswith("'"):  # a formula-like nickname is quoted for spreadsheets
            nickname = nickname[1:]
            assert nickname[0] in "=+-@"
        k = int(rnd) - 1  # counted from 1, as the page numbers rounds
        assert answer in ("in", "out") and true == ("in" if truth[k] else "out")
        assert correct == ("1" if (answer == "in") == truth[k] else "0")
        got[(nickname, k)] = answer == "in"
    assert got == submitted
    assert len(rows) - 1 == len(submitted)
    order = [(names.index(n), int(r)) for n, r, *_ in ((r[0].lstrip("'"), r[1]) for r in rows[1:])]
    assert order == sorted(order)  # join order, then round order


def test_score_class_agrees_with_mipcore(store):
    settings, seed, rounds = GameSettings.dp("mean", 2.0), 99, 8
    h = store.create_class(settings, rounds=rounds, seed=seed)
    truth = _truths(settings, seed, rounds)
    full = [truth[k] != (k % 3 == 0) for k in range(rounds)]  # wrong on rounds 0, 3, 6
    answers: dict[str, list[bool | None]] = {
        "all": list(full),  # every round
        "flip": [not a for a in full[:5]],  # rounds 0-4
        "late": [None, None, None, True, False, True],  # joins after a close and a reopen
    }
    tokens = {name: store.join(h.code, name).player_token for name in ("all", "flip")}
    for name in ("all", "flip"):
        for k in range(3):
            store.answer(h.code, tokens[name], k, answers[name][k])
    store.close(h.code, h.teacher_token)  # rounds 0-2 shown to their players
    store.reopen(h.code, h.teacher_token)
    tokens["late"] = store.join(h.code, "late").player_token
    for name, given in answers.items():
        for k, a in enumerate(given):
            if a is not None and (k >= 3 or name == "late"):
                store.answer(h.code, tokens[name], k, a)
    sc = score_class(store.results(h.code, h.teacher_token))
    assert list(sc.truth) == truth
    by_name = {p.nickname: p for p in sc.players}
    assert by_name["all"].score == score_game(settings, seed, full)
    assert by_name["flip"].score == score_game(settings, seed, [not a for a in full[:5]])
    # the late joiner is scored on the rounds played, and so is the optimal attacker
    late = by_name["late"]
    assert late.answered == 3 and late.score == score_game(settings, seed, answers["late"])
    assert late.score.rounds == 3
    assert (
        late.correct == late.score.correct == sum(answers["late"][k] == truth[k] for k in (3, 4, 5))
    )
    pooled = [(a, truth[k]) for g in answers.values() for k, a in enumerate(g) if a is not None]
    assert (sc.pooled_guesses, sc.pooled_correct) == (
        len(pooled),
        sum(a == t for a, t in pooled),
    )
    # majority per round; a tie ("all" and "flip" disagree on rounds 0-2) says "in"
    expected = []
    for k in range(rounds):
        said = [g[k] for g in answers.values() if k < len(g) and g[k] is not None]
        expected.append(sum(said) >= len(said) - sum(said) if said else None)
    assert list(sc.majority) == expected
    assert sc.majority_score == score_game(settings, seed, expected)
    assert sc.majority_correct == sum(e == t for e, t in zip(expected, truth, strict=True))


# --------------------------------------------------------------------------- the schema


def test_the_schema_version_is_recorded_and_checked(db_url, make_store):
    first = make_store()
    first.check()
    with first._engine.connect() as conn:
        assert conn.execute(sa.select(classroom.schema_table.c.version)).scalars().all() == [
            SCHEMA_VERSION
        ]
    h = first.create_class(SETTINGS, rounds=1, seed=1)
    make_store().check()  # the same version: fine, and nothing is created twice
    with first._engine.begin() as conn:
        conn.execute(sa.update(classroom.schema_table).values(version=SCHEMA_VERSION + 1))
        conn.execute(sa.text("DROP TABLE classroom_guess"))  # a newer schema's own shape
    newer = make_store()
    with pytest.raises(SchemaMismatch, match=r"holds schema version 3.*written by a newer"):
        newer.class_view(h.code)
    with pytest.raises(StorageUnavailable):  # every call, and nothing is changed
        newer.create_class(SETTINGS, rounds=1, seed=1)
    assert _count(first, classroom.classes) == 1
    assert not sa.inspect(first._engine).has_table("classroom_guess")  # not made again
    with first._engine.connect() as conn:
        assert conn.execute(sa.select(classroom.schema_table.c.version)).scalar_one() == 3


# --------------------------------------------------------------------------- failures


def test_an_unreachable_database_is_a_sentence(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    start = time.monotonic()
    for url in [
        f"sqlite:///{a_file}/classes.sqlite3",  # a folder that cannot be made
        "postgresql://mip:s3cret@127.0.0.1:1/mip",  # nobody listens on port 1
    ]:
        with pytest.raises(StorageUnavailable, match="single-player game still works") as e:
            Store(url).class_view("ABCDEFGH")
        assert "s3cret" not in str(e.value)
    assert time.monotonic() - start < 10
    with pytest.raises(StorageUnavailable, match=r"not a database URL.*its value is not shown"):
        Store("not a url at all :pw@")
    for memory in ("sqlite://", "sqlite:///:memory:"):
        with pytest.raises(StorageUnavailable, match=r"in memory: every connection would see"):
            Store(memory)
    store = Store("postgres://mip:s3cret@127.0.0.1:1/mip")  # nothing connects before a call
    assert store.url == "postgresql+psycopg://mip:***@127.0.0.1:1/mip"


def test_the_default_is_a_private_sqlite_file_in_wal_mode(tmp_path, monkeypatch):
    monkeypatch.setattr(classroom.app_settings, "DATABASE_URL", None)
    monkeypatch.setattr(classroom.app_settings, "DATA_DIR", tmp_path / "data")
    store = Store()
    try:
        store.create_class(SETTINGS, rounds=1, seed=1)
        path = tmp_path / "data" / "classes.sqlite3"
        assert store.url == f"sqlite:///{path}"
        assert path.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "data").stat().st_mode & 0o777 == 0o700
        with sqlite3.connect(path) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        monkeypatch.setattr(classroom.app_settings, "DATABASE_URL", "sqlite:///elsewhere.db")
        assert classroom.default_url() == "sqlite:///elsewhere.db"
    finally:
        store.dispose()


def _sqlite_store(tmp_path) -> tuple[Store, Path]:
    path = tmp_path / "classes.sqlite3"
    return Store(f"sqlite:///{path}"), path


def test_a_deleted_or_replaced_sqlite_file_is_a_sentence_at_once(tmp_path):
    """A connection keeps writing to a deleted file (the answers vanish at the next start):
    the store notices at its next call, and says so without the server's path."""
    for replace in (False, True):
        folder = tmp_path / ("replaced" if replace else "deleted")
        folder.mkdir()
        store, path = _sqlite_store(folder)
        try:
            h = store.create_class(SETTINGS, rounds=3, seed=1)
            p = store.join(h.code, "Ada")
            store.answer(h.code, p.player_token, 0, True)
            for f in folder.glob("classes.sqlite3*"):
                f.unlink()
            if replace:
                path.write_bytes(b"")
            calls = (
                functools.partial(store.answer, h.code, p.player_token, 1, True),
                functools.partial(store.results, h.code, h.teacher_token),
                functools.partial(store.join, h.code, "Bob"),
            )
            for call in calls:
                with pytest.raises(StorageUnavailable, match="deleted or replaced") as e:
                    call()
                assert str(folder) not in str(e.value) and "sqlite3" not in str(e.value)
        finally:
            store.dispose()


def test_a_read_only_sqlite_file_is_a_sentence_and_keeps_its_mode(tmp_path):
    """A file its owner made read-only (0444) takes no answer, from the first write on, even
    where the process could write it (root), and the store never changes its mode."""
    store, path = _sqlite_store(tmp_path)
    try:
        h = store.create_class(SETTINGS, rounds=3, seed=1)
        p = store.join(h.code, "Ada")
        path.chmod(0o444)
        with pytest.raises(StorageUnavailable, match="is read-only") as e:
            store.answer(h.code, p.player_token, 0, True)
        assert str(tmp_path) not in str(e.value)
        assert store.results(h.code, h.teacher_token).view.guesses == 0  # reading still works
    finally:
        store.dispose()
    again = Store(f"sqlite:///{path}")  # a restart on the read-only file
    try:
        with pytest.raises(StorageUnavailable, match="is read-only"):
            again.check()
    finally:
        again.dispose()
    assert path.stat().st_mode & 0o777 == 0o444  # its owner's mode, untouched


def test_an_existing_file_keeps_the_mode_its_owner_gave_it(tmp_path):
    path = tmp_path / "classes.sqlite3"
    sqlite3.connect(path).close()
    path.chmod(0o640)
    store = Store(f"sqlite:///{path}")
    try:
        store.create_class(SETTINGS, rounds=1, seed=1)
    finally:
        store.dispose()
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_version_1_database_is_upgraded_in_place(tmp_path):
    """A file written by the previous version (no truths_shown, no key tables) is upgraded
    on first use; its classes, players and answers keep working, and a closed class counts
    the rounds answered so far as shown."""
    store, path = _sqlite_store(tmp_path)
    h = store.create_class(SETTINGS, rounds=4, seed=1)
    shut = store.create_class(SETTINGS, rounds=4, seed=2)
    p = store.join(h.code, "Ada")
    q = store.join(shut.code, "Bob")
    store.answer(h.code, p.player_token, 0, True)
    store.answer(shut.code, q.player_token, 0, True)
    store.answer(shut.code, q.player_token, 1, True)
    store.close(shut.code, shut.teacher_token)
    store.dispose()
    with sqlite3.connect(path) as raw:  # back to version 1's shape
        raw.execute("DROP TABLE classroom_key")
        raw.execute("DROP TABLE classroom_handoff")
        raw.execute("ALTER TABLE classroom_class DROP COLUMN truths_shown")
        raw.execute("UPDATE classroom_schema SET version = 1")
    again = Store(f"sqlite:///{path}")
    try:
        assert again.player_view(h.code, p.player_token).answers[0] is True
        assert again.answer(h.code, p.player_token, 1, False) == Accepted(1, False)
        assert again.class_view(shut.code).truths_shown == 2
        assert again.class_view(h.code).truths_shown == 0
        with again._engine.connect() as conn:
            assert conn.execute(sa.select(classroom.schema_table.c.version)).scalar_one() == 2
        again.create_class(SETTINGS, rounds=1, seed=1, device="laptop")  # the new tables work
        assert len(again.teacher_classes("laptop")) == 1
    finally:
        again.dispose()


def _settings_with(env: dict[str, str]):
    """appkit/settings.py executed afresh under ``env`` (it reads the environment once)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fresh_settings", ROOT / "appkit" / "settings.py")
    module = importlib.util.module_from_spec(spec)
    saved = dict(os.environ)
    try:
        for key in [k for k in os.environ if k.startswith(("MIP_EXPLORER_", "XDG_CACHE_HOME"))]:
            del os.environ[key]
        os.environ.update(env)
        spec.loader.exec_module(module)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return module


def test_the_storage_settings_come_from_the_environment(tmp_path):
    def read(env: dict[str, str]) -> tuple[str | None, Path, float]:
        fresh = _settings_with(env)
        return fresh.DATABASE_URL, fresh.DATA_DIR, fresh.CLASS_SECONDS

    assert read({"HOME": str(tmp_path)}) == (None, tmp_path / ".cache/mip-explorer", 86400.0)
    assert read({"XDG_CACHE_HOME": "/x"})[1] == Path("/x/mip-explorer")
    given = {
        "MIP_EXPLORER_DATABASE_URL": " postgresql://u@h/mip ",
        "MIP_EXPLORER_DATA_DIR": str(tmp_path / "d"),
        "MIP_EXPLORER_CLASS_HOURS": "2",
    }
    assert read(given) == ("postgresql://u@h/mip", tmp_path / "d", 7200.0)
    for raw, hours in [("0", 0.1), ("1e9", 720), ("nan", 24), ("soon", 24), ("", 24)]:
        assert read({"MIP_EXPLORER_CLASS_HOURS": raw})[2] == pytest.approx(hours * 3600)


def test_a_busy_sqlite_file_is_retried_with_backoff(tmp_path):
    path = tmp_path / "classes.sqlite3"
    store = Store(f"sqlite:///{path}", limits=Limits(busy_seconds=5.0))
    h = store.create_class(SETTINGS, rounds=1, seed=1)
    p = store.join(h.code, "Ada")
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another process writes for 0.8 s
    release = threading.Timer(0.8, lambda: holder.execute("COMMIT"))
    release.start()
    start = time.monotonic()
    assert store.answer(h.code, p.player_token, 0, True) == Accepted(0, True)
    assert time.monotonic() - start >= 0.7
    release.join()
    impatient = Store(f"sqlite:///{path}", limits=Limits(busy_seconds=0.3))
    holder.execute("BEGIN IMMEDIATE")
    try:
        start = time.monotonic()
        with pytest.raises(StorageUnavailable, match=r"stayed busy for 0\.3 s"):
            impatient.answer(h.code, p.player_token, 0, False)
        assert time.monotonic() - start < 2.0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.dispose()
        impatient.dispose()


def test_sqlite_writers_of_one_process_queue_on_a_lock(tmp_path):
    """On SQLite a write waits for the process's other writers on a lock (not in SQLite's
    busy handler, which sleeps up to 100 ms between looks); the wait is bounded by
    busy_seconds like any busy file, and reads never queue."""
    store = Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}", limits=Limits(busy_seconds=0.3))
    try:
        h = store.create_class(SETTINGS, rounds=1, seed=1)
        p = store.join(h.code, "Ada")
        with store._writer:  # another thread of this server is writing
            with pytest.raises(StorageUnavailable, match=r"stayed busy for 0\.3 s \(other answers"):
                store.answer(h.code, p.player_token, 0, True)
            assert store.class_view(h.code).guesses == 0
        release = threading.Timer(0.1, store._writer.release)
        store._writer.acquire()
        release.start()
        assert store.answer(h.code, p.player_token, 0, True) == Accepted(0, True)
        release.join()
    finally:
        store.dispose()


def test_an_answer_waits_for_a_concurrent_close(store):
    """The teacher's close and an answer are strictly ordered: an answer that arrives while
    the close is being written sees the class closed."""
    h = store.create_class(SETTINGS, rounds=1, seed=1)
    p = store.join(h.code, "Ada")
    outcome: list[object] = []
    with store._engine.connect() as conn:
        conn.execution_options(classroom_write=True)
        tx = conn.begin()
        conn.execute(
            sa.update(classroom.classes)
            .where(classroom.classes.c.code == h.code)
            .values(state="closed")
        )

        def answer() -> None:
            try:
                outcome.append(store.answer(h.code, p.player_token, 0, True))
            except ClassClosed as exc:
                outcome.append(exc)

        t = threading.Thread(target=answer)
        t.start()
        t.join(0.5)
        assert t.is_alive()  # waiting for the close
        tx.commit()
    t.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], ClassClosed)
    assert store.class_view(h.code).guesses == 0


# --------------------------------------------------------------------------- concurrency

PLAYERS, ROUNDS = 60, 20


def _said(player: int, k: int, copy: int) -> bool:
    """The answer of one submission: the two copies of a (player, round) disagree."""
    return (player * 31 + k * 7 + copy) % 2 == 0


def _doubled(i: int, k: int) -> bool:
    """One answer in four comes twice (a double tap), the two copies racing."""
    return (i + k) % 4 == 0


DUPLICATES = sum(_doubled(i, k) for i in range(PLAYERS) for k in range(ROUNDS))


def _play(store, code: str, i: int, token: str) -> list[tuple[int, int, object]]:
    """Player ``i`` answers every round in order, as a phone does (the next round only after
    the last answer is back); a doubled round's two copies are sent at once from two threads."""
    out: list[tuple[int, int, object]] = []
    for k in range(ROUNDS):
        if _doubled(i, k):
            both = threading.Barrier(2)

            def one(c: int, k: int = k, both: threading.Barrier = both) -> object:
                both.wait()
                return store.answer(code, token, k, _said(i, k, c))

            with ThreadPoolExecutor(max_workers=2) as two:
                out += [(i, k, r) for r in two.map(one, (0, 1))]
        else:
            out.append((i, k, store.answer(code, token, k, _said(i, k, 0))))
    return out


@pytest.mark.slow
def test_sixty_players_answering_from_threads(store):
    h = store.create_class(SETTINGS, rounds=ROUNDS, seed=5)
    with ThreadPoolExecutor(max_workers=20) as pool:
        handles = list(pool.map(lambda i: store.join(h.code, f"player {i}"), range(PLAYERS)))
    assert sorted(p.player_id for p in handles) == list(range(1, PLAYERS + 1))
    with ThreadPoolExecutor(max_workers=20) as pool:
        played = pool.map(
            lambda i: _play(store, h.code, i, handles[i].player_token), range(PLAYERS)
        )
        outcomes = [o for one in played for o in one]
    kinds = Counter(type(r).__name__ for *_, r in outcomes)
    assert kinds == {"Accepted": PLAYERS * ROUNDS, "Duplicate": DUPLICATES}
    accepted = {(i, k): r.said_in for i, k, r in outcomes if isinstance(r, Accepted)}
    assert all(r.said_in == accepted[(i, k)] for i, k, r in outcomes)  # duplicates see the first
    _check_stored(store, h, handles, accepted)


def _check_stored(store, h, handles, accepted):
    view = store.class_view(h.code)
    assert (view.players, view.guesses) == (PLAYERS, PLAYERS * ROUNDS)
    res = store.results(h.code, h.teacher_token)
    number = {p.player_id: i for i, p in enumerate(handles)}
    stored = {(number[p.player_id], k): a for p in res.players for k, a in enumerate(p.answers)}
    assert stored == accepted
    for c in res.per_round:
        said = [accepted[(i, c.round_index)] for i in range(PLAYERS)]
        assert (c.said_in, c.said_out) == (sum(said), PLAYERS - sum(said))


def _play_first_copy(store, code: str, i: int, token: str) -> list[tuple[int, int, object]]:
    """As :func:`_play`, but a doubled round 0's second copy comes from another process, and
    a later doubled round's right behind the first (a late tap)."""
    out: list[tuple[int, int, object]] = []
    for k in range(ROUNDS):
        out.append((i, k, store.answer(code, token, k, _said(i, k, 0))))
        if _doubled(i, k) and k > 0:
            out.append((i, k, store.answer(code, token, k, _said(i, k, 1))))
    return out


def _answer_in_a_process(
    url: str, code: str, own: list[tuple[int, str]], races: list[tuple[int, str]]
) -> list[tuple[int, int, bool, bool]]:
    """One app process with its own store: the second copy of round 0 of the players in
    ``races`` (racing the process that owns them), then its own players' rounds in order."""
    store = Store(url)
    try:
        out = [(i, 0, store.answer(code, token, 0, _said(i, 0, 1))) for i, token in races]
        with ThreadPoolExecutor(max_workers=5) as pool:
            for played in pool.map(lambda p: _play_first_copy(store, code, *p), own):
                out += played
        return [(i, k, isinstance(r, Accepted), r.said_in) for i, k, r in out]
    finally:
        store.dispose()


@pytest.mark.slow
def test_sixty_players_answering_from_four_processes(store, db_url):
    h = store.create_class(SETTINGS, rounds=ROUNDS, seed=6)
    handles = [store.join(h.code, f"player {i}") for i in range(PLAYERS)]
    # player i plays through process i % 4; the second copy of a doubled round 0 comes through
    # the next process, so that the two race across processes
    own: list[list[tuple[int, str]]] = [[] for _ in range(4)]
    races: list[list[tuple[int, str]]] = [[] for _ in range(4)]
    for i, p in enumerate(handles):
        own[i % 4].append((i, p.player_token))
        if _doubled(i, 0):
            races[(i + 1) % 4].append((i, p.player_token))
    store.dispose()  # no pooled connection crosses the fork
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        outcomes = pool.starmap(
            _answer_in_a_process, [(db_url, h.code, own[j], races[j]) for j in range(4)]
        )
    flat = [o for out in outcomes for o in out]
    assert len(flat) == PLAYERS * ROUNDS + DUPLICATES
    accepted = {(i, k): said for i, k, ok, said in flat if ok}
    assert sum(ok for *_, ok, _ in flat) == len(accepted) == PLAYERS * ROUNDS  # one copy counted
    assert all(said == accepted[(i, k)] for i, k, _, said in flat)
    _check_stored(store, h, handles, accepted)


# --------------------------------------------------------------------------- plain Python


def test_the_storage_never_imports_streamlit():
    """appkit.classroom and what it imports run without Streamlit (benchmarks, scripts): only
    the appkit package's own __init__ imports it, so the check stands in a bare package."""
    code = (
        "import sys, types\n"
        f"pkg = types.ModuleType('appkit'); pkg.__path__ = [{str(ROOT / 'appkit')!r}]\n"
        "sys.modules['appkit'] = pkg\n"
        "import appkit.classroom\n"
        "assert 'streamlit' not in sys.modules, 'streamlit imported'\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=120)
