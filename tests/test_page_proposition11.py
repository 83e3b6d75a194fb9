"""AppTest for the page "Can a statistic be very sensitive and still barely vary?"
(Proposition 11; app_pages/proposition11.py).

Expected numbers come from ``mipcore.prop11`` (the page must show what mipcore
computes), the noise formulas written out here, and, for small n, a brute-force enumeration
of all halves and all neighbouring pairs at 60 significant digits (``mpmath``), which is what
backs the page's note that the closed form of Δ is "checked against brute-force enumeration".
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import mpmath
import pagetools
import pandas as pd
import pytest
from pagetools import metric, snapshot, texts
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key
from mipcore import prop11
from mipcore.plots.prop11_vega import distribution_vega, growth_vega

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "app_pages/proposition11.py"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=60, **params)


def num(x: float, digits: int = 4) -> str:
    """The number format the page promises: ``digits`` significant digits, plain between
    1e-4 and 1e6, ``m × 10ᵉ`` outside with a superscript exponent, trailing zeros of the
    mantissa dropped (appkit.fmt_num's documented rule)."""
    x = float(x)
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    if 1e-4 <= abs(x) < 1e6:
        if e >= digits:
            return f"{round(x, digits - 1 - e):.0f}"
        return f"{x:.{digits}g}"
    mant, exp = f"{x:.{digits - 1}e}".split("e")
    mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
    sup = str(int(exp)).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    return f"{mant} × 10{sup}"


def digits(text: str) -> str:
    """Certified digits as the page shows them: the same digits, a superscript exponent."""
    if "e" not in text:
        return text
    mant, exp = text.split("e")
    sup = str(int(exp)).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    return f"{mant} × 10{sup}"


def assert_no_nan(at: AppTest) -> None:
    for t in texts(at):
        assert not re.search(r"\b(nan|inf|-inf|none)\b", t, flags=re.IGNORECASE), t


def assert_numbers_match_mipcore(at: AppTest, n: int, M: int = 2) -> None:
    m2 = prop11.output_moments(n, 2)
    mM = prop11.output_moments(n, M)
    assert metric(at, "Δ (sensitivity)") == num(prop11.sensitivity(n))
    assert metric(at, "σ = σ₂") == num(m2.sigma)
    assert metric(at, "σ" + "₂₃₄₅₆₇₈"[M - 2] + f" (M = {M})") == num(mM.sigma)
    assert metric(at, "mean") == num(m2.mean)
    assert metric(at, "𝒜(D") == num(prop11.special_output(n))
    shown = "\n".join(texts(at))
    assert str(math.comb(n, n // 2)) in shown  # C(n, k) in full
    assert f"`{digits(m2.mean_text)}`" in shown and f"`{digits(m2.moment_text)}`" in shown
    if M != 2:
        assert f"`{digits(mM.moment_text)}`" in shown
    # the noise of each route at η = 0.1 (formulas written out here)
    delta, sig = prop11.sensitivity(n), mM.sigma
    assert metric(at, "Δ / σ") == num(delta / sig)
    dp, printed, cert = (
        delta / math.log(1.2 / 0.8),
        (6.16 / 0.1) ** (1 + 2 / M) * sig,
        sig / -math.log(0.8),
    )
    assert metric(at, "DP: Laplace scale") == num(dp)
    assert metric(at, "MIP as printed") == num(printed)
    assert metric(at, "MIP, certified min.") == num(cert)
    dp_over = dp / cert  # between Δ/(2σ) and Δ/σ
    assert f"DP needs {num(dp_over, 3)} times the smallest certified" in shown
    if dp > printed:
        assert f"gives {num(printed)}, {num(dp / printed, 3)} times less than DP." in shown
    else:
        assert f": at this small n more than DP ({num(printed / dp, 3)} times)" in shown
    assert f"is enough, {num(printed / cert, 3)} times less than printed." in shown
    if M > 2:  # the certificate with σ₂ in place of σ_M
        assert f"it would be {num(m2.sigma / -math.log(0.8))}.)" in shown


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_page_loads_with_charts_downloads_notes_and_maths(default_page):
    at = default_page
    assert at.title[0].value == by_key("proposition11").title
    assert not at.get("plotly_chart")  # both charts Vega-Lite: the page loads no Plotly
    assert len(at.get("vega_lite_chart")) >= 2
    assert len(pagetools.footer_csvs(at)) == len(at.get("vega_lite_chart"))
    exp = pagetools.unfold(load())
    assert len(exp.latex) >= 4
    assert not at.warning and not at.error
    (notes,) = [i.value for i in at.info if "Notes on the paper" in i.value]
    assert "Σ 1/x" in notes and "1/Σx" in notes and "standard deviation" in notes
    assert any("upper end" in t for t in texts(at))
    assert_no_nan(at)


def test_default_numbers_match_mipcore(default_page):
    at = default_page
    assert at.slider(key="n").value == 48 and at.selectbox(key="M").value == 2
    assert_numbers_match_mipcore(at, 48)
    shown = "\n".join(texts(at))
    assert "{2⁰, 2¹, …, 2⁴⁶} ∪ {A}" in shown
    assert "8388607" in shown  # 2^23 - 1, the integer part of -A
    assert "certified interval of relative width" in shown  # n = 48 is not enumerated


def test_n_slider_changes_the_output():
    at = load()
    before = snapshot(at)
    at.slider(key="n").set_value(20).run()
    assert not at.exception
    after = snapshot(at)
    assert after[0] != before[0] and after[1] != before[1]
    assert_numbers_match_mipcore(at, 20)
    assert at.query_params.get("n") == "20"


def test_m_select_changes_the_output():
    at = load()
    before = snapshot(at)
    at.selectbox(key="M").set_value(3).run()
    assert not at.exception
    after = snapshot(at)
    assert after[0] != before[0] and after[1] != before[1]
    assert_numbers_match_mipcore(at, 48, 3)
    assert any("The moment order matters" in t for t in texts(at))
    assert at.query_params.get("M") == "3"


@pytest.mark.slow
def test_url_sets_the_controls():
    at = load(n="20", M="4")
    assert at.slider(key="n").value == 20
    assert at.selectbox(key="M").value == 4
    assert not at.warning
    assert_numbers_match_mipcore(at, 20, 4)


@pytest.mark.parametrize("key,bad", [("n", "21"), ("n", "500"), ("n", "abc"), ("M", "1")])
def test_invalid_url_value_warns_and_falls_back(key, bad):
    at = load(**{key: bad})
    assert at.slider(key="n").value == 48 and at.selectbox(key="M").value == 2
    assert any(f"{key}={bad}" in w.value for w in at.warning), [w.value for w in at.warning]
    assert_numbers_match_mipcore(at, 48)
    assert_no_nan(at)


@pytest.mark.parametrize("n", [4, 200])
def test_extreme_n_works_without_nan(n):
    at = load()
    at.slider(key="n").set_value(n).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.get("vega_lite_chart")) >= 2
    assert not at.error
    assert_numbers_match_mipcore(at, n)
    assert_no_nan(at)
    if n == 4:
        assert any("full enumeration" in t for t in texts(at))


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_keys_shared_with_the_figure1_page_do_not_break_navigation():
    """app_pages/noise_vs_eta.py also uses the keys n (a multiselect there) and M."""
    at = load(n="20")
    at.switch_page("app_pages/noise_vs_eta.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key="n").value in range(4, 201, 2)
    assert len(at.get("vega_lite_chart")) >= 2


@pytest.mark.parametrize(
    "n,expect",
    [
        (48, "off by a relative"),
        (56, "off by a relative"),
        (60, "division by zero"),
        (110, "times too large"),
        (150, "negative"),
    ],
)
def test_float64_demonstration(n, expect):
    at = load(n=str(n))
    (exp,) = [e for e in at.expander if e.label.startswith("Why float64 fails")]
    assert any(expect in m.value for m in exp.markdown), [m.value for m in exp.markdown]
    (table,) = [m.value for m in exp.markdown if "float64, summed left to right" in m.value]
    a_value = prop11.dataset(n).a_value
    s = a_value  # the naive sum, summed here
    for i in range(n // 2 - 1):
        s += 2.0**i
    assert f"| {num(s, 6)} | √p = {num(1 / math.sqrt(math.comb(n, n // 2)), 6)} |" in table
    if s == 0:
        assert "| 1/0: division by zero (∞) |" in table
    elif s < 0:
        assert f"| {num(1 / s)} (negative!) |" in table
    else:
        assert f"| {num(1 / s, 6)} |" in table
    # harmless only where the relative error is below 10⁻³: 4.4e-4 at n = 48, 0.30 at n = 56
    assert ("— harmless here" in table) is (n == 48)
    assert f"the nearest multiple of {num(math.ulp(a_value), 3)}, while" in table
    assert f"interval arithmetic at {2 * n + 128} bits." in table
    if n == 48:  # where it breaks, computed (it used to say "from n = 56 on the sum is 0")
        assert any(
            "exactly 0 from n = 58, then far too large from n = 110, then negative from n = 112"
            in m.value
            for m in exp.markdown
        )


@pytest.mark.slow
def test_no_raw_notation_and_short_metrics():
    """n = 200, M = 8: metric values keep their exponent (5.679 × 10⁶ style, short), prose
    has no raw notation (10^-36, e^(...), _{...})."""
    at = load(n="200", M="8")
    assert_no_nan(at)
    for m in at.metric:
        assert len(m.value) <= 14 and ("×" not in m.value or "10" in m.value), m.value
        assert len(m.label) <= 22, m.label
    subtitle = by_key("proposition11").subtitle  # the registry's, not this page's text
    for t in texts(at):
        if t.startswith(("C(200", "Link")) or t == subtitle:  # exact integers (code), the URL
            continue
        for raw in ("^(", "_{", "^-", "e^", "10^", "at most 0 "):
            assert raw not in t, (raw, t)
        assert not re.search(r"\de[-+]?\d", t), t  # no 1.2e-07 style numbers
    assert_numbers_match_mipcore(at, 200, 8)


def test_crafted_url_text_cannot_make_links():
    at = load(n="[x](https://example.com)", M="![](https://example.com/a.png)")
    assert at.warning
    for w in at.warning:
        assert "](" not in w.value
    assert_numbers_match_mipcore(at, 48)


Chart = tuple[dict, dict[str, pd.DataFrame]]


def charts(at: AppTest) -> dict[str, Chart]:
    """The page's Vega-Lite charts (spec, {dataset: table}), by chart key."""
    growth, distribution = pagetools.vega_charts(at)  # in page order
    return {"growth": growth, "distribution": distribution}


def expected_charts(n: int, M: int) -> dict[str, Chart]:
    """The charts of mipcore.plots.prop11_vega for (n, M), built here from mipcore's data."""
    table = prop11.growth_table(range(4, 201, 2), M)
    built = {
        "growth": growth_vega(table, n_chosen=n, M=M)[0],
        "distribution": distribution_vega(prop11.value_histogram(n))[0],
    }
    return {key: (c.spec, c.datasets) for key, c in built.items()}


def same(shown: Chart, want: Chart) -> bool:
    spec, tables = shown
    if spec != want[0] or set(tables) != set(want[1]):
        return False
    for name, table in want[1].items():
        try:
            pd.testing.assert_frame_equal(tables[name], table, check_dtype=False)
        except AssertionError:
            return False
    return True


def test_n_slider_redraws_the_charts_in_place():
    """n is the page's first slider: moving it changes the charts' tables, not their
    specifications (so the browser redraws them in place, without a rebuild)."""
    at = load()
    before = {k: spec for k, (spec, _) in charts(at).items()}
    at.slider(key="n").set_value(20).run()
    after = charts(at)
    assert {k: spec for k, (spec, _) in after.items()} == before
    assert after["growth"][1]["chosen_n"]["n"].tolist() == [20]
    assert any(c.value.startswith("n = 20: the C(20, 10) halves") for c in at.caption)


@pytest.mark.slow
def test_cached_charts_are_the_charts_of_prop11_vega_for_every_input():
    """The page caches built charts per (n, M) and serves them again on later reruns: what
    it shows must stay exactly the chart built from mipcore's numbers for the current
    inputs, however often and in whatever order the inputs change."""
    at = load()
    want = {
        (48, 2): expected_charts(48, 2),
        (20, 2): expected_charts(20, 2),
        (20, 3): expected_charts(20, 3),
    }
    first = charts(at)
    assert all(same(first[k], want[48, 2][k]) for k in first)
    for n, M in [(20, 2), (20, 3), (48, 3), (48, 2), (20, 2), (48, 2)]:
        at.slider(key="n").set_value(n)
        at.selectbox(key="M").set_value(M)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        shown = charts(at)
        if (n, M) in want:
            assert all(same(shown[k], want[n, M][k]) for k in shown), (n, M)
        assert shown["growth"][1]["chosen_n"]["n"].tolist() == [n]
    last = charts(at)  # a cached chart is never mutated by being shown
    assert all(same(last[k], first[k]) for k in last)


@pytest.mark.parametrize("n", [4, 48, 150])
def test_distribution_text_quotes_the_heaviest_ordinary_bin(n):
    at = load(n=str(n))
    hist = pd.DataFrame(prop11.value_histogram(n))
    ordinary = hist[hist["group"] != "special D*"]
    heavy = ordinary.loc[ordinary["probability"].idxmax()]
    (text,) = [m.value for m in at.markdown if "the heaviest bin" in m.value]
    assert f"(here at most {num(ordinary['value_max'].max(), 3)})" in text
    assert (
        f"with probability {num(heavy['probability'], 3)}, holds outputs between "
        f"{num(heavy['value_min'], 3)} and {num(heavy['value_max'], 3)}"
    ) in text


def test_growth_takeaway_quotes_the_last_row(default_page):
    """At n = 200 (the growth table's last row): Δ/σ against ∛(2²⁰⁰)."""
    sigma = prop11.output_moments(200, 2, rtol=1e-9, max_nodes=1500).sigma  # growth_table's
    ratio = prop11.sensitivity(200) / sigma
    assert any(
        f"at n = 200 it is {num(ratio, 3)} against ∛(2²⁰⁰) = {num(2 ** (200 / 3), 3)}" in t
        for t in texts(default_page)
    )


# --------------------------------------------------------------------------- brute force


def _brute_force(n: int):
    """Δ over all neighbouring halves, mean and variance over all halves, at 60 digits."""
    with mpmath.workdps(60):
        k = n // 2
        C = math.comb(n, k)
        a = 1 / mpmath.sqrt(C) - (2 ** (k - 1) - 1)
        records = [mpmath.mpf(2) ** i for i in range(n - 1)] + [a]
        value = {}
        for D in itertools.combinations(range(n), k):
            value[frozenset(D)] = 1 / mpmath.fsum(records[i] for i in D)
        delta = mpmath.mpf(0)
        for D, v in value.items():
            for out in D:
                for into in set(range(n)) - D:
                    delta = max(delta, abs(v - value[(D - {out}) | {into}]))
        mean = mpmath.fsum(value.values()) / C
        var = mpmath.fsum((v - mean) ** 2 for v in value.values()) / C
        return float(delta), float(mean), float(var)


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12])
def test_closed_form_delta_and_moments_match_brute_force(n):
    delta, mean, var = _brute_force(n)
    lo, hi = prop11.sensitivity_interval(n)
    assert lo <= delta <= hi or math.isclose(delta, prop11.sensitivity(n), rel_tol=1e-14)
    m = prop11.output_moments(n, 2)
    assert math.isclose(m.mean, mean, rel_tol=1e-11)
    assert math.isclose(m.moment, var, rel_tol=1e-11) and m.moment >= var * (1 - 1e-15)


@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_the_reading_against_brute_force():
    """Why σ stays about 1: the special half's share p·(1/√p − μ)² against a brute force over
    every half at 60 digits; every other output lies in (0, v_max], v_max (the histogram's
    largest ordinary bin edge) above the largest ordinary output, and the others add at most
    max(v_max, μ)²; Δ = √C − 1/(2ⁿ⁻² + 2ᵏ⁻¹ − 1), also at 60 digits."""
    at = load()
    for n, M in [(4, 2), (8, 2), (8, 3), (10, 4)]:
        at.slider(key="n").set_value(n)
        at.selectbox(key="M").set_value(M)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        k, C = n // 2, math.comb(n, n // 2)
        with mpmath.workdps(60):
            a = 1 / mpmath.sqrt(C) - (2 ** (k - 1) - 1)
            records = [mpmath.mpf(2) ** i for i in range(n - 1)] + [a]
            values = sorted(
                1 / mpmath.fsum(records[i] for i in D) for D in itertools.combinations(range(n), k)
            )
            mean = mpmath.fsum(values) / C
            share = float((values[-1] - mean) ** 2 / C)  # D* gives the largest output
            delta = float(mpmath.sqrt(C) - 1 / mpmath.mpf(2 ** (n - 2) + 2 ** (k - 1) - 1))
        (text,) = [t for t in texts(at) if t.startswith("- **σ stays about 1.**")]
        shown = float(re.search(r"\(here ([0-9.]+)\)", text).group(1))
        assert shown == pytest.approx(share, rel=1e-12)
        ordinary = [r for r in prop11.value_histogram(n) if r["group"] != "special D*"]
        v_max = max(r["value_max"] for r in ordinary)
        assert v_max >= float(values[-2]) * (1 - 1e-15)  # a certified bin edge above it
        assert f"lies in (0, {num(v_max, 3)}]" in text
        rest = max(v_max, prop11.output_moments(n, 2).mean) ** 2
        assert f"together add at most {num(rest, 3)}." in text
        assert f"Δ = {num(delta)} here." in text
        if M > 2:
            assert (
                f"{'σ' + '₂₃₄₅₆₇₈'[M - 2]} = {num(prop11.output_moments(n, M).sigma)} here" in text
            )
        assert_numbers_match_mipcore(at, n, M)


def test_at_n48_the_special_share_and_the_variance_are_at_most_one(default_page):
    (text,) = [t for t in texts(default_page) if t.startswith("- **σ stays about 1.**")]
    assert float(re.search(r"\(here ([0-9.]+)\)", text).group(1)) <= 1.0
    assert float(re.search(r"Hence Var = ([0-9.]+) and σ", text).group(1)) <= 1.0
