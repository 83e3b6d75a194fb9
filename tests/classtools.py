"""Class mode in a real browser: the teacher's and the students' steps, shared by
``test_browser_class.py`` (one server) and ``test_proxy.py`` (two processes behind nginx)."""

from __future__ import annotations

import re

import pytest
from browsertools import RUN_TIMEOUT, assert_no_exception, open_app

PAGE = "/play_attacker"
STEP_TIMEOUT = 15_000  # ms: one click's rerun on a loaded machine
DASHBOARD_TIMEOUT = 10_000  # ms: the teacher's panel refreshes every 2 s
PROJECTOR = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}


def main_text(pg) -> str:
    return pg.locator('[data-testid="stMain"]').inner_text()


def start_class(pg, server: str) -> str:
    """The teacher starts a class on ``server``; returns its code (``ABCDEFGH``)."""
    open_app(pg, server, PAGE)
    pg.get_by_role("button", name=re.compile("Start a class")).click()
    pg.get_by_text(re.compile(r"Class code: [A-Z0-9]{4}-[A-Z0-9]{4}")).wait_for(timeout=RUN_TIMEOUT)
    found = re.search(r"Class code: ([A-Z0-9]{4})-([A-Z0-9]{4})", main_text(pg))
    assert found, f"no class code on the teacher's page:\n{main_text(pg)[:2000]}"
    return found[1] + found[2]


def wait_round(pg, number: int) -> None:
    try:
        pg.wait_for_function(
            """(n) => [...document.querySelectorAll('[data-testid="stMain"] h3')]
                      .some(h => h.innerText.trim().startsWith('Round ' + n + ' of'))""",
            arg=number,
            timeout=STEP_TIMEOUT,
        )
    except Exception:
        pytest.fail(f"expected round {number}; the page shows:\n{main_text(pg)[:2000]}")


def wait_text(pg, text: str | re.Pattern[str], timeout: int = STEP_TIMEOUT) -> None:
    try:
        pg.get_by_text(text).first.wait_for(timeout=timeout)
    except Exception:
        pytest.fail(f"expected {text!r} on the page; it shows:\n{main_text(pg)[:2000]}")


def join(pg, server: str, code: str, nickname: str) -> None:
    """A student opens the join link on ``server`` and joins as ``nickname``."""
    open_app(pg, server, f"{PAGE}?class={code}")
    box = pg.get_by_label("Your nickname")
    box.fill(nickname)
    box.press("Enter")
    pg.get_by_role("button", name="Join", exact=True).click()
    wait_text(pg, f"You play as “{nickname}”")


def answer(pg, first: int, rounds: int) -> None:
    """Answer rounds ``first`` … ``first + rounds - 1`` (In on odd rounds, Out on even)."""
    for k in range(first, first + rounds):
        wait_round(pg, k)
        name = "In" if k % 2 else "Out"
        pg.locator(f".st-key-play_{name.lower()} button:visible").click()
        wait_round(pg, k + 1)
    assert_no_exception(pg)


def join_and_answer(pg, server: str, code: str, nickname: str, rounds: int) -> None:
    """A student opens the join link on ``server``, joins as ``nickname``, answers ``rounds``."""
    join(pg, server, code, nickname)
    answer(pg, 1, rounds)


def wait_metric(pg, label: str, value: str) -> None:
    """Wait for the teacher's metric ``label`` to show ``value``."""
    js = """([label, value]) => [...document.querySelectorAll('[data-testid="stMetric"]')]
        .some(m => {
            const l = m.querySelector('[data-testid="stMetricLabel"]');
            const v = m.querySelector('[data-testid="stMetricValue"]');
            return l && v && l.innerText.trim() === label && v.innerText.trim() === value;
        })"""
    try:
        pg.wait_for_function(js, arg=[label, value], timeout=DASHBOARD_TIMEOUT)
    except Exception:
        pytest.fail(
            f"the teacher's dashboard did not show {label} = {value} within "
            f"{DASHBOARD_TIMEOUT / 1000:g} s; it shows:\n{main_text(pg)[:2000]}"
        )
