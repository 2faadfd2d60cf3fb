"""`--jobs N`: files checked (or fixed) in worker processes, outcomes in the input order.

Workers get chunks of paths and return compact `FileOutcome`s (reports, errors, diffs; never
a file's text or tree), so memory stays flat whatever the number of files: each worker holds
one file at a time and the parent only the outcomes. Each file is handled by exactly one
worker, so `--fix` writes each file once. Where no process pool can be started, or the files are
too few to pay for starting one, the files are checked in this process.
"""

from __future__ import annotations

import gc
import os
import sys
from itertools import repeat
from typing import Callable, Iterator, Optional, Sequence

from devlint.engine.settings import Settings

CHUNK = 8  # files per task: big enough to amortise pickling, small enough to balance two cores
# Fewer files than this are checked in this process. Starting the pool costs ~0.35 s of CPU (two
# workers, each importing LibCST and the visitors) and saves half of ~37 ms per corpus file on two
# free cores: it pays from 12 to 20 files (issue 19), so a pre-commit run of 10 files is one
# process. Where the cores are busy it pays later still (on a shared 2-core machine, not by 80).
MIN_FILES_FOR_WORKERS = 16


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the CPUs this process may use
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _die_with_parent() -> None:
    """Worker initializer: on Linux, ask the kernel to kill this worker when the parent dies.

    Without it, a `devlint --fix` killed with SIGKILL (a CI timeout, a closed terminal) would
    leave its workers fixing files behind the user's back, racing the next run."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux, or no prctl: workers end when their queue closes
        pass
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def workers_pay(file_count: int, jobs: int) -> bool:
    """Would `jobs` worker processes check `file_count` files sooner than this process alone?"""
    return jobs > 1 and file_count >= MIN_FILES_FOR_WORKERS


def _start_worker() -> None:
    """Worker initializer: die with the parent. LibCST is imported when a file first needs it (a run
    whose files all come from the cache never does: that import is most of a warm run's cost)."""
    _die_with_parent()


_frozen = False


def _check_chunk(process: Callable, paths: Sequence[str], settings: Settings, mode, cache) -> list:  # type: ignore[no-untyped-def,type-arg]
    outcomes = [process(path, settings, mode, cache) for path in paths]
    _freeze_after_libcst()
    return outcomes


def _freeze_after_libcst() -> None:
    """Once the LibCST stage is imported, move it and the rules' modules out of the garbage collector's
    sight (`gc.freeze()`, once per worker): a full collection during a parse no longer walks those
    module objects, which live as long as the worker."""
    global _frozen
    if _frozen or "devlint.engine.cst_stage" not in sys.modules:
        return
    from devlint.rules import all_rules

    for entry in all_rules():
        _ = entry.visitor  # its module, imported now, before the freeze
    gc.freeze()
    _frozen = True


def run_parallel(process: Callable, paths: Sequence[str], settings: Settings, mode,  # type: ignore[no-untyped-def,type-arg]
                 jobs: int, cache: Optional[object] = None) -> Iterator:
    """`process(path, settings, mode, cache)` of each of `paths`, in order, computed by up to `jobs`
    worker processes. `process` is the runner's (passed in, so that this module does not import
    the runner that imports it); it must be a module-level function, to reach the workers."""
    chunks = [paths[i:i + CHUNK] for i in range(0, len(paths), CHUNK)]
    try:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), initializer=_start_worker)
    except (ImportError, OSError, NotImplementedError):  # no working multiprocessing here
        yield from _check_chunk(process, paths, settings, mode, cache)
        return
    with pool:
        # map() keeps the input order; outcomes are small, so those waiting their turn cost little.
        for outcomes in pool.map(_check_chunk, repeat(process), chunks, repeat(settings), repeat(mode), repeat(cache)):
            yield from outcomes
