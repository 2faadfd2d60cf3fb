"""DEV004 — `torch.load` without `map_location`."""

from __future__ import annotations

import libcst as cst

from devlint.analysis.devices import DeviceNameTracker, DeviceVariable
from devlint.analysis.edits import append_keyword, code_of
from devlint.analysis.names import has_star_kwargs, keyword, positional
from devlint.diagnostics import Applicability
from devlint.prefilter import words
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor
from devlint.screen import SyntaxFacts
from devlint.walk import children

_LOADS = ("load", "serialization.load", "jit.load")


def _screen(facts: SyntaxFacts) -> bool:
    """A call of `torch.load` (any alias) with arguments."""
    return facts.calls_to((f"torch.{name}" for name in _LOADS), with_arguments=True)


RULE = Rule(
    code="DEV004",
    name="load-without-map-location",
    summary="`torch.load` without `map_location` fails on machines without the device the file was saved from",
    why="""
        A checkpoint remembers the device of every tensor in it. Saved from a GPU, it fails to load on a
        CPU-only machine ("Attempting to deserialize object on a CUDA device but
        torch.cuda.is_available() is False"), and on a multi-GPU machine every process loads it onto
        `cuda:0`, filling that GPU's memory. `weights_only` is a separate question, about what a checkpoint
        may contain rather than where it loads: torch 2.6 and later default it to True, and devlint neither
        reports it nor changes it (a fix adds `map_location=` only); `map_location` is needed either way.
    """,
    example="""
        state = torch.load("checkpoint.pt")
        model.load_state_dict(torch.load(path))
    """,
    instead="""
        state = torch.load("checkpoint.pt", map_location=device)
        model.load_state_dict(torch.load(path, map_location="cpu"))
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        Adds `map_location=` as a new keyword placed the way the call is laid out. Safe when the result
        goes straight into `load_state_dict(...)`: the fix then adds `map_location="cpu"`, which always
        loads, and `load_state_dict` copies the values into the module's own tensors wherever they are
        (loading to the CPU first also avoids a second copy of the weights in GPU memory). Elsewhere it
        adds the file's device variable where one is bound at that line and shown to hold a device string
        or a `torch.device` (never a parameter or attribute that may be an int GPU index, which
        `map_location` rejects, nor a name deleted before the line; no fix where a device-named variable
        is not shown to be one), else `"cpu"`, and is unsafe: code that used the loaded
        tensors (or a loaded module) directly may now get them on another device than the one they were
        saved from. No fix when the call passes `*args`, nor `"cpu"` where the loaded value is returned
        as it is, directly or through a name used for nothing else (the caller may use the tensors on the
        device they were saved from).
    """,
    tokens=("torch", words("load")),
    screen=_screen,
)


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
        if not self.torch.is_call_to(node, *_LOADS):
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
