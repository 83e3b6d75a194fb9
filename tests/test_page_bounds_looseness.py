"""AppTest for the page "How loose are the bounds?" (app_pages/bounds_looseness.py), run standalone."""

from __future__ import annotations

import re

import pagetools
import pytest
from pagetools import snapshot, texts
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key

PAGE = "app_pages/bounds_looseness.py"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=120, **params)


def assert_no_nan(at: AppTest) -> None:
    for t in texts(at):
        assert not re.search(r"\b(nan|inf|none)\b", t, flags=re.IGNORECASE), t
    for df in at.dataframe:
        assert "nan" not in df.value.to_string().lower()


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_loads_with_charts_and_downloads(default_page):
    at = default_page
    assert at.title[0].value == by_key("looseness").title
    assert len(at.get("plotly_chart")) >= 2
    assert len(at.get("download_button")) == len(at.get("plotly_chart"))
    assert not at.warning and not at.error
    assert_no_nan(at)
    body = " ".join(texts(at))
    assert "What to notice" in body and "n = 8" in body


def test_changing_n_changes_output(default_page):
    at = default_page
    before = snapshot(at)
    at.slider(key="n").set_value(6).run()
    assert not at.exception
    assert snapshot(at) != before
    assert "n = 6" in " ".join(texts(at))
    assert_no_nan(at)


def test_changing_target_changes_output():
    at = load()
    before = snapshot(at)
    at.slider(key="teta").set_value(0.25).run()
    assert not at.exception
    assert snapshot(at) != before
    assert_no_nan(at)


def test_other_controls_run_clean():
    at = load(M="4", const="7.5", logy="0", delta="0.2", n="4")
    assert not at.warning and not at.error
    assert len(at.get("plotly_chart")) >= 2
    assert_no_nan(at)


@pytest.mark.parametrize("bad", ["5", "18", "abc"])
def test_invalid_url_n_warns_and_uses_default(bad):
    at = load(n=bad)
    assert any("n=" in w.value and "default" in w.value.lower() for w in at.warning)
    assert at.slider(key="n").value == 8
    assert "n = 8" in " ".join(texts(at))
    assert len(at.get("plotly_chart")) >= 2
