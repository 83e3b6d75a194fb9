"""The server-side store of a game's answers (appkit.progress): what makes a game survive a
reload. Bounded (least recently used games dropped first, long games cut), thread-safe, and an
answer counts only for the next round. The page's use of it is tested in
test_page_play_attacker.py (AppTest, no browser: the session copy) and test_browser_game.py
(a real reload)."""

from __future__ import annotations

import threading
import tracemalloc

import pytest

from appkit.progress import STORE, Progress, ProgressStore, browser_id
from mipcore.game import GameSettings

GAME = GameSettings().game_key(7)


def test_a_game_is_kept_per_browser_and_game():
    store = ProgressStore(max_games=10, max_answers=30)
    assert store.get("b1", GAME) is None
    store.answer("b1", GAME, 0, True)
    store.answer("b1", GAME, 1, False)
    assert store.get("b1", GAME) == Progress((True, False), 0)
    assert store.get("b2", GAME) is None  # another browser: nothing
    assert store.get("b1", GameSettings().game_key(8)) is None  # another game: nothing


def test_an_answer_counts_only_for_the_next_round():
    store = ProgressStore()
    store.answer("b", GAME, 0, True)
    assert store.answer("b", GAME, 0, False).answers == (True,)  # a double click
    assert store.answer("b", GAME, 5, False).answers == (True,)  # a round not yet shown
    assert store.answer("b", GAME, 1, False).answers == (True, False)
    # after an eviction the page passes its session copy to start from
    fresh = ProgressStore()
    assert fresh.answer("b", GAME, 2, True, start=(False, False)).answers == (False, False, True)


def test_the_store_is_bounded_least_recently_used_first():
    store = ProgressStore(max_games=3, max_answers=4)
    for g in "abc":
        store.put("b", g, Progress((True,), 0))
    assert store.get("b", "a") is not None  # "a" used: "b" is now the oldest
    store.put("b", "d", Progress((), 0))
    assert len(store) == 3
    assert store.get("b", "b") is None
    assert {g for g in "acd" if store.get("b", g) is not None} == {"a", "c", "d"}
    # a game is kept to max_answers answers
    store.put("b", "long", Progress((True,) * 9, 0))
    assert store.get("b", "long").answers == (True,) * 4
    assert store.answer("b", "long", 4, True).answers == (True,) * 4


def test_replays_count_games_whose_truths_were_shown():
    store = ProgressStore()
    assert store.restart("b", GAME).replays == 0  # nothing answered: not a replay
    store.answer("b", GAME, 0, True)
    assert store.restart("b", GAME) == Progress((), 1)
    assert store.get("b", GAME) == Progress((), 1)
    store.answer("b", GAME, 0, False)
    assert store.get("b", GAME) == Progress((False,), 1)


def test_tabs_answering_at_once_record_each_round_once():
    store = ProgressStore(max_answers=200)
    barrier = threading.Barrier(8)

    def tab(said: bool) -> None:
        barrier.wait()
        for k in range(200):
            store.answer("b", GAME, k, said)

    threads = [threading.Thread(target=tab, args=(i % 2 == 0,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.get("b", GAME).answers) == 200


@pytest.mark.slow
def test_the_app_s_store_holds_at_most_4096_games_in_about_2_mb():
    """The bound the README and appkit.progress state: 4 096 games of up to 200 answers."""
    assert (STORE.max_games, STORE.max_answers) == (4096, 200)
    store = ProgressStore(STORE.max_games, STORE.max_answers)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(5000):  # more games than it keeps, each as long as the page allows
            key = GameSettings.dp("prop11", 9.9, n=12).game_key(999_000 + i)
            store.put(f"{i:024x}", key, Progress((True,) * 300, 7))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(store) == 4096
    assert held < 3e6, f"{held / 1e6:.2f} MB"


def test_outside_a_browser_there_is_no_browser_id():
    assert browser_id() is None


@pytest.mark.parametrize("kwargs", [dict(max_games=0), dict(max_answers=0)])
def test_a_store_needs_room(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ProgressStore(**kwargs)
