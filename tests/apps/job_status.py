"""A page shaped as ``appkit.live`` shapes one, whose heavy job ends when a test says so.

A slot (a container of the full run, outside the fragment) that the fragment reserves on every
run and fills: with the gated job's status and result when ``n`` > 0 and the page-level toggle
"No job" is off (``tests/jobtools.wait_for_gate``: it ends once the file ``gate-<n>`` exists in
the folder ``MIP_TEST_GATES``), else with a line saying there is no job. A second page-level
toggle changes nothing the fragment computes, but makes the full run take 0.3 s before it reaches
the fragment (as a page's header and explanations do). Every run of the fragment appends a line to
``ended`` in that folder when it ends, however it ends.

Served by ``tests/test_job_status.py`` (``streamlit run tests/apps/job_status.py``).
"""

import os
import time

import jobtools
import streamlit as st

from appkit import jobs

GATES = os.environ["MIP_TEST_GATES"]

hold = st.toggle("No job (a control outside the fragment)", key="hold")
other = st.toggle("Something else (a control outside the fragment)", key="other")
area = st.container()
if other:
    time.sleep(0.3)


@st.fragment
def live() -> None:
    n = st.slider("n", 0, 10, 0, key="n")
    with area:
        st.empty()  # reserved on every run, as appkit.live reserves its slots
    try:
        with area:
            if n and not hold:
                value = jobs.run(
                    jobtools.wait_for_gate,
                    os.path.join(GATES, f"pid-{n}"),
                    os.path.join(GATES, f"gate-{n}"),
                    label="The gated job",
                )
                st.write(f"The job for n = {n} returned {value}.")
            else:
                st.write(f"No job (n = {n}, toggle {'on' if hold else 'off'}).")
    finally:
        with open(os.path.join(GATES, "ended"), "a", encoding="utf-8") as f:
            f.write(
                f"n = {n}, toggle {'on' if hold else 'off'}, other {'on' if other else 'off'}\n"
            )


live()
