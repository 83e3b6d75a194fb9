"""Module-level functions for the job-runner tests (a job's process imports them by name)."""

from __future__ import annotations

import os
import time


def square_with_progress(x: float, *, progress=None) -> dict:
    for i in range(3):
        if progress is not None:
            progress((i + 1) / 3, f"step {i + 1} of 3")
        time.sleep(0.05)
    return {"value": x * x, "pid": os.getpid()}


def refuse(x: float) -> float:
    raise ValueError(f"x={x!r} is refused")


def _write_pid(pid_file: str) -> None:
    """Write this process's pid whole: a test that sees the file exist reads the pid, never an
    empty file (open-then-write let a reader in between)."""
    tmp = f"{pid_file}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(str(os.getpid()))
    os.replace(tmp, pid_file)


def sleep_forever(pid_file: str) -> None:
    _write_pid(pid_file)
    while True:
        time.sleep(0.05)


def wait_for_gate(pid_file: str, gate: str) -> int:
    """Write this process's pid, then wait until the file ``gate`` exists; return 42."""
    _write_pid(pid_file)
    while not os.path.exists(gate):
        time.sleep(0.02)
    return 42


def hog(megabytes: int, pid_file: str) -> int:
    """Hold ``megabytes`` MB of touched memory, growing 20 MB at a time, then wait forever."""
    import numpy as np

    _write_pid(pid_file)
    held = []
    for _ in range(megabytes // 20):
        held.append(np.ones(20 * 2**20 // 8))
        time.sleep(0.01)
    while True:
        time.sleep(0.05)


def burn(seconds: float, tag: str = "") -> str:
    """Keep one core busy for ``seconds`` of this process's CPU time; return ``tag``."""
    end = time.process_time() + seconds
    x = 0
    while time.process_time() < end:
        x += 1
    return tag
