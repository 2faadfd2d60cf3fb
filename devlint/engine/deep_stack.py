"""Deep but valid code: LibCST's parser, its codegen and the tree walks recurse once per level of
nesting (a sum of 900 terms is 900 levels), so such files are analysed again in a thread with a large
stack and a raised recursion limit; only they pay for it."""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 100_000
_DEEP_THREAD = "devlint-deep-analysis"
_Result = TypeVar("_Result")


def on_deep_stack() -> bool:
    """Is this the large-stack retry (where a RecursionError is final)?"""
    return threading.current_thread().name == _DEEP_THREAD


def caused_by_recursion(error: BaseException) -> bool:
    """`error` is a RecursionError, or was raised while handling one (LibCST's position records turn
    a RecursionError in the codegen into a KeyError of the enclosing node)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, RecursionError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def with_deep_stack(function: Callable[..., _Result], *args: object, **kwargs: object) -> _Result:
    """`function(*args, **kwargs)`; when recursion stops it, once more in a thread with a large stack
    (where a RecursionError propagates to the caller)."""
    if on_deep_stack():
        return function(*args, **kwargs)
    try:
        return function(*args, **kwargs)
    except Exception as error:
        if not caused_by_recursion(error):
            raise
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # handed back to the calling thread
            outcome["error"] = error

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size(DEEP_STACK_BYTES)
    try:
        thread = threading.Thread(target=target, name=_DEEP_THREAD)
        thread.start()
    finally:
        threading.stack_size(old_size)
    sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, Exception) and not isinstance(error, RecursionError) and caused_by_recursion(error):
            raise RecursionError(str(error)) from error
        raise error  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
