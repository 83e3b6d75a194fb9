"""AppTest for the page "How much leaks, judging from samples alone?" (app_pages/mace.py).

The page is loaded through app.py's navigation (as a user reaches it) and once standalone.
Expected numbers come from :mod:`mipcore.experiments.mace_synthetic` (tested in
``tests/test_mace_synthetic.py``) and :mod:`mipcore.mace`, never from the page.
"""

from __future__ import annotations

import json
import math

import pagetools
import pytest
from pagetools import metric, snapshot, texts, unescaped
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key
from appkit.safe import plain
from mipcore import mace
from mipcore.experiments import mace_synthetic
from mipcore.experiments.mace_synthetic import Shape
from mipcore.plots.formatting import fmt_num, fmt_pct

PAGE = "app_pages/mace.py"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=120, **params)


def assert_clean(at: AppTest) -> None:
    pagetools.assert_clean(at, banned=("nan", "inf", "none"))


def text(at: AppTest) -> str:
    return "\n".join(texts(at))


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_loads_through_the_app_with_charts_and_data(default_page):
    at = default_page
    assert at.title[0].value == by_key("mace").title
    assert not at.get("plotly_chart")  # every chart is Vega-Lite: no Plotly chunk to load
    titles = [spec["title"] for spec, _tables in pagetools.vega_charts(at)]
    assert titles[:2] == [
        "The samples and the true densities",
        "The privacy loss estimated from them",
    ]
    assert titles[2]["text"] == "Advantage estimates, the truth and the DP bound"
    assert titles[3]["text"] == "The estimates as N grows (5 seeds per N)" and len(titles) == 4
    # the unit bridge stays on the advantage chart: subtitle and a top axis in accuracy
    assert titles[2]["subtitle"].startswith("advantage = 2η = 2·accuracy − 1")
    labels = [b.label for b in pagetools.footer_csvs(at)]
    for name in ("mace_samples_loss", "mace_advantage", "mace_drift"):
        assert any(label.startswith(f"{name}.csv") for label in labels), labels
    assert not at.warning
    assert_clean(at)


def test_loads_standalone():
    at = pagetools.load(PAGE, via_app=False, timeout=120)
    assert_clean(at)
    assert not at.get("plotly_chart") and len(at.get("vega_lite_chart")) == 4


def test_numbers_shown_are_the_experiments(default_page):
    at = default_page
    r = mace_synthetic.run()
    est = r.estimate
    assert metric(at, "true advantage") == fmt_num(
        mace_synthetic.true_advantage("normal", 1.0, 0.5)
    )
    assert metric(at, "true advantage") == fmt_num(r.truth)
    assert metric(at, "plug-in estimate") == fmt_num(est.plugin)
    assert metric(at, "held-out estimate") == fmt_num(max(0.0, est.heldout))
    assert metric(at, "held-out 95 % lower bound") == fmt_num(max(0.0, est.heldout_lower))
    bound = mace.dp_privacy_loss_bound(1.0)
    assert metric(at, "tanh bound") == fmt_num(bound)
    captions = [c.value for c in at.caption]
    for a in (r.truth, est.plugin, est.heldout, est.heldout_lower, bound):
        u = mace.units(a, clip=True)
        assert f"η {fmt_num(u.eta)} · accuracy {fmt_pct(u.accuracy)}" in captions
    d = mace_synthetic.drift()
    assert f"at N = 50 and +{fmt_num(d.plugin_bias[-1], 3)} at N = 20000" in text(at)


def test_the_unit_bridge_is_explicit(default_page):
    """Advantage, η and accuracy side by side: 0.4621 = 2 × 0.2311, 73.1 %."""
    t = text(default_page)
    assert "advantage = 2η = 2·accuracy − 1" in t
    assert "advantage ≤ 0.4621, i.e. η ≤ 0.2311, i.e. an attacker is right at most 73.1 %" in t
    assert "z_{1-\\delta/4}" not in t and "z_{1−δ/4}" not in t  # the quantile is in st.latex
    maths = pagetools.unfold(load())
    assert any("\\Phi^{-1}(1-\\delta/4) = 2.241" in x.value for x in maths.latex)


def test_other_page_values_for_mixture_and_prior():
    at = load(shape="mixture", sep="2.5", p="0.3", eps="0.5")
    assert metric(at, "true advantage") == fmt_num(
        mace_synthetic.true_advantage("mixture", 2.5, 0.3)
    )
    assert metric(at, "tanh bound") == fmt_num(mace.dp_privacy_loss_bound(0.5, 0.3))
    assert "blind guess of the majority is right 70 %" in text(at)  # an exact share, exactly
    assert f"(λ = log(p/(1−p)) = {fmt_num(math.log(0.3 / 0.7))})" in text(at)
    assert_clean(at)


def test_the_laplace_pair_is_said_to_be_exactly_s_dp(default_page):
    assert "exactly ε-DP with ε = s = 1 " in text(load(shape="laplace"))
    assert "exactly ε-DP" not in text(default_page) and "λ =" not in text(default_page)


@pytest.mark.parametrize(
    "params",
    [
        {"shape": "laplace"},
        {"sep": "2"},
        {"N": "500"},
        pytest.param({"est": "kde", "N": "500"}, marks=pytest.mark.slow),
        {"p": "0.7"},
        {"bins": "80"},
        {"seed": "7"},
        {"eps": "3"},
        pytest.param({"est": "kde", "N": "500", "bw": "0.3"}, marks=pytest.mark.slow),
    ],
)
def test_each_control_changes_output(default_page, params):
    at = load(**params)
    assert snapshot(at) != snapshot(default_page), params
    assert not at.warning
    assert_clean(at)
    for key, value in params.items():  # URL round trip: the link set the widget
        assert at.query_params[key] == value, (key, at.query_params)


def test_widget_interaction_changes_output_and_url():
    at = load()
    before = snapshot(at)
    at.selectbox(key="shape").set_value(Shape.LAPLACE).run()
    assert not at.exception
    assert snapshot(at) != before
    assert metric(at, "true advantage") == fmt_num(
        mace_synthetic.true_advantage("laplace", 1.0, 0.5)
    )
    assert at.query_params["shape"] == "laplace"
    at.slider(key="eps").set_value(2.0).run()
    assert at.query_params["eps"] == "2"
    assert metric(at, "tanh bound") == fmt_num(mace.dp_privacy_loss_bound(2.0, 0.5))


def test_negative_lower_bound_is_shown_as_zero_with_the_raw_value_kept():
    at = load(sep="0", N="50")
    raw = mace_synthetic.run("normal", 0.0, n=50).estimate.heldout_lower
    assert raw < 0
    assert metric(at, "held-out 95 % lower bound") == "0"
    assert any(fmt_num(raw, 3) in c.value for c in at.caption)
    ((spec, tables),) = [
        (s, t)
        for s, t in pagetools.vega_charts(at)
        if isinstance(s["title"], dict) and s["title"]["text"].startswith("Advantage")
    ]
    estimates = tables["estimates"].set_index("row")
    assert estimates.loc["lower bound", "advantage"] == 0.0  # drawn at max(0, ·)
    assert estimates.loc["lower bound", "raw"] == pytest.approx(raw)
    points = next(layer for layer in spec["layer"][0]["layer"] if layer["mark"]["type"] == "point")
    assert {"field": "raw", "type": "quantitative", "title": "raw value", "format": ".4f"} in (
        points["encoding"]["tooltip"]
    )
    assert_clean(at)


@pytest.mark.parametrize(
    "params, key", [({"p": "2"}, "p"), ({"shape": "cauchy"}, "shape"), ({"N": "10"}, "N")]
)
def test_invalid_url_warns_and_uses_default(default_page, params, key):
    at = load(**params)
    assert any(f"{plain(key)}=" in w.value for w in at.warning)
    assert metric(at, "true advantage") == metric(default_page, "true advantage")
    assert snapshot(at)[1] == snapshot(default_page)[1]


def test_a_crafted_link_cannot_create_markdown_links():
    at = load(shape="x [click](https://example.com)")
    (w,) = at.warning
    assert "](" not in w.value
    assert "[click](https://example.com)" in unescaped(w.value)


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_kde_large_n_is_capped():
    at = load(est="kde", N="8000")
    assert any("5000" in i.value for i in at.info)
    assert_clean(at)


@pytest.mark.parametrize(
    "params",
    [
        {"sep": "4", "p": "0.95", "eps": "0"},
        {"sep": "0", "p": "0.05", "bins": "200", "N": "50"},
        {"shape": "laplace", "sep": "4", "eps": "6", "seed": "1000000"},
    ],
)
def test_extreme_settings_give_sentences(params):
    at = load(**params)
    assert_clean(at)
    assert not at.get("plotly_chart") and len(at.get("vega_lite_chart")) == 4
    assert "Theorem 1" in text(at)


def test_separation_moves_the_tables_not_the_specs(default_page):
    """The first slider (s) changes what the four charts draw, not their specifications:
    Streamlit then redraws them in place instead of building them anew."""
    moved = pagetools.vega_charts(load(sep="2.5"))
    for (a, ta), (b, tb) in zip(pagetools.vega_charts(default_page), moved, strict=True):
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
        assert any(not ta[k].equals(tb[k]) for k in ta)
