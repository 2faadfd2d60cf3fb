"""DEV005 — a tensor created on the CPU meets the caller's tensor.

Each case is a snippet and the exact `(line, col, code)` reports DEV005 gives on it; the
report points at the factory call.
"""

from __future__ import annotations

import pytest

from conftest import lint
from rules.cases import cases_for, counted_calls

case = cases_for("DEV005")

NAMED = ("DEV005",)  # DEV005 is a preview rule: it runs only with preview on or where its full code is selected


def reports(code: str, snippet: str, path: str = "example.py") -> list[tuple[int, int, str]]:
    """(line, col, code) of rule `code`'s reports on the snippet, with the rule named."""
    return [r for r in lint(snippet, path, extend_select=(code,)) if r[2] == code]

# An optimizer's step whose factored state is made on the host (flagged), and beside its parameter (not).
_FACTORED_STEP = """
        import torch
        class Factored(torch.optim.Optimizer):
            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        if len(state) == 0:
                            state["step"] = torch.tensor(0.0)
                            state["row"] = torch.zeros(p.grad.shape[:-1])
                        state["step"] += 1
                        row = state["row"]
                        row.mul_(0.9).add_(p.grad.square().mean(dim=-1))
                        p.add_(p.grad / row.unsqueeze(-1).sqrt())
"""

# A class whose base is defined elsewhere, a module because it binds a parameter.
_SCALE = """
import torch
from flows.base import Transform
class Scale(Transform):
    def __init__(self, n):
        super().__init__()
        self.log_scale = torch.nn.Parameter(torch.zeros(n))
    def forward(self, x):
        return x * self.log_scale.exp() + torch.ones(x.size(-1)) * self.log_scale
"""

FLAGGED = [
    case("host_tensor_kept_in_a_plain_attribute_of_a_module", """
        import math
        import torch
        import torch.nn as nn
        class PositionalEncoding(nn.Module):
            def __init__(self, d, n):
                super().__init__()
                pe = torch.zeros(n, d)
                position = torch.arange(0, n).unsqueeze(1)
                pe[:, 0::2] = torch.sin(position * math.pi)
                self.pe = pe.unsqueeze(0)
            def forward(self, x):
                return x + self.pe[:, : x.size(1)]
        class Normalize(nn.Module):
            def __init__(self):
                super().__init__()
                self.mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
            def forward(self, images):
                return (images - self.mean) / images.shape[1]
    """, [(7, 14), (16, 21)]),
    case("in_a_one_line_suite_and_a_one_line_body", """
        import torch
        def pad(probs: torch.Tensor, n: int, flag: bool):
            if flag: probs = torch.cat([probs, torch.zeros(n - len(probs))])
            return probs
        def damp(h: torch.Tensor, c: float): return h + c * torch.eye(len(h))
    """, [(3, 40), (5, 53)]),
    case("length_of_an_input_shown_to_be_a_tensor", """
        import torch
        def pad(probs: torch.Tensor, n: int):
            return torch.cat([probs, torch.zeros(n - len(probs))])
        def damp(h: torch.Tensor, c: float):
            return h + c * torch.eye(len(h))
    """, [(3, 30), (5, 20)]),
    # the look-alikes of a result moved to a device: to the input's own device (says nothing of where it was), the
    # output of a function given the result, and the input moved before it meets the host tensor
    case("result_moved_to_the_inputs_device_or_through_a_function", """
        import torch
        def pad(x: torch.Tensor, f, device):
            a = torch.cat([x, torch.zeros(x.size(0), 1)], 1).to(x.device)
            b = f(torch.cat([x, torch.ones(x.size(0), 1)], 1)).to(device)
            return a, b
    """, [(3, 23), (4, 25)]),
    case("zero_dim_host_accumulator_written_in_place_from_the_inputs", """
        import torch
        def error(preds: torch.Tensor, targets: torch.Tensor, n: int):
            total = torch.tensor(0.0)
            for i in range(n):
                total += (preds[i] - targets[i]).abs().sum()
            return total
    """, [(3, 13)]),
    case("zero_dim_tensor_stacked_with_elements_of_the_callers_tensors", """
        import torch
        def total(preds, targets):
            losses = []
            for p, t in zip(preds, targets):
                if p.numel() == 0:
                    losses.append(torch.tensor(0).float())
                else:
                    losses.append((p - t).abs().mean())
            return torch.stack(losses)
    """, [(6, 27)]),
    # the shipped bugs of issue 14, as minimal code
    case("cpu_index_for_index_select_in_a_plain_function", """
        import torch
        def pad_or_trim(array, length):
            return array.index_select(0, index=torch.arange(length))
    """, [(3, 40)]),
    case("dtype_copied_device_forgotten_in_torch_cat", """
        import torch
        def autocorrelation(x, n):
            pad = torch.zeros(x.shape[:-1] + (n,), dtype=x.dtype)
            return torch.cat([x - x.mean(-1, keepdim=True), pad], -1)
    """, [(3, 11)]),
    case("viterbi_scores_meet_a_module_parameter", """
        import torch
        from torch import nn
        class CRF(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.tagset_size = n
                self.transitions = nn.Parameter(torch.randn(n, n))
            def viterbi(self, features):
                scores = torch.zeros(features.size(0), features.size(1), self.tagset_size)
                for t in range(1, features.size(1)):
                    best = scores[:, t - 1].unsqueeze(-1) + self.transitions
                    scores[:, t] = best.max(1).values
                return scores
    """, [(9, 18)]),
    case("random_mask_from_a_comparison_in_torch_where", """
        import torch
        from torch import nn
        class LabelDrop(nn.Module):
            def forward(self, labels):
                drop = torch.rand(labels.shape[0]) < self.p
                return torch.where(drop, self.null_id, labels)
    """, [(5, 16)]),
    case("one_return_path_on_the_cpu", """
        import torch
        def mean_iou(pred: torch.Tensor, target: torch.Tensor):
            iou = (pred & target).sum(-1) / (pred | target).sum(-1)
            return iou.mean() if iou.numel() else torch.tensor(0.0)
    """, [(4, 43)]),
    case("zero_dim_tensor_stacked_with_the_inputs_losses", """
        import torch
        def total(pred: torch.Tensor, target: torch.Tensor, parts):
            losses = []
            for k in parts:
                if k is None:
                    losses.append(torch.tensor(0).float())
                else:
                    losses.append((pred[k] - target[k]).abs().mean())
            return torch.stack(losses)
    """, [(6, 27)]),
    # issue 52: the inputs shown to be tensors only by a tensor method of what their arithmetic makes
    case("zero_dim_tensor_stacked_with_a_tensor_method_of_the_inputs_arithmetic", """
        import torch
        def total(preds, target, masks):
            losses = []
            for mask in masks:
                if mask is None:
                    losses.append(torch.tensor(0.0))
                else:
                    losses.append((preds - target).abs().mean())
            return torch.stack(losses)
    """, [(6, 27)]),
    # issue 52: `torch.as_tensor(points)` returns a tensor it is given where it is: the tensor path is the caller's
    case("ones_concatenated_onto_what_as_tensor_makes_of_a_parameter", """
        import torch
        def homogeneous(points):
            pts = torch.as_tensor(points, dtype=torch.float32)
            ones = torch.ones(pts.shape[0], 1)
            return torch.cat([pts, ones], dim=1)
    """, [(4, 12)]),
    case("zeros_concatenated_onto_a_cast_of_what_as_tensor_makes_of_a_parameter", """
        import torch
        def pad(arg):
            x = torch.as_tensor(arg).double()
            zeros = torch.zeros((x.shape[0], 1), dtype=x.dtype)
            return torch.cat((x, zeros), 1)
    """, [(4, 13)]),
    case("as_tensor_of_a_parameter_every_caller_gives_a_tensor_made_on_the_host", """
        import torch
        def pad(arg):
            x = torch.as_tensor(arg)
            return torch.cat((x, torch.zeros(1)))
        def run(device):
            return pad(torch.ones(3)), pad(torch.arange(2).float())
    """, []),
    # issue 52: elements of the caller's sequences given to a functional that refuses anything but tensors
    case("zero_dim_tensor_stacked_with_a_functional_loss_of_the_callers_elements", """
        import torch
        import torch.nn.functional as F
        def total(outputs, targets):
            losses = []
            for out, t in zip(outputs, targets):
                if t is None:
                    losses.append(torch.tensor(0).float())
                else:
                    losses.append(F.mse_loss(out, t))
            return torch.stack(losses).mean()
    """, [(7, 27)]),
    case("host_pad_concatenated_onto_a_tensor_method_of_an_input_times_a_number", """
        import torch
        def padded(x):
            pad = torch.zeros(3)
            return torch.cat([(x * 2).flatten(), pad])
    """, [(3, 11)]),
    case("output_of_a_function_given_a_forward_argument_used_as_a_torch_tensor", """
        import torch
        from torch_geometric.utils import to_dense_adj
        class DConv(torch.nn.Module):
            def __init__(self, k):
                super().__init__()
                self.weight = torch.nn.Parameter(torch.empty(k, k))
            def forward(self, x, edge_index):
                adj = to_dense_adj(edge_index)
                adj = adj.reshape(adj.size(1), adj.size(2))
                deg = torch.matmul(adj, torch.ones(size=(adj.size(0), 1)))
                return deg * (x @ self.weight)
    """, [(10, 33)]),
    case("output_of_a_callable_the_object_holds_given_an_input_tensor", """
        import torch
        class Scorer:
            def __init__(self, loss_fn):
                self.loss_fn = loss_fn
            def score(self, output: torch.Tensor, target):
                loss = self.loss_fn(output, target).detach()
                return torch.cat([torch.zeros(1), loss])
    """, [(7, 27)]),
    # A function of the file is there to be read: what it returns is not taken to be on its inputs' device
    # (`paste` builds its result on the host). Reported where its own factory meets its input, not in the caller.
    case("output_of_a_function_of_the_file_is_not_taken_on_trust", """
        import torch
        def paste(mask):
            pad = torch.zeros(1, mask.size(1))
            return torch.cat((pad, mask))
        def paste_all(masks):
            out = torch.zeros(0, 4, 4)
            for i in range(masks.size(0)):
                res = paste(masks[i])
                res = res.unsqueeze(0)
                out = torch.cat((out, res))
            return out
    """, [(3, 11)]),
    case("output_of_a_callable_given_an_input_tensor_detached", """
        import torch
        def losses(loss_fn, output: torch.Tensor, target):
            loss = loss_fn(output, target).detach()
            return torch.cat([torch.zeros(1), loss])
    """, [(4, 23)]),
    # An attribute a class starts as a host tensor and only concatenates onto: nothing moves a plain attribute
    # (an object has no `.to()`, `Module.to()` moves parameters and buffers only), and `torch.cat` checks the
    # device of every tensor it is given, empty ones too. Reported at each start, in its method (no fix there).
    case("attribute_started_on_the_host_and_concatenated_with_an_input", """
        import torch
        class LossBuffer:
            def __init__(self, loss_fn):
                self.loss_fn = loss_fn
                self.losses = torch.tensor([])
            def reset(self):
                self.losses = torch.tensor([])
            def add(self, output: torch.Tensor, target: torch.Tensor):
                loss = self.loss_fn(output, target).detach()
                self.losses = torch.cat([self.losses, loss]).to(loss.dtype)
    """, [(5, 23), (7, 23)]),
    case("attribute_started_in_an_annotated_assignment_and_concatenated_with_an_input", """
        import torch
        class Scores:
            def __init__(self):
                self.scores: torch.Tensor = torch.zeros(0)
            def add(self, score: torch.Tensor):
                self.scores = torch.cat((self.scores, score.flatten()))
    """, [(4, 37)]),
    case("attribute_of_a_module_started_empty_and_concatenated_in_forward", """
        import torch
        from torch import nn
        class Memory(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.bank = torch.empty(0, dim)
            def forward(self, x):
                y = self.proj(x)
                self.bank = torch.cat((self.bank, y.detach()))
                return y
    """, [(7, 21)]),
    case("submodule_called_on_a_host_state", """
        import torch
        from torch import nn
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(8, 16, batch_first=True)
            def forward(self, x):
                h0 = torch.zeros(1, x.size(0), 16)
                return self.rnn(x, h0)
    """, [(8, 14)]),
    case("submodule_of_the_file_called_on_positions", """
        import torch
        from torch import nn
        class Table(nn.Module):
            pass
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(16, 4)
            def forward(self, x):
                positions = torch.arange(x.size(1))
                return x + self.embed(positions)
    """, [(10, 21)]),
    case("comparison_with_an_input_tensor", """
        import torch
        def masked_mean(x, lengths):
            mask = torch.arange(x.size(1))[None, :] < lengths[:, None]
            return (x * mask[..., None]).sum(1)
    """, [(3, 12)]),
    case("matmul_with_an_input", """
        import torch
        def rotate(points: torch.Tensor, angle: float):
            rot = torch.tensor([[1.0, -angle], [angle, 1.0]])
            return points @ rot
    """, [(3, 11)]),
    case("masked_fill_method_with_a_cpu_mask", """
        import torch
        def causal(scores):
            mask = torch.ones(scores.size(-1), scores.size(-1), dtype=torch.bool).triu(1)
            return scores.masked_fill(mask, float("-inf"))
    """, [(3, 12)]),
    case("gather_method_with_a_cpu_index", """
        import torch
        def pick(x, n):
            idx = torch.randint(0, x.size(1), (x.size(0), n))
            return x.gather(1, idx)
    """, [(3, 11)]),
    case("legacy_constructor_of_data", """
        import torch
        def shift(x: torch.Tensor, ids):
            return x + torch.LongTensor(ids)
    """, [(3, 16)]),
    case("augmented_assignment", """
        import torch
        def accumulate(x):
            total = torch.zeros(x.shape[1:])
            total += x.sum(0)
            return total
    """, [(3, 13)]),
    case("derived_by_tensor_ops_before_it_meets", """
        import torch
        def bias(x):
            pos = torch.arange(x.size(1)).float().view(1, -1).unsqueeze(-1)
            return x + pos
    """, [(3, 11)]),
    case("subclass_of_a_layer_meets_its_own_weight", """
        import torch
        from torch import nn
        class Noisy(nn.Linear):
            def forward(self, x):
                noise = torch.randn(self.out_features, self.in_features)
                return nn.functional.linear(x, self.weight + noise)
    """, [(5, 17)]),
    case("buffer_read_through_self", """
        import torch
        from torch import nn
        class Norm(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("mean", torch.zeros(3))
            def forward(self, x):
                std = torch.ones(3)
                return (x - self.mean) / (std * self.mean.abs())
    """, [(8, 15)]),
    case("factory_imported_from_torch_with_an_alias", """
        import torch as th
        from torch import zeros
        def pad(x: th.Tensor):
            return th.cat([x, zeros(1, x.size(1))]), x * th.rand(x.size(1))
    """, [(4, 23), (4, 50)]),
    case("branches_merge_before_the_meeting", """
        import torch
        def weights(x, uniform):
            if uniform:
                w = torch.ones(x.size(-1))
            else:
                w = x.softmax(-1)
            return x * w
    """, [(4, 13)]),
    case("tensor_of_a_comparison_is_not_a_scalar", """
        import torch
        def token_drop(labels, force_drop_ids, n):
            drop = torch.tensor(force_drop_ids == 1)
            return torch.where(drop, n, labels.view(-1))
    """, [(3, 12)]),
    case("tensor_of_a_sequence_parameter_is_not_a_scalar", """
        import torch
        def sample(offsets: torch.Tensor, shapes: list):
            normalizer = torch.tensor(shapes)
            return offsets / normalizer
    """, [(3, 18)]),
    case("default_mask_handed_to_a_model_with_the_inputs", """
        import torch
        from torch import nn
        class Decoder(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.encoder = GPT2Model(config)
            def forward(self, embeds, attention_mask=None):
                if attention_mask is None:
                    attention_mask = torch.ones(embeds.shape[:2], dtype=torch.long)
                stacked = torch.stack((attention_mask, attention_mask), dim=1)
                return self.encoder(inputs_embeds=embeds.flatten(1, 2), attention_mask=stacked)
    """, [(9, 30)]),
    case("nested_function_is_its_own_unit", """
        import torch
        def outer(x):
            def inner(y):
                return torch.cat([y, torch.zeros(1, y.size(1))])
            return inner(x)
    """, [(4, 30)]),
    # issue 29: what PyTorch itself refuses (benchmarks/dev005_device_check.py, run on a GPU)
    case("cpu_index_for_an_in_place_index_op", """
        import torch
        def clear(x: torch.Tensor, n: int):
            return x.index_fill_(0, torch.arange(n), 0)
    """, [(3, 29)]),
    case("cpu_index_for_scatter_", """
        import torch
        def one_hot(x: torch.Tensor, n: int):
            idx = torch.zeros(n, dtype=torch.long)
            return x.scatter_(0, idx, 1.0)
    """, [(3, 11)]),
    case("zero_dim_cpu_index_is_refused_by_index_select", """
        import torch
        def first(x: torch.Tensor):
            return x.index_select(0, torch.tensor(0))
    """, [(3, 30)]),
    case("cpu_mask_for_masked_fill_", """
        import torch
        def causal(scores: torch.Tensor, n: int):
            mask = torch.ones(n, n, dtype=torch.bool).triu(1)
            scores.masked_fill_(mask, 0)
            return scores
    """, [(3, 12)]),
    case("host_table_indexed_by_the_inputs_index", """
        import torch
        def relabel(labels: torch.Tensor):
            table = torch.tensor([0, 2, 1])
            return table[labels.long()]
    """, [(3, 13)]),
    case("host_values_into_an_input_through_a_mask", """
        import torch
        def clamp_negatives(x: torch.Tensor, n: int):
            x[x < 0] = torch.zeros(n)
            return x
    """, [(3, 16)]),
    case("zero_dim_host_tensor_stacked_with_an_inputs", """
        import torch
        def pair(x: torch.Tensor):
            return torch.stack([x.sum(), torch.tensor(0.0)])
    """, [(3, 34)]),
    case("list_of_factories_joined_with_the_input", """
        import torch
        def widen(x: torch.Tensor, n: int):
            pads = [torch.zeros(x.size(0), 4) for _ in range(n)]
            return torch.cat([x] + pads, 1)
    """, [(3, 13)]),
    case("list_of_factories_meets_the_input_in_a_loop", """
        import torch
        def project(x: torch.Tensor, n: int):
            weights = [torch.randn(x.size(-1), 4) for _ in range(n)]
            out = []
            for w in weights:
                out.append(x @ w)
            return out
    """, [(3, 16)]),
    case("host_targets_for_a_functional_loss", """
        import torch
        import torch.nn.functional as F
        def loss(logits: torch.Tensor, labels: list):
            return F.cross_entropy(logits, torch.tensor(labels))
    """, [(4, 36)]),
    case("a_tensor_in_a_dict_parameter", """
        import torch
        def mask_padding(batch, n: int):
            keep = torch.ones(n, dtype=torch.bool)
            return batch["mask"].bool() & keep
    """, [(3, 12)]),
    case("a_tensor_in_a_dict_parameter_through_a_name", """
        import torch
        def mask_ids(batch, n: int):
            keep = torch.ones(n, dtype=torch.bool)
            ids = batch["input_ids"]
            return ids.masked_fill(keep, 0), ids.size(0)
    """, [(3, 12)]),
    case("a_tensor_attribute_of_a_parameter", """
        import torch
        def propagate(data, n: int):
            weight = torch.ones(data.x.size(-1), n)
            return data.x @ weight
    """, [(3, 14)]),
    case("closure_parameter_meets_the_enclosing_host_tensor", """
        import torch
        def make_projection(n: int):
            weight = torch.ones(n, n)
            def project(x: torch.Tensor):
                return x @ weight
            return project
    """, [(3, 14)]),
    case("module_by_its_shape_with_a_base_from_another_file", """
        import torch
        from .base import Backbone2
        class Head(Backbone2):
            def forward(self, x):
                h = self.proj(x)
                return h + torch.ones(h.size(-1))
    """, [(6, 20)]),
    case("starred_sizes_are_a_factory", """
        import torch
        def like(t: torch.Tensor):
            return t + torch.ones(*t.size())
    """, [(3, 16)]),
    case("legacy_constructor_of_a_numpy_array", """
        import torch
        import numpy as np
        def shift(t: torch.Tensor):
            return t + torch.Tensor(np.ones(3))
    """, [(4, 16)]),
    case("cycles_in_the_bindings_end", """
        import torch
        def step(x: torch.Tensor, k):
            a = b = x
            for _ in range(3):
                a = b
                b = a
                x[k] = g(x[k])
                x = x.to(x)
            return x + torch.ones(3)
    """, [(9, 16)]),
    case("meets_what_a_method_returns_of_the_modules_parameters", """
        import torch
        class LULinear(torch.nn.Module):
            def __init__(self, n):
                super().__init__()
                self.n = n
                self.lower_entries = torch.nn.Parameter(torch.zeros(n, n))
                self.upper_entries = torch.nn.Parameter(torch.zeros(n, n))
            def _factors(self):
                lower = self.lower_entries.new_zeros(self.n, self.n)
                upper = self.upper_entries.tril()
                return lower, upper
            def inverse(self):
                lower, upper = self._factors()
                identity = torch.eye(self.n)
                return torch.triangular_solve(identity, lower)[0] @ upper
    """, [(14, 20)]),
    case("an_input_made_a_tensor_only_where_it_is_an_array_keeps_the_callers_device", """
        import numpy as np
        import torch
        def mean_error(predictions, targets):
            if isinstance(predictions, np.ndarray):
                predictions = torch.from_numpy(predictions)
            if isinstance(targets, np.ndarray):
                targets = torch.from_numpy(targets)
            total = torch.tensor(0.0)
            for i in range(len(predictions)):
                total += torch.abs(predictions[i] - targets[i]).sum()
            return total / len(predictions)
    """, [(8, 13)]),
    case("a_class_that_binds_a_parameter_is_a_module_whatever_its_base", _SCALE, [(8, 43)]),
    case("a_class_that_binds_a_parameter_under_another_name_is_a_module", """
        import torch
        from torch.nn import Parameter as Weight
        from flows.base import Transform
        class Scale(Transform):
            def __init__(self, n):
                super().__init__()
                self.log_scale = Weight(torch.zeros(n))
            def forward(self, x):
                return x * self.log_scale.exp() + torch.ones(x.size(-1)) * self.log_scale
    """, [(9, 43)]),
    case("host_state_made_by_a_method_and_met_by_its_caller", """
        import torch
        class Cell(torch.nn.Module):
            def __init__(self, n, hidden):
                super().__init__()
                self.hidden = hidden
                self.gate = torch.nn.Linear(n, hidden)
            def init_state(self, x, h):
                if h is None:
                    h = torch.zeros(x.shape[0], self.hidden)
                return h
            def begin(self, x):
                return self.init_state(x, None)
            def forward(self, x, h=None):
                h = self.init_state(x, h)
                return torch.sigmoid(self.gate(x)) * h
            def again(self, x):
                return self.gate(x) + self.begin(x)
    """, [(9, 17)]),
    case("hidden_state_pair_returned_by_a_method_and_given_to_a_layer", """
        import torch
        class Tagger(torch.nn.Module):
            def __init__(self, n, hidden):
                super().__init__()
                self.hidden = hidden
                self.rnn = torch.nn.LSTM(n, hidden)
            def init_hidden(self, batch):
                return torch.zeros(1, batch, self.hidden), torch.zeros(1, batch, self.hidden)
            def forward(self, x):
                h, c = self.init_hidden(x.shape[1])
                out, _ = self.rnn(x, (h, c))
                return out
    """, [(8, 16), (8, 52)]),
    case("empty_start_value_concatenated_with_the_inputs", """
        import torch
        def collect(x: torch.Tensor, n: int):
            acc = torch.tensor([])
            for i in range(n):
                acc = torch.cat([acc, x[i] * 2])
            return acc
    """, [(3, 11)]),
    case("optimizer_state_made_on_the_host_and_updated_from_the_gradient", _FACTORED_STEP, [(10, 36)]),
    case("a_gradient_is_where_its_tensor_is", """
        import torch
        def clip(w: torch.Tensor, limit: float):
            bound = torch.full(w.shape, limit)
            return torch.minimum(w.grad, bound)
    """, [(3, 13)]),
    case("host_tensor_kept_in_a_dict_by_key_and_read_back", """
        import torch
        def pos_embed(x: torch.Tensor, n: int):
            cache = {}
            cache["pos"] = torch.arange(n).float()
            return x + cache["pos"]
    """, [(4, 20)]),
    case("graph_convolution_layer_called_on_a_host_state", """
        import torch
        from torch_geometric.nn import GCNConv
        class Recurrent(torch.nn.Module):
            def __init__(self, n, hidden):
                super().__init__()
                self.conv = GCNConv(hidden, hidden)
                self.hidden = hidden
            def forward(self, x, edge_index):
                h = torch.zeros(x.shape[0], self.hidden)
                return self.conv(h, edge_index)
    """, [(9, 13)]),
]

NOT_FLAGGED = [
    # An attribute concatenated onto, but whose start is placed, or which is also moved, registered, or bound
    # in a way that cannot be read (a tuple target), or a class that moves things itself; or what is collected
    # is sent to the host first, or is host data: nothing shows the start meets a device tensor on the CPU.
    case("attribute_concatenated_onto_but_started_on_the_device", """
        import torch
        class LossBuffer:
            def __init__(self, device):
                self.device = device
                self.losses = torch.tensor([])
            def reset(self):
                self.losses = torch.tensor([]).to(self.device)
            def add(self, loss: torch.Tensor):
                self.losses = torch.cat([self.losses, loss.detach()])
    """, []),
    case("attribute_concatenated_onto_and_moved_elsewhere", """
        import torch
        class LossBuffer:
            def __init__(self):
                self.losses = torch.tensor([])
            def to(self, device):
                self.losses = self.losses.to(device)
                return self
            def add(self, loss: torch.Tensor):
                self.losses = torch.cat([self.losses, loss.detach()])
        class Scores:
            def __init__(self):
                self.scores = torch.tensor([])
            def place(self, device):
                self.scores = self.scores.to(device)
            def add(self, score: torch.Tensor):
                self.scores = torch.cat([self.scores, score])
    """, []),
    case("attribute_concatenated_onto_that_is_a_registered_buffer", """
        import torch
        from torch import nn
        class Memory(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.register_buffer("bank", torch.empty(0, dim))
            def forward(self, x: torch.Tensor):
                self.bank = torch.cat((self.bank, x.detach()))
                return x
    """, []),
    case("attribute_bound_in_a_tuple_target_and_concatenated_onto", """
        import torch
        class Pairs:
            def reset(self):
                self.a, self.b = torch.tensor([]), torch.tensor([])
            def add(self, x: torch.Tensor):
                self.a = torch.cat([self.a, x])
    """, []),
    case("attribute_collecting_host_values", """
        import torch
        class Collector:
            def __init__(self):
                self.preds = torch.tensor([])
                self.ids = torch.tensor([], dtype=torch.long)
            def add(self, preds: torch.Tensor, ids: list):
                self.preds = torch.cat([self.preds, preds.detach().cpu()])
                self.ids = torch.cat([self.ids, torch.tensor(ids)])
    """, []),
    # The output of a function given the caller's tensors, but not shown to be a torch tensor (a count, a
    # NumPy array, a list: a host factory mixes with any of them), or given no input at all.
    case("output_of_a_function_not_used_as_a_torch_tensor", """
        import torch
        class Degree(torch.nn.Module):
            def forward(self, x, edge_index):
                n = count_nodes(edge_index)
                adj = to_numpy_adj(edge_index)
                adj = adj.reshape(n, n)
                degree = torch.ones(n) * n + torch.from_numpy(adj.sum(0))
                return x * degree.to(x.device)
    """, []),
    case("output_of_a_function_given_a_plain_functions_unshown_parameter", """
        import torch
        def degree(edge_index):
            adj = to_dense_adj(edge_index)
            return torch.matmul(adj, torch.ones(adj.size(0), 1))
    """, []),
    case("output_of_a_function_given_only_host_values", """
        import torch
        class Grid(torch.nn.Module):
            def forward(self, x):
                grid = make_grid(8, 8)
                grid = grid.unsqueeze(0)
                return grid + torch.zeros(1, 8, 8)
    """, []),
    case("a_method_returns_what_its_caller_gave_it_or_a_host_tensor", """
        import torch
        import torch.nn as nn
        class Layer(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.n = n
                self.weight = nn.Parameter(torch.zeros(n, n))
            def _scaled(self, values):
                return values * 2
            def _grid(self):
                return torch.arange(self.n)
            def first(self):
                scaled = self._scaled(torch.ones(self.n))
                return torch.ones(self.n) + scaled
            def second(self):
                return torch.zeros(self.n) + self._grid()
    """, []),
    case("a_method_init_calls_builds_the_module_on_the_cpu", """
        import torch
        class MarginLoss(torch.nn.Module):
            def __init__(self, beta, num_classes):
                super().__init__()
                self.initialize_beta(beta, num_classes)
            def initialize_beta(self, beta, num_classes):
                self.beta = torch.nn.Parameter(torch.tensor([float(beta)]))
                self.scale = torch.ones(num_classes) * self.beta
    """, []),
    case("methods_that_call_each_other_are_read_once", """
        import torch
        import torch.nn as nn
        class Layer(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.weight = nn.Parameter(torch.zeros(n, n))
            def a(self):
                return self.b()
            def b(self):
                return self.a()
            def run(self):
                return torch.ones(3) + self.a()
    """, []),
    case("module_attributes_that_move_or_are_only_numbers", """
        import torch
        import torch.nn as nn
        class Registered(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.register_buffer("mask", torch.tril(torch.ones(n, n)))
                self.cache = torch.zeros(n)
                self.scale = torch.tensor(0.5)
                self.reset()
            def reset(self):
                self.mask.mul_(self.cache)
            def forward(self, x):
                return x.masked_fill(self.mask == 0, 0.0) * self.scale, self.cache.to(x.device) + x.size(0)
        class MovesItsOwn(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.table = torch.zeros(n)
            def _apply(self, fn, recurse=True):
                self.table = fn(self.table)
                return super()._apply(fn, recurse)
            def forward(self, x):
                return x + self.table, x.shape
        class Rebound(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.state = torch.zeros(n)
            def forward(self, x):
                self.state = self.state.to(x.device) + x
                return self.state, x.shape
        class NotAModule:
            def __init__(self, n):
                self.offsets = torch.zeros(n)
            def apply(self, x: torch.Tensor):
                return x + self.offsets
    """, []),
    case("a_parameter_made_a_tensor_here_is_data", """
        import torch
        def accuracy(predicted, ends):
            truth = torch.tensor([int(e) for e in ends])
            predicted = torch.tensor(predicted)
            upsampled = predicted.repeat_interleave(len(truth) // len(predicted))
            return (upsampled == truth).float().mean()
    """, []),
    case("length_of_a_list_of_host_rows", """
        import torch
        def pad(rows, n: int):
            out = [torch.tensor(r) for r in rows]
            return torch.cat([*out, torch.zeros(n - len(rows))])
    """, []),
    case("zero_dim_host_tensor_added_not_in_place_or_added_into_an_input", """
        import torch
        def error(preds: torch.Tensor, targets: torch.Tensor, n: int):
            total = torch.tensor(0.0)
            for i in range(n):
                total = total + (preds[i] - targets[i]).abs().sum()
            preds += torch.tensor(1.0)
            return total
    """, []),
    case("given_another_tensors_type_string_which_names_its_device", """
        import torch
        def f(x: torch.Tensor):
            cov = torch.mm(x, x.t())
            eye = torch.eye(3).type(cov.type())
            return cov + eye
    """, []),
    # T18's blind labels: a type the code holds may be a tensor type string (`dtype = A.type()`), which names a device
    case("given_a_type_the_code_holds_which_may_name_a_device", """
        import torch
        def sqrt_newton_schulz(A, iterations, dtype=None):
            if dtype is None:
                dtype = A.type()
            K = torch.eye(A.shape[1]).repeat(A.shape[0], 1, 1).type(dtype)
            return 3.0 * K - A.bmm(K)
    """, []),
    case("elements_of_a_sequence_not_shown_to_be_tensors", """
        import torch
        def total(arrays):
            parts = []
            for a in arrays:
                parts.append(a.shape[0])
                parts.append(torch.tensor(0.0))
            return torch.stack(parts)
    """, []),
    # the negatives of issue 14
    case("host_coin_flips_from_one_draw", """
        import torch
        from torch import nn
        class LayerDrop(nn.Module):
            def forward(self, x):
                keep_probs = torch.rand(len(self.layers))
                for i, layer in enumerate(self.layers):
                    if keep_probs[i] < self.p:
                        x = layer(x)
                return x
    """, []),
    case("random_draw_used_as_a_number", """
        import torch
        def crop(x: torch.Tensor):
            n = torch.randint(1, x.size(1), (1,))[0]
            return x[:, :n] * torch.randint(0, 2, (1,)).item()
    """, []),
    case("coin_flip_in_an_if", """
        import torch
        def flip(x: torch.Tensor, p: float):
            if torch.rand(1) > p:
                return x.flip(-1)
            return x
    """, []),
    case("as_tensor_of_what_is_already_a_tensor", """
        import torch
        from torch import nn
        class Wrap(nn.Module):
            def forward(self, x):
                y = torch.as_tensor(self.module(x))
                return x + y
    """, []),
    case("kernel_kept_on_the_host_for_a_plain_function", """
        import torch
        def smooth(x: torch.Tensor, k: int):
            kernel = torch.ones(k) / k
            return filter1d(x, kernel)
    """, []),
    case("index_tensor_after_an_explicit_cpu", """
        import torch
        def sample(x: torch.Tensor):
            host = x.detach().cpu()
            idx = torch.randperm(host.size(0))
            return host[idx] + torch.ones(host.size(1))
    """, []),
    case("generator_factories", """
        import torch
        def noisy(x: torch.Tensor, g):
            noise = torch.randn(x.shape, generator=g)
            return x + noise
    """, []),
    case("cpu_index_used_as_a_subscript", """
        import torch
        def take(x: torch.Tensor, n: int):
            idx = torch.arange(n)
            mask = torch.ones(x.size(0), dtype=torch.bool)
            return x[idx], x[mask]
    """, []),
    case("zero_dim_tensors_in_arithmetic", """
        import torch
        def scale(x: torch.Tensor, n: int):
            return x * torch.tensor(0.5) + torch.tensor(n) / torch.tensor(x.size(-1))
    """, []),
    case("moved_later", """
        import torch
        def bias(x: torch.Tensor):
            pos = torch.arange(x.size(1))
            pos = pos.to(x.device)
            return x + pos, x + torch.ones(3).type_as(x), x + torch.zeros(3).cuda()
    """, []),
    case("sent_to_the_host_on_purpose", """
        import torch
        def stats(x: torch.Tensor):
            counts = torch.zeros(10)
            return x.cpu() + counts, torch.arange(3).numpy()
    """, []),
    case("like_and_new_factories_follow_the_input", """
        import torch
        def mix(x: torch.Tensor):
            return x + torch.zeros_like(x) + x.new_zeros(x.shape) + torch.randn_like(x)
    """, []),
    case("passed_to_a_plain_function", """
        import torch
        def run(x: torch.Tensor):
            mask = torch.ones(x.size(0))
            return apply_mask(x, mask)
    """, []),
    case("truth_tests_and_host_values", """
        import torch
        def check(x: torch.Tensor):
            flags = torch.zeros(3)
            if flags.any() and bool(flags[0]):
                return x
            return x * int(flags.sum())
    """, []),
    case("under_with_torch_device", """
        import torch
        def make(x: torch.Tensor):
            with torch.device(x.device):
                return x + torch.zeros(x.shape)
    """, []),
    case("after_set_default_device", """
        import torch
        torch.set_default_device("cuda")
        def make(x: torch.Tensor):
            return x + torch.zeros(x.shape)
    """, []),
    case("parameters_not_shown_to_be_tensors", """
        import torch
        def add(a, b):
            return a + torch.zeros(3), torch.cat([b, torch.ones(3)])
    """, []),
    case("a_list_parameter_is_not_a_tensor", """
        import torch
        def stack(labels, n):
            out = [torch.zeros(n) for _ in labels]
            return torch.stack(out + labels), len(labels)
    """, []),
    case("host_tensors_meeting_each_other", """
        import torch
        def grid(x: torch.Tensor, n: int):
            ys = torch.arange(n)
            xs = torch.arange(n)
            return torch.stack([ys, xs]) + torch.ones(2, n), x.shape
    """, []),
    case("tensor_attribute_set_outside_a_module_is_not_an_input", """
        import torch
        class Box:
            def __init__(self):
                self.weight = torch.ones(3)
            def scaled(self, n: int):
                return self.weight * torch.arange(n)
    """, []),
    case("parameterless_submodule", """
        import torch
        from torch import nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(0.1)
            def forward(self, x):
                return x, self.drop(torch.ones(3))
    """, []),
    case("returns_of_host_values_only", """
        import torch
        def table(x: torch.Tensor):
            if x.numel() == 0:
                return torch.zeros(0)
            return torch.arange(x.numel())
    """, []),
    case("in_init_the_module_is_still_on_the_cpu", """
        import torch
        from torch import nn
        class Codes(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.register_buffer("mask", 2 ** torch.arange(n))
                self.proj = nn.Linear(n, n)
                bits = (torch.arange(2 ** n)[:, None] & self.mask) != 0
                self.register_buffer("codes", self.proj(bits.float()))
    """, []),
    case("empty_placeholder_replaced_later", """
        import torch
        def chain(x: torch.Tensor, blocks):
            out = torch.empty(0)
            started = False
            for block in blocks:
                out = block(x + out) if started else block(x)
                started = True
            return out
    """, []),
    case("numpy_data_converted_on_the_host", """
        import torch
        def poses(p):
            first = torch.from_numpy(p).float()
            return torch.cat([torch.eye(4)[None], first[None]]), p.shape
    """, []),
    case("every_caller_passes_a_host_tensor", """
        import torch
        class Pipeline:
            def embedding(self, w: torch.Tensor, dim: int):
                freqs = torch.exp(torch.arange(dim) * -0.1)
                return w[:, None] * freqs[None, :]
            def __call__(self, scale, n, device):
                w = torch.tensor(scale - 1).repeat(n)
                return self.embedding(w, 8).to(device)
    """, []),
    case("a_parameter_no_caller_passes", """
        import torch
        class Pipeline:
            @staticmethod
            def ids(x: torch.Tensor, t_coord=None):
                t = torch.arange(1) if t_coord is None else t_coord
                return torch.cartesian_prod(t, torch.arange(x.shape[1]))
            def __call__(self, x):
                return self.ids(x)
    """, []),
    case("module_of_the_file_without_parameters", """
        import torch
        from torch import nn
        class Sinusoid(nn.Module):
            def forward(self, t):
                return torch.cat([t.sin(), t.cos()], -1)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.time = Sinusoid()
            def forward(self, x):
                return x, self.time(torch.arange(x.size(1)))
    """, []),
    case("a_module_of_the_file_that_places_its_inputs", """
        import torch
        from torch import nn
        class Rope(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("freqs", torch.ones(4))
            def forward(self, indices, device):
                return indices.to(device=device)[:, None] * self.freqs
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rope = Rope()
            def forward(self, x):
                return x, self.rope(torch.arange(x.size(1)), x.device)
    """, []),
    case("callers_pass_a_host_tensor_through_an_attribute", """
        import torch
        class Block:
            def embedding(self, w: torch.Tensor, dim: int):
                return w[:, None] * torch.arange(dim)[None, :]
            def __call__(self, state):
                state.scale = torch.tensor(state.guidance - 1).repeat(state.n)
                state.cond = self.embedding(state.scale, 8).to(state.device)
    """, []),
    case("callers_send_it_to_the_host_first", """
        import torch
        def resample(probabilities: torch.Tensor, n: int):
            positions = torch.linspace(0, probabilities.shape[0] - 1, n)
            return probabilities[positions.long()] * positions[:, None]
        def align(logits):
            host = logits.detach().float().cpu()
            return resample(host.sigmoid(), 10)
    """, []),
    case("noqa_on_the_line", """
        import torch
        def pad(x: torch.Tensor):
            return x + torch.zeros(x.shape)  # noqa: DEV005
    """, []),
    case("file_without_torch_import", """
        def pad(x):
            return x.view(-1) + torch.zeros(3)
    """, []),
    # issue 29's negatives
    case("cpu_index_in_a_python_subscript", """
        import torch
        def take(x: torch.Tensor, n: int):
            return x[torch.arange(n)], x.index_put_((torch.arange(n),), x[:n])
    """, []),
    case("values_placed_by_device_written_through_a_host_index", """
        import torch
        def relabel(labels: torch.Tensor, ratio: float, classes: int):
            idx = torch.nonzero(torch.rand(labels.shape) < ratio).squeeze(-1)
            labels[idx] = torch.randint_like(idx, 0, classes, device=labels.device)
            return labels
    """, []),
    case("zero_dim_host_values_through_a_mask", """
        import torch
        def clamp_negatives(x: torch.Tensor):
            x[x < 0] = torch.tensor(0.0)
            x[:, 0] = torch.zeros(x.size(0))
            return x
    """, []),
    case("zero_dim_host_scalar_in_arithmetic", """
        import torch
        def scale(x: torch.Tensor):
            return x * torch.tensor(2.0) - torch.tensor(1.0)
    """, []),
    # SentEval's ranking: what the operation makes is moved to the GPU, so the data it was given is on the host
    case("result_of_the_meeting_moved_to_a_device", """
        import torch
        from torch.autograd import Variable
        def batch(train_img, ids, device):
            idx = torch.LongTensor(ids)
            images = Variable(train_img.index_select(0, idx)).to("cuda" if torch.cuda.is_available() else device)
            padded = torch.cat([train_img, torch.zeros(train_img.size(0), 1)], 1).to(device)
            return images, padded
    """, []),
    # OpenPCDet's box augmentation: a factory given no size raises TypeError on every device; devlint makes nothing
    case("factory_called_without_a_size", """
        import torch
        def jitter(box: torch.Tensor):
            return torch.cat([box[:6], box[6:7] + torch.rand() - 0.5])
    """, []),
    case("host_buffer_written_from_the_input_and_moved_before_it_leaves", """
        import torch
        def pad(xs: torch.Tensor, n: int):
            buf = torch.zeros(n, xs.size(1))
            buf[:xs.size(0)] = xs
            return buf.to(xs.device)
    """, []),
    case("host_data_built_in_a_dataset", """
        import torch
        from torch.utils.data import Dataset
        class Pairs(Dataset):
            def pair(self, x: torch.Tensor):
                return torch.cat([x, torch.zeros(3)])
            def __getitem__(self, i):
                return self.pair(torch.tensor(self.items[i]))
    """, []),
    # issue 28's shapes
    case("the_branch_that_runs_only_without_cuda", """
        import torch
        USE_CUDA = torch.cuda.is_available()
        def weights(x: torch.Tensor):
            if torch.cuda.is_available():
                w = torch.ones(3, device="cuda")
            else:
                w = torch.ones(3)
            v = torch.zeros(3, device="cuda") if USE_CUDA else torch.zeros(3)
            return x * w * v
    """, []),
    case("placed_by_the_call_it_goes_into", """
        import torch
        def sparse(x: torch.Tensor, i):
            values = torch.ones(i.size(1))
            table = torch.arange(5)
            return torch.sparse_coo_tensor(i, values, device=x.device) + x, x + torch.as_tensor(table, device=x.device)
    """, []),
    case("moved_after_the_operation_that_made_it", """
        import torch
        def scaled(x: torch.Tensor):
            return x + (torch.ones(3) * 2).to(x), x + torch.zeros(3).float().type_as(x)
    """, []),
    case("empty_placeholder_for_an_unused_functional_argument", """
        import torch
        import torch.nn.functional as F
        def attend(x: torch.Tensor, w: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
            # with separate projection weights, the packed `in_proj_weight` is never read
            return F.multi_head_attention_forward(x, x, x, 8, 2, torch.empty([0]), None, None, None, False, 0.0, w,
                                                  None, use_separate_proj_weight=True, q_proj_weight=q,
                                                  k_proj_weight=k, v_proj_weight=v)
    """, []),
    case("handed_to_a_function_of_the_file_that_places_it", """
        import torch
        def place(t, ref):
            return t.to(ref.device)
        def weigh(x: torch.Tensor):
            w = torch.ones(3)
            return x * place(w, x)
    """, []),
    case("loaded_onto_the_host_by_every_caller", """
        import torch
        def merge(x: torch.Tensor, n: int):
            return torch.cat([x, torch.zeros(n)])
        def load(path):
            state = torch.load(path, map_location="cpu")
            return merge(state["x"], 3)
    """, []),
    case("after_set_default_device_factories_follow_it", """
        import torch
        def pad(x: torch.Tensor):
            return torch.cat([x, torch.zeros(3)])
        torch.set_default_device("cuda")
    """, []),
    case("met_only_after_a_host_copy_replaced_the_input", """
        import torch
        def stats(x: torch.Tensor):
            x = x.detach().cpu()
            return torch.cat([x, torch.ones(3)])
    """, []),
    case("met_only_in_a_branch_that_never_runs", """
        import torch
        def score(u: torch.Tensor):
            if u.size() == 1:
                return torch.tensor(0.0)
            return u.sum()
    """, []),
    case("collators_make_host_data", """
        import torch
        class DataCollatorForMasking:
            def mask(self, inputs: torch.Tensor):
                probability = torch.full(inputs.shape, 0.15)
                return inputs.masked_fill(probability > 0.5, 0)
    """, []),
    case("host_state_a_method_returns_is_moved_by_its_caller", """
        import torch
        class Cell(torch.nn.Module):
            def __init__(self, n, hidden):
                super().__init__()
                self.hidden = hidden
                self.gate = torch.nn.Linear(n, hidden)
            def init_state(self, batch):
                return torch.zeros(batch, self.hidden)
            def forward(self, x):
                h = self.init_state(x.shape[0]).to(x.device)
                return torch.sigmoid(self.gate(x)) * h
            def sizes(self, x):
                return self.init_state(x.shape[0]).shape
    """, []),
    case("host_indices_returned_beside_the_inputs_tensor", """
        import torch
        class Masker(torch.nn.Module):
            def __init__(self, d):
                super().__init__()
                self.cls_token = torch.nn.Parameter(torch.zeros(1, 1, d))
            def _masking(self, x):
                keep = torch.multinomial(torch.ones(x.shape[0], x.shape[1]), 2)
                return x[torch.arange(x.shape[0]).unsqueeze(1), keep], keep
            def forward(self, x):
                x, keep = self._masking(x)
                return torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1), keep
    """, []),
    case("empty_start_value_concatenated_with_host_copies_or_replaced_first", """
        import torch
        def collect(x: torch.Tensor, n: int):
            acc = torch.empty(0)
            for i in range(n):
                acc = torch.cat([acc, x[i].cpu()])
            return acc
        def chain(x: torch.Tensor, blocks):
            out = torch.zeros(0)
            for i, block in enumerate(blocks):
                out = block(x + out) if i else block(x)
            return out
    """, []),
    case("optimizer_state_made_beside_its_parameter",
         _FACTORED_STEP.replace("p.grad.shape[:-1])", "p.grad.shape[:-1], device=p.device)"), []),
    case("a_params_key_outside_an_optimizer_is_not_a_parameter", """
        import torch
        def total(config):
            out = torch.zeros(3)
            for p in config["params"]:
                out = out + p
            return out
    """, []),
    case("a_dict_bound_again_forgets_its_keys", """
        import torch
        def pos_embed(x: torch.Tensor, n: int, table):
            cache = {}
            cache["pos"] = torch.arange(n).float()
            cache = table
            return x + cache["pos"]
    """, []),
    case("callers_pass_host_tensors_and_numbers", """
        import torch
        from torch import nn
        class Rope(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.freqs = [self.params(torch.arange(8).flip(0) * -1 - 1, dim)]
            def params(self, index: torch.Tensor, dim: int):
                return torch.outer(index, torch.arange(0, dim, 2) / dim)
    """, []),
    # the look-alikes: arithmetic of the inputs with no tensor method (Python numbers, maybe), and a 0-dim host
    # tensor in arithmetic with it (PyTorch accepts a CPU scalar there)
    case("host_tensor_beside_arithmetic_of_the_inputs_without_a_tensor_method", """
        import torch
        def spread(a, b):
            pad = torch.zeros(3)
            return torch.cat([pad, pad]) + abs(a - b)
    """, []),
    case("zero_dim_host_tensor_in_arithmetic_with_a_tensor_method_of_the_inputs", """
        import torch
        def total(preds, target):
            zero = torch.tensor(0.0)
            return (preds - target).abs().mean() + zero
    """, []),
    # the look-alikes of `torch.as_tensor(points)`: callers that give host data, a parameter the function gives
    # NumPy (an array: `as_tensor` makes a CPU tensor of it), one it iterates (a list), one bound again first, and
    # `torch.tensor(points)` (data made a tensor: a copy, read as data)
    case("as_tensor_of_a_parameter_every_caller_gives_host_data", """
        import numpy as np
        import torch
        def homogeneous(points):
            pts = torch.as_tensor(points, dtype=torch.float32)
            return torch.cat([pts, torch.ones(pts.shape[0], 1)], dim=1)
        def run():
            return homogeneous([[0.0, 1.0]]), homogeneous(np.zeros((2, 2)))
    """, []),
    case("as_tensor_of_a_parameter_also_given_to_numpy", """
        import numpy as np
        import torch
        def homogeneous(points):
            np.asarray(points).mean()
            pts = torch.as_tensor(points)
            return torch.cat([pts, torch.ones(pts.shape[0], 1)], dim=1)
    """, []),
    case("as_tensor_of_a_parameter_iterated_as_a_list", """
        import torch
        def homogeneous(points):
            n = sum(1 for _ in points)
            pts = torch.as_tensor(points)
            return torch.cat([pts, torch.ones(n, 1)], dim=1)
    """, []),
    case("as_tensor_of_a_parameter_bound_again_first", """
        import torch
        def homogeneous(points):
            points = [list(p) for p in points]
            pts = torch.as_tensor(points)
            return torch.cat([pts, torch.ones(pts.shape[0], 1)], dim=1)
    """, []),
    case("tensor_of_a_parameter_is_data", """
        import torch
        def homogeneous(points):
            pts = torch.tensor(points)
            return torch.cat([pts, torch.ones(pts.shape[0], 1)], dim=1)
    """, []),
    case("as_tensor_given_a_device", """
        import torch
        def homogeneous(points, device):
            pts = torch.as_tensor(points, device=device)
            return torch.cat([pts, torch.ones(pts.shape[0], 1, device=device)], dim=1)
    """, []),
    case("zero_dim_tensor_stacked_with_what_a_plain_function_makes_of_the_callers_elements", """
        import torch
        def total(outputs, targets, loss_fn):
            losses = []
            for out, t in zip(outputs, targets):
                if t is None:
                    losses.append(torch.tensor(0).float())
                else:
                    losses.append(loss_fn(out, t))
            return torch.stack(losses).mean()
    """, []),
    case("cast_to_a_torch_dtype_stays_on_the_host", """
        import torch
        def spread(x: torch.Tensor):
            eye = torch.eye(3).type(torch.float16)
            return x + eye
    """, [(3, 11)]),
    case("a_tensor_method_of_arithmetic_with_a_call_is_not_the_inputs_alone", """
        import torch
        def total(preds, scale):
            pad = torch.zeros(3)
            return torch.cat([(preds - scale()).abs(), pad])
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev005(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV005", code) == expected


def test_the_message_names_what_the_tensor_meets() -> None:
    from devlint import lint_source
    from devlint.engine.settings import Settings

    code = "import torch\ndef f(features):\n    pad = torch.zeros(2, features.size(1))\n" \
           "    return torch.cat([features, pad])\n"
    [report] = [d for d in lint_source(code, "m.py", Settings(extend_select=NAMED)) if d.code == "DEV005"]
    assert report.message == ("`torch.zeros(...)` is created on the CPU and meets `features` in torch.cat;"
                              " pass `device=features.device`")


PREVIEW = [
    case("host_buffer_written_from_the_input_and_returned", """
        import torch
        def pad(xs: torch.Tensor, n: int):
            buf = torch.zeros(n, xs.size(1))
            buf[:xs.size(0)] = xs
            return buf
    """, [(3, 11)]),
    case("host_list_given_the_inputs_tensor_and_returned", """
        import torch
        def states(x: torch.Tensor, n: int):
            outs = [torch.zeros(3) for _ in range(n)]
            outs[0] = x
            return outs
    """, [(3, 13)]),
    case("returned_tuple_of_a_host_tensor_and_the_input", """
        import torch
        def grid(x: torch.Tensor, n: int):
            return x, torch.arange(n)
    """, []),
]


@pytest.mark.parametrize("code, expected", PREVIEW)
def test_dev005_preview_shapes(code: str, expected: list[tuple[int, int, str]]) -> None:
    """The shapes of `flow.PREVIEW_SHAPES` (its package): reported only in the preview tier (naming a rule in preview
    runs it at its default shapes)."""
    assert reports("DEV005", code) == []
    assert [r for r in lint(code, preview=True) if r[2] == "DEV005"] == expected


def test_the_message_names_the_index_argument() -> None:
    from devlint import lint_source
    from devlint.engine.settings import Settings

    code = "import torch\ndef f(x: torch.Tensor, n: int):\n    return x.gather(0, torch.arange(n))\n"
    [report] = [d for d in lint_source(code, "m.py", Settings(extend_select=NAMED)) if d.code == "DEV005"]
    assert report.message == ("`torch.arange(...)` is created on the CPU and meets `x` in `.gather` (as its index or"
                              " mask); pass `device=x.device`")


FIXED = [
    pytest.param("""
        import torch
        def clear(x: torch.Tensor, n: int):
            return x.index_fill_(0, torch.arange(n), 0)
    """, """
        import torch
        def clear(x: torch.Tensor, n: int):
            return x.index_fill_(0, torch.arange(n, device=x.device), 0)
    """, id="cpu_index_follows_the_indexed_input"),
    pytest.param("""
        import torch
        def relabel(labels: torch.Tensor):
            table = torch.tensor([0, 2, 1])
            return table[labels.long()]
    """, """
        import torch
        def relabel(labels: torch.Tensor):
            table = torch.tensor([0, 2, 1], device=labels.device)
            return table[labels.long()]
    """, id="host_table_follows_the_index"),
    pytest.param("""
        import torch
        import torch.nn.functional as F
        def loss(logits: torch.Tensor, labels: list):
            return F.cross_entropy(logits, torch.tensor(labels))
    """, """
        import torch
        import torch.nn.functional as F
        def loss(logits: torch.Tensor, labels: list):
            return F.cross_entropy(logits, torch.tensor(labels, device=logits.device))
    """, id="host_targets_follow_the_logits"),
    pytest.param("""
        import torch
        def mask_ids(batch, n: int):
            keep = torch.ones(n, dtype=torch.bool)
            return batch["ids"].masked_fill(keep, 0), batch["ids"].size(0)
    """, """
        import torch
        def mask_ids(batch, n: int):
            keep = torch.ones(n, dtype=torch.bool)
            return batch["ids"].masked_fill(keep, 0), batch["ids"].size(0)
    """, id="no_fix_for_a_tensor_inside_a_parameter"),
]


@pytest.mark.parametrize("code, fixed", FIXED)
def test_dev005_fix(code: str, fixed: str) -> None:
    import textwrap

    from devlint import fix_source
    from devlint.engine.settings import Settings

    result = fix_source(textwrap.dedent(code).removeprefix("\n"), "m.py", Settings(extend_select=NAMED), unsafe=True)
    assert result.source == textwrap.dedent(fixed).removeprefix("\n")


def test_a_conftest_that_sets_the_default_device_covers_the_functions_below_it(tmp_path) -> None:
    from conftest import project_whose_tests_set_a_default_device

    test_file, module = project_whose_tests_set_a_default_device(tmp_path)
    code = "import torch\ndef f(x: torch.Tensor):\n    return torch.cat([x, torch.zeros(3)])\n"
    assert [r for r in lint(code, test_file, extend_select=NAMED) if r[2] == "DEV005"] == []
    assert [r[2] for r in lint(code, module, extend_select=NAMED)].count("DEV005") == 1


def test_what_a_method_returns_is_followed_a_few_methods_deep_and_a_long_chain_ends() -> None:
    chain = "\n".join(f"    def m{i}(self):\n        return self.m{i + 1}()" for i in range(400))
    code = ("import torch\nclass L(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.w = torch.nn.Parameter(torch.zeros(3))\n" + chain + "\n    def m400(self):\n        return self.w\n"
            "    def from_the_start(self):\n        return torch.ones(3) + self.m0()\n"
            "    def near_the_end(self):\n        return torch.ones(3) + self.m398()\n")
    lines = code.splitlines()
    assert [r[0] for r in lint(code, "m.py", extend_select=NAMED) if r[2] == "DEV005"] == [len(lines)]


def test_a_class_is_walked_for_parameters_only_where_the_file_writes_the_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class whose base is defined elsewhere is a module where it registers a parameter or a buffer; code can only
    do so by writing `Parameter`, `register_buffer` or `register_parameter`, so a file without them is not walked."""
    from devlint.rules.dev005_host_tensor_meets_input import flow

    walked = counted_calls(monkeypatch, flow, "_binds_parameters")  # type: ignore[arg-type]
    scale = _SCALE.removeprefix("\n")
    assert reports("DEV005", scale) == [(8, 43, "DEV005")]
    assert walked() == 1
    without = scale.replace("torch.nn.Parameter(torch.zeros(n))", "torch.zeros(n)")
    assert reports("DEV005", without) == [(8, 43, "DEV005")]  # the factory still meets `x`
    assert walked() == 1  # and `Scale` was not walked for a parameter the file cannot name


def test_the_rules_and_the_type_oracle_read_the_classes_of_a_file_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from devlint.analysis.classes import ClassTable

    read = counted_calls(monkeypatch, ClassTable, "__init__")
    code = """\
import torch
class Scale(torch.nn.Module):
    def forward(self, x, y):
        y.to(x.device)
        return x + torch.ones(x.size(-1))
"""
    found = lint(code, "m.py", extend_select=("DEV001", "DEV005"))
    assert {report[2] for report in found} == {"DEV001", "DEV005"}  # DEV001 asked the type oracle about `y`
    assert read() == 1
