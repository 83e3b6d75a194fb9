"""The machinery of ``benchmarks/reference_data.py`` in a real browser.

The benchmark finds each control of the reference-data page by its widget key, changes it
(arrow keys on a slider, a click on a radio option, the toggle or the number input's "+")
and waits until the page has settled (``benchmarks/browser.py``'s probe). Its figures only
mean something if every control it names is on the page, each change really reaches the
server (a script run answers it and the link takes the new value) and the wait ends. These
tests check that on a small sweep; they never assert on a time.

The browser is conftest's ``browser`` (Debian's Chromium through Playwright), skipped without
it, except under ``CI=true``, where a missing browser fails them.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from benchtools import load_benchmark

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1024, "height": 768}
SMALL = "nt=100&nr=100&d=10&nw=3&seeds=2"  # a sweep of 6 small fits


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("reference_data")


def _query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_every_control_is_found_and_each_kind_of_change_settles(bench, browser, tmp_path):
    B = bench.B
    log = tmp_path / "runs.log"
    with B.Server(ROOT, "app.py", launcher=B.timed(log)) as app:
        runs = B.RunLog(log)
        context = browser.new_context(viewport=VIEWPORT)
        try:
            context.add_init_script(B.PROBE_JS)
            context.add_init_script(bench.PROGRESS_PROBE_JS)
            page, loaded = B.open_settled(
                context, f"{app.url}{bench.PAGE_PATH}?{SMALL}", timeout_ms=120_000
            )
            assert not loaded.get("exceptions")
            for c in bench.CONTROLS:
                assert bench.locate(page, c).count() == 1, c.key

            by_key = {c.key: c for c in bench.CONTROLS if c.kind in ("view", "data, new")}
            expect = {  # each kind of widget, and the link's value after one change
                "t_train": "51.5",  # slider, ArrowRight from 51.0
                "attack": "gap",  # radio: the option after "confidence"
                "train_only": "1",  # toggle
                "seed": "1",  # number input "+" from 0: a new sweep
            }
            for key, value in expect.items():
                mark = runs.mark()
                ms, progress = bench.change(page, by_key[key], 0, 120_000)
                assert ms >= 0 and isinstance(progress, bool)
                assert runs.walls_since(mark), f"{key}: no script run answered the change"
                assert _query(page).get(key) == value, (key, _query(page))
            # a data slider one step up (a larger sweep), then back to the setting swept
            up = next(c for c in bench.CONTROLS if c.kind == "data, larger")
            back = next(c for c in bench.CONTROLS if c.kind == "data, again")
            assert up.key == back.key
            before = _query(page).get(up.key, "10")
            bench.change(page, up, 0, 120_000)
            assert _query(page).get(up.key) != before
            bench.change(page, back, 0, 120_000)
            assert _query(page).get(up.key, "10") == before
        finally:
            context.close()
