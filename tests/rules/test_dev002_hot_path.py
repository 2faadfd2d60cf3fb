"""DEV002 by default: a CPU-made tensor moved where the code shows the copy repeats (a loop, a module's `forward`,
a training or eval step, a function the project calls from one), with where its cost is paid. A copy made once
(start-up, a test's input) is a preview shape."""

from __future__ import annotations

import pytest

from conftest import lint, lint_messages
from rules.cases import cases_for

case = cases_for("DEV002")


def default(snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    return [r for r in lint(snippet, path) if r[2] == "DEV002"]


REPEATS = [
    case("in_forward", """
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                return x + torch.zeros(3).to(x.device)
    """, [(4, 20)]),
    case("in_a_loop_over_batches", """
        import torch
        def train(loader, device):
            for batch in loader:
                mask = torch.ones(8).to(device)
    """, [(4, 16)]),
    case("in_a_comprehension", """
        import torch
        def masks(sizes, device):
            return [torch.ones(n).to(device) for n in sizes]
    """, [(3, 13)]),
    case("in_a_step", """
        import torch
        def training_step(batch, device):
            return torch.arange(4).to(device)
    """, [(3, 12)]),
    case("to_where_an_input_tensor_is", """
        import torch
        def timestep_embedding(timesteps, dim):
            freqs = torch.arange(0, dim // 2, dtype=torch.float32).to(device=timesteps.device)
            return timesteps[:, None] * freqs[None]
    """, [(3, 13)]),
    case("to_an_input_tensor_itself", """
        import torch
        def segment_sum(data: torch.Tensor, ids, n):
            return torch.zeros(n, data.shape[1]).to(data).scatter_add(0, ids, data)
    """, [(3, 12)]),
    case("in_a_while_loop", """
        import torch
        def run(device):
            while True:
                noise = torch.randn(4).cuda()
    """, [(4, 17)]),
    case("in_a_handler_that_goes_on", """
        import torch
        def run(loader, device):
            for batch in loader:
                try:
                    x = batch.to(device)
                except RuntimeError:
                    x = torch.zeros(8).to(device)
    """, [(7, 17)]),
    case("after_a_block_that_raises", """
        import torch
        def run(loader, device):
            for batch in loader:
                if batch is None:
                    raise ValueError("empty batch")
                mask = torch.ones(8).to(device)
    """, [(6, 16)]),
]

ONCE = [
    case("at_start_up", """
        import torch
        def setup(device):
            return torch.ones(3).to(device)
    """, []),
    case("at_module_level", """
        import torch
        table = torch.arange(10).to("cuda")
    """, []),
    case("the_iterable_of_a_loop_is_made_once", """
        import torch
        def run(device):
            for i in torch.arange(4).to(device):
                print(i)
    """, []),
    case("to_a_device_the_function_is_given", """
        import torch
        def make_buffers(device, n):
            return torch.zeros(n).to(device)
    """, []),
    case("to_a_gpu_index_the_function_is_given", """
        import torch
        def benchmark(rank, n):
            return torch.randn(n).to(rank)
    """, []),
    case("to_an_input_in_a_test", """
        import torch
        def test_shapes(x):
            assert (x + torch.zeros(3).to(x.device)).shape == x.shape
    """, []),
    case("a_loop_around_a_definition_runs_no_body", """
        import torch
        def outer(device):
            for _ in range(3):
                def inner():
                    return torch.ones(3).to(device)
    """, []),
    # zero123's `load_img`, called per image: the handler's placeholder is made once, when loading fails, and
    # the handler raises at once
    case("in_a_handler_that_raises", """
        import torch
        def load_images(names, transform):
            for name in names:
                try:
                    yield transform(open(name)).cuda()
                except Exception:
                    img = torch.zeros(1, 3, 256, 256).cuda()
                    raise
    """, []),
    case("in_a_loop_in_a_block_that_raises", """
        import torch
        def train(loader, device):
            for batch in loader:
                if batch is None:
                    mask = torch.ones(8).to(device)
                    raise ValueError("empty batch")
    """, []),
]


@pytest.mark.parametrize("code, expected", REPEATS + ONCE)
def test_dev002_by_default(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert default(code) == expected


@pytest.mark.parametrize("code, expected", ONCE[:2])
def test_a_one_time_copy_is_a_preview_shape(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert len([r for r in lint(code, preview=True) if r[2] == "DEV002"]) == 1


def test_the_message_says_where_the_cost_is_paid() -> None:
    messages = lint_messages("""
        import torch
        def train(loader, device):
            for batch in loader:
                mask = torch.ones(8).to(device)
    """, "DEV002")
    assert messages == ["`torch.ones(...)` is created on the CPU and then moved with `.to(...)`; create it on the"
                        " device: `torch.ones(..., device=...)` (in a loop: the copy is paid on every iteration)"]


def test_a_copy_in_test_code_is_a_preview_shape() -> None:
    """Blind on fairscale's tests: 30 copies in a test's loop or helper, none worth a fix (tiny inputs made for one
    test's run). The same code outside the tests is reported."""
    code = "import torch\ndef check(device):\n    for n in (1, 2, 3):\n        x = torch.ones(n).to(device)\n"
    assert default(code, "tests/nn/test_layer.py") == []
    assert default(code, "tests/helpers.py") == []
    assert len([r for r in lint(code, "tests/nn/test_layer.py", preview=True) if r[2] == "DEV002"]) == 1
    assert default(code, "src/layer.py") == [(4, 13, "DEV002")]


def test_the_message_names_the_input_the_function_runs_for() -> None:
    messages = lint_messages("""
        import torch
        def embed(timesteps):
            return torch.arange(8).to(timesteps.device)
    """, "DEV002")
    assert messages == ["`torch.arange(...)` is created on the CPU and then moved with `.to(...)`; create it on the"
                        " device: `torch.arange(..., device=...)` (in `embed`, which runs for each `timesteps` it is"
                        " given: the copy is paid on every call)"]


def _project(root, caller: str) -> str:
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "train.py").write_text(caller)
    return str(root / "loss.py")


def test_a_function_the_project_calls_in_a_loop(tmp_path) -> None:
    code = "import torch\ndef make_mask(b, device):\n    return torch.ones(8).to(device)\n"
    in_a_loop = _project(tmp_path / "a", "from loss import make_mask\nfor b in loader:\n    make_mask(b, 'cuda')\n")
    assert default(code, in_a_loop) == [(3, 12, "DEV002")]
    assert "which the project calls in a loop or per step" in lint_messages(code, "DEV002", in_a_loop)[0]
    once = _project(tmp_path / "b", "from loss import make_mask\nmake_mask(b, 'cuda')\n")
    assert default(code, once) == []
