"""Shared helpers for the AppTest page tests: load a page, read what it shows.

Not a test module (no ``test_`` prefix); the page tests import it by name (pytest puts
``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def unfold(at: AppTest, label: str = "The maths"):
    """Open the page's folded section ``label`` (``appkit.folded``) as a reader would; return it.

    Checks first that it is there and empty (a folded section is drawn only once opened).
    """
    from appkit.page import folded_key

    (section,) = [e for e in at.expander if e.label == label]
    assert not section.children, f"{label!r} has content before it is opened"
    key = at.session_state["_appkit_current_page"].spec.key
    at.session_state[folded_key(key, label)] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (section,) = [e for e in at.expander if e.label == label]
    return section


def footer_csvs(at: AppTest) -> list:
    """The CSV download buttons of the page's footer, "Data behind the charts" opened as a
    reader would (it is folded: its buttons are drawn only once it is opened); [] when the page
    has no chart data. Checks first that the closed section holds no button."""
    from appkit.page import DATA_SECTION, folded_key

    found = [e for e in at.expander if e.label.startswith(DATA_SECTION)]
    if not found:
        return []
    (section,) = found
    assert not section.children, "the footer's data section has content before it is opened"
    key = at.session_state["_appkit_current_page"].spec.key
    at.session_state[folded_key(key, DATA_SECTION)] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (section,) = [e for e in at.expander if e.label.startswith(DATA_SECTION)]
    return [b for b in at.get("download_button") if (b.key or "").startswith("_csv_")]


def load(page: str, *, via_app: bool = True, timeout: float = 60, **params: str) -> AppTest:
    """Run ``page`` ("app_pages/x.py") with ``params`` as the URL's query, as a shared link would.

    ``via_app=True`` runs app.py (st.navigation, shared page config) with the page selected
    -- the way a deep link reaches it: one run, the page's, not the home page's first (before
    a first run AppTest finds a page by its file name, which is every page's URL path here;
    :func:`test_pagetools.test_load_runs_the_page_it_names` checks that). ``via_app=False``
    runs the page script on its own.
    """
    if via_app:
        at = AppTest.from_file(APP, default_timeout=timeout)
        for key, value in params.items():
            at.query_params[key] = value
        at.switch_page(page).run()
    else:
        at = AppTest.from_file(str(ROOT / page), default_timeout=timeout)
        for key, value in params.items():
            at.query_params[key] = value
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest, *, tables: bool = False) -> list[str]:
    """Every piece of text the page shows: markdown, captions, code, plain text, metrics, alerts
    (and, with ``tables=True``, every cell and column name of its tables)."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption]
    out += [c.value for c in at.code] + [t.value for t in at.text]
    out += [f"{m.label}: {m.value}" for m in at.metric]
    for kind in (at.warning, at.error, at.info, at.success):
        out += [e.value for e in kind]
    if tables:
        for df in [*at.dataframe, *at.table]:
            out += [str(v) for v in df.value.to_numpy().ravel()] + [
                str(c) for c in df.value.columns
            ]
    return out


def vega_charts(at: AppTest) -> list[tuple[dict, dict[str, pd.DataFrame]]]:
    """Every Vega-Lite chart of the page: its specification and the tables it draws (the
    default one under "", each named dataset under its name)."""
    out = []
    for c in at.get("vega_lite_chart"):
        tables = {}
        if c.proto.data.data:
            tables[""] = pa.ipc.open_stream(c.proto.data.data).read_pandas()
        for d in c.proto.datasets:
            tables[d.name] = pa.ipc.open_stream(d.data.data).read_pandas()
        out.append((json.loads(c.proto.spec), tables))
    return out


_ALIGN = re.compile(r"\|( (:--|--:) \|)+")
_PIPE = re.compile(r"(?<!\\)\|")


def markdown_tables(at: AppTest) -> list[pd.DataFrame]:
    """Every Markdown table of the page (:func:`appkit.tables.table`) as a frame of the cells
    as they read on screen (escapes removed), header as columns."""
    out = []
    for m in at.markdown:
        lines = m.value.splitlines()
        if len(lines) < 2 or not _ALIGN.fullmatch(lines[1]):
            continue
        rows = [[unescaped(c).strip() for c in _PIPE.split(line)[1:-1]] for line in lines]
        out.append(pd.DataFrame(rows[2:], columns=rows[0]))
    return out


def snapshot(at: AppTest) -> tuple:
    """Texts and charts: two runs showing the same thing give equal snapshots. A chart is its
    Vega-Lite spec followed by a digest of the tables it draws (in page order)."""
    charts = tuple(
        c.proto.spec
        + "\n"
        + hashlib.sha256(
            c.proto.data.data + b"".join(d.name.encode() + d.data.data for d in c.proto.datasets)
        ).hexdigest()
        for c in at.get("vega_lite_chart")
    )
    return tuple(texts(at)), charts


def metric(at: AppTest, label_start: str) -> str:
    """The value of the one metric whose label starts with ``label_start``."""
    (m,) = [m for m in at.metric if m.label.startswith(label_start)]
    return m.value


def assert_clean(
    at: AppTest, *, banned: tuple[str, ...] = ("nan", "inf"), errors: bool = False
) -> None:
    """No exception; no ``st.error`` unless ``errors``; none of the ``banned`` words (whole words,
    any case) in the page's text; no NaN in a number column of a chart's tables."""
    assert not at.exception, [e.value for e in at.exception]
    if not errors:
        assert not at.error, [e.value for e in at.error]
    pattern = re.compile(r"\b(" + "|".join(banned) + r")\b", flags=re.IGNORECASE)
    for t in texts(at):
        assert not pattern.search(t), t
    for _spec, tables in vega_charts(at):
        for table in tables.values():
            numbers = table.select_dtypes("number")
            assert numbers.notna().all().all(), "a chart's table holds NaN"


def unescaped(markdown: str) -> str:
    """Markdown source as it reads on screen: backslash escapes removed (user-derived text in
    the app's messages is escaped so it can never act as Markdown)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u200b", "")


def play_button(at: AppTest, side: str):
    """The game's "In" (``side="in"``) or "Out" button of the round shown: its key names the
    game and the round (``play_in_<game>_<round>``), so that a tap answers its own round."""
    found = [b for b in at.button if (b.key or "").startswith(f"play_{side}_")]
    assert len(found) == 1, f"expected one {side!r} button, found {[b.key for b in found]}"
    return found[0]
