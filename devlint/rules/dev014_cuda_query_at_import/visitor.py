"""DEV014 — a CUDA query that runs when the module is imported: the visitor (no fix)."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from devlint.analysis.cuda_evidence import FileEvidence, evidence_in
from devlint.analysis.guards import is_availability_check, is_main_test, loops_over_gpus, mentions_cuda
from devlint.analysis.names import dotted_name
from devlint.analysis.walk import children
from devlint.rules.base import RuleVisitor
from devlint.rules.dev014_cuda_query_at_import import RULE, is_query


class CudaQueryAtImport(RuleVisitor):
    rule = RULE

    def visit_Module(self, node: cst.Module) -> None:
        if (self.ctx.path or "").endswith(".ipynb") or _runs_as_a_script(node):
            return
        evidence: Optional[FileEvidence] = None
        for call, where in _run_at_import(node):
            if not is_query(self.torch.qualify(call.func)):
                continue
            if evidence is None:
                evidence = evidence_in(self.ctx.syntax, node.code)
            if evidence.designed_for_cuda is not None:
                return
            self.report(call, f"`{dotted_name(call.func)}()` runs {where}, and raises where there is no CUDA: the"
                              " import itself fails on a CPU-only or Apple machine; ask inside the function that"
                              " needs it, or behind `torch.cuda.is_available()`")


def _run_at_import(module: cst.Module) -> Iterator[tuple[cst.Call, str]]:
    """Every call that runs when `module` is imported, with where it is, and no check before it that CUDA is
    there: the top level, class bodies, parameters' defaults, decorators; not function bodies, lambdas, the
    `__main__` block, guarded branches, loops over the GPUs or `try` bodies."""
    stack: list[tuple[cst.CSTNode, str]] = [(module, "at the module's top level")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, cst.FunctionDef):
            stack.extend((decorator, "in a decorator") for decorator in node.decorators)
            stack.extend((param.default, "in a parameter's default") for param in _params(node.params)
                         if param.default is not None)
            continue
        if isinstance(node, cst.Lambda):
            continue
        if isinstance(node, cst.ClassDef):
            stack.extend((child, "in a class body") for child in children(node))
            continue
        if isinstance(node, (cst.If, cst.While)):
            if not (is_main_test(node.test) or _checks_cuda(node.test)):
                stack.extend((child, where) for child in children(node))
            continue
        if isinstance(node, cst.IfExp):
            if not _checks_cuda(node.test):
                stack.extend((child, where) for child in children(node))
            continue
        if isinstance(node, cst.BooleanOperation):
            stack.append((node.left, where))  # the right side runs only as the left allows
            if not _checks_cuda(node.left):
                stack.append((node.right, where))
            continue
        if isinstance(node, cst.Try):
            if node.orelse is not None:
                stack.append((node.orelse, where))
            if node.finalbody is not None:
                stack.append((node.finalbody, where))
            continue  # its body's failure is handled (its handlers run only after one)
        if isinstance(node, cst.For) and loops_over_gpus(node.iter):
            continue
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)) and _over_gpus(node.for_in):
            continue
        if isinstance(node, cst.Call):
            yield node, where
        stack.extend((child, where) for child in children(node))


def _over_gpus(loop: Optional[cst.CompFor]) -> bool:
    """A comprehension with a `for` over the GPUs (`[... for i in range(torch.cuda.device_count())]`)."""
    while loop is not None:
        if loops_over_gpus(loop.iter):
            return True
        loop = loop.inner_for_in
    return False


def _params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params]


def _checks_cuda(test: cst.BaseExpression) -> bool:
    """A test of whether CUDA is there or of what it is (`torch.cuda.is_available()`, `device_count() > 1`,
    `device.type == "cuda"`, `use_gpu`)."""
    return is_availability_check(test) or mentions_cuda(test)


def _runs_as_a_script(module: cst.Module) -> bool:
    """An `if __name__ == "__main__":` block, or a top-level call, loop or `with` (other than a docstring): a
    program, whose run is not an import."""
    for statement in module.body:
        if isinstance(statement, cst.If) and is_main_test(statement.test):
            return True
        if isinstance(statement, (cst.For, cst.While, cst.With)):
            return True
        if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) for small in statement.body):
            return True
    return False
