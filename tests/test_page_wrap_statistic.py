"""AppTest for the page "How much noise would my own statistic need?" (app_pages/wrap_statistic.py).

The page is run on its own (``AppTest.from_file`` of the page script) and through app.py's
navigation. Expected numbers come from ``mipcore.experiments.statistic_release`` on the same
inputs, with the clipping bounds computed here independently: the page must show what
mipcore computes. Uploads go through AppTest's ``file_uploader(...).set_value``.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pagetools
import pandas as pd
import pytest
from pagetools import metric, texts, unescaped
from streamlit.testing.v1 import AppTest

from appkit import cache, fmt_num
from appkit.registry import by_key
from appkit.safe import plain
from mipcore import tabular
from mipcore.experiments import statistic_release as wrap
from mipcore.plots import wrap_vega

PAGE = "app_pages/wrap_statistic.py"
DEFAULTS = dict(
    src="generated",
    n=2000,
    d=3,
    dseed=0,
    stat="mean",
    eta=0.2,
    M=2,
    radius="tight",
    B=64,
    seed=0,
    widen=1.0,
)
NO_DP = "No DP release for"
NNBSP = "\u202f"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=60, **params)


def snapshot(at: AppTest) -> tuple:
    charts = tuple(
        (json.dumps(spec), {k: t.to_csv() for k, t in tables.items()})
        for spec, tables in pagetools.vega_charts(at)
    )
    return tuple(texts(at)), charts, table(at).to_csv()


def n_charts(at: AppTest) -> int:
    """How many charts the page draws (all Vega-Lite: the page loads no Plotly)."""
    assert not at.get("plotly_chart")
    return len(at.get("vega_lite_chart"))


def table(at: AppTest) -> pd.DataFrame:
    """The releases table (the one dataframe with a "quantity" column)."""
    (tab,) = [d for d in at.dataframe if "quantity" in d.value.columns]
    return tab.value


def assert_no_nan(at: AppTest) -> None:
    pagetools.assert_clean(at, banned=("nan", "inf", "none"))
    tab = table(at)
    for col in tab.columns[1:]:
        for v in tab[col]:
            assert isinstance(v, str) and v.lower() not in ("nan", "none", ""), (col, v)


def expected(data: pd.DataFrame, p: dict) -> wrap.WrapResult:
    """wrap_statistic on the page's inputs, bounds computed here: the data range ([min, min + 1]
    for a constant column), widened about its centre."""
    x = data.to_numpy(dtype=float)
    lo, hi = x.min(axis=0), x.max(axis=0)
    hi = np.where(hi > lo, hi, lo + 1.0)
    pad = (p["widen"] - 1.0) * (hi - lo) / 2.0
    return wrap.wrap_statistic(
        data,
        p["stat"],
        p["eta"],
        M=p["M"],
        B=p["B"],
        rng=p["seed"],
        lo=lo - pad,
        hi=hi + pad,
        calibration=p["radius"],
    )


def generated(p: dict) -> pd.DataFrame:
    return wrap.make_dataset(p["stat"], p["n"], p["d"], p["dseed"])


def assert_matches(at: AppTest, res: wrap.WrapResult) -> None:
    """Every number of the table and the metrics is mipcore's, formatted by fmt_num."""
    shown = table(at)
    want = res.table()
    # "#" (the charts' x positions) first, the names last: a long name never hides a number
    assert list(shown.columns) == ["#", *want.columns[1:], "quantity"]
    assert shown["#"].tolist() == list(range(1, res.k + 1))
    assert shown["quantity"].tolist() == want["quantity"].tolist()
    for col in want.columns[1:]:
        assert shown[col].tolist() == [fmt_num(v) for v in want[col]], col
    assert metric(at, "MIP noise multiplier c") == fmt_num(res.mip.c)
    assert metric(at, "ε (DP at") == fmt_num(res.epsilon)
    assert metric(at, "DP sensitivity Δ") == fmt_num(res.sensitivity)
    assert metric(at, "DP Laplace scale") == fmt_num(res.dp_scale)
    assert any(f"k = {res.k} released number" in t for t in texts(at))
    n_train = f"({len(res.mip.train_index):,} of".replace(",", NNBSP)
    assert any(n_train in t for t in texts(at))


def with_defaults(**changes) -> dict:
    return DEFAULTS | changes


def chart_strings(at: AppTest) -> list[str]:
    """Every string in every chart's spec and tables (titles, names, tick labels, tooltips)."""
    out: list[str] = []

    def walk(node) -> None:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)

    for spec, tables in pagetools.vega_charts(at):
        walk(spec)
        for t in tables.values():
            walk([str(v) for v in t.select_dtypes(exclude="number").to_numpy().ravel()])
    return out


# --------------------------------------------------------------------------- generated data


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_default_page_shows_table_charts_downloads_and_maths(default_page):
    at = default_page
    assert at.title[0].value == by_key("wrap").title
    assert n_charts(at) == 2
    labels = [b.label for b in pagetools.footer_csvs(at)]  # the footer's CSVs, one per chart
    assert len(labels) == 2 and any("wrap_spread_mean.csv" in x for x in labels), labels
    assert not at.error
    (warning,) = at.warning  # only the note that bounds read off the data are not private
    assert "not private" in warning.value and "in advance" in warning.value
    exp = pagetools.unfold(at)
    assert len(exp.latex) >= 5
    maths = "\n".join(x.value for x in exp.latex)
    assert "Gamma" in maths and r"\log\frac{1+2\eta}{1-2\eta}" in maths and "|^M" in maths
    assert r"\ln(1-2\eta)" in maths and r"1 - e^{-1/c}" in maths
    assert len(table(at)) == 3
    assert_no_nan(at)


def test_default_numbers_equal_mipcore(default_page):
    p = DEFAULTS
    res = expected(generated(p), p)
    assert_matches(default_page, res)
    # widen = 1 hands wrap_statistic exactly the data range, i.e. its own default bounds
    same = wrap.wrap_statistic(generated(p), "mean", 0.2, M=2, B=64, rng=0)
    np.testing.assert_array_equal(same.dp, res.dp)
    np.testing.assert_array_equal(same.mip.theta_hat, res.mip.theta_hat)
    assert metric(default_page, "Certified: best attacker") == "≤ 70 %"  # 1/2 + 0.2, exact


def test_default_is_the_tight_certified_calibration(default_page):
    shown = "\n".join(texts(default_page))
    res = expected(generated(DEFAULTS), DEFAULTS)
    comp = wrap.compare_generated("mean", 2000, 3, 0, 0.2)
    assert res.mip.calibration is wrap.MipCalibration.TIGHT
    assert "**Certified η-MIP with η = 0.2:** no attacker is right more than 70 %" in shown
    assert f"c = {fmt_num(res.mip.c, 4)} is the smallest c" in shown
    assert (
        f"c = {fmt_num(comp.constant(wrap.MipCalibration.PAPER))}, would add {fmt_num(comp.paper_to_tight, 3)}×"
        in shown
    )


def test_verdict_is_computed_and_dp_wins_on_an_ordinary_mean(default_page):
    shown = "\n".join(texts(default_page))
    assert "**For this data DP adds less noise**" in shown
    res = expected(generated(DEFAULTS), DEFAULTS)
    threshold = 3 * res.mip.c * res.epsilon  # k·c·ε with k = 3 means
    assert f"k·c·ε = **{fmt_num(threshold)}**" in shown
    ratio = res.sensitivity / res.mip.sigma
    assert f"Δ/σⱼ is between {fmt_num(ratio.min(), 3)} and {fmt_num(ratio.max(), 3)}" in shown
    assert any("Proposition 11" in t for t in texts(default_page))  # the pointer to Prop. 11
    comp = wrap.compare_generated("mean", 2000, 3, 0, 0.2)
    assert f"MIP landed closer to θ than DP on {comp.single[1]} of {comp.single[0]}" in shown


def test_charts_show_the_tables_they_offer(default_page):
    at = default_page
    res = expected(generated(DEFAULTS), DEFAULTS)
    (err, err_tables), (spread, spread_tables) = pagetools.vega_charts(at)
    bars = err_tables["bars"]
    mip_bar = bars[bars["release"] == wrap_vega.MIP_BAR].sort_values("position")
    dp_bar = bars[bars["release"] == wrap_vega.DP_BAR].sort_values("position")
    np.testing.assert_allclose(mip_bar["error"], np.abs(res.mip.theta_hat - res.mip.theta))
    np.testing.assert_allclose(dp_bar["error"], np.abs(res.dp - res.mip.theta))
    (layer,) = err["layer"]
    assert layer["encoding"]["y"]["scale"]["type"] == "log"
    assert list(mip_bar["tick"]) == ["mean(x1)", "mean(x2)", "mean(x3)"]
    names = set(spread_tables["medians"]["release"])
    assert {n.split(":")[0] for n in names} == {"MIP (Algorithm 1)", "DP Laplace"}
    for spec in (err, spread):
        assert len(spec["title"]) <= 55, spec["title"]  # fits a 1024-px window


@pytest.mark.parametrize(
    "widget,key,value",
    [
        ("selectbox", "stat", "covariance"),
        ("slider", "eta", 0.05),
        ("selectbox", "M", 4),
        ("radio", "radius", "as_printed"),
        ("radio", "radius", "paper"),
        ("slider", "widen", 3.0),
    ],
)
def test_each_control_changes_the_output_and_matches_mipcore(widget, key, value):
    at = load()
    before = snapshot(at)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception, [e.value for e in at.exception]
    after = snapshot(at)
    assert after[0] != before[0] and after[1] != before[1] and after[2] != before[2]
    p = with_defaults(**{key: value})
    assert_matches(at, expected(generated(p), p))
    assert at.query_params.get(key) == str(
        value if not isinstance(value, float) or not value.is_integer() else int(value)
    )
    assert_no_nan(at)


def test_widening_the_bounds_scales_the_mean_sensitivity():
    at = load(widen="2")
    base = expected(generated(DEFAULTS), DEFAULTS)
    assert metric(at, "DP sensitivity Δ") == fmt_num(2 * base.sensitivity)
    assert any("widened 2×" in w.value for w in at.warning)


# --------------------------------------------------------------------------- calibrations


def test_as_printed_with_several_numbers_is_never_called_eta_mip():
    at = load(radius="as_printed")
    (flag,) = [w.value for w in at.warning if "printed Laplace radius" in w.value]
    assert "not certified for d > 1" in flag.lower()
    assert "no proof covers the printed Laplace radius in more than one dimension" in flag
    assert "k = 3" in flag
    for t in texts(at):
        assert "η-MIP" not in t, t  # an uncertified release is never called η-MIP
    assert metric(at, "Certified: best attacker") == "no guarantee"
    comp = wrap.compare_generated("mean", 2000, 3, 0, 0.2, calibration="as_printed")
    assert f"about {fmt_num(comp.printed_to_tight, 3)}× less noise" in flag


def test_as_printed_with_one_number_is_certified():
    at = load(radius="as_printed", d="1")
    assert not [w for w in at.warning if "printed Laplace radius" in w.value]
    (note,) = [i.value for i in at.info if "same noise" in i.value]
    assert note.startswith("**Certified η-MIP with η = ")
    assert metric(at, "Certified: best attacker").startswith("≤ 50.0")


def test_papers_constant_is_certified_with_its_margin_known_values():
    """η = 0.1, M = 2: c = 3795 certifies η = 0.00013; the tight c needs 847× less noise."""
    at = load(radius="paper", eta="0.1")
    shown = "\n".join(texts(at))
    assert "**Certified η-MIP with η = 0.1, with a large margin:**" in shown
    assert "c = 3795 certifies η = 0.00013 in every dimension" in shown
    assert "far below the 0.1 asked" in shown and "c = 4.48: 847× less noise" in shown
    assert metric(at, "MIP noise multiplier c") == "3795"


@pytest.mark.parametrize("legacy", ["gamma", "theorem9"])
def test_old_radius_links_open_the_papers_constant(legacy):
    at = load(radius=legacy)
    assert not at.warning or all("not private" in w.value for w in at.warning)
    assert at.radio(key="radius").value is wrap.MipCalibration.PAPER
    assert_matches(at, expected(generated(DEFAULTS), with_defaults(radius="paper")))
    assert at.query_params.get("radius") == "paper"


# --------------------------------------------------------------------------- other settings


def test_linear_regression_has_no_dp_release():
    at = load(stat="linear regression")
    shown = "\n".join(texts(at))
    assert NO_DP + " linear regression" in shown and "sensitivity is unbounded" in shown
    assert "**MIP only.**" in shown
    tab = table(at)
    assert set(tab["DP Laplace release"]) == {"—"}
    assert metric(at, "DP sensitivity Δ") == "—" and metric(at, "DP Laplace scale") == "—"
    assert not [s for s in at.slider if s.key == "widen"]  # nothing to widen without DP
    assert not [w for w in at.warning if "not private" in w.value]
    p = with_defaults(stat="linear regression")
    res = expected(generated(p), p)
    assert res.sensitivity is None
    assert_matches(at, res)
    assert_no_nan(at)


def test_url_sets_every_control():
    q = dict(
        stat="covariance",
        eta="0.35",
        M="3",
        radius="as_printed",
        B="32",
        seed="7",
        n="500",
        d="2",
        dseed="5",
        widen="1.5",
    )
    at = load(**q)
    assert not at.warning or all(
        "not private" in w.value or "printed" in w.value for w in at.warning
    )
    p = dict(
        src="generated",
        n=500,
        d=2,
        dseed=5,
        stat="covariance",
        eta=0.35,
        M=3,
        radius="as_printed",
        B=32,
        seed=7,
        widen=1.5,
    )
    assert_matches(at, expected(generated(p), p))
    assert len(table(at)) == 4  # E[x_a x_b] for a, b in 1..2


@pytest.mark.parametrize(
    "key,bad",
    [
        ("eta", "0.7"),
        ("eta", "abc"),
        ("M", "9"),
        ("stat", "median"),
        ("radius", "poisson"),
        ("B", "20"),
        ("B", "1000"),
        ("n", "10"),
        ("n", "1e9"),
        ("d", "0"),
        ("src", "ftp"),
        ("widen", "0.5"),
        ("seed", "-1"),
        ("stat", "[click](http://evil)"),
    ],
)
def test_invalid_url_value_warns_and_falls_back(key, bad):
    at = load(**{key: bad})
    (w,) = [w.value for w in at.warning if f"{plain(key)}={plain(bad)}" in w.value]
    assert "Using the default" in w and "](" not in w
    assert_matches(at, expected(generated(DEFAULTS), DEFAULTS))


def test_regression_with_one_column_is_prevented_with_a_sentence():
    """d = 1 with linear regression (a link, or switching from the mean) becomes d = 2, and
    the page says why; the d slider then starts at 2."""
    at = load(stat="linear regression", d="1")
    assert not at.exception and not at.error
    (note,) = [i.value for i in at.info if "needs at least two columns" in i.value]
    assert "so d is 2 here, not 1" in note
    assert at.slider(key="d").value == 2 and at.slider(key="d").min == 2
    p = with_defaults(stat="linear regression", d=2)
    assert_matches(at, expected(generated(p), p))
    at = load(d="1")  # the mean with one column, then switch to regression
    at.selectbox(key="stat").set_value("linear regression").run()
    assert not at.exception and not at.error
    assert at.slider(key="d").value == 2
    assert any("needs at least two columns" in i.value for i in at.info)
    assert n_charts(at) == 2


def test_extreme_sizes_work():
    at = load(n="50", d="10", stat="covariance", B="16")
    assert not at.error
    assert len(table(at)) == 100
    p = with_defaults(n=50, d=10, stat="covariance", B=16)
    assert_matches(at, expected(generated(p), p))
    assert_no_nan(at)
    (_, err), (_, spread) = pagetools.vega_charts(at)
    assert list(spread["sigma"]["tick"]) == [str(i) for i in range(1, 101)]  # by position
    assert set(err["bars"]["tick"]) == {str(i) for i in range(1, 101)}
    assert any("1 to 100" in c.value and "hover for the name" in c.value for c in at.caption)


def test_a_heavy_setting_runs_as_a_job_with_the_same_numbers(monkeypatch):
    """Above HEAVY_WORK the page hands the comparison to appkit.jobs.run (its own process);
    the numbers are the lesson's. (The threshold is lowered to 0 to keep the test small.)"""
    cache.clear()
    monkeypatch.setattr(wrap, "HEAVY_WORK", 0.0)
    at = load(n="300", seed="11")
    p = with_defaults(n=300, seed=11)
    assert_matches(at, expected(generated(p), p))
    assert n_charts(at) == 2


# --------------------------------------------------------------------------- uploads


def upload(content: bytes, name: str = "data.csv", **params: str) -> AppTest:
    at = load(src="upload CSV", **params)
    at.file_uploader(key="upload").set_value((name, content, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def good_csv() -> bytes:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 2))
    lines = ["a,b,label,c"] + [f"{u:.6f},{v:.6f},row{i},{u + v:.6f}" for i, (u, v) in enumerate(x)]
    lines[5] = "1.0,nan,x,2.0"  # a row with a missing value
    lines[9] = "inf,1.0,y,2.0"  # and one with an infinite value
    return ("\n".join(lines) + "\n").encode()


def test_upload_source_without_a_file_asks_for_one_and_states_the_limits():
    at = load(src="upload CSV")
    assert at.radio(key="src").value == "upload CSV"
    assert any("upload a CSV file above" in i.value for i in at.info)
    assert not at.error and not n_charts(at)
    label = at.file_uploader(key="upload").proto.label
    limits = f"up to 5 MB, 40 columns of which at most 20 numeric, 200{NNBSP}000 rows"
    assert label == f"CSV file: {limits}"
    assert tabular.MAX_UPLOAD_BYTES == 5 * 10**6  # the uploader's 5 MB (server.maxUploadSize)


@pytest.mark.parametrize("stat", ["mean", "linear regression"])
def test_good_upload_gives_notes_table_and_mipcore_numbers(stat):
    raw = good_csv()
    at = upload(raw, stat=stat)
    assert not at.error
    infos = [unescaped(i.value) for i in at.info]
    assert "Dropped 1 non-numeric column: “label”." in infos
    assert "Dropped 2 rows with a missing, non-numeric or infinite value." in infos
    parsed = tabular.parse_numeric_csv(raw)
    assert list(parsed.data.columns) == ["a", "b", "c"]
    caption = [unescaped(c.value) for c in at.caption if "Read “data.csv”" in unescaped(c.value)]
    assert caption == ["Read “data.csv”: 298 rows of 3 numeric columns: “a”, “b”, “c”."]
    assert_matches(at, expected(parsed.data, with_defaults(stat=stat)))
    assert n_charts(at) == 2
    assert_no_nan(at)


def _reason(raw: bytes) -> str:
    try:
        tabular.parse_numeric_csv(raw)
    except tabular.UploadRejected as exc:
        return str(exc)
    raise AssertionError("mipcore accepted the file")


BAD_UPLOADS = {
    "empty": b"",
    "binary": bytes(range(256)) * 4,
    "nul bytes": b"a,b\n1,\x002\n" * 10,
    "ragged": b"a,b\n1,2\n3,4,5\n6,7\n" + b"8,9\n" * 10,
    "non-numeric only": b"name,city\n" + b"ann,paris\nbob,oslo\n" * 10,
    "too few rows": b"a,b\n1,2\n3,4\n5,6\n",
    "header only": b"a,b,c\n",
    "too many rows": b"a\n" + b"1\n" * (tabular.MAX_ROWS + 1),
    "too many columns": (
        "\n".join([",".join(f"c{i}" for i in range(25))] + [",".join("1" for _ in range(25))] * 10)
    ).encode(),
    "too large": b"a,b\n" + b"1.0,2.0\n" * (tabular.MAX_UPLOAD_BYTES // 8 + 1),
    "only 1e308": ("a,b\n" + "".join(f"{(-1) ** i}e308,{i}\n" for i in range(12))).encode(),
}


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_bad_upload_gives_an_error_sentence(case):
    raw = BAD_UPLOADS[case]
    reason = _reason(raw)
    at = upload(raw)
    (err,) = at.error
    assert unescaped(err.value).startswith(f"This file cannot be used: {reason}."), err.value
    assert "Accepted: up to 5 MB" in unescaped(err.value)
    assert "Traceback" not in err.value and "one bound per column" not in err.value
    assert not n_charts(at) and not list(at.dataframe)
    assert " — " in reason  # every refusal names its cause, then the fix


def test_plus_minus_1e308_rows_are_dropped_with_a_note_and_the_rest_is_released():
    rows = [f"{i},{(i * 7) % 5}" for i in range(30)] + [f"{(-1) ** i}e308,1" for i in range(4)]
    raw = ("a,b\n" + "\n".join(rows) + "\n").encode()
    for stat in ("mean", "covariance"):
        at = upload(raw, stat=stat, widen="10")
        assert not at.error, [e.value for e in at.error]
        notes = [unescaped(i.value) for i in at.info]
        assert any(n.startswith("Dropped 4 rows with a value above 10¹⁰⁰") for n in notes)
        data = tabular.parse_numeric_csv(raw).data
        assert len(data) == 30
        assert_matches(at, expected(data, with_defaults(stat=stat, widen=10.0)))
        assert_no_nan(at)


def test_regression_on_a_one_column_upload_names_the_fix():
    raw = b"x\n" + b"".join(f"{i}\n".encode() for i in range(20))
    at = upload(raw, stat="linear regression")
    assert not at.error
    (w,) = [unescaped(w.value) for w in at.warning]
    assert "needs at least two numeric columns" in w and "this file has one, “x”" in w
    assert "Choose the mean or the second moments" in w
    assert not n_charts(at)
    at.selectbox(key="stat").set_value("mean").run()  # the fix works
    assert not at.warning or all("not private" in x.value for x in at.warning)
    assert n_charts(at) == 2


def test_upload_with_a_constant_column_works():
    raw = b"a,b\n" + b"".join(f"{i},5\n".encode() for i in range(40))
    at = upload(raw, stat="covariance")
    assert not at.error
    data = tabular.parse_numeric_csv(raw).data
    res = expected(data, with_defaults(stat="covariance"))
    assert_matches(at, res)
    # at widen = 1 the page's bounds are wrap_statistic's own default ones
    same = wrap.wrap_statistic(data, "covariance", 0.2, M=2, B=64, rng=0)
    assert same.sensitivity == res.sensitivity
    np.testing.assert_array_equal(same.dp, res.dp)
    assert_no_nan(at)
    at.slider(key="widen").set_value(2.0).run()  # the [5, 6] box of b widens to [4.5, 6.5]
    assert not at.error
    assert_matches(at, expected(data, with_defaults(stat="covariance", widen=2.0)))


@pytest.mark.parametrize("raw", [good_csv(), BAD_UPLOADS["ragged"]], ids=["accepted", "refused"])
def test_an_upload_is_parsed_once_per_content(monkeypatch, raw):
    """Reruns (the same view, another statistic) reuse the parse; a refusal is remembered too."""
    cache.clear()
    calls: list[int] = []
    real = tabular.parse_numeric_csv

    def counting(data, **kwargs):
        calls.append(len(data))
        return real(data, **kwargs)

    monkeypatch.setattr(tabular, "parse_numeric_csv", counting)
    at = upload(raw)
    shown = snapshot(at) if not at.error else tuple(e.value for e in at.error)
    at.run()
    at.run()
    assert (snapshot(at) if not at.error else tuple(e.value for e in at.error)) == shown
    at.selectbox(key="stat").set_value("covariance").run()
    assert not at.exception
    assert calls == [len(raw)], calls


CRAFTED = [
    "[click](http://evil)",
    "<img src=x onerror=alert(1)>",
    "`rm -rf /`",
    "<a href=x>y</a>",
    "y",
]


@pytest.mark.parametrize("stat", ["mean", "linear regression"])
def test_crafted_headers_stay_text_on_the_page_and_in_the_charts(stat):
    header = ",".join(CRAFTED)
    rows = [",".join(f"{(i * (j + 3)) % 11}.{j}" for j in range(len(CRAFTED))) for i in range(30)]
    raw = (header + "\n" + "\n".join(rows) + "\n").encode()
    at = upload(raw, name="[x](http://evil).csv", stat=stat)
    assert not at.error
    for t in texts(at):
        assert "](" not in t, t  # no Markdown link can form
        assert not re.search(r"(?<!\\)<(img|a\b)", t), t  # "<" escaped: no HTML element
        assert not re.search(r"(?<!\\)`rm", t), t  # backticks escaped: no code span
    shown = "\n".join(unescaped(t) for t in texts(at))
    assert "“[click](http://evil)”" in shown and "“[x](http://evil).csv”" in shown
    assert "“<img src=x onerror=alert(1)>”" in shown  # shown as typed
    # Vega-Lite draws names as SVG text and tooltips escaped: they are data, as typed, never
    # part of the specification (where a title or label could be markup)
    for spec, _ in pagetools.vega_charts(at):
        assert "<img" not in json.dumps(spec) and "<a " not in json.dumps(spec)
    strings = chart_strings(at)
    assert strings, "no chart"
    assert not any("&lt;" in s for s in strings)  # not escaped twice
    assert any("<img src=x onerror=alert(1)>" in s for s in strings)  # the full name: tooltip
    assert any("(<img src=x" in s and s.endswith("…") for s in strings)  # a cut tick label


# --------------------------------------------------------------------------- figure builders


@pytest.mark.parametrize(
    "comp",
    [
        wrap.compare_generated("mean", 200, 3, 0, 0.2, B=16),
        wrap.compare_generated("linear regression", 200, 4, 0, 0.2, B=16),
        wrap.compare_generated("covariance", 100, 6, 0, 0.1, B=16, calibration="paper"),
    ],
    ids=["mean", "regression", "36 numbers"],
)
def test_chart_builders_headless(comp):
    for builder in (wrap_vega.error_vega, wrap_vega.spread_vega):
        chart, _ = builder(comp)
        ticks = set()
        for t in chart.datasets.values():
            assert not t.isna().any().any()
            ticks |= set(t["tick"])
        assert len(ticks) == comp.release.k  # one place per released number
        assert all(len(t.rstrip("\u200b")) <= wrap_vega.LABEL_CHARS for t in ticks)


# --------------------------------------------------------------------------- through app.py


@pytest.mark.slow
def test_through_app_navigation():
    """Under app.py's st.navigation, after pages that share its URL keys with other types."""
    at = AppTest.from_file(str(pagetools.APP), default_timeout=60)
    at.run()
    assert not at.exception
    at.switch_page("app_pages/proposition11.py")
    at.query_params["n"] = "8"  # proposition11 shares the keys n and M (other types/ranges)
    at.query_params["M"] = "3"
    at.run()
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == by_key("wrap").title
    assert n_charts(at) == 2 and not at.error
    assert at.number_input(key="n").value in range(50, 200_001)
    links = [pl.proto.page for pl in at.get("page_link")]
    assert links == ["proposition11"], links  # the pointer to Proposition 11 is a real link
    at.selectbox(key="stat").set_value("linear regression").run()
    assert not at.exception and n_charts(at) == 2
    at.switch_page("app_pages/noise_vs_eta.py").run()  # n is a multiselect there
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception and n_charts(at) == 2
