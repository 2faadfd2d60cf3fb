"""DEV001 fix: assign the moved tensor back (safe)."""

from __future__ import annotations

from fixing import check, fixed, unchanged


def test_name_is_assigned_back_without_unsafe_fixes():
    check(
        """
        import torch
        x = torch.zeros(3)
        x.to("cpu")
        """,
        """
        import torch
        x = torch.zeros(3)
        x = x.to("cpu")
        """,
    )


def test_alias_and_subscript_receiver():
    check(
        """
        import torch as th
        def f(batch, device):
            batch["x"] = th.zeros(3)
            batch["x"].to(device)
        """,
        """
        import torch as th
        def f(batch, device):
            batch["x"] = th.zeros(3)
            batch["x"] = batch["x"].to(device)
        """,
    )


def test_attribute_receiver_that_is_a_plain_tensor():
    check(
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.buf = torch.zeros(3)
            def move(self, device):
                self.buf.to(device)
        """,
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.buf = torch.zeros(3)
            def move(self, device):
                self.buf = self.buf.to(device)
        """,
    )


def test_parameter_attribute_gets_no_fix():
    unchanged(
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(torch.zeros(3))
            def move(self, device):
                self.w.to(device)
        """
    )


def test_comment_semicolon_and_crlf_survive():
    source = "import torch\r\nx = torch.zeros(3)\r\ny = 1; x.to('cpu')  # move\r\n"
    assert fixed(source, dedent=False) == "import torch\r\nx = torch.zeros(3)\r\ny = 1; x = x.to('cpu')  # move\r\n"


def test_multiline_move_keeps_its_layout():
    check(
        """
        import torch
        x = torch.zeros(3)
        x.to(
            "cpu",
            non_blocking=True,  # async
        )
        """,
        """
        import torch
        x = torch.zeros(3)
        x = x.to(
            "cpu",
            non_blocking=True,  # async
        )
        """,
    )


def test_tabs_are_kept():
    source = "import torch\ndef f():\n\tx = torch.zeros(3)\n\tx.to('cpu')\n\treturn x\n"
    assert fixed(source, dedent=False) == "import torch\ndef f():\n\tx = torch.zeros(3)\n\tx = x.to('cpu')\n\treturn x\n"


def test_composes_with_dev003_on_a_discarded_cuda_call():
    # DEV001 assigns back, DEV003 (unsafe) turns .cuda() into a move to the file's device
    check(
        """
        import torch
        def f(device):
            x = torch.zeros(3, device=device)
            x.cuda()
            return x
        """,
        """
        import torch
        def f(device):
            x = torch.zeros(3, device=device)
            x = x.to(device)
            return x
        """,
        unsafe=True,
    )


def test_parameter_of_another_module_gets_no_fix():
    # `model.weight = model.weight.to(device)` raises TypeError when the device changes
    code = """
        import torch
        from torch import nn
        def f(device):
            model = nn.Linear(2, 2)
            model.weight.to(device)
            model.weight.data.to(device)
        """
    assert "model.weight.to(device)\n" in fixed(code)
    assert "model.weight.data = model.weight.data.to(device)" in fixed(code)


def test_attribute_of_a_submodule_gets_no_fix():
    unchanged(
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(2, 2)
            def move(self, device):
                self.lin.weight.to(device)
        """
    )
