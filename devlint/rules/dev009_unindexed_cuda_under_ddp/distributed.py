"""Distributed training in one file: does it set up its rank, does it pin each rank to its GPU, and
which names hold the local rank.

A process of a multi-GPU run finds its GPU only when the code says which: `torch.cuda.set_device`
(then unindexed CUDA means that GPU), or an index on every device. `torchrun` and
`torch.distributed.launch` only set `LOCAL_RANK`; they pin nothing. Frameworks that take over the
launch do pin the device (read in their sources: accelerate's `PartialState.set_device`, Lightning's
`CUDAAccelerator.setup_device`, ignite's native `_setup_attrs`, DeepSpeed's engine), so a file
that imports one of them is taken as pinned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import AbstractSet, Callable, Iterable, Optional

import libcst as cst

from devlint.analysis.forward import ForwardReader, loop_head
from devlint.analysis.guards import is_main_test
from devlint.analysis.names import dotted_name, positional, string_value
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.vocabulary import DEVICE_SETTING_LAUNCHERS
from devlint.analysis.walk import children, nodes, own_nodes_in_order
from devlint.rules.dev009_unindexed_cuda_under_ddp import SETS_UP_DISTRIBUTED

# Calls that pin the process's current device (any receiver: `get_accelerator().set_device(i)` too).
_PINNING_METHODS = frozenset({"set_device", "set_device_index"})
# Another module's function that sets the process's device up, by its name (`get_device`, `setup_device`).
_SETS_A_DEVICE_UP = re.compile(r"_?(get|setup|set_up|init|initialize|select|choose)_(local_)?(device|gpu|cuda)",
                               re.IGNORECASE)
_LOCAL_RANK = "LOCAL_RANK"

# Asked of a call: does the project's function it calls start a process group ("pinned", "unpinned"), pin the rank
# without starting one ("pins"), or neither (None)
GroupHelper = Callable[[cst.Call], Optional[str]]
_STARTS_A_GROUP = ("pinned", "unpinned")
_MAY_PIN = ("pinned", "pins")


def no_group_helper(call: cst.Call) -> Optional[str]:
    return None


@dataclass
class DistributedFile:
    """What a whole module says about distributed training."""

    # init_process_group(...) or reads LOCAL_RANK: the rank is set up here. Wrapping a model in
    # DistributedDataParallel is not enough: libraries wrap in one file and pin the device in another
    # (timm's task classes and its utils/distributed.py, Lightning's DDP strategy and its accelerator).
    starts: bool = False
    pins_device: bool = False  # set_device(...), `with torch.cuda.device(...)`, CUDA_VISIBLE_DEVICES, a launcher
    # pinned before user code runs (a launcher import, CUDA_VISIBLE_DEVICES): no order to read
    pinned_from_the_start: bool = False
    why_started: list[str] = field(default_factory=list)
    backends: list[Optional[str]] = field(default_factory=list)  # each init_process_group's, None: not a literal
    nccl_starts: list[cst.Call] = field(default_factory=list)  # the `init_process_group("nccl")` calls
    helpers: set[str] = field(default_factory=set)  # the names the file imports, other than torch's (`pins`)

    @property
    def every_rank_on_default_gpu(self) -> bool:
        return self.starts and not self.pins_device and not self.gloo_only

    @property
    def gloo_only(self) -> bool:
        """Every process group is started on gloo, named as a literal: a CPU (often single-host) demo,
        where GPU placement is not what the script is about."""
        return bool(self.backends) and all(backend == "gloo" for backend in self.backends)


def distributed_file(module: cst.Module, torch: TorchNames,
                     group_helper: GroupHelper = no_group_helper) -> DistributedFile:
    """Read the whole module (call after the traversal: `torch` then knows every import). `group_helper`: what the
    project index says of a call of the project's own function (`project_group_helper`)."""
    facts = DistributedFile(helpers=_imported_names(module))
    stack: list[cst.CSTNode] = [module]
    written: set[int] = set()
    while stack:
        node = stack.pop()
        written.update(map(id, _written(node)))
        if type(node) is cst.Call:
            _call(node, torch, facts, group_helper)
        elif type(node) in (cst.Import, cst.ImportFrom):
            if _imports_launcher(node):
                facts.pins_device = facts.pinned_from_the_start = True
        elif type(node) is cst.Subscript and id(node) not in written and is_local_rank_read(node):
            facts.starts = True
            facts.why_started.append(_LOCAL_RANK)
        elif type(node) is cst.SimpleString and "CUDA_VISIBLE_DEVICES" in node.value:
            facts.pins_device = facts.pinned_from_the_start = True  # each rank is given one visible GPU
        stack.extend(children(node))
    return facts


def _call(node: cst.Call, torch: TorchNames, facts: DistributedFile, group_helper: GroupHelper) -> None:
    if pins(node, torch, facts.helpers):
        facts.pins_device = True
    if starts_a_group(node, torch):
        facts.starts = True
        facts.why_started.append("init_process_group")
        facts.backends.append(_backend(node))
        if facts.backends[-1] == "nccl":
            facts.nccl_starts.append(node)
    else:
        helper = group_helper(node)
        if helper == "pins":  # the project's `make_data_parallel(model, device)` that calls `set_device`
            facts.pins_device = True
        elif helper is not None:  # the project's `init_distributed_mode(args)`: it starts the group (backend unknown)
            facts.starts = True
            facts.why_started.append(dotted_name(node.func) or "")
            facts.backends.append(None)
            facts.pins_device = facts.pins_device or helper == "pinned"
    if is_local_rank_read(node):
        facts.starts = True
        facts.why_started.append(_LOCAL_RANK)


def project_group_helper(module: cst.Module, torch: TorchNames,
                         ask: Callable[[str, int, str], Optional[str]]) -> GroupHelper:
    """What a call of one of the project's functions says about the process group: `ask(module, level, function)`
    is the project index's `group_helper` for the file. Only functions named as set-up is
    (`SETS_UP_DISTRIBUTED`), imported from a module other than torch, are asked."""
    imports = _top_level_imports(module)
    answers: dict[str, Optional[str]] = {}

    def group_helper(call: cst.Call) -> Optional[str]:
        name = dotted_name(call.func)
        if name is None or torch.qualify(call.func) is not None:
            return None
        parts = name.split(".")
        if parts[0] not in imports:
            return None
        if name not in answers:
            source, level, imported = imports[parts[0]]
            path = [*filter(None, source.split(".")), *([imported] if imported else []), *parts[1:]]
            answers[name] = ask(".".join(path[:-1]), level, path[-1]) if (
                len(path) > 1 or level) and SETS_UP_DISTRIBUTED.search(path[-1]) else None
        return answers[name]
    return group_helper


def _imports(statements: Iterable[cst.CSTNode]) -> dict[str, tuple[str, int, Optional[str]]]:
    """Each name the imports among `statements` bind, other than torch's: (the module it comes from, the dots before
    it, the name imported from it or None). `import a.b` binds `a` to ("a", 0, None); `from .x import y as z` binds
    `z` to ("x", 1, "y")."""
    found: dict[str, tuple[str, int, Optional[str]]] = {}
    for node in statements:
        if type(node) is cst.Import:
            for alias in node.names:
                full = dotted_name(alias.name) or ""
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    found[alias.asname.name.value] = (full, 0, None)
                elif full.split(".")[0] != "torch":
                    found[full.split(".")[0]] = (full.split(".")[0], 0, None)
        elif type(node) is cst.ImportFrom and type(node.names) is not cst.ImportStar:
            source = dotted_name(node.module) if node.module is not None else ""
            if source is None or (source.split(".")[0] == "torch" and not node.relative):
                continue
            for alias in node.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                if type(bound) is cst.Name and type(alias.name) is cst.Name:
                    found[bound.value] = (source, len(node.relative), alias.name.value)
    found.pop("torch", None)  # (`import x as torch`: torch's name, whatever it binds)
    return found


def _top_level_imports(module: cst.Module) -> dict[str, tuple[str, int, Optional[str]]]:
    return _imports(small for statement in module.body if type(statement) is cst.SimpleStatementLine
                    for small in statement.body)


def sets_up_its_rank(module: cst.Module, facts: "DistributedFile", torch: TorchNames) -> bool:
    """The module sets up the process it runs in: it starts a process group itself, has an `if __name__ ==
    "__main__":` block, or reads `LOCAL_RANK` at its top level (not in a function's or a class's body). A library
    module that only reads the rank inside a function is set up by its caller, which may pin the device in another
    file (nanotron's `ParallelContext`, OLMo's entry points)."""
    return bool(facts.backends) or _sets_itself_up(module, torch)  # an `init_process_group` call


def starts_a_group(call: cst.Call, torch: TorchNames) -> bool:
    """`init_process_group(...)`, by any receiver, or by a name imported as another (`as start`)."""
    return ((dotted_name(call.func) or "").rsplit(".", 1)[-1] == "init_process_group"
            or (torch.qualify(call.func) or "").endswith(".init_process_group"))


def functions_its_start_runs(module: cst.Module, torch: TorchNames,
                             group_helper: GroupHelper = no_group_helper) -> Optional[set[str]]:
    """Where a library module starts the process group only inside functions (no top-level start, no `if __name__
    == "__main__":` block, no top-level `LOCAL_RANK` read), the functions that run in a process it set up: those
    that start it, the file's functions that call them (by name, `self.` methods too), and every function of the
    file those call. Another function of such a module (efficientvit's `sync_tensor` beside its `dist_init`) runs
    in a process its caller set up, and may have pinned in its own file. None: the module sets itself up."""
    if _sets_itself_up(module, torch, group_helper):
        return None
    calls: dict[str, set[str]] = {}
    starting: set[str] = set()
    for node in nodes(module):
        if type(node) is not cst.FunctionDef:
            continue
        called = calls.setdefault(node.name.value, set())
        for inner in nodes(node.body):
            if type(inner) is cst.Call:
                name = dotted_name(inner.func) or ""
                last = name.rsplit(".", 1)[-1]
                if starts_a_group(inner, torch) or group_helper(inner) in _STARTS_A_GROUP:
                    starting.add(node.name.value)
                elif name == last or name == f"self.{last}":
                    called.add(last)
    runs = set(starting)
    callers_added = True
    while callers_added:  # the file's functions that (through each other) call a starting one
        more = {name for name, called in calls.items() if called & runs} - runs
        runs |= more
        callers_added = bool(more)
    stack = list(runs)
    while stack:  # and every function of the file those call
        for callee in calls.get(stack.pop(), ()):
            if callee in calls and callee not in runs:
                runs.add(callee)
                stack.append(callee)
    return runs


def _sets_itself_up(module: cst.Module, torch: TorchNames, group_helper: GroupHelper = no_group_helper) -> bool:
    """A start, an `if __name__ == "__main__":` block or a `LOCAL_RANK` read outside every function and class."""
    stack: list[cst.CSTNode] = list(module.body)
    written: set[int] = set()
    while stack:
        node = stack.pop()
        if type(node) in (cst.FunctionDef, cst.ClassDef):
            continue
        written.update(map(id, _written(node)))
        if (type(node) is cst.If and is_main_test(node.test)) or (
                id(node) not in written and is_local_rank_read(node)):  # type: ignore[arg-type]
            return True
        if type(node) is cst.Call and (starts_a_group(node, torch) or group_helper(node) in _STARTS_A_GROUP):
            return True
        stack.extend(children(node))
    return False


def pins(node: cst.Call, torch: TorchNames, helpers: AbstractSet[str] = frozenset()) -> bool:
    """Does this call pin the process to one GPU? `set_device(...)` (any receiver), `torch.cuda.device(...)`,
    `init_process_group(..., device_id=...)` (it binds the group, and its rank, to one device). It may, and is
    taken to: another module's function that sets a device up by its name (`utils.get_device(...)`,
    `setup_device(...)`: `helpers`, the names the file imports, other than torch's), which the file cannot
    show does not call `set_device` (torchtune's `get_device` does)."""
    name = dotted_name(node.func) or ""
    last = name.rsplit(".", 1)[-1]
    full = torch.qualify(node.func) or ""
    if last in _PINNING_METHODS or full in ("torch.cuda.device", "torch.cuda.device_of"):
        return True
    if not full and name.split(".")[0] in helpers and _SETS_A_DEVICE_UP.fullmatch(last):
        return True
    return (last == "init_process_group" or full.endswith(".init_process_group")) and any(
        arg.keyword is not None and arg.keyword.value == "device_id" for arg in node.args)


def _imported_names(module: cst.Module) -> set[str]:
    """The names the file's imports bind, anywhere in it, other than torch's (`utils` of `from torchtune import
    utils`)."""
    return set(_imports(nodes(module)))


def _backend(node: cst.Call) -> Optional[str]:
    """The backend an `init_process_group(...)` names as a literal (`"nccl"`, `backend="gloo"`), else None."""
    for arg in node.args:
        if (arg.keyword is None and arg is node.args[0]) or (arg.keyword is not None and arg.keyword.value == "backend"):
            return string_value(arg.value)
    return None


def _imports_launcher(node: cst.Import | cst.ImportFrom) -> bool:
    if isinstance(node, cst.Import):
        names = [dotted_name(alias.name) or "" for alias in node.names]
    else:
        if node.relative or node.module is None:
            return False
        names = [dotted_name(node.module) or ""]
    return any(name.split(".", 1)[0] in DEVICE_SETTING_LAUNCHERS for name in names)


def _written(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """What an assignment or a `del` writes. `os.environ["LOCAL_RANK"] = str(args.local_rank)` hands the rank to
    whatever reads it (mmcv's `init_dist`, a launcher's helper): the set-up is theirs, not this file's."""
    if type(node) in (cst.AssignTarget, cst.AnnAssign, cst.Del):
        return (node.target,)  # type: ignore[attr-defined]
    return ()


def is_local_rank_read(expr: cst.BaseExpression) -> bool:
    """`os.environ["LOCAL_RANK"]`, `os.environ.get("LOCAL_RANK", ...)`, `os.getenv("LOCAL_RANK")`."""
    if isinstance(expr, cst.Subscript):
        name = dotted_name(expr.value) or ""
        if name.endswith("environ") and len(expr.slice) == 1:
            index = expr.slice[0].slice
            return isinstance(index, cst.Index) and string_value(index.value) == _LOCAL_RANK
        return False
    if isinstance(expr, cst.Call):
        name = dotted_name(expr.func) or ""
        if name.endswith("environ.get") or name.endswith("getenv"):
            args = positional(expr)
            return bool(args) and string_value(args[0].value) == _LOCAL_RANK
    return False


def holds_local_rank(value: cst.BaseExpression, torch: TorchNames) -> bool:
    """An int that is this process's local rank: `int(<a LOCAL_RANK read>)`,
    `torch.distributed.get_node_local_rank(...)`, or `<rank> % torch.cuda.device_count()` (each host
    numbers its GPUs from 0). (`dist.get_rank()` is the global rank: on a second node it is past the
    last GPU.)"""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo):
        return isinstance(value.right, cst.Call) and torch.qualify(value.right.func) == "torch.cuda.device_count"
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Name) and value.func.value == "int" and len(value.args) == 1:
        return is_local_rank_read(value.args[0].value)
    return torch.qualify(value.func) == "torch.distributed.get_node_local_rank"


# How deep calls of the file's own functions are followed, and what a cycle or a deeper call answers:
# it may pin (so nothing after it is taken to run before the pin).
_CALL_DEPTH = 6


class BeforePinning(ForwardReader[list[str]]):
    """Which code every rank runs before the file pins its GPU: the module's statements in the order
    they run (compound statements entered, a branch that depends on the rank skipped), and the bodies
    of the file's own functions where a statement calls one, up to the first statement that may pin;
    and in each of the file's functions that pins, its statements before that. A call of one of the
    file's functions is followed `_CALL_DEPTH` deep, never into a function already being read (a
    cycle), and what is not followed is taken to pin. `ran_before(node)` after `read()`. `helpers`: the names
    the file imports, other than torch's (`DistributedFile.helpers`); `group_helper`: the project's functions that
    may pin, starting a process group or not ("pinned", "pins")."""

    def __init__(self, module: cst.Module, torch: TorchNames, rank_dependent: Callable[[cst.BaseExpression], bool],
                 helpers: AbstractSet[str], group_helper: GroupHelper = no_group_helper):
        super().__init__()
        self.torch = torch
        self.rank_dependent = rank_dependent
        self.functions: dict[str, Optional[cst.FunctionDef]] = {}  # module-level defs (None: bound twice)
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef):
                name = statement.name.value
                self.functions[name] = None if name in self.functions else statement
        self.module = module
        self.helpers = helpers
        self.group_helper = group_helper
        self.before: set[int] = set()

    def _pins(self, node: cst.Call) -> bool:
        return pins(node, self.torch, self.helpers) or self.group_helper(node) in _MAY_PIN

    def read(self) -> "BeforePinning":
        self.block(self.module.body, [])
        # a function that pins runs its statements before the pin whoever calls it
        for name, function in self.functions.items():
            if function is not None and any(isinstance(node, cst.Call) and self._pins(node)
                                            for node in own_nodes_in_order(function.body)):
                self.suite(function.body, [name])
        return self

    def ran_before(self, node: cst.CSTNode) -> bool:
        return id(node) in self.before

    # -- statements (the skeleton: analysis/forward.py); True: it may have pinned, read no further --
    def small(self, node: cst.BaseSmallStatement, calling: list[str]) -> bool:
        return self._simple(node, calling)

    def if_statement(self, node: cst.If, calling: list[str]) -> bool:
        if self._simple(node.test, calling):
            return True
        if self.rank_dependent(node.test):
            # runs in some ranks only (rank 0's GPU 0 is right for rank 0): not read, but where it may
            # pin (`if args.distributed: torch.cuda.set_device(...)`), nothing after it counts
            return self._may_pin(node)
        # (its `else` runs where that branch does not: read only where the branch did not pin)
        return self.suite(node.body, calling) or self.orelse(node, calling)

    def loop(self, node: cst.For | cst.While, calling: list[str]) -> bool:
        return self._simple(loop_head(node), calling) or self.suite(node.body, calling)

    def with_statement(self, node: cst.With, calling: list[str]) -> bool:
        return any(self._simple(item.item, calling) for item in node.items) or self.suite(node.body, calling)

    def try_statement(self, node: cst.Try, calling: list[str]) -> bool:
        return self.suite(node.body, calling) or any(self.suite(h.body, calling) for h in node.handlers)

    def definition(self, node: cst.FunctionDef | cst.ClassDef, calling: list[str]) -> bool:
        return False  # runs when called (a class body is left alone: it holds no pinning)

    def other(self, node: cst.CSTNode, calling: list[str]) -> bool:
        return True  # (match, `except*`: not read; taken to pin, so nothing after them counts)

    def _may_pin(self, root: cst.CSTNode) -> bool:
        """Does `root` hold a pinning call, or a call of one of the file's functions (not followed)?"""
        for node in own_nodes_in_order(root):
            if isinstance(node, cst.Call) and (self._pins(node) or (
                    isinstance(node.func, cst.Name) and node.func.value in self.functions)):
                return True
        return False

    def _simple(self, root: cst.CSTNode, calling: list[str]) -> bool:
        """A statement or an expression: True when it may pin. Its nodes run before the pin otherwise."""
        found = list(own_nodes_in_order(root))
        for node in found:
            if isinstance(node, cst.Call) and self._pins(node):
                return True
        for node in found:
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in self.functions:
                name = node.func.value
                function = self.functions[name]
                if function is None or name in calling or len(calling) >= _CALL_DEPTH:
                    return True  # unknown (bound twice, a cycle, too deep): it may pin
                if self.suite(function.body, [*calling, name]):
                    return True
        self.before.update(id(node) for node in found)
        return False


class LocalRankNames:
    """Which names hold the local rank at the statement being visited, per scope: a name assigned a
    local rank by a statement directly in a function's (or the module's) body, and not assigned
    anything else since. A branch may not run, so an assignment inside one does not count."""

    def __init__(self) -> None:
        self._held: dict[int, dict[str, bool]] = {}  # id(scope) -> name -> holds the local rank now
        self._top_level: dict[int, set[int]] = {}  # id(scope) -> ids of its body's statements

    def enter_scope(self, scope: cst.Module | cst.FunctionDef) -> None:
        body = scope.body if isinstance(scope, cst.Module) else scope.body.body
        self._top_level[id(scope)] = {id(statement) for statement in body}  # type: ignore[union-attr]
        self._held[id(scope)] = {}

    def assigned(self, scope: cst.CSTNode, statement: cst.CSTNode, target: cst.BaseExpression,
                 value: Optional[cst.BaseExpression], torch: TorchNames) -> None:
        """`target = value` in `scope`, inside `statement` (the line that holds it)."""
        held = self._held.get(id(scope))
        if held is None or not isinstance(target, cst.Name):
            return
        top = id(statement) in self._top_level.get(id(scope), set())
        held[target.value] = top and value is not None and holds_local_rank(value, torch)

    def rebound(self, scope: cst.CSTNode, name: str) -> None:
        held = self._held.get(id(scope))
        if held is not None and name in held:
            held[name] = False

    def name_here(self, function: Optional[cst.FunctionDef], module: cst.Module,
                  function_locals: AbstractSet[str] = frozenset()) -> Optional[str]:
        """A name holding the local rank at this point of `function` (else of the module body);
        `function_locals`: every name the function binds (those hide the module's)."""
        if function is not None:
            found = sorted(name for name, holds in self._held.get(id(function), {}).items() if holds)
            if found:
                return found[0]
        found = sorted(name for name, holds in self._held.get(id(module), {}).items()
                       if holds and name not in function_locals)
        return found[0] if found else None
