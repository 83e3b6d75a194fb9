"""AppTest for the page "Can a defense look private while its reference data leak?"
(app_pages/reference_data.py).

Loaded through app.py's navigation. Most tests use a small sweep (100 + 100 records, 10
features, 3 weights, 2 seeds) so that the job is quick; expected numbers and verdicts come
from :mod:`mipcore.reference_data` (Figure 2, w*, split_sizes) and Theorem 4's η, and from
:mod:`mipcore.experiments.reference_sweep` (run_sweep, reselect, the rows at a pick) on the same config
(tested in ``tests/test_reference_data.py`` and ``tests/test_reference_sweep.py``).
"""

from __future__ import annotations

import dataclasses
import json

import pagetools
import pytest
from pagetools import snapshot, texts, unescaped
from streamlit.testing.v1 import AppTest

from appkit.registry import by_key
from mipcore.bounds import eta_from_epsilon
from mipcore.experiments import reference_sweep as rl
from mipcore.experiments.reference_sweep import Attack, LeakConfig, Target, run_sweep
from mipcore.plots.formatting import fmt_num, fmt_pct
from mipcore.reference_data import SelectionRule, equal_privacy_weight, split_sizes

PAGE = "app_pages/reference_data.py"
SMALL = {"nt": "100", "nr": "100", "d": "10", "nw": "3", "seeds": "2"}
SMALL_CONFIG = LeakConfig(
    n_train=100, n_ref=100, n_features=10, n_informative=10, weights=rl.weight_grid(3), n_seeds=2
)


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=180, **params)


def text(at: AppTest) -> str:
    return "\n".join(texts(at, tables=True))


def takeaways(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**At w =")] + [
        m.value for m in at.markdown if m.value.startswith("**The defense's report")
    ]


def verdict_column(at: AppTest) -> list[str]:
    assert not at.table and not at.dataframe  # a Markdown table: no table code to load
    (table,) = pagetools.markdown_tables(at)
    return list(table["On this run"])


def expected_verdicts(res) -> list[str]:
    """The SweepResult's structured verdicts, in the page's order and words."""

    def word(holds: bool | None, missing: str) -> str:
        return "✅ holds" if holds else (f"➖ {missing}" if holds is None else "❌ does not hold")

    sel = res.config.selection_attack
    out = [
        word(res.trend(sel, Target.REFERENCE).holds, "not judged"),
        word(res.trend(sel, Target.TRAIN).holds, "not judged"),
    ]
    out += [word(res.rule_holds(rule), "nothing picked") for rule in SelectionRule]
    out.append(word(res.hidden_leak, "nothing picked"))
    return out


def n_charts(at: AppTest) -> int:
    """How many charts the page draws (all Vega-Lite: the page loads no Plotly)."""
    assert not at.get("plotly_chart")
    return len(at.get("vega_lite_chart"))


@pytest.fixture(scope="module")
def small_page() -> AppTest:
    return load(**SMALL)


@pytest.mark.slow
def test_loads_at_the_defaults_with_the_papers_lesson():
    at = load()
    assert at.title[0].value == by_key("reference_data").title
    assert n_charts(at) == 2
    labels = [b.label for b in pagetools.footer_csvs(at)]
    assert any(x.startswith("figure2_theory.csv") for x in labels), labels
    assert any(x.startswith("reference_triad.csv") for x in labels), labels
    pagetools.assert_clean(at)
    assert not at.warning
    res = run_sweep(LeakConfig())  # the page's default config
    assert verdict_column(at) == expected_verdicts(res)
    w = res.training_only_pick.w
    assert w is not None
    (claim,) = takeaways(at)
    assert f"At w = {fmt_num(w, 3)}, the training data look private" in claim
    ref = res.at(w, Target.REFERENCE)["accuracy_mean"]
    assert f"but the reference data are exposed (attack accuracy {fmt_pct(ref)}" in claim
    assert "lower bounds from this attack, not guarantees" in claim


def test_loads_standalone():
    at = pagetools.load(PAGE, via_app=False, timeout=180, **SMALL)
    pagetools.assert_clean(at)


def test_verdict_display_equals_the_sweeps_verdicts(small_page):
    res = rl.reselect(run_sweep(SMALL_CONFIG))
    assert verdict_column(small_page) == expected_verdicts(res)
    t = text(small_page)
    for s in res.selections:
        if s.w is not None:
            assert f"picks **w = {fmt_num(s.w, 3)}**" in t


@pytest.mark.parametrize(
    "params, thresholds",
    [
        ({"attack": "loss"}, dict(attack="loss")),
        ({"t_gap": "10", "t_ref": "55"}, dict(max_gap=0.1, max_ref_attack=0.55)),
        ({"t_train": "50"}, dict(max_train_attack=0.5)),
    ],
)
def test_rules_and_attack_change_the_verdicts_as_the_sweep_does(params, thresholds):
    at = load(**SMALL, **params)
    pagetools.assert_clean(at)
    fields = {
        "selection_attack": Attack(thresholds["attack"]) if "attack" in thresholds else None,
        "max_train_attack": thresholds.get("max_train_attack"),
        "max_gap": thresholds.get("max_gap"),
        "max_ref_attack": thresholds.get("max_ref_attack"),
    }
    cfg = dataclasses.replace(SMALL_CONFIG, **{k: v for k, v in fields.items() if v is not None})
    assert verdict_column(at) == expected_verdicts(run_sweep(cfg))


def test_nothing_picked_gives_a_sentence():
    at = load(**SMALL, t_train="50")
    assert "No w keeps the attack on the training data at or below 50 %" in text(at)
    assert "no w qualifies on this run" in text(at)


def test_training_only_toggle_changes_the_reported_claim(small_page):
    at = load(**SMALL)
    before = text(at)
    assert "but the reference data" in before or "reference data show no leak" in before
    at.toggle(key="train_only").set_value(True).run()
    assert not at.exception
    after = text(at)
    assert (
        "The defense's report: at w =" in after and "Nothing is said about the reference" in after
    )
    assert "reference data are exposed" not in after
    assert at.query_params["train_only"] == "1"
    assert not at.get("plotly_chart")
    _theory, (triad, tables) = pagetools.vega_charts(at)  # the triad is the second chart
    assert triad["title"] == "What a training-only evaluation shows"
    assert "reference data" not in json.dumps(triad, ensure_ascii=False)
    assert not any("reference data" in n for n in tables["lines"]["series"])
    assert snapshot(at) != snapshot(small_page)


@pytest.mark.parametrize(
    "params",
    [
        {"eps0": "500"},
        {"N": "50000"},
        {"ratio": "4"},
        {"unit": "eta"},
        {"nt": "200"},
        {"nr": "200"},
        {"d": "20"},
        {"sep": "2"},
        {"nw": "4"},
        {"seeds": "3"},
        {"seed": "3"},
        {"attack": "gap"},
        {"t_gap": "8"},
        {"train_only": "1"},
    ],
)
def test_each_control_changes_output_and_round_trips(small_page, params):
    at = load(**{**SMALL, **params})
    pagetools.assert_clean(at)
    assert not at.warning
    assert snapshot(at) != snapshot(small_page), params
    for key, value in {**SMALL, **params}.items():
        assert at.query_params[key] == value, (key, at.query_params)


def test_the_captions_name_the_setting(small_page):
    """The charts' titles name no slider value (a slider step redraws them in place): their
    captions do."""
    captions = [c.value for c in small_page.caption]
    assert "ε₀ = 1000, N = 20,000, N_T/N_R = 0.25; w* = N_R/N = 0.8." in captions
    res = run_sweep(SMALL_CONFIG)
    pick = res.training_only_pick.w
    triad = next(c for c in captions if c.startswith("Confidence attack; mean over 2 seeds"))
    assert f"w* = {res.w_star:.3g}" in triad
    assert (
        (f"training-only pick, w = {pick:.3g}." in triad)
        if pick is not None
        else triad.endswith(".")
    )
    eta = [c.value for c in load(**SMALL, eps0="500", unit="eta").caption]
    assert any(c.startswith("η from ε by Theorem 4") for c in eta)
    assert "ε₀ = 500, N = 20,000" in " ".join(c.value for c in load(**SMALL, eps0="500").caption)


def test_theory_numbers_are_the_theorys():
    at = load(**SMALL, ratio="4", unit="eta")
    n_train, n_ref = split_sizes(20_000.0, 4.0)  # 16 000 and 4 000
    w_star = equal_privacy_weight(n_train, n_ref)
    eps_star = 1000.0 / 20_000.0
    t = text(at)
    assert f"= {fmt_num(w_star, 3)} both sets get ε = ε₀/N = {fmt_num(eps_star, 3)}" in t
    assert "= 0.2 both sets get ε = ε₀/N = 0.05" in t
    assert f"right at most {fmt_pct(0.5 + eta_from_epsilon(eps_star))} of the time" in t
    assert "orders of magnitude" in t and "certify nothing" in t
    # the η axis's accuracies at the ends: D_T at w = 0 (ε₀/N_T), D_R at w = 1 (ε₀/N_R)
    acc_train = fmt_pct(0.5 + eta_from_epsilon(1000.0 / n_train))
    acc_ref = fmt_pct(0.5 + eta_from_epsilon(1000.0 / n_ref))
    assert acc_train != acc_ref
    assert f"up to {acc_train} for $D_T$ at w = 0 and {acc_ref} for $D_R$ at w = 1" in t
    assert t.count("✅") >= 5  # Figure 2's five statements, evaluated


def test_outside_theorem_31_is_a_sentence():
    at = load(**SMALL, eps0="5000", N="1000", ratio="0.1")
    pagetools.assert_clean(at)
    (w,) = at.warning
    assert "Theorem 3.1 holds only for ε₀ below" in w.value and "lower ε₀" in w.value
    assert n_charts(at) == 1  # the experiment still runs


@pytest.mark.parametrize("eps0, inside", [("2000", False), ("1990", True)])
def test_theorem_31_domain_edge(eps0, inside):
    """N = 20 000, N_T/N_R = 9: N_R = 2000, and the domain ε₀ < N_R is open."""
    at = load(**SMALL, eps0=eps0, N="20000", ratio="9")
    pagetools.assert_clean(at)
    if inside:
        assert not at.warning and n_charts(at) == 2
    else:
        (w,) = at.warning
        assert "the smaller set has 2000 records" in unescaped(w.value), w.value
        assert f"ε₀ = {fmt_num(2000.0)} is not" in w.value
        assert n_charts(at) == 1


def test_work_ceiling_is_stated_and_nothing_runs():
    at = load(nt="3000", nr="3000", d="1000", seeds="20", nw="21")
    pagetools.assert_clean(at)
    (w,) = at.warning
    assert "MIP_EXPLORER_WORK_LIMIT" in w.value and "420 fits" in w.value
    assert n_charts(at) == 1  # only the theory chart


@pytest.mark.parametrize(
    "params, key",
    [({"attack": "svm"}, "attack"), ({"t_train": "99"}, "t_train"), ({"unit": "x"}, "unit")],
)
def test_invalid_url_warns_and_uses_default(params, key):
    at = load(**SMALL, **params)
    assert any(f"{key}=" in unescaped(w.value) for w in at.warning)
    assert not at.exception and not at.error


def test_a_crafted_link_cannot_create_markdown_links():
    at = load(**SMALL, attack="x [click](https://example.com)")
    (w,) = at.warning
    assert "](" not in w.value
    assert "[click](https://example.com)" in unescaped(w.value)
