"""AppTest checks of app.py's home page (the default page of st.navigation)."""

from __future__ import annotations

import json

import pytest


def home_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def bars(at) -> list[float]:
    """The x values of the home chart's bar trace (accuracy in %)."""
    (chart,) = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    return spec["data"][0]["x"]


def test_home_loads_with_chart_and_download(apptest):
    at = apptest()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["MIP Explorer"]
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and charts[0].key == "home_chart"
    assert bars(at) == pytest.approx([50.0, 60.0, 100.0])
    (button,) = at.get("download_button")
    assert "attacker_accuracy.csv" in button.label
    assert not at.warning and not at.error
    assert "With η = 0.100" in home_text(at)
    assert at.query_params == {}


def test_slider_changes_text_chart_and_url(apptest):
    at = apptest()
    at.slider(key="eta").set_value(0.3).run()
    assert not at.exception
    text = home_text(at)
    assert "With η = 0.300" in text and "**80.0%**" in text, text
    assert "With η = 0.100" not in text
    assert bars(at) == pytest.approx([50.0, 80.0, 100.0])
    assert at.query_params == {"eta": "0.3"}


def test_eta_half_says_guarantee_is_empty(apptest):
    at = apptest()
    at.slider(key="eta").set_value(0.5).run()
    assert not at.exception
    assert "the guarantee is empty" in home_text(at)


def test_eta_zero_is_blind_guessing(apptest):
    at = apptest()
    at.slider(key="eta").set_value(0.0).run()
    assert not at.exception
    text = home_text(at)
    assert "With η = 0.000" in text and "**50.0%**" in text, text


def test_url_sets_eta(apptest):
    at = apptest(query={"eta": "0.25"})
    assert not at.exception and not at.warning
    assert at.slider(key="eta").value == pytest.approx(0.25)
    assert "With η = 0.250" in home_text(at)


@pytest.mark.parametrize("raw", ["zzz", "0.9", "-1", "nan"])
def test_invalid_url_warns_and_uses_default(apptest, raw):
    at = apptest(query={"eta": raw})
    assert not at.exception
    (warning,) = at.warning
    assert f"eta={raw}" in warning.value and "Using the default, 0.1" in warning.value, (
        warning.value
    )
    assert "With η = 0.100" in home_text(at)
    assert "eta" not in at.query_params


def test_page_links_for_every_page(apptest, declared_pages):
    at = apptest()
    pages = declared_pages
    assert pages, "app.py declares no pages"
    links = {link.proto.page: link.proto.label for link in at.get("page_link")}
    expected = {url: title for _script, title, url, _icon in pages.values()}
    assert links == expected
