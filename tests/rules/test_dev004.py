"""DEV004 — `torch.load` without `map_location`.

Each case is a snippet and the exact `(line, col, code)` reports DEV004 gives on it; the
report points at the load call.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint
from rules.cases import cases_for

case = cases_for("DEV004")


def reports(code: str, snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    """(line, col, code) of rule `code`'s reports on the snippet with preview on: every shape the rule knows. Which
    of them it reports by default (where the load is shown to read device state) is
    tests/rules/test_dev004_evidence.py's."""
    return [r for r in lint(snippet, path, preview=True) if r[2] == code]

FLAGGED = [
    case("a_save_into_another_directory_first", """
        import torch
        def test_reload(trainer):
            trainer.save(path="out/")
            return torch.load("checkpoints/model.pt")
    """, [(4, 12)]),
    case("save_and_restore_methods_of_a_library_class", """
        import torch
        class Agent:
            def save(self, path):
                torch.save(self.model.state_dict(), path)
            def restore(self, path):
                self.model.load_state_dict(torch.load(path))
    """, [(6, 36)]),
    case("plain_load", """
        import torch
        state = torch.load("checkpoint.pt")
    """, [(2, 9)]),
    case("serialization_load", """
        import torch
        state = torch.serialization.load(path)
    """, [(2, 9)]),
    case("jit_load", """
        import torch
        model = torch.jit.load("model.pt")
    """, [(2, 9)]),
    case("a_download_loaded_by_torch_hub", """
        import torch
        from torch.hub import load_state_dict_from_url
        from torch.utils import model_zoo
        def build(model, url):
            model.load_state_dict(load_state_dict_from_url(url, progress=True))
            model.load_state_dict(torch.hub.load_state_dict_from_url(url, "weights/"))
            model.load_state_dict(model_zoo.load_url(url))
    """, [(5, 27), (6, 27), (7, 27)]),
    case("torch_imported_as_th", """
        import torch as th
        state = th.load(path)
    """, [(2, 9)]),
    case("load_imported_from_torch", """
        from torch import zeros, load
        state = load(path)
    """, [(2, 9)]),
    case("load_spanning_several_lines", """
        import torch
        state = torch.load(
            os.path.join(root, "best.pt"),
            weights_only=True,
        )
    """, [(2, 9)]),
    case("nested_in_load_state_dict", """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path))
    """, [(3, 27)]),
    case("nested_and_spanning_lines", """
        import torch
        def restore(model, path):
            model.load_state_dict(
                torch.load(
                    path,
                )["model"]
            )
    """, [(4, 9)]),
    case("followed_by_to_device_still_fails_before_the_move", """
        import torch
        def restore(path, device):
            return torch.load(path).to(device)
    """, [(3, 12)]),
    case("other_keywords_are_not_map_location", """
        import torch
        state = torch.load(path, weights_only=False, mmap=True)
    """, [(2, 9)]),
    case("map_location_none_is_the_default_spelled_out", """
        import torch
        state = torch.load(path, map_location=None)
    """, [(2, 9)]),
    case("plain_torch_in_a_file_that_never_imports_it", """
        def restore(torch, path):
            return torch.load(path)
    """, [(2, 12)]),
    case("inside_a_cuda_guard_still_reports", """
        import torch
        if torch.cuda.is_available():
            state = torch.load(path)
    """, [(3, 13)]),
    case("a_save_of_another_file_in_the_same_function_is_no_reload", """
        import torch
        def convert(model, path):
            torch.save(model.state_dict(), "converted.pt")
            return torch.load(path)["model"]
    """, [(4, 12)]),
    case("a_save_after_the_load_writes_the_file_after_it_was_read", """
        import torch
        model.load_state_dict(torch.load("checkpoints/model.pt"))
        train(model)
        torch.save(model.state_dict(), "checkpoints/model.pt")
    """, [(2, 23)]),
    case("the_else_of_a_cuda_test_loads_without_map_location_too", """
        import torch
        if torch.cuda.is_available():
            state = torch.load(path)
        else:
            state = torch.load(path)
    """, [(3, 13), (5, 13)]),
    case("a_cpu_twin_under_a_test_that_is_no_cuda_check", """
        import torch
        if fast:
            state = torch.load(path)
        else:
            state = torch.load(path, map_location="cpu")
    """, [(3, 13)]),
    case("in_a_method", """
        import torch
        class Checkpointer:
            def restore(self):
                return torch.load(self.path)
    """, [(4, 16)]),
]

NOT_FLAGGED = [
    case("reloads_what_a_save_wrote_into_its_directory", """
        import torch
        def test_save_and_load(trainer):
            trainer.save(path="tests/model_dir/", model_filename="model.pt")
            return torch.load("tests/model_dir/model.pt", weights_only=False)
    """, []),
    case("reloads_what_a_save_wrote_under_the_same_name", """
        import os
        import torch
        def test_save_optimizer(trainer, save_path):
            trainer.save(path=save_path, model_filename="model_and_optimizer.pt")
            return torch.load(os.path.join(save_path, "model_and_optimizer.pt"))
    """, []),
    case("jit_save_then_jit_load_of_the_same_file", """
        import torch
        def round_trip(traced, file_path):
            torch.jit.save(traced, file_path)
            return torch.jit.load(file_path)
    """, []),
    case("saved_by_the_constructor_and_reloaded_by_a_method", """
        import torch
        class Snapshot:
            def __init__(self, model, path):
                self.path = path
                torch.save(model.state_dict(), path)
            def restore(self, model, path):
                model.load_state_dict(torch.load(path))
    """, []),
    case("map_location_keyword", """
        import torch
        state = torch.load(path, map_location="cpu")
    """, []),
    case("map_location_as_second_positional_is_fine", """
        import torch
        state = torch.load(path, "cpu")
    """, []),
    case("map_location_as_a_device_variable", """
        import torch
        state = torch.load(path, map_location=device)
    """, []),
    case("jit_load_with_map_location", """
        import torch
        model = torch.jit.load(path, map_location=device)
    """, []),
    case("star_kwargs_may_carry_map_location", """
        import torch
        state = torch.load(path, **load_kwargs)
    """, []),
    case("another_librarys_load", """
        import json
        import torch
        config = json.load(f)
        ckpt = pickle.load(f)
    """, []),
    case("load_of_an_object_that_is_not_torch", """
        import torch
        state = checkpoint.load(path)
    """, []),
    case("a_load_name_not_imported_from_torch", """
        from yaml import load
        import torch
        config = load(f)
    """, []),
    case("unqualified_load_in_a_file_without_torch", """
        def restore(path):
            return load(path)
    """, []),
    case("noqa_on_the_line", """
        import torch
        state = torch.load(path)  # noqa: DEV004
    """, []),
    case("save_and_reload_in_the_same_test", """
        import torch
        def test_roundtrip(model, tmp_path):
            path = tmp_path / "model.pt"
            torch.save(model.state_dict(), path)
            model.load_state_dict(torch.load(path))
    """, []),
    case("save_and_reload_through_a_buffer", """
        import io
        import torch
        def roundtrip(t):
            buffer = io.BytesIO()
            torch.save(t, buffer)
            return torch.load(io.BytesIO(buffer.getvalue()))
    """, []),
    case("save_in_set_up_and_reload_in_a_test_of_the_class", """
        import torch
        class TestCheckpoint(unittest.TestCase):
            def setUp(self):
                torch.save(self.model.state_dict(), self.path)
            def test_load(self):
                state = torch.load(self.path)
    """, []),
    case("a_cuda_branch_whose_else_has_the_cpu_twin", """
        import torch
        if torch.cuda.is_available():
            state = torch.load(path)
        else:
            state = torch.load(path, map_location="cpu")
    """, []),
    case("a_download_given_map_location_by_name_or_at_its_place", """
        import torch
        def build(model, url):
            model.load_state_dict(torch.hub.load_state_dict_from_url(url, map_location="cpu"))
            model.load_state_dict(torch.hub.load_state_dict_from_url(url, "weights/", "cpu"))
    """, []),
    case("a_function_of_another_library_named_alike", """
        import torch
        from mylib import load_state_dict_from_url
        def build(model, url):
            model.load_state_dict(load_state_dict_from_url(url))
    """, []),
    case("torch_hub_load_is_not_a_checkpoint_load", """
        import torch
        model = torch.hub.load("repo", "model")
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev004(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV004", code) == expected


def test_map_location_none_is_replaced_not_repeated() -> None:
    from devlint import fix_source
    from devlint.engine.settings import Settings

    source = "import torch\nstate = torch.load(path, map_location=None)\n"
    fixed = fix_source(source, settings=Settings(preview=True), unsafe=True)
    assert fixed.source.endswith('state = torch.load(path, map_location="cpu")\n')


# -- files the project writes (the project index) ------------------------------------------------

def _project(tmp_path, writer: str, loader: str) -> list[tuple[int, int, str]]:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "prepare.py").write_text(textwrap.dedent(writer))
    (tmp_path / "pkg" / "train.py").write_text(textwrap.dedent(loader))
    return reports("DEV004", loader, str(tmp_path / "pkg" / "train.py"))


LOADER = """
    import torch
    def load_vocab(root):
        return torch.load(os.path.join(root, "vocab.pt"))
"""


@pytest.mark.parametrize("saved", [
    'np.array(tokens)',
    '{"ids": [1, 2, 3], "size": len(tokens)}',
    '{k: v.cpu() for k, v in model.state_dict().items()}',
    'torch.tensor(tokens)',
    'embedding.weight.detach().cpu()',
])
def test_a_file_the_project_writes_from_host_data_is_not_reported(tmp_path, saved):
    writer = f"""
        import numpy as np
        import torch
        def prepare(root, tokens, model, embedding):
            torch.save({saved}, os.path.join(root, "vocab.pt"))
    """
    assert _project(tmp_path, writer, LOADER) == []


@pytest.mark.parametrize("saved", [
    'model.state_dict()',
    'embedding.weight',
    'torch.zeros(3, device="cuda")',
])
def test_a_file_the_project_writes_from_values_that_may_be_on_a_device_is_reported(tmp_path, saved):
    writer = f"""
        import torch
        def prepare(root, model, embedding):
            torch.save({saved}, os.path.join(root, "vocab.pt"))
    """
    assert _project(tmp_path, writer, LOADER) == [(4, 12, "DEV004")]


def test_a_file_written_from_host_data_in_one_place_and_device_data_in_another_is_reported(tmp_path):
    writer = """
        import numpy as np
        import torch
        def prepare(root, tokens, model):
            torch.save(np.array(tokens), os.path.join(root, "vocab.pt"))
        def again(root, model):
            torch.save(model.state_dict(), os.path.join(root, "vocab.pt"))
    """
    assert _project(tmp_path, writer, LOADER) == [(4, 12, "DEV004")]


def test_a_dict_filled_after_it_is_made_is_host_data_only_if_what_goes_in_is(tmp_path):
    writer = """
        import torch
        def prepare(root, model):
            checkpoint = {}
            checkpoint["weights"] = model.state_dict()
            torch.save(checkpoint, os.path.join(root, "vocab.pt"))
    """
    assert _project(tmp_path, writer, LOADER) == [(4, 12, "DEV004")]


def test_a_file_name_the_project_never_writes_is_reported(tmp_path):
    writer = """
        import numpy as np
        import torch
        def prepare(root, tokens):
            torch.save(np.array(tokens), os.path.join(root, "other.pt"))
    """
    assert _project(tmp_path, writer, LOADER) == [(4, 12, "DEV004")]


def test_a_constant_file_name_links_the_save_and_the_load(tmp_path):
    writer = """
        import torch
        VOCAB_NAME = "vocab.bin"
        def prepare(root, tokens):
            torch.save(list(tokens), os.path.join(root, VOCAB_NAME))
    """
    loader = """
        import torch
        from .prepare import VOCAB_NAME
        def load_vocab(root):
            return torch.load(os.path.join(root, VOCAB_NAME))
    """
    assert _project(tmp_path, writer, loader) == []


def test_a_name_bound_in_a_loop_resolves_to_nothing_and_a_cycle_ends(tmp_path):
    writer = """
        import torch
        def prepare(root, items):
            a = b
            b = a
            for c in items:
                torch.save(a, os.path.join(root, "vocab.pt"))
    """
    assert _project(tmp_path, writer, LOADER) == [(4, 12, "DEV004")]
