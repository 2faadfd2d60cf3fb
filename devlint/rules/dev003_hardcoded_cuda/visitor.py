"""DEV003 — hard-coded CUDA device: the visitor and its fix."""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from devlint.analysis import portable
from devlint.analysis.devices import DeviceNameTracker, DeviceVariable, names_a_device
from devlint.analysis.edits import shown_code
from devlint.analysis.factories import holds_no_tensor
from devlint.analysis.guards import (
    CUDA_ONLY_CALLS, calls_a_collective, cuda_library_names, cuda_only_reason, is_main_test, is_tensorrt_module, is_test_code,
    is_test_module,
    module_cuda_only_reason, top_level_imports,
)
from devlint.analysis.names import (
    device_backend, dotted_name, has_cuda_method_signature, identifiers, imported_modules, is_cuda_device_expr,
    is_cuda_string, keyword, named_parameters, positional, string_value,
)
from devlint.analysis.screen import walk as walk_ast
from devlint.analysis.types import Kind
from devlint.analysis.vocabulary import TENSOR_VIEWS, TO_HOST_METHODS
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev003_hardcoded_cuda import RULE
from devlint.analysis.cuda_evidence import FileEvidence, evidence_in
from devlint.analysis.walk import children, nodes as _nodes

# Calls whose first argument is a device *type*: "cuda" there needs no CUDA device.
_DEVICE_TYPE_CALLS = ("get_autocast_dtype", "is_autocast_enabled", "autocast", "amp.autocast",
                      "set_autocast_enabled", "get_autocast_gpu_dtype", "amp.GradScaler")
# Tensor methods whose result is not a tensor on the receiver's device (sizes, Python values).
_NOT_TENSOR_RESULTS = {"size", "item", "tolist", "dim", "numel", "data_ptr", "stride", "get_device", "element_size",
                       "is_contiguous", "nelement", "type", "storage", "untyped_storage", "__len__"}
_FROM_HOST = ("tensor", "as_tensor", "from_numpy", "Tensor", "LongTensor", "FloatTensor")


def _names_a_device(name: str) -> bool:
    return names_a_device(name)


def _backend(expr: cst.BaseExpression) -> Optional[str]:
    """The backend a device literal names (`"cuda:0"`, `"mps"`, `"xpu"`, `f"cuda:{i}"`), else None."""
    value = string_value(expr)
    if value is not None:
        return device_backend(value)
    return "cuda" if is_cuda_device_expr(expr) else None


def _is_device_literal(expr: cst.BaseExpression) -> bool:
    """A device string written out (not built at run time): the fix can replace it."""
    value = string_value(expr)
    return value is not None and device_backend(value) is not None


_BACKEND_LABELS = {"cuda": "CUDA", "mps": "MPS", "xpu": "XPU"}


class HardcodedCuda(RuleVisitor, DeviceNameTracker):
    rule = RULE
    needs_torch_import = False  # plainly written torch names are checked in any file

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.pending: list[tuple[cst.CSTNode, str, Optional[Fix], bool]] = []  # node, message, fix, plain torch
        self.scope_of: dict[int, Optional[str]] = {}  # id(pending node) -> the qualified name of its function
        # ids of pending nodes that only preview reports: in a branch whose test devlint cannot read as a
        # guard or not (`if _SUPPORTS_FLEX_ATTENTION:`, `if model_parallel:`), or a parameter's default
        self.preview_only: set[int] = set()
        self.evident: set[int] = set()
        # `opts = {"device": "cuda"}`: reported only if `opts` is later passed to a call (`**opts`, `run_opts=opts`)
        self.option_dicts: dict[str, list[tuple[cst.BaseExpression, DeviceVariable]]] = {}
        self.passed: set[str] = set()  # names passed as `**name` or as a keyword argument's value
        self._cuda_only: dict[int, Optional[str]] = {}  # id(function) -> why it cannot run without CUDA
        self._cuda_libraries: Optional[set[str]] = None
        self._tensorrt_module = False
        self._module_needs_cuda = False
        self._checks_availability: dict[int, bool] = {}
        self._compared: set[int] = set()  # `x.device == torch.device("cuda")`: a comparison places nothing
        self._communicating: dict[int, bool] = {}  # id(function) -> it calls a collective
        self._file_evidence: Optional[FileEvidence] = None
        self._runs_cuda_only_code: Optional[bool] = None

    # -- where CUDA is required anyway ---------------------------------------------------
    def _needs_cuda_anyway(self) -> bool:
        """Guarded here, or in a function that cannot run without CUDA: a literal changes nothing."""
        if self.ctx.cuda_guarded():
            return True
        if self._cuda_libraries is None:
            self._cuda_libraries = cuda_library_names(self.ctx.module)
            self._tensorrt_module = is_tensorrt_module(self.ctx.module)
            # a GPU timing script (`torch.cuda.synchronize()` at its top level), an NCCL job, a CUDA extension
            self._module_needs_cuda = module_cuda_only_reason(self.ctx.module, self.torch, self._cuda_libraries) is not None
        if self._tensorrt_module or self._module_needs_cuda:
            return True
        for function in self.ctx.enclosing_functions():
            key = id(function)
            if key not in self._cuda_only:
                self._cuda_only[key] = cuda_only_reason(function, self.torch, self._cuda_libraries)
            if self._cuda_only[key] is not None:
                return True
        return False

    def _calls_cuda_runtime(self, expr: cst.CSTNode) -> bool:
        stack: list[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call):
                full = self.torch.qualify(node.func) or ""
                if full.startswith("torch.cuda.") and full[len("torch.cuda."):] in CUDA_ONLY_CALLS:
                    return True
            stack.extend(children(node))
        return False

    def _checks_availability_of_its_device(self) -> bool:
        """Does the enclosing class (else the module) test a device together with CUDA's availability
        (`if device.type == "cuda" and not torch.cuda.is_available(): device = cpu`)?"""
        cls = self.ctx.current_class()
        key = id(cls) if cls is not None else 0
        if key not in self._checks_availability:
            # the module's from the screen's `ast`: LibCST may not have parsed every definition
            self._checks_availability[key] = (_tests_device_availability(cls) if cls is not None
                                              else self._module_tests_device_availability())
        return self._checks_availability[key]

    def _module_tests_device_availability(self) -> bool:
        if self.ctx.syntax is None:
            return _tests_device_availability(self.ctx.module)
        for node in walk_ast(self.ctx.syntax.tree):
            if isinstance(node, (ast.If, ast.IfExp)):
                words = {n.id if isinstance(n, ast.Name) else n.attr for n in walk_ast(node.test)
                         if isinstance(n, (ast.Name, ast.Attribute))}
                if "is_available" in words and any(names_a_device(word) for word in words):
                    return True
        return False

    # -- literals ------------------------------------------------------------------------
    def _flag_literal(self, literal: cst.BaseExpression, where: str, plain_torch: bool,
                      defines_device: bool = False, fixable: bool = True, strict: bool = False,
                      device_call: Optional[cst.Call] = None, as_option: bool = False,
                      follows_input: bool = False) -> None:
        backend = _backend(literal)
        if backend is None or self._needs_backend_anyway(backend):
            return
        if not is_cuda_string(literal) and self._calls_cuda_runtime(literal):
            return  # f"cuda:{torch.cuda.current_device()}": the CUDA call fails first, where CUDA is missing
        if defines_device and self._checks_availability_of_its_device():
            return  # `device="cuda"` that the class (or file) falls back from when CUDA is missing
        message = f'hard-coded {_BACKEND_LABELS[backend]} device in {where}; choose the device from what the machine has'
        fix = None
        test = self._test_function()
        if test is not None:
            message = (f'hard-coded {_BACKEND_LABELS[backend]} device in {where}; skip the test where the machine'
                       f' has no {_BACKEND_LABELS[backend]}')
            self._pend((literal, message, self._skip_fix(test, backend), plain_torch))
            return
        if fixable and _is_device_literal(literal):  # a string built at run time (`f"cuda:{i}"`) keeps its index
            # a device-named variable, a default or an option dict keeps a string: code may compare it
            fix = self._literal_fix(literal, self._variable(defines_device, strict, follows_input),
                                    as_string=defines_device or as_option, device_call=device_call)
        self._pend((literal, message, fix, plain_torch))
        if not _is_device_literal(literal) or (defines_device and self._overridable_setting()):
            # `f"cuda:{k}"` over a device map addresses one GPU of several: multi-GPU by design; a module-level
            # `device = "cuda"` that the script's `exec(open("configurator.py").read())` may replace is a default
            self.preview_only.add(id(literal))

    def _overridable_setting(self) -> bool:
        """At the top level of a module that runs code over its own names (`exec(...)` there, `globals().update`):
        what it assigns first is a setting's default, as a parameter's default is."""
        return (self.ctx.current_function() is None and self.ctx.current_class() is None
                and self._evidence().rebinds_its_names)

    def _needs_backend_anyway(self, backend: str) -> bool:
        if backend == "cuda":
            return self._needs_cuda_anyway()
        return self.ctx.backend_guarded(backend)

    def _variable(self, defines_device: bool, strict: bool, follows_input: bool = False) -> DeviceVariable:
        # Where the literal *defines* the device (`device = "cuda"`, a default), the file's device
        # variable cannot be used: it is the thing being defined. `follows_input`: a tensor made or
        # moved here (`device=`, `.to(...)`) may follow the function's one tensor input instead.
        if defines_device:
            return DeviceVariable()
        found = self.device_variable(strict=strict)
        if found.name is None and not found.blocked and follows_input:
            tensor = self._tensor_input()
            if tensor is not None:
                return DeviceVariable(f"{tensor}.device")  # the value follows the function's tensor
        return found

    def _tensor_input(self) -> Optional[str]:
        """The one parameter of the enclosing function shown to be a tensor (none, or several: None).
        A parameter with a default may be given none (`condition=None`): it does not count."""
        function = self.ctx.current_function()
        if function is None:
            return None
        functions, cls = self.ctx.enclosing_functions(), self.ctx.current_class()
        narrowed = self.ctx.types.narrowed_kinds(self.ctx.narrowed())
        params = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
        tensors = [param.name.value for param in params if param.name.value not in ("self", "cls")
                   and self.ctx.types.kind_of(param.name, functions, cls, narrowed) is Kind.TENSOR]
        if len(tensors) != 1 or any(p.default is not None for p in params if p.name.value == tensors[0]):
            return None
        return tensors[0]

    def _literal_fix(self, literal: cst.BaseExpression, variable: DeviceVariable, as_string: bool = False,
                     device_call: Optional[cst.Call] = None) -> Optional[Fix]:
        """The literal replaced by the file's device variable, else by the machine's device chosen as
        the target torch allows (`as_string`: where the literal's value is kept as a string, as a
        string). `device_call` is the `torch.device(literal)` around it, replaced whole by a device."""
        if variable.blocked:
            return None  # a device-named variable that is not shown to hold a device: do not guess
        node: cst.CSTNode = literal
        if variable.name is not None:
            replacement: cst.BaseExpression = cst.parse_expression(variable.name)
        else:
            fallback = self._fallback(literal, as_string)
            if fallback is None:
                return None
            replacement, is_device = fallback
            if is_device and device_call is not None:
                node = device_call  # `torch.device(torch.device(...))` would be the same device, said twice
        return Fix(Applicability.UNSAFE, shown_code("Use the available device", replacement), {node: replacement},
                   needs_torch_import=variable.name is None and self.torch.torch_module_name() is None)

    def _fallback(self, literal: cst.BaseExpression, as_string: bool = False
                  ) -> Optional[tuple[cst.BaseExpression, bool]]:
        """The machine's accelerator, else the CPU, written for the target torch version, and whether
        it is a `torch.device` (else a string). From torch 2.6 `torch.accelerator` picks whatever the
        machine has; before, only the backend the literal named can be asked for. An indexed literal
        (`"cuda:1"`) keeps its index, so it keeps its backend's own check. No fix for `"xpu"` before
        2.6: `torch.xpu` is not in every torch the target allows."""
        torch_name = self.torch.torch_module_name() or "torch"
        text = literal.value if isinstance(literal, cst.SimpleString) else '"cuda"'
        quote = text[-1] if text[-1] in "'\"" else '"'
        value = string_value(literal) if isinstance(literal, cst.SimpleString) else "cuda"
        backend, _, index = (value or "cuda").strip().partition(":")
        target = self.ctx.target_torch
        if index or not portable.has(target, portable.ACCELERATOR):
            if backend == "xpu":
                return None
            check = portable.availability(torch_name, backend)
            return cst.parse_expression(f"{text} if {check} else {quote}cpu{quote}"), False
        choice = (portable.accelerator_type if as_string else portable.accelerator_choice)(torch_name, target, quote)
        assert choice is not None  # (the target has torch.accelerator)
        return cst.parse_expression(choice), not as_string

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._compared.update(id(operand) for operand in (node.left, *(c.comparator for c in node.comparisons)))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in ("type", "index"):
            self._compared.add(id(node.value))  # `torch.device("cuda").type`: a name to compare, nothing placed

    def visit_Call(self, node: cst.Call) -> None:
        plain_torch = (dotted_name(node.func) or "").startswith("torch.")
        if self.torch.is_call_to(node, "device") and id(node) not in self._compared:
            args = positional(node)
            if args:
                # `torch.device("cuda", i)`: a CPU device takes no index, so no fix keeps it working
                self._flag_literal(args[0].value, "`torch.device(...)`", plain_torch,
                                   fixable=len(node.args) == 1, device_call=node)
        for name in ("device", "map_location"):
            arg = keyword(node, name)
            if arg is not None:
                self._flag_literal(arg.value, f"`{name}=`", plain_torch, strict=name == "map_location",
                                   follows_input=name == "device")
        for arg in node.args:
            if isinstance(arg.value, cst.Dict):
                # `f(**{"device": "cuda"})`, `Model.load(run_opts={"device": "cuda"})`
                where = "device options passed as `**`" if arg.star == "**" else "the device options passed"
                for literal, key in _device_options(arg.value):
                    self._flag_literal(literal, where, False, strict=key == "map_location", as_option=True)
            elif arg.star == "**" or (arg.keyword is not None and not arg.star):
                name = dotted_name(arg.value)
                if name is not None:
                    self.passed.add(name)
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method == "to":
                args = positional(node)
                if args:
                    self._flag_literal(args[0].value, "`.to(...)`", False, follows_input=True)
            elif method == "cuda" and self.ctx.torch.imports_torch:
                if dotted_name(node.func.value) in ("torch", self.torch.torch_module_name()):
                    return  # torch.cuda is a module, not a move
                if not has_cuda_method_signature(node):
                    return  # e.g. a quantizer's own `.cuda(qtensor, meta=...)`
                args = positional(node)
                if args and names_a_device(dotted_name(args[0].value) or ""):
                    return  # `.cuda(device)`: a device the caller chose, not one written here
                if holds_no_tensor(node.func.value, self.torch):
                    return  # `nn.CrossEntropyLoss().cuda()`: nothing to move, so nothing needs CUDA
                source = self._input_device_source(node.func.value)
                if source is not None:
                    self._pend((node, f"`.cuda()` sends a value computed from `{source}` to the default"
                                         f" GPU, not back to `{source}.device`: wrong on a second GPU and for CPU"
                                         f" inputs on a GPU machine; use `.to({source}.device)`",
                                         self._move_fix(node, DeviceVariable(f"{source}.device")), False),
                               evident=True)
                    return
                if self._needs_cuda_anyway():
                    return
                test = self._test_function()
                if test is not None:
                    self._pend((node, "`.cuda()` hard-codes CUDA; skip the test where the machine has no"
                                         " CUDA", self._skip_fix(test, "cuda"), False))
                    return
                self._pend((node, "`.cuda()` hard-codes CUDA; move to the chosen device with"
                                     " `.to(device)`", self._cuda_call_fix(node), False))

    # -- tests: the fix is a skip marker -----------------------------------------------------
    def _test_function(self) -> Optional[cst.FunctionDef]:
        """The test function (`test_*` in a test file or a `Test*` class) the node is in, if any."""
        functions = self.ctx.enclosing_functions()
        if not functions:
            return None
        outermost = functions[-1]
        if not outermost.name.value.startswith("test"):
            return None
        cls = self.ctx.current_class()
        if is_test_module(self.ctx.path) or (cls is not None and cls.name.value.startswith("Test")):
            return outermost
        return None

    def _skip_fix(self, test: cst.FunctionDef, backend: str) -> Optional[Fix]:
        """`@pytest.mark.skipif(not <available>, reason=...)` (a `unittest.TestCase` method:
        `@unittest.skipIf(...)`) on the test: it needs the backend, so it is skipped where there is
        none, never run on the CPU instead. No fix where the file imports neither, or for `"xpu"`."""
        if backend == "xpu":
            return None
        torch_name = self.torch.torch_module_name() or "torch"
        check = f"not {portable.availability(torch_name, backend)}"
        label = _BACKEND_LABELS[backend]
        cls = self.ctx.current_class()
        unittest_name = _imported_as(self.ctx.module, "unittest")
        pytest_name = _imported_as(self.ctx.module, "pytest")
        if cls is not None and unittest_name is not None and any(
                (dotted_name(base.value) or "").endswith("TestCase") for base in cls.bases):
            marker = f'{unittest_name}.skipIf({check}, "needs {label}")'
        elif pytest_name is not None:
            marker = f'{pytest_name}.mark.skipif({check}, reason="needs {label}")'
        else:
            return None
        decorator = cst.Decorator(cst.parse_expression(marker))
        new = test.with_changes(decorators=[*test.decorators, decorator])
        return Fix(Applicability.UNSAFE, f"Skip the test without {label}: `@{marker}`", {test: new},
                   needs_torch_import=self.torch.torch_module_name() is None)

    def _cuda_call_fix(self, node: cst.Call) -> Optional[Fix]:
        if positional(node) or keyword(node, "device") is not None:
            return None  # `.cuda(rank)`: an explicit device index is the author's choice
        return self._move_fix(node, self.device_variable())

    def _move_fix(self, node: cst.Call, variable: DeviceVariable) -> Optional[Fix]:
        """`.cuda(...)` -> `.to(target, ...)`, keeping `non_blocking=` and `memory_format=` where they were."""
        if variable.blocked or positional(node) or keyword(node, "device") is not None:
            return None
        if variable.name is not None:
            target: cst.BaseExpression = cst.parse_expression(variable.name)
        else:
            fallback = self._fallback(cst.SimpleString('"cuda"'))
            assert fallback is not None  # (CUDA always has one)
            target = fallback[0]
        func = node.func
        assert isinstance(func, cst.Attribute)
        first = cst.Arg(target)
        if node.args:
            first = first.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        new = node.with_changes(func=func.with_changes(attr=cst.Name("to")), args=[first, *node.args])
        return Fix(Applicability.UNSAFE, shown_code("Move to the available device", new), {node: new},
                   needs_torch_import=variable.name is None and self.torch.torch_module_name() is None)

    # -- `.cuda()` of a value the function computed from its input --------------------------
    def _input_device_source(self, receiver: cst.BaseExpression) -> Optional[str]:
        """The tensor parameter `x` when `receiver` was computed from `x` and taken off its device on
        the way (`x.cpu().cumsum(0)`, `cost` after `cost = torch.cdist(x, y).cpu()`): `.cuda()` then
        sends it to the default GPU, where `x` may not be."""
        function = self.ctx.current_function()
        if function is None:
            return None
        params = set(named_parameters(function)) - {"self", "cls"}
        found = self._derivation(receiver, function, params, 0)
        if found is None or not found[1]:
            return None
        name = found[0]
        kind = self.ctx.types.kind_of(cst.Name(name), self.ctx.enclosing_functions(), self.ctx.current_class(),
                                      self.ctx.types.narrowed_kinds(self.ctx.narrowed()))
        return name if kind is Kind.TENSOR else None

    def _derivation(self, expr: cst.BaseExpression, function: cst.FunctionDef, params: set[str],
                    depth: int, names: Optional[dict[tuple[str, int], Optional[tuple[str, bool]]]] = None,
                    ) -> Optional[tuple[str, bool]]:
        """(the parameter `expr` is computed from by tensor operations, whether it went to the host). `names`:
        what each name was found to be at each depth in this search, so that names bound from each other
        (`a = b`, `b = a`, each bound several times) are read once per depth, not once per path."""
        if depth > 8:
            return None
        if names is None:
            names = {}
        if isinstance(expr, cst.Name):
            if expr.value in params:
                return (expr.value, False) if depth else None  # `x.cuda()` itself moves the input
            if (expr.value, depth) not in names:
                names[expr.value, depth] = self._name_derivation(expr.value, function, params, depth, names)
            return names[expr.value, depth]
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in TENSOR_VIEWS:
                return self._derivation(expr.value, function, params, depth + 1, names)
            return None
        if isinstance(expr, cst.Subscript):
            return self._derivation(expr.value, function, params, depth + 1, names)
        if isinstance(expr, cst.BinaryOperation):
            return (self._derivation(expr.left, function, params, depth + 1, names)
                    or self._derivation(expr.right, function, params, depth + 1, names))
        if isinstance(expr, cst.Call):
            if isinstance(expr.func, cst.Attribute) and self.torch.qualify(expr.func) is None:
                method = expr.func.attr.value
                if method in _NOT_TENSOR_RESULTS or method in ("cuda", "to"):
                    return None
                found = self._derivation(expr.func.value, function, params, depth + 1, names)
                if found is None:
                    return None
                return found[0], found[1] or method in TO_HOST_METHODS
            full = self.torch.qualify(expr.func) or ""
            args = positional(expr)
            if full.startswith("torch.") and args and not full.startswith("torch.cuda"):
                found = self._derivation(args[0].value, function, params, depth + 1, names)
                if found is None:
                    return None
                return found[0], found[1] or full[6:] in _FROM_HOST and _went_through_numpy(args[0].value)
        return None

    def _name_derivation(self, name: str, function: cst.FunctionDef, params: set[str], depth: int,
                         names: dict[tuple[str, int], Optional[tuple[str, bool]]]) -> Optional[tuple[str, bool]]:
        """`_derivation` of a local name that is not a parameter: the same for every one of its bindings."""
        bindings = self.ctx.types.scope_index(function).bindings.get(name, [])
        if not bindings or any(how != "value" for how, _ in bindings):
            return None
        # `cost = cost.cuda()` moves the name itself: the other bindings say what it holds
        values = [value for _, value in bindings if not _moves_itself(value, name)]
        found = [self._derivation(value, function, params, depth + 1, names) for value in values]  # type: ignore[arg-type]
        if not found or any(f is None or f[0] != found[0][0] for f in found):  # type: ignore[index]
            return None
        return found[0][0], all(f[1] for f in found)  # type: ignore[index]

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        if isinstance(node.value, (cst.Dict, cst.Call)) and len(node.targets) == 1 and not self._needs_cuda_anyway():
            name = dotted_name(node.targets[0].target)
            options = _device_options(node.value) if isinstance(node.value, cst.Dict) else []
            if name is not None and options:
                self.option_dicts.setdefault(name, []).extend(
                    (literal, self._variable(False, key == "map_location")) for literal, key in options)
        for target in node.targets:
            name = dotted_name(target.target)
            if name is not None and _names_a_device(name):
                self._flag_literal(node.value, f"the assignment to `{name}`", False, True)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        super().visit_AnnAssign(node)
        name = dotted_name(node.target)
        if node.value is not None and name is not None and _names_a_device(name):
            self._flag_literal(node.value, f"the assignment to `{name}`", False, True)

    def _pend(self, report: tuple[cst.CSTNode, str, Optional[Fix], bool], evident: bool = False) -> None:
        """A report for `finish`. `evident`: it needs no evidence from the rest of the file (`.cuda()` of a value
        computed from the function's input goes to the default GPU, not to the input's device)."""
        if self.ctx.expects("error"):
            return  # `with pytest.raises(TypeError): model.cuda()`: run for its error, on any machine
        self.pending.append(report)
        self.scope_of[id(report[0])] = self._qualified_function()
        if is_test_code(self.ctx.path):
            # a test that needs CUDA is skipped without it in ways its file need not show (a `conftest.py` hook, a
            # fixture or helper that calls `pytest.skip`, a marker, the CI job): blind readers labelled such
            # reports false or harmless 70 of 80 times
            self.preview_only.add(id(report[0]))
        elif evident:
            self.evident.add(id(report[0]))
        elif self._in_unread_branch() or self._communicates():
            self.preview_only.add(id(report[0]))

    def _communicates(self) -> bool:
        """The function calls a collective (`dist.all_reduce`, `dist.all_gather`): its tensors go to NCCL, which
        takes CUDA tensors only; blind readers read such helpers as CUDA-only by design (gloo would take the CPU's)."""
        function = self.ctx.current_function()
        if function is None:
            return False
        if id(function) not in self._communicating:
            self._communicating[id(function)] = calls_a_collective(function)
        return self._communicating[id(function)]

    def _qualified_function(self) -> Optional[str]:
        """`Net.forward` for code in that method (what the file's evidence is keyed by); None outside functions."""
        if self.ctx.current_function() is None:
            return None
        return ".".join(frame.node.name.value for frame in self.ctx.frames
                        if isinstance(frame.node, (cst.FunctionDef, cst.ClassDef)))

    def _in_unread_branch(self) -> bool:
        """Inside an `if` or `x if c else y` branch (not `if __name__ == "__main__":`), or after an early exit: the
        test may be what makes CUDA present, through a value devlint does not see."""
        # (after an early exit on such a test too: `if not dist_initialized(): return`)
        return any(not is_main_test(test) for test, _ in self.ctx.branches) or any(
            frame.exits for frame in self.ctx.frames)

    def visit_Param(self, node: cst.Param) -> None:
        if node.default is not None:
            self.preview_only.update(id(found) for found in _nodes(node.default))
        if node.default is None or not _names_a_device(node.name.value) or not _is_device_literal(node.default):
            return
        if not self.preview:
            return  # a default the callers may always override: in preview (blind on fresh: 46 reports, 0 true)
        function = self.ctx.current_function()
        if function is not None and self._never_places_data(function, node.name.value):
            return  # `def get_autocast_dtype(device="cuda")`: a device type, which needs no CUDA; or unused
        if function is not None and self._every_caller_overrides(function, node):
            return  # the default never runs: every call in the project passes its own device
        self._flag_literal(node.default, f"the default of `{node.name.value}`", False, True)

    def _every_caller_overrides(self, function: cst.FunctionDef, param: cst.Param) -> bool:
        """The function is the project's own (private: `_helper`, a method of `_Private`, a function
        nested in another; a public one has callers outside the project, who get the default), the
        project calls it (a class's `__init__`: the class) at least once, and every call passes `param`
        a value: by its keyword, or by position. A call with `*args`/`**kwargs` is not shown to pass it."""
        name = function.name.value
        cls = self.ctx.current_class()
        is_method = cls is not None and self.ctx.method_name() == name
        nested = len(self.ctx.enclosing_functions()) > 1
        if name == "__init__":
            if not is_method:
                return False
            name = cls.name.value  # type: ignore[union-attr]
        private = (name.startswith("_") and not name.startswith("__")) or (
            is_method and cls.name.value.startswith("_"))  # type: ignore[union-attr]
        if not (private or nested):
            return False
        params = function.params
        ordered = [*params.posonly_params, *params.params]
        if param in params.kwonly_params:
            position: Optional[int] = None
        elif param in ordered:
            position = ordered.index(param)
            if is_method and ordered[0].name.value in ("self", "cls"):
                position -= 1
        else:
            return False
        shapes = self.ctx.project.calls_of(name)
        if not shapes:
            return False
        return all(not shape.star and (param.name.value in shape.keywords
                                       or (position is not None and shape.positional > position))
                   for shape in shapes)

    def _never_places_data(self, function: cst.FunctionDef, name: str) -> bool:
        """`name` is never used in `function`, or every use is a device type (autocast and friends,
        `device_type=`, a comparison)."""
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
        return uses == type_uses

    def finish(self) -> None:
        for name, literals in self.option_dicts.items():
            if name in self.passed:
                for literal, variable in literals:
                    label = _BACKEND_LABELS[_backend(literal) or "cuda"]
                    message = (f"hard-coded {label} device in the options `{name}` passed on;"
                               " choose the device from what the machine has")
                    fix = self._literal_fix(literal, variable, as_string=True) if _is_device_literal(literal) else None
                    self._pend((literal, message, fix, False))
        if not self.pending:
            return
        evidence = self._evidence()
        for node, message, fix, plain_torch in self.pending:
            shown = evidence.portable_in(self.scope_of.get(id(node)))
            evident = id(node) in self.evident
            if not self.preview and not evident and (shown is None or id(node) in self.preview_only
                                                     or self._imports_cuda_only_code()):
                continue  # not shown to be meant to run without CUDA, or shown to be CUDA-only: preview's
            if self.ctx.torch.imports_torch or plain_torch:
                if shown is not None and not evident:
                    message = f"{message} (this file {shown.says} at line {shown.line})"
                self.report(node, message, fix)

    def _imports_cuda_only_code(self) -> bool:
        """The file imports a module of the project that needs CUDA as written (the project index's
        `imports_cuda_only_code`): its pipeline fails without CUDA before this literal matters (idr's scripts call
        `rend_util`, which moves every tensor with `.cuda()`)."""
        if self._runs_cuda_only_code is None:
            path = self.ctx.path
            self._runs_cuda_only_code = path is not None and any(
                self.ctx.project.imports_cuda_only_code(path, module, level)
                for module, level in imported_modules(_nodes(self.ctx.module)))
        return self._runs_cuda_only_code

    def _evidence(self) -> FileEvidence:
        if self._file_evidence is None:  # (read once: without the screen's facts it is a parse of the file)
            self._file_evidence = evidence_in(self.ctx.syntax, self.ctx.module.code)
        return self._file_evidence


def _imported_as(module: cst.Module, name: str) -> Optional[str]:
    """The local name of `import name` (`import name as n`) at the module's top level, if any."""
    return next((local for full, local in top_level_imports(module) if full == name), None)


def _device_options(options: cst.Dict) -> list[tuple[cst.BaseExpression, str]]:
    """The CUDA values of `"device"` / `"map_location"` keys of a dict literal, with their keys."""
    return [
        (element.value, string_value(element.key) or "") for element in options.elements
        if isinstance(element, cst.DictElement) and string_value(element.key) in ("device", "map_location")
        and _backend(element.value) is not None
    ]


def _tests_device_availability(scope: cst.CSTNode) -> bool:
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.If, cst.IfExp)):
            words = set(identifiers(node.test))
            if "is_available" in words and any(names_a_device(word) for word in words):
                return True
        stack.extend(children(node))
    return False


def _moves_itself(value: cst.CSTNode, name: str) -> bool:
    """`name.cuda(...)` / `name.to(...)`."""
    return (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in ("cuda", "to") and isinstance(value.func.value, cst.Name)
            and value.func.value.value == name)


def _went_through_numpy(expr: cst.BaseExpression) -> bool:
    """`torch.from_numpy(x.cpu().numpy())`: the argument was taken to the host on the way."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value in TO_HOST_METHODS:
            return True
        expr = expr.func.value
    return False
