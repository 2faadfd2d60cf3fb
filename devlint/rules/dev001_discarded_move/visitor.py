"""DEV001 — result of a tensor move discarded: the visitor and its fix."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import libcst as cst

from devlint.analysis.discarded import BareCall, Discarded, parameter_moved
from devlint.analysis.edits import short
from devlint.analysis.factories import is_host
from devlint.analysis.names import dotted_name, keyword, positional, string_value
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.types import Kind
from devlint.analysis.walk import own_nodes_in_order
from devlint.contract.diagnostics import Applicability
from devlint.rules._discarded import DiscardedResultVisitor, discarded_message, owner_text
from devlint.rules.dev001_discarded_move import MOVES, RULE

_MODULE_MOVES = ("to", "cuda", "cpu")  # nn.Module has these, in place


def _to_the_host(call: cst.Call, torch: TorchNames) -> bool:
    """`x.cpu()`, `x.to("cpu")`, `x.to(device="cpu")`: kept, the tensor goes where NumPy reads it."""
    method = call.func.attr.value  # type: ignore[attr-defined]
    target = keyword(call, "device") or next(iter(positional(call)), None)
    return method == "cpu" or (method == "to" and target is not None and string_value(target.value) is not None
                               and is_host(target.value, torch))


def _through_the_host(expr: cst.BaseExpression, torch: TorchNames) -> bool:
    """A `.cpu()` (or a move to the CPU) down the chain of `y.detach().cpu()`, `out[0].cpu().float()`."""
    while True:
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute:
            if _to_the_host(expr, torch):
                return True
            expr = expr.func.value
        elif type(expr) in (cst.Attribute, cst.Subscript):
            expr = expr.value  # type: ignore[attr-defined]
        else:
            return False


def _converts_to_numpy(call: cst.Call, torch: TorchNames, is_tensor: Callable[[cst.BaseExpression], bool]) -> bool:
    """`y.numpy()` not through `.cpu()`, or `np.asarray(y)` / `np.array(y)` of a value shown to be a tensor (not of
    a list of numbers, which converts anywhere)."""
    if type(call.func) is cst.Attribute and call.func.attr.value == "numpy" and not call.args:
        return not _through_the_host(call.func.value, torch)
    return (dotted_name(call.func) in ("np.asarray", "np.array", "numpy.asarray", "numpy.array") and bool(call.args)
            and is_tensor(call.args[0].value))


class DiscardedTensorMove(DiscardedResultVisitor):
    rule = RULE
    methods = frozenset(MOVES)

    def report_discarded(self, bare: BareCall, discarded: Discarded) -> None:
        owner_advice = ""  # for the loop variable over a module's tensors: what moves them
        if discarded.keep == "parameter":
            arguments = "..." if bare.call.args else ""
            owner_advice = (f"move the module: `{owner_text(discarded)}.{bare.method}({arguments})`"
                            if bare.method in _MODULE_MOVES else "the module's own tensors are left as they were")
        message = discarded_message(bare, discarded, "move", owner_advice)
        fix = self.keeping_fix(bare, discarded, "moved tensor")
        if fix is not None and not _to_the_host(bare.call, self.torch) and self._read_on_the_host_later(bare):
            # fast-reid's benchmark: `t.to(gpu)` kept, then `torch.mm(...)` of the list and `.numpy()`, which raises
            # on a device; the code as it runs converts host tensors, so the kept move may break it
            fix = replace(fix, applicability=Applicability.UNSAFE,
                          description=f"{fix.description} (a later `.numpy()` here raises on a device)")
        self.report(bare.call, message, fix)

    def _read_on_the_host_later(self, bare: BareCall) -> bool:
        """After the move in its function (anywhere in it, inside a loop), a conversion to NumPy that does not copy to
        the host first: `.numpy()`, `np.asarray(...)`, `np.array(...)`."""
        scope: cst.CSTNode = bare.functions[0] if bare.functions else self.ctx.module
        after = bool(bare.repeats)  # (a loop runs what comes before the move again after it)

        def is_tensor(value: cst.BaseExpression) -> bool:
            return self.ctx.types.kind_of(value, bare.functions, bare.cls) is Kind.TENSOR
        for node in own_nodes_in_order(scope.body if type(scope) is cst.FunctionDef else scope):
            if node is bare.statement:
                after = True
            elif after and type(node) is cst.Call and _converts_to_numpy(node, self.torch, is_tensor):
                return True
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(target.target, cst.Attribute) for target in node.targets):
            self._parameter_moved(node.value, node.targets[-1].target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Attribute) and node.value is not None:
            self._parameter_moved(node.value, node.target)

    def _parameter_moved(self, value: cst.BaseExpression, target: cst.BaseExpression) -> None:
        """`self.w = nn.Parameter(t).cuda()`: the move returns a plain tensor, not the Parameter."""
        moved = parameter_moved(self.torch, value)
        if moved is None or self._wrapped_data_moved(moved):
            return
        text = short(self.ctx.module.code_for_node(target))
        method = value.func.attr.value  # type: ignore[attr-defined]
        arguments = "..." if value.args else ""  # type: ignore[attr-defined]
        message = (f"`nn.Parameter(...).{method}({arguments})` returns a plain tensor: `{text}` is not a Parameter, "
                   f"not registered, not trained — move the data before wrapping it, or move the module")
        self.report(value, message)

    def _wrapped_data_moved(self, wrapped: cst.Call) -> bool:
        """The data of `nn.Parameter(data)` may already be where the move sends it: a move in it
        (`nn.Parameter(t.cuda()).cuda()`), or a name the function binds to a move (`idx = idx.long().cuda()`). A move of
        a tensor already there returns it as it is: the Parameter itself (FAN's `nn.Parameter(idx.clone()).cuda()`)."""
        given = positional(wrapped)
        if not given:
            return False
        data = given[0].value
        names = {node.value for node in own_nodes_in_order(data) if type(node) is cst.Name}
        function = self.ctx.current_function()
        bound = [node.value for node in own_nodes_in_order(function.body if function is not None else self.ctx.module)
                 if type(node) is cst.Assign and any(type(target.target) is cst.Name and target.target.value in names
                                                     for target in node.targets)]
        return any(type(node) is cst.Call and type(node.func) is cst.Attribute
                   and node.func.attr.value in ("to", "cuda")
                   for value in (data, *bound) for node in own_nodes_in_order(value))


__all__ = ["DiscardedTensorMove"]
