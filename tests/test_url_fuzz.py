"""Every page's URL parameters, fuzzed through app.py's navigation (Hypothesis).

For each page the widget keys (= URL parameters) are read off the page itself, so a new
widget is fuzzed without editing this file. Each example is a share link with some keys set
to valid values and others to hostile ones (crafted Markdown and HTML, huge and non-finite
numbers, empty values, repeated separators). Whatever the link says, the page must:

* run without an exception;
* answer every problem with a sentence (an ``st.error`` is a sentence of at least five words,
  never a traceback);
* never turn link text into a link or an HTML element (a crafted ``[click](https://evil…)``
  or ``<img …>`` appears escaped, not as Markdown).
"""

from __future__ import annotations

import math
import re

import pagetools
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from appkit.registry import PAGES

HOSTILE = [
    "",
    "abc",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "999999999999",
    "0x10",
    ",,,",
    "1,2,3,4,5,6,7,8,9",
    "[click](https://evil.example)",
    "![x](https://evil.example/x.png)",
    "<img src=x onerror=alert(1)>",
    "`x` **bold** :red[red] $x^2$",
    "x` [Official privacy notice: click](https://evil.example) `",
    "é" * 300,
]
LINK = re.compile(r"(?<!\\)\]\((?:https?:)?//evil|(?<!\\)<img", re.IGNORECASE)


def _valid_values(w) -> list[str]:
    """A few valid URL values for a widget (as text)."""
    kind = type(w).__name__
    if kind in ("Slider", "NumberInput"):
        lo, hi = getattr(w, "min", None), getattr(w, "max", None)
        v = w.value
        vals = []
        if isinstance(v, (tuple, list)):
            if lo is not None and hi is not None:
                mid = lo + (hi - lo) / 2
                vals.append(f"{lo},{mid}")
            vals.append(",".join(map(str, v)))
            return vals
        for x in (lo, hi, v):
            if x is not None and not (isinstance(x, float) and math.isnan(x)):
                vals.append(str(x))
        return vals
    if kind in ("Selectbox", "Radio"):
        return [str(o) for o in w.options][:6]
    if kind == "Multiselect":
        opts = [str(o) for o in w.options]
        return [",".join(opts[:2]), opts[0] if opts else "", ""]
    if kind == "Toggle":
        return ["1", "0"]
    return []


def _widgets(page) -> dict:
    at = pagetools.load(page.script, via_app=True) if page.script else _home()
    out = {}
    for kind in ("slider", "number_input", "selectbox", "multiselect", "toggle", "radio"):
        for w in getattr(at, kind):
            key = w.key
            if key and not key.startswith("_") and key != "present":
                out[key] = _valid_values(w)
    return out


def _home():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(pagetools.APP, default_timeout=60).run()


def _check(at, page) -> None:
    assert not at.exception, (page.url_path, [e.value for e in at.exception])
    for e in at.error:
        words = pagetools.unescaped(e.value).split()
        assert len(words) >= 5 and "Traceback" not in e.value, (page.url_path, e.value)
    for text in pagetools.texts(at):
        assert not LINK.search(text), (page.url_path, text[:300])


def _run(page, params: dict[str, str]):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(pagetools.APP, default_timeout=120)
    at.run()
    for k, v in params.items():
        at.query_params[k] = v
    if page.script:
        at.switch_page(page.script)
    return at.run()


@pytest.mark.parametrize("page", PAGES, ids=[p.key for p in PAGES])
@pytest.mark.slow  # a heavy check: CI's full suite runs it, the quick loop does not
def test_hostile_links_give_sentences_never_tracebacks(page):
    widgets = _widgets(page)
    if not widgets:
        pytest.skip(f"/{page.url_path} has no URL-bound widgets")
    keys = sorted(widgets)
    value = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30))

    @settings(
        max_examples=6,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(
        st.dictionaries(
            st.sampled_from(keys),
            st.one_of(
                value,
                st.sampled_from([v for k in keys for v in widgets[k]] or ["0"]),
            ),
            min_size=1,
            max_size=min(4, len(keys)),
        )
    )
    def fuzz(params):
        _check(_run(page, params), page)

    fuzz()
    # and every key alone with every hostile value (deterministic, cheap: one run per value)
    for v in HOSTILE[11:16]:
        _check(_run(page, dict.fromkeys(keys, v)), page)
