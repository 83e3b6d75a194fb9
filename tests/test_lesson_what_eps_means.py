"""Tests for mipcore.lessons.what_eps_means and mipcore.plots.icons (the "What does ε mean
for the people in my data?" page).

Three ways: known values (the 2.7 % posterior at ε = 1 and 1 in 100; issue 25's pictures: at
ε = 1 and 1 % in the data 2 of 100 members named and 99 of 9 900 wrongly accused, not "the one
member named, 0 of 99 accused"; at ε = 3 and half in the data 100 of 500 named for 100.4, not
"11 of 50" for 10.05), identities (δ > 0 or η > 0 make the worst case 1, ε = 0 tells nothing,
the headline is the posterior or the precision), and brute force: the naming counts equal an
independent enumeration of every test of randomised response with a δ-mass (the tightness
construction of Theorem 4) and of the mechanism that reveals membership with probability 2η,
under the stated rounding rule and population rule, and the accuracy picture is an attacker
those mechanisms allow. The HTML summary parses, holds the sentences, the URL and the SVG
figures, stays small, and a crafted string cannot add markup to it.
"""

from __future__ import annotations

import itertools
import math
import struct
import sys
from html.parser import HTMLParser

import numpy as np
import pytest

from mipcore.guarantees import DpSgd, EpsDelta, Gdp, Rdp, Relation, Zcdp, attacker_bound
from mipcore.lessons.risk_calculator import risk_report
from mipcore.lessons.what_eps_means import (
    Confidence,
    GuaranteeKind,
    curve_of,
    export_file_name,
    summary_html,
    what_eps_means_lesson,
)
from mipcore.plots import style
from mipcore.plots.icons import (
    IconPicture,
    IconView,
    icon_array_vega,
    picture_chart,
    picture_png,
    picture_svg,
)
from mipcore.risk import ICON_POPULATIONS, TradeOffCurve, comparison_table, icon_array

AR = Relation.ADD_OR_REMOVE_ONE

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


def down(x: float) -> int:
    return math.floor(round(x, 9))


def expected_naming(p_in, p_out, prior: float, cap: float) -> tuple[int, int, int, int, int]:
    """(people, members, non-members, named, accused), computed independently: the smallest of
    100, 1 000, 10 000 people whose picture names and accuses at least one person wherever the
    averages are positive; members ⌊Nπ⌋ (at least 1); accused ⌊cap · non-members⌋; named
    ⌊T(accused / non-members) · members⌋ with T the enumerated frontier."""
    pts = points(p_in, p_out)
    t_cap = max_tpr(pts, cap)
    for n in ICON_POPULATIONS:
        if down(n * prior) < 1 and n != ICON_POPULATIONS[-1]:
            continue
        m = min(n - 1, max(1, down(n * prior)))
        accused = down(cap * (n - m))
        named = down(max_tpr(pts, accused / (n - m)) * m)
        ok_named = named >= 1 or t_cap * m <= 0
        ok_accused = accused >= 1 or cap * (n - m) <= 0
        if (ok_named and ok_accused) or n == ICON_POPULATIONS[-1]:
            return n, m, n - m, named, accused
    raise AssertionError("unreachable")


def check_against(r, p_in, p_out, prior: float, cap: float) -> None:
    ia = r.icons
    n, m, non, named, accused = expected_naming(p_in, p_out, prior, cap)
    assert (ia.people, ia.members, ia.non_members) == (n, m, non)
    assert (r.naming.named, r.naming.accused) == (named, accused)
    # the accuracy picture is an attacker the mechanism allows, and never beats the bound
    pts = points(p_in, p_out)
    wrong = ia.wrongly_called
    assert ia.correct_members <= max_tpr(pts, wrong / non) * m + 1e-9
    assert ia.correct <= r.accuracy * n + 1e-9
    best = max(prior * t + (1 - prior) * (1 - f) for f, t in pts)
    assert r.accuracy == pytest.approx(best, abs=1e-14)


@pytest.mark.parametrize("prior", [0.01, 0.1, 0.3, 0.5, 0.8])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.05])
@pytest.mark.parametrize("cap", [0.01, 0.05, 0.1])
def test_icon_counts_equal_randomised_response_enumeration(prior, eps, delta, cap):
    r = what_eps_means_lesson(prior, epsilon=eps, delta=delta, fpr_cap=cap)
    check_against(r, *rr_laws(eps, delta), prior, cap)


@pytest.mark.parametrize("prior", [0.01, 0.2, 0.5, 0.9])
@pytest.mark.parametrize("eta", [0.0, 0.02, 0.1, 0.3])
@pytest.mark.parametrize("cap", [0.01, 0.1])
def test_icon_counts_equal_leak_mechanism_enumeration(prior, eta, cap):
    r = what_eps_means_lesson(prior, kind="mip", epsilon=None, eta=eta, fpr_cap=cap)
    check_against(r, *leak_laws(eta), prior, cap)


# --------------------------------------------------------------------------- known values


def test_known_values_one_in_a_hundred():
    r = what_eps_means_lesson(0.01, epsilon=1.0)
    assert r.kind is GuaranteeKind.DP and r.one_in == 100
    post = 0.01 * math.e / (0.01 * math.e + 0.99)  # 2.67 %: "right at most 2.7 %, up from 1 %"
    assert r.confidence_kind is Confidence.POSTERIOR
    assert r.confidence == pytest.approx(post, rel=1e-14) == r.worst_posterior
    assert round(100 * r.confidence, 1) == 2.7
    assert r.confidence_lift == pytest.approx(post / 0.01, rel=1e-14)
    # issue 25: 100 people would show the one member named and 0 of 99 accused (a perfect
    # attack) for averages of 0.027 named and 0.99 accused; 10 000 people show the truth
    assert (r.people, r.icons.members, r.icons.non_members) == (10_000, 100, 9_900)
    assert (r.naming.named, r.naming.accused) == (2, 99)
    assert r.naming.named_expected == pytest.approx(100 * math.e * 0.01, rel=1e-14)  # 2.72
    assert r.accuracy == pytest.approx(0.99) and r.baseline == 0.99  # never a member: best
    assert r.accuracy_gain == 0.0 and r.members_expected == pytest.approx(100.0)
    assert not r.tells_nothing and r.advantage == pytest.approx(math.tanh(0.5))
    assert r.eta == pytest.approx(math.tanh(0.5) / 2) and r.accuracy_half == 0.5 + r.eta


def test_known_values_half_in_the_data():
    r = what_eps_means_lesson(0.5, epsilon=1.0, fpr_cap=0.05)
    # 73.1 right on average; the picture's attacker gets 72 (counts rounded down)
    assert r.people == 100 and r.one_in == 2 and r.icons.correct == 72
    assert r.accuracy_gain == pytest.approx(r.accuracy - 0.5) and r.members_expected == 50
    assert r.accuracy == pytest.approx(1 / (1 + math.exp(-1)), rel=1e-15)
    # 2.5 accused -> 2; named at the 2 of 50 really accused: ⌊e · 0.04 · 50⌋ = ⌊5.44⌋ = 5
    assert r.naming.fpr_cap == 0.05 and r.naming.named == 5 and r.naming.accused == 2


def test_epsilon_three_half_in_the_data_is_not_rounded_up():
    """Issue 25: "11 of 50 named" for 10.05. At 1 % false accusations 100 people would accuse
    half a person, so the picture shows 1 000: 100 of 500 named for 100.4, 5 accused."""
    r = what_eps_means_lesson(0.5, epsilon=3.0, fpr_cap=0.01)
    assert (r.people, r.icons.members) == (1_000, 500)
    assert r.naming.named_expected == pytest.approx(500 * math.exp(3) * 0.01, rel=1e-14)
    assert (r.naming.named, r.naming.accused) == (100, 5)


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


def test_the_table_has_the_pages_one_share():
    """One share of people per table: every column at the page's prior and cap (issue 25: one
    table mixed "half in the data" and "1 % in the data")."""
    r = what_eps_means_lesson(0.2, fpr_cap=0.05)
    assert r.table == comparison_table(prior=0.2, fpr=0.05)
    assert r.table.prior == r.prior and r.table.fpr == r.fpr_cap
    row = next(x for x in r.table.rows if x.epsilon == 1.0 and x.delta == 0.0)
    assert row.accuracy_at_prior == pytest.approx(r.accuracy, rel=1e-14)  # same share as the page
    assert row.posterior == pytest.approx(r.worst_posterior, rel=1e-14)


def test_curve_guarantees_read_the_calculators_bound():
    """μ-GDP and DP-SGD are read through attacker_bound, the risk calculator's numbers (so
    are ρ-zCDP, Rényi DP and add/remove guarantees: see the test below)."""
    b = attacker_bound(Gdp(1.0))
    r = what_eps_means_lesson(0.05, kind="gdp", epsilon=None, mu=1.0, fpr_cap=0.01)
    assert r.eta == b.eta and r.route is b.route and r.mu == 1.0
    t = b.tpr_at_fpr[1]  # FPR 1 %
    assert r.naming.tpr == t
    assert r.ppv == pytest.approx(0.05 * t / (0.05 * t + 0.95 * 0.01), rel=1e-12)
    assert r.confidence_kind is Confidence.PRECISION and r.worst_posterior == 1.0
    half = what_eps_means_lesson(0.5, kind="gdp", epsilon=None, mu=1.0)
    assert half.accuracy == pytest.approx(0.5 + b.eta, rel=1e-14)  # exact at one half
    curve = curve_of(b)
    assert all(t2 >= t1 for t1, t2 in zip(curve.tpr, curve.tpr[1:], strict=False))


RENYI = ((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0))  # the calculator's default


@pytest.mark.parametrize(
    ("kwargs", "guarantee"),
    [
        (dict(kind="zcdp", rho=0.5), Zcdp(0.5)),
        (dict(kind="zcdp", rho=0.3, relation="add_or_remove_one"), Zcdp(0.3, AR)),
        (dict(kind="rdp", orders=RENYI[0], rdp_values=RENYI[1]), Rdp(*RENYI)),
        (
            dict(kind="rdp", orders=(2, 8), rdp_values=(0.2, 1), relation=AR),
            Rdp((2, 8), (0.2, 1), AR),
        ),
        (dict(epsilon=1.0, delta=1e-5, relation=AR), EpsDelta(1.0, 1e-5, AR)),
        (dict(epsilon=3.0, relation=AR), EpsDelta(3.0, 0.0, AR)),
        (dict(kind="gdp", mu=1.0, relation=AR), Gdp(1.0, AR)),
    ],
    ids=["zcdp", "zcdp_ar", "rdp", "rdp_ar", "eps_delta_ar", "pure_eps_ar", "gdp_ar"],
)
@pytest.mark.parametrize("prior", [0.01, 0.2])
def test_new_kinds_and_relations_are_the_calculators_numbers(kwargs, guarantee, prior):
    """ρ-zCDP, Rényi DP and every add/remove guarantee read exactly as the risk calculator
    reads them: η, the route, the TPR bound and precision at 1 %, the worst posterior, and a
    picture counted on the report's own ROC bound."""
    r = risk_report(guarantee, prior=prior, ppv_fpr=0.01)
    w = what_eps_means_lesson(prior, **kwargs, fpr_cap=0.01)
    assert w.eta == pytest.approx(r.eta, abs=1e-12) and w.route is r.route
    assert w.naming.tpr == pytest.approx(r.ppv_tpr, abs=1e-12)
    assert w.ppv == pytest.approx(r.ppv, abs=1e-12)
    assert w.worst_posterior == pytest.approx(r.worst_posterior, abs=1e-12)
    assert w.confidence_kind.value == r.confidence_kind.value
    assert w.relation is getattr(guarantee, "relation", Relation.REPLACE_ONE)
    curve = TradeOffCurve(tuple(r.roc_fpr), tuple(r.roc_tpr), r.eta)
    ia = icon_array(prior, curve=curve, fpr_caps=(0.01,))
    assert (w.people, w.icons.members) == (ia.people, ia.members)
    assert (w.naming.named, w.naming.accused) == (ia.caps[0].named, ia.caps[0].accused)
    assert w.naming.named <= r.ppv_tpr * w.icons.members  # the picture never beats the bound
    if isinstance(guarantee, Zcdp):
        assert w.rho == guarantee.rho and w.mu is None and w.orders is None
    if isinstance(guarantee, Rdp):
        assert (w.orders, w.rdp_values) == (guarantee.orders, guarantee.values)
    if getattr(guarantee, "relation", None) is AR:  # read as replace-one it would be smaller
        as_replace = {"relation": Relation.REPLACE_ONE}
        loose = what_eps_means_lesson(prior, **{**kwargs, **as_replace})
        assert loose.eta < w.eta


def test_pure_eps_add_remove_bounds_every_named_person_by_two_eps():
    """Pure ε-DP for add/remove is pure 2ε-DP for replace-one: π e^{2ε}/(π e^{2ε} + 1 − π)."""
    w = what_eps_means_lesson(0.01, epsilon=1.0, relation="add_or_remove_one")
    assert w.confidence_kind is Confidence.POSTERIOR
    pe = 0.01 * math.exp(2.0)
    assert w.worst_posterior == pytest.approx(pe / (pe + 0.99), rel=1e-12)


@pytest.mark.slow
def test_dpsgd_run_is_the_calculators_issue_example():
    """σ 1.1, q 0.01, 10 000 steps: the risk calculator says 25.4 % at 1 % in the data."""
    b = attacker_bound(DpSgd(1.1, 0.01, 10_000))
    r = what_eps_means_lesson(
        0.01,
        kind="dpsgd",
        epsilon=None,
        noise_multiplier=1.1,
        sampling_rate=0.01,
        steps=10_000,
    )
    t = b.tpr_at_fpr[1]
    assert r.naming.tpr == t and round(100 * r.ppv, 1) == 25.4
    assert r.steps == 10_000 and r.route is b.route


def test_export_file_name_is_the_settings():
    r = what_eps_means_lesson(0.01, epsilon=1.0, delta=1e-5)
    assert export_file_name(r) == "mip_eps1_delta1e-05_share1pct_cap1pct.html"
    g = what_eps_means_lesson(0.5, kind="gdp", epsilon=None, mu=0.5, fpr_cap=0.1)
    assert export_file_name(g, "png") == "mip_gdp_mu0.5_share50pct_cap10pct.png"
    assert export_file_name(what_eps_means_lesson(0.0025)) == (
        "mip_eps1_delta0_share0.25pct_cap1pct.html"
    )
    z = what_eps_means_lesson(0.05, kind="zcdp", rho=0.25)
    assert export_file_name(z) == "mip_zcdp_rho0.25_share5pct_cap1pct.html"
    rdp = what_eps_means_lesson(0.01, kind="rdp", orders=RENYI[0], rdp_values=RENYI[1])
    assert export_file_name(rdp) == "mip_rdp_5orders_alpha2-32_share1pct_cap1pct.html"
    ar = what_eps_means_lesson(0.01, epsilon=2.0, relation="add_or_remove_one")
    assert export_file_name(ar) == "mip_eps2_delta0_addremove_share1pct_cap1pct.html"


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
        ({"prior": 0.5, "kind": "gdp", "epsilon": None}, "mu"),
        ({"prior": 0.5, "kind": "gdp", "epsilon": None, "mu": -1.0}, "mu"),
        ({"prior": 0.5, "mu": 1.0}, "mu"),
        ({"prior": 0.5, "kind": "dpsgd", "epsilon": None, "steps": 10}, "noise_multiplier"),
        ({"prior": 0.5, "steps": 10}, "DP-SGD"),
        ({"prior": 0.5, "fpr_cap": 1.5}, "fpr_cap"),
        ({"prior": 0.5, "kind": "zcdp"}, "rho"),
        ({"prior": 0.5, "kind": "zcdp", "rho": -0.1}, "rho"),
        ({"prior": 0.5, "kind": "zcdp", "rho": math.inf}, "rho"),
        ({"prior": 0.5, "kind": "zcdp", "rho": math.nan}, "rho"),
        ({"prior": 0.5, "rho": 0.5}, "rho"),
        ({"prior": 0.5, "kind": "gdp", "mu": 1.0, "rho": 0.5}, "rho"),
        ({"prior": 0.5, "kind": "rdp"}, "orders"),
        ({"prior": 0.5, "kind": "rdp", "orders": (2.0,)}, "rdp_values"),
        ({"prior": 0.5, "kind": "rdp", "orders": (1.0,), "rdp_values": (0.5,)}, "orders"),
        ({"prior": 0.5, "kind": "rdp", "orders": (2.0,), "rdp_values": (-1.0,)}, "rdp_values"),
        ({"prior": 0.5, "kind": "rdp", "orders": (2.0, 3.0), "rdp_values": (1.0,)}, "rdp_values"),
        ({"prior": 0.5, "orders": (2.0,)}, "orders"),
        ({"prior": 0.5, "kind": "zcdp", "rho": 0.5, "rdp_values": (1.0,)}, "rdp_values"),
        ({"prior": 0.5, "relation": "sideways"}, "relation"),
        ({"prior": 0.5, "kind": "gdp", "mu": 1.0, "relation": None}, "relation"),
        ({"prior": 0.5, "kind": "mip", "eta": 0.1, "relation": "add_or_remove_one"}, "relation"),
        (
            {
                "prior": 0.5,
                "kind": "dpsgd",
                "noise_multiplier": 1.0,
                "sampling_rate": 1.0,
                "steps": 1,
                "relation": "add_or_remove_one",
            },
            "relation",
        ),
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


def test_icon_chart_draws_its_table():
    chart, table = icon_array_vega(37, 63, 20, 5, view=IconView.NAMING, title="t")
    assert len(table) == 100 and list(table.person) == list(range(1, 101))
    assert table.member.sum() == 37 and (table.member & table.called_member).sum() == 20
    assert (~table.member & table.called_member).sum() == 5
    people = chart.datasets["people"]
    assert len(people) == 100 and len(set(zip(people.x, people.y, strict=True))) == 100
    enc = chart.spec["layer"][0]["encoding"]
    # told apart by colour AND shape; filled = called a member, outline = not
    assert enc["shape"]["scale"]["range"] == ["circle", "circle", "square", "square"]
    assert enc["fill"]["scale"]["range"][1] == "#ffffff" and enc["fill"]["scale"]["range"][3]
    assert enc["stroke"]["scale"]["range"][0] == style.MIP.colour
    assert all(w.startswith("Person ") for w in people.who)


@pytest.mark.parametrize("people", [1_000, 10_000])
def test_large_pictures_are_a_grid_of_few_marks(people):
    members = people // 100
    chart, table = icon_array_vega(members, people - members, 2, 99, view=IconView.NAMING)
    assert len(table) == people
    runs = chart.datasets["runs"]
    cells = ((runs.x2 - runs.x) * (runs.y2 - runs.y)).groupby(runs.group, sort=False).sum()
    expected = table.group.value_counts()
    assert {g: int(cells[g]) for g in cells.index} == {g: int(expected[g]) for g in cells.index}
    assert len(runs) <= 12  # at most three rectangles per group, whatever the population


def test_icon_chart_refuses_bad_counts():
    for args in [(-1, 10, 0, 0), (5, 5, 6, 0), (5, 5, 0, 6), (0, 0, 0, 0), (1.5, 3, 0, 0)]:
        with pytest.raises(ValueError):
            icon_array_vega(*args)


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
def figure() -> str:
    return picture_svg(IconPicture(100, 9_900, 2, 99, IconView.NAMING, "Whom"))


def test_summary_html_is_standalone_small_and_holds_everything(figure):
    sentences = ["If 1 in 100 people is in the data, … right at most 2.7 % — up from 1 %.", "B"]
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
    ids = [a.get("id") for tag, a in p.tags if tag == "figure"]
    assert ids == ["mip-figure-1", "mip-figure-2"]
    assert [t for t, _ in p.tags].count("svg") == 2
    assert not [t for t, _ in p.tags if t == "script"]  # no script at all: opens offline
    assert len(doc.encode("utf-8")) < 1_000_000  # was 4.8 MB with plotly.js inline


def test_summary_html_refuses_a_figure_that_is_not_a_plain_svg():
    for bad in ("<div>x</div>", "<svg><script>alert(1)</script></svg>", '<svg onload="x()"/>'):
        with pytest.raises(ValueError, match="figures"):
            summary_html(title="T", sentences=[], url="", figures=(bad,))


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
    IconPicture(500, 500, 100, 5, IconView.NAMING, "Whom"),
)


def test_png_needs_vl_convert_and_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # import vl_convert -> ImportError
    with pytest.raises(ValueError, match="vl-convert"):
        picture_png(PICTURES[0])


@pytest.mark.slow
def test_png_files_are_rendered_without_a_browser():
    for p in PICTURES:
        png = picture_png(p)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
        plot_height = picture_chart(p).spec["height"]
        # the plot 640 px wide at scale 2, plus the padding, the title and the legend
        assert 1280 <= width <= 1280 + 100
        assert 2 * plot_height < height <= 2 * plot_height + 2 * 200


def test_a_bound_given_beforehand_gives_the_same_lesson_and_must_be_of_its_kind():
    """``bound=read_guarantee(...)`` (the page's job) gives the lesson it would compute
    itself, at every share; a bound of another kind or relation is refused by name."""
    from mipcore.lessons.what_eps_means import read_guarantee

    args = dict(kind="zcdp", rho=0.5, relation="add_or_remove_one")
    bound = read_guarantee(**args)
    for prior in (0.01, 0.5):
        assert what_eps_means_lesson(prior, **args, bound=bound) == what_eps_means_lesson(
            prior, **args
        )
    with pytest.raises(ValueError, match="bound is the attacker bound of a zcdp"):
        what_eps_means_lesson(0.01, kind="gdp", mu=1.0, relation="add_or_remove_one", bound=bound)
    with pytest.raises(ValueError, match=r"\(add_or_remove_one\), not of the zcdp"):
        what_eps_means_lesson(0.01, kind="zcdp", rho=0.5, bound=bound)
