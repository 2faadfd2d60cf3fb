"""DEV003 — hard-coded CUDA device."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from devlint.analysis.devices import device_variable
from devlint.analysis.names import dotted_name, is_cuda_string, keyword, positional
from devlint.diagnostics import Applicability
from devlint.prefilter import CUDA_STRING
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor

RULE = Rule(
    code="DEV003",
    name="hardcoded-cuda",
    summary='`"cuda"` is written into a device position, or `.cuda()` is called, without a CUDA check',
    why="""
        Code that names CUDA unconditionally fails on CPU-only machines, in CI, and on Apple silicon
        (`AssertionError: Torch not compiled with CUDA enabled`, or `RuntimeError: No CUDA GPUs are
        available`). Choose the device once, from what the machine has, and pass it around.
    """,
    example="""
        model = Net().cuda()
        x = torch.zeros(3, device="cuda")
    """,
    instead="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        x = torch.zeros(3, device=device)
    """,
    fix_safety=FixSafety.UNSAFE,
    fix="""
        Uses the file's own device variable where one is in scope (`device`, `DEVICE`, `self.device`);
        otherwise `"cuda" if torch.cuda.is_available() else "cpu"`. `.cuda()` without arguments becomes
        `.to(...)`. Unsafe: on a machine without CUDA the code now runs on the CPU instead of failing,
        which changes what it does; `.cuda(i)` with an explicit index gets no fix.
    """,
    tokens=("torch", CUDA_STRING),
)

_DEVICE_NAME = re.compile(r"device", re.IGNORECASE)


class HardcodedCuda(RuleVisitor):
    rule = RULE
    needs_torch_import = False  # plainly written torch names are checked in any file

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.pending: list[tuple[cst.CSTNode, str, Optional[Fix], bool]] = []  # node, message, fix, plain torch

    def _flag_literal(self, literal: cst.BaseExpression, where: str, plain_torch: bool,
                      defines_device: bool = False) -> None:
        if not is_cuda_string(literal) or self.ctx.cuda_guarded():
            return
        message = f'hard-coded CUDA device in {where}; choose the device from what the machine has'
        self.pending.append((literal, message, self._literal_fix(literal, defines_device), plain_torch))

    def _literal_fix(self, literal: cst.BaseExpression, defines_device: bool) -> Fix:
        # Where the literal *defines* the device (`device = "cuda"`, a default), the file's device
        # variable cannot be used: it is the thing being defined.
        variable = None if defines_device else device_variable(self.ctx)
        if variable is not None:
            replacement: cst.BaseExpression = cst.parse_expression(variable)
        else:
            replacement = self._fallback(literal)
        return Fix(Applicability.UNSAFE, "Use the available device", {literal: replacement},
                   needs_torch_import=variable is None and self.torch.torch_module_name() is None)

    def _fallback(self, literal: cst.BaseExpression) -> cst.BaseExpression:
        torch_name = self.torch.torch_module_name() or "torch"
        text = literal.value if isinstance(literal, cst.SimpleString) else '"cuda"'
        quote = text[-1] if text[-1] in "'\"" else '"'
        return cst.parse_expression(f"{text} if {torch_name}.cuda.is_available() else {quote}cpu{quote}")

    def visit_Call(self, node: cst.Call) -> None:
        plain_torch = dotted_name(node.func) is not None and (dotted_name(node.func) or "").startswith("torch.")
        if self.torch.is_call_to(node, "device"):
            args = positional(node)
            if args:
                self._flag_literal(args[0].value, "`torch.device(...)`", plain_torch)
        for name in ("device", "map_location"):
            arg = keyword(node, name)
            if arg is not None:
                self._flag_literal(arg.value, f"`{name}=`", plain_torch)
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method == "to":
                args = positional(node)
                if args:
                    self._flag_literal(args[0].value, "`.to(...)`", False)
            elif method == "cuda" and self.ctx.torch.imports_torch and not self.ctx.cuda_guarded():
                if dotted_name(node.func.value) in ("torch", self.torch.torch_module_name()):
                    return  # torch.cuda is a module, not a move
                self.pending.append((node, "`.cuda()` hard-codes CUDA; move to the chosen device with"
                                     " `.to(device)`", self._cuda_call_fix(node), False))

    def _cuda_call_fix(self, node: cst.Call) -> Optional[Fix]:
        if node.args:
            return None  # `.cuda(rank)`: an explicit device index is the author's choice
        variable = device_variable(self.ctx)
        if variable is not None:
            target: cst.BaseExpression = cst.parse_expression(variable)
        else:
            target = self._fallback(cst.SimpleString('"cuda"'))
        func = node.func
        assert isinstance(func, cst.Attribute)
        new = node.with_changes(func=func.with_changes(attr=cst.Name("to")), args=[cst.Arg(target)])
        return Fix(Applicability.UNSAFE, "Move to the available device", {node: new},
                   needs_torch_import=variable is None and self.torch.torch_module_name() is None)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            name = dotted_name(target.target)
            if name is not None and _DEVICE_NAME.search(name.rsplit(".", 1)[-1]):
                self._flag_literal(node.value, f"the assignment to `{name}`", False, True)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        name = dotted_name(node.target)
        if node.value is not None and name is not None and _DEVICE_NAME.search(name.rsplit(".", 1)[-1]):
            self._flag_literal(node.value, f"the assignment to `{name}`", False, True)

    def visit_Param(self, node: cst.Param) -> None:
        if node.default is not None and _DEVICE_NAME.search(node.name.value):
            self._flag_literal(node.default, f"the default of `{node.name.value}`", False, True)

    def finish(self) -> None:
        for node, message, fix, plain_torch in self.pending:
            if self.ctx.torch.imports_torch or plain_torch:
                self.report(node, message, fix)
