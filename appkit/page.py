"""The one page shape: a header from the registry, charts with their data, a footer.

Every page script reads::

    page = appkit.page("eta_epsilon")      # title = the question, subtitle, messages
    eps = appkit.url_slider(...)           # widgets bound to the URL
    result = appkit.cached(lesson.fn, eps)  # one mipcore call, cached for the server
    appkit.chart(appkit.cached(figs.builder, result), result.table, "name")
    st.markdown(f"... {result.x} ...")     # the page writes the sentences
    appkit.finish(page)                    # data downloads, link to this view

or, for a page with much static text, the same with the live part in a fragment::

    page = appkit.page("eta_epsilon")
    main = st.container()                  # where the live part goes
    st.markdown("... static text ...")     # drawn once, never rerun by a slider
    def _live():
        with main:
            eps = appkit.url_slider(...)   # a move reruns only _live and the footer
            ...
    appkit.live(page, _live)               # instead of appkit.finish(page)

:func:`page` also restores the page's last state when the user comes back to it through
the sidebar (Streamlit drops the query string on a page switch), and sets the browser tab's
title to the page's question. :func:`explain` holds long explanations (folded away in
presenter mode); :func:`takeaway` is the one sentence a chart must leave (always shown).
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from mipcore.plots import vega
from mipcore.plots.vega import VegaLiteChart, scaled

from . import cache, internals, turns
from .cache import cached
from .errors import LIVE, Halt
from .registry import PageSpec, by_key
from .safe import plain
from .state import messages, url_toggle
from .theme import inject

# Altair's chart specifications (mipcore.plots.curves) are kept in the app's one bounded cache.
vega.SPEC_MEMO = cached

__all__ = [
    "Page",
    "chart",
    "csv_bytes",
    "explain",
    "finish",
    "folded",
    "live",
    "page",
    "presenter",
    "takeaway",
    "view_url",
]

_URLS = "_appkit_page_urls"  # page key -> its last query string (plain session key)
_LAST = "_appkit_last_page"
_PRESENT = "present"


@dataclass
class Page:
    """The page being drawn: its registry entry, the data of its charts (for the footer) and
    the containers its live part writes into (:meth:`slot`)."""

    spec: PageSpec
    downloads: list[tuple[str, str, pd.DataFrame]] = field(default_factory=list)
    slots: list[Any] = field(default_factory=list)

    def slot(self) -> Any:
        """A container, here in the page, that the live part (:func:`live`) fills.

        Use it instead of ``st.container()`` for every container the live part writes into:
        :func:`live` reserves each one at the start of every run. Streamlit lets a fragment's
        rerun write into a container created outside it only if the page's last full run
        wrote there; a first load cut short (a link value refused with ``guard(stop=True)``)
        would otherwise break every later move of a control on the page.
        """
        container = st.container()
        self.slots.append(container)
        return container


def _current() -> Page | None:
    return st.session_state.get("_appkit_current_page")


def _tab_title(spec: PageSpec) -> str:
    short = spec.title if len(spec.title) <= 48 else spec.title[:47].rstrip() + "…"
    return short if spec.key == "home" else f"{short} · MIP Explorer"


def page(key: str) -> Page:
    """Start the page ``key`` of :mod:`appkit.registry`: tab title, header, message area."""
    spec = by_key(key)
    urls: dict[str, dict[str, list[str]]] = st.session_state.setdefault(_URLS, {})
    arrived = st.session_state.get(_LAST) != key
    st.session_state[_LAST] = key
    if arrived and not st.query_params and urls.get(key):
        # back through the sidebar: Streamlit dropped the query string, the session kept it
        for k, values in urls[key].items():
            st.query_params[k] = values if len(values) > 1 else values[0]
    st.set_page_config(page_title=_tab_title(spec), page_icon=spec.icon)
    inject(presenter())
    st.title(spec.title)
    st.caption(spec.subtitle)
    messages()
    current = Page(spec)
    st.session_state["_appkit_current_page"] = current
    return current


def presenter() -> bool:
    """Whether presenter mode is on (``?present=1``; the toggle lives in the sidebar)."""
    return bool(st.session_state.get(_PRESENT, st.query_params.get(_PRESENT) in ("1", "true")))


def presenter_toggle() -> bool:
    """The sidebar toggle for presenter mode (``app.py`` draws it once for every page).

    It keeps its value across pages (the sidebar's links carry no query string), but a link
    that says ``?present=1`` -- the home page's lesson links -- turns it on: this toggle
    removes the parameter from the URL whenever it is off, so a ``present=1`` beside an
    off toggle can only come from a link just opened."""
    if st.query_params.get(_PRESENT) in ("1", "true") and st.session_state.get(_PRESENT) is False:
        st.session_state[_PRESENT] = True
    return url_toggle(
        "Presenter mode (large type, short text)",
        _PRESENT,
        default=False,
        help="For a projector: larger text and charts, long explanations folded away.",
        container=st.sidebar,
        owner="app",
    )


def explain(markdown: str, *, label: str = "Why? The longer explanation") -> None:
    """A long explanation: shown inline, or folded into an expander in presenter mode."""
    if presenter():
        with st.expander(label):
            st.markdown(markdown)
    else:
        st.markdown(markdown)


def folded_key(page_key: str, label: str) -> str:
    """The session key of the open state of :func:`folded` section ``label`` on a page."""
    return f"_appkit_folded_{page_key}_{label}"


@contextmanager
def folded(label: str = "The maths", *, name: str | None = None) -> Iterator[bool]:
    """A collapsed section whose content is drawn only once a reader opens it.

    ``with appkit.folded("The maths") as shown:`` then ``if shown:`` around the content.
    Opening it reruns the page (or the fragment it sits in) with the content; closing it drops
    the content again. A page's first load then carries none of it: no formula, so not the
    KaTeX renderer either (about 260 KB of JavaScript and a font, loaded with the first formula
    a page shows: about 0.1 s of a first load on a 2-core machine). The open state lives in the
    session under a key named after the page and ``name`` (default: ``label``; a label that
    carries a count needs a name that does not).
    """
    current = _current()
    key = folded_key(current.spec.key if current else "", name or label)
    section = st.expander(label, key=key, on_change="rerun")
    with section:
        yield bool(section.open)


def takeaway(markdown: str) -> None:
    """The one sentence a chart leaves (always visible, also in presenter mode)."""
    st.markdown(f"**{markdown}**" if not markdown.startswith("**") else markdown)


_ARROW_ENTRIES = 64  # tables whose Arrow bytes are kept while they live
_arrow_lock = threading.Lock()
_arrow_kept: OrderedDict[int, tuple[weakref.ref[pd.DataFrame], bytes]] = OrderedDict()


def _arrow(table: pd.DataFrame) -> bytes:
    """A shared chart's table as Arrow bytes, converted once while the table lives: a cached
    chart's tables are read-only (see :mod:`appkit.cache`), and one drawn again unchanged --
    the game's laws, the same object in every round -- is not converted again (3 ms a
    round). Kept by identity for at most :data:`_ARROW_ENTRIES` tables; an entry
    whose table is gone is never used (its id may be another table's now)."""
    with _arrow_lock:
        kept = _arrow_kept.get(id(table))
        if kept is not None and kept[0]() is table:
            _arrow_kept.move_to_end(id(table))
            return kept[1]
    data = internals.arrow_bytes(table)
    with _arrow_lock:
        _arrow_kept[id(table)] = (weakref.ref(table), data)
        _arrow_kept.move_to_end(id(table))
        while len(_arrow_kept) > _ARROW_ENTRIES:
            _arrow_kept.popitem(last=False)
    return data


def _own_copy(spec: dict[str, Any]) -> dict[str, Any]:
    """What ``st.vega_lite_chart`` may change of a shared (cached) specification, copied: its
    top level (it sets ``autosize``, ``datasets``) and a top-level encoding's colour channel
    (it patches a ``None`` legend title there); the rest is only read. A deep copy of every
    chart's specification cost 0.1-1 ms a chart on every press."""
    out = dict(spec)
    encoding = out.get("encoding")
    if isinstance(encoding, dict):
        out["encoding"] = dict(encoding)
        if isinstance(encoding.get("color"), dict):
            colour = dict(encoding["color"])
            if isinstance(colour.get("legend"), dict):
                colour["legend"] = dict(colour["legend"])
            out["encoding"]["color"] = colour
    return out


def chart(
    fig: VegaLiteChart,
    data: pd.DataFrame | None = None,
    name: str | None = None,
    *,
    key: str | None = None,
    caption: str | None = None,
) -> None:
    """Show a chart with the app's configuration; its ``data`` goes to the footer.

    ``fig`` is a :class:`~mipcore.plots.vega.VegaLiteChart` (drawn by Vega-Lite from its own
    tables, sent as Arrow tables and updated in place when only they change). ``name`` names
    the CSV (``name.csv``) in the page's "Data behind the charts" section (:func:`finish`).
    Streamlit's own chart theme is off: the chart carries the app's style
    (:mod:`mipcore.plots.style`). In presenter mode its text is 1.25× larger.
    """
    if not isinstance(fig, VegaLiteChart):
        raise TypeError(
            f"appkit.chart draws a VegaLiteChart (mipcore.plots), not a {type(fig).__name__}"
        )
    spec = scaled(fig.spec, 1.25) if presenter() else _own_copy(fig.spec)
    if fig.datasets:  # sent as Arrow tables, updated in place
        shared = cache.is_shared(fig)
        spec["datasets"] = {
            k: _arrow(t) if shared else internals.arrow_bytes(t) for k, t in fig.datasets.items()
        }
    st.vega_lite_chart(fig.data, spec, key=key, theme=None, width="stretch")
    title = fig.title
    if caption:
        st.caption(caption)
    current = _current()
    if data is not None and current is not None:
        label = name or key or f"chart_{len(current.downloads) + 1}"
        current.downloads.append((label, title, data))


def live(current: Page, body: Callable[[], None]) -> None:
    """Run the page's live part, ``body``, as a fragment, then the footer below everything.

    A widget that ``body`` draws reruns only ``body`` and the footer: the page's header and
    whatever the script wrote outside ``body`` (explanations, formulas) are neither run,
    sent nor redrawn again. ``body`` writes into containers the page created for it
    (``with main: ...``); the footer is the fragment's own last element, at the end of the
    page (call :func:`live` last). It is drawn on every run, also when ``body`` stops early
    through :func:`appkit.guard` (``stop=True``): Streamlit lets a fragment's rerun write
    only where the page's last full run wrote, so a first load cut short must still leave
    the footer in place.
    """

    def run() -> None:
        with turns.hold():  # a live part's rerun waits its turn (appkit.turns)
            _run()

    def _run() -> None:
        current.downloads.clear()  # a fragment rerun registers its charts' data again
        for slot in current.slots:  # reserve every slot, whatever the body reaches
            with slot:
                st.empty()
        LIVE.on = True
        try:
            body()
        except Halt:
            pass
        finally:
            LIVE.on = False
        finish(current)

    st.fragment(run)()


def csv_bytes(data: pd.DataFrame) -> bytes:
    """The CSV a chart's download serves: UTF-8, no index, empty cells for NaN/inf."""
    clean = data.replace([float("inf"), float("-inf")], float("nan"))
    return clean.to_csv(index=False, na_rep="").encode("utf-8")


DATA_SECTION = "Data behind the charts"  # the footer's folded sections (appkit.folded)
LINK_SECTION = "Link to this view"


def finish(current: Page) -> None:
    """The page's footer: its charts' data as CSV, a link to this exact view, a reset."""
    urls: dict[str, dict[str, list[str]]] = st.session_state.setdefault(_URLS, {})
    state = {k: st.query_params.get_all(k) for k in st.query_params}
    state.pop(_PRESENT, None)
    urls[current.spec.key] = state
    st.divider()
    # Both sections are drawn when opened (appkit.folded): on every change the footer sends
    # two folded headings, not its download buttons, link and reset button again.
    cols = st.columns([3, 2])
    with cols[0]:
        if current.downloads:
            label = f"Data behind the charts ({len(current.downloads)} CSV files)"
            with folded(label, name=DATA_SECTION) as shown:
                for i, (name, title, data) in enumerate(current.downloads if shown else ()):
                    st.download_button(
                        f"{name}.csv" + (f" — {plain(title, max_chars=90)}" if title else ""),
                        functools.partial(csv_bytes, data),  # built only when clicked
                        file_name=f"{name}.csv",
                        mime="text/csv",
                        key=f"_csv_{current.spec.key}_{i}",
                        on_click="ignore",
                        icon=":material/download:",
                    )
    with cols[1], folded(LINK_SECTION) as shown:
        if shown:
            _link(current, urls, state)


def _link(
    current: Page, urls: dict[str, dict[str, list[str]]], state: dict[str, list[str]]
) -> None:
    """The footer's link to this view and its reset button."""
    url = view_url()
    # Plain text, not st.code: a code block loads a 1.6 MB syntax highlighter on every
    # page's first load for one line (measured in Chromium: its only lazily loaded chunk).
    st.text(url)
    st.caption("Select and copy it: anyone who opens it sees this page with these settings.")
    if st.button("Reset this page to its defaults", key=f"_reset_{current.spec.key}"):
        urls.pop(current.spec.key, None)
        keep = {k: v for k, v in st.query_params.items() if k == _PRESENT}
        st.query_params.clear()
        st.query_params.update(keep)
        for k in list(state):
            st.session_state.pop(k, None)
        st.rerun()


def view_url() -> str:
    """The full URL of this view (host from the browser's request when known)."""
    try:
        base = str(st.context.url or "").split("?")[0]
    except Exception:  # pragma: no cover - outside a browser session (AppTest)
        base = ""
    pairs = [(k, v) for k in st.query_params for v in st.query_params.get_all(k) if k != _PRESENT]
    query = urlencode(pairs, safe=",")
    return base + (f"?{query}" if query else "")
