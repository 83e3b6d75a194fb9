"""Start a Streamlit server that notes how long each script run takes, and may record what
each full run sends to the browser.

    python benchmarks/instrumented_server.py [--run-times FILE] [--record DIR] -- streamlit run app.py [options]

Used by ``browser.py``:

* ``--run-times FILE`` appends one line per script run once it ends (a fragment's rerun
  included): ``<start> <end> <wall ms> <CPU ms of the process>``, the first two from
  ``time.time()``. ``browser.py`` reads it to split a slider press into the server's script
  run and everything else (the browser's drawing, the messages' way, Streamlit's own work).
* ``--profile DIR`` profiles each script run (``cProfile``, in the run's own thread: the
  script, Streamlit's work inside the run and the collection after it) into
  ``DIR/run-<sequence>.prof``; ``profile_runs.py`` reads them.
* ``--record DIR`` writes the messages (``ForwardMsg``, in order, each prefixed by its length
  as a 4-byte little-endian integer) of every full run, i.e. not a fragment's rerun, to
  ``DIR/full-<sequence>.bin`` once it ends. Served again by ``replay_page.py``, a recording
  gives the browser exactly the page it drew, with no computation behind it. With
  ``--fragments``, a fragment's rerun is recorded too (``DIR/fragment-<sequence>.bin``: what a
  change sends), for ``floor/pages/replay.py``.

This wraps two internals of Streamlit (``ScriptRunner._run_script`` and
``ScriptRunContext.enqueue``, both in the pinned 1.67); it is a measuring tool, never part of
the app.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import os
import struct
import sys
import threading
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-times", type=Path, help="append each run's times to this file")
    parser.add_argument("--record", type=Path, help="record each full run's messages here")
    parser.add_argument(
        "--fragments",
        action="store_true",
        help="with --record, record a fragment's rerun too (fragment-<sequence>.bin)",
    )
    parser.add_argument("--profile", type=Path, help="profile each script run into this folder")
    parser.add_argument("streamlit", nargs=argparse.REMAINDER, help="-- streamlit run ...")
    args = parser.parse_args()
    command = args.streamlit[1:] if args.streamlit[:1] == ["--"] else args.streamlit
    if command[:2] != ["streamlit", "run"]:
        parser.error("give the server's command after --: streamlit run SCRIPT [options]")

    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.runtime.scriptrunner_utils import script_run_context

    lock = threading.Lock()
    sequence = itertools.count()
    recording: dict[str, list] = {}  # session id -> messages of its running full run
    if args.record:
        args.record.mkdir(parents=True, exist_ok=True)
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    profiled = itertools.count()

    run_script = script_runner.ScriptRunner._run_script
    enqueue = script_run_context.ScriptRunContext.enqueue

    def save(msgs: list, kind: str) -> None:
        k = next(sequence)
        part = args.record / f".{kind}-{k:06d}.part"
        with open(part, "wb") as f:
            for m in msgs:
                b = m.SerializeToString()
                f.write(struct.pack("<I", len(b)))
                f.write(b)
        os.replace(part, args.record / f"{kind}-{k:06d}.bin")

    def instrumented_run(self, rerun_data):
        kind = "fragment" if rerun_data.fragment_id_queue else "full"
        recorded = args.record is not None and (kind == "full" or args.fragments)
        if recorded:
            with lock:
                recording[self._session_id] = []
        profiler = cProfile.Profile() if args.profile else None
        start, t0, c0 = time.time(), time.perf_counter(), time.process_time()
        try:
            if profiler is not None:
                profiler.enable()
            return run_script(self, rerun_data)
        finally:
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(str(args.profile / f"run-{next(profiled):06d}.prof"))
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            if args.run_times:
                with lock, open(args.run_times, "a", encoding="utf-8") as f:
                    f.write(f"{start:.6f} {start + wall:.6f} {1000 * wall:.3f} {1000 * cpu:.3f}\n")
            if recorded:
                with lock:
                    msgs = recording.pop(self._session_id, [])
                save(msgs, kind)

    def recording_enqueue(self, msg):
        with lock:
            msgs = recording.get(self.session_id)
            if msgs is not None:
                copy = type(msg)()
                copy.CopyFrom(msg)
                msgs.append(copy)
        return enqueue(self, msg)

    script_runner.ScriptRunner._run_script = instrumented_run
    if args.record:
        script_run_context.ScriptRunContext.enqueue = recording_enqueue

    from streamlit.web import cli

    sys.argv = command
    cli.main()


if __name__ == "__main__":
    main()
