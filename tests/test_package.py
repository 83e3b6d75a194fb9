"""The package's public face: the contract names at the top level, no UI imports, one version."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import mipcore

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(mipcore._CONTRACT))
def test_contract_names_are_importable_from_the_package(name):
    value = getattr(mipcore, name)
    module = importlib.import_module(f"mipcore.{mipcore._CONTRACT[name]}")
    assert value is getattr(module, name) and callable(value)


def test_unknown_names_are_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = mipcore.nope


def test_mipcore_never_imports_streamlit():
    """Every mipcore module imports without Streamlit (checked in a fresh interpreter)."""
    modules = sorted(
        "mipcore." + str(p.relative_to(ROOT / "mipcore").with_suffix("")).replace("/", ".")
        for p in (ROOT / "mipcore").rglob("*.py")
        if p.name != "__init__.py"
    )
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "assert 'streamlit' not in sys.modules, 'streamlit imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=300)


def test_one_source_for_the_version():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in cfg["project"] and "version" in cfg["project"]["dynamic"]
    assert cfg["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mipcore.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## {mipcore.__version__}" in changelog
