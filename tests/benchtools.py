"""A script of ``benchmarks/`` loaded as a module for its tests.

The benchmarks are scripts, not a package (each puts its own folder on ``sys.path`` to import
its neighbours), so a test loads one by its path: once per test process, registered as
``mipb_<name>`` (dataclasses need their module registered).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as the module ``mipb_<name>`` (loaded once per process)."""
    module_name = f"mipb_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module
