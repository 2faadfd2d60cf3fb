"""Is this code only reached where CUDA exists?

A test "mentions cuda" when one of its names or strings holds `cuda` or `gpu`
(`torch.cuda.is_available()`, `args.cuda`, `use_gpu`, `n_gpu > 0`, `dev.type == "cuda"`),
or asks for an accelerator (`torch.accelerator.is_available()`).
"""

from __future__ import annotations

import re

import libcst as cst

from devlint.analysis.names import dotted_name, identifiers

_CUDA_WORD = re.compile(r"cuda|gpu|accelerator", re.IGNORECASE)

# Calls that end the current function (or test) when they run.
_EXIT_CALLS = {"pytest.skip", "skip", "self.skipTest", "sys.exit", "exit", "unittest.SkipTest"}


def mentions_cuda(expr: cst.CSTNode) -> bool:
    return any(_CUDA_WORD.search(word) for word in identifiers(expr))


def name_mentions_cuda(name: str) -> bool:
    return bool(_CUDA_WORD.search(name))


def ends_with_exit(body: cst.BaseSuite) -> bool:
    if isinstance(body, cst.SimpleStatementSuite):
        statements: list[cst.CSTNode] = list(body.body)
    else:
        if not body.body:
            return False
        last = body.body[-1]
        if not isinstance(last, cst.SimpleStatementLine):
            return False
        statements = list(last.body)
    if not statements:
        return False
    last_small = statements[-1]
    if isinstance(last_small, (cst.Return, cst.Raise, cst.Continue, cst.Break)):
        return True
    if isinstance(last_small, cst.Expr) and isinstance(last_small.value, cst.Call):
        return dotted_name(last_small.value.func) in _EXIT_CALLS
    return False


def decorator_requires_cuda(decorator: cst.Decorator) -> bool:
    """`@pytest.mark.skipif(not torch.cuda.is_available(), ...)`, `@unittest.skipIf(...)`,
    `@requires_cuda`, `@require_torch_gpu` and the like."""
    return mentions_cuda(decorator.decorator)
