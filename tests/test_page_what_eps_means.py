"""AppTest for the page "What does ε mean for the people in my data?" (app_pages/what_eps_means.py).

The numbers shown are compared with the theory the page reads (:func:`mipcore.risk.icon_array`
in closed form or on :func:`mipcore.guarantees.attacker_bound`'s curve, the number to quote by
:func:`mipcore.risk.named_confidence`; tested on their own in test_risk.py) and, for the
headline, with the closed form π e^ε/(π e^ε + 1 − π). The icon arrays drawn are counted marker
by marker. The one-page HTML export is taken from the page's own download button, parsed, and
named by the page's settings.
"""

from __future__ import annotations

import math
from html.parser import HTMLParser

import pagetools
import pytest
from pagetools import metric, snapshot, texts, unescaped
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from appkit import fmt_pct, jobs
from appkit.registry import by_key
from mipcore.guarantees import EpsDelta, Guarantee, Rdp, Relation, Zcdp, attacker_bound
from mipcore.plots.guarantee_vega import route_label
from mipcore.risk import IconArray, TradeOffCurve, icon_array, named_confidence

PAGE = "app_pages/what_eps_means.py"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=30, **params)


def headline(at: AppTest) -> str:
    (h,) = [m.value for m in at.markdown if m.value.startswith("**If ")]
    return h


ICON_KEYS = ("icons_accuracy", "icons_naming")  # the page's two icon arrays, in order


def icons(at: AppTest, key: str) -> dict[str, int]:
    """People per legend entry of the icon-array chart ``key`` (a Vega-Lite chart): icons
    counted one by one (100 people), or the grid's cells (1 000 or 10 000)."""
    charts = pagetools.vega_charts(at)
    assert len(charts) == len(ICON_KEYS)
    _spec, tables = charts[ICON_KEYS.index(key)]
    if "people" in tables:
        return tables["people"]["group"].value_counts(sort=False).to_dict()
    runs = tables["runs"]
    cells = (runs["x2"] - runs["x"]) * (runs["y2"] - runs["y"])
    return {str(g): int(v) for g, v in cells.groupby(runs["group"], sort=False).sum().items()}


def expected(prior: float, g: Guarantee | float, cap: float = 0.01) -> tuple[IconArray, float]:
    """The picture and the number to quote for ``g`` (η-MIP: its η), from theory: in closed
    form for η-MIP and a replace-one (ε, δ), else on the attacker bound's curve."""
    if isinstance(g, float):
        ia = icon_array(prior, eta=g, fpr_caps=(cap,))
        return ia, named_confidence(prior, ia.caps[0].ppv, eta=g)[1]
    if isinstance(g, EpsDelta) and g.relation is Relation.REPLACE_ONE:
        ia = icon_array(prior, epsilon=g.epsilon, delta=g.delta, fpr_caps=(cap,))
        eta = attacker_bound(g).eta
    else:
        b = attacker_bound(g)
        ia, eta = icon_array(prior, curve=TradeOffCurve.of(b), fpr_caps=(cap,)), b.eta
    pure = g.replace_pair[0] if isinstance(g, EpsDelta) and g.delta == 0 else None
    return ia, named_confidence(prior, ia.caps[0].ppv, eta=eta, pure_epsilon=pure)[1]


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_page_loads_clean_with_pictures_table_glossary_maths(default_page):
    at = default_page
    assert at.title[0].value == by_key("what_eps_means").title
    assert not at.get("plotly_chart")  # both pictures follow the sliders: Vega-Lite
    titles = [spec["title"] for spec, _tables in pagetools.vega_charts(at)]
    assert titles[0].startswith("Who the best attacker gets right")
    assert titles[1].startswith("Whom it can name")
    pagetools.assert_clean(at)
    assert not at.warning
    labels = [e.label for e in at.expander]
    assert "Glossary" in labels and "The maths" in labels
    (glossary,) = [e for e in at.expander if e.label == "Glossary"]
    gloss = glossary.markdown[0].value
    for word in ("Member", "Non-member", "Attacker", "Advantage", "η", "ε", "δ", "Prior"):
        assert f"**{word}**" in gloss
    assert "False accusation" in gloss
    assert not at.dataframe and not at.table  # Markdown tables: no data grid to load
    (table,) = [m.value for m in at.markdown if m.value.startswith("| ε | δ | η |")]
    assert len(table.splitlines()) == 2 + 14  # header, alignment, 14 rows
    (words,) = [e for e in at.expander if e.label == "Each row in words"]
    assert len(words.markdown[0].value.splitlines()) == 14
    buttons = [b.proto.id for b in at.get("download_button")]
    assert any(b.endswith("export_html") for b in buttons)


def test_standalone_load_is_clean():
    pagetools.assert_clean(pagetools.load(PAGE, via_app=False, timeout=30))


def test_no_formula_on_the_surface():
    at = load()
    maths = pagetools.unfold(at)
    assert len(maths.latex) >= 4
    assert len(at.latex) == len(maths.latex)  # every formula is in the expander
    outside = [m.value for m in at.markdown if m not in maths.markdown]
    for t in outside:
        assert "tanh" not in t and "e^ε" not in t and "TPR" not in t, t


def test_default_numbers_are_the_theorys(default_page):
    # the default share is 1 %, as on the risk calculator
    ia, _ = expected(0.01, EpsDelta(1.0, 0.0))
    naming = ia.caps[0]
    h = headline(default_page)
    assert "1 in 100 people" in h and "right at most 2.7 % of the time — up from 1 %" in h
    assert metric(default_page, "best attacker is right") == "9 900 of 10 000"
    assert ia.correct == 9_900
    assert metric(default_page, "members named") == "2 of 100"
    assert (naming.named, ia.members) == (2, 100)
    assert metric(default_page, "right when naming") == "2.7 %"
    acc = icons(default_page, "icons_accuracy")
    assert acc.get("member, called a member (right)", 0) == ia.correct_members == 0
    assert acc["non-member, called a non-member (right)"] == ia.correct_non_members == 9_900
    assert sum(acc.values()) == 10_000
    named = icons(default_page, "icons_naming")
    assert named["member, named"] == naming.named == 2
    assert named["non-member, wrongly accused"] == naming.accused == 99
    assert sum(named.values()) == 10_000


def test_half_in_the_data_at_epsilon_three():
    at = load(prior="50", eps="3")
    assert metric(at, "members named") == "100 of 500"  # 100.4 on average; not "11 of 50"
    named = icons(at, "icons_naming")
    assert (named["member, named"], named["non-member, wrongly accused"]) == (100, 5)
    text = "\n".join(texts(at))
    assert "It shows 1 000 people because with 100" in text
    assert "named 100.4, wrongly accused 5" in text


def test_the_managers_sentence_at_one_in_a_hundred():
    at = load(prior="1")
    post = 0.01 * math.e / (0.01 * math.e + 0.99)
    assert f"{100 * post:.1f}" == "2.7"
    assert headline(at) == (
        "**If 1 in 100 people is in the data, an attacker who names someone is right at most "
        "2.7 % of the time — up from 1 %.**"
    )
    # at 1 in 100, answering "not in the data" for everyone is already the best accuracy
    assert any("no more than answering “not in the data”" in t for t in texts(at))


def test_delta_gives_the_precision_and_says_why():
    at = load(prior="1", delta="1e-5")
    h = headline(at)
    assert "while wrongly accusing at most 1 % of the others" in h
    ia, quoted = expected(0.01, EpsDelta(1.0, 1e-5))
    assert quoted == ia.caps[0].ppv and f"right at most {100 * quoted:.1f} %" in h
    assert any(t.startswith("Why not a limit for every single person?") for t in texts(at))
    # the δ-event (10⁻⁵ of a member on average) is never drawn as a whole person
    assert any("every count the attacker achieves is rounded down" in t for t in texts(at))
    assert ia.correct_members == 0


def test_every_control_changes_the_output():
    at = load()
    seen = {snapshot(at)}
    at.slider(key="eps").set_value(2.0).run()
    seen.add(snapshot(at))
    at.number_input(key="delta").set_value(1e-6).run()
    seen.add(snapshot(at))
    at.number_input(key="prior").set_value(20.0).run()
    seen.add(snapshot(at))
    at.radio(key="cap").set_value(0.1).run()
    seen.add(snapshot(at))
    for label in ("50 %", "10 %"):
        (b,) = [b for b in at.button if b.label == label]
        b.click().run()
        seen.add(snapshot(at))
    assert at.number_input(key="prior").value == 10.0
    at.radio(key="kind").set_value("mip").run()
    assert [s.key for s in at.slider] == ["eta"] and "delta" not in [n.key for n in at.number_input]
    seen.add(snapshot(at))
    at.slider(key="eta").set_value(0.3).run()
    seen.add(snapshot(at))
    assert len(seen) == 9 and not at.exception
    pagetools.assert_clean(at)


def guarantee_caption(at: AppTest) -> str:
    (c,) = [c.value for c in at.caption if c.value.startswith("The guarantee shown: ")]
    return c


RENYI = ((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0))  # the default text's values


AR = Relation.ADD_OR_REMOVE_ONE


@pytest.mark.parametrize(
    ("params", "g", "names"),
    [
        (
            {"kind": "zcdp", "rho": "0.3", "rel": "add_or_remove_one"},
            Zcdp(0.3, AR),
            ("ρ = 0.3 zero-concentrated DP", "add or remove one record"),
        ),
        (
            {"kind": "rdp"},
            Rdp(*RENYI),
            ("Rényi DP at 5 orders, α: ε(α) = 2: 0.5, 4: 1, 8: 2, 16: 4, 32: 8", "replace one"),
        ),
        pytest.param(
            {"kind": "rdp", "rdp": "8: 1; 2: 0.2", "rel": "add_or_remove_one"},
            Rdp((2.0, 8.0), (0.2, 1.0), AR),
            ("Rényi DP at 2 orders, α: ε(α) = 2: 0.2, 8: 1", "add or remove one record"),
            marks=pytest.mark.slow,
        ),
        (
            {"eps": "2", "delta": "1e-6", "rel": "add_or_remove_one", "prior": "5"},
            EpsDelta(2.0, 1e-6, AR),
            ("ε = 2, δ = 1 × 10⁻⁶", "add or remove one record"),
        ),
    ],
    ids=["zcdp_add_remove", "rdp_default", "rdp_add_remove", "eps_delta_add_remove"],
)
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_new_kinds_and_relations_show_the_theorys_numbers_and_name_the_guarantee(params, g, names):
    at = load(**params)
    pagetools.assert_clean(at)
    assert not at.warning
    prior = float(params.get("prior", "1")) / 100
    ia, quoted = expected(prior, g)
    assert metric(at, "right when naming") == fmt_pct(quoted)
    assert metric(at, "members named") == f"{ia.caps[0].named} of {ia.members}"
    named = icons(at, "icons_naming")
    assert named["non-member, wrongly accused"] == ia.caps[0].accused
    assert named.get("member, named", 0) == ia.caps[0].named
    caption = guarantee_caption(at)
    for words in names:
        assert words in caption, caption
    route = attacker_bound(g).route  # the route, as the calculator names it
    assert f"“{route_label(route)}”" in caption
    assert at.radio(key="rel").value is g.relation


def test_moving_the_share_reads_the_guarantee_only_once():
    """ρ-zCDP, Rényi DP and a DP-SGD run are read through their trade-off curve in their own
    process (seconds); the share of people plays no part in it, so moving the share starts
    no new job, and the numbers are the theory's at the new share."""
    at = load(kind="zcdp", rho="0.41")  # a ρ no other test asks for: its job runs here
    started = jobs._LINE.started_total
    for share in (20.0, 50.0):
        at.number_input(key="prior").set_value(share).run()
        pagetools.assert_clean(at)
        ia, quoted = expected(share / 100, Zcdp(0.41))
        assert metric(at, "right when naming") == fmt_pct(quoted)
        assert metric(at, "members named") == f"{ia.caps[0].named} of {ia.members}"
    assert jobs._LINE.started_total == started


def test_the_relation_is_asked_only_where_it_means_something():
    for kind, asked in [("dp", True), ("gdp", True), ("zcdp", True), ("rdp", True), ("mip", False)]:
        at = load(kind=kind)
        assert ("rel" in [r.key for r in at.radio]) is asked, kind
    at = load(kind="dpsgd", steps="10")
    assert "rel" not in [r.key for r in at.radio]


def test_renyi_and_relation_url_round_trip():
    at = load(kind="rdp")
    at.text_input(key="rdp").input("2: 0.3, 4: 0.9").run()
    at.radio(key="rel").set_value(Relation.ADD_OR_REMOVE_ONE).run()
    params = {k: at.query_params[k] for k in at.query_params}
    assert params == {"kind": "rdp", "rdp": "2: 0.3, 4: 0.9", "rel": "add_or_remove_one"}
    fresh = load(**params)
    assert not fresh.warning and snapshot(fresh) == snapshot(at)
    assert "Rényi DP at 2 orders, α: ε(α) = 2: 0.3, 4: 0.9" in guarantee_caption(fresh)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2: 0.5, 3 0.7", "pair 2"),
        ("1: 0.5", "above 1"),
        ("2: -1", "cannot be negative"),
        ("", "no pair"),
    ],
)
def test_bad_renyi_text_gives_a_sentence(text, words):
    at = load(kind="rdp", rdp=text)
    (err,) = at.error
    assert words in unescaped(err.value) and "e.g. 2: 0.5" in err.value
    assert not at.get("vega_lite_chart")
    pagetools.assert_clean(at, errors=True)


def test_crafted_renyi_text_is_shown_as_text():
    evil = "x` [Official privacy notice: click](https://evil.example) `"
    at = load(kind="rdp", rdp=evil)
    (err,) = at.error
    assert "](https://evil" not in err.value and "Official privacy notice" in unescaped(err.value)
    assert at.text_input(key="rdp").value == evil  # in the box, as typed


def test_quick_prior_button_sets_the_url():
    at = load()
    (b,) = [b for b in at.button if b.label == "10 %"]
    b.click().run()
    assert at.query_params.get("prior") == "10"
    assert "1 in 10 people" in headline(at)


def test_url_round_trip():
    """state → URL → a fresh session → the same page."""
    at = load()
    at.slider(key="eps").set_value(3.0).run()
    at.number_input(key="delta").set_value(1e-6).run()
    at.number_input(key="prior").set_value(5.0).run()
    at.radio(key="cap").set_value(0.05).run()
    params = {k: at.query_params[k] for k in at.query_params}
    assert params == {"eps": "3", "delta": "1e-06", "prior": "5", "cap": "0.05"}
    fresh = load(**params)
    assert snapshot(fresh) == snapshot(at)
    at = load(kind="mip", eta="0.25", prior="10", cap="0.1")
    assert at.slider(key="eta").value == 0.25 and not at.warning
    params = {k: at.query_params[k] for k in at.query_params}
    assert snapshot(load(**params)) == snapshot(at)


@pytest.mark.parametrize(
    "params,key",
    [
        ({"prior": "0"}, "prior"),
        ({"prior": "abc"}, "prior"),
        ({"kind": "xyz"}, "kind"),
        ({"cap": "0.2"}, "cap"),
        ({"eps": "-3"}, "eps"),
        ({"delta": "0.5"}, "delta"),
        ({"kind": "mip", "eta": "0.9"}, "eta"),
        ({"kind": "gdp", "mu": "-1"}, "mu"),
        ({"kind": "dpsgd", "sigma": "0"}, "sigma"),
        ({"kind": "dpsgd", "q": "1.5"}, "q"),
        ({"kind": "dpsgd", "steps": "2.5"}, "steps"),
        ({"kind": "zcdp", "rho": "-1"}, "rho"),
        ({"kind": "zcdp", "rho": "1e6"}, "rho"),
        ({"kind": "zcdp", "rho": "abc"}, "rho"),
        ({"kind": "gdp", "rel": "sideways"}, "rel"),
        ({"kind": "rdp", "rel": "add_remove"}, "rel"),
        ({"rel": "[x](https://evil.example)"}, "rel"),
        ({"kind": "rdp", "rdp": "2: 1, " * 200}, "rdp"),
    ],
)
def test_invalid_url_values_warn_and_fall_back(params, key):
    at = load(**params)
    assert any(f"{key}=" in unescaped(w.value) for w in at.warning)
    pagetools.assert_clean(at)


def test_typed_prior_out_of_range_gives_a_sentence():
    at = load()
    at.number_input(key="prior").set_value(0.0).run()
    (err,) = at.error
    assert "outside the allowed range" in err.value
    assert "1 in 100 people" in headline(at)  # still the last good value, 1 %


@pytest.mark.parametrize(
    "params",
    [
        {"eps": "0"},
        {"eps": "20", "prior": "99.9"},
        {"eps": "20", "prior": "0.1", "cap": "0.1"},
        {"delta": "0.1", "prior": "0.1"},
        {"kind": "mip", "eta": "0"},
        {"kind": "mip", "eta": "0.5", "prior": "99.9"},
    ],
)
def test_extreme_settings_give_sentences(params):
    at = load(**params)
    pagetools.assert_clean(at)
    assert headline(at)


def test_epsilon_zero_says_the_release_tells_nothing():
    at = load(eps="0", prior="10")
    assert "no better than a blind guess" in headline(at)


def test_crafted_url_text_cannot_make_a_link():
    at = load(prior="[x](https://example.com)", kind="![i](https://e.com/a.png)")
    assert len(at.warning) == 2
    for w in at.warning:
        assert "](" not in w.value


class _Doc(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self._script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._script = tag == "script"

    def handle_endtag(self, tag):
        self._script = self._script and tag != "script"

    def handle_data(self, data):
        if not self._script:
            self.text.append(data)


def test_html_export_from_the_page(monkeypatch):
    """The page's download holds its sentences, both pictures as inline SVG and the view's URL,
    is named by its settings, stays small, and a crafted URL parameter cannot add a script."""
    made = {}
    original = MediaFileManager.add_deferred

    def spy(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        made[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    crafted = '"><script>alert(1)</script>'
    at = load(prior="2", eps="2", delta="1e-5", zz=crafted)
    name = "mip_eps2_delta1e-05_share2pct_cap1pct.html"
    assert name in made and "what_eps_means.html" not in made
    data = made[name]()
    assert len(data) < 1_000_000  # was 4.8 MB of inlined plotly.js
    doc = data.decode("utf-8")
    p = _Doc()
    p.feed(doc)
    text = "".join(p.text)
    h = headline(at).strip("*")
    assert h in text
    assert [a.get("id") for t, a in p.tags if t == "figure"] == ["mip-figure-1", "mip-figure-2"]
    assert [t for t, _ in p.tags].count("svg") == 2
    assert not [a for t, a in p.tags if t == "script"]  # no script: opens offline
    assert "<script>alert(1)</script>" not in doc
    (code,) = [t for t in p.text if "prior=2" in t]
    assert "eps=2" in code and "zz=" in code and "%3Cscript%3E" in code
    assert "What ε = 2, δ = 1 × 10⁻⁵ means for the people in our data" in text
    # the "no limit" of δ > 0 is explained beside the number, in the export too
    assert "no limit for every person: with δ = 1 × 10⁻⁵ a rare release may expose someone" in text
    # both PNG files are offered, named by the settings, drawn by vl-convert when clicked
    png = made["whom_it_names_eps2_delta1e-05_share2pct_cap1pct.png"]()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert "who_it_gets_right_eps2_delta1e-05_share2pct_cap1pct.png" in made


@pytest.mark.parametrize(
    ("params", "name"),
    [
        (
            {"kind": "gdp", "mu": "0.5", "prior": "50", "cap": "0.1"},
            "gdp_mu0.5_share50pct_cap10pct",
        ),
        ({"prior": "0.25"}, "eps1_delta0_share0.25pct_cap1pct"),
        ({"kind": "zcdp", "rho": "0.25", "prior": "5"}, "zcdp_rho0.25_share5pct_cap1pct"),
        ({"kind": "rdp"}, "rdp_5orders_alpha2-32_share1pct_cap1pct"),
        ({"eps": "2", "rel": "add_or_remove_one"}, "eps2_delta0_addremove_share1pct_cap1pct"),
        ({"kind": "mip", "eta": "0.1", "prior": "50"}, "eta0.1_share50pct_cap1pct"),
    ],
)
def test_the_downloads_are_named_by_the_settings(monkeypatch, params, name):
    """Rényi DP by its number of orders and their range; ``_addremove`` after an add/remove
    guarantee's parameters; the PNG files by their picture."""
    made: list[str] = []
    original = MediaFileManager.add_deferred

    def spy(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        made.append(file_name)
        return original(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    load(**params)
    assert f"mip_{name}.html" in made
    assert {f"who_it_gets_right_{name}.png", f"whom_it_names_{name}.png"} <= set(made)


@pytest.mark.parametrize(
    ("prior", "share"),
    [("50", "1 in 2 people is"), ("0.1", "1 in 1000 people is"), ("37", "37 % of the people are")],
)
def test_the_share_is_one_in_n_people_when_it_is(prior, share):
    assert f"**If {share} in the data" in headline(load(prior=prior))


def test_the_table_has_one_share_and_explains_no_limit_beside_the_number():
    at = load(prior="10", cap="0.05")
    text = unescaped("\n".join(texts(at, tables=True)))
    assert "Every column at the page's one share: **10 % of the people in the data**" in text
    assert "half in the data" not in text and "1 % in the data" not in text
    assert "no limit for every person: with δ = 1 × 10⁻⁵" in text
    assert "100 % (no limit)" not in text


def test_dpsgd_steps_above_the_ceiling_give_a_sentence():
    at = load(kind="dpsgd", steps="10000000")
    assert any("more than this server converts in one request" in e.value for e in at.error)
    assert not at.exception
