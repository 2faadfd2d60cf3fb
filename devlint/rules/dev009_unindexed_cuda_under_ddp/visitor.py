"""DEV009 — unindexed CUDA in a distributed script that never pins its rank to a GPU: the visitor and its fix."""

from __future__ import annotations

import re
from typing import Callable, Optional

import libcst as cst

from devlint.analysis.devices import names_a_device
from devlint.analysis.factories import holds_no_tensor
from devlint.rules.dev009_unindexed_cuda_under_ddp.distributed import (
    BeforePinning, LocalRankNames, no_group_helper, distributed_file, functions_its_start_runs, project_group_helper,
    sets_up_its_rank,
)
from devlint.analysis.guards import is_script
from devlint.analysis.names import (
    dotted_name, has_cuda_method_signature, identifiers, integer_value, is_cuda_device_expr, keyword, positional,
    string_value, target_names,
)
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev009_unindexed_cuda_under_ddp import RULE

# A test that decides by rank or by whether the run is distributed: its branches run in one rank
# (GPU 0 is right for rank 0), or only in a single-process run.
_RANK_DEPENDENT = re.compile(r"rank|distributed|world|ddp|is_initialized|gpu|parallel", re.IGNORECASE)


def _cuda_literals(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`"cuda"` literals that are the value of `expr`, seen through `a if c else b`."""
    if isinstance(expr, cst.IfExp):
        return _cuda_literals(expr.body) + _cuda_literals(expr.orelse)
    value = string_value(expr)
    return [expr] if value is not None and value.strip() == "cuda" else []


def _indexed_cuda(expr: cst.BaseExpression, torch) -> bool:  # type: ignore[no-untyped-def]
    """A CUDA device given an index computed at run time: `f"cuda:{rank}"`, `torch.device("cuda", index)`,
    `torch.device(f"cuda:{index}")`, either branch of `a if c else b`."""
    if isinstance(expr, cst.IfExp):
        return _indexed_cuda(expr.body, torch) or _indexed_cuda(expr.orelse, torch)
    if is_cuda_device_expr(expr):
        return True
    if not (isinstance(expr, cst.Call) and torch.is_call_to(expr, "device")):
        return False
    args = positional(expr)
    index = args[1].value if len(args) == 2 else getattr(keyword(expr, "index"), "value", None)
    if index is not None:
        return bool(args) and _cuda_literals(args[0].value) == [args[0].value] and integer_value(index) is None
    return len(args) == 1 and is_cuda_device_expr(args[0].value)


def _indexed_string(literal: cst.BaseExpression, index: str) -> cst.BaseExpression:
    """`"cuda"` -> `f"cuda:{index}"`, in the literal's own quotes."""
    text = literal.value if isinstance(literal, cst.SimpleString) else '"cuda"'
    quote = text[-1] if text[-1] in "'\"" else '"'
    return cst.parse_expression(f"f{quote}cuda:{{{index}}}{quote}")


def _with_first_argument(call: cst.Call, index: str) -> cst.Call:
    first = cst.Arg(cst.parse_expression(index))
    if call.args:
        first = first.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[first, *call.args])


def _with_last_argument(call: cst.Call, index: str) -> cst.Call:
    *rest, last = call.args
    last = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*rest, last, cst.Arg(cst.parse_expression(index))])


class UnindexedCudaUnderDdp(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        # (node, what it is, fix, places something on the GPU: a move, or `device=` / `map_location=` given,
        # the function it is in)
        self.pending: list[tuple[cst.CSTNode, str, Optional[Fix], bool, Optional[str]]] = []
        self.local_ranks = LocalRankNames()
        self._statements: list[cst.CSTNode] = []
        self._compared: set[int] = set()  # `x.device == torch.device("cuda")`: a comparison places nothing
        self._rank_dependent = 0  # inside `if rank == 0:`, `if args.distributed: ... else: ...`
        self._barriers: list[cst.Call] = []  # `dist.barrier()`, a helper's `barrier()`: no `device_ids=` given
        # `opt.device = torch.device("cuda")` in `__main__`, then `opt.device = torch.device(f"cuda:{index}")` in
        # the worker: the unindexed value is a default each rank replaces with its own GPU
        self._assigned: list[frozenset[str]] = []  # the targets of the assignments being read, innermost last
        self._stored_into: dict[int, frozenset[str]] = {}  # a pending node -> the targets its assignment binds
        self._indexed_targets: set[str] = set()  # targets the file binds to a CUDA device with a run-time index

    # -- code that runs in some ranks, or only without distribution ------------------------
    def visit_If(self, node: cst.If) -> None:
        self._rank_dependent += _depends_on_rank(node.test)

    def leave_If(self, original_node: cst.If) -> None:
        self._rank_dependent -= _depends_on_rank(original_node.test)

    # -- which names hold the local rank -------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self.local_ranks.enter_scope(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.local_ranks.enter_scope(node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._statements.append(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._statements.pop()

    def _scope(self) -> cst.CSTNode:
        return self.ctx.frames[-1].node

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._assigned.pop()
        statement = self._statements[-1] if self._statements else original_node
        for target in original_node.targets:
            if isinstance(target.target, cst.Name):
                self.local_ranks.assigned(self._scope(), statement, target.target, original_node.value, self.torch)
            else:
                for name in _names(target.target):
                    self.local_ranks.rebound(self._scope(), name)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        statement = self._statements[-1] if self._statements else original_node
        self.local_ranks.assigned(self._scope(), statement, original_node.target, original_node.value, self.torch)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        for name in _names(original_node.target):
            self.local_ranks.rebound(self._scope(), name)

    def visit_For(self, node: cst.For) -> None:
        for name in _names(node.target):
            self.local_ranks.rebound(self._scope(), name)

    def visit_AsName(self, node: cst.AsName) -> None:
        for name in _names(node.name):
            self.local_ranks.rebound(self._scope(), name)

    def _local_rank(self) -> Optional[str]:
        function = self.ctx.current_function()
        bound = set(self.ctx.types.scope_index(function).bindings) if function is not None else set()
        return self.local_ranks.name_here(function, self.ctx.module, bound)

    # -- candidates ----------------------------------------------------------------------
    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._compared.update(id(operand) for operand in (node.left, *(c.comparator for c in node.comparisons)))

    def _literal(self, literal: cst.BaseExpression, places: bool = False) -> None:
        if self._rank_dependent:
            return
        index = self._local_rank()
        fix = None
        if index is not None:
            fix = Fix(Applicability.UNSAFE, f"Index the device with `{index}`", {literal: _indexed_string(literal, index)})
        self._pend(literal, f"`{self.ctx.module.code_for_node(literal)}`", fix, places)

    def _pend(self, node: cst.CSTNode, what: str, fix: Optional[Fix], places: bool) -> None:
        function = self.ctx.current_function()
        self.pending.append((node, what, fix, places, function.name.value if function is not None else None))
        if self._assigned:
            self._stored_into[id(node)] = self._assigned[-1]

    def visit_Assign(self, node: cst.Assign) -> None:
        targets = frozenset(name for name in (dotted_name(t.target) for t in node.targets) if name)
        self._assigned.append(targets)
        if _indexed_cuda(node.value, self.torch):
            self._indexed_targets |= targets
        if any(names_a_device(dotted_name(t.target) or "") for t in node.targets):
            for literal in _cuda_literals(node.value):
                self._literal(literal)

    def visit_Return(self, node: cst.Return) -> None:
        """`def get_device(): return "cuda" if ... else "cpu"`: the function's value is a device."""
        function = self.ctx.current_function()
        if node.value is not None and function is not None and names_a_device(function.name.value):
            for literal in _cuda_literals(node.value):
                self._literal(literal)

    def visit_Call(self, node: cst.Call) -> None:
        if self.torch.is_call_to(node, "device") and id(node) not in self._compared:
            args = positional(node)
            if len(node.args) == 1 and args:
                value = args[0].value
                if _cuda_literals(value) == [value] and not self._rank_dependent:
                    index = self._local_rank()
                    fix = None
                    if index is not None:
                        fix = Fix(Applicability.UNSAFE, f"Index the device with `{index}`",
                                  {node: _with_last_argument(node, index)})
                    self._pend(node, f"`{self.ctx.module.code_for_node(node)}`", fix, False)
                else:
                    for literal in _cuda_literals(value):
                        self._literal(literal)
        for name in ("device", "map_location"):
            arg = keyword(node, name)
            if arg is not None:
                for literal in _cuda_literals(arg.value):
                    self._literal(literal, places=True)
        if ((dotted_name(node.func) or "").rsplit(".", 1)[-1] == "barrier" and keyword(node, "device_ids") is None
                and not self._rank_dependent):
            self._barriers.append(node)
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method in ("to", "cuda") and holds_no_tensor(node.func.value, self.torch):
            return  # `nn.KLDivLoss().cuda()`: a loss with no parameters or buffers places nothing on GPU 0
        if method == "to":
            args = positional(node)
            if args:
                for literal in _cuda_literals(args[0].value):
                    self._literal(literal, places=True)
        elif method == "cuda":
            if dotted_name(node.func.value) in ("torch", self.torch.torch_module_name()):
                return  # torch.cuda is a module, not a move
            if not has_cuda_method_signature(node) or positional(node) or keyword(node, "device") is not None:
                return  # an index given, or someone else's `.cuda(...)`
            if self._rank_dependent:
                return
            index = self._local_rank()
            fix = None
            if index is not None:
                fix = Fix(Applicability.UNSAFE, f"Index the device with `{index}`",
                          {node: _with_first_argument(node, index)})
            self._pend(node, "`.cuda()`", fix, True)

    def finish(self) -> None:
        self.pending = [entry for entry in self.pending
                        if self._stored_into.get(id(entry[0]), frozenset()).isdisjoint(self._indexed_targets)]
        path = self.ctx.path
        group_helper = project_group_helper(  # (a program's set-up: a library's caller pins, maybe elsewhere)
            self.ctx.module, self.torch, lambda module, level, function: self.ctx.project.group_helper(
                path, module, level, function)) if path is not None and is_script(self.ctx.module) else no_group_helper
        facts = distributed_file(self.ctx.module, self.torch, group_helper)
        if facts.every_rank_on_default_gpu:
            if not sets_up_its_rank(self.ctx.module, facts, self.torch):
                return  # a library module: its caller sets the rank up, and may pin it in another file
            runs = functions_its_start_runs(self.ctx.module, self.torch, group_helper) if facts.backends else None
            pending = [entry for entry in self.pending if runs is None or entry[4] in runs]
            if pending:
                self._report_together(pending, _message)
            elif is_script(self.ctx.module):
                # NCCL started by a program that never pins its rank: even with every placement indexed, each
                # rank's current device stays GPU 0 (its CUDA context, pinned memory, NCCL's barriers)
                for start in facts.nccl_starts:
                    self.report(start, _NEVER_PINNED)
            return
        placing = [entry for entry in self.pending if entry[3]]
        barriers = self._barriers if facts.nccl_starts else []
        if not (placing or barriers) or not facts.starts or facts.gloo_only or facts.pinned_from_the_start:
            return
        # pinned by a `set_device` call: what every rank places on the GPU before that call runs is on GPU 0
        order = BeforePinning(self.ctx.module, self.torch, _depends_on_rank, facts.helpers, group_helper).read()
        early = [entry for entry in placing if order.ran_before(entry[0])]
        if early:
            self._report_together(early, _before_pinning_message)
        for barrier in barriers:
            if order.ran_before(barrier):
                self.report(barrier, _BARRIER_BEFORE_PINNING)

    def _report_together(self, entries: list[tuple[cst.CSTNode, str, Optional[Fix], bool, Optional[str]]],
                         message: Callable[[str], str]) -> None:
        """One report for one cause (no `set_device`, or one that runs too late): at the first placement, naming
        the others. Its fix indexes the first placement that can be: `--fix` then finds the cause at the next one,
        until every placement is indexed (each fix stays in its own statement, so a notebook's cells keep theirs)."""
        (first, what, _, _, _), others = entries[0], entries[1:]
        text = message(what)
        if others:
            named = [f"{other} in `{where}`" if where else f"{other} at module level"
                     for _, other, _, _, where in others]
            text = f"{text} (also {', '.join(named)})"
        fix = next((found for _, _, found, _, _ in entries if found is not None), None)
        self.report(first, text, fix)


_LOCAL_RANK_ADVICE = ("index it with the local rank (`int(os.environ[\"LOCAL_RANK\"])`, or `rank %"
                      " torch.cuda.device_count()`; never the global rank, past the last GPU on a second host)")


_NEVER_PINNED = ("`init_process_group(\"nccl\")` in a script that never calls `torch.cuda.set_device`: every rank's"
                 " current device stays GPU 0, so each rank's CUDA context (pinned memory, `torch.cuda` calls) and"
                 " NCCL's barriers land there; call `torch.cuda.set_device(local_rank)` before it, or pass"
                 " `device_id=torch.device(\"cuda\", local_rank)`")


_BARRIER_BEFORE_PINNING = (
    "a barrier under NCCL before the file's `set_device` call pins the rank to its GPU: PyTorch must guess which"
    " GPU each rank's barrier runs on (it warns that a wrong guess may hang), and the current device is still GPU 0"
    " in every rank, where their CUDA contexts land; call `torch.cuda.set_device(local_rank)` first, or pass"
    " `device_ids=[local_rank]`")


def _message(what: str) -> str:
    return (f"{what} without an index in a distributed script that never calls `torch.cuda.set_device`: every"
            f" rank uses GPU 0; {_LOCAL_RANK_ADVICE}, or call `torch.cuda.set_device(local_rank)` first")


def _before_pinning_message(what: str) -> str:
    return (f"{what} places a tensor or model in every rank before the file's `set_device` call pins the rank to"
            f" its GPU (at import, or earlier in the function that pins): it lands on GPU 0 in each; move it after"
            f" the `set_device` call, or {_LOCAL_RANK_ADVICE}")


def _depends_on_rank(test: cst.BaseExpression) -> bool:
    return any(_RANK_DEPENDENT.search(word) for word in identifiers(test))


def _names(target: cst.BaseExpression) -> list[str]:
    return [name.value for name in target_names(target)]
