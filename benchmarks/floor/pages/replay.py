"""The bare page's slider and line of text, then a recorded rerun of an app page, replayed.

``?page=NAME`` names a recording ``$MIPB_REPLAY_DIR/NAME.bin`` (written by
``instrumented_server.py --record --fragments``: the messages one rerun of the app's page
sent after a change, in order). Each run of this page sends that rerun's elements again, as
the app sent them, computing nothing: what Streamlit costs to carry the page's own output after
a change, the floor under the app's CPU per change (``capacity.py --anchor replay``). Only the
elements (deltas) are sent; the run's own start and end messages are this page's. A recording
is only read, never executed; NAME must be a plain name of a file in the folder.
"""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/, for recording
from recording import replay

x = st.slider("x", min_value=0.0, max_value=1.0, value=0.1, step=0.005)
st.write(f"x = {x:.3f}")
replay(elements_only=True)
