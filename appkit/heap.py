"""Keep the garbage collection Streamlit runs after every script run cheap.

Streamlit calls ``gc.collect(2)`` whenever a script run ends, a fragment's included
(``runner.postScriptGC``), so that memory does not build up between runs. A full collection
walks every container object the process holds. With NumPy, SciPy, pandas, mpmath, PyArrow and
Streamlit imported that is about 170 000 objects: 90–130 ms on a 2-core machine, paid on every
slider press, longer than a bare Streamlit page takes to answer one. Almost all of them belong
to imported modules, which live as long as the process.

:func:`freeze_imports` (called by ``app.py`` at the start of every run) moves everything that
exists once new modules were imported into the collector's permanent generation
(``gc.freeze``), after one full collection. The collector then skips those objects; objects
created afterwards are collected as before, and a frozen object is still freed by reference
counting when its last reference goes. It acts only when ``sys.modules`` grew since its last
call, so a process freezes a handful of times (the first visit of a page that imports
something new), never per press.
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_frozen_at = 0  # len(sys.modules) at the last freeze


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
