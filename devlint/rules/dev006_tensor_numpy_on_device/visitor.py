"""DEV006 — `.numpy()` / `np.asarray` on a tensor the code put on a device: the visitor and its fix."""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from devlint.analysis.edits import code_of, short, shown_code
from devlint.analysis.names import dotted_name, positional
from devlint.rules.dev006_tensor_numpy_on_device.placement import Placed, Placement
from devlint.analysis.screen import NUMPY_CONVERSIONS, NUMPY_READERS, SKLEARN_READERS
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev006_tensor_numpy_on_device import RULE

# NumPy functions that convert their first argument (a CUDA tensor raises there as in `.numpy()`).
_CONVERSIONS = (*(name for name in NUMPY_CONVERSIONS if name != "numpy"), *sorted(NUMPY_READERS))

# (the scope a conversion is read in, its enclosing functions innermost first, its class, in a class body?)
Where = tuple[Union[cst.FunctionDef, cst.Module], list[cst.FunctionDef], Optional[cst.ClassDef], bool]
Candidate = tuple[cst.Call, cst.BaseExpression, str]  # the conversion, the converted value, its text


class TensorNumpyOnDevice(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.numpy_modules: set[str] = set()  # `np` of `import numpy as np`
        self.numpy_conversions: set[str] = set()  # `asarray` of `from numpy import asarray`
        self.sklearn_modules: set[str] = set()  # `metrics` of `from sklearn import metrics`, `sklearn`
        self.sklearn_readers: set[str] = set()  # `f1_score` of `from sklearn.metrics import f1_score`
        self.calls: list[cst.Call] = []
        self.scopes: dict[cst.Call, Where] = {}

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.evaluated_name == "numpy":
                self.numpy_modules.add(alias.evaluated_alias or "numpy")
            elif alias.evaluated_name in ("sklearn", "sklearn.metrics"):
                self.sklearn_modules.add(alias.evaluated_alias or "sklearn")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = None if node.relative or node.module is None else code_of(node.module)
        if module in ("sklearn", "sklearn.metrics") and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.evaluated_name == "metrics":
                    self.sklearn_modules.add(alias.evaluated_alias or "metrics")
                elif alias.evaluated_name in SKLEARN_READERS:
                    self.sklearn_readers.add(alias.evaluated_alias or alias.evaluated_name)
            return
        if module != "numpy":
            return
        if isinstance(node.names, cst.ImportStar):
            self.numpy_conversions.update(_CONVERSIONS)
            return
        for alias in node.names:
            if alias.evaluated_name in _CONVERSIONS:
                self.numpy_conversions.add(alias.evaluated_alias or alias.evaluated_name)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        # any plain name may be an alias (`from numpy import asarray as to_array`): imports are read to the end
        if isinstance(func, cst.Name) or (isinstance(func, cst.Attribute) and (
                func.attr.value in ("numpy", *_CONVERSIONS) or func.attr.value in SKLEARN_READERS)):
            functions = self.ctx.enclosing_functions()
            in_class_body = self.ctx.current_class() is not None and not functions
            scope = functions[0] if functions else self.ctx.module
            cls = self.ctx.current_class() if functions and _is_method(self.ctx, functions[0]) else None
            self.calls.append(node)
            self.scopes[node] = (scope, functions, cls, in_class_body)

    def finish(self) -> None:
        placements: dict[cst.CSTNode, Placement] = {}
        for call in self.calls:
            scope, functions, cls, in_class_body = self.scopes[call]
            if in_class_body:
                continue
            for found in self._candidates(call):
                if scope not in placements:
                    placements[scope] = Placement(self.ctx, scope, functions, cls, self.preview).read()
                value = found[1]
                placed = placements[scope].placed(value)
                if placed is None or placed.unshown or (found[2] != "numpy" and not placed.is_tensor):
                    continue
                self.report(call, _message(self.ctx.module, call, found, placed), _fix(call, found, placed))
                break  # one report per call (its fix copies that argument; the next pass sees the other)

    def _candidates(self, call: cst.Call) -> list[Candidate]:
        """(call, converted value, "numpy" or the function) for each value a conversion converts: the receiver
        of `.numpy()`, the first argument of a NumPy function, the first two of a scikit-learn metric."""
        func = call.func
        if type(func) is cst.Attribute and func.attr.value == "numpy":
            return [] if call.args else [(call, func.value, "numpy")]
        name: Optional[str] = None
        converted = 1
        if (type(func) is cst.Attribute and func.attr.value in _CONVERSIONS and type(func.value) is cst.Name
                and func.value.value in self.numpy_modules):
            name = func.attr.value
        elif type(func) is cst.Name and func.value in self.numpy_conversions:
            name = func.value
        elif (type(func) is cst.Attribute and func.attr.value in SKLEARN_READERS
              and (dotted_name(func) or "").split(".")[0] in self.sklearn_modules):
            name, converted = func.attr.value, 2
        elif type(func) is cst.Name and func.value in self.sklearn_readers:
            name, converted = func.value, 2
        args = positional(call)[:converted]
        if name is None or not args or args[0].star:
            return []
        return [(call, arg.value, name) for arg in args if not arg.star]


def _is_method(ctx, function: cst.FunctionDef) -> bool:  # type: ignore[no-untyped-def]
    cls = ctx.current_class()
    return cls is not None and isinstance(cls.body, cst.IndentedBlock) and function in cls.body.body


def _message(module: cst.Module, call: cst.Call, found: Candidate, placed: Placed) -> str:
    text = short(module.code_for_node(found[1]))
    host = f"{text}.detach().cpu()" if placed.may_require_grad and not _detached(found[1]) else f"{text}.cpu()"
    function = "" if found[2] == "numpy" else module.code_for_node(call.func)
    before = "" if found[2] == "numpy" or positional(call)[0].value is found[1] else "..., "  # `f1_score(y, p)`
    what = f"`{text}.numpy()`" if found[2] == "numpy" else f"`{function}({before}{text})`"
    advice = f"`{host}.numpy()`" if found[2] == "numpy" else f"`{function}({before}{host})`"
    return (f"{what} of a tensor that may be on a device ({placed.how}) raises there: NumPy cannot read device"
            f" memory; copy it to the host first: {advice}")


def _detached(value: cst.BaseExpression) -> bool:
    return (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "detach" and not value.args)


def _to_host(value: cst.BaseExpression, placed: Placed) -> cst.BaseExpression:
    """`value.cpu()`, or `value.detach().cpu()` where it may require grad and is not detached already."""
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if placed.may_require_grad and not _detached(value):
        value = cst.Call(cst.Attribute(value, cst.Name("detach")))
    return cst.Call(cst.Attribute(value, cst.Name("cpu")))


def _fix(call: cst.Call, found: Candidate, placed: Placed) -> Optional[Fix]:
    value = found[1]
    if found[2] == "numpy":
        func = call.func
        assert isinstance(func, cst.Attribute)
        new = call.with_changes(func=func.with_changes(value=_to_host(value, placed)))
    else:
        if not placed.is_tensor:
            return None
        args = [arg.with_changes(value=_to_host(value, placed)) if arg.value is value else arg for arg in call.args]
        new = call.with_changes(args=args)
    return Fix(Applicability.SAFE, shown_code("Copy the tensor to the host first", new), {call: new})



__all__ = ["TensorNumpyOnDevice"]
