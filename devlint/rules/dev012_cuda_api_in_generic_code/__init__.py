"""DEV012 — a `torch.cuda` call in code shown to run on other devices too."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, Optional

from devlint.analysis import portable
from devlint.analysis.cuda_evidence import Evidence, FileEvidence, evidence_of
from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate


@dataclass(frozen=True)
class Twin:
    """What replaces a `torch.cuda` call on every backend."""

    written: str  # what the message suggests
    call: Optional[str] = None  # the `torch.accelerator` function the fix calls; None: no fix
    since: portable.TorchVersion = portable.ACCELERATOR_DEVICE_INDEX
    safe: bool = False
    takes_device: bool = False  # its one argument is a device (positional-only in `torch.accelerator`)


# The `torch.cuda` functions that fail where there is no CUDA and have a device-generic twin. Not among them:
# `is_available()` (it answers for CUDA, and what it guards is most often CUDA's own: DEV003 reports a device chosen
# by it), `device_count()`, `empty_cache()` and the memory statistics (they answer 0 or do nothing there: the code
# goes on), `current_device()` / `set_device()` (an index passed as a device means CUDA, the twin's index too; they
# set up one GPU per process), and `get_device_name()` / `get_device_properties()` (no twin:
# `torch.accelerator.get_device_name` does not exist).
TWINS = {
    "synchronize": Twin("torch.accelerator.synchronize()", "synchronize", safe=True, takes_device=True),
    "current_stream": Twin("torch.accelerator.current_stream()", "current_stream", takes_device=True),
    "Stream": Twin("torch.Stream(device)"),
    "Event": Twin("torch.Event(device)"),
    "reset_peak_memory_stats": Twin("torch.accelerator.reset_peak_memory_stats()", "reset_peak_memory_stats",
                                    since=portable.ACCELERATOR_MEMORY, takes_device=True),
}
_QUALIFIED = {f"torch.cuda.{name}": name for name in TWINS}
_QUALIFIED.update({"torch.cuda.memory.reset_peak_memory_stats": "reset_peak_memory_stats",
                   "torch.cuda.streams.Stream": "Stream", "torch.cuda.streams.Event": "Event"})


def cuda_api(qualified: Optional[str]) -> Optional[str]:
    """`"synchronize"` for `torch.cuda.synchronize` (any of its homes), else None."""
    return _QUALIFIED.get(qualified or "")


def generic_evidence(evidence: FileEvidence, function: Optional[str], guarded: bool = False) -> Optional[Evidence]:
    """The sign that the code of `function` (a qualified name; None: the module's top level) is meant to run on
    other devices than CUDA: the file's, else the function's own; None where something other than its
    `torch.cuda` calls shows the file CUDA-only by design. For a call `guarded` by an availability check, a sign
    other than such a check: a file that only checks may mean "CUDA's code where there is CUDA"."""
    if evidence.designed_for_cuda is not None:
        return None
    shown = evidence.beyond_checks if guarded else evidence.portable
    if shown is not None:
        return shown
    return next((found for name, found in evidence.following if name == function), None)


def _calls(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every call of a `torch.cuda` function that has a device-generic twin, in a file not CUDA-only by design
    and shown (somewhere) to run elsewhere."""
    calls = [call for call in facts.calls if any(cuda_api(name) for name in facts.torch_names(call))]
    if not calls:
        return iter(())  # (before the evidence: reading it costs more than finding the calls)
    evidence = evidence_of(facts)
    if evidence.designed_for_cuda is not None or (evidence.portable is None and not evidence.following):
        return iter(())
    return iter(calls)


RULE = Rule(
    code="DEV012",
    name="cuda-api-in-generic-code",
    summary="A `torch.cuda` call that fails without CUDA, in code shown to run elsewhere: use `torch.accelerator`",
    why="""
        `torch.cuda.synchronize()`, `current_stream()`, `reset_peak_memory_stats()` and `torch.cuda.Stream()` / `Event()` need CUDA: on Apple silicon, an Intel
        GPU or a CPU-only machine they raise (`Torch not compiled with CUDA enabled`), or, under an
        availability check, are skipped there (a timing with no synchronisation). Since torch 2.6
        `torch.accelerator` asks the same of whatever accelerator the machine has. Reported where the file is
        shown to be meant to run without CUDA (DEV003's evidence: it checks whether a backend is there, falls
        back to the CPU, offers a CPU option, or the function follows its inputs' devices) and nothing but its
        `torch.cuda` calls shows it CUDA-only by design (Triton, a CUDA extension, an NCCL group, CUDA asserted).
    """,
    details="""
        Not reported: test code; a file, class or function whose name says CUDA or GPU (`cuda_graph.py`,
        `class CUDAPrefetcher`); a function that calls a collective or a barrier (`dist.all_gather`: NCCL takes
        CUDA tensors only), or sends values to CUDA itself (`x.to("cuda")`, `.cuda()`: making its `torch.cuda`
        calls generic would not make it run elsewhere; DEV003 judges those); a call in a branch that asks for CUDA itself (`if device.type == "cuda":`,
        `if x.is_cuda:`, `if use_cuda:`: that branch is CUDA's own), that asks about `torch.accelerator` or the
        torch version (`hasattr(torch, "accelerator")`: the old call is kept for an older torch), or in an
        `except` fallback. A call under `if torch.cuda.is_available():` is reported where the file shows more
        than such checks (it falls back to the CPU, offers a CPU option, has another backend's branch): on
        another accelerator the call is skipped, where its twin would run. Not reported at all: `torch.cuda.is_available()` (it answers for
        CUDA, and what it guards is most often CUDA's own: DEV003 reports a device chosen by it);
        `device_count()`, `empty_cache()` and the memory statistics (they answer 0 or do nothing without CUDA,
        and the code goes on); `current_device()` and `set_device(...)` (an index passed as a device means CUDA,
        `torch.accelerator.current_device_index()`'s too; they pin one GPU to each process of a distributed
        run); `get_device_name()` and `get_device_properties()` (no twin:
        `torch.accelerator.get_device_name` is not an API).
    """,
    example="""
        device = "cuda" if torch.cuda.is_available() else "cpu"
        ...
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
    """,
    instead="""
        torch.accelerator.synchronize()
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        Only where the target torch (`target-torch`, else what the project declares) has the twin, its first
        version read in torch's own source: `synchronize(device)` and `current_stream(device)` from 2.6 (in torch
        2.6.0's `torch/accelerator/__init__.py`; 2.5.1 has no `torch.accelerator`). A `device=` keyword becomes
        the positional argument (the `torch.accelerator` functions take it positionally only). Safe for
        `synchronize`: on CUDA it does the same, and where there is no accelerator both raise. Unsafe for
        `current_stream()`: it returns a `torch.Stream`, not a `torch.cuda.Stream` (`.cuda_stream` and CUDA's
        own stream context ask for the CUDA type). No fix for `torch.cuda.Stream` / `Event`, though their
        constructors `torch.Stream(device)` / `torch.Event(device)` are in torch from 2.4: the generic types are
        not the CUDA ones (no `.cuda_stream`; before 2.6 a `torch.cuda.Event` is no `torch.Event`, so the two do
        not mix), and a generic event cannot be recorded on the CPU ("cpu backend doesn't support events"), so
        the code still fails there. `reset_peak_memory_stats(device)` from 2.9 (2.9.0's `torch/accelerator/memory.py`),
        unsafe: where nothing was allocated yet, the accelerator's is a no-op and CUDA's starts CUDA.
    """,
    tokens=("torch", words("cuda"), words(*TWINS)),
    screen=any_candidate(_calls),
    candidates=_calls,
    preview=True,
)
