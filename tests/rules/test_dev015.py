"""DEV015 — a legacy CUDA tensor type (in preview).

Each case is a snippet and the exact `(line, col, code)` reports DEV015 gives on it with preview on; the report
points at the call.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint
from rules.cases import cases_for

from devlint import fix_source
from devlint.engine.settings import Settings

case = cases_for("DEV015")

FLAGGED = [
    case("the_default_type_set_to_a_cuda_type", """
        import torch
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
    """, [(2, 1)]),
    case("the_default_type_as_a_string", """
        import torch
        torch.set_default_tensor_type("torch.cuda.HalfTensor")
    """, [(2, 1)]),
    case("constructors_of_sizes_and_of_data", """
        import torch
        mask = torch.cuda.FloatTensor(4, 8)
        ids = torch.cuda.LongTensor([1, 2, 3])
        what = torch.cuda.LongTensor(values)
    """, [(2, 8), (3, 7), (4, 8)]),
    case("through_an_alias", """
        import torch as th
        x = th.cuda.ByteTensor(3)
    """, [(2, 5)]),
]

NOT_FLAGGED = [
    case("a_cpu_default_type", """
        import torch
        torch.set_default_tensor_type(torch.FloatTensor)
        torch.set_default_tensor_type("torch.DoubleTensor")
    """, []),
    case("naming_a_type_makes_nothing", """
        import torch
        ok = isinstance(x, torch.cuda.FloatTensor)
        Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
    """, []),
    case("the_modern_calls", """
        import torch
        torch.set_default_device("cuda")
        x = torch.empty(4, 8, dtype=torch.float, device="cuda")
    """, []),
    case("cpu_legacy_constructors_are_not_this_rules", """
        import torch
        x = torch.FloatTensor(4, 8)
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev015(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV015"] == expected


def fixed(code: str, target: "tuple[int, int] | None" = (2, 1), unsafe: bool = False) -> str:
    settings = Settings(preview=True, target_torch=target, select=("DEV015",))
    result = fix_source(textwrap.dedent(code), "example.py", settings, unsafe=unsafe).source
    assert fix_source(result, "example.py", settings, unsafe=unsafe).source == result
    return result


def test_constructors_become_the_factories_their_arguments_show():
    assert fixed("""
        import torch
        mask = torch.cuda.FloatTensor(4, 8)
        ids = torch.cuda.LongTensor([1, 2, 3])
        n = torch.cuda.LongTensor(7)
        what = torch.cuda.LongTensor(values)
        """) == textwrap.dedent("""
        import torch
        mask = torch.empty(4, 8, dtype=torch.float, device="cuda")
        ids = torch.tensor([1, 2, 3], dtype=torch.long, device="cuda")
        n = torch.empty(7, dtype=torch.long, device="cuda")
        what = torch.cuda.LongTensor(values)
        """)


def test_the_float_default_becomes_the_default_device_unsafely_and_only_from_torch_2_0():
    code = """
        import torch
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
        torch.set_default_tensor_type(torch.cuda.HalfTensor)
        """
    assert fixed(code) == textwrap.dedent(code)  # unsafe: the old call also set the default dtype
    assert fixed(code, unsafe=True) == textwrap.dedent("""
        import torch
        torch.set_default_device("cuda")
        torch.set_default_tensor_type(torch.cuda.HalfTensor)
        """)
    assert fixed(code, target=(1, 13), unsafe=True) == textwrap.dedent(code)
    assert fixed(code, target=None, unsafe=True) == textwrap.dedent(code)


def test_a_default_type_call_whose_value_is_used_is_not_rewritten():
    code = """
        import torch
        done = torch.set_default_tensor_type(torch.cuda.FloatTensor)
        """
    assert fixed(code, unsafe=True) == textwrap.dedent(code)
