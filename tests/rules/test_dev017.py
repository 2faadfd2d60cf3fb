"""DEV017 — a float64 tensor sent to `mps` (in preview).

Each case is a snippet and the exact `(line, col, code)` reports DEV017 gives on it with preview on; the report
points at the move (or the factory).
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint
from rules.cases import cases_for

from devlint import fix_source
from devlint.engine.settings import Settings

case = cases_for("DEV017")

FLAGGED = [
    case("numpys_default_float_through_from_numpy", """
        import numpy as np
        import torch
        def f():
            w = torch.from_numpy(np.random.rand(16, 8))
            w = w.to("mps")
            return w
    """, [(5, 9)]),
    case("in_one_expression", """
        import numpy as np
        import torch
        x = torch.as_tensor(np.zeros(4)).to("mps")
    """, [(3, 5)]),
    case("double_then_mps", """
        import torch
        def f(x):
            return x.double().to(torch.device("mps"))
    """, [(3, 12)]),
    case("a_float64_factory_on_mps", """
        import torch
        x = torch.zeros(3, dtype=torch.float64, device="mps")
    """, [(2, 5)]),
    case("device_keyword", """
        import torch
        x = torch.ones(3, dtype=torch.double).to(device="mps:0")
    """, [(2, 5)]),
]

NOT_FLAGGED = [
    case("another_numpy_dtype", """
        import numpy as np
        import torch
        x = torch.from_numpy(np.zeros(4, dtype=np.float32)).to("mps")
    """, []),
    case("python_floats_are_float32", """
        import torch
        x = torch.tensor([0.5, 1.5]).to("mps")
    """, []),
    case("converted_on_the_way", """
        import torch
        def f(x):
            return x.double().to("mps", dtype=torch.float32)
    """, []),
    case("a_device_that_is_not_a_literal", """
        import numpy as np
        import torch
        def f(device):
            return torch.from_numpy(np.zeros(4)).to(device)
    """, []),
    case("a_name_bound_twice", """
        import numpy as np
        import torch
        def f():
            w = torch.from_numpy(np.zeros(4))
            w = w.float()
            return w.to("mps")
    """, []),
    case("float64_on_another_device", """
        import torch
        x = torch.zeros(3, dtype=torch.float64, device="cuda")
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev017(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV017"] == expected


def test_the_fix_converts_on_the_way_and_is_unsafe():
    code = textwrap.dedent("""
        import numpy as np
        import torch
        x = torch.from_numpy(np.zeros(4)).to("mps")
        """)
    settings = Settings(preview=True, select=("DEV017",))
    assert fix_source(code, "example.py", settings).source == code
    fixed = fix_source(code, "example.py", settings, unsafe=True).source
    assert fixed == code.replace('.to("mps")', '.to("mps", dtype=torch.float32)')
    assert fix_source(fixed, "example.py", settings, unsafe=True).source == fixed
