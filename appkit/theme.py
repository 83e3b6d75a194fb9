"""The app's look on a 1024×768 projector: nothing cut off, presenter mode, chart config.

:func:`inject` adds one small style sheet per run (``app.py`` calls it for every page):

* metric values and labels, widget labels, select boxes and buttons wrap instead of being
  cut with "…" (a number must never lose its exponent);
* block formulas scale down to the column instead of running off its right edge;
* Markdown tables (:mod:`appkit.tables`) never widen the page: cells are padded less and wrap
  at spaces (a number never breaks inside), and a table still too wide scrolls on its own;
* in presenter mode (``?present=1``, a toggle in the sidebar) all text is larger (charts are
  scaled by :func:`appkit.chart`).
"""

from __future__ import annotations

import streamlit as st

__all__ = ["inject"]

_CSS = """
<style>
[data-testid="stMetricValue"], [data-testid="stMetricValue"] > div,
[data-testid="stMetricValue"] p,
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] p,
[data-testid="stMetricLabel"] > div {
  white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; overflow-wrap: anywhere;
}
[data-testid="stMetricValue"] { font-size: 1.9rem; line-height: 1.2; }
[data-testid="stWidgetLabel"] p, [data-testid="stWidgetLabel"] label,
[data-testid="stCheckbox"] label p, [data-testid="stToggle"] label p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
[data-baseweb="select"] [title], [data-baseweb="select"] div {
  white-space: normal !important; text-overflow: clip !important;
}
[data-testid="stDownloadButton"] button p, [data-testid="stButton"] button p {
  white-space: normal !important;
}
.katex-display { max-width: 100%; overflow: hidden; }
.katex-display > .katex { max-width: 100%; white-space: normal; }
[data-testid="stCaptionContainer"] { color: #4a4f55; }
[data-testid="stMarkdownContainer"] table { display: block; max-width: 100%; overflow-x: auto; }
[data-testid="stMarkdownContainer"] th, [data-testid="stMarkdownContainer"] td {
  padding: 0.25rem 0.45rem;
}
[data-testid="stSidebarNav"] a span {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
@media (max-width: 1280px) {
  [data-testid="stMainBlockContainer"] {
    padding-left: 1.5rem; padding-right: 1.5rem; padding-top: 4rem;
  }
}
</style>
"""

_PRESENTER_CSS = """
<style>
html { font-size: 19px; }
[data-testid="stMain"] .stMarkdown p, [data-testid="stMain"] li { font-size: 1.12rem; }
[data-testid="stMetricValue"] { font-size: 2.3rem; }
</style>
"""


def inject(presenter: bool = False) -> None:
    """Add the app's style sheet (and the presenter mode's larger type) to this run."""
    st.html(_CSS + (_PRESENTER_CSS if presenter else ""))
