"""DEV005 — a tensor created inside `forward` (or a helper `forward` calls) without a device.

Each case is a snippet and the exact `(line, col, code)` reports DEV005 gives on it; the
report points at the factory call.
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, reports

case = cases_for("DEV005")

FLAGGED = [
    case("a_shape_slice_is_not_a_scalar", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x * torch.tensor(x.shape[2:])
    """, [(5, 20)]),
    # torchmetrics nisqa: a CPU arange compared with a (CUDA) tensor fails
    case("factory_compared_with_a_tensor", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, src, n_wins):
                mask = torch.arange(src.shape[0]) < n_wins
                return src * mask
    """, [(5, 16)]),
    case("arange_in_forward", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x + torch.arange(x.size(1))
    """, [(5, 20)]),
    case("dtype_alone_does_not_place_the_tensor", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                mask = torch.ones(x.size(0), dtype=torch.bool)
                return x[mask]
    """, [(5, 16)]),
    case("torch_imported_as_th", """
        import torch as th
        class M(th.nn.Module):
            def forward(self, x):
                return x * th.rand(3)
    """, [(4, 20)]),
    case("factory_imported_from_torch_and_nn_imported_from_torch", """
        from torch import nn, zeros, load
        class M(nn.Module):
            def forward(self, x):
                return x + zeros(3)
    """, [(4, 20)]),
    case("base_imported_from_torch_nn", """
        import torch
        from torch.nn import Module
        class M(Module):
            def forward(self, x):
                return x + torch.zeros(3)
    """, [(5, 20)]),
    case("import_torch_nn_as_nn", """
        import torch
        import torch.nn as nn
        class M(nn.Module):
            def forward(self, x):
                return x + torch.zeros(3)
    """, [(5, 20)]),
    case("module_through_a_base_class_defined_later", """
        import torch
        class M(Base):
            def forward(self, x):
                return x + torch.zeros(3)
        class Base(torch.nn.Module):
            pass
    """, [(4, 20)]),
    case("lightning_module", """
        import torch
        import lightning as L
        class M(L.LightningModule):
            def forward(self, x):
                return x + torch.zeros(3)
    """, [(5, 20)]),
    case("rarely_taken_path_for_empty_input", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                if x.numel() == 0:
                    return torch.zeros(0, 4)
                return self.proj(x)
    """, [(6, 20)]),
    case("multi_line_factory", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                noise = torch.randn(
                    x.size(0),
                    4,
                )
                return x + noise
    """, [(5, 17)]),
    case("nested_in_another_call", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return torch.cat([x, torch.zeros(1, 4)])
    """, [(5, 30)]),
    case("tensor_from_a_list", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x * torch.tensor([1.0, 2.0])
    """, [(5, 20)]),
    case("legacy_constructors", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                a = torch.Tensor(3)
                b = torch.FloatTensor([1.0])
                c = torch.LongTensor(x.size(0)).zero_()
                d = torch.Tensor([0.5, 0.5])
                return a, b, c, d
    """, [(5, 13), (6, 13), (7, 13), (8, 13)]),
    case("sparse_tensor_from_host_data", """
        import numpy as np
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                adj = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], (2, 2))
                eye = torch.sparse_coo_tensor(np.vstack([r, c]), vals, (2, 2))
                return adj @ x + eye @ x
    """, [(6, 15), (7, 15)]),
    case("method_called_from_forward", """
        import torch
        from torch import nn
        class M(nn.Module):
            def make_mask(self, n):
                return torch.ones(n, n).triu()
            def forward(self, x):
                return x.masked_fill(self.make_mask(x.size(1)), 0)
    """, [(5, 16)]),
    case("method_defined_after_forward", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x + self._bias(x)
            def _bias(self, x):
                return torch.zeros(x.size(-1))
    """, [(7, 16)]),
    case("module_level_helper_called_from_forward", """
        import torch
        from torch import nn
        def positions(n):
            return torch.arange(n)
        class M(nn.Module):
            def forward(self, x):
                return x + positions(x.size(1))
    """, [(4, 12)]),
    case("helper_two_calls_away", """
        import torch
        from torch import nn
        def grid(n):
            return torch.linspace(0, 1, n)
        class M(nn.Module):
            def coords(self, n):
                return grid(n)
            def forward(self, x):
                return x + self.coords(x.size(1))
    """, [(4, 12)]),
    case("helper_returning_a_tuple_of_host_tensors", """
        import torch
        from torch import nn
        def patchify(img, n):
            ys, xs = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
            coords = torch.stack([ys.reshape(-1), xs.reshape(-1)], dim=1)
            valid = torch.ones(n * n, dtype=torch.bool)
            return img.view(n * n, -1), coords, valid
        class Patchify(nn.Module):
            def forward(self, img):
                return patchify(img, 4)
    """, [(4, 29), (4, 46), (6, 13)]),
    case("helper_cast_with_a_dtype_to_is_still_on_the_host", """
        import torch
        from torch import nn
        class M(nn.Module):
            def mask(self, n):
                return torch.ones(n, n).triu().to(torch.bool)
            def forward(self, x):
                return x.masked_fill(self.mask(x.size(1)), 0)
    """, [(5, 16)]),
    case("nested_function_inside_forward", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                def pad(n):
                    return torch.zeros(n)
                return torch.cat([x, pad(2)])
    """, [(6, 20)]),
]

NOT_FLAGGED = [
    # inkling2: host-side bookkeeping next to an explicit .cpu()
    case("arithmetic_with_an_explicit_host_tensor", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x, grid):
                patches = grid.cpu() * torch.tensor([1, 2, 2])
                return x, patches
    """, []),
    # seamless_m4t / wav2vec2: type_as takes the other tensor's device too
    case("type_as_places_the_tensor", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                steps = torch.arange(x.size(1)).type_as(self.inv_freq)
                return steps[:, None] * self.inv_freq
    """, []),
    # autoformer: moved at the end of a chain of tensor methods
    case("moved_after_a_chain_of_tensor_methods", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                index = torch.arange(x.size(1)).view(1, -1, 1).repeat(4, 1, 2).to(x.device)
                return x[index]
    """, []),
    # DETR's Hungarian matcher: SciPy's index arrays converted on the host, by design
    case("iterated_host_data_converted_in_a_comprehension", """
        import torch
        from torch import nn
        class Matcher(nn.Module):
            def forward(self, outputs, targets):
                indices = [linear_sum_assignment(c) for c in outputs.split(2, -1)]
                return [(torch.as_tensor(i, dtype=torch.int64), torch.as_tensor(j)) for i, j in indices]
    """, []),
    case("iterated_host_data_converted_in_a_loop", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x, sizes):
                for size in sizes:
                    x = x * torch.tensor(size).item()
                return x
    """, []),
    case("one_shape_entry_is_a_scalar", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                n = torch.tensor(x.shape[2], dtype=torch.float)
                return x / n
    """, []),
    # augmentation idiom: a comparison with a number gives a host bool
    case("factory_compared_with_a_number", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                if torch.rand(1) < self.p:
                    return x.flip(-1)
                if torch.rand(1) > 0.5:
                    return -x
                return x
    """, []),
    # LayerDrop (transformers): a 0-dim CPU scalar
    case("layerdrop_scalar", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                dropout_probability = torch.rand([])
                if dropout_probability < self.layerdrop:
                    return x
                return x * 2
    """, []),
    case("device_given", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x + torch.arange(x.size(1), device=x.device)
    """, []),
    case("moved_in_the_same_expression", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x + torch.arange(x.size(1)).to(x.device)
    """, []),
    case("moved_after_a_dtype_cast", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x + torch.tensor(v).float().cuda()
    """, []),
    case("like_factories", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return torch.zeros_like(x) + torch.randn_like(x)
    """, []),
    case("new_factories", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x.new_zeros(3) + x.new_tensor([1.0])
    """, []),
    case("tensor_of_a_list_repeated_is_not_a_scalar", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x, n):
                return x + torch.tensor([0] * n)
    """, [(5, 20)]),
    case("zero_dim_scalar_tensor", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x * torch.tensor(0.5) + torch.tensor(-1)
    """, []),
    case("under_with_torch_device", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                with torch.device(x.device):
                    return x + torch.zeros(3)
    """, []),
    case("after_set_default_device", """
        import torch
        from torch import nn
        torch.set_default_device("cuda")
        class M(nn.Module):
            def forward(self, x):
                return x + torch.zeros(3)
    """, []),
    case("kept_on_the_host_with_numpy", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                sizes = torch.tensor(list(x.shape)).numpy()
                n = torch.arange(4).tolist()
                return x, sizes, n
    """, []),
    case("moved_to_cpu_on_purpose", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return torch.zeros(3).to("cpu"), torch.ones(2).cpu()
    """, []),
    case("buffer_made_in_init", """
        import torch
        from torch import nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("pos", torch.arange(16))
            def forward(self, x):
                return x + self.pos
    """, []),
    case("init_helper_not_called_from_forward", """
        import torch
        from torch import nn
        def table(n):
            return torch.arange(n)
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("t", table(8))
            def forward(self, x):
                return x + self.t
    """, []),
    case("helper_whose_result_forward_moves", """
        import torch
        from torch import nn
        class M(nn.Module):
            def square_mask(self, n):
                mask = torch.triu(torch.ones(n, n), diagonal=1)
                return mask.float().masked_fill(mask == 1, float("-inf"))
            def forward(self, x):
                return x + self.square_mask(x.size(1)).to(x.device)
    """, []),
    case("helper_that_moves_what_it_returns", """
        import torch
        from torch import nn
        class M(nn.Module):
            def rel_indices(self, n):
                table = torch.zeros(1, n, n, 3)
                offsets = torch.arange(n).view(1, -1) - torch.arange(n).view(-1, 1)
                table[..., 0] = offsets
                return table.to(device=self.qk.weight.device)
            def forward(self, x):
                return x + self.rel_indices(x.size(1))
    """, []),
    case("helper_using_host_tensors_only_as_an_index", """
        import torch
        from torch import nn
        def rel_pos(q, k, table):
            q_coords = torch.arange(q, dtype=torch.float32)[:, None]
            k_coords = torch.arange(k, dtype=torch.float32)[None, :]
            coords = (q_coords - k_coords) + (k - 1)
            return table[coords.long()]
        class Attention(nn.Module):
            def forward(self, x):
                return x + rel_pos(4, 4, self.rel_pos_h)
    """, []),
    case("helper_result_moved_by_the_caller_on_a_later_line", """
        import torch
        from torch import nn
        class M(nn.Module):
            def grid(self, n):
                xs = torch.arange(n, dtype=torch.float32)
                return torch.stack(torch.meshgrid(xs, xs), dim=-1)
            def forward(self, x):
                bias = self.grid(x.size(1))
                bias = bias.to(x.device)
                return x + bias
    """, []),
    case("helper_early_return_is_not_the_later_assignment", """
        import torch
        from torch import nn
        class M(nn.Module):
            def extend(self, x, pe):
                if pe.size(1) >= x.size(1):
                    return pe
                pe = torch.zeros(x.size(1), 4)
                return pe.to(x.device)
            def forward(self, x):
                return x + self.extend(x, self.pe)
    """, []),
    case("helper_rebinding_a_factory_with_a_move", """
        import torch
        from torch import nn
        class M(nn.Module):
            def positions(self, x, n):
                ids = torch.arange(n)
                ids = ids.view(1, -1).expand(3, -1).to(x.device)
                return ids
            def forward(self, x):
                return self.positions(x, x.size(1))
    """, []),
    case("helper_passing_a_placeholder_to_another_function", """
        import torch
        import torch.nn.functional as F
        from torch import nn
        class M(nn.Module):
            def attend(self, q):
                out, weights = F.multi_head_attention_forward(q, q, q, 8, 2, torch.empty([0]), None)
                return out
            def forward(self, x):
                return self.attend(x)
    """, []),
    case("helper_scalar_tensors_and_type_as", """
        import torch
        from torch import nn
        def buckets(rel, mid, limit):
            small = torch.tensor(mid - 1).type_as(rel)
            scale = torch.log(torch.tensor((limit - 1) / mid))
            return torch.where(rel < mid, small, rel) / scale
        class M(nn.Module):
            def forward(self, x, k):
                return buckets(x, 4, 16) * torch.tensor(k.size(-1), dtype=torch.float)
    """, []),
    case("method_not_called_from_forward", """
        import torch
        from torch import nn
        class M(nn.Module):
            def reset(self):
                self.state = torch.zeros(3)
            def forward(self, x):
                return x
    """, []),
    case("forward_of_a_class_that_is_not_a_module", """
        import torch
        class Pipeline:
            def forward(self, x):
                return x + torch.zeros(3)
    """, []),
    case("method_of_another_object_with_the_same_name", """
        import torch
        from torch import nn
        class Other:
            def helper(self):
                return torch.zeros(3)
        class M(nn.Module):
            def helper(self):
                return 1
            def forward(self, x):
                return x + self.helper()
    """, []),
    case("function_outside_any_module", """
        import torch
        def helper(n):
            return torch.zeros(n)
    """, []),
    case("legacy_constructor_without_arguments", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                out = torch.Tensor()
                return out
    """, []),
    case("sparse_tensor_from_tensors_follows_them", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x, edge_index, weight):
                adj = torch.sparse_coo_tensor(edge_index, weight, (4, 4))
                return adj @ x
    """, []),
    case("star_kwargs_may_carry_the_device", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x + torch.zeros(3, **self.factory_kwargs)
    """, []),
    case("noqa_on_the_line", """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                return x + torch.zeros(3)  # noqa: DEV005
    """, []),
    case("file_without_torch_import", """
        class M(Module):
            def forward(self, x):
                return x + torch.zeros(3)
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev005(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV005", code) == expected


def test_a_helper_report_names_the_forward_that_calls_it() -> None:
    from devlint import lint_source

    code = "import torch\nfrom torch import nn\ndef pos(n):\n    return torch.arange(n)\n" \
           "class Enc(nn.Module):\n    def forward(self, x):\n        return x + pos(3)\n"
    [report] = [d for d in lint_source(code, "m.py") if d.code == "DEV005"]
    assert "`pos`, which `Enc.forward` calls" in report.message
