"""AppTest checks of app.py's home page (the default page of st.navigation)."""

from __future__ import annotations

import pagetools
import pytest

from appkit import registry
from mipcore.bounds import epsilon_from_eta, eta_from_epsilon


def home_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def bars(at) -> list[float]:
    """The home chart's bars (accuracy in %), from the table the Vega-Lite chart draws."""
    ((spec, tables),) = pagetools.vega_charts(at)
    assert spec["transform"][0] == {"calculate": "100 * datum.accuracy", "as": "percent"}
    return [100 * a for a in tables[""]["accuracy"]]


def test_home_loads_with_chart_and_data(apptest):
    at = apptest()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["MIP Explorer"]
    assert not at.get("plotly_chart")  # the home chart is Vega-Lite: no Plotly chunk to load
    ((spec, tables),) = pagetools.vega_charts(at)
    assert spec["title"] == "How often can an attacker be right about membership?"
    assert tables[""]["who"].iloc[0] == "Blind guess"
    acc = 100 * (0.5 + float(eta_from_epsilon(1.0)))
    assert bars(at) == pytest.approx([50.0, acc, 100.0])
    labels = [b.label for b in pagetools.footer_csvs(at)]
    assert any("attacker_accuracy.csv" in label for label in labels), labels
    assert not at.warning and not at.error
    assert "With ε = 1, no attacker" in home_text(at) and "73.1 %" in home_text(at)
    assert at.query_params == {}


def test_slider_changes_text_chart_and_url(apptest):
    at = apptest()
    at.slider(key="eps").set_value(3.0).run()
    assert not at.exception
    text = home_text(at)
    acc = 0.5 + float(eta_from_epsilon(3.0))
    assert "With ε = 3," in text and f"{100 * acc:.1f} %" in text, text
    assert bars(at) == pytest.approx([50.0, 100 * acc, 100.0])
    assert at.query_params == {"eps": "3"}


def test_eps_zero_is_blind_guessing(apptest):
    at = apptest()
    at.slider(key="eps").set_value(0.0).run()
    assert not at.exception
    assert "no attacker beats a coin flip" in home_text(at)
    assert bars(at) == pytest.approx([50.0, 50.0, 100.0])


def test_url_sets_eps(apptest):
    at = apptest(query={"eps": "2.5"})
    assert not at.exception and not at.warning
    assert at.slider(key="eps").value == pytest.approx(2.5)
    assert "With ε = 2.5," in home_text(at)


def test_old_eta_links_open_the_matching_eps(apptest):
    at = apptest(query={"eta": "0.25"})
    assert not at.exception and not at.warning
    eps = float(epsilon_from_eta(0.25))
    assert at.slider(key="eps").value == pytest.approx(round(eps / 0.05) * 0.05)
    assert any("η = 0.25" in i.value for i in at.info)


@pytest.mark.parametrize("raw", ["zzz", "11", "-1", "nan"])
def test_invalid_url_warns_and_uses_default(apptest, raw):
    at = apptest(query={"eps": raw})
    assert not at.exception
    (warning,) = at.warning
    assert "eps" in warning.value and "Using the default, 1" in warning.value, warning.value
    assert "With ε = 1," in home_text(at)
    assert "eps" not in at.query_params


def test_a_crafted_link_cannot_put_markdown_into_the_warning(apptest):
    raw = "x` [Official privacy notice: click](https://example.com) `"
    at = apptest(query={"eps": raw})
    (warning,) = at.warning
    # every Markdown-active character arrives escaped: the link cannot render as a link
    assert "](https" not in warning.value and r"\]\(https\:" in warning.value, warning.value


def test_home_links_each_audience_to_its_first_page(apptest):
    """One link per audience (every page is in the sidebar's sections, not repeated here)."""
    import app

    at = apptest()
    links = [
        link.proto.page
        for link in at.get("page_link")
        if "in presenter mode" not in link.proto.label  # the teacher's path, below
    ]
    expected = [registry.by_key(key).url_path for _who, key, _why in app.AUDIENCES]
    assert links == expected
    assert all(p in {q.url_path for q in registry.PAGES} for p in links)


# --------------------------------------------------------------------------- the teacher's path


def test_home_offers_a_50_minute_class_in_order(apptest):
    import app

    at = apptest()
    assert not at.exception
    assert [e.label for e in at.expander if e.label.startswith("Teach a ")] == [
        "Teach a 50-minute class"
    ]
    assert sum(step.minutes for step in app.LESSON) == 50
    links = [e for e in at.get("page_link") if "in presenter mode" in e.proto.label]
    linked = [step for step in app.LESSON if registry.by_key(step.page).script is not None]
    assert [link.proto.page for link in links] == [
        registry.by_key(step.page).url_path for step in linked
    ]
    text = home_text(at)
    for i, step in enumerate(app.LESSON, start=1):
        assert f"**{i}. {registry.by_key(step.page).title}** ({step.minutes} min)" in text
        assert step.question in text and step.question.endswith("?")
    for link, step in zip(links, linked, strict=True):
        query = dict(pair.split("=") for pair in link.proto.query_string.split("&"))
        assert query["present"] == "1"
        assert {k: query[k] for k in step.params} == step.params
    # the game's link fixes one game number, the same on every rerun of this session
    (game,) = [link for link in links if link.proto.page == registry.by_key("play").url_path]
    query = dict(pair.split("=") for pair in game.proto.query_string.split("&"))
    assert query["fixed"] == "1" and 1 <= int(query["seed"]) <= 999_999
    students = [t.value for t in at.text if "/play_attacker?" in t.value]
    assert len(students) == 1 and f"seed={query['seed']}" in students[0]
    assert "present" not in students[0]  # the students' phones need no presenter mode
    at.run()
    (again,) = [
        e
        for e in at.get("page_link")
        if "in presenter mode" in e.proto.label and e.proto.page == "play_attacker"
    ]
    assert again.proto.query_string == game.proto.query_string


SLOW_LINKS = {"noise_vs_eta"}  # > 3 s: the page computes Figure 1 at the lesson's settings


def _linked_steps() -> list:
    import app

    return [
        pytest.param(s, marks=pytest.mark.slow) if s.page in SLOW_LINKS else s
        for s in app.LESSON
        if registry.by_key(s.page).script is not None
    ]


@pytest.mark.parametrize("lesson", _linked_steps(), ids=lambda s: s.page)
def test_every_lesson_link_opens_its_page_as_set(apptest, lesson):
    """Each link's settings are accepted by its page (no refusal sentence) and kept."""
    spec = registry.by_key(lesson.page)
    query = {**lesson.params, "present": "1"}
    if lesson.page == "play":
        query["seed"] = "4242"
    at = apptest(spec.script, query=query)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.warning, [w.value for w in at.warning]  # no setting refused
    (presenter,) = [t for t in at.toggle if t.label.startswith("Presenter mode")]
    assert presenter.value is True
    for key, value in lesson.params.items():  # kept, or dropped from the link as the default
        assert at.query_params.get(key, value) == value, (key, dict(at.query_params))
    if lesson.page == "play":  # the teacher's fixed game: the button replays it
        labels = [b.label for b in at.button]
        assert "Replay this game" in labels and "New game" not in labels, labels
