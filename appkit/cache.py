"""The app's one caching mechanism: results shared by every session, bounded by size.

``appkit.cached(fn, *args, **kwargs)`` returns ``fn(*args, **kwargs)``, computed once per
distinct argument values for the whole server and kept in one least-recently-used store:

* **Bounded by memory, not only by count.** Every entry's size is measured when it is
  stored (NumPy arrays by ``nbytes``, DataFrames by ``memory_usage(deep=True)``, the rest --
  a chart's specification and tables included -- recursively); the store evicts the least recently used
  entries until all of them fit in :data:`appkit.settings.CACHE_BYTES` (256 MB by default),
  and each function also keeps at most ``max_entries`` entries. A stream of distinct links
  therefore cannot grow the server's memory without limit. A single result larger than a
  quarter of the budget is returned but not kept.
* **Computed once, also under a crowd.** When 30 students open the same link at once, one
  thread computes and the others wait for its result (no duplicate work).
* **Refusals are remembered too.** A ``ValueError`` (mipcore's way of refusing input, e.g. a
  rejected upload) is cached like a result and raised again on a hit, so a bad upload is
  parsed once, not on every rerun.
* **Shared, so read-only.** Results are shared between sessions: NumPy arrays are marked
  read-only (a chart is a frozen dataclass); pages must only read what they get.

Keys are built from the function's module and name and the argument values: hashable
values are used as they are; NumPy arrays, DataFrames, lists and dicts by their content.
There is no per-page decorator, so a page script creates nothing per rerun and the same
function called from two pages shares its entries. A page script's own function (the text of
a part that a change did not move) is named by its file, as Streamlit runs every page as
``__main__``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from enum import Enum
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from mipcore.plots.vega import VegaLiteChart

from . import settings, turns

__all__ = ["cached", "clear", "is_shared", "stats"]

T = TypeVar("T")

DEFAULT_MAX_ENTRIES = 64


@dataclasses.dataclass
class _Entry:
    value: Any
    error: BaseException | None
    nbytes: int
    fn: str


class _Store:
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.lock = threading.Lock()
        self.entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self.per_fn: dict[str, int] = {}
        self.inflight: dict[Hashable, threading.Event] = {}
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def _evict(self, key: Hashable) -> None:
        e = self.entries.pop(key)
        self.bytes -= e.nbytes
        self.per_fn[e.fn] -= 1
        for part in _parts(e.value):
            _ORIGIN.pop(id(part), None)

    def put(self, key: Hashable, entry: _Entry, max_entries: int) -> None:
        if entry.nbytes > self.max_bytes // 4:
            return  # too big to keep: returned to its caller only
        with self.lock:
            if key in self.entries:
                self._evict(key)
            self.entries[key] = entry
            self.bytes += entry.nbytes
            if entry.error is None:  # a result passed on to another cached call keys by origin
                for i, part in enumerate(_parts(entry.value)):
                    _ORIGIN[id(part)] = (("result", key, i), part)
            self.per_fn[entry.fn] = self.per_fn.get(entry.fn, 0) + 1
            if self.per_fn[entry.fn] > max_entries:
                oldest = next(k for k, e in self.entries.items() if e.fn == entry.fn)
                self._evict(oldest)
            while self.bytes > self.max_bytes and len(self.entries) > 1:
                self._evict(next(iter(self.entries)))


_STORE = _Store(settings.CACHE_BYTES)

# id(result) -> (its key, the result): a cached result handed to another cached call (a
# lesson's result to a chart builder) is keyed by where it came from, not by hashing its
# arrays again on every rerun. Results are immutable (frozen, read-only arrays) and the entry
# (also referenced here) keeps the object alive, so its id cannot be reused while it is known.
_ORIGIN: dict[int, tuple[Hashable, Any]] = {}


def _parts(value: Any) -> tuple[Any, ...]:
    """A result and, for a tuple result (``fig, table``), each of its elements that cannot
    change once shared: read-only arrays and frozen dataclasses (a chart). Scalars and
    strings are left out (cheap to key, and small ones are shared objects); lists, dicts and
    frames too (a page could change them, and then their origin would no longer say what
    they hold)."""
    parts = (value, *value) if isinstance(value, tuple) else (value,)
    return tuple(p for p in parts if _unchanging(p))


def _unchanging(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return not value.flags.writeable
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return bool(type(value).__dataclass_params__.frozen)  # type: ignore[attr-defined]
    return False


def is_shared(value: Any) -> bool:
    """Whether ``value`` is (part of) a result this cache holds: shared between sessions, so
    read-only, its tables included."""
    origin = _ORIGIN.get(id(value))
    return origin is not None and origin[1] is value


def _content_key(value: Any) -> Hashable:
    """A hashable key for an argument value (by content for arrays, frames and containers;
    by origin for a value that is itself a cached result)."""
    origin = _ORIGIN.get(id(value))
    if origin is not None and origin[1] is value:
        return origin[0]
    if isinstance(value, np.ndarray):
        raw = np.ascontiguousarray(value).view(np.uint8).data
        return (
            "ndarray",
            value.shape,
            value.dtype.str,
            hashlib.blake2b(raw, digest_size=16).hexdigest(),
        )
    if isinstance(value, pd.DataFrame):
        h = pd.util.hash_pandas_object(value, index=True).to_numpy()
        hexdigest = hashlib.blake2b(h.view(np.uint8).data, digest_size=16).hexdigest()
        return (
            "DataFrame",
            tuple(map(str, value.columns)),
            tuple(map(str, value.dtypes)),
            hexdigest,
        )
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_content_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _content_key(v)) for k, v in value.items())))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ("bytes", hashlib.blake2b(bytes(value), digest_size=16).hexdigest())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__qualname__,
            tuple(_content_key(getattr(value, f.name)) for f in dataclasses.fields(value)),
        )
    if isinstance(value, float) and value != value:  # NaN never equals itself
        return ("nan",)
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"appkit.cached: an argument of type {type(value).__name__} can't be used as a "
            "cache key; pass plain values, arrays, DataFrames or frozen dataclasses"
        ) from None
    if isinstance(value, Enum):
        return (type(value).__qualname__, value.value)
    return (type(value).__name__, value)


def _column_bytes(column: pd.Series) -> int:
    """A column's bytes, as ``memory_usage(deep=True)`` counts them, without its fixed cost
    (about 0.5 ms a frame, which made measuring a chart's four small tables cost more than
    drawing them): Python objects (and categories of them) counted deeply, every other
    array by its buffers."""
    if column.dtype == object or isinstance(column.dtype, pd.CategoricalDtype):
        return int(column.memory_usage(deep=True, index=False))
    return int(column.array.nbytes)


def _index_bytes(index: pd.Index) -> int:
    return int(index.memory_usage(deep=True))


#: Immutable values that hold nothing else: their size is their own, nothing to make read-only.
_SCALARS = frozenset(
    {bool, int, float, complex, str, bytes, type(None), np.bool_, np.float64, np.int64}
)


def _size(value: Any, seen: set[int] | None = None) -> int:
    """Bytes a cached value keeps alive (an estimate that never undercounts arrays)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + 112
    if isinstance(value, pd.DataFrame):
        return sum(_column_bytes(s) for _, s in value.items()) + _index_bytes(value.index) + 1000
    if isinstance(value, pd.Series):
        return _column_bytes(value) + _index_bytes(value.index) + 1000
    if isinstance(value, (str, bytes, bytearray)):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(_size(k, seen) + _size(v, seen) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        if all(type(v) in _SCALARS for v in value):  # a game's answers, a row of numbers
            return sys.getsizeof(value) + sum(map(sys.getsizeof, value))
        return sys.getsizeof(value) + sum(_size(v, seen) for v in value)
    if isinstance(value, VegaLiteChart):  # its spec is the spec memo's entry (counted there)
        return sys.getsizeof(value) + _size(value.data, seen) + _size(value.datasets, seen)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sys.getsizeof(value) + sum(
            _size(getattr(value, f.name), seen) for f in dataclasses.fields(value)
        )
    return sys.getsizeof(value)


def _share(value: Any, seen: set[int] | None = None) -> Any:
    """Make a result safe to share: arrays read-only (in place)."""
    seen = set() if seen is None else seen
    if id(value) in seen or type(value) in _SCALARS:
        return value
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (list, tuple)):
        for v in value:
            if type(v) not in _SCALARS:
                _share(v, seen)
    elif isinstance(value, dict):
        for v in value.values():
            _share(v, seen)
    elif isinstance(value, VegaLiteChart):  # a spec holds no array: only its tables matter
        _share(value.data, seen)
        _share(value.datasets, seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _share(getattr(value, f.name), seen)
    return value


def _name(fn: Callable[..., Any]) -> str:
    """The cache's name for ``fn``: its module and qualified name; for a function of a page
    script (Streamlit runs every page as a module named ``__main__``) its file instead, so two
    pages' ``_table`` do not share entries."""
    module = fn.__module__
    code = getattr(fn, "__code__", None)
    if module == "__main__" and code is not None:
        module = code.co_filename
    return f"{module}.{fn.__qualname__}"


def cached(
    fn: Callable[..., T], /, *args: Any, max_entries: int = DEFAULT_MAX_ENTRIES, **kwargs: Any
) -> T:
    """``fn(*args, **kwargs)``, computed once per distinct arguments for the whole server.

    See the module docstring. ``max_entries`` bounds how many results of ``fn`` are kept
    (the memory budget bounds all of them together). ``ValueError`` is cached and re-raised;
    any other exception is not cached.
    """
    name = _name(fn)
    key = (name, _content_key(args), _content_key(kwargs))
    store = _STORE
    while True:
        with store.lock:
            entry = store.entries.get(key)
            if entry is not None:
                store.entries.move_to_end(key)
                store.hits += 1
                break
            waiting = store.inflight.get(key)
            if waiting is None:
                event = store.inflight[key] = threading.Event()
                store.misses += 1
        if waiting is not None:
            with turns.step_aside():  # the thread computing it may be waiting for a turn
                waiting.wait()
            continue  # the other thread stored it (or failed: then compute here)
        try:
            try:
                value = fn(*args, **kwargs)
                entry = _Entry(_share(value), None, 0, name)
            except ValueError as exc:
                entry = _Entry(None, exc, sys.getsizeof(str(exc)) + 500, name)
            if entry.error is None:
                entry.nbytes = _size(entry.value)
            store.put(key, entry, max_entries)
        finally:
            with store.lock:
                store.inflight.pop(key, None)
            event.set()
        break
    if entry.error is not None:
        raise entry.error
    return entry.value


def clear() -> None:
    """Forget every cached result (tests, and a maintainer's "clear cache")."""
    with _STORE.lock:
        _ORIGIN.clear()
        _STORE.entries.clear()
        _STORE.per_fn.clear()
        _STORE.bytes = 0


def stats() -> dict[str, int]:
    """``entries``, ``bytes``, ``max_bytes``, ``hits``, ``misses`` of the shared store."""
    with _STORE.lock:
        return {
            "entries": len(_STORE.entries),
            "bytes": _STORE.bytes,
            "max_bytes": _STORE.max_bytes,
            "hits": _STORE.hits,
            "misses": _STORE.misses,
        }
