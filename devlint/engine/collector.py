"""Python's cyclic garbage collector, paused while one file is analysed.

Parsing a file makes a tree of hundreds of thousands of objects at once, all alive until the file is done.
Every 700 new objects the collector looks at the young ones, promotes them, and now and then walks every
object the process holds (the imported modules, LibCST's classes, the project index): on the corpus that
was a third of devlint's CPU, for trees that reference counting frees as soon as the file is done. So the
collector is off from the parse to the reports, and on again after; what a file leaves behind in cycles is
collected at the next young-generation pass, which then looks only at what that file left alive. A caller
that had the collector off (or another thread analysing a file) finds it as it was.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_depth = 0  # files being analysed now, in every thread
_was_enabled = False  # was the collector on when the first of them began?


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with the cyclic garbage collector off; on again after, where it was on before."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
