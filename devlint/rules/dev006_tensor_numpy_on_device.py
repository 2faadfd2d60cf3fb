"""DEV006 — `.numpy()` / `np.asarray` on a tensor the code put on a device."""

from __future__ import annotations

import ast
import re
from typing import Optional, Union

import libcst as cst

from devlint.analysis.edits import short, shown_code
from devlint.analysis.names import positional
from devlint.analysis.placement import Placed, Placement
from devlint.diagnostics import Applicability
from devlint.prefilter import method_call, words
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor
from devlint.screen import NUMPY_CONVERSIONS, SyntaxFacts, contains

# NumPy functions that convert their first argument (a CUDA tensor raises there as in `.numpy()`).
_CONVERSIONS = tuple(name for name in NUMPY_CONVERSIONS if name != "numpy")


def _screen(facts: SyntaxFacts) -> bool:
    """A conversion (`.numpy()`, `<numpy>.asarray/array(...)`, an imported `asarray`/`array`) in a function
    that also holds a way onto a device (a `.to(...)`/`.cuda(...)` call or a call given `device=`), or
    outside every function in a file that holds one: a value is followed only in the scope it is in."""
    placing = facts.moves + facts.device_calls
    if not placing:
        return False
    for conversion in facts.numpy_conversions_made():
        if _comes_back_first(conversion):
            continue
        functions = [f for f in facts.functions if contains(f, conversion)]
        if not functions or any(contains(f, call) for f in functions for call in placing):
            return True
    return False


def _comes_back_first(conversion: ast.Call) -> bool:
    """`x.detach().cpu().numpy()`, `np.asarray(y.cpu()[0])`: the converted chain goes through `.cpu()` (or
    `.tolist()`, `.item()`) with no `.to(...)`/`.cuda(...)` after it. Such a value is on the host whatever
    `x` was (a `.to(...)` of any target might move it back, so it ends the walk)."""
    func = conversion.func
    if type(func) is ast.Attribute and func.attr == "numpy":
        value: ast.expr = func.value
    elif conversion.args:
        value = conversion.args[0]
    else:
        return False
    while True:
        if type(value) is ast.Subscript:
            value = value.value  # type: ignore[attr-defined]
        elif type(value) is ast.Call and type(value.func) is ast.Attribute:  # type: ignore[attr-defined]
            method = value.func.attr  # type: ignore[attr-defined]
            if method in ("cpu", "tolist", "item"):
                return True
            if method in ("to", "cuda"):
                return False
            value = value.func.value  # type: ignore[attr-defined]
        else:
            return False


RULE = Rule(
    code="DEV006",
    name="tensor-numpy-on-device",
    summary="`.numpy()` / `np.asarray(...)` of a tensor the code put on a device raises there",
    why="""
        NumPy arrays live in host memory: `x.numpy()`, `np.asarray(x)` and `np.array(x)` of a tensor on a GPU
        raise `TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the
        tensor to host memory first`. On a CPU-only machine the same code runs, so the bug ships and fails on
        the first machine with a GPU. The rule reports only a tensor the code itself placed: moved with
        `.cuda()` or `.to(target)`, made by a torch factory with `device=target`, the output of a model the
        function moved (`model = Net().to(device)`, `model.cuda()`), or what tensor methods, torch functions,
        arithmetic, indexing and unpacking make of one, with no `.cpu()`, `.to("cpu")` or rebinding between.
        The target must be shown to be possibly not the CPU: `"cuda"`, `torch.device("cuda" if
        torch.cuda.is_available() else "cpu")`, or a name (or `self.device`, a parameter's default) bound to
        such. `.to(device)` with a `device` the code does not show (a bare parameter, `args.device`) is not
        reported: it may be the CPU at run time, and the file does not say. `.to(dtype)` is not a move, and
        `.numpy(force=True)` copies to the host itself. Nor is a conversion in a branch of a test that asks
        where things are (`if x.device.type == "cpu":`, `x.is_cuda`, `device != "cpu"`, `use_gpu`), and
        `np.asarray(...)` only of a value shown to be one tensor.
    """,
    example="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        with torch.no_grad():
            logits = model(images.to(device))
        predictions = logits.argmax(1).numpy()
    """,
    instead="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        with torch.no_grad():
            logits = model(images.to(device))
        predictions = logits.argmax(1).cpu().numpy()
    """,
    fix_safety=FixSafety.SAFE,
    fix="""
        Inserts `.cpu()` before the conversion: `x.numpy()` becomes `x.cpu().numpy()`, `np.asarray(x)`
        becomes `np.asarray(x.cpu())` (parenthesised where `x` is an operation). Where the tensor may require
        grad (a model's output outside `torch.no_grad()` / `torch.inference_mode()`, or what is computed from
        one) it inserts `.detach().cpu()`, and a `.detach()` already there is kept once
        (`x.detach().numpy()` becomes `x.detach().cpu().numpy()`). Safe: on the CPU `.cpu()` returns the
        tensor itself and `.detach()` only drops the graph that `.numpy()` refuses anyway, so the array has
        the same values; on a device the call now works. No fix for `np.asarray(...)` of a value that is not
        shown to be one tensor (a model's output object, a list of tensors): `.cpu()` may not exist there.
    """,
    tokens=("torch", words("numpy"), re.compile(r"\bdevice\b|" + method_call("to", "cuda").pattern)),
    screen=_screen,
)

# (the scope a conversion is read in, its enclosing functions innermost first, its class, in a class body?)
Where = tuple[Union[cst.FunctionDef, cst.Module], list[cst.FunctionDef], Optional[cst.ClassDef], bool]
Candidate = tuple[cst.Call, cst.BaseExpression, str]  # the conversion, the converted value, its text


class TensorNumpyOnDevice(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.numpy_modules: set[str] = set()  # `np` of `import numpy as np`
        self.numpy_conversions: set[str] = set()  # `asarray` of `from numpy import asarray`
        self.calls: list[cst.Call] = []
        self.scopes: dict[cst.Call, Where] = {}

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.evaluated_name == "numpy":
                self.numpy_modules.add(alias.evaluated_alias or "numpy")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or cst.Module([]).code_for_node(node.module) != "numpy":
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
        if isinstance(func, cst.Name) or (isinstance(func, cst.Attribute) and func.attr.value in ("numpy",
                                                                                                  *_CONVERSIONS)):
            functions = self.ctx.enclosing_functions()
            in_class_body = self.ctx.current_class() is not None and not functions
            scope = functions[0] if functions else self.ctx.module
            cls = self.ctx.current_class() if functions and _is_method(self.ctx, functions[0]) else None
            self.calls.append(node)
            self.scopes[node] = (scope, functions, cls, in_class_body)

    def finish(self) -> None:
        placements: dict[cst.CSTNode, Placement] = {}
        for call in self.calls:
            found = self._candidate(call)
            if found is None:
                continue
            scope, functions, cls, in_class_body = self.scopes[call]
            if in_class_body:
                continue
            if scope not in placements:
                placements[scope] = Placement(self.ctx, scope, functions, cls).read()
            value = found[1]
            placed = placements[scope].placed(value)
            if placed is None or (found[2] != "numpy" and not placed.is_tensor):
                continue
            self.report(call, _message(self.ctx.module, call, found, placed), _fix(call, found, placed))

    def _candidate(self, call: cst.Call) -> Optional[Candidate]:
        """(call, converted value, "numpy" or the NumPy function) for a conversion, else None."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "numpy":
            return None if call.args else (call, func.value, "numpy")
        name: Optional[str] = None
        if (isinstance(func, cst.Attribute) and func.attr.value in _CONVERSIONS and isinstance(func.value, cst.Name)
                and func.value.value in self.numpy_modules):
            name = func.attr.value
        elif isinstance(func, cst.Name) and func.value in self.numpy_conversions:
            name = func.value
        args = positional(call)
        if name is None or not args or args[0].star:
            return None
        return call, args[0].value, name


def _is_method(ctx, function: cst.FunctionDef) -> bool:  # type: ignore[no-untyped-def]
    cls = ctx.current_class()
    return cls is not None and isinstance(cls.body, cst.IndentedBlock) and function in cls.body.body


def _message(module: cst.Module, call: cst.Call, found: Candidate, placed: Placed) -> str:
    text = short(module.code_for_node(found[1]))
    host = f"{text}.detach().cpu()" if placed.may_require_grad and not _detached(found[1]) else f"{text}.cpu()"
    function = "" if found[2] == "numpy" else module.code_for_node(call.func)
    what = f"`{text}.numpy()`" if found[2] == "numpy" else f"`{function}({text})`"
    advice = f"`{host}.numpy()`" if found[2] == "numpy" else f"`{function}({host})`"
    return (f"{what} of a tensor on a device ({placed.how}) raises there: NumPy cannot read device memory; "
            f"copy it to the host first: {advice}")


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



__all__ = ["RULE", "TensorNumpyOnDevice"]
