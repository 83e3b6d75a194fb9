"""mipcore.score_audit's verdict on a claimed guarantee: audited_claim and claim_verdict.

References: the one-run audit's p-value and ε in mpmath (``mp_one_run_p``/``mp_one_run_eps``
of test_score_audit.py, Theorem 3 of Steinke, Nasr and Jagielski summed exactly); at δ = 0 the
closed form ``P[all r guesses right] = q^r``, q = e^ε/(1 + e^ε); for independent trials,
audit_scores itself run on members and non-members perfectly apart (the best outcome), at the
sizes the verdict names.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_score_audit import mp_one_run_eps, mp_one_run_p

from mipcore.guarantees import DpSgd, EpsDelta, Gdp, Relation, Zcdp, epsilon_at
from mipcore.score_audit import (
    AuditedClaim,
    Verdict,
    audit_scores,
    audited_claim,
    claim_verdict,
    one_run_epsilon,
    one_run_from_scores,
)

AR = Relation.ADD_OR_REMOVE_ONE


def _one_run(m: int, r: int, v: int, delta: float, confidence: float = 0.95):
    """A one-run audit of m canaries with r guesses ("in" for the top half of them), v right."""
    k_in = r - r // 2
    scores = np.arange(m, 0, -1, dtype=float)  # canary 0 scores highest
    included = np.zeros(m, dtype=bool)
    included[:k_in] = True  # the top k_in are members: all "in" guesses right
    included[m - r // 2 :] = False  # the bottom r // 2 are non-members: all "out" guesses right
    wrong = r - v  # make some guesses wrong: flip members among the "in" guesses, then the rest
    flip = list(range(min(wrong, k_in))) + list(range(m - 1, m - 1 - max(0, wrong - k_in), -1))
    included[flip] = ~included[flip]
    audit = one_run_from_scores(
        scores, included, guesses=(k_in, r // 2), delta=delta, confidence=confidence
    )
    assert (audit.guesses, audit.correct) == (r, v)
    return audit


# --------------------------------------------------------------------------- the claim


def test_a_dpsgd_claim_is_read_for_add_remove_by_its_accountant():
    run = DpSgd(3.0, 0.05, 300)
    c = audited_claim(run, 1e-5)
    assert c == AuditedClaim(epsilon_at(run, 1e-5, relation=AR), 1e-5, False)
    assert c.epsilon < epsilon_at(run, 1e-5)  # tighter than the replace-one number


def test_a_replace_one_claim_is_read_as_add_remove_with_the_same_numbers_and_says_so():
    assert audited_claim(EpsDelta(2.0, 1e-6), 1e-5) == AuditedClaim(2.0, 1e-5, True)
    assert audited_claim(EpsDelta(2.0, 1e-6, AR), 1e-5) == AuditedClaim(2.0, 1e-5, False)
    assert audited_claim(Gdp(1.0), 1e-5).epsilon == epsilon_at(Gdp(1.0), 1e-5)
    assert audited_claim(Zcdp(0.5, AR), 1e-5).read_as_add_remove is False
    assert audited_claim(EpsDelta(2.0, 1e-4), 1e-5).epsilon == math.inf  # nothing at this δ


# --------------------------------------------------------------------------- one run


@pytest.mark.parametrize(
    ("m", "r", "v", "delta", "claim", "verdict"),
    [
        (1000, 100, 100, 1e-5, 2.0, Verdict.REFUTED),
        (1000, 100, 80, 1e-5, 0.5, Verdict.REFUTED),
        (1000, 100, 80, 1e-5, 2.0, Verdict.CONSISTENT),
        (1000, 100, 50, 0.0, 0.1, Verdict.CONSISTENT),
        (1000, 100, 100, 1e-5, 4.0, Verdict.TOO_WEAK),
        (300, 20, 20, 1e-6, 3.0, Verdict.TOO_WEAK),
        (1797, 50, 49, 1e-5, 1.16, Verdict.REFUTED),  # the digits example without DP, LiRA
        (1797, 50, 29, 1e-5, 1.16, Verdict.CONSISTENT),  # ... with DP-SGD
    ],
)
def test_one_run_verdict_against_the_mpmath_one_run_bound(m, r, v, delta, claim, verdict):
    audit = _one_run(m, r, v, delta)
    got = claim_verdict(audit, claim)
    proven, best = mp_one_run_eps(m, r, v, delta, 0.95), mp_one_run_eps(m, r, r, delta, 0.95)
    assert got.proven_epsilon == pytest.approx(proven, abs=1e-6)
    assert got.best_epsilon == pytest.approx(best, abs=1e-6)
    assert got.verdict is verdict
    assert (proven > claim) == (verdict is Verdict.REFUTED)
    assert (best <= claim) == (verdict is Verdict.TOO_WEAK)
    assert got.one_run and got.canaries == m and got.claimed_epsilon == claim
    assert got.excess == pytest.approx(proven - claim, abs=1e-6)
    assert (got.canaries_needed is None) == (verdict is not Verdict.TOO_WEAK)


@pytest.mark.parametrize(
    ("m", "r", "delta", "claim"), [(1000, 100, 1e-5, 4.0), (300, 20, 1e-6, 3.0)]
)
def test_canaries_needed_is_where_every_guess_right_starts_to_refute(m, r, delta, claim):
    """At the number named, the same share of guesses, all right, rejects the claimed ε in
    mpmath (and proves more than it); one canary fewer does not."""
    got = claim_verdict(_one_run(m, r, r, delta), claim).canaries_needed
    assert got is not None and got > m
    alpha = 0.05
    for size, refutes in ((got, True), (got - 1, False)):
        k = max(round(r / m * size), 1)
        assert (float(mp_one_run_p(size, k, k, claim, delta)) <= alpha) is refutes
        assert (one_run_epsilon(size, k, k, delta=delta) > claim) is refutes


@pytest.mark.parametrize(("share", "claim"), [(0.05, 2.0), (0.25, 5.0), (1.0, 9.0)])
def test_canaries_needed_without_delta_is_the_binomial_closed_form(share, claim):
    """δ = 0: all r guesses right has probability q^r under ε-DP, so the claim is rejected
    from r >= ln(α)/ln(q) guesses: the fewest canaries whose share of guesses reaches it."""
    m = 400
    audit = _one_run(m, round(share * m), round(share * m), 0.0)
    got = claim_verdict(audit, claim)
    assert got.verdict is Verdict.TOO_WEAK
    q = math.exp(claim) / (1 + math.exp(claim))
    r_needed = math.ceil(math.log(0.05) / math.log(q))
    expected = next(n for n in range(m, 10**7) if max(round(share * n), 1) >= r_needed)
    assert got.canaries_needed == expected


def test_no_number_of_canaries_tests_a_claim_beyond_what_delta_allows():
    """At δ = 10⁻⁵ with guesses on a quarter of the canaries, every guess right never rejects
    ε = 8: the δ term grows with the canaries as fast as the evidence. The verdict says so
    (None) instead of naming a number that would not work."""
    from mipcore._score_audit import _one_run_p

    got = claim_verdict(_one_run(200, 50, 50, 1e-5), 8.0)
    assert got.verdict is Verdict.TOO_WEAK and got.canaries_needed is None
    for size in (10**3, 10**4, 10**5, 4 * 10**6):
        k = size // 4
        assert _one_run_p(size, k, k, 8.0, 1e-5) > 0.05


def test_an_infinite_claim_is_never_tested_and_no_guess_tests_nothing():
    audit = _one_run(1000, 100, 100, 1e-5)
    got = claim_verdict(audit, AuditedClaim(math.inf, 1e-5, False))
    assert got.verdict is Verdict.TOO_WEAK and got.canaries_needed is None
    none = one_run_from_scores(np.arange(50.0), np.arange(50) % 2, guesses=0, delta=1e-5)
    got = claim_verdict(none, 0.5)
    assert got.verdict is Verdict.TOO_WEAK and got.best_epsilon == 0.0
    assert got.canaries_needed is None


# --------------------------------------------------------------------------- independent trials


def _separated(members: int, non_members: int, **kw):
    return audit_scores(
        np.arange(non_members, non_members + members, dtype=float),
        np.arange(non_members, dtype=float),
        delta=1e-5,
        **kw,
    )


@pytest.mark.parametrize(
    ("strategy", "kw"),
    [("bonferroni", {}), ("bonferroni", {"max_thresholds": 50})],
)
def test_trials_best_is_audit_scores_on_a_perfect_separation(strategy, kw):
    gen = np.random.default_rng(4)
    audit = audit_scores(
        gen.normal(1, 1, 700), gen.normal(0, 1, 900), delta=1e-5, strategy=strategy, **kw
    )
    got = claim_verdict(audit, 0.1)
    perfect = _separated(700, 900, strategy=strategy, **kw)
    assert got.best_epsilon == pytest.approx(perfect.epsilon, rel=1e-12)
    assert not got.one_run and got.canaries == 1600


def test_split_best_is_one_rule_perfect_on_the_certifying_part():
    """The split's rule is chosen on one part and certified on the other: its best outcome
    flags every certifying member and no certifying non-member (Clopper–Pearson at α/2 per
    rate, as clopper_pearson_epsilon; the reverse rule too). audit_scores on perfectly
    separated scores reaches at most that (its rule may flag a certifying non-member)."""
    from mipcore.score_audit import clopper_pearson_epsilon

    gen = np.random.default_rng(4)
    audit = audit_scores(
        gen.normal(1, 1, 700),
        gen.normal(0, 1, 900),
        delta=1e-5,
        strategy="split",
        split_fraction=0.3,
    )
    cm, cn = 700 - int(0.3 * 700), 900 - int(0.3 * 900)
    best = max(
        clopper_pearson_epsilon(cm, cm, 0, cn, delta=1e-5),
        clopper_pearson_epsilon(cn, cn, 0, cm, delta=1e-5),
    )
    got = claim_verdict(audit, 0.1).best_epsilon
    assert got == pytest.approx(best, rel=1e-12)
    assert _separated(700, 900, strategy="split", split_fraction=0.3).epsilon <= got


def test_explicit_threshold_best_is_audit_scores_on_a_perfect_separation():
    gen = np.random.default_rng(5)
    audit = audit_scores(
        gen.normal(1, 1, 300), gen.normal(0, 1, 500), delta=1e-5, strategy="explicit", threshold=0.5
    )
    perfect = audit_scores(
        np.full(300, 1.0), np.zeros(500), delta=1e-5, strategy="explicit", threshold=0.5
    )
    assert claim_verdict(audit, 0.1).best_epsilon == pytest.approx(perfect.epsilon, rel=1e-12)


@pytest.mark.parametrize("claim", [4.5, 6.0])
def test_trials_needed_is_where_a_perfect_separation_starts_to_refute(claim):
    gen = np.random.default_rng(6)
    audit = audit_scores(gen.normal(3, 1, 200), gen.normal(0, 1, 300), delta=1e-5)
    got = claim_verdict(audit, claim)
    assert got.verdict is Verdict.TOO_WEAK
    n = got.canaries_needed
    assert n is not None and n > 500
    for size, refutes in ((n, True), (n - 1, False)):
        members = round(0.4 * size)
        assert (_separated(members, size - members).epsilon > claim) is refutes


def test_trials_verdicts():
    gen = np.random.default_rng(7)
    audit = audit_scores(gen.normal(2, 1, 2000), gen.normal(0, 1, 2000), delta=1e-5)
    assert claim_verdict(audit, audit.epsilon * 0.9).verdict is Verdict.REFUTED
    assert claim_verdict(audit, audit.epsilon).verdict is Verdict.CONSISTENT  # not more
    weak = claim_verdict(audit, 50.0)
    assert weak.verdict is Verdict.TOO_WEAK and weak.canaries_needed is None  # beyond 10⁹ rows


# --------------------------------------------------------------------------- refusals


def test_refusals_name_what_is_wrong():
    audit = _one_run(100, 10, 10, 1e-5)
    with pytest.raises(ValueError, match="claim=-1"):
        claim_verdict(audit, -1.0)
    with pytest.raises(ValueError, match="claim=nan"):
        claim_verdict(audit, float("nan"))
    with pytest.raises(ValueError, match=r"claim\.delta=0\.001 is not the audit's delta"):
        claim_verdict(audit, AuditedClaim(1.0, 1e-3, False))
    with pytest.raises(ValueError, match="is not a OneRunAudit or a ScoreAudit"):
        claim_verdict("audit", 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delta"):
        audited_claim(Gdp(1.0), 1.0)
