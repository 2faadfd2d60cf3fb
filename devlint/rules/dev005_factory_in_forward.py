"""DEV005 — tensor created inside `forward` without a device."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.edits import append_keyword
from devlint.analysis.factories import FACTORIES, LIKE_FACTORIES, factory_name, move_target, places_tensor, strip_casts
from devlint.analysis.names import positional
from devlint.diagnostics import Applicability
from devlint.prefilter import words
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor

RULE = Rule(
    code="DEV005",
    name="factory-in-forward-without-device",
    summary="A tensor is created inside `forward` without `device=`, so it lands on the CPU",
    why="""
        Inside `forward` the inputs are wherever the model runs. A tensor made with `torch.zeros(n)`
        (or `arange`, `ones`, `tensor`, ...) is always created on the default device, the CPU, and the
        first operation that mixes it with a CUDA input fails with "Expected all tensors to be on the
        same device". `dtype=` alone does not place a tensor.
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
    tokens=("torch", words("forward"), words(*FACTORIES)),
)

# Right after these, a tensor is used on the host on purpose.
_HOST_USES = ("numpy", "tolist", "item")


class FactoryInForward(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.placed: set[int] = set()  # factories moved or used on the host in the same expression
        self.pending: list[tuple[cst.Call, str, Optional[Fix]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method in _HOST_USES or move_target(node, self.torch) is not None or method in ("to", "cpu"):
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
    """`torch.tensor(0.5)`: a 0-dim CPU tensor mixes with tensors on any device."""
    if name not in ("tensor", "as_tensor"):
        return False
    args = positional(call)
    if not args:
        return False
    value = args[0].value
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float)) or (
        isinstance(value, cst.Name) and value.value in ("True", "False")
    )


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
