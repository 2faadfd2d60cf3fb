"""The file's own device variable, for fixes that should use the names the file already has."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.context import FileContext

_DEVICE_NAMES = ("device", "DEVICE", "dev")


def device_variable(ctx: FileContext) -> Optional[str]:
    """`device` (or `DEVICE`, `dev`, `self.device`) when it is certainly bound here.

    Traversal is in source order, so a frame's `bound` holds the names assigned *before*
    this point: a local bound later (or by the statement being fixed) is never used."""
    innermost = True
    for frame in reversed(ctx.frames):
        node = frame.node
        if isinstance(node, cst.FunctionDef):
            params = node.params
            names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
            for name in _DEVICE_NAMES:
                if name in names or name in frame.bound:
                    return name
            if innermost and "device" in _self_attributes(ctx):
                return "self.device"
            innermost = False
        elif isinstance(node, cst.Module):
            inside_function = ctx.current_function() is not None
            module_names = ctx.types.scope_index(node).bindings if inside_function else {}
            for name in _DEVICE_NAMES:
                if name in frame.bound or name in module_names:
                    return name
    return None


def _self_attributes(ctx: FileContext) -> set[str]:
    cls = ctx.current_class()
    if cls is None or ctx.method_name() in (None, "__init__"):
        return set()
    return set(ctx.types.class_index(cls).bindings)
