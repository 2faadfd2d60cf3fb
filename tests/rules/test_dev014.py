"""DEV014 — a CUDA query that runs when the module is imported (in preview).

Each case is a snippet and the exact `(line, col, code)` reports DEV014 gives on it with preview on; the report
points at the query's call.
"""

from __future__ import annotations

import pytest

from conftest import lint, lint_messages
from rules.cases import cases_for

case = cases_for("DEV014")

FLAGGED = [
    case("at_the_top_level", """
        import torch
        SUPPORTS_BF16 = torch.cuda.get_device_capability()[0] >= 8
    """, [(2, 17)]),
    case("in_a_class_body", """
        import torch
        class Config:
            gpu = torch.cuda.get_device_name()
    """, [(3, 11)]),
    case("in_a_parameters_default", """
        import torch
        class T5Encoder:
            def __init__(self, device=torch.cuda.current_device()):
                self.device = device
    """, [(3, 31)]),
    case("in_a_decorator", """
        import functools
        import torch
        @functools.lru_cache(maxsize=torch.cuda.get_device_properties(0).multi_processor_count)
        def blocks():
            return 1
    """, [(3, 30)]),
    case("memory_queried_at_import", """
        import torch
        FREE, TOTAL = torch.cuda.mem_get_info()
    """, [(2, 15)]),
    case("an_unrelated_check_does_not_guard_it", """
        import os
        import torch
        if os.environ.get("FAST"):
            CAP = torch.cuda.get_device_capability()
    """, [(4, 11)]),
]

NOT_FLAGGED = [
    case("inside_a_function", """
        import torch
        def capability():
            return torch.cuda.get_device_capability()
    """, []),
    case("behind_an_availability_check", """
        import torch
        OK = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 0)
        NAME = torch.cuda.get_device_name() if torch.cuda.is_available() else None
        if torch.cuda.is_available():
            MAJOR, MINOR = torch.cuda.get_device_capability()
    """, []),
    case("behind_a_device_count", """
        import torch
        A100 = torch.cuda.device_count() > 0 and "A100" in torch.cuda.get_device_name()
    """, []),
    case("a_loop_over_the_gpus", """
        import torch
        NAMES = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    """, []),
    case("in_a_try", """
        import torch
        try:
            CAP = torch.cuda.get_device_capability()
        except AssertionError:
            CAP = None
    """, []),
    case("in_the_main_block", """
        import torch
        def main():
            pass
        if __name__ == "__main__":
            print(torch.cuda.get_device_name())
    """, []),
    case("a_script", """
        import torch
        print(torch.cuda.get_device_name(0))
        for step in range(10):
            pass
    """, []),
    case("calls_that_answer_without_cuda", """
        import torch
        N = torch.cuda.device_count()
        BF16 = torch.cuda.is_bf16_supported()
    """, []),
    case("cuda_only_by_design", """
        import torch
        import triton
        CAP = torch.cuda.get_device_capability()
    """, []),
    case("in_a_lambda", """
        import torch
        capability = lambda: torch.cuda.get_device_capability()
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev014(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV014"] == expected


def test_a_notebook_cell_is_not_an_import() -> None:
    code = "import torch\nCAP = torch.cuda.get_device_capability()\n"
    assert [r for r in lint(code, "notebook.ipynb", preview=True) if r[2] == "DEV014"] == []


def test_the_message_says_where_it_runs() -> None:
    assert lint_messages("import torch\nCAP = torch.cuda.get_device_capability()\n", "DEV014", preview=True) == [
        "`torch.cuda.get_device_capability()` runs at the module's top level, and raises where there is no CUDA:"
        " the import itself fails on a CPU-only or Apple machine; ask inside the function that needs it, or behind"
        " `torch.cuda.is_available()`"]
