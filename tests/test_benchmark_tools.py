"""The measuring tools behind ``benchmarks/browser.py``'s breakdowns, in a real browser.

``benchmarks/browser.py`` splits each slider press into the server's script run and the rest
(timed by ``instrumented_server.py --run-times``), and with ``--floor`` times each page's
first load against a replay of its own recorded output (``instrumented_server.py --record``
served again by ``replay_page.py``). Those figures only mean something if the replay draws
the same page and the run log holds real runs; these tests check both. They never assert on
a time.

The browser is conftest's ``browser`` (Debian's Chromium through Playwright, one per test
process), skipped without it, except under ``CI=true``, where a missing browser fails them.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from benchtools import load_benchmark

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1024, "height": 768}
PAGE = "eta_epsilon"  # two Vega-Lite charts, a slider, metrics, a folded maths section

# The page as a reader sees it: every Streamlit element kind in the main area and the
# sidebar with its count, the main area's text outside the charts, each chart's labels and the
# sidebar's links.
SNAPSHOT_JS = """() => {
  const kinds = {};
  for (const e of document.querySelectorAll(
      '[data-testid="stMain"] [data-testid], [data-testid="stSidebar"] [data-testid]')) {
    const k = e.getAttribute('data-testid');
    kinds[k] = (kinds[k] || 0) + 1;
  }
  const main = document.querySelector('[data-testid="stMain"]');
  const links = [...document.querySelectorAll('[data-testid="stSidebarNavLink"]')]
    .map((a) => a.textContent.trim());
  // A chart's labels, sorted: Vega may put an axis's labels in the DOM in another order
  // when a chart is drawn again at a new width, which is not a difference a reader sees.
  const charts = [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')];
  const labels = charts.map((c) => [...c.querySelectorAll('svg text')]
    .map((t) => t.textContent).sort());
  charts.forEach((c) => { c.dataset.display = c.style.display; c.style.display = 'none'; });
  const text = main ? main.innerText : null;
  charts.forEach((c) => { c.style.display = c.dataset.display; });
  return {kinds, text, labels, links, title: document.title,
          marks: document.querySelectorAll('[data-testid="stVegaLiteChart"] svg.marks').length};
}"""


def _load_browser_module():
    return load_benchmark("browser")


@pytest.fixture(scope="module")
def bench():
    return _load_browser_module()


def _snapshot(bench, browser, url: str) -> dict:
    context = browser.new_context(viewport=VIEWPORT)
    try:
        context.add_init_script(bench.PROBE_JS)
        page, loaded = bench.open_settled(context, url, timeout_ms=120_000)
        assert not loaded.get("exceptions"), url
        return page.evaluate(SNAPSHOT_JS)
    finally:
        context.close()


def _difference(real: dict, again: dict) -> str:
    """Where the replay differs from the real page: the keys that differ, and the text's
    differing lines (a failure in CI shows what to look at, not two truncated texts)."""
    keys = sorted(k for k in real.keys() | again.keys() if real.get(k) != again.get(k))
    lines = difflib.unified_diff(
        (real.get("text") or "").splitlines(),
        (again.get("text") or "").splitlines(),
        "real page",
        "replay",
        lineterm="",
        n=1,
    )
    return f"differing: {keys}\n" + "\n".join(lines)


def test_a_replayed_recording_draws_the_same_page(bench, browser, tmp_path):
    pages = [p for p in bench.discover_pages(ROOT)[0] if p.url_path == PAGE]
    assert pages, f"{PAGE} is not a page of the app"
    out, home = tmp_path / "recordings", tmp_path / "replay"
    out.mkdir()
    home.mkdir()
    assert bench.record_floors(ROOT, pages, out, browser, VIEWPORT) == []
    recording = out / f"{PAGE}.bin"
    assert recording.is_file() and recording.stat().st_size > 10_000
    assert not list(out.glob("full-*.bin"))  # the other runs are cleared away

    with bench.Server(ROOT, "app.py") as app, bench.replay_server(ROOT, out, home) as replay:
        real = _snapshot(bench, browser, f"{app.url}/{PAGE}")
        again = _snapshot(bench, browser, f"{replay.url}/?page={PAGE}")
        missing = _snapshot(bench, browser, f"{replay.url}/?page=no_such_page")
    assert real["marks"] == 2  # both charts drawn, in each
    assert len(real["labels"]) == 2 and all(real["labels"])  # with their axes' labels
    assert again == real, _difference(real, again)
    # the app's theme and toolbar settings came along (no "Deploy" button in either)
    assert (home / ".streamlit" / "config.toml").read_bytes() == (
        ROOT / ".streamlit" / "config.toml"
    ).read_bytes()
    assert "No recording named 'no_such_page'." in missing["text"]


def test_the_run_log_holds_each_script_run(bench, browser, tmp_path):
    log = tmp_path / "runs.log"
    bare = bench.bare_page_for(ROOT)
    with bench.Server(ROOT, bare, launcher=bench.timed(log)) as server:
        runs = bench.RunLog(log)
        assert runs.mark() == 0 and runs.walls_since(0) == []  # no run before a visit
        context = browser.new_context(viewport=VIEWPORT)
        try:
            context.add_init_script(bench.PROBE_JS)
            page, _ = bench.open_settled(context, server.url + "/")
            first = runs.walls_since(0)
            assert len(first) == 1 and first[0] > 0
            mark = runs.mark()
            info = bench.slider_info(page)
            got = bench.press_and_settle(page, info, "ArrowRight")
            assert got.moved == 1
            assert len(runs.walls_since(mark)) == 1  # the press's run, and only it
        finally:
            context.close()
    for line in log.read_text().splitlines():
        start, end, wall, cpu = map(float, line.split())
        assert start <= end and wall >= 0 and cpu >= 0
        assert end - start == pytest.approx(wall / 1000, abs=1e-5)
