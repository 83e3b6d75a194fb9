"""Every use of a Streamlit internal, in one place (checked against Streamlit 1.67).

Streamlit offers no public way to ask the things a heavy job needs to know while it waits
inside a script run:

* :func:`script_run` -- is this code running inside a script run, and which one
  (the session, the page)? (``get_script_run_ctx``)
* :func:`in_fragment` / :func:`in_fragment_rerun` -- is it inside a fragment, and is the
  run a rerun of that fragment alone (not a full run that calls the fragment on its way)?
  (``ThreadState.fragment_id``, ``ScriptRunContext.fragment_ids_this_run``)
* :func:`waiting_rerun` -- has the user changed a control since the run began, and does that
  rerun the whole page or only a fragment? A fragment's rerun never interrupts a running
  script: Streamlit queues it, so a job must give way itself.
  (``ScriptRequests._state`` and ``_rerun_data``, read as Streamlit's own fast path reads them)
* :func:`session_active` -- is the browser tab of this run still connected?
  (``Runtime.is_active_session``)
* :func:`run_stopped` / :func:`end_run` -- has Streamlit asked this run to stop, because a newer
  run has the page now, and how does the run end without writing to a page that is no longer
  its own? With ``runner.fastReruns`` (Streamlit's default) a page switch or a control outside
  every fragment starts the new run at once, in a thread of its own, and only *asks* the
  running one to stop: it notices at its next write, which by then may go to a container the
  new run has already cleared. (``ScriptRequests._state``, ``StopException``; the write that
  fails raises :data:`LayoutContextError`, ``streamlit.errors.StreamlitInvalidLayoutContextError``)
* :func:`browser_token` -- which browser is this (the heavy-job line gives one place per
  browser, all its tabs together)? The XSRF cookie is the same for every tab, but written
  again, newly masked, with every page a tab loads: only its unmasked token is stable.
  (``starlette_app_utils.decode_xsrf_token_string``)

one thing a busy server needs:

* :func:`coalesce_wakeups` -- one wake-up of Streamlit's event loop per batch of a session's
  messages, not one per message (the session's ``_call_soon_on_event_loop``, its
  ``_event_loop`` and its ``_message_enqueued_callback``, reached through
  ``Runtime._session_mgr.get_active_session_info``);

and one thing a chart needs to be cheap on every press:

* :func:`arrow_bytes` -- a table as the Arrow bytes Streamlit sends for a chart's named
  dataset (``dataframe_util.convert_anything_to_arrow_bytes``). ``st.vega_lite_chart`` sends
  a named dataset given as bytes as it is, so a table drawn again unchanged (the game's laws,
  the same in every round) is converted once (:func:`appkit.chart`).

Nothing here hides a failure: the imports are at module level and :func:`check` (run when
this module is imported) looks up every attribute used, so a Streamlit upgrade that moves or
renames one stops the app at start with a sentence naming it, instead of switching Stop and
stop-on-tab-close off in silence. ``tests/test_internals.py`` exercises each function against
the real Streamlit classes.
"""

from __future__ import annotations

import hashlib
import inspect
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

import pandas as pd
import pyarrow as pa
import streamlit as st
from streamlit import dataframe_util
from streamlit.errors import StreamlitInvalidLayoutContextError
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.scriptrunner_utils.script_requests import (
    RerunData,
    ScriptRequests,
    ScriptRequestType,
)
from streamlit.runtime.scriptrunner_utils.script_run_context import (
    FragmentThreadState,
    ScriptRunContext,
    ThreadState,
)
from streamlit.runtime.session_manager import SessionManager
from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string
from streamlit.web.server.starlette.starlette_server_config import XSRF_COOKIE_NAME

__all__ = [
    "LayoutContextError",
    "RunInfo",
    "StopException",
    "arrow_bytes",
    "browser_id",
    "browser_token",
    "check",
    "coalesce_wakeups",
    "end_run",
    "in_fragment",
    "in_fragment_rerun",
    "run_stopped",
    "script_run",
    "session_active",
    "waiting_rerun",
]


@dataclass(frozen=True)
class RunInfo:
    """The script run this code belongs to."""

    session_id: str
    page_script_hash: str


def _ctx() -> ScriptRunContext | None:
    return get_script_run_ctx(suppress_warning=True)


def script_run() -> RunInfo | None:
    """The current script run's session and page, or None outside a script run."""
    ctx = _ctx()
    if ctx is None:
        return None
    return RunInfo(ctx.session_id, ctx.page_script_hash)


def in_fragment() -> bool:
    """Whether this code runs inside a fragment (during a full run or a fragment rerun)."""
    if _ctx() is None:
        return False
    return ThreadState.get().fragment_id is not None


def in_fragment_rerun() -> bool:
    """Whether this run reruns fragments only; only then may it ask for
    ``st.rerun(scope="fragment")`` (Streamlit refuses it during a full run)."""
    ctx = _ctx()
    return ctx is not None and in_fragment() and bool(ctx.fragment_ids_this_run)


def _pending(requests: ScriptRequests) -> Literal["app", "fragment"] | None:
    if requests._state is not ScriptRequestType.RERUN:
        return None
    data: RerunData = requests._rerun_data
    if data.fragment_id or data.fragment_id_queue or data.is_fragment_scoped_rerun:
        return "fragment"
    return "app"


def waiting_rerun() -> Literal["app", "fragment"] | None:
    """The rerun the user asked for since this run began: ``"app"`` (a page switch, a widget
    outside every fragment: Streamlit interrupts the run at its next element), ``"fragment"``
    (a fragment's widget: Streamlit waits for the run to end), or None."""
    ctx = _ctx()
    if ctx is None or ctx.script_requests is None:
        return None
    return _pending(ctx.script_requests)


# What Streamlit raises when a run writes where it may not: among others, a fragment's run
# writing to a container outside it whose place a newer full run has cleared.
LayoutContextError = StreamlitInvalidLayoutContextError


def _stopped(requests: ScriptRequests) -> bool:
    return requests._state is ScriptRequestType.STOP


def run_stopped() -> bool:
    """Whether Streamlit has asked this script run to stop: a newer run of the session has the
    page (a page switch, a control outside every fragment: with ``runner.fastReruns`` the new
    run starts at once in a thread of its own, and this one only learns of it at its next
    write), or the session is closing. False outside a script run."""
    ctx = _ctx()
    if ctx is None or ctx.script_requests is None:
        return False
    return _stopped(ctx.script_requests)


def end_run() -> NoReturn:
    """End this script run as Streamlit ends a stopped one, writing nothing first.

    ``st.stop()`` finds its stop by writing an empty element; in a fragment's run that a newer
    full run has replaced, that write goes to a container the new run has cleared, and
    Streamlit raises ``StreamlitInvalidLayoutContextError`` there before it looks for the stop.
    """
    raise StopException()


def session_active() -> bool:
    """False once the browser tab of this run has gone (True outside a server)."""
    ctx = _ctx()
    if ctx is None or not Runtime.exists():
        return True
    return bool(Runtime.instance().is_active_session(ctx.session_id))


def browser_token(xsrf_cookie: str) -> bytes | None:
    """The token inside an XSRF cookie (the same for every tab of a browser), or None."""
    token, _ = decode_xsrf_token_string(xsrf_cookie)
    return token


def browser_id() -> str | None:
    """This run's browser: a digest of the token inside its XSRF cookie (the same for every
    tab and every reload of one browser), never the token itself; None outside a browser
    session (no script run, no cookie, or a cookie that is not Streamlit's)."""
    if script_run() is None:
        return None
    cookie = st.context.cookies.get(XSRF_COOKIE_NAME)
    token = browser_token(cookie) if isinstance(cookie, str) and cookie else None
    return hashlib.blake2b(token, digest_size=12).hexdigest() if token else None


def _source(fn: Any) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


def check() -> None:
    """Raise ``RuntimeError`` naming the first internal this module uses that Streamlit no
    longer has (run at import, and by the tests)."""
    probes: list[tuple[str, Any, str]] = [
        ("ThreadState", ThreadState, "get"),
        ("ScriptRunContext", ScriptRunContext, "__dataclass_fields__"),
        ("Runtime", Runtime, "is_active_session"),
        ("Runtime", Runtime, "exists"),
        ("Runtime", Runtime, "instance"),
        ("ScriptRunContext", ScriptRunContext, "page_script_hash"),
        ("dataframe_util", dataframe_util, "convert_anything_to_arrow_bytes"),
        ("dataframe_util", dataframe_util, "convert_arrow_table_to_arrow_bytes"),
        ("dataframe_util", dataframe_util, "get_arrow_conversion_errors"),
        ("SessionManager", SessionManager, "get_active_session_info"),
    ]
    missing = [f"{owner}.{attr}" for owner, obj, attr in probes if not hasattr(obj, attr)]
    fields = getattr(ScriptRunContext, "__dataclass_fields__", {})
    missing += [
        f"ScriptRunContext.{name}"
        for name in ("session_id", "script_requests", "fragment_ids_this_run")
        if name not in fields
    ]
    requests = ScriptRequests()
    missing += [
        f"ScriptRequests.{name}"
        for name in ("_state", "_rerun_data")
        if not hasattr(requests, name)
    ]
    rerun_fields = getattr(RerunData, "__dataclass_fields__", {})
    missing += [
        f"RerunData.{name}"
        for name in ("fragment_id", "fragment_id_queue", "is_fragment_scoped_rerun")
        if name not in rerun_fields
    ]
    if "fragment_id" not in getattr(FragmentThreadState, "__dataclass_fields__", {}):
        missing.append("FragmentThreadState.fragment_id")
    if "self._message_enqueued_callback" not in _source(AppSession._enqueue_forward_msg):
        missing.append("AppSession._message_enqueued_callback")
    hand_off = getattr(AppSession, "_call_soon_on_event_loop", None)
    if "self._call_soon_on_event_loop(" not in _source(
        getattr(AppSession, "_on_scriptrunner_event", None)
    ):
        missing.append("AppSession._on_scriptrunner_event → _call_soon_on_event_loop")
    if hand_off is None or "self._event_loop.call_soon_threadsafe" not in _source(hand_off):
        missing.append("AppSession._call_soon_on_event_loop")
    if "self._event_loop" not in _source(AppSession.__init__):
        missing.append("AppSession._event_loop")
    if "_session_mgr" not in _source(Runtime.__init__):
        missing.append("Runtime._session_mgr")
    if missing:
        raise RuntimeError(
            "appkit.internals: this Streamlit no longer has "
            + ", ".join(missing)
            + "; heavy jobs could not give way to a newer input or stop when their tab closes. "
            "Update appkit/internals.py for this Streamlit version (tests/test_internals.py)."
        )


check()


def coalesce_wakeups() -> bool:
    """Let this run's session wake Streamlit's event loop once per batch, not once per message.

    Every element a run writes reaches the browser in two hand-offs, each a
    ``call_soon_threadsafe`` (a write to the loop's wake-up socket: a system call that releases
    the GIL and, on a busy server, waits to get it back):

    1. the script's thread hands each message to the event loop
       (``AppSession._on_scriptrunner_event`` → ``AppSession._call_soon_on_event_loop``);
    2. the loop, having queued it, asks itself to flush the session's queue
       (``AppSession._message_enqueued_callback``, ``Runtime._enqueued_some_message``).

    A change on a page writes 30-70 elements: twice as many system calls. Wrapped here, each
    hand-off is a queue: a callback joins the session's queue and the loop is woken only if no
    wake-up is pending; the loop then runs every queued callback, in the order they came
    (the mark is cleared on the loop before it runs them, so one that comes later asks again).
    Returns whether it wrapped (once per session; False outside a script run or a server)."""
    ctx = _ctx()
    if ctx is None or not Runtime.exists():
        return False
    runtime = Runtime.instance()
    manager = getattr(runtime, "_session_mgr", None)  # AppTest's stand-in runtime has none
    info = None if manager is None else manager.get_active_session_info(ctx.session_id)
    if info is None or not isinstance(info.session, AppSession):
        return False
    session = info.session
    wake = session._message_enqueued_callback
    if wake is None or getattr(wake, "coalesced", False):
        return False
    loop = session._event_loop
    handed: deque[Callable[[], None]] = deque()
    pending = [False, False]  # a wake-up asked for: the hand-offs, the flush

    def run_handed() -> None:  # on the event loop, in the order the callbacks came
        pending[0] = False
        while handed:
            callback = handed.popleft()
            try:
                callback()
            except Exception as exc:  # as the loop would have reported it, and go on
                loop.call_exception_handler(
                    {"message": "Exception in a session callback", "exception": exc}
                )

    def hand(callback: Callable[[], None]) -> None:  # on any thread
        handed.append(callback)  # first queued, then asked: a drain never misses it
        if not pending[0]:
            pending[0] = True
            try:
                loop.call_soon_threadsafe(run_handed)
            except RuntimeError:  # the loop is closed (shutdown): drop, as Streamlit does
                if not loop.is_closed():
                    raise
                handed.clear()

    def woken() -> None:  # on the event loop: later messages ask again
        pending[1] = False
        wake()

    def coalesced() -> None:  # on any thread
        if not pending[1]:
            pending[1] = True
            loop.call_soon_threadsafe(woken)

    coalesced.coalesced = True  # type: ignore[attr-defined]
    session._message_enqueued_callback = coalesced
    session._call_soon_on_event_loop = hand  # type: ignore[method-assign]
    return True


def arrow_bytes(table: Any) -> bytes:
    """``table`` as the Arrow IPC bytes Streamlit sends for it (a chart's named dataset).

    A pandas frame is converted in the calling thread (``pyarrow.Table.from_pandas`` with
    ``nthreads=1``), then serialised as Streamlit serialises a table: the same bytes as
    Streamlit's own conversion, whose ``from_pandas`` starts a pool of threads for any frame of
    a few hundred cells (about 0.9 ms of a 1.4 ms conversion, and threads that only wait for
    the GIL). A frame pyarrow refuses goes through Streamlit's conversion, with its fixes."""
    if isinstance(table, pd.DataFrame):
        try:
            converted = pa.Table.from_pandas(table, nthreads=1)
        except dataframe_util.get_arrow_conversion_errors():
            pass
        else:
            return bytes(dataframe_util.convert_arrow_table_to_arrow_bytes(converted))
    return bytes(dataframe_util.convert_anything_to_arrow_bytes(table))
