"""Tests for mipcore.reference_data: WERM's theory (Kaplan et al., PETS 2024, Section 3).

Each formula three ways: known values (the paper's Figure 2 point (N, ε₀/N), the endpoints
w = 0 and w = 1), identities (ε_T/ε_R independent of ε₀, the swap symmetry of footnote 4,
N_eff ≤ N), and brute force (exact fractions; N_eff as 1/Σ sᵢ² over explicit per-record
weights, the quantity McDiarmid's inequality uses in the proof of Theorem 3.2; grid argmax).
The Table 2 rules are checked on the printed table and against a plain loop.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mipcore.bounds import eta_from_epsilon
from mipcore.reference_data import (
    FIGURE2_EPS0,
    FIGURE2_N,
    FIGURE2_RATIOS,
    SELECTION_DEFAULTS,
    Figure2Fact,
    PrivacyPair,
    SelectionOutcome,
    SelectionRule,
    effective_sample_size,
    equal_privacy_weight,
    figure2,
    select_equal_privacy,
    select_high_reference_privacy,
    select_instance,
    select_public_reference,
    split_sizes,
    werm_epsilons,
    werm_etas,
)

weights = st.floats(0.0, 1.0)
# dyadic weights: 1 − (1 − w) == w exactly, so swap identities can be compared tightly
dyadic_weights = st.integers(0, 2**20).map(lambda k: k / 2**20)
sizes = st.integers(1, 10**6)


# --------------------------------------------------------------------------- Theorem 3.1


def test_epsilons_known_values():
    assert werm_epsilons(0.5, 10_000, 10_000, 1000.0) == PrivacyPair(0.05, 0.05)
    # w = 0: the reference set is unused; w = 1: the training set is unused
    assert werm_epsilons(0.0, 4000, 16_000, 1000.0) == PrivacyPair(0.25, 0.0)
    assert werm_epsilons(1.0, 4000, 16_000, 1000.0) == PrivacyPair(0.0, 1000.0 / 16_000)


@pytest.mark.parametrize("ratio", FIGURE2_RATIOS)
def test_epsilons_shared_point_of_figure2(ratio):
    """At w* = N_R/N both ε equal ε₀/N for every split of N (the shared point)."""
    nt = FIGURE2_N * ratio / (1 + ratio)
    nr = FIGURE2_N - nt
    w_star = equal_privacy_weight(nt, nr)
    eps_t, eps_r = werm_epsilons(w_star, nt, nr, FIGURE2_EPS0)
    assert eps_t == pytest.approx(FIGURE2_EPS0 / FIGURE2_N, rel=1e-14)
    assert eps_r == pytest.approx(FIGURE2_EPS0 / FIGURE2_N, rel=1e-14)
    assert effective_sample_size(w_star, nt, nr) == pytest.approx(FIGURE2_N, rel=1e-14)


@given(
    w=st.floats(0.01, 0.99), nt=sizes, nr=sizes, e1=st.floats(0.01, 1.0), e2=st.floats(0.01, 1.0)
)
def test_epsilon_ratio_independent_of_eps0(w, nt, nr, e1, e2):
    """ε_T/ε_R = (1−w)N_R/(w N_T) whatever ε₀ (Section 3.3); ε is linear in ε₀."""
    a = werm_epsilons(w, nt, nr, e1 * min(nt, nr))
    b = werm_epsilons(w, nt, nr, e2 * min(nt, nr))
    expected = (1 - w) * nr / (w * nt)
    assert a.train / a.reference == pytest.approx(expected, rel=1e-12)
    assert b.train / b.reference == pytest.approx(expected, rel=1e-12)
    assert a.train / b.train == pytest.approx(e1 / e2, rel=1e-12)


@given(w=dyadic_weights, nt=sizes, nr=sizes, frac=st.floats(0.001, 0.999))
def test_epsilons_swap_symmetry_and_domain(w, nt, nr, frac):
    """Swapping the datasets and w -> 1 − w swaps ε_T and ε_R; both stay below 1."""
    e0 = frac * min(nt, nr)  # inside the domain for every w
    a = werm_epsilons(w, nt, nr, e0)
    b = werm_epsilons(1 - w, nr, nt, e0)
    assert a.train == pytest.approx(b.reference, rel=1e-12, abs=1e-300)
    assert a.reference == pytest.approx(b.train, rel=1e-12, abs=1e-300)
    assert 0 <= a.train < 1 and 0 <= a.reference < 1


def test_epsilons_exact_fractions_and_vectorised():
    ws = np.linspace(0, 1, 41)
    eps_t, eps_r = werm_epsilons(ws, 300, 700, 250.0)
    assert isinstance(eps_t, np.ndarray) and eps_t.shape == ws.shape
    for x, et, er in zip(ws, eps_t, eps_r, strict=True):
        fx = Fraction(float(x))
        assert et == pytest.approx(float(Fraction(250) * (1 - fx) / 300), rel=1e-15)
        assert er == pytest.approx(float(Fraction(250) * fx / 700), rel=1e-15)
    assert isinstance(werm_epsilons(0.3, 300, 700, 250.0).train, float)


def test_epsilons_match_dpsgd_sensitivity_argument():
    """Appendix A.3: with ε_m = ε₀ w_m/N_m, Δ_m/ε_m = 2C/ε₀ for every dataset.

    Δ_m = 2 w_m C/N_m is the ℓ2 sensitivity of the weighted clipped-gradient sum (27) to
    replacing one record of D_m, computed here from explicit per-record weights.
    """
    C, e0, nt, nr = 1.7, 120.0, 300, 500
    for w in (0.1, 0.4, 0.8):
        eps = werm_epsilons(w, nt, nr, e0)
        s = np.concatenate([np.full(nt, (1 - w) / nt), np.full(nr, w / nr)])
        delta_t = 2 * C * s[0]  # replacing record 0 of D_T moves the sum by at most 2 C s_0
        delta_r = 2 * C * s[-1]
        assert delta_t / eps.train == pytest.approx(2 * C / e0, rel=1e-12)
        assert delta_r / eps.reference == pytest.approx(2 * C / e0, rel=1e-12)


def test_epsilons_domain_errors():
    with pytest.raises(ValueError, match="eps0"):
        werm_epsilons(0.5, 100, 100, 200.0)  # cap min(100/0.5, 100/0.5) = 200, strict
    with pytest.raises(ValueError, match="eps0"):
        werm_epsilons(1.0, 100, 50, 50.0)  # cap N_R/w = 50
    werm_epsilons(1.0, 100, 50, 49.9)  # N_T/(1 − w) = inf at w = 1
    with pytest.raises(ValueError, match="eps0"):
        werm_epsilons([0.0, 0.9], 100, 50, 60.0)  # fails at w = 0.9 only
    with pytest.raises(ValueError, match="eps0"):
        werm_epsilons(0.5, 100, 100, 0.0)
    with pytest.raises(ValueError, match="w="):
        werm_epsilons(1.5, 100, 100, 1.0)
    with pytest.raises(ValueError, match="n_train"):
        werm_epsilons(0.5, 0, 100, 1.0)
    with pytest.raises(ValueError, match="n_ref"):
        werm_epsilons(0.5, 100, -3, 1.0)
    with pytest.raises(ValueError, match="w="):
        werm_epsilons(float("nan"), 100, 100, 1.0)


def test_etas_are_theorem4_of_the_epsilons():
    ws = np.linspace(0, 1, 11)
    eps = werm_epsilons(ws, 1000, 3000, 500.0)
    eta = werm_etas(ws, 1000, 3000, 500.0, delta=1e-6)
    np.testing.assert_allclose(eta.train, eta_from_epsilon(eps.train, 1e-6), rtol=1e-15)
    np.testing.assert_allclose(eta.reference, eta_from_epsilon(eps.reference, 1e-6), rtol=1e-15)
    assert werm_etas(0.0, 1000, 3000, 500.0).reference == 0.0
    assert np.all(np.diff(eta.train) < 0) and np.all(np.diff(eta.reference) > 0)
    with pytest.raises(ValueError, match="delta"):
        werm_etas(0.5, 10, 10, 1.0, delta=2.0)
    with pytest.raises(ValueError, match="eps0"):
        werm_etas(0.5, 10, 10, 30.0)


# --------------------------------------------------------------------------- Theorem 3.2


def test_effective_sample_size_known_values():
    assert effective_sample_size(0.0, 4000, 16_000) == 4000.0
    assert effective_sample_size(1.0, 4000, 16_000) == 16_000.0
    assert effective_sample_size(0.8, 4000, 16_000) == pytest.approx(20_000.0, rel=1e-14)
    # (1/2)^2/100 + (1/2)^2/300 = 1/300 -> 300
    assert effective_sample_size(0.5, 100, 300) == pytest.approx(300.0, rel=1e-14)


@given(w=weights, nt=st.integers(1, 200), nr=st.integers(1, 200))
def test_effective_sample_size_is_inverse_sum_of_squared_weights(w, nt, nr):
    """N_eff = (Σᵢ sᵢ²)⁻¹ over the explicit per-record weights (proof of Theorem 3.2)."""
    s = np.concatenate([np.full(nt, (1 - w) / nt), np.full(nr, w / nr)])
    brute = 1.0 / np.sum(s**2)
    assert effective_sample_size(w, nt, nr) == pytest.approx(brute, rel=1e-12)
    assert effective_sample_size(w, nt, nr) <= (nt + nr) * (1 + 1e-12)


@given(nt=sizes, nr=sizes)
def test_effective_sample_size_maximum_is_at_equal_privacy_weight(nt, nr):
    """Brute-force argmax on a grid lands next to w* = N_R/N, where N_eff = N exactly."""
    grid = np.linspace(0, 1, 2001)
    w_star = equal_privacy_weight(nt, nr)
    best = grid[np.argmax(effective_sample_size(grid, nt, nr))]
    assert abs(best - w_star) <= 0.5 / 2000 + 1e-12
    n_eff_exact = Fraction(nt * nr) / (
        (1 - Fraction(nr, nt + nr)) ** 2 * nr + Fraction(nr, nt + nr) ** 2 * nt
    )
    assert n_eff_exact == nt + nr


def test_effective_sample_size_errors():
    with pytest.raises(ValueError, match="w="):
        effective_sample_size(-0.1, 10, 10)
    with pytest.raises(ValueError, match="n_train"):
        effective_sample_size(0.5, math.inf, 10)
    with pytest.raises(ValueError, match="n_ref"):
        effective_sample_size(0.5, 10, 0)


@given(nt=sizes, nr=sizes)
def test_equal_privacy_weight_equalises_epsilons(nt, nr):
    w_star = equal_privacy_weight(nt, nr)
    eps = werm_epsilons(w_star, nt, nr, 0.5 * min(nt, nr))
    assert eps.train == pytest.approx(eps.reference, rel=1e-12)
    # brute force: the grid point minimising |ε_T − ε_R| is next to w*
    grid = np.linspace(0, 1, 1001)
    g = werm_epsilons(grid, nt, nr, 0.5 * min(nt, nr))
    assert abs(grid[np.argmin(np.abs(g.train - g.reference))] - w_star) <= 0.5e-3 + 1e-12


def test_equal_privacy_weight_values_and_errors():
    assert equal_privacy_weight(18_000, 2_000) == 0.1
    assert equal_privacy_weight(10, 10) == 0.5
    np.testing.assert_allclose(equal_privacy_weight([1, 3], [3, 1]), [0.75, 0.25])
    with pytest.raises(ValueError, match="n_train"):
        equal_privacy_weight(0, 1)
    with pytest.raises(ValueError, match="n_ref"):
        equal_privacy_weight(1, float("nan"))


# --------------------------------------------------------------------------- Figure 2


def test_figure2_facts_hold_at_paper_parameters():
    fig = figure2()
    assert fig.eps0 == FIGURE2_EPS0 and fig.n_total == FIGURE2_N
    assert fig.shared_point == (20_000.0, 0.05)
    for v in fig.verdicts:
        assert v.holds, (v.fact, v.failures[:3])
        assert v.failures == ()
    assert {v.fact for v in fig.verdicts} == set(Figure2Fact)
    star = fig.curves[fig.curves["is_equal_privacy"]]
    assert sorted(star["w"].round(12)) == [0.1, 0.5, 0.8]  # N_R/N for ratios 9, 1, 0.25
    np.testing.assert_allclose(star["n_eff"], 20_000.0, rtol=1e-14)
    np.testing.assert_allclose(star["eps_train"], 0.05, rtol=1e-14)
    np.testing.assert_allclose(star["eps_ref"], 0.05, rtol=1e-14)
    sizes_ = fig.curves.groupby("ratio")[["n_train", "n_ref"]].first()
    assert sizes_.loc[0.25].tolist() == [4000.0, 16_000.0]
    assert sizes_.loc[9.0].tolist() == [18_000.0, 2_000.0]
    # each w* (0.8, 0.5, 0.1) rounds to a grid value, which it replaces: 101 points per curve
    assert fig.curves.groupby("ratio").size().tolist() == [101, 101, 101]
    assert figure2(w=[0.0, 1.0]).curves.groupby("ratio").size().tolist() == [3, 3, 3]


def test_figure2_curves_match_the_formulas():
    fig = figure2(w=np.linspace(0, 1, 21))
    for r, c in fig.curves.groupby("ratio"):
        nt, nr = c["n_train"].iloc[0], c["n_ref"].iloc[0]
        np.testing.assert_allclose(c["n_eff"], effective_sample_size(c["w"], nt, nr), rtol=1e-13)
        eps = werm_epsilons(c["w"].to_numpy(), nt, nr, 1000.0)
        np.testing.assert_allclose(c["eps_train"], eps.train, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(c["eps_ref"], eps.reference, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(c["eta_train"], eta_from_epsilon(c["eps_train"].to_numpy()))
        assert nt / nr == pytest.approx(r)


def test_figure2_footnote4_reciprocal_curves_coincide():
    """The training curve of N_T/N_R = 0.25 is the reference curve of 4, traversed backwards."""
    fig = figure2(ratios=(0.25, 4.0), w=np.linspace(0, 1, 11))
    a = fig.curves[fig.curves["ratio"] == 0.25].set_index("w")
    b = fig.curves[fig.curves["ratio"] == 4.0].set_index("w")
    for w in np.linspace(0, 1, 11):
        ra = a.loc[a.index[np.isclose(a.index, w)][0]]
        rb = b.loc[b.index[np.isclose(b.index, 1 - w)][0]]
        assert ra["n_eff"] == pytest.approx(rb["n_eff"], rel=1e-13)
        assert ra["eps_train"] == pytest.approx(rb["eps_ref"], rel=1e-13, abs=1e-300)


def test_figure2_facts_can_fail_on_a_degenerate_grid():
    """Only w ∈ {0.5, 1} with N_T = N_R: the maximum sits at the grid's left end."""
    fig = figure2(ratios=(1.0,), w=[0.5, 1.0])
    v = fig.verdict(Figure2Fact.UTILITY_RISES_THEN_FALLS)
    assert not v.holds
    assert v.failures[0].w == 0.5 and v.failures[0].quantity == "n_eff"
    assert fig.verdict(Figure2Fact.SHARED_POINT).holds


def test_figure2_errors():
    with pytest.raises(ValueError, match="eps0"):
        figure2(eps0=2000.0)  # ratio 9 has N_R = 2000: at w = 1, ε_R would be 1
    with pytest.raises(ValueError, match="eps0"):
        figure2(eps0=0.0)
    with pytest.raises(ValueError, match="ratios"):
        figure2(ratios=())
    with pytest.raises(ValueError, match="ratios"):
        figure2(ratios=(1.0, -2.0))
    with pytest.raises(ValueError, match="n_total"):
        figure2(n_total=0)
    with pytest.raises(ValueError, match="w="):
        figure2(w=[0.2, 1.2])
    with pytest.raises(ValueError, match="w="):
        figure2(w=[])
    with pytest.raises(ValueError, match="delta"):
        figure2(delta=-1.0)


# ------------------------------------------------------- one ratio, as the reference-data page
# (the reference-data page evaluates these functions directly)

GRID21 = np.linspace(0.0, 1.0, 21)


def test_split_sizes_values_and_errors():
    assert split_sizes(20_000, 1.0) == (10_000.0, 10_000.0)
    assert split_sizes(10_000, 4.0) == (8_000.0, 2_000.0)
    for n, a in ((20_000, 0.25), (9_000, 2.0), (1_000, 0.1), (37_000, 0.35)):
        nt, nr = split_sizes(n, a)
        assert nt + nr == pytest.approx(n) and nt / nr == pytest.approx(a)
    for kw, name in (
        (dict(n_total=-1.0), "n_total"),
        (dict(n_total=0.0), "n_total"),
        (dict(n_total=math.inf), "n_total"),
        (dict(ratio=0.0), "ratio"),
        (dict(ratio=float("nan")), "ratio"),
    ):
        args = dict(n_total=1000.0, ratio=1.0) | kw
        with pytest.raises(ValueError, match=name):
            split_sizes(**args)


@pytest.mark.parametrize("ratio, w_star", [(0.25, 0.8), (1.0, 0.5), (9.0, 0.1)])
def test_one_ratio_known_values_of_figure2(ratio, w_star):
    """ε₀ = 1000, N = 20 000: every curve passes through (N, ε₀/N) at w* = N_R/N."""
    nt, nr = split_sizes(20_000, ratio)
    assert min(nt, nr) > 1000.0  # in Theorem 3.1's domain
    assert equal_privacy_weight(nt, nr) == pytest.approx(w_star)
    fig = figure2(1000.0, 20_000, (ratio,), w=GRID21)
    assert all(f.holds for f in fig.verdicts)
    star = fig.curves[fig.curves["is_equal_privacy"]]
    assert star["w"].item() == pytest.approx(w_star)
    assert star["n_eff"].item() == pytest.approx(20_000)
    assert star["eps_train"].item() == star["eps_ref"].item() == 0.05 == 1000.0 / 20_000
    assert star["eta_train"].item() == pytest.approx(0.5 * math.tanh(0.025))
    assert fig.shared_point == (20_000.0, 0.05)


def test_attacker_accuracy_at_the_shared_point():
    """ε₀/N = 0.05: an attacker right at most 51.25 % of the time (η = tanh(0.025)/2)."""
    eta = eta_from_epsilon(1000.0 / 20_000)
    assert round(0.5 + eta, 4) == 0.5125
    assert 0.5 + eta == pytest.approx(0.5 + 0.5 * math.tanh(0.025))


def test_one_ratio_ends_match_theorem_31():
    nt, nr = split_sizes(10_000, 4.0)  # N_T = 8000, N_R = 2000
    fig = figure2(800.0, 10_000, (4.0,), w=GRID21)
    c = fig.curves
    assert len(c) == 21 and c["w"].is_monotonic_increasing  # w* = 0.2 is a grid point
    first, last = c.iloc[0], c.iloc[-1]
    assert first["w"] == 0.0 and last["w"] == 1.0
    assert first["eps_train"] == pytest.approx(werm_epsilons(0.0, 8000, 2000, 800.0).train)
    assert last["eps_ref"] == pytest.approx(werm_epsilons(1.0, 8000, 2000, 800.0).reference)
    assert first["eta_train"] == pytest.approx(eta_from_epsilon(0.1))
    # what the page quotes at the ends (ε₀/N_T at w = 0, ε₀/N_R at w = 1)
    assert werm_etas(0.0, nt, nr, 800.0).train == eta_from_epsilon(800.0 / nt)
    assert werm_etas(1.0, nt, nr, 800.0).reference == eta_from_epsilon(800.0 / nr)
    assert eta_from_epsilon(800.0 / nr) == pytest.approx(0.5 * math.tanh(0.2))
    np.testing.assert_allclose(
        c["n_eff"], effective_sample_size(c["w"].to_numpy(), 8000, 2000), rtol=1e-12
    )
    off = figure2(800.0, 9_000, (2.0,), w=GRID21).curves  # w* = 1/3 is added to the 21 points
    assert len(off) == 22 and off.loc[off["is_equal_privacy"], "w"].item() == pytest.approx(1 / 3)


def test_one_ratio_outside_the_domain():
    """ε₀ ≥ min(N_T, N_R) is outside Theorem 3.1's domain (open): figure2 refuses it, naming
    eps0; the page tests ``eps0 < min(split_sizes(...))`` first and explains instead."""
    nt, nr = split_sizes(20_000, 9.0)  # N_R = 2000
    assert min(nt, nr) == pytest.approx(2000.0)
    assert not min(nt, nr) > 2000.0 and min(nt, nr) > 1999.0  # the domain is open
    with pytest.raises(ValueError, match="eps0"):
        figure2(2000.0, 20_000, (9.0,), w=GRID21)
    assert figure2(1999.0, 20_000, (9.0,), w=GRID21).verdicts[0].holds
    assert not min(split_sizes(20_000, 9.0)) > 5000.0


# --------------------------------------------------------------------------- Table 2 rules

# Table 2 as printed: (test acc, MIA train, MIA ref) of each selected instance.
TABLE2 = {
    SelectionRule.PUBLIC_REFERENCE: [
        (83.8, 51.0, 66.7),
        (77.9, 50.1, 57.4),
        (54.2, 50.9, 65.6),
        (43.7, 50.3, 55.9),
        (34.2, 50.5, 84.0),
        (32.9, 50.1, 63.3),
    ],
    SelectionRule.EQUAL_PRIVACY: [
        (82.1, 61.1, 57.1),
        (87.0, 61.5, 61.5),
        (83.6, 54.7, 54.9),
        (48.3, 57.0, 53.4),
        (56.3, 61.1, 61.3),
        (49.8, 54.3, 54.0),
        (41.3, 79.8, 80.1),
        (40.1, 60.2, 60.2),
    ],
    SelectionRule.HIGH_REFERENCE_PRIVACY: [
        (76.8, 59.2, 50.0),
        (82.5, 65.7, 50.0),
        (84.2, 68.0, 50.9),
        (78.4, 57.8, 50.0),
        (49.8, 68.3, 50.0),
        (55.1, 68.6, 50.8),
        (52.0, 65.7, 50.9),
        (44.4, 56.3, 50.5),
        (31.7, 83.6, 50.0),
        (31.1, 83.3, 50.8),
        (30.2, 90.4, 50.0),
        (33.8, 83.5, 50.9),
        (33.0, 63.6, 50.0),
    ],
}


@pytest.mark.parametrize("rule", list(SelectionRule))
def test_table2_printed_instances_meet_our_reading_of_the_rules(rule):
    """Every instance Table 2 lists passes its rule as implemented (percentage points)."""
    for test_acc, mia_t, mia_r in TABLE2[rule]:
        s = select_instance(rule, [0.3], [test_acc / 100], [mia_t / 100], [mia_r / 100])
        assert s.outcome is SelectionOutcome.CHOSEN, (rule, test_acc, mia_t, mia_r)


def test_public_reference_rule_bounds_the_training_attack_not_the_reference():
    """Table 2's public-reference rows leak D_R heavily (up to 84 %): the rule reads MIA Train."""
    s = select_instance(SelectionRule.HIGH_REFERENCE_PRIVACY, [0.9], [0.838], [0.51], [0.667])
    assert s.outcome is SelectionOutcome.NO_ELIGIBLE_INSTANCE
    s = select_public_reference([0.9], [0.838], [0.51], [0.667])
    assert s.w == 0.9


def test_rules_on_a_sweep_like_table():
    w = [0.0, 0.2, 0.5, 0.8, 1.0]
    acc = [0.70, 0.74, 0.76, 0.74, 0.69]
    a_t = [0.62, 0.58, 0.55, 0.52, 0.505]
    a_r = [0.50, 0.53, 0.56, 0.60, 0.63]
    pub = select_public_reference(w, acc, a_t, a_r)
    assert (pub.w, pub.eligible_w, pub.criterion_value) == (1.0, (1.0,), 0.505)
    eq = select_equal_privacy(w, acc, a_t, a_r)
    assert (eq.w, eq.eligible_w) == (0.5, (0.5,)) and eq.criterion_value == pytest.approx(0.01)
    hi = select_high_reference_privacy(w, acc, a_t, a_r)
    assert (hi.w, hi.attack_ref, hi.test_accuracy) == (0.0, 0.50, 0.70)
    # adjustable thresholds
    assert select_public_reference(w, acc, a_t, a_r, max_train_attack=0.53).w == 0.8
    assert select_high_reference_privacy(w, acc, a_t, a_r, max_ref_attack=0.53).w == 0.2
    assert select_equal_privacy(w, acc, a_t, a_r, max_gap=0.001).w is None
    none = select_public_reference(w, acc, a_t, a_r, max_train_attack=0.5)
    assert none.outcome is SelectionOutcome.NO_ELIGIBLE_INSTANCE and none.eligible_w == ()
    assert none.test_accuracy is None


def test_rules_threshold_is_inclusive_and_ties_are_broken():
    s = select_high_reference_privacy(
        [0.1, 0.2, 0.3], [0.8, 0.8, 0.7], [0.6] * 3, [0.51, 0.505, 0.5]
    )
    assert s.w == 0.2 and s.tied_w == (0.1,)  # same test accuracy: smaller criterion wins
    s = select_high_reference_privacy([0.3, 0.1], [0.8, 0.8], [0.6, 0.6], [0.5, 0.5])
    assert s.w == 0.1 and s.tied_w == (0.3,)  # then the smaller w
    assert SELECTION_DEFAULTS[SelectionRule.EQUAL_PRIVACY] == 0.04


@given(
    data=st.lists(
        st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)),
        min_size=1,
        max_size=12,
    ),
    rule=st.sampled_from(list(SelectionRule)),
    thr=st.floats(0, 1),
)
def test_rules_match_a_plain_loop(data, rule, thr):
    w, acc, a_t, a_r = (list(x) for x in zip(*data, strict=True))
    s = select_instance(rule, w, acc, a_t, a_r, thr)
    crit = {
        SelectionRule.PUBLIC_REFERENCE: a_t,
        SelectionRule.EQUAL_PRIVACY: [abs(x - y) for x, y in zip(a_t, a_r, strict=True)],
        SelectionRule.HIGH_REFERENCE_PRIVACY: a_r,
    }[rule]
    ok = [i for i in range(len(w)) if crit[i] <= thr]
    if not ok:
        assert s.w is None and s.outcome is SelectionOutcome.NO_ELIGIBLE_INSTANCE
        return
    best = max(acc[i] for i in ok)
    assert s.test_accuracy == best
    assert s.outcome is SelectionOutcome.CHOSEN
    assert s.criterion_value <= thr
    assert sorted(s.eligible_w) == sorted(w[i] for i in ok)


def test_rules_errors():
    with pytest.raises(ValueError, match="same length"):
        select_public_reference([0.1, 0.2], [0.5], [0.5], [0.5])
    with pytest.raises(ValueError, match="test_accuracy"):
        select_public_reference([0.1], [1.5], [0.5], [0.5])
    with pytest.raises(ValueError, match="attack_train"):
        select_public_reference([0.1], [0.5], [-0.5], [0.5])
    with pytest.raises(ValueError, match="attack_ref"):
        select_public_reference([0.1], [0.5], [0.5], [float("nan")])
    with pytest.raises(ValueError, match="w="):
        select_equal_privacy([1.1], [0.5], [0.5], [0.5])
    with pytest.raises(ValueError, match="w="):
        select_equal_privacy([], [], [], [])
    with pytest.raises(ValueError, match="threshold"):
        select_high_reference_privacy([0.1], [0.5], [0.5], [0.5], max_ref_attack=2.0)
    with pytest.raises(ValueError, match="threshold"):
        select_equal_privacy([0.1], [0.5], [0.5], [0.5], max_gap=-0.1)
    with pytest.raises(ValueError, match="rule"):
        select_instance("public_reference", [0.1], [0.5], [0.5], [0.5])  # type: ignore[arg-type]
