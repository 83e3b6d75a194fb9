"""The bare page's slider and line of text, then a recorded rerun of an app page, replayed.

``?page=NAME`` names a recording ``$MIPB_REPLAY_DIR/NAME.bin`` (written by
``instrumented_server.py --record --fragments``: the messages one rerun of the app's page
sent after a change, in order). Each run of this page sends that rerun's elements again, as
the app sent them, computing nothing: what Streamlit costs to carry the page's own output after
a change, the floor under the app's CPU per change (``capacity.py --anchor replay``). Only the
elements (deltas) are sent; the run's own start and end messages are this page's. A recording
is only read, never executed; NAME must be a plain name of a file in the folder.
"""

import os
import re
import struct
from pathlib import Path

import streamlit as st
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

x = st.slider("x", min_value=0.0, max_value=1.0, value=0.1, step=0.005)
st.write(f"x = {x:.3f}")

name = st.query_params.get("page", "")
path = Path(os.environ.get("MIPB_REPLAY_DIR", ".")) / f"{name}.bin"
if not re.fullmatch(r"[A-Za-z0-9_]+", name) or not path.is_file():
    st.text(f"No recording named {name!r}.")
else:
    ctx = get_script_run_ctx()
    data = path.read_bytes()
    i = 0
    while i + 4 <= len(data):
        (size,) = struct.unpack_from("<I", data, i)
        msg = ForwardMsg()
        msg.ParseFromString(data[i + 4 : i + 4 + size])
        i += 4 + size
        if msg.WhichOneof("type") == "delta":
            ctx.enqueue(msg)
