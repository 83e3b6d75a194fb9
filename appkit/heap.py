"""Keep the garbage collector off the imports' objects.

By default Streamlit calls ``gc.collect(2)`` whenever a script run ends, a fragment's included
(``runner.postScriptGC``); this app turns that off in ``.streamlit/config.toml`` (it walked every
session's objects after every change), and Python's own collector runs when allocations call
for it. Either way a full collection walks every container object the process holds. With
NumPy, SciPy, pandas, mpmath, PyArrow and Streamlit imported that is about 170 000 objects:
90–130 ms on a 2-core machine, longer than a bare Streamlit page takes to answer a change.
Almost all of them belong to imported modules, which live as long as the process.

:func:`freeze_imports` (called by ``app.py`` at the start of every run) moves everything that
exists once new modules were imported into the collector's permanent generation
(``gc.freeze``), after one full collection. The collector then skips those objects; objects
created afterwards are collected as before, and a frozen object is still freed by reference
counting when its last reference goes. It acts only when ``sys.modules`` grew since its last
call, so a process freezes a handful of times (the first visit of a page that imports
something new), never per press.

:func:`import_soon` (also called by ``app.py``) imports what most chart pages need but the
home page does not, Altair (about 0.3 s), once per process in a background thread, so the
first chart page a visitor opens after the home page finds it loaded.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
import threading

_lock = threading.Lock()
_frozen_at = 0  # len(sys.modules) at the last freeze
_soon: set[str] = set()  # modules import_soon was asked for


def freeze_imports() -> bool:
    """Collect once and freeze the heap if modules were imported since the last freeze.

    Returns whether it froze. Cheap when nothing new was imported (one length comparison).
    """
    global _frozen_at
    if len(sys.modules) <= _frozen_at:
        return False
    with _lock:
        if len(sys.modules) <= _frozen_at:
            return False
        gc.collect()
        gc.freeze()
        _frozen_at = len(sys.modules)
    return True


def import_soon(*modules: str) -> bool:
    """Import ``modules`` in a background thread, once per process; returns whether this call
    started it. A script that needs one of them meanwhile waits for that import (Python's
    import lock), never imports it twice; a module that fails to import is left to the code
    that needs it, which raises as it would have."""
    with _lock:
        todo = [m for m in modules if m not in _soon and m not in sys.modules]
        _soon.update(modules)
    if not todo:
        return False

    def run() -> None:
        for name in todo:
            with contextlib.suppress(Exception):  # the page that needs it raises it
                importlib.import_module(name)

    threading.Thread(target=run, name="import-soon", daemon=True).start()
    return True
