"""DEV003 — a hard-coded CUDA device, where nothing checks that CUDA exists.

Each case is a snippet and the exact `(line, col, code)` reports DEV003 gives on it; the
report points at the `"cuda"` literal, or at the whole `.cuda()` call.
"""

from __future__ import annotations

import pytest

from conftest import lint
from rules.cases import cases_for, counted_calls

case = cases_for("DEV003")


def reports(code: str, snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    """(line, col, code) of rule `code`'s reports on the snippet with preview on: every shape the rule knows. Which
    of them it reports by default (where the file shows it is meant to run without CUDA) is
    tests/rules/test_dev003_evidence.py's."""
    return [r for r in lint(snippet, path, preview=True) if r[2] == code]


def default_reports(code: str, snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    """The same, without preview: the rule (in preview) named, at its default shapes."""
    return [r for r in lint(snippet, path, extend_select=(code,)) if r[2] == code]

FLAGGED = [
    case("gloo_is_no_cuda_requirement", """
        import torch
        import torch.distributed as dist
        def main():
            dist.init_process_group(backend="gloo")
            model = Net().cuda()
    """, [(5, 13)]),
    case("a_synchronize_inside_a_function_is_not_the_modules", """
        import torch
        x = torch.randn(10, device="cuda")
        def wait():
            torch.cuda.synchronize()
    """, [(2, 28)]),
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
    # issue 14: a test that mentions CUDA guards only the branch where CUDA is there
    case("device_not_equal_cuda_is_not_a_guard", """
        import torch
        def place(attr):
            if attr.device != torch.device("cuda"):
                attr = attr.to(torch.device("cuda"))
            return attr
    """, [(4, 37)]),
    case("not_is_cuda_is_not_a_guard", """
        import torch
        def place(x):
            if not x.is_cuda:
                x = x.cuda()
            return x
    """, [(4, 13)]),
    case("else_of_an_availability_check", """
        import torch
        def place(model):
            if torch.cuda.is_available():
                pass
            else:
                model.cuda()
    """, [(6, 9)]),
    case("no_gpus_branch_of_a_count", """
        import torch
        def place(model):
            if torch.cuda.device_count() == 0:
                model.cuda()
    """, [(4, 9)]),
    case("negative_flag_true_branch", """
        import torch
        def place(args, model):
            if args.no_cuda:
                model.cuda()
    """, [(4, 9)]),
    case("else_of_and_is_not_guarded", """
        import torch
        def place(model, big):
            if torch.cuda.is_available() and big:
                pass
            else:
                model.cuda()
    """, [(6, 9)]),
    # issue 14: device strings built at run time
    case("percent_formatted_device_string", """
        import torch
        def place(x, i):
            return x.to("cuda:%d" % i)
    """, [(3, 17)]),
    case("f_string_device", """
        import torch
        def place(i):
            return torch.zeros(3, device=f"cuda:{i}")
    """, [(3, 34)]),
    case("concatenated_device_string", """
        import torch
        def place(i):
            return torch.device("cuda:" + str(i))
    """, [(3, 25)]),
    case("format_call_device_string", """
        import torch
        def place(i):
            return torch.device("cuda:{}".format(i))
    """, [(3, 25)]),
    case("run_time_string_assigned_to_a_device_name", """
        import torch
        def place(rank):
            device = f"cuda:{rank}"
            return device
    """, [(3, 14)]),
    # issue 14: device values in a dict
    case("dict_literal_passed_as_a_keyword_argument", """
        import torch
        def load(Model):
            return Model.from_hparams(source="x", run_opts={"device": "cuda"})
    """, [(3, 63)]),
    case("named_dict_passed_as_a_keyword_argument", """
        import torch
        def load(Model):
            opts = {"device": "cuda:0"}
            return Model.from_hparams(source="x", run_opts=opts)
    """, [(3, 23)]),
    case("dict_call_with_a_device_keyword", """
        import torch
        def load(Model):
            return Model.from_hparams(source="x", run_opts=dict(device="cuda"))
    """, [(3, 64)]),
    # issue 14: `.cuda()` of a value computed from a tensor input: the default GPU, not the input's
    case("round_trip_through_the_host", """
        import torch
        def offsets(x: torch.Tensor):
            return x.cpu().cumsum(0).cuda()
    """, [(3, 12)]),
    case("round_trip_under_an_availability_guard", """
        import torch
        def offsets(x: torch.Tensor):
            if torch.cuda.is_available():
                return x.cpu().cumsum(0).cuda()
            return x.cumsum(0)
    """, [(4, 16)]),
    case("value_computed_from_an_input_used_as_a_tensor", """
        import torch
        def match(x, y):
            cost = torch.cdist(x.float(), y).cpu()
            cost = cost.clamp(min=0)
            return cost.cuda()
    """, [(5, 12)]),
    case("cost_derived_from_a_tensor_input", """
        import torch
        def match(x: torch.Tensor, y):
            cost = torch.cdist(x, y).cpu()
            return cost.cuda()
    """, [(4, 12)]),
    case("function_that_returns_early_off_cuda_is_not_cuda_only", """
        import torch
        def place(x, device=None):
            device = device or torch.device("cuda")
            if device.type != "cuda":
                return x
            return x.to(device)
    """, [(3, 37)]),
    case("else_of_a_name_assigned_from_an_availability_check", """
        import torch
        def place(model):
            ok = torch.cuda.is_available()
            if not ok:
                model.cuda()
    """, [(5, 9)]),
    case("single_quoted_literal", """
        import torch
        x = torch.zeros(3, device='cuda')
    """, [(2, 27)]),
]

NOT_FLAGGED = [
    case("a_gpu_timing_script_synchronizes_at_its_top_level", """
        import torch
        x = torch.randn(1000, 1000, device="cuda")
        torch.cuda.synchronize()
    """, []),
    case("a_script_whose_main_block_needs_cuda", """
        import torch
        def step(model):
            return model.cuda()
        if __name__ == "__main__":
            props = torch.cuda.get_device_properties(0)
            step(model)
    """, []),
    case("a_function_that_starts_nccl", """
        import torch
        import torch.distributed as dist
        def main():
            dist.init_process_group(backend="nccl")
            model = Net().cuda()
    """, []),
    case("a_module_that_builds_a_cuda_extension", """
        import torch
        from torch.utils.cpp_extension import load_inline
        ops = load_inline("ops", cpp_sources=CPP, cuda_sources=CUDA)
        def run(x):
            return ops.forward(x.to("cuda"))
    """, []),
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
    case("type_of_a_cuda_device_read_for_a_comparison", """
        import torch
        def seed(device):
            return device.type == torch.device("cuda").type

        def index_of(name):
            return torch.device(name).index
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
    # issue 14: what is a guard
    case("device_equal_cuda_guards_its_branch", """
        import torch
        def place(x, w):
            if x.device.type == "cuda":
                w = w.cuda()
            return w
    """, []),
    case("count_of_gpus_above_zero", """
        import torch
        def place(model):
            if torch.cuda.device_count() > 0:
                model.cuda()
    """, []),
    case("variable_assigned_from_an_availability_check", """
        import torch
        def place(model):
            use_cuda = torch.cuda.is_available()
            if use_cuda:
                model.cuda()
    """, []),
    case("name_assigned_from_an_availability_check", """
        import torch
        def place(model):
            ok = torch.cuda.device_count() > 0
            if ok:
                model.cuda()
            have = torch.cuda.is_available()
            x = torch.zeros(2, device="cuda" if have else "cpu")
    """, []),
    case("negative_flag_else_branch", """
        import torch
        def place(args, model):
            if args.no_cuda:
                pass
            else:
                model.cuda()
    """, []),
    case("comprehension_over_the_gpus", """
        import torch
        def spread(x):
            return [x.to("cuda:%d" % i) for i in range(torch.cuda.device_count())]
    """, []),
    case("for_loop_over_the_gpus", """
        import torch
        def spread(x):
            for i in range(torch.cuda.device_count()):
                x.to(f"cuda:{i}")
    """, []),
    case("early_exit_when_no_gpu_is_counted", """
        import torch
        def bench(x):
            if torch.cuda.device_count() == 0:
                return None
            return x.cuda()
    """, []),
    # issue 15: CUDA-only code paths are not reported
    case("function_that_synchronizes", """
        import torch
        def bench(model, x):
            torch.cuda.synchronize()
            return model.cuda()(x.cuda())
    """, []),
    case("function_with_cuda_streams", """
        import torch
        def prefetch(x):
            stream = torch.cuda.Stream()
            return x.to("cuda", non_blocking=True)
    """, []),
    case("function_that_hands_a_data_ptr_to_a_library", """
        import torch
        def run(engine, x):
            x = x.to("cuda")
            engine.execute(x.data_ptr())
    """, []),
    case("function_that_uses_tensorrt", """
        import torch
        import tensorrt as trt
        def build(x):
            logger = trt.Logger()
            return x.to("cuda")
    """, []),
    case("function_that_imports_tensorrt", """
        import torch
        def to_tensorrt(model):
            import torch_tensorrt
            return torch_tensorrt.compile(model.cuda())
    """, []),
    # issue 14: `.cuda()` of the input itself, or of something not computed from a tensor input
    case("input_moved_itself_under_a_guard", """
        import torch
        def place(x: torch.Tensor):
            if torch.cuda.is_available():
                x = x.cuda()
            return x
    """, []),
    case("input_cast_then_moved_without_a_host_round_trip", """
        import torch
        def place(x: torch.Tensor):
            if torch.cuda.is_available():
                return x.float().cuda()
            return x
    """, []),
    case("run_time_string_under_a_guard", """
        import torch
        def place(x, i):
            if torch.cuda.is_available():
                return x.to(f"cuda:{i}")
            return x
    """, []),
    case("dict_passed_positionally_is_not_device_options", """
        import torch
        opts = {"device": "cuda"}
        print(opts)
    """, []),
    case("int_device_is_a_cuda_index", """
        import torch
        def place(device=None):
            if isinstance(device, int):
                device = torch.device("cuda", device)
            return device
    """, []),
    case("else_of_a_cpu_comparison_is_the_chosen_accelerator", """
        import torch
        def place(x, rank):
            return x.device if x.device.type == "cpu" else torch.device("cuda", rank)
    """, []),
    case("use_cpu_flag_else_branch", """
        import torch
        def place(args, model):
            if args.use_cpu:
                return model
            else:
                return model.cuda()
    """, []),
    case("cuda_backend_named_by_a_string", """
        import torch
        def device_of(provider, index):
            if provider in ("CUDAExecutionProvider", "TensorrtExecutionProvider"):
                return torch.device("cuda", index)
            return torch.device("cpu")
    """, []),
    case("nccl_backend_branch", """
        import torch
        def setup(backend, rank):
            if backend == "nccl":
                return torch.device(f"cuda:{rank}")
    """, []),
    case("inside_a_cuda_device_context", """
        import torch
        def load(cp, index, data):
            with cp.cuda.Device(index):
                return torch.as_tensor(data, device=f"cuda:{index}")
    """, []),
    case("cuda_of_a_device_the_caller_chose", """
        import torch
        def place(module, device):
            module.cuda(device)
    """, []),
    case("default_the_class_falls_back_from", """
        import torch
        class Analyzer:
            def __init__(self, device="cuda"):
                self.device = torch.device(device)
            def run(self):
                if self.device.type == "cuda" and not torch.cuda.is_available():
                    self.device = torch.device("cpu")
    """, []),
    case("run_time_string_of_the_current_cuda_device", """
        import torch
        def device_map():
            current_device = f"cuda:{torch.cuda.current_device()}"
            return {"": current_device}
    """, []),
    case("function_that_raises_unless_on_cuda", """
        import torch
        def quantize(weight, device=None):
            device = device or torch.device("cuda")
            if device.type != "cuda":
                raise RuntimeError("needs CUDA")
            return weight.to(device)
    """, []),
    case("module_that_integrates_tensorrt", """
        import torch
        from monai.utils import optional_import
        trt, has_trt = optional_import("tensorrt")
        def make_tensor(d):
            return torch.tensor(d).cuda()
    """, []),
    case("unused_device_parameter", """
        import torch
        class Net(torch.nn.Module):
            def __init__(self, n=3, device="cuda"):
                super().__init__()
                self.w = torch.nn.Parameter(torch.rand(n))
    """, []),
    case("device_reassigned_under_a_guard", """
        import torch
        device = "cpu"
        if torch.cuda.is_available():
            device = "cuda"
    """, []),
]

# Beyond CUDA: Apple's `mps` and Intel's `xpu` are hard-coded the same way, and guarded by their own
# checks (the same guard logic, asked for that backend).
OTHER_BACKENDS = [
    case("mps_in_to", """
        import torch
        x = x.to("mps")
    """, [(2, 10)]),
    case("xpu_as_device_keyword", """
        import torch
        x = torch.zeros(3, device="xpu:0")
    """, [(2, 27)]),
    case("mps_device_assigned", """
        import torch
        device = torch.device("mps")
    """, [(2, 23)]),
    case("mps_default_of_a_device_parameter", """
        import torch
        def run(model, device="mps"):
            return model.to(device)
    """, [(2, 23)]),
    case("a_cuda_check_does_not_guard_mps", """
        import torch
        if torch.cuda.is_available():
            x = x.to("mps")
    """, [(3, 14)]),
    case("guarded_by_the_mps_check", """
        import torch
        if torch.backends.mps.is_available():
            x = x.to("mps")
    """, []),
    case("mps_in_the_conditional_expression_itself", """
        import torch
        device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    """, []),
    case("guarded_by_the_xpu_check", """
        import torch
        if torch.xpu.is_available():
            x = x.to("xpu")
    """, []),
    case("after_an_early_exit_on_the_xpu_check", """
        import torch
        def f(x):
            if not torch.xpu.is_available():
                return x
            return x.to("xpu")
    """, []),
    case("guarded_by_torch_accelerator", """
        import torch
        if torch.accelerator.is_available():
            x = x.to("mps")
    """, []),
    case("a_flag_naming_the_backend", """
        import torch
        if args.use_mps:
            model.to("mps")
    """, []),
    case("the_device_type_compared_with_mps", """
        import torch
        if x.device.type == "mps":
            y = y.to("mps")
    """, []),
    case("a_test_named_for_the_backend", """
        import torch
        def test_matmul_on_mps():
            x = torch.ones(2, device="mps")
    """, []),
    case("a_test_skipped_without_the_backend", """
        import pytest, torch
        @pytest.mark.skipif(not torch.backends.mps.is_available(), reason="no mps")
        def test_matmul():
            x = torch.ones(2, device="mps")
    """, []),
    case("a_word_that_only_contains_mps_is_no_guard", """
        import torch
        if timestamps:
            x = x.to("mps")
    """, [(3, 14)]),
    case("comparing_with_mps_places_nothing", """
        import torch
        on_mac = device.type == "mps"
    """, []),
]


# A parameter's device default: reported only with preview on (measured blind on fresh: 46 reports, none a bug).
PREVIEW = {"default_argument_value", "keyword_only_default", "mps_default_of_a_device_parameter"}


@pytest.mark.parametrize("code, expected", [c for c in FLAGGED + OTHER_BACKENDS if c.id in PREVIEW])
def test_dev003_defaults_need_preview(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV003"] == expected
    assert default_reports("DEV003", code) == []  # without preview: its preview shapes stay off


@pytest.mark.parametrize("code, expected", [c for c in FLAGGED + NOT_FLAGGED + OTHER_BACKENDS if c.id not in PREVIEW])
def test_dev003(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV003", code) == expected


# -- a default every caller in the project overrides (the project index) ---------------------------

def _project(tmp_path, model: str, main: str) -> list[tuple[int, int, str]]:
    import textwrap

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "main.py").write_text(textwrap.dedent(main))
    path = tmp_path / "pkg" / "model.py"
    path.write_text(textwrap.dedent(model))
    assert default_reports("DEV003", model, str(path)) == []  # defaults: a preview shape
    return [r for r in lint(model, str(path), preview=True) if r[2] == "DEV003"]


MODEL = """
    import torch
    def _build(n, device="cuda"):
        return torch.zeros(n, device=device)
    class _Net:
        def __init__(self, width, device="cuda"):
            self.w = torch.zeros(width, device=device)
"""


def test_a_default_that_every_call_in_the_project_overrides_is_not_reported(tmp_path):
    main = """
        from pkg.model import _build, _Net
        a = _build(3, dev)
        b = _build(4, device=dev)
        c = _Net(3, device=dev)
        d = _Net(3, dev)
    """
    assert _project(tmp_path, MODEL, main) == []


def test_a_public_functions_default_is_reported_whatever_the_projects_calls(tmp_path):
    # callers outside the project get the default
    model = """
        import torch
        def build(n, device="cuda"):
            return torch.zeros(n, device=device)
    """
    assert _project(tmp_path, model, "from pkg.model import build\na = build(3, device=dev)\n") == [(3, 21, "DEV003")]


def test_a_default_that_one_call_leaves_is_reported(tmp_path):
    main = """
        from pkg.model import _build, _Net
        a = _build(3, device=dev)
        b = _build(4)
        c = _Net(3)
    """
    assert _project(tmp_path, MODEL, main) == [(3, 22, "DEV003"), (6, 38, "DEV003")]


def test_a_call_that_forwards_star_arguments_is_not_shown_to_override(tmp_path):
    main = """
        from pkg.model import _build, _Net
        a = _build(*args)
        c = _Net(**options)
    """
    assert _project(tmp_path, MODEL, main) == [(3, 22, "DEV003"), (6, 38, "DEV003")]


def test_a_default_of_a_function_nobody_calls_is_reported(tmp_path):
    assert _project(tmp_path, MODEL, "x = 1\n") == [(3, 22, "DEV003"), (6, 38, "DEV003")]


def test_names_bound_from_each_other_many_times_are_read_once_per_depth(monkeypatch):
    """A `.cuda()` of a value whose names are each bound several times from each other (`a = a + b`, `b = b * a`,
    ... as a loop of updates writes them) is read once per name and depth. It was once read along every path
    (28,671 reads of this snippet), and a file with such a function took minutes (the crash hunt's mutated copy
    of transformers' `generation/configuration_utils.py`)."""
    from devlint.rules.dev003_hardcoded_cuda.visitor import HardcodedCuda

    updates = "".join("        a = a + b\n        b = b * a\n" for _ in range(4))
    snippet = ("import torch\n"
               "def step(x: torch.Tensor):\n"
               "    a = x.cpu()\n"
               "    b = x.cpu()\n"
               "    for _ in range(3):\n" + updates +
               "    return a.cuda()\n")
    derivations = counted_calls(monkeypatch, HardcodedCuda, "_derivation")
    assert reports("DEV003", snippet) == [(14, 12, "DEV003")]
    assert derivations() < 1_000
