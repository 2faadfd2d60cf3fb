"""DEV001 — the result of a tensor move is discarded.

Each case is a snippet and the exact `(line, col, code)` reports DEV001 gives on it.
A receiver is reported only with positive evidence that it is a tensor; modules (whose
`.to()` is in place), objects with their own in-place `.to()` and unknowns are not.
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, counted_calls, reports

case = cases_for("DEV001")

FLAGGED = [
    # a tensor made by a function of the file: every return of it gives a tensor
    case("a_tensor_from_a_helper_of_the_file", """
        import torch
        def make_kernel(k):
            k = torch.tensor(k, dtype=torch.float32)
            return k / k.sum()
        def blur(img, device):
            kernel = make_kernel([1, 3, 3, 1])
            kernel.to(device)
            return img * kernel
    """, [(7, 5)]),
    case("a_helpers_tensor_moved_where_it_is_made", """
        import torch
        def noise(n):
            if n > 10:
                return torch.randn(n)
            return torch.zeros(n)
        def f(device):
            noise(3).to(device)
    """, [(7, 5)]),
    # a binding after the move reaches it where a loop or a closure carries it back
    case("a_later_binding_that_a_loop_carries_back", """
        import torch
        def h(d, n):
            y = None
            for i in range(n):
                if i:
                    y.to(d)
                y = torch.zeros(n)
            return y
    """, [(6, 13)]),
    case("a_later_binding_that_a_closure_reads", """
        import torch
        def f(d, n):
            x = None
            def g():
                x.to(d)
                return x
            x = torch.zeros(n)
            return g()
    """, [(5, 9)]),
    case("a_parameter_attribute_set_to_a_parameter", """
        import torch
        def merge(layer, weight):
            layer.weight = torch.nn.Parameter(weight)
            layer.weight.cuda()
    """, [(4, 5)]),
    case("an_element_whose_attributes_a_tensor_has", """
        import torch
        def first(batch, device):
            x = batch[0]
            x.to(device)
            x.tag = "input"  # set here, then read: no sign it is no tensor
            return x.shape, x.tag
    """, [(4, 5)]),
    case("a_move_the_file_does_not_show_to_be_a_no_op", """
        import torch
        def attention(query, key, device):
            bias = torch.zeros(3, dtype=query.dtype, device=query.device)
            bias.to(device)
            other = torch.zeros(3, dtype=query.dtype)
            other.to(query.dtype, non_blocking=True)
            later = torch.zeros(3, dtype=query.dtype)
            later = later + key
            later.to(query.dtype)
            looped = torch.zeros(3, dtype=query.dtype)
            for step in range(3):
                looped.to(query.dtype)
                looped = looped + key  # the next round's move sees this one
            return bias, other, later, looped
    """, [(4, 5), (6, 5), (9, 5), (12, 9)]),
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
    case("element_of_a_list_filled_with_tensors", """
        import torch
        def f(loader, d):
            outs = []
            for b in loader:
                outs.append(torch.zeros(3))
            outs[0].to(d)
    """, [(6, 5)]),
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
    # -- issue 14: receivers the file shows to be tensors ------------------------------------
    case("input_of_forward_of_a_module", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                inp.to(self.device)
                return inp
    """, [(5, 9)]),
    case("input_of_forward_with_a_none_default", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, x, mask=None):
                if mask is not None:
                    mask.to(x.device)
                return x
    """, [(6, 13)]),
    case("input_of_forward_annotated_optional_tensor", """
        from typing import Optional
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, x: Optional[torch.Tensor], y: "torch.Tensor | None"):
                x.cuda()
                y.cuda()
    """, [(6, 9), (7, 9)]),
    case("tensor_attribute_moved_to_the_inputs_device_in_forward", """
        import torch
        from torch import nn
        class Sampler(nn.Module):
            def __init__(self):
                super().__init__()
                self.grid = torch.zeros(8, 8, 2)
            def forward(self, f):
                self.grid.to(device=f.device)
                return f
    """, [(8, 9)]),
    case("buffer_moved_in_forward", """
        import torch
        from torch import nn
        class Sampler(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("grid", torch.zeros(8, 8, 2), persistent=False)
            def forward(self, f):
                self.grid.to(device=f.device)
                return f
    """, [(8, 9)]),
    case("factory_a_few_lines_up_under_a_cuda_availability_guard", """
        import torch
        def init_hidden(batch_size, hidden_size):
            h_0 = torch.zeros(1, batch_size, hidden_size)
            c_0 = torch.zeros(1, batch_size, hidden_size)
            if torch.cuda.is_available():
                h_0.cuda()
                c_0.cuda()
            return h_0, c_0
    """, [(6, 9), (7, 9)]),
    case("factory_wrapped_in_Variable", """
        import torch
        from torch.autograd import Variable
        def init_hidden(n):
            h_0 = Variable(torch.zeros(1, n, 4))
            if torch.cuda.is_available():
                h_0.cuda()
            return h_0
    """, [(6, 9)]),
    case("factories_bound_as_a_tuple", """
        import torch
        def init_hidden(n):
            h_0, c_0 = torch.zeros(1, n, 4), torch.zeros(1, n, 4)
            h_0.cuda()
            return h_0, c_0
    """, [(4, 5)]),
    case("rebinding_in_a_branch_that_excludes_the_move", """
        import torch
        def convert(cls, value, device, wrap):
            new_value = torch.as_tensor(value)
            if wrap:
                new_value = cls(new_value, requires_grad=False)
            elif device is not None:
                new_value.to(device)
            return new_value
    """, [(7, 9)]),
    case("rebinding_to_a_helper_of_unknown_type_keeps_the_evidence", """
        import torch
        def prepare(values, device):
            x = torch.as_tensor(values)
            x = normalise(x)
            x.to(device)
            return x
    """, [(5, 5)]),
    case("enumerate_over_a_loader_with_a_nested_unpack", """
        import torch
        def train(loader, dev):
            for step, (images, target) in enumerate(loader):
                images.to(dev)
                target.to(dev, non_blocking=True)
    """, [(4, 9), (5, 9)]),
    case("value_of_a_batch_dict", """
        import torch
        def to_device(batch, dev):
            for k, v in batch.items():
                v.to(dev)
            return batch
    """, [(4, 9)]),
    case("values_of_a_batch_dict", """
        import torch
        def to_device(batch, dev):
            for v in batch.values():
                v.to(dev)
    """, [(4, 9)]),
    case("value_of_a_sorted_batch_dict", """
        import torch
        def to_device(batch, dev):
            for k, v in sorted(batch.items()):
                v.to(dev)
    """, [(4, 9)]),
    case("value_of_a_dict_display_of_tensors", """
        import torch
        def encode(ids, dev):
            inputs = {"input_ids": torch.as_tensor(ids), "labels": torch.tensor([1])}
            for k, v in inputs.items():
                v.to(dev)
    """, [(5, 9)]),
    case("value_tested_with_torch_is_tensor", """
        import torch
        def move(obj, params, dev):
            for k, v in params.items():
                if torch.is_tensor(v):
                    v.to(dev)
                setattr(obj, k, v)
    """, [(5, 13)]),
    case("value_of_a_batch_dict_under_enumerate", """
        import torch
        def to_device(batch, dev):
            for i, (k, v) in enumerate(batch.items()):
                v.to(dev)
    """, [(4, 9)]),
    case("loop_variable_over_parameters_and_buffers", """
        import torch
        def f(model, device):
            for p in model.parameters():
                p.to(device)
            for b in model.buffers():
                b.cuda()
            for name, p in model.named_parameters():
                p.to(device)
    """, [(4, 9), (6, 9), (8, 9)]),
    case("loop_variable_over_a_state_dict", """
        import torch
        def f(model, device):
            for value in model.state_dict().values():
                value.to(device)
            for key, value in model.state_dict().items():
                value.to(device)
    """, [(4, 9), (6, 9)]),
    case("parameter_moved_before_it_is_stored", """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(3)).to(device)
                self.shift = torch.nn.parameter.Parameter(torch.zeros(3)).cuda()
    """, [(6, 22), (7, 22)]),
    case("parameter_imported_under_another_name_moved", """
        import torch
        from torch.nn import Parameter as P
        class Holder:
            def __init__(self, device):
                self.w: torch.Tensor = P(torch.ones(3)).to(device)
    """, [(5, 32)]),
]

NOT_FLAGGED = [
    # a function of the file that may give something else: no evidence its result is a tensor
    case("a_helper_that_builds_a_module", """
        import torch
        from torch import nn
        def make(n):
            return nn.Linear(n, n)
        def f(device):
            layer = make(3)
            layer.to(device)
    """, []),
    case("a_helper_that_may_return_nothing", """
        import torch
        def make(n):
            if n:
                return torch.zeros(n)
            return
        def f(device):
            make(3).to(device)
    """, []),
    case("a_helper_that_may_fall_off_its_end", """
        import torch
        def make(n):
            if n:
                return torch.zeros(n)
        def f(device):
            make(3).to(device)
    """, []),
    case("a_decorated_helper", """
        import torch
        @wrap
        def make(n):
            return torch.zeros(n)
        def f(device):
            make(3).to(device)
    """, []),
    case("a_generator_helper", """
        import torch
        def make(n):
            yield torch.zeros(n)
            return torch.zeros(n)
        def f(device):
            make(3).to(device)
    """, []),
    case("a_helper_name_rebound_in_the_function", """
        import torch
        def make(n):
            return torch.zeros(n)
        def f(device, make):
            make(3).to(device)
    """, []),
    case("a_helper_defined_twice", """
        import torch
        def make(n):
            return torch.zeros(n)
        if flag:
            def make(n):
                return Model(n)
        def f(device):
            make(3).to(device)
    """, []),
    # msn's linear eval: the model is made by a call devlint cannot read; the tuple unpacked from a helper after the
    # move cannot reach it
    case("a_binding_after_the_move_does_not_reach_it", """
        import torch
        import deit
        def init_model(device, name):
            encoder = deit.__dict__[name]()
            encoder.to(device)
            encoder, _ = load_pretrained(encoder=encoder)
            return encoder
    """, []),
    # pytorch_GAN_zoo: the noise is made on the model's device in both branches, then moved there again
    case("every_binding_made_where_the_move_goes", """
        import torch
        def step(model, n, asked):
            noise = torch.randn((n, 4), device=model.device)
            if asked is not None:
                noise = torch.tensor(asked, dtype=torch.float32, device=model.device)
                noise.to(model.device)
            return model(noise)
    """, []),
    # litgpt's LoRA merge: bitsandbytes' `Params4bit.cuda()` quantizes in place and returns itself; the attribute
    # holds an object of that class, not a plain tensor
    case("a_parameter_attribute_set_to_an_object_of_another_class", """
        import torch
        import bitsandbytes as bnb
        def merge(layer, weight):
            layer.weight = bnb.nn.Params4bit(weight, requires_grad=False)
            layer.weight.cuda(weight.device)
    """, []),
    # jukebox: an element of a list of models; a tensor has no `n_ctx` and no `sample()`, so it is a model
    case("an_element_whose_attribute_no_tensor_has", """
        import torch
        def sample_levels(zs, priors, levels):
            for level in reversed(levels):
                prior = priors[level]
                prior.cuda()
                zs = prior.sample(zs, n_ctx=prior.n_ctx)
                prior.cpu()
            return zs
    """, []),
    # PyTorch's reference scaled_dot_product_attention: `attn_bias` is made with that dtype and device,
    # in-place work keeps both, so the move returns it as it is
    case("a_move_to_where_the_file_shows_the_tensor_already_is", """
        import torch
        def attention(query, key, is_causal=False):
            L, S = query.size(-2), key.size(-2)
            attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)
            if is_causal:
                attn_bias.masked_fill_(torch.ones(L, S, dtype=torch.bool).logical_not(), float("-inf"))
                attn_bias.to(query.dtype)
                attn_bias.to(device=query.device, dtype=query.dtype)
            if key is not None:
                attn_bias = key + attn_bias  # a later binding: not what the moves above see
            return attn_bias
    """, []),
    case("an_object_whose_dim_is_a_value_not_a_method", """
        import torch
        class T:
            def test(self):
                for f in self.functions:
                    f.to(device=self.device)
                    X = torch.rand(1, f.dim)
                    return f.evaluate(X)
    """, []),
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
    # lama: a list the function fills by `append` with slices of a model; the file shows what its elements are
    case("element_of_a_list_filled_with_model_slices", """
        import torch
        def split(inpainter, devices):
            rears = []
            for i in range(len(devices)):
                rears.append(inpainter.generator.model[i:i + 1])
                rears[i].to(devices[i])
            return rears
    """, []),
    case("element_of_a_list_filled_with_an_unknown_value", """
        import torch
        def f(make, d):
            parts = [make(0)]
            parts.insert(0, make(1))
            parts[0].to(d)
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
    # -- issue 14: objects whose .to() works in place, and conventions the file contradicts ------
    case("forward_input_named_data_may_be_a_pyg_graph", """
        import torch
        from torch import nn
        class GNN(nn.Module):
            def forward(self, data, batch):
                data.to(self.device)
                batch.to(self.device)
    """, []),
    case("forward_input_with_attributes_a_tensor_lacks", """
        import torch
        from torch import nn
        class GNN(nn.Module):
            def forward(self, g):
                g.to(self.device)
                return self.conv(g.x, g.edge_index)
    """, []),
    case("forward_input_annotated_as_a_dict", """
        from typing import Dict
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp: Dict[str, torch.Tensor]):
                inp.to(self.device)
    """, []),
    case("forward_input_iterated", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                inp.to(self.device)
                return [t * 2 for t in inp]
    """, []),
    case("forward_input_passed_to_len", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, logits, labels):
                labels.to(logits.device)
                return torch.arange(len(labels))
    """, []),
    case("forward_input_indexed_with_an_int", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                inp.to(self.device)
                return inp[0]
    """, []),
    case("forward_input_tested_with_isinstance", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, inp):
                if isinstance(inp, list):
                    return self.proj(torch.stack(inp))
                inp.to(self.device)
    """, []),
    case("forward_input_with_a_non_none_default", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def forward(self, x, scale=1.0):
                scale.to(x.device)
    """, []),
    case("forward_of_a_class_that_is_not_a_module", """
        import torch
        class Step:
            def forward(self, inp):
                inp.to("cpu")
    """, []),
    case("input_of_a_method_other_than_forward", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def prepare(self, inp):
                inp.to(self.device)
    """, []),
    case("forward_input_in_a_file_with_a_class_of_its_own_with_to", """
        import torch
        from torch import nn
        class Graph:
            def to(self, device):
                self.x = self.x.to(device)
                return self
        class GNN(nn.Module):
            def forward(self, g):
                g.to(self.device)
    """, []),
    case("rebinding_to_a_constructed_object_reaches_the_move", """
        import torch
        def wrap(values, device):
            x = torch.as_tensor(values)
            x = Graph(x)
            x.to(device)
    """, []),
    case("rebinding_by_cls_reaches_the_move", """
        import torch
        class Holder:
            @classmethod
            def build(cls, values, device):
                x = torch.as_tensor(values)
                x = cls(x)
                x.to(device)
    """, []),
    case("rebinding_in_an_exclusive_branch_inside_a_loop_reaches_the_next_round", """
        import torch
        def convert(values, device, steps):
            x = torch.as_tensor(values)
            for step in steps:
                if step:
                    x = Graph(x)
                else:
                    x.to(device)
    """, []),
    case("pyg_hetero_data_object", """
        import torch
        from torch_geometric.data import HeteroData
        def f(d):
            graph = HeteroData()
            graph.to(d)
            return graph
    """, []),
    case("object_of_a_class_of_the_file_whose_to_returns_self", """
        import torch
        class Records:
            def __init__(self, values):
                self.values = torch.as_tensor(values)
            def to(self, device):
                self.values = self.values.to(device)
                return self
        def move(values, device):
            records = Records(values)
            records.to(device)
            return records
    """, []),
    case("trainer_result_collection", """
        import torch
        class Loop:
            def reset(self):
                self._results = _ResultCollection(training=True)
            def teardown(self):
                self._results.cpu()
    """, []),
    case("batch_encoding_from_a_processor", """
        import torch
        def encode(processor, images, dev):
            inputs = processor(images=images, return_tensors="pt")
            inputs.to(dev)
    """, []),
    case("module_moved_under_a_cuda_availability_guard", """
        import torch
        from torch import nn
        def build():
            rnn = nn.LSTM(4, 4)
            if torch.cuda.is_available():
                rnn.cuda()
            return rnn
    """, []),
    case("items_of_kwargs", """
        import torch
        def to_device(dev, **kwargs):
            for k, v in kwargs.items():
                v.to(dev)
    """, []),
    case("items_of_a_dict_of_metrics", """
        import torch
        def to_device(dev):
            meters = {"acc": Accuracy(), "f1": F1()}
            for k, v in meters.items():
                v.to(dev)
    """, []),
    case("items_of_an_attribute", """
        import torch
        class Tracker:
            def move(self, dev):
                for k, v in self.meters.items():
                    v.to(dev)
    """, []),
    case("items_of_a_module_dict", """
        import torch
        def move(models, dev):
            for name, m in models.items():
                m.to(dev)
    """, []),
    case("items_value_named_like_a_model", """
        import torch
        def move(registry, dev):
            for name, model in registry.items():
                model.to(dev)
    """, []),
    case("items_value_guarded_by_hasattr", """
        import torch
        def move(batch, dev):
            for k, v in batch.items():
                if hasattr(v, "to"):
                    v.to(dev)
    """, []),
    case("items_value_with_attributes_a_tensor_lacks", """
        import torch
        def move(batch, dev):
            for k, v in batch.items():
                v.to(dev)
                print(v.name)
    """, []),
    case("enumerate_over_named_modules", """
        import torch
        def move(model, dev):
            for i, (name, m) in enumerate(model.named_modules()):
                m.to(dev)
    """, []),
    case("loop_over_a_list_of_model_optimizer_pairs", """
        import torch
        def move(a, b, oa, ob, dev):
            pairs = [(a, oa), (b, ob)]
            for m, o in pairs:
                m.to(dev)
    """, []),
    case("name_passed_to_torch_stack_is_a_sequence", """
        import torch
        def f(xs, d):
            y = torch.stack(xs)
            xs.to(d)
            return y
    """, []),
    case("name_tested_with_torch_is_tensor_is_not_known_to_be_one", """
        import torch
        def f(obj, d):
            ok = torch.is_tensor(obj)
            obj.to(d)
            return ok
    """, []),
    case("items_listed_before_the_loop_are_not_a_batch", """
        import torch
        class Trainer:
            def setup(self, networks):
                for key, v in list(networks.items()):
                    v.to(self.device)
                    networks[key] = torch.nn.DataParallel(v)
    """, []),
    case("values_of_dicts_taken_from_a_list_display", """
        import torch
        class Trainer:
            def set_devices(self):
                for group in [self.models, self.losses]:
                    for v in group.values():
                        v.to(self.device)
    """, []),
    case("dict_display_with_a_value_of_unknown_type", """
        import torch
        def move(encoder, ids, dev):
            parts = {"ids": torch.as_tensor(ids), "encoder": encoder}
            for k, v in parts.items():
                v.to(dev)
    """, []),
    case("enumerate_over_a_list_of_plain_elements", """
        import torch
        def move(items, dev):
            for i, item in enumerate(items):
                item.to(dev)
    """, []),
    case("parameter_moved_where_it_already_is", """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(3, device=device)).to(device)
    """, []),
    # FAN's sampling indices: the data is moved before it is wrapped, so the move returns the Parameter itself
    case("parameter_of_data_the_function_moved_moved_again", """
        import torch
        from torch import nn
        class Attention(nn.Module):
            def build(self, q):
                idx = torch.arange(q.shape[-1]).long().cuda()
                self.idx_q = nn.Parameter(idx.clone(), requires_grad=False).cuda()
                self.idx_k = nn.Parameter(torch.zeros(3).cuda()).cuda()
    """, []),
    case("parameter_of_data_moved_to_the_host_then_to_cuda", """
        import torch
        from torch import nn
        class Attention(nn.Module):
            def build(self, q):
                idx = q.long().cpu()
                self.idx_q = nn.Parameter(idx.clone(), requires_grad=False).cuda()
    """, [(6, 22)]),
    case("parameter_moved_into_a_local_name", """
        import torch
        from torch import nn
        def make(device):
            w = nn.Parameter(torch.ones(3)).to(device)
            return w
    """, []),
    case("parameter_created_from_a_moved_tensor", """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(3).to(device))
    """, []),
    case("loop_variable_over_modules", """
        import torch
        def f(model, device):
            for m in model.modules():
                m.to(device)
            for name, child in model.named_children():
                child.cuda()
    """, []),
    case("half_and_float_are_module_methods_too", """
        import torch
        def f(m, device):
            m.half()
            y = m.float()
            m.to(device)
            return y
    """, []),
    case("a_move_expected_to_raise", """
        import torch
        def test_move(x: torch.Tensor):
            with self.assertRaises(RuntimeError):
                x.to("cuda:9")
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev001(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV001", code) == expected


def test_parameter_loop_message_advises_moving_the_module_and_offers_no_fix():
    [report] = _diagnostics("""
import torch
def f(model, device):
    for p in model.parameters():
        p.to(device)
""")
    assert report.message == ("`p.to(...)` result is discarded; `p` is one of `model.parameters()`, which no "
                              "assignment to `p` changes — move the module: `model.to(...)`")
    assert report.fix is None


def test_moved_parameter_message_says_it_is_no_longer_a_parameter():
    [report] = _diagnostics("""
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3)).cuda()
""")
    assert report.message.startswith("`nn.Parameter(...).cuda()` returns a plain tensor: `self.w` is not a Parameter")
    assert report.fix is None


def test_a_move_of_a_name_never_read_again_suggests_only_what_its_fix_offers():
    # assigning it back would keep nothing (no fix offers it): the advice is to use the result
    [report] = _diagnostics("""
import torch
def f(x: torch.Tensor):
    x.cuda()
""")
    assert report.fix is None
    assert report.message == ("`x.cuda()` result is discarded; tensors are not moved in place — "
                              "use the tensor it returns")


def test_a_move_of_a_name_read_again_suggests_the_assignment_its_fix_writes():
    [report] = _diagnostics("""
import torch
def f(x: torch.Tensor):
    x.cuda()
    return x
""")
    assert report.fix is not None and report.fix.description == "Assign the moved tensor back: `x = ...`"
    assert report.message.endswith("assign it: `x = x.cuda()`")


def _diagnostics(snippet: str) -> list:
    from devlint import lint_source

    return [d for d in lint_source(snippet.removeprefix("\n"), "example.py") if d.code == "DEV001"]


def test_elements_bound_from_themselves_many_times_are_read_once_at_a_time(monkeypatch):
    """`x[k] = x[k].float()`, written several times, asks about the elements of `x` again while they are being
    read, through another node each time: that was once a branch per binding down to the resolvers' depth limit.
    This 16-line function took more than 30 s, and a crash hunt's copy of tsai's `data/external.py` more than a
    minute. The elements' bindings are now read once at a time; the report is the same."""
    from devlint.analysis.types import TypeOracle

    rebinds = "".join(f"        x[{k}] = x[{k}].float()\n        x[{k}] = x[{k}].half()\n" for k in range(6))
    snippet = ("import torch\n"
               "def step(x, n):\n"
               "    for _ in range(n):\n" + rebinds +
               "    x[1].to('cuda')\n")
    asked = counted_calls(monkeypatch, TypeOracle, "value_kind")
    assert [code for _, _, code in reports("DEV001", snippet)] == ["DEV001"]
    assert asked() < 1_000
