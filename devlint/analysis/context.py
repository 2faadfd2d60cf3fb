"""The traversal context every rule reads: where we are, what is guarded, what is imported.

Two visitors keep it: `ContextEnter` runs before every rule's `visit_*` and
`ContextExit` after every rule's `leave_*` (LibCST's batched visitor calls
visitors in list order for both), so a rule always sees the state of the node
it is looking at.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Union

import libcst as cst

from devlint.analysis import guards, narrowing
from devlint.analysis.names import dotted_name
from devlint.analysis.project_index import IndexReads
from devlint.analysis.screen import walk
from devlint.analysis.torch_names import TorchNames

if TYPE_CHECKING:  # pragma: no cover
    from devlint.analysis.classes import ClassTable
    from devlint.analysis.types import TypeOracle
    from devlint.analysis.screen import SyntaxFacts

ScopeNode = Union[cst.Module, cst.ClassDef, cst.FunctionDef]


@dataclass
class Frame:
    """One class or function being traversed."""

    node: ScopeNode
    cuda_only: bool = False  # decorated/named for CUDA, or after an early exit on a CUDA test
    bound: set[str] = field(default_factory=set)  # names assigned by statements already left
    deleted: set[str] = field(default_factory=set)  # names a `del` already left removed (maybe in a branch)
    # `if not isinstance(x, T): return` earlier in this function: `x` is a T from here on
    narrowed: narrowing.Narrowing = field(default_factory=dict)
    # tests of early exits left in this function (`if not torch.backends.mps.is_available(): return`)
    exits: list[cst.BaseExpression] = field(default_factory=list)


@dataclass
class FileContext:
    module: cst.Module
    path: str
    # The torch version fixes write code for, (major, minor); None: unknown, write for every torch >= 2.1
    target_torch: Optional[tuple[int, int]] = None
    # Preview is on (`--preview`): rules may report their preview shapes (RuleVisitor.preview).
    preview: bool = False
    # The project index as this file reads it (every question recorded for the cache key)
    project: IndexReads = field(default_factory=lambda: IndexReads(None))
    torch: TorchNames = field(default_factory=TorchNames)
    frames: list[Frame] = field(default_factory=list)
    guard_depth: int = 0  # inside the branch of an `if` / `x if c else y` that only runs where CUDA is
    device_context_depth: int = 0  # inside `with torch.device(...)`
    # inside `with pytest.raises(...)` (errors) / `with pytest.warns(...)` (warnings): code run for what it raises
    expected: dict[str, int] = field(default_factory=lambda: {"error": 0, "warning": 0})
    sets_default_device: bool = False  # torch.set_default_device(...) somewhere in the file
    narrowings: list[narrowing.Narrowing] = field(default_factory=list)  # one per enclosing `if` body
    # (test, branch) of every enclosing `if` / `x if c else y` branch: True the body, False the else
    branches: list[tuple[cst.BaseExpression, bool]] = field(default_factory=list)
    cuda_tests: dict[int, tuple[bool, bool]] = field(default_factory=dict)  # id(test) -> guarded branches
    availability_flags: set[str] = field(default_factory=set)  # `ok = torch.cuda.is_available()`
    # What the syntax screen read from the text's `ast` (devlint/analysis/screen.py); None when it could not.
    syntax: Optional["SyntaxFacts"] = None
    # Each function's place among the file's functions in the order of the source (the screen's order).
    function_order: dict[cst.FunctionDef, int] = field(default_factory=dict)
    # Where LibCST parsed only some statements (devlint/engine/narrowed_parse.py): the `ast` of what it parsed, to
    # find the screen's answer for each of its functions (`screen_answers`)
    narrowed_tree: Optional[ast.Module] = None
    # Filled lazily by analysis.types; kept here so every rule shares one copy per file.
    cache: dict[object, object] = field(default_factory=dict)

    def screen_answers(self, answers: Optional[list[bool]]) -> Optional[list[bool]]:
        """A screen's answer for each function of the file (`answers`, in the screen's order) as one for each
        function of the tree LibCST parsed, in `function_order`'s order; None where they cannot be matched."""
        if answers is None or self.syntax is None:
            return None
        if self.narrowed_tree is None:
            return answers if len(answers) == len(self.function_order) else None
        parsed = sorted((node.lineno, node.col_offset) for node in walk(self.narrowed_tree)
                        if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef))
        if len(parsed) != len(self.function_order):
            return None
        by_place = {(f.lineno, f.col_offset): answer for f, answer in zip(self.syntax.functions_in_order(), answers)}
        found = [by_place.get(place) for place in parsed]
        return None if None in found else found  # type: ignore[return-value]

    # -- where are we -------------------------------------------------------------
    def current_function(self) -> Optional[cst.FunctionDef]:
        for frame in reversed(self.frames):
            if isinstance(frame.node, cst.FunctionDef):
                return frame.node
        return None

    def current_class(self) -> Optional[cst.ClassDef]:
        """The class whose method (or body) we are in: `self` refers to it."""
        for frame in reversed(self.frames):
            if isinstance(frame.node, cst.ClassDef):
                return frame.node
        return None

    def enclosing_functions(self) -> list[cst.FunctionDef]:
        """Innermost first."""
        return [f.node for f in reversed(self.frames) if isinstance(f.node, cst.FunctionDef)]

    def method_name(self) -> Optional[str]:
        """Name of the outermost function directly inside the innermost class, if any."""
        for i in range(len(self.frames) - 1, 0, -1):
            if isinstance(self.frames[i].node, cst.FunctionDef) and isinstance(self.frames[i - 1].node, cst.ClassDef):
                return self.frames[i].node.name.value
        return None

    # -- guards -------------------------------------------------------------------
    def cuda_guarded(self) -> bool:
        """Only reached where CUDA exists (or where the code says it wants CUDA)."""
        return self.guard_depth > 0 or any(frame.cuda_only for frame in self.frames)

    def backend_guarded(self, backend: str) -> bool:
        """Only reached where `backend` ("cuda", "mps", "xpu") exists. CUDA is tracked on the way (it
        is asked everywhere); the others are read from the enclosing branches when asked."""
        if backend == "cuda":
            return self.cuda_guarded()
        which = guards.BACKENDS[backend]
        if any(guards.guarded_branches(test, self.availability_flags, which)[0 if body else 1]
               for test, body in self.branches):
            return True
        for frame in self.frames:
            if isinstance(frame.node, (cst.FunctionDef, cst.ClassDef)) and (
                    guards.name_mentions_cuda(frame.node.name.value, which)
                    or any(guards.decorator_requires_cuda(d, which) for d in frame.node.decorators)):
                return True
            if any(guards.guarded_branches(test, self.availability_flags, which)[1] for test in frame.exits):
                return True
        return False

    def expects(self, *outcomes: str) -> bool:
        """Inside a `with` whose body is run for one of `outcomes` ("error": `pytest.raises`, "warning":
        `pytest.warns`): what it calls is called for that, not for its value."""
        return any(self.expected[outcome] for outcome in outcomes)

    def device_placed(self) -> bool:
        """Factories here already land on a chosen device (`with torch.device(...)`)."""
        return self.device_context_depth > 0

    def narrowed(self) -> narrowing.Narrowing:
        """Names whose type an enclosing `isinstance` test decides here, with the tested type."""
        result: narrowing.Narrowing = {}
        for frame in self.frames:
            result.update(frame.narrowed)
        for known in self.narrowings:
            result.update(known)
        return result

    def guarded_branches(self, test: cst.BaseExpression) -> tuple[bool, bool]:
        """`guards.guarded_branches(test)`, asked once per test: an `if` is asked on the way into and
        out of its body and its `else`, and scanning a test's names is a hot path."""
        key = id(test)
        answer = self.cuda_tests.get(key)
        if answer is None:
            answer = self.cuda_tests[key] = guards.guarded_branches(test, self.availability_flags)
        return answer

    def loops_over_gpus(self, iterable: cst.BaseExpression) -> bool:
        """`guards.loops_over_gpus`, asked once per loop (on the way into and out of its body)."""
        key = id(iterable)
        answer = self.cuda_tests.get(key)
        if answer is None:
            answer = self.cuda_tests[key] = (guards.loops_over_gpus(iterable), False)
        return answer[0]

    def follows_a_default_device(self) -> bool:
        """Do device-less factories land on a default device here? `torch.set_default_device` in this
        file, or in a conftest.py above it or the project's entry point (the project index: asked only
        when a rule has something to report, as the answer costs a read of the project)."""
        return self.sets_default_device or self.project.default_device_for(self.path)

    @property
    def types(self) -> "TypeOracle":
        """The file's type oracle, built on first use (most files never need it)."""
        oracle = self.cache.get("types")
        if oracle is None:
            from devlint.analysis.types import TypeOracle

            oracle = TypeOracle(self.module, self.torch, self.classes)
            self.cache["types"] = oracle
        return oracle  # type: ignore[return-value]

    @property
    def classes(self) -> "ClassTable":
        """Every class of the file by name, read on first use (the type oracle's and DEV005's)."""
        table = self.cache.get("classes")
        if table is None:
            from devlint.analysis.classes import ClassTable

            table = self.cache["classes"] = ClassTable(self.module, self.torch)
        return table  # type: ignore[return-value]

    def mentions(self, *words: str) -> bool:
        """Does the file's text hold one of `words`? True when the text is not at hand. For a name that code
        reaches only by writing it (`Parameter`, even as `from torch.nn import Parameter as P`), False spares
        a walk for it."""
        source = self.syntax.source if self.syntax is not None else None
        return source is None or any(word in source for word in words)


def _is_device_context(ctx: FileContext, item: cst.WithItem) -> bool:
    return ctx.torch.is_call_to(item.item, "device", "cuda.device")


class ContextEnter(cst.BatchableCSTVisitor):
    """Pushes state; runs before the rules."""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx

    def visit_Module(self, node: cst.Module) -> None:
        self.ctx.frames.append(Frame(node))

    def visit_Import(self, node: cst.Import) -> None:
        self.ctx.torch.record(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.ctx.torch.record(node)
        if type(node.names) is cst.ImportStar and not self.ctx.torch.imports_torch:
            module = dotted_name(node.module) if node.module is not None else ""
            if module is not None and module.partition(".")[0] != "torch" and self.ctx.project.star_brings_torch(
                    self.ctx.path, module, len(node.relative)):
                self.ctx.torch.record_torch_by_star()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        cuda_only = guards.name_mentions_cuda(node.name.value) or any(
            guards.decorator_requires_cuda(d) for d in node.decorators
        )
        self.ctx.frames.append(Frame(node, cuda_only))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        cuda_only = guards.name_mentions_cuda(node.name.value) or any(
            guards.decorator_requires_cuda(d) for d in node.decorators
        )
        self.ctx.frames.append(Frame(node, cuda_only))
        self.ctx.function_order[node] = len(self.ctx.function_order)

    def visit_If_body(self, node: cst.If) -> None:
        if self.ctx.guarded_branches(node.test)[0]:
            self.ctx.guard_depth += 1
        self.ctx.narrowings.append(narrowing.holds_when_true(node.test))
        self.ctx.branches.append((node.test, True))

    def visit_If_orelse(self, node: cst.If) -> None:
        if self.ctx.guarded_branches(node.test)[1]:
            self.ctx.guard_depth += 1
        self.ctx.branches.append((node.test, False))

    def visit_IfExp_body(self, node: cst.IfExp) -> None:
        if self.ctx.guarded_branches(node.test)[0]:
            self.ctx.guard_depth += 1
        self.ctx.branches.append((node.test, True))

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        if self.ctx.guarded_branches(node.test)[1]:
            self.ctx.guard_depth += 1
        self.ctx.branches.append((node.test, False))

    def visit_For_body(self, node: cst.For) -> None:
        if self.ctx.loops_over_gpus(node.iter):
            self.ctx.guard_depth += 1

    def visit_ListComp_elt(self, node: cst.ListComp) -> None:
        self._enter_comprehension(node.for_in)

    def visit_SetComp_elt(self, node: cst.SetComp) -> None:
        self._enter_comprehension(node.for_in)

    def visit_GeneratorExp_elt(self, node: cst.GeneratorExp) -> None:
        self._enter_comprehension(node.for_in)

    def visit_DictComp_value(self, node: cst.DictComp) -> None:
        self._enter_comprehension(node.for_in)

    def _enter_comprehension(self, for_in: cst.CompFor) -> None:
        if _comprehension_loops_over_gpus(self.ctx, for_in):
            self.ctx.guard_depth += 1

    def visit_With_body(self, node: cst.With) -> None:
        for outcome in {guards.expected_outcome(item) for item in node.items} - {None}:
            self.ctx.expected[outcome] += 1  # type: ignore[index]
        if any(_is_device_context(self.ctx, item) for item in node.items):
            self.ctx.device_context_depth += 1
        if any(guards.is_cuda_context(item.item) for item in node.items):
            self.ctx.guard_depth += 1

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.torch.is_call_to(node, "set_default_device"):
            self.ctx.sets_default_device = True


class ContextExit(cst.BatchableCSTVisitor):
    """Pops state; runs after the rules."""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Module(self, original_node: cst.Module) -> None:
        self.ctx.frames.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            if isinstance(target.target, cst.Name):
                self.ctx.frames[-1].bound.add(target.target.value)
                if guards.is_availability_check(original_node.value):
                    self.ctx.availability_flags.add(target.target.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if isinstance(original_node.target, cst.Name) and original_node.value is not None:
            self.ctx.frames[-1].bound.add(original_node.target.value)

    def leave_Del(self, original_node: cst.Del) -> None:
        for name in _deleted_names(original_node.target):
            self.ctx.frames[-1].deleted.add(name)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.ctx.frames.pop()

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.ctx.frames.pop()

    def leave_If_body(self, original_node: cst.If) -> None:
        if self.ctx.guarded_branches(original_node.test)[0]:
            self.ctx.guard_depth -= 1
        self.ctx.narrowings.pop()
        self.ctx.branches.pop()

    def leave_If_orelse(self, original_node: cst.If) -> None:
        if self.ctx.guarded_branches(original_node.test)[1]:
            self.ctx.guard_depth -= 1
        self.ctx.branches.pop()

    def leave_If(self, original_node: cst.If) -> None:
        # `if not torch.cuda.is_available(): return` -- what follows in this function needs CUDA.
        if (original_node.orelse is None and self.ctx.guarded_branches(original_node.test)[1]
                and guards.ends_with_exit(original_node.body) and self.ctx.frames):
            self.ctx.frames[-1].cuda_only = True
        # `if not isinstance(x, torch.Tensor): return x` -- `x` is a tensor below.
        if original_node.orelse is None and guards.ends_with_exit(original_node.body) and self.ctx.frames:
            self.ctx.frames[-1].narrowed.update(narrowing.holds_when_false(original_node.test))
            self.ctx.frames[-1].exits.append(original_node.test)

    def leave_IfExp_body(self, original_node: cst.IfExp) -> None:
        if self.ctx.guarded_branches(original_node.test)[0]:
            self.ctx.guard_depth -= 1
        self.ctx.branches.pop()

    def leave_IfExp_orelse(self, original_node: cst.IfExp) -> None:
        if self.ctx.guarded_branches(original_node.test)[1]:
            self.ctx.guard_depth -= 1
        self.ctx.branches.pop()

    def leave_For_body(self, original_node: cst.For) -> None:
        if self.ctx.loops_over_gpus(original_node.iter):
            self.ctx.guard_depth -= 1

    def leave_ListComp_elt(self, original_node: cst.ListComp) -> None:
        self._leave_comprehension(original_node.for_in)

    def leave_SetComp_elt(self, original_node: cst.SetComp) -> None:
        self._leave_comprehension(original_node.for_in)

    def leave_GeneratorExp_elt(self, original_node: cst.GeneratorExp) -> None:
        self._leave_comprehension(original_node.for_in)

    def leave_DictComp_value(self, original_node: cst.DictComp) -> None:
        self._leave_comprehension(original_node.for_in)

    def _leave_comprehension(self, for_in: cst.CompFor) -> None:
        if _comprehension_loops_over_gpus(self.ctx, for_in):
            self.ctx.guard_depth -= 1

    def leave_With_body(self, original_node: cst.With) -> None:
        for outcome in {guards.expected_outcome(item) for item in original_node.items} - {None}:
            self.ctx.expected[outcome] -= 1  # type: ignore[index]
        if any(_is_device_context(self.ctx, item) for item in original_node.items):
            self.ctx.device_context_depth -= 1
        if any(guards.is_cuda_context(item.item) for item in original_node.items):
            self.ctx.guard_depth -= 1


def _comprehension_loops_over_gpus(ctx: FileContext, for_in: Optional[cst.CompFor]) -> bool:
    """`[... for i in range(torch.cuda.device_count())]`: the element is made once per GPU."""
    while for_in is not None:
        if ctx.loops_over_gpus(for_in.iter):
            return True
        for_in = for_in.inner_for_in
    return False


def _deleted_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _deleted_names(element.value)]
    return []
