"""A page that writes many elements after each change, with its session's wake-ups coalesced
(``appkit.internals.coalesce_wakeups``, as app.py does). Served by ``tests/test_internals_server.py``.
"""

import streamlit as st

from appkit import internals

wrapped = internals.coalesce_wakeups()
n = st.slider("n", 0, 10, 0, key="n")
st.text(f"wrapped this run: {wrapped}")
for i in range(300):
    st.text(f"line {i} of run n = {n}")
st.text(f"last line of run n = {n}")
