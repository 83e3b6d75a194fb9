"""Tests for mipcore.lessons.risk_calculator (the risk calculator's numbers) and its figure.

The report's numbers are compared with :func:`mipcore.guarantees.attacker_bound` (the one
source), with closed forms evaluated here (Φ(μ/2) − 1/2, Theorem 4, the pure-ε posterior, the
exact full-batch DP-SGD noise 2√T/μ), and with brute force (the looseness as max/min over the
routes, each route's curve never implying more than its own η, the ε page's link parsed back).
"""

from __future__ import annotations

import math
from urllib.parse import parse_qs

import dp_accounting
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from mipcore.guarantees import (
    FPR_LEVELS,
    NOISE_TOLERANCE,
    DpSgd,
    EpsDelta,
    Gdp,
    Profile,
    Rdp,
    Relation,
    Route,
    Zcdp,
    attacker_bound,
    tpr_bound_gdp,
)
from mipcore.lessons import risk_calculator as R
from mipcore.lessons.risk_calculator import (
    CIFAR10,
    E2E,
    Confidence,
    CurveSource,
    LinkBlock,
    LinkSource,
    RdpProblem,
    Target,
    noise_for_target,
    parse_rdp,
    rdp_text,
    risk_report,
    steps_ceiling,
)
from mipcore.lessons.what_eps_means import what_eps_means_lesson
from mipcore.plots.guarantee_vega import INVALID_SUFFIX, route_label, routes_roc_vega
from mipcore.risk import member_posterior_bound, ppv_bound

AR = Relation.ADD_OR_REMOVE_ONE
GUARANTEES = [
    EpsDelta(1.0, 1e-5),
    EpsDelta(1.0, 0.0, AR),
    EpsDelta(0.5, 0.01, AR),
    Gdp(1.0),
    Gdp(1.0, AR),
    Zcdp(0.5),
    Rdp((2.0, 4.0, 8.0, 16.0, 32.0), (0.5, 1.0, 2.0, 4.0, 8.0)),
    Rdp((2.0, 4.0, 8.0), (0.1, 0.2, 0.4), AR),
    DpSgd(1.1, 0.01, 200),
    DpSgd(20.0, 1.0, 100),
    DpSgd(0.05, 0.01, 100),
]
IDS = [f"{type(g).__name__}-{i}" for i, g in enumerate(GUARANTEES)]


@pytest.fixture(scope="module")
def reports():
    return {
        i: (g, risk_report(g, prior=0.01, ppv_fpr=0.01))
        for i, g in zip(IDS, GUARANTEES, strict=True)
    }


def phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


# --------------------------------------------------------------------------- the numbers


@pytest.mark.parametrize("i", IDS)
def test_the_numbers_are_attacker_bounds(reports, i):
    g, r = reports[i]
    b = attacker_bound(g)
    assert r.eta == b.eta and r.accuracy == b.accuracy and r.advantage == 2 * b.eta
    assert r.route is b.route and r.kind is b.kind and r.relation is b.relation
    assert r.tpr_at_fpr == b.tpr_at_fpr and r.fpr_levels == FPR_LEVELS
    np.testing.assert_array_equal(r.roc_fpr, b.roc_fpr)
    np.testing.assert_array_equal(r.roc_tpr, b.roc_tpr)
    assert [(x.route, x.valid, x.eta, x.epsilon, x.delta) for x in r.routes] == [
        (y.route, y.valid, y.eta, y.epsilon, y.delta) for y in b.routes
    ]
    assert r.pld_interval == b.pld_interval
    (tight,) = [x for x in r.routes if x.tightest]
    assert tight.route is b.route and tight.eta == b.eta


@pytest.mark.parametrize("i", IDS)
def test_looseness_is_the_loosest_valid_over_the_tightest(reports, i):
    _, r = reports[i]
    valid = [x.eta for x in r.routes if x.valid]
    lo, hi = min(valid), max(valid)
    # the tightest route: the first within rounding (10⁻¹²) of the smallest η
    assert lo <= r.eta <= lo * (1 + 1e-12)
    loosest = next(x for x in r.routes if x.route is r.loosest_route)
    assert loosest.valid and loosest.eta == hi
    if lo > 0:
        assert r.looseness == pytest.approx(hi / lo, rel=1e-15)
        for x in r.routes:
            assert x.over_tightest == pytest.approx(x.eta / r.eta, rel=1e-15)
    else:
        assert r.looseness == (1.0 if hi == 0 else None)
    invalid = [x for x in r.routes if not x.valid]
    if invalid:
        (bad,) = invalid
        assert r.invalid_eta == bad.eta and r.understated_by == pytest.approx(r.eta / bad.eta)
    else:
        assert r.invalid_eta is None and r.understated_by is None


def test_known_values():
    r = risk_report(Gdp(1.0))
    assert r.eta == pytest.approx(phi(0.5) - 0.5, rel=1e-12)  # 0.191462
    assert r.looseness == pytest.approx(r.routes[2].eta / r.eta)  # the single (ε, 1e-5) point
    assert r.loosest_route is Route.SINGLE_POINT
    r = risk_report(EpsDelta(1.0, 0.0))
    assert r.eta == pytest.approx(math.tanh(0.5) / 2, rel=1e-12)  # Theorem 4, 0.2311
    # add/remove μ-GDP is 2μ-GDP for replace-one; the relation ignored understates η
    r = risk_report(Gdp(1.0, AR))
    assert r.eta == pytest.approx(phi(1.0) - 0.5, rel=1e-12) and r.replace_mu == 2.0
    assert r.invalid_eta == pytest.approx(phi(0.5) - 0.5, rel=1e-12)
    assert risk_report(Zcdp(0.1, AR)).replace_rho == pytest.approx(0.4)


def test_posterior_pure_epsilon_and_precision():
    pi, eps = 0.01, 1.0
    r = risk_report(EpsDelta(eps, 0.0), prior=pi, ppv_fpr=0.01)
    closed = pi * math.exp(eps) / (pi * math.exp(eps) + 1 - pi)
    assert r.confidence_kind is Confidence.POSTERIOR
    assert r.worst_posterior == pytest.approx(closed, rel=1e-12)
    assert r.worst_posterior == pytest.approx(member_posterior_bound(pi, epsilon=eps))
    # add/remove pure ε: the replacement is a group of two, 2ε
    r2 = risk_report(EpsDelta(eps, 0.0, AR), prior=pi)
    assert r2.replace_epsilon == 2 * eps and r2.replace_delta == 0.0
    assert r2.worst_posterior == pytest.approx(member_posterior_bound(pi, epsilon=2 * eps))
    # δ > 0: no outcome-wise bound, the precision of a naming rule is the number
    for f in FPR_LEVELS:
        r3 = risk_report(EpsDelta(eps, 1e-5), prior=pi, ppv_fpr=f)
        assert r3.confidence_kind is Confidence.PRECISION and r3.worst_posterior == 1.0
        assert r3.ppv == pytest.approx(ppv_bound(pi, f, epsilon=eps, delta=1e-5), rel=1e-12)
        t = r3.ppv_tpr
        assert r3.ppv == pytest.approx(pi * t / (pi * t + (1 - pi) * f), rel=1e-12)
    assert round(risk_report(EpsDelta(1.0, 1e-5), prior=0.01).ppv, 6) == 0.026733  # risk.py


@pytest.mark.parametrize(
    "guarantee, stated",
    [
        (Gdp(0.0), dict(kind="gdp", mu=0.0)),
        (Zcdp(0.0), dict(kind="zcdp", rho=0.0)),
        (Zcdp(0.0, AR), dict(kind="zcdp", rho=0.0, relation="add_or_remove_one")),
        (Rdp((2.0, 4.0), (0.0, 0.0)), dict(kind="rdp", orders=(2.0, 4.0), rdp_values=(0.0, 0.0))),
    ],
    ids=["gdp", "zcdp", "zcdp_add_remove", "rdp"],
)
def test_eta_zero_bounds_every_posterior_by_the_prior(guarantee, stated):
    """η = 0: the releases with and without a person are the same law, so no posterior moves
    from the prior -- as the stakeholder page says (the calculator said 1, "no limit")."""
    pi = 0.05
    r = risk_report(guarantee, prior=pi)
    assert r.eta == 0.0
    assert r.confidence_kind is Confidence.POSTERIOR and r.worst_posterior == pi
    w = what_eps_means_lesson(pi, epsilon=None, **stated)
    assert w.eta == 0.0 and w.worst_posterior == r.worst_posterior


@pytest.mark.parametrize("i", IDS)
def test_every_route_curve_is_a_valid_picture_of_its_route(reports, i):
    g, r = reports[i]
    f = r.roc_fpr
    at = [int(np.flatnonzero(f == x)[0]) for x in FPR_LEVELS]
    for x in r.routes:
        t = x.tpr
        assert t.shape == f.shape and np.all(np.isfinite(t))
        assert np.all(t >= f) and np.all(t <= 1.0)
        assert np.all(np.diff(t) >= -1e-12), x.route  # a trade-off bound is nondecreasing
        # the curve never implies a larger η than its route (max of TPR − FPR is 2η)
        assert np.max(t - f) / 2 <= x.eta + 1e-9, (x.route, np.max(t - f) / 2, x.eta)
        assert x.tpr_at_levels == tuple(float(t[k]) for k in at)
        if x.curve is CurveSource.ETA_LINE:
            np.testing.assert_allclose(t, np.minimum(1.0, f + 2 * x.eta), rtol=0, atol=1e-15)
        if x.curve is CurveSource.COMBINED:
            np.testing.assert_array_equal(t, np.clip(np.maximum(r.roc_tpr, f), 0, 1))
    if isinstance(g, Gdp):  # the closed form is the exact trade-off curve
        mu = r.replace_mu
        gdp = next(x for x in r.routes if x.route is Route.GDP_CLOSED_FORM)
        np.testing.assert_allclose(gdp.tpr, tpr_bound_gdp(f, mu), rtol=1e-12)
        np.testing.assert_allclose(gdp.tpr, r.roc_tpr, rtol=1e-12)


def test_dpsgd_fields():
    r = risk_report(DpSgd(1.1, 0.01, 200))
    assert r.epochs == pytest.approx(2.0)
    assert r.sampling_only_eta == pytest.approx((1 - 0.99**200) / 2, rel=1e-12)
    assert r.reference_epsilon is not None and r.reference_delta == 1e-5
    small = risk_report(DpSgd(0.05, 0.01, 100))  # below the PLD floor: sampling alone
    assert small.route is Route.SAMPLING_ONLY
    assert small.eta == pytest.approx((1 - 0.99**100) / 2, rel=1e-12)


# --------------------------------------------------------------------------- the link


def _q(query: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(query, strict_parsing=True).items()}


def test_the_stakeholder_link_carries_the_same_epsilon_and_delta():
    r = risk_report(EpsDelta(1.3, 2e-6), prior=0.05)
    link = r.link
    assert link.path == "/what_eps_means" and link.source is LinkSource.INPUT
    q = _q(link.eps_query)
    assert q["kind"] == "dp" and float(q["eps"]) == 1.3 and float(q["delta"]) == 2e-6
    assert float(q["prior"]) == 5.0 and link.pair_ratio == 1.0
    e = _q(link.eta_query)
    assert e["kind"] == "mip" and float(e["eta"]) == r.eta and float(e["prior"]) == 5.0
    # add/remove: the replace-one pair it converts to
    link = risk_report(EpsDelta(0.5, 1e-5, AR)).link
    q = _q(link.eps_query)
    assert link.source is LinkSource.GROUP
    assert float(q["eps"]) == 1.0 and float(q["delta"]) == (1 + math.exp(0.5)) * 1e-5
    # other kinds: the single (ε, δ) point at δ = 1e-5, with how much it overstates η
    r = risk_report(Gdp(1.0))
    point = next(x for x in r.routes if x.route is Route.SINGLE_POINT)
    q = _q(r.link.eps_query)
    assert r.link.source is LinkSource.REFERENCE_POINT
    assert float(q["eps"]) == point.epsilon and float(q["delta"]) == 1e-5
    assert r.link.pair_ratio == pytest.approx(point.eta / r.eta)
    # Rényi DP for add/remove: its add/remove ε at δ = 1e-5, converted to replace-one (the
    # link's δ is not 1e-5, and its source says so)
    orders, values = (2.0, 4.0, 8.0), (0.5, 1.0, 2.0)
    eps_ar = next(
        x.epsilon for x in risk_report(Rdp(orders, values)).routes if x.route is Route.SINGLE_POINT
    )
    r = risk_report(Rdp(orders, values, relation=AR))
    q = _q(r.link.eps_query)
    assert r.link.source is LinkSource.GROUP_POINT
    assert float(q["eps"]) == pytest.approx(2 * eps_ar, rel=1e-12)
    assert float(q["delta"]) == pytest.approx((1 + math.exp(eps_ar)) * 1e-5, rel=1e-9)
    # zCDP and GDP for add/remove convert the guarantee first (4ρ, 2μ): δ stays 1e-5
    for g in (Zcdp(0.5, relation=AR), Gdp(1.0, relation=AR)):
        link = risk_report(g).link
        assert (
            link.source is LinkSource.REFERENCE_POINT and float(_q(link.eps_query)["delta"]) == 1e-5
        )


def test_links_that_the_epsilon_page_cannot_show_are_refused():
    assert risk_report(DpSgd(0.05, 0.01, 100)).link.blocked is LinkBlock.NO_POINT
    assert risk_report(EpsDelta(25.0, 0.0)).link.blocked is LinkBlock.EPS_TOO_LARGE
    assert risk_report(EpsDelta(1.0, 0.2)).link.blocked is LinkBlock.DELTA_TOO_LARGE
    for g in (DpSgd(0.05, 0.01, 100), EpsDelta(25.0, 0.0), EpsDelta(1.0, 0.2)):
        link = risk_report(g).link
        assert link.eps_query is None and link.eta_query.startswith("kind=mip&eta=")
    # the prior in % survives the round trip exactly
    assert risk_report(EpsDelta(1.0), prior=0.007).link.prior_pct == 0.7


@pytest.mark.parametrize(
    ("guarantee", "expected"),
    [
        (EpsDelta(1.3, 2e-6), {"kind": "dp", "eps": "1.3", "delta": "2e-06"}),
        (
            EpsDelta(0.5, 1e-5, AR),
            {"kind": "dp", "eps": "0.5", "delta": "1e-05", "rel": "add_or_remove_one"},
        ),
        (Gdp(1.0), {"kind": "gdp", "mu": "1.0"}),
        (Gdp(30.0, AR), {"kind": "gdp", "mu": "30.0", "rel": "add_or_remove_one"}),
        (Zcdp(0.1 + 0.2), {"kind": "zcdp", "rho": repr(0.1 + 0.2)}),
        (Zcdp(1000.0, AR), {"kind": "zcdp", "rho": "1000.0", "rel": "add_or_remove_one"}),
        (Rdp((8.0, 2.0), (1.0, 0.2)), {"kind": "rdp", "rdp": "2: 0.2, 8: 1"}),
        pytest.param(
            Rdp((2.0, 4.0), (0.5, 1.0), AR),
            {"kind": "rdp", "rdp": "2: 0.5, 4: 1", "rel": "add_or_remove_one"},
            marks=pytest.mark.slow,
        ),
        (DpSgd(1.1, 0.01, 100), {"kind": "dpsgd", "sigma": "1.1", "q": "0.01", "steps": "100"}),
    ],
)
def test_the_first_link_carries_the_guarantee_itself_with_its_relation(guarantee, expected):
    """Every kind the calculator takes goes to the stakeholder page as it was stated (the
    relation only when add/remove, as that page's own URL has it), and the lesson of that
    page reads the query to the calculator's numbers."""
    r = risk_report(guarantee, prior=0.05)
    link = r.link
    assert link.same_blocked is None
    assert _q(link.same_query) == {**expected, "prior": "5.0"}
    q = _q(link.same_query)
    kw: dict = {"relation": q.get("rel", "replace_one")}
    if q["kind"] == "dp":
        kw.update(epsilon=float(q["eps"]), delta=float(q["delta"]))
    elif q["kind"] in ("gdp", "zcdp"):
        key = "mu" if q["kind"] == "gdp" else "rho"
        kw[key] = float(q[key])
    elif q["kind"] == "rdp":
        read = parse_rdp(q["rdp"])
        kw.update(orders=read.orders, rdp_values=read.values)
    else:
        kw = dict(
            noise_multiplier=float(q["sigma"]), sampling_rate=float(q["q"]), steps=int(q["steps"])
        )
    w = what_eps_means_lesson(float(q["prior"]) / 100, kind=q["kind"], **kw, fpr_cap=0.01)
    assert w.eta == pytest.approx(r.eta, abs=1e-12)
    assert w.ppv == pytest.approx(r.ppv, abs=1e-12)


@pytest.mark.parametrize(
    ("guarantee", "block"),
    [
        (EpsDelta(25.0, 1e-5), LinkBlock.EPS_TOO_LARGE),
        (EpsDelta(1.0, 0.2, AR), LinkBlock.DELTA_TOO_LARGE),
        (Gdp(60.0), LinkBlock.MU_TOO_LARGE),
        (Zcdp(1001.0), LinkBlock.RHO_TOO_LARGE),
        (Rdp(tuple(2.0 + k for k in range(65)), (1.0,) * 65), LinkBlock.RDP_TOO_LONG),
        (Rdp(tuple(1.0 + 1 / 3 + k for k in range(40)), (1 / 3,) * 40), LinkBlock.RDP_TOO_LONG),
        (Rdp((2.0, 2e6), (0.5, 1.0)), LinkBlock.NOT_TAKEN),  # orders above 10⁶ are not taken
        (Profile((1.0, 2.0), (1e-5, 1e-6)), LinkBlock.NOT_TAKEN),
    ],
)
def test_a_guarantee_the_stakeholder_page_cannot_take_says_why(guarantee, block):
    link = risk_report(guarantee).link
    assert link.same_query is None and link.same_blocked is block
    assert link.eta_query.startswith("kind=mip&eta=")  # the η link is always there


# --------------------------------------------------------------------------- Rényi text


@settings(max_examples=100)
@given(
    st.dictionaries(
        st.floats(1.0, 1e6, allow_nan=False, exclude_min=True),
        st.floats(0.0, 1e300, allow_nan=False),
        min_size=1,
        max_size=8,
    )
)
def test_rdp_text_is_read_back_bit_for_bit(pairs):
    text = rdp_text(tuple(pairs), tuple(pairs.values()))
    r = parse_rdp(text)
    assert r.ok and dict(zip(r.orders, r.values, strict=True)) == pairs
    assert list(r.orders) == sorted(pairs)
    assert rdp_text(r.orders, r.values) == text  # one text per guarantee


def test_parse_rdp_reads_pairs_in_any_order_and_separator():
    r = parse_rdp(" 8 = 2.0 ;4: 1\n2:0.5, ")
    assert r.ok and r.orders == (2.0, 4.0, 8.0) and r.values == (0.5, 1.0, 2.0)
    assert parse_rdp("1.5: 1e-3").values == (1e-3,)


@pytest.mark.parametrize(
    ("text", "problem", "position"),
    [
        ("", RdpProblem.EMPTY, 0),
        (" , ; ", RdpProblem.EMPTY, 0),
        ("2: 0.5, 3 0.7", RdpProblem.NOT_A_PAIR, 2),
        ("2: 0.5: 1", RdpProblem.NOT_A_PAIR, 1),
        ("2: nan", RdpProblem.NOT_A_NUMBER, 1),
        ("inf: 1", RdpProblem.NOT_A_NUMBER, 1),
        ("0x10: 1", RdpProblem.NOT_A_NUMBER, 1),
        ("1_000: 1", RdpProblem.NOT_A_NUMBER, 1),
        ("__import__('os'): 1", RdpProblem.NOT_A_NUMBER, 1),
        ("2: 1e999", RdpProblem.NOT_FINITE, 1),
        ("1: 0.5", RdpProblem.ORDER_TOO_SMALL, 1),
        ("2e6: 0.5", RdpProblem.ORDER_TOO_LARGE, 1),
        ("2: -0.5", RdpProblem.NEGATIVE_VALUE, 1),
        ("2: 0.5, 2.0: 0.6", RdpProblem.DUPLICATE_ORDER, 2),
        (",".join(f"{k + 2}: 1" for k in range(65)), RdpProblem.TOO_MANY, 65),
        ("2: " + "1" * 1000, RdpProblem.TOO_LONG, 0),
    ],
)
def test_parse_rdp_refuses_bad_text_with_a_reason(text, problem, position):
    r = parse_rdp(text)
    assert not r.ok and r.problem is problem and r.position == position
    assert r.orders == () and len(r.item) <= 40


@settings(max_examples=60)
@given(
    st.dictionaries(
        st.floats(1.0001, 1e6, allow_nan=False),
        st.floats(0.0, 1e6, allow_nan=False),
        min_size=1,
        max_size=10,
    )
)
def test_parse_rdp_round_trips_what_an_accountant_prints(pairs):
    text = ", ".join(f"{a!r}: {v!r}" for a, v in pairs.items())
    r = parse_rdp(text)
    assert r.ok
    assert dict(zip(r.orders, r.values, strict=True)) == pairs
    assert list(r.orders) == sorted(pairs)


@settings(max_examples=100)
@given(st.text(max_size=120))
def test_parse_rdp_never_raises(text):
    r = parse_rdp(text)
    assert r.ok == (r.problem is None)
    if r.ok:
        Rdp(r.orders, r.values)  # what it reads is a valid guarantee


# --------------------------------------------------------------------------- solve for noise


def test_noise_for_eta_full_batch_matches_the_exact_answer():
    s = noise_for_target("eta", 0.1, 1.0, 100)
    exact = 2 * math.sqrt(100) / (2 * norm.ppf(0.6))  # 2√T/μ with Φ(μ/2) − 1/2 = 0.1
    assert exact <= s.noise_multiplier <= exact * (1 + NOISE_TOLERANCE) * (1 + 1e-9)
    assert s.achieved_eta <= 0.1 and s.tolerance == NOISE_TOLERANCE
    assert s.target is Target.ETA and s.eta == 0.1 and s.tpr is None and s.epochs == 100


def test_noise_for_tpr_full_batch_matches_the_exact_answer():
    s = noise_for_target(Target.TPR, 0.05, 1.0, 100, fpr=0.01)
    mu = norm.ppf(0.05) - norm.ppf(0.01)  # Φ(Φ⁻¹(FPR) + μ) = TPR
    exact = 2 * math.sqrt(100) / mu
    assert exact <= s.noise_multiplier <= exact * (1 + NOISE_TOLERANCE) * (1 + 1e-9)
    assert tpr_bound_gdp(0.01, 2 * 10 / s.noise_multiplier) <= 0.05
    assert s.fpr == 0.01 and s.tpr == 0.05 and s.eta is None


def test_no_noise_needed_when_sampling_alone_suffices():
    s = noise_for_target("eta", 0.1, 0.001, 10)
    assert s.no_noise_needed and s.noise_multiplier == 0.0
    assert s.sampling_only_eta == pytest.approx((1 - 0.999**10) / 2)
    assert s.achieved_eta == s.sampling_only_eta < 0.1


def test_steps_ceiling():
    assert steps_ceiling() == 100_000 and steps_ceiling(20) == 2_000_000
    assert steps_ceiling(1e6) == 10**7


def test_presets_are_the_settings_they_cite():
    assert CIFAR10.sampling_rate == 256 / 50_000 and CIFAR10.steps == 9766
    assert E2E.sampling_rate == 1024 / 42_061 and E2E.steps == 411

    def eps8(sigma: float) -> float:  # add/remove RDP accounting, as Li et al.'s script
        acc = rdp_privacy_accountant.RdpAccountant()
        acc.compose(
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(
                    E2E.sampling_rate, dp_accounting.GaussianDpEvent(sigma)
                ),
                E2E.steps,
            )
        )
        return float(acc.get_epsilon(8e-6))

    assert eps8(E2E.noise_multiplier) <= 8.0 < eps8(E2E.noise_multiplier - 1e-3)


# --------------------------------------------------------------------------- refusals

BAD = [
    (lambda: risk_report("not a guarantee"), "guarantee"),
    (lambda: risk_report(Gdp(1.0), prior=0.0), "prior"),
    (lambda: risk_report(Gdp(1.0), prior=1.0), "prior"),
    (lambda: risk_report(Gdp(1.0), ppv_fpr=0.05), "ppv_fpr"),
    (lambda: risk_report(Gdp(1.0), ppv_fpr=-1.0), "ppv_fpr"),
    (lambda: noise_for_target("bogus", 0.1, 0.1, 10), "target"),
    (lambda: noise_for_target("tpr", 0.1, 0.1, 10), "fpr"),
    (lambda: noise_for_target("eta", 0.5, 0.1, 10), "eta"),
    (lambda: noise_for_target("tpr", 0.01, 0.1, 10, fpr=0.02), "tpr"),
    (lambda: noise_for_target("eta", 0.1, 0.0, 10), "sampling_rate"),
    (lambda: noise_for_target("eta", 0.1, 0.1, 0), "steps"),
    (lambda: steps_ceiling(0.5), "work_limit"),
]


@pytest.mark.parametrize(("call", "name"), BAD, ids=[b[1] for b in BAD])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --------------------------------------------------------------------------- the figure


@pytest.mark.parametrize("i", IDS[:9])
def test_figure_draws_every_valid_route_and_the_invalid_one_only_when_asked(reports, i):
    _, r = reports[i]
    chart, table = routes_roc_vega(r)
    line = next(la for la in chart.spec["layer"] if la["data"]["name"] == "routes")
    names = line["encoding"]["color"]["scale"]["domain"]
    valid = [x for x in r.routes if x.valid]
    assert not table.isna().any().any()
    for data in chart.datasets.values():
        assert data.select_dtypes("number").notna().all().all()
    assert not any(INVALID_SUFFIX in n for n in names)
    assert set(table["route"]) == {x.route.value for x in valid}
    (tight,) = [n for n in names if "tightest" in n]
    i_tight = names.index(tight)
    assert route_label(r.route) in tight
    assert line["encoding"]["strokeWidth"]["scale"]["range"][i_tight] == 5.0
    assert set(chart.datasets["tightest"]["name"]) == {tight}  # its own layer, drawn on top
    layers = [la["data"]["name"] for la in chart.spec["layer"]]
    assert layers.index("tightest") > layers.index("routes")
    chart2, table2 = routes_roc_vega(r, show_invalid=True)
    line2 = next(la for la in chart2.spec["layer"] if la["data"]["name"] == "routes")
    names2 = line2["encoding"]["color"]["scale"]["domain"]
    if r.invalid_eta is not None:
        (bad,) = [n for n in names2 if INVALID_SUFFIX in n]
        dash = line2["encoding"]["strokeDash"]["scale"]["range"][names2.index(bad)]
        assert dash == [10, 5, 2, 5] and set(table2["valid"]) == {True, False}  # dash-dot
    styles = [
        (c, tuple(d))
        for n, c, d in zip(
            names,
            line["encoding"]["color"]["scale"]["range"],
            line["encoding"]["strokeDash"]["scale"]["range"],
            strict=True,
        )
        if not n.startswith("TPR bound")
    ]
    assert len(styles) == len(set(styles))  # every curve has its own colour-and-dash pair
    assert tuple(chart.datasets["levels"]["tpr"]) == r.tpr_at_fpr


def test_module_has_the_documented_api():
    assert set(R.__all__) >= {"risk_report", "noise_for_target", "parse_rdp", "steps_ceiling"}


@pytest.mark.parametrize("guarantee", [EpsDelta(1.0, 1e-5), Gdp(1.0, AR), Zcdp(0.5)], ids=str)
def test_a_conversion_read_at_any_prior_is_the_report(guarantee):
    """``report_at(convert(g))`` is ``risk_report(g)`` at every prior and naming FPR, and
    refuses what ``risk_report`` refuses, by name."""
    from mipcore.lessons.risk_calculator import convert, report_at

    c = convert(guarantee)
    for prior, f in ((0.01, 0.01), (0.3, 0.1), (0.9, 0.001)):
        assert report_at(c, prior=prior, ppv_fpr=f) == risk_report(
            guarantee, prior=prior, ppv_fpr=f
        )
    with pytest.raises(ValueError, match=r"prior=1\.0"):
        report_at(c, prior=1.0)
    with pytest.raises(ValueError, match=r"ppv_fpr=0\.05"):
        report_at(c, ppv_fpr=0.05)
    with pytest.raises(ValueError, match="conversion must be a Conversion"):
        report_at(guarantee)  # type: ignore[arg-type]
