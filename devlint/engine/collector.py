"""Python's cyclic garbage collector, paused while one file is analysed.

Parsing makes a tree of hundreds of thousands of objects at once, all alive until the file is done. Every 700 new
objects the collector looks at the young ones, promotes them, and now and then walks every object the process
holds (the imported modules, LibCST's classes, the project index): in one process over the corpus that was a
third of devlint's CPU, for trees that reference counting frees as soon as the file is done (nothing of a file is
left in a cycle: tests/test_collector.py). So the collector is off from the parse to the reports, and on again
after, where it was on; what a file might leave in cycles is collected at the next young-generation pass.

The collector is one for the whole process: a pause belongs to the thread that began it (its nested analyses
extend it), and another thread's analysis meanwhile neither pauses it nor keeps it off, so it is on again between
one thread's files however many threads analyse at once. A collector the caller had off stays off.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator, Optional

_lock = threading.Lock()
_owner: Optional[int] = None  # the thread whose analysis paused the collector
_depth = 0  # its analyses under way (nested: a fix's passes)
_was_enabled = False  # was the collector on when it paused it?


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with the cyclic garbage collector off (unless another thread's pause is under way), and on
    again after, where it was on before."""
    global _owner, _depth, _was_enabled
    mine = False
    try:
        with _lock:
            me = threading.get_ident()
            if _owner is None:
                _owner, _depth, mine = me, 1, True
                _was_enabled = gc.isenabled()
                gc.disable()
            elif _owner == me:
                _depth, mine = _depth + 1, True
        yield
    finally:
        if mine:
            with _lock:
                _depth -= 1
                if _depth == 0:
                    _owner = None
                    if _was_enabled:
                        gc.enable()
