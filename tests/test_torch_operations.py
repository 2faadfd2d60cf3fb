"""devlint/analysis/torch_operations.py is what benchmarks/generate_torch_operations.py writes from the
installed torch's operator schemas (the test needs torch, and the torch the file was generated from)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

from devlint.analysis import torch_operations

GENERATOR = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "generate_torch_operations.py"


def test_the_checked_in_operations_are_what_the_generator_writes() -> None:
    torch = pytest.importorskip("torch")
    if torch.__version__ != torch_operations.TORCH_VERSION:
        pytest.skip(f"generated from torch {torch_operations.TORCH_VERSION}, {torch.__version__} installed")
    spec = importlib.util.spec_from_file_location("generate_torch_operations", GENERATOR)
    generator = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(generator)  # type: ignore[union-attr]
    assert generator.TARGET.read_text() == generator.render(*generator.read_schemas())


def test_the_index_arguments_are_those_pytorch_refuses_on_another_device() -> None:
    # benchmarks/dev005_device_check.py on a GPU: a CPU index raises for these, not for a subscript's
    assert torch_operations.INDEX_ARGUMENTS["index_select"] == ((2, "index"),)
    assert torch_operations.INDEX_ARGUMENTS["masked_fill_"] == ((1, "mask"),)
    assert "index_put_" not in torch_operations.INDEX_ARGUMENTS
    assert torch_operations.SUBSCRIPT_INDICES["index_put_"] == ((1, "indices"),)
    assert {"cat", "where", "take_along_dim"} <= torch_operations.SAME_DEVICE_FUNCTIONS
    assert "to" not in torch_operations.SAME_DEVICE_METHODS and "copy_" not in torch_operations.SAME_DEVICE_METHODS
