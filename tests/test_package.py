"""The package's public face: the contract names at the top level, no UI imports, one version."""

from __future__ import annotations

import importlib
import re
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


MIPCORE_MODULES = sorted(
    "mipcore." + str(p.relative_to(ROOT / "mipcore").with_suffix("")).replace("/", ".")
    for p in (ROOT / "mipcore").rglob("*.py")
    if p.name != "__init__.py"
)

# One fresh interpreter for both import checks below (each used to start its own, importing
# NumPy, SciPy, scikit-learn and mipcore): plotly and kaleido are unimportable from the start;
# every mipcore module is imported first and whether Streamlit came with them is printed; then
# every module of appkit and mipcore, and everything app.py and the page scripts import.
_IMPORTS = """
import ast, importlib, pathlib, pkgutil, sys

sys.modules["plotly"] = None  # import plotly -> ImportError, also from inside another module
sys.modules["kaleido"] = None

for m in MODULES:
    importlib.import_module(m)
print("streamlit imported by mipcore:", "streamlit" in sys.modules, flush=True)

import appkit, mipcore

for package in (appkit, mipcore):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(info.name)
# app.py and the page scripts run inside Streamlit: import what each of them imports (also
# inside a function), and the submodule an ``from a import b`` names.
for script in [pathlib.Path("app.py"), *sorted(pathlib.Path("app_pages").glob("*.py"))]:
    for node in ast.walk(ast.parse(script.read_text(), str(script))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            module = importlib.import_module(node.module)
            for alias in node.names:
                if not hasattr(module, alias.name):
                    importlib.import_module(f"{node.module}.{alias.name}")
loaded = sorted(m for m in sys.modules if m.startswith(("appkit", "mipcore", "app_pages")))
print(len(loaded))
"""


@pytest.fixture(scope="module")
def imports() -> subprocess.CompletedProcess:
    """The fresh interpreter of the two import checks, run once."""
    return subprocess.run(
        [sys.executable, "-c", f"MODULES = {MIPCORE_MODULES!r}\n{_IMPORTS}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_mipcore_never_imports_streamlit(imports):
    """Every mipcore module imports without Streamlit (checked in a fresh interpreter)."""
    said = [s for s in imports.stdout.splitlines() if s.startswith("streamlit imported by")]
    assert said == ["streamlit imported by mipcore: False"], imports.stderr[-3000:]


@pytest.mark.slow
def test_no_plotly(imports):
    """The app and mipcore need neither plotly nor kaleido: every module of appkit and mipcore,
    and everything app.py and each page script import, load with both made unimportable (in a
    fresh interpreter), and the requirements do not name them."""
    assert imports.returncode == 0, imports.stderr[-3000:]
    assert int(imports.stdout.split()[-1]) > 60  # the walk reached the modules
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for text in [
        *cfg["project"]["dependencies"],
        (ROOT / "requirements.txt").read_text(),
        (ROOT / "requirements-dev.txt").read_text(),
    ]:
        assert not re.search(r"^\s*(plotly|kaleido)\b", text, re.IGNORECASE | re.MULTILINE), text


def test_one_source_for_the_version():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in cfg["project"] and "version" in cfg["project"]["dynamic"]
    assert cfg["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mipcore.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{mipcore.__version__}]" in changelog  # Keep a Changelog: "## [0.2.0] - date"


MAX_DOCTEST_DIGITS = 13  # the last bits of log, exp and a sum's order differ between CPUs


def _doctest_floats():
    import doctest
    import re

    finder = doctest.DocTestFinder()
    for path in sorted((ROOT / "mipcore").rglob("*.py")):
        name = "mipcore." + str(path.relative_to(ROOT / "mipcore").with_suffix("")).replace(
            "/", "."
        )
        module = importlib.import_module(name.removesuffix(".__init__"))
        for test in finder.find(module):
            for example in test.examples:
                for number in re.findall(r"\d+\.\d+(?:e[-+]?\d+)?", example.want):
                    mantissa = number.split("e")[0].replace(".", "").lstrip("0")
                    yield test.name, example.source.strip(), number, len(mantissa)


def test_doctests_state_floats_to_the_digits_that_matter():
    """A doctest's expected float has at most 13 significant digits. The doctest NUMBER flag
    then compares at that precision, so the Examples pass on any processor; the 16-17 digits
    of one CPU's float64 (``1.0986122886681098`` for log 3, ``…096`` on another) do not."""
    found = list(_doctest_floats())
    assert len(found) > 50, "the scan found too few doctest floats to mean anything"
    long = [
        f"{n}: {src[:60]} -> {num}" for n, src, num, digits in found if digits > MAX_DOCTEST_DIGITS
    ]
    assert not long, "doctest outputs pinned to the last bits:\n" + "\n".join(long)
