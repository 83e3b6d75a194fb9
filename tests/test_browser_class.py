"""Class mode in a real browser, on one server with its default storage (a SQLite file).

A teacher on a projector (1024×768) starts a class; three students join it, one of them on a
phone (390×844). The dashboard counts their players and guesses live; a student who reloads
keeps her progress; after "Close the class" a student's stale In/Out button is refused (the
stored count, read from the database itself, does not move); after "Reveal" the students see
the class picture; the teacher deletes the class through its confirmation.
"""

from __future__ import annotations

import re

import pytest
from browsertools import RUN_TIMEOUT, assert_no_exception, streamlit_server
from classtools import (
    PHONE,
    PROJECTOR,
    answer,
    join,
    main_text,
    play_button,
    start_class,
    wait_metric,
    wait_round,
    wait_text,
)

from appkit import classroom
from appkit.classui import STUDENT_WATCH_S

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def class_server(chromium_path, tmp_path_factory):
    """(the server's URL, a Store on the server's own SQLite file)."""
    data = tmp_path_factory.mktemp("class_data")
    with streamlit_server(env={"MIP_EXPLORER_DATA_DIR": str(data)}) as server:
        store = classroom.Store(f"sqlite:///{data / 'classes.sqlite3'}")
        yield server.url, store
        store.dispose()


def _click(pg, name: str) -> None:
    pg.get_by_role("button", name=name, exact=True).click()


def test_a_teacher_and_three_students_play_close_and_reveal(class_server, new_page):
    url, store = class_server
    teacher = new_page(PROJECTOR)
    code = start_class(teacher, url)
    rounds = store.class_view(code).rounds
    assert rounds >= 4, "the default class is too short for this test"

    ada = new_page(PHONE)
    join(ada, url, code, "Ada")
    answer(ada, 1, 2)
    # A reload keeps her place: same nickname, the next round (her link holds her key).
    ada.reload(wait_until="domcontentloaded")
    wait_text(ada, "You play as “Ada”")
    wait_round(ada, 3)
    answer(ada, 3, 1)

    grace, alan = new_page(), new_page()
    join(grace, url, code, "Grace")
    answer(grace, 1, 2)
    join(alan, url, code, "Alan")
    answer(alan, 1, 1)

    wait_metric(teacher, "Players", "3")
    wait_metric(teacher, "Guesses so far", "6")
    assert store.class_view(code).guesses == 6
    # While the class plays, no accuracy is projected (it would give a round's truth away).
    assert "The class (every guess)" not in main_text(teacher)

    # A teacher's click reruns the whole page (the class picture included): on a loaded machine
    # that takes longer than one student's click, so these waits allow a page run.
    _click(teacher, "Close the class")
    wait_text(teacher, "The class is closed", timeout=RUN_TIMEOUT)
    # Alan's page still shows round 2's buttons: his answer is refused, with a sentence.
    play_button(alan, "out").click()
    wait_text(alan, "Your answer was not counted")
    wait_text(alan, re.compile("The teacher has closed the class after 1 answer"))
    assert store.class_view(code).guesses == 6
    # Closed: the teacher sees the class's accuracy beside the guarantee.
    wait_text(teacher, "The class (every guess)")

    _click(teacher, "Reveal")
    wait_text(teacher, "The class is revealed", timeout=RUN_TIMEOUT)
    # Ada's phone shows the class picture by itself (it looks every STUDENT_WATCH_S): no tap,
    # no reload.
    ada.get_by_role("heading", name="The class", exact=True).wait_for(
        timeout=STUDENT_WATCH_S * 1000 + RUN_TIMEOUT
    )
    wait_text(ada, "You play as “Ada”")
    assert "The class picture appears here" not in main_text(ada)
    # A new student cannot join a closed class.
    late = new_page(PHONE)
    late.goto(f"{url}/play_attacker?class={code}", wait_until="domcontentloaded")
    wait_text(late, "This class takes no new players")

    # Delete asks first; the class and its answers are gone afterwards.
    teacher.get_by_role("button", name=re.compile("Delete the class")).click()
    _click(teacher, f"Yes, delete class {code[:4]}-{code[4:]}")
    wait_text(teacher, "is deleted, with every nickname and answer in it", timeout=RUN_TIMEOUT)
    with pytest.raises(classroom.Refused):
        store.class_view(code)
    for pg in (teacher, ada, grace, alan, late):
        assert_no_exception(pg)
        assert not pg.js_errors, pg.js_errors
