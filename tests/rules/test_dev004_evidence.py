"""DEV004 by default: a `torch.load` without `map_location` shown to read device state.

Shown: the value goes into a module's or optimizer's `load_state_dict` (directly, through a key, or through the
names a state dict is rebuilt into), it is used as a module, it is a scripted module (`torch.jit.load`), or the
path is a checkpoint the user or a download supplies. Silent by default: a load nothing shows the purpose of, a
test's load (it reads what its run wrote), a path in a temporary folder. Each shape beside its look-alike; with
preview on, every load the rule knows is reported (tests/rules/test_dev004.py).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import lint, lint_messages, run_devlint
from rules.cases import cases_for

case = cases_for("DEV004")


def default(snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    """The rule's default shapes: what it reports where it is selected by its code (it is in preview)."""
    return [r for r in lint(snippet, path, extend_select=("DEV004",)) if r[2] == "DEV004"]


def preview(snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    return [r for r in lint(snippet, path, preview=True) if r[2] == "DEV004"]


SHOWN = [
    case("straight_into_load_state_dict", """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path))
    """, [(3, 27)]),
    case("an_entry_into_load_state_dict", """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path)["model"])
    """, [(3, 27)]),
    case("a_name_whose_entry_goes_into_load_state_dict", """
        import torch
        def restore(model, optimizer, path):
            ckpt = torch.load(path)
            model.load_state_dict(ckpt["model"])
            optimizer.load_state_dict(ckpt["optimizer"])
    """, [(3, 12)]),
    case("a_state_dict_rebuilt_with_other_keys", """
        import torch
        def restore(model, path):
            ckpt = torch.load(path)
            state = {k[7:]: v for k, v in ckpt["state_dict"].items()}
            model.load_state_dict(state)
    """, [(3, 12)]),
    case("a_loop_that_copies_the_entries", """
        import torch
        def restore(model, path):
            ckpt = torch.load(path)
            state = {}
            for k, v in ckpt.items():
                state[k.replace("module.", "")] = v
            model.load_state_dict(state)
    """, [(3, 12)]),
    case("a_name_rebound_from_itself_keeps_the_value", """
        import torch
        def restore(model, path):
            ckpt = torch.load(path)
            ckpt = ckpt["state_dict"]
            model.load_state_dict(ckpt)
    """, [(3, 12)]),
    case("a_pickled_module", """
        import torch
        def restore(path):
            net = torch.load(path)
            net.eval()
            return net
    """, [(3, 11)]),
    case("a_scripted_module", """
        import torch
        net = torch.jit.load("model.pt")
    """, [(2, 7)]),
    case("a_checkpoint_the_user_gives", """
        import torch
        def convert(args):
            checkpoint = torch.load(args.src)
            torch.save({"state_dict": checkpoint["state_dict"]}, args.dst)
    """, [(3, 18)]),
    case("a_downloaded_checkpoint", """
        import torch
        from huggingface_hub import hf_hub_download
        weights = torch.load(hf_hub_download("org/repo", "model.bin"))
    """, [(3, 11)]),
]

NOT_SHOWN = [
    case("nothing_shows_what_the_file_holds", """
        import torch
        def read(path):
            x = torch.load(path)
            return x + 1
    """, []),
    case("a_name_that_goes_elsewhere", """
        import torch
        def read(model, path):
            stats = torch.load(path)
            model.load_state_dict(other)
            print(stats)
    """, []),
    case("a_user_path_that_is_no_checkpoint", """
        import torch
        def read(args):
            features = torch.load(args.features_path)
            return features
    """, []),
    case("a_schedulers_state", """
        import torch
        def restore(scheduler, path):
            scheduler.load_state_dict(torch.load(path))
    """, []),
    # one name, two loads: the optimizer's state is device state, the scheduler's read after it is not
    case("a_name_bound_again_holds_another_load", """
        import torch
        def resume(model, optimizer, scheduler, folder):
            data = torch.load(folder + "/optimizer.pth")
            optimizer.load_state_dict(data["optimizer_state_dict"])
            data = torch.load(folder + "/scheduler.pth")
            scheduler.load_state_dict(data["scheduler_state_dict"])
            if model.cameras:
                data = torch.load(folder + "/cameras.pth")
                model.load_state_dict(data["cameras"])
    """, [(3, 12), (8, 16)]),
    case("a_file_bound_to_cuda", """
        import torch
        device = "cuda"
        def restore(model, path):
            model.load_state_dict(torch.load(path))
            model.to(device)
    """, []),
    case("a_cuda_only_file", """
        import torch
        import triton
        def restore(model, path):
            model.load_state_dict(torch.load(path))
    """, []),
    case("a_file_that_also_runs_without_cuda", """
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        def restore(model, path):
            model.load_state_dict(torch.load(path))
    """, [(4, 27)]),
    case("a_temporary_folder", """
        import torch
        def restore(model, tmp_path):
            model.load_state_dict(torch.load(tmp_path / "model.pt"))
    """, []),
]


@pytest.mark.parametrize("code, expected", SHOWN + NOT_SHOWN)
def test_dev004_by_default(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert default(code) == expected


@pytest.mark.parametrize("code, expected", NOT_SHOWN[:3])
def test_preview_reports_what_the_default_leaves(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert len(preview(code)) == 1


def test_a_test_reads_what_its_run_wrote() -> None:
    code = "import torch\ndef test_resume(model, path):\n    model.load_state_dict(torch.load(path))\n"
    assert default(code, "tests/test_resume.py") == []
    assert default(code, "src/resume.py") == [(3, 27, "DEV004")]


def _project(root, saver: str) -> str:
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "save.py").write_text("import torch\n" + saver)
    return str(root / "restore.py")


LOAD = "import torch\ndef restore(model, args):\n    model.load_state_dict(torch.load(args.checkpoint))\n"


@pytest.mark.parametrize("saver", [
    pytest.param("def save(model):\n    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, 'net.pt')\n",
                 id="a_state_dict_of_cpu_copies"),
    pytest.param("def save(net, path):\n    net.eval().cpu()\n    torch.save(net.state_dict(), path)\n",
                 id="a_module_moved_to_the_cpu_first"),
    pytest.param("from torch.distributed.fsdp import FullStateDictConfig, StateDictType\n"
                 "policy = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)\n"
                 "def save(model, path):\n"
                 "    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, policy):\n"
                 "        state = model.state_dict()\n"
                 "    torch.save(state, path)\n", id="a_full_state_dict_offloaded_to_the_cpu"),
    pytest.param("def save_network(net, path):\n    state_dict = net.state_dict()\n"
                 "    for key, param in state_dict.items():\n"
                 "        if key.startswith('module.'):\n            key = key[7:]\n"
                 "        state_dict[key] = param.cpu()\n"
                 "    torch.save({'params': state_dict}, path)\n", id="a_state_dict_moved_to_the_cpu_entry_by_entry"),
    pytest.param("model = torch.load('yolo.pt', map_location='cpu')['model']\n"
                 "torch.save(model.state_dict(), 'weights/yolo.pth')\n", id="a_model_loaded_onto_the_cpu"),
    pytest.param("model = torch.load('yolo.pt', map_location=lambda storage, loc: storage)\n"
                 "torch.save(model.state_dict(), 'weights/yolo.pth')\n", id="a_model_loaded_where_it_is_read"),
])
def test_a_project_that_saves_its_modules_from_host_data_loads_anywhere(tmp_path, saver: str) -> None:
    assert default(LOAD, _project(tmp_path / "p", saver)) == []


@pytest.mark.parametrize("saver", [
    pytest.param("def save(model, path):\n    torch.save(model.state_dict(), path)\n", id="a_modules_state"),
    pytest.param("def save_network(net, path):\n    state_dict = net.state_dict()\n"
                 "    for key, param in state_dict.items():\n        print(key, param.cpu())\n"
                 "    torch.save(state_dict, path)\n", id="a_state_dict_whose_entries_are_only_read"),
    pytest.param("def save_network(net, other, path):\n    state_dict = net.state_dict()\n"
                 "    for key, param in other.items():\n        state_dict[key] = param.cpu()\n"
                 "    torch.save(state_dict, path)\n", id="another_dicts_entries_moved_to_the_cpu"),
    pytest.param("model = torch.load('yolo.pt', map_location='cuda')['model']\n"
                 "torch.save(model.state_dict(), 'weights/yolo.pth')\n", id="a_model_loaded_onto_the_gpu"),
    pytest.param("model = torch.load('yolo.pt')['model']\n"
                 "torch.save(model.state_dict(), 'weights/yolo.pth')\n", id="a_model_loaded_where_it_was_saved"),
])
def test_a_project_that_saves_a_modules_state_where_it_is_is_reported(tmp_path, saver: str) -> None:
    path = _project(tmp_path / "p", saver)
    assert default(LOAD, path) == [(3, 27, "DEV004")]


def test_the_savers_nearest_the_load_answer_for_it(tmp_path) -> None:
    """A folder of examples saves its own checkpoints: where the load's own folder (else the nearest above it) saves
    module state, those saves say what its checkpoints hold, not another example's elsewhere in the project."""
    root = tmp_path / "examples"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "gan").mkdir()
    (root / "gan" / "train.py").write_text("import torch\ndef save(model):\n    torch.save(model.state_dict(), 'g.pt')\n")
    style = root / "style"
    style.mkdir()
    (style / "train.py").write_text("import torch\ndef save(net, path):\n    net.eval().cpu()\n"
                                    "    torch.save(net.state_dict(), path)\n")
    assert default(LOAD, str(style / "stylize.py")) == []
    assert default(LOAD, str(root / "gan" / "sample.py")) == [(3, 27, "DEV004")]
    assert default(LOAD, str(root / "evaluate.py")) == [(3, 27, "DEV004")]  # from the root, the GAN's save counts


RESUME = """
import torch
if opt.epoch != 0:
    generator.load_state_dict(torch.load("saved_models/%s/generator_%d.pth" % (opt.dataset_name, opt.epoch)))
for epoch in range(opt.epoch, opt.n_epochs):
    train_one_epoch(generator)
    torch.save(generator.state_dict(), "saved_models/%s/generator_%d.pth" % (opt.dataset_name, epoch))
"""


def test_a_script_resuming_from_what_it_saves_is_preview() -> None:
    """The path is written as the script's own save writes it: a resume, on the machine that wrote the file (blind
    readers called these harmless). A load of a path written otherwise (`opt.netG`, a user's file) is reported."""
    assert default(RESUME) == []
    assert len(preview(RESUME)) == 1
    elsewhere = RESUME.replace('"saved_models/%s/generator_%d.pth" % (opt.dataset_name, opt.epoch)', "opt.netG")
    assert default(elsewhere) == [(4, 31, "DEV004")]
    f_strings = RESUME.replace('"saved_models/%s/generator_%d.pth" % (opt.dataset_name, opt.epoch)',
                               'f"saved_models/{opt.name}/last.pth"').replace(
        '"saved_models/%s/generator_%d.pth" % (opt.dataset_name, epoch)', 'f"saved_models/{opt.name}/last.pth"')
    assert default(f_strings) == []
    other_file = f_strings.replace('f"saved_models/{opt.name}/last.pth")\n', 'f"saved_models/{opt.name}/best.pth")\n', 1)
    assert default(other_file) == [(4, 31, "DEV004")]


def test_a_script_resuming_from_the_path_it_saves_to_is_preview() -> None:
    """The same path, written the same way, saved and loaded in one file: a resume. A library's `load(path)` of what
    its `save(path)` wrote is another run, maybe on another machine: the look-alike is reported."""
    script = ("import torch\ndef train(model, run_dir):\n    state_fpath = run_dir / 'encoder.pt'\n"
              "    if state_fpath.exists():\n        model.load_state_dict(torch.load(state_fpath)['model'])\n"
              "    torch.save({'model': model.state_dict()}, state_fpath)\n")
    assert default(script) == []
    library = ("import torch\nclass Net(torch.nn.Module):\n    def load(self, path):\n"
               "        self.load_state_dict(torch.load(path))\n"
               "    def save(self, path):\n        torch.save(self.state_dict(), path)\n")
    assert default(library) == [(4, 30, "DEV004")]


def test_the_cli_and_flake8_report_it_where_it_is_named(tmp_path) -> None:
    """In preview, the rule is off by default; selected by its code it reports its default shapes, in the CLI and
    in flake8 alike."""
    path = tmp_path / "case.py"
    path.write_text(CLI_CASE)
    assert "DEV004" not in run_devlint(str(path), "--no-cache").stdout
    cli = run_devlint(str(path), "--no-cache", "--extend-select", "DEV004")
    assert cli.returncode == 1 and "DEV004" in cli.stdout
    import subprocess
    import sys
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV,DEV004", str(path)],
                            capture_output=True, text=True)
    assert "DEV004" in flake8.stdout, flake8.stdout + flake8.stderr


CLI_CASE = "import torch\ndef restore(model, path):\n    model.load_state_dict(torch.load(path))\n"
