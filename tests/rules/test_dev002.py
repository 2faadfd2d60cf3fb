"""DEV002 — a tensor created on the CPU and then moved, instead of created on the device.

Each case is a snippet and the exact `(line, col, code)` reports DEV002 gives on it; the
report points at the factory call.
"""

from __future__ import annotations

import pytest

from conftest import lint
from rules.cases import cases_for, reports

case = cases_for("DEV002")

FLAGGED = [
    case("zeros_then_to_device", """
        import torch
        x = torch.zeros(3).to(device)
    """, [(2, 5)]),
    case("device_keyword_of_the_move", """
        import torch
        x = torch.ones(3).to(device=device)
    """, [(2, 5)]),
    case("cuda_call", """
        import torch
        x = torch.randn(3).cuda()
    """, [(2, 5)]),
    case("every_listed_factory", """
        import torch
        c = torch.empty(2).to(d)
        e = torch.full((2,), 1.0).to(d)
        f = torch.rand(2).to(d)
        g = torch.randint(0, 5, (2,)).to(d)
        h = torch.randperm(4).to(d)
        i = torch.arange(4).to(d)
        j = torch.linspace(0, 1, 5).to(d)
        k = torch.logspace(0, 1, 5).to(d)
        m = torch.eye(3).to(d)
    """, [(2, 5), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5), (8, 5), (9, 5), (10, 5)]),
    case("torch_imported_as_th", """
        import torch as th
        x = th.arange(5).to(dev)
    """, [(2, 5)]),
    case("factory_imported_from_torch", """
        from torch import zeros, load
        x = zeros(5).cuda()
    """, [(2, 5)]),
    case("dtype_casts_between_factory_and_move", """
        import torch
        x = torch.zeros(n).float().cuda()
        y = torch.arange(4).long().contiguous().to(device)
    """, [(2, 5), (3, 5)]),
    case("dtype_only_to_between_factory_and_move", """
        import torch
        x = torch.ones(v).to(torch.float32).to(device)
    """, [(2, 5)]),
    case("dtype_keyword_without_device", """
        import torch
        x = torch.zeros(3, dtype=torch.long).to(device)
    """, [(2, 5)]),
    case("move_to_another_tensor", """
        import torch
        def f(x):
            mask = torch.ones(3).to(x)
            first = torch.zeros(3).to(x[0])
            return mask, first
    """, [(3, 12), (4, 13)]),
    case("move_to_another_tensors_device", """
        import torch
        def f(x):
            return torch.ones(3).to(x.device)
    """, [(3, 12)]),
    case("multi_line_factory", """
        import torch
        x = torch.zeros(
            3,
            4,
        ).to(device)
    """, [(2, 5)]),
    case("nested_in_another_call", """
        import torch
        y = f(g(torch.zeros(3).to(device)))
    """, [(2, 9)]),
    case("split_over_two_statements", """
        import torch
        def f(n, dev):
            t = torch.zeros(n)
            t = t.to(dev)
            return t
    """, [(3, 9)]),
    case("split_with_unrelated_lines_between", """
        import torch
        def f(n, dev):
            t = torch.zeros(n)
            k = n + 1
            t = t.cuda()
            return t, k
    """, [(3, 9)]),
    case("move_with_non_blocking", """
        import torch
        x = torch.ones(2).to(device, non_blocking=True)
    """, [(2, 5)]),
    case("string_cuda_target", """
        import torch
        x = torch.ones(2).to("cuda:1")
    """, [(2, 5)]),
    # issue 14: a starred positional is sizes (device= is keyword-only); only `**kwargs` may place
    case("starred_sizes", """
        import torch
        def f(shape, idx, dev, device):
            a = torch.zeros(*shape).to(dev)
            b = torch.ones(*idx.shape, dtype=bool).to(device)
            return a, b
    """, [(3, 9), (4, 9)]),
    case("legacy_constructor_of_sizes_then_move", """
        import torch
        def f(n, dev):
            x = torch.FloatTensor(n, 3).to(dev)
            y = torch.LongTensor(8).cuda()
            return x, y
    """, [(3, 9), (4, 9)]),
    case("legacy_constructor_of_sizes_moved_on_the_next_statement", """
        import torch
        def f(n, dev):
            x = torch.LongTensor(n, 2)
            x = x.to(dev)
            return x
    """, [(3, 9)]),
    case("legacy_constructor_of_a_factory_then_move", """
        import torch
        def pad(x, n):
            return torch.Tensor(torch.zeros(2, n)).type(x.dtype).to(x.device)
    """, [(3, 12)]),
    # `torch.LongTensor(ids)` is sizes or data (token ids that must cross anyway): the file does not say
    case("legacy_constructor_of_a_name_may_be_data", """
        import torch
        def f(a, ids, dev):
            x = torch.FloatTensor(a).to(dev)
            y = torch.LongTensor(ids).cuda()
            z = torch.LongTensor(ids)
            z = z.to(dev)
            return x, y, z
    """, []),
    case("factories_inside_a_list_argument", """
        import torch
        def grid(ny, nx, d):
            return torch.meshgrid([torch.arange(ny).to(d), torch.arange(nx).to(d)])
    """, [(3, 28), (3, 52)]),
    case("move_with_dtype_and_memory_format", """
        import torch
        x = torch.zeros(2).to(device, torch.half)
        y = torch.empty(1, 3, 4, 4).to(device, memory_format=torch.channels_last)
    """, [(2, 5), (3, 5)]),
    case("computed_from_the_factory_with_numbers_then_moved", """
        import math
        import torch
        def embed(t, dim, scale: float):
            half = dim // 2
            freqs = torch.exp(-math.log(10000) * torch.arange(half) / half).to(t.device)
            pos = (torch.arange(dim).float().unsqueeze(0) * 3 * 2.0).cuda()
            return freqs, pos
    """, [(5, 42), (6, 12)]),
]

NOT_FLAGGED = [
    case("computed_with_a_value_that_may_be_a_tensor_then_moved", """
        import torch
        def f(t, weights, n: int):
            a = (torch.arange(n) * weights).to(t.device)
            b = torch.exp(torch.arange(n) + torch.ones(n)).to(t.device)
            c = (torch.arange(n) @ weights).to(t.device)
            return a, b, c
    """, []),
    # zeros_like(x) is made on x's device: a move after it is redundant at worst, never a host copy
    case("like_factory_follows_its_input", """
        import torch
        def f(x, d):
            return torch.zeros_like(x).to(d)
    """, []),
    case("factory_with_device", """
        import torch
        x = torch.zeros(3, device=device).to(torch.float16)
    """, []),
    case("dtype_only_move", """
        import torch
        x = torch.zeros(3).to(torch.float16)
        y = torch.zeros(3).to(dtype=torch.float16)
    """, []),
    case("move_to_cpu", """
        import torch
        x = torch.zeros(3).to("cpu")
        y = torch.zeros(3).to(torch.device("cpu"))
    """, []),
    case("from_numpy_is_on_the_host_anyway", """
        import torch
        x = torch.from_numpy(a).to(device)
    """, []),
    case("under_with_torch_device", """
        import torch
        with torch.device(device):
            x = torch.zeros(3).to(device)
    """, []),
    case("after_set_default_device", """
        import torch
        torch.set_default_device("cuda")
        x = torch.zeros(3).to(device)
    """, []),
    case("factory_with_star_kwargs", """
        import torch
        x = torch.zeros(3, **factory_kwargs).to(device)
    """, []),
    case("not_a_factory", """
        import torch
        x = torch.cat([a, b]).to(device)
    """, []),
    case("split_with_a_use_in_between", """
        import torch
        def f(n, dev):
            t = torch.zeros(n)
            t[0] = 1
            t = t.to(dev)
            return t
    """, []),
    case("split_move_of_another_name", """
        import torch
        def f(n, dev, u):
            t = torch.zeros(n)
            u = u.to(dev)
            return t, u
    """, []),
    case("factory_of_another_library", """
        import torch
        import numpy as np
        x = np.zeros(3).to(device)
    """, []),
    case("file_without_torch_import", """
        def f(torch_like):
            return zeros(3).to(device)
    """, []),
    case("noqa_on_the_line", """
        import torch
        x = torch.zeros(3).to(device)  # noqa: DEV002
    """, []),
    # issue 14: a CPU generator forces the draw onto the CPU; `device=` would raise
    case("random_factory_with_generator", """
        import torch
        def f(n, g, device):
            a = torch.randn(n, generator=g).to(device)
            b = torch.randperm(n, generator=g)
            b = b.to(device)
            return a, b
    """, []),
    case("legacy_constructor_without_arguments", """
        import torch
        x = torch.Tensor().to(device)
    """, []),
    case("legacy_constructor_with_keywords", """
        import torch
        x = torch.Tensor(3, device=device).to(device)
    """, []),
    case("host_data_that_crosses_anyway_is_dev011", """
        import torch
        a = torch.tensor([1, 2]).to(d)
        b = torch.as_tensor(array).cuda()
        c = torch.LongTensor([len(w) for w in words]).to(d)
    """, []),
    case("copy_of_a_value_shown_to_be_a_tensor_keeps_its_device", """
        import torch
        def f(t: torch.Tensor, d):
            return torch.tensor(t).to(d)
    """, []),
    case("zero_element_placeholders", """
        import torch
        a = torch.zeros(0).to(d)
        b = torch.empty(0, 3).to(d)
        c = torch.empty((0,)).cuda()
        e = torch.full((0,), 1.0).to(d)
        f = torch.randint(0, 5, (0,)).to(d)
        g = torch.arange(0, 0).to(d)
        h = torch.arange(0).cuda()
        i = torch.arange(3, 0, 1).to(d)
    """, []),
    # T18's blind labels: an `arange` whose literal bounds hold a step is not a placeholder
    case("arange_with_a_step_in_its_bounds", """
        import torch
        a = torch.arange(3, 0, -1).to(d)
        b = torch.arange(0, 1).to(d)
    """, [(2, 5), (3, 5)]),
    case("tensor_method_new_zeros", """
        import torch
        def f(x, d):
            return x.new_zeros(3).to(d)
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev002(code: str, expected: list[tuple[int, int, str]]) -> None:
    """Every shape, with preview on (by default only a copy shown to repeat: tests/rules/test_dev002_hot_path.py)."""
    assert [r for r in lint(code, preview=True) if r[2] == "DEV002"] == expected


def test_a_device_named_variable_is_no_tensor_to_take_the_dtype_of() -> None:
    """fairscale: `device, offload = _init()`, `device = devices[0].split("/")[1]`: elements by the conventions that
    make an element a tensor, but the names hold devices; `device.new_ones(...)` would fail."""
    from conftest import lint_messages

    messages = lint_messages("""
        import torch
        def run(setup, devices):
            device, offload_device = setup()
            other = devices[0].split("/")[1]
            return torch.ones(3).to(device), torch.ones(3).to(other)
    """, "DEV002", preview=True)
    assert messages[0] == ("`torch.ones(...)` is created on the CPU and then moved with `.to(...)`; create it on the"
                           " device: `torch.ones(..., device=...)`")


def test_a_move_to_a_tensor_says_that_it_also_takes_the_dtype() -> None:
    from conftest import lint_messages

    messages = lint_messages("""
        import torch
        def pad(hidden: torch.Tensor, n):
            return torch.zeros(n).to(hidden)
    """, "DEV002", preview=True)
    assert messages == ["`torch.zeros(...)` is created on the CPU and then moved with `.to(hidden)`, which also"
                        " converts it to `hidden`'s dtype; create it there: `hidden.new_zeros(...)` (in `pad`, which runs"
                        " for each `hidden` it is given: the copy is paid on every call)"]


def test_a_conftest_that_sets_the_default_device_covers_the_tests_below_it(tmp_path) -> None:
    from conftest import lint, project_whose_tests_set_a_default_device

    test_file, module = project_whose_tests_set_a_default_device(tmp_path)
    code = "import torch\nx = torch.zeros(3).to(device)\n"
    assert [r for r in lint(code, test_file, preview=True) if r[2] == "DEV002"] == []
    assert [r for r in lint(code, module, preview=True) if r[2] == "DEV002"] == [(2, 5, "DEV002")]
