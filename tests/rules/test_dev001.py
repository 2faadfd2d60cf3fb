"""DEV001 — the result of a tensor move is discarded.

Each case is a snippet and the exact `(line, col, code)` reports DEV001 gives on it.
A receiver is reported only with positive evidence that it is a tensor; modules (whose
`.to()` is in place), objects with their own in-place `.to()` and unknowns are not.
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, reports

case = cases_for("DEV001")

FLAGGED = [
    case("name_bound_to_a_factory", """
        import torch
        x = torch.zeros(3)
        x.to("cpu")
    """, [(3, 1)]),
    case("cuda_and_cpu_and_pin_memory_are_moves_too", """
        import torch
        def f(x: torch.Tensor):
            x.cuda()
            x.cpu()
            x.pin_memory()
    """, [(3, 5), (4, 5), (5, 5)]),
    case("torch_imported_as_th", """
        import torch as th
        x = th.ones(2)
        x.to(th.device("cpu"))
    """, [(3, 1)]),
    case("factory_imported_from_torch", """
        from torch import zeros, load
        x = zeros(2)
        x.to("cpu")
    """, [(3, 1)]),
    case("parameter_annotated_tensor", """
        import torch
        def f(x: torch.Tensor, device):
            x.to(device)
    """, [(3, 5)]),
    case("parameter_annotated_with_imported_Tensor", """
        from torch import Tensor
        def f(x: Tensor, device):
            x.to(device)
    """, [(3, 5)]),
    case("string_annotation", """
        import torch
        def f(x: "torch.Tensor", device):
            x.to(device)
    """, [(3, 5)]),
    case("unpacked_from_a_batch", """
        import torch
        def step(batch, device):
            images, labels = batch
            images.to(device)
            labels.to(device, non_blocking=True)
    """, [(4, 5), (5, 5)]),
    case("for_loop_over_a_loader", """
        import torch
        def train(loader, device):
            for x, y in loader:
                x.to(device)
    """, [(4, 9)]),
    case("subscript_of_a_batch_dict", """
        import torch
        def step(batch, device):
            batch["x"].to(device)
    """, [(3, 5)]),
    case("tensor_method_result", """
        import torch
        def f(x: torch.Tensor, device):
            y = x.view(-1)
            y.to(device)
    """, [(4, 5)]),
    case("name_used_like_a_tensor", """
        import torch
        def f(x, device):
            n = x.shape[0]
            x.to(device)
            return n
    """, [(4, 5)]),
    case("arithmetic_on_tensors", """
        import torch
        def f(device):
            a = torch.ones(2)
            b = a * 2
            b.to(device)
    """, [(5, 5)]),
    case("buffer_registered_in_init", """
        import torch
        from torch import nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("buf", torch.zeros(2))
            def move(self, d):
                self.buf.to(d)
    """, [(8, 9)]),
    case("tensor_attribute_assigned_in_init", """
        import torch
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.grid = torch.zeros(4, 4)
            def move(self, d):
                self.grid.to(d)
    """, [(8, 9)]),
    case("attribute_bound_in_another_method", """
        import torch
        class Cache:
            def reset(self):
                self.keys = torch.empty(0)
            def move(self, d):
                self.keys.to(d)
    """, [(6, 9)]),
    case("multi_line_call", """
        import torch
        def f(x: torch.Tensor, device):
            x.to(
                device,
                non_blocking=True,
            )
    """, [(3, 5)]),
    case("parameter_data", """
        import torch
        def f(model, device):
            for p in model.parameters():
                p.data.to(device)
    """, [(4, 9)]),
    case("split_binding_then_discarded_move", """
        import torch
        def f(n, dev):
            t = torch.zeros(n)
            t.to(dev)
            return t
    """, [(4, 5)]),
    case("move_to_another_tensors_device", """
        import torch
        def f(x: torch.Tensor, other: torch.Tensor):
            x.to(other)
            x.to(other.device)
    """, [(3, 5), (4, 5)]),
    case("move_to_the_device_of_a_batch_element", """
        import torch
        def f(mask: torch.Tensor, x):
            mask.to(x[0])
    """, [(3, 5)]),
    case("dtype_cast_before_the_move", """
        import torch
        def f(values, d):
            t = torch.tensor(values)
            t.float().cuda()
    """, [(4, 5)]),
    case("in_a_with_block", """
        import torch
        def f(x: torch.Tensor, d):
            with torch.no_grad():
                x.to(d)
    """, [(4, 9)]),
    case("isinstance_tensor_narrows_an_unknown_name", """
        import torch
        def move(obj, device):
            if isinstance(obj, torch.Tensor):
                obj.to(device)
    """, [(4, 9)]),
    case("isinstance_tensor_in_a_conjunction", """
        import torch
        def move(obj, device):
            if obj is not None and isinstance(obj, torch.Tensor):
                obj.to(device)
    """, [(4, 9)]),
    case("isinstance_with_Tensor_imported_from_torch", """
        from torch import Tensor
        def move(obj, device):
            if isinstance(obj, Tensor):
                obj.to(device)
    """, [(4, 9)]),
    case("early_return_on_not_isinstance_narrows_the_rest", """
        import torch
        def move(obj, device):
            if not isinstance(obj, torch.Tensor):
                return obj
            obj.to(device)
    """, [(5, 5)]),
    case("isinstance_on_a_self_attribute", """
        import torch
        class Holder:
            def move(self, device):
                if isinstance(self.state, torch.Tensor):
                    self.state.to(device)
    """, [(5, 13)]),
    case("semicolon_separated_statement", """
        import torch
        x = torch.ones(1); x.to("cpu")
    """, [(2, 20)]),
]

NOT_FLAGGED = [
    case("assigned_back", """
        import torch
        x = torch.zeros(3)
        x = x.to("cpu")
    """, []),
    case("used_in_an_expression", """
        import torch
        def f(x: torch.Tensor, d):
            return x.to(d) + 1
    """, []),
    case("module_layer_is_moved_in_place", """
        import torch
        from torch import nn
        layer = nn.Linear(2, 2)
        layer.to("cpu")
    """, []),
    case("module_via_import_torch_nn_as_nn", """
        import torch.nn as nn
        net = nn.Sequential(nn.Linear(2, 2))
        net.cuda()
    """, []),
    case("module_via_from_torch_nn_import_Module", """
        import torch
        from torch.nn import Module
        class Net(Module):
            pass
        net = Net()
        net.to("cpu")
    """, []),
    case("self_inside_a_module", """
        import torch
        from torch import nn
        class M(nn.Module):
            def move(self, d):
                self.to(d)
    """, []),
    case("module_class_defined_later_in_the_file", """
        import torch
        def build(d):
            m = Model()
            m.to(d)
            return m
        class Model(torch.nn.Module):
            pass
    """, []),
    case("module_class_through_a_base_of_the_file", """
        import torch
        class Base(torch.nn.Module):
            pass
        class Child(Base):
            pass
        m = Child()
        m.cuda()
    """, []),
    case("layer_attribute_set_in_init", """
        import torch
        from torch import nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(4, 4)
            def move(self, d):
                self.rnn.to(d)
    """, []),
    case("attribute_called_like_a_module", """
        import torch
        class Runner:
            def run(self, x, d):
                self.encoder.to(d)
                return self.encoder(x)
    """, []),
    case("name_whose_parameters_are_used", """
        import torch
        def f(m, d):
            m.to(d)
            return list(m.parameters())
    """, []),
    case("unknown_parameter", """
        import torch
        def f(x, d):
            x.to(d)
    """, []),
    case("container_element_named_model", """
        import torch
        def f(hparams, d):
            hparams["model"].to(d)
    """, []),
    case("element_of_a_model_list", """
        import torch
        def f(models, d):
            models[0].to(d)
    """, []),
    case("pyg_data_object", """
        import torch
        from torch_geometric.data import Data
        def f(d):
            data = Data(x=torch.zeros(2))
            data.to(d)
    """, []),
    case("pyg_batch_unpacked_name", """
        import torch
        def f(loader, d):
            for batch in loader:
                batch.to(d)
    """, []),
    case("pyg_batch_from_a_data_list", """
        import torch
        from torch_geometric.data import Batch
        def f(graphs, d):
            batch = Batch.from_data_list(graphs)
            batch.to(d)
    """, []),
    case("layer_bound_in_another_method", """
        import torch
        from torch import nn
        class M(nn.Module):
            def build(self):
                self.head = nn.Linear(2, 2)
            def move(self, d):
                self.head.to(d)
    """, []),
    case("attribute_with_layer_and_tensor_bindings_is_not_reported", """
        import torch
        from torch import nn
        class M(nn.Module):
            def __init__(self, pretrained):
                super().__init__()
                self.table = torch.zeros(4) if pretrained is None else nn.Embedding(4, 2)
            def move(self, d):
                self.table.to(d)
    """, []),
    case("tokenizer_output", """
        import torch
        def f(tokenizer, text, d):
            enc = tokenizer(text, return_tensors="pt")
            enc.to(d)
    """, []),
    case("model_from_a_factory", """
        import torch
        from transformers import AutoModel
        model = AutoModel.from_pretrained("bert")
        model.cuda()
    """, []),
    case("isinstance_module_narrows_to_a_module", """
        import torch
        from torch import nn
        def move(obj: torch.Tensor, device):
            if isinstance(obj, torch.Tensor):
                return obj.to(device)
            elif isinstance(obj, nn.Module):
                obj.to(device)
    """, []),
    case("isinstance_of_a_non_module_class_is_not_a_tensor", """
        import torch
        from torch_geometric.data import Data
        def move(obj: torch.Tensor, device):
            if isinstance(obj, Data):
                obj.to(device)
    """, []),
    case("isinstance_of_tensor_or_module_decides_nothing", """
        import torch
        from torch import nn
        def move(obj, device):
            if isinstance(obj, (torch.Tensor, nn.Module)):
                obj.to(device)
    """, []),
    case("isinstance_narrowing_ends_with_the_if", """
        import torch
        def move(obj, device):
            if isinstance(obj, torch.Tensor):
                pass
            obj.to(device)
    """, []),
    case("isinstance_else_branch_is_not_a_tensor", """
        import torch
        def move(obj, device):
            if isinstance(obj, torch.Tensor):
                return obj.to(device)
            else:
                obj.to(device)
    """, []),
    case("negated_isinstance_is_not_evidence", """
        import torch
        def move(obj, device):
            if not isinstance(obj, torch.Tensor):
                obj.to(device)
    """, []),
    case("file_without_torch_import", """
        def f(x, d):
            x = x.view(-1)
            x.to(d)
    """, []),
    case("noqa_on_the_line", """
        import torch
        x = torch.zeros(2)
        x.to("cpu")  # noqa: DEV001
    """, []),
    case("bare_noqa_on_the_line", """
        import torch
        x = torch.zeros(2)
        x.cpu()  # noqa
    """, []),
    case("other_method_named_to", """
        import torch
        def f(path):
            path.to_csv("x")
    """, []),
    case("optimizer_state_is_not_a_tensor", """
        import torch
        def f(optimizer, d):
            optimizer.to(d)
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev001(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV001", code) == expected
