"""Tests for mipcore.lessons.what_eps_means and mipcore.plots.risk_figs (the "What does ε mean
for the people in my data?" page).

Three ways: known values (the 2.7 % posterior at ε = 1 and 1 in 100, 74 of 100 right at ε = 1
and half in the data), identities (δ > 0 or η > 0 make the worst case 1, ε = 0 tells nothing,
the headline is the posterior or the precision), and brute force: the icon counts equal an
independent enumeration of every test of randomised response with a δ-mass (the tightness
construction of Theorem 4) and of the mechanism that reveals membership with probability 2η.
The HTML summary parses, holds the sentences, the URL and the figures, and a crafted string
cannot add markup to it.
"""

from __future__ import annotations

import itertools
import math
import struct
import sys
from html.parser import HTMLParser

import numpy as np
import plotly.graph_objects as go
import pytest

from mipcore.lessons.what_eps_means import (
    PEOPLE,
    Confidence,
    GuaranteeKind,
    summary_html,
    what_eps_means_lesson,
)
from mipcore.plots import style
from mipcore.plots.risk_figs import IconPicture, IconView, icon_array_figure, icon_arrays_png
from mipcore.risk import comparison_table

# --------------------------------------------------------------------------- brute force


def rr_laws(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Randomised response (truth w.p. e^ε/(1+e^ε)) plus a δ-mass revealing membership."""
    keep = math.exp(eps) / (1 + math.exp(eps))
    p_in = np.array([delta, 0.0, (1 - delta) * keep, (1 - delta) * (1 - keep)])
    p_out = np.array([0.0, delta, (1 - delta) * (1 - keep), (1 - delta) * keep])
    return p_in, p_out


def leak_laws(eta: float) -> tuple[np.ndarray, np.ndarray]:
    """Reveal membership w.p. 2η, else say nothing: exactly η-MIP."""
    q = 2 * eta
    return np.array([q, 0.0, 1 - q]), np.array([0.0, q, 1 - q])


def points(p_in: np.ndarray, p_out: np.ndarray) -> list[tuple[float, float]]:
    """(FPR, TPR) of every deterministic test (every set of outputs called "member")."""
    pts = set()
    for mask in itertools.product([False, True], repeat=len(p_in)):
        s = np.array(mask)
        pts.add((float(p_out[s].sum()), float(p_in[s].sum())))
    return sorted(pts)


def max_tpr(pts: list[tuple[float, float]], cap: float) -> float:
    """Largest TPR with FPR <= cap over randomised tests (mixtures of two deterministic ones)."""
    best = max(t for f, t in pts if f <= cap + 1e-15)
    for (f1, t1), (f2, t2) in itertools.product(pts, pts):
        if f1 <= cap < f2:
            best = max(best, t1 + (cap - f1) / (f2 - f1) * (t2 - t1))
    return min(1.0, best)


def up(x: float) -> int:
    return math.ceil(round(x, 9))


def down(x: float) -> int:
    return math.floor(round(x, 9))


def expected_counts(p_in, p_out, prior: float, cap: float) -> list[tuple[int, ...]]:
    """The icon counts, computed independently; one tuple per optimal test (ties)."""
    pts = points(p_in, p_out)
    members = up(PEOPLE * prior)
    non = PEOPLE - members
    scores = [(prior * t + (1 - prior) * (1 - f), f, t) for f, t in pts]
    top = max(s for s, _, _ in scores)
    named = min(members, up(max_tpr(pts, cap) * members))
    accused = min(non, down(cap * non))
    return [
        (members, non, min(members, up(t * members)), min(non, up((1 - f) * non)), named, accused)
        for s, f, t in scores
        if s >= top - 1e-15
    ]


def counts(r) -> tuple[int, ...]:
    ia = r.icons
    return (
        ia.members,
        ia.non_members,
        ia.correct_members,
        ia.correct_non_members,
        r.naming.named,
        r.naming.accused,
    )


@pytest.mark.parametrize("prior", [0.01, 0.1, 0.3, 0.5, 0.8])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
@pytest.mark.parametrize("cap", [0.01, 0.05, 0.1])
def test_icon_counts_equal_randomised_response_enumeration(prior, eps, delta, cap):
    r = what_eps_means_lesson(prior, epsilon=eps, delta=delta, fpr_cap=cap)
    p_in, p_out = rr_laws(eps, delta)
    assert counts(r) in expected_counts(p_in, p_out, prior, cap)
    pts = points(p_in, p_out)
    best = max(prior * t + (1 - prior) * (1 - f) for f, t in pts)
    assert r.accuracy == pytest.approx(best, abs=1e-14)


@pytest.mark.parametrize("prior", [0.01, 0.2, 0.5, 0.9])
@pytest.mark.parametrize("eta", [0.0, 0.02, 0.1, 0.3])
@pytest.mark.parametrize("cap", [0.01, 0.1])
def test_icon_counts_equal_leak_mechanism_enumeration(prior, eta, cap):
    r = what_eps_means_lesson(prior, kind="mip", epsilon=None, eta=eta, fpr_cap=cap)
    assert counts(r) in expected_counts(*leak_laws(eta), prior, cap)


# --------------------------------------------------------------------------- known values


def test_known_values_one_in_a_hundred():
    r = what_eps_means_lesson(0.01, epsilon=1.0)
    assert r.kind is GuaranteeKind.DP and r.one_in == 100
    post = 0.01 * math.e / (0.01 * math.e + 0.99)  # 2.67 %: "right at most 2.7 %, up from 1 %"
    assert r.confidence_kind is Confidence.POSTERIOR
    assert r.confidence == pytest.approx(post, rel=1e-14) == r.worst_posterior
    assert round(100 * r.confidence, 1) == 2.7
    assert r.confidence_lift == pytest.approx(post / 0.01, rel=1e-14)
    assert (r.icons.members, r.icons.non_members) == (1, 99)
    assert r.accuracy == pytest.approx(0.99) and r.baseline == 0.99  # never a member: best
    assert r.accuracy_gain == 0.0 and r.members_expected == pytest.approx(1.0)
    assert not r.tells_nothing and r.advantage == pytest.approx(math.tanh(0.5))
    assert r.eta == pytest.approx(math.tanh(0.5) / 2) and r.accuracy_half == 0.5 + r.eta


def test_known_values_half_in_the_data():
    r = what_eps_means_lesson(0.5, epsilon=1.0, fpr_cap=0.05)
    assert r.one_in == 2 and r.icons.correct == 74  # 73.1 % rounded in the attacker's favour
    assert r.accuracy_gain == pytest.approx(r.accuracy - 0.5) and r.members_expected == 50
    assert r.accuracy == pytest.approx(1 / (1 + math.exp(-1)), rel=1e-15)
    assert r.naming.fpr_cap == 0.05 and r.naming.named == 7 and r.naming.accused == 2
    assert r.correct_excess == pytest.approx(74 - r.icons.correct_expected)
    assert 0 <= r.correct_excess < 2 and 0 <= r.named_excess < 1


def test_delta_makes_the_worst_case_certain_and_the_precision_the_headline():
    r = what_eps_means_lesson(0.01, epsilon=1.0, delta=1e-5, fpr_cap=0.01)
    assert r.worst_posterior == 1.0 and r.confidence_kind is Confidence.PRECISION
    tpr = math.e * 0.01 + 1e-5
    ppv = 0.01 * tpr / (0.01 * tpr + 0.99 * 0.01)
    assert r.confidence == pytest.approx(ppv, rel=1e-13) == r.ppv
    assert r.naming.tpr == pytest.approx(tpr, rel=1e-14)


def test_eta_guarantee():
    r = what_eps_means_lesson(0.5, kind=GuaranteeKind.MIP, epsilon=None, eta=0.1, fpr_cap=0.05)
    assert r.epsilon is None and r.delta == 0.0 and r.eta == 0.1
    assert r.accuracy == pytest.approx(0.6) and r.worst_posterior == 1.0
    assert r.confidence_kind is Confidence.PRECISION
    assert r.confidence == pytest.approx(0.25 / (0.25 + 0.05), rel=1e-14)  # TPR = 0.05 + 0.2
    zero = what_eps_means_lesson(0.3, kind="mip", eta=0.0, epsilon=None)
    assert zero.confidence_kind is Confidence.POSTERIOR
    assert zero.confidence == pytest.approx(0.3) and zero.confidence_lift == pytest.approx(1.0)


@pytest.mark.parametrize("prior", [0.01, 0.37, 0.5, 0.9])
def test_epsilon_zero_tells_nothing(prior):
    r = what_eps_means_lesson(prior, epsilon=0.0)
    assert r.confidence == pytest.approx(prior, rel=1e-14)
    assert r.accuracy == pytest.approx(max(prior, 1 - prior), rel=1e-14) == r.baseline
    assert r.eta == 0.0 and r.tells_nothing and r.accuracy_gain == pytest.approx(0, abs=1e-15)


@pytest.mark.parametrize(
    "prior,n", [(0.5, 2), (0.1, 10), (0.01, 100), (0.001, 1000), (0.37, None), (0.0005, None)]
)
def test_one_in(prior, n):
    assert what_eps_means_lesson(prior).one_in == n


def test_the_table_is_risk_comparison_table():
    assert what_eps_means_lesson(0.2).table == comparison_table()


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"prior": 0.0}, "prior"),
        ({"prior": 1.0}, "prior"),
        ({"prior": math.nan}, "prior"),
        ({"prior": 0.5, "epsilon": None}, "epsilon"),
        ({"prior": 0.5, "epsilon": -1.0}, "epsilon"),
        ({"prior": 0.5, "epsilon": math.inf}, "epsilon"),
        ({"prior": 0.5, "delta": 1.0}, "delta"),
        ({"prior": 0.5, "eta": 0.1}, "eta"),
        ({"prior": 0.5, "kind": "mip"}, "eta"),
        ({"prior": 0.5, "kind": "mip", "eta": 0.6}, "eta"),
        ({"prior": 0.5, "kind": "mip", "eta": 0.1, "delta": 1e-5}, "delta"),
        ({"prior": 0.5, "kind": "xyz"}, "kind"),
        ({"prior": 0.5, "fpr_cap": 1.5}, "fpr_cap"),
    ],
)
def test_out_of_domain_input_names_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        what_eps_means_lesson(**kwargs)


def test_monotone_in_epsilon_and_prior():
    eps = [0.0, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0]
    conf = [what_eps_means_lesson(0.05, epsilon=e).confidence for e in eps]
    assert conf == sorted(conf)
    priors = [0.001, 0.01, 0.1, 0.5, 0.9]
    conf = [what_eps_means_lesson(p, epsilon=1.0).confidence for p in priors]
    assert conf == sorted(conf)


# --------------------------------------------------------------------------- the figure


def test_icon_figure_draws_its_table():
    fig, table = icon_array_figure(37, 63, 20, 5, view=IconView.NAMING, title="t")
    assert isinstance(fig, go.Figure) and len(table) == 100
    assert list(table.person) == list(range(1, 101))
    assert table.member.sum() == 37 and (table.member & table.called_member).sum() == 20
    assert (~table.member & table.called_member).sum() == 5
    drawn = sum(len(t.x) for t in fig.data)
    assert drawn == 100
    members = [t for t in fig.data if t.name.startswith("member")]
    others = [t for t in fig.data if t.name.startswith("non-member")]
    # told apart by colour AND shape; filled = called a member, outline = not
    assert {t.marker.color for t in members} == {style.MIP.colour}
    assert {t.marker.color for t in others} == {style.DP.colour}
    assert {t.marker.symbol for t in members} == {"circle", "circle-open"}
    assert {t.marker.symbol for t in others} == {"square", "square-open"}
    for t in fig.data:  # no NaN, and the hover says who is who
        assert not np.isnan(np.asarray(t.x, dtype=float)).any()
        assert "Person %{customdata}" in t.hovertemplate
    xy = {(x, y) for t in fig.data for x, y in zip(t.x, t.y, strict=True)}
    assert len(xy) == 100  # every person in their own place of the 10 x 10 grid


def test_icon_figure_leaves_out_empty_groups_and_refuses_bad_counts():
    fig, _ = icon_array_figure(1, 99, 0, 0)
    assert [t.name for t in fig.data] == [
        "member, missed (wrong)",
        "non-member, called a non-member (right)",
    ]
    for args in [(-1, 10, 0, 0), (5, 5, 6, 0), (5, 5, 0, 6), (0, 0, 0, 0), (1.5, 3, 0, 0)]:
        with pytest.raises(ValueError):
            icon_array_figure(*args)


# --------------------------------------------------------------------------- HTML summary


class _Doc(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.script_chars = 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.script_chars += len(data)
        else:
            self.text.append(data)


def _parse(doc: str) -> _Doc:
    p = _Doc()
    p.feed(doc)
    p.close()
    return p


@pytest.fixture(scope="module")
def figure() -> go.Figure:
    r = what_eps_means_lesson(0.01, epsilon=1.0)
    fig, _ = icon_array_figure(r.icons.members, r.icons.non_members, 0, 0, title="Who")
    return fig


def test_summary_html_is_standalone_and_holds_everything(figure):
    sentences = ["If 1 in 100 people is in the data, … right at most 2.7 % — up from 1 %.", "B"]
    url = "https://mip.example/what_eps_means?prior=1&eps=2"
    doc = summary_html(
        title="What ε = 2 means",
        sentences=sentences,
        url=url,
        figures=(figure, figure),
        table_header=["ε", "in words"],
        table_rows=[["1", "a & b"]],
        notes=("Sources.",),
    )
    p = _parse(doc)
    text = "".join(p.text)
    for s in sentences:
        assert s in text
    assert "a & b" in text and "Sources." in text and "What ε = 2 means" in text
    links = [a for tag, a in p.tags if tag == "a"]
    assert links == [{"href": url}] and url in text
    divs = [a.get("id") for tag, a in p.tags if tag == "div"]
    assert "mip-figure-1" in divs and "mip-figure-2" in divs
    scripts = [a for tag, a in p.tags if tag == "script"]
    assert all("src" not in a for a in scripts)  # nothing fetched: plotly.js is inline
    assert p.script_chars > 1_000_000
    assert doc.count("plotly.js v") <= 2  # the library once, not per figure


@pytest.mark.parametrize(
    "crafted",
    [
        'https://x/?a="><script>alert(1)</script>',
        "https://x/?q=<img src=x onerror=alert(1)>",
        "javascript:alert(1)",
        "</code></p><script>alert(1)</script>",
    ],
)
def test_crafted_strings_cannot_add_markup(crafted):
    doc = summary_html(
        title=crafted,
        sentences=[crafted],
        url=crafted,
        table_header=[crafted],
        table_rows=[[crafted]],
    )
    p = _parse(doc)
    assert [t for t, _ in p.tags if t in ("script", "img", "iframe")] == []
    for _, attrs in p.tags:
        assert not any(k.startswith("on") for k in attrs)
    hrefs = [a.get("href") for t, a in p.tags if t == "a"]
    if crafted.startswith("https://"):
        assert hrefs == [crafted]  # the exact URL, as an attribute value
    else:
        assert hrefs == []  # only http(s) URLs become links
    assert crafted in "".join(p.text)  # shown as text


def test_summary_html_without_url_or_figures():
    p = _parse(summary_html(title="T", sentences=["S"], url=""))
    assert "(this page with its default settings)" in "".join(p.text)
    assert [t for t, _ in p.tags if t == "script"] == []


# --------------------------------------------------------------------------- PNG files

PICTURES = (
    IconPicture(50, 50, 37, 13, IconView.ACCURACY, "Who"),
    IconPicture(50, 50, 7, 2, IconView.NAMING, "Whom"),
)


def test_png_needs_kaleido_and_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "kaleido", None)  # import kaleido -> ImportError
    with pytest.raises(ValueError, match="kaleido"):
        icon_arrays_png(PICTURES)


@pytest.mark.parametrize("kwargs", [{"width": 10}, {"height": 5000}, {"width": 640.5}])
def test_png_size_is_checked(kwargs):
    with pytest.raises(ValueError, match=r"width|height"):
        icon_arrays_png(PICTURES, **kwargs)


@pytest.mark.slow
def test_png_files_are_rendered():
    pytest.importorskip("kaleido")  # optional: only where the server offers PNG files
    images = icon_arrays_png(PICTURES, width=800, height=500)
    assert len(images) == 2
    for png in images:
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
        assert (width, height) == (800, 500)
