"""Which functions of the file run as part of a Module's `forward`.

`forward` itself, the methods of the same class it calls as `self.m(...)`, the module-level
functions it calls as `f(...)`, and, transitively, what those call in the same two ways.
Calls through other objects, base classes of other files or imports are not followed.
"""

from __future__ import annotations

from typing import Callable, Iterator

import libcst as cst

from devlint.analysis.classes import ClassTable
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.walk import children

_MOVES = ("to", "cuda", "type_as")


def _walk(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and every node inside it, in source order."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))  # node.children would rebuild the node


def _is_move(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MOVES


def _calls(function: cst.FunctionDef) -> Iterator[cst.Call]:
    """The calls in `function` whose result is not moved by the caller: `self.mask(n).to(x.device)`,
    or `m = self.mask(n)` ... `m = m.to(x.device)`, hands on a tensor on the device, whatever the callee made."""
    moved = set()
    assigned: list[tuple[str, cst.BaseExpression]] = []
    for node in _walk(function.body):
        if _is_move(node):
            moved.add(node.func.value)  # type: ignore[attr-defined]
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            assigned.append((node.targets[0].target.value, node.value))
    moved_names = {name for name, value in assigned if _is_move(value) and name in _names_in(value)}
    moved.update(value for name, value in assigned if name in moved_names)
    for node in _walk(function.body):
        if isinstance(node, cst.Call) and node not in moved:
            yield node


def _names_in(expr: cst.CSTNode) -> set[str]:
    return {node.value for node in _walk(expr) if isinstance(node, cst.Name)}


def _functions(body: cst.Module | cst.BaseSuite) -> dict[str, cst.FunctionDef]:
    statements = body.body if isinstance(body, (cst.Module, cst.IndentedBlock)) else ()
    return {s.name.value: s for s in statements if isinstance(s, cst.FunctionDef)}


def reached_from_forward(module: cst.Module, classes: ClassTable) -> dict[cst.FunctionDef, str]:
    """Every function that runs when some Module of the file runs `forward`, mapped to how
    (`"forward"` for forward itself, else `"Encoder.forward"`, the forward that reaches it)."""
    module_functions = _functions(module)
    reached: dict[cst.FunctionDef, str] = {}
    for cls in classes.classes.values():
        if not classes.node_is_module_class(cls):
            continue
        methods = _functions(cls.body)
        forward = methods.get("forward")
        if forward is None:
            continue
        origin = f"{cls.name.value}.forward"
        own = set(methods.values())
        work = [forward]
        while work:
            function = work.pop()
            if function in reached:
                continue
            reached[function] = "forward" if function is forward else origin
            for call in _calls(function):
                func = call.func
                if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                    if func.attr.value in methods and function in own:
                        work.append(methods[func.attr.value])
                elif isinstance(func, cst.Name) and func.value in module_functions:
                    work.append(module_functions[func.value])
    return reached


def returned_sources(function: cst.FunctionDef, sources: set[cst.Call], moves: Callable[[cst.Call], bool],
                     torch: TorchNames) -> set[cst.Call]:
    """Which of `sources` (calls in `function`) flow, unmoved, into what `function` returns.

    Followed: a name to its latest assignment before the point of use, arithmetic, a method's
    receiver (`t.float()`), the arguments of torch functions (`torch.stack([a, b])`), tuples. Not
    followed: a move (`moves(call)`), other functions, and a subscript's index (`weight[idx]` is on
    `weight`'s device whatever `idx` is)."""
    assignments: dict[str, list[tuple[int, bool, cst.BaseExpression]]] = {}  # name -> (order, augmented, value)
    work: list[tuple[int, cst.BaseExpression]] = []
    for order, node in enumerate(_walk(function.body)):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                for name in _names(target.target):
                    assignments.setdefault(name, []).append((order, False, node.value))
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            for name in _names(node.target):
                assignments.setdefault(name, []).append((order, isinstance(node, cst.AugAssign), node.value))
        elif isinstance(node, cst.Return) and node.value is not None:
            work.append((order, node.value))
    found: set[cst.Call] = set()
    seen: set[tuple[str, int]] = set()
    while work:
        order, expr = work.pop()
        if isinstance(expr, cst.Call) and expr in sources:
            found.add(expr)
        elif isinstance(expr, cst.Name):
            # the latest assignment before `order` (and what `+=` adds to, before it)
            for at, augmented, value in reversed([a for a in assignments.get(expr.value, []) if a[0] < order]):
                if (expr.value, at) not in seen:
                    seen.add((expr.value, at))
                    work.append((at, value))
                if not augmented:
                    break
        elif isinstance(expr, cst.Call):
            if moves(expr):
                continue
            full = torch.qualify(expr.func) or ""
            if full.startswith("torch.") and not full.startswith("torch.nn."):
                work.extend((order, arg.value) for arg in expr.args)
            elif isinstance(expr.func, cst.Attribute) and not full:
                work.append((order, expr.func.value))  # t.float(), t.masked_fill(...): on t's device
        elif isinstance(expr, cst.Subscript):
            work.append((order, expr.value))
        elif isinstance(expr, cst.BinaryOperation):
            work.extend(((order, expr.left), (order, expr.right)))
        elif isinstance(expr, cst.UnaryOperation):
            work.append((order, expr.expression))
        elif isinstance(expr, cst.IfExp):
            work.extend(((order, expr.body), (order, expr.orelse)))
        elif isinstance(expr, (cst.Tuple, cst.List)):
            work.extend((order, element.value) for element in expr.elements)
    return found


def _names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _names(target.value)
