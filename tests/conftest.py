"""Shared test set-up for MIP Explorer.

* Puts the repository root on ``sys.path`` so ``import mipcore`` / ``import appkit``
  work from a plain checkout (no ``pip install -e .`` needed).
* Reads the app's page list from ``app.py``'s ``PAGES`` literal (without running the
  app, whose import calls ``main()``), so a page added there is tested automatically.
* ``apptest``: a factory for ``AppTest`` runs of ``app.py`` on any page.
* Any test with an ``app_page`` argument is run once per page (home + every page in PAGES).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class AppPage:
    """One page of the app: ``script`` is None for the home page (a function page)."""

    name: str  # "home" or the PAGES key
    script: str | None  # path relative to app.py, e.g. "app_pages/eta_epsilon.py"
    title: str
    url_path: str  # "" for home

    def __str__(self) -> str:  # used in test ids
        return self.name


def read_pages(app_file: Path = APP) -> dict[str, tuple[str, str, str, str]]:
    """The ``PAGES`` dict of app.py, read from its source (app.py runs main() on import)."""
    tree = ast.parse(app_file.read_text(encoding="utf-8"), filename=str(app_file))
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == "PAGES" for t in targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"no top-level PAGES = {{...}} literal in {app_file}")


def app_pages() -> list[AppPage]:
    pages = [AppPage("home", None, "Home", "")]
    for name, (script, title, url_path, _icon) in read_pages().items():
        pages.append(AppPage(name, script, title, url_path))
    return pages


def pytest_generate_tests(metafunc):
    if "app_page" in metafunc.fixturenames:
        pages = app_pages()
        metafunc.parametrize("app_page", pages, ids=[p.name for p in pages])


@pytest.fixture(scope="session")
def declared_pages() -> dict[str, tuple[str, str, str, str]]:
    """app.py's PAGES: {name: (script, title, url_path, icon)}."""
    return read_pages()


@pytest.fixture
def apptest():
    """Factory: ``apptest(page=None, query=None)`` -> an ``AppTest`` of app.py, already run.

    ``page`` is an :class:`AppPage`, a script path ("app_pages/x.py") or None for home.
    ``query`` seeds ``st.query_params`` for the run on that page (as a shared link would).
    """
    from streamlit.testing.v1 import AppTest

    def make(page=None, query: dict[str, str] | None = None, timeout: float = 60):
        script = page.script if isinstance(page, AppPage) else page
        at = AppTest.from_file(str(APP), default_timeout=timeout)
        if script is not None:
            # switch_page needs one run first (st.navigation registers the pages).
            at.run()
            assert not at.exception, f"home page raised before switching: {at.exception}"
            at.switch_page(script)
            at.query_params.clear()  # a browser drops the query string on a page switch
        for key, value in (query or {}).items():
            at.query_params[key] = value
        return at.run()

    return make
