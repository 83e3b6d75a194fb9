"""AppTest checks of appkit: URL-bound widgets, number formatting, guard, charts with CSV.

The URL behaviour under test is the one documented in ``appkit/state.py``:

1. on the first run, a widget is seeded from ``st.query_params[key]``; a missing
   value gives the default; an unparsable / out-of-range value gives the default
   and a warning sentence naming ``key=value`` and the default used;
2. after rendering, the widget's value is written back to the URL, and removed
   from it when equal to the default.
"""

from __future__ import annotations

import io
import math
import re
import textwrap

import pagetools
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from pagetools import unescaped
from streamlit.testing.v1 import AppTest

import appkit

HEADER = "import streamlit as st\nimport appkit\nappkit.messages()\n"


def run(body: str, query: dict | None = None) -> AppTest:
    """Run a small script (appkit imported, message area created) with a URL query."""
    at = AppTest.from_string(HEADER + textwrap.dedent(body), default_timeout=30)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def warnings(at: AppTest) -> list[str]:
    """The warnings as they read on screen (user-derived text is escaped in the source)."""
    return [unescaped(w.value) for w in at.warning]


SLIDER = """
v = appkit.url_slider("eta", "eta", min_value=0.0, max_value=0.5, default=0.1, step=0.005)
st.write(f"value={v!r}")
"""

INT_SLIDER = """
def even(n):
    if n % 2:
        raise ValueError("n must be even")
v = appkit.url_slider("n", "n", min_value=2, max_value=100, default=10, validate=even)
st.write(f"value={v!r}")
"""


def shown(at: AppTest) -> str:
    return [m.value for m in at.markdown if m.value.startswith("value=")][-1]


# --------------------------------------------------------------------------- url_slider


def test_slider_without_url_uses_default_and_keeps_url_clean():
    at = run(SLIDER)
    assert at.slider(key="eta").value == pytest.approx(0.1)
    assert shown(at) == "value=0.1"
    assert warnings(at) == []
    assert at.query_params == {}


def test_slider_is_seeded_from_url():
    at = run(SLIDER, {"eta": "0.3"})
    assert at.slider(key="eta").value == pytest.approx(0.3)
    assert shown(at) == "value=0.3"
    assert warnings(at) == []
    assert at.query_params == {"eta": "0.3"}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("zzz", "not a number"),
        ("", "not a number"),
        ("0.9", "out of range"),
        ("-0.1", "out of range"),
        ("nan", "not a finite number"),
        ("inf", "not a finite number"),
    ],
)
def test_slider_bad_url_value_warns_and_uses_default(raw, reason):
    at = run(SLIDER, {"eta": raw})
    assert at.slider(key="eta").value == pytest.approx(0.1)
    (text,) = warnings(at)
    assert f"eta={raw}" in text, text
    assert reason in text, text
    assert "from 0.0 to 0.5" in text, text
    assert "Using the default, 0.1." in text, text
    # The bad value is not left in the URL (the widget is at its default).
    assert "eta" not in at.query_params


def test_slider_repeated_url_key_warns():
    at = run(SLIDER, {"eta": ["0.2", "0.3"]})
    (text,) = warnings(at)
    assert "given more than once" in text and "eta=0.2,0.3" in text, text
    assert at.slider(key="eta").value == pytest.approx(0.1)


def test_warning_goes_to_message_area_above_the_widget():
    at = run(SLIDER, {"eta": "zzz"})
    first, second = at.main.children[0], at.main.children[1]
    # messages() is the first block on the page; the slider comes after it.
    assert type(first).__name__ == "Block" and [w.value for w in first.warning] == warnings(at)
    assert type(second).__name__ == "Slider"


def test_slider_value_is_written_back_and_removed_at_default():
    at = run(SLIDER)
    at.slider(key="eta").set_value(0.25).run()
    assert at.query_params == {"eta": "0.25"}
    assert shown(at) == "value=0.25"
    at.slider(key="eta").set_value(0.1).run()
    assert "eta" not in at.query_params
    assert warnings(at) == []


def test_url_is_read_only_on_first_run():
    at = run(SLIDER, {"eta": "0.3"})
    at.query_params["eta"] = "0.4"  # a later URL change does not override the widget
    at.run()
    assert at.slider(key="eta").value == pytest.approx(0.3)
    assert at.query_params == {"eta": "0.3"}


def test_integer_slider_parses_whole_numbers_only():
    at = run(INT_SLIDER, {"n": "40"})
    assert at.slider(key="n").value == 40
    assert shown(at) == "value=40"  # an int, not 40.0
    at = run(INT_SLIDER, {"n": "40.0"})
    assert shown(at) == "value=40"
    assert at.query_params == {"n": "40"}  # normalised
    at = run(INT_SLIDER, {"n": "3.5"})
    (text,) = warnings(at)
    assert "n=3.5" in text and "not a whole number" in text and "default, 10." in text, text


def test_slider_validate_hook_rejects_in_range_values():
    at = run(INT_SLIDER, {"n": "41"})
    (text,) = warnings(at)
    assert "n=41" in text and "n must be even" in text, text
    assert at.slider(key="n").value == 10


# --------------------------------------------------------------------------- url_number

NUMBER = """
v = appkit.url_number("k", "k", min_value=1, max_value=1000, default=20)
st.write(f"value={v!r}")
"""


def test_number_input_url_roundtrip():
    at = run(NUMBER, {"k": "300"})
    assert at.number_input(key="k").value == 300
    assert warnings(at) == []
    at = run(NUMBER, {"k": "5000"})
    (text,) = warnings(at)
    assert "k=5000" in text and "out of range" in text and "default, 20." in text, text
    at.number_input(key="k").set_value(7).run()
    assert at.query_params == {"k": "7"}
    at.number_input(key="k").set_value(20).run()
    assert at.query_params == {}


# --------------------------------------------------------------------------- url_select

SELECT = """
v = appkit.url_select("mech", "mech", ["laplace", "gauss", 3], default="laplace")
st.write(f"value={v!r}")
"""
RADIO = SELECT.replace('default="laplace")', 'default="laplace", widget="radio")')


def test_select_url_roundtrip():
    at = run(SELECT, {"mech": "gauss"})
    assert at.selectbox(key="mech").value == "gauss"
    assert at.query_params == {"mech": "gauss"}
    at = run(SELECT, {"mech": "3"})  # matched against str(option), returns the option itself
    assert shown(at) == "value=3"
    at = run(SELECT, {"mech": "Gauss"})
    (text,) = warnings(at)
    assert "mech=Gauss" in text and "not one of the choices" in text, text
    assert "laplace, gauss, 3" in text and "default, laplace." in text, text
    at.selectbox(key="mech").set_value("gauss").run()
    assert at.query_params == {"mech": "gauss"}
    at.selectbox(key="mech").set_value("laplace").run()
    assert at.query_params == {}


def test_radio_variant():
    at = run(RADIO, {"mech": "gauss"})
    assert at.radio(key="mech").value == "gauss"
    at.radio(key="mech").set_value("laplace").run()
    assert at.query_params == {}


# --------------------------------------------------------------------------- url_multiselect

MULTI = """
v = appkit.url_multiselect("ks", "ks", ["a", "b", "c", "d"], default=["a", "b"], max_selected=3)
st.write(f"value={v!r}")
"""


def test_multiselect_comma_list():
    at = run(MULTI, {"ks": "c,a"})
    assert at.multiselect(key="ks").value == ["c", "a"]
    assert shown(at) == "value=['c', 'a']"
    assert at.query_params == {"ks": "c,a"}
    at = run(MULTI, {"ks": " c , c ,d"})  # blanks trimmed, duplicates dropped
    assert at.multiselect(key="ks").value == ["c", "d"]
    assert warnings(at) == []
    at = run(MULTI, {"ks": ""})  # an explicitly empty selection is a valid, shareable state
    assert at.multiselect(key="ks").value == [] and warnings(at) == []


def test_multiselect_with_a_minimum_falls_back_when_emptied():
    at = run(MULTI.replace("max_selected=3)", "max_selected=3, min_selected=1)"))
    at.multiselect(key="ks").unselect("a").unselect("b").run()
    at.run()
    assert at.multiselect(key="ks").value == ["a", "b"]


@pytest.mark.parametrize(
    ("raw", "reason", "script"),
    [
        ("a,zz", "zz not among the choices", MULTI),
        (
            "",
            "needs at least 1",
            MULTI.replace("max_selected=3)", "max_selected=3, min_selected=1)"),
        ),
        ("a,b,c,d", "at most 3", MULTI),
    ],
)
def test_multiselect_bad_url(raw, reason, script):
    at = run(script, {"ks": raw})
    (text,) = warnings(at)
    assert f"ks={raw}" in text and reason in text, text
    assert "Using the default, a, b." in text, text
    assert at.multiselect(key="ks").value == ["a", "b"]


def test_multiselect_written_back():
    at = run(MULTI)
    assert at.query_params == {}
    at.multiselect(key="ks").select("d").run()
    assert at.query_params == {"ks": "a,b,d"}
    at.multiselect(key="ks").unselect("d").run()
    assert at.query_params == {}


# --------------------------------------------------------------------------- url_toggle

TOGGLE = """
v = appkit.url_toggle("log", "log", default=False)
st.write(f"value={v!r}")
"""


@pytest.mark.parametrize(
    ("raw", "value"), [("1", True), ("true", True), ("0", False), ("off", False)]
)
def test_toggle_from_url(raw, value):
    at = run(TOGGLE, {"log": raw})
    assert at.toggle(key="log").value is value
    assert warnings(at) == []
    assert at.query_params == ({"log": "1"} if value else {})  # normalised to 1, or dropped


def test_toggle_bad_url_and_write_back():
    at = run(TOGGLE, {"log": "maybe"})
    (text,) = warnings(at)
    assert "log=maybe" in text and "not 1 or 0" in text and "default, 0." in text, text
    assert at.toggle(key="log").value is False
    at.toggle(key="log").set_value(True).run()
    assert at.query_params == {"log": "1"}
    at.toggle(key="log").set_value(False).run()
    assert at.query_params == {}


# --------------------------------------------------------------------------- url_text

TEXT = """
v = appkit.url_text("values", "rdp", default="2: 0.5", max_chars=20)
st.write(f"value={v!r}")
"""


def test_text_from_url_round_trip_and_write_back():
    at = run(TEXT, {"rdp": "[x](https://e)"})
    assert at.text_input(key="rdp").value == "[x](https://e)" and warnings(at) == []
    at.text_input(key="rdp").input("4: 1").run()
    assert at.query_params == {"rdp": "4: 1"} and shown(at) == "value='4: 1'"
    at.text_input(key="rdp").input("2: 0.5").run()
    assert at.query_params == {}  # the default leaves the URL


def test_text_longer_than_the_box_takes_is_refused_with_a_sentence():
    at = run(TEXT, {"rdp": "2: 0.5, 4: 1, 8: 2, 16: 4"})
    (text,) = warnings(at)
    assert "rdp=2: 0.5, 4: 1, 8: 2, 16: 4" in text and "25 characters long" in text, text
    assert "at most 20 characters" in text and "default, 2: 0.5." in text, text
    assert at.text_input(key="rdp").value == "2: 0.5"
    at = run(TEXT, {"rdp": ["4: 1", "8: 2"]})
    (text,) = warnings(at)
    assert "given more than once" in text and at.text_input(key="rdp").value == "2: 0.5"


# --------------------------------------------------------------------------- url_range_slider

RANGE = """
v = appkit.url_range_slider("r", "r", min_value=0.0, max_value=1.0, default=(0.1, 0.4), step=0.05)
st.write(f"value={v!r}")
"""


def test_range_slider_from_url_and_back():
    at = run(RANGE, {"r": "0.2,0.6"})
    assert at.slider(key="r").value == pytest.approx((0.2, 0.6))
    assert shown(at) == "value=(0.2, 0.6)"
    assert at.query_params == {"r": "0.2,0.6"}
    at.slider(key="r").set_range(0.3, 0.5).run()
    assert at.query_params == {"r": "0.3,0.5"}
    at.slider(key="r").set_range(0.1, 0.4).run()
    assert at.query_params == {}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("0.6,0.2", "lo must be below hi"),
        ("0.2", "needs two values"),
        ("0.2,0.3,0.4", "needs two values"),
        ("0.2,2", "out of range"),
        ("a,b", "not a number"),
    ],
)
def test_range_slider_bad_url(raw, reason):
    at = run(RANGE, {"r": raw})
    (text,) = warnings(at)
    assert f"r={raw}" in text and reason in text and "default, 0.1, 0.4." in text, text
    assert at.slider(key="r").value == pytest.approx((0.1, 0.4))


def test_several_bad_parameters_give_one_warning_each():
    at = run(SLIDER + TOGGLE.replace('"log", "log"', '"log", "lg"'), {"eta": "x", "lg": "y"})
    texts = warnings(at)
    assert len(texts) == 2 and "eta=x" in texts[0] and "lg=y" in texts[1], texts


# --------------------------------------------------------------------------- fmt_num


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (None, "—"),
        (math.nan, "—"),
        (math.inf, "∞"),
        (-math.inf, "−∞"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.5, "0.5"),
        (1.0, "1"),
        (0.12345, "0.1235"),
        (-2.5, "-2.5"),
        (1e-4, "0.0001"),
        (1234.5678, "1235"),
        (9.87654e-5, "9.877 × 10⁻⁵"),
        (1e6, "1 × 10⁶"),
        (-3e-7, "-3 × 10⁻⁷"),
        (2.5e12, "2.5 × 10¹²"),
        (1e300, "1 × 10³⁰⁰"),
    ],
)
def test_fmt_num_examples(x, text):
    assert appkit.fmt_num(x) == text


def test_fmt_num_digits():
    assert appkit.fmt_num(math.pi, digits=2) == "3.1"
    assert appkit.fmt_num(math.pi * 1e-9, digits=2) == "3.1 × 10⁻⁹"
    assert appkit.fmt_num(2) == "2"  # ints accepted


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _parse_fmt(text: str) -> float:
    text = text.replace("−", "-")
    m = re.fullmatch(r"(-?[0-9.]+) × 10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", text)
    if m:
        return float(m.group(1)) * 10.0 ** int(m.group(2).translate(_SUPERSCRIPT))
    assert re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", text), f"not plain notation: {text!r}"
    return float(text)


def _check_fmt(x: float, digits: int) -> None:
    text = appkit.fmt_num(x, digits=digits)
    assert "nan" not in text.lower() and "inf" not in text.lower()
    assert "e" not in text, f"fmt_num({x!r}, digits={digits}) = {text!r} uses e-notation"
    back = _parse_fmt(text)
    assert back == pytest.approx(x, rel=0.51 * 10.0 ** (1 - digits), abs=1e-300)
    if 1e-4 <= abs(x) < 1e6 and abs(back) < 1e6:
        assert "×" not in text, text


def test_fmt_num_plain_range_has_no_e_notation():
    """Docstring: 'plain notation between 1e-4 and 1e6' (e.g. 123456 -> '123500', not '1.235e+05')."""
    for x in (12345.0, -54321.0, 123456.0, 999999.0):
        _check_fmt(x, 4)


@settings(max_examples=300, deadline=None)
@given(
    st_.floats(min_value=1.0, max_value=9.999999, exclude_max=True),
    st_.integers(min_value=-300, max_value=300),
    st_.booleans(),
    st_.integers(min_value=2, max_value=8),
)
def test_fmt_num_is_plain_or_times_ten_and_accurate(mantissa, exponent, negative, digits):
    """Plain notation between 1e-4 and 1e6, 'm × 10ᵉ' (superscript) outside; never 'e+05' or 'nan'.

    The printed value is x rounded to ``digits`` significant figures. Every decade
    from 1e-300 to 1e300 is drawn (a plain float strategy rarely hits 1e4..1e6).
    """
    x = (-1 if negative else 1) * mantissa * 10.0**exponent
    _check_fmt(x, digits)


# --------------------------------------------------------------------------- guard

GUARD = """
exc = st.session_state.get("exc", "none")
stop = st.session_state.get("stop", False)
with appkit.guard("The bound", stop=stop):
    st.write("inside")
    if exc == "value":
        raise ValueError("eta=2 is outside [0, 1/2]")
    if exc == "overflow":
        raise OverflowError("math range error")
    if exc == "zero":
        raise ZeroDivisionError("division by zero")
    if exc == "bug":
        raise KeyError("a bug in the page")
st.write("after")
"""


def run_guard(exc: str, stop: bool = False) -> AppTest:
    at = AppTest.from_string(HEADER + GUARD, default_timeout=30)
    at.session_state["exc"] = exc
    at.session_state["stop"] = stop
    return at.run()


def texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_guard_passes_through_without_error():
    at = run_guard("none")
    assert texts(at) == ["inside", "after"]
    assert not at.error and not at.exception


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        ("value", "eta=2 is outside [0, 1/2]"),
        ("overflow", "math range error"),
        ("zero", "division by zero"),
    ],
)
def test_guard_turns_domain_errors_into_a_sentence(exc, message):
    at = run_guard(exc)
    assert [e.value for e in at.error] == [f"The bound could not be computed: {message}"]
    assert not at.exception
    assert texts(at) == ["inside", "after"]  # the rest of the page still runs


def test_guard_stop_skips_the_rest():
    at = run_guard("value", stop=True)
    assert len(at.error) == 1 and not at.exception
    assert texts(at) == ["inside"]


def test_guard_lets_other_exceptions_propagate(monkeypatch):
    from streamlit import config

    # visitors see a redacted message (client.showErrorDetails = "none" in .streamlit/config.toml);
    # a maintainer's "full" shows what the guard let through
    monkeypatch.setattr(config, "get_option", _with_option(config.get_option, "full"))
    at = run_guard("bug")
    assert not at.error
    (exc,) = at.exception
    assert exc.proto.type == "KeyError" and "a bug in the page" in exc.message, exc
    assert texts(at) == ["inside"]


def _with_option(get_option, details):
    def get(key):
        return details if key == "client.showErrorDetails" else get_option(key)

    return get


def test_visitors_never_see_a_traceback():
    """The app's config hides exception details: a bug shows a short message, no code."""
    at = run_guard("bug")
    (exc,) = at.exception
    assert "a bug in the page" not in exc.message and not exc.stack_trace, exc
    assert "redacted" in exc.message


# --------------------------------------------------------------------------- chart + footer CSV

CHART = """
import numpy as np
import pandas as pd
from mipcore.plots.vega import VegaLiteChart
x = np.array([0.0, 0.5, 1.0, 2.0])
y = np.array([1.5, np.nan, np.inf, -np.inf])
page = appkit.page("eta_epsilon")
encoding = {f: {"field": f, "type": "quantitative"} for f in ("x", "y")}
fig = VegaLiteChart(
    spec={"title": "A title", "mark": "line", "encoding": encoding},
    data=pd.DataFrame({"x": x, "y": [1.5, 0.0, 0.0, 0.0]}),
    title="A title",
)
appkit.chart(fig, pd.DataFrame({"x": x, "y": y, "label": ["a", "b", None, "d"]}),
             "demo_data", key="demo", caption="A caption.")
appkit.finish(page)
"""


def test_chart_shows_chart_caption_and_its_clean_csv_in_the_footer(downloads):
    at = run(CHART)
    (chart,) = pagetools.vega_charts(at)
    spec, tables = chart
    assert spec["title"] == "A title" and spec["mark"] == "line"
    assert tables[""]["x"].tolist() == [0.0, 0.5, 1.0, 2.0]  # the chart's own table
    assert "A caption." in [c.value for c in at.caption]
    (button,) = pagetools.footer_csvs(at)
    assert "demo_data.csv" in button.label and "A title" in button.label  # the chart's title
    (call,) = [c for c in downloads if c.get("file_name") == "demo_data.csv"]
    assert call["mime"] == "text/csv"
    assert callable(call["data"]), "the CSV must be built on click, not on every rerun"
    text = call["data"]().decode("utf-8")
    assert "nan" not in text.lower() and "inf" not in text.lower(), text
    assert text.splitlines()[0] == "x,y,label"
    back = pd.read_csv(io.StringIO(text))
    assert back["x"].tolist() == [0.0, 0.5, 1.0, 2.0]
    assert back["y"].iloc[0] == 1.5 and back["y"].iloc[1:].isna().all()
    assert back["label"].tolist()[:2] == ["a", "b"] and pd.isna(back["label"].iloc[2])


def test_one_footer_section_for_all_charts_of_a_page():
    at = run(
        CHART.replace(
            "appkit.finish(page)",
            "appkit.chart(fig, pd.DataFrame({'x': x}), 'second', key='d2')\nappkit.finish(page)",
        )
    )
    labels = [b.label for b in pagetools.footer_csvs(at)]
    assert len(labels) == 2 and any("second.csv" in b for b in labels)
    (exp,) = [e for e in at.get("expander") if "Data behind the charts" in e.label]
    assert "2 CSV files" in exp.label


LIVE = """
import numpy as np
import pandas as pd
from mipcore.plots.vega import VegaLiteChart
page = appkit.page("eta_epsilon")
main = st.container()
st.markdown("static text below the live part")

def _live():
    with main:
        x = appkit.url_slider("x", "x", min_value=0.0, max_value=1.0, default=0.5, step=0.1)
        st.markdown(f"value={x}")
        points = pd.DataFrame({"x": [0, x], "y": [0, 1]})
        encoding = {f: {"field": f, "type": "quantitative"} for f in ("x", "y")}
        fig = VegaLiteChart(spec={"mark": "line", "encoding": encoding}, data=points)
        appkit.chart(fig, points[["x"]], "live_data", key="live")

appkit.live(page, _live)
"""


def test_live_draws_its_part_in_place_and_the_footer_last_with_one_csv_per_chart():
    at = run(LIVE)
    texts = [m.value for m in at.markdown]
    assert texts.index("value=0.5") < texts.index("static text below the live part")
    at.slider(key="x").set_value(0.8).run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert "value=0.8" in texts and texts.count("static text below the live part") == 1
    (button,) = pagetools.footer_csvs(at)  # one chart, one CSV: not one more per run
    assert "live_data.csv" in button.label
    # the footer (divider, CSV list, link) comes after the static text, at the page's end
    main = at.main
    kinds = [type(n).__name__ for n in main]
    assert kinds.index("Divider") > max(
        i
        for i, n in enumerate(main)
        if getattr(n, "value", None) == "static text below the live part"
    ), kinds


# --------------------------------------------------------------------------- round trip

ALL_WIDGETS = SLIDER + TOGGLE + MULTI + RANGE.replace('"r", "r"', '"r", "rng"') + SELECT


def _state(at: AppTest) -> list[str]:
    """What the page got from each url_* call (each snippet writes ``value=...``)."""
    return [m.value for m in at.markdown if m.value.startswith("value=")]


@pytest.mark.parametrize(
    "move",
    [
        lambda at: at.slider(key="eta").set_value(0.5),
        lambda at: at.slider(key="eta").set_value(0.0),
        lambda at: at.toggle(key="log").set_value(True),
        lambda at: at.multiselect(key="ks").unselect("a").select("d").select("c"),
        lambda at: at.multiselect(key="ks").unselect("a").unselect("b"),  # emptied by the user
        lambda at: at.slider(key="rng").set_range(0.0, 1.0),
        lambda at: at.selectbox(key="mech").set_value(3),
    ],
    ids=[
        "slider-max",
        "slider-min",
        "toggle-on",
        "multi-more",
        "multi-empty",
        "range-full",
        "select-int",
    ],
)
def test_a_shared_link_reproduces_the_view_without_warnings(move):
    """Whatever state the widgets can be put in, the URL they write reopens that view."""
    at = run(ALL_WIDGETS)
    move(at).run()
    assert not at.exception
    link = dict(at.query_params)
    fresh = run(ALL_WIDGETS, link)
    assert warnings(fresh) == [], f"the link {link} warns when opened: {warnings(fresh)}"
    assert _state(fresh) == _state(at)


def test_chart_refuses_anything_but_a_vega_lite_chart():
    with pytest.raises(TypeError, match=r"draws a VegaLiteChart .*, not a dict"):
        appkit.chart({"data": [], "layout": {}})  # a Plotly figure's dict, say


# --------------------------------------------------------------------------- cached charts

_BUILDS = []


def _builder(n, *, colour="red"):
    """A chart builder that counts its calls (module level: the cache keys on the function)."""
    from mipcore.plots.vega import VegaLiteChart

    _BUILDS.append((n, colour))
    spec = {"mark": {"type": "bar", "color": colour}, "encoding": {"y": {"field": "n"}}}
    return VegaLiteChart(spec=spec, data=pd.DataFrame({"n": [n]})), {"n": n}


def test_cached_charts_are_built_once_per_argument_values():
    appkit.cache.clear()
    _BUILDS.clear()
    a = appkit.cached(_builder, 3, colour="blue")
    b = appkit.cached(_builder, 3, colour="blue")
    assert a[0] is b[0] and _BUILDS == [(3, "blue")]  # the same object, built once
    c = appkit.cached(_builder, 4, colour="blue")
    d = appkit.cached(_builder, 3, colour="green")
    assert c[0] is not a[0] and d[0] is not a[0]
    assert _BUILDS == [(3, "blue"), (4, "blue"), (3, "green")]
    assert c[0].data["n"].tolist() == [4] and d[0].spec["mark"]["color"] == "green"


LAWS_ROUNDS = """
from mipcore.game import GameSettings, game_model, game_state, release_laws
from mipcore.plots import game_vega
page = appkit.page("play")
model = appkit.cached(game_model, GameSettings())
laws = appkit.cached(release_laws, model)
k = st.number_input("answered", 0, 10, 0, key="k")
state = appkit.cached(game_state, model, 4, (True,) * k, 10)
fig, table = appkit.cached(game_vega.laws_vega, laws, state)
appkit.chart(fig, table, "laws", key="laws")
"""


def test_a_shared_charts_unchanged_table_is_converted_once(monkeypatch):
    """appkit.chart sends a cached chart's tables as Arrow bytes converted once per table:
    the game's laws, the same table in every round, are converted in the first round only;
    each round's small tables are new and converted; what the chart draws is its tables."""
    from appkit import internals

    appkit.cache.clear()
    converted: list[tuple[str, ...]] = []
    real = internals.arrow_bytes

    def counting(table):
        converted.append(tuple(table.columns))
        return real(table)

    monkeypatch.setattr(internals, "arrow_bytes", counting)
    at = run(LAWS_ROUNDS)
    laws = ("release", "density", "name")
    assert converted.count(laws) == 1 and len(converted) == 4
    for k in (1, 2):
        at.number_input(key="k").set_value(k).run()
        assert not at.exception
    assert converted.count(laws) == 1 and len(converted) == 4 + 3 + 3
    ((_, tables),) = pagetools.vega_charts(at)
    from mipcore.game import GameSettings, game_model, game_state, release_laws
    from mipcore.plots import game_vega

    model = game_model(GameSettings())
    state = game_state(model, 4, (True, True), 10)
    fig, _ = game_vega.laws_vega(release_laws(model), state)
    for name, table in fig.datasets.items():
        pd.testing.assert_frame_equal(tables[name], table, check_dtype=False)


def test_a_chart_built_on_every_run_is_sent_as_its_tables(monkeypatch):
    """A chart that is not a cached result may be any table a page made: it is converted on
    every run, never kept by identity (a page could change its table before the next run)."""
    import importlib

    page_module = importlib.import_module("appkit.page")  # the module, not appkit.page()
    monkeypatch.setattr(page_module, "_arrow", lambda table: pytest.fail("kept"))
    at = run(
        CHART.replace(
            "data=pd.DataFrame", "datasets={'t': pd.DataFrame({'x': x})}, data=pd.DataFrame"
        )
    )
    ((_, tables),) = pagetools.vega_charts(at)
    assert tables["t"]["x"].tolist() == [0.0, 0.5, 1.0, 2.0]
    shared = appkit.cached(_builder, 3, colour="blue")[0]
    assert appkit.cache.is_shared(shared) and not appkit.cache.is_shared(
        _builder(3, colour="blue")[0]
    )


def test_the_link_to_this_view_is_plain_text_with_the_query():
    """The footer shows this view's link as plain text (st.text: shown as typed, and no code
    block, whose syntax highlighter is a 1.6 MB download on a page's first load)."""
    import pagetools

    at = pagetools.load("app_pages/eta_epsilon.py", eps="2.5")
    assert not [t for t in at.text if "eps=" in t.value], "the folded link is drawn when opened"
    section = pagetools.unfold(at, "Link to this view")
    links = [t.value for t in section.text if "eps=" in t.value]
    assert len(links) == 1 and "eps=2.5" in links[0], [t.value for t in at.text]
    assert [b.label for b in section.button] == ["Reset this page to its defaults"]
    assert not at.code


def test_markdown_table_shows_every_cell_as_text():
    """Every Markdown or HTML character of a header or cell is backslash-escaped: a row splits
    into exactly its cells on the unescaped pipes, and each cell reads back as given."""
    import re

    from pagetools import unescaped

    from appkit.tables import markdown_table

    crafted = {
        "name [x](https://example.com)": ["<img src=x onerror=alert(1)>", "`code` | pipe"],
        "value": [1.5, float("nan")],
    }
    text = markdown_table(crafted, right=["value"])
    lines = text.splitlines()
    assert len(lines) == 4 and lines[1] == "| :-- | --: |"
    rows = [re.split(r"(?<!\\)\|", line)[1:-1] for line in (lines[0], *lines[2:])]
    assert all(len(r) == 2 for r in rows)
    shown = [[unescaped(c).strip() for c in r] for r in rows]
    assert shown == [
        ["name [x](https://example.com)", "value"],
        ["<img src=x onerror=alert(1)>", "1.5"],
        ["`code` | pipe", ""],
    ]
    for cell in (c for r in rows for c in r):
        assert not re.search(r"(?<!\\)[<>\[\]()`*_|!]", cell), cell  # nothing left active


@pytest.mark.parametrize(
    ("data", "right", "message"),
    [({}, (), "at least one column"), ({"a": [1]}, ("b",), "right=")],
)
def test_markdown_table_refuses_what_it_cannot_show(data, right, message):
    from appkit.tables import markdown_table

    with pytest.raises(ValueError, match=message):
        markdown_table(data, right=right)


def test_freeze_imports_freezes_once_per_new_import_and_leaves_later_objects_collectable():
    """appkit.heap: after a freeze, Streamlit's full collection after each run walks only
    what was created since; it freezes again only when a module was imported."""
    import gc
    import sys
    import types

    from appkit import heap

    heap.freeze_imports()  # whatever this worker imported so far
    assert heap.freeze_imports() is False  # nothing new: no collection, no freeze
    frozen = gc.get_freeze_count()
    assert frozen > 10_000  # the imported modules' objects
    assert len(gc.get_objects()) < frozen / 10  # what a full collection still walks

    name = "_appkit_heap_probe"
    sys.modules[name] = types.ModuleType(name)
    try:
        assert heap.freeze_imports() is True
        assert gc.get_freeze_count() > frozen
        assert heap.freeze_imports() is False
    finally:
        del sys.modules[name]

    class Node:
        pass

    a, b = Node(), Node()  # a reference cycle made after the freeze is still collected
    a.other, b.other = b, a
    probe = __import__("weakref").ref(a)
    del a, b
    gc.collect()
    assert probe() is None


def test_import_soon_imports_once_in_the_background(monkeypatch, tmp_path):
    """appkit.heap.import_soon: a module not yet imported is imported by a background thread,
    once per process; asked again (or already imported) nothing starts; one that fails to
    import is left to the code that needs it."""
    import sys
    import threading

    from appkit import heap

    monkeypatch.setattr(heap, "_soon", set())
    (tmp_path / "_soon_probe.py").write_text("import time\ntime.sleep(0.2)\nVALUE = 42\n")
    (tmp_path / "_soon_broken.py").write_text("raise RuntimeError('broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("_soon_probe", "_soon_broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    before = set(threading.enumerate())
    assert heap.import_soon("_soon_probe", "_soon_broken") is True
    assert heap.import_soon("_soon_probe") is False  # asked for already: no second thread
    assert heap.import_soon("sys") is False  # imported already
    (thread,) = set(threading.enumerate()) - before
    import _soon_probe  # waits for the background import (the import lock), never twice

    assert _soon_probe.VALUE == 42
    thread.join(5)
    assert not thread.is_alive() and thread.name == "import-soon"
    assert "_soon_broken" not in sys.modules
    with pytest.raises(RuntimeError, match="broken"):
        import _soon_broken  # noqa: F401


def test_the_app_imports_altair_after_its_first_run(monkeypatch):
    from pagetools import APP

    from appkit import heap

    calls = []
    monkeypatch.setattr(heap, "import_soon", lambda *names: calls.append(names))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert calls == [("altair",)]


def test_the_app_freezes_its_imports_on_a_run(monkeypatch):
    import gc

    from pagetools import APP

    from appkit import heap

    gc.unfreeze()  # as in a process that has not run the app yet
    monkeypatch.setattr(heap, "_frozen_at", 0)
    assert gc.get_freeze_count() == 0
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert gc.get_freeze_count() > 10_000


def _draw_a_shared_chart() -> None:
    import json

    import pandas as pd
    import streamlit as st

    from appkit.page import chart
    from mipcore.plots.vega import VegaLiteChart

    spec = {
        "mark": "point",
        "encoding": {
            "x": {"field": "x", "type": "quantitative"},
            "color": {"field": "x", "type": "nominal", "legend": {"title": None}, "title": None},
        },
    }
    fig = VegaLiteChart(spec=spec, data=pd.DataFrame({"x": [1.0, 2.0]}))
    before = json.dumps(fig.spec, sort_keys=True)
    chart(fig, key="a")
    chart(fig, key="b")
    st.write("unchanged" if json.dumps(fig.spec, sort_keys=True) == before else "CHANGED")


def test_drawing_a_shared_chart_never_changes_its_specification():
    """A cached chart's specification is shared by every session: what Streamlit changes when
    it draws one (the top level, a top-level colour legend's None title) is drawn from a copy
    of its own (appkit.page._own_copy), the rest is only read."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_draw_a_shared_chart).run()
    assert not at.exception, at.exception
    assert [m.value for m in at.markdown] == ["unchanged"]
    assert len(at.get("vega_lite_chart")) == 2
