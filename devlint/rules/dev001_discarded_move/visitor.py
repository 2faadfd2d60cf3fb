"""DEV001 — result of a tensor move discarded: the visitor and its fix."""

from __future__ import annotations

import libcst as cst

from devlint.analysis.discarded import BareCall, Discarded, parameter_moved
from devlint.analysis.edits import short
from devlint.rules._discarded import DiscardedResultVisitor, discarded_message, owner_text
from devlint.rules.dev001_discarded_move import MOVES, RULE

_MODULE_MOVES = ("to", "cuda", "cpu")  # nn.Module has these, in place


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
        self.report(bare.call, message, self.keeping_fix(bare, discarded, "moved tensor"))

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(target.target, cst.Attribute) for target in node.targets):
            self._parameter_moved(node.value, node.targets[-1].target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Attribute) and node.value is not None:
            self._parameter_moved(node.value, node.target)

    def _parameter_moved(self, value: cst.BaseExpression, target: cst.BaseExpression) -> None:
        """`self.w = nn.Parameter(t).cuda()`: the move returns a plain tensor, not the Parameter."""
        moved = parameter_moved(self.torch, value)
        if moved is None:
            return
        text = short(self.ctx.module.code_for_node(target))
        method = value.func.attr.value  # type: ignore[attr-defined]
        arguments = "..." if value.args else ""  # type: ignore[attr-defined]
        message = (f"`nn.Parameter(...).{method}({arguments})` returns a plain tensor: `{text}` is not a Parameter, "
                   f"not registered, not trained — move the data before wrapping it, or move the module")
        self.report(value, message)


__all__ = ["DiscardedTensorMove"]
