"""DEV005 — a tensor created on the CPU meets the caller's tensor."""

from __future__ import annotations

from devlint.analysis.prefilter import words
from devlint.rules.dev005_host_tensor_meets_input.screen import host_meeting_candidates, host_meetings_possible
from devlint.analysis.torch_operations import TORCH_VERSION
from devlint.analysis.vocabulary import FACTORIES, LEGACY_CONSTRUCTORS
from devlint.rules.rule import FixSafety, Rule

RULE = Rule(
    code="DEV005",
    name="host-tensor-meets-input",
    summary="A tensor created without `device=` lands on the CPU and meets the caller's tensor",
    why=f"""
        A factory without `device=` (`torch.zeros`, `arange`, `tensor`, `rand`, `torch.ones(*t.size())`,
        `torch.Tensor(array)`, ...) always creates its tensor on the CPU; `dtype=` alone does not place it. In a
        function whose inputs are tensors (parameters used as tensors, tensors inside a parameter used as such
        (`batch["mask"].bool()`, `data.x.size(0)`), elements of the caller's sequences that a loop uses as
        tensors (a tensor method, or a functional that takes several tensors: `F.mse_loss(out, t)`), a closure's
        tensor parameters, or a module's parameters, buffers and layers' outputs read
        through `self`, and what a method of the class returns made only of those (`lower, upper =
        self._factors()`), a module known by its base, by its `forward` calling `self.<layer>(...)`, or by
        binding `self.<attr> = nn.Parameter(...)` or registering a buffer; and what another function returns
        when it is given those, or a module's method gives it its own arguments, and this function then uses
        the result as only a torch tensor can be used (`adj = to_dense_adj(edge_index)` in `forward`, then
        `adj.size(0)`; `loss_fn(out, y).detach()`): computed from the caller's tensors, on their device; and
        arithmetic of the parameters and numbers given a tensor method (`(preds - target).abs()`: a tensor the
        inputs make, as `preds.abs()` shows `preds` is one); and what `torch.as_tensor(p)` makes of a parameter
        `p` the function neither gives NumPy nor iterates (`pts = torch.as_tensor(points)`: given a tensor,
        `as_tensor` returns it where it is), unless every call in the file gives it host data; the first
        operation that mixes that CPU tensor with an input's tensor fails on a GPU with "Expected all tensors to
        be on the same device": arithmetic and matmul, `cat`, `stack`, a list later joined with the input's
        tensors, a `return` whose other paths return the input's tensors, a call of a submodule, and every
        torch operation and `torch.nn.functional` function that takes several tensors (`F.cross_entropy(logits,
        torch.tensor(labels))`), read from the operator schemas and signatures of torch {TORCH_VERSION}
        (devlint/analysis/torch_operations.py, written by benchmarks/generate_torch_operations.py). A CPU
        tensor given as an index or mask of such an operation (`index_select`, `gather`, `scatter_`,
        `index_add_`, `take_along_dim`, `masked_fill`, `masked_select`, ...) raises too, 0-dim or not; so
        does a host tensor indexed by an input's index (`table[idx]`) and host values with dimensions
        written into an input through a tensor index or mask (`x[mask] = torch.zeros(n)`); and a 0-dim host
        tensor written in place from an input's (`total = torch.tensor(0.0)` ... `total += loss`): a CPU
        tensor mixes with device tensors only as an input, never as the output. A module's plain attribute
        is a host tensor too, wherever the module was moved: `self.pe = torch.zeros(n, d)` in `__init__`
        (not `register_buffer`, not `nn.Parameter`) stays on the CPU through `model.to(device)`, and is
        reported at that factory where a method meets it with an input (`x + self.pe[:, :x.size(1)]`), with
        `register_buffer(..., persistent=False)` as the advice (no fix); not in a method `__init__` calls, nor
        in a class that moves things itself (`_apply`, `to`) or rebinds the attribute. A method of a module
        that makes a host tensor and returns it (`def init_hidden(self, n): return torch.zeros(1, n,
        self.hidden)`, in one branch or all, or in one position of a tuple written out that the caller
        unpacks: `h, c = self.init_hidden(n)`) hands it to its caller: reported at that factory where the
        caller meets it with an input (no fix: the method has no input to take a device from). An
        optimizer's parameters (`for p in group["params"]` in a function that reads `self.param_groups`)
        are inputs, on the model's device, and so is a tensor's `.grad` where the tensor is; a value kept in
        a dict by a plain key (`state["row"] = torch.zeros(n)`) is read back as it was stored. An empty start
        value (`acc = torch.tensor([])`, `torch.empty(0)`) meets the inputs only where it is concatenated with
        them (`acc = torch.cat([acc, x[i]])`): `cat` and `stack` check the device of every tensor they are given,
        empty ones too; anywhere else it must have been replaced first. So does an attribute that a class (a
        module or a plain one) starts with a factory and only ever concatenates onto (`self.losses =
        torch.tensor([])` in `__init__` or a `reset`, `self.losses = torch.cat([self.losses, loss])` in another
        method): nothing moves a plain attribute, so each start reaches the first concatenation on the CPU;
        reported at each start (no fix: its method has no input to take a device from), and not where any other
        binding of the attribute could place it (a move, a tuple target, a start given `device=`) nor for a
        registered buffer or state. The rule
        reports only such a meeting in the same function, and names the operation where it happens.
        Not reported: 0-dim tensors in element-wise arithmetic and comparisons (`torch.tensor(0.5)`),
        truth tests and host values (`if torch.rand(1) < p:`, `.item()`, `int()`, sizes, slice bounds), a
        Python subscript with a CPU index (`x[idx]`, `x[idx] = v`: PyTorch accepts CPU indices there),
        tensors handed to a plain function (it may place them), values moved later (`.to()`, `.cuda()`,
        `.type_as()`, `.type(t)` of a tensor type the code holds, `t = x.type()`, or writes with `cuda`, a call
        given `device=` such as `torch.sparse_coo_tensor(i, v, device=d)`) or sent to
        the host on purpose (`.cpu()`, `.numpy()`, `torch.load(..., map_location="cpu")`), `*_like` and
        `x.new_*` (they follow `x`), factories with `generator=`, the branch of a CUDA availability test
        that runs only without CUDA (the guards DEV003 reads), a branch that never runs (`if
        x.size() == 1:`), classes that build host data for a DataLoader (datasets, collators, feature
        extractors, tokenizers, samplers), the module's own state in `__init__` and the methods it calls
        (`self.reset_parameters()`: the module is still being built, on the CPU), parameters every caller in the file gives a host tensor or that the
        function itself makes a tensor of (`torch.tensor(xs)`: they are data; but not one made a tensor only where
        it is a NumPy array, `if isinstance(x, np.ndarray): x = torch.from_numpy(x)`: a tensor given stays the
        caller's), and code under
        `with torch.device(...)`, in a file that calls `torch.set_default_device`, or below a project's
        `conftest.py` (or in a project whose module) that sets one at its top level.
    """,
    preview_shapes="""
        a host buffer written from an input's tensor (`buf[a:b] = x`) and returned as it is, and a list of
        host tensors given an input's tensor and returned (their share of false reports on the tuning
        corpus, 2 of 10, is above what a default rule may have).
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
    candidates=host_meeting_candidates,
    preview=True,
)
