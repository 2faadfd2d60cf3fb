"""The project index: cross-file facts read from the project's files, and the cache that keeps a
file's reports only while the facts they were decided with still hold."""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from conftest import run_devlint
from devlint.analysis.project_index import IndexReads, ProjectIndex, answer, path_keys_of_code
from devlint.engine.project import project_root

LOADER = "import torch\n\ndef load_vocab(root):\n    return torch.load(os.path.join(root, 'vocab.pt'))\n"


def _index(files: dict[str, str]) -> ProjectIndex:
    texts = {path: textwrap.dedent(text) for path, text in files.items()}
    return ProjectIndex(lambda word: ((p, t) for p, t in texts.items() if word in t))


def test_path_keys_are_file_names_and_constants():
    assert path_keys_of_code('os.path.join(root, "runs/vocab.pt")') == {"vocab.pt"}
    assert path_keys_of_code("Path(out) / WEIGHTS_NAME") == {"WEIGHTS_NAME"}
    assert path_keys_of_code("path") == frozenset()
    assert path_keys_of_code('f"{name}.pt"') == frozenset()  # a name built at run time identifies nothing


def test_a_save_inside_a_method_of_a_long_module_is_read_from_its_function():
    padding = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(50))
    index = _index({"a.py": padding + """
class Saver:
    def save(self, tokens):
        data = np.array(tokens)
        torch.save(data, "vocab.pt")

    def other(self):
        return 1
"""})
    assert index.saved_from_host("vocab.pt") is True
    assert index.saved_from_host("model.pt") is None


def test_a_save_at_the_top_level_of_a_script():
    index = _index({"a.py": "import torch\nstate = model.state_dict()\ntorch.save(state, 'model.pt')\n"})
    assert index.saved_from_host("model.pt") is False


def test_calls_of_a_function_record_how_each_passes_its_arguments():
    index = _index({"a.py": "make(x, device=d)\nobj.make(x, y)\nmake(*args)\n", "b.py": "other(x)\n"})
    shapes = index.calls_of("make")
    assert shapes is not None and [(s.keywords, s.positional, s.star) for s in shapes] == [
        ((), 0, True), ((), 2, False), (("device",), 1, False)]
    assert index.calls_of("missing") == ()


def test_a_function_called_from_too_many_files_has_unknown_callers():
    from devlint.analysis.project_index import MAX_CALLER_FILES

    index = _index({f"m{i}.py": "forward(x)\n" for i in range(MAX_CALLER_FILES + 1)})
    assert index.calls_of("forward") is None


def test_the_default_device_set_at_the_top_level_of_a_conftest_holds_below_its_folder():
    index = _index({"/p/tests/conftest.py": "import torch\ntorch.set_default_device('cuda')\n"})
    assert index.default_device_for("/p/tests/unit/test_a.py")
    assert not index.default_device_for("/p/src/model.py")


def test_the_default_device_set_by_an_entry_point_holds_in_the_whole_project():
    assert _index({"/p/main.py": "import torch\ntorch.set_default_device('cuda')\n"}).default_device_for("/p/x.py")
    assert not _index({"/p/a.py": "def f():\n    torch.set_default_device('cuda')\n"}).default_device_for("/p/x.py")


def test_a_files_reads_record_each_question_and_answer_and_can_be_asked_again():
    index = _index({"a.py": "import torch\ntorch.save([1, 2], 'vocab.pt')\n"})
    reads = IndexReads(index)
    assert reads.saved_from_host("vocab.pt") is True
    reads.calls_of("make")
    assert reads.reads == {"saved_from_host:vocab.pt": True, "calls_of:make": []}
    assert all(answer(index, read) == value for read, value in reads.reads.items())


def test_without_a_project_nothing_is_known_and_nothing_recorded():
    reads = IndexReads(None)
    assert (reads.saved_from_host("vocab.pt"), reads.calls_of("f"), reads.default_device_for("a.py")) == (None, None, False)
    assert not reads.star_brings_torch("a.py", "models.common", 0)
    assert reads.reads == {}


def test_the_project_root_is_the_nearest_marker_else_above_the_outermost_package(tmp_path):
    (tmp_path / "proj" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "proj" / "pyproject.toml").write_text("")
    assert project_root(str(tmp_path / "proj" / "pkg" / "sub" / "m.py")) == str(tmp_path / "proj")
    assert project_root("<string>") is None


def test_a_cached_result_is_not_used_once_another_file_changes_what_the_index_says(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\npreview = true\n')  # DEV004: in preview
    (tmp_path / "train.py").write_text(LOADER)
    writer = tmp_path / "prepare.py"
    writer.write_text("import torch\n\ndef prepare(tokens):\n    torch.save(list(tokens), 'vocab.pt')\n")
    assert "DEV004" not in run_devlint("train.py", "--output-format", "concise", cwd=tmp_path).stdout
    writer.write_text("import torch\n\ndef prepare(model):\n    torch.save(model.state_dict(), 'vocab.pt')\n")
    warm = run_devlint("train.py", "--output-format", "concise", cwd=tmp_path)
    assert "train.py:4:12: DEV004" in warm.stdout


HOST_WRITER = "import torch\n\ndef prepare(tokens):\n    torch.save(tuple(tokens), 'vocab.pt')\n"
DEVICE_WRITER = "import torch\n\ndef prepare(tokens):\n    torch.save(tokens.cuda(), 'vocab.pt')\n"


def _project(folder, writer: str, age: float = 60.0):
    """A project whose train.py loads what prepare.py saves, its files last changed `age` seconds ago."""
    (folder / "pyproject.toml").write_text("")
    (folder / "train.py").write_text(LOADER)
    (folder / "prepare.py").write_text(writer)
    _date(folder / "train.py", age)
    _date(folder / "prepare.py", age)


def _date(path, age: float):
    then = time.time() - age
    os.utime(path, (then, then))


def _check_train(folder, monkeypatch=None):
    """Check train.py as a new run would (its own cache object, no index kept from another run)."""
    from devlint.engine import project
    from devlint.engine.settings import Settings
    from devlint.runner.cache import Cache
    from devlint.runner.runner import Mode, process

    project.forget_project_indexes()
    outcome = process(str(folder / "train.py"), Settings(preview=True), Mode(),
                      Cache(str(folder / "cache")))
    return [d.code for d in outcome.diagnostics]


def _no_reading(monkeypatch):
    from devlint.engine import project

    def refuse(root, word):
        raise AssertionError(f"the project was read for {word!r}")
        yield

    monkeypatch.setattr(project, "_files_holding", refuse)


def test_the_index_answers_are_kept_between_runs_while_the_project_files_are_unchanged(tmp_path, monkeypatch):
    _project(tmp_path, HOST_WRITER)
    assert _check_train(tmp_path) == []
    assert len(os.listdir(tmp_path / "cache" / "projects")) == 1
    _no_reading(monkeypatch)
    assert _check_train(tmp_path) == []  # served: the index's answer was kept with the files' fingerprint


def test_a_kept_answer_is_asked_again_once_a_project_file_changes(tmp_path, monkeypatch):
    _project(tmp_path, HOST_WRITER)
    assert _check_train(tmp_path) == []
    assert len(DEVICE_WRITER) == len(HOST_WRITER)  # the same size: only its date tells
    (tmp_path / "prepare.py").write_text(DEVICE_WRITER)
    _date(tmp_path / "prepare.py", 30)  # older than the cache's entries, but another date
    assert _check_train(tmp_path) == ["DEV004"]


def test_no_answer_is_kept_for_files_changed_in_the_last_seconds(tmp_path, monkeypatch):
    # A file changed just now may change again within one tick of a coarse clock without its date moving.
    _project(tmp_path, HOST_WRITER, age=0.0)
    assert _check_train(tmp_path) == []
    assert not (tmp_path / "cache" / "projects").exists()


def test_a_file_name_that_is_not_utf8_in_the_project_is_read_past(tmp_path):
    """The project's fingerprint hashes its file names: one that is not UTF-8 (`caf\\xe9.py` written by a Latin-1
    tool) is kept as its bytes, not an internal error in the rules that ask the project index (DEV004)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    os.close(os.open(os.fsencode(tmp_path) + b"/caf\xe9.py", os.O_CREAT | os.O_WRONLY))
    case = tmp_path / "case.py"
    case.write_text("import torch\ndef restore(model, path):\n    model.load_state_dict(torch.load(path))\n")
    past = time.time() - 60  # (a file changed within the last seconds is not fingerprinted at all)
    for name in os.listdir(os.fsencode(tmp_path)):
        os.utime(os.path.join(os.fsencode(tmp_path), name), (past, past))
    result = run_devlint(str(case), "--no-cache", "--extend-select", "DEV004")
    assert "DEV998" not in result.stdout and "DEV004" in result.stdout, result.stdout + result.stderr


# -- star imports: `from models.common import *` may bring torch -------------------------------------------------
def _star_index(files: dict[str, str]) -> ProjectIndex:
    texts = {os.path.abspath(path): textwrap.dedent(text) for path, text in files.items()}
    return ProjectIndex(lambda word: iter(()), texts.get)


def test_a_star_import_of_a_project_module_that_imports_torch_brings_torch():
    index = _star_index({"/p/models/common.py": "import math\nimport torch\nimport torch.nn as nn\n"})
    assert index.star_brings_torch("/p/models/yolo.py", "models.common", 0)  # from the project's folder
    assert index.star_brings_torch("/p/models/yolo.py", "common", 0)  # from the script's own folder
    assert index.star_brings_torch("/p/models/yolo.py", "common", 1)  # from .common import *


def test_a_star_import_brings_torch_through_a_package_init_that_star_imports_it():
    index = _star_index({
        "/p/models/__init__.py": "from .common import *\n",
        "/p/models/common.py": "try:\n    import torch\nexcept ImportError:\n    torch = None\n",
    })
    assert index.star_brings_torch("/p/train.py", "models", 0)
    assert index.star_brings_torch("/p/models/yolo.py", "", 1)  # from . import *


def test_a_star_import_brings_no_torch_the_module_keeps_to_itself():
    index = _star_index({
        "/p/listed.py": "import torch\n__all__ = ['Net']\n",
        "/p/computed.py": "import torch\n__all__ = [n for n in dir() if n[0] != '_']\n",
        "/p/named.py": "import torch\n__all__ = ('torch', 'Net')\n",
        "/p/aliased.py": "import torch.nn as nn\nimport torch as th\n",  # binds nn and th, not torch
        "/p/inside.py": "def f():\n    import torch\n",
        "/p/a.py": "from b import *\n",
        "/p/b.py": "from a import *\n",  # a cycle, and no torch in it
    })
    for module in ("listed", "computed", "aliased", "inside", "a", "missing", "os"):
        assert not index.star_brings_torch("/p/train.py", module, 0), module
    assert index.star_brings_torch("/p/train.py", "named", 0)
    assert not ProjectIndex(lambda word: iter(())).star_brings_torch("/p/train.py", "named", 0)  # no files: not known


def test_a_file_that_reaches_torch_through_a_star_import_is_checked_as_torch_code(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "common.py").write_text("import torch\nimport torch.nn as nn\n")
    (tmp_path / "models" / "yolo.py").write_text(textwrap.dedent("""\
        from models.common import *


        def unrelated(a, b):
            return a * b


        class Detect(nn.Module):
            def forward(self, x):
                return x + torch.arange(20).to(x.device)
        """))
    out = run_devlint("models/yolo.py", "--output-format", "concise", cwd=tmp_path).stdout
    assert "models/yolo.py:10:20: DEV002" in out  # (its parse narrowed: the star import kept)
    (tmp_path / "models" / "common.py").write_text("import torch\n__all__ = ['Conv']\n")
    out = run_devlint("models/yolo.py", "--output-format", "concise", cwd=tmp_path).stdout
    assert "DEV002" not in out  # the module exports no torch now: not torch code, nor from the cache


def test_an_answer_cut_short_by_a_cycle_or_the_depth_bound_is_not_kept_for_a_later_question():
    cycle = _star_index({
        "/p/a.py": "from b import *\nimport torch\n",
        "/p/b.py": "from a import *\n",  # read while `a` is still being read: its answer waits for `a`'s
    })
    assert cycle.star_brings_torch("/p/train.py", "a", 0)
    assert cycle.star_brings_torch("/p/train.py", "b", 0)
    chain = _star_index({f"/p/m{i}.py": f"from m{i + 1} import *\n" for i in range(5)} | {"/p/m5.py": "import torch\n"})
    assert not chain.star_brings_torch("/p/train.py", "m0", 0)  # six modules deep: past the bound
    assert chain.star_brings_torch("/p/train.py", "m2", 0)  # four: within it, though `m0`'s question reached it first


# -- the project's own distributed set-up: `utils.init_distributed_mode(args)` (DEV009) ---------------------------
_HELPERS = """\
    import os
    import torch
    import torch.distributed as dist

    def init_distributed_mode(args):
        args.rank = int(os.environ["RANK"])
        dist.init_process_group(backend="nccl", init_method="env://")

    def init_pinned(args):
        _pin(args.gpu)
        dist.init_process_group("nccl")

    def _pin(gpu):
        torch.cuda.set_device(gpu)

    def init_gloo(args):
        dist.init_process_group("gloo")

    def log(args):
        print(args)

    def make_data_parallel(model, device):
        torch.cuda.set_device(device)
        return torch.nn.parallel.DistributedDataParallel(model.to(device), device_ids=[device])
"""


def test_a_project_function_that_starts_a_process_group_says_whether_it_may_pin():
    index = _star_index({"/p/utils/misc.py": _HELPERS, "/p/utils/__init__.py": ""})
    assert index.group_helper("/p/train.py", "utils.misc", 0, "init_distributed_mode") == "unpinned"
    assert index.group_helper("/p/utils/run.py", "misc", 1, "init_distributed_mode") == "unpinned"  # from .misc
    assert index.group_helper("/p/train.py", "utils.misc", 0, "init_pinned") == "pinned"  # through _pin
    assert index.group_helper("/p/train.py", "utils.misc", 0, "make_data_parallel") == "pins"  # no group, a pin
    for function in ("init_gloo", "log", "missing"):  # a CPU group, no group, no such function
        assert index.group_helper("/p/train.py", "utils.misc", 0, function) is None, function
    assert index.group_helper("/p/train.py", "elsewhere", 0, "init_distributed_mode") is None


def test_a_module_that_names_a_launcher_or_visible_devices_may_pin():
    for line in ("import accelerate", "os.environ['CUDA_VISIBLE_DEVICES'] = str(rank)"):
        index = _star_index({"/p/dist.py": f"import os\nimport torch.distributed as dist\n{line}\n"
                                           "def setup(rank):\n    dist.init_process_group('nccl')\n"})
        assert index.group_helper("/p/train.py", "dist", 0, "setup") == "pinned", line


def _project_with_helpers(root) -> None:
    """A project at `root` whose `utils/misc.py` holds `_HELPERS`."""
    (root / "pyproject.toml").write_text("")
    (root / "utils").mkdir()
    (root / "utils" / "__init__.py").write_text("")
    (root / "utils" / "misc.py").write_text(textwrap.dedent(_HELPERS))


def _dev009_reports(project) -> str:
    """DEV009 (a preview rule: selected by its code) on the project's `train.py`."""
    return run_devlint("train.py", "--extend-select", "DEV009", "--output-format", "concise", cwd=project).stdout


def test_a_script_set_up_by_the_projects_helper_is_read_as_distributed(tmp_path):
    _project_with_helpers(tmp_path)
    script = textwrap.dedent("""\
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP
        from utils import misc
        from utils.misc import {name} as setup


        def main(args, model):
            {call}(args)
            model = DDP(model.cuda())
            return model


        if __name__ == "__main__":
            main(None, None)
        """)
    for name, call, reported in [
        ("init_distributed_mode", "misc.init_distributed_mode", True),
        ("init_distributed_mode", "setup", True),
        ("init_pinned", "setup", False),  # the helper pins the rank before the model is placed
        ("init_gloo", "setup", False),
        ("log", "setup", False),  # starts no group: nothing says the script is distributed
    ]:
        (tmp_path / "train.py").write_text(script.format(name=name, call=call))
        out = _dev009_reports(tmp_path)
        assert ("train.py:9:17: DEV009" in out) is reported, (name, call, out)
    # a library module (no `__main__` block): its caller sets the process up, maybe pinning in another file
    (tmp_path / "train.py").write_text(script.format(name="init_distributed_mode", call="setup").split("\n\nif")[0])
    out = _dev009_reports(tmp_path)
    assert "DEV009" not in out, out
    # the helper changes: the cached reports of the script are not used again
    (tmp_path / "train.py").write_text(script.format(name="init_distributed_mode", call="setup"))
    (tmp_path / "utils" / "misc.py").write_text(textwrap.dedent(_HELPERS).replace(
        "    args.rank = int", "    torch.cuda.set_device(0)\n    args.rank = int"))
    out = _dev009_reports(tmp_path)
    assert "DEV009" not in out, out


def test_a_script_that_starts_its_group_and_pins_through_the_projects_helper_is_pinned(tmp_path):
    _project_with_helpers(tmp_path)
    script = textwrap.dedent("""\
        import torch
        import torch.distributed as dist
        from utils.misc import {name}


        def main_worker(index, model):
            dist.init_process_group("nccl", rank=index, world_size=2)
            model = {name}(model, torch.device("cuda", index))
            return model


        if __name__ == "__main__":
            torch.multiprocessing.spawn(main_worker, nprocs=2, args=(None,))
        """)
    for name, reported in [("make_data_parallel", False), ("log", True)]:  # `log` pins nothing
        (tmp_path / "train.py").write_text(script.format(name=name))
        out = _dev009_reports(tmp_path)
        assert ("train.py:7:5: DEV009" in out) is reported, (name, out)


# -- a module that needs CUDA as written ---------------------------------------------------------------------------
_RENDER_UTIL = """
    import torch
    def lift(x, intrinsics):
        intrinsics = intrinsics.cuda()
        return torch.ones(x.shape[0], device="cuda") * intrinsics
"""


@pytest.mark.parametrize("module, level", [("utils.rend_util", 0), ("rend_util", 1), ("utils", 0)])
def test_a_module_that_places_data_on_cuda_unguarded_is_cuda_only_code(module, level):
    index = _star_index({"/p/utils/rend_util.py": _RENDER_UTIL, "/p/utils/__init__.py": "from .rend_util import *\n"
                         "import torch\ndef f(x):\n    return x.to('cuda:0')\n"})
    assert index.imports_cuda_only_code("/p/utils/train.py", module, level)


@pytest.mark.parametrize("look_alike", [
    # the module asks what the machine has, or names another device: it chooses, it does not need CUDA
    "    if torch.cuda.is_available():\n        pass\n",
    "    DEVICE = 'cpu'\n",
    "    def f(x):\n        return x.to('mps')\n",
    "    N = torch.accelerator.device_count()\n",
])
def test_a_module_that_chooses_among_devices_is_not_cuda_only_code(look_alike):
    index = _star_index({"/p/utils/rend_util.py": _RENDER_UTIL + look_alike})
    assert not index.imports_cuda_only_code("/p/train.py", "utils.rend_util", 0)


@pytest.mark.parametrize("placement", [
    "if args.cuda:\n        x = x.cuda()",  # a branch on a CUDA flag
    "x = x.cuda() if use_gpu else x",
    "try:\n        x = x.cuda()\n    except RuntimeError:\n        pass",  # a fallback
    "x = x.cuda(args.gpu)",  # a device chosen at run time
    "x = x.to(device)",
])
def test_a_guarded_or_chosen_placement_is_not_cuda_only_code(placement):
    index = _star_index({"/p/model.py": f"import torch\ndef f(x, args, use_gpu, device):\n    {placement}\n"
                                        "    return x\n"})
    assert not index.imports_cuda_only_code("/p/train.py", "model", 0)


def test_the_file_itself_and_modules_outside_the_project_are_no_cuda_only_code():
    index = _star_index({"/p/model.py": _RENDER_UTIL})
    assert not index.imports_cuda_only_code("/p/model.py", "model", 0)  # a file is not its own import
    assert not index.imports_cuda_only_code("/p/train.py", "numpy", 0)  # not the project's
    reads = IndexReads(index)
    assert reads.imports_cuda_only_code("/p/train.py", "model", 0)
    assert all(answer(index, read) == value for read, value in reads.reads.items())
