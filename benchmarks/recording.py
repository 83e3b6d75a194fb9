"""Send a recorded run again, computing nothing: the part ``replay_page.py`` and the floor page
``floor/pages/replay.py`` share.

A recording (``instrumented_server.py --record``) is a file of ``ForwardMsg`` messages, each
prefixed by its length as a 4-byte little-endian integer. It is only read, never executed; its
name comes from ``?page=NAME`` and must be a plain name of a file in ``$MIPB_REPLAY_DIR``.
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import streamlit as st
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx


def replay(*, elements_only: bool = False) -> None:
    """Enqueue the messages of the recording ``?page=NAME`` in their recorded order (with
    ``elements_only``, its elements alone: the run's own start and end messages are the
    calling page's), or say there is no such recording."""
    name = st.query_params.get("page", "")
    path = Path(os.environ.get("MIPB_REPLAY_DIR", ".")) / f"{name}.bin"
    if not re.fullmatch(r"[A-Za-z0-9_]+", name) or not path.is_file():
        st.text(f"No recording named {name!r}.")
        return
    ctx = get_script_run_ctx()
    data = path.read_bytes()
    i = 0
    while i + 4 <= len(data):
        (size,) = struct.unpack_from("<I", data, i)
        msg = ForwardMsg()
        msg.ParseFromString(data[i + 4 : i + 4 + size])
        i += 4 + size
        if not elements_only or msg.WhichOneof("type") == "delta":
            ctx.enqueue(msg)
