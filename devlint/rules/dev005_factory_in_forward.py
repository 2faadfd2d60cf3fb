"""DEV005 — tensor created inside `forward` without a device."""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from devlint.analysis.calls import reached_from_forward, returned_sources
from devlint.analysis.edits import append_keyword
from devlint.analysis.factories import (
    FACTORIES, LEGACY_CONSTRUCTORS, SPARSE_FACTORIES, cpu_factory_name, factory_name, is_dtype_only_move,
    legacy_constructor_name, move_target, sparse_on_host_name,
)
from devlint.analysis.names import dotted_name, positional, target_names
from devlint.diagnostics import Applicability
from devlint.prefilter import words
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor
from devlint.screen import SyntaxFacts, contains
from devlint.walk import children


def _screen(facts: SyntaxFacts) -> bool:
    """A factory that may make a host tensor, inside a function that some class's `forward` reaches."""
    candidates = facts.host_tensor_calls(_surely_scalar)
    return bool(candidates) and any(
        contains(function, call) for function in facts.reached_from_forward() for call in candidates)


def _surely_scalar(call: ast.Call, name: str) -> bool:
    """The plainest of the 0-dim tensors that `_is_scalar_tensor` excuses, as `ast` shows them:
    `torch.tensor(0.5)`, `torch.tensor(self.eps)`, `torch.rand([])` (never more than it excuses)."""
    if not call.args:
        return False
    value = call.args[0]
    if name in ("tensor", "as_tensor"):
        number = type(value) is ast.Constant and type(value.value) in (int, float, bool)  # type: ignore[attr-defined]
        return number or type(value) is ast.Attribute
    return len(call.args) == 1 and type(value) in (ast.List, ast.Tuple) and not value.elts  # type: ignore[attr-defined]


RULE = Rule(
    code="DEV005",
    name="factory-in-forward-without-device",
    summary="A tensor is created inside `forward` without `device=`, so it lands on the CPU",
    why="""
        Inside `forward` the inputs are wherever the model runs. A tensor made with `torch.zeros(n)`
        (or `arange`, `ones`, `tensor`, ...) is always created on the default device, the CPU, and the
        first operation that mixes it with a CUDA input fails with "Expected all tensors to be on the
        same device". `dtype=` alone does not place a tensor. The same holds in a method (`self.m(...)`)
        or module-level function of the file that `forward` calls, for legacy constructors with arguments
        (`torch.Tensor(n)`, `torch.LongTensor(data)`: CPU from sizes and from data alike), and for
        `torch.sparse_coo_tensor` built from host data (a literal, NumPy); from tensors it follows them.
        Not reported: `*_like` factories and `x.new_*` (they follow `x`), 0-dim scalars
        (`torch.tensor(0.5)`, `torch.tensor(x.size(-1))`, `torch.tensor(self.config.eps)`, LayerDrop's
        `torch.rand([])`), which mix with tensors on any device, factories used on the host at once
        (`.item()`, `.tolist()`, `.numpy()`, a comparison), tensors moved later in the same function,
        buffers made in `__init__`, and code under `with torch.device(...)`.
    """,
    example="""
        class Encoder(nn.Module):
            def forward(self, x):
                positions = torch.arange(x.size(1))
                return x + self.embed(positions)
    """,
    instead="""
        class Encoder(nn.Module):
            def forward(self, x):
                positions = torch.arange(x.size(1), device=x.device)
                return x + self.embed(positions)
    """,
    fix_safety=FixSafety.UNSAFE,
    fix="""
        Adds `device=<input>.device`, with the first tensor argument of `forward`. Unsafe: that argument
        is assumed to be a tensor on the model's device, which only the author knows. No fix in helpers
        (their arguments may be sizes, not tensors) nor for typed legacy constructors (they refuse a CUDA
        `device=`).
    """,
    tokens=("torch", words("forward"), words(*FACTORIES, *LEGACY_CONSTRUCTORS, *SPARSE_FACTORIES)),
    screen=_screen,
)

# Right after these, a tensor is used on the host on purpose.
_HOST_USES = ("numpy", "tolist", "item")


class FactoryInForward(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.placed: set[int] = set()  # factories moved or used on the host in the same expression
        # factory call, its name, the method or module-level function it is in, legacy constructor?
        self.candidates: list[tuple[cst.Call, str, cst.FunctionDef, bool]] = []
        # Names bound by the loops and comprehensions we are inside: iterated host data.
        self.iterated: list[set[str]] = []

    # `[torch.as_tensor(i) for i, j in indices]` (DETR's Hungarian matcher over SciPy results):
    # converting host data being iterated is a NumPy round trip, on the CPU by design.
    def visit_For(self, node: cst.For) -> None:
        self.iterated.append({name.value for name in target_names(node.target)})

    def leave_For(self, original_node: cst.For) -> None:
        self.iterated.pop()

    def _visit_comprehension(self, node: cst.BaseComp) -> None:
        names: set[str] = set()
        loop: Optional[cst.CompFor] = node.for_in
        while loop is not None:
            names.update(name.value for name in target_names(loop.target))
            loop = loop.inner_for_in
        self.iterated.append(names)

    def _leave_comprehension(self, original_node: cst.BaseComp) -> None:
        self.iterated.pop()

    # (LibCST finds callbacks by their function's own name, so each is a method of its own.)
    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._visit_comprehension(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._leave_comprehension(original_node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._visit_comprehension(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._leave_comprehension(original_node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._visit_comprehension(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._leave_comprehension(original_node)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._visit_comprehension(node)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._leave_comprehension(original_node)

    def _converts_iterated_data(self, node: cst.Call, name: str) -> bool:
        args = positional(node)
        return (name in ("tensor", "as_tensor") and bool(args) and isinstance(args[0].value, cst.Name)
                and any(args[0].value.value in names for names in self.iterated))

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        # `grid.cpu() * torch.tensor([1, m, m])`: arithmetic with an explicit host tensor is host work.
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(other, cst.Call) and isinstance(other.func, cst.Attribute) and (
                    other.func.attr.value in ("cpu", "numpy")):
                self.placed.add(id(side))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # `if torch.rand(1) < self.p:` compares with a number: a bool on the host, no device mixing.
        # `torch.arange(n) < lengths` compares with a tensor, maybe a CUDA one: that stays a report.
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        if len(operands) == 2:
            for operand, other in (operands, operands[::-1]):
                if _is_number(other) or isinstance(other, cst.Attribute):
                    self.placed.add(id(operand))

    def visit_Assign(self, node: cst.Assign) -> None:
        # `mask = torch.ones(n)` ... `mask = mask.to(x.device)`: moved later in the function.
        if factory_name(node.value, self.torch) is None or self._unit() is None:
            return  # the scan below is only worth it for a factory assigned in a function
        function = self.ctx.current_function()
        if function is None or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        if _moved_later(function, node.targets[0].target.value, self.torch):
            self.placed.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        if self._moves(node):
            # `torch.arange(n).view(1, -1).repeat(b, 1).to(dev)`: everything down the chain is placed
            receiver = node.func.value  # type: ignore[union-attr]
            while True:
                self.placed.add(id(receiver))
                if not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute)):
                    break
                receiver = receiver.func.value
        if id(node) in self.placed or self.ctx.device_placed():
            return
        if factory_name(node, self.torch) is not None:
            name = cpu_factory_name(node, self.torch)
            if name is None or _is_scalar_tensor(node, name) or self._converts_iterated_data(node, name):
                return
        else:
            name = None
        legacy = None if name else legacy_constructor_name(node, self.torch)
        name = name or legacy or sparse_on_host_name(node, self.torch)
        function = self._unit()
        if name is None or function is None:
            return
        self.candidates.append((node, name, function, legacy is not None))

    def _unit(self) -> Optional[cst.FunctionDef]:
        """The method, or module-level function, the traversal is in (nested functions belong to it)."""
        index = self.ctx.method_frame_index()
        if index is None and len(self.ctx.frames) > 1 and isinstance(self.ctx.frames[0].node, cst.Module):
            index = 1
        node = self.ctx.frames[index].node if index is not None else None
        return node if isinstance(node, cst.FunctionDef) else None

    def finish(self) -> None:
        if self.ctx.sets_default_device or not self.candidates:
            return
        reached = self.ctx.cache.get("reached_from_forward")
        if reached is None:
            reached = self.ctx.cache["reached_from_forward"] = reached_from_forward(
                self.ctx.module, self.ctx.types.classes)
        in_helpers: dict[cst.FunctionDef, set[cst.Call]] = {}
        for node, _name, function, _legacy in self.candidates:
            if reached.get(function) not in (None, "forward"):  # type: ignore[union-attr]
                in_helpers.setdefault(function, set()).add(node)
        # In a helper, only a tensor it hands back to `forward` on the CPU is a report: what it
        # moves, or only uses as an index, is placed already.
        escaping: set[cst.Call] = set()
        for helper, calls in in_helpers.items():
            escaping |= returned_sources(helper, calls, self._moves, self.torch)
        for node, name, function, legacy in self.candidates:
            origin = reached.get(function)  # type: ignore[union-attr]
            if origin is None or (origin != "forward" and node not in escaping):
                continue
            if origin == "forward":
                where, fix = "inside `forward`", None if legacy else _device_fix(node, function)
            else:
                where, fix = f"in `{function.name.value}`, which `{origin}` calls,", None
            self.report(node, f"`torch.{name}(...)` {where} is created on the CPU whatever the input's device;"
                              f" pass `device=` (e.g. `device=x.device`)", fix)

    def _moves(self, call: cst.Call) -> bool:
        """A device move, or a deliberate trip to the host (`.cpu()`, `.to("cpu")`, `.numpy()`)."""
        if not isinstance(call.func, cst.Attribute):
            return False
        method = call.func.attr.value
        if method == "to":
            return not is_dtype_only_move(call, self.torch)
        return method in ("cpu", "cuda", "type_as", *_HOST_USES)  # type_as takes the other's device too


def _device_fix(node: cst.Call, forward: cst.FunctionDef) -> Optional[Fix]:
    argument = _first_tensor_argument(forward)
    if argument is None:
        return None
    device = cst.parse_expression(f"{argument}.device")
    return Fix(Applicability.UNSAFE, f"Create it on `{argument}.device`",
               {node: append_keyword(node, "device", device)})


def _is_scalar_tensor(call: cst.Call, name: str) -> bool:
    """A 0-dim CPU tensor mixes with tensors on any device: `torch.tensor(0.5)`,
    `torch.tensor(self.config.alpha)` (a hyperparameter), `torch.rand([])` (LayerDrop)."""
    args = positional(call)
    if not args:
        return False
    value = args[0].value
    if name not in ("tensor", "as_tensor"):
        # an explicitly empty shape: torch.rand([]), torch.zeros(())
        return len(args) == 1 and isinstance(value, (cst.List, cst.Tuple)) and not value.elements
    # a number, or an attribute such as `self.config.eps` (a hyperparameter, by convention a number)
    return _is_number(value) or isinstance(value, cst.Attribute)


# Calls that give a Python number: `x.size(-1)`, `len(xs)`, `int(v)`, `t.item()`.
_NUMBER_CALLS = ("size", "dim", "numel", "item", "len", "int", "float", "bool", "round", "abs", "min", "max")


def _is_number(value: cst.BaseExpression) -> bool:
    """A Python number, not a sequence: a literal, `x.size(-1)`, or arithmetic with a number on one
    side (`(n - 1) / mid`), on both for `*` (`[0] * n` is a list)."""
    if isinstance(value, (cst.Integer, cst.Float)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False")
    if isinstance(value, cst.UnaryOperation):
        return _is_number(value.expression)
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Attribute):
        # `x.shape[2]`: one entry of a shape is an int (a slice `x.shape[2:]` is not)
        return value.value.attr.value == "shape" and all(isinstance(e.slice, cst.Index) for e in value.slice)
    if isinstance(value, cst.Call):
        func = value.func
        name = dotted_name(func) or ""
        name = name.rsplit(".", 1)[-1]
        return name in _NUMBER_CALLS or (isinstance(func, cst.Attribute) and dotted_name(func.value) == "math")
    if isinstance(value, cst.BinaryOperation):
        sides = (_is_number(value.left), _is_number(value.right))
        return all(sides) if isinstance(value.operator, cst.Multiply) else any(sides)
    return False


def _moved_later(function: cst.FunctionDef, name: str, torch) -> bool:  # type: ignore[no-untyped-def]
    """Does `function` move `name` to a device somewhere (`name.to(dev)`, `name.cuda()`)?"""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            if isinstance(receiver, cst.Name) and receiver.value == name and move_target(node, torch) is not None:
                return True
        stack.extend(children(node))  # node.children would rebuild the node
    return False


def _first_tensor_argument(forward: cst.FunctionDef) -> Optional[str]:
    params = [*forward.params.posonly_params, *forward.params.params][1:]  # skip self
    for param in params:
        if param.default is not None:
            continue  # may be None
        annotation = param.annotation
        if annotation is not None:
            text = cst.Module([]).code_for_node(annotation.annotation)
            if "Tensor" not in text:
                continue
        return param.name.value
    return None
