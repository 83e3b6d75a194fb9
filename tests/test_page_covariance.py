"""AppTest for the page "Does MIP beat DP-SGD when learning a covariance matrix?" (covariance.py).

The page is run standalone (``AppTest.from_file`` on the page script) on small configs given
through the URL, as a shared link would (``size=4000&R=2``: n = 4000, R = 2), plus once
through ``app.py``. The experiment runs in a job process (``appkit.jobs.run``); the numbers
and verdicts the page shows are recomputed here with :mod:`mipcore.experiments.covariance` on the
same configuration (same seed, same result), never copied from the page. A spy on
``appkit.jobs.run`` tells whether (and with what) the page asked for a run. No wall-time
assertions: the run-time estimate is compared with the clock in ``benchmarks/covariance.py``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import pagetools
import pandas as pd
import pytest
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

import appkit.jobs
from appkit.registry import by_key
from mipcore.experiments import covariance as cv
from mipcore.mechanism import MipCalibration
from mipcore.plots import covariance_vega as figs
from mipcore.plots.formatting import fmt_num

ROOT = Path(__file__).resolve().parents[1]
PAGE = "app_pages/covariance.py"
SMALL = {"size": "4000", "R": "2"}  # the Quick preset with these two changes
SMALL_CONFIG = cv.ExperimentConfig(n=4000, R=2)  # what the page must build from SMALL
Claim, Mip = cv.Claim, MipCalibration
HUGE = {"size": "1000000", "R": "30", "T": "200"}  # far above the ceiling


def load(timeout: float = 300, **params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=timeout, **params)


def fresh(**params: str) -> AppTest:
    """A page not yet run (for session state set before the first run)."""
    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=300)
    for key, value in params.items():
        at.query_params[key] = value
    return at


def texts(at: AppTest) -> list[str]:
    return pagetools.texts(at, tables=True)


def body(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def charts(at: AppTest) -> list[tuple[dict, dict[str, pd.DataFrame]]]:
    """The page's Vega-Lite charts: (spec, {dataset name: table})."""
    return pagetools.vega_charts(at)


def n_charts(at: AppTest) -> int:
    """How many charts the page draws (all Vega-Lite: the page loads no Plotly)."""
    assert not at.get("plotly_chart")
    return len(at.get("vega_lite_chart"))


def layer(chart: tuple[dict, dict], name: str) -> dict:
    """The layer of a chart that draws the dataset ``name``."""
    (found,) = [x for x in walk_layers(chart[0]) if x.get("data", {}).get("name") == name]
    return found


def walk_layers(spec: dict) -> list[dict]:
    """Every layer of a (nested) layered spec."""
    out = []
    for x in spec.get("layer", []):
        out += [x, *walk_layers(x)]
    return out


def lines(chart: tuple[dict, dict]) -> list[str]:
    """The legend entries of a chart (its curves, in legend order)."""
    names = layer(chart, "lines")["encoding"]["color"]["scale"]["domain"]
    assert set(chart[1]["lines"]["curve"]) == set(names)  # every entry is drawn
    return names


def same_chart(a: tuple[dict, dict], b: tuple[dict, dict]) -> bool:
    return (
        a[0] == b[0] and a[1].keys() == b[1].keys() and all(a[1][k].equals(b[1][k]) for k in a[1])
    )


def verdict_table(at: AppTest) -> pd.DataFrame:
    assert not at.table and not at.dataframe  # a Markdown table: no table code to load
    (table,) = [t for t in pagetools.markdown_tables(at) if "Claim" in t.columns]
    return table


def assert_clean(at: AppTest) -> None:
    pagetools.assert_clean(at, banned=("nan", "inf", "none"), errors=False)


def page_buttons(at: AppTest):
    """The page's own buttons (not the footer's "reset this page")."""
    return [b for b in at.button if not (b.key or "").startswith("_reset_")]


@pytest.fixture
def spy(monkeypatch):
    """Records every ``appkit.jobs.run`` call (the function, and whether the Stop button was
    on the page at that moment) and runs it."""
    calls: list[dict] = []
    labels: list[str] = []  # the page's buttons, in the order drawn
    real = appkit.jobs.run
    real_button = DeltaGenerator.button

    def button(self, label, *args, **kwargs):
        labels.append(label)
        return real_button(self, label, *args, **kwargs)

    def run(fn, *args, **kwargs):
        calls.append(dict(fn=fn, args=args, stop_button=bool(labels) and labels[-1] == "Stop"))
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "button", button)
    monkeypatch.setattr(appkit.jobs, "run", run)
    return calls


@pytest.fixture
def no_run(monkeypatch):
    def refuse(*a, **k):
        pytest.fail("the page started a run it should not have")

    monkeypatch.setattr(appkit.jobs, "run", refuse)


@pytest.fixture(autouse=True)
def nominal_machine(monkeypatch):
    """The speed probe reports the nominal machine: whether a run waits for the Run button
    never depends on this machine's load during the tests."""
    monkeypatch.setattr(cv, "measure_speed", lambda: cv.speed_factor(1.0))


@pytest.fixture
def slow_machine(monkeypatch, nominal_machine):
    """A speed probe that reports a machine 1000 times slower than nominal: every run but the
    Quick preset then waits for the Run button."""
    monkeypatch.setattr(cv, "measure_speed", lambda: cv.speed_factor(1000.0))


@pytest.fixture(scope="module")
def expected() -> cv.ExperimentResult:
    return cv.run_experiment(SMALL_CONFIG)


@pytest.fixture(scope="module")
def small_page() -> AppTest:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cv, "measure_speed", lambda: cv.speed_factor(1.0))
        return load(**SMALL)


# ------------------------------------------------------------------ the page as it opens
def test_loads_with_takeaway_chart_table_and_maths(small_page):
    at = small_page
    assert at.title[0].value == by_key("covariance").title
    assert n_charts(at) == 1
    assert not at.error and not at.warning
    exp = pagetools.unfold(at)
    assert len(exp.latex) >= 6
    assert any("claims, checked on this run" in s.value for s in at.subheader)
    # the concluding sentence comes first: before the chart's own takeaway and the table
    takeaways = [m.value for m in at.markdown if m.value.startswith("**What this run shows")]
    assert len(takeaways) == 1
    assert_clean(at)
    assert "‖Σ‖_F" not in " ".join(texts(at))  # prose writes ‖Σ‖ (the maths has the F)


def test_verdict_table_is_one_row_per_claim_from_the_lesson(small_page, expected):
    table = verdict_table(small_page)
    assert len(table) == 4 and list(table["Claim"].str[:3]) == ["(1)", "(2)", "(3)", "(4)"]
    columns = {
        Mip.TIGHT: "Smallest certified noise",
        Mip.PAPER: "Theorem 9's density, paper's constant",
        Mip.AS_PRINTED: "As printed — not certified",
    }
    assert list(table.columns) == ["Claim", *columns.values()]
    for row, claim in zip(table.itertuples(index=False), cv.Claim, strict=True):
        for mip, column in columns.items():
            v = expected.verdict(
                claim,
                mip=None if claim is Claim.DP_NEVER_BELOW_1 else mip,
                dp=None if claim is Claim.MIP_BELOW_1_FROM_02 else cv.DpCalibration.TIGHT,
            )
            cell = getattr(row, row._fields[list(table.columns).index(column)])
            assert cell.startswith("✅ holds" if v.holds else "❌ fails"), (claim, mip, cell)
            if claim in (Claim.MIP_BEATS_DP_FROM_01, Claim.M46_BEAT_DP_EVERYWHERE):
                assert (f"loses {v.failed} of {v.checked}" in cell) is not v.holds
            if claim is Claim.DP_NEVER_BELOW_1:
                assert fmt_num(v.dp_min, 3) in cell


def test_takeaway_and_explanations_are_computed_from_the_run(small_page, expected):
    text = body(small_page)
    tight = cv.DpCalibration.TIGHT
    for mip in (Mip.TIGHT, Mip.PAPER, Mip.AS_PRINTED):
        v = expected.verdict(Claim.MIP_BEATS_DP_FROM_01, mip=mip, dp=tight)
        assert f"in {v.passed} of {v.checked} comparisons" in text
    b = expected.bias(tight)
    lo, hi = fmt_num(b.error_min, 3), fmt_num(b.error_max, 3)
    assert (f"between {lo} and {hi}" if lo != hi else f"stays at {lo}") in text
    # the clipping-only run and its share of DP-SGD's error, for both calibrations
    assert "clipping bias" in text and "z = 0" in text
    assert "paper calibration, at the most private η = 0.01" in text
    assert "tight calibration, at the most private η = 0.01" in text
    # the radius factor: d² = 9 expected, an observed ratio printed beside it
    assert re.search(r"about 9 times higher\. Observed median ratio of the mean errors: \d", text)
    assert fmt_num(expected.radius_ratio.observed, 3) in text
    # the paper's DP calibration: its exact GDP level over the target, computed, not typed
    lo, hi = expected.plan.dp_noise(cv.DpCalibration.PAPER).ratio_range
    assert f"only {fmt_num(lo, 3)} to {fmt_num(hi, 3)} times the target" in text
    # Theorem 9's noise: the certified level of the paper's constant, the smallest c
    paper = min(
        (s for s in expected.scales if s.calibration is Mip.PAPER), key=lambda s: s.error_ref
    )
    assert f"η-MIP with η = {fmt_num(paper.certified_ref, 2)}" in text
    tight_s = next(s for s in expected.scales if s.calibration is Mip.TIGHT and s.M == 2)
    assert tight_s.c_ref == pytest.approx(-1 / math.log1p(-2 * tight_s.eta_ref), rel=1e-12)
    assert f"c = −1/ln(1 − 2η) = {fmt_num(tight_s.c_ref, 3)}" in text


def test_no_uncertified_release_is_called_eta_mip(small_page):
    """d = 3: the release holds 9 numbers; the printed Laplace radius is not certified there
    (mechanism.certified_level is None), so wherever the page names it, it says so, and no
    sentence about it calls it η-MIP. The certified calibrations are called η-MIP."""
    at = small_page
    sentences = [s for t in texts(at) for s in re.split(r"(?<=[.])\s+", t)]
    printed = [s for s in sentences if re.search(r"(?i)printed Laplace|as printed", s)]
    assert printed
    for s in printed:
        assert "η-MIP" not in s, s
    named = [s for s in printed if re.search(r"(?i)printed Laplace (radius|\(c\) radius)", s)]
    assert all("not certified" in s for s in named), named
    assert any("η-MIP" in s and "smallest certified" in s for s in sentences)
    assert "As printed — not certified" in verdict_table(at).columns
    for name in lines(charts(at)[0]):
        if "as printed" in name:
            assert "not certified" in name
    assert any("not certified" in o for o in at.multiselect(key="radii").options)


def test_chart_has_few_curves_bands_and_a_log_axis(small_page):
    (fig,) = charts(small_page)
    spec, tables = fig
    assert lines(fig) == [
        "Raw (no privacy)",
        "DP-SGD, tight calibration",
        "DP-SGD, paper calibration",
        "MIP M=4, smallest certified noise",
        "MIP M=4, Theorem 9 density, paper's constant",
        "MIP M=4, as printed (Laplace radius, not certified)",
    ]  # one M by default: 6 legend entries (was 11)
    bands = tables["bands"]
    band_colour = layer(fig, "bands")["encoding"]["color"]
    assert len(bands) and band_colour["legend"] is None  # bands have no legend entries
    assert band_colour["scale"] == layer(fig, "lines")["encoding"]["color"]["scale"]
    assert "Raw (no privacy)" not in set(bands["curve"])  # Raw is a plain line
    assert layer(fig, "lines")["encoding"]["y"]["scale"]["type"] == "log"
    rules = [x for x in spec["layer"] if x.get("data") == {"values": [{}]}]
    (rule,) = [x for x in rules[0]["layer"] if x["mark"]["type"] == "rule"]
    assert rule["encoding"]["y"]["datum"] == 1.0  # the threshold: relative error = 1


# ------------------------------------------------------------------ controls
def test_view_controls_change_the_chart_without_a_new_run(spy):
    at = load(**SMALL)
    assert [c["fn"] for c in spy] == [cv.run_experiment]
    at.multiselect(key="Mshow").set_value([2, 6]).run()
    names = lines(charts(at)[0])
    assert sum("M=2" in n for n in names) == 3 and sum("M=6" in n for n in names) == 3
    assert not any("M=4" in n for n in names)
    at.toggle(key="z0").set_value(True).run()
    assert "DP-SGD, no noise (clipping only)" in lines(charts(at)[0])
    at.toggle(key="logerr").set_value(False).run()
    assert "type" not in layer(charts(at)[0], "lines")["encoding"]["y"]["scale"]
    at.multiselect(key="Mshow").set_value([]).run()
    assert not any(n.startswith("MIP") for n in lines(charts(at)[0]))
    assert any("No M is chosen above" in c.value for c in at.caption)
    assert at.query_params.get("z0") == "1" and at.query_params.get("logerr") == "0"
    # every rerun fetched the same finished run: "computed earlier", the cache answered
    assert all(c["fn"] is cv.run_experiment for c in spy)
    assert any(c.value.startswith("Computed earlier") for c in at.caption)
    assert_clean(at)


def test_dimension_slider_changes_the_tables_not_the_spec(spy):
    """The page's first slider (d) starts a new run: its chart gets new tables, the same
    specification (so the browser redraws it in place)."""
    at = load(**SMALL)
    before = charts(at)[0]
    at.slider(key="dim").set_value(4).run()
    assert_clean(at)
    assert spy[-1]["args"][0].config.d == 4
    after = charts(at)[0]
    assert after[0] == before[0]
    assert not after[1]["lines"].equals(before[1]["lines"])


def test_zoom_tabs_are_the_three_ranges():
    at = load(**SMALL)
    assert [t.label for t in at.tabs] == ["All η", "η ≤ 0.15", "0.1 ≤ η ≤ 0.3", "η ≥ 0.2"]
    at.multiselect(key="Mshow").set_value([2, 4]).run()
    at.session_state["zoom"] = "η ≤ 0.15"
    at.run()
    (fig,) = charts(at)
    assert not any("M=2" in name for name in lines(fig))  # as the paper's panel
    drawn = fig[1]["lines"]
    raw = drawn[drawn["curve"] == "Raw (no privacy)"]
    assert len(raw) and raw["eta"].max() <= 0.15
    at.session_state["zoom"] = "η ≥ 0.2"
    at.run()
    (fig,) = charts(at)
    drawn = fig[1]["lines"]
    raw = drawn[drawn["curve"] == "Raw (no privacy)"]
    assert len(raw) and raw["eta"].min() >= 0.2
    assert_clean(at)


def test_changing_the_seed_and_the_m_set_changes_the_run(spy):
    at = load(**SMALL)
    before = (charts(at)[0], verdict_table(at).to_dict())
    at.number_input(key="rng").set_value(5).run()
    assert_clean(at)
    assert spy[-1]["args"][0].config.seed == 5
    after = (charts(at)[0], verdict_table(at).to_dict())
    assert not same_chart(after[0], before[0]) and after[1] != before[1]
    assert after[0][0] == before[0][0]  # a new run changes the tables, never the spec
    assert at.query_params.get("rng") == "5"
    at.multiselect(key="Ms").set_value([4]).run()
    assert len(verdict_table(at)) == 4  # claim 2 still applies (M = 4 is in {4, 6})
    assert not at.warning  # the M shown on the chart follows the run's M
    at.multiselect(key="Ms").set_value([2]).run()
    assert spy[-1]["args"][0].config.Ms == (2,)
    assert len(verdict_table(at)) == 3  # claim 2 (M = 4 or 6) is not judged without them
    assert_clean(at)


# ------------------------------------------------------------------ when it runs
def test_paper_preset_does_not_run_by_itself(no_run):
    at = load(preset="Paper")
    assert not n_charts(at)
    (run,) = [b for b in at.button if b.key == "run"]
    assert re.match(r"Run \(\d", run.label) and not run.disabled  # the estimate on the button
    assert any("runs only when you ask" in i.value for i in at.info)
    assert at.number_input(key="size").value == 500_000 and at.slider(key="R").value == 10
    assert_clean(at)


@pytest.mark.parametrize("preset", ["Quick", "Paper"])
def test_delta_help_names_the_presets_default(spy, preset):
    """The δ slider's help states the default it starts at (the lesson's, not a copy)."""
    at = load(preset=preset)
    dlt = at.slider(key="dlt")
    assert dlt.value == pytest.approx(math.log10(cv.PRESETS[preset].delta))
    assert f"{fmt_num(10.0**dlt.value)} by default" in dlt.help


def test_preset_switch_resets_the_parameters(spy):
    at = load(**SMALL)
    at.radio(key="preset").set_value("Paper").run()
    assert at.number_input(key="size").value == 500_000 and at.slider(key="R").value == 10
    assert not n_charts(at) and len(spy) == 1  # never starts the long run itself
    assert dict(at.query_params) == {"preset": "Paper"}
    at.radio(key="preset").set_value("Quick").run()
    assert at.number_input(key="size").value == 20_000 and at.slider(key="R").value == 3
    assert not at.exception and spy[-1]["args"][0].config == cv.PRESETS["Quick"]


def test_run_button_runs_then_the_result_stays(spy, slow_machine):
    at = fresh(**SMALL, rng="11")
    at.run()
    assert not spy and not n_charts(at)
    at.button(key="run").click().run()
    assert len(spy) == 1 and spy[0]["stop_button"]  # the Stop button is up while it runs
    assert n_charts(at) == 1
    assert not page_buttons(at) and not at.info  # the offer to run and Stop are gone
    assert any(c.value.startswith("Computed in") for c in at.caption)
    at.toggle(key="logerr").set_value(False).run()  # a view change keeps the result ...
    assert n_charts(at) == 1 and not page_buttons(at)
    assert any(c.value.startswith("Computed earlier") for c in at.caption)  # ... not rerun


def test_a_stopped_run_says_so_and_offers_to_run_again(spy):
    """Pressing Stop (its callback marks the run stopped; Streamlit's rerun ends the job)
    leaves a sentence and the Run button, even for the Quick preset."""
    at = fresh(**SMALL)
    at.session_state["_cov_stopped"] = SMALL_CONFIG
    at.run()
    assert not spy and not n_charts(at)
    assert any("You stopped the run" in i.value for i in at.info)
    at.button(key="run").click().run()
    assert len(spy) == 1 and n_charts(at) == 1
    assert not any("stopped" in i.value for i in at.info)


def test_cache_hit_in_a_new_session_is_computed_earlier():
    params = {**SMALL, "rng": "23"}
    first = load(**params)
    assert any(c.value.startswith("Computed in") for c in first.caption)
    second = load(**params)  # a new session: the server-wide cache answers
    assert any(c.value.startswith("Computed earlier in") for c in second.caption)
    assert same_chart(charts(second)[0], charts(first)[0])


def test_quick_preset_runs_by_itself_even_when_estimated_slow(spy, slow_machine):
    at = fresh()
    at.run()
    assert not at.exception and not page_buttons(at)
    assert len(spy) == 1 and spy[0]["args"][0].config == cv.PRESETS["Quick"]
    assert n_charts(at) == 1 and len(verdict_table(at)) == 4
    assert any("These are the **Quick** preset's settings" in c.value for c in at.caption)
    assert not dict(at.query_params)  # the default view has a bare URL


def test_work_above_the_ceiling_disables_the_run_button(no_run):
    at = load(**HUGE)
    (run,) = [b for b in at.button if b.key == "run"]
    assert run.disabled
    (w,) = [w.value for w in at.warning]
    assert "times the work one request may use" in w and "MIP_EXPLORER_WORK_LIMIT" in w
    cfg = dataclasses.replace(cv.PRESETS["Quick"], n=1_000_000, R=30, T=200)
    assert fmt_num(cv.work(cfg).units / cv.WORK_CEILING, 2) in w
    assert not n_charts(at)


def test_the_ceiling_scales_with_the_work_limit(no_run, monkeypatch):
    monkeypatch.setattr(appkit.settings, "WORK_LIMIT", 1000.0)
    at = load(**HUGE)
    (run,) = [b for b in at.button if b.key == "run"]
    assert not run.disabled and not at.warning


# ------------------------------------------------------------------ links and dead ends
@pytest.mark.parametrize(
    "param,value,key,default",
    [
        ("size", "abc", "size", 20_000),  # n
        ("dim", "0", "dim", 3),  # d
    ],
)
def test_invalid_url_values_warn_and_fall_back(no_run, param, value, key, default, slow_machine):
    at = load(**{**SMALL, param: value})
    widget = at.number_input(key=key) if key == "size" else at.slider(key=key)
    assert widget.value == default
    assert any(f"{param}={value}" in w.value for w in at.warning)
    assert not at.exception


def test_eta_below_half_delta_gives_a_sentence(no_run):
    at = load(**SMALL, etas="0.001,0.2", dlt="-2")  # η below δ/2: Theorem 4 cannot certify it
    assert not at.exception and not at.error
    (w,) = at.warning
    assert "δ/2" in w.value and "Raise the start" in w.value
    assert not n_charts(at)
    assert any(e.label == "The maths" for e in at.expander)


def test_no_moment_order_gives_a_sentence(no_run):
    at = load(**SMALL, Ms="")
    assert not at.exception and not at.error
    (w,) = at.warning
    assert "No moment order M is chosen" in w.value and "Ms=" not in w.value
    assert not n_charts(at)


def test_fixed_clipping_runs_with_a_positive_c(spy):
    at = load(**SMALL, clip="fixed")  # used to end in an error box (C = 0 meant "not set")
    assert_clean(at)
    assert spy[-1]["args"][0].config.clip_value == 5.0 and n_charts(at) == 1
    at = load(**SMALL, clip="fixed", C="0")  # C = 0 is refused with a sentence
    assert not at.error
    assert any("C=0" in w.value and "not valid" in w.value for w in at.warning)
    assert spy[-1]["args"][0].config.clip_value == 5.0


def test_no_calibration_gives_a_sentence_not_an_empty_table():
    at = load(**SMALL, cal="")
    assert_clean(at)
    assert any("No verdicts on claims 1 and 2" in w.value for w in at.warning)
    assert n_charts(at) == 1
    assert list(verdict_table(at)["Claim"].str[:3]) == ["(4)"]  # MIP alone


def test_one_dimension_certifies_the_printed_radius():
    at = load(**SMALL, dim="1")
    assert_clean(at)
    assert "As printed" in verdict_table(at).columns  # no "not certified" at d = 1
    names = lines(charts(at)[0])
    assert "MIP M=4, as printed (Laplace radius)" in names


def test_crafted_link_text_stays_plain(no_run):
    at = load(**SMALL, preset="[click](https://example.com)", dlt="-2", etas="0.001,0.2")
    assert any("preset=[click]" in pagetools.unescaped(w.value) for w in at.warning)
    for w in at.warning:
        assert "](" not in w.value  # shown as text, never as a Markdown link


def test_legacy_radius_names_in_links():
    at = load(**SMALL, radii="gamma,as_printed")  # old names: "gamma" is the paper's constant
    assert not at.warning
    assert list(verdict_table(at).columns) == [
        "Claim",
        "Theorem 9's density, paper's constant",
        "As printed — not certified",
    ]


@pytest.mark.slow
def test_registered_in_the_app():
    script = by_key("covariance").script
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()  # the home page: AppTest needs one run before switching pages
    at.switch_page(script)
    at.query_params.clear()
    for key, value in SMALL.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == by_key("covariance").title
    assert n_charts(at) == 1 and len(verdict_table(at)) == 4
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


# ------------------------------------------------------------------ the headless builders
def _frame(rows):
    return pd.DataFrame(
        rows,
        columns=[
            "curve",
            "method",
            "M",
            "mip_calibration",
            "dp_calibration",
            "eta",
            "mean",
            "sem",
            "runs",
        ],
    )


def test_error_chart_floors_log_bands_and_draws_exactly_the_rows():
    name = figs.curve_name("mip", M=2, mip="paper")
    s = _frame(
        [
            (name, "mip", 2, "paper", None, e, m, sd, 3)
            for e, m, sd in [(0.1, 10.0, 20.0), (0.2, 5.0, 1.0), (0.3, 2.0, 0.5)]
        ]
        + [
            ("Raw (no privacy)", "raw", None, None, None, e, 0.01, 0.001, 3)
            for e in (0.1, 0.2, 0.3)
        ]
    )
    assert figs.band_clipped(s)
    chart, table = figs.error_vega(s, log_y=True)
    assert table is s  # the CSV is the frame itself
    band = chart.datasets["bands"]
    assert set(band["curve"]) == {name}  # Raw has no band
    assert list(band["lower"]) == pytest.approx([10.0 * figs.LOG_BAND_FLOOR, 4.0, 1.5])
    assert list(band["upper"]) == pytest.approx([30.0, 6.0, 2.5])
    drawn = chart.datasets["lines"]
    assert len(drawn) == len(s) and sorted(drawn["mean"]) == sorted(s["mean"])
    linear, _ = figs.error_vega(s, log_y=False)
    band = linear.datasets["bands"]
    assert list(band["lower"]) == pytest.approx([-10.0, 4.0, 1.5])  # no floor needed
    for t in chart.datasets.values():
        assert not t.isna().any().any()


def test_curve_frame_selects_the_curves_and_names_them(expected):
    frame = figs.curve_frame(expected, Ms=(2, 4), eta_range=(0.15, None), exclude_M=(2,))
    assert set(frame["M"].dropna()) == {4} and frame["eta"].min() >= 0.15
    assert "DP-SGD, no noise (clipping only)" not in set(frame["curve"])
    names = set(frame["curve"])
    assert "MIP M=4, as printed (Laplace radius, not certified)" in names
    assert "MIP M=4, smallest certified noise" in names
    with_z0 = figs.curve_frame(expected, Ms=(), clip_only=True)
    assert set(with_z0["method"]) == {"raw", "dpsgd", "clip_only"}
    chart, _ = figs.error_vega(frame)
    assert all(not t.isna().any().any() for t in chart.datasets.values())
    assert set(chart.datasets["lines"]["curve"]) == names


@pytest.mark.parametrize("certified", [True, False])
def test_curve_names_mark_uncertified_releases(certified):
    for mip in MipCalibration:
        name = figs.curve_name("mip", M=6, mip=mip, certified=certified)
        assert name.startswith("MIP M=6, ") and ("not certified" in name) is (not certified)
    assert figs.curve_name("dpsgd", dp="tight") == "DP-SGD, tight calibration"
    styles = {tuple(figs.curve_style("mip", mip=m).values()) for m in MipCalibration} | {
        tuple(figs.curve_style("dpsgd", dp=d).values()) for d in cv.DpCalibration
    }
    assert len(styles) == 5  # every calibration looks different (colour, dash or marker)


def test_numbers_in_sentences_are_never_nan():
    """The page writes every number with fmt_num(x, 3): never "nan" or "inf" text."""
    assert [fmt_num(x, 3) for x in (float("nan"), float("inf"), 0.0, 1234.5678, 2.5e-7)] == [
        "—",
        "∞",
        "0",
        "1230",
        "2.5 × 10⁻⁷",
    ]  # 3 significant digits
