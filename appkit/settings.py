"""Server-wide settings, read once from the environment (one place for every ceiling).

A public server keeps the defaults. A researcher running the app on a laptop may raise
them, e.g. ``MIP_EXPLORER_WORK_LIMIT=20 streamlit run app.py`` (see the README):

* ``MIP_EXPLORER_WORK_LIMIT`` -- a factor on every ceiling of work one request may ask for
  (the covariance experiment's size, audit trials, …). Default 1.
* ``MIP_EXPLORER_CACHE_MB`` -- the memory all cached results may hold together. Default 256.
* ``MIP_EXPLORER_HEAVY_JOBS`` -- how many long computations run at once (each in its own
  process); the others wait in line. Short ones have one more process of their own, so they
  never wait behind a long run. Default 1 on a machine with 2 cores or fewer, else 2.
* ``MIP_EXPLORER_JOB_MB`` -- the memory (resident, its libraries included) one computation's
  process may hold; a run that needs more is stopped with a sentence. Default 1024.
* ``MIP_EXPLORER_JOB_MINUTES`` -- the longest one computation may run, times the work limit;
  a longer run is stopped with a sentence. Default 20.
* ``MIP_EXPLORER_RUNS_AT_ONCE`` -- how many sessions' script runs compute at once in one app
  process; the others wait their turn (:mod:`appkit.turns`). Default 1.

Class mode's storage (:mod:`appkit.classroom`):

* ``MIP_EXPLORER_DATABASE_URL`` -- a SQLAlchemy URL of the database that keeps the classes,
  e.g. ``postgresql+psycopg://user:password@host/mip`` when several app processes serve one
  course. Default: none, i.e. a SQLite file in the data folder (nothing else to run).
* ``MIP_EXPLORER_DATA_DIR`` -- the folder of that SQLite file (``classes.sqlite3``). Default
  ``$XDG_CACHE_HOME/mip-explorer``, i.e. ``~/.cache/mip-explorer``.
* ``MIP_EXPLORER_CLASS_HOURS`` -- how long a class is kept after it is created; then it and
  every nickname and answer in it are deleted. Default 24 (at least 0.1, at most 720).
* ``MIP_EXPLORER_PUBLIC_URL`` -- the address students' phones open, e.g.
  ``http://192.168.1.20:8501`` or ``https://mip.example.org``: the class's join link and QR
  code are built on it. Default: none, i.e. the address the teacher's browser uses (a warning
  says when that is this computer itself, ``localhost``, which no phone can open).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

__all__ = [
    "CACHE_BYTES",
    "CLASS_SECONDS",
    "DATABASE_URL",
    "DATA_DIR",
    "HEAVY_JOBS",
    "JOB_BYTES",
    "JOB_SECONDS",
    "PUBLIC_URL",
    "RUNS_AT_ONCE",
    "WORK_LIMIT",
]


def _number(name: str, default: float, lo: float, hi: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    if math.isnan(value):  # "nan" parses, and would pass through min/max as nan
        return default
    return min(max(value, lo), hi)


def _text(name: str) -> str | None:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return None
    return raw.strip()


def _data_dir() -> Path:
    explicit = _text("MIP_EXPLORER_DATA_DIR")
    if explicit is not None:
        return Path(explicit).expanduser()
    cache = _text("XDG_CACHE_HOME")
    base = Path(cache).expanduser() if cache is not None else Path.home() / ".cache"
    return base / "mip-explorer"


WORK_LIMIT: float = _number("MIP_EXPLORER_WORK_LIMIT", 1.0, 1.0, 10_000.0)
CACHE_BYTES: int = int(_number("MIP_EXPLORER_CACHE_MB", 256.0, 16.0, 65_536.0) * 2**20)
HEAVY_JOBS: int = int(
    _number("MIP_EXPLORER_HEAVY_JOBS", 1.0 if (os.cpu_count() or 1) <= 2 else 2.0, 1.0, 64.0)
)
JOB_BYTES: int = int(_number("MIP_EXPLORER_JOB_MB", 1024.0, 16.0, 1_048_576.0) * 2**20)
JOB_SECONDS: float = _number("MIP_EXPLORER_JOB_MINUTES", 20.0, 0.05, 100_000.0) * 60.0 * WORK_LIMIT
RUNS_AT_ONCE: int = int(_number("MIP_EXPLORER_RUNS_AT_ONCE", 1.0, 1.0, 10_000.0))
DATABASE_URL: str | None = _text("MIP_EXPLORER_DATABASE_URL")
DATA_DIR: Path = _data_dir()
CLASS_SECONDS: float = _number("MIP_EXPLORER_CLASS_HOURS", 24.0, 0.1, 720.0) * 3600.0
PUBLIC_URL: str | None = _text("MIP_EXPLORER_PUBLIC_URL")
