"""DEV002 fix: create the tensor on the device (safe for a plain device and a non-random factory)."""

from __future__ import annotations

from fixing import check, fixed, unchanged


def test_plain_device_name_is_moved_into_the_factory():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(n).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(n, device=device)
        """,
    )


def test_alias_and_attribute_target():
    check(
        """
        import torch as th
        def f(n, x):
            return th.ones(n).to(x.device)
        """,
        """
        import torch as th
        def f(n, x):
            return th.ones(n, device=x.device)
        """,
    )


def test_from_import_and_device_keyword():
    check(
        """
        from torch import zeros
        def f(n, device):
            return zeros(n).to(device=device)
        """,
        """
        from torch import zeros
        def f(n, device):
            return zeros(n, device=device)
        """,
    )


def test_casts_between_factory_and_move_stay():
    check(
        """
        import torch
        def f(n, device):
            return torch.ones(n).float().to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.ones(n, device=device).float()
        """,
    )


def test_random_factory_is_unsafe():
    code = """
        import torch
        def f(n, device):
            return torch.randn(n).to(device)
        """
    unchanged(code, unsafe=False)
    check(code, """
        import torch
        def f(n, device):
            return torch.randn(n, device=device)
        """, unsafe=True)


def test_name_that_only_looks_like_a_device_is_unsafe():
    code = """
        import torch
        def f(n, dev):
            return torch.zeros(n).to(dev)
        """
    unchanged(code, unsafe=False)
    assert "torch.zeros(n, device=dev)" in fixed(code, unsafe=True)


def test_target_that_may_be_a_tensor_gets_no_fix():
    unchanged(
        """
        import torch
        def f(n, other):
            return torch.zeros(n).to(other)
        """
    )


def test_split_move_on_the_next_line_is_folded():
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            x = x.to(device)
            return x
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)
            return x
        """,
    )


def test_multiline_call_gets_the_keyword_on_its_own_line_with_trailing_comma():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n,  # square
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n,  # square
                device=device,
            )
        """,
    )


def test_multiline_call_without_trailing_comma_keeps_the_comment_on_its_argument():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n  # square
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n,  # square
                device=device
            )
        """,
    )


def test_crlf_and_tabs():
    source = "import torch\r\ndef f(n, device):\r\n\treturn torch.zeros(\r\n\t\tn,\r\n\t).to(device)\r\n"
    assert fixed(source, dedent=False) == (
        "import torch\r\ndef f(n, device):\r\n\treturn torch.zeros(\r\n\t\tn,\r\n\t\tdevice=device,\r\n\t)\r\n"
    )


def test_line_continuation_in_the_arguments_survives():
    check(
        """
        import torch
        def f(n, device):
            return torch.full((n,), \\
                              0.5).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.full((n,), \\
                              0.5, device=device)
        """,
    )


def test_cuda_call_composes_with_dev003():
    # DEV002 alone would write device="cuda"; with DEV003 the literal becomes the guarded choice
    check(
        """
        import torch
        x = torch.zeros(3).cuda()
        """,
        """
        import torch
        x = torch.zeros(3, device="cuda" if torch.cuda.is_available() else "cpu")
        """,
        unsafe=True,
    )


def test_cuda_call_alone_is_safe():
    check(
        """
        import torch
        x = torch.zeros(3).cuda()
        """,
        """
        import torch
        x = torch.zeros(3, device="cuda")
        """,
    )


def test_nested_factories_in_one_expression():
    check(
        """
        import torch
        def f(n, device):
            return torch.cat([torch.zeros(n).to(device), torch.ones(n).to(device)])
        """,
        """
        import torch
        def f(n, device):
            return torch.cat([torch.zeros(n, device=device), torch.ones(n, device=device)])
        """,
    )


def test_several_fixes_in_one_file():
    check(
        """
        import torch
        def f(n, device):
            a = torch.zeros(n).to(device)
            b = torch.arange(n).to(device)
            return a, b
        def g(n, device):
            return torch.eye(n).to(device)
        """,
        """
        import torch
        def f(n, device):
            a = torch.zeros(n, device=device)
            b = torch.arange(n, device=device)
            return a, b
        def g(n, device):
            return torch.eye(n, device=device)
        """,
    )


def test_comment_after_the_opening_paren_is_not_copied():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(  # the shape
                n,
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(  # the shape
                n,
                device=device,
            )
        """,
    )


def test_arguments_sharing_a_line_take_the_keyword_on_that_line():
    check(
        """
        import torch
        def f(n, device):
            return torch.tensor(
                [[1]] * n, dtype=torch.int
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.tensor(
                [[1]] * n, dtype=torch.int, device=device
            )
        """,
    )
