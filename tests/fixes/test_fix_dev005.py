"""DEV005 fix (unsafe): `device=<first tensor argument>.device`."""

from __future__ import annotations

from fixing import check, unchanged

_BEFORE = """
    import torch as th
    from torch import nn
    class Encoder(nn.Module):
        def forward(self, x, mask=None):
            positions = th.arange(x.size(1))
            return x + positions
    """


def test_not_applied_without_unsafe_fixes():
    unchanged(_BEFORE, unsafe=False)


def test_first_tensor_argument_and_alias():
    check(_BEFORE, """
        import torch as th
        from torch import nn
        class Encoder(nn.Module):
            def forward(self, x, mask=None):
                positions = th.arange(x.size(1), device=x.device)
                return x + positions
        """, unsafe=True)


def test_annotated_non_tensor_arguments_are_skipped():
    check(
        """
        import torch
        class Net(torch.nn.Module):
            def forward(self, n: int, x: torch.Tensor):
                return x + torch.zeros(n)
        """,
        """
        import torch
        class Net(torch.nn.Module):
            def forward(self, n: int, x: torch.Tensor):
                return x + torch.zeros(n, device=x.device)
        """,
        unsafe=True,
    )


def test_multiline_factory_and_several_in_one_forward():
    check(
        """
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                a = torch.ones(
                    x.size(0),
                    x.size(1),  # features
                )
                b = torch.eye(3)[0]
                return a + b
        """,
        """
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                a = torch.ones(
                    x.size(0),
                    x.size(1),  # features
                    device=x.device,
                )
                b = torch.eye(3, device=x.device)[0]
                return a + b
        """,
        unsafe=True,
    )


def test_forward_without_a_tensor_argument_gets_no_fix():
    unchanged(
        """
        import torch
        class Net(torch.nn.Module):
            def forward(self):
                return torch.zeros(3)
        """
    )
