"""What DEV001 and DEV007 share as rules: collecting bare method calls and the fixes that keep
their result. The decisions (is it a tensor, what would keep it) are devlint/analysis/discarded.py.

Not a rule module (its name starts with `_`): rules/__init__.py skips it.
"""

from __future__ import annotations

from typing import ClassVar, Optional

import libcst as cst

from devlint.analysis.discarded import BareCall, Discarded, binding_loop, discarded_result
from devlint.analysis.edits import code_of, short, shown_code
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor


class DiscardedResultVisitor(RuleVisitor):
    """Collects `R.m(...)` statements for `m` in `methods`; `finish` judges each once the whole
    file is known and hands the thrown-away ones to `report_discarded`."""

    methods: ClassVar[frozenset[str]]

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.candidates: list[BareCall] = []
        self.loops: list[cst.For] = []
        self.repeats: list[cst.For | cst.While] = []  # every enclosing loop, for reads in a later round

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)
        self.repeats.append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()
        self.repeats.pop()

    def visit_While(self, node: cst.While) -> None:
        self.repeats.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self.repeats.pop()

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if self.ctx.expects("error", "warning") or not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
            return
        if call.func.attr.value not in self.methods or not self.wants(call):
            return
        loop = binding_loop(call.func.value, self.loops)
        self.candidates.append(BareCall(node, call, self.ctx.enclosing_functions(), self.ctx.current_class(),
                                        self.ctx.narrowed(), loop, tuple(self.repeats)))

    def wants(self, call: cst.Call) -> bool:
        """Is this call (its method is one of `methods`) one whose result is a new tensor?"""
        return True

    def finish(self) -> None:
        for bare in self.candidates:
            discarded = discarded_result(self.ctx.types, bare)
            if discarded is not None:
                self.report_discarded(bare, discarded)

    def report_discarded(self, bare: BareCall, discarded: Discarded) -> None:
        raise NotImplementedError

    def keeping_fix(self, bare: BareCall, discarded: Discarded, what: str) -> Optional[Fix]:
        """The fix that keeps the result (`x = x.m(...)`, `batch[k] = v.m(...)`), where one is safe.
        `what` names the result in the fix's description ("moved tensor")."""
        statement = bare.statement
        if discarded.keep == "store" and discarded.entry is not None:
            # assigning an existing key while iterating over the dict is allowed
            container, key = discarded.entry
            target: cst.BaseAssignTargetExpression = cst.Subscript(container, [cst.SubscriptElement(cst.Index(key))])
            description = f"Store the {what} in the dict"
        elif discarded.keep == "assign" and not (discarded.dead_store or discarded.parameter_attribute):
            # (assigning a plain tensor to a module's parameter raises TypeError)
            target = bare.receiver  # type: ignore[assignment]
            description = f"Assign the {what} back"
        else:
            return None  # a dead store, a parameter, or an expression: what was meant is for the author to say
        assign = cst.Assign(targets=[cst.AssignTarget(target)], value=statement.value, semicolon=statement.semicolon)
        return Fix(Applicability.SAFE, shown_code(description, target, " = ..."), {statement: assign})


def call_text(bare: BareCall, discarded: Discarded) -> str:
    """`x.float()` / `x.to(...)`: the call as a message names it."""
    return f"{discarded.text}.{bare.method}({'...' if bare.call.args else ''})"


def discarded_message(bare: BareCall, discarded: Discarded, verb: str, owner_advice: str) -> str:
    """The one-line message: what was thrown away and what keeps it. `verb` is what the call does
    ("move"); `owner_advice` is what to do with the module whose parameter the receiver is."""
    call, text = call_text(bare, discarded), discarded.text
    done = verb + ("d" if verb.endswith("e") else "ed")
    if discarded.keep == "parameter":
        return (f"`{call}` result is discarded; `{text}` is one of `{owner_text(discarded)}."
                f"{discarded.owner_iterator}()`, which no assignment to `{text}` changes — {owner_advice}")
    if discarded.keep == "store" and discarded.entry is not None:
        # `for k, v in batch.items(): v.to(d)`, `v` not used again: what was meant is the dict's entry
        advice = f"store it: `{short(f'{discarded.entry[0].value}[{discarded.entry[1].value}]')} = {call}`"
    elif discarded.keep == "dict":
        advice = "store it back in the dict it came from"  # `for v in batch.values()`
    elif discarded.keep == "assign" and discarded.parameter_attribute:
        # a Parameter cannot be replaced by a plain tensor; its data can
        advice = f"`{text}` may be a Parameter: {verb} the module, or assign `{text}.data`"
    elif discarded.keep == "assign" and not discarded.dead_store:
        advice = f"assign it: `{text} = {call}`"
    # (a name never read again: assigning it back keeps nothing, and no fix offers it)
    else:
        advice = "use the tensor it returns"
    return f"`{call}` result is discarded; tensors are not {done} in place — {advice}"


def owner_text(discarded: Discarded) -> str:
    """The module of a parameter loop, as written (shortened)."""
    assert discarded.owner is not None
    return short(code_of(discarded.owner))
