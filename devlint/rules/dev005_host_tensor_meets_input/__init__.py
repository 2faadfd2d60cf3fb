"""DEV005 — a tensor created on the CPU meets the caller's tensor."""

from __future__ import annotations

from devlint.analysis.prefilter import words
from devlint.analysis.screen import host_meetings_possible
from devlint.analysis.vocabulary import FACTORIES, LEGACY_CONSTRUCTORS
from devlint.rules.rule import FixSafety, Rule

RULE = Rule(
    code="DEV005",
    name="host-tensor-meets-input",
    summary="A tensor created without `device=` lands on the CPU and meets the caller's tensor",
    why="""
        A factory without `device=` (`torch.zeros`, `arange`, `tensor`, `rand`, `torch.LongTensor(data)`, ...)
        always creates its tensor on the CPU; `dtype=` alone does not place it. In a function whose inputs are
        tensors (parameters used as tensors, elements of the caller's sequences that a loop uses as tensors, or
        a module's parameters and buffers read through `self`), the first operation that mixes that CPU tensor
        with an input's tensor fails on a GPU with "Expected all tensors to be on the same device": arithmetic
        and matmul, `cat`, `stack`, `where`, `index_select`, `gather`, `masked_fill` and the like, a list later
        stacked with the input's tensors, a `return` whose other paths return the input's tensors, or a call of
        a submodule. The rule reports only such a meeting in the same function, and names what the tensor meets.
        Not reported: 0-dim tensors in arithmetic (`torch.tensor(0.5)`, PyTorch lets them mix), truth tests and
        host values (`if torch.rand(1) < p:`, `.item()`, `int()`, sizes, slice bounds), CPU tensors used as an
        index (PyTorch accepts CPU indices), tensors handed to a plain function (it may place them), values
        moved later (`.to()`, `.cuda()`, `.type_as()`) or sent to the host on purpose (`.cpu()`, `.numpy()`),
        `*_like` and `x.new_*` (they follow `x`), factories with `generator=`, and code under `with
        torch.device(...)` or after `torch.set_default_device`.
    """,
    example="""
        def autocorrelation(x, n):
            pad = torch.zeros(x.shape[:-1] + (n,), dtype=x.dtype)
            return torch.cat([x - x.mean(-1, keepdim=True), pad], -1)
    """,
    instead="""
        def autocorrelation(x, n):
            pad = torch.zeros(x.shape[:-1] + (n,), dtype=x.dtype, device=x.device)
            return torch.cat([x - x.mean(-1, keepdim=True), pad], -1)
    """,
    fix_safety=FixSafety.UNSAFE,
    fix="""
        Adds `device=<input>.device`, where `<input>` is what the tensor meets and the file shows to be a
        tensor: a parameter used as one (never one that may be `None`, is iterated, `len()`-ed or
        rebound), a module parameter or buffer (`self.transitions`), or the weight of a layer it is
        handed to (`self.embed.weight`); every other argument is kept. Unsafe: it moves a tensor to
        where the input is, which changes where its values are computed (random draws give other
        numbers on a GPU). No fix where the input is only another module's output, for legacy
        constructors (the typed ones refuse a CUDA `device=`), for a random draw also used as a number
        on the host, where the tensor also meets a value the file keeps on the CPU, or where it meets
        another host tensor that would stay behind.
    """,
    tokens=("torch", words(*FACTORIES, *LEGACY_CONSTRUCTORS)),
    screen=host_meetings_possible,
)
