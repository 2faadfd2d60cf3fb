"""DEV003 fix (unsafe): the file's device variable where in scope, else the guarded choice."""

from __future__ import annotations

import textwrap

from fixing import check, unchanged

from devlint import fix_source
from devlint.engine.settings import Settings


def test_not_applied_without_unsafe_fixes():
    unchanged('import torch\nx = torch.zeros(3, device="cuda")\n', unsafe=False)


def test_alias_is_used_in_the_fallback():
    check(
        """
        import torch as th
        x = th.zeros(3, device="cuda")
        """,
        """
        import torch as th
        x = th.zeros(3, device="cuda" if th.cuda.is_available() else "cpu")
        """,
        unsafe=True,
    )


def test_device_parameter_in_scope_is_used():
    check(
        """
        import torch
        def f(model, device):
            return model.cuda(), torch.ones(2, device='cuda:0')
        """,
        """
        import torch
        def f(model, device):
            return model.to(device), torch.ones(2, device=device)
        """,
        unsafe=True,
    )


def test_self_device_in_a_method():
    check(
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self, device):
                super().__init__()
                self.device = device
            def forward(self, x):
                return x + torch.ones(3, device="cuda")
        """,
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self, device):
                super().__init__()
                self.device = device
            def forward(self, x):
                return x + torch.ones(3, device=self.device)
        """,
        unsafe=True,
    )


def test_static_method_has_no_self_device():
    check(
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self, device):
                super().__init__()
                self.device = device
            @staticmethod
            def make():
                return torch.ones(3, device="cuda")
        """,
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self, device):
                super().__init__()
                self.device = device
            @staticmethod
            def make():
                return torch.ones(3, device="cuda" if torch.cuda.is_available() else "cpu")
        """,
        unsafe=True,
    )


def test_assignment_that_defines_the_device_never_refers_to_itself():
    check(
        """
        import torch
        def f(device=None):
            if device is None:
                device = torch.device("cuda")
            return device
        """,
        """
        import torch
        def f(device=None):
            if device is None:
                device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            return device
        """,
        unsafe=True,
    )


def test_attribute_assignment_that_defines_the_device_never_refers_to_itself():
    check(
        """
        import torch
        class Runner:
            def setup(self):
                self.device = torch.device("cuda")
        """,
        """
        import torch
        class Runner:
            def setup(self):
                self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        """,
        unsafe=True,
    )


def test_local_bound_later_is_not_used():
    # `device` is local to g (bound after the fix point): using it would raise UnboundLocalError
    check(
        """
        import torch
        device = "cpu"
        def g():
            x = torch.zeros(3, device="cuda")
            device = 1
            return x, device
        """,
        """
        import torch
        device = "cpu"
        def g():
            x = torch.zeros(3, device="cuda" if torch.cuda.is_available() else "cpu")
            device = 1
            return x, device
        """,
        unsafe=True,
    )


def test_module_level_device_is_used_inside_functions():
    check(
        """
        import torch
        DEVICE = torch.device("cpu")
        def g():
            return torch.zeros(3, device="cuda")
        """,
        """
        import torch
        DEVICE = torch.device("cpu")
        def g():
            return torch.zeros(3, device=DEVICE)
        """,
        unsafe=True,
    )


def test_default_of_a_parameter_does_not_use_the_parameter():
    check(
        """
        import torch
        def f(x, dev=torch.device("cuda")):
            return x
        """,
        """
        import torch
        def f(x, dev=torch.device("cuda" if torch.cuda.is_available() else "cpu")):
            return x
        """,
        unsafe=True,
    )


def test_single_quotes_are_kept():
    check(
        """
        import torch
        x = torch.zeros(3, device='cuda:1')
        """,
        """
        import torch
        x = torch.zeros(3, device='cuda:1' if torch.cuda.is_available() else 'cpu')
        """,
        unsafe=True,
    )


def test_cuda_with_an_index_gets_no_fix():
    unchanged(
        """
        import torch
        def f(model, rank):
            return model.cuda(rank)
        """
    )


def test_import_torch_is_added_once_after_the_last_import():
    check(
        '''
        """Doc."""
        from __future__ import annotations

        from torch import zeros
        import os
        a = zeros(3, device="cuda")
        b = zeros(3, device="cuda")
        ''',
        '''
        """Doc."""
        from __future__ import annotations

        from torch import zeros
        import os
        import torch
        a = zeros(3, device="cuda" if torch.cuda.is_available() else "cpu")
        b = zeros(3, device="cuda" if torch.cuda.is_available() else "cpu")
        ''',
        unsafe=True,
    )


def test_no_import_added_when_a_device_variable_is_used():
    check(
        """
        from torch import zeros
        def f(device):
            return zeros(3, device="cuda")
        """,
        """
        from torch import zeros
        def f(device):
            return zeros(3, device=device)
        """,
        unsafe=True,
    )


def test_several_fixes_nested_in_one_expression():
    check(
        """
        import torch
        def f(n):
            return torch.stack([torch.zeros(n).cuda(), torch.ones(n).cuda()]).cuda()
        """,
        """
        import torch
        def f(n):
            return torch.stack(
                [
                    torch.zeros(
                        n,
                        device="cuda" if torch.cuda.is_available() else "cpu",
                    ),
                    torch.ones(n, device="cuda" if torch.cuda.is_available() else "cpu"),
                ]
            ).to(
                "cuda" if torch.cuda.is_available() else "cpu",
            )
        """,
        unsafe=True,
    )


def test_crlf_file():
    from fixing import fixed

    source = 'import torch\r\ndef f(device):\r\n    return torch.zeros(3, device="cuda")\r\n'
    assert fixed(source, unsafe=True, dedent=False) == (
        'import torch\r\ndef f(device):\r\n    return torch.zeros(3, device=device)\r\n'
    )


# -- issue 15: what gets no fix --------------------------------------------------------------------

def test_two_argument_torch_device_gets_no_fix():
    unchanged(
        """
        import torch
        device = torch.device("cuda" if flag else "cpu", torch.cuda.current_device())
        x = torch.device("cuda", 0)
        """
    )


def test_run_time_device_strings_get_no_fix():
    unchanged(
        """
        import torch
        def f(x, i):
            return x.to("cuda:%d" % i), x.to(f"cuda:{i}"), x.to("cuda:" + str(i)), x.to("cuda:{}".format(i))
        """
    )


def test_cuda_only_function_gets_neither_report_nor_fix():
    unchanged(
        """
        import torch
        def bench(model, x):
            torch.cuda.synchronize()
            return model.cuda()(x.to("cuda"))
        """
    )


def test_device_deleted_before_the_line_is_not_used():
    unchanged(
        """
        import torch
        def f(model):
            device = torch.device("cpu")
            del device
            return model.to("cuda")
        """
    )


def test_device_attribute_holding_an_int_index_is_not_used():
    unchanged(
        """
        import torch
        class Runner:
            def __init__(self, rank: int):
                self.device = rank
            def place(self, model):
                return model.cuda()
        """
    )


def test_device_attribute_holding_a_torch_device_is_used():
    check(
        """
        import torch
        class Runner:
            def __init__(self, rank: int):
                self.device = torch.device("cuda", rank)
            def place(self, model):
                return model.cuda()
        """,
        """
        import torch
        class Runner:
            def __init__(self, rank: int):
                self.device = torch.device("cuda", rank)
            def place(self, model):
                return model.to(self.device)
        """,
        unsafe=True,
    )


def test_device_annotated_optional_is_not_used():
    unchanged(
        """
        import torch
        from typing import Optional
        def f(model, device: Optional[torch.device] = None):
            return model.to("cuda")
        """
    )


def test_raw_device_argument_resolved_into_another_name_uses_that_name():
    check(
        """
        import torch
        def f(model, device=None):
            device_ = torch.device(device or "cpu")
            return model.cuda()
        """,
        """
        import torch
        def f(model, device=None):
            device_ = torch.device(device or "cpu")
            return model.to(device_)
        """,
        unsafe=True,
    )


def test_raw_device_argument_resolved_later_gets_no_fix():
    unchanged(
        """
        import torch
        def f(model, device=None):
            model = model.cuda()
            device_ = torch.device(device or "cpu")
            return model, device_
        """
    )


def test_map_location_literal_needs_a_device_that_is_not_an_int():
    unchanged(
        """
        import torch
        def f(path, device):
            return torch.load(path, map_location="cuda")
        """
    )


def test_map_location_literal_uses_a_device_string_variable():
    check(
        """
        import torch
        def f(path, device: str):
            return torch.load(path, map_location="cuda")
        """,
        """
        import torch
        def f(path, device: str):
            return torch.load(path, map_location=device)
        """,
        unsafe=True,
    )


# -- issue 15: arguments and layout kept -------------------------------------------------------------

def test_cuda_keeps_non_blocking():
    check(
        """
        import torch
        def f(x, device):
            return x.cuda(non_blocking=True)
        """,
        """
        import torch
        def f(x, device):
            return x.to(device, non_blocking=True)
        """,
        unsafe=True,
    )


def test_cuda_with_a_split_argument_list_stays_split():
    check(
        """
        import torch
        def f(x, device):
            return x.cuda(
                non_blocking=True,
            )
        """,
        """
        import torch
        def f(x, device):
            return x.to(
                device, non_blocking=True,
            )
        """,
        unsafe=True,
    )


def test_to_keeps_its_other_arguments():
    check(
        """
        import torch
        def f(x, device):
            return x.to(
                "cuda",
                non_blocking=True,
            )
        """,
        """
        import torch
        def f(x, device):
            return x.to(
                device,
                non_blocking=True,
            )
        """,
        unsafe=True,
    )


# -- issue 14: `.cuda()` of a value computed from a tensor input -----------------------------------

def test_round_trip_goes_back_to_the_inputs_device():
    check(
        """
        import torch
        def offsets(x: torch.Tensor):
            return x.cpu().cumsum(0).cuda()
        """,
        """
        import torch
        def offsets(x: torch.Tensor):
            return x.cpu().cumsum(0).to(x.device)
        """,
        unsafe=True,
    )


def test_value_derived_from_the_input_goes_back_under_a_guard_too():
    check(
        """
        import torch
        def match(x: torch.Tensor, y):
            cost = torch.cdist(x, y).cpu()
            if torch.cuda.is_available():
                cost = cost.cuda(non_blocking=True)
            return cost
        """,
        """
        import torch
        def match(x: torch.Tensor, y):
            cost = torch.cdist(x, y).cpu()
            if torch.cuda.is_available():
                cost = cost.to(x.device, non_blocking=True)
            return cost
        """,
        unsafe=True,
    )


# DEV003 is a preview rule: it runs only with preview on or where its full code is selected.
NAMED = ("DEV003",)


def fixed_for(code: str, target: "tuple[int, int] | None") -> str:
    settings = Settings(target_torch=target, preview=True)
    return fix_source(textwrap.dedent(code), "example.py", settings, unsafe=True).source


def test_the_fallback_follows_the_target_torch_version():
    code = 'import torch\nd = torch.device("cuda")\n'
    assert fixed_for(code, None) == 'import torch\nd = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    assert fixed_for(code, (2, 5)) == fixed_for(code, None)
    assert fixed_for(code, (2, 7)) == (
        'import torch\nd = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")\n')


def test_torch_2_6_asks_whether_an_accelerator_is_there_first():
    # 2.6's current_accelerator() raises where there is none, and has no check_available
    code = textwrap.dedent("""
        import torch
        x = x.to("mps")
        """)
    settings = Settings(target_torch=(2, 6), line_length=120, preview=True)
    result = fix_source(code, "example.py", settings, unsafe=True).source
    assert result == textwrap.dedent("""
        import torch
        x = x.to(torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu"))
        """)


# Issue 28: the 2.6 forms are longer than a line; they are wrapped as black wraps them (checked
# against black 26: each expected text below is black's output for the one-line fix).
def test_a_fallback_longer_than_the_line_is_split_at_if_and_else_in_its_call():
    assert fixed_for('import torch\nx = x.to("mps")\n', (2, 6)) == textwrap.dedent("""\
        import torch
        x = x.to(
            torch.accelerator.current_accelerator()
            if torch.accelerator.is_available()
            else torch.device("cpu")
        )
        """)


def test_a_keyword_fallback_longer_than_the_line_is_parenthesised():
    assert fixed_for('import torch\nx = torch.zeros(3, device="cuda")\n', (2, 6)) == textwrap.dedent("""\
        import torch
        x = torch.zeros(
            3,
            device=(
                torch.accelerator.current_accelerator()
                if torch.accelerator.is_available()
                else torch.device("cpu")
            ),
        )
        """)


def test_an_assigned_fallback_longer_than_the_line_is_parenthesised():
    assert fixed_for('import torch\ndevice = "cuda"\n', (2, 6)) == textwrap.dedent("""\
        import torch
        device = (
            torch.accelerator.current_accelerator().type
            if torch.accelerator.is_available()
            else "cpu"
        )
        """)


def test_a_device_kept_as_a_string_stays_a_string():
    # code may compare it (`device == "cuda"`) or format it: the accelerator's type, not a torch.device
    assert fixed_for('import torch\ndevice = "cuda"\n', (2, 7)) == (
        'import torch\ndevice = str(torch.accelerator.current_accelerator(check_available=True) or "cpu")\n')


def test_mps_before_torch_2_6_asks_the_mps_backend():
    assert fixed_for('import torch\ndevice = "mps"\n', None) == (
        'import torch\ndevice = "mps" if torch.backends.mps.is_available() else "cpu"\n')


def test_xpu_before_torch_2_6_gets_no_fix():
    # torch.xpu is not in every torch >= 2.1
    assert fixed_for('import torch\ndevice = "xpu"\n', None) == 'import torch\ndevice = "xpu"\n'


def test_an_indexed_device_keeps_its_backend_check():
    # `torch.accelerator` gives the current device, not GPU 1
    assert fixed_for('import torch\nx = x.to("cuda:1")\n', (2, 7)) == (
        'import torch\nx = x.to("cuda:1" if torch.cuda.is_available() else "cpu")\n')


# -- in a test, the fix is a skip marker (issue 28): the test needs CUDA, it is not run on the CPU --

def _fixed_test(code: str, path: str = "test_model.py") -> str:
    import textwrap

    from devlint import fix_source

    return fix_source(textwrap.dedent(code), path, Settings(preview=True), unsafe=True).source


def test_a_test_function_gets_a_pytest_skip_marker():
    assert _fixed_test("""
        import pytest
        import torch

        def test_sum():
            x = torch.ones(3, device="cuda")
            y = x.cuda()
            assert x.sum() == 3
    """) == textwrap.dedent("""
        import pytest
        import torch

        @pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
        def test_sum():
            x = torch.ones(3, device="cuda")
            y = x.cuda()
            assert x.sum() == 3
    """)


def test_a_test_case_method_gets_a_unittest_skip_marker_below_its_decorators():
    assert _fixed_test("""
        import unittest
        import torch

        class TestOps(unittest.TestCase):
            @slow
            def test_matmul(self):
                a = torch.randn(2, 2, device="cuda")
                self.assertEqual(a.shape, (2, 2))
    """) == textwrap.dedent("""
        import unittest
        import torch

        class TestOps(unittest.TestCase):
            @slow
            @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
            def test_matmul(self):
                a = torch.randn(2, 2, device="cuda")
                self.assertEqual(a.shape, (2, 2))
    """)


def test_an_mps_test_is_skipped_on_mps_availability():
    assert "@pytest.mark.skipif(not torch.backends.mps.is_available(), reason=\"needs MPS\")" in _fixed_test("""
        import pytest
        import torch

        def test_on_mac():
            x = torch.ones(3, device="mps")
    """)


def test_a_test_file_without_pytest_or_unittest_gets_no_fix():
    code = """
        import torch

        def test_sum():
            x = torch.ones(3, device="cuda")
    """
    assert _fixed_test(code) == textwrap.dedent(code)


def test_a_function_named_test_outside_a_test_file_keeps_the_device_fallback():
    fixed_text = _fixed_test("""
        import pytest
        import torch

        def test_speed():
            x = torch.ones(3, device="cuda")
    """, path="bench.py")
    assert 'device="cuda" if torch.cuda.is_available() else "cpu"' in fixed_text


def test_a_literal_in_a_function_of_one_tensor_follows_that_tensors_device():
    check(
        """
        import torch
        def pad(x: torch.Tensor, n):
            return torch.cat([x, torch.zeros(n, device="cuda")])
        """,
        """
        import torch
        def pad(x: torch.Tensor, n):
            return torch.cat([x, torch.zeros(n, device=x.device)])
        """,
        unsafe=True,
    )


def test_a_literal_in_a_function_of_two_tensors_takes_the_machines_device():
    check(
        """
        import torch
        def pad(x: torch.Tensor, y: torch.Tensor, n):
            return torch.zeros(n, device="cuda")
        """,
        """
        import torch
        def pad(x: torch.Tensor, y: torch.Tensor, n):
            return torch.zeros(n, device="cuda" if torch.cuda.is_available() else "cpu")
        """,
        unsafe=True,
    )


def test_a_tensor_input_that_may_be_none_is_not_followed():
    check(
        """
        import torch
        def generate(n, condition: torch.Tensor = None):
            return torch.zeros(n, device="cuda")
        """,
        """
        import torch
        def generate(n, condition: torch.Tensor = None):
            return torch.zeros(n, device="cuda" if torch.cuda.is_available() else "cpu")
        """,
        unsafe=True,
    )


def test_a_default_too_long_for_its_line_is_parenthesised_on_one_line_where_that_fits():
    code = textwrap.dedent("""\
        import torch
        class Erasing:
            def __init__(
                self,
                probability: float = 0.5,
                device: Union[str, torch.device] = 'cuda',
            ) -> None:
                self.device = device
        """)
    result = fix_source(code, "example.py", Settings(line_length=70, preview=True), unsafe=True).source
    assert result == code.replace("""        device: Union[str, torch.device] = 'cuda',
""", """        device: Union[str, torch.device] = (
            'cuda' if torch.cuda.is_available() else 'cpu'
        ),
""")
