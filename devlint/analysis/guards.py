"""Is this code only reached where CUDA (or another accelerator backend: mps, xpu) exists?

A guard is a test whose outcome says CUDA is there (or is what the code was asked to use), and only
in the branch where it says so:

- a truth test of something that names CUDA or a GPU: an availability call
  (`torch.cuda.is_available()`, `torch.accelerator.is_available()`, `is_torch_cuda_available()`),
  a flag (`args.cuda`, `use_gpu`, `self.on_gpu`), a name assigned from an availability check
  (`ok = torch.cuda.is_available()`), a tensor's `x.is_cuda` — the branch where it is true;
  a negative flag (`args.no_cuda`, `disable_gpu`) guards the branch where it is false;
- a count of GPUs compared with a number (`torch.cuda.device_count() > 0`, `n_gpu >= 1`,
  `num_gpus == 0`): the branch where the count cannot be 0;
- an equality with a CUDA device (`x.device.type == "cuda"`, `device == torch.device("cuda")`,
  `"cuda" in str(device)`): the branch where it holds. A device that *is* CUDA was chosen by someone
  (the caller, the user, an availability check): where CUDA is missing that branch is never taken.
  `if x.device != torch.device("cuda"): x = x.to("cuda")` guards nothing: that branch runs exactly
  where the value is *not* on CUDA;
- `not`, `and`, `or` combine these as logic says (`if avail and x: ...` guards its body, not its else).

Every question takes the backend it is asked for (`Backend`, CUDA unless told): the same reading
serves `torch.backends.mps.is_available()`, `args.mps`, `device.type == "mps"`, `torch.xpu.device_count() > 0`.
A GPU or `torch.accelerator` in a test counts for every backend.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import libcst as cst

from devlint.analysis.forward import last_small_statement
from devlint.analysis.names import (
    dotted_name, identifiers, integer_value, is_cuda_device_expr, keyword, positional, string_value,
)
from devlint.analysis.vocabulary import CUDA_ONLY_CALLS
from devlint.analysis.walk import children, nodes

if TYPE_CHECKING:  # pragma: no cover
    from devlint.analysis.torch_names import TorchNames

@dataclass(frozen=True)
class Backend:
    """An accelerator backend as guards see it. `word` finds it (or any accelerator, or a GPU) in a
    test's names; `negative` finds flags that say it is *not* used; `device_words` are the device
    strings that name it."""

    name: str
    word: "re.Pattern[str]"
    negative: "re.Pattern[str]"
    device_words: tuple[str, ...]


_NOT = r"(^|_)(no|not|disable|disabled|without|skip)_?"
# CUDA, a GPU, and what only runs on one (NCCL, TensorRT)
CUDA = Backend("cuda", re.compile(r"cuda|gpu|accelerator|nccl|tensorrt", re.IGNORECASE),
               re.compile(_NOT + r"(cuda|gpu)|cpu_?only", re.IGNORECASE), ("cuda", "gpu"))
# Apple's GPUs (Metal). `mps` is matched as a word of its own: `dumps` and `timestamps` say nothing.
MPS = Backend("mps", re.compile(r"(?<![a-z])mps(?![a-z])|metal|gpu|accelerator", re.IGNORECASE),
              re.compile(_NOT + r"(mps|gpu)|cpu_?only", re.IGNORECASE), ("mps",))
# Intel's GPUs
XPU = Backend("xpu", re.compile(r"(?<![a-z])xpu(?![a-z])|gpu|accelerator", re.IGNORECASE),
              re.compile(_NOT + r"(xpu|gpu)|cpu_?only", re.IGNORECASE), ("xpu",))
BACKENDS = {backend.name: backend for backend in (CUDA, MPS, XPU)}
# What a guard's test may hold besides a backend's words: the CPU (`dev.type == "cpu"`, `use_cpu`), `isinstance`
_GUARD_WORD = re.compile(r"cpu|isinstance", re.IGNORECASE)
_CPU_WORD = re.compile(r"cpu", re.IGNORECASE)
# `no_cuda`, `disable_gpu`, `without_cuda`, `cpu_only`: true where CUDA is *not* used
_NEGATIVE_WORD = CUDA.negative
# Availability calls of every backend: a name assigned from one is a flag that guards
_AVAILABILITY_CALLS = ("cuda.is_available", "accelerator.is_available", "mps.is_available", "xpu.is_available")

# Calls that end the current function (or test) when they run.
_EXIT_CALLS = {"pytest.skip", "skip", "self.skipTest", "sys.exit", "exit", "unittest.SkipTest"}


def mentions_cuda(expr: cst.CSTNode, backend: Backend = CUDA) -> bool:
    """Does `expr` name the backend (CUDA unless told), any accelerator, or a GPU?"""
    return any(backend.word.search(word) for word in identifiers(expr))


def name_mentions_cuda(name: str, backend: Backend = CUDA) -> bool:
    return bool(backend.word.search(name))


def guarded_branches(test: cst.BaseExpression, flags: "frozenset[str] | set[str]" = frozenset(),
                     backend: Backend = CUDA) -> tuple[bool, bool]:
    """(the body of `if test` runs only where the backend (CUDA unless told) is there, its `else`
    does). `flags` are names the code assigned from an availability check (`ok = torch.cuda.is_available()`)."""
    words = list(identifiers(test))
    if not any(backend.word.search(word) or _GUARD_WORD.search(word) or word in flags for word in words):
        return False, False
    return _implies_cuda(test, True, flags, backend), _implies_cuda(test, False, flags, backend)


def is_availability_check(value: cst.BaseExpression) -> bool:
    """`torch.cuda.is_available()`, `torch.cuda.device_count() > 0`, and `and`s of them (cheap: asked
    of every assigned value)."""
    if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.And):
        return is_availability_check(value.left) or is_availability_check(value.right)
    if isinstance(value, cst.Comparison):
        if len(value.comparisons) != 1 or not isinstance(value.left, cst.Call):
            return False
        return ((dotted_name(value.left.func) or "").endswith("cuda.device_count")
                and _comparison_implies_cuda(value.left, value.comparisons[0], True))
    return isinstance(value, cst.Call) and (dotted_name(value.func) or "").endswith(_AVAILABILITY_CALLS)


def _implies_cuda(test: cst.BaseExpression, outcome: bool, flags: "frozenset[str] | set[str]" = frozenset(),
                  backend: Backend = CUDA) -> bool:
    """Does `test` evaluating to `outcome` show that the backend is there?"""
    if isinstance(test, cst.Name) and test.value in flags:
        return outcome
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _implies_cuda(test.expression, not outcome, flags, backend)
    if isinstance(test, cst.BooleanOperation):
        left = _implies_cuda(test.left, outcome, flags, backend)
        right = _implies_cuda(test.right, outcome, flags, backend)
        is_and = isinstance(test.operator, cst.And)
        # `a and b` true: both hold; false: one of them fails (we do not know which)
        return (left or right) if is_and == outcome else (left and right)
    if isinstance(test, cst.Comparison):
        if len(test.comparisons) != 1:
            return outcome and mentions_cuda(test, backend)
        return _comparison_implies_cuda(test.left, test.comparisons[0], outcome, backend)
    if _is_int_device_test(test):
        # `isinstance(device, int)`: an int device is a CUDA index (PyTorch reads it so)
        return outcome
    words = list(identifiers(test))
    if not any(backend.word.search(word) for word in words):
        # `use_cpu`, `args.cpu`: where it is false, the code was asked for the accelerator
        return not outcome and any(_CPU_WORD.search(word) for word in words)
    if any(backend.negative.search(word) for word in words):
        return not outcome
    return outcome


def _is_int_device_test(test: cst.BaseExpression) -> bool:
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2):
        return False
    subject, kind = test.args[0].value, test.args[1].value
    name = dotted_name(subject) or ""
    last = name.rsplit(".", 1)[-1].lower()
    return "device" in last and not last.endswith(("type", "name")) and dotted_name(kind) == "int"


def _comparison_implies_cuda(left: cst.BaseExpression, target: cst.ComparisonTarget, outcome: bool,
                             backend: Backend = CUDA) -> bool:
    operator = target.operator
    right = target.comparator
    positive = isinstance(operator, (cst.Equal, cst.Is, cst.In))
    negative = isinstance(operator, (cst.NotEqual, cst.IsNot, cst.NotIn))
    if _is_cuda_device(left, backend) or _is_cuda_device(right, backend):
        # `dev.type == "cuda"`, `"cuda" in str(dev)`, `provider in ("CUDAExecutionProvider", ...)`:
        # holds where the device is CUDA
        if positive:
            return outcome
        if negative:
            return not outcome
        return False
    if _is_cpu_device(left) or _is_cpu_device(right):
        # `dev.type == "cpu"`: where it fails, the device chosen is an accelerator
        if positive:
            return not outcome
        if negative:
            return outcome
        return False
    if not (mentions_cuda(left, backend) or mentions_cuda(right, backend)):
        return False
    if isinstance(right, cst.Name) and right.value == "None" and isinstance(operator, (cst.Is, cst.IsNot)):
        # `args.gpu is not None`: a GPU was given
        return outcome if negative else not outcome
    number = integer_value(right)
    flipped = False
    if number is None:
        number = integer_value(left)
        flipped = True
    if number is not None:
        # a count of GPUs (never negative): the outcome shows CUDA where it rules out a count of 0
        holds_at_zero = _holds(operator, 0, number) if not flipped else _holds(operator, number, 0)
        if holds_at_zero is None:
            return False
        return outcome != holds_at_zero
    return False  # some other comparison that mentions CUDA: it says nothing we can read


def _holds(operator: cst.BaseCompOp, left: int, right: int) -> "bool | None":
    if isinstance(operator, (cst.Equal, cst.Is)):
        return left == right
    if isinstance(operator, (cst.NotEqual, cst.IsNot)):
        return left != right
    if isinstance(operator, cst.GreaterThan):
        return left > right
    if isinstance(operator, cst.GreaterThanEqual):
        return left >= right
    if isinstance(operator, cst.LessThan):
        return left < right
    if isinstance(operator, cst.LessThanEqual):
        return left <= right
    return None


def _is_cpu_device(expr: cst.BaseExpression) -> bool:
    value = string_value(expr)
    if value is not None:
        return value.strip().lower() == "cpu"
    if isinstance(expr, cst.Call) and dotted_name(expr.func) in ("torch.device", "device") and expr.args:
        return _is_cpu_device(expr.args[0].value)
    return False


def _is_cuda_device(expr: cst.BaseExpression, backend: Backend = CUDA) -> bool:
    """`"cuda"`, `"cuda:0"`, `"gpu"`, `torch.device("cuda")`, `f"cuda:{i}"`, a string naming a CUDA
    backend (`"CUDAExecutionProvider"`), or a tuple of those (for CUDA; `"mps"` and the like for the
    other backends)."""
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)) and expr.elements:
        return all(_is_cuda_device(element.value, backend) for element in expr.elements)
    value = string_value(expr)
    if value is not None:
        return value.strip().lower().split(":")[0] in backend.device_words or bool(backend.word.search(value))
    if isinstance(expr, cst.Call) and dotted_name(expr.func) in ("torch.device", "device") and expr.args:
        return _is_cuda_device(expr.args[0].value, backend)
    return backend is CUDA and is_cuda_device_expr(expr)


def ends_with_exit(body: cst.BaseSuite) -> bool:
    """Does the block leave where it ends: `return`, `raise`, `break`, `continue`, or a call that exits
    (`sys.exit()`)?"""
    last = last_small_statement(body)
    if isinstance(last, (cst.Return, cst.Raise, cst.Continue, cst.Break)):
        return True
    return (isinstance(last, cst.Expr) and isinstance(last.value, cst.Call)
            and dotted_name(last.value.func) in _EXIT_CALLS)


def decorator_requires_cuda(decorator: cst.Decorator, backend: Backend = CUDA) -> bool:
    """`@pytest.mark.skipif(not torch.cuda.is_available(), ...)`, `@unittest.skipIf(...)`,
    `@requires_cuda`, `@require_torch_gpu` and the like (for the backend, CUDA unless told)."""
    return mentions_cuda(decorator.decorator, backend)


# torch.cuda functions that fail without CUDA (unlike is_available, device_count, empty_cache,
# manual_seed, which are safe to call anywhere).
# Libraries that only run on CUDA: a function that uses one is CUDA-only.
_CUDA_LIBRARIES = ("tensorrt", "torch_tensorrt", "pycuda", "cupy", "cuda", "polygraphy")


def cuda_only_reason(function: cst.FunctionDef, torch: "TorchNames", cuda_modules: set[str]) -> "str | None":
    """Why `function` cannot run without CUDA, or None. A statement that every call runs (one at the
    top of the body, or of a `with` / `try` body there; never one inside an `if` or a loop) calls a
    `torch.cuda` function that needs a GPU (`torch.cuda.synchronize()`, `torch.cuda.Stream()`), uses a
    CUDA-only library (TensorRT, pycuda, cupy; `cuda_modules` are the file's local names for them), or
    hands a `data_ptr()` to another library (a raw device pointer for a CUDA kernel)."""
    blocks: list[cst.BaseSuite] = [function.body]
    while blocks:
        block = blocks.pop()
        statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
        for statement in statements:
            if isinstance(statement, cst.With):
                blocks.append(statement.body)
                for item in statement.items:
                    reason = _cuda_only_expression(item.item, torch, cuda_modules)
                    if reason is not None:
                        return reason
            elif isinstance(statement, cst.Try):
                blocks.append(statement.body)
            elif isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                reason = _cuda_only_expression(statement, torch, cuda_modules)
                if reason is not None:
                    return reason
            elif (isinstance(statement, cst.If) and statement.orelse is None
                  and isinstance(last_small_statement(statement.body), cst.Raise)
                  and guarded_branches(statement.test)[1]):
                # `if device.type != "cuda": raise ...`: the function refuses anything but CUDA
                return "raises unless it runs on CUDA"
    return None


def _cuda_only_expression(root: cst.CSTNode, torch: "TorchNames", cuda_modules: set[str]) -> "str | None":
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Lambda, cst.IfExp, cst.BooleanOperation)):
            continue  # may not run
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            module = node.module if isinstance(node, cst.ImportFrom) else None
            names = [dotted_name(module)] if module is not None else []
            if isinstance(node, cst.Import):
                names = [dotted_name(alias.name) for alias in node.names]
            if any((n or "").split(".")[0] in _CUDA_LIBRARIES for n in names):
                return "imports a CUDA-only library"
        if isinstance(node, cst.Call):
            full = torch.qualify(node.func) or ""
            if full.startswith("torch.cuda.") and full[len("torch.cuda."):] in CUDA_ONLY_CALLS:
                return f"calls `{full}()`"
            name = dotted_name(node.func) or ""
            if name.split(".")[0] in cuda_modules:
                return f"calls the CUDA-only `{name}`"
            if not full and any(_is_data_ptr(arg.value) for arg in node.args):
                return "hands a `data_ptr()` to a CUDA library"
            if _initialises_nccl(node, full or name):
                return "initialises NCCL, which runs only on CUDA"
            if _builds_cuda_extension(node, full or name):
                return "builds a CUDA extension"
        stack.extend(children(node))
    return None


def _initialises_nccl(call: cst.Call, name: str) -> bool:
    """`dist.init_process_group("nccl")`, `init_process_group(backend="nccl")`."""
    if not name.endswith("init_process_group"):
        return False
    backend = keyword(call, "backend")
    args = positional(call)
    value = backend.value if backend is not None else args[0].value if args else None
    return value is not None and (string_value(value) or "").lower() == "nccl"


def _builds_cuda_extension(call: cst.Call, name: str) -> bool:
    """`cpp_extension.load_inline(..., cuda_sources=...)`, `cpp_extension.load(sources=[... ".cu" ...])`,
    `CUDAExtension(...)`: kernels that run only on CUDA."""
    last = name.rsplit(".", 1)[-1]
    if last == "CUDAExtension":
        return True
    if last == "load_inline" and keyword(call, "cuda_sources") is not None:
        return True
    if last == "load" and "cpp_extension" in name:
        return any(isinstance(node, cst.SimpleString) and (string_value(node) or "").endswith((".cu", ".cuh"))
                   for node in nodes(call))
    return False


def module_cuda_only_reason(module: cst.Module, torch: "TorchNames", cuda_modules: set[str]) -> "str | None":
    """Why the module, run as a script, cannot run without CUDA: a statement at its top level (or in
    its `if __name__ == "__main__":` block; never in a function, a class or another `if`) does what
    makes a function CUDA-only (`cuda_only_reason`): a GPU timing script's module-level
    `torch.cuda.synchronize()`, an NCCL process group, a CUDA extension built on import."""
    statements: list[cst.CSTNode] = list(module.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, cst.If) and is_main_test(statement.test):
            statements.extend(statement.body.body if isinstance(statement.body, cst.IndentedBlock) else [])
        elif isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            reason = _cuda_only_expression(statement, torch, cuda_modules)
            if reason is not None:
                return reason
        elif isinstance(statement, (cst.For, cst.While, cst.With)):
            statements.extend(statement.body.body if isinstance(statement.body, cst.IndentedBlock) else [])
    return None


def is_script(module: cst.Module) -> bool:
    """The module has an `if __name__ == "__main__":` block at its top level: a program, not only a library."""
    return any(isinstance(statement, cst.If) and is_main_test(statement.test) for statement in module.body)


def is_main_test(test: cst.BaseExpression) -> bool:
    return (isinstance(test, cst.Comparison) and dotted_name(test.left) == "__name__"
            and any(string_value(c.comparator) == "__main__" for c in test.comparisons))


def _is_data_ptr(expr: cst.BaseExpression) -> bool:
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "data_ptr")


# Importing one of these at module level makes the whole module a TensorRT integration: CUDA-only.
_TENSORRT_MODULES = ("tensorrt", "torch_tensorrt", "polygraphy")


def is_tensorrt_module(module: cst.Module) -> bool:
    """Does the module import TensorRT (or Polygraphy) at its top level, directly, inside an
    `if` / `try`, or through `optional_import("tensorrt")`?"""
    statements: list[cst.CSTNode] = list(module.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, (cst.If, cst.Try)):
            statements.extend(statement.body.body if isinstance(statement.body, cst.IndentedBlock) else [])
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            names: list[str] = []
            if isinstance(small, cst.Import):
                names = [dotted_name(alias.name) or "" for alias in small.names]
            elif isinstance(small, cst.ImportFrom) and small.module is not None:
                names = [dotted_name(small.module) or ""]
            elif isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and small.value.args:
                if (dotted_name(small.value.func) or "").endswith("optional_import"):
                    names = [string_value(small.value.args[0].value) or ""]
            if any(name.split(".")[0] in _TENSORRT_MODULES for name in names):
                return True
    return False


def cuda_library_names(module: cst.Module) -> set[str]:
    """The local names a module binds to CUDA-only libraries (`import tensorrt as trt` -> trt)."""
    return {local.split(".")[0] for full, local in top_level_imports(module)
            if full.split(".")[0] in _CUDA_LIBRARIES}


def top_level_imports(module: cst.Module) -> list[tuple[str, str]]:
    """(module imported, the local name bound to it) of each `import x` / `import x as y` at the
    module's top level."""
    found: list[tuple[str, str]] = []
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = dotted_name(alias.name) or ""
                    local = dotted_name(alias.asname.name) if alias.asname else full  # type: ignore[arg-type]
                    found.append((full, local or full))
    return found


def loops_over_gpus(iterable: cst.BaseExpression) -> bool:
    """`for i in range(torch.cuda.device_count())`, `for gpu in gpu_ids`: the body runs once per GPU,
    so never where there is none."""
    return mentions_cuda(iterable) and not any(_NEGATIVE_WORD.search(word) for word in identifiers(iterable))


# The collectives of `torch.distributed`: a function that calls one hands its tensors to a process group, NCCL's
# where it runs on GPUs (which takes CUDA tensors only; gloo would take the CPU's)
COLLECTIVES = frozenset({"all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object", "broadcast",
                         "reduce", "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single",
                         "gather", "scatter", "broadcast_object_list", "scatter_object_list", "gather_object",
                         "send", "recv", "isend", "irecv", "batch_isend_irecv"})


def is_collective(name: str, barrier: bool = False) -> bool:
    """`dist.all_reduce`, `torch.distributed.all_gather` (any module alias with `dist` in its name); with
    `barrier`, `dist.barrier` too (it exchanges no tensor, but is distributed code all the same)."""
    owner, _, method = name.rpartition(".")
    return (method in COLLECTIVES or (barrier and method == "barrier")) and "dist" in owner


def calls_a_collective(function: cst.CSTNode, barrier: bool = False) -> bool:
    """Does the code of `function` call a collective (`dist.all_reduce(...)`; with `barrier`, `dist.barrier()` too)?"""
    return any(isinstance(node, cst.Call) and is_collective(dotted_name(node.func) or "", barrier)
               for node in nodes(function))


def is_test_module(path: str) -> bool:
    """A module pytest collects tests from by its name: `test_*.py`, `*_test.py`, `tests.py`."""
    name = os.path.basename(path)
    return name.startswith("test_") or name.endswith("_test.py") or name == "tests.py"


def is_test_code(path: str) -> bool:
    """Code of the project's tests: `test_*.py`, `*_test.py`, a `conftest.py`, or any file under a `tests/` or
    `test/` folder (their helpers and fixtures)."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(part in ("tests", "test") for part in parts[:-1]))


# Context managers whose body is run for what it raises or warns: a call there is made for that, not its value.
_EXPECTED_ERRORS = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})
_EXPECTED_WARNINGS = frozenset({"assertWarns", "assertWarnsRegex", "warns", "deprecated_call"})


def expected_outcome(item: cst.WithItem) -> Optional[str]:
    """"error" for `with pytest.raises(...)` / `with self.assertRaises(...)`, "warning" for `with pytest.warns(...)`
    and its kin: the body is run for that; None for any other context manager."""
    call = item.item
    if not isinstance(call, cst.Call):
        return None
    name = (dotted_name(call.func) or "").rsplit(".", 1)[-1]
    return "error" if name in _EXPECTED_ERRORS else "warning" if name in _EXPECTED_WARNINGS else None


def is_cuda_context(item: cst.BaseExpression) -> bool:
    """`with torch.cuda.device(i):`, `with torch.cuda.stream(s):`, `with cp.cuda.Device(d):`: the body
    runs on a CUDA device (autocast is not one: it only warns without CUDA)."""
    if not isinstance(item, cst.Call):
        return False
    name = dotted_name(item.func) or ""
    parts = name.split(".")
    return "cuda" in parts[:-1] and parts[-1].lower() in ("device", "stream", "graph", "use_mem_pool")


# A test of the torch version or of an API's presence (`is_torch_version(...)`, `_TORCH_GREATER_EQUAL_2_4`,
# `TORCH_GE_2_3`, `hasattr(torch.amp, "GradScaler")`): the old call in its branches is kept for an older torch.
_VERSION_TEST = re.compile(r"version|hasattr|getattr|torch\w*\d|\d_\d", re.IGNORECASE)


def tests_torch_version(test: cst.CSTNode, *, new_api: str = "") -> bool:
    """`test` asks about the torch version or whether an API is there; a mention of `new_api` (`accelerator`)
    is such a question too: the branches keep the old call for a torch without it on purpose."""
    return any(_VERSION_TEST.search(word) or (new_api and new_api in word.lower()) for word in identifiers(test))
