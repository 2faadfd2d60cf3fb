"""LibCST's parse of a text Python has already accepted, without validating every node it builds.

Every LibCST node validates itself when it is constructed (`CSTNode.__post_init__` calls `_validate`:
is this `Comma` well placed, are these parentheses balanced). That guards trees people build by hand;
a tree the parser builds from text is valid by construction, and LibCST's own comment there says the
check would better be left out of parsing. It is about a seventh of the parse (benchmarks/README.md),
the largest stage of a run. `parse_module` leaves it out for the nodes built during its own call, in
its own thread only: nodes built anywhere else (a fix's replacement, another library's code in the
same process, another thread) are validated as before. Where LibCST has no such hook (another
version), it is plain `cst.parse_module`.

It calls LibCST's native parser as `cst.parse_module` does for a text (given as `str`, UTF-8), without importing
what `cst.parse_module` does besides (the detection of a configuration from bytes, a third of what devlint imports
of LibCST's parser: devlint/engine/libcst_loader.py); where there is no such parser, or LibCST is told to use
its pure-Python one (`LIBCST_PARSER_TYPE=pure`, older releases), `cst.parse_module` itself.
"""

from __future__ import annotations

import os
import threading
from typing import Callable, Optional

import libcst as cst

from devlint.analysis.libcst_internals import VALIDATION_HOOK, native_parse_module

_parsing = threading.local()


def _install() -> Optional[Callable[[cst.CSTNode], None]]:
    """Wrap `CSTNode.__post_init__` so that it skips validation while this thread is inside
    `parse_module`; the wrapped original, or None where LibCST does not validate there."""
    base = cst.CSTNode
    validate = base.__dict__.get(VALIDATION_HOOK)
    if validate is None or getattr(validate, "_devlint_parse", False):
        return validate

    def post_init(self: cst.CSTNode) -> None:
        if not getattr(_parsing, "active", False):
            validate(self)

    post_init._devlint_parse = True  # type: ignore[attr-defined]  (installed once per process)
    setattr(base, VALIDATION_HOOK, post_init)
    return validate


_ORIGINAL = _install()


def _native_parser() -> Callable[[str], cst.Module]:
    """`cst.parse_module` for a text: LibCST's native parser, called as `cst.parse_module` calls it."""
    parse = native_parse_module
    if os.environ.get("LIBCST_PARSER_TYPE") != "pure" and parse is not None:
        return lambda text: parse(text, "utf-8")  # type: ignore[misc]
    return cst.parse_module


_parse = _native_parser()


def parse_module(text: str) -> cst.Module:
    """`cst.parse_module(text)` (the same tree, the same errors) for a text `ast.parse` accepted."""
    if _ORIGINAL is None or getattr(_parsing, "active", False):
        return _parse(text)
    _parsing.active = True
    try:
        return _parse(text)
    finally:
        _parsing.active = False
