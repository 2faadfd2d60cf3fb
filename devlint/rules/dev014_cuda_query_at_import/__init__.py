"""DEV014 — a CUDA query that runs when the module is imported."""

from __future__ import annotations

import ast
from typing import Iterator

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate

# The `torch.cuda` queries that raise where there is no CUDA (`Torch not compiled with CUDA enabled`, `No CUDA GPUs
# are available`); `device_count()`, `is_available()`, `is_bf16_supported()` and `get_arch_list()` answer there.
QUERIES = ("get_device_capability", "get_device_name", "get_device_properties", "current_device", "mem_get_info")
_QUALIFIED = frozenset(f"torch.cuda.{name}" for name in QUERIES)


def is_query(qualified: "str | None") -> bool:
    return qualified in _QUALIFIED


def _queries(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every call of a CUDA query, anywhere (the visitor reads which of them run at import)."""
    return (call for call in facts.calls if any(is_query(name) for name in facts.torch_names(call)))


RULE = Rule(
    code="DEV014",
    name="cuda-query-at-import",
    summary="A CUDA query runs when the module is imported: the import fails on a machine without CUDA",
    why="""
        `torch.cuda.get_device_capability()`, `get_device_name()`, `get_device_properties()`,
        `current_device()` and `mem_get_info()` raise where there is no CUDA (`AssertionError: Torch not
        compiled with CUDA enabled`, `RuntimeError: No CUDA GPUs are available`). Called at a module's top
        level, in a class body, in a parameter's default (`def __init__(self, device=torch.cuda.current_device())`)
        or in a decorator, they run when the module is imported: on a CPU-only machine, in CI or on Apple
        silicon, `import` itself fails, with everything that imports the module, before any code could choose a
        device. Ask inside the function that needs the answer, or behind an availability check.
    """,
    details="""
        Not reported: a query behind a check that CUDA is there or of what it is (`if torch.cuda.is_available():`,
        `torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 0)`, `x if torch.cuda.device_count()
        else y`, `if device.type == "cuda":`), in a loop over the GPUs (`for i in range(torch.cuda.device_count())`),
        in a `try` that handles the failure, in the `if __name__ == "__main__":` block or in a module that runs as a
        script (top-level calls or loops: its run is not an import; a notebook neither), and in a file that is
        CUDA-only by design (Triton, a CUDA extension, CUDA asserted at the top).
    """,
    example="""
        class T5Encoder:
            def __init__(self, device=torch.cuda.current_device()):
                ...

        SUPPORTS_BF16 = torch.cuda.get_device_capability()[0] >= 8
    """,
    instead="""
        class T5Encoder:
            def __init__(self, device=None):
                device = torch.cuda.current_device() if device is None else device

        SUPPORTS_BF16 = torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 8
    """,
    fix_safety=FixSafety.NONE,
    fix="""
        None: where the answer is needed instead, and what it should be without CUDA, is the code's to say.
    """,
    tokens=("torch", words(*QUERIES)),
    screen=any_candidate(_queries),
    candidates=_queries,
    preview=True,
)
