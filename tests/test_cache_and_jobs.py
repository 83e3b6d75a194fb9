"""appkit's one caching mechanism: bounded by memory, single-flight, refusals cached, results
passed on keyed by origin. (The heavy-job runner: tests/test_jobs.py.)"""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import pytest

from appkit import cache
from mipcore.plots.vega import VegaLiteChart

CALLS: list = []


def _counted(x, *, scale=1.0):
    CALLS.append((x, scale))
    return np.full(4, x * scale)


def _big(i: int, nbytes: int):
    CALLS.append(i)
    return np.zeros(nbytes // 8)


def _refuse(x):
    CALLS.append(x)
    raise ValueError(f"x={x} is refused")


def _chart(n: int):
    CALLS.append(n)
    table = pd.DataFrame({"x": np.arange(float(n)), "label": [f"point {i}" for i in range(n)]})
    return VegaLiteChart(spec={"mark": "point", "encoding": {"x": {"field": "x"}}}, data=table)


def _rows(chart: VegaLiteChart) -> int:
    CALLS.append("rows")
    assert chart.data is not None
    return len(chart.data)


def _slow(x):
    CALLS.append(x)
    time.sleep(0.2)
    return x


@pytest.fixture(autouse=True)
def fresh():
    cache.clear()
    CALLS.clear()
    yield
    cache.clear()


def test_computed_once_per_distinct_arguments_and_shared_read_only():
    a = cache.cached(_counted, 2.0, scale=3.0)
    b = cache.cached(_counted, 2.0, scale=3.0)
    assert a is b and CALLS == [(2.0, 3.0)]
    cache.cached(_counted, 2.0, scale=4.0)
    cache.cached(_counted, 2.5, scale=3.0)
    assert len(CALLS) == 3
    with pytest.raises(ValueError):  # shared between sessions: never writable
        a[0] = 1.0


def test_two_page_scripts_functions_of_one_name_do_not_share_entries():
    # Streamlit runs every page script as a module named __main__: two pages' _table must be
    # told apart by their files.
    made = []
    for page in ("one.py", "two.py"):
        space: dict = {"__name__": "__main__"}
        exec(compile(f"def _table(x):\n    return ({page!r}, x)\n", page, "exec"), space)
        made.append(space["_table"])
    assert [f.__module__ for f in made] == ["__main__", "__main__"]
    assert cache.cached(made[0], 1) == ("one.py", 1)
    assert cache.cached(made[1], 1) == ("two.py", 1)
    assert cache.cached(made[0], 1) == ("one.py", 1)


def test_arrays_and_frames_are_keyed_by_content():
    x = np.arange(5.0)
    cache.cached(_counted, float(x.sum()))
    df1 = pd.DataFrame({"a": [1.0, 2.0]})
    df2 = pd.DataFrame({"a": [1.0, 2.0]})
    assert cache._content_key(df1) == cache._content_key(df2)
    assert cache._content_key(df1) != cache._content_key(pd.DataFrame({"a": [1.0, 2.5]}))
    assert cache._content_key(np.arange(3)) != cache._content_key(np.arange(3.0))
    with pytest.raises(TypeError, match="can't be used as a cache key"):
        cache._content_key(object.__new__(type("Unhashable", (), {"__hash__": None})))


def test_memory_budget_evicts_least_recently_used(monkeypatch):
    store = cache._Store(max_bytes=10 * 2**20)
    monkeypatch.setattr(cache, "_STORE", store)
    for i in range(30):  # 30 distinct results of 1 MiB into a 10 MiB budget
        cache.cached(_big, i, 2**20)
    s = cache.stats()
    assert s["bytes"] <= 10 * 2**20 and s["entries"] < 30
    assert s["bytes"] >= 8 * 2**20  # it does keep what fits
    CALLS.clear()
    cache.cached(_big, 29, 2**20)  # the most recent is still there
    assert CALLS == []
    cache.cached(_big, 0, 2**20)  # the oldest was evicted
    assert CALLS == [0]


def test_max_entries_per_function(monkeypatch):
    monkeypatch.setattr(cache, "_STORE", cache._Store(max_bytes=2**30))
    for i in range(10):
        cache.cached(_counted, float(i), max_entries=3)
    assert cache.stats()["entries"] == 3


def test_a_result_too_large_to_keep_is_returned_not_kept(monkeypatch):
    monkeypatch.setattr(cache, "_STORE", cache._Store(max_bytes=4 * 2**20))
    out = cache.cached(_big, 1, 2 * 2**20)  # above a quarter of the budget
    assert out.nbytes == 2 * 2**20 and cache.stats()["entries"] == 0


def test_refusals_are_cached_and_raised_again():
    for _ in range(3):
        with pytest.raises(ValueError, match="x=7 is refused"):
            cache.cached(_refuse, 7)
    assert CALLS == [7]


def test_charts_are_sized_by_their_tables_and_passed_on_by_origin():
    """A cached chart counts against the memory budget with its tables, and handed to another
    cached call it is keyed by where it came from (a frozen dataclass: it cannot change)."""
    small, big = cache._size(_chart(10)), cache._size(_chart(20_000))
    assert big - small >= 20_000 * 8  # the table's floats, at least
    chart = cache.cached(_chart, 1000)
    assert cache.stats()["bytes"] >= chart.data.memory_usage(deep=True).sum()
    CALLS.clear()
    assert cache.cached(_rows, chart) == cache.cached(_rows, chart) == 1000
    assert CALLS == ["rows"]
    assert cache._content_key(chart) == cache._content_key(cache.cached(_chart, 1000))


def test_a_charts_shared_spec_is_not_counted_again_nor_walked():
    """A chart's specification is the spec memo's own entry, shared by every chart of its
    look: a cached chart counts its tables only (not the spec again), and making it safe to
    share walks its tables, not the spec's hundreds of nodes."""
    from mipcore.plots.vega import VegaLiteChart

    table = pd.DataFrame({"x": np.arange(100, dtype=float)})
    big_spec = {"mark": "point", "layer": [{"n": i, "deep": {"k": [i] * 50}} for i in range(200)]}
    chart = VegaLiteChart(spec={"mark": "point"}, data=table)
    huge = VegaLiteChart(spec=big_spec, data=table)
    assert cache._size(huge) == cache._size(chart)
    walked: list[object] = []
    real = cache._share

    def counting(value, seen=None):
        walked.append(value)
        return real(value, seen)

    import unittest.mock

    with unittest.mock.patch.object(cache, "_share", counting):
        counting(huge)
    assert len(walked) < 10, len(walked)
    arrays = VegaLiteChart(spec={"mark": "point"}, datasets={"t": table})
    cache._share(arrays)  # (a DataFrame's arrays are pandas' own: nothing to lock)
    assert arrays.datasets["t"] is table


def _frames() -> dict[str, pd.DataFrame]:
    rows = 50
    return {
        "numbers": pd.DataFrame({"x": np.arange(rows, dtype=float), "n": np.arange(rows)}),
        "text": pd.DataFrame({"name": [f"curve {i % 3}" for i in range(rows)]}),
        "objects": pd.DataFrame({"o": pd.Series([{"k": i} for i in range(rows)], dtype=object)}),
        "categories": pd.DataFrame({"c": pd.Categorical([f"c{i % 4}" for i in range(rows)])}),
        "nullable": pd.DataFrame({"i": pd.array([*range(rows - 1), None], dtype="Int64")}),
        "dates": pd.DataFrame({"t": pd.date_range("2026-01-01", periods=rows)}),
        "text_index": pd.DataFrame({"x": np.ones(rows)}, index=[f"row {i}" for i in range(rows)]),
        "two_level_index": pd.DataFrame(
            {"x": np.ones(rows)},
            index=pd.MultiIndex.from_arrays([np.arange(rows) % 5, [f"r{i}" for i in range(rows)]]),
        ),
    }


@pytest.mark.parametrize("kind", list(_frames()))
def test_a_table_is_sized_as_pandas_counts_it_deeply(kind):
    """A cached table counts what ``memory_usage(deep=True)`` counts (Python objects deeply,
    every other column by its buffers), computed column by column without its fixed cost."""
    frame = _frames()[kind]
    assert cache._size(frame) == int(frame.memory_usage(deep=True).sum()) + 1000
    for name in frame.columns:
        column = frame[name]
        assert cache._size(column) == int(column.memory_usage(deep=True)) + 1000


def test_single_flight_under_a_crowd():
    out = []
    threads = [
        threading.Thread(target=lambda: out.append(cache.cached(_slow, 5))) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [5] * 8 and CALLS == [5]  # eight sessions, one computation


# --------------------------------------------------------------------------- jobs


def test_a_cached_result_passed_on_is_keyed_by_origin_not_rehashed(monkeypatch):
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Lesson:
        xs: np.ndarray

    calls = {"lesson": 0, "figure": 0}

    def lesson(n):
        calls["lesson"] += 1
        return Lesson(np.arange(float(n)))

    def figure(result):
        calls["figure"] += 1
        return float(result.xs.sum())

    res = cache.cached(lesson, 1000)
    hashed = []
    real = cache.hashlib.blake2b
    monkeypatch.setattr(cache.hashlib, "blake2b", lambda *a, **k: hashed.append(1) or real(*a, **k))
    assert cache.cached(figure, res) == cache.cached(figure, res) == 499500.0
    assert calls == {"lesson": 1, "figure": 1}
    assert hashed == []  # the lesson's arrays were not hashed again
    # an equal result that is not the cached object is keyed by content, and still correct
    assert cache.cached(figure, Lesson(np.arange(1000.0))) == 499500.0
    assert hashed  # hashed this time
    # once the lesson's entry is gone, its object is keyed by content again
    cache.clear()
    assert cache._ORIGIN == {}


def _a_list():
    return [1, 2]


def _a_scalar():
    return 7


def _an_array():
    return np.ones(3)


def test_mutable_and_scalar_results_are_not_keyed_by_origin():
    for fn in (_a_list, _a_scalar, _an_array):
        cache.cached(fn)
    kinds = sorted(type(v[1]).__name__ for v in cache._ORIGIN.values())
    assert kinds == ["ndarray"]  # arrays are made read-only when cached: kept
