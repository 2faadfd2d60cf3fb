"""DEV011 — host data made into a CPU tensor, then moved (in preview).

Each case is a snippet and the exact `(line, col, code)` reports DEV011 gives on it with preview on;
the report points at the factory call. Without preview the rule does not run.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint

FLAGGED = [
    pytest.param("""
        import torch
        x = torch.tensor([1, 2, 3]).to(device)
    """, [(2, 5)], id="list_display"),
    pytest.param("""
        import torch
        x = torch.tensor(0.5).cuda()
    """, [(2, 5)], id="a_number"),
    pytest.param("""
        import numpy as np
        import torch
        x = torch.as_tensor(np.ones(3)).to(device)
    """, [(3, 5)], id="numpy_array"),
    pytest.param("""
        import torch
        def f(values, device):
            x = torch.tensor(values)
            x = x.to(device)
            return x
    """, [(3, 9)], id="data_of_unknown_type_moved_on_the_next_line"),
    pytest.param("""
        import torch
        y = torch.LongTensor([len(w) for w in words]).cuda()
    """, [(2, 5)], id="legacy_constructor_of_a_list"),
]

NOT_FLAGGED = [
    pytest.param("""
        import torch
        def f(t, w):
            return (torch.tensor(w) * w).to(t.device)
    """, [], id="data_made_a_tensor_and_computed_with_the_data_itself"),
    pytest.param("""
        import torch
        x = torch.zeros(3).to(device)
    """, [], id="an_allocation_is_dev002"),
    pytest.param("""
        import torch
        def f(t: torch.Tensor, device):
            return torch.tensor(t).to(device)
    """, [], id="copy_of_a_tensor"),
    pytest.param("""
        import torch
        x = torch.tensor([]).to(device)
    """, [], id="empty_placeholder"),
    pytest.param("""
        import torch
        x = torch.tensor([1, 2], device=device)
    """, [], id="device_given"),
    pytest.param("""
        import torch
        x = torch.from_numpy(array).to(device)
    """, [], id="from_numpy"),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev011_with_preview(code: str, expected: list[tuple[int, int]]) -> None:
    found = [(line, col) for line, col, code_ in lint(textwrap.dedent(code).lstrip("\n"), preview=True) if code_ == "DEV011"]
    assert found == expected


def test_dev011_is_off_without_preview_unless_named() -> None:
    code = "import torch\nx = torch.tensor([1, 2, 3]).to(device)\n"
    assert [r for r in lint(code) if r[2] == "DEV011"] == []
    assert [r for r in lint(code, select=("DEV",)) if r[2] == "DEV011"] == []
    assert [r for r in lint(code, select=("DEV011",)) if r[2] == "DEV011"] == [(2, 5, "DEV011")]
    assert [r for r in lint(code, select=("DEV011",), preview=True) if r[2] == "DEV011"] == [(2, 5, "DEV011")]


def test_dev011_fix_gives_the_factory_the_device() -> None:
    from devlint import fix_source
    from devlint.engine.settings import Settings

    fixed = fix_source("import torch\nx = torch.tensor([1, 2]).to(device)\n", settings=Settings(preview=True))
    assert fixed.source == "import torch\nx = torch.tensor([1, 2], device=device)\n"


def test_dev011_suggests_a_factory_that_takes_a_device_for_a_legacy_constructor() -> None:
    # `torch.Tensor(data, device=..., dtype=...)` raises: the legacy constructor takes neither keyword
    from devlint import lint_source
    from devlint.engine.settings import Settings

    code = "import torch\ndef f(img: torch.Tensor):\n    k = torch.Tensor([[0.0, 1.0], [1.0, 0.0]]).to(img)\n    return k\n"
    (report,) = [d for d in lint_source(code, settings=Settings(preview=True)) if d.code == "DEV011"]
    assert "`torch.tensor(..., device=img.device, dtype=img.dtype)`" in report.message
    assert "torch.Tensor(..., device=" not in report.message
