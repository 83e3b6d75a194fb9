"""appkit.controls (a page's controls as one table) and appkit.prose.say (sentences with numbers
as templates in the page's Markdown)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from appkit import controls, prose
from mipcore.plots.formatting import fmt_count


def _script() -> None:
    import streamlit as st

    from appkit import controls as c

    table = c.table(
        c.slider("eps", "ε", 0.0, 10.0, 1.0, 0.01, "%.2f", "privacy loss"),
        c.number("n", "records", 2, 100, 8, help="how many"),
        c.span("p", "percentiles", 0, 100, (10, 90), 1),
        c.choice(
            "mech", "Mechanism", ["mean", "prop11"], "mean", {"mean": "Noisy mean"}, radio=True
        ),
        c.multi("ds", "δs", [1e-5, 1e-6], [1e-5]),
        c.toggle("logd", "log δ", False, "a log scale"),
        c.text("name", "Name", "Ada", 24),
    )
    values = c.draw_all(table)
    values["eta"] = c.draw(c.slider("eta", "η", 0.0, 0.5, 0.1, 0.01), hi=0.25)
    st.write(repr(sorted(values.items())))


def test_a_table_draws_every_control_bound_to_the_link():
    at = AppTest.from_function(_script)
    at.query_params["eps"] = "2.5"
    at.query_params["mech"] = "prop11"
    at.run()
    assert not at.exception, at.exception
    assert at.slider(key="eps").value == 2.5 and at.slider(key="eps").help == "privacy loss"
    assert at.slider(key="eta").max == 0.25  # a row changed where it is drawn
    assert at.radio(key="mech").value == "prop11"
    assert at.radio(key="mech").options == ["Noisy mean", "prop11"]
    assert at.slider(key="p").value == (10, 90) and at.toggle(key="logd").value is False
    at.slider(key="eps").set_value(3.0).run()
    assert at.query_params["eps"] == "3"  # the link follows the control
    at.slider(key="eps").set_value(1.0).run()
    assert "eps" not in at.query_params  # the default leaves the link short
    bad = AppTest.from_function(_script)
    bad.query_params["eps"] = "99"
    bad.run()
    assert any("eps" in w.value or "ε" in w.value for w in bad.warning), "a refused link value"


def test_two_controls_may_not_share_a_key():
    with pytest.raises(ValueError, match="share the key 'eps'"):
        controls.table(controls.toggle("eps", "a"), controls.toggle("eps", "b"))


def test_a_template_fills_its_numbers_by_the_one_rounding_rule(monkeypatch):
    section = "With {setting}, right **{acc:pct}** of the time; η = {eta:num}, {eta:num3}; {n:count} people; {who:text}."
    monkeypatch.setattr(prose, "text", lambda page, name: section)
    said = prose.say(
        "eta_epsilon", "x", setting="ε = 1", acc=0.7310585, eta=0.2310585786, n=12345, who="*Ada*"
    )
    assert said.startswith("With ε = 1, right **73.1\u00a0%** of the time; η = 0.2311, 0.231;")
    assert f"{fmt_count(12345)} people" in said
    assert "\\*Ada\\*" in said  # text from a person is never Markdown
    with pytest.raises(KeyError):
        prose.say("eta_epsilon", "x", setting="s", acc=0.5, eta=0.1, n=1)  # "who" missing
    with pytest.raises(KeyError, match="fill no placeholder"):
        prose.say("eta_epsilon", "x", setting="s", acc=0.5, eta=0.1, n=1, who="x", extra=1)


def test_a_placeholder_may_read_a_field_of_a_result(monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setattr(
        prose, "text", lambda page, name: "from η = {row.low:num} to {row.high:pct}"
    )
    assert prose.placeholders("from {row.low:num} to {row.high:pct} at {n}") == {"row", "n"}
    said = prose.say("eta_epsilon", "x", row=SimpleNamespace(low=0.0121912, high=0.25))
    assert said == "from η = 0.01219 to 25\u00a0%"
    with pytest.raises(AttributeError):
        prose.say("eta_epsilon", "x", row=SimpleNamespace(low=0.1))
