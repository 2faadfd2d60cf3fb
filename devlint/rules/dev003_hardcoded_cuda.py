"""DEV003 — hard-coded CUDA device."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from devlint.analysis.devices import DeviceNameTracker
from devlint.analysis.names import dotted_name, is_cuda_string, keyword, positional, string_value
from devlint.diagnostics import Applicability
from devlint.prefilter import CUDA_STRING
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor
from devlint.screen import SyntaxFacts
from devlint.walk import children


def _screen(facts: SyntaxFacts) -> bool:
    """A `"cuda"` literal, or a `.cuda(...)` call."""
    return facts.cuda_string or "cuda" in facts.methods_called


RULE = Rule(
    code="DEV003",
    name="hardcoded-cuda",
    summary='`"cuda"` is written into a device position, or `.cuda()` is called, without a CUDA check',
    why="""
        Code that names CUDA unconditionally fails on CPU-only machines, in CI, and on Apple silicon
        (`AssertionError: Torch not compiled with CUDA enabled`, or `RuntimeError: No CUDA GPUs are
        available`). Choose the device once, from what the machine has, and pass it around. A literal in
        a dict of options (`{"device": "cuda"}`) counts when the dict is passed on as `**opts`.
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
        Uses the file's own device variable where one is in scope (`device`, `DEVICE`, `dev` bound
        earlier in the function, a parameter, a module-level name, or `self.device`), never the variable
        the statement itself assigns; otherwise `"cuda" if torch.cuda.is_available() else "cpu"` with the
        file's alias for torch (adding `import torch` after the last import when the file has none).
        `.cuda()` without arguments becomes `.to(...)`. Unsafe: on a machine without CUDA the code now runs
        on the CPU instead of failing, which changes what it does; `.cuda(i)` with an explicit index gets
        no fix.
    """,
    tokens=("torch", CUDA_STRING),
    screen=_screen,
)

_DEVICE_NAME = re.compile(r"device", re.IGNORECASE)
# `device_type = "cuda"` names a kind of device (for autocast, comparisons), not a place for data.
_NOT_A_DEVICE = re.compile(r"(type|types|kind|name)$", re.IGNORECASE)
# What Tensor.cuda() and Module.cuda() accept; other `.cuda(...)` methods are someone else's.
_CUDA_KEYWORDS = {"device", "non_blocking", "memory_format"}
# Calls whose first argument is a device *type*: "cuda" there needs no CUDA device.
_DEVICE_TYPE_CALLS = ("get_autocast_dtype", "is_autocast_enabled", "autocast", "amp.autocast",
                      "set_autocast_enabled", "get_autocast_gpu_dtype", "amp.GradScaler")


def _names_a_device(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return bool(_DEVICE_NAME.search(last)) and not _NOT_A_DEVICE.search(last)


def _is_torch_cuda_call(node: cst.Call) -> bool:
    """Does this `.cuda(...)` have Tensor.cuda's / Module.cuda's signature?"""
    args = [a for a in node.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value for a in node.args if a.keyword is not None}
    return len(args) <= 1 and keywords <= _CUDA_KEYWORDS and not any(a.star for a in node.args)


class HardcodedCuda(RuleVisitor, DeviceNameTracker):
    rule = RULE
    needs_torch_import = False  # plainly written torch names are checked in any file

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.pending: list[tuple[cst.CSTNode, str, Optional[Fix], bool]] = []  # node, message, fix, plain torch
        # `opts = {"device": "cuda"}`: reported only if `**opts` is later passed to a call
        self.option_dicts: dict[str, list[cst.BaseExpression]] = {}
        self.spread: set[str] = set()  # names passed as `**name`

    def _flag_literal(self, literal: cst.BaseExpression, where: str, plain_torch: bool,
                      defines_device: bool = False) -> None:
        if not is_cuda_string(literal) or self.ctx.cuda_guarded():
            return
        message = f'hard-coded CUDA device in {where}; choose the device from what the machine has'
        self.pending.append((literal, message, self._literal_fix(literal, defines_device), plain_torch))

    def _literal_fix(self, literal: cst.BaseExpression, defines_device: bool) -> Fix:
        # Where the literal *defines* the device (`device = "cuda"`, a default), the file's device
        # variable cannot be used: it is the thing being defined.
        variable = None if defines_device else self.device_variable()
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
        plain_torch = (dotted_name(node.func) or "").startswith("torch.")
        if self.torch.is_call_to(node, "device"):
            args = positional(node)
            if args:
                self._flag_literal(args[0].value, "`torch.device(...)`", plain_torch)
        for name in ("device", "map_location"):
            arg = keyword(node, name)
            if arg is not None:
                self._flag_literal(arg.value, f"`{name}=`", plain_torch)
        for arg in node.args:
            if arg.star == "**":
                if isinstance(arg.value, cst.Dict):
                    for literal in _device_options(arg.value):
                        self._flag_literal(literal, "device options passed as `**`", False)
                elif dotted_name(arg.value) is not None:
                    self.spread.add(dotted_name(arg.value))  # type: ignore[arg-type]
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method == "to":
                args = positional(node)
                if args:
                    self._flag_literal(args[0].value, "`.to(...)`", False)
            elif method == "cuda" and self.ctx.torch.imports_torch and not self.ctx.cuda_guarded():
                if dotted_name(node.func.value) in ("torch", self.torch.torch_module_name()):
                    return  # torch.cuda is a module, not a move
                if not _is_torch_cuda_call(node):
                    return  # e.g. a quantizer's own `.cuda(qtensor, meta=...)`
                self.pending.append((node, "`.cuda()` hard-codes CUDA; move to the chosen device with"
                                     " `.to(device)`", self._cuda_call_fix(node), False))

    def _cuda_call_fix(self, node: cst.Call) -> Optional[Fix]:
        if node.args:
            return None  # `.cuda(rank)`: an explicit device index is the author's choice
        variable = self.device_variable()
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
        super().visit_Assign(node)
        if isinstance(node.value, cst.Dict) and len(node.targets) == 1 and not self.ctx.cuda_guarded():
            name = dotted_name(node.targets[0].target)
            if name is not None:
                self.option_dicts.setdefault(name, []).extend(_device_options(node.value))
        for target in node.targets:
            name = dotted_name(target.target)
            if name is not None and _names_a_device(name):
                self._flag_literal(node.value, f"the assignment to `{name}`", False, True)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        super().visit_AnnAssign(node)
        name = dotted_name(node.target)
        if node.value is not None and name is not None and _names_a_device(name):
            self._flag_literal(node.value, f"the assignment to `{name}`", False, True)

    def visit_Param(self, node: cst.Param) -> None:
        if node.default is None or not _names_a_device(node.name.value) or not is_cuda_string(node.default):
            return
        function = self.ctx.current_function()
        if function is not None and self._used_only_as_device_type(function, node.name.value):
            return  # `def get_autocast_dtype(device="cuda")`: a device type, which needs no CUDA
        self._flag_literal(node.default, f"the default of `{node.name.value}`", False, True)

    def _used_only_as_device_type(self, function: cst.FunctionDef, name: str) -> bool:
        """Every use of `name` in `function` is a device type (autocast and friends, `device_type=`)."""
        uses = 0
        type_uses = 0
        stack: list[cst.CSTNode] = [function.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call):
                full = self.torch.qualify(node.func) or ""
                type_call = full.startswith("torch.") and full[6:] in _DEVICE_TYPE_CALLS
                for arg in node.args:
                    if isinstance(arg.value, cst.Name) and arg.value.value == name:
                        uses += 1
                        keyword_name = arg.keyword.value if arg.keyword else None
                        if keyword_name == "device_type" or (type_call and keyword_name in (None, "device")):
                            type_uses += 1
                stack.extend(a.value for a in node.args if not isinstance(a.value, cst.Name))
                stack.append(node.func)
                continue
            if isinstance(node, cst.Comparison):
                # `device == "cpu"`: comparing places no data
                operands = [node.left, *(c.comparator for c in node.comparisons)]
                for operand in operands:
                    if isinstance(operand, cst.Name) and operand.value == name:
                        uses += 1
                        type_uses += 1
                    else:
                        stack.append(operand)
                continue
            if isinstance(node, cst.Name) and node.value == name:
                uses += 1
            stack.extend(children(node))  # node.children would rebuild the node
        return uses > 0 and uses == type_uses

    def finish(self) -> None:
        for name, literals in self.option_dicts.items():
            if name in self.spread:
                for literal in literals:
                    message = (f"hard-coded CUDA device in the options `{name}` passed as `**{name}`;"
                               " choose the device from what the machine has")
                    self.pending.append((literal, message, self._literal_fix(literal, False), False))
        for node, message, fix, plain_torch in self.pending:
            if self.ctx.torch.imports_torch or plain_torch:
                self.report(node, message, fix)


def _device_options(options: cst.Dict) -> list[cst.BaseExpression]:
    """The `"cuda"` values of `"device"` / `"map_location"` keys of a dict literal."""
    return [
        element.value for element in options.elements
        if isinstance(element, cst.DictElement) and string_value(element.key) in ("device", "map_location")
        and is_cuda_string(element.value)
    ]
