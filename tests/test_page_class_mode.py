"""Class mode on the "Play the attacker" page (app_pages/play_attacker.py, appkit.classui):
a teacher starts a class (join link, QR code, code, dashboard), students join at ``?class=``
and answer rounds through the class storage, the teacher closes and reveals, downloads the
CSV and gets the panel back through the private teacher link; an unreachable storage is a
sentence and the single game still plays; a crafted nickname shows as text.

Every test uses a SQLite store of its own (``appkit.settings.DATABASE_URL`` pointed at a
temporary file; :func:`appkit.classui.store` keeps one Store per URL).
"""

from __future__ import annotations

import csv
import io

import pagetools
import pytest
from pagetools import play_button, texts, unescaped
from streamlit.testing.v1 import AppTest

import appkit
from appkit import classroom, classui

PAGE = "app_pages/play_attacker.py"
TEACHER = "_class_teacher"


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A class storage of this test only; its Store (the one the page uses)."""
    monkeypatch.setattr(appkit.settings, "DATABASE_URL", f"sqlite:///{tmp_path}/classes.sqlite3")
    return classui.store()


def load(**params: str) -> AppTest:
    return pagetools.load(PAGE, via_app=True, timeout=60, **params)


def run(x) -> AppTest:
    """Run an AppTest, or the AppTest of an element just clicked or filled in."""
    at = x.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(at: AppTest) -> str:
    return " ".join(texts(at) + [h.value for h in at.subheader])


def metric(at: AppTest, start: str) -> str:
    return pagetools.metric(at, start)


def start_class(rounds: str = "10") -> tuple[AppTest, classroom.TeacherHandle]:
    at = load(rounds=rounds, seed="7")
    at = run(at.button(key="class_start").click())
    handle = at.session_state[TEACHER]
    return at, handle


def join(code: str, nickname: str) -> AppTest:
    at = load(**{"class": code})
    at.text_input(key="class_nickname").input(nickname)
    return run(at.button(key="class_join").click())


def heading(at: AppTest) -> str:
    (h,) = [m.value for m in at.markdown if m.value.startswith("### ")]
    return h.split(" — ")[0]


@pytest.mark.slow
def test_a_teacher_starts_a_class_and_students_play_it(db, downloads):
    at, h = start_class()
    text = shown(at)
    assert f"Class {h.display_code}" in text
    assert f"/play_attacker?class={h.code}" in next(t.value for t in at.text)
    assert f"Class code: {h.display_code}" in text
    assert at.get("image"), "the QR code of the join link"
    assert metric(at, "Players") == "0" and metric(at, "Guesses so far") == "0"
    assert not at.get("vega_lite_chart")  # no scores yet
    view = db.class_view(h.code)
    assert view.rounds == 10 and view.settings == classroom.GameSettings()

    # a student joins with the code as the projector shows it, answers three rounds
    student = join(h.display_code, "Ada")
    assert student.query_params["player"], "the personal link holds the player key"
    assert "You play as “Ada”." in [unescaped(m.value) for m in student.markdown]
    assert heading(student) == "### Round 1 of 10"
    for k in range(3):
        run(play_button(student, "in" if k % 2 else "out").click())
    assert heading(student) == "### Round 4 of 10"
    # the class plays the same rounds: while it is open no truth and no score is shown
    assert not [m for m in student.metric if m.label.startswith("You: ")]
    assert not [m for m in student.markdown if " was in:" in m.value or " was out:" in m.value]
    assert "3 answers recorded" in shown(student)
    # a reload (a new session of the same link) comes back to the same player and rounds
    token = student.query_params["player"]
    token = token[-1] if isinstance(token, list) else token
    again = load(**{"class": h.code, "player": token})
    assert heading(again) == "### Round 4 of 10"

    # many more players through the store: the teacher's dashboard counts them all
    for i in range(40):
        p = db.join(h.code, f"p{i}")
        for k in range(10):
            db.answer(h.code, p.player_token, k, (k + i) % 3 == 0)
    run(at)
    assert metric(at, "Players") == "41"
    assert metric(at, "Guesses so far") == f"{3 + 400}"
    # while the class plays, the projected panel counts only (a moving accuracy would tell
    # the room a round's truth)
    assert not [m for m in at.metric if m.label.startswith("The class")]
    assert not pagetools.vega_charts(at)
    (close,) = [b for b in at.button if b.label == "Close the class"]
    run(close.click())
    assert db.class_view(h.code).state is classroom.ClassState.CLOSED
    assert metric(at, "The class").endswith("%")
    assert metric(at, "Optimal attacker, same rounds").endswith("%")
    ((_spec, tables),) = pagetools.vega_charts(at)
    assert tables[""]["players"].sum() == 41
    assert "threshold corrected for 41 players" in shown(at)

    # the CSV, built on click, UTF-8 with a BOM
    (call,) = [c for c in downloads if c["label"] == "Download results (CSV)"][-1:]
    raw = call["data"]()
    assert raw.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0] == ["nickname", "round", "answer", "truth", "correct"]
    assert len(rows) == 1 + 403 and rows[1][:3] == ["Ada", "1", "out"]

    # closed: the student's next click is refused with a sentence, and the score appears
    run(play_button(student, "in").click())
    assert any("not counted" in w.value and "closed" in w.value for w in student.warning)
    assert heading(student).startswith("### The teacher has closed the class after 3 answers")
    assert metric(student, "You: ").endswith("%")

    # reveal: the student sees the class picture
    (reveal,) = [b for b in at.button if b.label == "Reveal"]
    run(reveal.click())
    run(student)
    assert "The class" in [s.value for s in student.subheader]
    assert metric(student, "Players") == "41"
    assert len(pagetools.vega_charts(student)) >= 1

    # a hand-over link: the panel comes back once, and the link leaves the address bar
    link = db.handoff(h.code, h.teacher_token)
    back = load(teach=link)
    assert f"Class {h.display_code}" in shown(back)
    assert "teach" not in back.query_params
    again = load(teach=link)
    assert f"Class code: {h.display_code}" not in shown(again)
    assert any("no longer valid" in unescaped(w.value) for w in again.warning)

    # delete
    (delete,) = [b for b in at.button if b.label == f"Yes, delete class {h.display_code}"]
    run(delete.click())
    with pytest.raises(classroom.ClassNotFound):
        db.class_view(h.code)
    assert heading(at) == "### Round 1 of 10"  # the single game again


def _flip_truths(monkeypatch) -> None:
    """A world with the same releases and every truth flipped: mipcore.game.draw_round's
    secret coin reversed wherever it is read."""
    import mipcore.game

    real = mipcore.game.draw_round

    def flipped(*args, **kwargs):
        member, *rest = real(*args, **kwargs)
        return (not member, *rest)

    for module in (mipcore.game, classroom):
        monkeypatch.setattr(module, "draw_round", flipped)


def _student_page(db, answers: int, *, close: bool = False) -> tuple:
    """What a student's page shows after ``answers`` answers in a class of seed 4242 (the
    class code taken out), the class closed at the end if ``close``."""
    appkit.cache.clear()  # nothing computed (or drawn) in the other world
    h = db.create_class(classroom.GameSettings(), 10, 4242)
    student = join(h.code, "Ada")
    for k in range(answers):
        run(play_button(student, "in" if k % 2 else "out").click())
    if close:
        db.close(h.code, h.teacher_token)
        run(student)
    texts, charts = pagetools.snapshot(student)
    token = student.query_params["player"]
    token = token[-1] if isinstance(token, list) else token
    secrets = {h.code: "CODE", h.display_code: "CODE", token: "KEY"}  # differ in every class
    for found, shown in secrets.items():
        texts = tuple(t.replace(found, shown) for t in texts)
    return texts, charts


def test_an_open_class_sends_a_student_nothing_that_depends_on_the_truths(db, monkeypatch):
    """Sealed means sealed: with the same releases and every truth flipped, a student's page
    after three answers is the same, element by element -- its texts and every chart's
    specification and tables. Closed, the pages differ (the check can fail)."""
    sealed = _student_page(db, 3)
    closed = _student_page(db, 3, close=True)
    with monkeypatch.context() as m:
        _flip_truths(m)
        assert _student_page(db, 3) == sealed
        assert _student_page(db, 3, close=True) != closed
    appkit.cache.clear()


def test_refusals_are_sentences_and_nicknames_are_text(db):
    h = db.create_class(classroom.GameSettings(), 10, 99)
    unknown = load(**{"class": "ZZZZ-ZZZZ"})
    assert any("is not a live class" in unescaped(w.value) for w in unknown.warning)
    bad = load(teach="nope")
    assert bad.warning and "teach" not in bad.query_params

    crafted = "**bold** <b>x</b>"
    student = join(h.code, crafted)
    (md,) = [m.value for m in student.markdown if m.value.startswith("You play as")]
    assert "**bold**" not in md and "<b>" not in md
    assert unescaped(md) == f"You play as “{crafted}”."
    blank = join(h.code, "\u202e ")
    assert any("nickname" in unescaped(w.value) for w in blank.warning)


def test_an_unreachable_storage_is_a_sentence_and_the_game_still_plays(monkeypatch):
    monkeypatch.setattr(appkit.settings, "DATABASE_URL", "postgresql+psycopg://u@127.0.0.1:1/x")
    at = load(**{"class": "ABCD-EFGH"})
    assert any("Class mode is unavailable" in w.value for w in at.warning)
    assert heading(at) == "### Round 1 of 30"
    run(play_button(at, "in").click())
    assert heading(at) == "### Round 2 of 30"
    run(at.button(key="class_start").click())
    assert any("Class mode is unavailable" in w.value for w in at.warning)
    assert TEACHER not in at.session_state


def _class(accuracies: list[tuple[int, int]], certified: float = 0.731) -> classroom.ClassScore:
    """A class whose players answered and got right the given counts (the chart reads only
    the players' accuracies and the guarantee)."""
    players = tuple(
        classroom.PlayerScore(i, f"p{i}", answered, correct, None)
        for i, (answered, correct) in enumerate(accuracies)
    )
    return classroom.ClassScore(
        (),
        (),
        (),
        0,
        0,
        None,
        0,
        0,
        (),
        players,
        certified_accuracy=certified,
        optimal_accuracy=0.7,
    )


def test_the_class_chart_bins_the_players_and_its_spec_depends_on_its_look(monkeypatch):
    """The class's chart: players with an answer in bins of 10 points (100 % in the last),
    drawn as bars from zero; the guarantee, the evidence threshold, the optimal attacker and
    the student's own score as lines told apart by colour, dash and width, each with its name
    in the legend and a label with its value on the plot; the x axis past 100 %; the best
    player's star. Its specification depends only on which lines and whether a best player are
    drawn (and the height), so it is built once per look in the app's cache."""
    from test_vega import valid_vega_lite

    from mipcore.plots import vega

    chart, table = classui.scores_vega(
        _class([(10, 10), (10, 7), (4, 3), (20, 15), (0, 0), (3, 0)]),
        corrected=0.83,
        optimal=0.745,
        you=0.75,
    )
    valid_vega_lite(chart)
    assert chart.data is table and list(table["players"]) == [1, 0, 0, 0, 0, 0, 0, 3, 0, 1]
    assert list(table["accuracy_from"]) == [k / 10 for k in range(10)]
    (bars,) = [la for la in chart.spec["layer"] if "data" not in la]  # the chart's own table
    assert bars["mark"]["type"] == "bar"
    assert bars["encoding"]["x2"] == {"field": "accuracy_to"}
    assert bars["encoding"]["y2"] == {"datum": 0}  # a bar from zero, not a dash at its count
    assert bars["encoding"]["x"]["scale"]["domain"][1] > 1.0  # a line at 100 % is not on the edge
    rules = chart.datasets["rules"]
    assert list(rules["accuracy"]) == [0.731, 0.83, 0.745, 0.75]
    assert list(rules["line"]) == [
        classui.GUARANTEE,
        classui.THRESHOLD,
        classui.OPTIMAL,
        classui.YOU,
    ]
    labels = [t.replace("\u00a0", " ") for t in rules["label"]]
    assert labels == ["guarantee 73.1 %", "evidence 83 %", "optimal 74.5 %", "you 75 %"]
    assert rules["ypix"].nunique() == 4  # one row of labels each: no label on another
    assert rules["top"].iloc[0] > max(table["players"])  # room above the bars for them
    (line,) = [
        la
        for la in chart.spec["layer"]
        if la.get("data") == {"name": "rules"} and la["mark"]["type"] == "rule"
    ]
    looks = {ch: line["encoding"][ch]["scale"]["range"] for ch in ("color", "strokeDash")}
    pairs = list(zip(looks["color"], map(tuple, looks["strokeDash"]), strict=True))
    assert len(set(pairs)) == 4  # every line looks different
    texts = [la for la in chart.spec["layer"] if la["mark"]["type"] == "text"]
    assert texts and all(la["encoding"]["text"]["field"] == "label" for la in texts)
    assert list(chart.datasets["best"]["accuracy"]) == [1.0]
    # the teacher's screen: no "you", no threshold, nobody answered: one line, no star
    empty, _ = classui.scores_vega(_class([(0, 0)]), corrected=None)
    valid_vega_lite(empty)
    assert list(empty.datasets) == ["rules"] and list(empty.datasets["rules"]["line"]) == [
        classui.GUARANTEE
    ]
    assert not [la for la in empty.spec["layer"] if la.get("data") == {"name": "best"}]
    # the same look, other scores: the same specification, built once
    built: list[tuple] = []
    real = classui._scores_layers

    def counting(*look):
        built.append(look)
        return real(*look)

    monkeypatch.setattr(classui, "_scores_layers", counting)
    monkeypatch.setattr(vega, "SPEC_MEMO", appkit.cache.cached)
    appkit.cache.clear()
    a, _ = classui.scores_vega(_class([(10, 2)]), corrected=0.9)
    b, _ = classui.scores_vega(_class([(10, 9), (5, 5)], certified=0.6), corrected=0.7)
    assert a.spec == b.spec and len(built) == 1
    classui.scores_vega(_class([(10, 9)]), corrected=None)
    classui.scores_vega(_class([(10, 9)]), corrected=None, height=300)
    classui.scores_vega(_class([(10, 9)]), corrected=None, you=0.9)
    assert len(built) == 4
