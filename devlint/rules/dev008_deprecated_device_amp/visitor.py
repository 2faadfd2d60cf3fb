"""DEV008 — deprecated device-specific AMP (`torch.cuda.amp`, `torch.cpu.amp`): the visitor and its fix."""

from __future__ import annotations

import os
from typing import Optional, Sequence

import libcst as cst

from devlint.analysis import portable
from devlint.analysis.guards import tests_torch_version
from devlint.analysis.names import dotted_name, has_star_args, string_value, target_names
from devlint.analysis.walk import children, nodes
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
# The torch version that has the new API.
_SINCE = {"autocast": portable.AMP_AUTOCAST, "GradScaler": portable.AMP_GRAD_SCALER, "custom_fwd": portable.AMP_CUSTOM_FUNCTION,
          "custom_bwd": portable.AMP_CUSTOM_FUNCTION}
# The modules whose names are the deprecated API (`from torch.cuda.amp.grad_scaler import GradScaler` too).
_OLD_MODULES = ("torch.cuda.amp", "torch.cpu.amp")
# Calls that only ask about a class: naming the deprecated one there warns about nothing.
_TYPE_TESTS = frozenset({"isinstance", "issubclass"})


class DeprecatedDeviceAmp(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._tried = 0  # inside a `try` (its handlers are `_version_gated`)
        self._version_gated = 0  # inside an `if` on the torch version, or an `except` fallback
        self._bindings: Optional[dict[str, int]] = None
        self._decorating = 0  # inside a decorator
        self._not_values: set[int] = set()  # the classes a type test names (`isinstance(s, GradScaler)`)
        self._bodies: list[Sequence[cst.CSTNode]] = []  # the statement lists being visited, innermost last
        self._imports: list[tuple[cst.ImportFrom, cst.SimpleStatementLine, Sequence[cst.CSTNode]]] = []
        self._pending_imports: list[tuple[cst.ImportFrom, str, list[str]]] = []

    # -- where the old API is kept on purpose ------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        self._version_gated += _tests_version(node.test)

    def leave_If(self, original_node: cst.If) -> None:
        self._version_gated -= _tests_version(original_node.test)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._version_gated -= _tests_version(original_node.test)

    def visit_Try(self, node: cst.Try) -> None:
        self._tried += 1

    def leave_Try(self, original_node: cst.Try) -> None:
        self._tried -= 1

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._version_gated += 1

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._version_gated -= 1

    # -- where an import line sits (to remove it whole, a block must keep a statement) -----------
    def visit_Module(self, node: cst.Module) -> None:
        self._bodies.append(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._bodies.append(node.body)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._bodies.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        for small in node.body:
            if isinstance(small, cst.ImportFrom) and self._bodies:
                self._imports.append((small, node, self._bodies[-1]))

    # -- reports ------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if dotted_name(node.func) in _TYPE_TESTS:
            self._not_values.update(id(arg.value) for arg in node.args)
        found = self._deprecated(node.func)
        if found is not None:
            self._report(node, node, *found)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self._decorating += 1  # `@delegates(GradScaler)` reads a signature: no call, no warning
        # `@custom_fwd` without parentheses: the decorator is the name itself
        found = self._deprecated(node.decorator)
        if found is not None and found[1] in ("custom_fwd", "custom_bwd"):
            self._report(node.decorator, None, *found)

    def leave_Decorator(self, original_node: cst.Decorator) -> None:
        self._decorating -= 1

    # -- the deprecated API passed on as a value --------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        # `custom_fwd = torch.cuda.amp.custom_fwd` in one branch and `= torch.amp.custom_fwd` in the other:
        # a name bound twice is a choice kept for an old torch
        if not any(self._times_bound(name.value) > 1 for target in node.targets for name in target_names(target.target)):
            self._value(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._value(node.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._value(node.value)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._version_gated += _tests_version(node.test)
        self._value(node.body)
        self._value(node.orelse)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._value(node.left)
        self._value(node.right)

    def visit_Element(self, node: cst.BaseElement) -> None:
        self._value(node.value)

    def visit_Arg(self, node: cst.Arg) -> None:
        if id(node.value) not in self._not_values:
            self._value(node.value)

    def _value(self, node: cst.BaseExpression) -> None:
        """`ctx = torch.cuda.amp.autocast if amp else nullcontext`, `partial(autocast, dtype=...)`: the
        deprecated API passed on as a value is called later, with the same warning. (No fix: the device
        type has no place there.)"""
        if not isinstance(node, (cst.Name, cst.Attribute)) or self._decorating:
            return
        found = self._deprecated(node)
        if found is None:
            return
        written, what, device_type = found
        self.report(node, f"`{written}` is deprecated (a FutureWarning since torch 2.4 when it is called) and tied"
                          f" to {_device_words(device_type)}; use `{_new_call_text(what, device_type)}`")

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        """`from torch.cuda.amp import GradScaler, autocast`: the line users see, reported itself."""
        if self._version_gated or original_node.relative or isinstance(original_node.names, cst.ImportStar):
            return
        module = dotted_name(original_node.module) if original_node.module is not None else None
        if module is None or not module.startswith(_OLD_MODULES):
            return
        # a name bound again elsewhere (`autocast = nullcontext`, a second import) is not only this API,
        # unless the import is the one tried first (`try: from torch.cuda.amp import ...` / `except: ... = None`)
        old = [alias.evaluated_name for alias in original_node.names if f"{module}.{alias.evaluated_name}" in _DEPRECATED
               and (self._tried or self._times_bound(alias.evaluated_alias or alias.evaluated_name) == 1)]
        if not old:
            return
        self._pending_imports.append((original_node, module, old))

    def finish(self) -> None:
        # read once the whole module is known: which imported names nothing uses any more
        used = _names_used(self.ctx.module) if self._pending_imports else set()
        for node, module, old in self._pending_imports:
            device_type = _DEPRECATED[f"{module}.{old[0]}"][1]
            listed = ", ".join(f"`torch.amp.{name}`" for name in old)
            self.report(node, f"`from {module} import ...` imports the deprecated API tied to"
                              f" {_device_words(device_type)} (a FutureWarning since torch 2.4 on each use);"
                              f" use {listed} with the device type", self._unused_names_fix(node, module, used))

    def _unused_names_fix(self, node: cst.ImportFrom, module: str, used: set[str]) -> Optional[Fix]:
        """Removes the imported deprecated names that the module no longer uses where it uses their
        `torch.amp` replacement (what the rewrite left). Never in an `__init__.py`, where an import is
        often there for others to import."""
        if os.path.basename(self.ctx.path or "") == "__init__.py" or isinstance(node.names, cst.ImportStar):
            return None
        replaced = self._replacements_used()
        unused = [alias for alias in node.names if f"{module}.{alias.evaluated_name}" in _DEPRECATED
                  and (alias.evaluated_alias or alias.evaluated_name) not in used
                  and _DEPRECATED[f"{module}.{alias.evaluated_name}"][0] in replaced]
        if not unused:
            return None
        kept = [alias for alias in node.names if alias not in unused]
        if kept:
            last = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            new = node.with_changes(names=[*kept[:-1], last])
            return Fix(Applicability.SAFE, "Remove the imported names nothing uses", {node: new})
        line, body = next(((line, body) for small, line, body in self._imports if small is node), (None, None))
        if line is None or body is None or len(line.body) != 1:
            return None
        if len(body) > 1:
            return Fix(Applicability.SAFE, "Remove the import nothing uses",
                       {line: cst.RemovalSentinel.REMOVE})  # type: ignore[dict-item]
        return Fix(Applicability.SAFE, "Remove the import nothing uses", {node: cst.Pass()})

    def _replacements_used(self) -> set[str]:
        """What of `autocast`, `GradScaler`, `custom_fwd`, `custom_bwd` the module uses from `torch.amp`."""
        found = set()
        for node in nodes(self.ctx.module):
            if isinstance(node, cst.Attribute):
                full = self.torch.qualify(node) or ""
                if full.startswith("torch.amp.") and full[len("torch.amp."):] in _POSITIONAL:
                    found.add(full[len("torch.amp."):])
        return found

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
        message = f"`{written}` is deprecated (a FutureWarning since torch 2.4) and tied to {_device_words(device_type)}; use `{new}`"
        self.report(node, message, self._fix(node, call, what, device_type))

    def _fix(self, node: cst.BaseExpression, call: Optional[cst.Call], what: str, device_type: str) -> Optional[Fix]:
        since = _SINCE[what]
        if not portable.has(self.ctx.target_torch, since):
            return None  # the target torch may not have the new API (unknown: it may not)
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


def _device_words(device_type: str) -> str:
    return "CUDA" if device_type == "cuda" else "the CPU"


def _names_used(module: cst.Module) -> set[str]:
    """Every name the module reads or writes outside its import statements (attribute names aside), and
    every string that is an identifier (`__all__ = ["autocast"]` exports an imported name)."""
    used = set()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        if isinstance(node, cst.Attribute):
            stack.append(node.value)  # `torch.amp.autocast` does not use a name `autocast`
            continue
        if isinstance(node, cst.Name):
            used.add(node.value)
        elif isinstance(node, cst.SimpleString):
            text = string_value(node)
            if text is not None and text.isidentifier():
                used.add(text)
        stack.extend(children(node))
    return used


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
    """1 when `test` asks about the torch version or the new API's presence; `hasattr(torch.cuda.amp,
    "autocast")` asks whether the deprecated API is there, which every torch answers yes: not a fallback."""
    if isinstance(test, cst.BooleanOperation):
        return max(_tests_version(test.left), _tests_version(test.right))
    if isinstance(test, cst.Call) and dotted_name(test.func) in ("hasattr", "getattr") and test.args \
            and (dotted_name(test.args[0].value) or "").startswith(_OLD_HOMES):
        return 0
    return int(tests_torch_version(test))


# Where the deprecated API lives (`torch.cuda.amp`, and `torch.cuda`, which holds it).
_OLD_HOMES = ("torch.cuda", "torch.cpu")


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
