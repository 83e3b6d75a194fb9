"""AppTest for the page "Synthetic covariance (Figure 2)" (app_pages/covariance.py).

The page is run standalone (``AppTest.from_file`` on the page script) on small configs
given through the URL, as a shared link would (``size=4000&R=2``, i.e. n = 4000 and
R = 2: about a second per run), plus once through ``app.py`` when the page is registered
there. The verdicts are recomputed here with :func:`mipcore.lessons.figure2.paper_claims` on
the same configuration, not copied from the page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pagetools
import pytest
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key
from mipcore.lessons import figure2 as cv

ROOT = Path(__file__).resolve().parents[1]
PAGE = "app_pages/covariance.py"
SMALL = {"size": "4000", "R": "2"}  # the Quick preset with these two changes
SMALL_CONFIG = cv.ExperimentConfig(n=4000, R=2)  # what the page must build from SMALL


def load(timeout: float = 120, **params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=timeout, **params)


def texts(at: AppTest) -> list[str]:
    return pagetools.texts(at, tables=True)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def verdict_rows(at: AppTest):
    """The verdict table of the "Paper vs this run" box (the one with a ✅/❌ column)."""
    tables = [tab.value for tab in at.table if "" in tab.value.columns]
    assert len(tables) == 1
    return tables[0]


def assert_clean(at: AppTest) -> None:
    pagetools.assert_clean(at, banned=("nan", "inf", "none"), errors=True)


@pytest.fixture(scope="module")
def small_page() -> AppTest:
    return load(**SMALL)


def test_loads_with_chart_verdicts_and_maths(small_page):
    at = small_page
    assert at.title[0].value == by_key("covariance").title
    assert len(at.get("plotly_chart")) >= 1
    assert len(at.get("download_button")) >= 2  # the chart's rows and every run
    assert not at.error and not at.warning
    (exp,) = [e for e in at.expander if e.label == "The maths"]
    assert len(exp.latex) >= 4
    assert any("Paper vs this run" in s.value for s in at.subheader)
    assert_clean(at)


def test_verdicts_match_mipcore_on_the_same_config(small_page):
    results = cv.run_experiment(SMALL_CONFIG)
    summary = cv.summarize(results)
    expected = cv.paper_claims(
        summary, SMALL_CONFIG.Ms, SMALL_CONFIG.radii, SMALL_CONFIG.calibrations
    )
    table = verdict_rows(small_page)
    assert len(table) == len(expected) == 16  # 4 claims x 2 radii x 2 calibrations
    marks = list(table[""])
    assert set(marks) <= {"✅ holds", "❌ fails"}
    for mark, claim, variant, evidence, v in zip(
        marks,
        table.iloc[:, 1],
        table["Variant"],
        table["Evidence from this run"],
        expected,
        strict=True,
    ):
        assert mark.startswith("✅") is v.holds
        assert (claim, variant, evidence) == (v.claim, v.variant, v.evidence)


def test_explanations_are_computed_from_the_run(small_page):
    body = " ".join(m.value for m in small_page.markdown)
    # the clipping-only run and its share of DP-SGD's error, for both calibrations
    assert "clipping bias" in body and "z = 0" in body
    assert "paper calibration, at the most private η = 0.01" in body
    assert "tight calibration, at the most private η = 0.01" in body
    # the radius factor: d² = 9 expected, an observed ratio printed beside it
    assert re.search(r"about 9 times higher\. Observed median ratio of the mean errors: \d", body)


def test_chart_has_bands_raw_line_and_log_axis(small_page):
    (fig,) = charts(small_page)
    names = [t.get("name") for t in fig["data"]]
    assert "Raw" in names and "DP-SGD z=0 (clipping only)" in names
    assert {"MIP M=4 (Gamma radius, Thm 9)", "MIP M=4 (Laplace radius, as printed)"} <= set(names)
    bands = [t for t in fig["data"] if t.get("fill") == "toself"]
    assert bands and all(t["showlegend"] is False for t in bands)
    assert "Raw ±SEM" not in {t["name"] for t in bands}  # Raw is a plain line
    assert fig["layout"]["yaxis"]["type"] == "log"


def test_changing_the_seed_changes_the_output():
    at = load(**SMALL)
    before = (charts(at)[0], list(verdict_rows(at)["Evidence from this run"]))
    at.number_input(key="rng").set_value(5).run()
    assert_clean(at)
    after = (charts(at)[0], list(verdict_rows(at)["Evidence from this run"]))
    assert after[0] != before[0] and after[1] != before[1]
    assert at.query_params.get("rng") == "5"


def test_changing_the_m_set_changes_curves_and_verdicts():
    at = load(**SMALL)
    at.multiselect(key="Ms").set_value([4]).run()
    assert_clean(at)
    names = {t.get("name") for t in charts(at)[0]["data"]}
    assert not any(str(n).startswith(("MIP M=2", "MIP M=6")) for n in names)
    assert len(verdict_rows(at)) == 16  # claim 2 still applies (M = 4 is in {4, 6})
    at.multiselect(key="Ms").set_value([2]).run()
    assert len(verdict_rows(at)) == 12  # ... and without M = 4 or 6 it is not judged


def test_curve_selector_and_log_toggle():
    at = load(**SMALL)
    at.multiselect(key="cov_curves").set_value(["Raw", "DP-SGD (paper calibration)"]).run()
    fig = charts(at)[0]
    lines = {t["name"] for t in fig["data"] if "fill" not in t}
    assert lines == {"Raw", "DP-SGD (paper calibration)", "relative error = 1"}
    assert not any(str(t.get("name")).startswith("MIP") for t in fig["data"])
    at.toggle(key="logerr").set_value(False).run()
    assert charts(at)[0]["layout"]["yaxis"].get("type") != "log"
    at.multiselect(key="cov_curves").set_value([]).run()
    assert not at.exception and not at.get("plotly_chart")
    assert any("at least one curve" in w.value for w in at.warning)


def test_zoom_tabs_are_the_three_ranges():
    at = load(**SMALL)
    assert [t.label for t in at.tabs] == ["All η", "η ≤ 0.15", "0.1 ≤ η ≤ 0.3", "η ≥ 0.2"]
    at.session_state["zoom"] = "η ≤ 0.15"
    at.run()
    (fig,) = charts(at)
    assert not any(str(t.get("name")).startswith("MIP M=2") for t in fig["data"])
    assert max(max(t["x"]) for t in fig["data"] if t.get("name") == "Raw") <= 0.15
    at.session_state["zoom"] = "η ≥ 0.2"
    at.run()
    (fig,) = charts(at)
    assert min(min(t["x"]) for t in fig["data"] if t.get("name") == "Raw") >= 0.2
    assert_clean(at)


def test_paper_preset_does_not_run_by_itself(monkeypatch):
    calls = []
    monkeypatch.setattr(
        cv, "run_experiment", lambda *a, **k: calls.append(1) or pytest.fail("the Paper preset ran")
    )
    at = load(preset="Paper")
    assert not calls and not at.get("plotly_chart")
    (run,) = [b for b in at.button if b.key == "run"]
    assert re.match(r"Run \(\d", run.label)  # the estimated time is on the button
    assert any("runs only when you ask" in i.value for i in at.info)
    assert at.number_input(key="size").value == 500_000 and at.slider(key="R").value == 10
    assert_clean(at)


def test_preset_switch_resets_the_parameters():
    at = load(**SMALL)
    at.radio(key="preset").set_value("Paper").run()
    assert at.number_input(key="size").value == 500_000
    assert not at.get("plotly_chart")  # switching never starts the minute-long run
    assert dict(at.query_params) == {"preset": "Paper"}
    at.radio(key="preset").set_value("Quick").run()
    assert at.number_input(key="size").value == 20_000 and at.slider(key="R").value == 3
    assert not at.exception


def test_run_button_runs_and_the_result_stays(monkeypatch):
    calls = []
    real = cv.run_experiment
    monkeypatch.setattr(cv, "run_experiment", lambda *a, **k: calls.append(1) or real(*a, **k))
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=120)
    for key, value in {**SMALL, "rng": "11"}.items():
        at.query_params[key] = value
    at.session_state["_cov_speed"] = 100.0  # pretend this machine is slow: needs the button
    at.run()
    assert not calls and not at.get("plotly_chart")
    at.button(key="run").click().run()
    assert len(calls) == 1 and len(at.get("plotly_chart")) == 1
    assert not page_buttons(at) and not at.info  # the offer to run is gone with the result
    at.toggle(key="logerr").set_value(False).run()  # a view change keeps the result ...
    at.run()
    assert len(calls) == 1 and len(at.get("plotly_chart")) == 1 and not page_buttons(at)


def test_cache_hit_does_not_recompute(monkeypatch):
    calls = []
    real = cv.run_experiment
    monkeypatch.setattr(cv, "run_experiment", lambda *a, **k: calls.append(1) or real(*a, **k))
    params = {**SMALL, "rng": "23"}
    first = load(**params)
    assert len(calls) == 1
    assert any(c.value.startswith("Computed in") for c in first.caption)
    second = load(**params)  # a new session: st.cache_data, not the session's own store
    assert len(calls) == 1
    assert any(c.value.startswith("Computed earlier in") for c in second.caption)
    assert charts(second)[0] == charts(first)[0]


@pytest.mark.parametrize(
    "param,value,key,default",
    [
        ("size", "abc", "size", 20_000),  # n
        ("dim", "0", "dim", 3),  # d
    ],
)
def test_invalid_url_values_warn_and_fall_back(param, value, key, default):
    at = load(**{**SMALL, param: value})
    widget = at.number_input(key=key) if key == "size" else at.slider(key=key)
    assert widget.value == default
    assert any(f"{param}={value}" in w.value for w in at.warning)
    assert not at.exception


@pytest.mark.parametrize(
    "params,words",
    [
        ({"etas": "0.001,0.2", "dlt": "-2"}, "delta/2"),  # η below δ/2: Theorem 4 cannot certify it
        ({"clip": "fixed"}, "clip_value"),  # the fixed rule without a C
        ({"Ms": ""}, "moment order"),  # no M at all
    ],
)
def test_bad_combinations_give_a_sentence(params, words):
    at = load(**{**SMALL, **params})
    assert not at.exception
    (err,) = at.error
    assert "This experiment could not be computed" in err.value and words in err.value
    assert not at.get("plotly_chart")
    assert any(e.label == "The maths" for e in at.expander)


def test_no_calibration_gives_a_sentence_not_an_empty_table():
    at = load(**SMALL, cal="")
    assert_clean(at)
    assert any("No verdicts" in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == 1


def page_buttons(at):
    """The page's own buttons (not the footer's "reset this page")."""
    return [b for b in at.button if not (b.key or "").startswith("_reset_")]


def test_quick_preset_runs_by_itself_even_when_estimated_slow():
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=120)
    at.session_state["_cov_speed"] = 100.0  # an estimate far above the auto-run limit
    at.run()
    assert not at.exception and not page_buttons(at)
    assert len(at.get("plotly_chart")) == 1 and len(verdict_rows(at)) == 16
    assert any("These are the **Quick** preset's settings" in c.value for c in at.caption)
    assert not dict(at.query_params)  # the default view has a bare URL


def test_registered_in_the_app():
    script = by_key("covariance").script
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()  # the home page: AppTest needs one run before switching pages
    at.switch_page(script)
    at.query_params.clear()
    for key, value in SMALL.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == by_key("covariance").title
    assert len(at.get("plotly_chart")) == 1 and len(verdict_rows(at)) == 16
    # another page's settings never leak into this experiment (keys unique to this page)
    at.switch_page(by_key("noise_vs_eta").script)
    at.query_params.clear()
    at.run()
    at.slider(key="eta").set_range(0.05, 0.3).run()
    at.switch_page(script)
    at.query_params.clear()
    at.run()
    assert not at.exception
    assert at.slider(key="etas").value == pytest.approx((0.01, 0.45))
    assert len(at.get("plotly_chart")) == 1


# ------------------------------------------------------------------ the headless builders
def _summary(rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=["label", "method", "eta", "mean", "sem", "runs"])


def test_error_figure_floors_log_bands_and_draws_exactly_the_rows():
    from mipcore.plots import covariance_figs as figs

    s = _summary(
        [
            ("MIP M=2 (Gamma radius, Thm 9)", "MIP", e, m, sd, 3)
            for e, m, sd in [(0.1, 10.0, 20.0), (0.2, 5.0, 1.0), (0.3, 2.0, 0.5)]
        ]
        + [("Raw", "Raw", e, 0.01, 0.001, 3) for e in (0.1, 0.2, 0.3)]
    )
    assert figs.band_clipped(s)
    fig = figs.error_figure(s, log_y=True).to_dict()
    (band,) = [t for t in fig["data"] if t.get("fill") == "toself"]
    lower = list(band["y"])[3:][::-1]  # the polygon's way back: mean - SEM, floored
    assert lower == pytest.approx([10.0 * figs.LOG_BAND_FLOOR, 4.0, 1.5])
    linear = figs.error_figure(s, log_y=False).to_dict()
    (band,) = [t for t in linear["data"] if t.get("fill") == "toself"]
    assert list(band["y"])[3:][::-1] == pytest.approx([-10.0, 4.0, 1.5])  # no floor needed
    zoom = figs.zoom_frame(s, eta_range=(0.15, None), exclude_M=(2,))
    assert list(zoom["label"]) == ["Raw", "Raw"] and list(zoom["eta"]) == [0.2, 0.3]


def test_reading_numbers_are_never_nan():
    from mipcore.plots.covariance_figs import _num

    assert [_num(x) for x in (float("nan"), float("inf"), 0.0, 1234.5678, 2.5e-7)] == [
        "—",
        "∞",
        "0",
        "1230",
        "2.5 × 10⁻⁷",
    ]  # 3 significant digits
