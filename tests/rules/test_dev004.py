"""DEV004 — `torch.load` without `map_location`.

Each case is a snippet and the exact `(line, col, code)` reports DEV004 gives on it; the
report points at the load call.
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, reports

case = cases_for("DEV004")

FLAGGED = [
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
    case("in_a_method", """
        import torch
        class Checkpointer:
            def restore(self):
                return torch.load(self.path)
    """, [(4, 16)]),
]

NOT_FLAGGED = [
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

    fixed = fix_source("import torch\nstate = torch.load(path, map_location=None)\n", unsafe=True)
    assert fixed.source.endswith('state = torch.load(path, map_location="cpu")\n')
