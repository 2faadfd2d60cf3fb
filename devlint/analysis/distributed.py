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

from dataclasses import dataclass, field
from typing import AbstractSet, Optional

import libcst as cst

from devlint.analysis.names import dotted_name, positional, string_value
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.walk import children

# Packages whose launch sets the current device before user code runs.
# Ray gives each worker that asks for a GPU only that GPU (CUDA_VISIBLE_DEVICES): "cuda" is it there.
DEVICE_SETTING_LAUNCHERS = frozenset({
    "accelerate", "lightning", "pytorch_lightning", "lightning_fabric", "ignite", "deepspeed", "colossalai", "ray",
})
# Calls that pin the process's current device (any receiver: `get_accelerator().set_device(i)` too).
_PINNING_METHODS = frozenset({"set_device", "set_device_index"})
_LOCAL_RANK = "LOCAL_RANK"


@dataclass
class DistributedFile:
    """What a whole module says about distributed training."""

    # init_process_group(...) or reads LOCAL_RANK: the rank is set up here. Wrapping a model in
    # DistributedDataParallel is not enough: libraries wrap in one file and pin the device in another
    # (timm's task classes and its utils/distributed.py, Lightning's DDP strategy and its accelerator).
    starts: bool = False
    pins_device: bool = False  # set_device(...), `with torch.cuda.device(...)`, CUDA_VISIBLE_DEVICES, a launcher
    why_started: list[str] = field(default_factory=list)

    @property
    def every_rank_on_default_gpu(self) -> bool:
        return self.starts and not self.pins_device


def distributed_file(module: cst.Module, torch: TorchNames) -> DistributedFile:
    """Read the whole module (call after the traversal: `torch` then knows every import)."""
    facts = DistributedFile()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            _call(node, torch, facts)
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            if _imports_launcher(node):
                facts.pins_device = True
        elif isinstance(node, cst.Subscript) and is_local_rank_read(node):
            facts.starts = True
            facts.why_started.append(_LOCAL_RANK)
        elif isinstance(node, cst.SimpleString) and "CUDA_VISIBLE_DEVICES" in node.value:
            facts.pins_device = True  # the launcher or the script gives each rank one visible GPU
        stack.extend(children(node))
    return facts


def _call(node: cst.Call, torch: TorchNames, facts: DistributedFile) -> None:
    name = dotted_name(node.func) or ""
    last = name.rsplit(".", 1)[-1]
    full = torch.qualify(node.func) or ""
    if last in _PINNING_METHODS or full in ("torch.cuda.device", "torch.cuda.device_of"):
        facts.pins_device = True
    if last == "init_process_group" or full.endswith(".init_process_group"):
        facts.starts = True
        facts.why_started.append("init_process_group")
        if any(arg.keyword is not None and arg.keyword.value == "device_id" for arg in node.args):
            facts.pins_device = True  # binds the process group, and its rank, to one device
    if is_local_rank_read(node):
        facts.starts = True
        facts.why_started.append(_LOCAL_RANK)


def _imports_launcher(node: cst.Import | cst.ImportFrom) -> bool:
    if isinstance(node, cst.Import):
        names = [dotted_name(alias.name) or "" for alias in node.names]
    else:
        if node.relative or node.module is None:
            return False
        names = [dotted_name(node.module) or ""]
    return any(name.split(".", 1)[0] in DEVICE_SETTING_LAUNCHERS for name in names)


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
    """An int that is this process's local rank: `int(<a LOCAL_RANK read>)` or
    `torch.distributed.get_node_local_rank(...)`. (`dist.get_rank()` is the global rank: on a
    second node it is past the last GPU.)"""
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Name) and value.func.value == "int" and len(value.args) == 1:
        return is_local_rank_read(value.args[0].value)
    return torch.qualify(value.func) == "torch.distributed.get_node_local_rank"


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
