"""AppTest for the page "Estimate leakage from samples (MACE)" (app_pages/mace.py), run standalone.

The expected true advantage comes from :mod:`mipcore.lessons.mace_synthetic` (itself checked against
numerical integration in ``tests/test_mace_truth.py``), not from the page's output.
"""

from __future__ import annotations

import pagetools
import pytest
from pagetools import metric, snapshot
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key
from appkit.safe import plain
from mipcore import mace
from mipcore.lessons import mace_synthetic
from mipcore.plots.formatting import fmt_num

PAGE = "app_pages/mace.py"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=120, **params)


def assert_clean(at: AppTest) -> None:
    pagetools.assert_clean(at, banned=("nan", "inf", "none"))


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_loads_with_charts_and_downloads(default_page):
    at = default_page
    assert at.title[0].value == by_key("mace").title
    assert len(at.get("plotly_chart")) >= 3
    assert len(at.get("download_button")) >= 3
    assert not at.warning
    assert_clean(at)


def test_true_advantage_matches_mace_truth(default_page):
    assert metric(default_page, "true advantage") == fmt_num(
        mace_synthetic.true_advantage("normal", 1.0, 0.5)
    )
    at = load(shape="mixture", sep="2.5", p="0.3", eps="0.5")
    assert metric(at, "true advantage") == fmt_num(
        mace_synthetic.true_advantage("mixture", 2.5, 0.3)
    )
    assert metric(at, "tanh bound") == fmt_num(mace.dp_privacy_loss_bound(0.5, 0.3))
    assert_clean(at)


@pytest.mark.parametrize(
    "params",
    [
        {"shape": "laplace"},
        {"sep": "2"},
        {"N": "500"},
        {"est": "kde"},
        {"p": "0.7"},
        {"bins": "80"},
        {"seed": "7"},
    ],
)
def test_each_control_changes_output(default_page, params):
    at = load(**params)
    assert snapshot(at) != snapshot(default_page), params
    assert not at.warning
    assert_clean(at)


def test_widget_interaction_changes_output(default_page):
    at = load()
    before = snapshot(at)
    at.selectbox(key="shape").set_value("laplace").run()
    assert not at.exception
    assert snapshot(at) != before
    assert metric(at, "true advantage") == fmt_num(
        mace_synthetic.true_advantage("laplace", 1.0, 0.5)
    )


@pytest.mark.parametrize(
    "params, key", [({"p": "2"}, "p"), ({"shape": "cauchy"}, "shape"), ({"N": "10"}, "N")]
)
def test_invalid_url_warns_and_uses_default(default_page, params, key):
    at = load(**params)
    assert any(f"{plain(key)}=" in w.value for w in at.warning)
    assert metric(at, "true advantage") == metric(default_page, "true advantage")
    assert snapshot(at)[1] == snapshot(default_page)[1]


def test_kde_large_n_is_capped():
    at = load(est="kde", N="8000")
    assert any("5000" in i.value for i in at.info)
    assert_clean(at)
