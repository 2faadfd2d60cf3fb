"""DEV004 — `torch.load` without `map_location`: the visitor and its fix."""

from __future__ import annotations

import libcst as cst

from devlint.analysis.devices import DeviceNameTracker, DeviceVariable
from devlint.analysis.edits import append_keyword, code_of
from devlint.analysis.names import has_star_kwargs, keyword, positional
from devlint.analysis.walk import children
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev004_load_without_map_location import LOADS, RULE


class LoadWithoutMapLocation(RuleVisitor, DeviceNameTracker):
    rule = RULE
    needs_torch_import = False  # `torch.load(...)` written out is checked in any file

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.into_load_state_dict: set[int] = set()
        self.returned: set[int] = set()  # `return torch.load(...)`: the caller decides where the tensors go
        self.assigned: dict[int, str] = {}  # id(value) -> the one name it is assigned to

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assigned[id(node.value)] = node.targets[0].target.value

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.returned.add(id(node.value))

    def _only_returned(self, load: cst.Call) -> bool:
        """`return torch.load(...)`, or `x = torch.load(...)` whose only other use is `return x`."""
        if id(load) in self.returned:
            return True
        name = self.assigned.get(id(load))
        function = self.ctx.current_function()
        if name is None or function is None:
            return False
        total, returned = _uses(function.body, name)
        return returned > 0 and total == returned + 1

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "load_state_dict" and node.args:
            self.into_load_state_dict.add(id(node.args[0].value))
        if not self.torch.is_call_to(node, *LOADS):
            return
        given = keyword(node, "map_location")
        if given is not None and not _is_none(given.value):
            return
        if has_star_kwargs(node) or len(positional(node)) >= 2:
            return
        if not node.args:
            return
        fix = None
        if not any(arg.star == "*" for arg in node.args):  # `*args` may hold map_location already
            safe = id(node) in self.into_load_state_dict
            # Into load_state_dict "cpu" always works (the values are copied to the module's device).
            # the file's device variable might be an int rank, which map_location rejects: it is used
            # only when shown to hold a device string or a torch.device (`strict`)
            found = DeviceVariable() if safe else self.device_variable(strict=True)
            variable = found.name
            value = cst.parse_expression(variable) if variable else cst.SimpleString('"cpu"')
            # Returned as it is, the loaded tensors go where the file does not show: a caller may use
            # them as GPU tensors, so moving them to the CPU could break it. Only the function's own
            # device is used there.
            if not found.blocked and (safe or variable is not None or not self._only_returned(node)):
                fix = Fix(
                    Applicability.SAFE if safe else Applicability.UNSAFE,
                    f"Add `map_location={code_of(value)}`",
                    {given.value: value} if given is not None else {node: append_keyword(node, "map_location", value)},
                )
        name = self.ctx.module.code_for_node(node.func)
        self.report(
            node,
            f"`{name}(...)` without `map_location` fails on a machine without the device the checkpoint"
            f" was saved from;"
            f" pass `map_location=` (e.g. `\"cpu\"` or your device)",
            fix,
        )


def _uses(root: cst.CSTNode, name: str) -> tuple[int, int]:
    """(every `name` in `root`, those that are a `return name`)."""
    total = returned = 0
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == name:
            returned += 1
        if isinstance(node, cst.Name) and node.value == name:
            total += 1
        stack.extend(children(node))
    return total, returned


def _is_none(expr: cst.BaseExpression) -> bool:
    """`map_location=None` is the default spelled out: it maps nothing."""
    return isinstance(expr, cst.Name) and expr.value == "None"
