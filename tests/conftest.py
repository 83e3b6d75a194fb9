"""Shared test set-up for MIP Explorer.

* Puts the repository root on ``sys.path`` so ``import mipcore`` / ``import appkit``
  work from a plain checkout (no ``pip install -e .`` needed).
* Reads the app's page list from :mod:`appkit.registry`, so a page added there is tested
  automatically.
* ``apptest``: a factory for ``AppTest`` runs of ``app.py`` on any page.
* Any test with an ``app_page`` argument is run once per page (home + every page in PAGES).
* ``chromium_path`` and ``browser``: Debian's Chromium (``/usr/bin/chromium``) driven through
  Playwright's sync API, one per test process for the whole session (Playwright refuses a
  second sync instance while one is open, so every browser test shares this one). Without
  Chromium or Playwright the browser tests skip, except under ``CI=true``, where they fail.
* Markers: every test that runs the app through ``AppTest`` (the ``apptest`` fixture, the
  loaders of ``tests/pagetools.py``, ``AppTest`` itself, or a helper or fixture of its module
  that does) is marked ``apptest``; a test that uses the ``browser`` fixture without the
  ``browser`` marker is a usage error (the quick loop deselects browser tests by marker).
* ``AppTest`` scans every installed distribution for Streamlit components once per ``AppTest``
  (~0.2 s of CPU each, some 800 times in a run); the scan's answer -- a property of the installed
  packages, which no test changes -- is computed once per test process.
* Hypothesis: the ``"ci"`` profile (derandomized: the same examples on every run, no
  deadline, failing examples printed as reproducible blobs) when ``CI=true``, else ``"dev"``
  (random examples, no deadline: this machine's load makes timings meaningless). Tests set
  ``max_examples`` but never their own seed or ``derandomize``.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
# the test servers' sitecustomize and the scripts some tests serve: not test modules
collect_ignore = ["serverdiag", "racewindow", "apps"]

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class AppPage:
    """One page of the app: ``script`` is None for the home page (a function page)."""

    name: str  # the registry key ("home", "eta_epsilon", ...)
    script: str | None  # path relative to app.py, e.g. "app_pages/eta_epsilon.py"
    title: str
    url_path: str  # "" for home

    def __str__(self) -> str:  # used in test ids
        return self.name


def app_pages() -> list[AppPage]:
    """Every page of the app, from the importable registry (a new page is tested automatically)."""
    from appkit.registry import PAGES

    return [AppPage(p.key, p.script, p.title, p.url_path) for p in PAGES]


def _code_names(code) -> set[str]:
    """The global and attribute names a code object (and the functions nested in it) use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _runs_apptest(func, seen: set) -> bool:
    """Whether ``func`` runs the app through AppTest: it names ``AppTest``, calls a loader of
    pagetools (``pagetools.load``/``unfold``), or calls a function of its own module or of
    pagetools that does."""
    func = getattr(func, "__wrapped__", func)
    code = getattr(func, "__code__", None)
    if code is None or func in seen:
        return False
    seen.add(func)
    names = _code_names(code)
    if "AppTest" in names or ("pagetools" in names and names & {"load", "unfold"}):
        return True
    module = sys.modules.get(func.__module__)
    for name in names & set(vars(module) if module else ()):
        obj = getattr(module, name)
        here = getattr(obj, "__module__", None) in (func.__module__, "pagetools")
        if callable(obj) and here and _runs_apptest(obj, seen):
            return True
    return False


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "browser"
        ):
            raise pytest.UsageError(f"{item.nodeid} uses the browser fixture: mark it `browser`")
        func = getattr(item, "function", None)
        if func is None:
            continue
        fixtures = [
            d.func
            for defs in item._fixtureinfo.name2fixturedefs.values()
            for d in defs
            if d.argname != "request"
        ]
        seen: set = set()
        if any(_runs_apptest(f, seen) for f in [func, *fixtures]):
            item.add_marker(pytest.mark.apptest)


@pytest.fixture(scope="session", autouse=True)
def _one_component_scan():
    """AppTest's scan for installed Streamlit components, done once per test process."""
    if "streamlit" in sys.modules:
        import functools

        from streamlit.components.v2 import manifest_scanner

        scan = manifest_scanner.scan_component_manifests
        cached = functools.cache(scan)
        manifest_scanner.scan_component_manifests = lambda *a, **k: list(cached(*a, **k))
        yield
        manifest_scanner.scan_component_manifests = scan
    else:
        yield


def pytest_generate_tests(metafunc):
    if "app_page" in metafunc.fixturenames:
        pages = app_pages()
        metafunc.parametrize("app_page", pages, ids=[p.name for p in pages])


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


# --------------------------------------------------------------------------- a real browser

IN_CI = os.environ.get("CI") == "true"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _unavailable(reason: str):
    """Skip on a developer machine; fail under CI=true."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: the browser tests must run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    if not path:
        _unavailable(f"Chromium not found at {CHROMIUM}; install Debian's chromium package")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright Python package is not installed (requirements-dev.txt)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_page(browser):
    """``new_page(viewport=None, **options)``: a page in a context of its own (its own cookies,
    so its own Streamlit session and client), 1280×900 unless told; ``options`` go to
    Playwright's ``new_context`` (e.g. ``has_touch=True`` for a phone's taps)."""
    contexts = []

    def make(viewport: dict[str, int] | None = None, **options):
        context = browser.new_context(
            viewport=viewport or {"width": 1280, "height": 900}, **options
        )
        contexts.append(context)
        pg = context.new_page()
        pg.js_errors = []
        pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
        return pg

    yield make
    for c in contexts:
        c.close()


@pytest.fixture
def downloads(monkeypatch):
    """Every ``st.download_button`` call's arguments, in order (a download's data may be a
    callable, built only on click: a test calls it)."""
    import streamlit as st_mod

    calls: list[dict] = []
    original = st_mod.download_button

    def spy(label, data, *args, **kwargs):
        calls.append({"label": label, "data": data, **kwargs})
        return original(label, data, *args, **kwargs)

    monkeypatch.setattr(st_mod, "download_button", spy)
    return calls
