"""Serve a page recorded by ``instrumented_server.py --record`` again, computing nothing.

    MIPB_REPLAY_DIR=OUTDIR streamlit run benchmarks/replay_page.py   # then open /?page=NAME

Used by ``browser.py --floor``: sends the messages of ``OUTDIR/NAME.bin`` (the app's sidebar,
tab title and every element of the page, as the app sent them) in their recorded order. The
browser then draws the same page while the server does no work at all, so its first load is
the floor of the real page's. A recording is only read, never executed; NAME must be a plain
name of a file in OUTDIR.
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import streamlit as st
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

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
        ctx.enqueue(msg)
