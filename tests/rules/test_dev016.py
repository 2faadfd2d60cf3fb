"""DEV016 — a DataLoader asked to pin a dataset whose items are on CUDA already (in preview).

Each case is a snippet and the exact `(line, col, code)` reports DEV016 gives on it with preview on; the report
points at the loader's call.
"""

from __future__ import annotations

import pytest

from conftest import lint
from rules.cases import cases_for

case = cases_for("DEV016")

DATASET = """
    import torch
    from torch.utils.data import DataLoader, Dataset
    class Frames(Dataset):
        def __getitem__(self, i):
            return RETURNED
"""


def with_item(returned: str, loader: str) -> str:
    return DATASET.replace("RETURNED", returned) + loader


FLAGGED = [
    case("cuda_method_in_getitem", with_item("self.data[i].cuda()", """
    loader = DataLoader(Frames(), batch_size=2, pin_memory=True)
    """), [(7, 10)]),
    case("a_tuple_with_a_cuda_factory", with_item('(torch.zeros(2, device="cuda"), i)', """
    loader = DataLoader(Frames(), pin_memory=True)
    """), [(7, 10)]),
    case("a_name_bound_once_and_the_dataset_keyword", with_item('self.data[i].to("cuda:0")', """
    frames = Frames()
    loader = DataLoader(dataset=frames, pin_memory=True)
    """), [(8, 10)]),
    case("a_dict_of_items", with_item('{"x": self.data[i].to(torch.device("cuda"))}', """
    loader = DataLoader(Frames(), pin_memory=True)
    """), [(7, 10)]),
]

NOT_FLAGGED = [
    case("host_items", with_item("self.data[i]", """
    loader = DataLoader(Frames(), pin_memory=True)
    """), []),
    case("a_device_the_file_does_not_show", with_item("self.data[i].to(self.device)", """
    loader = DataLoader(Frames(), pin_memory=True)
    """), []),
    case("no_pinning", with_item("self.data[i].cuda()", """
    loader = DataLoader(Frames(), pin_memory=False)
    other = DataLoader(Frames())
    """), []),
    case("a_dataset_from_elsewhere", """
    import torch
    from torch.utils.data import DataLoader
    from data import Frames
    loader = DataLoader(Frames(), pin_memory=True)
    """, []),
    case("a_name_bound_twice", with_item("self.data[i].cuda()", """
    frames = Frames()
    frames = Host()
    loader = DataLoader(frames, pin_memory=True)
    """), []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev016(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV016"] == expected
