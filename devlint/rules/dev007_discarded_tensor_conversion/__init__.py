"""DEV007 — result of a tensor conversion discarded."""

from __future__ import annotations

import ast
from typing import Iterator

from devlint.analysis.prefilter import method_call
from devlint.analysis.screen import SyntaxFacts
from devlint.analysis.vocabulary import CONVERSIONS
from devlint.rules.rule import FixSafety, Rule, any_candidate


def _candidates(facts: SyntaxFacts) -> Iterator[ast.Call]:
    """A conversion that is a statement of its own: `R.float()`, whatever `R` is."""
    return (call for call in facts.discarded_calls if call.func.attr in CONVERSIONS)  # type: ignore[attr-defined]


RULE = Rule(
    code="DEV007",
    name="discarded-tensor-conversion",
    summary=("The result of `tensor.float()` / `.half()` / `.long()` / `.contiguous()` / `.detach()` (...) "
             "is thrown away"),
    why="""
        Tensor conversions are not in place: `x.half()` returns a new tensor and leaves `x` as it was, so
        the code after it still runs in the old dtype, on a non-contiguous tensor (`.view()` then raises),
        or with gradients still flowing (`.detach()`). `nn.Module.half()`, `.float()`, `.double()`,
        `.bfloat16()` and `.type()` *are* in place, which is why the mistake is easy to make; a module is
        never reported. The loop variable of `for p in model.parameters()` is a tensor too: converting it
        changes nothing, and only the module's own conversion (`model.half()`) does. Reported: a statement
        of its own that is `.float()`, `.half()`, `.double()`, `.bfloat16()`, `.long()`, `.int()`, `.bool()`,
        `.type(dtype)`, `.contiguous()`, `.detach()` or `.clone()` of a tensor, except inside
        `with pytest.raises(...)` / `self.assertRaises(...)`, where the call is made for its error.
    """,
    example="""
        def prepare(images: torch.Tensor, labels: torch.Tensor):
            images.half()
            labels.long()
            return images, labels
    """,
    instead="""
        def prepare(images: torch.Tensor, labels: torch.Tensor):
            images = images.half()
            labels = labels.long()
            return images, labels
    """,
    fix_safety=FixSafety.SAFE,
    fix="""
        Assigns the result back, as DEV001 does for moves: `x = x.float()` for a name, an attribute or a
        subscript; `batch[k] = v.float()` for the value of `for k, v in batch.items()` not used again in
        the loop. No fix for a local name not read again (the assignment would be dead), for other
        receivers, for attributes that are or may be an `nn.Parameter` (assigning a plain tensor to one
        raises `TypeError`), and for the loop variable over a module's parameters, buffers or state dict
        (no rebinding reaches the module: convert the module itself). Safe: the statement had no effect,
        and the value now has the dtype, layout or autograd state the code asked for. A bare `x.type()`
        with no argument returns the type's name and converts nothing: it is not reported. In-place
        methods (`x.detach_()`, `x.requires_grad_()`) are not conversions and are never reported.
        Only receivers with positive evidence of being a tensor are reported, the same evidence DEV001
        uses.
    """,
    tokens=("torch", method_call(*CONVERSIONS)),
    screen=any_candidate(_candidates),
    candidates=_candidates,
)
