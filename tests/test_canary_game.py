"""Tests for mipcore.experiments.canary_game (the canary audit played N times) and the names
of its ROC chart (mipcore.plots.audit_vega; the chart's numbers are tested in
tests/test_audit_vega.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mipcore.audit_stats import (
    clopper_pearson,
    epsilon_lower_bound,
    eta_estimate,
    eta_lower_bound,
    max_certifiable_epsilon,
)
from mipcore.canary_audit import AuditAttacker, run_canary_audit
from mipcore.experiments import canary_game as audit
from mipcore.experiments.canary_game import CertificateBasis
from mipcore.mechanism import MipCalibration, certified_level, noise_multiplier_for
from mipcore.plots.audit_vega import ATTACKER_NAMES, audit_roc_vega


@pytest.fixture(scope="module")
def mean_game() -> audit.AuditGame:
    return audit.play_game("mean", "laplace", "lr", trials=10_000, epsilon=1.0, eta=0.1)


# --------------------------------------------------------------------------- certificates


def test_certificates_known_values():
    lap = audit.certified_bounds("laplace", 0.1, 1.0)
    assert lap.basis is CertificateBasis.THEOREM4
    assert lap.eta == pytest.approx(math.tanh(0.5) / 2, rel=1e-14)  # 0.2311
    assert lap.eta == pytest.approx(0.2311, abs=1e-4)
    assert lap.epsilon == 1.0 and lap.gdp_mu is None and lap.noise_multiplier is None
    gau = audit.certified_bounds("gaussian", 0.1, 2.0)
    assert gau.basis is CertificateBasis.GAUSSIAN_DP
    assert gau.eta == pytest.approx(stats.norm.cdf(1.0) - 0.5, rel=1e-12)  # 0.3413
    assert gau.epsilon is None and gau.gdp_mu == 2.0
    none = audit.certified_bounds("none", 0.1, 1.0)
    assert none.basis is CertificateBasis.NOTHING and none.eta == 0.5 and not none.certified
    assert lap.accuracy == pytest.approx(0.5 + lap.eta) and lap.advantage == 2 * lap.eta


@pytest.mark.parametrize("d", [1, 2, 4, 9])
@pytest.mark.parametrize("eta", [0.01, 0.1, 0.2, 0.5])
def test_mip_certificate_is_the_certified_level_not_the_target(d, eta):
    cert = audit.certified_bounds("mip", eta, 1.0, dimension=d)
    c = (6.16 / eta) ** 2  # Corollary 14's multiplier, M = 2
    assert cert.basis is CertificateBasis.THEOREM9 and cert.certified
    assert cert.noise_multiplier == pytest.approx(c, rel=1e-12)
    assert cert.eta == certified_level(cert.noise_multiplier, M=2, d=d)  # the one definition
    assert cert.eta == pytest.approx(-0.5 * math.expm1(-1 / c), rel=1e-9)  # closed form
    assert cert.eta < eta  # Corollary 14's noise certifies far more than its target
    assert cert.target_eta == eta and cert.dimension == d
    assert cert.calibration is MipCalibration.PAPER and cert.epsilon is None


def test_uncertified_release_is_never_labelled_mip():
    printed = audit.certified_bounds("mip", 0.2, 1.0, dimension=4, calibration="as_printed")
    assert printed.basis is CertificateBasis.UNCERTIFIED and not printed.certified
    assert printed.eta == 0.5  # nothing beyond the trivial bound
    one = audit.certified_bounds("mip", 0.2, 1.0, dimension=1, calibration="as_printed")
    assert one.basis is CertificateBasis.THEOREM9  # d = 1: the same noise as the paper's
    tight = audit.certified_bounds("mip", 0.2, 1.0, dimension=4, calibration="tight")
    assert tight.eta == pytest.approx(0.2, rel=1e-9) and tight.eta <= 0.2
    c = noise_multiplier_for(0.2, M=2, d=4, calibration="tight")
    assert tight.noise_multiplier == c


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: audit.certified_bounds("shadow", 0.1, 1.0), "noise"),
        (lambda: audit.certified_bounds("mip", 0.0, 1.0), "eta"),
        (lambda: audit.certified_bounds("mip", 0.6, 1.0), "eta"),
        (lambda: audit.certified_bounds("laplace", 0.1, 0.0), "epsilon"),
        (lambda: audit.certified_bounds("mip", 0.1, 1.0, dimension=0), "dimension"),
        (lambda: audit.certified_bounds("mip", 0.1, 1.0, calibration="x"), "calibration"),
        (lambda: audit.trial_ceiling(0.5), "work_limit"),
        (lambda: audit.chunk_sizes(0), "trials"),
        (lambda: audit.play_game("mean", "laplace", "lr", trials=99, epsilon=1, eta=0.1), "trials"),
        (lambda: audit.play_game("mean", "x", "lr", trials=100, epsilon=1, eta=0.1), "noise"),
        (lambda: audit.play_game("mean", "mip", "lr", trials=100, epsilon=1, eta=0.6), "eta"),
        (
            lambda: audit.play_game("x", "laplace", "lr", trials=100, epsilon=1, eta=0.1),
            "mechanism",
        ),
        (
            lambda: audit.play_game("mean", "laplace", "me", trials=100, epsilon=1, eta=0.1),
            "attacker",
        ),
        (
            lambda: audit.play_game("mean", "laplace", "lr", trials=100, epsilon=0, eta=0.1),
            "epsilon",
        ),
        (lambda: audit.multiple_testing_trap([1.0, -1.0], [True, False], 1.0), "confidence"),
    ],
)
def test_invalid_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_summarize_refuses_bad_tau_and_confidence(mean_game):
    with pytest.raises(ValueError, match="tau"):
        audit.summarize(mean_game, -0.1, 0.95)
    with pytest.raises(ValueError, match="confidence"):
        audit.summarize(mean_game, 0.0, 1.0)


# --------------------------------------------------------------------------- ceilings, chunks


def test_trial_ceiling_and_chunks():
    assert audit.trial_ceiling() == audit.MAX_TRIALS == 100_000
    assert audit.trial_ceiling(20) == 2_000_000
    assert audit.trial_ceiling(1e6) == 10**7  # run_canary_audit's own limit
    for n in (100, 9_999, 10_000, 10_001, 25_000, 100_000):
        sizes = audit.chunk_sizes(n)
        assert sum(sizes) == n and max(sizes) <= audit.CHUNK and min(sizes) >= 100
        assert max(sizes) - min(sizes) <= 1


# --------------------------------------------------------------------------- the game


def test_play_game_is_run_canary_audit_in_seeded_chunks(mean_game):
    ref = run_canary_audit(
        10_000,
        n=audit.N_RECORDS,
        canary=audit.CANARY,
        noise="laplace",
        epsilon=1.0,
        rng=np.random.default_rng([audit.SEED, 0]),
    )
    np.testing.assert_array_equal(mean_game.scores, ref.scores)
    np.testing.assert_array_equal(mean_game.labels, ref.labels)
    np.testing.assert_array_equal(mean_game.audit.scores, ref.scores)  # one chunk: itself
    assert mean_game.audit.exact_accuracy == ref.exact_accuracy
    assert mean_game.audit.exact_method == "exact" and not mean_game.monte_carlo
    assert mean_game.audit.sensitivity == 2.5 and mean_game.audit.output_dim == 1
    assert mean_game.certificate == audit.certified_bounds("laplace", 0.1, 1.0)
    assert float(mean_game.canary[0]) == audit.CANARY and mean_game.gd_residual is None


def test_play_game_chunks_are_deterministic_and_reported():
    calls = []
    a = audit.play_game(
        "count",
        "mip",
        "distance",
        trials=25_000,
        epsilon=1.0,
        eta=0.3,
        threshold=0.3,
        progress=lambda f, m: calls.append((f, m)),
    )
    b = audit.play_game(
        "count", "mip", "distance", trials=25_000, epsilon=1.0, eta=0.3, threshold=0.3
    )
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.scores.size == 25_000 and a.audit.threshold == 0.3
    assert [f for f, _ in calls] == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    # chunk 2 is run_canary_audit with seed [SEED, 2]
    ref = run_canary_audit(
        8333,
        n=8,
        canary=10.0,
        noise="mip",
        eta=0.3,
        mechanism="count",
        threshold=0.3,
        attacker="distance",
        exact=False,
        rng=np.random.default_rng([audit.SEED, 2]),
    )
    np.testing.assert_array_equal(a.scores[-8333:], ref.scores)


def test_covariance_game_facts_and_mip_certificate():
    g = audit.play_game("covariance", "mip", "lr", trials=200, epsilon=1.0, eta=0.2)
    a = g.audit
    assert a.output_dim == 4 and g.monte_carlo and len(a.sigma) == 4  # type: ignore[arg-type]
    c = (6.16 / 0.2) ** 2
    assert a.noise.scale == pytest.approx(c, rel=1e-12)  # NoiseLaw.mip: Corollary 14's c
    assert g.certificate.noise_multiplier == pytest.approx(c, rel=1e-12)
    assert g.certificate.eta == certified_level(a.noise.scale, M=2, d=4)
    assert g.certificate.eta == pytest.approx(-0.5 * math.expm1(-1 / c))
    assert g.certificate.dimension == a.output_dim
    lo, _ = a.exact_interval
    assert lo - 0.5 <= g.certificate.eta  # the best attack's interval starts below the bound
    assert g.gd_residual == pytest.approx(0.5**20)


# --------------------------------------------------------------------------- the summary


def test_summary_counts_by_brute_force(mean_game):
    s, y = mean_game.scores, mean_game.labels
    # ε-DP with ε = 1 bounds every posterior log-odds: |ℓ| <= 1, so τ >= 1 abstains everywhere
    assert np.max(np.abs(s)) <= 1.0 + 1e-12
    assert audit.summarize(mean_game, 1.0, 0.95).guesses == 0
    for tau in (0.0, 0.5, 0.9):
        r = audit.summarize(mean_game, tau, 0.95)
        guesses = sum(1 for v in s if abs(v) > tau)
        correct = sum(
            1 for v, lab in zip(s, y, strict=True) if (v > tau and lab) or (v < -tau and not lab)
        )
        assert (r.guesses, r.correct) == (guesses, correct)
        assert r.abstentions == len(s) - guesses
        answered = sum(1 for v, lab in zip(s, y, strict=True) if (v > 0) == lab)
        assert r.answered_correct == answered and r.accuracy == answered / len(s)
        assert r.accuracy_interval == pytest.approx(clopper_pearson(answered, len(s), 0.95))
        assert r.epsilon_lower == pytest.approx(epsilon_lower_bound(correct, guesses, 0.95))
        assert r.eta_lower == pytest.approx(eta_lower_bound(correct, guesses, len(s), 0.95))
        assert r.cgr == pytest.approx(correct / guesses)
        assert r.max_epsilon == max_certifiable_epsilon(len(s), 0.95)
        assert r.eta_hat == eta_estimate(correct, guesses, len(s))


def test_summary_default_numbers_are_stable(mean_game):
    r = audit.summarize(mean_game, 0.0, 0.95)
    # the seeded run the page shows by default
    assert (r.answered_correct, r.guesses, r.correct) == (6825, 10_000, 6825)
    assert r.eta_lower == pytest.approx(0.17321, abs=1e-5)
    assert r.epsilon_lower == pytest.approx(0.72977, abs=1e-5)
    assert r.max_epsilon == pytest.approx(8.1130, abs=1e-4)
    assert r.certificate.eta == pytest.approx(0.2311, abs=1e-4)
    assert r.consistent and r.eta_lower <= r.certificate.eta
    assert r.accuracy_lower == pytest.approx(0.5 + r.eta_lower)
    assert r.risk == pytest.approx(0.05)


def test_measured_accuracy_agrees_with_the_exact_optimum(mean_game):
    """The likelihood-ratio attacker is the optimal one: its accuracy over 10 000 trials is
    within a 99.9 % normal interval (z = 3.29) of Proposition 2's exact accuracy."""
    r = audit.summarize(mean_game, 0.0, 0.95)
    p = mean_game.audit.exact_accuracy
    assert abs(r.accuracy - p) <= 3.29 * math.sqrt(p * (1 - p) / r.trials)
    assert mean_game.audit.exact_eta == pytest.approx(p - 0.5)


def test_all_abstain_gives_no_cgr():
    g = audit.play_game("mean", "none", "lr", trials=100, epsilon=1.0, eta=0.1)
    r = audit.summarize(g, 0.0, 0.95)
    assert r.certificate.basis is CertificateBasis.NOTHING
    far = audit.summarize(
        audit.play_game("mean", "mip", "lr", trials=100, epsilon=1.0, eta=0.5), 5.0, 0.95
    )
    assert far.guesses == 0 and far.cgr is None and far.cgr_interval is None
    assert far.eta_lower == 0.0 and far.epsilon_lower == 0.0


def test_trap_same_trials_not_below_held_out(mean_game):
    r = audit.summarize(mean_game, 0.0, 0.95, trap=True)
    t = r.trap
    assert t is not None
    assert t.eps_same >= t.eps_heldout
    assert t.eps_same == pytest.approx(0.9050, abs=1e-4)  # the seeded default run
    assert t.eps_heldout == pytest.approx(0.8835, abs=1e-4)
    assert t.eval_trials + t.choice_trials == r.trials
    assert audit.summarize(mean_game, 0.0, 0.95).trap is None


def test_trap_is_none_without_a_nonzero_score():
    assert audit.multiple_testing_trap(np.zeros(10), np.arange(10) % 2 == 0, 0.95) is None


@settings(max_examples=30)
@given(st.integers(min_value=2, max_value=5000), st.integers(min_value=2, max_value=3000))
def test_thin_roc_keeps_both_ends(size, max_points):
    f = np.linspace(0, 1, size)
    tf, _ = audit.thin_roc(f, f**2, max_points)
    assert tf.size == size if size <= max_points else tf.size <= max_points
    assert tf[0] == 0 and tf[-1] == 1 and np.all(np.diff(tf) >= 0)


# --------------------------------------------------------------------------- the figure


@pytest.mark.parametrize("attacker", list(AuditAttacker))
@pytest.mark.parametrize("noise", ["laplace", "gaussian", "mip", "none"])
def test_roc_legend_names_the_attacker_that_played(attacker, noise):
    g = audit.play_game("mean", noise, attacker, trials=500, epsilon=1.0, eta=0.1)
    chart, data = audit_roc_vega(audit.summarize(g, 0.0, 0.95), attacker)
    line = next(layer for layer in chart.spec["layer"] if layer["mark"]["type"] == "line")
    names = line["encoding"]["color"]["scale"]["domain"]  # the legend's entries, in order
    assert names[-1] == ATTACKER_NAMES[attacker]
    assert set(chart.datasets["lines"]["name"]) == set(names)
    other = next(a for a in AuditAttacker if a is not attacker)
    assert ATTACKER_NAMES[other] not in names
    assert ("distance" in names[-1]) == (attacker is AuditAttacker.DISTANCE)
    assert any(n.startswith("MIP bound") for n in names) == (noise != "none")
    assert any(n.startswith("ε-DP") for n in names) == (noise == "laplace")
    assert any(n.startswith("Gaussian-DP") for n in names) == (noise == "gaussian")
    for table in chart.datasets.values():
        assert table.select_dtypes("number").notna().all().all()
    assert {"fpr_grid", "fpr_attack", "tpr_attack"} <= set(data.columns)
