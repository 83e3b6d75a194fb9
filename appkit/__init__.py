"""Streamlit-side helpers shared by the pages of MIP Explorer.

``mipcore`` never imports Streamlit; everything that touches the UI lives here or
in ``app_pages/``. Pages stay thin: widgets -> one mipcore call -> figure/table/text.
"""

from .charts import cached_figure, chart_with_csv, fmt_num
from .errors import guard
from .state import (
    messages,
    url_multiselect,
    url_number,
    url_range_slider,
    url_select,
    url_slider,
    url_toggle,
    warn,
)

__all__ = [
    "cached_figure",
    "chart_with_csv",
    "fmt_num",
    "guard",
    "messages",
    "url_multiselect",
    "url_number",
    "url_range_slider",
    "url_select",
    "url_slider",
    "url_toggle",
    "warn",
]
