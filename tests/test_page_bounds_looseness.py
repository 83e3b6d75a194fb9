"""AppTest for the page "How loose are the certified bounds?" (app_pages/bounds_looseness.py)."""

from __future__ import annotations

import math
import re

import numpy as np
import pagetools
import pytest
from pagetools import snapshot, texts
from streamlit.testing.v1 import AppTest

from appkit import fmt_num
from appkit.registry import by_key
from mipcore import prop11
from mipcore.experiments import certificate_gap as cg
from mipcore.experiments.certificate_gap import Route
from mipcore.plots.looseness_vega import ROUTE_NAMES

PAGE = "app_pages/bounds_looseness.py"
FILE_ID = r"`00\d`|(?<![\d,.])00[0-4](?![\d,.])"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=300, **params)


def body(at: AppTest) -> str:
    return " ".join(texts(at, tables=True))


def chart_words(at: AppTest) -> list[str]:
    """Titles, axis titles and legend names of every chart, and the text its tables draw."""
    out: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("title"), str):
                out.append(node["title"])
            if isinstance(node.get("domain"), list):
                out.extend(v for v in node["domain"] if isinstance(v, str))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for spec, tables in pagetools.vega_charts(at):
        walk(spec)
        for t in tables.values():
            for col in t.columns:
                if t[col].dtype.kind not in "biufc":
                    out.extend(str(v) for v in t[col])
    return out


def chart_tables(at: AppTest) -> dict[str, dict]:
    """Each chart's drawn tables, by the chart's title."""
    return {spec["title"]: tables for spec, tables in pagetools.vega_charts(at)}


def assert_charts_finite(at: AppTest) -> None:
    for spec, tables in pagetools.vega_charts(at):
        for name, t in tables.items():
            numbers = t.select_dtypes("number").to_numpy(dtype=float)
            assert np.isfinite(numbers).all(), (spec["title"], name)


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_loads_with_charts_and_downloads(default_page):
    at = default_page
    assert at.title[0].value == by_key("looseness").title
    assert len(at.get("vega_lite_chart")) == 6
    assert not at.get("plotly_chart")  # every chart is Vega-Lite: no Plotly chunk to load
    # the footer offers each chart's data once
    assert len(pagetools.footer_csvs(at)) == len(at.get("vega_lite_chart"))
    assert not at.warning and not at.error
    pagetools.assert_clean(at)
    assert_charts_finite(at)
    text = body(at)
    assert "n = 8" in text
    assert len([m for m in at.markdown if m.value.startswith("**")]) >= 6  # a takeaway per chart


def test_numbers_shown_are_the_experiments(default_page):
    at, text = default_page, body(default_page)
    demand = cg.noise_demand(8, 0.1)
    assert not at.table and not at.dataframe  # a Markdown table: no grid code to load
    (table,) = pagetools.markdown_tables(at)
    table = table.set_index("route")
    assert list(table.index) == [ROUTE_NAMES[r.route] for r in demand.rows]
    assert list(table["Laplace scale b"]) == [fmt_num(r.scale) for r in demand.rows]
    assert list(table["exact η there"]) == [fmt_num(r.exact_eta) for r in demand.rows]
    # the smallest certified MIP noise is in the table: σ₂ / ln(1/0.8)
    tight = demand.route(Route.MIP_TIGHT)
    assert tight.scale == pytest.approx(demand.sigma / -math.log(0.8))
    assert ROUTE_NAMES[Route.MIP_TIGHT] in list(table.index)
    assert fmt_num(demand.route(Route.SUFFICIENT).scale) in text
    assert fmt_num(demand.multiplier_tight) in text and fmt_num(demand.multiplier_printed) in text
    sigma, delta = prop11.output_moments(8, 2).sigma, prop11.sensitivity(8)
    assert f"σ₂ = {fmt_num(sigma)}" in text and f"Δ = {fmt_num(delta)}" in text


def test_mip_certificate_includes_dimension_free_beside_printed(default_page):
    names = chart_words(default_page)
    assert "MIP: Theorem 9 density, ½(1 − exp(−σ/b))" in names
    assert "MIP: Corollary 14 as printed" in names
    assert "exact η (best possible attack)" in names


@pytest.mark.slow
def test_gap_section_shows_chain_dimension_free_and_exact(default_page):
    at, text = default_page, body(default_page)
    g = cg.dimension_gap(0.1)  # the page's job, recomputed
    names = chart_words(at)
    assert "the paper's proof, redone in d dimensions" in names
    assert "Theorem 9 density, ½(1 − exp(−1/c)): any d" in names
    assert any(n.startswith("best attack: covariance release (Monte Carlo") for n in names)
    assert "best attack: Proposition 11 (exact)" in names
    assert "the best attack at d = 1 is Proposition 11's with n = 8" in text  # its caption
    # the charts draw the page's numbers at n = 8
    demand = cg.noise_demand(8, 0.1)
    tables = chart_tables(at)
    d_eta = tables["Certified η against d, at the printed noise"]
    assert d_eta["point0"]["value"].tolist() == [demand.route(Route.MIP_PRINTED).exact_eta]
    assert d_eta["line0"]["value"].tolist() == pytest.approx(list(g.table["chain_eta"]), rel=1e-12)
    d_noise = tables["Noise needed for the target η, against d"]
    assert d_noise["point0"]["value"].tolist() == [demand.multiplier_sufficient]
    assert "what is enough at d = 1 is for Proposition 11 with n = 8" in text
    assert f"η ≤ {fmt_num(g.tight_eta)} in every dimension" in text
    assert f"only up to d = {g.chain_covers_target_up_to}" in text
    assert f"η = {fmt_num(g.covariance_eta)} for the audit's covariance release" in text
    lo, hi = g.covariance_interval
    assert f"[{fmt_num(lo)}, {fmt_num(hi)}]" in text
    assert f"c = {fmt_num(g.tight_noise)} is certified in every dimension" in text
    # the chart data: chain >= dimension-free, exact below both
    assert (g.table["chain_eta"] >= g.tight_eta).all() and lo <= g.tight_eta
    assert cg.noise_demand(8, 0.1).route(Route.MIP_PRINTED).exact_eta <= g.tight_eta


def test_changing_n_changes_output(default_page):
    at = default_page
    before = snapshot(at)
    specs = [spec for spec, _ in pagetools.vega_charts(at)]
    at.slider(key="n").set_value(6).run()
    assert not at.exception
    assert snapshot(at) != before
    assert "n = 6" in body(at)
    pagetools.assert_clean(at)
    # n changes the charts' tables, never their specifications (redrawn in place)
    assert [spec for spec, _ in pagetools.vega_charts(at)] == specs
    needed = chart_tables(at)["Laplace scale each route needs for the target η"]["bars"]
    assert needed["scale"].tolist() == [r.scale for r in cg.noise_demand(6, 0.1).rows]


@pytest.mark.slow
def test_changing_target_changes_output():
    at = load()
    before = snapshot(at)
    at.slider(key="teta").set_value(0.25).run()
    assert not at.exception
    assert snapshot(at) != before
    assert "η ≤ 0.25" in body(at)
    pagetools.assert_clean(at)


@pytest.mark.slow
def test_other_controls_run_clean():
    at = load(M="4", const="7.5", logy="0", delta="0.2", n="4")
    assert not at.warning and not at.error
    assert len(at.get("vega_lite_chart")) == 6
    pagetools.assert_clean(at)
    assert_charts_finite(at)
    text = body(at)
    assert "Theorem 9 as printed" in text and "σ₄" in text


@pytest.mark.slow
def test_delta_and_log_toggle_change_output(default_page):
    at = default_page
    before = snapshot(at)
    at.slider(key="delta").set_value(0.3).run()
    assert snapshot(at) != before
    t4 = cg.theorem4_tightness(0.3)
    assert fmt_num(t4.max_gap) in body(at)
    before = snapshot(at)
    at.toggle(key="logy").set_value(False).run()
    assert snapshot(at) != before
    before = snapshot(at)
    at.radio(key="const").set_value(7.5).run()
    assert snapshot(at) != before
    assert "Theorem 9 as printed" in body(at)
    pagetools.assert_clean(at)


def test_presenter_mode_loads_clean():
    at = load(present="1")
    pagetools.assert_clean(at)
    assert any(e.label.startswith("Why?") for e in at.expander)


@pytest.mark.parametrize("bad", ["5", "18", "abc"])
def test_invalid_url_n_warns_and_uses_default(bad):
    at = load(n=bad)
    assert any("n=" in w.value and "default" in w.value.lower() for w in at.warning)
    assert at.slider(key="n").value == 8
    assert "n = 8" in body(at)
    assert len(at.get("vega_lite_chart")) == 6


def test_crafted_url_text_cannot_make_links():
    at = load(const="[x](https://evil.example)")
    assert at.warning and all("](" not in w.value for w in at.warning)
    pagetools.assert_clean(at)


def test_no_file_ids_in_page_text_charts_or_csv(default_page):
    at = default_page
    text = body(at) + " ".join(chart_words(at))
    assert not re.search(FILE_ID, text), re.search(FILE_ID, text)
    assert "000:" not in text and "indicator_000" not in text
    assert list(cg.theorem5_table(0.1).columns) == ["n", "eta_indicator", "eta_publish"]
    assert any(n.startswith("TMLR version: 1{D = D*}") for n in chart_words(at))


def test_loads_through_the_app_navigation():
    at = pagetools.load(PAGE, via_app=True, timeout=300, n="6")
    pagetools.assert_clean(at)
    assert at.title[0].value == by_key("looseness").title
    assert "n = 6" in body(at)
