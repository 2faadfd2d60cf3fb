"""The parts of LibCST devlint uses that LibCST does not promise to keep (its underscored modules and methods),
each named here once. A LibCST release that moves or changes one fails tests/test_libcst_internals.py by name,
rather than a rule somewhere or a silent change of positions; pyproject.toml bounds LibCST to the releases tested
and `.ci/run` runs that test and the engine's against the newest release too.

- `CodegenState`, LibCST's code generation state: positions are recorded by a state that extends it
  (devlint/engine/placing.py), as LibCST's own PositionProvider does, without importing `libcst.metadata`.
- `CodePosition` and `CodeRange`, positions as LibCST gives them, from the module that defines them (their public
  names are in `libcst.metadata`, whose import loads every provider).
- `codegen(node, state)`: a node's code written into a state (`_codegen`); `is_removable(node)`: is it a node a
  transformer's result may drop (`_is_removable`).
- `NODE_MODULES`, the modules that define LibCST's node classes (devlint/analysis/walk.py lists them from there).
- `native_parse_module`, LibCST's native parser (`libcst.native.parse_module(text, encoding)`), None without one.
- `VALIDATION_HOOK`, the method of `CSTNode` that validates every node built (devlint/engine/parsing.py skips it
  for the nodes the parser builds).
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst._position import CodePosition, CodeRange

__all__ = ["CodegenState", "CodePosition", "CodeRange", "NODE_MODULES", "VALIDATION_HOOK", "codegen",
           "is_removable", "native_parse_module"]

NODE_MODULES = tuple(f"libcst._nodes.{name}" for name in ("base", "expression", "statement", "module", "op",
                                                           "whitespace"))
VALIDATION_HOOK = "__post_init__"


def codegen(node: cst.CSTNode, state: CodegenState) -> None:
    node._codegen(state)


def is_removable(node: cst.CSTNode) -> bool:
    return node._is_removable()


def _native_parse_module() -> Optional[Callable[[str, str], cst.Module]]:
    try:
        from libcst import native
    except ImportError:
        return None
    return getattr(native, "parse_module", None)


native_parse_module = _native_parse_module()
