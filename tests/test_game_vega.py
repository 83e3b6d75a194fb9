"""The "Play the attacker" page's charts drawn by Vega-Lite (mipcore.plots.game_vega): the laws,
releases and scores of a game in play (mipcore.game.game_state) drawn from the tables, a specification that a turn
of the game does not change, and the distinctions drawn by more than colour."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from test_vega import valid_vega_lite

from mipcore.audit_stats import clopper_pearson
from mipcore.game import GameSettings, game_model, game_state, play_round, release_laws
from mipcore.plots import game_vega, style
from mipcore.plots.formatting import fmt_num
from mipcore.plots.vega import DASH

SETTINGS = [GameSettings(), GameSettings.dp("prop11", 2.0, n=6), GameSettings.mip("mean", 0.3)]
MODEL = game_model(SETTINGS[0])
LAWS = release_laws(MODEL)


def spec_text(chart) -> str:
    return json.dumps(chart.spec, sort_keys=True, ensure_ascii=False)


def layer(chart, data: str, mark: str) -> dict:
    (found,) = [
        la
        for la in chart.spec["layer"]
        if la["data"]["name"] == data and la["mark"]["type"] == mark
    ]
    return found


def test_times_text():
    assert game_vega.times_text(0.0) == "1"
    assert game_vega.times_text(math.log10(3.234)) == "3.23"
    assert game_vega.times_text(math.log10(1.00013)) == "1.00013"  # never just "1" near 1
    assert game_vega.times_text(7.0) == "1 × 10⁷"
    assert game_vega.times_text(400.0) == "more than 10³⁰⁰"
    xs = [1.0001, 1.01, 1.5, 2.0, 30.0, 1e5]
    values = [float(game_vega.times_text(math.log10(x)).replace(" × 10⁵", "e5")) for x in xs]
    assert values == pytest.approx(xs, rel=1e-3)


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
def test_laws_chart_draws_the_laws_and_the_rounds(settings):
    m = game_model(settings)
    laws = release_laws(m)
    s = game_state(m, 4, [True, False, True, True], 30)
    chart, table = game_vega.laws_vega(laws, s)
    valid_vega_lite(chart)
    # the CSV: the laws on their full grid
    assert list(table.columns) == ["release", "p_in", "p_out"]
    np.testing.assert_array_equal(table["release"], laws.grid)
    np.testing.assert_array_equal(table["p_in"], laws.p_in)
    np.testing.assert_array_equal(table["p_out"], laws.p_out)
    # the lines: rows of the table, every other grid point and both ends
    curves = chart.datasets["laws"]
    for name, column in ((game_vega.IN_NAME, "p_in"), (game_vega.OUT_NAME, "p_out")):
        rows = curves[curves["name"] == name]
        assert rows["release"].iloc[0] == laws.grid[0] and rows["release"].iloc[-1] == laws.grid[-1]
        assert len(rows) <= laws.grid.size // 2 + 2
        full = np.interp(rows["release"], table["release"], table[column])
        np.testing.assert_array_equal(rows["density"], full)  # grid points, exactly
    # the round to answer, the last one and the past releases
    (now,) = chart.datasets["now"].itertuples()
    assert now.release == s.turn.release
    assert now.label == f"this round: y = {fmt_num(s.turn.release, 4)}"
    rounds = [play_round(settings, 4, k, model=m) for k in range(4)]
    past = chart.datasets["past"]
    assert list(past["release"]) == [r.release for r in rounds]
    assert list(past["round"]) == [1, 2, 3, 4]
    names = [game_vega.PAST_IN if r.member else game_vega.PAST_OUT for r in rounds]
    assert list(past["name"]) == names and (past["zero"] == 0).all()
    last = chart.datasets["last"]
    assert (last["release"] == rounds[3].release).all() and (last["round"] == 4).all()
    assert list(last["density"]) == pytest.approx([s.last.p_in, s.last.p_out], rel=1e-12)
    ratio = game_vega.times_text(s.last.log10_ratio)
    assert ratio in last["ratio"].iloc[0]
    for t in chart.datasets.values():
        assert t.select_dtypes("number").notna().all().all()
        assert np.isfinite(t.select_dtypes("number").to_numpy(dtype=float)).all()


def test_a_turn_changes_the_tables_not_the_spec():
    """Answering a round must leave both specifications as they are, so that Streamlit redraws
    the charts in place (the reason they are Vega-Lite): from the first round to the end."""
    states = [game_state(MODEL, 4, [True] * k, 10) for k in (0, 1, 2, 7, 10)]
    laws = [game_vega.laws_vega(LAWS, s)[0] for s in states]
    assert len({spec_text(c) for c in laws}) == 1
    assert not laws[1].datasets["past"].equals(laws[2].datasets["past"])
    assert laws[0].datasets["last"].empty and laws[0].datasets["past"].empty
    assert laws[-1].datasets["now"].empty  # the game is over: no round to answer
    scores = [game_vega.score_vega(s.score)[0] for s in states[1:]]
    assert len({spec_text(c) for c in scores}) == 1
    assert not scores[0].datasets["scores"].equals(scores[-1].datasets["scores"])
    for c in laws + scores:
        valid_vega_lite(c)


def test_a_sealed_laws_chart_holds_nothing_of_the_past_rounds():
    """In a class that plays, the laws chart on a student's phone draws the laws and this
    round's release only: no table of past rounds or of the last round is sent, and neither
    the specification nor the legend names a past round's truth; its specification is the
    same in every round and whatever the truths."""
    states = [game_state(MODEL, 4, [True] * k, 10) for k in (0, 1, 3)]
    sealed = [game_vega.laws_vega(LAWS, s, sealed=True)[0] for s in states]
    for chart in sealed:
        valid_vega_lite(chart)
        assert set(chart.datasets) == {"laws", "now"}
        text = spec_text(chart)
        assert game_vega.PAST_IN not in text and game_vega.PAST_OUT not in text
    assert len({spec_text(c) for c in sealed}) == 1
    assert not sealed[1].datasets["now"].equals(sealed[2].datasets["now"])
    opened = game_vega.laws_vega(LAWS, states[2])[0]
    assert game_vega.PAST_IN in spec_text(opened)  # (unsealed, the past is drawn)


def test_the_laws_look_is_built_once_per_game_in_the_apps_cache(monkeypatch):
    """In the app, the laws' specification and tables are built once per game and every
    round's chart reads the same laws table (appkit.chart then converts it once); each chart
    has its own copy of the spec. mipcore alone builds all of it every time, equal."""
    from appkit import cache
    from mipcore.plots import vega

    states = [game_state(MODEL, 4, [True] * k, 10) for k in (0, 1, 2)]
    monkeypatch.setattr(vega, "SPEC_MEMO", None)
    alone = [game_vega.laws_vega(LAWS, s) for s in states]
    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()
    shared = [game_vega.laws_vega(LAWS, s) for s in states]
    assert shared[0][0].datasets["laws"] is shared[2][0].datasets["laws"]
    assert shared[0][1] is shared[2][1]  # the CSV's table
    assert alone[0][0].datasets["laws"] is not alone[2][0].datasets["laws"]
    assert shared[0][0].spec is not shared[1][0].spec
    for (a, ta), (b, tb) in zip(alone, shared, strict=True):
        assert a.spec == b.spec and ta.equals(tb) and a.title == b.title
        assert list(a.datasets) == list(b.datasets)
        for name in a.datasets:
            assert a.datasets[name].equals(b.datasets[name])
            assert list(a.datasets[name].dtypes) == list(b.datasets[name].dtypes)


def test_each_spec_is_built_once_per_look_in_the_apps_cache(monkeypatch):
    """Altair takes about 0.1 s to build a specification: in the app the laws' and the
    score's are built once per look (a game's settings, the height), never per round, and
    another look is built anew; mipcore alone builds them on every call."""
    from appkit import cache
    from mipcore.plots import vega

    built: list[str] = []

    def counting(name):
        real = getattr(game_vega, name)

        def draw(*look):
            built.append(name)
            return real(*look)

        return draw

    for name in ("_laws_layers", "_score_layers"):
        monkeypatch.setattr(game_vega, name, counting(name))
    monkeypatch.setattr(vega, "SPEC_MEMO", cache.cached)
    cache.clear()

    def rounds(model, laws, answered, **kw):
        for k in answered:
            s = game_state(model, 4, [True] * k, 10)
            game_vega.laws_vega(laws, s, **kw)
            if s.score is not None:
                game_vega.score_vega(s.score)

    rounds(MODEL, LAWS, (0, 1, 2, 7, 10))
    assert built == ["_laws_layers", "_score_layers"]
    rounds(MODEL, LAWS, (0, 3), height=game_vega.PRESENTER_HEIGHT)
    assert built == ["_laws_layers", "_score_layers", "_laws_layers"]
    other = game_model(SETTINGS[2])
    rounds(other, release_laws(other), (1, 2))
    assert built[3:] == ["_laws_layers", "_score_layers"]
    monkeypatch.setattr(vega, "SPEC_MEMO", None)
    rounds(MODEL, LAWS, (1, 2))
    assert len(built) == 5 + 4


def test_score_chart_draws_the_score_and_the_references():
    answers = [k % 3 != 0 for k in range(25)]
    s = game_state(MODEL, 9, answers, 30)
    chart, table = game_vega.score_vega(s.score)
    valid_vega_lite(chart)
    sc = s.score
    assert list(table.columns) == [
        "who",
        "correct",
        "rounds",
        "accuracy",
        "interval_low",
        "interval_high",
    ]
    assert list(table["who"][:2]) == ["you", "optimal attacker, same rounds"]
    assert list(table["correct"][:2]) == [sc.correct, sc.optimal_correct]
    assert list(table["accuracy"]) == pytest.approx(
        [sc.accuracy, sc.optimal_correct / 25, 0.5, sc.certified_accuracy, sc.optimal_accuracy]
    )
    assert tuple(table.iloc[0][["interval_low", "interval_high"]]) == pytest.approx(sc.interval)
    opt = clopper_pearson(sc.optimal_correct, 25, 0.95)
    assert tuple(table.iloc[1][["interval_low", "interval_high"]]) == pytest.approx(opt)
    assert table.iloc[3]["who"] == "guarantee 1/2 + η, 73.1 %"
    # drawn in %, from the table's numbers
    scores = chart.datasets["scores"]
    np.testing.assert_allclose(scores["accuracy"], 100 * table["accuracy"][:2].astype(float))
    np.testing.assert_allclose(scores["low"], 100 * table["interval_low"][:2].astype(float))
    np.testing.assert_allclose(scores["high"], 100 * table["interval_high"][:2].astype(float))
    assert list(scores["row"]) == ["you", "optimal attacker"]
    levels = chart.datasets["levels"]
    np.testing.assert_allclose(levels["accuracy"], 100 * table["accuracy"][2:].astype(float))
    assert list(levels["name"]) == list(table["who"][2:])
    for t in chart.datasets.values():
        assert t.select_dtypes("number").notna().all().all()


def test_more_than_colour_tells_the_series_apart():
    s = game_state(MODEL, 4, [True, False, False], 30)
    chart, _ = game_vega.laws_vega(LAWS, s)
    enc = layer(chart, "laws", "line")["encoding"]
    dash = dict(
        zip(enc["strokeDash"]["scale"]["domain"], enc["strokeDash"]["scale"]["range"], strict=True)
    )
    assert dash[game_vega.IN_NAME] == DASH["solid"] != dash[game_vega.OUT_NAME]
    past = layer(chart, "past", "point")["encoding"]["shape"]["scale"]
    shape = dict(zip(past["domain"], past["range"], strict=True))
    assert shape[game_vega.PAST_IN] != shape[game_vega.PAST_OUT]
    # the score chart: the reference lines by dash, the two rows by shape and position
    c2, _ = game_vega.score_vega(s.score)
    rule = layer(c2, "levels", "rule")["encoding"]["strokeDash"]["scale"]
    dashes = [tuple(d) for d in rule["range"][2:]]
    assert len(set(dashes)) == 3
    point = layer(c2, "scores", "point")["encoding"]
    assert point["y"]["scale"]["domain"] == ["you", "optimal attacker"]
    colours = dict(
        zip(point["color"]["scale"]["domain"], point["color"]["scale"]["range"], strict=True)
    )
    assert colours["guarantee 1/2 + η, 73.1 %"] == style.MIP.colour


def test_text_is_plain():
    s = game_state(MODEL, 4, [True], 30)
    for chart in (
        game_vega.laws_vega(LAWS, s)[0],
        game_vega.score_vega(s.score)[0],
    ):
        text = spec_text(chart) + " ".join(
            v
            for t in chart.datasets.values()
            for c in t.columns
            for v in t[c]
            if isinstance(v, str)
        )
        assert "<" not in text.replace("<=", "") and "e-0" not in text
