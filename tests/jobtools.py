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


def sleep_forever(pid_file: str) -> None:
    with open(pid_file, "w") as f:
        f.write(str(os.getpid()))
    while True:
        time.sleep(0.05)
