"""DEV003 — a hard-coded CUDA device, where nothing checks that CUDA exists.

Each case is a snippet and the exact `(line, col, code)` reports DEV003 gives on it; the
report points at the `"cuda"` literal, or at the whole `.cuda()` call.
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, reports

case = cases_for("DEV003")

FLAGGED = [
    case("torch_device_cuda", """
        import torch
        device = torch.device("cuda")
    """, [(2, 23)]),
    case("torch_device_with_index", """
        import torch
        dev = torch.device("cuda:1")
    """, [(2, 20)]),
    case("device_keyword", """
        import torch
        x = torch.zeros(3, device="cuda")
    """, [(2, 27)]),
    case("map_location_keyword", """
        import torch
        state = torch.load(path, map_location="cuda:0")
    """, [(2, 39)]),
    case("first_argument_of_to", """
        import torch
        def f(x):
            return x.to("cuda")
    """, [(3, 17)]),
    case("cuda_call_without_index", """
        import torch
        def f(model):
            return model.cuda()
    """, [(3, 12)]),
    case("cuda_call_with_index", """
        import torch
        def f(model, rank):
            return model.cuda(rank)
    """, [(3, 12)]),
    case("assignment_to_a_device_name", """
        import torch
        DEVICE = "cuda"
        self_device = "cuda:0"
    """, [(2, 10), (3, 15)]),
    case("assignment_to_a_device_attribute", """
        import torch
        class Trainer:
            def __init__(self):
                self.device = "cuda"
    """, [(4, 23)]),
    case("default_argument_value", """
        import torch
        def run(model, device="cuda"):
            return model.to(device)
    """, [(2, 23)]),
    case("keyword_only_default", """
        import torch
        def run(model, *, device: str = "cuda:0"):
            return model.to(device)
    """, [(2, 33)]),
    case("torch_imported_as_th", """
        import torch as th
        x = th.ones(2, device="cuda")
    """, [(2, 23)]),
    case("factory_imported_from_torch", """
        from torch import zeros, load
        x = zeros(2, device="cuda")
    """, [(2, 21)]),
    case("multi_line_call", """
        import torch
        x = torch.zeros(
            3,
            device="cuda",
        )
    """, [(4, 12)]),
    case("nested_call", """
        import torch
        y = model(torch.ones(2, device="cuda"))
    """, [(2, 32)]),
    case("guard_in_another_function_does_not_reach", """
        import torch
        def check():
            if torch.cuda.is_available():
                return True
        def run(x):
            return x.cuda()
    """, [(6, 12)]),
    case("cuda_reassigned_after_a_correct_fallback", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = Net().to(device)
        device = "cuda"
    """, [(4, 10)]),
    case("dict_of_device_options_passed_as_kwargs", """
        import torch
        opts = {"device": "cuda", "dtype": torch.float16}
        x = torch.zeros(3, **opts)
    """, [(2, 19)]),
    case("dict_call_of_device_options", """
        import torch
        opts = dict(device="cuda")
        x = torch.ones(3, **opts)
    """, [(2, 20)]),
    case("dict_of_device_options_passed_to_to", """
        import torch
        def f(x):
            move = {"device": "cuda:0", "non_blocking": True}
            return x.to(**move)
    """, [(3, 23)]),
    case("inline_dict_spread_into_a_call", """
        import torch
        x = torch.zeros(3, **{"device": "cuda"})
    """, [(2, 33)]),
    case("dict_of_options_on_self_used_later", """
        import torch
        class Loader:
            def __init__(self):
                self.load_kwargs = {"map_location": "cuda"}
            def load(self, path):
                return torch.load(path, **self.load_kwargs)
    """, [(4, 45)]),
    case("cuda_reassigned_to_an_attribute_after_a_fallback", """
        import torch
        class Trainer:
            def __init__(self):
                self.device = "cuda" if torch.cuda.is_available() else "cpu"
            def reset(self):
                self.device = "cuda"
    """, [(6, 23)]),
    case("plain_torch_in_a_file_that_never_imports_it", """
        def f(torch):
            return torch.device("cuda")
    """, [(2, 25)]),
    case("single_quoted_literal", """
        import torch
        x = torch.zeros(3, device='cuda')
    """, [(2, 27)]),
]

NOT_FLAGGED = [
    case("guarded_by_is_available", """
        import torch
        if torch.cuda.is_available():
            model = model.cuda()
            x = torch.zeros(3, device="cuda")
    """, []),
    case("ternary_fallback", """
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    """, []),
    case("ternary_fallback_in_an_assignment", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = Net().to(device)
    """, []),
    case("early_return_when_cuda_is_missing", """
        import torch
        def bench(x):
            if not torch.cuda.is_available():
                return None
            return x.cuda()
    """, []),
    case("pytest_skipif_without_cuda", """
        import pytest
        import torch
        @pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
        def test_on_gpu():
            x = torch.zeros(3, device="cuda")
    """, []),
    case("args_cuda_flag", """
        import torch
        def main(args, model):
            if args.cuda:
                model.cuda()
    """, []),
    case("use_gpu_flag", """
        import torch
        def main(use_gpu, model):
            if use_gpu:
                model = model.to("cuda")
    """, []),
    case("comparison_with_cuda", """
        import torch
        def f(x):
            return x.device.type == "cuda"
    """, []),
    case("message_mentioning_cuda", """
        import torch
        print("running on cuda")
        log = {"backend": "cuda"}
    """, []),
    case("dict_value_that_is_not_a_device_option", """
        import torch
        names = {"device": "cuda"}
        print(names)
    """, []),
    case("cuda_in_an_else_of_a_cuda_test_is_guarded", """
        import torch
        def f(cpu_only, model):
            if not torch.cuda.is_available():
                pass
            else:
                model.cuda()
    """, []),
    case("dict_of_options_under_a_guard", """
        import torch
        if torch.cuda.is_available():
            opts = {"device": "cuda"}
        x = torch.zeros(3, **opts)
    """, []),
    case("dict_of_cpu_options", """
        import torch
        opts = {"device": "cpu"}
        x = torch.zeros(3, **opts)
    """, []),
    case("cpu_device", """
        import torch
        device = torch.device("cpu")
        x = torch.zeros(3, device="cpu").to("cpu")
    """, []),
    case("torch_cuda_module_functions", """
        import torch
        torch.cuda.synchronize()
        n = torch.cuda.device_count()
    """, []),
    case("method_cuda_in_a_file_without_torch", """
        def f(x):
            return x.cuda()
    """, []),
    case("to_cuda_in_a_file_without_torch", """
        def f(x):
            return x.to("cuda")
    """, []),
    case("variable_device_default", """
        import torch
        def run(model, device=None):
            return model.to(device)
    """, []),
    case("noqa_on_the_line", """
        import torch
        x = torch.zeros(3, device="cuda")  # noqa: DEV003
    """, []),
    case("device_reassigned_under_a_guard", """
        import torch
        device = "cpu"
        if torch.cuda.is_available():
            device = "cuda"
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev003(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV003", code) == expected
