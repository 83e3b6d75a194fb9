"""Each Streamlit internal appkit uses (appkit.internals), against the real Streamlit.

When a Streamlit upgrade moves or renames one of them, these tests fail and say which -- and
the app refuses to start (``internals.check`` runs at import) instead of quietly losing Stop
and stop-on-tab-close.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests
from streamlit.testing.v1 import AppTest

from appkit import internals


def test_every_internal_is_where_appkit_expects_it():
    internals.check()


@pytest.mark.parametrize(
    ("owner", "name"),
    [
        (internals.Runtime, "is_active_session"),
        (internals.AppSession, "_call_soon_on_event_loop"),
        (internals.AppSession, "_on_scriptrunner_event"),
        (internals.SessionManager, "get_active_session_info"),
    ],
)
def test_check_names_what_is_missing(monkeypatch, owner, name):
    monkeypatch.delattr(owner, name)
    with pytest.raises(RuntimeError, match=rf"{owner.__name__}\.{name}"):
        internals.check()


def test_outside_a_server_no_wake_up_is_coalesced():
    assert internals.coalesce_wakeups() is False  # no script run, no session to wrap


@pytest.mark.parametrize(
    ("request_data", "expected"),
    [
        (None, None),
        (RerunData(), "app"),  # a widget outside every fragment, a page switch
        (RerunData(page_script_hash="another page"), "app"),
        (RerunData(fragment_id="f1"), "fragment"),  # a widget inside a fragment
        (RerunData(fragment_id_queue=["f1"], is_fragment_scoped_rerun=True), "fragment"),
    ],
)
def test_a_waiting_rerun_is_read_from_streamlits_own_request_queue(request_data, expected):
    requests = ScriptRequests()
    if request_data is not None:
        assert requests.request_rerun(request_data)
    assert internals._pending(requests) == expected


def test_a_fragment_rerun_folded_into_a_full_one_is_a_full_one():
    """A fragment's widget, then a page-level one, before the run yields: Streamlit reruns the
    page (and so must the job: it must not ask for a fragment rerun)."""
    requests = ScriptRequests()
    requests.request_rerun(RerunData(fragment_id="f1"))
    requests.request_rerun(RerunData())
    assert internals._pending(requests) == "app"


def test_a_stop_is_read_from_streamlits_own_request_queue():
    """With ``runner.fastReruns`` a newer run takes the page and Streamlit asks the running one
    to stop (``request_stop``); a rerun handed to the running one is not a stop."""
    requests = ScriptRequests()
    assert not internals._stopped(requests)
    requests.request_rerun(RerunData())
    assert not internals._stopped(requests)
    requests.request_stop()
    assert internals._stopped(requests)


def test_a_run_ended_by_end_run_stops_as_streamlit_stops_it():
    """No exception element, nothing written after it (and nothing written to find it)."""
    script = """
import streamlit as st
from appkit import internals
st.write("before")
internals.end_run()
st.write("after")
"""
    at = AppTest.from_string(script).run()
    assert not at.exception, at.exception
    assert [m.value for m in at.markdown] == ["before"]


def test_the_layout_error_is_what_streamlit_raises_for_a_write_it_refuses():
    """A fragment-scoped rerun asked for during a full run is refused with the same error as a
    replaced fragment run's write to a cleared container (tests/test_job_status.py)."""
    script = """
import streamlit as st
from appkit import internals

@st.fragment
def part():
    try:
        st.rerun(scope="fragment")
    except internals.LayoutContextError:
        st.write("refused")

part()
"""
    at = AppTest.from_string(script).run()
    assert not at.exception, at.exception
    assert [m.value for m in at.markdown] == ["refused"]


PAGE = """
import streamlit as st
from appkit import internals

def report(where):
    run = internals.script_run()
    st.write(
        f"{where}: fragment={internals.in_fragment()} "
        f"fragment_rerun={internals.in_fragment_rerun()} waiting={internals.waiting_rerun()} "
        f"active={internals.session_active()} stopped={internals.run_stopped()} "
        f"session={bool(run and run.session_id)} "
        f"page={bool(run and run.page_script_hash)}"
    )

report("outside")

@st.fragment
def live():
    report("inside")

live()
"""


def test_a_run_knows_where_it_is():
    """Streamlit's own state, read in a real script run: inside a fragment during a full run
    (a fragment-scoped rerun is not allowed there), outside it, no newer input waiting."""
    at = AppTest.from_string(PAGE, default_timeout=30).run()
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    common = "waiting=None active=True stopped=False session=True page=True"
    assert f"outside: fragment=False fragment_rerun=False {common}" in texts, texts
    assert f"inside: fragment=True fragment_rerun=False {common}" in texts, texts


def test_outside_a_script_run_nothing_is_known_and_nothing_stops():
    assert internals.script_run() is None
    assert not internals.in_fragment() and not internals.in_fragment_rerun()
    assert internals.waiting_rerun() is None
    assert internals.session_active() and not internals.run_stopped()


def test_the_browser_token_is_the_same_under_every_mask():
    """Streamlit writes the XSRF cookie again, newly masked, with every page a tab loads: the
    token inside is what stays the same for a browser."""
    from streamlit.web.server.starlette.starlette_app_utils import (
        generate_xsrf_token_string,
    )

    token = b"0123456789abcdef"
    cookies = {generate_xsrf_token_string(token, 1_700_000_000) for _ in range(5)}
    assert len(cookies) > 1  # the cookie differs...
    assert {internals.browser_token(c) for c in cookies} == {token}  # ...its token does not
    assert internals.browser_token("") is None
    assert internals.browser_token("not a cookie") is None


def test_a_dataset_given_as_arrow_bytes_is_drawn_as_its_table():
    """``arrow_bytes`` is what Streamlit sends for a chart's named dataset, and
    ``st.vega_lite_chart`` sends bytes as they are: the element is the same, its id too."""
    script = """
import pandas as pd
import streamlit as st
from appkit import internals
df = pd.DataFrame({"x": [1.0, 2.0], "name": ["a", "b"], "n": [1, 2]})
spec = {"mark": "point", "data": {"name": "t"},
        "encoding": {"x": {"field": "x", "type": "quantitative"}}}
st.vega_lite_chart(None, {**spec, "datasets": {"t": df}}, theme=None)
st.vega_lite_chart(None, {**spec, "datasets": {"t": internals.arrow_bytes(df)}}, theme=None)
"""
    at = AppTest.from_string(script).run()
    assert not at.exception
    table, data = (c.proto for c in at.get("vega_lite_chart"))
    assert table.datasets == data.datasets and table.spec == data.spec and table.id == data.id


@pytest.mark.parametrize(
    "table",
    [
        pd.DataFrame({"x": [1.0, 2.5], "name": pd.array(["a", "b"], dtype="str")}),
        pd.DataFrame({"n": np.arange(900), "eta": np.linspace(0, 1, 900), "s": ["n = 30"] * 900}),
        pd.DataFrame({"x": pd.Series(dtype="float64"), "s": pd.Series(dtype="str")}),
        pd.DataFrame({"x": [1.0, 2.0]}, index=[5, 7]),
        pd.DataFrame({"mixed": [1, "a", 2.5]}),  # pyarrow refuses it: Streamlit's fixes apply
    ],
)
def test_a_table_is_converted_to_the_bytes_streamlit_makes(table):
    from streamlit import dataframe_util

    assert internals.arrow_bytes(table) == dataframe_util.convert_anything_to_arrow_bytes(table)
