"""DEV013 — a GPU index written into the code (`"cuda:1"`, `.cuda(1)`, `set_device(1)`)."""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from devlint.analysis.prefilter import words
from devlint.analysis.screen import VISIBLE_DEVICES, SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate


def gpu_index(value: str) -> Optional[int]:
    """The index of a `"cuda:N"` string (spaces around allowed); None for anything else."""
    backend, colon, index = value.strip().partition(":")
    return int(index) if backend == "cuda" and colon and index.isdigit() else None


def first_visible_index(value: str) -> Optional[int]:
    """The first GPU a `CUDA_VISIBLE_DEVICES` value names (`"1"`, `"2,3"`); None where it names none by number
    (`""`, `"GPU-8f3e..."` UUIDs)."""
    first = value.split(",")[0].strip()
    return int(first) if first.isdigit() else None


def _literal_indices(call: ast.Call) -> list[int]:
    """The integer literals a call is given, by position or keyword (`.cuda(1)`, `device("cuda", index=1)`)."""
    return [arg.value for arg in (*call.args, *(keyword.value for keyword in call.keywords))
            if isinstance(arg, ast.Constant) and type(arg.value) is int]


# What takes a GPU index: `.cuda(1)`, `torch.device("cuda", 1)`, `torch.cuda.set_device(1)`, `torch.cuda.device(1)`
INDEXED_CALLS = frozenset({"cuda", "device", "set_device"})


def named_indices(facts: SyntaxFacts) -> set[int]:
    """Every GPU index the file writes out: in `"cuda:N"` strings and in the calls that take one."""
    found = {index for index in map(gpu_index, (node.value for node in facts.indexed_cuda_strings))
             if index is not None}
    for call in facts.calls_by_name(INDEXED_CALLS):
        found.update(_literal_indices(call))
    return found


def indices_of(facts: SyntaxFacts) -> set[int]:
    """`named_indices` of the file, read once for the screen and the visitor."""
    found = facts.memo.get(named_indices)
    if found is None:
        found = facts.memo[named_indices] = named_indices(facts)
    return found  # type: ignore[return-value]


def _candidates(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every `"cuda:N"` string with N of 1 or more, every `.cuda(...)` / `device(...)` / `set_device(...)` call given
    an integer literal of 1 or more, and every `CUDA_VISIBLE_DEVICES` string (the visitor reads what is assigned to
    it). In a file that names two GPU indices or more (a device map), only the last."""
    one_gpu = len(indices_of(facts)) < 2
    for node in facts.indexed_cuda_strings:
        if node.value == VISIBLE_DEVICES or (one_gpu and (gpu_index(node.value) or 0) >= 1):
            yield node
    if one_gpu:
        yield from (call for call in facts.calls_by_name(INDEXED_CALLS) if any(
            index >= 1 for index in _literal_indices(call)))


RULE = Rule(
    code="DEV013",
    name="hardcoded-gpu-index",
    summary='A GPU index is written into the code (`"cuda:1"`, `.cuda(1)`, `set_device(1)`): it fails where there are fewer GPUs',
    why="""
        `"cuda:1"`, `torch.device("cuda", 1)`, `.cuda(1)`, `torch.cuda.set_device(1)` and
        `torch.cuda.device(1)` name the second GPU of the machine the code was written on. On a machine with
        one GPU (a laptop, a CI runner, most cloud instances) they fail with `RuntimeError: CUDA error: invalid
        device ordinal`, whatever availability check guards them: `torch.cuda.is_available()` says there is a GPU,
        not that there are two. `os.environ["CUDA_VISIBLE_DEVICES"] = "1"` set by a module others import picks a
        GPU for every program that imports it, and leaves none visible on a one-GPU machine. Take the index from
        the launcher (`LOCAL_RANK`), the configuration or the command line, and let the user choose the visible
        GPUs.
    """,
    details="""
        Index 0 is not reported (every machine with a GPU has it), nor an index that is not a literal (`local_rank`,
        `args.gpu`). Not reported: a function parameter's or a command-line option's default (`device="cuda:1"`,
        `add_argument("--device", default="cuda:1")`: a setting the caller or the user passes); a comparison
        (`device == "cuda:1"`); code under a test of the number of GPUs (`if torch.cuda.device_count() > 1:`);
        a file that places values on two or more GPUs by number (`"cuda:0"` and `"cuda:1"`: a device map,
        multi-GPU by design); test code; `CUDA_VISIBLE_DEVICES` set by a script (a module with an `if __name__ ==
        "__main__":` block: the program that runs is where a machine's GPUs are chosen) or to `"0"`.
    """,
    example="""
        model = Net().to("cuda:1")
        torch.cuda.set_device(1)
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"  # in a module others import
    """,
    instead="""
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
        model = Net().to(device)
    """,
    fix_safety=FixSafety.NONE,
    fix="""
        None: which GPU the code should use is the user's to say (an option, the launcher's `LOCAL_RANK`,
        `CUDA_VISIBLE_DEVICES` set where the program is run).
    """,
    tokens=(words("cuda", "set_device", VISIBLE_DEVICES),),
    screen=any_candidate(_candidates),
    candidates=_candidates,
    preview=True,
)
