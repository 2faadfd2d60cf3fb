"""DEV015 — a legacy CUDA tensor type: the visitor and its fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis import portable
from devlint.analysis.edits import append_keyword
from devlint.analysis.factories import LEGACY_DTYPES, legacy_kind
from devlint.analysis.names import dotted_name, string_value
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev015_legacy_cuda_tensor_type import LEGACY_CUDA_TYPE, RULE


class LegacyCudaTensorType(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._statements: set[int] = set()  # calls that are a statement of their own

    def visit_Expr(self, node: cst.Expr) -> None:
        self._statements.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        full = self.torch.qualify(node.func) or ""
        if full == "torch.set_default_tensor_type":
            self._default_type(node)
            return
        found = LEGACY_CUDA_TYPE.match(full)
        if found is None:
            return
        name = f"{found.group(1)}Tensor"
        dtype = LEGACY_DTYPES.get(name)
        kind = legacy_kind(node)
        written = dotted_name(node.func)
        instead = f"torch.{kind}(..., dtype=torch.{dtype}, device=\"cuda\")" if kind and dtype else \
            f'torch.tensor(data, dtype=..., device="cuda")` or `torch.empty(size, dtype=..., device="cuda")'
        self.report(node, f"`{written}(...)` is a legacy constructor (sizes or data by the shape of its arguments,"
                          f" no `device=`); use `{instead}`", self._constructor_fix(node, kind, dtype))

    def _default_type(self, node: cst.Call) -> None:
        argument = node.args[0].value if len(node.args) == 1 and node.args[0].keyword is None else None
        if argument is None:
            return
        text = string_value(argument)
        full = text.strip() if text is not None else self.torch.qualify(argument) or ""
        found = LEGACY_CUDA_TYPE.match(full)
        if found is None:
            return
        fix = None
        if found.group(1) == "Float" and id(node) in self._statements and portable.has(
                self.ctx.target_torch, portable.SET_DEFAULT_DEVICE):
            torch_name = self.torch.torch_module_name()
            new = cst.parse_expression(f'{torch_name or "torch"}.set_default_device("cuda")')
            fix = Fix(Applicability.UNSAFE, "Use `torch.set_default_device`", {node: new},
                      needs_torch_import=torch_name is None)
        dtype = LEGACY_DTYPES.get(f"{found.group(1)}Tensor", "...")
        self.report(node, f"`set_default_tensor_type({full})` is deprecated since torch 2.1; use"
                          f' `torch.set_default_device("cuda")` and `torch.set_default_dtype(torch.{dtype})`', fix)

    def _constructor_fix(self, node: cst.Call, kind: Optional[str], dtype: Optional[str]) -> Optional[Fix]:
        torch_name = self.torch.torch_module_name()
        if kind is None or dtype is None or torch_name is None:
            return None
        call = node.with_changes(func=cst.parse_expression(f"{torch_name}.{kind}"))
        call = append_keyword(call, "dtype", cst.parse_expression(f"{torch_name}.{dtype}"))
        call = append_keyword(call, "device", cst.SimpleString('"cuda"'))
        return Fix(Applicability.SAFE, f"Use `torch.{kind}` with `dtype=` and `device=`", {node: call})
