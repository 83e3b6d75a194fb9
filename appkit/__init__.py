"""Streamlit glue shared by the pages of MIP Explorer.

``mipcore`` never imports Streamlit; everything that touches the UI lives here or in
``app_pages/``. One page shape (:func:`page` … :func:`finish`), one caching mechanism
(:func:`cached`, bounded by memory), one chart configuration (:func:`chart`), URL-bound
widgets (``url_*``), safe display of user-derived text (:func:`plain`), and the page
registry (:mod:`appkit.registry`).
"""

from mipcore.plots.formatting import fmt_count, fmt_num, fmt_pct

from . import cache, heap, jobs, progress, registry, settings, tables, turns
from .cache import cached
from .errors import guard
from .page import (
    Page,
    chart,
    explain,
    finish,
    folded,
    live,
    page,
    presenter,
    presenter_toggle,
    takeaway,
    view_url,
)
from .registry import navigation
from .safe import plain, quote
from .state import (
    messages,
    url_multiselect,
    url_number,
    url_range_slider,
    url_select,
    url_slider,
    url_text,
    url_toggle,
    warn,
)

__all__ = [
    "Page",
    "cache",
    "cached",
    "chart",
    "explain",
    "finish",
    "fmt_count",
    "fmt_num",
    "fmt_pct",
    "folded",
    "guard",
    "heap",
    "jobs",
    "live",
    "messages",
    "navigation",
    "page",
    "plain",
    "presenter",
    "presenter_toggle",
    "progress",
    "quote",
    "registry",
    "settings",
    "tables",
    "takeaway",
    "turns",
    "url_multiselect",
    "url_number",
    "url_range_slider",
    "url_select",
    "url_slider",
    "url_text",
    "url_toggle",
    "view_url",
    "warn",
]
