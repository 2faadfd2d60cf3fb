"""Evidence of where a file is meant to run, read from its `ast`: is this code shown to be meant to run
without CUDA, and is anything showing it is CUDA-only by design? DEV003 and DEV004 ask it.

A hard-coded `"cuda"` is a bug where the same file otherwise chooses its device (it asks whether CUDA is
there, falls back to the CPU, offers a CPU option, or follows its inputs' devices): one place forgot. It
is the design where the file cannot run without CUDA anyway (a Triton or CUDA-extension module, an NCCL
job, `assert torch.cuda.is_available()`, a `torch.cuda` call outside any test). By default DEV003 reports
only the first case with nothing of the second; where the evidence is split or absent it is silent (the
preview tier still reports). DEV004 leaves alone by default a load in a file bound to CUDA (CUDA-only by design,
or hard-coding CUDA with no sign of running without it): there the checkpoint loads where it was saved. Both
answers come with the line they were read from, for the message.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional

from devlint.analysis.screen import dotted, parse
from devlint.analysis.vocabulary import CUDA_ONLY_CALLS, names_a_device

if TYPE_CHECKING:  # pragma: no cover
    from devlint.analysis.screen import SyntaxFacts

# What checks that a backend is there (the end of the call's dotted name)
_AVAILABILITY = ("cuda.is_available", "mps.is_available", "xpu.is_available", "accelerator.is_available",
                 "accelerator.current_accelerator", "backends.mps.is_built")
# Command-line options that ask for the CPU
_CPU_OPTIONS = frozenset({"--cpu", "--no_cuda", "--no-cuda", "--use_cpu", "--use-cpu", "--no_gpu", "--no-gpu",
                          "--disable_cuda", "--disable-cuda", "--force_cpu", "--force-cpu"})
_CPU_OPTION_ATTRIBUTES = frozenset(option.lstrip("-").replace("-", "_") for option in _CPU_OPTIONS) - {"cpu"}
# Libraries and modules that only run on CUDA: a file that imports one is CUDA-only by design
_CUDA_ONLY_MODULES = ("triton", "cupy", "pycuda", "tensorrt", "torch_tensorrt", "apex", "flash_attn",
                      "torch.utils.cpp_extension", "numba.cuda", "bitsandbytes")
# Calls that only show a value: a check given to them chooses nothing
_DISPLAYS = frozenset({"print", "display", "info", "debug", "warning", "warn", "log", "write", "echo"})
# Test markers given a condition: an availability check there says what the test needs, and chooses nothing
_SKIPS = frozenset({"skipif", "skipIf", "skipUnless", "xfail"})
# Holders of options and configuration: `args.device` is whatever the user passed, not an input's device
_OPTION_HOLDERS = frozenset({"self", "cls", "args", "opt", "opts", "options", "config", "cfg", "conf", "hparams",
                             "params", "hp", "FLAGS", "flags", "settings"})


@dataclass(frozen=True)
class Evidence:
    line: int
    says: str  # what the file does there, as the message words it: "falls back to the CPU"


@dataclass(frozen=True)
class FileEvidence:
    portable: Optional[Evidence]  # the first sign the file is meant to run without CUDA
    cuda_only: Optional[Evidence]  # the first sign it cannot run without CUDA by design
    hard_codes_cuda: bool = False  # a `"cuda"` / `"cuda:N"` string or a `.cuda()` call anywhere
    # functions that follow an input's device (`device=x.device`), by qualified name (`Net.forward`): evidence for
    # their own code only, since a helper that follows its inputs says nothing of the rest of the file
    following: tuple[tuple[str, Evidence], ...] = ()
    # the module runs code over its own names at its top level (nanoGPT's `exec(open("configurator.py").read())`,
    # `globals().update(...)`): what it assigns there first are settings' defaults, as a parameter's default is
    rebinds_its_names: bool = False
    # the first sign of CUDA-only by design other than a `torch.cuda` call (an import, an NCCL group, CUDA
    # asserted): where the file only calls `torch.cuda`, those calls are what DEV012 asks to make device-generic
    designed_for_cuda: Optional[Evidence] = None
    # the first sign of running without CUDA other than an availability check (a CPU fallback or option, another
    # backend's branch): a check alone may only skip CUDA's code where CUDA is missing
    beyond_checks: Optional[Evidence] = None

    @property
    def reports_by_default(self) -> bool:
        """Some code of the file is shown to be meant to run without CUDA, and nothing shows it CUDA-only."""
        return self.cuda_only is None and (self.portable is not None or bool(self.following))

    def portable_in(self, function: Optional[str]) -> Optional[Evidence]:
        """The sign that the code of `function` (a qualified name; None: the module's top level) is meant to run
        without CUDA: the file's, else the function's own; None where the file is CUDA-only by design."""
        if self.cuda_only is not None:
            return None
        if self.portable is not None:
            return self.portable
        return next((evidence for name, evidence in self.following if name == function), None)

    @property
    def bound_to_cuda(self) -> bool:
        """CUDA-only by design, or CUDA written in with no sign of running without it."""
        return self.cuda_only is not None or (self.hard_codes_cuda and self.portable is None)


def evidence_of(facts: "SyntaxFacts") -> FileEvidence:
    """The file's evidence, read once for every screen and visitor that asks (kept on the screen's facts)."""
    found = facts.memo.get(file_evidence)
    if found is None:
        found = facts.memo[file_evidence] = file_evidence(facts.tree)
    return found  # type: ignore[return-value]


def evidence_in(facts: "Optional[SyntaxFacts]", code: str) -> FileEvidence:
    """`evidence_of(facts)`, or of `code` where no screen read the file."""
    if facts is not None:
        return evidence_of(facts)
    tree = parse(code)
    return file_evidence(tree) if tree is not None else FileEvidence(None, None)


def file_evidence(tree: ast.Module) -> FileEvidence:
    portable: list[Evidence] = []
    cuda_only: list[Evidence] = []
    cuda_calls: list[Evidence] = []  # the `torch.cuda` calls among `cuda_only`
    checks: list[Evidence] = []  # the availability checks among `portable`
    following: dict[str, Evidence] = {}  # a function's qualified name -> the first sign it follows an input
    hard_codes = False
    features: set[int] = set()  # `torch.cuda.is_available() and flash_attention`: a feature asked for, not a device
    shown: set[int] = set()  # values only displayed (a notebook cell's bare check, `print(...)`): nothing chosen
    type_tests: set[int] = set()  # `isinstance(x, torch.cuda.FloatTensor)`: a question, which needs no CUDA
    for node, tested, asserted, function, qualified in _nodes(tree):
        kind = type(node)
        if kind is ast.BoolOp and isinstance(node.op, ast.And):  # type: ignore[attr-defined]
            features.update(id(value) for value in node.values)  # type: ignore[attr-defined]
        elif kind is ast.Expr:
            shown.add(id(node.value))  # type: ignore[attr-defined]
        elif kind is ast.FormattedValue:
            shown.add(id(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Constant and isinstance(node.value, str) and (  # type: ignore[attr-defined]
                node.value == "cuda" or node.value.startswith("cuda:")):  # type: ignore[attr-defined]
            hard_codes = True
        if kind is ast.Call:
            name = _dotted(node.func) or ""
            if name in ("isinstance", "issubclass"):
                type_tests.update(id(arg) for arg in node.args)  # type: ignore[attr-defined]
            if name.rsplit(".", 1)[-1] in _DISPLAYS:
                shown.update(id(arg) for arg in node.args)  # type: ignore[attr-defined]
            elif name.rsplit(".", 1)[-1] in _SKIPS:  # `skipif(not torch.cuda.is_available())`: what a test needs
                shown.update(id(inner) for arg in node.args for inner in ast.walk(arg))  # type: ignore[attr-defined]
            if isinstance(node.func, ast.Attribute) and node.func.attr == "cuda":  # type: ignore[attr-defined]
                hard_codes = True
            if name.endswith(_AVAILABILITY) or name.startswith("torch.accelerator."):
                if id(node) in features or id(node) in shown:
                    pass
                elif asserted:
                    cuda_only.append(Evidence(node.lineno, f"asserts `{name}()`"))
                else:
                    checks.append(Evidence(node.lineno, f"checks `{name}()`"))
                    portable.append(checks[-1])
            elif _cuda_only_call(name) and not tested:
                cuda_calls.append(Evidence(node.lineno, f"calls `{name}()` unconditionally"))
                cuda_only.append(cuda_calls[-1])
            elif name.endswith("add_argument"):
                option = _cpu_option(node)
                if option is not None:
                    portable.append(Evidence(node.lineno, f"offers a CPU option (`{option}`)"))
            elif name.endswith("init_process_group") and _backend_is_nccl(node):
                cuda_only.append(Evidence(node.lineno, "starts an NCCL process group"))
            elif name.endswith(("load_inline", "CUDAExtension")):
                cuda_only.append(Evidence(node.lineno, f"builds a CUDA extension (`{name}`)"))
            elif name.endswith(("set_default_tensor_type", "set_default_device")) and any(
                    "cuda" in ast.unparse(arg) for arg in node.args):  # type: ignore[attr-defined]
                cuda_only.append(Evidence(node.lineno, f"makes CUDA the default (`{name}`)"))
            follows = _follows_an_input(node, _parameters(function))
            if follows is not None and qualified is not None and qualified not in following:
                following[qualified] = Evidence(node.lineno, f"follows its inputs' device (`{follows}`)")
        elif kind is ast.IfExp and (_is_cpu(node.body) or _is_cpu(node.orelse)):
            portable.append(Evidence(node.lineno, "falls back to the CPU"))
        elif kind in (ast.Assign, ast.AnnAssign):
            targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
            if node.value is not None and _is_cpu(node.value) and any(  # type: ignore[attr-defined]
                    names_a_device(_dotted(target) or "") for target in targets):
                portable.append(Evidence(node.lineno, "sets its device to the CPU"))
        elif kind is ast.arguments:
            for arg, default in _defaults(node):  # type: ignore[arg-type]
                if names_a_device(arg.arg) and _is_cpu(default):
                    portable.append(Evidence(default.lineno, f"defaults `{arg.arg}` to the CPU"))
        elif kind is ast.Attribute and node.attr in _CPU_OPTION_ATTRIBUTES:  # type: ignore[attr-defined]
            portable.append(Evidence(node.lineno, f"reads a CPU option (`{node.attr}`)"))  # type: ignore[attr-defined]
        elif kind is ast.Attribute and not tested and id(node) not in type_tests and _LEGACY_CUDA_TYPE.match(
                _dotted(node) or ""):
            cuda_only.append(Evidence(node.lineno, f"uses `{_dotted(node)}` unconditionally"))
        elif kind in (ast.Import, ast.ImportFrom):
            module = _imported_cuda_only(node)  # type: ignore[arg-type]
            if module is not None:
                cuda_only.append(Evidence(node.lineno, f"imports `{module}`"))
    rebinds = any(isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                  and _rebinds_globals(statement.value) for statement in tree.body)
    calls, checked = {id(evidence) for evidence in cuda_calls}, {id(evidence) for evidence in checks}
    designed = [evidence for evidence in cuda_only if id(evidence) not in calls]
    beyond = [evidence for evidence in portable if id(evidence) not in checked]
    return FileEvidence(min(portable, key=_line, default=None), min(cuda_only, key=_line, default=None), hard_codes,
                        tuple(following.items()), rebinds, min(designed, key=_line, default=None),
                        min(beyond, key=_line, default=None))


def _rebinds_globals(call: ast.Call) -> bool:
    """`exec(...)` or `globals().update(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "exec"
    return (isinstance(func, ast.Attribute) and func.attr == "update" and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "globals")


def _line(evidence: Evidence) -> int:
    return evidence.line


_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Walked = tuple[ast.AST, bool, bool, Optional[_Function], Optional[str]]
# The legacy CUDA tensor types (`torch.cuda.FloatTensor`): made or used, they need CUDA
_LEGACY_CUDA_TYPE = re.compile(r"^torch\.cuda\.[A-Z][A-Za-z]*Tensor$")


def _nodes(tree: ast.AST) -> Iterator[_Walked]:
    """Every node, whether it is inside a test (an `if`, `while`, `x if c else y`, `try` or a boolean
    operation: it may not run), whether inside an `assert` or the body of an `if not ...:` that raises
    or exits (what it checks is required), the function it is in (the innermost) and the qualified name of the
    scope it is in (`Net.forward`; None: the module's top level)."""
    stack: list[_Walked] = [(tree, False, False, None, None)]
    chained: set[int] = set()  # the `if` nodes that are an `elif`
    while stack:
        node, tested, asserted, function, qualified = stack.pop()
        yield node, tested, asserted, function, qualified
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qualified = f"{qualified}.{node.name}" if qualified else node.name
            if not isinstance(node, ast.ClassDef):
                function = node
        if isinstance(node, ast.Assert):
            stack.extend((child, tested, True, function, qualified) for child in ast.iter_child_nodes(node))
            continue
        if isinstance(node, ast.If):
            required = _refuses_otherwise(node, id(node) in chained)
            if _has_elif(node):
                chained.add(id(node.orelse[0]))
            stack.append((node.test, True, asserted or required, function, qualified))
            stack.extend((child, True, asserted, function, qualified) for child in (*node.body, *node.orelse))
            continue
        inner = tested or isinstance(node, (ast.While, ast.IfExp, ast.Try, ast.BoolOp, ast.ExceptHandler))
        stack.extend((child, inner, asserted, function, qualified) for child in ast.iter_child_nodes(node))


def _parameters(function: Optional[_Function]) -> frozenset[str]:
    if function is None:
        return frozenset()
    arguments = function.args
    return frozenset(arg.arg for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))


def _refuses_otherwise(node: ast.If, chained: bool) -> bool:
    """`if not torch.cuda.is_available(): raise ...`, or `if torch.cuda.is_available(): ... else: raise ...` (LoFTR's
    demo: "GPU is required"), the refusal a `raise`, `sys.exit(...)`, `pytest.skip(...)` or `self.skipTest(...)`:
    the file requires CUDA. An `elif` chain (`elif mps: ... else: raise`: another backend tried) refuses no one
    backend: `chained`, the `if` is an `elif`, or an `elif` follows it."""
    if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):
        return _ends_the_run(node.body) and not node.orelse
    return not chained and not _has_elif(node) and _ends_the_run(node.orelse)


def _has_elif(node: ast.If) -> bool:
    return len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)


def _ends_the_run(body: list[ast.stmt]) -> bool:
    last = body[-1] if body else None
    return isinstance(last, ast.Raise) or (
        isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
        and (_dotted(last.value.func) or "") in _REFUSALS)


# Calls that end a run, or skip the test, where what the `if` checks is missing
_REFUSALS = frozenset({"sys.exit", "exit", "quit", "os._exit", "pytest.skip", "pytest.exit", "self.skipTest",
                       "unittest.skip", "pytest.fail", "self.fail"})


def _cuda_only_call(name: str) -> bool:
    return name.startswith("torch.cuda.") and name[len("torch.cuda."):] in CUDA_ONLY_CALLS


def _cpu_option(call: ast.Call) -> Optional[str]:
    """`--cpu` / `--no_cuda`, or a device option whose default or choices hold the CPU."""
    flags = [arg.value for arg in call.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    for flag in flags:
        if flag in _CPU_OPTIONS:
            return flag
    if any(names_a_device(flag.lstrip("-").replace("-", "_")) for flag in flags):
        for keyword in call.keywords:
            if keyword.arg == "default" and _is_cpu(keyword.value):
                return f"{flags[0]} cpu"
            if keyword.arg == "choices" and isinstance(keyword.value, (ast.List, ast.Tuple, ast.Set)) and any(
                    _is_cpu(element) for element in keyword.value.elts):
                return f"{flags[0]} cpu"
    return None


def _backend_is_nccl(call: ast.Call) -> bool:
    values = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "backend")]
    return any(isinstance(value, ast.Constant) and value.value == "nccl" for value in values)


def _follows_an_input(call: ast.Call, params: frozenset[str]) -> Optional[str]:
    """`device=x.device`, `.to(x.device)`, `torch.zeros(..., device=w.device)` with `x` a parameter of the
    function (`x.weight.device` too): the value goes where an input is."""
    values = [k.value for k in call.keywords if k.arg == "device"]
    if isinstance(call.func, ast.Attribute) and call.func.attr == "to" and call.args:
        values.append(call.args[0])
    for value in values:
        if isinstance(value, ast.Attribute) and value.attr == "device":
            owner = value.value
            root = owner
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(owner, ast.Name) and owner.id in _OPTION_HOLDERS:
                continue  # `self.device`, `args.device`: set elsewhere, maybe to "cuda"
            if isinstance(root, ast.Name) and root.id in params and root.id not in _OPTION_HOLDERS:
                return _dotted(value) or "x.device"
    return None


def _is_cpu(expr: Optional[ast.AST]) -> bool:
    """`"cpu"` or `torch.device("cpu")`."""
    if isinstance(expr, ast.Constant):
        return expr.value == "cpu"
    if isinstance(expr, ast.Call) and (_dotted(expr.func) or "").endswith("device") and expr.args:
        return _is_cpu(expr.args[0])
    return False


def _defaults(arguments: ast.arguments) -> Iterator[tuple[ast.arg, ast.expr]]:
    positional = [*arguments.posonlyargs, *arguments.args]
    yield from zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)
    yield from ((arg, default) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
                if default is not None)


def _imported_cuda_only(node: ast.Import | ast.ImportFrom) -> Optional[str]:
    names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    if isinstance(node, ast.ImportFrom) and node.module == "torch.utils":
        names += [f"torch.utils.{alias.name}" for alias in node.names]
    for name in names:
        if any(name == module or name.startswith(module + ".") for module in _CUDA_ONLY_MODULES):
            return name
    return None


def _dotted(expr: ast.AST) -> Optional[str]:
    """`a.b.c` as "a.b.c"; None when `expr` is not a chain of names."""
    parts = dotted(expr)  # type: ignore[arg-type]
    return ".".join(parts) if parts is not None else None
