"""Class mode in a real browser: the teacher's and the students' steps, shared by
``test_browser_class.py`` (one server) and ``test_proxy.py`` (two processes behind nginx)."""

from __future__ import annotations

import json
import re
import time

import pandas as pd
import pyarrow as pa
import pytest
from browsertools import RUN_TIMEOUT, assert_no_exception, open_app

PAGE = "/play_attacker"
STEP_TIMEOUT = 15_000  # ms: one click's rerun on a loaded machine
DASHBOARD_TIMEOUT = 10_000  # ms: the teacher's panel refreshes every 2 s
PROJECTOR = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}
# A round's buttons take taps 0.4 s after they appear (the page drops a tap before as the
# second tap of a double tap): a test waits that long after a round shows, as a person does.
ARM_S = 0.45


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
                      .some(h => h.innerText.trim().startsWith('Round ' + n + ' of'))
                   && [...document.querySelectorAll('[class*="st-key-play_in_"]')]
                      .some(b => [...b.classList].some(c => c.endsWith('_' + (n - 1)))
                                 && b.getBoundingClientRect().width > 0)""",
            arg=number,
            timeout=STEP_TIMEOUT,
        )
    except Exception:
        pytest.fail(f"expected round {number}; the page shows:\n{main_text(pg)[:2000]}")
    time.sleep(ARM_S)


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
    box.press("Enter")  # the form's submit: "Go" on a phone's keyboard
    wait_text(pg, f"You play as “{nickname}”")


def play_button(pg, side: str):
    """The round's visible In (``side="in"``) or Out button: its key names the game and the
    round (``play_in_<game>_<round>``); Streamlit keeps a hidden copy of a button with a
    keyboard shortcut, and the shortcut is part of the button's name."""
    return pg.locator(f'[class*="st-key-play_{side}_"] button:visible')


def answer(pg, first: int, rounds: int) -> None:
    """Answer rounds ``first`` … ``first + rounds - 1`` (In on odd rounds, Out on even)."""
    for k in range(first, first + rounds):
        wait_round(pg, k)
        play_button(pg, "in" if k % 2 else "out").click()
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


# ---------------------------------------------------------------- what a browser received


def record_frames(pg) -> list[bytes]:
    """Every websocket frame ``pg`` receives from now on (Streamlit's ForwardMsg protobufs)."""
    frames: list[bytes] = []

    def on_socket(ws) -> None:
        ws.on(
            "framereceived",
            lambda payload: frames.append(
                payload if isinstance(payload, bytes) else payload.encode()
            ),
        )

    pg.on("websocket", on_socket)
    return frames


def received_charts(frames: list[bytes]) -> list[tuple[dict, dict[str, pd.DataFrame]]]:
    """The Vega-Lite charts in ``frames``: (spec, {dataset name: table}), in order received."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    out = []
    for raw in frames:
        try:
            msg = ForwardMsg.FromString(raw)
        except Exception:  # not a ForwardMsg (never seen; a text frame)
            continue
        if not msg.HasField("delta") or not msg.delta.HasField("new_element"):
            continue
        el = msg.delta.new_element
        if el.WhichOneof("type") != "vega_lite_chart":
            continue
        chart = el.vega_lite_chart
        tables = {
            d.name: pa.ipc.open_stream(d.data.data).read_all().to_pandas() for d in chart.datasets
        }
        out.append((json.loads(chart.spec), tables))
    return out


# Words and marks that tell a round's truth: the game's reveal ("Round 3 was in: you said in
# ✓"), the laws chart's past releases (a bar where the target was in, a cross where it was out)
# and the player's score.
TRUTH_TELLS = (b"past: target", b" was in:", b" was out:", "✓".encode(), "✗".encode(), b"You: ")


def truth_tells(frames: list[bytes]) -> list[str]:
    """What in ``frames`` tells a round's truth (empty: nothing)."""
    found = [tell.decode() for tell in TRUTH_TELLS if any(tell in f for f in frames)]
    for spec, tables in received_charts(frames):
        for name, table in tables.items():
            if "name" in table and table["name"].astype(str).str.startswith("past:").any():
                found.append(f"the chart {spec.get('title')!r} marks past rounds in {name!r}")
    return found
