"""AppTest for the page "Wrap your own statistic" (app_pages/wrap_statistic.py).

The page is run on its own (``AppTest.from_file`` of the page script) and, once app.py
registers it, through app.py's navigation. Expected numbers come from
``mipcore.wrap`` on the same inputs: the page must show what mipcore computes.
Uploads go through AppTest's ``file_uploader(...).set_value`` (Streamlit 1.67).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pagetools
import pandas as pd
import pytest
from pagetools import metric, texts
from streamlit.testing.v1 import AppTest

from appkit import fmt_num
from appkit.registry import by_key
from appkit.safe import plain
from mipcore.lessons import statistic_release as wrap

ROOT = Path(__file__).resolve().parents[1]
PAGE = "app_pages/wrap_statistic.py"
DEFAULTS = dict(
    src="generated",
    n=2000,
    d=3,
    dseed=0,
    stat="mean",
    eta=0.2,
    M=2,
    radius="gamma",
    B=64,
    seed=0,
    widen=1.0,
)
NO_DP = "No DP release for"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=60, **params)


def snapshot(at: AppTest) -> tuple:
    charts = tuple(c.proto.spec for c in at.get("plotly_chart"))
    return tuple(texts(at)), charts, table(at).to_csv()


def table(at: AppTest) -> pd.DataFrame:
    """The releases table (the first dataframe on the page)."""
    (tab,) = [d for d in at.dataframe if "quantity" in d.value.columns]
    return tab.value


def assert_no_nan(at: AppTest) -> None:
    for t in texts(at):
        assert not re.search(r"\b(nan|inf|none)\b", t, flags=re.IGNORECASE), t
    tab = table(at)
    for col in tab.columns:
        for v in tab[col]:
            assert isinstance(v, str) and v.lower() not in ("nan", "none", ""), (col, v)


def expected(data: pd.DataFrame, p: dict) -> wrap.WrapResult:
    """wrap_statistic on the page's inputs: bounds = the data range ([min, min + 1] for a
    constant column, as wrap_statistic's own default), widened about its centre."""
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
        radius=p["radius"],
    )


def generated(p: dict) -> pd.DataFrame:
    return wrap.make_dataset(p["stat"], p["n"], p["d"], p["dseed"])


def assert_matches(at: AppTest, res: wrap.WrapResult) -> None:
    """Every number of the table and the metrics is mipcore's, formatted by fmt_num."""
    shown = table(at)
    want = res.table()
    assert list(shown.columns) == list(want.columns)
    assert shown["quantity"].tolist() == want["quantity"].tolist()
    for col in want.columns[1:]:
        assert shown[col].tolist() == [fmt_num(v) for v in want[col]], col
    assert metric(at, "MIP noise multiplier c") == fmt_num(res.mip_c)
    assert metric(at, "ε (DP at") == fmt_num(res.epsilon)
    assert metric(at, "DP sensitivity Δ") == fmt_num(res.sensitivity)
    assert metric(at, "DP Laplace scale") == fmt_num(res.dp_scale)
    assert any(f"({res.n_train:,} of" in t for t in texts(at))


def with_defaults(**changes) -> dict:
    return DEFAULTS | changes


# --------------------------------------------------------------------------- generated data


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_default_page_shows_table_charts_downloads_and_maths(default_page):
    at = default_page
    assert at.title[0].value == by_key("wrap").title
    charts = at.get("plotly_chart")
    assert len(charts) >= 1
    assert len(at.get("download_button")) == len(charts)
    assert not at.error
    (warning,) = at.warning  # only the note that bounds read off the data are not private
    assert "not private" in warning.value and "in advance" in warning.value
    (exp,) = [e for e in at.expander if e.label == "The maths"]
    assert len(exp.latex) >= 5
    maths = "\n".join(x.value for x in exp.latex)
    assert "Gamma" in maths and r"\log\frac{1+2\eta}{1-2\eta}" in maths and "|^M" in maths
    assert len(table(at)) == 3
    assert_no_nan(at)


def test_default_numbers_equal_mipcore(default_page):
    p = DEFAULTS
    res = expected(generated(p), p)
    assert_matches(default_page, res)
    # widen = 1 hands wrap_statistic exactly the data range, i.e. its own default bounds
    same = wrap.wrap_statistic(generated(p), "mean", 0.2, M=2, B=64, rng=0)
    np.testing.assert_array_equal(same.dp, res.dp)
    np.testing.assert_array_equal(same.mip, res.mip)


def test_verdict_is_computed_and_dp_wins_on_an_ordinary_mean(default_page):
    shown = "\n".join(texts(default_page))
    assert "**For this data DP adds less noise**" in shown
    res = expected(generated(DEFAULTS), DEFAULTS)
    threshold = 3 * res.mip_c * res.epsilon  # k·c·ε with k = 3 means
    assert f"k·c·ε = **{fmt_num(threshold)}**" in shown
    ratio = res.sensitivity / res.sigma
    assert f"Δ/σ_j is between {fmt_num(ratio.min(), 3)} and {fmt_num(ratio.max(), 3)}" in shown
    assert any("Proposition 11" in t for t in texts(default_page))  # the pointer to Prop. 11


def test_charts_show_the_tables_they_offer(default_page):
    at = default_page
    import json

    res = expected(generated(DEFAULTS), DEFAULTS)
    err = json.loads(at.get("plotly_chart")[0].proto.spec)
    mip_bar, dp_bar = err["data"]
    np.testing.assert_allclose(mip_bar["y"], np.abs(res.mip - res.theta))
    np.testing.assert_allclose(dp_bar["y"], np.abs(res.dp - res.theta))
    assert err["layout"]["yaxis"]["type"] == "log"
    spread = json.loads(at.get("plotly_chart")[1].proto.spec)
    assert {t["name"].split(":")[0] for t in spread["data"]} >= {"MIP (Algorithm 1)", "DP Laplace"}


@pytest.mark.parametrize(
    "widget,key,value",
    [
        ("selectbox", "stat", "covariance"),
        ("slider", "eta", 0.05),
        ("selectbox", "M", 4),
        ("selectbox", "radius", "as_printed"),
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


def test_as_printed_radius_is_flagged_as_not_a_guarantee():
    at = load(radius="as_printed")
    (flag,) = [w.value for w in at.warning if "printed in Algorithm 1" in w.value]
    assert "**not** a valid η-MIP guarantee" in flag and "k = 3" in flag
    at = load(radius="as_printed", d="1")
    assert not [w for w in at.warning if "printed in Algorithm 1" in w.value]
    assert any("same noise" in i.value for i in at.info)


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
    ],
)
def test_invalid_url_value_warns_and_falls_back(key, bad):
    at = load(**{key: bad})
    (w,) = [w.value for w in at.warning if f"{plain(key)}={plain(bad)}" in w.value]
    assert "Using the default" in w
    assert_matches(at, expected(generated(DEFAULTS), DEFAULTS))


def test_regression_with_one_column_is_a_sentence_not_a_traceback():
    at = load(stat="linear regression", d="1")
    assert not at.exception
    (err,) = at.error
    assert "d=1 is too small for linear regression" in err.value
    assert not at.get("plotly_chart")


def test_extreme_sizes_work():
    at = load(n="50", d="10", stat="covariance", B="16")
    assert not at.error
    assert len(table(at)) == 100
    p = with_defaults(n=50, d=10, stat="covariance", B=16)
    assert_matches(at, expected(generated(p), p))
    assert_no_nan(at)


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


def test_upload_source_without_a_file_asks_for_one():
    at = load(src="upload CSV")
    assert at.radio(key="src").value == "upload CSV"
    assert any("upload a CSV file above" in i.value for i in at.info)
    assert not at.error and not at.get("plotly_chart")


@pytest.mark.parametrize("stat", ["mean", "linear regression"])
def test_good_upload_gives_notes_table_and_mipcore_numbers(stat):
    raw = good_csv()
    at = upload(raw, stat=stat)
    assert not at.error
    infos = "\n".join(i.value for i in at.info)
    assert "Dropped non-numeric column(s): label." in infos
    assert "Dropped 2 row(s) with missing, non-numeric or infinite values." in infos
    parsed = wrap.parse_numeric_csv(raw)
    assert list(parsed.data.columns) == ["a", "b", "c"]
    assert_matches(at, expected(parsed.data, with_defaults(stat=stat)))
    assert len(at.get("plotly_chart")) >= 1
    assert_no_nan(at)


def _case(raw: bytes) -> str:
    try:
        wrap.parse_numeric_csv(raw)
    except ValueError as exc:
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
    "too many rows": b"a\n" + b"1\n" * (wrap.MAX_ROWS + 1),
    "too many columns": (
        "\n".join([",".join(f"c{i}" for i in range(25))] + [",".join("1" for _ in range(25))] * 10)
    ).encode(),
    "too large": b"a,b\n" + b"1.0,2.0\n" * (wrap.MAX_UPLOAD_BYTES // 8 + 1),
}


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_bad_upload_gives_an_error_sentence(case):
    raw = BAD_UPLOADS[case]
    reason = _case(raw)
    at = upload(raw)
    (err,) = at.error
    assert err.value.startswith(f"This file cannot be used: {reason}."), err.value
    assert "Traceback" not in err.value
    assert not at.get("plotly_chart") and not list(at.dataframe)


def test_regression_on_a_one_column_upload_is_a_sentence():
    raw = b"x\n" + b"".join(f"{i}\n".encode() for i in range(20))
    at = upload(raw, stat="linear regression")
    (err,) = at.error
    assert "needs at least two columns" in err.value
    assert not at.get("plotly_chart")


def test_upload_with_a_constant_column_works():
    raw = b"a,b\n" + b"".join(f"{i},5\n".encode() for i in range(40))
    at = upload(raw, stat="covariance")
    assert not at.error
    data = wrap.parse_numeric_csv(raw).data
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


def test_absurd_magnitudes_give_numbers_or_a_sentence():
    raw = ("a,b\n" + "".join(f"{1e300 * (i % 3 + 1)},{i}\n" for i in range(30))).encode()
    at = upload(raw, stat="mean")  # finite: shown in × 10^e notation, never inf/nan
    assert not at.error
    assert_matches(at, expected(wrap.parse_numeric_csv(raw).data, DEFAULTS))
    assert_no_nan(at)
    at.selectbox(key="stat").set_value("covariance").run()  # (1e300)² overflows float64
    assert not at.exception
    (err,) = at.error
    assert err.value.startswith("The releases could not be computed: ")
    assert not at.get("plotly_chart")


# --------------------------------------------------------------------------- through app.py


def test_through_app_navigation():
    """Under app.py's st.navigation (where, e.g., a class defined in the page script cannot be
    pickled by st.cache_data), after pages that share its URL keys with other types."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
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
    assert len(at.get("plotly_chart")) >= 1 and not at.error
    assert at.number_input(key="n").value in range(50, 200_001)
    links = [pl.proto.page for pl in at.get("page_link")]
    assert links == ["proposition11"], links  # the pointer to Proposition 11 is a real link
    at.selectbox(key="stat").set_value("linear regression").run()
    assert not at.exception and len(at.get("plotly_chart")) >= 1
    at.switch_page("app_pages/noise_vs_eta.py").run()  # n is a multiselect there
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception and len(at.get("plotly_chart")) >= 1
