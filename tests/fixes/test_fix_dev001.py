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


# -- issue 14 / 15: receivers known from forward, loops and branches; layout and arguments kept --


def test_forward_input_is_assigned_back():
    check(
        """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                inp.to(self.device)
                return inp
        """,
        """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                inp = inp.to(self.device)
                return inp
        """,
    )


def test_multi_line_move_of_a_forward_input_keeps_layout_and_every_argument():
    check(
        """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                inp.to(
                    device=self.device,
                    dtype=torch.float16,  # half precision
                    non_blocking=True,
                )
                return inp
        """,
        """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                inp = inp.to(
                    device=self.device,
                    dtype=torch.float16,  # half precision
                    non_blocking=True,
                )
                return inp
        """,
    )


def test_buffer_moved_to_the_inputs_device_keeps_its_keyword():
    check(
        """
        import torch
        from torch import nn
        class Sampler(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("grid", torch.zeros(8, 8, 2))
            def forward(self, f):
                self.grid.to(device=f.device)
                return f
        """,
        """
        import torch
        from torch import nn
        class Sampler(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("grid", torch.zeros(8, 8, 2))
            def forward(self, f):
                self.grid = self.grid.to(device=f.device)
                return f
        """,
    )


def test_factory_moved_under_a_cuda_availability_guard():
    check(
        """
        import torch
        def init_hidden(n):
            h_0 = torch.zeros(1, n, 4)
            if torch.cuda.is_available():
                h_0.cuda()
            return h_0
        """,
        """
        import torch
        def init_hidden(n):
            h_0 = torch.zeros(1, n, 4)
            if torch.cuda.is_available():
                h_0 = h_0.cuda()
            return h_0
        """,
    )


def test_move_in_the_branch_that_excludes_the_rebinding():
    check(
        """
        import torch
        def convert(cls, value, device, wrap):
            new_value = torch.as_tensor(value)
            if wrap:
                new_value = cls(new_value, requires_grad=False)
            elif device is not None:
                new_value.to(device)
            return new_value
        """,
        """
        import torch
        def convert(cls, value, device, wrap):
            new_value = torch.as_tensor(value)
            if wrap:
                new_value = cls(new_value, requires_grad=False)
            elif device is not None:
                new_value = new_value.to(device)
            return new_value
        """,
    )


def test_loop_targets_of_enumerate_over_a_loader():
    check(
        """
        import torch
        def train(model, criterion, loader, dev):
            for step, (images, target) in enumerate(loader):
                images.to(dev)
                target.to(dev, non_blocking=True)
                criterion(model(images), target).backward()
        """,
        """
        import torch
        def train(model, criterion, loader, dev):
            for step, (images, target) in enumerate(loader):
                images = images.to(dev)
                target = target.to(dev, non_blocking=True)
                criterion(model(images), target).backward()
        """,
    )


def test_value_of_a_batch_dict_is_stored_in_the_dict():
    # `v = v.to(dev)` would leave the dict as it was: what was meant is the dict's entry
    check(
        """
        import torch
        def to_device(batch, dev):
            for k, v in batch.items():
                v.to(dev, non_blocking=True)
            return batch
        """,
        """
        import torch
        def to_device(batch, dev):
            for k, v in batch.items():
                batch[k] = v.to(dev, non_blocking=True)
            return batch
        """,
    )


def test_value_of_a_batch_dict_used_again_in_the_loop_is_assigned_back():
    # the later uses want the moved tensor; the dict is left as the code left it
    check(
        """
        import torch
        def to_device(batch, dev, out):
            for k, v in batch.items():
                v.to(dev)
                out[k] = v
        """,
        """
        import torch
        def to_device(batch, dev, out):
            for k, v in batch.items():
                v = v.to(dev)
                out[k] = v
        """,
    )


def test_value_of_a_dict_display_of_tensors_is_stored_in_the_dict():
    check(
        """
        import torch
        def encode(model, ids, dev):
            inputs = {"input_ids": torch.as_tensor(ids), "labels": torch.tensor([1])}
            for key, value in inputs.items():
                value.to(dev)
            return model(**inputs)
        """,
        """
        import torch
        def encode(model, ids, dev):
            inputs = {"input_ids": torch.as_tensor(ids), "labels": torch.tensor([1])}
            for key, value in inputs.items():
                inputs[key] = value.to(dev)
            return model(**inputs)
        """,
    )


def test_values_of_a_batch_dict_get_no_fix():
    unchanged(
        """
        import torch
        def to_device(batch, dev):
            for v in batch.values():
                v.to(dev)
        """
    )


def test_value_of_a_batch_dict_moved_in_an_inner_loop():
    check(
        """
        import torch
        def to_device(batch, dev, n):
            for k, v in batch.items():
                for _ in range(n):
                    v.to(dev)
        """,
        """
        import torch
        def to_device(batch, dev, n):
            for k, v in batch.items():
                for _ in range(n):
                    batch[k] = v.to(dev)
        """,
    )


def test_name_never_read_again_gets_no_fix():
    # `w = w.to(d)` would be a dead store: what the author meant (move the module's weight?) is theirs to say
    unchanged(
        """
        import torch
        def load(encoder, values, device):
            w = torch.as_tensor(values)
            encoder.set(w)
            w.to(device)
        """
    )


def test_loop_target_never_read_again_gets_no_fix():
    unchanged(
        """
        import torch
        def move(batch, device):
            for item in batch:
                if isinstance(item, torch.Tensor):
                    item.to(device)
        """
    )


def test_name_read_in_the_next_round_of_a_loop_gets_the_fix():
    check(
        """
        import torch
        def run(step, device):
            state = torch.zeros(4)
            while True:
                if step(state):
                    break
                state.to(device)
        """,
        """
        import torch
        def run(step, device):
            state = torch.zeros(4)
            while True:
                if step(state):
                    break
                state = state.to(device)
        """,
    )


def test_a_later_numpy_conversion_makes_the_kept_move_unsafe():
    # fast-reid's benchmark: the move was a no-op, and the code after it converts host tensors to NumPy; kept, the
    # tensors reach `.numpy()` on the device, which raises
    bug = """
        import torch
        def evaluate(images, gpu):
            feats = []
            for image in images:
                t = torch.Tensor(image)
                t.to(torch.device(gpu))
                feats.append(t)
            return torch.cat(feats).numpy()
        """
    unchanged(bug, unsafe=False)
    check(bug, bug.replace("t.to(torch.device(gpu))", "t = t.to(torch.device(gpu))"), unsafe=True)


def test_a_conversion_that_copies_to_the_host_first_or_a_move_to_the_host_stays_safe():
    check(
        """
        import numpy as np
        import torch
        def f(x: torch.Tensor, d):
            x.to(d)
            return x.cpu().numpy()
        def g():
            z = torch.zeros(3)
            z.to("cpu")
            return z.numpy()
        def h(d, lengths):
            t = torch.zeros(3)
            t.to(d)
            return t, np.array(lengths)  # a list of numbers: converts anywhere
        """,
        """
        import numpy as np
        import torch
        def f(x: torch.Tensor, d):
            x = x.to(d)
            return x.cpu().numpy()
        def g():
            z = torch.zeros(3)
            z = z.to("cpu")
            return z.numpy()
        def h(d, lengths):
            t = torch.zeros(3)
            t = t.to(d)
            return t, np.array(lengths)  # a list of numbers: converts anywhere
        """,
    )
