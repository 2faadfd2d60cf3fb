"""DEV003 fix (unsafe): the file's device variable where in scope, else the guarded choice."""

from __future__ import annotations

from fixing import check, unchanged


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
