"""DEV008 — deprecated device-specific AMP (`torch.cuda.amp`, `torch.cpu.amp`): the visitor and its fix."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from devlint.analysis import portable
from devlint.analysis.names import dotted_name, has_star_args, identifiers, target_names
from devlint.analysis.walk import children
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev008_deprecated_device_amp import RULE

# The deprecated name (qualified) -> (what it is, its device type).
_DEPRECATED = {
    "torch.cuda.amp.autocast": ("autocast", "cuda"),
    "torch.cuda.amp.autocast_mode.autocast": ("autocast", "cuda"),
    "torch.cpu.amp.autocast": ("autocast", "cpu"),
    "torch.cpu.amp.autocast_mode.autocast": ("autocast", "cpu"),
    "torch.cuda.amp.GradScaler": ("GradScaler", "cuda"),
    "torch.cuda.amp.grad_scaler.GradScaler": ("GradScaler", "cuda"),
    "torch.cuda.amp.custom_fwd": ("custom_fwd", "cuda"),
    "torch.cuda.amp.autocast_mode.custom_fwd": ("custom_fwd", "cuda"),
    "torch.cuda.amp.custom_bwd": ("custom_bwd", "cuda"),
    "torch.cuda.amp.autocast_mode.custom_bwd": ("custom_bwd", "cuda"),
}
# The old signatures' positional parameters, in order: they become keywords of the new call.
_POSITIONAL = {
    "autocast": ("enabled", "dtype", "cache_enabled"),
    "GradScaler": ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled"),
    "custom_fwd": ("fwd",),  # `custom_fwd(fn)` and the new `custom_fwd(fn, device_type=...)` agree
    "custom_bwd": ("bwd",),
}
# The torch version that has the new API (None: every torch from 2.1).
_SINCE = {"autocast": None, "GradScaler": portable.AMP_GRAD_SCALER, "custom_fwd": portable.AMP_CUSTOM_FUNCTION,
          "custom_bwd": portable.AMP_CUSTOM_FUNCTION}
# A test of the torch version or of an API's presence: the old call in its branches is kept on purpose.
# (`is_torch_version(...)`, `_TORCH_GREATER_EQUAL_2_4`, `TORCH_GE_2_3`, `hasattr(torch.amp, "GradScaler")`)
_VERSION_TEST = re.compile(r"version|hasattr|getattr|torch\w*\d|\d_\d", re.IGNORECASE)


class DeprecatedDeviceAmp(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._version_gated = 0  # inside an `if` on the torch version, or an `except` fallback
        self._bindings: Optional[dict[str, int]] = None

    # -- where the old API is kept on purpose ------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        self._version_gated += _tests_version(node.test)

    def leave_If(self, original_node: cst.If) -> None:
        self._version_gated -= _tests_version(original_node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._version_gated += _tests_version(node.test)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._version_gated -= _tests_version(original_node.test)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._version_gated += 1

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._version_gated -= 1

    # -- reports ------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        found = self._deprecated(node.func)
        if found is not None:
            self._report(node, node, *found)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        # `@custom_fwd` without parentheses: the decorator is the name itself
        found = self._deprecated(node.decorator)
        if found is not None and found[1] in ("custom_fwd", "custom_bwd"):
            self._report(node.decorator, None, *found)

    def _deprecated(self, func: cst.BaseExpression) -> Optional[tuple[str, str, str]]:
        """(the name as written, what it is, its device type) when `func` names a deprecated AMP API."""
        if self._version_gated:
            return None
        full = self.torch.qualify(func)
        if full not in _DEPRECATED:
            return None
        written = dotted_name(func) or ""
        head = written.split(".")[0]
        if head != "torch" and self._times_bound(head) != 1:
            return None  # `try: from torch.amp import autocast` / `except: from torch.cuda.amp import ...`
        what, device_type = _DEPRECATED[full]
        return written, what, device_type

    def _times_bound(self, name: str) -> int:
        if self._bindings is None:
            self._bindings = _binding_counts(self.ctx.module)
        return self._bindings.get(name, 0)

    def _report(self, node: cst.BaseExpression, call: Optional[cst.Call], written: str, what: str,
                device_type: str) -> None:
        new = _new_call_text(what, device_type)
        message = (f"`{written}` is deprecated (a FutureWarning since torch 2.4) and tied to"
                   f" {device_type.upper() if device_type == 'cuda' else 'the CPU'}; use `{new}`")
        self.report(node, message, self._fix(node, call, what, device_type))

    def _fix(self, node: cst.BaseExpression, call: Optional[cst.Call], what: str, device_type: str) -> Optional[Fix]:
        since = _SINCE[what]
        if since is not None and not portable.has(self.ctx.target_torch, since):
            return None  # the target torch may not have the new API
        torch_name = self.torch.torch_module_name()
        func = cst.parse_expression(f"{torch_name or 'torch'}.amp.{what}")
        if call is None:  # a bare decorator
            new: cst.BaseExpression = cst.Call(func, [_keyword("device_type", device_type)])
        else:
            args = _new_arguments(call, what, device_type)
            if args is None:
                return None
            new = call.with_changes(func=func, args=args)
        return Fix(Applicability.SAFE, f"Use `torch.amp.{what}`", {node: new}, needs_torch_import=torch_name is None)


def _new_call_text(what: str, device_type: str) -> str:
    if what in ("autocast", "GradScaler"):
        return f'torch.amp.{what}("{device_type}", ...)'
    return f'torch.amp.{what}(device_type="{device_type}", ...)'


def _new_arguments(call: cst.Call, what: str, device_type: str) -> Optional[list[cst.Arg]]:
    """The new call's arguments: the old positionals as keywords by the old signature's names after
    the device type (`autocast`, `GradScaler`), or the decorated function then `device_type=`
    (`custom_fwd(fn, ...)`: keyword-only there); the other arguments kept as they were."""
    if has_star_args(call):
        return None
    names = _POSITIONAL[what]
    positionals = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if len(positionals) > len(names):
        return None
    rest = list(call.args[len(positionals):])
    if what in ("custom_fwd", "custom_bwd"):
        return _separated([*positionals, _keyword("device_type", device_type), *rest])
    converted = [arg.with_changes(keyword=cst.Name(name), equal=_EQUAL) for arg, name in zip(positionals, names)]
    return _separated([cst.Arg(cst.SimpleString(f'"{device_type}"')), *converted, *rest])


def _separated(args: list[cst.Arg]) -> list[cst.Arg]:
    """Every argument but the last followed by a comma (the last keeps whatever it had)."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [arg if i == len(args) - 1 or isinstance(arg.comma, cst.Comma) else arg.with_changes(comma=comma)
            for i, arg in enumerate(args)]


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _keyword(name: str, value: str) -> cst.Arg:
    return cst.Arg(cst.SimpleString(f'"{value}"'), keyword=cst.Name(name), equal=_EQUAL)


def _tests_version(test: cst.BaseExpression) -> int:
    return int(any(_VERSION_TEST.search(word) for word in identifiers(test)))


def _binding_counts(module: cst.Module) -> dict[str, int]:
    """How many statements anywhere in the module bind each name (imports, assignments, definitions,
    loop and `with` targets)."""
    counts: dict[str, int] = {}

    def bind(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                bind((dotted_name(local) or "").split(".")[0])  # type: ignore[arg-type]
            continue  # (its `as` names are counted here)
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                for name in target_names(target.target):
                    bind(name.value)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For)):
            for name in target_names(node.target):
                bind(name.value)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            bind(node.name.value)
        elif isinstance(node, cst.AsName):
            for name in target_names(node.name):  # type: ignore[arg-type]
                bind(name.value)
        stack.extend(children(node))
    return counts
