"""DEV017 — a float64 tensor sent to `mps`: the visitor and its (unsafe) fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.edits import append_keyword
from devlint.analysis.names import dotted_name, keyword, single_values, string_value
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev017_float64_to_mps import NUMPY_FLOAT64, RULE, TORCH_FLOAT64

# torch's calls that keep a NumPy array's dtype
_KEEPS_DTYPE = frozenset({"torch.from_numpy", "torch.as_tensor", "torch.asarray"})


class Float64ToMps(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._numpy: set[str] = set()  # the module's names for NumPy
        self._scopes: list[dict[str, Optional[cst.BaseExpression]]] = [{}]  # name -> its one float64 value

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if dotted_name(alias.name) == "numpy":
                self._numpy.add(alias.asname.name.value if alias.asname is not None else "numpy")  # type: ignore[union-attr]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(single_values(node.body, ignored=_moves_itself))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes[0] = single_values(node, ignored=_moves_itself)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "to" and _mps_target(node):
            converts = len(node.args) > 1 or keyword(node, "dtype") is not None  # `.to("mps", torch.float32)`
            if not converts and self._float64(func.value):
                self.report(node, "a float64 tensor is sent to `mps`, which has no float64 (`Cannot convert a MPS"
                                  " Tensor to float64 dtype`); convert it on the way: `.to(\"mps\","
                                  " dtype=torch.float32)`", self._fix(node))
            return
        device = keyword(node, "device")
        dtype = keyword(node, "dtype")
        if device is not None and _names_mps(device.value) and dtype is not None and \
                self.torch.qualify(dtype.value) in TORCH_FLOAT64:
            self.report(node, "a float64 tensor is made on `mps`, which has no float64 (`Cannot convert a MPS"
                              " Tensor to float64 dtype`); make it `torch.float32`")

    def _float64(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` shown to be a float64 tensor: made so here, or a name bound once, before, to one?"""
        if isinstance(expr, cst.Name):
            value = self._scopes[-1].get(expr.value)
            return value is not None and self._float64(value)
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value == "double" and not expr.args:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "to" and expr.args and \
                self.torch.qualify(expr.args[0].value) in TORCH_FLOAT64:
            return True
        full = self.torch.qualify(func) or ""
        dtype = keyword(expr, "dtype")
        if full.startswith("torch.") and dtype is not None:
            return self.torch.qualify(dtype.value) in TORCH_FLOAT64
        if full in _KEEPS_DTYPE and expr.args and dtype is None:
            return self._numpy_float64(expr.args[0].value)
        return False

    def _numpy_float64(self, expr: cst.BaseExpression) -> bool:
        """`np.zeros(n)`, `np.random.rand(3, 4)` (no `dtype=`): NumPy's float64."""
        if not isinstance(expr, cst.Call) or keyword(expr, "dtype") is not None:
            return False
        head, _, rest = (dotted_name(expr.func) or "").partition(".")
        return head in self._numpy and rest in NUMPY_FLOAT64

    def _fix(self, node: cst.Call) -> Optional[Fix]:
        torch_name = self.torch.torch_module_name()
        if torch_name is None or len(node.args) != 1 or node.args[0].keyword is not None:
            return None
        new = append_keyword(node, "dtype", cst.parse_expression(f"{torch_name}.float32"))
        return Fix(Applicability.UNSAFE, "Convert to float32 on the way to `mps`", {node: new})


def _mps_target(move: cst.Call) -> bool:
    target = move.args[0].value if move.args and move.args[0].keyword is None else None
    device = keyword(move, "device")
    return (target is not None and _names_mps(target)) or (device is not None and _names_mps(device.value))


def _names_mps(expr: cst.BaseExpression) -> bool:
    """`"mps"`, `"mps:0"`, `torch.device("mps")`."""
    text = string_value(expr)
    if text is not None:
        return text.strip().partition(":")[0] == "mps"
    return isinstance(expr, cst.Call) and bool(expr.args) and _names_mps(expr.args[0].value)


def _moves_itself(node: cst.Assign) -> bool:
    """`x = x.to(...)` with only a device given."""
    value, targets = node.value, node.targets
    return (len(targets) == 1 and isinstance(targets[0].target, cst.Name) and isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute) and value.func.attr.value == "to"
            and isinstance(value.func.value, cst.Name) and value.func.value.value == targets[0].target.value
            and len(value.args) == 1 and _mps_target(value))
