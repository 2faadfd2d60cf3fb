"""DEV007 fix: assign the converted tensor back (safe), where something can hold it."""

from __future__ import annotations

from fixing import check, unchanged


def test_name_is_assigned_back():
    check(
        """
        import torch
        def f(x: torch.Tensor):
            x.half()
            return x
        """,
        """
        import torch
        def f(x: torch.Tensor):
            x = x.half()
            return x
        """,
    )


def test_attribute_and_subscript_are_assigned_back():
    check(
        """
        import torch
        class Holder:
            def __init__(self):
                self.mask = torch.zeros(3)
            def prepare(self, batch):
                self.mask.bool()
                batch["ids"].long()
                return batch
        """,
        """
        import torch
        class Holder:
            def __init__(self):
                self.mask = torch.zeros(3)
            def prepare(self, batch):
                self.mask = self.mask.bool()
                batch["ids"] = batch["ids"].long()
                return batch
        """,
    )


def test_value_of_a_dict_loop_is_stored_in_the_dict():
    check(
        """
        import torch
        def f(batch):
            for key, value in batch.items():
                value.float()
            return batch
        """,
        """
        import torch
        def f(batch):
            for key, value in batch.items():
                batch[key] = value.float()
            return batch
        """,
    )


def test_value_of_a_dict_loop_read_again_is_assigned_back_to_the_name():
    check(
        """
        import torch
        def f(batch, out):
            for key, value in batch.items():
                value.contiguous()
                out[key] = value.view(-1)
        """,
        """
        import torch
        def f(batch, out):
            for key, value in batch.items():
                value = value.contiguous()
                out[key] = value.view(-1)
        """,
    )


def test_local_name_never_read_again_gets_no_fix():
    unchanged(
        """
        import torch
        def f(x: torch.Tensor):
            x.detach()
        """
    )


def test_parameter_attribute_gets_no_fix():
    # `self.w = self.w.half()` raises TypeError: a plain tensor cannot replace a Parameter
    unchanged(
        """
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(torch.zeros(3))
            def halve(self):
                self.w.half()
                return self.w
        """
    )


def test_loop_variable_over_parameters_gets_no_fix():
    unchanged(
        """
        import torch
        def f(model):
            for p in model.parameters():
                p.half()
            for name, b in model.named_buffers():
                b.float()
            return model
        """
    )


def test_arguments_comment_and_layout_are_kept():
    check(
        """
        import torch
        def f(x: torch.Tensor, dtype):
            x.type(  # to the caller's dtype
                dtype,
            )
            return x
        """,
        """
        import torch
        def f(x: torch.Tensor, dtype):
            x = x.type(  # to the caller's dtype
                dtype,
            )
            return x
        """,
    )


def test_line_made_too_long_is_broken_as_black_would():
    check(
        """
        import torch
        def f(batch):
            batch["a_rather_long_key_for_the_input_ids"].long(memory_format=torch.preserve_format)
            return batch
        """,
        """
        import torch
        def f(batch):
            batch["a_rather_long_key_for_the_input_ids"] = batch[
                "a_rather_long_key_for_the_input_ids"
            ].long(
                memory_format=torch.preserve_format,
            )
            return batch
        """,
    )
