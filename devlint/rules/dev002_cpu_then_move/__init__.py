"""DEV002 — tensor created on the CPU, then moved."""

from __future__ import annotations

from devlint.analysis.vocabulary import FACTORIES, LEGACY_CONSTRUCTORS
from devlint.analysis.prefilter import method_call, words
from devlint.rules._factory_moves import moved_allocations, moved_factories
from devlint.rules.rule import FixSafety, Rule, any_candidate

RULE = Rule(
    code="DEV002",
    name="cpu-tensor-then-move",
    summary="A tensor is created on the CPU and then copied to a device, instead of created there",
    why="""
        `torch.zeros(n).to(device)` allocates and fills the tensor in host memory, then copies it to the
        device: an extra allocation and a host-to-device transfer (about 0.16 ms for 4 MB over PCIe 4.0)
        that `torch.zeros(n, device=device)` never does. In a training loop this adds up and
        synchronises with the GPU. By default the rule reports the copies the code shows to repeat: in a
        loop or a comprehension, in a module's `forward` or `__call__`, a training or eval step (`step`,
        `*_step`), a function the project calls from one of those (the project index), or a function that moves
        the copy to where a tensor it is given is (`.to(x.device)`, `.to(x)`: it runs once per input); the
        message says where the cost is paid. A copy made once (at start-up), a copy on an error path (in a
        block that ends with `raise`: an `except` handler's placeholder, paid when something fails) and a copy
        in test code (a test module, a `conftest.py`, a `tests/` folder: made for one test's run) are preview
        shapes. Legacy constructors (`torch.LongTensor(ids)`) are CPU tensors too. So is
        what is computed from one factory with numbers only and then moved (`torch.arange(n).view(-1, 1)
        .to(d)`, the timestep embedding `torch.exp(-math.log(p) * torch.arange(half) / half).to(d)`): every
        other operand must be shown to be a number (a literal, `math.*`, `int(...)`, a name bound only to
        those, or a size the factory itself takes), else the fix could split host tensors.
        Host data that must cross anyway (`torch.tensor(values).to(device)` of a list, a number or a
        NumPy array: the same one copy as `torch.tensor(values, device=device)`) is DEV011 (in preview).
        Not reported: `torch.tensor(t)` of a value shown to be a tensor (it copies `t` where it is), a
        0-element placeholder (`torch.zeros(0)`, `torch.arange(0, 0)`), `zeros_like(x)` and the other `*_like`
        factories (they follow `x`'s device),
        random factories given `generator=` (a CPU generator draws on the CPU, and `device=` of
        another device would raise), `torch.from_numpy(a)` (the data is on the host anyway), moves
        to `"cpu"` or to a dtype only, code under `with torch.device(...)` or after
        `torch.set_default_device(...)`.
    """,
    example="""
        mask = torch.ones(batch_size, seq_len).to(device)
        noise = torch.randn(shape).cuda()
        pad = torch.zeros(n).to(hidden)  # hidden: a tensor
    """,
    instead="""
        mask = torch.ones(batch_size, seq_len, device=device)
        noise = torch.randn(shape, device="cuda")
        pad = hidden.new_zeros(n)
    """,
    preview_shapes="""
        a copy the code does not show to repeat (at module level, in a function nobody is shown to call in a
        loop or per step), and any copy in test code: measured blind, such copies (start-up, a test's tiny
        input, once per epoch) were defensible, never bugs a maintainer would fix.
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        Moves the target into the factory's `device=` and drops the move; `.cuda()` becomes
        `device="cuda"`. Safe when the target is plainly a device (a name or attribute called `device`,
        `x.device`, a string, `torch.device(...)`) and the factory is not random. Unsafe when the target
        is a name that only looks like a device (`dev`), or the factory draws random numbers (`rand`,
        `randn`, `randint`, `randperm`, ...): the device's own generator gives other values than the
        CPU's, so seeded results change. The move's line goes when it is a statement of its own
        (`x = x.to(device)` after `x = torch.zeros(n)`): a comment at its end moves to the factory's
        line, comment lines above it go above the factory. A fix never drops an argument of the
        move: its `dtype` goes into `zeros`, `ones`, `empty` and `eye` (the same values in every
        dtype); `non_blocking=`, `copy=`, `memory_format=`, a dtype elsewhere, and `.cuda(i)` get no
        fix. A typed legacy constructor becomes `torch.tensor(data, dtype=..., device=...)` only for
        a list or tuple display, `torch.empty(sizes, dtype=..., device=...)` only for an integer
        literal or several arguments; otherwise (an int makes a size, a list makes data) no fix.
        Where the target is shown to be a tensor, `.to(other)` also converts to `other`'s dtype: the
        message says so, and `torch.zeros(n).to(other)` (also `ones`, `empty`) becomes
        `other.new_zeros(n)`, which takes both (safe; a `dtype=` of the factory goes, as the move
        replaced it). No fix when the target may be a tensor or a device, nor across a `.type(T)`
        whose `T` may name a device. What is computed from a factory gets the factory's `device=` and
        loses the move: as safe as above where the tensor is only reshaped or cast, unsafe where it is
        computed with (the device's kernels may round otherwise in the last bit), none when the move
        also casts.
    """,
    tokens=("torch", method_call("to", "cuda"), words(*FACTORIES, *LEGACY_CONSTRUCTORS)),
    screen=any_candidate(moved_allocations),
    candidates=moved_factories,
)
