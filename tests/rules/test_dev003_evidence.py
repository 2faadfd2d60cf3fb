"""DEV003 by default: a hard-coded CUDA device where the file shows it is meant to run without CUDA, and
nothing shows it is CUDA-only by design.

Each evidence shape has its look-alike. The hard-coded device is the same in every case (`model.cuda()` in a
function, or `"cuda"` given to `.to(...)`); what changes is the rest of the file. With preview on, every case
is reported (tests/rules/test_dev003.py holds the shapes themselves).
"""

from __future__ import annotations

import pytest

from conftest import lint, lint_messages, run_devlint

MOVE = """
def place(model):
    return model.cuda()
"""


def default(snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    """The rule's default shapes: what it reports where it is selected by its code (it is in preview)."""
    return [r for r in lint(snippet, path, extend_select=("DEV003",)) if r[2] == "DEV003"]


def preview(snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    return [r for r in lint(snippet, path, preview=True) if r[2] == "DEV003"]


def with_move(head: str) -> str:
    return "import torch\n" + head.strip("\n") + "\n" + MOVE


PORTABLE = [
    pytest.param('device = "cuda" if torch.cuda.is_available() else "cpu"', id="a_cpu_fallback"),
    pytest.param('use_gpu = torch.cuda.is_available()', id="an_availability_check_kept_as_a_flag"),
    pytest.param('DEVICE = torch.device("cpu")', id="a_device_set_to_the_cpu"),
    pytest.param('def run(x, device="cpu"):\n    return x.to(device)', id="a_device_parameter_defaulting_to_the_cpu"),
    pytest.param('import argparse\np = argparse.ArgumentParser()\np.add_argument("--no_cuda", action="store_true")',
                 id="a_no_cuda_option"),
    pytest.param('import argparse\np = argparse.ArgumentParser()\np.add_argument("--device", default="cpu")',
                 id="a_device_option_defaulting_to_the_cpu"),
    pytest.param('import argparse\np = argparse.ArgumentParser()\np.add_argument("--device", choices=["cpu", "cuda"])',
                 id="a_device_option_with_a_cpu_choice"),
    pytest.param('if torch.backends.mps.is_available():\n    dev = "mps"', id="an_mps_branch"),
    pytest.param('dev = torch.accelerator.current_accelerator()', id="torch_accelerator"),
    pytest.param('if torch.cuda.is_available():\n    device = "cuda"\nelif torch.backends.mps.is_available():\n'
                 '    device = "mps"\nelse:\n    raise RuntimeError("no GPU")',
                 id="a_refusal_after_another_backend_is_tried"),
]

NOT_PORTABLE = [
    pytest.param('', id="nothing_else"),
    pytest.param('flash = torch.cuda.is_available() and HAS_FLASH', id="availability_asked_for_a_feature"),
    pytest.param('x = y.to("cpu")', id="a_move_to_the_host_is_no_device_choice"),
    pytest.param('import argparse\np = argparse.ArgumentParser()\np.add_argument("--device", default="cuda")',
                 id="a_device_option_without_a_cpu_choice"),
    pytest.param('def pad(self):\n    return torch.zeros(3, device=self.device)', id="an_attribute_set_elsewhere"),
    pytest.param('def pad(args):\n    return torch.zeros(3, device=args.device)', id="an_option_not_an_input"),
    pytest.param('def pad():\n    return torch.zeros(3, device=model.device)', id="a_device_of_what_is_no_input"),
    pytest.param('torch.cuda.is_available()', id="a_check_only_shown_as_a_notebook_cell_shows_it"),
    pytest.param('print(f"GPU: {torch.cuda.is_available()}")', id="a_check_only_printed"),
    pytest.param('import pytest\nskip_if_no_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="cuda")',
                 id="a_check_that_skips_a_test_says_what_it_needs"),
    pytest.param('def pad(x):\n    return torch.zeros(3, device=x.device)', id="an_input_followed_in_another_function"),
    pytest.param('Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor', id="a_legacy_type_chosen_is_no_evidence"),
]

CUDA_ONLY = [
    pytest.param('import triton', id="a_triton_module"),
    pytest.param('from torch.utils.cpp_extension import load_inline', id="a_cuda_extension"),
    pytest.param('import torch.distributed as dist\ndist.init_process_group("nccl")', id="an_nccl_job"),
    pytest.param('assert torch.cuda.is_available()', id="an_asserted_cuda"),
    pytest.param('if not torch.cuda.is_available():\n    raise SystemExit("needs a GPU")', id="a_refusal_without_cuda"),
    pytest.param('if torch.cuda.is_available():\n    device = "cuda"\nelse:\n    raise RuntimeError("GPU is required")',
                 id="a_refusal_in_the_else_of_the_check"),
    pytest.param('torch.cuda.set_device(0)', id="a_cuda_call_outside_any_test"),
    pytest.param("torch.set_default_tensor_type('torch.cuda.FloatTensor')", id="cuda_made_the_default"),
    pytest.param("def noise(n):\n    Tensor = torch.cuda.FloatTensor\n    return Tensor(n).normal_()",
                 id="a_legacy_cuda_tensor_type_used_unconditionally"),
]


@pytest.mark.parametrize("head", PORTABLE)
def test_reported_where_the_file_chooses_its_device_elsewhere(head: str) -> None:
    code = with_move(head)
    line = code.count("\n") - 0  # the `return model.cuda()` line (the snippet ends with a newline)
    assert default(code) == [(line, 12, "DEV003")]


@pytest.mark.parametrize("head", NOT_PORTABLE)
def test_silent_by_default_where_nothing_shows_the_file_runs_without_cuda(head: str) -> None:
    code = with_move(head)
    assert default(code) == []
    assert len(preview(code)) == 1


@pytest.mark.parametrize("head", CUDA_ONLY)
def test_silent_by_default_where_the_file_is_cuda_only_by_design(head: str) -> None:
    code = with_move('device = "cuda" if torch.cuda.is_available() else "cpu"\n' + head)
    assert default(code) == []


def test_a_cuda_call_under_an_availability_test_is_not_cuda_only() -> None:
    code = with_move('if torch.cuda.is_available():\n    torch.cuda.set_device(0)')
    assert len(default(code)) == 1


def test_a_function_that_follows_its_input_is_evidence_for_its_own_code() -> None:
    """`device=x.device` shows that this function runs wherever its input is; its own `.cuda()` forgot that. A helper
    elsewhere in the file that follows its input says nothing of the rest of the file (the look-alike above)."""
    code = "import torch\ndef pad(x, model):\n    y = torch.zeros(3, device=x.device)\n    return model.cuda()\n"
    assert default(code) == [(4, 12, "DEV003")]
    other = "import torch\nclass A:\n    def pad(self, x):\n        return torch.zeros(3, device=x.device)\n" \
            "class B:\n    def pad(self, model):\n        return model.cuda()\n"
    assert default(other) == []


def test_an_isinstance_test_of_a_legacy_cuda_type_needs_no_cuda() -> None:
    code = with_move('device = "cuda" if torch.cuda.is_available() else "cpu"\n'
                     'def is_gpu(x):\n    return isinstance(x, torch.cuda.FloatTensor)')
    assert len(default(code)) == 1


def test_moving_a_loss_module_that_holds_no_tensor_is_never_reported() -> None:
    """`nn.CrossEntropyLoss()` has no parameters or buffers: `.cuda()` moves nothing and runs on a CPU-only machine.
    Given a class-weight tensor, the module holds it: the look-alike is reported."""
    head = 'import torch.nn as nn\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
    assert preview(with_move(head + "criterion = nn.CrossEntropyLoss(reduction='sum').cuda(args.gpu)")) == [
        (7, 12, "DEV003")]  # only the model's
    weighted = preview(with_move(head + "criterion = nn.CrossEntropyLoss(weight=w).cuda()"))
    assert [line for line, _, _ in weighted] == [4, 7]


def test_a_tensor_for_a_collective_is_preview() -> None:
    """NCCL takes CUDA tensors only: a helper that all-reduces a value it moves to CUDA is multi-GPU by design."""
    code = ('import torch\nimport torch.distributed as dist\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
            'def allreduce(x):\n    x = torch.tensor(x).float().cuda()\n    dist.all_reduce(x)\n    return x.item()\n')
    assert default(code) == []
    assert len(preview(code)) == 1
    assert len(default(code.replace("dist.all_reduce(x)", "print(x)"))) == 1
    # nanotron's random states: the objects go through NCCL on the device it is given
    objects = ('import torch\nimport torch.distributed as dist\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
               'def sync(states, pg):\n    dist.broadcast_object_list(states, src=0, group=pg, device=torch.device("cuda"))\n'
               '    return states[0]\n')
    assert default(objects) == []
    assert len(preview(objects)) == 1


def test_code_run_for_the_error_it_raises_is_never_reported() -> None:
    """`with pytest.raises(TypeError): model.cuda()`: the move is made for its error (fairscale's `Pipe` refuses to
    move before CUDA is asked anything), on any machine. `pytest.warns` runs its body for real: reported."""
    head = 'import pytest\nimport torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
    raising = head + "def check(model):\n    with pytest.raises(TypeError):\n        model.cuda()\n"
    assert preview(raising) == []
    warning = head + "def check(model):\n    with pytest.warns(UserWarning):\n        model.cuda()\n"
    assert default(warning) == [(6, 9, "DEV003")]


TEST_CODE = ("import pytest\nimport torch\ndevice = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n"
             "def test_moves():\n    x = torch.ones(2).to(\"cuda\")\n")


@pytest.mark.parametrize("path", ["tests/test_ops.py", "tests/helpers.py", "conftest.py", "ops_test.py"])
def test_a_hard_coded_device_in_test_code_is_preview(path: str) -> None:
    """A test that needs CUDA is skipped without it in ways its file need not show (a conftest hook, a fixture or
    helper that calls `pytest.skip`, the CI job); its look-alike, the same code outside the tests, is reported."""
    assert default(TEST_CODE, path) == []
    assert preview(TEST_CODE, path) == [(5, 26, "DEV003")]
    assert default(TEST_CODE, "ops.py") == [(5, 26, "DEV003")]


@pytest.mark.parametrize("refusal", ['pytest.skip("needs CUDA")', 'self.skipTest("needs CUDA")',
                                     'raise RuntimeError("needs CUDA")', "sys.exit(1)"])
def test_a_check_that_refuses_to_go_on_without_cuda_is_a_requirement(refusal: str) -> None:
    """`if not torch.cuda.is_available(): pytest.skip(...)` (or raise, or exit) chooses no device: the code after it
    needs CUDA, so the file is CUDA-only by design, not portable."""
    code = (f"import sys\nimport pytest\nimport torch\ndef need_cuda(self=None):\n"
            f"    if not torch.cuda.is_available():\n        {refusal}\n"
            f"def kernel_inputs():\n    return torch.ones(2, device=\"cuda\")\n")
    assert default(code, "bench.py") == []
    assert len(preview(code, "bench.py")) == 1
    chooses = code.replace(refusal, 'print("on the CPU")')
    assert default(chooses, "bench.py") == [(8, 33, "DEV003")]


def test_a_gpu_of_several_built_from_an_index_is_preview() -> None:
    """`"cuda:" + str(k)` over a device map places work on one GPU of several: multi-GPU by design."""
    code = ('import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
            'def spread(blocks, device_map):\n    for k, v in device_map.items():\n'
            '        blocks[k] = blocks[k].to("cuda:" + str(k))\n')
    assert default(code) == []
    assert len(preview(code)) == 1


def test_a_setting_a_configurator_may_replace_is_preview() -> None:
    """nanoGPT's scripts set `device = 'cuda'` at the top, then `exec(open('configurator.py').read())` rebinds any of
    their names from the command line (`--device=cpu`): a default, as a parameter's is. Without the `exec`, the
    same assignment is reported."""
    head = "import torch\ndevice = 'cuda'\ndevice_type = 'cuda' if 'cuda' in device else 'cpu'\n"
    assert default(head + "exec(open('configurator.py').read())\n") == []
    assert len(preview(head + "exec(open('configurator.py').read())\n")) == 1
    assert default(head) == [(2, 10, "DEV003")]


def test_the_message_names_the_evidence_and_its_line() -> None:
    code = 'import torch\n\n\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n' + MOVE
    assert lint_messages(code, "DEV003", extend_select=("DEV003",)) == [
        "`.cuda()` hard-codes CUDA; move to the chosen device with `.to(device)` (this file falls back to the CPU"
        " at line 4)"]


BRANCHES = [
    pytest.param("if model_parallel:\n        return model.cuda()\n    return model", id="a_flag_devlint_cannot_read"),
    pytest.param("if SUPPORTS_FLEX:\n        return model.cuda()\n    return model", id="an_imported_capability"),
    pytest.param("return model.cuda() if self_check else model", id="a_conditional_expression"),
    pytest.param("if not distributed():\n        return model\n    return model.cuda()", id="after_an_early_exit"),
]


@pytest.mark.parametrize("body", BRANCHES)
def test_a_branch_whose_test_may_be_the_guard_is_preview(body: str) -> None:
    code = ('import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
            f"def place(model):\n    {body}\n")
    assert default(code) == []
    assert len(preview(code)) == 1


def test_the_main_block_is_no_branch() -> None:
    code = ('import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
            'if __name__ == "__main__":\n    net = Net().cuda()\n')
    assert default(code) == [(4, 11, "DEV003")]


def test_a_device_default_stays_preview_even_with_evidence() -> None:
    code = ('import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
            'def run(x, dev=torch.device("cuda")):\n    return x.to(dev)\n')
    assert default(code) == []
    assert preview(code) == [(3, 29, "DEV003")]


def test_cuda_of_a_value_from_the_input_needs_no_evidence() -> None:
    """`.cuda()` of what a function computed from its tensor input goes to the default GPU, not back to the input's
    device: wrong with or without the rest of the file."""
    code = "import torch\ndef offsets(lengths: torch.Tensor):\n    return lengths.cpu().cumsum(0).cuda()\n"
    assert default(code) == [(3, 12, "DEV003")]


def test_the_cli_and_flake8_report_it_where_it_is_named(tmp_path) -> None:
    """In preview, the rule is off by default; selected by its code it reports its default shapes, in the CLI and
    in flake8 alike."""
    path = tmp_path / "case.py"
    path.write_text(CLI_CASE)
    assert "DEV003" not in run_devlint(str(path), "--no-cache").stdout
    cli = run_devlint(str(path), "--no-cache", "--extend-select", "DEV003")
    assert cli.returncode == 1 and "DEV003" in cli.stdout
    import subprocess
    import sys
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV,DEV003", str(path)],
                            capture_output=True, text=True)
    assert "DEV003" in flake8.stdout, flake8.stdout + flake8.stderr


CLI_CASE = with_move('device = "cuda" if torch.cuda.is_available() else "cpu"')


@pytest.mark.parametrize("helper, reported", [
    # the project's own code the script imports moves its tensors to CUDA unguarded: the script cannot run without
    # CUDA whatever this line says
    ("import torch\ndef lift(x):\n    return x.cuda() * 2\n", False),
    ("import torch\nclass Sampler:\n    def __init__(self):\n        self.d = torch.device('cuda')\n", False),
    # look-alikes: the helper follows its input, or chooses the device itself
    ("import torch\ndef lift(x):\n    return x.to(x.device) * 2\n", True),
    ("import torch\ndef lift(x):\n    return x.cuda() if torch.cuda.is_available() else x\n", True),
])
def test_a_script_whose_project_code_needs_cuda_as_written_is_preview(tmp_path, helper: str, reported: bool) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "render.py").write_text(helper)
    script = CLI_CASE.replace("import torch\n", "import torch\nfrom utils import render\n", 1)
    (tmp_path / "train.py").write_text(script)
    named = run_devlint("train.py", "--no-cache", "--extend-select", "DEV003", "--output-format", "concise",
                        cwd=tmp_path).stdout
    assert ("DEV003" in named) is reported, named
    every = run_devlint("train.py", "--no-cache", "--preview", "--output-format", "concise", cwd=tmp_path).stdout
    assert "DEV003" in every, every
