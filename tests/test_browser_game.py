""" "Play the attacker" in a real browser: a game a class can play.

* ← / → answer the round after a sidebar control was touched (a focused slider or radio
  button takes the arrow keys in Streamlit), and a held key answers once;
* a reload (a phone discarding its tab) keeps the round and the score; another browser
  starts its own game;
* "New game" deals a new game number into the link; the teacher's link (``fixed=1``) replays;
* presenter mode at 1024×768 with the sidebar open shows the round, In/Out and the release
  chart on one screen; a 390×844 phone shows In/Out on the first screen, "New game" away
  from them, and nothing clipped.

Screenshots go to ``tests/artifacts/game_*.png`` (gitignored).

Streamlit DOM hooks used (checked against Streamlit 1.67): ``stApp[data-test-script-state]``,
``stMain``, ``stSidebar``, ``stVegaLiteChart`` (``svg.marks``), ``stSliderThumbValue``,
``stMetricLabel``/``stMetricValue``, ``.st-key-<key>`` on a keyed element's container, and a
keyed button's hidden twin inside it (hence ``:visible``).
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from browsertools import RUN_TIMEOUT, assert_no_exception, streamlit_server, wait_for_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
PAGE = "/play_attacker"
DESKTOP = {"width": 1280, "height": 900}
PROJECTOR = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}
ANSWER_TIMEOUT = 15_000  # ms: one answer's rerun on a loaded machine


@pytest.fixture(scope="module")
def server(chromium_path):
    with streamlit_server() as srv:
        yield srv.url


ARM_S = 0.45  # s: a round's buttons take taps 0.4 s after they appear (play_attacker._KEYS)


@pytest.fixture
def open_page(browser, server):
    """``open_page(query, viewport=DESKTOP, phone=False)`` -> a page showing the game."""
    contexts = []

    def make(query: str, viewport=DESKTOP, phone: bool = False, context=None):
        if context is None:
            extra = dict(is_mobile=True, has_touch=True) if phone else {}
            context = browser.new_context(viewport=viewport, **extra)
            contexts.append(context)
        pg = context.new_page()
        pg.js_errors = []
        pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
        pg.goto(f"{server}{PAGE}?{query}", wait_until="domcontentloaded")
        settle(pg)
        armed()
        return pg

    yield make
    for c in contexts:
        c.close()


# --------------------------------------------------------------------------- helpers


def settle(pg) -> None:
    """Wait for the page's script to be idle and its charts drawn."""
    wait_for_run(pg)
    pg.wait_for_selector('[data-testid="stMain"] h3', timeout=RUN_TIMEOUT)
    pg.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
                  .every(c => c.querySelector('svg.marks, canvas.marks'))""",
        timeout=RUN_TIMEOUT,
    )


def heading(pg) -> str:
    return pg.locator('[data-testid="stMain"] h3').first.inner_text().strip()


def wait_heading(pg, start: str) -> None:
    """Wait until the round heading starts with ``start`` (fail with what it shows)."""
    try:
        pg.wait_for_function(
            """(s) => { const h = document.querySelector('[data-testid="stMain"] h3');
                        return h && h.innerText.trim().startsWith(s); }""",
            arg=start,
            timeout=ANSWER_TIMEOUT,
        )
    except Exception:
        pytest.fail(f"expected the heading to start with {start!r}; it shows {heading(pg)!r}")
    settle(pg)
    armed()


def armed() -> None:
    """Wait until a round's buttons have been on the screen long enough to take a tap: the
    page drops a tap within 0.4 s of them appearing as the second tap of a double tap."""
    time.sleep(ARM_S)


def button(pg, key: str):
    """The visible button of ``key``; "play_in" and "play_out" find the round's own buttons
    (their keys name the game and the round: ``play_in_<game>_<round>``)."""
    if key in ("play_in", "play_out"):
        return pg.locator(f'[class*="st-key-{key}_"] button:visible')
    return pg.locator(f".st-key-{key} button:visible")


def link(pg) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(pg.url).query).items()}


def metric(pg, label_start: str) -> str:
    """The value of the metric whose label starts with ``label_start`` (waits for it)."""
    with contextlib.suppress(Exception):  # fail below, with a sentence
        pg.wait_for_function(
            """(s) => [...document.querySelectorAll('[data-testid="stMetricLabel"]')]
                      .some(l => l.innerText.trim().startsWith(s))""",
            arg=label_start,
            timeout=ANSWER_TIMEOUT,
        )
    labels = pg.locator('[data-testid="stMetricLabel"]')
    for i in range(labels.count()):
        if labels.nth(i).inner_text().strip().startswith(label_start):
            box = labels.nth(i).locator("xpath=ancestor::*[@data-testid='stMetric']")
            return box.locator('[data-testid="stMetricValue"]').inner_text().strip()
    pytest.fail(f"no metric whose label starts with {label_start!r}")


def box(pg, locator) -> dict[str, float]:
    b = locator.bounding_box()
    assert b is not None, f"{locator} is not on the page"
    return b


def inside(b: dict[str, float], viewport: dict[str, int]) -> bool:
    return (
        b["x"] >= -0.5
        and b["y"] >= -0.5
        and b["x"] + b["width"] <= viewport["width"] + 0.5
        and b["y"] + b["height"] <= viewport["height"] + 0.5
    )


def shoot(pg, name: str, full: bool = False) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    if not full:
        pg.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        return
    size = pg.viewport_size
    height = pg.evaluate("""() => document.querySelector('[data-testid="stMain"]').scrollHeight""")
    pg.set_viewport_size({"width": size["width"], "height": min(int(height), 8000)})
    time.sleep(0.5)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    pg.set_viewport_size(size)
    time.sleep(0.3)


def no_horizontal_overflow(pg, width: int) -> None:
    widths = pg.evaluate(
        """() => { const m = document.querySelector('[data-testid="stMain"]');
                   return [document.documentElement.scrollWidth, m.scrollWidth, m.clientWidth]; }"""
    )
    assert widths[0] <= width and widths[1] <= widths[2], f"horizontal overflow: {widths}"


def clipped_chart_text(pg, width: int) -> list[str]:
    """Text of the Vega charts drawn beyond the viewport's width or their chart's box, or cut
    with "…"."""
    return pg.evaluate(
        """(w) => {
          const bad = [];
          for (const c of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
            const cb = c.getBoundingClientRect();
            for (const t of c.querySelectorAll('svg text')) {
              const r = t.getBoundingClientRect(), s = t.textContent;
              if (!s || r.width === 0) continue;
              if (r.left < Math.max(0, cb.left) - 1 || r.right > Math.min(w, cb.right) + 1
                  || s.endsWith('…')) bad.push(s);
            }
          }
          return bad;
        }""",
        width,
    )


# --------------------------------------------------------------------------- the keys


def test_arrows_answer_after_touching_a_sidebar_slider_or_radio(open_page):
    pg = open_page("seed=3")
    assert heading(pg).startswith("Round 1 of 30")
    value = pg.locator('.st-key-players input[type="range"]')  # the slider's hidden input
    before = value.input_value()
    value.locator("xpath=../..").click()  # touch the slider's thumb: its input has the focus
    assert pg.evaluate("document.activeElement.type") == "range"
    assert value.input_value() == before == "30"
    pg.keyboard.press("ArrowLeft")
    wait_heading(pg, "Round 2 of 30")
    assert "you said in" in pg.locator('[data-testid="stMain"]').inner_text()
    assert value.input_value() == "30", "the slider moved"
    assert pg.locator(".st-key-players [data-testid=stSliderThumbValue]").inner_text() == "30"
    assert "players" not in link(pg)
    # a radio button: the arrows would choose another mechanism
    radio = pg.locator('.st-key-mech input[type="radio"]').first
    pg.locator(".st-key-mech label").first.click()  # the option already chosen
    radio.focus()  # (a click on its label leaves the focus where Chromium likes; Tab lands here)
    assert pg.evaluate("document.activeElement.type") == "radio"
    pg.keyboard.press("ArrowRight")
    wait_heading(pg, "Round 3 of 30")
    assert radio.is_checked() and "mech" not in link(pg), "the radio moved"
    assert "you said out" in pg.locator('[data-testid="stMain"]').inner_text()
    # a held key answers one round, not one per repeat
    pg.keyboard.down("ArrowLeft")
    pg.keyboard.down("ArrowLeft")  # repeat
    pg.keyboard.down("ArrowLeft")
    pg.keyboard.up("ArrowLeft")
    wait_heading(pg, "Round 4 of 30")
    time.sleep(1.5)
    settle(pg)
    assert heading(pg).startswith("Round 4 of 30")
    assert_no_exception(pg)


# --------------------------------------------------------------------------- a reload


def test_a_reload_keeps_the_round_and_the_score(open_page, browser, server):
    pg = open_page("seed=5")
    for key, k in (("play_in", 2), ("play_out", 3), ("play_in", 4)):
        button(pg, key).click()
        wait_heading(pg, f"Round {k} of 30")
    score = metric(pg, "You: ")
    labels = pg.locator('[data-testid="stMetricLabel"]').all_inner_texts()
    you = next(t.strip() for t in labels if t.strip().startswith("You: "))
    assert re.fullmatch(r"You: [0-3] of 3", you), you
    assert set(link(pg)) <= {"seed"}, "answers must never be in the link"
    pg.reload(wait_until="domcontentloaded")
    settle(pg)
    assert heading(pg).startswith("Round 4 of 30"), heading(pg)
    assert metric(pg, "You: ") == score
    assert any(
        t.strip() == you for t in pg.locator('[data-testid="stMetricLabel"]').all_inner_texts()
    )
    shoot(pg, "game_after_reload")
    # another browser opening the same link plays its own game
    other = open_page("seed=5")
    assert heading(other).startswith("Round 1 of 30")


# --------------------------------------------------------------------------- new game


def test_new_game_deals_new_rounds_and_a_fixed_link_replays(open_page):
    pg = open_page("seed=7")
    first = heading(pg)
    button(pg, "play_in").click()
    wait_heading(pg, "Round 2 of 30")
    assert button(pg, "play_new_game").inner_text().strip() == "New game"
    button(pg, "play_new_game").click()
    wait_heading(pg, "Round 1 of 30")
    seed = link(pg).get("seed")
    assert seed is not None and seed != "7", f"New game kept the game number: {pg.url}"
    assert re.fullmatch(r"\d{1,6}", seed)
    assert heading(pg) != first or seed != "7"
    # the teacher's link fixes the game: the button replays the same rounds
    fixed = open_page("seed=7&fixed=1")
    replay = button(fixed, "play_new_game")
    assert replay.inner_text().strip() == "Replay this game"
    button(fixed, "play_out").click()
    wait_heading(fixed, "Round 2 of 30")
    button(fixed, "play_new_game").click()
    wait_heading(fixed, "Round 1 of 30")
    assert heading(fixed) == first and link(fixed)["seed"] == "7"
    assert_no_exception(fixed)


# --------------------------------------------------------------------------- layout


def test_presenter_mode_shows_round_buttons_and_chart_on_one_screen(open_page):
    pg = open_page("present=1&seed=3", viewport=PROJECTOR)
    sidebar = box(pg, pg.locator('[data-testid="stSidebar"]'))
    assert sidebar["width"] > 200 and sidebar["x"] >= 0, "the sidebar should be open"
    for answered in (0, 1):
        if answered:
            pg.keyboard.press("ArrowRight")
            wait_heading(pg, "Round 2 of 30")
            pg.mouse.move(5, 5)  # no tooltip over the page
        parts = {
            "round heading": pg.locator('[data-testid="stMain"] h3').first,
            "In": button(pg, "play_in"),
            "Out": button(pg, "play_out"),
            "release chart": pg.locator('[data-testid="stVegaLiteChart"]').first,
        }
        boxes = {name: box(pg, loc) for name, loc in parts.items()}
        outside = {n: b for n, b in boxes.items() if not inside(b, PROJECTOR)}
        shoot(pg, f"game_presenter_1024x768_{answered}")
        assert not outside, f"not on the first screen at 1024×768: {outside}"
        no_horizontal_overflow(pg, PROJECTOR["width"])
    assert not clipped_chart_text(pg, PROJECTOR["width"])
    shoot(pg, "game_presenter_1024x768_full", full=True)
    assert_no_exception(pg)


def test_phone_in_out_on_the_first_screen_new_game_away_nothing_clipped(open_page):
    pg = open_page("seed=3", viewport=PHONE, phone=True)
    button(pg, "play_in").tap()
    wait_heading(pg, "Round 2 of 30")
    pg.evaluate(
        """() => { document.querySelector('[data-testid="stMain"]').scrollTo(0, 0);
                   window.scrollTo(0, 0); }"""
    )
    time.sleep(0.3)
    b_in, b_out = box(pg, button(pg, "play_in")), box(pg, button(pg, "play_out"))
    shoot(pg, "game_phone_390x844")
    assert inside(b_in, PHONE) and inside(b_out, PHONE), (b_in, b_out)
    # "New game" is far from the buttons and the release: below the release chart
    new = box(pg, button(pg, "play_new_game"))
    chart = box(pg, pg.locator('[data-testid="stVegaLiteChart"]').first)
    release = box(pg, pg.locator('[data-testid="stMain"] h3').first)
    assert new["y"] > chart["y"] + chart["height"], (new, chart)
    for near in (b_in, b_out, release):
        assert new["y"] - (near["y"] + near["height"]) > PHONE["height"] / 2, (new, near)
    no_horizontal_overflow(pg, PHONE["width"])
    assert not clipped_chart_text(pg, PHONE["width"]), clipped_chart_text(pg, PHONE["width"])
    shoot(pg, "game_phone_390x844_full", full=True)
    assert_no_exception(pg)
