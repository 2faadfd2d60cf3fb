"""Questions two or more rules ask, answered once in devlint/analysis/: the one value a name is bound to
(DEV016, DEV017) and whether a test asks about the torch version (DEV008, DEV012)."""

from __future__ import annotations

import textwrap

import libcst as cst

from devlint.analysis.guards import tests_torch_version as asks_about_torch_version  # (not a test: renamed)
from devlint.analysis.names import single_values


def _values(code: str, **options) -> dict[str, str | None]:
    module = cst.parse_module(textwrap.dedent(code))
    found = single_values(module, **options)
    return {name: None if value is None else module.code_for_node(value) for name, value in found.items()}


def test_a_name_bound_once_by_a_plain_assignment_has_that_value_and_any_other_binding_has_none():
    assert _values("""
        a = torch.ones(3)
        b = 1
        b = 2
        c, d = f()
        e += 1
        for g in h: pass
        with open(p) as i: pass
        j = k = 0
        (m := 3)
        n: int = 4
        def inner():
            a = 0
    """) == {"a": "torch.ones(3)", "b": None, "c": None, "d": None, "e": None, "g": None, "i": None, "j": None,
             "k": None, "m": None, "n": None}


def test_nested_scopes_count_only_when_asked_and_an_ignored_assignment_binds_nothing():
    code = """
        w = torch.zeros(2, dtype=torch.float64)
        w = w.to("mps")
        def inner():
            x = 1
    """
    assert _values(code) == {"w": None}
    assert _values(code, nested=True) == {"w": None, "x": "1"}
    keeps = lambda assign: cst.Module([]).code_for_node(assign.value).endswith('.to("mps")')  # noqa: E731
    assert _values(code, ignored=keeps) == {"w": 'torch.zeros(2, dtype=torch.float64)'}


def test_a_test_of_the_torch_version_or_of_an_api_being_there():
    def asks(code: str, **options) -> bool:
        return asks_about_torch_version(cst.parse_expression(code), **options)

    for code in ("is_torch_version('>=', '2.4')", "_TORCH_GREATER_EQUAL_2_4", "TORCH_GE_2_3",
                 "hasattr(torch.amp, 'GradScaler')", "version.parse(torch.__version__) >= v"):
        assert asks(code), code
    for code in ("torch.cuda.is_available()", "use_amp", "device.type == 'cuda'"):
        assert not asks(code), code
    assert asks("torch.accelerator.is_available()", new_api="accelerator")
    assert not asks("torch.accelerator.is_available()")
