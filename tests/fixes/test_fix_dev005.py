"""DEV005 fix (unsafe): `device=<the input it meets>.device`, only where the file shows that input
to be a tensor."""

from __future__ import annotations

from fixing import check, unchanged

_BEFORE = """
    import torch as th
    def autocorrelation(x, n):
        pad = th.zeros(x.shape[:-1] + (n,), dtype=x.dtype)
        return th.cat([x - x.mean(-1, keepdim=True), pad], -1)
    """


def test_not_applied_without_unsafe_fixes():
    unchanged(_BEFORE, unsafe=False)


def test_the_input_it_meets_and_the_alias():
    check(_BEFORE, """
        import torch as th
        def autocorrelation(x, n):
            pad = th.zeros(x.shape[:-1] + (n,), dtype=x.dtype, device=x.device)
            return th.cat([x - x.mean(-1, keepdim=True), pad], -1)
        """, unsafe=True)


def test_the_input_it_meets_not_the_first_argument():
    check(
        """
        import torch
        def shift(offsets: torch.Tensor, x: torch.Tensor):
            return offsets.max(), x + torch.arange(x.size(1))
        """,
        """
        import torch
        def shift(offsets: torch.Tensor, x: torch.Tensor):
            return offsets.max(), x + torch.arange(x.size(1), device=x.device)
        """,
        unsafe=True,
    )


def test_a_module_parameter_it_meets():
    check(
        """
        import torch
        from torch import nn
        class CRF(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.transitions = nn.Parameter(torch.randn(n, n))
            def viterbi(self, features):
                scores = torch.zeros(features.size(0), 4)
                return scores + self.transitions
        """,
        """
        import torch
        from torch import nn
        class CRF(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.transitions = nn.Parameter(torch.randn(n, n))
            def viterbi(self, features):
                scores = torch.zeros(features.size(0), 4, device=self.transitions.device)
                return scores + self.transitions
        """,
        unsafe=True,
    )


def test_multiline_factory_keeps_its_layout_and_arguments():
    check(
        """
        import torch
        def pad(x: torch.Tensor):
            extra = torch.ones(
                x.size(0),
                x.size(1),  # features
                dtype=x.dtype,
                requires_grad=False,
            )
            return torch.cat([x, extra])
        """,
        """
        import torch
        def pad(x: torch.Tensor):
            extra = torch.ones(
                x.size(0),
                x.size(1),  # features
                dtype=x.dtype,
                requires_grad=False,
                device=x.device,
            )
            return torch.cat([x, extra])
        """,
        unsafe=True,
    )


def test_a_list_parameter_is_never_the_device_source():
    # issue 15: `labels` is iterated and len()-ed: not a tensor, so no fix (and no report)
    unchanged(
        """
        import torch
        def forward(logits: torch.Tensor, labels):
            idx = torch.arange(len(labels))
            total = sum(l.sum() for l in labels)
            return torch.stack(labels) + torch.ones(len(labels)), logits[idx], total
        """
    )


def test_a_layer_with_a_weight_gives_its_device():
    check(
        """
        import torch
        from torch import nn
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(16, 4)
            def forward(self, n: int):
                return self.embed(torch.arange(n))
        """,
        """
        import torch
        from torch import nn
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(16, 4)
            def forward(self, n: int):
                return self.embed(torch.arange(n, device=self.embed.weight.device))
        """,
        unsafe=True,
    )


def test_no_fix_for_a_submodule_without_a_weight_to_name():
    unchanged(
        """
        import torch
        from torch import nn
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(4, 4)
            def forward(self, n: int):
                return self.rnn(torch.zeros(n, 1, 4))
        """
    )


def test_no_fix_for_generator_factories():
    unchanged(
        """
        import torch
        def noisy(x: torch.Tensor, g):
            return x + torch.randn(x.shape, generator=g)
        """
    )


def test_no_fix_for_legacy_constructors():
    unchanged(
        """
        import torch
        def shift(x: torch.Tensor, ids):
            return x + torch.LongTensor(ids)
        """
    )


def test_no_fix_when_the_value_also_meets_a_cpu_value():
    unchanged(
        """
        import torch
        def mix(x: torch.Tensor, groups):
            counts = x.detach().cpu()
            j = torch.tensor([1, 2, 3])
            return x + j, counts + j
        """
    )


def test_no_fix_for_a_random_draw_also_used_on_the_host():
    unchanged(
        """
        import torch
        def jitter(x: torch.Tensor):
            shift = torch.randint(0, 4, (2,))
            return x[:, shift[0]:] + shift, shift.tolist()
        """
    )


def test_no_fix_when_the_source_is_rebound_to_something_else():
    unchanged(
        """
        import torch
        def pad(x: torch.Tensor):
            pad = torch.zeros(x.shape)
            y = torch.cat([x, pad])
            x = helper(y)
            return y, x
        """
    )


def test_a_parameter_that_may_be_none_is_not_the_device_source():
    unchanged(
        """
        import torch
        def pair(ids: torch.Tensor | None, x: torch.Tensor):
            mask = torch.ones(x.shape[:-1], dtype=torch.long)
            return torch.cat([mask, ids.view(-1)]), x
        """
    )


def test_another_input_it_meets_when_the_first_may_be_none():
    check(
        """
        import torch
        def pair(ids: torch.Tensor | None, x: torch.Tensor):
            mask = torch.ones(x.shape[:-1])
            return torch.stack([ids.float(), mask, x.sum(-1)])
        """,
        """
        import torch
        def pair(ids: torch.Tensor | None, x: torch.Tensor):
            mask = torch.ones(x.shape[:-1], device=x.device)
            return torch.stack([ids.float(), mask, x.sum(-1)])
        """,
        unsafe=True,
    )


def test_no_fix_that_leaves_a_host_tensor_it_meets_behind():
    # issue 15: `j` moved to the device would then meet the CPU `groups` row
    unchanged(
        """
        import torch
        def gather(x: torch.Tensor, j_list, k: int):
            groups = torch.LongTensor([[0, 1], [1, 2]])
            j = torch.tensor(j_list) + groups[k]
            return torch.cat([x, j])
        """
    )


def test_an_element_of_the_callers_list_is_no_fix_source():
    # `p` is bound by the loop, not a parameter: the report names it, the fix does not use it
    unchanged(
        """
        import torch
        def total(preds):
            losses = []
            for p in preds:
                losses.append(p.sum() if p.numel() else torch.tensor(0.0))
            return torch.stack(losses)
        """
    )
