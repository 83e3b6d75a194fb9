"""Serve a page recorded by ``instrumented_server.py --record`` again, computing nothing.

    MIPB_REPLAY_DIR=OUTDIR streamlit run benchmarks/replay_page.py   # then open /?page=NAME

Used by ``browser.py --floor``: sends the messages of ``OUTDIR/NAME.bin`` (the app's sidebar,
tab title and every element of the page, as the app sent them) in their recorded order. The
browser then draws the same page while the server does no work at all, so its first load is
the floor of the real page's. A recording is only read, never executed; NAME must be a plain
name of a file in OUTDIR.
"""

from __future__ import annotations

from recording import replay

replay()
