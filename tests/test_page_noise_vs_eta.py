"""AppTest for the page "Noise vs η (Figure 1)" (app_pages/noise_vs_eta.py, whose code is in
app_pages/_noise_vs_eta_page.py).

The verdicts on the paper's claims are recomputed here with
:func:`mipcore.lessons.figure1.paper_claims`, not copied from the page.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pagetools
import pytest
from pagetools import unescaped
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key
from mipcore.lessons import figure1

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "app_pages/noise_vs_eta.py"
PRESET = figure1.PAPER_PRESET


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=60, **params)


def texts(at: AppTest) -> list[str]:
    return pagetools.texts(at, tables=True)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def coords(values) -> list[float]:
    """Trace coordinates from a chart spec: a list, or Plotly's base64 typed array."""
    if isinstance(values, dict):  # {"dtype": "f8", "bdata": "..."}
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return list(values)


def snapshot(at: AppTest) -> tuple:
    return tuple(c.proto.spec for c in at.get("plotly_chart")), tuple(texts(at))


def table(at: AppTest):
    (df,) = at.dataframe
    return df.value


def assert_clean(at: AppTest) -> None:
    pagetools.assert_clean(at, banned=("nan", "inf", "none"), errors=True)


def verdicts(at: AppTest) -> list[tuple[bool, str]]:
    """(holds, text) of each claim line of the "Paper vs this computation" box."""
    return [
        (m.value.startswith("✅"), m.value) for m in at.markdown if m.value.startswith(("✅", "❌"))
    ]


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_page_loads_with_two_charts_table_and_maths(default_page):
    at = default_page
    assert at.title[0].value == by_key("noise_vs_eta").title
    assert len(at.get("plotly_chart")) >= 2
    assert len(at.get("download_button")) >= 2
    assert list(table(at)["n"]) == ["30", "36", "42", "48"]
    (exp,) = [e for e in at.expander if e.label == "The maths"]
    assert len(exp.latex) >= 4
    assert not at.warning and not at.error
    assert any("Showing the settings of the paper's Figure 1" in c.value for c in at.caption)
    assert_clean(at)


def test_default_chart_is_the_paper_figure(default_page):
    noise, ratio = charts(default_page)[:2]
    names = {t.get("name") for t in noise["data"]}
    assert {"n = 30", "n = 36", "n = 42", "n = 48"} <= names
    dashes = {t["line"]["dash"] for t in noise["data"] if t.get("mode") == "lines" and "line" in t}
    assert {"solid", "dot"} <= dashes
    # the paper-like cap: y from 0 to the MIP scale at η = 0.01, (6.16/0.01)^2 σ with σ ≈ 1
    lo, hi = noise["layout"]["yaxis"]["range"]
    assert lo == 0 and hi == pytest.approx(616.0**2, rel=1e-3)
    assert noise["layout"]["xaxis"]["range"] == pytest.approx([0.01, 0.49])
    # n = 30's crossover (η ≈ 0.0122) is the only one inside [0.01, 0.49]
    (cross,) = [t for t in noise["data"] if str(t.get("name", "")).startswith("crossover")]
    assert len(cross["x"]) == 1 and 0.01 < cross["x"][0] < 0.02
    assert ratio["layout"]["yaxis"]["type"] == "log"


def test_ratio_chart_marks_equal_noise_crossovers_and_peaks(default_page):
    noise, ratio = charts(default_page)[:2]
    (line,) = ratio["layout"]["shapes"]  # y = 1 across the whole x-axis, dashed
    assert line["type"] == "line" and line["xref"] == "x domain" and line["yref"] == "y"
    assert (line["x0"], line["x1"], line["y0"], line["y1"]) == (0, 1, 1, 1)
    assert line["line"]["dash"] == "dash"
    (label,) = ratio["layout"]["annotations"]
    assert label["text"] == "equal noise: above, MIP is cheaper" and label["y"] == 1
    names = [t.get("name") for t in ratio["data"]]
    assert names[:4] == ["n = 30", "n = 36", "n = 42", "n = 48"]
    assert {"crossover", "largest ratio"} <= set(names)
    # black legend entries explain the line styles of the noise chart
    assert {"MIP (Theorem 9 / Cor. 14): solid", "DP (Laplace + Theorem 4): dotted"} <= {
        t.get("name") for t in noise["data"]
    }
    # curves stay light (a chart is serialised on every rerun) but smooth
    for fig in (noise, ratio):
        for t in fig["data"]:
            if t.get("mode") == "lines" and t["x"] != [None]:
                assert 150 <= len(coords(t["x"])) == len(coords(t["y"])) <= 202


def test_cached_figures_serve_exactly_their_own_state(default_page):
    """The cached figures hand st.plotly_chart a dict computed once: it must be the one
    Plotly computes from the figure's state, and what the page sent."""
    import plotly.graph_objects as go
    import plotly.io as pio

    from app_pages import _noise_vs_eta_page as impl

    view = impl._view(
        tuple(PRESET["ns"]),
        PRESET["eta_min"],
        PRESET["eta_max"],
        PRESET["M"],
        PRESET["constant"],
        False,
        PRESET["log_y"],
        True,
    )  # the default page's
    for fig, sent in zip((view.fig_noise, view.fig_ratio), charts(default_page), strict=True):
        fresh = go.Figure.to_dict(fig)  # recomputed from the figure's state
        assert fig.to_dict() == fresh
        assert json.loads(pio.to_json(fresh, validate=False)) == sent


def test_a_failing_reading_is_a_sentence_and_the_page_goes_on(monkeypatch):
    from app_pages import _noise_vs_eta_page as impl

    def refuse(*args, **kwargs):
        raise ValueError("no reading for these settings")

    monkeypatch.setattr(impl, "_reading", refuse)
    impl._view.clear()  # the views cached by other tests were built with the real reading
    try:
        at = load(n="50,52")
        assert any(
            "The reading could not be computed: no reading for these settings" in e.value
            for e in at.error
        )
        assert len(at.get("plotly_chart")) >= 2 and list(table(at)["n"]) == ["50", "52"]
        assert len(verdicts(at)) == 3  # the rest of the page still renders
    finally:
        impl._view.clear()  # drop the view cached with the refusing reading


CHANGES = {
    "n": lambda at: at.multiselect(key="n").set_value([30, 48]),
    "M": lambda at: at.selectbox(key="M").set_value(3),
    "c": lambda at: at.radio(key="c").set_value(7.5),
    "eta": lambda at: at.slider(key="eta").set_range(0.05, 0.4),
    "logy": lambda at: at.toggle(key="logy").set_value(True),
    "logx": lambda at: at.toggle(key="logx").set_value(True),
    "cap": lambda at: at.toggle(key="cap").set_value(False),
}


@pytest.mark.parametrize("control", list(CHANGES))
def test_each_control_changes_the_output(control):
    at = load()
    before_charts, before_texts = snapshot(at)
    CHANGES[control](at).run()
    assert_clean(at)
    after_charts, after_texts = snapshot(at)
    assert after_charts[0] != before_charts[0], f"{control} left the noise chart unchanged"
    if control in ("n", "M", "c", "eta", "logx"):
        assert after_charts[1] != before_charts[1], f"{control} left the ratio chart unchanged"
    if control in ("n", "M", "c", "eta"):
        assert after_texts != before_texts
    if control in ("n", "M", "c"):
        assert at.query_params.get(control), "the URL should carry the non-default value"


def test_axis_toggles_set_log_axes():
    at = load()
    at.toggle(key="logy").set_value(True).run()
    at.toggle(key="logx").set_value(True).run()
    noise, ratio = charts(at)[:2]
    assert noise["layout"]["yaxis"]["type"] == "log"
    assert noise["layout"]["xaxis"]["type"] == "log"
    assert ratio["layout"]["xaxis"]["type"] == "log"
    at.toggle(key="cap").set_value(False).run()
    noise = charts(at)[0]
    assert "range" not in noise["layout"]["yaxis"]  # no cap: the whole DP range shows


def test_preset_button_restores_the_paper_settings():
    at = load()
    at.multiselect(key="n").set_value([60, 100]).run()
    at.selectbox(key="M").set_value(4).run()
    at.radio(key="c").set_value(7.5).run()
    at.slider(key="eta").set_range(0.1, 0.3).run()
    at.toggle(key="logy").set_value(True).run()
    at.toggle(key="logx").set_value(True).run()
    at.toggle(key="cap").set_value(False).run()
    assert not any("Showing the settings" in c.value for c in at.caption)
    at.button(key="preset").click().run()
    assert_clean(at)
    assert at.multiselect(key="n").value == list(PRESET["ns"])
    assert at.selectbox(key="M").value == PRESET["M"]
    assert at.radio(key="c").value == PRESET["constant"]
    assert at.slider(key="eta").value == pytest.approx((PRESET["eta_min"], PRESET["eta_max"]))
    assert at.toggle(key="logy").value is PRESET["log_y"]
    assert at.toggle(key="logx").value is False
    assert at.toggle(key="cap").value is True
    assert any("Showing the settings of the paper's Figure 1" in c.value for c in at.caption)
    assert not dict(at.query_params), "the preset is the default view: a short URL"


@pytest.mark.parametrize("M,constant", [(2, 6.16), (3, 6.16)])
def test_claims_box_matches_mipcore(M, constant):
    at = load()
    if M != 2:
        at.selectbox(key="M").set_value(M).run()
    expected = figure1.paper_claims(PRESET["eta_min"], PRESET["eta_max"], M, constant)
    shown = verdicts(at)
    assert len(shown) == 3
    for (holds, text), claim in zip(shown, expected, strict=True):
        assert holds is claim.holds, text
        assert claim.statement in text and claim.evidence in text
    if M == 2:  # the computed reading of Figure 1 at the paper's settings
        assert [h for h, _ in shown] == [True, True, False]


def test_empty_selection_warns_without_charts():
    at = load()
    at.multiselect(key="n").set_value([]).run()
    assert not at.exception
    assert any("at least one dataset size" in w.value for w in at.warning)
    assert not at.get("plotly_chart")
    assert len(verdicts(at)) == 3  # the claims do not depend on the chosen n


def test_url_selects_n():
    at = load(n="30,48")
    assert at.multiselect(key="n").value == [30, 48]
    assert not at.warning
    assert list(table(at)["n"]) == ["30", "48"]


@pytest.mark.parametrize(
    "param,value,key,widget,default",
    [
        ("n", "31,abc", "n", "multiselect", list(PRESET["ns"])),
        ("M", "99", "M", "selectbox", 2),
    ],
)
def test_invalid_url_warns_and_falls_back(param, value, key, widget, default):
    at = load(**{param: value})
    assert getattr(at, widget)(key=key).value == default
    assert any(f"{param}={value}" in unescaped(w.value) for w in at.warning)
    assert len(at.get("plotly_chart")) >= 2
    assert_clean(at)


def test_extreme_settings_give_numbers_not_nan():
    at = load(n="4,200", M="8", c="7.5", eta="0.001,0.499", logy="1", logx="1")
    assert not at.warning
    assert_clean(at)
    assert len(at.get("plotly_chart")) >= 2
    tab = table(at)
    assert list(tab["n"]) == ["4", "200"]
    assert tab.loc[0, "crossover η (MIP cheaper above)"] == "never"  # n = 4: DP always cheaper


def test_another_pages_value_under_the_same_key_does_not_leak():
    """Home's ε slider and the η and ε page's ε slider share the key ``eps``: a value set on
    one page never shows up on the other (each page starts from its own URL or default)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.slider(key="eps").set_value(3.0).run()  # the home page's ε
    at.switch_page("app_pages/eta_epsilon.py")
    at.query_params.clear()  # a browser drops the query string on a page switch
    at.run()
    assert not at.exception
    assert at.slider(key="eps").value == pytest.approx(1.0)
