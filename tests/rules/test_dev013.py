"""DEV013 — a GPU index written into the code (in preview).

Each case is a snippet and the exact `(line, col, code)` reports DEV013 gives on it with preview on; the report
points at the string, the call or the assignment.
"""

from __future__ import annotations

import pytest

from conftest import lint, lint_messages
from rules.cases import cases_for

case = cases_for("DEV013")

FLAGGED = [
    case("a_device_string_with_index_1", """
        import torch
        model = Net().to("cuda:1")
    """, [(2, 18)]),
    case("under_an_availability_check_too", """
        import torch
        if torch.cuda.is_available():
            device = torch.device("cuda:2")
    """, [(3, 27)]),
    case("torch_device_with_an_index", """
        import torch
        a = torch.device("cuda", 1)
        b = torch.device(type="cuda", index=1)
    """, [(2, 5), (3, 5)]),
    case("cuda_method_with_an_index", """
        import torch
        x = torch.zeros(2).cuda(1)
        y = torch.zeros(2).cuda(device=1)
    """, [(2, 5), (3, 5)]),
    case("set_device_and_the_device_context", """
        import torch
        torch.cuda.set_device(1)
        with torch.cuda.device(1):
            pass
    """, [(2, 1), (3, 6)]),
    case("a_config_value", """
        import torch
        CONFIG = {"device": "cuda:1", "batch_size": 8}
    """, [(2, 21)]),
    case("visible_devices_set_in_a_library_function", """
        import os
        import torch
        def setup():
            os.environ["CUDA_VISIBLE_DEVICES"] = "1"
    """, [(4, 5)]),
]

NOT_FLAGGED = [
    case("index_0_is_on_every_gpu_machine", """
        import torch
        x = torch.zeros(2).to("cuda:0")
        torch.cuda.set_device(0)
        y = torch.zeros(2).cuda(0)
    """, []),
    case("an_index_that_is_not_a_literal", """
        import os
        import torch
        rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(rank)
        x = torch.zeros(2).cuda(rank)
    """, []),
    case("a_parameters_default", """
        import torch
        def place(x, device="cuda:1"):
            return x.to(device)
    """, []),
    case("a_command_line_default", """
        import argparse
        import torch
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", default="cuda:1")
    """, []),
    case("a_comparison", """
        import torch
        def second(device):
            return str(device) == "cuda:1"
    """, []),
    case("under_a_test_of_the_gpu_count", """
        import torch
        if torch.cuda.device_count() > 1:
            x = torch.zeros(2).to("cuda:1")
        y = torch.zeros(2).to("cuda:1") if torch.cuda.device_count() >= 2 else None
    """, []),
    case("a_device_map_across_gpus", """
        import torch
        encoder = Encoder().to("cuda:0")
        decoder = Decoder().to("cuda:1")
    """, []),
    case("a_checkpoints_devices_remapped", """
        import torch
        state = torch.load("m.pt", map_location={"cuda:1": "cpu"})
    """, []),
    case("a_docstring", """
        import torch
        def place(x, device):
            \"\"\"cuda:1\"\"\"
            return x.to(device)
    """, []),
    case("visible_devices_set_by_a_script", """
        import os
        import torch
        def main():
            os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        if __name__ == "__main__":
            main()
    """, []),
    case("visible_devices_at_the_top_of_a_module", """
        import os
        import torch
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
    """, []),
    case("visible_devices_hidden_or_the_first", """
        import os
        import torch
        def hide():
            os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
            os.environ["CUDA_VISIBLE_DEVICES"] = ""
            os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev013(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV013"] == expected


def test_test_code_is_not_reported() -> None:
    code = """
        import torch
        x = torch.zeros(2).to("cuda:1")
    """
    assert [r for r in lint(code, "tests/test_multi_gpu.py", preview=True) if r[2] == "DEV013"] == []


def test_visible_devices_at_the_top_of_a_package_init() -> None:
    code = """
        import os
        import torch
        os.environ["CUDA_VISIBLE_DEVICES"] = "2,3"
    """
    assert lint_messages(code.removeprefix("\n"), "DEV013", "pkg/__init__.py", preview=True) == [
        '`CUDA_VISIBLE_DEVICES` set to "2,3" in a module others import: every program that imports it sees only'
        " GPUs 2, 3, and none on a machine with 2 GPUs or fewer; let the user choose the visible GPUs where the"
        " program is run"]


def test_the_message_names_the_index() -> None:
    assert lint_messages('import torch\nx = torch.zeros(2).to("cuda:1")\n', "DEV013", preview=True) == [
        '`"cuda:1"` names GPU 1: on a machine with one GPU it fails (invalid device ordinal); take the index from'
        " the launcher (`LOCAL_RANK`), the configuration or the command line"]
