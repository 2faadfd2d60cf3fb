"""DEV016 — a DataLoader asked to pin a dataset whose items are on CUDA already: the visitor (no fix)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.names import dotted_name, is_cuda_string, keyword, single_values, string_value
from devlint.analysis.walk import children
from devlint.rules.base import RuleVisitor
from devlint.rules.dev016_pinned_device_data import RULE


class PinnedDeviceData(RuleVisitor):
    rule = RULE

    def visit_Call(self, node: cst.Call) -> None:
        pin = keyword(node, "pin_memory")
        if pin is None or not (isinstance(pin.value, cst.Name) and pin.value.value == "True"):
            return
        if not (dotted_name(node.func) or "").endswith("DataLoader"):
            return
        dataset = node.args[0] if node.args and node.args[0].keyword is None else keyword(node, "dataset")
        if dataset is None:
            return
        name = self._device_dataset(dataset.value)
        if name is not None:
            self.report(node, f"`pin_memory=True` of a dataset whose items are on CUDA already (`{name}.__getitem__`"
                              " returns one): pinning raises (only dense CPU tensors can be pinned); return CPU"
                              " tensors and move each batch, or do not pin")

    def _device_dataset(self, expr: cst.BaseExpression) -> Optional[str]:
        """The class where `expr` is an instance of a class of the module whose `__getitem__` returns a value
        written out on CUDA."""
        if isinstance(expr, cst.Name):
            expr = single_values(self.ctx.module, nested=True).get(expr.value)  # type: ignore[assignment]
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
            return None
        cls = next((statement for statement in self.ctx.module.body if isinstance(statement, cst.ClassDef)
                    and statement.name.value == expr.func.value), None)
        if cls is None:
            return None
        for statement in cls.body.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value == "__getitem__":
                for returned in _returns(statement):
                    if returned.value is not None and _on_cuda(returned.value):
                        return cls.name.value
        return None


def _returns(function: cst.FunctionDef) -> list[cst.Return]:
    found, stack = [], list(children(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Return):
            found.append(node)
        stack.extend(children(node))
    return found


def _on_cuda(expr: cst.BaseExpression) -> bool:
    """A value written out on CUDA: `.cuda()`, `.to("cuda")`, `f(..., device="cuda")`, or a display holding one."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        return any(_on_cuda(element.value) for element in expr.elements)
    if isinstance(expr, cst.Dict):
        return any(isinstance(element, cst.DictElement) and _on_cuda(element.value) for element in expr.elements)
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    if isinstance(func, cst.Attribute) and func.attr.value == "cuda":
        return True
    if isinstance(func, cst.Attribute) and func.attr.value == "to" and expr.args and _names_cuda(expr.args[0].value):
        return True
    device = keyword(expr, "device")
    return device is not None and _names_cuda(device.value)


def _names_cuda(expr: cst.BaseExpression) -> bool:
    if is_cuda_string(expr):
        return True
    return isinstance(expr, cst.Call) and (dotted_name(expr.func) or "").endswith("device") and bool(expr.args) \
        and string_value(expr.args[0].value) is not None and is_cuda_string(expr.args[0].value)
