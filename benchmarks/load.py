"""One server, a whole classroom: how does the app hold up under many browsers at once?

Serves the app (``streamlit run app.py``) from ``--root`` and drives Debian's Chromium
(``/usr/bin/chromium``) through Playwright (async API: one browser process, one context per
session, all driven from one event loop). Phases, each printed as a table with its target:

1. **one session alone**: for every page with a slider, one session presses its first slider
   (ArrowRight/ArrowLeft alternating) and times press -> settled (as in ``browser.py``);
2. **classroom**: N sessions (``--sessions``, default 10; ``--classroom``: 30), spread over the
   slider pages, press their sliders for ``--duration`` seconds with a think time of about
   ``--think`` s between presses; p50/p95 press -> settled, against the same pages alone.
   Target: p95 <= 2 s with 10 sessions;
3. **hostile upload**: the same while one extra session uploads ``('a,"b' * 16000)`` as a CSV on
   the "wrap" page; the others' p95 and its ratio to phase 2's. Target: <= 1.5x;
4. **heavy run**: a window like phase 2 again, then the same while one extra session starts
   the largest allowed covariance run (a control labelled "largest", else the Paper preset,
   then the page's "Run" button); the others' p95 against that window's. Target: <= 1.5x;
5. **memory** (a fresh server): 100 distinct links per slider page (the first slider's URL
   parameter at 100 valid values read from its min/max/step, or combined with the page's
   next sliders where it has fewer), each link a new session; the server's RSS (summed over
   its process tree) after every 25 links, and its peak. Target: peak <= 1 GB. The links are
   replayed over the wire (a new websocket session asking for a run of the page with that
   query string, as a browser opening the link does; Chromium with ``--links-in-browser``).
   ``--memory-budget`` (default 150 s) shares a time limit among the pages so that the
   default run stays near 10 minutes; a page cut short says so; 0 lifts the limit;
6. **heavy run, tab closed** (same server): start the heavy run, close its tab after 5 s, then
   sample the server's CPU time and RSS every 5 s for 60 s: does the run keep computing, and
   is RSS back within 50 MB of its level before the run (with the page open: its libraries
   imported, as on any server that has served a page)?

7. **fair line** (a fresh server): ``--fault-sessions`` sessions (default 4) press sliders for
   ``--duration`` s alone, then again while one student (one browser, three tabs) starts three
   long Figure 2 runs (Paper preset, R = 3, seeds 1-3: a few ``rng=`` variants of the Paper
   run); meanwhile another visitor opens the audit page at a default-sized setting never asked
   for before. Printed: the others' press p50/p95 against their window alone, and the
   audit's time until it finished against the same page alone (two distinct default-sized
   settings);
8. **killed job** (same server): the sessions press for ``--duration`` s alone, then again
   while a tab starts the same long run and its process is killed (``kill -9``, what the
   out-of-memory killer does) 3 s in. Printed: how long until that page showed a sentence,
   the server's CPU per second in the 10 s after the kill with no job alive, the others' press
   p95, and when another visitor's run of the very same settings started (its progress bar)
   and finished.

``--faults-only`` runs phases 7 and 8 alone (about three minutes); run it once with
``--root`` at an older checkout and once at this one for a before/after.

"Settled" is defined as in ``browser.py`` (request sent, a script run started after it and
finished, script idle, no DOM mutation or server message for 150 ms, the quiet window not
counted). The browser sessions run on the same machine as the server, so their rendering
competes with it for the CPU: each window prints the CPU used by the server, by the browsers
and by every other process. The absolute figures depend on the machine and on whatever else
runs on it; they are only meaningful as ratios taken in one run (phase 2 against 1, each
hostile window against the window just before it). A page that fails to load is reported in
its row and the run goes on. This script only reports: it never asserts and always exits 0.

    python benchmarks/load.py [--root PATH] [--pages eta_epsilon,mace] [--sessions 10 | --classroom]
                              [--duration 25]
                              [--skip-memory] [--skip-heavy] [--memory-budget 0]
                              [--faults-only | --skip-faults] [--fault-sessions 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import re
import signal
import sys
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import (  # the sibling script, found through the sys.path line above
    CHROMIUM,
    CHROMIUM_ARGS,
    DEFAULT_ROOT,
    FIND_SLIDER_JS,
    LOAD_TIMEOUT_MS,
    OPEN_EXPANDER_JS,
    PROBE_JS,
    QUIET_MS,
    SLIDER_INPUT,
    WAIT_LOADED,
    WAIT_SETTLED,
    WHY_NOT,
    Page,
    Server,
    discover_pages,
    exit_on_sigterm,
    flip,
    health,
    parse_viewport,
    quantile,
    room,
    select_pages,
    short_error,
)

SESSIONS = 10
CLASSROOM = 30
DURATION_S = 25.0
THINK_S = 1.0
ALONE_PRESSES = 10
WARMUP_PRESSES = 2
PRESS_TIMEOUT_MS = 30_000
OPEN_CONCURRENCY = 3  # sessions opened at once (2 cores)
TRIGGER_AFTER_S = 2.0  # the hostile action starts this long into its window
HOSTILE_CSV = ('a,"b' * 16000).encode()
WRAP_PATH = "wrap_statistic"
COVARIANCE_PATH = "covariance"
LINKS = 100
LINK_SAMPLE_EVERY = 25
LINK_QUIET_MS = 50
MEMORY_BUDGET_S = 150.0  # keeps the default run near 10 minutes; 0 = no limit
MEMORY_MIN_PAGE_S = 10.0  # every page gets at least this long for its links
LINK_CONCURRENCY = 2  # links replayed at once (websocket mode)
HEAVY_CLOSE_AFTER_S = 5.0
HEAVY_WATCH_S = 60.0
HEAVY_SAMPLE_S = 5.0
CPU_BUSY_S = 0.5  # more CPU than this in a 5 s sample: the server is computing
TARGET_P95_MS = 2000.0
TARGET_HOSTILE_RATIO = 1.5
TARGET_RSS_MB = 1024.0
TARGET_RSS_BACK_MB = 50.0
MB = 2**20
PHASE_SHORT = {"calm": "class", "upload": "upload", "calm2": "again", "heavy": "heavy"}
FAULT_SESSIONS = 4
LONG_RUN = "/covariance?preset=Paper&R=3&rng={seed}"  # Figure 2's Paper preset, 3 runs
DEFAULT_AUDIT = "/audit?eps={eps}"  # a default-sized audit (the quick lane)
KILL_AFTER_S = 3.0
WATCH_AFTER_KILL_S = 10.0
SENTENCE_WAIT_S = 30.0
NEXT_RUN_WAIT_S = 120.0


class PressTimeout(Exception):
    """A press did not settle within PRESS_TIMEOUT_MS."""


# --------------------------------------------------------------------------- server process


def _children_map() -> dict[int, list[int]]:
    """Every process's children, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    return children


def _descendants(pid: int) -> list[int]:
    children = _children_map()
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def _status_kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def tree_stats(pid: int) -> dict[str, float]:
    """RSS and peak RSS (MB) and CPU seconds of ``pid`` and all its descendants.

    With psutil installed, RSS and CPU come from psutil; the peak (VmHWM) always from /proc.
    CPU includes the children each process of the tree has already reaped (cutime/cstime): a
    heavy job that ended stays counted.
    """
    pids = _descendants(pid)
    hwm = sum(_status_kb(p, "VmHWM") for p in pids) / 1024
    try:
        import psutil

        procs = [psutil.Process(p) for p in pids if psutil.pid_exists(p)]
        rss = sum(p.memory_info().rss for p in procs) / MB
        cpu = 0.0
        for p in procs:
            t = p.cpu_times()
            # children's times too: a heavy job's CPU stays counted once its parent (the fork
            # server) has reaped it
            cpu += t.user + t.system + t.children_user + t.children_system
        return {"rss": rss, "hwm": hwm, "cpu": cpu, "procs": len(procs)}
    except ImportError:
        pass
    tick = os.sysconf("SC_CLK_TCK")
    rss = sum(_status_kb(p, "VmRSS") for p in pids) / 1024
    cpu = 0.0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat", encoding="utf-8", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[11..14] = utime, stime, cutime, cstime (stat fields 14-17)
        cpu += (int(fields[11]) + int(fields[12])) / tick
        cpu += (int(fields[13]) + int(fields[14])) / tick  # reaped children (a finished job)
    return {"rss": rss, "hwm": hwm, "cpu": cpu, "procs": len(pids)}


class CpuMeter:
    """CPU used between start and ``text()``, in cores: the server, this script with its
    browsers (Playwright's driver and Chromium are its descendants), everything else."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid
        self.t0 = time.monotonic()
        self.start = self._sample()

    def _sample(self) -> tuple[float, float, float]:
        with open("/proc/stat", encoding="utf-8") as f:
            vals = [int(x) for x in f.readline().split()[1:9]]
        busy = (sum(vals) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")
        server = tree_stats(self.server_pid)["cpu"]
        ours = tree_stats(os.getpid())["cpu"] - server
        return server, ours, busy

    def text(self) -> str:
        end = self._sample()
        wall = max(1e-9, time.monotonic() - self.t0)
        server, ours, busy = ((b - a) / wall for a, b in zip(self.start, end, strict=True))
        return (
            f"CPU (cores, of {os.cpu_count()}): server {server:.2f}, browsers {ours:.2f}, "
            f"other processes {max(0.0, busy - server - ours):.2f}"
        )


# --------------------------------------------------------------------------- page driving (async)


async def new_tab(browser, viewport):
    context = await browser.new_context(viewport=viewport)
    await context.add_init_script(PROBE_JS)
    return context, await context.new_page()


async def goto_loaded(page, url: str, timeout_ms: int = LOAD_TIMEOUT_MS) -> dict:
    await page.goto(url, wait_until="commit", timeout=timeout_ms)
    handle = await page.wait_for_function(WAIT_LOADED, arg=QUIET_MS, polling=25, timeout=timeout_ms)
    result = await handle.json_value()
    if result.get("exceptions"):
        raise RuntimeError("the page shows an exception")
    return result


async def find_slider(page) -> dict | None:
    info = await page.evaluate(FIND_SLIDER_JS, SLIDER_INPUT)
    if info and info.get("index") == -1:
        await page.evaluate(OPEN_EXPANDER_JS, SLIDER_INPUT)
        await page.wait_for_timeout(500)
        info = await page.evaluate(FIND_SLIDER_JS, SLIDER_INPUT)
        if info and info.get("index") == -1:
            return None
    return info


def thumb(page, info: dict):
    return page.locator(f'[data-testid="stMain"] {SLIDER_INPUT}').nth(info["index"])


async def wait_settled(page, action: bool, timeout_ms: int = PRESS_TIMEOUT_MS) -> dict:
    try:
        handle = await page.wait_for_function(
            WAIT_SETTLED, arg=[QUIET_MS, action], polling=25, timeout=timeout_ms
        )
    except Exception as exc:
        if "Timeout" in type(exc).__name__ or "Timeout" in str(exc):
            try:
                why = (await page.evaluate(WHY_NOT, [QUIET_MS, action])).get("why", "?")
            except Exception:
                why = "?"
            raise PressTimeout(why) from None
        raise
    return await handle.json_value()


async def press(page, info: dict, key: str) -> float:
    """One key press on the page's first slider; ms from the press until settled."""
    handle = thumb(page, info)
    await handle.focus()
    await page.evaluate("el => window.__mipb.arm(el)", await handle.element_handle())
    await page.keyboard.press(key)
    result = await wait_settled(page, action=False)
    if result.get("exceptions"):
        raise RuntimeError("the page shows an exception")
    return float(result["ms"])


async def act_and_settle(page, target, action, timeout_ms: int = 180_000) -> tuple[float, str]:
    """Run ``action()`` (a click, an upload) on the widget ``target`` (a locator); ms until the
    server answered (a change outside that widget, or a rerun begun after the request ended)
    and the page settled; and the first error/warning then shown."""
    await page.evaluate("el => window.__mipb.arm(el)", await target.element_handle())
    t0 = time.monotonic()
    await action()
    try:
        result = await wait_settled(page, action=True, timeout_ms=timeout_ms)
        ms = float(result["ms"])
    except PressTimeout:
        why = await page.evaluate(WHY_NOT, [QUIET_MS, True])
        waited = (time.monotonic() - t0) * 1000
        return waited, f"not settled after {timeout_ms / 1000:.0f} s ({why.get('why')})"
    return ms, await page_message(page)


async def page_message(page) -> str:
    """The first error/warning/exception text in the main area, shortened ('' if none)."""
    text = await page.evaluate(
        """() => { const m = document.querySelector('[data-testid="stMain"]');
                   const e = m && m.querySelector('[data-testid="stException"], [data-testid="stAlertContentError"], [data-testid="stAlertContentWarning"]');
                   return e ? e.innerText : ''; }"""
    )
    return " ".join(text.split())[:90]


class Session:
    """One browser session pressing the first slider of one page."""

    def __init__(self, label: str, page: Page, base_url: str) -> None:
        self.label = label
        self.page_def = page
        self.url = base_url + page.path
        self.context = None
        self.page = None
        self.info: dict | None = None
        self.key = "ArrowRight"
        self.samples: dict[str, list[float]] = {}
        self.error: str | None = None
        self.timeouts: list[str] = []  # why each timed-out press had not settled

    async def open(self, browser, viewport) -> None:
        self.context, self.page = await new_tab(browser, viewport)
        await goto_loaded(self.page, self.url)
        self.info = await find_slider(self.page)
        if self.info is None:
            raise LookupError("no slider on the page")
        _left, right = room(self.info)
        self.key = "ArrowRight" if right >= 1 else "ArrowLeft"

    async def press(self) -> float:
        ms = await press(self.page, self.info, self.key)
        self.key = flip(self.key)
        return ms

    async def close(self) -> None:
        if self.context is not None:
            with contextlib.suppress(Exception):
                await self.context.close()
            self.context = None


async def open_sessions(sessions: list[Session], browser, viewport) -> None:
    gate = asyncio.Semaphore(OPEN_CONCURRENCY)

    async def one(s: Session) -> None:
        async with gate:
            try:
                await s.open(browser, viewport)
                for _ in range(WARMUP_PRESSES):  # fills the page's caches for both values
                    await s.press()
            except Exception as exc:
                s.error = short_error(exc) if not isinstance(exc, LookupError) else str(exc)

    await asyncio.gather(*(one(s) for s in sessions))


async def press_window(
    sessions: list[Session],
    phase: str,
    duration: float,
    think: float,
    server_pid: int,
    trigger=None,
) -> tuple[str | None, str]:
    """Every session presses its slider until ``duration`` s have passed; a timeout counts as
    an infinite time. ``trigger`` (a coroutine function) runs alongside. Returns the trigger's
    result and the CPU use during the window.
    """
    t_end = time.monotonic() + duration
    meter = CpuMeter(server_pid)

    async def loop(s: Session) -> None:
        await asyncio.sleep(random.uniform(0, think))
        out = s.samples.setdefault(phase, [])
        while time.monotonic() < t_end and s.error is None:
            try:
                out.append(await s.press())
            except PressTimeout as why:
                out.append(math.inf)
                s.timeouts.append(f"{phase}: {why}")
            except Exception as exc:
                s.error = short_error(exc)
                break
            await asyncio.sleep(think * random.uniform(0.5, 1.5))

    async def none():
        return None

    results = await asyncio.gather(
        *(loop(s) for s in sessions if s.error is None),
        (trigger or none)(),
        return_exceptions=True,
    )
    cpu = meter.text()
    last = results[-1]
    if isinstance(last, BaseException):
        return short_error(last), cpu
    return last, cpu


# --------------------------------------------------------------------------- hostile actions


async def prepare_upload(browser, base_url: str, viewport):
    """A tab on the wrap page with its file uploader showing; (context, page, file input)."""
    context, page = await new_tab(browser, viewport)
    await goto_loaded(page, base_url + "/" + WRAP_PATH)
    inputs = page.locator(
        '[data-testid="stMain"] [data-testid="stFileUploader"] input[type="file"]'
    )
    if await inputs.count() == 0:
        choice = (
            page.locator('[data-testid="stMain"] [data-testid="stRadio"] label')
            .filter(has_text=re.compile("upload", re.I))
            .first
        )
        if await choice.count() == 0:
            raise LookupError("no file uploader and no 'upload' choice on the wrap page")
        await act_and_settle(page, choice, choice.click, timeout_ms=60_000)
        try:
            await inputs.first.wait_for(state="attached", timeout=60_000)
        except Exception:
            raise LookupError("no file uploader on the wrap page after choosing 'upload'") from None
    return context, page, inputs.first


def upload_trigger(page, file_input):
    async def run() -> str:
        await asyncio.sleep(TRIGGER_AFTER_S)

        async def upload() -> None:
            await file_input.set_input_files(
                files=[{"name": "hostile.csv", "mimeType": "text/csv", "buffer": HOSTILE_CSV}]
            )

        ms, message = await act_and_settle(page, file_input, upload)
        return f"answered in {ms / 1000:.1f} s" + (f": {message}" if message else "")

    return run


async def start_heavy(page, base_url: str) -> str:
    """Open the covariance page, choose its largest allowed setting (a control whose label
    says "largest", else the Paper preset), press its "Run" button; return what was done.
    Raises LookupError if the page offers no run."""
    await goto_loaded(page, base_url + "/" + COVARIANCE_PATH)
    done = []
    clickable = page.locator(
        '[data-testid="stMain"] :is(button, [data-testid="stRadio"] label, '
        '[data-testid="stCheckbox"] label)'
    )
    for pattern in ("largest", "paper"):
        choice = clickable.filter(has_text=re.compile(pattern, re.I)).first
        if await choice.count():
            text = " ".join((await choice.inner_text()).split())
            await act_and_settle(page, choice, choice.click, timeout_ms=60_000)
            done.append(f"chose {text!r}")
            break
    else:
        done.append("no 'largest'/'Paper' control (page defaults)")
    # A button whose own text (without its Material icon's name) starts with "Run"; it may
    # take a while to appear on a busy server.
    try:
        handle = await page.wait_for_function(
            """() => { const i = [...document.querySelectorAll('[data-testid="stMain"] button')]
                 .findIndex((b) => {
                   const c = b.cloneNode(true);
                   c.querySelectorAll('[data-testid="stIconMaterial"]').forEach((x) => x.remove());
                   return c.textContent.trim().startsWith('Run'); });
               return i >= 0 && window.__mipb.appState() === 'notRunning' ? {i} : false; }""",
            polling=100,
            timeout=60_000,
        )
        index = (await handle.json_value())["i"]
    except Exception:
        raise LookupError("; ".join([*done, "no 'Run' button within 60 s"])) from None
    run = page.locator('[data-testid="stMain"] button').nth(index)
    text = await run.evaluate(
        """(b) => { const c = b.cloneNode(true);
                    c.querySelectorAll('[data-testid="stIconMaterial"]').forEach((i) => i.remove());
                    return c.textContent.trim(); }"""
    )
    await page.evaluate("() => window.__mipb.arm(null)")
    await run.click()
    with contextlib.suppress(Exception):  # confirm it started: a rerun or a progress bar
        await page.wait_for_function(
            """() => window.__mipb.appState() === 'running' || window.__mipb.sends.length > 0
                     && document.querySelector('[data-testid="stMain"] [data-testid="stProgress"]')""",
            polling=50,
            timeout=15_000,
        )
    done.append(f"pressed {text!r}")
    return ", ".join(done)


def heavy_trigger(page, base_url: str, t_end: float):
    """Start the heavy run during a window ending at ``t_end`` (monotonic); wait for it no longer."""

    async def run() -> str:
        await asyncio.sleep(TRIGGER_AFTER_S)
        t0 = time.monotonic()
        what = await start_heavy(page, base_url)
        try:
            handle = await page.wait_for_function(
                "() => window.__mipb.appState() === 'notRunning'",
                polling=200,
                timeout=max(1000, (t_end - time.monotonic()) * 1000),
            )
            await handle.json_value()
            return f"{what}; the run ended {time.monotonic() - t0:.0f} s after the start"
        except Exception:
            return f"{what}; still running at the end of the window ({time.monotonic() - t0:.0f} s)"

    return run


# --------------------------------------------------------------------------- reporting


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "-"
    if math.isinf(ms):
        return f">{PRESS_TIMEOUT_MS / 1000:.0f} s"
    return f"{ms:,.0f}"


def ratio_text(a: float | None, b: float | None) -> str:
    if a is None or b is None or b <= 0:
        return "-"
    if math.isinf(a):
        return "inf"
    return f"{a / b:.1f}x"


def pooled(sessions: list[Session], phase: str) -> list[float]:
    return [x for s in sessions for x in s.samples.get(phase, [])]


def print_phase_tables(sessions, alone, phases, n, notes) -> None:
    """phases: [(phase key, title, trigger note)]."""
    used = sorted({s.page_def.name for s in sessions if s.error is None})
    alone_all = [x for name in used for x in alone.get(name, [])]
    base_p95 = quantile(alone_all, 0.95)
    print(
        f"\n{'condition':<34} {'sess':>4} {'presses':>7} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'t/o':>4}  {'p95 ratio':<22} result"
    )
    print(
        f"{'one session alone (same pages)':<34} {1:>4} {len(alone_all):>7} "
        f"{fmt_ms(quantile(alone_all, 0.5)):>7} {fmt_ms(base_p95):>7} "
        f"{sum(math.isinf(x) for x in alone_all):>4}  {'reference':<22} -"
    )
    calm: float | None = None  # p95 of the last window without a hostile session
    for key, title, note in phases:
        xs = pooled(sessions, key)
        p95 = quantile(xs, 0.95)
        if key.startswith("calm"):
            calm = p95
            ratio = f"{ratio_text(p95, base_p95)} vs alone"
            verdict = (
                "-"
                if p95 is None
                else "PASS"
                if p95 <= TARGET_P95_MS
                else f"over {TARGET_P95_MS / 1000:g} s"
            )
            if n != SESSIONS and verdict != "-":
                verdict += f" (target stated for {SESSIONS} sessions)"
        else:
            ratio = f"{ratio_text(p95, calm)} vs row above"
            r = None if p95 is None or not calm else p95 / calm
            verdict = (
                "-"
                if r is None
                else "PASS"
                if r <= TARGET_HOSTILE_RATIO
                else f"over {TARGET_HOSTILE_RATIO:g}x"
            )
            if note.startswith("error:"):
                verdict = "not triggered (see below)"
        print(
            f"{title:<34} {n:>4} {len(xs):>7} {fmt_ms(quantile(xs, 0.5)):>7} {fmt_ms(p95):>7} "
            f"{sum(math.isinf(x) for x in xs):>4}  {ratio:<22} {verdict}"
        )
    for _key, title, note in phases:
        if note:
            print(f"  {title}: {note}")
    # Per page
    print(
        f"\n{'page':<18} {'sess':>4} {'alone p50':>9} {'alone p95':>9} "
        + " ".join(f"{PHASE_SHORT.get(k, k)[:6] + ' p95':>10}" for k, _, _ in phases)
    )
    for name in used:
        on = [s for s in sessions if s.page_def.name == name and s.error is None]
        xs = alone.get(name, [])
        cells = []
        for key, _, _ in phases:
            cells.append(f"{fmt_ms(quantile(pooled(on, key), 0.95)):>10}")
        print(
            f"{name:<18} {len(on):>4} {fmt_ms(quantile(xs, 0.5)):>9} {fmt_ms(quantile(xs, 0.95)):>9} "
            + " ".join(cells)
        )
    for s in sessions:
        if s.error:
            print(f"  note: session {s.label} ({s.page_def.name}): {s.error}")
        if s.timeouts:
            print(
                f"  note: session {s.label} ({s.page_def.name}): {len(s.timeouts)} press(es) not settled "
                f"within {PRESS_TIMEOUT_MS / 1000:.0f} s, waiting for: " + "; ".join(s.timeouts[:3])
            )
    print(
        f"Targets: {SESSIONS} sessions p95 <= {TARGET_P95_MS / 1000:g} s; the hostile upload or "
        f"the heavy run raises the others' p95 by at most {TARGET_HOSTILE_RATIO:g}x (against the "
        f"window without it just before). "
        f"t/o = presses not settled within {PRESS_TIMEOUT_MS / 1000:.0f} s (counted as infinite)."
    )


# --------------------------------------------------------------------------- memory


def _decimals(x: float) -> int:
    text = repr(float(x))
    if "e" in text:
        return max(0, -int(text.split("e")[1]))
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def link_values(info: dict, current: str, count: int) -> list[str]:
    """Up to ``count`` distinct valid values for the slider, formatted for the URL.

    ``current`` is the slider's value as the page wrote it into the URL; for a range slider
    ("lo,hi") the first thumb moves and the other parts are kept.
    """
    lo, hi = float(info["min"]), float(info["max"])
    step = float(info["step"] or 1.0)
    parts = current.split(",")
    is_int = step.is_integer() and lo.is_integer() and all("." not in p for p in parts)
    dec = max(_decimals(step), _decimals(lo))
    n_steps = round((hi - lo) / step)
    if len(parts) > 1:
        with contextlib.suppress(ValueError):
            n_steps = min(n_steps, math.floor((float(parts[1]) - lo) / step) - 1)
    idx = (
        range(n_steps + 1)
        if n_steps + 1 <= count
        else sorted({round(i * n_steps / (count - 1)) for i in range(count)})
    )
    out = []
    for k in idx:
        v = lo + k * step
        text = str(round(v)) if is_int else f"{v:.{dec}f}"
        out.append(",".join([text, *parts[1:]]))
    return list(dict.fromkeys(out))[:count]


VISIBLE_SLIDERS_JS = """(sel) => [...document.querySelectorAll('[data-testid="stMain"] ' + sel)]
  .map((el, i) => {
    const s = el.closest('[data-testid="stSlider"]');
    const num = (v) => (v === null || v === '' ? null : Number(v));
    return {index: i, value: String(el.value), min: num(el.getAttribute('min')),
            max: num(el.getAttribute('max')), step: num(el.getAttribute('step')),
            visible: s.checkVisibility ? s.checkVisibility({checkVisibilityCSS: true}) : true};
  }).filter((x) => x.visible)"""


async def url_key_of(page, info: dict) -> tuple[str, str] | None:
    """(key, value) of the URL parameter a slider writes, found by moving it once."""
    before = dict(parse_qsl(urlsplit(page.url).query))
    key = "ArrowRight" if room(info)[1] >= 1 else "ArrowLeft"
    await press(page, info, key)
    for _ in range(20):
        after = dict(parse_qsl(urlsplit(page.url).query))
        changed = [k for k, v in after.items() if before.get(k) != v]
        if changed:
            return changed[0], after[changed[0]]
        await asyncio.sleep(0.1)
    return None


async def link_axes(page, links: int) -> list[tuple[str, list[str]]]:
    """URL keys and valid values of the page's first sliders: the first slider alone when it
    has ``links`` distinct values, else the next sliders too (at most 3), until their
    combinations give ``links`` distinct links."""
    if await find_slider(page) is None:  # also opens a collapsed expander holding a slider
        return []
    axes: list[tuple[str, list[str]]] = []
    combos = 1
    for k in range(3):
        sliders = await page.evaluate(VISIBLE_SLIDERS_JS, SLIDER_INPUT)
        if k >= len(sliders):
            break
        found = await url_key_of(page, sliders[k])
        if found is None or found[0] in {key for key, _ in axes}:
            continue
        values = link_values(sliders[k], found[1], links)
        axes.append((found[0], values))
        combos *= len(values)
        if combos >= links:
            break
    return axes


def link_queries(axes: list[tuple[str, list[str]]], links: int) -> list[str]:
    """Up to ``links`` distinct query strings over the axes (the first varies fastest)."""
    total = math.prod(len(v) for _, v in axes)
    out = []
    for i in range(min(links, total)):
        params, rest = {}, i
        for key, values in axes:
            params[key] = values[rest % len(values)]
            rest //= len(values)
        out.append(urlencode(params))
    return out


async def visit_in_browser(page, url: str, query: str, page_name: str) -> None:
    """Open the link in the tab (a new session) and wait until its script has finished."""
    await page.goto(f"{url}?{query}", wait_until="commit")
    handle = await page.wait_for_function(
        "q => window.__mipb && window.__mipb.appState() === 'notRunning'"
        " && performance.now() - window.__mipb.lastMut >= q",
        arg=LINK_QUIET_MS,
        polling=25,
        timeout=LOAD_TIMEOUT_MS,
    )
    await handle.json_value()


async def visit_over_websocket(server_url: str, query: str, page_name: str) -> None:
    """What a browser opening the link does on the wire: a new session (websocket) whose first
    message asks for a run of ``page_name`` with ``query``; returns when the run has finished.

    Far cheaper for the client than loading the page in Chromium, so that many links fit in a
    few minutes on a small machine; the server does the same work as for a browser.
    """
    import websockets  # a dependency of Streamlit's server
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    ws_url = server_url.replace("http://", "ws://", 1) + "/_stcore/stream"
    async with websockets.connect(
        ws_url, subprotocols=["streamlit"], open_timeout=30, max_size=None
    ) as ws:
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page_name
        msg.rerun_script.widget_states.SetInParent()
        info = msg.rerun_script.context_info
        info.timezone, info.locale = "UTC", "en-US"
        info.url = f"{server_url}/{page_name}"
        await ws.send(msg.SerializeToString())
        deadline = time.monotonic() + LOAD_TIMEOUT_MS / 1000
        while True:
            data = await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic()))
            fwd = ForwardMsg.FromString(data)
            if (
                fwd.WhichOneof("type") == "script_finished"
                and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
            ):
                return


async def memory_phase(
    browser,
    server: Server,
    pages: list[Page],
    links: int,
    viewport,
    in_browser: bool,
    budget: float,
) -> None:
    start = tree_stats(server.pid)
    how = "opened in Chromium" if in_browser else "replayed as a new websocket session"
    print(
        f"\n5. Memory: {links} distinct links per slider page (its first slider at {links} "
        f"values, or with its next sliders where it has fewer), each link {how}; a fresh "
        f"server, RSS summed over its process tree, {start['rss']:.0f} MB at start."
        + (f" Time budget {budget:.0f} s in all, shared by the pages." if budget > 0 else "")
    )
    print(
        f"{'page':<18} {'URL keys':<14} {'links':>5} {'s/link':>6}  "
        f"RSS MB after every {LINK_SAMPLE_EVERY} links"
    )
    deadline = time.monotonic() + budget if budget > 0 else math.inf
    context, page = await new_tab(browser, viewport)
    try:
        for n_page, p in enumerate(pages):
            url = server.url + p.path
            try:
                await goto_loaded(page, url)
                axes = await link_axes(page, links)
                if not axes:
                    print(f"{p.name:<18} {'-':<14} {0:>5} {'-':>6}  no slider bound to the URL")
                    continue
                keys = ",".join(key for key, _ in axes)
                queries = link_queries(axes, links)
                share = (deadline - time.monotonic()) / (len(pages) - n_page)
                page_end = time.monotonic() + max(MEMORY_MIN_PAGE_S, share)
                samples, done, fallback = [], 0, ""
                t0 = time.monotonic()
                for first in range(0, len(queries), LINK_SAMPLE_EVERY):
                    batch = queries[first : first + LINK_SAMPLE_EVERY]
                    failed: list[str] = []
                    if not in_browser:
                        gate = asyncio.Semaphore(LINK_CONCURRENCY)

                        async def visit(
                            query: str, gate=gate, name=p.url_path, failed=failed, end=page_end
                        ):
                            async with gate:
                                if time.monotonic() > end:
                                    return 0
                                try:
                                    await visit_over_websocket(server.url, query, name)
                                    return 1
                                except Exception as exc:
                                    failed.append(query)
                                    return short_error(exc)

                        results = await asyncio.gather(*(visit(q) for q in batch))
                        done += sum(r for r in results if isinstance(r, int))
                        if failed:  # e.g. another Streamlit protocol: use Chromium from here on
                            in_browser = True
                            why = next(r for r in results if isinstance(r, str))
                            fallback = f" (websocket replay failed: {why}; Chromium from then on)"
                            batch = failed
                    if in_browser:
                        for query in batch:
                            if time.monotonic() > page_end:
                                break
                            await visit_in_browser(page, url, query, p.url_path)
                            done += 1
                    samples.append(f"{tree_stats(server.pid)['rss']:.0f}")
                    if time.monotonic() > page_end:
                        break
                note = ""
                if done < len(queries):
                    note = f" (stopped at {done}: time budget)"
                elif len(queries) < links:
                    note = f" (only {len(queries)} valid combinations)"
                per = (time.monotonic() - t0) / max(1, done)
                print(
                    f"{p.name:<18} {keys:<14} {done:>5} {per:>6.2f}  "
                    f"{' '.join(samples)}{note}{fallback}"
                )
            except Exception as exc:
                print(f"{p.name:<18} {'-':<14} {'-':>5} {'-':>6}  {short_error(exc)}")
    finally:
        await context.close()
    end = tree_stats(server.pid)
    verdict = "PASS" if end["hwm"] <= TARGET_RSS_MB else f"over {TARGET_RSS_MB / 1024:g} GB"
    print(
        f"server RSS now {end['rss']:.0f} MB, peak {end['hwm']:.0f} MB "
        f"({end['procs']} process(es)); target peak <= {TARGET_RSS_MB / 1024:g} GB: {verdict}"
    )


async def heavy_closed_phase(browser, server: Server, viewport) -> None:
    # "Before" is the server with the covariance page open (its libraries imported: a server's
    # footprint once any page is open), 5 s after it settled, not a server that never ran it.
    context, page = await new_tab(browser, viewport)
    try:
        await goto_loaded(page, server.url + "/" + COVARIANCE_PATH)
    except Exception as exc:
        await context.close()
        print(f"\n6. Heavy run, tab closed: could not open the page: {short_error(exc)}")
        return
    await asyncio.sleep(5)
    before = tree_stats(server.pid)
    print(
        f"\n6. Heavy run, tab closed: server with the page open, before the run: "
        f"RSS {before['rss']:.0f} MB, CPU {before['cpu']:.1f} s."
    )
    try:
        what = await start_heavy(page, server.url)
    except Exception as exc:
        await context.close()
        print(f"  could not start a heavy run: {short_error(exc)}")
        return
    await asyncio.sleep(HEAVY_CLOSE_AFTER_S)
    await context.close()
    print(f"  {what}; tab closed {HEAVY_CLOSE_AFTER_S:.0f} s later.")
    t_close = time.monotonic()
    prev = tree_stats(server.pid)
    print(f"{'s after close':>13} {'CPU s in 5 s':>12} {'RSS MB':>7}")
    print(f"{0:>13} {'-':>12} {prev['rss']:>7.0f}")
    last_busy = None
    total_cpu = 0.0
    k = 1
    while k * HEAVY_SAMPLE_S <= HEAVY_WATCH_S:
        await asyncio.sleep(max(0.0, t_close + k * HEAVY_SAMPLE_S - time.monotonic()))
        now = tree_stats(server.pid)
        used = now["cpu"] - prev["cpu"]
        total_cpu += used
        if used > CPU_BUSY_S:
            last_busy = k * HEAVY_SAMPLE_S
        print(f"{k * HEAVY_SAMPLE_S:>13.0f} {used:>12.1f} {now['rss']:>7.0f}")
        prev = now
        k += 1
    delta = prev["rss"] - before["rss"]
    if last_busy is None:
        kept = f"no ({total_cpu:.1f} CPU s in {HEAVY_WATCH_S:.0f} s)"
    elif last_busy <= HEAVY_SAMPLE_S:
        kept = f"stopped within {HEAVY_SAMPLE_S:.0f} s ({total_cpu:.1f} CPU s after the close)"
    else:
        kept = f"yes, busy until ~{last_busy:.0f} s after the close ({total_cpu:.1f} CPU s)" + (
            " and still computing at the end" if last_busy >= HEAVY_WATCH_S else ""
        )
    verdict = "PASS" if abs(delta) <= TARGET_RSS_BACK_MB else f"over {TARGET_RSS_BACK_MB:g} MB"
    print(f"  kept computing after the tab closed? {kept}")
    print(
        f"  RSS {HEAVY_WATCH_S:.0f} s after the close: {prev['rss']:.0f} MB, {delta:+.0f} MB vs before "
        f"the run; target within {TARGET_RSS_BACK_MB:g} MB: {verdict}"
    )


# --------------------------------------------------------------------------- faults and fairness


def job_pids(server_pid: int) -> list[int]:
    """The heavy jobs' processes: the children of the server's fork server."""
    children = _children_map()
    out = []
    for child in children.get(server_pid, []):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"forkserver" in f.read():
                    out += children.get(child, [])
        except OSError:
            continue
    return out


async def start_long_run(page, base_url: str, seed: int) -> None:
    """Open Figure 2 with the long setting and press its Run button."""
    await goto_loaded(page, base_url + LONG_RUN.format(seed=seed))
    run = page.locator("[data-testid='stMain'] button:has-text('Run (')").first
    await run.wait_for(timeout=60_000)
    await run.click()


async def wait_progress(page, timeout_s: float) -> float | None:
    """Seconds until the page shows a progress bar (a job running), or None."""
    t0 = time.monotonic()
    try:
        await page.locator('[data-testid="stMain"] [data-testid="stProgress"]').first.wait_for(
            timeout=timeout_s * 1000
        )
    except Exception:
        return None
    return time.monotonic() - t0


async def time_to_finished(browser, viewport, url: str, timeout_s: float = 180.0) -> float | None:
    """A new visitor opens ``url``: seconds until the page's charts are drawn, no job shows and
    the script is idle (None: not within ``timeout_s``)."""
    context, page = await new_tab(browser, viewport)
    t0 = time.monotonic()
    try:
        await page.goto(url, wait_until="commit")
        await page.wait_for_function(
            """() => { const m = document.querySelector('[data-testid="stMain"]');
                 const c = m ? [...m.querySelectorAll('[data-testid="stVegaLiteChart"]')] : [];
                 return c.length > 0 && c.every(x => x.querySelector('svg.marks, canvas.marks'))
                   && !m.querySelector('[data-testid="stProgress"], [data-testid="stSkeleton"]')
                   && window.__mipb.appState() === 'notRunning'; }""",
            polling=50,
            timeout=timeout_s * 1000,
        )
        return time.monotonic() - t0
    except Exception:
        return None
    finally:
        await context.close()


def process_cpu(pid: int) -> float:
    """CPU seconds of the process ``pid`` itself (its threads: the sessions' script runs)."""
    with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fmt_s(x: float | None, limit: float) -> str:
    return f"{x:.1f} s" if x is not None else f"none within {limit:.0f} s"


async def fault_phases(browser, root, pages, args, viewport) -> None:
    with Server(root, "app.py") as server:
        slider_pages = [p for p in pages if p.path not in ("/covariance",)]
        n = args.fault_sessions
        sessions = [
            Session(f"#{i + 1}", slider_pages[i % len(slider_pages)], server.url) for i in range(n)
        ]
        await open_sessions(sessions, browser, viewport)
        live = [s for s in sessions if s.error is None]
        print(f"\n7-8. Faults and fairness: {len(live)} sessions pressing sliders.")
        # warm the audit page and the fork server, then time a default-sized audit alone
        await time_to_finished(browser, viewport, server.url + DEFAULT_AUDIT.format(eps=1.5))
        audit_alone = await time_to_finished(
            browser, viewport, server.url + DEFAULT_AUDIT.format(eps=1.1)
        )

        # 7. the fair line
        _, cpu_calm = await press_window(live, "f_calm", args.duration, args.think, server.pid)
        student, tab0 = await new_tab(browser, viewport)
        tabs = [tab0, *[await student.new_page() for _ in range(2)]]
        audit_during: list[float | None] = []

        async def student_and_audit() -> str:
            await asyncio.sleep(TRIGGER_AFTER_S)
            await asyncio.gather(
                *(start_long_run(t, server.url, seed) for seed, t in enumerate(tabs, start=1))
            )
            started = await wait_progress(tab0, 60)
            audit_during.append(
                await time_to_finished(
                    browser, viewport, server.url + DEFAULT_AUDIT.format(eps=1.2)
                )
            )
            return f"the student's runs started (first progress after {fmt_s(started, 60)})"

        note, cpu_fair = await press_window(
            live, "f_fair", args.duration, args.think, server.pid, student_and_audit
        )
        await student.close()  # stops the student's runs
        calm, fair = pooled(live, "f_calm"), pooled(live, "f_fair")
        during = audit_during[0] if audit_during else None
        print("\n7. Fair line: one student starts three long Figure 2 runs from three tabs")
        print(f"   {note}")
        print(
            f"   others' presses alone:        p50 {fmt_ms(quantile(calm, 0.5)):>6} ms  "
            f"p95 {fmt_ms(quantile(calm, 0.95)):>6} ms  ({len(calm)} presses; {cpu_calm})"
        )
        print(
            f"   others' presses beside them:  p50 {fmt_ms(quantile(fair, 0.5)):>6} ms  "
            f"p95 {fmt_ms(quantile(fair, 0.95)):>6} ms  ({len(fair)} presses; {cpu_fair}); "
            f"p95 ratio {ratio_text(quantile(fair, 0.95), quantile(calm, 0.95))}"
        )
        print(
            f"   a default-sized audit, another visitor: alone {fmt_s(audit_alone, 180)}, beside "
            f"the student's runs {fmt_s(during, 180)}"
            + (
                f" ({during / audit_alone:.1f}x; target <= 2x)"
                if during is not None and audit_alone
                else ""
            )
        )

        # 8. a killed job
        _, cpu_calm2 = await press_window(live, "k_calm", args.duration, args.think, server.pid)
        victim, vpage = await new_tab(browser, viewport)
        facts: dict[str, str] = {}

        async def kill_and_retry() -> str:
            await asyncio.sleep(TRIGGER_AFTER_S)
            await start_long_run(vpage, server.url, 9)
            if await wait_progress(vpage, 60) is None:
                return "the run never started"
            await asyncio.sleep(KILL_AFTER_S)
            jobs = job_pids(server.pid)
            if not jobs:
                return "no job process found to kill"
            for pid in jobs:
                os.kill(pid, signal.SIGKILL)
            t_kill = time.monotonic()
            cpu0 = process_cpu(server.pid)
            try:
                await vpage.locator(
                    '[data-testid="stMain"] [data-testid="stAlertContentError"]'
                ).first.wait_for(timeout=SENTENCE_WAIT_S * 1000)
                sentence = time.monotonic() - t_kill
                text = await page_message(vpage)
            except Exception:
                sentence, text = None, ""
            facts["sentence"] = fmt_s(sentence, SENTENCE_WAIT_S) + (f": {text}" if text else "")
            await asyncio.sleep(max(0.0, t_kill + WATCH_AFTER_KILL_S - time.monotonic()))
            watched = time.monotonic() - t_kill
            idle = (process_cpu(server.pid) - cpu0) / watched
            facts["cpu"] = (
                f"the server process used {idle:.2f} CPU-s per s in the {watched:.0f} s after "
                f"the kill, with the other sessions pressing "
                f"({len(job_pids(server.pid))} job processes alive)"
            )
            other, opage = await new_tab(browser, viewport)
            try:
                t0 = time.monotonic()
                await start_long_run(opage, server.url, 9)
                # started: a job process exists (a progress bar alone may be a dead run's)
                started = None
                while time.monotonic() - t0 < NEXT_RUN_WAIT_S:
                    if job_pids(server.pid):
                        started = time.monotonic() - t0
                        break
                    await asyncio.sleep(0.05)
                facts["next_start"] = fmt_s(started, NEXT_RUN_WAIT_S)
                done = None
                if started is not None:
                    with contextlib.suppress(Exception):
                        await opage.wait_for_function(
                            """() => !document.querySelector('[data-testid="stMain"] [data-testid="stProgress"]')
                                     && window.__mipb.appState() === 'notRunning'""",
                            polling=100,
                            timeout=NEXT_RUN_WAIT_S * 1000,
                        )
                        done = time.monotonic() - t0
                message = await page_message(opage)
                facts["next_done"] = fmt_s(done, NEXT_RUN_WAIT_S) + (
                    f" ({message})" if message else ""
                )
            finally:
                await other.close()
            return "killed"

        duration = max(args.duration, KILL_AFTER_S + WATCH_AFTER_KILL_S + 30.0)
        note, cpu_kill = await press_window(
            live, "k_kill", duration, args.think, server.pid, kill_and_retry
        )
        await victim.close()
        calm2, kill = pooled(live, "k_calm"), pooled(live, "k_kill")
        print("\n8. Killed job: kill -9 of a running Figure 2 run's process, 3 s in")
        print(f"   {note}")
        print(f"   its page showed a sentence after: {facts.get('sentence', '-')}")
        print(f"   the server afterwards: {facts.get('cpu', '-')}")
        print(
            f"   another visitor's run of the same settings (from its page's load): its process "
            f"started after "
            f"{facts.get('next_start', '-')}, finished after {facts.get('next_done', '-')}"
        )
        print(
            f"   others' presses alone:        p95 {fmt_ms(quantile(calm2, 0.95)):>6} ms  ({cpu_calm2})"
        )
        print(
            f"   others' presses around it:    p95 {fmt_ms(quantile(kill, 0.95)):>6} ms  "
            f"({cpu_kill}); ratio {ratio_text(quantile(kill, 0.95), quantile(calm2, 0.95))}"
        )
        for s in sessions:
            await s.close()


# --------------------------------------------------------------------------- main


async def recovery(server: Server, limit_s: float = 120.0) -> str:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        if await asyncio.to_thread(health, server.url, 2.0) == "ok":
            return f"server answered /_stcore/health {time.monotonic() - t0:.1f} s after the window"
        await asyncio.sleep(0.5)
    return f"server did not answer /_stcore/health within {limit_s:.0f} s of the window's end"


async def classroom_phases(browser, root, pages, args, viewport, notes) -> None:
    with Server(root, "app.py") as server:
        # 1. alone
        print(f"\n1. One session alone ({ALONE_PRESSES} presses after {WARMUP_PRESSES} warm-up):")
        alone: dict[str, list[float]] = {}
        slider_pages: list[Page] = []
        for p in pages:
            s = Session("alone", p, server.url)
            try:
                await s.open(browser, viewport)
                for _ in range(WARMUP_PRESSES):
                    await s.press()
                xs = []
                for _ in range(ALONE_PRESSES):
                    try:
                        xs.append(await s.press())
                    except PressTimeout:
                        xs.append(math.inf)
                    await asyncio.sleep(0.2)
                alone[p.name] = xs
                slider_pages.append(p)
                print(
                    f"   {p.name:<18} p50 {fmt_ms(quantile(xs, 0.5)):>6} ms  "
                    f"p95 {fmt_ms(quantile(xs, 0.95)):>6} ms  ({s.info.get('label', '')!r})"
                )
            except LookupError as exc:
                print(f"   {p.name:<18} {exc}")
            except Exception as exc:
                print(f"   {p.name:<18} {short_error(exc)}")
            finally:
                await s.close()
        if not slider_pages:
            print("no page with a slider could be measured; no classroom phases.")
            return
        # 2-4. classroom
        n = args.sessions
        sessions = [
            Session(f"#{i + 1}", slider_pages[i % len(slider_pages)], server.url) for i in range(n)
        ]
        print(
            f"\n2-4. {n} sessions on {min(n, len(slider_pages))} slider pages, "
            f"{args.duration:.0f} s per condition, think time ~{args.think:g} s; opening them…"
        )
        t0 = time.monotonic()
        await open_sessions(sessions, browser, viewport)
        live = [s for s in sessions if s.error is None]
        print(f"   {len(live)} of {n} sessions ready in {time.monotonic() - t0:.0f} s.")
        phases: list[tuple[str, str, str]] = []
        _, cpu = await press_window(live, "calm", args.duration, args.think, server.pid)
        phases.append(("calm", f"{n} sessions", cpu))

        # (a) the hostile upload
        try:
            ctx, page, file_input = await prepare_upload(browser, server.url, viewport)
            try:
                result, cpu = await press_window(
                    live,
                    "upload",
                    args.duration,
                    args.think,
                    server.pid,
                    upload_trigger(page, file_input),
                )
                note = (
                    f"upload of {len(HOSTILE_CSV):,} bytes {result}; {await recovery(server)}; "
                    + cpu
                )
                if result and result.startswith("error:"):
                    note = f"{result}; {cpu}"
            finally:
                await ctx.close()
            phases.append(("upload", f"{n} sessions + hostile upload", note))
        except Exception as exc:
            phases.append(("upload", f"{n} sessions + hostile upload", short_error(exc)))

        # (b) the heavy run
        if args.skip_heavy:
            notes.append("heavy run skipped (--skip-heavy)")
        else:
            # A window without a hostile session right before it, so that the ratio compares
            # windows measured under the same machine load.
            _, cpu = await press_window(live, "calm2", args.duration, args.think, server.pid)
            phases.append(("calm2", f"{n} sessions (again)", cpu))
            ctx, page = await new_tab(browser, viewport)
            try:
                t_end = time.monotonic() + args.duration
                result, cpu = await press_window(
                    live,
                    "heavy",
                    args.duration,
                    args.think,
                    server.pid,
                    heavy_trigger(page, server.url, t_end),
                )
                phases.append(("heavy", f"{n} sessions + heavy run", f"{result}; {cpu}"))
            finally:
                await ctx.close()
        for s in sessions:
            await s.close()
        print_phase_tables(sessions, alone, phases, n, notes)
    return slider_pages


async def run(args) -> None:
    from playwright.async_api import async_playwright

    root = args.root.resolve()
    viewport = parse_viewport(args.viewport)
    pages, source = discover_pages(root)
    pages = select_pages(pages, args.pages)
    import streamlit

    print(
        f"MIP Explorer load benchmark: {root} (pages from {source}); streamlit "
        f"{streamlit.__version__}; {os.cpu_count()} CPUs; one Chromium ({CHROMIUM}), a context "
        f"per session."
    )
    notes: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            if args.faults_only:
                await fault_phases(browser, root, pages, args, viewport)
                return
            slider_pages = None
            try:
                slider_pages = await classroom_phases(browser, root, pages, args, viewport, notes)
            except Exception as exc:  # report, go on with the next phases
                print(f"classroom phases aborted: {short_error(exc)}")
            if not (args.skip_memory and args.skip_heavy):
                with Server(root, "app.py") as server:
                    if args.skip_memory:
                        notes.append("memory skipped (--skip-memory)")
                    else:
                        await memory_phase(
                            browser,
                            server,
                            slider_pages or pages,
                            args.links,
                            viewport,
                            args.links_in_browser,
                            args.memory_budget,
                        )
                    if not args.skip_heavy:
                        await heavy_closed_phase(browser, server, viewport)
            if not args.skip_faults:
                try:
                    await fault_phases(browser, root, pages, args, viewport)
                except Exception as exc:
                    print(f"fault phases aborted: {short_error(exc)}")
        finally:
            await browser.close()
    for note in notes:
        print(f"  note: {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="app checkout to serve")
    parser.add_argument("--pages", help="comma-separated url paths (home = 'home' or '')")
    parser.add_argument("--sessions", type=int, default=SESSIONS, help="concurrent sessions")
    parser.add_argument(
        "--classroom", action="store_true", help=f"{CLASSROOM} sessions (overrides --sessions)"
    )
    parser.add_argument("--duration", type=float, default=DURATION_S, help="s per condition")
    parser.add_argument("--think", type=float, default=THINK_S, help="s between presses (mean)")
    parser.add_argument("--links", type=int, default=LINKS, help="distinct links per page")
    parser.add_argument(
        "--links-in-browser",
        action="store_true",
        help="open every memory-phase link in Chromium (slow) instead of replaying it over a websocket",
    )
    parser.add_argument(
        "--memory-budget",
        type=float,
        default=MEMORY_BUDGET_S,
        help="s for the memory phase's links in all (0: no limit, every page gets all its links)",
    )
    parser.add_argument("--skip-memory", action="store_true", help="skip the memory phase")
    parser.add_argument("--skip-heavy", action="store_true", help="skip both heavy-run phases")
    parser.add_argument("--viewport", default="1024x768", help="WIDTHxHEIGHT")
    parser.add_argument(
        "--faults-only", action="store_true", help="run only the fair-line and killed-job phases"
    )
    parser.add_argument("--skip-faults", action="store_true", help="skip those two phases")
    parser.add_argument(
        "--fault-sessions",
        type=int,
        default=FAULT_SESSIONS,
        help="sessions pressing sliders during them",
    )
    args = parser.parse_args()
    if args.classroom:
        args.sessions = CLASSROOM
    exit_on_sigterm()
    sys.stdout.reconfigure(line_buffering=True)  # phases print as they finish
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("playwright is not installed (requirements-dev.txt); nothing measured.")
        return 0
    if not os.access(CHROMIUM, os.X_OK):
        print(f"no Chromium at {CHROMIUM}; nothing measured.")
        return 0
    random.seed(0)
    t0 = time.monotonic()
    try:
        asyncio.run(run(args))
    except KeyboardInterrupt:
        print("interrupted; servers stopped.")
    except Exception as exc:
        print(f"benchmark aborted: {short_error(exc)}")
    print(
        f"\nRun time {time.monotonic() - t0:.0f} s. Absolute times depend on the machine's load: "
        "compare ratios taken in one run."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
