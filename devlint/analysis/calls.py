"""Which functions of the file run as part of a Module's `forward`.

`forward` itself, the methods of the same class it calls as `self.m(...)`, the module-level
functions it calls as `f(...)`, and, transitively, what those call in the same two ways.
Calls through other objects, base classes of other files or imports are not followed.
"""

from __future__ import annotations

from typing import Callable, Iterator

import libcst as cst

from devlint.analysis.classes import ClassTable

_MOVES = ("to", "cuda")


def _walk(function: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def _calls(function: cst.FunctionDef) -> Iterator[cst.Call]:
    """The calls in `function` whose result is not moved on the spot (`self.mask(n).to(x.device)`
    hands its caller a tensor on the device, whatever the callee made)."""
    moved = set()
    for node in _walk(function):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MOVES:
            moved.add(node.func.value)
        if isinstance(node, cst.Call) and node not in moved:
            yield node


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


def returned_sources(function: cst.FunctionDef, sources: set[cst.Call], moves: Callable[[cst.Call], bool]
                     ) -> set[cst.Call]:
    """Which of `sources` (calls in `function`) flow, unmoved, into what `function` returns.

    Followed: names assigned from them, arithmetic, calls (receiver and arguments: `t.float()`,
    `torch.stack([a, b])`), tuples. Not followed: a move (`moves(call)`), and a subscript's
    index (`weight[idx]` is on `weight`'s device whatever `idx` is)."""
    assigned: dict[str, list[cst.BaseExpression]] = {}
    returned: list[cst.BaseExpression] = []
    for node in _walk(function):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                for name in _names(target.target):
                    assigned.setdefault(name, []).append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            for name in _names(node.target):
                assigned.setdefault(name, []).append(node.value)
        elif isinstance(node, cst.Return) and node.value is not None:
            returned.append(node.value)
    found: set[cst.Call] = set()
    seen: set[str] = set()
    work = list(returned)
    while work:
        expr = work.pop()
        if isinstance(expr, cst.Call) and expr in sources:
            found.add(expr)
        elif isinstance(expr, cst.Name):
            if expr.value not in seen:
                seen.add(expr.value)
                work.extend(assigned.get(expr.value, []))
        elif isinstance(expr, cst.Call):
            if moves(expr):
                continue
            if isinstance(expr.func, cst.Attribute):
                work.append(expr.func.value)  # x.float(): on x's device; torch.stack(...): its arguments'
            work.extend(arg.value for arg in expr.args)
        elif isinstance(expr, cst.Subscript):
            work.append(expr.value)
        elif isinstance(expr, cst.BinaryOperation):
            work.extend((expr.left, expr.right))
        elif isinstance(expr, cst.UnaryOperation):
            work.append(expr.expression)
        elif isinstance(expr, cst.IfExp):
            work.extend((expr.body, expr.orelse))
        elif isinstance(expr, (cst.Tuple, cst.List)):
            work.extend(element.value for element in expr.elements)
    return found


def _names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _names(target.value)
