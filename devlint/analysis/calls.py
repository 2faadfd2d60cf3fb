"""Which functions of the file run as part of a Module's `forward`.

`forward` itself, the methods of the same class it calls as `self.m(...)`, the module-level
functions it calls as `f(...)`, and, transitively, what those call in the same two ways.
Calls through other objects, base classes of other files or imports are not followed.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from devlint.analysis.classes import ClassTable


def _calls(function: cst.FunctionDef) -> Iterator[cst.Call]:
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            yield node
        stack.extend(node.children)


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
