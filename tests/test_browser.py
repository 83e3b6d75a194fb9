"""A real browser against a running `streamlit run app.py`.

Debian's Chromium (``/usr/bin/chromium``) is driven through Playwright's Python API;
Playwright never downloads a browser of its own. Without Chromium the tests skip,
except under ``CI=true``, where a missing browser fails them.

Screenshots of every page go to ``tests/artifacts/<page>.png`` (gitignored). With
``MIP_UPDATE_SCREENSHOT=1`` the home page's screenshot is also written to
``docs/screenshot.png`` (for the README); CI never sets it, so it never dirties the tree.

Streamlit DOM hooks used (checked against Streamlit 1.67):
``[data-testid="stApp"][data-test-script-state="notRunning"]`` (the script run finished),
``stSkeleton`` (placeholder of a lazily loaded element, e.g. a chart, until its code loads),
``stVegaLiteChart`` + ``svg.marks`` (a chart, and Vega has drawn it),
``stException`` (an uncaught exception with its traceback), ``stAlertContentWarning``
(``st.warning``), ``stSlider`` / ``stSliderThumbValue``, ``stMain`` (the scrolling column).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from browsertools import (
    RUN_TIMEOUT,
    assert_no_exception,
    open_app,
    streamlit_server,
    wait_for_run,
)

from appkit.registry import by_key

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
DRAW_TIMEOUT = 30_000  # ms: Vega drawing the charts once the run is done
VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="session")
def server(chromium_path):
    """One server for the session; yields its base URL."""
    with streamlit_server() as srv:
        yield srv.url


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    pg = context.new_page()
    pg.js_errors = []
    pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
    yield pg
    context.close()


# --------------------------------------------------------------------------- helpers


CHARTS = '[data-testid="stVegaLiteChart"]'
# Every chart drawn: Vega-Lite's rendered SVG (or canvas) in each.
ALL_DRAWN_JS = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
                  .every(c => c.querySelector('svg.marks, canvas.marks'))"""


def wait_for_charts(page) -> int:
    """Wait until every chart on the page has been drawn; return their number.

    Streamlit loads a chart component lazily: right after the run an element shows a
    ``stSkeleton`` placeholder, replaced by ``stVegaLiteChart`` once the chunk has loaded.
    """
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stMain"] [data-testid="stSkeleton"]')""",
        timeout=DRAW_TIMEOUT,
    )
    n = page.locator(CHARTS).count()
    assert n >= 1, (
        f"{page.url} shows no chart. Page text:\n{page.inner_text('[data-testid=stMain]')[:1500]}"
    )
    page.wait_for_function(ALL_DRAWN_JS, timeout=DRAW_TIMEOUT)
    return n


def screenshot(page, name: str) -> Path:
    """Full-page screenshot; Streamlit scrolls inside stMain, so grow the viewport to fit it."""
    height = page.evaluate(
        """() => { const m = document.querySelector('[data-testid="stMain"]');
                   return m ? m.scrollHeight : document.documentElement.scrollHeight; }"""
    )
    page.set_viewport_size(
        {"width": VIEWPORT["width"], "height": max(VIEWPORT["height"], min(int(height), 8000))}
    )
    page.wait_for_timeout(300)  # let the charts re-layout after the resize
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(out), full_page=True)
    page.set_viewport_size(VIEWPORT)
    return out


def page_path(app_page) -> str:
    return "/" + app_page.url_path


# --------------------------------------------------------------------------- tests


def _max_message_bytes() -> int:
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return int(config["server"]["maxMessageSize"]) * 10**6


def test_every_page_renders_its_charts(page, server, app_page):
    """Each page (home + every entry of app.py's PAGES) runs, draws >= 1 chart, shows no error,
    and sends no message larger than a quarter of ``server.maxMessageSize``."""
    sizes: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: sizes.append(len(p))))
    open_app(page, server, page_path(app_page))
    assert_no_exception(page)
    n = wait_for_charts(page)
    drawn = page.locator('[data-testid="stVegaLiteChart"] :is(svg.marks, canvas.marks)')
    assert drawn.count() >= n
    assert_no_exception(page)  # again: drawing the charts must not raise either
    shot = screenshot(page, app_page.name)
    assert sizes and max(sizes) <= _max_message_bytes() / 4, (
        f"{app_page.name}: its largest message is {max(sizes):,} bytes, over a quarter of "
        f"server.maxMessageSize ({_max_message_bytes():,} bytes)"
    )
    if app_page.name == "home" and os.environ.get("MIP_UPDATE_SCREENSHOT") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(shot, ROOT / "docs" / "screenshot.png")


def test_url_parameter_sets_the_home_slider(page, server):
    open_app(page, server, "/?eps=2.5")
    assert_no_exception(page)
    main = page.locator('[data-testid="stMain"]')
    assert "With ε = 2.5," in main.inner_text()
    thumb = page.locator('[data-testid="stSliderThumbValue"]').first
    assert thumb.inner_text().strip() == "2.50"
    assert page.locator('[data-testid="stAlertContentWarning"]').count() == 0
    assert "eps=2.5" in page.url


def test_the_lesson_link_opens_the_class_game_in_presenter_mode(browser, server):
    """Home's "Teach a 50-minute class": the game's link, clicked with presenter mode off,
    opens the game in presenter mode on the lesson's fixed game number, ready to replay;
    the students' link names the same game."""
    context = browser.new_context(viewport=PROJECTOR)
    pg = context.new_page()
    pg.js_errors = []
    pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
    try:
        open_app(pg, server, "/")
        pg.locator("summary").filter(has_text="Teach a 50-minute class").click()
        students = pg.locator('[data-testid="stText"]').filter(has_text="/play_attacker?")
        query = parse_qs(urlsplit(students.inner_text().strip()).query)
        seed = query["seed"][0]
        assert query["fixed"] == ["1"] and "present" not in query
        pg.locator('[data-testid="stPageLink"] a').filter(has_text="Play the attacker").filter(
            has_text="presenter mode"
        ).click()
        pg.wait_for_function("() => location.pathname === '/play_attacker'", timeout=RUN_TIMEOUT)
        wait_for_run(pg)
        pg.locator("button").filter(has_text="Replay this game").first.wait_for(timeout=RUN_TIMEOUT)
        assert_no_exception(pg)
        opened = parse_qs(urlsplit(pg.url).query)
        assert opened["seed"] == [seed] and opened["fixed"] == ["1"], pg.url
        toggle = pg.locator('[data-testid="stSidebar"] [data-testid="stCheckbox"] input').first
        assert toggle.is_checked()  # presenter mode is on
        assert pg.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "19px"
    finally:
        context.close()


def test_invalid_url_parameter_shows_a_warning(page, server):
    open_app(page, server, "/?eps=zzz")
    assert_no_exception(page)
    warnings = page.locator('[data-testid="stAlertContentWarning"]')
    assert warnings.count() == 1, page.inner_text("[data-testid=stMain]")[:1500]
    text = warnings.first.inner_text()
    assert "eps=zzz" in text and "Using the default, 1" in text, text
    assert "With ε = 1," in page.locator('[data-testid="stMain"]').inner_text()
    assert "eps=" not in page.url  # the bad value is dropped from the address bar


def test_a_crafted_link_shows_as_text_not_as_a_link(page, server):
    """A share link cannot put a working link or an image into the app's own messages."""
    crafted = "x%60%20%5BOfficial%20privacy%20notice%3A%20click%5D(https%3A%2F%2Fexample.com)%20%60"
    open_app(page, server, f"/eta_epsilon?eps={crafted}")
    assert_no_exception(page)
    warning = page.locator('[data-testid="stAlertContentWarning"]').first
    assert "Official privacy notice" in warning.inner_text()
    assert warning.locator("a").count() == 0 and warning.locator("img").count() == 0
    open_app(page, server, "/eta_epsilon?eps=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    warning = page.locator('[data-testid="stAlertContentWarning"]').first
    assert "<img" in warning.inner_text() and warning.locator("img").count() == 0


def test_moving_the_slider_updates_text_and_url(page, server):
    open_app(page, server, "/")
    wait_for_charts(page)
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")  # one step: 1.00 -> 1.05
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stMain"]').innerText
                   .includes('With ε = 1.05,')""",
        timeout=RUN_TIMEOUT,
    )
    wait_for_run(page)
    assert_no_exception(page)
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('eps') === '1.05'", timeout=10_000
    )


def _listen(page) -> list:
    """Collect the server's websocket frames of ``page`` (from before it is opened)."""
    frames: list = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: frames.append(p)))
    return frames


def _messages(frames: list, kind: str) -> list:
    """The server's messages (ForwardMsg protobufs) of one ``kind``, e.g. "delta"."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    msgs = [ForwardMsg.FromString(bytes(p)) for p in frames if isinstance(p, (bytes, bytearray))]
    return [getattr(m, kind) for m in msgs if m.WhichOneof("type") == kind]


def _deltas(frames: list) -> list:
    """The element deltas among the server's messages."""
    return _messages(frames, "delta")


def test_a_press_reruns_only_the_live_part_of_a_page(page, server):
    """On a page drawn with ``appkit.live`` a slider press reruns only its live part: every
    element the server sends for the press belongs to the fragment (the header, the static
    explanations and the formulas are not sent again), while the numbers, the footer's link
    to this view and its CSV list follow the slider (one CSV per chart, not one more per
    press)."""
    frames = _listen(page)
    open_app(page, server, "/eta_epsilon")
    wait_for_charts(page)
    at_load = _deltas(frames)
    assert at_load and not any(d.fragment_id for d in at_load[:3]), "the header is not static"
    csv_before = page.get_by_text("CSV files)").inner_text()
    frames.clear()
    page.get_by_role("slider").first.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")  # 1.00 -> 1.03
        page.wait_for_timeout(400)
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stMain"]').innerText
                   .includes('With ε = 1.03,')""",
        timeout=RUN_TIMEOUT,
    )
    wait_for_run(page)
    assert_no_exception(page)
    pressed = _deltas(frames)
    assert pressed, "the press sent no elements"
    outside = [d for d in pressed if not d.fragment_id]
    assert not outside, f"{len(outside)} of {len(pressed)} elements sent outside the live part"
    assert page.get_by_text("CSV files)").inner_text() == csv_before
    page.get_by_text("Link to this view").click()
    link = page.locator('[data-testid="stText"]').filter(has_text="/eta_epsilon?")
    assert "eps=1.03" in link.inner_text(), link.inner_text()
    assert page.get_by_text("The other way round").count() == 1
    assert page.get_by_text("The maths").count() == 1


def test_every_page_reruns_only_its_live_part_on_a_slider_press(page, server, app_page):
    """Every page with a slider in its main area is drawn with ``appkit.live``: a press on
    its first slider sends only elements of the live part, and the page shows no exception
    afterwards. (Figure 2 runs as a whole: its sliders sit in a collapsed expander.)"""
    frames = _listen(page)
    open_app(page, server, "/" + app_page.url_path)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stMain"] [data-testid="stSkeleton"]')""",
        timeout=DRAW_TIMEOUT,
    )
    slider = page.locator('[data-testid="stMain"]').get_by_role("slider")
    try:
        slider.first.wait_for(state="attached", timeout=5_000)
    except Exception:  # Playwright's TimeoutError: the page has no slider
        pytest.skip(f"{app_page.name} has no slider in its main area")
    visible = [i for i in range(slider.count()) if slider.nth(i).is_visible()]
    if not visible:
        pytest.skip(f"{app_page.name} has no visible slider in its main area")
    at_load = len(_deltas(frames))
    frames.clear()
    slider.nth(visible[0]).focus()
    page.keyboard.press("ArrowRight")
    deadline = time.monotonic() + RUN_TIMEOUT / 1000
    while not _messages(frames, "script_finished") and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert _messages(frames, "script_finished"), "no script run finished after the press"
    wait_for_run(page)
    assert_no_exception(page)
    pressed = _deltas(frames)
    outside = [d for d in pressed if not d.fragment_id]
    assert not outside, (
        f"{app_page.name}: {len(outside)} of {len(pressed)} elements sent outside the live "
        f"part after a press ({at_load} at load)"
    )


def test_a_newer_press_stops_a_heavy_job_inside_the_live_part(page, server):
    """A heavy job in a page's live part gives way to a newer press (``appkit.jobs``).

    Streamlit queues a fragment's rerun behind the running script instead of interrupting it.
    The job watches for that waiting input: it is terminated and the fragment reruns with the
    new value, so the run it was in ends early for a rerun (it would otherwise finish the
    stale job first), and the page ends on the second value, with its results."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    frames = _listen(page)
    open_app(page, server, "/audit?N=100000&mech=covariance&noise=mip")
    wait_for_charts(page)
    assert_no_exception(page)
    eta = page.locator('[data-testid="stMain"]').get_by_role("slider").first
    value_js = "el => el.value ?? el.getAttribute('aria-valuenow')"
    start = float(eta.evaluate(value_js))
    frames.clear()
    eta.focus()
    page.keyboard.press("ArrowRight")  # a new η: its job starts and shows its progress
    page.locator('[data-testid="stMain"] [data-testid="stProgress"]').first.wait_for(
        timeout=RUN_TIMEOUT
    )
    page.keyboard.press("ArrowRight")  # while that job runs
    second = f"{start + 0.02:.2f}"
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('eta') === '{second}'",
        timeout=RUN_TIMEOUT,
    )
    wait_for_run(page)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stMain"] [data-testid="stProgress"]')""",
        timeout=RUN_TIMEOUT,
    )
    wait_for_charts(page)
    assert_no_exception(page)
    statuses = _messages(frames, "script_finished")
    assert ForwardMsg.FINISHED_EARLY_FOR_RERUN in statuses, statuses
    assert statuses[-1] == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, statuses
    assert float(eta.evaluate(value_js)) == float(second)


def test_audit_deep_link_runs_the_covariance_release(page, server):
    """The covariance release of the audit page, opened from a link, in a real browser."""
    open_app(page, server, "/audit?mech=covariance&noise=gaussian&eps=2.0")
    assert_no_exception(page)
    wait_for_charts(page)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "second-moment estimate" in main and "Monte Carlo" in main, main[:2000]
    assert page.locator('[data-testid="stAlertContentWarning"]').count() == 0
    assert "mech=covariance" in page.url


def test_deep_link_on_a_fresh_server_goes_through_app_navigation(browser, chromium_path):
    """The first request of a new server is a shared deep link (no one has opened "/" yet).

    It must run under app.py's st.navigation: its sidebar (titles, Home first, no helper
    modules) and its wide layout. With the page scripts in a folder named pages/, Streamlit
    ran such a request in its legacy multipage mode instead.
    """
    with streamlit_server() as srv:
        url = srv.url
        context = browser.new_context(viewport=VIEWPORT)
        pg = context.new_page()
        pg.js_errors = []
        pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
        try:
            open_app(pg, url, "/mace?sep=2")
            assert_no_exception(pg)
            links = [
                t.strip()
                for t in pg.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
                if t.strip()
            ]
            assert links and "Home" in links[0], links
            assert any(by_key("mace").label in t for t in links), links
            assert not any("cache" in t or t == "app" for t in links), links
            assert (
                pg.locator('[data-testid="stMain"] h1').first.inner_text() == by_key("mace").title
            )
            assert pg.locator('[data-testid="stAppViewContainer"]').count() == 1
            main_width = pg.evaluate(
                "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]')"
                ".getBoundingClientRect().width"
            )
            # app.py's layout="wide": the column fills the viewport beside the sidebar (980 px here);
            # the default centered layout caps it at 46rem = 736 px
            assert main_width > 800, main_width
            assert "sep=2" in pg.url
        finally:
            context.close()


PROJECTOR = {"width": 1024, "height": 768}

# Text elements that must never be cut: a clipped element has more content than box.
CLIPPED_JS = """() => {
  const sel = ['[data-testid="stMetricValue"]', '[data-testid="stMetricLabel"]',
               '[data-testid="stWidgetLabel"]', '[data-testid="stMain"] h1',
               '[data-testid="stMain"] h2', '[data-testid="stMain"] h3',
               '[data-testid="stMarkdownContainer"] p', '[data-testid="stCaptionContainer"]',
               '[data-testid="stButton"] button', '[data-testid="stDownloadButton"] button',
               '[data-baseweb="select"] > div', '.katex-display'];
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) out.push(['page', doc.scrollWidth, doc.clientWidth, '']);
  const main = document.querySelector('[data-testid="stMain"]');
  if (main && main.scrollWidth > main.clientWidth + 1)
    out.push(['main', main.scrollWidth, main.clientWidth, '']);
  for (const s of sel) for (const el of document.querySelectorAll(s)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;          // not shown (collapsed expander)
    if (el.closest('[data-testid="stSidebar"]')) continue;   // the sidebar scrolls on its own
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'auto')
      out.push([s, el.scrollWidth, el.clientWidth, (el.textContent || '').slice(0, 80)]);
  }
  for (const el of document.querySelectorAll('[data-testid="stMarkdownContainer"] table')) {
    // a Markdown table may scroll on its own (appkit.theme), but at a page's defaults it fits
    if (el.getBoundingClientRect().width > 0 && el.scrollWidth > el.clientWidth + 1)
      out.push(['table', el.scrollWidth, el.clientWidth, (el.textContent || '').slice(0, 80)]);
  }
  for (const svg of document.querySelectorAll('[data-testid="stVegaLiteChart"] svg.marks')) {
    const box = svg.getBoundingClientRect();  // a Vega-Lite chart's text outside its SVG is cut
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1 ||
                          r.bottom > box.bottom + 1 || r.top < box.top - 1))
        out.push(['chart text', Math.round(r.width), Math.round(box.width),
                  (t.textContent || '').slice(0, 80)]);
    }
  }
  return out;
}"""


# A formula KaTeX cannot read: a parse error (.katex-error), or an unknown command such as
# "\\quadb" (two strings joined without a space) drawn as red text (KaTeX's errorColor).
KATEX_ERRORS_JS = """() => [...document.querySelectorAll('.katex-error'),
  ...[...document.querySelectorAll('.katex-html *')].filter(
       e => !e.children.length && getComputedStyle(e).color === 'rgb(204, 0, 0)')]
  .map(e => (e.getAttribute('title') || e.textContent || '').slice(0, 80))"""

# Pages whose prose names things with inline formulas ($D_T$, $N_T/N_R$): KaTeX loads with them.
INLINE_FORMULAS = {"reference_data"}


def test_the_maths_is_drawn_when_opened_and_fits_at_1024x768(browser, server, app_page):
    """ "The maths" is folded (``appkit.folded``): a page's first load draws no formula and
    fetches no formula renderer (KaTeX); opened, its formulas render and none is cut at a
    projector's 1024×768 (screenshot kept)."""
    context = browser.new_context(viewport=PROJECTOR)
    pg = context.new_page()
    pg.js_errors = []
    pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
    fetched: list[str] = []
    pg.on("request", lambda request: fetched.append(request.url))
    try:
        open_app(pg, server, page_path(app_page))
        if pg.locator(f'{CHARTS}, [data-testid="stSkeleton"]').count():
            wait_for_charts(pg)
        summary = pg.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').filter(
            has_text="The maths"
        )
        if not summary.count():
            pytest.skip(f"/{app_page.url_path} has no maths section")
        if app_page.name not in INLINE_FORMULAS:
            assert pg.locator(".katex").count() == 0
            assert not [u for u in fetched if "katex" in u.lower()], "KaTeX fetched on first load"
        summary.first.click()
        pg.wait_for_selector('[data-testid="stMain"] .katex-display', timeout=RUN_TIMEOUT)
        wait_for_run(pg)
        pg.wait_for_timeout(300)
        assert_no_exception(pg)
        maths = (
            pg.locator('[data-testid="stMain"] [data-testid="stExpander"]')
            .filter(has=pg.locator("summary", has_text="The maths"))
            .first
        )
        assert maths.locator(".katex-display").count() >= 2
        errors = pg.evaluate(KATEX_ERRORS_JS)
        assert not errors, f"formulas KaTeX could not read on /{app_page.url_path}: {errors}"
        clipped = pg.evaluate(CLIPPED_JS)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        height = pg.evaluate(  # Streamlit scrolls inside stMain: grow the window to show it all
            "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"
        )
        pg.set_viewport_size({"width": PROJECTOR["width"], "height": min(int(height), 8000)})
        pg.wait_for_timeout(300)
        maths.screenshot(path=str(ARTIFACTS / f"{app_page}_maths_1024.png"))
        assert not clipped, f"cut off at 1024×768 on /{app_page.url_path}: {clipped}"
    finally:
        context.close()


# What a projector must never show: a word broken across two lines ("printe|d"), an input
# whose value does not fit its box ("1000(" for 10 000), a label or link cut with "…" (the
# sidebar included), a table hiding rows or columns behind its own scroll bar.
FIT_JS = r"""() => {
  const out = [];
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const where = el => el.closest('[data-testid="stSidebar"]') ? 'sidebar' : 'main';
  // 1. A word split across two lines (a label squeezed until the browser breaks inside a word).
  const textSel = ['[data-testid="stMarkdownContainer"]', '[data-testid="stWidgetLabel"]',
    '[data-testid="stMetricLabel"]', '[data-testid="stMetricValue"]', '[data-testid="stButton"] button',
    '[data-testid="stDownloadButton"] button', '[data-testid="stSidebarNav"] a',
    '[data-testid="stCaptionContainer"]', '[data-baseweb="select"] > div',
    '[data-testid="stExpander"] summary', '[data-testid="stTable"]', '[data-testid="stHeading"]'];
  const seen = new Set();
  for (const root of document.querySelectorAll(textSel.join(','))) {
    if (!shown(root)) continue;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      if (seen.has(node)) continue;
      seen.add(node);
      if (!node.parentElement || node.parentElement.closest('.katex, svg, code, pre')) continue;
      const re = /[^\s\-\u2010-\u2014\/]{2,}/gu;
      let m;
      while ((m = re.exec(node.textContent))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const ys = [...range.getClientRects()].filter(r => r.width > 0).map(r => r.bottom);
        if (ys.length > 1 && Math.max(...ys) - Math.min(...ys) > 4)
          out.push(['split word', where(root), m[0], (root.textContent || '').slice(0, 70)]);
      }
    }
  }
  // 2. An input whose value or placeholder does not fit its box ("1000(" for 10 000).
  for (const el of document.querySelectorAll('input:not([type=hidden]):not([type=range]):not([type=checkbox]):not([type=radio]), textarea')) {
    if (!shown(el) || el.getAttribute('aria-hidden') === 'true') continue;
    if (el.scrollWidth > el.clientWidth + 1)
      out.push(['clipped input', where(el), el.value || el.placeholder, el.scrollWidth + '>' + el.clientWidth]);
  }
  // 3. A label, link or text cut with an ellipsis or hidden overflow, sidebar included.
  const cutSel = ['[data-testid="stSidebarNav"] a span', '[data-testid="stWidgetLabel"]',
    '[data-testid="stWidgetLabel"] p', '[data-testid="stMetricLabel"]', '[data-testid="stMetricValue"]',
    '[data-testid="stButton"] button', '[data-testid="stExpander"] summary p',
    '[data-baseweb="select"] > div', '[data-baseweb="tab"] p', '[data-testid="stRadio"] label p',
    '[data-testid="stMain"] h1', '[data-testid="stMain"] h2', '[data-testid="stMain"] h3'];
  // Cut is what a person cannot see: content wider than its box where that box (ellipsis,
  // hidden overflow) or an ancestor that hides its overflow cuts it off -- not a glyph that
  // is wider than its box and drawn whole beside it (a colour emoji icon in the sidebar is
  // 16 px in a 14 px box with some fonts, and shows whole).
  const hides = cs => cs.overflowX === 'hidden' || cs.overflowX === 'clip';
  const cut = el => {
    if (el.scrollWidth <= el.clientWidth + 1) return false;
    const cs = getComputedStyle(el);
    if (cs.overflowX === 'auto' || cs.overflowX === 'scroll') return false;
    if (hides(cs) || cs.textOverflow === 'ellipsis') return true;
    const right = el.getBoundingClientRect().left + el.scrollWidth;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (hides(getComputedStyle(a))) return right > a.getBoundingClientRect().right + 1;
    return false;
  };
  for (const el of document.querySelectorAll(cutSel.join(','))) {
    if (shown(el) && cut(el))
      out.push(['cut text', where(el), (el.textContent || '').slice(0, 70), el.scrollWidth + '>' + el.clientWidth]);
  }
  // 4. A table that hides rows or columns behind its own scroll bar.
  for (const el of document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')) {
    if (!shown(el)) continue;
    if (el.scrollHeight > el.clientHeight + 2 || el.scrollWidth > el.clientWidth + 2)
      out.push(['table scrolls', where(el), `${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`,
                (el.closest('[data-testid="stDataFrame"]').getAttribute('aria-label') || '')]);
  }
  for (const el of document.querySelectorAll('[data-testid="stMarkdownContainer"] table, [data-testid="stTable"] table')) {
    if (shown(el) && el.parentElement.scrollWidth > el.parentElement.clientWidth + 1)
      out.push(['table scrolls', where(el), el.scrollWidth + '>' + el.parentElement.clientWidth, (el.textContent || '').slice(0, 60)]);
  }
  // 5. The page itself scrolls sideways.
  const main = document.querySelector('[data-testid="stMain"]');
  if (main && main.scrollWidth > main.clientWidth + 1) out.push(['page scrolls sideways', 'main', main.scrollWidth, main.clientWidth]);
  return out;
}"""


def test_the_fit_check_finds_what_a_person_cannot_see(browser):
    """:data:`FIT_JS` on a page of known cases: a label cut with an ellipsis, and text that
    sticks out of its box into an ancestor that hides it, are cut; a glyph wider than its box
    and drawn whole beside it (a colour emoji in a narrow icon box) is not."""
    pg = browser.new_page(viewport=PROJECTOR)
    try:
        pg.set_content(
            """<div data-testid="stMain" style="width:900px">
              <div data-testid="stWidgetLabel" id="ellipsis"
                   style="width:60px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis">
                A label far too long for its box</div>
              <div style="width:80px;overflow:hidden">
                <div data-testid="stWidgetLabel" id="hidden" style="width:40px;white-space:nowrap">
                  sticking out of the box and past the clipping parent</div></div>
              <div style="width:300px;overflow:hidden">
                <div data-testid="stWidgetLabel" id="glyph"
                     style="width:14px;white-space:nowrap;font-size:16px">🏠🏠</div></div>
            </div>"""
        )
        found = {(kind, text.strip()[:12]) for kind, _where, text, *_ in pg.evaluate(FIT_JS)}
        assert ("cut text", "A label far ") in found
        assert ("cut text", "sticking out") in found
        assert not [f for f in found if "🏠" in f[1]], found
    finally:
        pg.close()


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
def test_nothing_is_cut_off_at_1024x768(browser, server, app_page, presenter):
    """A projector's 1024×768 with the sidebar open, in normal and presenter mode (larger
    type): no horizontal overflow, no metric, label, title, button, select box, formula or
    chart title whose text is clipped; and with every folded section but "The maths"
    opened, nothing of :data:`FIT_JS` -- no word split across lines, no input too narrow
    for its value, no label or link cut, no table hiding rows (screenshots kept)."""
    context = browser.new_context(viewport=PROJECTOR)
    pg = context.new_page()
    pg.js_errors = []
    pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
    try:
        open_app(pg, server, page_path(app_page) + ("?present=1" if presenter else ""))
        assert_no_exception(pg)
        if pg.locator(f'{CHARTS}, [data-testid="stSkeleton"]').count():
            wait_for_charts(pg)
        pg.wait_for_timeout(300)
        clipped = pg.evaluate(CLIPPED_JS)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        suffix = "_presenter" if presenter else ""
        pg.screenshot(path=str(ARTIFACTS / f"{app_page}_1024{suffix}.png"), full_page=True)
        assert not clipped, f"cut off at 1024×768 on /{app_page.url_path}: {clipped}"
        sidebar = pg.locator('[data-testid="stSidebar"]')
        assert (
            sidebar.get_attribute("data-collapsed") == "false"
            and sidebar.bounding_box()["width"] > 200
        )
        folded = pg.locator('[data-testid="stMain"] details:not([open]) > summary').filter(
            has_not_text="The maths"
        )
        for _ in range(folded.count()):  # each click opens one: the list shrinks
            folded.first.click()
        wait_for_run(pg)
        pg.wait_for_timeout(300)
        found = pg.evaluate(FIT_JS)
        pg.screenshot(path=str(ARTIFACTS / f"{app_page}_1024{suffix}_opened.png"))
        assert not found, f"does not fit at 1024×768{suffix} on /{app_page.url_path}: {found}"
    finally:
        context.close()


def _numeric_csv(size: int) -> bytes:
    """A numeric CSV of exactly ``size`` bytes (four columns, 40-byte rows: under the row cap)."""
    head = b"a,b,c,d\n"
    row = b"1.2500000,2.5000000,3.7500000,4.1250000\n"
    body = row * ((size - len(head)) // len(row))
    pad = size - len(head) - len(body)
    return head + body + (b"1" * (pad - 1) + b"\n" if pad else b"")


def test_the_uploader_and_the_page_agree_on_the_5_mb_cap(page, server):
    """A file of exactly 5 000 000 bytes is taken and read; one byte more is refused by
    Streamlit's uploader itself (a red mark), the limit the page states."""
    from mipcore.tabular import MAX_UPLOAD_BYTES

    open_app(page, server, "/wrap_statistic?src=upload+CSV")
    main = page.locator('[data-testid="stMain"]')
    assert "refuses a file over 5 MB" in main.inner_text()
    uploader = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    exact = _numeric_csv(MAX_UPLOAD_BYTES)
    assert len(exact) == MAX_UPLOAD_BYTES
    uploader.set_input_files(files=[{"name": "exact.csv", "mimeType": "text/csv", "buffer": exact}])
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stMain"]').innerText.includes('Read “exact.csv”')""",
        timeout=RUN_TIMEOUT,
    )
    wait_for_run(page)
    assert_no_exception(page)
    assert not page.locator('[data-testid="stAlertContentError"]').count()
    over = exact + b"1"
    uploader.set_input_files(files=[{"name": "over.csv", "mimeType": "text/csv", "buffer": over}])
    page.wait_for_timeout(1500)
    wait_for_run(page)
    text = main.inner_text()
    assert "Read “over.csv”" not in text, "the uploader passed a file over 5 MB"
    shown = page.locator('[data-testid="stFileUploader"]').inner_text()
    assert "over.csv" in shown and "File must be 5.0MB or smaller" in shown, shown
