"""DEV015 — a legacy CUDA tensor type: `set_default_tensor_type(torch.cuda.FloatTensor)`, `torch.cuda.LongTensor(...)`."""

from __future__ import annotations

import ast
import re
from typing import Iterator

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate

# `torch.cuda.FloatTensor`, written out or as the string `set_default_tensor_type` takes
LEGACY_CUDA_TYPE = re.compile(r"^torch\.cuda\.([A-Z][A-Za-z0-9]*)Tensor$")


def _legacy_uses(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every call of a legacy CUDA constructor (`torch.cuda.LongTensor(...)`) and of `set_default_tensor_type`."""
    for call in facts.calls:
        names = facts.torch_names(call)
        if any(LEGACY_CUDA_TYPE.match(name) or name == "torch.set_default_tensor_type" for name in names):
            yield call


RULE = Rule(
    code="DEV015",
    name="legacy-cuda-tensor-type",
    summary="A legacy CUDA tensor type (`torch.cuda.FloatTensor`) makes tensors or sets the default: use `device=`",
    why="""
        `torch.set_default_tensor_type(torch.cuda.FloatTensor)` (or `"torch.cuda.FloatTensor"`) is deprecated since
        torch 2.1 (a warning on each call). `torch.cuda.FloatTensor(2, 3)` and `torch.cuda.LongTensor(ids)` are the legacy constructors, which
        take sizes or data by the shape of their arguments and cannot be given a device. Both name CUDA where
        nothing chose it. `torch.set_default_device` with `torch.set_default_dtype`, and the factories with
        `dtype=` and `device=`, say the same plainly.
    """,
    details="""
        Only calls: naming a type in `isinstance(x, torch.cuda.FloatTensor)` or choosing one (`Tensor =
        torch.cuda.FloatTensor if cuda else torch.FloatTensor`) makes nothing. `set_default_tensor_type` of a CPU
        type (`torch.FloatTensor`) is not this rule's (it names no device).
    """,
    example="""
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
        mask = torch.cuda.FloatTensor(batch, length)
        ids = torch.cuda.LongTensor([1, 2, 3])
    """,
    instead="""
        torch.set_default_device("cuda")
        mask = torch.empty(batch, length, dtype=torch.float, device="cuda")
        ids = torch.tensor([1, 2, 3], dtype=torch.long, device="cuda")
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        A constructor becomes the factory its arguments show: sizes (`FloatTensor(2, 3)`, `LongTensor(n)`) give
        `torch.empty(..., dtype=..., device="cuda")`, one list or tuple display gives `torch.tensor(...,
        dtype=..., device="cuda")`; safe: the same tensor, uninitialised or with the same values, in the same
        dtype and place. No fix where the arguments do not show which (`LongTensor(ids)`: a list, or a size).
        `set_default_tensor_type(torch.cuda.FloatTensor)` as a statement of its own becomes
        `torch.set_default_device("cuda")` where the target torch has it (2.0); unsafe: the old call also set
        the default dtype to float32, which it is unless something else changed it. No fix for other types (a
        device and a dtype: two calls).
    """,
    tokens=("torch", words("cuda"), re.compile(r"[A-Z][A-Za-z0-9]*Tensor|set_default_tensor_type")),
    screen=any_candidate(_legacy_uses),
    candidates=_legacy_uses,
    preview=True,
)
