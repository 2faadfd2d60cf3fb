"""DEV012 — a `torch.cuda` call that fails without CUDA, in code shown to run elsewhere (in preview).

Each case is a snippet and the exact `(line, col, code)` reports DEV012 gives on it with preview on; the report
points at the call. Without preview the rule does not run unless selected by name.
"""

from __future__ import annotations

import pytest

from conftest import lint, lint_messages
from rules.cases import cases_for

case = cases_for("DEV012")

FLAGGED = [
    case("synchronize_in_a_script_that_falls_back_to_the_cpu", """
        import time
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        start = time.perf_counter()
        torch.cuda.synchronize()
    """, [(5, 1)]),
    case("synchronize_under_a_cuda_availability_check_is_skipped_on_other_accelerators", """
        import time
        import torch
        def time_sync():
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            return time.time()
        def select_device(device="cpu"):
            return torch.device(device)
    """, [(5, 9)]),
    case("a_cpu_option_offered", """
        import argparse
        import torch
        parser = argparse.ArgumentParser()
        parser.add_argument("--cpu", action="store_true")
        def run(model, x):
            y = model(x)
            torch.cuda.synchronize()
            return y
    """, [(7, 5)]),
    case("stream_event_and_current_stream", """
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        stream = torch.cuda.Stream()
        event = torch.cuda.Event(enable_timing=True)
        torch.cuda.current_stream().wait_stream(stream)
    """, [(3, 10), (4, 9), (5, 1)]),
    case("peak_memory_reset", """
        import torch
        def measure(fn, device="cpu"):
            torch.cuda.reset_peak_memory_stats()
            return fn()
    """, [(3, 5)]),
    case("a_function_that_follows_its_inputs_device", """
        import torch
        def step(model, x):
            out = model(x.to(next(model.parameters()).device))
            y = torch.zeros(3, device=x.device)
            torch.cuda.synchronize()
            return out + y
    """, [(5, 5)]),
    case("imported_from_torch_cuda", """
        import torch
        from torch.cuda import synchronize
        device = "cuda" if torch.cuda.is_available() else "cpu"
        synchronize()
    """, [(4, 1)]),
]

NOT_FLAGGED = [
    case("a_file_whose_only_sign_is_the_check_that_skips_the_call", """
        import torch
        def total(values):
            host = values.to("cpu", non_blocking=True)
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            copied = torch.cuda.Event() if torch.cuda.is_available() else None
            return float(host.sum())
    """, []),
    case("nothing_shows_the_file_runs_without_cuda", """
        import torch
        torch.cuda.synchronize()
    """, []),
    case("cuda_only_by_design_triton", """
        import torch
        import triton
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.cuda.synchronize()
    """, []),
    case("cuda_asserted", """
        import torch
        assert torch.cuda.is_available()
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.cuda.synchronize()
    """, []),
    case("a_branch_that_asks_for_cuda_itself", """
        import torch
        def sync(device="cpu"):
            if device.type == "cuda":
                torch.cuda.synchronize()
            elif device.type == "mps":
                torch.mps.synchronize()
    """, []),
    case("a_flag_that_names_cuda", """
        import torch
        use_cuda = torch.cuda.is_available()
        device = "cuda" if use_cuda else "cpu"
        if use_cuda:
            torch.cuda.synchronize()
    """, []),
    case("the_cuda_branch_of_a_choice_among_backends", """
        import torch
        def empty(device="cpu"):
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            elif torch.backends.mps.is_available():
                torch.mps.synchronize()
    """, []),
    case("kept_for_an_older_torch", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        if hasattr(torch, "accelerator"):
            torch.accelerator.synchronize()
        else:
            torch.cuda.synchronize()
    """, []),
    case("an_except_fallback", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        try:
            torch.accelerator.synchronize()
        except AttributeError:
            torch.cuda.synchronize()
    """, []),
    case("a_function_named_for_cuda", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        def cuda_timer():
            torch.cuda.synchronize()
    """, []),
    case("a_class_named_for_the_gpu", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        class GPUPrefetcher:
            def __init__(self):
                self.stream = torch.cuda.Stream()
    """, []),
    case("distributed_code", """
        import torch
        import torch.distributed as dist
        device = "cuda" if torch.cuda.is_available() else "cpu"
        def offload(model):
            model.offload_states()
            dist.barrier()
            torch.cuda.synchronize()
    """, []),
    case("calls_that_do_not_fail_without_cuda", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        n = torch.cuda.device_count()
        torch.cuda.empty_cache()
        print(torch.cuda.max_memory_allocated())
        ok = torch.cuda.is_available()
    """, []),
    case("calls_whose_index_means_cuda", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.cuda.set_device(0)
        x = torch.zeros(3, device=torch.cuda.current_device())
    """, []),
    case("no_twin_at_all", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        name = torch.cuda.get_device_name()
    """, []),
    case("the_generic_api_already", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.accelerator.synchronize()
    """, []),
    case("someone_elses_cuda_module", """
        import torch
        import cupy
        device = "cuda" if torch.cuda.is_available() else "cpu"
        cupy.cuda.Stream()
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev012(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV012"] == expected


def test_test_code_is_not_reported() -> None:
    code = """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.cuda.synchronize()
    """
    assert [r for r in lint(code, "tests/test_speed.py", preview=True) if r[2] == "DEV012"] == []
    assert [r for r in lint(code, "speed.py", preview=True) if r[2] == "DEV012"] == [(4, 1, "DEV012")]


def test_off_without_preview_unless_selected() -> None:
    code = """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.cuda.synchronize()
    """
    assert "DEV012" not in [r[2] for r in lint(code)]
    assert [r[2] for r in lint(code, select=("DEV012",))] == ["DEV012"]


def test_the_message_names_the_evidence_and_the_twin() -> None:
    code = """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.cuda.synchronize()
    """
    assert lint_messages(code.removeprefix("\n"), "DEV012", preview=True) == [
        "`torch.cuda.synchronize()` works on CUDA only, in code shown to run elsewhere too (falls back to the CPU,"
        " line 2); use `torch.accelerator.synchronize()`, which works on every backend"]


def test_a_function_that_sends_values_to_cuda_itself_is_cudas_own() -> None:
    code = """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        def synchronized(x):
            torch.cuda.synchronize()
            return x.to("cuda")
        def chooses(x):
            torch.cuda.synchronize()
            return x.to("cuda" if torch.cuda.is_available() else "cpu")
    """
    assert [r for r in lint(code, preview=True) if r[2] == "DEV012"] == [(8, 5, "DEV012")]


def test_after_an_early_return_where_there_is_no_cuda_the_function_is_cudas_own() -> None:
    code = """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        def copy_async(x):
            if not torch.cuda.is_available():
                return x
            stream = torch.cuda.Stream()
            return x
        def timed(x):
            torch.cuda.synchronize()
            if not torch.cuda.is_available():
                return x
            return x
    """
    assert [r for r in lint(code, preview=True) if r[2] == "DEV012"] == [(10, 5, "DEV012")]


def test_a_main_block_that_sends_values_to_cuda_is_cudas_own() -> None:
    code = """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        if __name__ == "__main__":
            x = torch.zeros(2).cuda()
            torch.cuda.synchronize()
    """
    assert [r for r in lint(code, preview=True) if r[2] == "DEV012"] == []
    portable_main = code.replace("torch.zeros(2).cuda()", "torch.zeros(2).to(device)")
    assert [r for r in lint(portable_main, preview=True) if r[2] == "DEV012"] == [(6, 5, "DEV012")]
