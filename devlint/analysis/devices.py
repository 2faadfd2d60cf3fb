"""The file's own device variable, for fixes that should use the names the file already has."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import AbstractSet, Optional

import libcst as cst

from devlint.analysis.context import FileContext
from devlint.analysis.edits import code_of
from devlint.analysis.names import dotted_name, is_cuda_device_expr, named_parameters, string_value
from devlint.analysis.terminating import terminating
from devlint.analysis.vocabulary import ACCELERATOR_TYPES, names_a_device
from devlint.analysis.walk import children

_DEVICE_NAMES = ("device", "DEVICE", "dev")
# What holds a device: a device string (`"cuda"`, `"cpu"`, `"mps:0"`), ...
_DEVICE_STRING = re.compile(r"(cpu|cuda|mps|xpu|meta|npu|hpu|xla)(:\d+)?")
# ... never these calls, which return an int index (or a count), not a device
_INT_DEVICE_CALLS = {"get_device", "current_device", "device_count", "get_device_index", "_get_device_index"}
# A name that holds a device, not its kind or its index (`device_type`, `device_id`)


@dataclass(frozen=True)
class DeviceVariable:
    """The file's device variable at a position. `name` is None with `blocked` when the position
    has a device-named variable that is not shown to hold a device there (a fix must not guess);
    None without `blocked` when there is none (a fix may fall back to choosing the device)."""

    name: Optional[str] = None
    blocked: bool = False


def device_variable(ctx: FileContext, exclude: AbstractSet[str] = frozenset(), *,
                    strict: bool = False) -> DeviceVariable:
    """`device` (or `DEVICE`, `dev`, `self.device`) when it is bound here and shown to hold a device.

    Traversal is in source order, so a frame's `bound` holds the names assigned *before*
    this point: a local bound later (or by the statement being fixed) is never used.
    A name that an inner function binds anywhere is local there, so an outer binding of it
    is not visible (using it would raise UnboundLocalError). `exclude` holds the names the
    statement being fixed assigns: `device = torch.device(device)` would define a name by itself.

    Shown to hold a device: every value the function (or module, or class for `self.device`) gives
    it is a `torch.device(...)`, a device string, a tensor's `.device`, a device-returning call, or
    a choice between those; a parameter by its annotation or default. A parameter with neither
    counts only when not `strict` (`strict`: the variable goes where an int GPU index is invalid,
    as `map_location=`). Never a name `del`eted earlier, nor a parameter the function resolved
    into another name (`device_ = device or ...`): the resolved name is used if it is bound."""
    hidden: set[str] = set(exclude)
    innermost = True
    for frame in reversed(ctx.frames):
        node = frame.node
        if isinstance(node, cst.FunctionDef):
            params = named_parameters(node)
            for name in _DEVICE_NAMES:
                if name in hidden or not (name in params or name in frame.bound):
                    continue
                if name in frame.deleted:
                    return DeviceVariable(blocked=True)
                if name in params and name not in frame.bound:
                    resolved = _resolved_into(ctx, node, name)
                    if resolved is not None:
                        usable = (resolved in frame.bound and resolved not in frame.deleted
                                  and _local_is_device(ctx, node, resolved, strict))
                        return DeviceVariable(resolved if usable else None, not usable)
                if _local_is_device(ctx, node, name, strict):
                    return DeviceVariable(name)
                return DeviceVariable(blocked=True)
            if innermost and _takes_self(node) and "self.device" not in hidden and "device" in _self_attributes(ctx):
                cls = ctx.current_class()
                if cls is not None and _self_device_is_device(ctx, cls, strict):
                    return DeviceVariable("self.device")
                return DeviceVariable(blocked=True)
            innermost = False
            hidden.update(ctx.types.scope_index(node).bindings)
        elif isinstance(node, cst.Module):
            inside_function = ctx.current_function() is not None
            module_names = ctx.types.scope_index(node).bindings if inside_function else {}
            for name in _DEVICE_NAMES:
                if name not in hidden and (name in frame.bound or name in module_names):
                    if name in frame.deleted:
                        return DeviceVariable(blocked=True)
                    if _local_is_device(ctx, node, name, strict):
                        return DeviceVariable(name)
                    return DeviceVariable(blocked=True)
    return DeviceVariable()


def _local_is_device(ctx: FileContext, scope: "cst.FunctionDef | cst.Module", name: str, strict: bool,
                     depth: int = 0) -> bool:
    """Every binding of `name` in `scope` shows a device (see `device_variable`)."""
    bindings = ctx.types.scope_index(scope).bindings.get(name, [])
    values = [node for how, node in bindings if how == "value"]
    others = [(how, node) for how, node in bindings if how not in ("value", "param", "annotation")]
    if others or not bindings:
        return False  # unpacked, iterated, imported, augmented: not something we read as a device
    if values:
        # the function sets it itself (`device = device or torch.device(...)` resolves a parameter)
        return all(_is_device_value(ctx, scope, value, strict, depth) for value in values)
    for how, node in bindings:
        if how == "param" and isinstance(node, cst.Param) and not _param_is_device(ctx, scope, node, strict):
            return False
        if how == "annotation" and not _annotation_is_device(node):
            return False
    return True


def _param_is_device(ctx: FileContext, scope: "cst.FunctionDef | cst.Module", param: cst.Param,
                     strict: bool) -> bool:
    if param.annotation is not None:
        return _annotation_is_device(param.annotation.annotation)
    if param.default is not None:
        return _is_device_value(ctx, scope, param.default, strict, 3)
    return not strict and param.name.value in _DEVICE_NAMES


def _annotation_is_device(annotation: cst.CSTNode) -> bool:
    """`torch.device`, `str`, `Union[str, torch.device]`; not `int`, nor one that allows None."""
    words = set(re.findall(r"[A-Za-z_]+", code_of(annotation)))
    if words & {"int", "None", "Optional", "Any"}:
        return False
    return bool(words & {"device", "str"})


@terminating(False)
def _is_device_value(ctx: FileContext, scope: "cst.FunctionDef | cst.Module", expr: cst.BaseExpression,
                     strict: bool, depth: int = 0) -> bool:
    value = string_value(expr)
    if value is not None:
        return bool(_DEVICE_STRING.fullmatch(value.strip()))
    if isinstance(expr, cst.IfExp):
        return (_is_device_value(ctx, scope, expr.body, strict, depth)
                and _is_device_value(ctx, scope, expr.orelse, strict, depth))
    if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or):
        # `device or torch.device("cpu")`: a given device, else the default
        return (_is_device_value(ctx, scope, expr.right, strict, depth)
                and (isinstance(expr.left, cst.Name) or _is_device_value(ctx, scope, expr.left, strict, depth)))
    if isinstance(expr, cst.Attribute):
        if expr.attr.value != "device":
            return False
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = ctx.current_class()
            return cls is not None and depth < 3 and _self_device_is_device(ctx, cls, strict, depth + 1)
        return True  # a tensor's (or a module's, an accelerator's) `.device`
    if isinstance(expr, cst.Call):
        if ctx.torch.is_call_to(expr, "device"):
            return True
        name = dotted_name(expr.func) or ""
        last = name.rsplit(".", 1)[-1]
        return (last.lower().endswith("device") and last not in _INT_DEVICE_CALLS
                and not name.startswith(("torch.cuda.", "cuda.")))
    if isinstance(expr, cst.Name) and depth < 3 and expr.value not in ("None", "True", "False"):
        return _local_is_device(ctx, scope, expr.value, strict, depth + 1)
    return False


def _resolved_into(ctx: FileContext, function: cst.FunctionDef, name: str) -> Optional[str]:
    """The other device name the function assigns from parameter `name` (`device_ = device or ...`)."""
    for other, bindings in ctx.types.scope_index(function).bindings.items():
        if other == name or not names_a_device(other):
            continue
        for how, node in bindings:
            if how == "value" and any(word == name for word in _names_in(node)):
                return other
    return None


def _names_in(expr: cst.CSTNode) -> list[str]:
    found: list[str] = []
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            found.append(node.value)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)  # `x.device`: the name is `x`, not `device`
            continue
        stack.extend(children(node))
    return found


def _self_device_is_device(ctx: FileContext, cls: cst.ClassDef, strict: bool, depth: int = 0) -> bool:
    """Every value the class's methods give `self.device` holds a device."""
    bindings = ctx.types.class_index(cls).bindings.get("device", [])
    if not bindings:
        return False
    for how, node, method in bindings:
        if how == "annotation":
            if not _annotation_is_device(node):
                return False
        elif how == "value" and method is not None:
            params = named_parameters(method)
            if isinstance(node, cst.Name) and node.value in params:
                if not _param_is_device(ctx, method, params[node.value], strict):
                    return False
            elif not _is_device_value(ctx, method, node, strict, max(depth, 1)):
                return False
        else:
            return False
    return True


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

    def device_variable(self, *, strict: bool = False) -> DeviceVariable:
        if self._outside_body:
            return DeviceVariable()
        ctx: FileContext = self.ctx  # type: ignore[attr-defined]
        return device_variable(ctx, set().union(*self._assigning), strict=strict)

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


# Device types that hold no host memory a NumPy array could view (`meta` has no data at all).
_ACCELERATOR_STRING = re.compile(rf"({'|'.join(ACCELERATOR_TYPES)})(:\d+)?")


def shows_accelerator(ctx: FileContext, expr: cst.BaseExpression, functions: list[cst.FunctionDef],
                      cls: Optional[cst.ClassDef], depth: int = 0) -> bool:
    """Does the code show that the device `expr` names may be an accelerator, not the CPU?

    `"cuda"`, `"cuda:0"`, `"mps"`, a run-time `f"cuda:{i}"`, `torch.device(...)` of one, a choice
    with one on either side (`"cuda" if torch.cuda.is_available() else "cpu"`), or a name (or
    `self.device`) that some binding gives one of those, a parameter by its default. A name whose
    values the code does not show (`device` as a bare parameter, `args.device`) is not evidence:
    it may be `"cpu"` at run time."""
    if depth > 4:
        return False
    value = string_value(expr)
    if value is not None:
        return bool(_ACCELERATOR_STRING.fullmatch(value.strip()))
    if is_cuda_device_expr(expr):
        return True
    if isinstance(expr, cst.IfExp):
        return any(shows_accelerator(ctx, e, functions, cls, depth + 1) for e in (expr.body, expr.orelse))
    if isinstance(expr, cst.BooleanOperation):
        return any(shows_accelerator(ctx, e, functions, cls, depth + 1) for e in (expr.left, expr.right))
    if isinstance(expr, cst.Call):
        if ctx.torch.is_call_to(expr, "device") and expr.args and expr.args[0].keyword is None:
            return shows_accelerator(ctx, expr.args[0].value, functions, cls, depth + 1)
        return False
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        if cls is None:
            return False
        for how, node, method in ctx.types.class_index(cls).bindings.get(expr.attr.value, []):
            scope = [method] if method is not None else []
            if how == "value" and shows_accelerator(ctx, node, scope, cls, depth + 1):  # type: ignore[arg-type]
                return True
        return False
    if isinstance(expr, cst.Name):
        return _name_shows_accelerator(ctx, expr.value, functions, cls, depth)
    return False


def _name_shows_accelerator(ctx: FileContext, name: str, functions: list[cst.FunctionDef],
                            cls: Optional[cst.ClassDef], depth: int) -> bool:
    """Some binding of `name`, in the innermost scope that binds it, shows an accelerator."""
    for position, scope in enumerate([*functions, ctx.module]):
        bindings = ctx.types.scope_index(scope).bindings.get(name)
        if not bindings:
            continue
        outer = functions[position:] if isinstance(scope, cst.FunctionDef) else []
        for how, node in bindings:
            if how == "value" and shows_accelerator(ctx, node, outer, cls, depth + 1):  # type: ignore[arg-type]
                return True
            if (how == "param" and isinstance(node, cst.Param) and node.default is not None
                    and shows_accelerator(ctx, node.default, functions[position + 1:], cls, depth + 1)):
                return True
        return False
    return False
