"""AppTest for the page "Can an audit catch a leaky mechanism?" (app_pages/audit.py)."""

from __future__ import annotations

import json
import re

import pagetools
import pytest
from pagetools import metric, snapshot, texts
from streamlit.testing.v1 import AppTest

from appkit import fmt_num, fmt_pct
from appkit.registry import by_key
from mipcore.experiments import canary_game as audit
from mipcore.mechanism import certified_level

PAGE = "app_pages/audit.py"
#: A paper's internal file id (three digits 000-004, bare or in backticks); digits inside
#: numbers such as 10,000 do not count.
FILE_ID = r"`00\d`|(?<![\d,.])00[0-4](?![\d,.])"


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=False, timeout=180, **params)


def pct(text: str) -> float:
    """A metric's percentage as a probability: "68.9 %" -> 0.689."""
    return float(text.replace("−", "-").rstrip(" %")) / 100


def body(at: AppTest) -> str:
    return " ".join(texts(at))


def chart_words(at: AppTest) -> str:
    """The words of every chart: titles, axis titles and legend names (the scales' domains)."""
    out = []
    for spec, _tables in pagetools.vega_charts(at):

        def walk(node) -> None:
            if isinstance(node, dict):
                for key, value in node.items():
                    if key == "title" and isinstance(value, str):
                        out.append(value)
                    elif key == "domain" and isinstance(value, list):
                        out.extend(v for v in value if isinstance(v, str))
                    walk(value)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(spec)
    return " ".join(out)


def lesson(mech="mean", noise="laplace", attacker="lr", *, trials=10_000, eps=1.0, eta=0.1,
           thr=0.5, tau=0.0, conf=0.95, trap=False) -> audit.AuditSummary:  # fmt: skip
    game = audit.play_game(
        mech, noise, attacker, trials=trials, epsilon=eps, eta=eta, threshold=thr
    )
    return audit.summarize(game, tau, conf, trap=trap)


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    return load()


def test_loads_with_chart_metrics_and_sentences(default_page):
    at = default_page
    assert at.title[0].value == by_key("audit").title
    assert not at.get("plotly_chart")  # the ROC is drawn by Vega-Lite: no Plotly chunk to load
    ((spec, _tables),) = pagetools.vega_charts(at)
    assert spec["title"] == "ROC of the attack under the certified regions"
    assert "10,000 trials; certified: η = 0.2311, ε = 1." in [c.value for c in at.caption]
    assert len(pagetools.footer_csvs(at)) >= 1  # the footer's CSV of the ROC
    for label in (
        "Audit proves at least",
        "Best attack reaches",
        "Noise certifies at most",
        "Measured accuracy",
        "Correct-guess rate",
    ):
        metric(at, label)
    text = body(at)
    assert "Upper bound beside lower bound" in text
    assert "largest ε that N = 10,000 trials can ever certify" in text
    assert "MIP_EXPLORER_WORK_LIMIT" in text and "100,000 trials" in text
    assert not at.warning
    pagetools.assert_clean(at)


def test_numbers_shown_are_the_experiments(default_page):
    at, s = default_page, lesson()
    game = audit.play_game("mean", "laplace", "lr", trials=10_000, epsilon=1.0, eta=0.1)
    assert metric(at, "Audit proves at least") == fmt_pct(s.accuracy_lower)
    assert metric(at, "Best attack reaches") == fmt_pct(game.audit.exact_accuracy)
    assert metric(at, "Noise certifies at most") == fmt_pct(s.certificate.accuracy)
    assert metric(at, "Measured accuracy") == fmt_pct(s.accuracy)
    assert metric(at, "Correct-guess rate") == fmt_pct(s.cgr)
    text = body(at)
    # Laplace(Δ/ε) at ε = 1: certified η = tanh(1/2)/2 = 0.2311; the lower bound stays below
    assert f"η ≤ {fmt_num(s.certificate.eta)}" in text and fmt_num(s.certificate.eta) == "0.2311"
    assert f"η ≥ {fmt_num(s.eta_lower)}" in text and s.eta_lower <= s.certificate.eta
    assert f"ε ≥ {fmt_num(s.epsilon_lower)}" in text
    assert f"{s.answered_correct:,} of {s.trials:,} right" in text
    assert fmt_num(s.max_epsilon) in text
    assert pct(metric(at, "Audit proves at least")) <= pct(metric(at, "Noise certifies at most"))


@pytest.mark.parametrize(
    "widget,key,value,params",
    [
        ("radio", "noise", "gaussian", {}),
        ("radio", "noise", "none", {}),
        ("slider", "eta", 0.3, {"noise": "mip"}),
        ("slider", "eps", 3.0, {}),
        ("number_input", "N", 2000, {}),
        ("slider", "tau", 0.5, {}),
        ("selectbox", "conf", 0.99, {}),
        ("toggle", "trap", True, {}),
        ("radio", "mech", "count", {}),
        ("radio", "attacker", "distance", {}),
        ("slider", "thr", 0.2, {"mech": "count"}),
        ("radio", "mech", "covariance", {}),
        ("radio", "noise", "mip", {"mech": "covariance"}),
        ("slider", "eps", 3.0, {"mech": "covariance"}),
    ],
)
def test_each_control_changes_output(widget, key, value, params):
    at = load(**params)
    before = snapshot(at)
    getattr(at, widget)(key=key).set_value(value).run()
    pagetools.assert_clean(at)
    assert snapshot(at) != before, key


def test_mechanism_and_attacker_options_are_url_bound():
    at = load(mech="mean", attacker="lr")
    assert list(at.radio(key="mech").options) == [
        "mean with a planted outlier",
        "count above a threshold",
        "covariance release (Figure 2's mechanism, 2-D records)",
    ]
    assert list(at.radio(key="attacker").options) == [
        "likelihood ratio (optimal)",
        "threshold on distance",
    ]
    assert "thr" not in [s.key for s in at.slider]  # the threshold slider is only for the count
    assert not at.warning
    bad = load(mech="shadow")
    assert bad.warning and "mech=shadow" in pagetools.unescaped(bad.warning[0].value)


def test_crafted_url_text_cannot_make_links():
    at = load(mech="[click](https://evil.example)", attacker="![x](https://evil.example/x.png)")
    assert len(at.warning) == 2
    for w in at.warning:
        assert "](" not in w.value  # escaped: shown as text
        assert "click" in pagetools.unescaped(w.value) or "x.png" in pagetools.unescaped(w.value)
    pagetools.assert_clean(at)


def test_count_and_distance_attacker_run_cleanly_and_respect_the_optimum():
    at = load(mech="count", attacker="distance", thr="0.3", noise="mip", eta="0.3")
    pagetools.assert_clean(at)
    assert at.slider(key="thr").value == pytest.approx(0.3)
    text = body(at)
    assert "number of records above 0.3" in text and "not optimal" in text
    assert "sensitivity Δ = 1" in text
    game = audit.play_game(
        "count", "mip", "distance", trials=10_000, epsilon=1.0, eta=0.3, threshold=0.3
    )
    s = audit.summarize(game, 0.0, 0.95)
    assert metric(at, "Measured accuracy") == fmt_pct(s.accuracy)
    # the distance attacker's measured accuracy stays under the exact optimum (up to 5 sd)
    assert s.accuracy <= game.audit.exact_accuracy + 5 * (0.25 / 10_000) ** 0.5
    assert s.eta_lower <= 0.3 + 1e-9
    assert s.eta_lower <= s.certificate.eta  # the certified level of Corollary 14's noise
    lr = load(mech="count", attacker="lr", thr="0.3", noise="mip", eta="0.3")
    pagetools.assert_clean(lr)
    assert pct(metric(lr, "Measured accuracy")) >= s.accuracy - 5 * (0.5 / 10_000) ** 0.5


@pytest.mark.parametrize("attacker", ["lr", "distance"])
def test_roc_legend_names_the_attacker_that_played(attacker):
    at = load(attacker=attacker)
    spec = chart_words(at)
    if attacker == "lr":
        assert "likelihood-ratio attack (measured)" in spec and "distance attack" not in spec
    else:
        assert "distance attack (measured)" in spec and "likelihood-ratio attack" not in spec


def test_eta_moves_the_roc_tables_not_its_spec():
    """The first slider (η, for the MIP noise) changes what the chart draws, not its
    specification: Streamlit then redraws the chart in place instead of building it anew."""
    (a,), (b,) = (pagetools.vega_charts(load(noise="mip", eta=e)) for e in ("0.1", "0.3"))
    assert json.dumps(a[0], sort_keys=True) == json.dumps(b[0], sort_keys=True)
    assert not a[1]["lines"].equals(b[1]["lines"])


def test_trap_shows_both_numbers_same_trials_not_below_held_out():
    at = load(trap="1")
    pagetools.assert_clean(at)
    t = lesson(trap=True).trap
    assert t is not None
    same = metric(at, "ε lower bound, τ picked on the same trials")
    held = metric(at, "ε lower bound, τ picked on held-out")
    assert (same, held) == (fmt_num(t.eps_same), fmt_num(t.eps_heldout))
    assert t.eps_same >= t.eps_heldout  # in this seeded run: 0.905 vs 0.8835
    assert any("multiple-testing trap" in s.value for s in at.subheader)


def test_invalid_url_warns_and_uses_default():
    at = load(N="abc")
    assert at.warning and "N=abc" in at.warning[0].value
    assert at.number_input(key="N").value == 10_000
    pagetools.assert_clean(at)


def test_trials_above_the_ceiling_from_a_link_warn_and_use_the_default():
    at = load(N="200000")
    assert at.warning and "N=200000" in at.warning[0].value
    assert "100000" in at.warning[0].value  # the allowed range is named
    assert "10,000 trials" in body(at)


def test_typed_trials_out_of_range_give_a_sentence_and_the_last_good_value():
    at = load(N="2000")
    at.number_input(key="N").set_value(999_999_999_999).run()
    assert not at.exception
    (err,) = at.error
    assert "outside the allowed range" in err.value and "100000" in err.value
    assert "still use 2000" in err.value
    text = body(at)
    # the results keep quoting the N they use, and the ceiling is stated with its setting
    assert "of 2,000 right" in text and "999,999,999,999" not in text
    assert "MIP_EXPLORER_WORK_LIMIT" in text
    pagetools.assert_clean(at, errors=True)


@pytest.mark.parametrize(
    "noise,params,cert",
    [
        ("laplace", {"eps": "1.0"}, 0.2311),  # tanh(1/2)/2
        ("gaussian", {"eps": "2.0"}, 0.3413),  # Φ(1) − 1/2
        # Corollary 14's c = (6.16/0.2)^2 on 4 numbers certifies (1 − e^{−1/c})/2 in every d
        ("mip", {"eta": "0.2"}, 0.5 * __import__("math").tanh(1 / (6.16 / 0.2) ** 2)),
    ],
)
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_covariance_release_shows_monte_carlo_optimum_beside_the_bounds(noise, params, cert):
    from mipcore.canary_audit import run_canary_audit

    at = load(mech="covariance", noise=noise, **params)
    pagetools.assert_clean(at)
    assert not at.warning
    text = body(at)
    assert "second-moment estimate" in text and "Δ₁ =" in text and "Δ₂ =" in text
    assert "Monte Carlo" in text and "99 % interval" in text
    # the page's optimum is the library's, computed independently here
    ref = run_canary_audit(
        100,
        n=audit.N_RECORDS,
        canary=audit.COV_CANARY,
        dim=audit.COV_DIM,
        mechanism="covariance",
        noise=noise,
        epsilon=float(params.get("eps", 1.0)),
        eta=float(params.get("eta", 0.1)),
        rng=0,
    )
    assert metric(at, "Best attack reaches") == fmt_pct(ref.exact_accuracy)
    assert f"η = {fmt_num(ref.exact_eta)} (Monte Carlo" in text
    s = lesson(
        "covariance", noise, eps=float(params.get("eps", 1.0)), eta=float(params.get("eta", 0.1))
    )
    assert s.certificate.eta == pytest.approx(cert, rel=1e-3)
    assert f"η ≤ {fmt_num(s.certificate.eta)}" in text
    # upper beside lower: the measured bound and the optimum's interval stay under the certificate
    assert s.eta_lower <= s.certificate.eta
    assert ref.exact_interval[0] - 0.5 <= s.certificate.eta
    # the measured accuracy of the optimal attacker agrees with the Monte Carlo optimum
    lo, hi = ref.exact_interval
    sd = (0.25 / 10_000) ** 0.5
    assert lo - 5 * sd <= pct(metric(at, "Measured accuracy")) <= hi + 5 * sd


def test_covariance_mip_release_shows_its_certified_level_not_the_target():
    at = load(mech="covariance", noise="mip", eta="0.2")
    text = body(at)
    c = (6.16 / 0.2) ** 2
    level = certified_level(c, M=2, d=4)
    assert f"½(1 − exp(−1/c)) = {fmt_num(level)}" in text and "these 4 numbers" in text
    assert "chose this noise for η = 0.2" in text
    # never labelled 0.2-MIP as if the target were what is certified
    assert "η ≤ 0.2 " not in text and "η ≤ 0.2," not in text and "0.2-MIP" not in text
    assert metric(at, "Noise certifies at most") == fmt_pct(0.5 + level)


@pytest.mark.parametrize(
    "params",
    [
        {"mech": "covariance", "noise": "none", "trap": "true", "tau": "5.0"},
        {"mech": "covariance", "noise": "none", "attacker": "distance", "trap": "true"},
        {"mech": "covariance", "noise": "laplace", "eps": "10.0", "N": "100", "trap": "true"},
        {"mech": "covariance", "noise": "mip", "eta": "0.5", "tau": "5.0", "conf": "0.99"},
        {"mech": "mean", "noise": "mip", "eta": "0.5", "tau": "5.0"},  # abstains everywhere
    ],
)
def test_extremes_give_sentences_not_errors(params):
    at = load(**params)
    pagetools.assert_clean(at)
    assert not at.warning
    assert metric(at, "Audit proves at least")


def test_no_file_ids_or_paper_paths_in_page_text(default_page):
    for at in (default_page, load(trap="1", mech="covariance", noise="mip")):
        text = body(at) + chart_words(at)
        assert not re.search(FILE_ID, text), text


def test_loads_through_the_app_navigation():
    at = pagetools.load(PAGE, via_app=True, timeout=180, noise="gaussian", eps="2.0")
    pagetools.assert_clean(at)
    assert at.title[0].value == by_key("audit").title
    assert f"η ≤ {fmt_num(0.3413447460685429)}" in body(at)


def test_presenter_mode_loads_clean():
    at = load(present="1", trap="1")
    pagetools.assert_clean(at)
    assert any(e.label.startswith("Why?") for e in at.expander)
