"""AppTest for the page "How private is an (ε, δ) guarantee against a membership attacker?"
(app_pages/eta_epsilon.py).

Expected numbers are computed here from Theorem 4, the DP region and Theorem 8 with the math
module (not copied from the page's output, nor from :mod:`mipcore.bounds`, whose functions the
page evaluates; tests/test_bounds.py checks those). What the page makes of them -- the rule of
thumb's quality class, which case of the inverse applies -- is checked here, on the page.
"""

from __future__ import annotations

import math
import re

import pagetools
import pytest
from pagetools import metric, snapshot, texts, unescaped
from streamlit.testing.v1 import AppTest

from appkit import fmt_num, fmt_pct
from appkit.prose import text as prose_text
from appkit.registry import by_key

PAGE = "app_pages/eta_epsilon.py"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=30, **params)


def eta_theorem4(eps: float, delta: float = 0.0) -> float:
    # printed form of Theorem 4 (fine in float at these moderate eps)
    return delta + (1 - delta) / (1 + math.exp(-eps)) - 0.5


def rule_relative_error(eps: float, delta: float = 0.0) -> float:
    """How far the small-ε rule of thumb δ/2 + (1−δ)ε/4 lies above η, relative to η."""
    eta = eta_theorem4(eps, delta)
    return (delta / 2 + (1 - delta) * eps / 4 - eta) / eta


def pct(eta: float) -> str:
    return f"{100 * (0.5 + eta):.1f} %"


def sig4(x: float) -> str:
    return f"{x:.4g}"


def assert_no_nan(at: AppTest) -> None:
    pagetools.assert_clean(at, banned=("nan", "inf", "-inf", "none"), errors=True)


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_page_loads_with_charts_data_and_maths(default_page):
    at = default_page
    assert at.title[0].value == by_key("eta_epsilon").title
    assert not at.get("plotly_chart")  # both charts follow the sliders: drawn by Vega-Lite
    titles = [spec["title"] for spec, _table in pagetools.vega_charts(at)]
    assert titles[0] == "Theorem 4: the η that (ε, δ)-DP implies"
    assert titles[1] == "Theorem 8: which (FPR, TPR) can an attacker reach?" and len(titles) == 2
    assert "The bounds at ε = 1, where η = 0.231." in texts(at)
    labels = [b.label for b in pagetools.footer_csvs(at)]  # the footer's CSV section
    assert any("eta_vs_epsilon.csv" in label for label in labels), labels
    assert any("roc_bounds.csv" in label for label in labels), labels
    exp = pagetools.unfold(load())
    assert len(exp.latex) >= 7
    assert not at.warning and not at.error
    pagetools.assert_clean(at)
    assert_no_nan(at)


def test_standalone_load_is_clean():
    at = pagetools.load(PAGE, via_app=False, timeout=30)
    pagetools.assert_clean(at)


def test_default_numbers_follow_theorem4(default_page):
    eta = eta_theorem4(1.0)  # 0.2311, accuracy 73.1 %
    assert metric(default_page, "η") == sig4(eta)
    assert metric(default_page, "best accuracy") == "73.1 %"  # short: no 73.1059… cut off
    assert any(f"more than **{pct(eta)}**" in t for t in texts(default_page))
    approx = 1.0 / 4
    assert metric(default_page, "small-ε") == sig4(approx)
    assert metric(default_page, "approximation error") == f"{approx - eta:.3g}"


def test_metric_values_are_short_at_every_setting():
    for params in ({"eps": "0.01", "logd": "1", "ldelta": "-12"}, {"eps": "0.5", "delta": "0.5"}):
        for m in load(**params).metric:
            assert len(m.value) <= 12, (m.label, m.value)  # e.g. "2.08 × 10⁻⁸"
    at = load(eps="0", logd="1", ldelta="-12")
    assert metric(at, "best accuracy") == "> 50 %"  # the edge is not rounded away (fmt_pct)
    assert any("50 % + " in t and "percentage points" in t for t in texts(at))
    at = load(eps="10")
    assert metric(at, "best accuracy") == "99.995 %"  # fmt_pct: never "100.0 %" for 1/2 + η < 1


def test_the_sentences_quote_the_bounds_at_the_reference_fpr(default_page):
    """ε = 1, δ = 0, FPR = 10⁻³: DP caps TPR at e·10⁻³, MIP allows 10⁻³ + 2η (170 times as
    much), the printed Theorem 8 only 10⁻³ + η; at FPR 0: δ = 0 against 2η; the kink at
    1/(1 + e); the rule of thumb 8.2 % above η, a fair approximation; the inverse at the
    default target η = 0.1: ε ≤ log 1.5, the rule of thumb's 0.4 is safe but smaller."""
    eta = eta_theorem4(1.0)
    tpr_dp, tpr_mip = math.e * 1e-3, 1e-3 + 2 * eta
    text = "\n".join(texts(default_page))
    assert f"caps the true-positive rate at {fmt_num(tpr_dp)}" in text
    assert f"allows up to {fmt_num(tpr_mip)}" in text
    assert (
        f"({fmt_num(tpr_mip / tpr_dp, 3)} times as much)" in text and round(tpr_mip / tpr_dp) == 170
    )
    assert f"FPR* = {fmt_num(1 / (1 + math.e))}" in text and fmt_num(1 / (1 + math.e)) == "0.2689"
    assert f"DP allows TPR = δ = 0, MIP allows 2η = {fmt_num(2 * eta)}:" in text
    assert f"at a false-positive rate of {fmt_pct(1e-3)}" in text.lower()
    assert f"{fmt_num(100 * rule_relative_error(1.0), 3)} % above the exact value" in text
    assert "a fair approximation" in text  # 8.2 %: between 1 % and 10 %
    assert f"only {fmt_num(1e-3 + eta)} where {fmt_num(tpr_mip)}" in text
    assert f"**ε ≤ {sig4(math.log(1.5))}**" in text
    assert (
        "ε ≈ 4(η − δ/2)/(1 − δ) = 0.4: safe, but smaller than the ε you may actually use." in text
    )


@pytest.mark.parametrize(
    "eps,quality,exceeds",
    [(0.1, "good", False), (0.3, "good", False), (1.0, "fair", False), (1.9, "poor", False),
     (3.0, "poor", True)],
)  # fmt: skip
def test_the_rule_of_thumbs_quality_class(eps, quality, exceeds):
    """Below 1 % relative error good (about ε²/12 for small ε), below 10 % fair, else poor;
    from ε ≈ 2 the rule gives more than 1/2, the largest possible η."""
    at = load(eps=str(eps))
    (caption,) = [c.value for c in at.caption if c.value.startswith("The rule of thumb")]
    assert f"{fmt_num(100 * rule_relative_error(eps), 3)} % above the exact value" in caption
    assert f"a {quality} approximation at this ε" in caption
    assert ("it even exceeds 1/2" in caption) is exceeds
    (help_text,) = [m.proto.help for m in at.metric if m.label == "approximation error"]
    assert f"a {quality} approximation" in help_text


def test_at_epsilon_zero_the_rule_is_exact_and_eta_is_delta_over_two():
    at = load(eps="0", delta="0.1")
    assert metric(at, "approximation error") == "0" and metric(at, "η") == "0.05"
    (help_text,) = [m.proto.help for m in at.metric if m.label == "approximation error"]
    assert "Here: exact at ε = 0." in help_text
    assert not [c for c in at.caption if c.value.startswith("The rule of thumb")]
    assert any("Of the edge η = 0.05, δ/2 = 0.05 comes from δ alone" in t for t in texts(at))
    assert any("DP allows TPR = δ = 0.1, MIP allows 2η = 0.1:" in t for t in texts(at))


def test_the_maths_cites_papers_not_files_and_states_the_advantage():
    exp = pagetools.unfold(load())
    text = "\n".join(m.value for m in exp.markdown)
    assert not re.search(r"\b00\d_|\.txt|`", text), text
    assert "arXiv:2211.06582" in text and "arXiv:2009.05683" in text
    assert "arXiv:1311.0776" in text
    # MACE's tanh(1/2) ≈ 0.462 is an advantage, i.e. 2η, i.e. accuracy ≤ 73.1 %
    assert "0.462 = 2η, i.e. accuracy ≤ 73.1 %" in text
    latex = [x.value for x in exp.latex]
    # the corrected Theorem 8 is split: no single formula holds both Pr[correct] and the bound
    assert not any(r"\Pr[" in x and "2\\eta)" in x for x in latex)
    assert any(r"\min(1,\ \mathrm{FPR} + 2\eta)" in x for x in latex)
    for x in latex:  # each line short enough for ~650 px (aligned blocks count per line)
        for line in x.split(r"\\"):
            assert len(re.sub(r"\\[a-zA-Z]+|[{}]", "", line)) <= 70, line


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
    assert any("DP allows TPR = δ = 0.1," in t for t in texts(at))  # δ at FPR 0


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


@pytest.mark.parametrize("raw,shown", [("1e-6", "1 × 10⁻⁶"), ("2.5e-6", "2.5 × 10⁻⁶")])
def test_a_link_with_a_tiny_delta_opens_the_log_view(raw, shown):
    """?delta=1e-6 on the linear slider would read 0.000: the log view shows it faithfully."""
    at = load(eps="1", delta=raw)
    assert not at.warning and not at.error
    assert at.toggle(key="logd").value is True
    assert [s.key for s in at.slider] == ["eps", "ldelta"]
    assert 10 ** at.slider(key="ldelta").value == pytest.approx(float(raw), rel=1e-12)
    assert f"δ = {shown}" in [c.value for c in at.caption]
    assert metric(at, "η") == sig4(eta_theorem4(1.0, float(raw)))
    assert "delta" not in at.query_params and at.query_params.get("logd") == "1"
    # the rewritten link reproduces the view
    again = load(**{k: at.query_params[k] for k in at.query_params})
    assert snapshot(again) == snapshot(at)


def test_a_link_with_delta_between_the_slider_steps_shows_it_exactly():
    at = load(delta="0.0125")  # the linear slider would show 0.013
    assert at.toggle(key="logd").value is True
    assert "δ = 0.0125" in [c.value for c in at.caption]
    at = load(delta="0.2345")  # above the log range: linear slider, exact value in a caption
    assert at.toggle(key="logd").value is False
    assert any("δ = 0.2345" in c.value for c in at.caption)
    assert metric(at, "η") == sig4(eta_theorem4(1.0, 0.2345))


def test_a_link_with_delta_below_the_log_range_says_so():
    at = load(delta="1e-20")
    assert at.slider(key="ldelta").value == -12.0
    (w,) = at.warning
    assert "10⁻¹²" in w.value and "1 × 10⁻²⁰" in w.value
    assert not at.exception


def test_target_eta_changes_the_inverse():
    at = load()
    before = snapshot(at)
    at.number_input(key="teta").set_value(0.2).run()
    assert not at.exception and snapshot(at) != before
    eps = 2 * math.atanh(2 * 0.2)  # 0.8473
    assert any(f"ε ≤ {sig4(eps)}" in t for t in texts(at))


def test_typed_target_out_of_range_gives_a_sentence():
    at = load()
    at.number_input(key="teta").set_value(0.7).run()
    assert not at.exception
    (err,) = at.error
    assert "outside the allowed range" in err.value and "0.1" in err.value
    eps = math.log(1.5)  # the last good target, 0.1
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


def test_toggle_labels_are_short(default_page):
    for t in [t for t in default_page.toggle if t.key != "present"]:  # the sidebar's own
        assert len(t.label) <= 26, t.label


@pytest.mark.parametrize(
    "target,delta,says",
    [
        (0.5, 0.0, prose_text("eta_epsilon", "no_guarantee")),  # η = 1/2 is no guarantee
        (0.05, 0.2, "no ε can certify η = 0.05: δ alone already gives the attacker an edge of "
         "δ/2 = 0.1 (Theorem 4 at ε = 0)"),  # below δ/2
        (0.0, 0.001, "no ε can certify η = 0: δ alone already gives the attacker an edge of "
         "δ/2 = 0.0005"),
    ],
)  # fmt: skip
def test_uncertifiable_target_gives_a_sentence_not_a_traceback(target, delta, says):
    at = load()
    at.slider(key="delta").set_value(delta).run()
    at.number_input(key="teta").set_value(target).run()
    assert not at.exception
    assert at.warning, "expected a warning sentence"
    assert any(says in w.value for w in at.warning), [w.value for w in at.warning]
    assert not any("ε ≤" in t for t in texts(at))
    assert_no_nan(at)


def test_a_target_of_delta_over_two_is_certified_by_epsilon_zero_only():
    """η = δ/2: only ε = 0 certifies it, and there the rule of thumb is exact."""
    at = load(delta="0.2", teta="0.1")
    (inverse,) = [t for t in texts(at) if "ε ≤" in t]
    assert "**ε ≤ 0** is 0.1-MIP" in inverse
    assert f"no attacker is right more than {fmt_pct(0.6)} of the time" in inverse
    assert "= 0: exact here." in inverse


@pytest.mark.parametrize("eps,delta", [(0.0, 0.0), (10.0, 0.5), (0.0, 0.5), (0.01, 0.0)])
def test_extreme_settings_stay_finite(eps, delta):
    at = load()
    at.slider(key="eps").set_value(eps).run()
    at.slider(key="delta").set_value(delta).run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 2
    eta = eta_theorem4(eps, delta)
    assert metric(at, "η") == (sig4(eta) if eta else "0")
    assert_no_nan(at)


def test_url_sets_the_controls():
    at = load(eps="2", logd="1", ldelta="-3", teta="0.2", logfpr="1")
    assert at.slider(key="eps").value == 2.0
    assert at.toggle(key="logd").value is True
    assert at.slider(key="ldelta").value == -3.0
    assert at.number_input(key="teta").value == 0.2
    assert at.toggle(key="logfpr").value is True
    assert not at.warning
    assert metric(at, "η") == sig4(eta_theorem4(2.0, 1e-3))
    eps = 2 * math.atanh((2 * 0.2 - 1e-3) / (1 - 1e-3))
    assert any(f"ε ≤ {sig4(eps)}" in t for t in texts(at))


def test_url_round_trip():
    """state → URL → a fresh session → the same page."""
    at = load()
    at.slider(key="eps").set_value(2.5).run()
    at.slider(key="delta").set_value(0.02).run()
    at.number_input(key="teta").set_value(0.3).run()
    at.toggle(key="logfpr").set_value(True).run()
    params = {k: at.query_params[k] for k in at.query_params}
    assert params == {"eps": "2.5", "delta": "0.02", "teta": "0.3", "logfpr": "1"}
    fresh = load(**params)
    assert snapshot(fresh) == snapshot(at)


@pytest.mark.parametrize("bad", ["abc", "99", "-1", "nan", "inf"])
def test_invalid_url_value_warns_and_falls_back(bad):
    at = load(eps=bad)
    assert at.slider(key="eps").value == 1.0
    assert any("eps=" in w.value for w in at.warning)
    assert metric(at, "η") == sig4(eta_theorem4(1.0))


@pytest.mark.parametrize("key,bad", [("delta", "1.5"), ("teta", "0.6"), ("teta", "-0.1")])
def test_invalid_delta_or_target_in_a_link_names_the_parameter(key, bad):
    """The controls refuse what mipcore.bounds would: a sentence naming the parameter, and
    the default in its place."""
    at = load(**{key: bad})
    assert any(f"{key}=" in unescaped(w.value) for w in at.warning), [w.value for w in at.warning]
    assert metric(at, "η") == sig4(eta_theorem4(1.0))
    assert any(f"ε ≤ {sig4(math.log(1.5))}" in t for t in texts(at))  # the default target 0.1


def test_crafted_url_text_cannot_make_a_link():
    at = load(eps="[click](https://example.com)", teta="![x](https://e.com/a.png)")
    assert not at.exception
    assert len(at.warning) == 2
    for w in at.warning:
        assert "](" not in w.value  # escaped: shown as text, never a Markdown link
    assert any("[click](https://example.com)" in unescaped(w.value) for w in at.warning)
