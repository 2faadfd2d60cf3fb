"""DEV012 — a `torch.cuda` call in code shown to run on other devices too: the visitor and its fix."""

from __future__ import annotations

import os
import re
from typing import Optional, Sequence

import libcst as cst

from devlint.analysis import portable
from devlint.analysis.cuda_evidence import FileEvidence, evidence_in

from devlint.analysis.guards import (
    calls_a_collective, ends_with_exit, guarded_branches, is_availability_check, is_main_test, is_test_code,
    mentions_cuda, name_mentions_cuda, tests_torch_version,
)
from devlint.analysis.names import dotted_name, identifiers, is_cuda_string
from devlint.analysis.walk import children
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev012_cuda_api_in_generic_code import RULE, TWINS, Twin, cuda_api, generic_evidence

# Another backend named in an `elif` / `else`: the `if` chooses among backends, and its CUDA branch is CUDA's own.
_OTHER_BACKEND = re.compile(r"(?<![a-z])(mps|xpu|npu|hpu|mlu|musa)(?![a-z])", re.IGNORECASE)


class CudaApiInGenericCode(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._scopes: list[str] = []  # the enclosing classes and functions, outermost first
        # per enclosing `if`, `x if c else y` and `except`: 1 where it keeps the old call on purpose (a branch that is
        # CUDA's own, a version test, an `except` fallback), read once on the way in
        self._keeping: list[int] = []
        self._evidence: Optional[FileEvidence] = None
        self._own: dict[int, bool] = {}  # id(function) -> it is CUDA's own code (`_cuda_own`)
        self._ifs: list[cst.If] = []  # the enclosing `if` statements, innermost last
        self._main: Optional[cst.If] = None  # the `if __name__ == "__main__":` block being visited
        self._checks: list[int] = []  # per enclosing `x if c else y`: 1 where `c` checks whether CUDA is there

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    @property
    def _kept(self) -> bool:
        return any(self._keeping)

    def visit_If(self, node: cst.If) -> None:
        self._keeping.append(_keeps_cuda(node))
        self._ifs.append(node)
        function = self.ctx.current_function()
        if function is None and len(self._ifs) == 1 and is_main_test(node.test):
            self._main = node
        elif function is not None and node.orelse is None and ends_with_exit(node.body) and \
                mentions_cuda(node.test) and guarded_branches(node.test)[1]:
            # `if not torch.cuda.is_available(): return`: what follows in the function runs only on CUDA
            self._own[id(function)] = True

    def leave_If(self, original_node: cst.If) -> None:
        self._keeping.pop()
        self._ifs.pop()
        if original_node is self._main:
            self._main = None

    @property
    def _availability_guarded(self) -> bool:
        """Inside an `if` (or `x if ... else y`) that checks whether CUDA is there (`if torch.cuda.is_available():`)."""
        return any(self._checks) or any(is_availability_check(guard.test) for guard in self._ifs)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._keeping.append(_keeps_cuda(node))
        self._checks.append(int(is_availability_check(node.test)))

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._keeping.pop()
        self._checks.pop()

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._keeping.append(1)

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._keeping.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if self._kept:
            return
        name = cuda_api(self.torch.qualify(node.func))
        if name is None or is_test_code(self.ctx.path) or self._named_for_cuda() or self._cuda_own():
            return
        shown = generic_evidence(self._file_evidence(), ".".join(self._scopes) or None, self._availability_guarded)
        if shown is None:
            return
        twin = TWINS[name]
        written = dotted_name(node.func) or f"torch.cuda.{name}"
        self.report(node, f"`{written}()` works on CUDA only, in code shown to run elsewhere too ({shown.says},"
                          f" line {shown.line}); use `{twin.written}`, which works on every backend",
                    self._fix(node, twin))

    def _cuda_own(self) -> bool:
        """The function (or the `__main__` block) is CUDA's own: it calls a collective or a barrier (distributed
        code, NCCL's where it runs on GPUs), sends values to CUDA itself (`x.to("cuda")`, `.cuda()`: making only its
        `torch.cuda` calls generic would not make it run elsewhere; DEV003 judges those), or the call comes after
        it returned where there is no CUDA (`if not torch.cuda.is_available(): return`)."""
        function = self.ctx.current_function()
        if function is None:
            if self._main is None:
                return False
            if id(self._main) not in self._own:
                self._own[id(self._main)] = _sends_to_cuda(self._main.body)
            return self._own[id(self._main)]
        if id(function) not in self._own:
            self._own[id(function)] = calls_a_collective(function, barrier=True) or _sends_to_cuda(function.body)
        return self._own[id(function)]

    def _named_for_cuda(self) -> bool:
        """The file, or a class or function the call is in, says CUDA or GPU in its name: CUDA's own code."""
        return any(name_mentions_cuda(name) for name in (os.path.basename(self.ctx.path or ""), *self._scopes))

    def _file_evidence(self) -> FileEvidence:
        if self._evidence is None:  # (read once: without the screen's facts it is a parse of the file)
            self._evidence = evidence_in(self.ctx.syntax, self.ctx.module.code)
        return self._evidence

    def _fix(self, node: cst.Call, twin: Twin) -> Optional[Fix]:
        if twin.call is None or not portable.has(self.ctx.target_torch, twin.since):
            return None  # no twin, or the target torch may not have it (unknown: it may not)
        args = _twin_arguments(node, twin)
        if args is None:
            return None
        torch_name = self.torch.torch_module_name() or "torch"
        func = cst.parse_expression(f"{torch_name}.accelerator.{twin.call}")
        applicability = Applicability.SAFE if twin.safe else Applicability.UNSAFE
        replacements: dict[cst.CSTNode, cst.CSTNode] = {node: node.with_changes(func=func, args=args)}
        # `if torch.cuda.is_available(): torch.cuda.synchronize()`: both, or MPS still skips it (not with a device
        # given: chosen by the CUDA check, it may be the CPU, which the accelerator's `synchronize` refuses)
        guard = self._guard_of(node) if not node.args else None
        if guard is not None:
            replacements[guard.test] = guard.test.with_changes(func=cst.parse_expression(
                f"{torch_name}.accelerator.is_available"))
        return Fix(applicability, f"Use `torch.accelerator.{twin.call}`", replacements,
                   needs_torch_import=self.torch.torch_module_name() is None)

    def _guard_of(self, node: cst.Call) -> Optional[cst.If]:
        """The `if torch.cuda.is_available():` (no `else`) whose body is this call alone, if any."""
        guard = self._ifs[-1] if self._ifs else None
        if guard is None or guard.orelse is not None or not isinstance(guard.test, cst.Call) or guard.test.args:
            return None
        if self.torch.qualify(guard.test.func) != "torch.cuda.is_available":
            return None
        body = guard.body
        if isinstance(body, cst.SimpleStatementSuite):  # `if ...: torch.cuda.synchronize()`
            lines: Sequence[cst.BaseSmallStatement] = body.body
        elif len(body.body) == 1 and isinstance(body.body[0], cst.SimpleStatementLine):
            lines = body.body[0].body
        else:
            return None
        return guard if len(lines) == 1 and isinstance(lines[0], cst.Expr) and lines[0].value is node else None


def _sends_to_cuda(body: cst.CSTNode) -> bool:
    """A `"cuda"` / `"cuda:N"` string or a `.cuda()` call in `body`, other than in a test or a choice (`device.type
    == "cuda"`, `"cuda" if ok else "cpu"`)."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Comparison, cst.IfExp, cst.If, cst.While, cst.BooleanOperation)):
            if isinstance(node, (cst.If, cst.While)):
                stack.append(node.body)  # (its test is a test; its body is not)
                if node.orelse is not None:
                    stack.append(node.orelse)
            continue
        if isinstance(node, cst.SimpleString) and is_cuda_string(node):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "cuda":
            return True
        stack.extend(children(node))
    return False


def _twin_arguments(call: cst.Call, twin: Twin) -> Optional[list[cst.Arg]]:
    """The twin's arguments: none, or the one device, positional (a `device=` keyword loses its name); None
    where the call passes anything else."""
    if not call.args:
        return []
    if not twin.takes_device or len(call.args) != 1:
        return None
    arg = call.args[0]
    if arg.star or (arg.keyword is not None and arg.keyword.value != "device"):
        return None
    return [arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, comma=cst.MaybeSentinel.DEFAULT)]


def _keeps_cuda(branch: "cst.If | cst.IfExp") -> int:
    """1 where the old call is kept on purpose in the branches of `branch`: its test asks for CUDA itself
    (`device.type == "cuda"`, `x.is_cuda`, `use_cuda`), not only whether CUDA is there (`torch.cuda.is_available()`:
    the code guarded so is the code to make generic), or asks about the torch version or the new API's presence;
    or the `if` chooses among backends (an `elif` / `else` for MPS or XPU: its CUDA branch is CUDA's own)."""
    test = branch.test
    if tests_torch_version(test, new_api="accelerator"):
        return 1
    if not is_availability_check(test):
        return int(any(guarded_branches(test)))
    otherwise = branch.orelse
    return int(otherwise is not None and any(_OTHER_BACKEND.search(word) for word in identifiers(otherwise)))
