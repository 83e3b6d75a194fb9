"""Loaded at start-up by a test server whose PYTHONPATH starts here (tests/test_page_switch.py):
widens two windows of Streamlit's script runner (1.67) so that a race which a busy server hits
now and then happens on every run. A measuring aid for tests, never part of the app (the app
touches Streamlit's internals only in ``appkit/internals.py``).

* After a run that ended for a rerun (``SCRIPT_STOPPED_FOR_RERUN``: the page called
  ``st.rerun()``), the runner pauses ``MIP_TEST_RACE_WINDOW_S`` seconds before it starts the
  next run, and touches the file ``MIP_TEST_RACE_PAUSED`` first. On a busy server this is the
  full ``gc.collect(2)`` Streamlit runs after every run (``runner.postScriptGC``), with other
  sessions' threads waiting for the GIL.
* A run about to resolve the app's default page in ``st.navigation`` pauses as long: a new
  run that waits for the GIL before it reaches ``st.navigation``.
"""

import os
import time
from pathlib import Path

WINDOW_S = float(os.environ.get("MIP_TEST_RACE_WINDOW_S", "0") or 0)
PAUSED = os.environ.get("MIP_TEST_RACE_PAUSED", "")

if WINDOW_S > 0:
    from streamlit.runtime import pages_manager
    from streamlit.runtime.scriptrunner import script_runner

    _finished = script_runner.ScriptRunner._on_script_finished

    def _on_script_finished(self, ctx, event, premature_stop, run_descriptor):
        result = _finished(self, ctx, event, premature_stop, run_descriptor)
        if event.name == "SCRIPT_STOPPED_FOR_RERUN":
            if PAUSED:
                Path(PAUSED).touch()
            time.sleep(WINDOW_S)
        return result

    script_runner.ScriptRunner._on_script_finished = _on_script_finished

    _resolve = pages_manager.PagesManager.set_pages_and_resolve

    def set_pages_and_resolve(self, pages, fallback_page_hash=""):
        intended = self.intended_page_script_hash
        if intended and intended == fallback_page_hash:
            time.sleep(WINDOW_S)
        return _resolve(self, pages, fallback_page_hash)

    pages_manager.PagesManager.set_pages_and_resolve = set_pages_and_resolve
