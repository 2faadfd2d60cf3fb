"""DEV010 — a host read of a `non_blocking=True` copy to the CPU with no synchronize in between."""

from __future__ import annotations

import ast
from typing import Iterator

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts, contains
from devlint.rules.rule import FixSafety, Rule


def _screen(facts: SyntaxFacts) -> bool:
    """A `.to(...)` or `.copy_(...)` call given `non_blocking=True`; or a `cpu()` defined where a method is
    given `non_blocking` (its own move may be one)."""
    if facts.nonblocking_methods & {"to", "copy_"}:
        return True
    return bool(facts.nonblocking_methods) and any(function.name == "cpu" for function in facts.functions)


def _candidates(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Where the rule reports, by the top-level statement LibCST must parse (devlint/analysis/needed.py): every call
    given `non_blocking` (the copy; a read or a hand-over follows it in its block, or is chained onto it; a `cpu()`
    returns it), and every call by its name of a function that holds one (`y = fetch(x)` then `y.tolist()`: the
    caller reads what `fetch` returns)."""
    copies = [call for call in facts.every_call() if any(keyword.arg == "non_blocking" for keyword in call.keywords)]
    yield from copies
    yield from facts.calls_by_name({function.name for function in facts.functions
                                    if any(contains(function, call) for call in copies)})


RULE = Rule(
    code="DEV010",
    name="unsynchronised-nonblocking-read",
    summary="A tensor copied to the CPU with `non_blocking=True` is read on the host before any synchronize",
    why="""
        A copy from a GPU to the CPU with `non_blocking=True` lands in pinned memory and returns at once,
        before the GPU has written anything: the copy is only queued on the stream. Reading the result on
        the host (`.numpy()`, `.tolist()`, `.item()`, `float(y)`, `print(y)`, or handing it to native code or
        another library, which reads the memory at once: `wrapper.plan(host_indptr)`, `onp.asarray(y)`) before
        `torch.cuda.synchronize()`, `torch.accelerator.synchronize()`, a stream's or an event's
        `.synchronize()` reads whatever the buffer held: zeros, or the previous batch's values, with no error.
        The read is reported when it follows the copy in the same block (or is chained onto the copy
        itself, or reads a name bound to what is taken from it: `v = y[0]`, `flat = y.view(-1)`, a view of the
        buffer the copy has not filled yet, or `s = y.sum()`, values computed from it; not its shape or
        device, known at once) and nothing between can wait for the GPU: any call of `synchronize`, `.item()`,
        `.tolist()`, `.numpy()`, `.cpu()`, a blocking `.to(...)`, or `print`/`float`/`int`/`bool` of
        another value ends the search. A call that hands the tensor on counts as a read when it is not
        torch's (not followed yet: a copy back to a GPU, `gpu_buf.copy_(y, non_blocking=True)`, is queued
        after the first one, but a CPU operation such as `torch.cat([y, ...])` reads at once), not a
        function of this file (it may wait first; but a method of an object the class holds from another
        module's function, `self._module.plan(y)` after `self._module = get_module(...)`, is that library's,
        whatever its name), and not one that only keeps or inspects the value
        (`ys.append(y)`, `len(y)`, `list(y)`). The copy handed straight to such a call is reported too
        (`Image.fromarray(x.to("cpu", non_blocking=True))`), and so is one handed to a function of this file
        (a method of the same class, or a module function) that reads that parameter on the host (a layer
        run on it, `.tolist()`, another library's call) with nothing in it that can wait for the GPU. A copy into a buffer (`buf.copy_(x, non_blocking=True)`) counts
        when `buf` is shown to be pinned (`pin_memory=True`, `.pin_memory()`): into pageable memory the copy
        is synchronous. A `cpu()` method that returns such a copy is reported too (`return
        self._to(device="cpu", non_blocking=True)`, a class's own move handed torch's keywords): a `cpu()`
        promises what `Tensor.cpu()` and `Module.cpu()` give, values the caller can read at once, and its
        callers do. A function of this file whose every return hands back such a copy, and that never waits,
        gives its caller one too (`y = fetch(x)` then `y.tolist()`). Not reported when the source is shown to be
        on the CPU already. `.cpu()` takes no
        `non_blocking` argument (torch 2.13: `TypeError`). Confirmed on paper only: the stale read is a race
        that needs a GPU, and no GPU run has shown it yet (`devlint confirm` on a CPU runs the call shapes
        and judges nothing).
    """,
    example="""
        probs = logits.softmax(-1).to("cpu", non_blocking=True)
        labels = probs.argmax(-1).tolist()
    """,
    instead="""
        probs = logits.softmax(-1).to("cpu", non_blocking=True)
        torch.cuda.synchronize()  # or: event = torch.cuda.Event(); event.record(); ...; event.synchronize()
        labels = probs.argmax(-1).tolist()
    """,
    fix_safety=FixSafety.NONE,
    fix="""
        Where to wait is the author's choice (a whole-device `torch.cuda.synchronize()`, the current stream's
        `.synchronize()`, or an event recorded after the copy, which lets other work overlap), and which
        backend's synchronize applies is not always visible in the file; the message says what to add.
    """,
    tokens=("torch", words("non_blocking")),
    screen=_screen,
    candidates=_candidates,
)
