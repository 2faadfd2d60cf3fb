"""DEV007 — the result of a tensor conversion is discarded.

Each case is a snippet and the exact `(line, col, code)` reports DEV007 gives on it. The
receiver needs the same positive evidence of being a tensor as DEV001's (one decision in
devlint/analysis/discarded.py); a module (whose `.half()` / `.float()` / `.type()` are in place)
and receivers of unknown type are never reported.
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, reports

case = cases_for("DEV007")

FLAGGED = [
    case("every_conversion_on_an_annotated_tensor", """
        import torch
        def f(x: torch.Tensor, dtype):
            x.float()
            x.half()
            x.double()
            x.bfloat16()
            x.long()
            x.int()
            x.bool()
            x.type(dtype)
            x.contiguous()
            x.detach()
            x.clone()
            return x
    """, [(3, 5), (4, 5), (5, 5), (6, 5), (7, 5), (8, 5), (9, 5), (10, 5), (11, 5), (12, 5), (13, 5)]),
    case("type_with_a_keyword_dtype", """
        import torch
        def f(x: torch.Tensor):
            x.type(dtype=torch.float16)
            return x
    """, [(3, 5)]),
    case("name_bound_to_a_factory", """
        import torch
        mask = torch.zeros(3)
        mask.bool()
    """, [(3, 1)]),
    case("element_of_an_unpacked_batch", """
        import torch
        def step(batch):
            images, labels = batch
            labels.long()
            return images, labels
    """, [(4, 5)]),
    case("subscript_of_a_batch_dict", """
        import torch
        def step(batch):
            batch["x"].float()
            return batch
    """, [(3, 5)]),
    case("plain_tensor_attribute_of_a_module", """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.offsets = torch.zeros(2)
            def half_offsets(self):
                self.offsets.half()
    """, [(8, 9)]),
    case("narrowed_by_isinstance", """
        import torch
        def f(x):
            if isinstance(x, torch.Tensor):
                x.contiguous()
            return x
    """, [(4, 9)]),
    case("loop_variable_over_parameters", """
        import torch
        from torch import nn
        def f(model: nn.Module):
            for p in model.parameters():
                p.half()
    """, [(5, 9)]),
    case("loop_variable_over_named_buffers_unpacked", """
        import torch
        def f(model):
            for name, buf in model.named_buffers():
                buf.float()
    """, [(4, 9)]),
    case("loop_variable_over_state_dict_items_and_values", """
        import torch
        def f(model):
            for key, value in model.state_dict().items():
                value.half()
            for value in model.state_dict().values():
                value.half()
    """, [(4, 9), (6, 9)]),
    case("loop_variable_over_enumerated_or_zipped_parameters", """
        import torch
        def f(model, ema):
            for i, p in enumerate(model.parameters()):
                p.detach()
            for p, q in zip(model.parameters(), ema.parameters()):
                q.float()
    """, [(4, 9), (6, 9)]),
    case("loop_variable_over_self_parameters", """
        import torch
        from torch import nn
        class Net(nn.Module):
            def freeze(self):
                for p in self.parameters():
                    p.detach()
    """, [(6, 13)]),
]

NOT_FLAGGED = [
    case("a_module_converts_in_place", """
        import torch
        from torch import nn
        def f(model: nn.Module, x: torch.Tensor):
            model.half()
            model.float()
            model.type(torch.float16)
            net = nn.Linear(2, 2)
            net.double()
            return model(x), net
    """, []),
    case("self_and_submodules_of_a_module", """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(2, 2)
            def to_half(self):
                self.half()
                self.proj.half()
    """, []),
    case("receiver_of_unknown_type", """
        import torch
        def f(net, config):
            net.half()
            config.clone()
            net.bool()
    """, []),
    case("bare_conversions_are_no_evidence_for_each_other", """
        import torch
        def f(m):
            m.long()
            m.half()
            m.contiguous()
    """, []),
    case("float_and_half_used_elsewhere_are_no_tensor_evidence", """
        import torch
        def f(m, x):
            y = m.half()
            m.float()
            return y(x)
    """, []),
    case("type_without_an_argument_returns_a_string", """
        import torch
        def f(x: torch.Tensor):
            x.type()
    """, []),
    case("in_place_methods", """
        import torch
        def f(x: torch.Tensor):
            x.detach_()
            x.requires_grad_()
            x.requires_grad_(False)
            x.float_ = None
            return x
    """, []),
    case("result_is_used", """
        import torch
        def f(x: torch.Tensor):
            x = x.float()
            y = x.contiguous().view(-1)
            return x.half(), y.detach()
    """, []),
    case("expected_to_raise", """
        import pytest
        import torch
        def test_f(x: torch.Tensor):
            with pytest.raises(RuntimeError):
                x.long()
    """, []),
    case("loop_variable_over_modules", """
        import torch
        def f(model):
            for m in model.modules():
                m.half()
    """, []),
    case("a_move_is_dev001s", """
        import torch
        def f(x: torch.Tensor, device):
            x.to(device)
            x.to(torch.float16)
    """, []),
    case("a_file_without_torch", """
        def f(x):
            x.float()
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev007(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV007", code) == expected


def test_message_says_how_to_keep_the_result():
    [(message, _)] = _messages("""
        import torch
        def f(x: torch.Tensor):
            x.half()
            return x
    """)
    assert message == ("`x.half()` result is discarded; tensors are not converted in place — "
                       "assign it: `x = x.half()`")


def test_parameter_loop_message_advises_converting_the_module():
    [(message, fixable)] = _messages("""
        import torch
        def f(model):
            for p in model.parameters():
                p.half()
    """)
    assert message.endswith("convert the module: `model.half()`")
    assert "no assignment to `p` changes" in message
    assert not fixable


def test_parameter_loop_detach_advises_requires_grad():
    [(message, _)] = _messages("""
        import torch
        def f(model):
            for p in model.parameters():
                p.detach()
    """)
    assert message.endswith("to stop its gradient, use `p.requires_grad_(False)`")


def test_loop_variable_rebound_in_the_loop_is_judged_as_any_tensor():
    [(message, fixable)] = _messages("""
        import torch
        def f(model):
            for p in model.parameters():
                p = p.data
                p.half()
    """)
    # (not the parameter loop's advice; `p` is not read again: no fix, so no assignment suggested)
    assert message.endswith("tensors are not converted in place — use the tensor it returns") and not fixable


def test_parameter_attribute_message_advises_the_module_or_its_data():
    [(message, fixable)] = _messages("""
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_parameter("w", torch.nn.Parameter(torch.zeros(3)))
            def halve(self):
                self.w.half()
    """)
    assert message.endswith("`self.w` may be a Parameter: convert the module, or assign `self.w.data`")
    assert not fixable


def _messages(snippet: str) -> list[tuple[str, bool]]:
    import textwrap

    from devlint import lint_source

    return [(d.message, d.fix is not None) for d in lint_source(textwrap.dedent(snippet), "example.py")
            if d.code == "DEV007"]
