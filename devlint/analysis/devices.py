"""The file's own device variable, for fixes that should use the names the file already has."""

from __future__ import annotations

from typing import AbstractSet, Optional

import libcst as cst

from devlint.analysis.context import FileContext

_DEVICE_NAMES = ("device", "DEVICE", "dev")


def device_variable(ctx: FileContext, exclude: AbstractSet[str] = frozenset()) -> Optional[str]:
    """`device` (or `DEVICE`, `dev`, `self.device`) when it is certainly bound here.

    Traversal is in source order, so a frame's `bound` holds the names assigned *before*
    this point: a local bound later (or by the statement being fixed) is never used.
    A name that an inner function binds anywhere is local there, so an outer binding of it
    is not visible (using it would raise UnboundLocalError). `exclude` holds the names the
    statement being fixed assigns: `device = torch.device(device)` would define a name by itself."""
    hidden: set[str] = set(exclude)
    innermost = True
    for frame in reversed(ctx.frames):
        node = frame.node
        if isinstance(node, cst.FunctionDef):
            params = node.params
            names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
            for name in _DEVICE_NAMES:
                if name not in hidden and (name in names or name in frame.bound):
                    return name
            if innermost and _takes_self(node) and "self.device" not in hidden and "device" in _self_attributes(ctx):
                return "self.device"
            innermost = False
            hidden.update(ctx.types.scope_index(node).bindings)
        elif isinstance(node, cst.Module):
            inside_function = ctx.current_function() is not None
            module_names = ctx.types.scope_index(node).bindings if inside_function else {}
            for name in _DEVICE_NAMES:
                if name not in hidden and (name in frame.bound or name in module_names):
                    return name
    return None


def assigned_names(statement: cst.CSTNode) -> set[str]:
    """The names and dotted attributes (`self.device`) an assignment statement binds."""
    targets: list[cst.BaseExpression] = []
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets]
    elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
        targets = [statement.target]
    names: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(element.value for element in target.elements)
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
        elif isinstance(target, cst.Name):
            names.add(target.value)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            names.add(f"{target.value.value}.{target.attr.value}")
    return names


def _takes_self(function: cst.FunctionDef) -> bool:
    """A method whose first parameter is `self` (not a staticmethod, not a rebound `self`)."""
    params = [*function.params.posonly_params, *function.params.params]
    return bool(params) and params[0].name.value == "self" and not any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators
    )


def _self_attributes(ctx: FileContext) -> set[str]:
    cls = ctx.current_class()
    if cls is None or ctx.method_name() in (None, "__init__"):
        return set()
    return set(ctx.types.class_index(cls).bindings)


class DeviceNameTracker(cst.BatchableCSTVisitor):
    """Mixin for rule visitors whose fixes name the file's device variable: knows which names
    the statement being visited assigns, and whether we are in a signature or decorator
    (evaluated in the enclosing scope, before the function's parameters exist)."""

    def __init__(self) -> None:
        super().__init__()
        self._assigning: list[set[str]] = []
        self._outside_body = 0

    def device_variable(self) -> Optional[str]:
        if self._outside_body:
            return None
        ctx: FileContext = self.ctx  # type: ignore[attr-defined]
        return device_variable(ctx, set().union(*self._assigning))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._assigning.append(assigned_names(node))

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._assigning.pop()

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assigning.append(assigned_names(node))

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self._assigning.pop()

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._assigning.append(assigned_names(node))

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._assigning.pop()

    def visit_Parameters(self, node: cst.Parameters) -> None:
        self._outside_body += 1

    def leave_Parameters(self, original_node: cst.Parameters) -> None:
        self._outside_body -= 1

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self._outside_body += 1

    def leave_Decorator(self, original_node: cst.Decorator) -> None:
        self._outside_body -= 1
