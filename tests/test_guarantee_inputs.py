"""The guarantee inputs the risk calculator and "What does ε mean?" share
(appkit.guarantee_inputs, appkit.dpsgd): Rényi-DP values typed as text, read without ``eval``
and written back bit for bit; the link that carries a guarantee from the calculator to the
stakeholder page -- or says why it cannot -- parsed back; the server's ceiling on DP-SGD steps.
The pages' use of them is tested in test_page_risk_calculator.py and
test_page_what_eps_means.py.
"""

from __future__ import annotations

import math
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appkit.dpsgd import steps_ceiling
from appkit.guarantee_inputs import (
    guarantee_query,
    link_prior,
    pair_query,
    parse_rdp,
    rdp_text,
    stakeholder_link,
)
from mipcore.guarantees import DpSgd, EpsDelta, Gdp, Profile, Rdp, Relation, Zcdp

AR = Relation.ADD_OR_REMOVE_ONE


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
    assert r.problem is None and dict(zip(r.orders, r.values, strict=True)) == pairs
    assert list(r.orders) == sorted(pairs)
    assert rdp_text(r.orders, r.values) == text  # one text per guarantee


def test_parse_rdp_reads_pairs_in_any_order_and_separator():
    r = parse_rdp(" 8 = 2.0 ;4: 1\n2:0.5, ")
    assert r.problem is None and r.orders == (2.0, 4.0, 8.0) and r.values == (0.5, 1.0, 2.0)
    assert parse_rdp("1.5: 1e-3").values == (1e-3,)
    assert rdp_text((1.5,), (1e-300,)) == "1.5: 1e-300"


@pytest.mark.parametrize(
    ("text", "problem", "position"),
    [
        ("", "no pair", 0),
        (" , ; ", "no pair", 0),
        ("2: 0.5, 3 0.7", "not one order and one value", 2),
        ("2: 0.5: 1", "not one order and one value", 1),
        ("2: nan", "not a plain number", 1),
        ("inf: 1", "not a plain number", 1),
        ("0x10: 1", "not a plain number", 1),
        ("1_000: 1", "not a plain number", 1),
        ("__import__('os'): 1", "not a plain number", 1),
        ("2: 1e999", "too large", 1),
        ("1: 0.5", "above 1", 1),
        ("2e6: 0.5", "above 10⁶", 1),
        ("2: -0.5", "cannot be negative", 1),
        ("2: 0.5, 2.0: 0.6", "appears twice", 2),
        (",".join(f"{k + 2}: 1" for k in range(65)), "more than 64 pairs", 65),
        ("2: " + "1" * 1000, "longer than 1000 characters", 0),
    ],
)
def test_parse_rdp_refuses_bad_text_with_a_reason(text, problem, position):
    r = parse_rdp(text)
    assert r.problem is not None and problem in r.problem and r.position == position
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
    r = parse_rdp(", ".join(f"{a!r}: {v!r}" for a, v in pairs.items()))
    assert r.problem is None and dict(zip(r.orders, r.values, strict=True)) == pairs
    assert list(r.orders) == sorted(pairs)


@settings(max_examples=100)
@given(st.text(max_size=120))
def test_parse_rdp_never_raises(text):
    r = parse_rdp(text)
    if r.problem is None:
        Rdp(r.orders, r.values)  # what it reads is a valid guarantee


# --------------------------------------------------------------------------- the link


def _q(link: str) -> dict[str, str]:
    parts = urlsplit(link)
    assert parts.path == "/what_eps_means"
    return {k: v[0] for k, v in parse_qs(parts.query, strict_parsing=True).items()}


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
        (
            Rdp((2.0, 4.0), (0.5, 1.0), AR),
            {"kind": "rdp", "rdp": "2: 0.5, 4: 1", "rel": "add_or_remove_one"},
        ),
        (DpSgd(1.1, 0.01, 100), {"kind": "dpsgd", "sigma": "1.1", "q": "0.01", "steps": "100"}),
    ],
)
def test_the_link_carries_the_guarantee_itself_with_its_relation(guarantee, expected):
    """Every kind the calculator takes goes to the stakeholder page as it was stated (the
    relation only when add/remove, as that page's own URL has it), the share in % last."""
    query, why = guarantee_query(guarantee)
    assert why is None and query is not None
    assert _q(stakeholder_link(query, 0.05)) == {**expected, "prior": "5.0"}
    if isinstance(guarantee, Rdp):  # the text reads back to the same values
        read = parse_rdp(query["rdp"])
        pairs = sorted(zip(guarantee.orders, guarantee.values, strict=True))
        assert list(zip(read.orders, read.values, strict=True)) == pairs


@pytest.mark.parametrize(
    ("guarantee", "why"),
    [
        (EpsDelta(25.0, 1e-5), "eps"),
        (EpsDelta(1.0, 0.2, AR), "delta"),
        (Gdp(60.0), "mu"),
        (Zcdp(1001.0), "rho"),
        (Rdp(tuple(2.0 + k for k in range(65)), (1.0,) * 65), "rdp_long"),
        (Rdp(tuple(1.0 + 1 / 3 + k for k in range(40)), (1 / 3,) * 40), "rdp_long"),
        (Rdp((2.0, 2e6), (0.5, 1.0)), "not_taken"),  # orders above 10⁶ are not taken
        (Profile((1.0, 2.0), (1e-5, 1e-6)), "not_taken"),
    ],
)
def test_a_guarantee_the_stakeholder_page_cannot_take_says_why(guarantee, why):
    assert guarantee_query(guarantee) == (None, why)


def test_one_pair_and_the_share_in_percent():
    query, why = pair_query(*EpsDelta(0.5, 1e-5, AR).replace_pair)  # the converted pair
    assert why is None and query is not None
    q = _q(stakeholder_link(query, 0.01))
    assert q["kind"] == "dp" and float(q["eps"]) == 1.0
    assert float(q["delta"]) == (1 + math.exp(0.5)) * 1e-5 and q["prior"] == "1.0"
    assert pair_query(25.0, 0.0) == (None, "eps") and pair_query(1.0, 0.2) == (None, "delta")
    assert link_prior(0.007) == 0.7  # the share in % survives the round trip exactly
    assert (link_prior(1e-6), link_prior(0.9999)) == (0.1, 99.9)  # within the page's range


# --------------------------------------------------------------------------- the ceiling


def test_steps_ceiling():
    assert steps_ceiling() == 100_000 and steps_ceiling(20) == 2_000_000
    assert steps_ceiling(1e6) == 10**7


# --------------------------------------------------------------------------- shared rows, names


def test_the_rows_are_one_table_a_page_may_preset():
    from appkit.guarantee_inputs import rows
    from mipcore.guarantees import Kind

    keys = [r.key for r in rows()]
    assert keys == ["kind", "eps", "delta", "mu", "rho", "rdp", "sigma", "q", "steps", "rel"]
    preset = {r.key: r.default for r in rows(kind=Kind.DPSGD, sigma=3.0, q=0.05, steps=300)}
    assert (preset["kind"], preset["sigma"], preset["q"], preset["steps"]) == (
        Kind.DPSGD,
        3.0,
        0.05,
        300,
    )
    assert preset["eps"] == 1.0 and preset["delta"] == 1e-5  # the others as they were
    with pytest.raises(KeyError, match="no guarantee row"):
        rows(epsilon=1.0)


@pytest.mark.parametrize(
    ("guarantee", "words"),
    [
        (EpsDelta(1.0, 1e-5), "(ε, δ) = (1, 1 × 10⁻⁵)"),
        (Gdp(0.5, AR), "μ = 0.5 GDP"),
        (Zcdp(0.25), "ρ = 0.25 zCDP"),
        (Rdp((2.0, 4.0), (0.5, 1.0)), "Rényi DP at 2 orders"),
        (
            DpSgd(3.0, 0.05, 3000),
            "DP-SGD with noise multiplier 3, sampling rate 0.05 and 3,000 steps",
        ),
    ],
)
def test_a_guarantee_is_named_in_the_shared_words(guarantee, words):
    """Every section of appkit/guarantee_inputs.md names one kind, its placeholders filled."""
    from appkit import prose
    from appkit.guarantee_inputs import name

    assert name(guarantee) == words
    assert set(prose._shared_sections("guarantee_inputs")) == {
        "name_eps_delta",
        "name_gdp",
        "name_zcdp",
        "name_rdp",
        "name_dpsgd",
    }
