"""DEV007 — result of a tensor conversion discarded: the visitor and its fix."""

from __future__ import annotations

import libcst as cst

from devlint.analysis.discarded import BareCall, Discarded
from devlint.analysis.vocabulary import CONVERSIONS
from devlint.rules._discarded import DiscardedResultVisitor, discarded_message, owner_text
from devlint.rules.dev007_discarded_tensor_conversion import RULE

# nn.Module has these, and converts its parameters in place.
_MODULE_CONVERSIONS = ("float", "half", "double", "bfloat16", "type")


class DiscardedTensorConversion(DiscardedResultVisitor):
    rule = RULE
    methods = CONVERSIONS

    def wants(self, call: cst.Call) -> bool:
        # `x.type()` with no argument returns a string: nothing was converted
        return call.func.attr.value != "type" or bool(call.args)  # type: ignore[attr-defined]

    def report_discarded(self, bare: BareCall, discarded: Discarded) -> None:
        owner_advice = _owner_advice(bare, discarded) if discarded.keep == "parameter" else ""
        message = discarded_message(bare, discarded, "convert", owner_advice)
        self.report(bare.call, message, self.keeping_fix(bare, discarded, "converted tensor"))


def _owner_advice(bare: BareCall, discarded: Discarded) -> str:
    """For the loop variable over a module's tensors: what changes them."""
    if bare.method in _MODULE_CONVERSIONS:
        return f"convert the module: `{owner_text(discarded)}.{bare.method}({'...' if bare.call.args else ''})`"
    if bare.method == "detach":
        return f"to stop its gradient, use `{discarded.text}.requires_grad_(False)`"
    return "the module's own tensors are left as they were"


__all__ = ["DiscardedTensorConversion"]
