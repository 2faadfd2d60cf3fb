"""DEV016 — a DataLoader asked to pin a dataset whose items are on CUDA already."""

from __future__ import annotations

import ast
from typing import Iterator

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate


def _pinning_loaders(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every call given `pin_memory=True` in a file that defines a `__getitem__` (the visitor reads which dataset)."""
    if not any(isinstance(node, ast.FunctionDef) and node.name == "__getitem__" for node in facts.functions):
        return iter(())
    return (call for call in facts.calls if any(
        keyword.arg == "pin_memory" and isinstance(keyword.value, ast.Constant) and keyword.value.value is True
        for keyword in call.keywords))


def _loaders_and_items(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """The loaders, and each `__getitem__` the visitor may read (LibCST keeps their classes whole)."""
    loaders = list(_pinning_loaders(facts))
    yield from loaders
    if loaders:
        yield from (node for node in facts.functions if node.name == "__getitem__")


RULE = Rule(
    code="DEV016",
    name="pinned-device-data",
    summary="`DataLoader(..., pin_memory=True)` of a dataset whose items are on CUDA: pinning them raises",
    why="""
        Pinning is for host memory: the loader copies each batch into page-locked CPU memory so that the copy
        to the GPU can run asynchronously. A dataset whose `__getitem__` already returns CUDA tensors (`.cuda()`,
        `.to("cuda")`, a factory given `device="cuda"`) gives the pinning thread tensors it cannot pin:
        `RuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned`, on the first
        batch. Return CPU tensors and move the batch in the loop (`batch.to(device, non_blocking=True)`), or do
        not ask to pin.
    """,
    details="""
        Reported where the file shows both: the loader given `pin_memory=True` and a dataset made there from a class
        the file defines (`DataLoader(Frames(...), ...)` or a name bound once to one), whose `__getitem__` returns a
        value written out on CUDA, directly or in a tuple, list or dict. Not reported: a device that is not written
        out (`.to(self.device)` may be the CPU), a dataset from elsewhere, `pin_memory` that is not `True`.
    """,
    example="""
        class Frames(Dataset):
            def __getitem__(self, i):
                return torch.from_numpy(self.frames[i]).cuda()

        loader = DataLoader(Frames(frames), batch_size=32, pin_memory=True)
    """,
    instead="""
        class Frames(Dataset):
            def __getitem__(self, i):
                return torch.from_numpy(self.frames[i])

        loader = DataLoader(Frames(frames), batch_size=32, pin_memory=True)
        for batch in loader:
            batch = batch.to(device, non_blocking=True)
    """,
    fix_safety=FixSafety.NONE,
    fix="""
        None: whether the dataset should give CPU tensors (and the loop move them) or the loader should stop
        pinning is the code's to choose.
    """,
    tokens=("torch", words("pin_memory"), words("__getitem__")),
    screen=any_candidate(_pinning_loaders),
    candidates=_loaders_and_items,
    preview=True,
)
