"""Server capacity, measured at the server: simulated sessions that speak Streamlit's websocket
protocol and draw nothing.

``load.py`` drives real Chromium renderers on the same cores as the server, so its p95 mostly
measures the browsers' drawing; a phone in a classroom draws on its own processor. Here every
session is a small protocol client in this process (asyncio, one websocket each) that does on
the wire what a browser tab does -- fetches the page and ``/_stcore/health`` (the XSRF cookie),
opens ``/_stcore/stream`` with the ``streamlit`` subprotocol, asks for a run of its page, keeps
every widget's value, the query string and the message cache the server refers to, and sends
``rerun_script`` with the state of *all* the page's widgets when it moves a control (a button
is a trigger value; a widget inside a fragment reruns that fragment, as the frontend asks) --
but never draws anything. Phases:

1. **sessions** (``--sessions``, default 10, 30, 60, 100, 200): a fresh server
   (``instrumented_server.py --run-times``, so each script run's wall time is known); N sessions
   open their page (staggered, a few at a time), spread over a mix of pages; once all are open
   each moves a control every ``--think`` s (2 s, from a random phase): the home page's ε
   slider, the ε slider of "What does ε mean?", the η range of the noise-vs-η page, the risk
   calculator's ε, and the game (In or Out on the round shown, found by the keys' prefixes
   ``play_in``/``play_out``; "New game" when a game is over). Sliders move a few steps at a time
   (a random walk), so new values keep arriving as when people drag them. A session whose last
   change has not finished yet changes again as soon as it has (it never has two in flight).
   After ``--warmup`` s (discarded), ``--duration`` s are measured: p50/p95/p99 of the time
   from the widget message to the end of its rerun (the ``script_finished`` message), the
   script runs' own wall time in the same window (from the server's run log: the rest is
   waiting for the GIL and the event loop), the server's CPU in cores (``/proc/<pid>/stat``
   utime + stime of the server and every descendant -- the heavy jobs' fork server and its
   jobs --, with the children already reaped), the RSS of that process tree (sampled every
   second, the peak), this client's own CPU and event-loop lag, and everything else on the
   machine, and the server's CPU per change answered. Target: **p95 <= 250 ms**; the largest N
   that meets it is printed.
2. **class mode** (a fresh server): a teacher opens ``/play_attacker?rounds=200``, presses
   "Start a class" in the sidebar and keeps the page open: its dashboard is an
   ``st.fragment(run_every=2)``, whose reruns the client asks for (as the frontend's timer does)
   and times. ``--players`` (60) join at ``/play_attacker?class=<code>`` (nickname, "Join") and
   each answers a round every ``--answer-every`` s (1 s). Printed: answer -> end of rerun
   p50/p95/p99, the dashboard's reruns (count, p50/p95), CPU and RSS as above, and the number of
   guesses the dashboard shows once the players stop, beside the answers accepted.
3. **storage** (no server; ``appkit.classroom`` directly, the same database kind as the
   server: SQLite in WAL mode in a temporary ``MIP_EXPLORER_DATA_DIR`` unless
   ``--database-url``): 60 players in threads, each storing a guess once a second while the
   teacher's dashboard reads the class every 2 s: p99 of a stored guess (target **<= 50 ms**);
   then a class of 60 players x 200 rounds, all answered, and what one refresh of the teacher's
   dashboard reads and computes (``_dashboard`` in ``app_pages/play_attacker.py``): while the
   class is open ``Store.results`` (it shows two counts), once closed the class picture too
   (``score_class``, the luck lessons -- cached by the page after the first refresh --, the
   scores chart). Target: **<= 300 ms**.

**The bare page beside every phase** (unless ``--skip-bare``): the same N sessions at the same
pace on a bare one-slider page (``benchmarks/floor/app.py``, its page ``bare``: the slider and
its line of text inside a navigation, as the app's pages are), served in this run with the same
server settings (from the repository's root, so ``.streamlit/config.toml`` and every
``--server-config`` hold for it too) and the same topology. Printed for each phase: the app's
p95 and CPU per change beside the bare page's, and the ratios. Target: the app's CPU per change
**<= 3x** the bare page's. (With Streamlit's default ``runner.postScriptGC`` the bare page's
CPU per change is mostly the full garbage collection after each run over its own heap; the app
freezes its imports' objects, ``appkit.heap``. ``--server-config runner.postScriptGC=false``
shows both without it.)

**``--proxy``**: every phase on two app processes behind Debian's nginx running
``deploy/nginx.conf`` (its ports and paths replaced, as ``tests/test_proxy.py`` runs it), on
one PostgreSQL: ``--database-url``, else a throw-away cluster started as ``.ci/postgres`` does
(durability off). The sessions connect through nginx from 127.0.0.1, as a class behind one
school address does, each with its own cookies as a browser keeps them: nginx gives each new
session its route cookie and sends it to a process by that (about half to each, at random). The
CPU and RSS are both processes' trees together, with each process's share, its script runs and
nginx's CPU printed too.

**``--soak MINUTES``** (instead of the phases above): N sessions (``--sessions``, one value,
default 60) for that long, the app's RSS sampled every 10 s, printed minute by minute (mean,
max, the changes answered, their p95 and the app's CPU per change) with the last minute's mean
against the first's. Target: **<= +50 MB**. Then the bare page's phase at that N
(``--duration`` s) for the ratios.

Controls that start heavy jobs (a covariance run, an audit, a DP-SGD conversion: seconds in a
process of their own, queued fairly by ``appkit.jobs``) are not in the mix: that line is
measured by ``load.py``, not the server's capacity. The noise-vs-η page hands its curves to
``appkit.jobs`` too, but its η range reuses the curves of the default n, M and C (one job per
server, during the ramp): moving it computes in the server process.

A run with any error (an exception element in a rerun, a rerun that does not finish within
30 s, a lost connection, a refused class answer) is flagged as not a valid measurement. All
sessions live in this one process, which uses CPU too (parsing every message): its cores are
printed beside the server's so a reader can see whether the client kept up (if it saturates a
core, the output says so). Absolute figures depend on the machine and on what else runs on it
(the load average is printed); compare figures from one run. Never asserts; exits 0.

    python benchmarks/capacity.py                   # the full run, about 11 minutes
    python benchmarks/capacity.py --quick           # N = 10, 30; 8 s windows; about 5 minutes
    python benchmarks/capacity.py --sessions 60 --skip-class --skip-storage
    python benchmarks/capacity.py --server-config runner.postScriptGC=false   # a Streamlit option
    python benchmarks/capacity.py --proxy --sessions 100,200 --skip-class   # two processes
    python benchmarks/capacity.py --soak 10 --sessions 60                    # memory over time
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import math
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from browser import (  # noqa: E402
    Server,
    exit_on_sigterm,
    free_port,
    health,
    instrumented,
    progress,
    quantile,
    timed,
)

# The protocol's messages (Streamlit's own protobuf classes) and the websocket client.
from streamlit.proto.Alert_pb2 import Alert  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.NumberInput_pb2 import NumberInput  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402

SESSIONS = (10, 30, 60, 100, 200)
QUICK_SESSIONS = (10, 30)
DURATION_S = 30.0
QUICK_DURATION_S = 8.0
WARMUP_S = 5.0
THINK_S = 2.0
PLAYERS = 60
ANSWER_EVERY_S = 1.0
CLASS_ROUNDS = 200
TARGET_P95_MS = 250.0
TARGET_GUESS_P99_MS = 50.0
TARGET_DASHBOARD_MS = 300.0
TARGET_CPU_RATIO = 3.0  # the app's CPU per change against the bare page's
TARGET_SOAK_GROWTH_MB = 50.0  # last minute's RSS against the first's
SOAK_SESSIONS = 60
SOAK_SAMPLE_S = 10.0  # RSS samples during a soak
RUN_TIMEOUT_S = 30.0  # a rerun that has not finished by then is an error
OPEN_TIMEOUT_S = 60.0  # a page's first load
OPEN_CONCURRENCY = 4  # sessions opening their page at once
OPEN_STAGGER_S = 0.05  # at most one new session per this interval
SAMPLE_S = 1.0  # RSS samples
LAG_TICK_S = 0.05  # the event-loop lag probe
CLIENT_SATURATED = 0.9  # cores: the client kept a core busy
DASHBOARD_REPEATS = 15
CLOSED_REPEATS = 5
CACHE_MAX = 64  # cached messages a session keeps (and offers the server to refer to)
# A class answer the page refused or could not store (a sentence on the next run).
REFUSALS = ("could not be stored", "was not counted", "Class mode is unavailable")

FINISHED_EARLY = ForwardMsg.FINISHED_EARLY_FOR_RERUN
FINISHED_FULL = ForwardMsg.FINISHED_SUCCESSFULLY
FINISHED_FRAGMENT = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


# --------------------------------------------------------------------------- the machine


def machine_line() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} cores (nproc), {model}"


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry}/stat").read_text(errors="replace")
                out.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    return out


def process_tree(pid: int) -> list[int]:
    """``pid`` and every descendant (the job fork server, its jobs, the resource tracker)."""
    children, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


_TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float:
    """CPU seconds of the tree: utime + stime of each process, plus cutime + cstime (children
    it has reaped: a job that ended stays counted)."""
    total = 0.0
    for p in process_tree(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{p}/stat").read_text(errors="replace").rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15]) / _TICK  # utime stime cutime cstime
    return total


def tree_rss(pid: int) -> float:
    """Resident memory of the tree in MB (VmRSS summed; pages a fork shares count twice)."""
    kb = 0
    for p in process_tree(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    kb += int(line.split()[1])
                    break
    return kb / 1024


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (all cores)."""
    with open("/proc/stat", encoding="utf-8") as f:
        vals = [int(x) for x in f.readline().split()[1:9]]
    return (sum(vals) - vals[3] - vals[4]) / _TICK


class Meter:
    """CPU (cores) of the app's process trees (one, or two behind the proxy), of nginx's, of this
    client and of everything else, between ``start()`` and ``stop()``; the app trees' RSS
    sampled every ``sample_s`` s meanwhile, each sample with the trees' CPU so far (``samples``:
    seconds since start, MB, CPU seconds since start)."""

    def __init__(
        self, pids: list[int], proxy_pid: int | None = None, sample_s: float = SAMPLE_S
    ) -> None:
        self.pids, self.proxy_pid, self.sample_s = list(pids), proxy_pid, sample_s
        self.rss: list[float] = []
        self.samples: list[tuple[float, float, float]] = []
        self.lags: list[float] = []
        self.per_process: list[float] = []
        self.proxy = 0.0
        self._tasks: list[asyncio.Task[None]] = []

    def _app_cpu(self) -> list[float]:
        return [tree_cpu(p) for p in self.pids]

    def _proxy_cpu(self) -> float:
        return tree_cpu(self.proxy_pid) if self.proxy_pid else 0.0

    def _rss(self) -> float:
        return sum(tree_rss(p) for p in self.pids)

    def start(self) -> None:
        self.t0 = time.monotonic()
        self.app0, self.proxy0 = self._app_cpu(), self._proxy_cpu()
        self.client0, self.busy0 = time.process_time(), machine_busy()
        self._tasks = [asyncio.create_task(self._sample()), asyncio.create_task(self._lag())]

    async def _sample(self) -> None:
        while True:
            rss = self._rss()
            self.rss.append(rss)
            cpu = sum(self._app_cpu()) - sum(self.app0)
            self.samples.append((time.monotonic() - self.t0, rss, cpu))
            await asyncio.sleep(self.sample_s)

    async def _lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            t = loop.time()
            await asyncio.sleep(LAG_TICK_S)
            self.lags.append(1e3 * max(0.0, loop.time() - t - LAG_TICK_S))

    def stop(self) -> None:
        wall = max(1e-9, time.monotonic() - self.t0)
        app = self._app_cpu()
        self.per_process = [(a - a0) / wall for a, a0 in zip(app, self.app0, strict=True)]
        self.server = sum(self.per_process)
        self.proxy = (self._proxy_cpu() - self.proxy0) / wall
        self.client = (time.process_time() - self.client0) / wall
        busy = (machine_busy() - self.busy0) / wall
        self.other = max(0.0, busy - self.server - self.proxy - self.client)
        rss = self._rss()
        self.rss.append(rss)
        self.samples.append((wall, rss, sum(app) - sum(self.app0)))
        for t in self._tasks:
            t.cancel()

    @property
    def rss_peak(self) -> float:
        return max(self.rss) if self.rss else math.nan

    @property
    def lag_p95(self) -> float:
        return quantile(self.lags, 0.95) or 0.0


# --------------------------------------------------------------------------- the protocol client


class SessionError(Exception):
    """The session cannot go on: a lost connection, a rerun that never finished."""


class Done(Exception):
    """The session has nothing left to do (a player who answered every round)."""


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


async def http_get(
    host: str, port: int, path: str, cookies: dict[str, str] | None = None
) -> tuple[int, dict[str, str]]:
    """A plain HTTP/1.1 GET (what a browser fetches before the websocket), sending
    ``cookies``: status and ``Set-Cookie`` values by cookie name."""
    reader, writer = await asyncio.open_connection(host, port)
    sent = f"Cookie: {cookie_header(cookies)}\r\n" if cookies else ""
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept-Encoding: identity\r\n"
            f"{sent}Connection: close\r\n\r\n".encode()
        )
        await writer.drain()
        data = await reader.read()
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    cookies: dict[str, str] = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "set-cookie":
            key, _, rest = value.strip().partition("=")
            cookies[key] = rest.split(";", 1)[0]
    return status, cookies


@dataclass
class Widget:
    """A widget the page shows: its element, the fragment it was drawn in and the value the
    client holds for it (None: a button, which only ever sends a trigger)."""

    id: str
    kind: str
    fragment: str
    proto: Any
    state: WidgetState | None


@dataclass
class RunResult:
    """One script run as the client saw it."""

    status: int
    fragment_ids: tuple[str, ...]
    ms: float  # from the message that asked for it to its script_finished
    sent_at: float  # time.time() when it was asked for
    exceptions: list[str]
    alerts: list[tuple[str, str]]  # (format, body)
    texts: list[str]  # markdown, text, headings and metrics, in order
    received: int  # bytes of the messages of this run


@dataclass
class _Collector:
    exceptions: list[str] = field(default_factory=list)
    alerts: list[tuple[str, str]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    received: int = 0


def _state(kind: str, p: Any) -> WidgetState | None:
    """The value a browser holds for a widget just drawn: the value the server set, else the
    element's default. None for a trigger (a button) or a kind this client does not mirror."""
    ws = WidgetState(id=p.id)
    if kind == "slider":
        ws.double_array_value.data[:] = list(p.value if p.set_value else p.default)
    elif kind == "checkbox":
        ws.bool_value = p.value if p.set_value else p.default
    elif kind == "number_input":
        v = p.value if p.set_value else p.default
        if p.data_type == NumberInput.INT:
            ws.int_value = int(v)
        else:
            ws.double_value = v
    elif kind in ("radio", "selectbox"):
        if p.set_value:
            ws.string_value = p.raw_value
        elif p.HasField("default") and p.default < len(p.options):
            ws.string_value = p.options[p.default]
        else:
            return None
    elif kind == "multiselect":
        values = list(p.raw_values) if p.set_value else [p.options[i] for i in p.default]
        ws.string_array_value.data[:] = values
    elif kind == "text_input":
        ws.string_value = p.value if p.set_value else p.default
    elif kind == "expandable":
        ws.bool_value = p.expanded
    else:
        return None
    return ws


# Elements that are widgets with an id the client must answer for (or may trigger).
WIDGET_KINDS = frozenset(
    (
        "slider",
        "checkbox",
        "number_input",
        "radio",
        "selectbox",
        "multiselect",
        "text_input",
        "button",
        "download_button",
        "button_group",
        "text_area",
        "date_input",
        "time_input",
        "color_picker",
        "file_uploader",
        "pagination",
    )
)


def user_key(widget_id: str) -> str:
    """The key a page gave a widget, from its element id ``$$ID-<hash>-<key>`` ("None" for a
    widget without one)."""
    parts = widget_id.split("-", 2)
    return parts[2] if len(parts) == 3 else ""


class Session:
    """One browser tab on the wire. ``await open()``, then ``set_value``/``click`` (each
    returns the :class:`RunResult` of the rerun it asked for); ``close()``.

    Fragments with ``run_every`` (``auto_rerun`` messages) are rerun on the same schedule as
    the frontend's timer does it; those reruns are timed in ``auto_times`` (sent_at, ms).
    Every exception element the session receives is kept in ``errors``.
    """

    def __init__(self, base_url: str, path: str, query: str = "") -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.base_url = base_url.rstrip("/")
        self.path = path.strip("/")  # the page's url path ("" = home)
        self.query = query
        self.page_hash = ""  # the page's script hash, once the server named it
        self.widgets: dict[str, Widget] = {}
        self.errors: list[str] = []
        self.auto_times: list[tuple[float, float]] = []
        self.auto_texts: list[str] = []  # the texts of the last run_every rerun
        self.received = 0
        self._cache: dict[str, ForwardMsg] = {}  # cacheable messages, by hash
        self._run = _Collector()
        self._waiter: asyncio.Future[RunResult] | None = None
        self._sent = (0.0, 0.0)  # perf_counter, time.time() of the pending request
        self._auto: dict[str, asyncio.Task[None]] = {}
        self._auto_pending: dict[str, list[tuple[float, float]]] = {}
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed: str | None = None

    # ----------------------------------------------------------------- connection

    def url(self) -> str:
        return f"{self.base_url}/{self.path}" + (f"?{self.query}" if self.query else "")

    async def open(self, timeout: float = OPEN_TIMEOUT_S) -> RunResult:
        """Load the page: its HTML, ``/_stcore/health`` (which sets the XSRF cookie), the
        websocket, then the first run of the page (timed like any rerun). Cookies are kept
        as a browser keeps them (behind nginx, its route cookie from the first response)."""
        _, cookies = await http_get(self.host, self.port, f"/{self.path}")
        cookies |= (await http_get(self.host, self.port, "/_stcore/health", cookies))[1]
        xsrf = cookies.get("_streamlit_xsrf", "")
        protocols = [Subprotocol("streamlit")] + ([Subprotocol(xsrf)] if xsrf else [])
        headers = {"Origin": self.base_url}
        if cookies:
            headers["Cookie"] = cookie_header(cookies)
        self._ws = await connect(
            f"ws://{self.host}:{self.port}/_stcore/stream",
            subprotocols=protocols,
            additional_headers=headers,
            max_size=None,
            open_timeout=timeout,
            ping_interval=None,  # the server pings; a browser never does
        )
        self._reader = asyncio.create_task(self._read())
        return await self.rerun(timeout=timeout)

    async def close(self) -> None:
        for task in self._auto.values():
            task.cancel()
        self._auto.clear()
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ws.close(), 5)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader

    # ----------------------------------------------------------------- widgets

    def widget(self, key: str | None, kind: str | None = None) -> Widget | None:
        """The widget whose key is ``key`` (its id ends with ``-key``); with ``key`` None, the
        first widget of ``kind`` drawn (a widget without a key, as the bare page's slider)."""
        for w in self.widgets.values():
            if (key is None or w.id.endswith(f"-{key}")) and (kind is None or w.kind == kind):
                return w
        return None

    def button(self, prefix: str) -> Widget | None:
        """The button whose key is ``prefix`` or starts with ``prefix_`` (``play_in`` finds
        ``play_in`` and a per-round ``play_in_r3`` alike)."""
        for w in self.widgets.values():
            key = user_key(w.id)
            if w.kind == "button" and (key == prefix or key.startswith(f"{prefix}_")):
                return w
        return None

    def change(self, key: str | Widget, value: Any) -> Widget:
        """Hold a new value (a list for a slider) for the widget ``key`` (or the widget given),
        as the frontend does before it asks for a rerun; returns the widget (its ``fragment`` is
        where a rerun for it goes)."""
        w = key if isinstance(key, Widget) else self.widget(key)
        if w is None or w.state is None:
            raise SessionError(f"no widget {key!r} on {self.url()}")
        kind = w.state.WhichOneof("value")
        if kind == "double_array_value":
            w.state.double_array_value.data[:] = list(value)
        elif kind == "string_array_value":
            w.state.string_array_value.data[:] = list(value)
        else:
            setattr(w.state, str(kind), value)
        return w

    async def set_value(
        self, key: str | Widget, value: Any, timeout: float = RUN_TIMEOUT_S
    ) -> RunResult:
        """Give the widget ``key`` a new value (a list for a slider) and wait for its rerun."""
        w = self.change(key, value)
        return await self.rerun(fragment_id=w.fragment, timeout=timeout)

    async def send(self, fragment_id: str = "") -> None:
        """Ask for a run with every widget's value *without* waiting for it: a second change
        landing while an earlier one still runs (a browser sends it at once too). A rerun
        already awaited ends with the next run the server finishes."""
        if self._ws is None or self._closed:
            raise SessionError(self._closed or "not connected")
        await self._ws.send(self._backmsg(fragment_id, None))

    async def click(self, key: str | Widget, timeout: float = RUN_TIMEOUT_S) -> RunResult:
        """Press the button ``key`` (or a button whose key starts with ``key_``, or the button
        given; a trigger value) and wait for its rerun."""
        w = key if isinstance(key, Widget) else (self.widget(key, "button") or self.button(key))
        if w is None:
            raise SessionError(f"no button {key!r} on {self.url()}")
        trigger = WidgetState(id=w.id, trigger_value=True)
        return await self.rerun(fragment_id=w.fragment, extra=trigger, timeout=timeout)

    # ----------------------------------------------------------------- messages out

    def _backmsg(self, fragment_id: str, extra: WidgetState | None, auto: bool = False) -> bytes:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        if self.page_hash:
            state.page_script_hash = self.page_hash
        else:
            state.page_name = self.path
        state.widget_states.SetInParent()
        for w in self.widgets.values():
            if w.state is not None:
                state.widget_states.widgets.append(w.state)
        if extra is not None:
            state.widget_states.widgets.append(extra)
        if fragment_id:
            state.fragment_id = fragment_id
        state.is_auto_rerun = auto
        while len(self._cache) > CACHE_MAX:  # the oldest go; the server refers only to these
            del self._cache[next(iter(self._cache))]
        state.cached_message_hashes.extend(self._cache)
        info = state.context_info
        info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
        info.url, info.is_embedded, info.color_scheme = self.url(), False, "light"
        return msg.SerializeToString()

    async def rerun(
        self,
        fragment_id: str = "",
        extra: WidgetState | None = None,
        timeout: float = RUN_TIMEOUT_S,
    ) -> RunResult:
        """Ask for a run (of ``fragment_id`` if given) with every widget's value, and wait for
        its end."""
        if self._ws is None or self._closed:
            raise SessionError(self._closed or "not connected")
        if self._waiter is not None:
            raise SessionError("a rerun is already pending")
        loop = asyncio.get_running_loop()
        self._waiter = waiter = loop.create_future()
        data = self._backmsg(fragment_id, extra)
        self._sent = (time.perf_counter(), time.time())
        try:
            await self._ws.send(data)
            return await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            raise SessionError(f"no end of the rerun within {timeout:g} s") from None
        except ConnectionClosed as exc:
            raise SessionError(f"connection closed: {exc}") from None
        finally:
            self._waiter = None

    async def _auto_loop(self, fragment_id: str, interval: float) -> None:
        """The frontend's ``setInterval``: ask for a rerun of the fragment every ``interval``
        seconds, whether or not the last one has finished."""
        loop = asyncio.get_running_loop()
        at = loop.time()
        while self._ws is not None and not self._closed:
            at += interval
            await asyncio.sleep(max(0.0, at - loop.time()))
            self._auto_pending.setdefault(fragment_id, []).append(
                (time.perf_counter(), time.time())
            )
            with contextlib.suppress(ConnectionClosed):
                await self._ws.send(self._backmsg(fragment_id, None, auto=True))

    # ----------------------------------------------------------------- messages in

    async def _read(self) -> None:
        assert self._ws is not None
        try:
            async for data in self._ws:
                if isinstance(data, bytes):
                    self._handle(ForwardMsg.FromString(data), len(data))
            self._closed = "the server closed the connection"
        except ConnectionClosed as exc:
            self._closed = f"connection closed: {exc}"
        except Exception as exc:  # a message this client cannot read: the session is over
            self._closed = f"{type(exc).__name__}: {exc}"
            self.errors.append(self._closed)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(SessionError(self._closed))

    def _handle(self, msg: ForwardMsg, size: int) -> None:
        self.received += size
        self._run.received += size
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            cached = self._cache.get(msg.ref_hash)
            if cached is None:
                raise SessionError(f"the server referred to a message never sent ({msg.ref_hash})")
            msg, kind = cached, cached.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash:
            self._cache[msg.hash] = msg
        if kind == "delta":
            delta = msg.delta
            if delta.WhichOneof("type") == "new_element":
                self._element(delta.new_element, delta.fragment_id)
            elif delta.WhichOneof("type") == "add_block":
                block = delta.add_block
                if block.WhichOneof("type") == "expandable" and block.expandable.id:
                    self._widget("expandable", block.expandable, delta.fragment_id)
        elif kind == "navigation":
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "auto_rerun":
            frag, interval = msg.auto_rerun.fragment_id, float(msg.auto_rerun.interval)
            if frag and frag not in self._auto:
                self._auto[frag] = asyncio.create_task(self._auto_loop(frag, interval))
        elif kind == "stop_auto_rerun":
            for frag in msg.stop_auto_rerun.fragment_ids:
                task = self._auto.pop(frag, None)
                if task is not None:
                    task.cancel()
        elif kind == "script_finished":
            self._finished(msg)

    def _element(self, el: Any, fragment: str) -> None:
        kind = el.WhichOneof("type")
        run = self._run
        if kind == "exception":
            text = f"{el.exception.type}: {el.exception.message}".strip()
            run.exceptions.append(text)
            self.errors.append(text)
        elif kind == "alert":
            run.alerts.append((Alert.Format.Name(el.alert.format), el.alert.body))
        elif kind in ("markdown", "text", "heading"):
            run.texts.append(getattr(el, kind).body)
        elif kind == "metric":
            run.texts.append(f"{el.metric.label}: {el.metric.body}")
        elif kind in WIDGET_KINDS:
            self._widget(kind, getattr(el, kind), fragment)

    def _widget(self, kind: str, proto: Any, fragment: str) -> None:
        if not proto.id:
            return
        held = self.widgets.get(proto.id)
        # The frontend keeps what the user set unless the server sets a value itself.
        if held is None or getattr(proto, "set_value", True) or held.state is None:
            state = _state(kind, proto)
        else:
            state = held.state
        self.widgets[proto.id] = Widget(proto.id, kind, fragment, proto, state)
        self._run.seen.add(proto.id)

    def _finished(self, msg: ForwardMsg) -> None:
        status = msg.script_finished
        if status == FINISHED_EARLY:
            return  # the run gave way to another: its successor ends the request
        done = time.perf_counter()
        run, self._run = self._run, _Collector()
        frags = tuple(msg.metadata.run.fragment_ids)
        if status == FINISHED_FULL:  # the page drawn anew: widgets not drawn are gone
            self.widgets = {k: w for k, w in self.widgets.items() if k in run.seen}
        elif status == FINISHED_FRAGMENT:
            self.widgets = {
                k: w for k, w in self.widgets.items() if k in run.seen or w.fragment not in frags
            }
        else:
            text = f"the script finished with status {ForwardMsg.ScriptFinishedStatus.Name(status)}"
            run.exceptions.append(text)
            self.errors.append(text)
        pending = [p for f in frags for p in self._auto_pending.pop(f, [])]
        if status == FINISHED_FRAGMENT and pending and all(f in self._auto for f in frags):
            for t0, wall in pending:  # coalesced requests end together
                self.auto_times.append((wall, 1e3 * (done - t0)))
            self.auto_texts = run.texts
            return
        t0, wall = self._sent
        result = RunResult(
            status,
            frags,
            1e3 * (done - t0),
            wall,
            run.exceptions,
            run.alerts,
            run.texts,
            run.received,
        )
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(result)


# --------------------------------------------------------------------------- the mix of pages


def _walk(value: float, step: float, lo: float, hi: float, rng: random.Random, most: int) -> float:
    """A few steps up or down (back from an end), rounded to the step's grid."""
    k = rng.randint(1, most) * rng.choice((-1, 1))
    new = value + k * step
    if not lo <= new <= hi:
        new = value - k * step
    new = min(hi, max(lo, new))
    return round(lo + round((new - lo) / step) * step, 10)


async def move_slider(s: Session, key: str | None, rng: random.Random, most: int) -> RunResult:
    w = s.widget(key, "slider")
    if w is None or w.state is None:
        raise SessionError(f"no slider {key!r} on {s.url()}")
    p = w.proto
    values = list(w.state.double_array_value.data)
    i = rng.randrange(len(values))
    lo = values[i - 1] + p.step if i > 0 else p.min
    hi = values[i + 1] - p.step if i + 1 < len(values) else p.max
    values[i] = _walk(values[i], p.step, lo, hi, rng, most)
    return await s.set_value(w, values)


async def move_number(
    s: Session, key: str, lo: float, hi: float, rng: random.Random, most: int
) -> RunResult:
    w = s.widget(key, "number_input")
    if w is None or w.state is None:
        raise SessionError(f"no number input {key!r} on {s.url()}")
    return await s.set_value(key, _walk(w.state.double_value, w.proto.step, lo, hi, rng, most))


def round_buttons(s: Session) -> tuple[Widget, Widget] | None:
    """The round's In and Out buttons, found by their keys' prefixes (``play_in``,
    ``play_out``: the keys may carry the round, ``play_in_r3``), or None."""
    yes, no = s.button("play_in"), s.button("play_out")
    return (yes, no) if yes is not None and no is not None else None


async def answer_round(s: Session, rng: random.Random) -> RunResult:
    """In or Out on the round shown; "New game" once the game is over."""
    buttons = round_buttons(s)
    if buttons is not None:
        return await s.click(rng.choice(buttons))
    new_game = s.button("play_new_game")
    if new_game is not None:
        return await s.click(new_game)
    raise SessionError(f"neither a round nor a new game on {s.url()}")


@dataclass(frozen=True)
class MixPage:
    name: str
    path: str
    query: str
    act: Callable[[Session, random.Random], Awaitable[RunResult]]


MIX = (
    MixPage("home: ε slider", "", "", lambda s, r: move_slider(s, "eps", r, 6)),
    MixPage("what ε means: ε", "what_eps_means", "", lambda s, r: move_slider(s, "eps", r, 6)),
    MixPage("noise vs η: η range", "noise_vs_eta", "", lambda s, r: move_slider(s, "eta", r, 20)),
    MixPage(
        "risk calculator: ε",
        "risk_calculator",
        "",
        lambda s, r: move_number(s, "eps", 0.1, 10.0, r, 5),
    ),
    MixPage("game: In / Out", "play_attacker", "", answer_round),
)


# --------------------------------------------------------------------------- statistics


@dataclass
class Action:
    page: str
    sent_at: float
    ms: float | None  # None: failed
    error: str = ""


def fmt(x: float | None, digits: int = 0) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def pct(xs: list[float], q: float) -> float | None:
    return quantile(xs, q)


def verdict(value: float | None, target: float) -> str:
    if value is None:
        return "not measured"
    return "met" if value <= target else "NOT met"


class RunLog:
    """The script runs the server logged (``instrumented_server.py --run-times``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def walls(self, t0: float, t1: float) -> list[float]:
        """Wall ms of each script run that started in [t0, t1) (Unix seconds)."""
        if not self.path.exists():
            return []
        out = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            row = line.split()
            if len(row) == 4 and t0 <= float(row[0]) < t1:
                out.append(float(row[2]))
        return out


# --------------------------------------------------------------------------- where sessions go


@dataclass(frozen=True)
class Site:
    """What a phase serves: the app, or the bare page (the floor app's one slider inside a
    navigation, ``benchmarks/floor/``), with the mix of pages its sessions act on. Both are run
    from the repository's root, so the app's ``.streamlit/config.toml`` holds for both."""

    name: str
    script: str
    mix: tuple[MixPage, ...]


APP = Site("app", "app.py", MIX)


def floor_site(page: str = "bare") -> Site:
    """A page of the floor app as the anchor: ``bare`` (one slider and its line of text in a
    navigation), or another floor page with that slider, e.g. ``vega_app_chart`` (the η(ε)
    chart drawn by Vega-Lite, following the slider: what one chart costs)."""
    return Site(
        "bare page" if page == "bare" else f"floor page {page!r}",
        "benchmarks/floor/app.py",
        (MixPage(f"{page}: x", page, "", lambda s, r: move_slider(s, None, r, 6)),),
    )


REPLAY_PRESSES = 4  # changes made on each page while recording; the last one's rerun is kept


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def replay_site(folder: Path) -> Site:
    """The floor app's ``replay`` page once per page of the app's mix, each replaying that
    page's recorded rerun (:func:`record_replays`) on every change of its slider: the same mix,
    the same elements sent, nothing computed."""
    return Site(
        "replayed reruns",
        "benchmarks/floor/app.py",
        tuple(
            MixPage(
                f"{p.name}, replayed",
                "replay",
                f"page={_slug(p.name)}",
                lambda s, r: move_slider(s, None, r, 6),
            )
            for p in MIX
        ),
    )


async def record_replays(folder: Path, env: dict[str, str]) -> list[str]:
    """Record, in a server of its own, one rerun after a change on each page of the app's mix
    (the last of :data:`REPLAY_PRESSES`) into ``folder/<page>.bin`` for the ``replay`` floor
    page; the problems met, if any."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mip-capacity-record-") as tmp:
        raw = Path(tmp)
        launcher = instrumented("--record", str(raw), "--fragments")
        with Server(ROOT, "app.py", launcher=launcher, env=env) as server:
            for page in MIX:
                s = Session(server.url, page.path, page.query)
                rng = random.Random(0)
                try:
                    await s.open()
                    for _ in range(REPLAY_PRESSES):
                        before = set(raw.glob("*.bin"))
                        res = await page.act(s, rng)
                    await asyncio.sleep(0.3)  # the recording is written as the run ends
                    new = sorted(set(raw.glob("*.bin")) - before, key=lambda f: f.name[-10:])
                    if not new or res.exceptions:
                        problems.append(f"{page.name}: no clean rerun recorded")
                        continue
                    shutil.copy(new[-1], folder / f"{_slug(page.name)}.bin")
                except SessionError as exc:
                    problems.append(f"{page.name}: {exc}")
                finally:
                    await s.close()
    return problems


NGINX_CONF = ROOT / "deploy" / "nginx.conf"
UPSTREAMS = ("server 127.0.0.1:8501;", "server 127.0.0.1:8502;")


def nginx_config(conf: str, upstreams: list[int], port: int, tmp: Path) -> str:
    """``deploy/nginx.conf`` for this run, as ``tests/test_proxy.py`` runs it: the two
    upstreams' ports, a loopback port to listen on, its logs, pid and temporary files in
    ``tmp``, in the foreground. A line it no longer finds is an error naming it."""

    def replace(text: str, old: str, new: str) -> str:
        if old not in text:
            raise ValueError(
                f"deploy/nginx.conf no longer contains {old!r}: update benchmarks/capacity.py"
            )
        return text.replace(old, new)

    if len(upstreams) != len(UPSTREAMS):
        raise ValueError(f"upstreams={upstreams!r}: deploy/nginx.conf has {len(UPSTREAMS)}")
    for line, upstream in zip(UPSTREAMS, upstreams, strict=True):
        conf = replace(conf, line, f"server 127.0.0.1:{upstream};")
    conf = replace(conf, "listen 80;", f"listen 127.0.0.1:{port};")
    conf = replace(conf, "/var/log/nginx/mip-explorer.error.log", str(tmp / "error.log"))
    conf = replace(conf, "/var/log/nginx/mip-explorer.access.log", str(tmp / "access.log"))
    temp_paths = "".join(
        f"    {kind}_temp_path {tmp / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = replace(conf, "http {\n", "http {\n" + temp_paths)
    return f"pid {tmp / 'nginx.pid'};\ndaemon off;\n" + conf


def find_nginx() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None
    )
    if not found:
        raise SystemExit("--proxy needs nginx (Debian: apt-get install nginx)")
    return found


class Nginx:
    """Debian's nginx running ``deploy/nginx.conf`` (:func:`nginx_config`) in front of the
    given upstream ports, in its own process group; stopped on exit."""

    def __init__(self, upstreams: list[int], tmp: Path) -> None:
        self.upstreams, self.tmp = upstreams, tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def output(self) -> str:
        texts = [
            p.read_text("utf-8", "replace")
            for p in (self.tmp / "nginx.out", self.tmp / "error.log")
            if p.exists()
        ]
        return "\n".join(texts)[-3000:]

    def __enter__(self) -> Nginx:
        self.tmp.mkdir(parents=True, exist_ok=True)
        os.chmod(self.tmp, 0o755)  # nginx's workers run as another user when started as root
        conf = nginx_config(
            NGINX_CONF.read_text(encoding="utf-8"), self.upstreams, self.port, self.tmp
        )
        (self.tmp / "nginx.conf").write_text(conf, encoding="utf-8")
        with (self.tmp / "nginx.out").open("wb") as out:
            self.proc = subprocess.Popen(
                [find_nginx(), "-p", str(self.tmp), "-c", str(self.tmp / "nginx.conf")],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + 20
        while health(self.url) != "ok":
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(
                    f"nginx on {self.url} did not pass /_stcore/health:\n{self.output()}"
                )
            time.sleep(0.2)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)  # nginx's own process group only
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)


def _postgres_bin() -> Path:
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).resolve().parent
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", p.parent.name)],
    )
    for path in reversed(found):
        if (path / "initdb").exists() and (path / "pg_ctl").exists():
            return path
    raise SystemExit(
        "--proxy needs a PostgreSQL: give --database-url, or install Debian's postgresql"
    )


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A PostgreSQL cluster for this run, as ``.ci/postgres`` starts one: in a temporary
    directory (owned by the ``postgres`` user when run as root), on a free loopback port,
    durability off (fsync, synchronous commits), local connections trusted, a database ``mip``;
    stopped and removed on exit. Yields its SQLAlchemy URL."""
    bin_dir = _postgres_bin()
    owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if owner and not shutil.which("runuser"):
        owner[0] = "/usr/sbin/runuser"
    tmp = Path(tempfile.mkdtemp(prefix="mip-capacity-pg-"))
    data, sock = tmp / "data", tmp / "sock"
    sock.mkdir()
    if owner:
        for path in (tmp, sock):
            shutil.chown(path, "postgres")
    port = free_port()
    options = (
        f"-c listen_addresses=127.0.0.1 -p {port} -k {sock} -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
    )
    steps = [
        [
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ],
        [
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(tmp / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        ],
        [str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "mip"],
    ]
    try:
        for step in steps:
            done = subprocess.run(owner + step, capture_output=True, text=True, check=False)
            if done.returncode:
                raise RuntimeError(f"{' '.join(step[:1])} failed:\n{done.stdout}{done.stderr}")
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/mip"
    finally:
        subprocess.run(
            [*owner, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(tmp, ignore_errors=True)


@dataclass
class Deployment:
    """What a phase measures: the URL its sessions connect to (the one server, or nginx), the
    app processes (their trees' CPU and RSS), their run logs and nginx's pid behind a proxy."""

    url: str
    pids: list[int]
    runlogs: list[RunLog]
    proxy_pid: int | None = None

    def walls(self, t0: float, t1: float) -> list[float]:
        return [w for log in self.runlogs for w in log.walls(t0, t1)]

    def runs_by_process(self, t0: float, t1: float) -> list[int]:
        return [len(log.walls(t0, t1)) for log in self.runlogs]

    def meter(self, sample_s: float = SAMPLE_S) -> Meter:
        return Meter(self.pids, self.proxy_pid, sample_s)


@contextlib.contextmanager
def deployment(site: Site, proxy: bool, env: dict[str, str]) -> Iterator[Deployment]:
    """``site`` through ``instrumented_server.py --run-times`` (each process in its own process
    group): one server, or with ``proxy`` two behind nginx running ``deploy/nginx.conf``, the
    sessions spread over them by its route cookie."""
    with (
        tempfile.TemporaryDirectory(prefix="mip-capacity-log-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        logs = [Path(tmp) / f"runs-{k}.txt" for k in range(2 if proxy else 1)]
        servers = [
            stack.enter_context(Server(ROOT, site.script, launcher=timed(log), env=env))
            for log in logs
        ]
        runlogs = [RunLog(log) for log in logs]
        if not proxy:
            yield Deployment(servers[0].url, [servers[0].pid], runlogs)
            return
        front = stack.enter_context(Nginx([s.port for s in servers], Path(tmp) / "nginx"))
        yield Deployment(front.url, [s.pid for s in servers], runlogs, front.pid)


# --------------------------------------------------------------------------- phase 1: N sessions


@dataclass
class PhaseResult:
    n: int
    actions: list[Action]
    runs: list[float]  # the server's script runs in the window, wall ms
    meter: Meter | None
    window: float
    opens: list[float]
    errors: list[str]
    ramp_s: float
    site: str = APP.name
    t0: float = 0.0  # time.time() when the window began
    runs_by_process: list[int] = field(default_factory=list)

    def ok_ms(self, page: str | None = None) -> list[float]:
        return [a.ms for a in self.actions if a.ms is not None and (page is None or a.page == page)]

    @property
    def p95(self) -> float | None:
        return pct(self.ok_ms(), 0.95)

    @property
    def valid(self) -> bool:
        return not self.errors and bool(self.ok_ms())


async def open_all(
    sessions: list[Session], on_open: Callable[[int, RunResult], None], errors: list[str]
) -> None:
    """Open every session, a few at a time and staggered, as a class arrives."""
    gate = asyncio.Semaphore(OPEN_CONCURRENCY)

    async def one(i: int, s: Session) -> None:
        await asyncio.sleep(i * OPEN_STAGGER_S)
        async with gate:
            try:
                on_open(i, await s.open())
            except Exception as exc:
                errors.append(f"opening {s.url()}: {type(exc).__name__}: {exc}")

    await asyncio.gather(*(one(i, s) for i, s in enumerate(sessions)))


async def act_loop(
    s: Session,
    act: Callable[[Session, random.Random], Awaitable[RunResult]],
    label: str,
    every: float,
    rng: random.Random,
    stop: asyncio.Event,
    out: list[Action],
) -> None:
    """Act every ``every`` s (a random phase); when behind, act as soon as the last ended."""
    loop = asyncio.get_running_loop()
    at = loop.time() + rng.uniform(0.0, every)
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, at - loop.time()))
            return
        sent = time.time()
        try:
            res = await act(s, rng)
        except Done:
            return
        except SessionError as exc:
            out.append(Action(label, sent, None, str(exc)))
            return
        refused = [  # exception elements are counted by the session itself
            body
            for kind, body in res.alerts
            if kind == "ERROR" or any(word in body for word in REFUSALS)
        ]
        out.append(Action(label, sent, res.ms, "; ".join(refused)))
        at = max(at + every, loop.time())


async def sessions_phase(
    n: int,
    site: Site,
    args: argparse.Namespace,
    env: dict[str, str],
    *,
    every: float | None = None,
    duration: float | None = None,
    sample_s: float = SAMPLE_S,
) -> PhaseResult:
    """``n`` sessions on ``site`` (a fresh server, or two behind nginx with ``--proxy``), each
    changing its control every ``every`` s (``--think``); ``duration`` s measured
    (``--duration``) after ``--warmup`` s; the servers' RSS sampled every ``sample_s`` s."""
    every = args.think if every is None else every
    duration = args.duration if duration is None else duration
    label = f"N = {n}" + ("" if site is APP else f", {site.name}")
    progress(f"{label}: starting {'two servers behind nginx' if args.proxy else 'a server'}")
    with deployment(site, args.proxy, env) as dep:
        rng = random.Random(n)
        offset = rng.randrange(len(site.mix))
        plan = [site.mix[(offset + i) % len(site.mix)] for i in range(n)]
        sessions = [Session(dep.url, p.path, p.query) for p in plan]
        actions: list[Action] = []
        errors: list[str] = []
        opens: list[float] = []
        stop = asyncio.Event()
        loops: list[asyncio.Task[None]] = []

        opened: list[int] = []

        def started(i: int, res: RunResult) -> None:
            opens.append(res.ms)
            opened.append(i)
            if res.exceptions:
                errors.append(f"{sessions[i].url()}: {res.exceptions[0]}")

        progress(f"{label}: opening {n} sessions ({load_text()})")
        t_ramp = time.monotonic()
        await open_all(sessions, started, errors)
        ramp = time.monotonic() - t_ramp
        # every session open: each starts changing its control, at a random phase of `every`
        for i in sorted(opened):
            loops.append(
                asyncio.create_task(
                    act_loop(
                        sessions[i],
                        plan[i].act,
                        plan[i].name,
                        every,
                        random.Random(1000 * n + i),
                        stop,
                        actions,
                    )
                )
            )
        await asyncio.sleep(args.warmup)
        meter = dep.meter(sample_s)
        meter.start()
        t0 = time.time()
        progress(f"{label}: measuring {duration:g} s ({load_text()})")
        await asyncio.sleep(duration)
        t1 = time.time()
        meter.stop()
        stop.set()
        if loops:
            await asyncio.wait(loops, timeout=RUN_TIMEOUT_S + 5)
        for s in sessions:
            errors.extend(f"{s.url()}: {e}" for e in s.errors)
        await asyncio.gather(*(s.close() for s in sessions))
        # every failure of the phase counts, also one that began in the warm-up: a session
        # whose change never finished stops changing
        errors.extend(f"{a.page}: {a.error}" for a in actions if a.error)
        in_window = [a for a in actions if t0 <= a.sent_at < t1]
        return PhaseResult(
            n,
            in_window,
            dep.walls(t0, t1),
            meter,
            t1 - t0,
            opens,
            errors,
            ramp,
            site.name,
            t0,
            dep.runs_by_process(t0, t1) if args.proxy else [],
        )


# --------------------------------------------------------------------------- phase 2: class mode


@dataclass
class ClassResult:
    players: int
    answers: list[Action]
    dashboard: list[float]
    runs: list[float]
    meter: Meter | None
    window: float
    errors: list[str]
    shown_guesses: int | None
    accepted: int
    runs_by_process: list[int] = field(default_factory=list)


CODE_RE = re.compile(r"\?class=([0-9A-Z]{8})")
GUESSES_RE = re.compile(r"Guesses so far: ([\d\s,.\u00a0\u202f]+)")


def _count(text: str) -> int:
    return int(re.sub(r"\D", "", text) or 0)


async def class_phase(args: argparse.Namespace, env: dict[str, str]) -> ClassResult:
    progress(f"class mode: starting {'two servers behind nginx' if args.proxy else 'a server'}")
    with deployment(APP, args.proxy, env) as dep:
        errors: list[str] = []
        teacher = Session(dep.url, "play_attacker", f"rounds={CLASS_ROUNDS}")
        await teacher.open()
        started = await teacher.click("class_start")
        code = next((m.group(1) for t in started.texts if (m := CODE_RE.search(t))), None)
        if code is None:
            await teacher.close()
            return ClassResult(
                args.players, [], [], [], None, 0.0, ["no class code after Start a class"], None, 0
            )
        progress(f"class mode: class {code}; {args.players} players join ({load_text()})")
        players = [Session(dep.url, "play_attacker", f"class={code}") for _ in range(args.players)]
        answers: list[Action] = []
        stop = asyncio.Event()
        loops: list[asyncio.Task[None]] = []

        async def answer(s: Session, rng: random.Random) -> RunResult:
            buttons = round_buttons(s)
            if buttons is None:
                raise Done
            return await s.click(rng.choice(buttons))

        async def join(i: int, s: Session) -> None:
            await asyncio.sleep(i * 0.1)
            try:
                await s.open()
                await s.set_value("class_nickname", f"player {i + 1}")
                res = await s.click("class_join")
                if not any(t.startswith("You play as") for t in res.texts):
                    raise SessionError(f"not joined: {res.alerts or res.texts[:3]}")
            except Exception as exc:
                errors.append(f"player {i + 1}: {type(exc).__name__}: {exc}")
                return
            loops.append(
                asyncio.create_task(
                    act_loop(
                        s, answer, "answer", args.answer_every, random.Random(i), stop, answers
                    )
                )
            )

        await asyncio.gather(*(join(i, s) for i, s in enumerate(players)))
        await asyncio.sleep(args.warmup)
        meter = dep.meter()
        meter.start()
        t0 = time.time()
        progress(f"class mode: measuring {args.duration:g} s ({load_text()})")
        await asyncio.sleep(args.duration)
        t1 = time.time()
        meter.stop()
        stop.set()
        if loops:
            await asyncio.wait(loops, timeout=RUN_TIMEOUT_S + 5)
        # one more dashboard refresh once every answer has ended, for its count
        last = len(teacher.auto_times)
        deadline = time.monotonic() + 10.0
        while len(teacher.auto_times) < last + 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        shown = None
        for t in teacher.auto_texts:
            if m := GUESSES_RE.search(t):
                shown = _count(m.group(1))
        for s in [teacher, *players]:
            errors.extend(s.errors)
        await asyncio.gather(*(s.close() for s in [teacher, *players]))
        errors.extend(a.error for a in answers if a.error)
        in_window = [a for a in answers if t0 <= a.sent_at < t1]
        dashboard = [ms for sent, ms in teacher.auto_times if t0 <= sent < t1]
        accepted = sum(1 for a in answers if a.ms is not None and not a.error)
        return ClassResult(
            args.players,
            in_window,
            dashboard,
            dep.walls(t0, t1),
            meter,
            t1 - t0,
            errors,
            shown,
            accepted,
            dep.runs_by_process(t0, t1) if args.proxy else [],
        )


# --------------------------------------------------------------------------- phase 3: storage


@dataclass
class StorageResult:
    guesses: list[float] = field(default_factory=list)
    reads_under_load: list[float] = field(default_factory=list)
    open_refresh: list[float] = field(default_factory=list)
    closed_first: float | None = None
    closed_refresh: list[float] = field(default_factory=list)
    closed_parts: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    backend: str = ""


def storage_phase(args: argparse.Namespace, data_dir: str) -> StorageResult:
    """The class storage alone, in this process (threads, as the server's script runs)."""
    os.environ["MIP_EXPLORER_DATA_DIR"] = data_dir
    if args.database_url:
        os.environ["MIP_EXPLORER_DATABASE_URL"] = args.database_url
    sys.path.insert(0, str(ROOT))
    import sqlalchemy as sa

    from appkit import classroom, classui
    from mipcore.game import GameSettings, game_model, luck_lesson

    out = StorageResult()
    store = classroom.Store(args.database_url or None)
    out.backend = store.where
    settings = GameSettings.dp("mean", 1.0, 8)

    # ---- 60 players, a guess each per second, the dashboard reading every 2 s
    progress(f"storage: {args.players} players storing a guess a second ({load_text()})")
    handle = store.create_class(settings, CLASS_ROUNDS, 20240601)
    tokens = [store.join(handle.code, f"p{i}").player_token for i in range(args.players)]
    stop = threading.Event()
    lock = threading.Lock()
    start = time.monotonic() + 0.5
    measure_from = start + min(args.warmup, 2.0)
    measure_to = measure_from + args.duration

    def player(i: int) -> None:
        rng = random.Random(i)
        phase = rng.uniform(0.0, args.answer_every)
        for k in range(CLASS_ROUNDS):
            at = start + phase + k * args.answer_every
            if at >= measure_to or stop.wait(max(0.0, at - time.monotonic())):
                return
            t = time.perf_counter()
            try:
                store.answer(handle.code, tokens[i], k, rng.random() < 0.5)
            except classroom.ClassroomError as exc:
                with lock:
                    out.errors.append(str(exc))
                continue
            ms = 1e3 * (time.perf_counter() - t)
            if at >= measure_from:
                with lock:
                    out.guesses.append(ms)

    def teacher() -> None:
        at = start
        while not stop.wait(max(0.0, at - time.monotonic())) and at < measure_to:
            t = time.perf_counter()
            store.results(handle.code, handle.teacher_token)
            if at >= measure_from:
                out.reads_under_load.append(1e3 * (time.perf_counter() - t))
            at += 2.0

    threads = [threading.Thread(target=player, args=(i,)) for i in range(args.players)]
    threads.append(threading.Thread(target=teacher))
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    finally:
        stop.set()

    # ---- a full class: 60 players x 200 rounds, every round answered
    progress(f"storage: a class of {args.players} players x {CLASS_ROUNDS} rounds ({load_text()})")
    full = store.create_class(settings, CLASS_ROUNDS, 7)
    for i in range(args.players):
        store.join(full.code, f"p{i}")
    url = sa.engine.make_url(args.database_url or classroom.default_url())
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")  # as Store reads it
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            class_id = conn.execute(
                sa.select(classroom.classes.c.id).where(classroom.classes.c.code == full.code)
            ).scalar_one()
            ids = conn.execute(
                sa.select(classroom.players.c.id).where(classroom.players.c.class_id == class_id)
            ).scalars()
            rng = random.Random(3)
            rows = [
                {"class_id": class_id, "player_id": pid, "round": k, "said_in": rng.random() < 0.5}
                for pid in ids
                for k in range(CLASS_ROUNDS)
            ]
            conn.execute(sa.insert(classroom.guesses), rows)
    finally:
        engine.dispose()

    def timed_ms(fn: Callable[[], Any]) -> float:
        t = time.perf_counter()
        fn()
        return 1e3 * (time.perf_counter() - t)

    model = game_model(settings)  # appkit.cached by the page: computed once per server
    for _ in range(DASHBOARD_REPEATS):  # the dashboard of an open class: Store.results
        out.open_refresh.append(timed_ms(lambda: store.results(full.code, full.teacher_token)))
    store.close(full.code, full.teacher_token)
    confidence = 0.95
    luck: dict[tuple[Any, ...], Any] = {}  # the page's appkit.cached

    def closed_refresh() -> dict[str, float]:
        parts = {}
        t = time.perf_counter()
        res = store.results(full.code, full.teacher_token)
        parts["Store.results"] = time.perf_counter() - t
        t = time.perf_counter()
        sc = classroom.score_class(res, confidence=confidence, model=model)
        parts["score_class"] = time.perf_counter() - t
        t = time.perf_counter()
        answered = [p for p in sc.players if p.answered]
        n_players, rounds = len(answered), max(p.answered for p in answered)
        eta, strict = model.certified_eta, 1 - (1 - confidence) / n_players
        if (n_players, rounds, eta) not in luck:  # the page's two appkit.cached calls
            luck[(n_players, rounds, eta)] = (
                luck_lesson(n_players, rounds, eta),
                luck_lesson(n_players, rounds, eta, confidence=strict),
            )
        strict_lesson = luck[(n_players, rounds, eta)][1]
        corrected = (
            None if strict_lesson.alarm_correct is None else strict_lesson.alarm_correct / rounds
        )
        parts["luck lessons"] = time.perf_counter() - t
        t = time.perf_counter()
        classui.scores_vega(sc, corrected=corrected)
        parts["scores chart"] = time.perf_counter() - t
        return {k: 1e3 * v for k, v in parts.items()}

    first = closed_refresh()
    out.closed_first = sum(first.values())
    sums: dict[str, list[float]] = {}
    for _ in range(CLOSED_REPEATS):
        parts = closed_refresh()
        out.closed_refresh.append(sum(parts.values()))
        for k, v in parts.items():
            sums.setdefault(k, []).append(v)
    out.closed_parts = {k: statistics.median(v) for k, v in sums.items()}
    out.closed_parts["luck lessons (first refresh)"] = first["luck lessons"]
    store.dispose()
    return out


# --------------------------------------------------------------------------- printing


def cpu_per_change(meter: Meter | None, window: float, answered: int) -> float | None:
    """The app's CPU (ms, its process trees) per change answered in the window."""
    if meter is None or not answered:
        return None
    return 1e3 * meter.server * window / answered


def ratio(app: float | None, bare: float | None) -> float | None:
    return None if app is None or bare is None or bare <= 0 else app / bare


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.1f}×"


def _session_table(results: list[PhaseResult], think: float) -> None:
    head = (
        f"{'N':>4} {'changes':>7} {'/s (asked)':>11} {'p50':>6} {'p95':>6} {'p99':>6} {'max':>6}"
        f" {'run p50/p95':>12} {'server CPU':>10} {'CPU/change':>10} {'RSS MB':>7} {'client CPU':>10}"
        f" {'lag p95':>7} {'other':>5} {'errors':>6}  p95 target"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        ms = r.ok_ms()
        m = r.meter
        rate = len(r.actions) / r.window if r.window else 0.0
        runs = f"{fmt(pct(r.runs, 0.5))}/{fmt(pct(r.runs, 0.95))}"
        target = verdict(r.p95, TARGET_P95_MS) if r.valid else "not a valid measurement"
        print(
            f"{r.n:>4} {len(ms):>7} {rate:>5.1f} ({r.n / think:>4.1f})"
            f" {fmt(pct(ms, 0.5)):>6} {fmt(pct(ms, 0.95)):>6} {fmt(pct(ms, 0.99)):>6}"
            f" {fmt(max(ms) if ms else None):>6} {runs:>12}"
            f" {fmt(m.server if m else None, 2):>10}"
            f" {fmt(cpu_per_change(m, r.window, len(ms))):>7} ms"
            f" {fmt(m.rss_peak if m else None):>7}"
            f" {fmt(m.client if m else None, 2):>10} {fmt(m.lag_p95 if m else None):>7}"
            f" {fmt(m.other if m else None, 2):>5} {len(r.errors):>6}  {target}"
        )


def _phase_notes(results: list[PhaseResult]) -> None:
    for r in results:
        print(
            f"  N = {r.n}: {r.n} pages opened in {r.ramp_s:.0f} s ({OPEN_CONCURRENCY} at a time), "
            f"first loads p50 {fmt(pct(r.opens, 0.5))} ms, p95 {fmt(pct(r.opens, 0.95))} ms"
        )
        m = r.meter
        if m is not None and r.runs_by_process:
            print(
                f"  N = {r.n}: behind nginx, script runs per process "
                + "/".join(str(k) for k in r.runs_by_process)
                + ", CPU per process "
                + "/".join(f"{c:.2f}" for c in m.per_process)
                + f" cores, nginx {m.proxy:.2f} cores"
            )
        if m is not None and m.client >= CLIENT_SATURATED:
            print(
                f"  N = {r.n}: the client used {m.client:.2f} cores: it saturated a core, "
                "so these times include its own delay."
            )
        for e in r.errors[:3]:
            print(f"  N = {r.n} error: {e[:160]}")
        if len(r.errors) > 3:
            print(f"  N = {r.n}: {len(r.errors) - 3} more errors")


def print_sessions(results: list[PhaseResult], think: float, proxy: bool = False) -> None:
    where = "two app processes behind nginx" if proxy else "one app process"
    print(
        f"\nSessions ({where}): widget message -> end of its rerun (script_finished), ms; one "
        f"change per session every {think:g} s. Target p95 <= {TARGET_P95_MS:.0f} ms."
    )
    _session_table(results, think)
    print(
        "  run p50/p95: the script runs themselves (server log); the rest of a change's time is "
        "waiting (GIL, event loop, the session's queue)."
    )
    print(
        "  CPU in cores: the app's process tree(s) / this client / every other process (nginx "
        "apart); CPU/change: the app's CPU divided by the changes answered; RSS: the app's "
        "tree(s), peak of 1 s samples; lag: this client's event loop."
    )
    _phase_notes(results)
    print("\nBy page, p50/p95 ms:")
    names = [p.name for p in MIX]
    print(f"{'page':<24}" + "".join(f"{'N = ' + str(r.n):>14}" for r in results))
    for name in names:
        cells = []
        for r in results:
            ms = r.ok_ms(name)
            cells.append(f"{fmt(pct(ms, 0.5))}/{fmt(pct(ms, 0.95))}" if ms else "-")
        print(f"{name:<24}" + "".join(f"{c:>14}" for c in cells))
    passing = [r.n for r in results if r.valid and r.p95 is not None and r.p95 <= TARGET_P95_MS]
    failing = [r.n for r in results if r.n not in passing]
    if passing:
        best = max(passing)
        below = [n for n in failing if n < best]
        extra = f" (but N = {', '.join(map(str, below))} did not)" if below else ""
        print(f"\nLargest N with p95 <= {TARGET_P95_MS:.0f} ms: {best}{extra}.")
    else:
        print(f"\nNo N measured had p95 <= {TARGET_P95_MS:.0f} ms with no errors.")


def print_against_bare(
    pairs: list[tuple[str, PhaseResult | ClassResult, PhaseResult | None]],
    anchor: str = "bare",
) -> None:
    """Each phase of the app beside the bare page's phase of the same N and pace (same server
    settings, same topology, started in this run): p95 and the app's CPU per change."""
    if not any(bare is not None for _, _, bare in pairs):
        return
    if anchor == "replay":
        print(
            "\nAgainst the replayed reruns (benchmarks/floor/pages/replay.py: each page of the "
            "mix sends the elements the app's page sent after a change, recorded in this run, "
            "computing nothing; the same server settings, topology, N and pace; the columns "
            "named 'bare' are the replay's)."
        )
    elif anchor != "bare":
        print(
            f"\nAgainst the floor page {anchor!r} (benchmarks/floor: the bare page's slider and "
            "line of text with one chart; the same server settings, topology, N and pace, in "
            "this run; the columns named 'bare' are this page's)."
        )
    else:
        print(
            "\nAgainst the bare page (benchmarks/floor: one slider in a navigation; the same "
            "server settings, topology, N and pace, in this run). Target: CPU per change <= "
            f"{TARGET_CPU_RATIO:g}× the bare page's."
        )
    head = (
        f"{'phase':<22} {'p95 ms app':>10} {'bare':>6} {'ratio':>7}"
        f" {'CPU/change ms app':>17} {'bare':>6} {'ratio':>7}  CPU target"
    )
    print(head)
    print("-" * len(head))
    for name, app, bare in pairs:
        if bare is None:
            continue
        app_ms = (
            app.ok_ms()
            if isinstance(app, PhaseResult)
            else [a.ms for a in app.answers if a.ms is not None]
        )
        app_p95, bare_p95 = pct(app_ms, 0.95), bare.p95
        app_cpu = cpu_per_change(app.meter, app.window, len(app_ms))
        bare_cpu = cpu_per_change(bare.meter, bare.window, len(bare.ok_ms()))
        cpu_ratio = ratio(app_cpu, bare_cpu)
        target = "-" if cpu_ratio is None else verdict(cpu_ratio, TARGET_CPU_RATIO)
        print(
            f"{name:<22} {fmt(app_p95):>10} {fmt(bare_p95):>6} {fmt_ratio(ratio(app_p95, bare_p95)):>7}"
            f" {fmt(app_cpu, 1):>17} {fmt(bare_cpu, 1):>6} {fmt_ratio(cpu_ratio):>7}  {target}"
        )
        if not bare.valid:
            print(f"  {name}: the bare page's phase is not a valid measurement: {bare.errors[:1]}")


# --------------------------------------------------------------------------- the soak


@dataclass(frozen=True)
class SoakMinute:
    """One minute of a soak: the app's RSS (MB; mean and max of its samples), the changes
    answered, their p95 (ms) and the app's CPU per change (ms)."""

    minute: int  # 1, 2, ...
    rss_mean: float | None
    rss_max: float | None
    changes: int
    p95: float | None
    cpu_per_change: float | None


def _cumulative_at(points: list[tuple[float, float]], at: float) -> float:
    """A cumulative curve given at (time, value) points, read at ``at`` (linear between
    points; its first or last value outside them)."""
    if not points:
        return 0.0
    if at <= points[0][0]:
        return points[0][1]
    for (t0, v0), (t1, v1) in itertools.pairwise(points):
        if at <= t1:
            return v0 if t1 <= t0 else v0 + (v1 - v0) * (at - t0) / (t1 - t0)
    return points[-1][1]


def soak_minutes(
    samples: list[tuple[float, float, float]],
    changes: list[tuple[float, float]],
    duration: float,
) -> list[SoakMinute]:
    """Minute by minute: ``samples`` are (s since the start, RSS MB, CPU s since the start),
    ``changes`` (s since the start, ms) of each change answered; a sample or change at or past
    ``duration`` counts in the last minute. A minute's CPU is read off the samples' cumulative
    CPU at its bounds (linear between samples)."""
    count = max(1, math.ceil(duration / 60 - 1e-9))

    def minute(at: float) -> int:
        return min(count - 1, max(0, int(at // 60)))

    ordered = sorted(samples)
    cpu = [(at, used) for at, _, used in ordered]
    rss: list[list[float]] = [[] for _ in range(count)]
    for at, mb, _ in ordered:
        rss[minute(at)].append(mb)
    ms: list[list[float]] = [[] for _ in range(count)]
    for at, took in changes:
        ms[minute(at)].append(took)
    rows = []
    for k in range(count):
        lo, hi = 60.0 * k, duration if k == count - 1 else 60.0 * (k + 1)
        used = _cumulative_at(cpu, hi) - _cumulative_at(cpu, lo) if cpu else None
        rows.append(
            SoakMinute(
                k + 1,
                statistics.fmean(rss[k]) if rss[k] else None,
                max(rss[k]) if rss[k] else None,
                len(ms[k]),
                pct(ms[k], 0.95),
                None if used is None or not ms[k] else 1e3 * used / len(ms[k]),
            )
        )
    return rows


def soak_growth(rows: list[SoakMinute]) -> float | None:
    """The last minute's mean RSS minus the first's (MB)."""
    first, last = rows[0].rss_mean if rows else None, rows[-1].rss_mean if rows else None
    return None if first is None or last is None else last - first


def print_soak(r: PhaseResult, minutes: float, think: float, proxy: bool) -> None:
    m = r.meter
    where = "two app processes behind nginx" if proxy else "one app process"
    print(
        f"\nSoak ({where}): N = {r.n} sessions for {minutes:g} min, one change each every "
        f"{think:g} s; the RSS of the app's process tree(s) every {SOAK_SAMPLE_S:g} s."
    )
    samples = m.samples if m else []
    changes = [(a.sent_at - r.t0, a.ms) for a in r.actions if a.ms is not None]
    rows = soak_minutes(samples, changes, minutes * 60)  # the last sample, a moment later, too
    head = (
        f"{'minute':>6} {'RSS MB':>7} {'max':>6} {'changes':>8} {'p95 ms':>7} {'CPU/change ms':>14}"
    )
    print(head)
    print("-" * len(head))
    for row in rows:
        print(
            f"{row.minute:>6} {fmt(row.rss_mean):>7} {fmt(row.rss_max):>6} {row.changes:>8}"
            f" {fmt(row.p95):>7} {fmt(row.cpu_per_change, 1):>14}"
        )
    growth = soak_growth(rows)
    first, last = rows[0].rss_mean, rows[-1].rss_mean
    print(
        f"RSS: first minute {fmt(first)} MB, last minute {fmt(last)} MB: "
        + ("-" if growth is None else f"{growth:+.0f} MB")
        + f" (target <= +{TARGET_SOAK_GROWTH_MB:.0f} MB: "
        + ("not measured" if growth is None else verdict(growth, TARGET_SOAK_GROWTH_MB))
        + f"); peak {fmt(m.rss_peak if m else None)} MB."
    )
    ms = r.ok_ms()
    print(
        f"Whole soak: {len(ms)} changes, p50 {fmt(pct(ms, 0.5))} ms, p95 {fmt(pct(ms, 0.95))} ms, "
        f"app CPU {fmt(m.server if m else None, 2)} cores, "
        f"{fmt(cpu_per_change(m, r.window, len(ms)), 1)} ms per change; {len(r.errors)} errors"
        + ("" if r.valid else " -- not a valid measurement")
    )
    _phase_notes([r])


def print_class(r: ClassResult, every: float) -> None:
    ms = [a.ms for a in r.answers if a.ms is not None]
    m = r.meter
    print(
        f"\nClass mode: a teacher's dashboard open, {r.players} players each answering a round "
        f"every {every:g} s ({len(ms)} answers in {r.window:.0f} s, "
        f"{len(ms) / r.window if r.window else 0:.1f}/s; asked {r.players / every:.0f}/s)."
    )
    print(
        f"  answer -> end of rerun: p50 {fmt(pct(ms, 0.5))} ms, p95 {fmt(pct(ms, 0.95))} ms, "
        f"p99 {fmt(pct(ms, 0.99))} ms, max {fmt(max(ms) if ms else None)} ms "
        f"(p95 target {TARGET_P95_MS:.0f} ms: {verdict(pct(ms, 0.95), TARGET_P95_MS)})"
    )
    print(
        f"  script runs in the window: {len(r.runs)}, p50 {fmt(pct(r.runs, 0.5))} ms, "
        f"p95 {fmt(pct(r.runs, 0.95))} ms"
    )
    print(
        f"  teacher's dashboard (fragment, run_every = 2 s): {len(r.dashboard)} reruns "
        f"(expected about {r.window / 2:.0f}), p50 {fmt(pct(r.dashboard, 0.5))} ms, "
        f"p95 {fmt(pct(r.dashboard, 0.95))} ms, max {fmt(max(r.dashboard) if r.dashboard else None)} ms"
    )
    if m is not None:
        print(
            f"  CPU (cores): server {m.server:.2f}, client {m.client:.2f}, other {m.other:.2f}; "
            f"server RSS peak {m.rss_peak:.0f} MB; client loop lag p95 {m.lag_p95:.0f} ms; "
            f"{fmt(cpu_per_change(m, r.window, len(ms)), 1)} ms of the server's CPU per answer "
            "(the dashboard and the students' looks included)"
        )
        if r.runs_by_process:
            print(
                "  behind nginx: script runs per process "
                + "/".join(str(k) for k in r.runs_by_process)
                + ", CPU per process "
                + "/".join(f"{c:.2f}" for c in m.per_process)
                + f" cores, nginx {m.proxy:.2f} cores"
            )
        if m.client >= CLIENT_SATURATED:
            print("  the client saturated a core: these times include its own delay.")
    shown = "not read" if r.shown_guesses is None else str(r.shown_guesses)
    print(
        f"  guesses on the dashboard after the players stopped: {shown}; answers accepted: "
        f"{r.accepted}" + ("" if r.shown_guesses in (None, r.accepted) else "  (differ)")
    )
    print(f"  errors: {len(r.errors)}" + ("" if not r.errors else " -- not a valid measurement"))
    for e in r.errors[:5]:
        print(f"    {e[:160]}")


def print_storage(r: StorageResult, players: int) -> None:
    print(f"\nStorage ({r.backend}), appkit.classroom in this process:")
    p99 = pct(r.guesses, 0.99)
    print(
        f"  a stored guess, {players} players once a second ({len(r.guesses)} guesses): "
        f"p50 {fmt(pct(r.guesses, 0.5), 1)} ms, p95 {fmt(pct(r.guesses, 0.95), 1)} ms, "
        f"p99 {fmt(p99, 1)} ms, max {fmt(max(r.guesses) if r.guesses else None, 1)} ms "
        f"-- target p99 <= {TARGET_GUESS_P99_MS:.0f} ms: {verdict(p99, TARGET_GUESS_P99_MS)}"
    )
    print(
        f"  the dashboard's read meanwhile (Store.results, growing class): "
        f"p50 {fmt(pct(r.reads_under_load, 0.5), 1)} ms, max "
        f"{fmt(max(r.reads_under_load) if r.reads_under_load else None, 1)} ms"
    )
    med = statistics.median(r.open_refresh) if r.open_refresh else None
    print(
        f"  dashboard refresh, {players} players x {CLASS_ROUNDS} rounds, class open "
        f"(Store.results): median {fmt(med, 1)} ms, max "
        f"{fmt(max(r.open_refresh) if r.open_refresh else None, 1)} ms "
        f"-- target <= {TARGET_DASHBOARD_MS:.0f} ms: {verdict(med, TARGET_DASHBOARD_MS)}"
    )
    cmed = statistics.median(r.closed_refresh) if r.closed_refresh else None
    print(
        f"  dashboard refresh, class closed (the class picture): median {fmt(cmed, 1)} ms "
        f"(first refresh, luck lessons not cached yet: {fmt(r.closed_first, 1)} ms) "
        f"-- target <= {TARGET_DASHBOARD_MS:.0f} ms: {verdict(cmed, TARGET_DASHBOARD_MS)}"
    )
    print(
        "    of which (median ms): " + ", ".join(f"{k} {v:.1f}" for k, v in r.closed_parts.items())
    )
    if r.errors:
        print(f"  errors: {len(r.errors)}: {r.errors[0][:160]}")


# --------------------------------------------------------------------------- main


def config_env(options: list[str]) -> dict[str, str]:
    """``runner.postScriptGC=false`` -> ``{"STREAMLIT_RUNNER_POST_SCRIPT_GC": "false"}``: how
    Streamlit reads an option from the environment (over ``.streamlit/config.toml``)."""
    from streamlit import config
    from streamlit.string_util import to_snake_case

    known = config.get_config_options()
    env = {}
    for option in options:
        name, sep, value = option.partition("=")
        if not sep or name not in known:
            raise SystemExit(f"--server-config {option!r}: give a Streamlit option=value")
        env[f"STREAMLIT_{to_snake_case(name.replace('.', '_')).upper()}"] = value
    return env


async def _phase(
    n: int, site: Site, args: argparse.Namespace, env: dict[str, str], **kw: Any
) -> PhaseResult:
    """A sessions phase; an exception ends it as a result with that error."""
    try:
        res = await sessions_phase(n, site, args, env, **kw)
    except Exception as exc:
        res = PhaseResult(
            n, [], [], None, 0.0, [], [f"{type(exc).__name__}: {exc}"], 0.0, site.name
        )
    progress(
        f"N = {n}, {site.name}: p50 {fmt(pct(res.ok_ms(), 0.5))} ms, p95 {fmt(res.p95)} ms, "
        f"{len(res.errors)} errors"
    )
    return res


async def run(args: argparse.Namespace) -> None:
    import streamlit

    print(
        f"MIP Explorer capacity, measured at the server: streamlit {streamlit.__version__}, "
        f"Python {sys.version.split()[0]}; {machine_line()}; {load_text()} at start."
    )
    with (
        tempfile.TemporaryDirectory(prefix="mip-capacity-data-") as data,
        contextlib.ExitStack() as stack,
    ):
        if args.proxy:
            find_nginx()  # before starting anything
            if not args.database_url:
                args.database_url = stack.enter_context(throwaway_postgres())
                print(
                    "Storage: a throw-away PostgreSQL for this run (as .ci/postgres starts one: "
                    "fsync and synchronous commits off)."
                )
            print(
                "Topology: two app processes behind nginx running deploy/nginx.conf, one "
                "PostgreSQL; the sessions connect from 127.0.0.1 (a class behind one address), "
                "each sent to a process by its route cookie."
            )
        env = {"MIP_EXPLORER_DATA_DIR": data, **config_env(args.server_config)}
        if args.database_url:
            env["MIP_EXPLORER_DATABASE_URL"] = args.database_url
        if args.server_config:
            print(
                f"Server options: {', '.join(args.server_config)} (beside .streamlit/config.toml)."
            )
        anchors: dict[str, Site] = {}
        for name in args.anchor:
            if name == "replay":
                replays = Path(data) / "replays"
                replays.mkdir(exist_ok=True)
                progress("recording one rerun after a change on each page of the mix")
                for problem in await record_replays(replays, env):
                    print(f"Replay not recorded: {problem}")
                env = {**env, "MIPB_REPLAY_DIR": str(replays)}
                anchors[name] = replay_site(replays)
            else:
                anchors[name] = floor_site(name)
        if args.skip_bare:
            anchors = {}
        if args.soak:
            n = args.sessions[0]
            soak = await _phase(n, APP, args, env, duration=60 * args.soak, sample_s=SOAK_SAMPLE_S)
            beside = {k: await _phase(n, a, args, env) for k, a in anchors.items()}
            print_soak(soak, args.soak, args.think, args.proxy)
            for k in anchors:
                print_against_bare([(f"soak, N = {n}", soak, beside[k])], k)
            print(f"\n{load_text()} at the end.")
            return
        pairs: dict[str, list[tuple[str, PhaseResult | ClassResult, PhaseResult | None]]] = {
            k: [] for k in anchors
        }
        if not args.skip_sessions:
            results: list[PhaseResult] = []
            floors: dict[str, list[PhaseResult]] = {k: [] for k in anchors}
            for n in args.sessions:
                results.append(await _phase(n, APP, args, env))
                for k, a in anchors.items():
                    floors[k].append(await _phase(n, a, args, env))
            print_sessions(results, args.think, args.proxy)
            for k, a in anchors.items():
                print(
                    f"\nThe anchor {k!r}, the same N and pace ({a.script}, "
                    f"{', '.join(sorted({m.path for m in a.mix}))}):"
                )
                _session_table(floors[k], args.think)
                _phase_notes([b for b in floors[k] if b.errors])
                pairs[k] += [
                    (f"sessions, N = {r.n}", r, floors[k][i]) for i, r in enumerate(results)
                ]
        if not args.skip_class:
            try:
                cres = await class_phase(args, env)
            except Exception as exc:
                print(f"\nClass mode aborted: {type(exc).__name__}: {exc}")
            else:
                print_class(cres, args.answer_every)
                for k, a in anchors.items():
                    beside_class = await _phase(args.players, a, args, env, every=args.answer_every)
                    pairs[k].append((f"class, {args.players} players", cres, beside_class))
        for k in anchors:
            print_against_bare(pairs[k], k)
        if not args.skip_storage:
            with tempfile.TemporaryDirectory(prefix="mip-capacity-store-") as store_dir:
                try:
                    sres = await asyncio.to_thread(storage_phase, args, store_dir)
                except Exception as exc:
                    print(f"\nStorage aborted: {type(exc).__name__}: {exc}")
                else:
                    print_storage(sres, args.players)
    print(f"\n{load_text()} at the end.")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    exit_on_sigterm()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    t0 = time.monotonic()
    try:
        asyncio.run(run(args))
    except KeyboardInterrupt:
        print("interrupted; servers stopped.")
    print(f"Run time {time.monotonic() - t0:.0f} s.")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sessions",
        type=lambda s: tuple(int(x) for x in s.split(",")),
        default=None,
        help=f"comma-separated N (default {','.join(map(str, SESSIONS))}; with --soak one N, "
        f"default {SOAK_SESSIONS})",
    )
    parser.add_argument("--duration", type=float, default=None, help="s measured per phase")
    parser.add_argument("--warmup", type=float, default=WARMUP_S, help="s discarded first")
    parser.add_argument("--think", type=float, default=THINK_S, help="s between two changes")
    parser.add_argument("--players", type=int, default=PLAYERS, help="players in class mode")
    parser.add_argument(
        "--answer-every", type=float, default=ANSWER_EVERY_S, help="s between two answers"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"N = {','.join(map(str, QUICK_SESSIONS))}, {QUICK_DURATION_S:g} s windows",
    )
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="two app processes behind Debian's nginx running deploy/nginx.conf, on one "
        "PostgreSQL (--database-url, else a throw-away one), measured through nginx",
    )
    parser.add_argument(
        "--soak",
        type=float,
        default=None,
        metavar="MINUTES",
        help="only a soak: N sessions (--sessions, one value) for MINUTES, the app's RSS "
        f"sampled every {SOAK_SAMPLE_S:g} s and printed minute by minute",
    )
    parser.add_argument(
        "--skip-bare",
        action="store_true",
        help="no bare-page phase beside each phase (no CPU and p95 ratios)",
    )
    parser.add_argument(
        "--anchor",
        default="bare",
        type=lambda text: [a for a in text.split(",") if a],
        help="comma-separated floor app's pages, each beside each phase (default bare; "
        "vega_app_chart: one Vega-Lite chart following the slider; replay: each page of the mix "
        "replaying a rerun recorded from the app, computing nothing)",
    )
    parser.add_argument("--skip-sessions", action="store_true")
    parser.add_argument("--skip-class", action="store_true")
    parser.add_argument("--skip-storage", action="store_true")
    parser.add_argument(
        "--database-url",
        default="",
        help="class storage (default: SQLite in a temporary folder; with --proxy a throw-away "
        "PostgreSQL)",
    )
    parser.add_argument(
        "--server-config",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="a Streamlit option for the servers, e.g. runner.postScriptGC=false (repeatable; "
        "passed as STREAMLIT_RUNNER_POST_SCRIPT_GC=false)",
    )
    args = parser.parse_args(argv)
    if args.soak is not None:
        if args.soak <= 0:
            parser.error(f"--soak {args.soak:g}: give the minutes, a positive number")
        if args.sessions is not None and len(args.sessions) != 1:
            parser.error("--soak runs one N: give --sessions a single number")
        args.sessions = args.sessions or (SOAK_SESSIONS,)
    if args.sessions is None:
        args.sessions = QUICK_SESSIONS if args.quick else SESSIONS
    if args.duration is None:
        args.duration = QUICK_DURATION_S if args.quick else DURATION_S
    return args


if __name__ == "__main__":
    sys.exit(main())
