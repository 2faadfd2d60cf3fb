"""benchmarks/cuda_snippets.py: every DEV005/DEV006 case has a recipe, and outcomes are decided by running."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import cuda_snippets  # noqa: E402  (benchmarks/ is not a package)
from cuda_snippets import Recipe, expected, run_one  # noqa: E402


@pytest.mark.parametrize("rule", cuda_snippets.RULES)
def test_every_case_of_the_tests_has_a_recipe_and_every_recipe_a_case(rule):
    cases = [case for case, _, _ in cuda_snippets.test_cases(rule)]
    assert len(cases) == len(set(cases))
    assert sorted(cuda_snippets.RECIPES[rule]) == sorted(cases)


def test_the_snippets_are_read_dedented_with_what_the_tests_expect():
    cases = {case: (snippet, flagged) for case, snippet, flagged in cuda_snippets.test_cases("DEV006")}
    snippet, flagged = cases["cuda_then_numpy"]
    assert snippet.startswith("import torch\ndef f(x):\n")
    assert flagged and not cases["brought_back_with_cpu"][1]


def test_a_flagged_or_noqa_snippet_must_fail_and_any_other_must_work():
    assert expected(True, Recipe("f()")) == "fails"
    assert expected(False, Recipe("f()", noqa=True)) == "fails"
    assert expected(False, Recipe("f()")) == "works"


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def test_the_rules_own_error_fails_another_error_is_an_error_and_a_return_works(torch):
    snippet = "import torch\ndef add(x):\n    return x + torch.zeros(3)\ndef broken(x):\n    return x.nope\n"
    assert run_one(torch, "DEV005", "c", snippet, Recipe("add(D(3))"), "meta")["outcome"] == "fails"
    assert run_one(torch, "DEV005", "c", snippet, Recipe("add(D(3))"), "cpu") == {
        "outcome": "works", "detail": "returns tensors on cpu"}
    error = run_one(torch, "DEV005", "c", snippet, Recipe("broken(D(3))"), "cpu")
    assert error == {"outcome": "error", "detail": "AttributeError: 'Tensor' object has no attribute 'nope'"}
    assert run_one(torch, "DEV005", "c", snippet, Recipe(not_run="f is not shown"), "meta") == {
        "outcome": "not run", "detail": "f is not shown"}


def test_dev006_fails_only_on_numpys_refusal_of_a_tensor_off_the_host(torch):
    snippet = "import torch\ndef f(x):\n    return x.to('meta').numpy()\n"
    seen = run_one(torch, "DEV006", "c", snippet, Recipe("f(H(3))"), "meta")
    assert seen["outcome"] == "fails"
    assert seen["detail"].startswith("TypeError: can't convert meta device type tensor to numpy")


def test_a_host_result_fails_where_the_recipe_says_the_bug_is_a_result_left_on_the_host(torch):
    snippet = "import torch\ndef f(x):\n    return torch.tensor(0.0) if x.numel() == 0 else x.mean()\n"
    assert run_one(torch, "DEV005", "c", snippet, Recipe("f(D(0))", on_device=True), "meta") == {
        "outcome": "fails", "detail": "returns a tensor on cpu; the inputs are on meta"}
    assert run_one(torch, "DEV005", "c", snippet, Recipe("f(D(2))", on_device=True), "meta")["outcome"] == "works"


def test_a_snippet_that_sets_the_default_device_does_not_leave_it_set(torch):
    snippet = "import torch\ntorch.set_default_device('meta')\ndef f():\n    return torch.zeros(1)\n"
    assert run_one(torch, "DEV005", "c", snippet, Recipe("f()"), "cpu")["detail"] == "returns tensors on meta"
    assert torch.zeros(1).device.type == "cpu"
