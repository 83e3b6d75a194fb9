"""How fast does each page feel in a real browser, relative to a bare one-slider page?

Serves the app (``streamlit run app.py``) and ``bare_page.py`` (one slider, one line of text)
on two local servers started by this run, drives Debian's Chromium (``/usr/bin/chromium``)
through Playwright, and measures for every page (home + every registered page):

* **first load**: a fresh browser context opens the page; the time from navigation start
  until the page's script is idle, no ``stSkeleton`` is left and every chart (Plotly or
  Vega-Lite) is drawn
  (median of ``--loads``, default 5);
* **press -> settled**: the page's first slider is focused and ArrowRight/ArrowLeft pressed
  (alternating, so the value stays in range); the time from the key press until the server
  has answered and the page is still again (median of ``--repeats``, default 10);
* **after 20 presses**: a teacher holding the arrow key (20 presses ~30 ms apart); the time
  from the LAST press until the page has settled (median of ``--bursts``, default 3).

"Settled" (see "Measuring in a real browser" in the design notes): a MutationObserver, a
wrapper around ``WebSocket.send`` and a reader of the server's messages are installed before
the page loads. After the last press that moved the slider, the browser must have sent its
request, and the server's answer must have been seen: a script run that started after that
request and finished (not cut short for a rerun), read from the top-level fields of the
server's messages (``new_session``, ``script_finished``). Only where those cannot be read does
the DOM stand in: the page's output outside the slider changed (the slider's own label changes
before the server answers), or a rerun that began after the request ended (seen through
``attributeOldValue`` on ``stApp``'s ``data-test-script-state``: a fast rerun can start and
end within one React render, so the attribute may never read "running" when polled). The DOM
alone is not enough after rapid presses, where it also changes with the answers to the earlier
requests, nor for a rerun that changes nothing visible. Then the script must be idle, with no
DOM mutation and no server message for a quiet window (150 ms, or twice the longest pause the
server made between two runs during the presses); after a burst, no new run may start for a
further 500 ms. The reported time ends at the last DOM mutation or server message: the quiet
and confirmation windows are not counted.

Targets: one press settles within 3x the bare page; 20 rapid presses settle within 1 s of the
last press; first load within 2x the bare page.

Where the time goes: both servers run through ``instrumented_server.py --run-times``, which
times each script run inside the server, so every single press is also split into the script
run(s) that answered it and the rest (what the press would take with a script that ran in no
time). With ``--floor``, each page's first-load output is recorded (``instrumented_server.py
--record``) and replayed by ``replay_page.py``, a script that computes nothing: the first load
of that replay, timed in the same rounds, is the page's floor.

The absolute figures depend on the machine and on whatever else runs on it (a loaded
2-core machine can triple them); they are only meaningful as ratios taken in one run. Pages
and the bare page are measured round-robin so that load changes hit them alike. This script
only reports: it never asserts and always exits 0.

    python benchmarks/browser.py [--root PATH] [--pages home,mace] [--repeats 10] [--floor]
"""

from __future__ import annotations

import argparse
import ast
import atexit
import contextlib
import json
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_ROOT = HERE.parent
CHROMIUM = "/usr/bin/chromium"
# The same flags as the browser tests' (tests/conftest.py).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SERVER_START_TIMEOUT = 120  # s (the machine may be busy)
QUIET_MS = 150  # no DOM mutation for this long = settled (not counted in the times)
CONFIRM_MS = 500  # after a burst: no new script run for this long either (not counted)
SETTLE_TIMEOUT_MS = 60_000
LOAD_TIMEOUT_MS = 90_000
BURST_PRESSES = 20
BURST_GAP_S = 0.030
TARGET_PRESS_RATIO = 3.0
TARGET_BURST_MS = 1000.0
TARGET_LOAD_RATIO = 2.0

SLIDER_INPUT = '[data-testid="stSlider"] :is([role="slider"], input[type="range"])'

# Installed in every page before its own scripts run (context.add_init_script).
PROBE_JS = r"""
(() => {
  if (window.__mipb) return;
  const STATE = 'data-test-script-state';
  const P = { lastMut: 0, lastRecv: -1, lastOutside: -1, states: [], sends: [], presses: [],
              starts: [], finishes: [], slider: null };
  window.__mipb = P;
  // The top-level fields of a protobuf message: {field number: varint value or true}.
  const topFields = (buf) => {
    const u = new Uint8Array(buf), out = {};
    let i = 0;
    const varint = () => {
      let x = 0, m = 1, b;
      do { b = u[i++]; x += (b & 0x7f) * m; m *= 128; } while (b & 0x80 && i < u.length);
      return x;
    };
    while (i < u.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag % 8;
      if (wire === 0) out[field] = varint();
      else if (wire === 2) { const n = varint(); out[field] = true; i += n; }
      else if (wire === 1) i += 8;
      else if (wire === 5) i += 4;
      else break;
    }
    return out;
  };
  // Every request the page sends to the server (a widget change is one BackMsg), and what
  // the server sends back: ForwardMsg field 4 (new_session) starts a script run, field 6
  // (script_finished; 2 = FINISHED_EARLY_FOR_RERUN) ends one. A rerun that changes nothing
  // on the page and starts and ends within one render leaves no trace in the DOM.
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) {
    P.sends.push(performance.now());
    if (P.sends.length > 2000) P.sends.splice(0, 1000);
    if (!this.__mipbHooked) {
      this.__mipbHooked = true;
      this.addEventListener('message', (e) => {
        const t = performance.now();
        P.lastRecv = t;
        if (!(e.data instanceof ArrayBuffer)) return;
        const f = topFields(e.data);
        if (f[4]) { P.starts.push(t); P.everStarted = true; }
        if (6 in f) P.finishes.push({ t, status: f[6] === true ? -1 : f[6] });
        if (P.starts.length > 2000) P.starts.splice(0, 1000);
        if (P.finishes.length > 2000) P.finishes.splice(0, 1000);
      });
    }
    return send.apply(this, args);
  };
  const appState = () => {
    const a = document.querySelector('[data-testid="stApp"]');
    return a ? a.getAttribute(STATE) : null;
  };
  P.appState = appState;
  // The page's output: the main area and the sidebar (not <head>, where styles are injected
  // whenever a component first renders, nor the toolbar's status widget).
  const isOutput = (node) => {
    const el = node && node.nodeType === 1 ? node : node && node.parentElement;
    return !!(el && el.closest('[data-testid="stMain"], [data-testid="stSidebar"]'));
  };
  new MutationObserver((records) => {
    const t = performance.now();
    P.lastMut = t;
    for (const r of records) {
      if (r.type === 'attributes' && r.attributeName === STATE) {
        P.states.push({ t, old: r.oldValue });
        if (P.states.length > 2000) P.states.splice(0, 1000);
      } else if (isOutput(r.target) && !(P.slider && P.slider.contains(r.target))) {
        P.lastOutside = t;
      }
    }
  }).observe(document, { subtree: true, childList: true, attributes: true,
                         characterData: true, attributeOldValue: true });
  // Each key press, and (a task later) whether it moved the focused slider.
  addEventListener('keydown', (e) => {
    const el = e.target;
    const before = el && 'value' in el ? el.value : null;
    const rec = { t: performance.now(), changed: null };
    P.presses.push(rec);
    // A press that did not reach the armed slider (focus lost) counts as not moving it.
    const onSlider = !P.slider || (el && P.slider.contains(el));
    setTimeout(() => { rec.changed = onSlider && el && 'value' in el ? el.value !== before : false; }, 0);
  }, true);
  // el: the widget being operated; DOM changes inside it (the slider's own label, an
  // uploader's file chip, a radio's dot) happen before the server answers and are ignored.
  P.arm = (el) => {
    P.slider = el ? (el.closest('[data-testid="stSlider"]')
                     || el.closest('[data-testid="stElementContainer"]') || el) : null;
    P.presses = []; P.sends = []; P.states = []; P.starts = []; P.finishes = [];
    P.lastOutside = -1; P.armT = performance.now();
  };
  // Settled after the armed key presses (or, with action=true, after whatever was done since
  // arm(), e.g. an upload)? {done, ms (last press -> last DOM mutation), why}.
  P.check = (quiet, action) => {
    const now = performance.now();
    let lastPress = P.armT, lastMove = P.armT;
    if (!action) {
      if (!P.presses.length) return { done: false, why: 'no key press seen' };
      lastPress = P.presses[P.presses.length - 1].t;
      const moved = P.presses.filter((p) => p.changed !== false);
      if (!moved.length) return { done: false, stuck: true, why: 'the slider did not move' };
      lastMove = moved[moved.length - 1].t;
    }
    // The request carrying the final value: the first one sent after the last move (a page
    // may send more later, e.g. a widget normalising its value, with no visible answer).
    const request = P.sends.find((t) => t >= lastMove);
    if (request === undefined) return { done: false, why: 'no request sent after the last move' };
    const lastSend = request;
    const cur = appState();
    const st = P.states;
    const after = (i) => (i + 1 < st.length ? st[i + 1].old : cur);
    let i0 = st.findIndex((s) => s.t >= lastSend);
    if (i0 < 0) i0 = st.length;
    const atSend = i0 < st.length ? st[i0].old : cur;  // the script state when the request left
    let began = atSend !== 'notRunning', ended = false;
    for (let i = i0; i < st.length; i++) {
      const nu = after(i);
      if (!began && st[i].old === 'notRunning' && nu !== 'notRunning') began = true;
      else if (began && nu === 'notRunning') { ended = true; break; }
    }
    // The answer: a script run that started after the request and finished (not cut short
    // for a rerun), seen in the server's messages. Only if this page's messages cannot be
    // read (no run start was ever seen) does the DOM stand in: the output outside the slider
    // changed, or a rerun begun after the request ended. During a burst of presses the DOM
    // also changes with the answers to the earlier requests, so it is only the fallback.
    const started = P.starts.find((t) => t >= lastSend);
    const finished = started !== undefined
      && P.finishes.some((f) => f.t >= started && f.status !== 2);
    const answered = P.everStarted ? finished : ended || P.lastOutside >= lastSend;
    if (!answered) {
      return { done: false, why: 'waiting for the server to answer (' + P.sends.length
               + ' request(s) since the press, script state ' + [...st.map((x) => x.old), cur].join('>') + ')' };
    }
    if (cur !== 'notRunning') return { done: false, why: 'script running (' + cur + ')' };
    // A server working through a backlog of requests (rapid presses) may pause between one
    // run's end and the next run's start; the quiet window is at least twice the longest such
    // pause seen since the presses began.
    let gap = 0;
    for (const t of P.starts) {
      const before = P.finishes.filter((f) => f.t <= t);
      if (before.length) gap = Math.max(gap, t - before[before.length - 1].t);
    }
    const last = Math.max(P.lastMut, P.lastRecv);
    if (now - last < Math.max(quiet, 2 * gap)) return { done: false, why: 'DOM or messages still changing' };
    return { done: true, ms: Math.max(0, last - lastPress), presses: P.presses.length, gap,
             moved: P.presses.filter((p) => p.changed).length,
             exceptions: document.querySelectorAll('[data-testid="stException"]').length };
  };
  // A freshly opened page is ready: script idle, no skeleton, every chart drawn, quiet.
  P.loaded = (quiet) => {
    const now = performance.now();
    if (appState() !== 'notRunning') return false;
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main || main.querySelector('[data-testid="stSkeleton"]')) return false;
    const charts = main.querySelectorAll('[data-testid="stPlotlyChart"], [data-testid="stVegaLiteChart"]');
    for (const c of charts)
      if (!c.querySelector('.js-plotly-plot .main-svg, svg.marks, canvas.marks')) return false;
    const last = Math.max(P.lastMut, P.lastRecv);
    if (now - last < quiet) return false;
    return { ms: last, charts: charts.length,
             exceptions: main.querySelectorAll('[data-testid="stException"]').length };
  };
})();
"""

# Arguments: [quiet ms, action?] (action: settled after something other than key presses).
WAIT_SETTLED = "([q, a]) => { const r = window.__mipb && window.__mipb.check(q, a); return r && r.done ? r : false; }"
WAIT_LOADED = "q => window.__mipb && window.__mipb.loaded(q)"
WHY_NOT = "([q, a]) => window.__mipb ? window.__mipb.check(q, a) : {why: 'probe missing'}"


# --------------------------------------------------------------------------- pages


@dataclass(frozen=True)
class Page:
    """One page of the app; ``url_path`` is "" for home."""

    url_path: str
    title: str
    script: str | None = None

    @property
    def name(self) -> str:
        return self.url_path or "home"

    @property
    def path(self) -> str:
        return "/" + self.url_path


_REGISTRY_PROBE = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    try:
        import appkit.registry as registry
    except ModuleNotFoundError as exc:
        if exc.name in ("appkit.registry", "appkit"):
            print(json.dumps({"missing": str(exc)}))
            sys.exit(0)
        raise
    out = []
    for p in registry.PAGES:
        script = getattr(p, "script", None)
        out.append([str(p.url_path), str(p.title), script if isinstance(script, str) else
                    (str(script) if script is not None and not callable(script) else None)])
    print(json.dumps({"pages": out}))
    """
)


def _pages_from_app_py(root: Path) -> list[Page]:
    app = root / "app.py"
    tree = ast.parse(app.read_text(encoding="utf-8"), filename=str(app))
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if getattr(node, "value", None) is not None and any(
            isinstance(t, ast.Name) and t.id == "PAGES" for t in targets
        ):
            pages = ast.literal_eval(node.value)
            return [Page("", "Home", None)] + [
                Page(str(v[2]), str(v[1]), str(v[0])) for v in pages.values()
            ]
    raise LookupError(f"no top-level PAGES = {{...}} literal in {app}")


def discover_pages(root: Path) -> tuple[list[Page], str]:
    """The pages of the app checkout at ``root`` (home first), and where they were read from.

    Tries ``appkit.registry.PAGES`` (objects with ``url_path``, ``title``, ``script``), imported
    in a subprocess whose ``sys.path`` starts with ``root`` (two roots never mix in this process);
    falls back to parsing app.py's ``PAGES = {...}`` literal with ``ast``.
    """
    root = Path(root).resolve()
    note = ""
    try:
        out = subprocess.run(
            [sys.executable, "-c", _REGISTRY_PROBE, str(root)],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": ""},
        )
        if out.returncode == 0:
            data = json.loads(out.stdout.strip().splitlines()[-1])
            if "pages" in data:
                pages = [Page(u, t, s) for u, t, s in data["pages"]]
                if not any(p.url_path == "" for p in pages):
                    pages.insert(0, Page("", "Home", None))
                pages.sort(key=lambda p: p.url_path != "")  # home first, order kept otherwise
                return pages, "appkit.registry.PAGES"
            note = "no appkit.registry"
        else:
            last = (out.stderr.strip().splitlines() or ["?"])[-1]
            note = f"appkit.registry failed to import ({last[:80]})"
    except (subprocess.TimeoutExpired, OSError, ValueError, IndexError) as exc:
        note = f"appkit.registry not read ({type(exc).__name__})"
    return _pages_from_app_py(root), f"app.py's PAGES literal ({note})"


def select_pages(pages: list[Page], wanted: str | None) -> list[Page]:
    if not wanted:
        return pages
    keys = {w.strip() for w in wanted.split(",")}
    return [p for p in pages if p.url_path in keys or p.name in keys]


def bare_page_for(root: Path) -> Path:
    """The root's own benchmarks/bare_page.py, else the one beside this script."""
    own = Path(root) / "benchmarks" / "bare_page.py"
    return own if own.is_file() else HERE / "bare_page.py"


# --------------------------------------------------------------------------- servers


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(url: str, timeout: float = 2.0) -> str | None:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as r:
            return r.read().decode("utf-8", "replace").strip()
    except (urllib.error.URLError, OSError):
        return None


_LIVE_SERVERS: set[Server] = set()


@atexit.register
def _stop_live_servers() -> None:
    """Safety net: a server still running when the interpreter exits is stopped too."""
    for server in list(_LIVE_SERVERS):
        server.stop()


class Server:
    """``streamlit run SCRIPT`` in ``root`` on a free loopback port, in its own process group.

    Use as a context manager: the whole process group is killed on exit (also on Ctrl-C or
    an exception).
    """

    def __init__(
        self,
        root: Path,
        script: str | Path = "app.py",
        *,
        launcher: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.script = str(script)
        # What runs `streamlit ...`: by default `python -m streamlit`; browser.py uses
        # instrumented_server.py, which times each script run (and may record its messages).
        self.launcher = launcher or [sys.executable, "-m", "streamlit"]
        self.env = env
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self._log = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def output(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-3000:]

    def start(self) -> Server:
        cmd = [
            *self.launcher,
            "run",
            self.script,
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
        ]
        self._log = tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115 -- closed in stop()
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.root,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=None if self.env is None else {**os.environ, **self.env},
        )
        _LIVE_SERVERS.add(self)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while health(self.url) != "ok":
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"`streamlit run {self.script}` exited with {self.proc.returncode}:\n"
                    + self.output()
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.url} not healthy after {SERVER_START_TIMEOUT} s")
            time.sleep(0.25)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)  # this server's own group only
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None
        _LIVE_SERVERS.discard(self)

    def __enter__(self) -> Server:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


def exit_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so that every `finally` (servers, browsers) runs."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def progress(text: str) -> None:
    """A progress line on stderr (the tables go to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def parse_viewport(text: str) -> dict[str, int]:
    w, h = text.lower().split("x")
    return {"width": int(w), "height": int(h)}


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def quantile(xs: list[float], q: float) -> float | None:
    """Nearest-rank quantile (q in [0, 1]); None for no data."""
    if not xs:
        return None
    s = sorted(xs)
    k = min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))
    return s[k]


def short_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"error: {type(exc).__name__}: {text}"[:110]


# --------------------------------------------------------------------------- page driving (sync)


FIND_SLIDER_JS = """(sel) => {
  const all = [...document.querySelectorAll('[data-testid="stMain"] ' + sel)];
  const vis = (el) => {  // not in a collapsed expander (its content keeps a size there)
    const s = el.closest('[data-testid="stSlider"]');
    if (s.checkVisibility) return s.checkVisibility({checkVisibilityCSS: true});
    const r = s.getBoundingClientRect(); return r.width > 0 && r.height > 0;
  };
  const i = all.findIndex(vis);
  if (i < 0) return all.length ? {index: -1, hidden: all.length} : null;
  const el = all[i];
  const num = (v) => (v === null || v === '' ? null : Number(v));
  const label = el.closest('[data-testid="stSlider"]').querySelector('[data-testid="stWidgetLabel"]');
  return {index: i, value: el.value !== undefined ? String(el.value) : el.getAttribute('aria-valuenow'),
          min: num(el.getAttribute('min') ?? el.getAttribute('aria-valuemin')),
          max: num(el.getAttribute('max') ?? el.getAttribute('aria-valuemax')),
          step: num(el.getAttribute('step')),
          label: label ? label.textContent.trim() : ''};
}"""
# Open the first collapsed expander of the main area that holds a slider.
OPEN_EXPANDER_JS = """(sel) => {
  for (const d of document.querySelectorAll('[data-testid="stMain"] details')) {
    if (!d.open && d.querySelector(sel)) { d.querySelector('summary').click(); return true; }
  }
  return false;
}"""


def slider_info(page) -> dict | None:
    """The first visible slider's thumb in the main area: index among all, value, min, max, step.

    A slider inside a collapsed expander is revealed by opening that expander.
    """
    info = page.evaluate(FIND_SLIDER_JS, SLIDER_INPUT)
    if info and info.get("index") == -1:
        page.evaluate(OPEN_EXPANDER_JS, SLIDER_INPUT)
        page.wait_for_timeout(500)
        info = page.evaluate(FIND_SLIDER_JS, SLIDER_INPUT)
        if info and info.get("index") == -1:
            return None
        if info:
            info["expanded"] = True
    return info


def thumb(page, info: dict):
    return page.locator(f'[data-testid="stMain"] {SLIDER_INPUT}').nth(info["index"])


def room(info: dict) -> tuple[float, float]:
    """Steps available to the (left, right) of the slider's current value."""
    try:
        v, lo, hi = float(info["value"]), float(info["min"]), float(info["max"])
        step = float(info["step"] or 1.0)
    except (TypeError, ValueError):
        return (1.0, 1.0)
    return ((v - lo) / step, (hi - v) / step)


def open_settled(context, url: str, timeout_ms: int = LOAD_TIMEOUT_MS):
    """A new page of ``context`` at ``url``, once loaded (script idle, charts drawn, quiet)."""
    page = context.new_page()
    page.goto(url, wait_until="commit", timeout=timeout_ms)
    result = page.wait_for_function(
        WAIT_LOADED, arg=QUIET_MS, polling=25, timeout=timeout_ms
    ).json_value()
    return page, result


@dataclass(frozen=True)
class Settled:
    """One measured press (or burst): ms from the last press until settled, and how many
    presses moved the slider."""

    ms: float
    moved: int


def press_and_settle(page, info: dict, key: str, n: int = 1, gap_s: float = 0.0) -> Settled:
    """Press ``key`` ``n`` times on the page's first slider and wait until settled."""
    handle = thumb(page, info)
    handle.focus()
    page.evaluate("el => window.__mipb.arm(el)", handle.element_handle())
    t0 = time.perf_counter()
    for i in range(n):
        page.keyboard.press(key)
        if i + 1 < n:
            wait = t0 + (i + 1) * gap_s - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
    deadline = time.monotonic() + SETTLE_TIMEOUT_MS / 1000
    while True:
        try:
            result = page.wait_for_function(
                WAIT_SETTLED,
                arg=[QUIET_MS, False],
                polling=20,
                timeout=max(1.0, (deadline - time.monotonic()) * 1000),
            ).json_value()
        except Exception as exc:
            why = page.evaluate(WHY_NOT, [QUIET_MS, False])
            raise RuntimeError(f"not settled: {why.get('why') if why else exc}") from None
        if n == 1:
            break
        # After many presses the server may still hold requests that a pause between two runs
        # hid: settled only if no run starts during a further confirmation window.
        runs = page.evaluate("() => window.__mipb.starts.length")
        page.wait_for_timeout(CONFIRM_MS)
        if page.evaluate("() => window.__mipb.starts.length") == runs:
            break
    if result.get("exceptions"):
        raise RuntimeError("the page shows an exception")
    return Settled(float(result["ms"]), int(result.get("moved", n)))


# --------------------------------------------------------------------------- the benchmark


class RunLog:
    """The script-run times a server started by ``instrumented_server.py --run-times`` writes."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def mark(self) -> int:
        """Where the log ends now."""
        return self.path.stat().st_size if self.path.exists() else 0

    def walls_since(self, mark: int) -> list[float]:
        """Wall ms of every script run that ended after ``mark``. A run's line is written as
        it returns, before the page can count as settled (a quiet window later)."""
        if not self.path.exists():
            return []
        with open(self.path, encoding="utf-8") as f:
            f.seek(mark)
            rows = [line.split() for line in f.read().splitlines()]
        return [float(row[2]) for row in rows if len(row) == 4]


class Target:
    """A page (or the bare page) under measurement, with its samples."""

    def __init__(self, name: str, url: str) -> None:
        self.name = name
        self.url = url
        self.loads: list[float] = []
        self.presses: list[float] = []
        # per press: (the server's script runs after it, settled), ms
        self.press_server: list[tuple[float, float]] = []
        self.run_log: RunLog | None = None
        self.bursts: list[float] = []
        self.burst_moved: list[int] = []
        self.errors: dict[str, str] = {}  # kind -> why it was given up
        self.failures: dict[str, int] = {}  # kind -> failed measurements
        self.last_failure: dict[str, str] = {}
        self.page = None
        self.info: dict | None = None
        self.direction = "ArrowRight"
        self.burst_direction = "ArrowRight"


def measure_first_loads(browser, targets: list[Target], loads: int, viewport) -> None:
    for _ in range(loads):
        for t in targets:
            if "load" in t.errors:
                continue
            context = browser.new_context(viewport=viewport)
            try:
                context.add_init_script(PROBE_JS)
                _page, result = open_settled(context, t.url)
                if result.get("exceptions"):
                    t.errors["load"] = "error: the page shows an exception"
                else:
                    t.loads.append(float(result["ms"]))
            except Exception as exc:
                t.errors["load"] = short_error(exc)
            finally:
                context.close()


def prepare_slider(browser, t: Target, viewport) -> None:
    context = browser.new_context(viewport=viewport)
    context.add_init_script(PROBE_JS)
    t.context = context
    try:
        t.page, loaded = open_settled(context, t.url)
        if loaded.get("exceptions"):
            t.errors["press"] = "error: the page shows an exception"
            return
        t.info = slider_info(t.page)
        if t.info is None:
            t.errors["press"] = "no slider on the page"
            return
        left, right = room(t.info)
        t.direction = "ArrowRight" if right >= 1 else "ArrowLeft"
        t.burst_direction = "ArrowRight" if right >= left else "ArrowLeft"
    except Exception as exc:
        t.errors["press"] = short_error(exc)


def flip(key: str) -> str:
    return "ArrowLeft" if key == "ArrowRight" else "ArrowRight"


MAX_FAILURES = 3  # a page's presses are given up after this many failed measurements


def _failed(t: Target, kind: str, exc: Exception) -> None:
    """Note a failed measurement; after MAX_FAILURES the page's ``kind`` is given up."""
    t.failures[kind] = t.failures.get(kind, 0) + 1
    t.last_failure[kind] = short_error(exc)
    if t.failures[kind] >= MAX_FAILURES:
        t.errors[kind] = t.last_failure[kind]


def measure_presses(targets: list[Target], repeats: int) -> None:
    for _ in range(repeats):
        for t in targets:
            if "press" in t.errors:
                continue
            try:
                t.info = slider_info(t.page) or t.info
                mark = t.run_log.mark() if t.run_log else None
                got = press_and_settle(t.page, t.info, t.direction)
                t.presses.append(got.ms)
                if t.run_log and mark is not None:
                    runs = t.run_log.walls_since(mark)
                    if runs:
                        t.press_server.append((sum(runs), got.ms))
            except Exception as exc:
                _failed(t, "press", exc)
            t.direction = flip(t.direction)


def measure_bursts(targets: list[Target], bursts: int) -> None:
    for _ in range(bursts):
        for t in targets:
            if "press" in t.errors or "burst" in t.errors:
                continue
            try:
                t.info = slider_info(t.page) or t.info
                got = press_and_settle(
                    t.page, t.info, t.burst_direction, BURST_PRESSES, BURST_GAP_S
                )
                t.bursts.append(got.ms)
                t.burst_moved.append(got.moved)
            except Exception as exc:
                _failed(t, "burst", exc)
            t.burst_direction = flip(t.burst_direction)


def instrumented(*options: str) -> list[str]:
    """A server launcher: ``instrumented_server.py`` with ``options``, then Streamlit."""
    return [sys.executable, str(HERE / "instrumented_server.py"), *options, "--", "streamlit"]


def timed(log: Path) -> list[str]:
    """A server launcher that writes each script run's times to ``log``."""
    return instrumented("--run-times", str(log))


def record_floors(root: Path, pages: list[Page], out: Path, browser, viewport) -> list[str]:
    """Record what each page sends on a first load (``instrumented_server.py --record``).

    Every page is opened twice in a fresh context (the first load fills the caches), and the
    second load's full run is kept as ``out/<page name>.bin``. Returns notes on pages not
    recorded."""
    notes = []
    launcher = instrumented("--record", str(out))
    with Server(root, "app.py", launcher=launcher) as rec:
        for p in pages:
            try:
                for _ in range(2):
                    context = browser.new_context(viewport=viewport)
                    try:
                        context.add_init_script(PROBE_JS)
                        open_settled(context, rec.url + p.path)
                    finally:
                        context.close()
                runs = sorted(out.glob("full-*.bin"))
                if not runs:
                    notes.append(f"{p.name}: no run recorded")
                    continue
                os.replace(runs[-1], out / f"{p.name}.bin")
                for f in runs[:-1]:
                    f.unlink()
            except Exception as exc:
                notes.append(f"{p.name}: {short_error(exc)}")
    return notes


def replay_server(root: Path, out: Path, home: Path) -> Server:
    """A server of ``replay_page.py`` for the recordings in ``out``, run from ``home`` with
    the app's own ``.streamlit/config.toml`` (theme, toolbar), so that only the computation
    differs from the app."""
    config = root / ".streamlit" / "config.toml"
    if config.is_file():
        (home / ".streamlit").mkdir(exist_ok=True)
        (home / ".streamlit" / "config.toml").write_bytes(config.read_bytes())
    return Server(home, HERE / "replay_page.py", env={"MIPB_REPLAY_DIR": str(out)})


def fmt_ms(ms: float | None) -> str:
    return "-" if ms is None else f"{ms:,.0f}"


def report(
    targets: list[Target],
    bare: Target,
    args,
    source: str,
    seconds: float,
    floors: Sequence[Target] = (),
    floor_notes: Sequence[str] = (),
) -> None:
    bare_load, bare_press = median(bare.loads), median(bare.presses)
    print(
        f"\n{'page':<18} {'first load ms':>14} {'ratio':>6}  {'press->settled ms':>17} "
        f"{'ratio':>6}  {'after 20 presses ms':>19}  result"
    )
    rows_over: list[str] = []
    measured = 0
    for t in [bare, *targets]:
        load, press, burst = median(t.loads), median(t.presses), median(t.bursts)
        lr = load / bare_load if load is not None and bare_load else None
        pr = press / bare_press if press is not None and bare_press else None
        if t is bare:
            verdict = "reference"
        else:
            over = []
            if lr is not None and lr > TARGET_LOAD_RATIO:
                over.append(f"load {lr:.1f}x")
            if pr is not None and pr > TARGET_PRESS_RATIO:
                over.append(f"press {pr:.1f}x")
            if burst is not None and burst > TARGET_BURST_MS:
                over.append(f"20 presses {burst / 1000:.1f} s")
            missing = [k for k in ("load", "press", "burst") if k in t.errors]
            if over:
                verdict = "over: " + ", ".join(over)
                rows_over.append(t.name)
            elif load is None and press is None:
                verdict = "not measured"
            else:
                verdict = "PASS" + (" (partly measured)" if missing else "")
            if load is not None or press is not None:
                measured += 1
        col_load = t.errors.get("load", "")[:14] if load is None else fmt_ms(load)
        col_press = t.errors.get("press", "")[:17] if press is None else fmt_ms(press)
        col_burst = (
            (t.errors.get("burst") or t.errors.get("press", ""))[:19]
            if burst is None
            else fmt_ms(burst)
        )
        print(
            f"{t.name:<18} {col_load:>14} {'-' if lr is None else f'{lr:.1f}x':>6}  "
            f"{col_press:>17} {'-' if pr is None else f'{pr:.1f}x':>6}  {col_burst:>19}  {verdict}"
        )
    print(
        f"\nTargets: first load <= {TARGET_LOAD_RATIO:g}x bare; one press settled <= "
        f"{TARGET_PRESS_RATIO:g}x bare; settled <= {TARGET_BURST_MS / 1000:g} s after the last of "
        f"{BURST_PRESSES} presses {BURST_GAP_S * 1000:.0f} ms apart."
    )
    print(
        f"Medians of {args.loads} first loads (fresh context each), {args.repeats} single presses "
        f"(ArrowRight/ArrowLeft alternating on the first slider, so after the first press the\n"
        f"page's caches hold both values) and {args.bursts} bursts per page. Settled = request "
        f"sent after the last move, a script run started after it and finished (read from the\n"
        f"server's messages), script idle, no DOM mutation and no message for {QUIET_MS} ms "
        f"(after a burst also no new run for {CONFIRM_MS} ms); these windows are not counted."
    )
    notes = [
        (t.name, k, v)
        for t in [bare, *targets]
        for k, v in t.errors.items()
        if not v.startswith("no slider")
    ]
    for name, kind, text in notes:
        print(f"  note: {name} ({kind}): {text}")
    for t in [bare, *targets]:
        for kind, count in t.failures.items():
            if kind not in t.errors:
                print(
                    f"  note: {t.name} ({kind}): {count} measurement(s) failed and left out, "
                    f"last: {t.last_failure[kind]}"
                )
    for t in targets:
        if t.bursts and max(t.bursts) > TARGET_BURST_MS >= median(t.bursts):
            print(
                f"  note: {t.name}: within the burst target as a median, but its slowest burst took "
                f"{max(t.bursts) / 1000:.1f} s (bursts: {', '.join(fmt_ms(b) for b in t.bursts)} ms)"
            )
    for t in [bare, *targets]:
        if t.burst_moved and min(t.burst_moved) < BURST_PRESSES:
            print(
                f"  note: {t.name}: a burst moved its slider only {min(t.burst_moved)} of "
                f"{BURST_PRESSES} steps (its end was reached; the time still runs from the last press)"
            )
    for t in targets:
        if t.info and t.info.get("label"):
            extra = " (in a collapsed expander, opened)" if t.info.get("expanded") else ""
            print(f"  slider of {t.name}: {t.info['label']!r}{extra}")
        elif t.errors.get("press", "").startswith("no slider"):
            print(f"  slider of {t.name}: none on the page (press columns empty)")
    print(
        f"\n{measured} of {len(targets)} pages measured; "
        + (
            f"over a target: {', '.join(rows_over)}"
            if rows_over
            else "all within the targets"
            if measured
            else "nothing to judge"
        )
        + f". Pages from {source}. Run time {seconds:.0f} s."
    )
    print("Absolute times depend on the machine's load: compare ratios taken in one run.")
    report_press_parts(targets, bare)
    if floors:
        report_floors(targets, floors, bare, floor_notes)


def report_press_parts(targets: list[Target], bare: Target) -> None:
    """Each press split into the server's script runs (timed in the server) and the rest."""
    bare_press = median(bare.presses)
    rows = [t for t in [bare, *targets] if t.press_server]
    if not rows or not bare_press:
        return
    print(
        "\nWhere one press's time goes (medians, ms): the server's script run(s) answering it, "
        "timed in the server;\nthe rest is the browser drawing the answer, the messages' way "
        "and Streamlit's own work. A page's\nscript running in no time at all would still "
        "leave the rest."
    )
    print(f"{'page':<18} {'settled':>8} {'script run':>10} {'rest':>6}  rest / bare press")
    for t in rows:
        total = median([ms for _run, ms in t.press_server])
        run = median([r for r, _ms in t.press_server])
        rest = median([ms - r for r, ms in t.press_server])
        ratio = rest / bare_press if rest is not None else None
        flag = (
            "  (over the press target without the script)"
            if ratio and ratio > TARGET_PRESS_RATIO
            else ""
        )
        print(
            f"{t.name:<18} {fmt_ms(total):>8} {fmt_ms(run):>10} {fmt_ms(rest):>6}  "
            f"{'-' if ratio is None else f'{ratio:.1f}x'}{flag}"
        )


def report_floors(
    targets: list[Target], floors: Sequence[Target], bare: Target, notes: Sequence[str]
) -> None:
    """First loads against each page's floor: its recorded output replayed with no computation."""
    bare_load = median(bare.loads)
    if not bare_load:
        return
    print(
        "\nFirst load against the page's floor: the same messages (sidebar, title, every "
        "element), recorded\nfrom the app and sent by a script that computes nothing "
        "(replay_page.py); measured in the same rounds."
    )
    print(
        f"{'page':<18} {'first load ms':>14} {'ratio':>6}  {'floor ms':>9} {'ratio':>6}  "
        "app above its floor"
    )
    by_name = {f.name: f for f in floors}
    for t in targets:
        f = by_name.get(t.name)
        load, floor = median(t.loads), median(f.loads) if f else None
        if load is None or floor is None:
            continue
        verdict = (
            "  (the floor alone is over the load target)"
            if floor / bare_load > TARGET_LOAD_RATIO
            else ""
        )
        print(
            f"{t.name:<18} {fmt_ms(load):>14} {load / bare_load:>5.1f}x  {fmt_ms(floor):>9} "
            f"{floor / bare_load:>5.1f}x  {load - floor:>+8,.0f} ms{verdict}"
        )
    for n in notes:
        print(f"  note: floor not recorded for {n}")
    for f in floors:
        if "load" in f.errors:
            print(f"  note: floor of {f.name} (load): {f.errors['load']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="app checkout to serve")
    parser.add_argument("--pages", help="comma-separated url paths (home = 'home' or '')")
    parser.add_argument("--repeats", "-k", type=int, default=10, help="single presses per page")
    parser.add_argument("--loads", type=int, default=5, help="first loads per page")
    parser.add_argument("--bursts", type=int, default=3, help="20-press bursts per page")
    parser.add_argument("--viewport", default="1024x768", help="WIDTHxHEIGHT")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also record each page's first-load output and time it replayed with no "
        "computation (the page's floor)",
    )
    args = parser.parse_args()
    exit_on_sigterm()
    started = time.monotonic()
    root = args.root.resolve()
    viewport = parse_viewport(args.viewport)

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed (requirements-dev.txt); nothing measured.")
        return 0
    if not os.access(CHROMIUM, os.X_OK):
        print(f"no Chromium at {CHROMIUM}; nothing measured.")
        return 0

    pages, source = discover_pages(root)
    pages = select_pages(pages, args.pages)
    bare_script = bare_page_for(root)
    import streamlit

    print(
        f"MIP Explorer browser benchmark: {root} (pages from {source}); streamlit "
        f"{streamlit.__version__}; Chromium {CHROMIUM}, viewport {args.viewport}; "
        f"bare page {bare_script}."
    )
    floors: list[Target] = []
    floor_notes: list[str] = []
    try:
        with (
            tempfile.TemporaryDirectory(prefix="mipb-floor-") as scratch,
            contextlib.ExitStack() as stack,
            Server(root, "app.py", launcher=timed(Path(scratch) / "app-runs.log")) as app,
            Server(
                root, bare_script, launcher=timed(Path(scratch) / "bare-runs.log")
            ) as bare_server,
            sync_playwright() as pw,
        ):
            rec_dir = Path(scratch) / "recordings"
            replay_home = Path(scratch) / "replay"
            rec_dir.mkdir()
            replay_home.mkdir()
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                bare = Target("bare page", bare_server.url + "/")
                bare.run_log = RunLog(Path(scratch) / "bare-runs.log")
                targets = [Target(p.name, app.url + p.path) for p in pages]
                for t in targets:
                    t.run_log = RunLog(Path(scratch) / "app-runs.log")
                everything = [bare, *targets]
                loading = everything
                if args.floor:
                    progress("recording each page's first-load output…")
                    floor_notes = record_floors(root, pages, rec_dir, browser, viewport)
                    replay = stack.enter_context(replay_server(root, rec_dir, replay_home))
                    floors = [
                        Target(p.name, f"{replay.url}/?page={p.name}")
                        for p in pages
                        if (rec_dir / f"{p.name}.bin").is_file()
                    ]
                    floor_of = {f.name: f for f in floors}
                    # each floor right after its page, so that load changes hit both alike
                    loading = [bare] + [
                        x for t in targets for x in (t, floor_of.get(t.name)) if x is not None
                    ]
                progress(f"first loads: {args.loads} rounds over {len(loading)} pages…")
                measure_first_loads(browser, loading, args.loads, viewport)
                progress("opening one tab per page for the slider presses…")
                for t in everything:
                    prepare_slider(browser, t, viewport)
                progress(f"single presses: {args.repeats} rounds…")
                measure_presses(everything, args.repeats)
                progress(f"bursts of {BURST_PRESSES} presses: {args.bursts} rounds…")
                measure_bursts(everything, args.bursts)
                for t in everything:
                    ctx = getattr(t, "context", None)
                    if ctx is not None:
                        with contextlib.suppress(Exception):
                            ctx.close()
            finally:
                browser.close()
    except KeyboardInterrupt:
        print("interrupted; servers stopped.")
        return 0
    except Exception as exc:
        print(f"benchmark aborted: {short_error(exc)}")
        return 0
    report(targets, bare, args, source, time.monotonic() - started, floors, floor_notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
