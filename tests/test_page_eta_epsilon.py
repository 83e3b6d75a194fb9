"""AppTest for the page "η and ε (Theorems 4 and 8)" (app_pages/eta_epsilon.py).

Expected numbers are computed here from Theorem 4 (``000_ece03c98c31c7b12.txt``)
with the math module, not copied from the page's output.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pagetools
import pytest
from pagetools import metric, snapshot, texts
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "app_pages/eta_epsilon.py"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=30, **params)


def eta_theorem4(eps: float, delta: float = 0.0) -> float:
    # printed form of Theorem 4 (fine in float at these moderate eps)
    return delta + (1 - delta) / (1 + math.exp(-eps)) - 0.5


def pct(eta: float) -> str:
    return f"{100 * (0.5 + eta):.1f} %"


def sig4(x: float) -> str:
    return f"{x:.4g}"


def assert_no_nan(at: AppTest) -> None:
    for t in texts(at):
        assert not re.search(r"\b(nan|inf|-inf|none)\b", t, flags=re.IGNORECASE), t


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_page_loads_with_charts_downloads_and_maths(default_page):
    at = default_page
    assert at.title[0].value == by_key("eta_epsilon").title
    assert len(at.get("plotly_chart")) == 2
    assert len(at.get("download_button")) == 2
    (exp,) = [e for e in at.expander if e.label == "The maths"]
    assert len(exp.latex) >= 5
    assert not at.warning and not at.error
    assert_no_nan(at)


def test_default_numbers_follow_theorem4(default_page):
    eta = eta_theorem4(1.0)  # 0.2311, accuracy 73.1 %
    assert metric(default_page, "η") == sig4(eta)
    assert any(f"more than **{pct(eta)}**" in t for t in texts(default_page))
    approx = 1.0 / 4
    assert metric(default_page, "small-ε") == sig4(approx)
    assert metric(default_page, "approximation error") == f"{approx - eta:.3g}"


def test_epsilon_slider_changes_the_output():
    at = load()
    before = snapshot(at)
    at.slider(key="eps").set_value(2.0).run()
    assert not at.exception
    assert snapshot(at) != before
    eta = math.tanh(1.0) / 2
    assert metric(at, "η") == sig4(eta)
    assert any(f"more than **{pct(eta)}**" in t for t in texts(at))  # 88.1 %


def test_delta_slider_changes_the_output():
    at = load()
    before = snapshot(at)
    at.slider(key="delta").set_value(0.1).run()
    assert not at.exception
    assert snapshot(at) != before
    eta = eta_theorem4(1.0, 0.1)
    assert metric(at, "η") == sig4(eta)
    assert any("δ/2 = 0.05 comes from δ alone" in t for t in texts(at))


def test_log_delta_toggle_switches_the_control_and_keeps_delta():
    at = load()
    at.slider(key="delta").set_value(0.01).run()
    eta_001 = metric(at, "η")
    at.toggle(key="logd").set_value(True).run()
    assert not at.exception
    keys = [s.key for s in at.slider]
    assert "ldelta" in keys and "delta" not in keys
    assert at.slider(key="ldelta").value == pytest.approx(-2.0)
    assert metric(at, "η") == eta_001  # same δ, other control
    before = snapshot(at)
    at.slider(key="ldelta").set_value(-8.0).run()
    assert not at.exception and snapshot(at) != before
    assert metric(at, "η") == sig4(eta_theorem4(1.0, 1e-8))
    assert at.query_params.get("ldelta") == "-8" and "delta" not in at.query_params
    at.toggle(key="logd").set_value(False).run()
    assert not at.exception
    assert at.slider(key="delta").value == 0.0  # 1e-8 on the 0.001 grid of the linear slider


def test_target_eta_changes_the_inverse():
    at = load()
    before = snapshot(at)
    at.number_input(key="teta").set_value(0.2).run()
    assert not at.exception and snapshot(at) != before
    eps = 2 * math.atanh(2 * 0.2)  # 0.8473
    assert any(f"ε ≤ {sig4(eps)}" in t for t in texts(at))


def test_log_fpr_toggle_changes_the_roc_chart():
    at = load()
    before_texts, before_charts = snapshot(at)
    at.toggle(key="logfpr").set_value(True).run()
    assert not at.exception
    texts_after, charts_after = snapshot(at)
    assert charts_after[0] == before_charts[0]  # η(ε) chart untouched
    assert charts_after[1] != before_charts[1]
    assert '"type":"log"' in charts_after[1].replace(" ", "")
    assert texts_after != before_texts


@pytest.mark.parametrize("target,delta", [(0.5, 0.0), (0.05, 0.2), (0.0, 0.001)])
def test_uncertifiable_target_gives_a_sentence_not_a_traceback(target, delta):
    at = load()
    at.slider(key="delta").set_value(delta).run()
    at.number_input(key="teta").set_value(target).run()
    assert not at.exception
    assert at.warning, "expected a warning sentence"
    assert not any("ε ≤" in t for t in texts(at))
    assert_no_nan(at)


@pytest.mark.parametrize("eps,delta", [(0.0, 0.0), (10.0, 0.5), (0.0, 0.5), (0.01, 0.0)])
def test_extreme_settings_stay_finite(eps, delta):
    at = load()
    at.slider(key="eps").set_value(eps).run()
    at.slider(key="delta").set_value(delta).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2
    eta = eta_theorem4(eps, delta)
    assert metric(at, "η") == (sig4(eta) if eta else "0")
    assert_no_nan(at)


def test_url_sets_the_controls():
    at = load(eps="2", logd="1", ldelta="-3", teta="0.2", logfpr="1")
    assert at.slider(key="eps").value == 2.0
    assert at.toggle(key="logd").value is True
    assert at.slider(key="ldelta").value == -3.0
    assert at.number_input(key="teta").value == 0.2
    assert not at.warning
    assert metric(at, "η") == sig4(eta_theorem4(2.0, 1e-3))
    eps = 2 * math.atanh((2 * 0.2 - 1e-3) / (1 - 1e-3))
    assert any(f"ε ≤ {sig4(eps)}" in t for t in texts(at))


@pytest.mark.parametrize("bad", ["abc", "99", "-1", "nan"])
def test_invalid_url_value_warns_and_falls_back(bad):
    at = load(eps=bad)
    assert at.slider(key="eps").value == 1.0
    assert any("eps=" in w.value for w in at.warning)
    assert metric(at, "η") == sig4(eta_theorem4(1.0))


# --------------------------------------------------------------------------- the chart functions
# The page shows mipcore.plots.bounds_figs.eta_epsilon_chart / roc_chart: memoised per
# setting, built from plain dicts (not add_trace/add_hline), serialised once.

import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402

from mipcore.bounds import eta_from_epsilon  # noqa: E402
from mipcore.plots import bounds_figs  # noqa: E402

GREY = "#8a8f98"


def test_eta_chart_table_is_what_the_figure_draws():
    fig, table = bounds_figs.eta_epsilon_chart(0.37, 0.013)
    exact = table[table.curve == "exact (Theorem 4)"]
    deltas = list(dict.fromkeys(exact.delta))
    assert deltas == [0.0, 1e-5, 1e-3, 1e-2, 0.1, 0.013]  # the reference deltas + the chosen one
    for trace, d in zip(fig.data[: len(deltas)], deltas, strict=True):
        rows = exact[exact.delta == d]
        np.testing.assert_array_equal(trace.x, rows.epsilon)
        np.testing.assert_array_equal(trace.y, rows.eta)
        np.testing.assert_allclose(trace.customdata, 100 * rows.attacker_accuracy)
    assert 0.37 in set(fig.data[0].x)  # the grid holds the chosen epsilon: the curve meets the dot
    names = [t.name for t in fig.data]
    assert names[5] == "δ = 0.013 (chosen)" and fig.data[5].line.width == 3.5
    approx = table[table.curve == "small-epsilon approximation"]
    (ap,) = [t for t in fig.data if (t.name or "").startswith("small-ε")]
    np.testing.assert_array_equal(ap.x, approx.epsilon)
    np.testing.assert_array_equal(ap.y, approx.eta)
    (dot,) = [t for t in fig.data if t.name == "your (ε, δ)"]
    assert dot.x == (0.37,) and dot.y[0] == pytest.approx(float(eta_from_epsilon(0.37, 0.013)))


def test_roc_chart_table_is_what_the_figure_draws_with_exact_kinks():
    eps, delta = 1.3, 0.02
    eta = float(eta_from_epsilon(eps, delta))
    f_star = (1 - delta) / (1 + math.exp(eps))
    for log_axes in (False, True):
        fig, table = bounds_figs.roc_chart(eps, delta, log_axes=log_axes, extra_fpr=(1e-3,))
        by_name = {t.name: t for t in fig.data}
        for column, name in [
            ("tpr_max_mip_2eta", "η-MIP: TPR ≤ min(1, FPR + 2η)"),
            ("tpr_max_dp", "(ε, δ)-DP (Kairouz et al.)"),
            ("tpr_max_theorem8_as_printed", "Theorem 8 as printed: FPR + η"),
            ("random_guessing", "random guessing (TPR = FPR)"),
        ]:
            np.testing.assert_array_equal(by_name[name].x, table.fpr)
            np.testing.assert_array_equal(by_name[name].y, table[column])
        fpr = set(table.fpr)
        for kink in (f_star, 1 - delta, 1 - 2 * eta, 1 - eta, 1e-3):
            assert kink in fpr
        touch = by_name["where they touch: TPR − FPR = 2η"]
        assert touch.x[0] == f_star and touch.y[0] - f_star == pytest.approx(2 * eta)
        assert (fig.layout.xaxis.type == "log") is log_axes
        assert (by_name["(ε, δ)-DP (Kairouz et al.)"].fill == "tozeroy") is not log_axes


def test_memoised_figures_serialise_like_plain_figures_and_hand_out_copies():
    for fig, _ in (
        bounds_figs.eta_epsilon_chart(0.8, 1e-5),
        bounds_figs.roc_chart(0.8, 1e-5, log_axes=True, title="x"),
    ):
        assert isinstance(fig, go.Figure)
        plain = go.Figure.to_dict(fig)  # Plotly's own serialisation, no memo
        first = fig.to_dict()
        assert first == plain
        first["layout"]["title"]["text"] = "changed by a caller"
        first["data"].clear()
        assert fig.to_dict() == plain  # the next serialisation is untouched


def test_figures_from_dicts_match_the_add_hline_construction():
    """The η = 1/2 line and its label are exactly what add_hline(...) drew before."""
    eps = np.linspace(0, 10, 11)
    fig = bounds_figs.eta_epsilon_figure(
        eps, [("δ = 0", eta_from_epsilon(eps))], point=(1.0, float(eta_from_epsilon(1.0)))
    )
    ref = go.Figure().add_hline(
        y=0.5,
        line_dash="dot",
        line_color=GREY,
        annotation_text="η = 1/2: no privacy",
        annotation_position="bottom right",
    )
    assert fig.layout.shapes == ref.layout.shapes
    assert fig.layout.annotations == ref.layout.annotations
    assert fig.layout.yaxis2.overlaying == "y" and fig.data[-1].yaxis == "y2"
