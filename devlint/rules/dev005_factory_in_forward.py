"""DEV005 — tensor created inside `forward` without a device."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.edits import append_keyword
from devlint.analysis.factories import (
    LIKE_FACTORIES, factory_name, is_dtype_only_move, move_target, places_tensor, strip_casts,
)
from devlint.analysis.names import positional
from devlint.diagnostics import Applicability
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor

RULE = Rule(
    code="DEV005",
    name="factory-in-forward-without-device",
    summary="A tensor is created inside `forward` without `device=`, so it lands on the CPU",
    why="""
        Inside `forward` the inputs are wherever the model runs. A tensor made with `torch.zeros(n)`
        (or `arange`, `ones`, `tensor`, ...) is always created on the default device, the CPU, and the
        first operation that mixes it with a CUDA input fails with "Expected all tensors to be on the
        same device". `dtype=` alone does not place a tensor. Not reported: `*_like` factories and
        `x.new_*` (they follow `x`), 0-dim scalars (`torch.tensor(0.5)`, `torch.tensor(self.config.eps)`,
        LayerDrop's `torch.rand([])`), which mix with tensors on any device, factories used on the host
        at once (`.item()`, `.tolist()`, `.numpy()`, a comparison), tensors moved later in the same
        function, buffers made in `__init__`, and code under `with torch.device(...)`.
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
        is assumed to be a tensor on the model's device, which only the author knows.
    """,
    tokens=("torch", "forward"),
)

# Right after these, a tensor is used on the host on purpose.
_HOST_USES = ("numpy", "tolist", "item")


class FactoryInForward(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.placed: set[int] = set()  # factories moved or used on the host in the same expression
        self.pending: list[tuple[cst.Call, str, Optional[Fix]]] = []

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # `if torch.rand(1) < self.p:`: the comparison makes a Python bool on the host.
        for operand in (node.left, *(c.comparator for c in node.comparisons)):
            self.placed.add(id(operand))

    def visit_Assign(self, node: cst.Assign) -> None:
        # `mask = torch.ones(n)` ... `mask = mask.to(x.device)`: moved later in the function.
        if factory_name(node.value, self.torch) is None or self._forward() is None:
            return  # the scan below is only worth it for a factory assigned inside forward
        function = self.ctx.current_function()
        if function is None or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        if _moved_later(function, node.targets[0].target.value, self.torch):
            self.placed.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            device_move = method == "to" and not is_dtype_only_move(node, self.torch)  # incl. `.to("cpu")`
            if method in _HOST_USES or method in ("cpu", "cuda") or device_move:
                self.placed.add(id(strip_casts(node.func.value)))
        name = factory_name(node, self.torch)
        if name is None or name in LIKE_FACTORIES or id(node) in self.placed:
            return
        if places_tensor(node) or self.ctx.device_placed() or _is_scalar_tensor(node, name):
            return
        forward = self._forward()
        if forward is None:
            return
        message = (
            f"`torch.{name}(...)` inside `forward` is created on the CPU whatever the input's device;"
            f" pass `device=` (e.g. `device=x.device`)"
        )
        fix = None
        argument = _first_tensor_argument(forward)
        if argument is not None:
            device = cst.parse_expression(f"{argument}.device")
            fix = Fix(Applicability.UNSAFE, f"Create it on `{argument}.device`",
                      {node: append_keyword(node, "device", device)})
        self.pending.append((node, message, fix))

    def _forward(self) -> Optional[cst.FunctionDef]:
        index = self.ctx.method_frame_index()
        if index is None:
            return None
        method = self.ctx.frames[index].node
        cls = self.ctx.frames[index - 1].node
        assert isinstance(method, cst.FunctionDef) and isinstance(cls, cst.ClassDef)
        if method.name.value != "forward" or not self.ctx.types.classes.node_is_module_class(cls):
            return None
        return method

    def finish(self) -> None:
        if self.ctx.sets_default_device:
            return
        for node, message, fix in self.pending:
            self.report(node, message, fix)


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
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float, cst.Attribute)) or (
        isinstance(value, cst.Name) and value.value in ("True", "False")
    )


def _moved_later(function: cst.FunctionDef, name: str, torch) -> bool:  # type: ignore[no-untyped-def]
    """Does `function` move `name` to a device somewhere (`name.to(dev)`, `name.cuda()`)?"""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            if isinstance(receiver, cst.Name) and receiver.value == name and move_target(node, torch) is not None:
                return True
        stack.extend(node.children)
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
