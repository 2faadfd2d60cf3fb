"""DEV001 — result of a tensor move discarded."""

from __future__ import annotations

from devlint.analysis.prefilter import method_call
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule

MOVES = ("to", "cuda", "cpu", "pin_memory")


def _screen(facts: SyntaxFacts) -> bool:
    """A move that is a statement of its own: `R.to(...)`, whatever `R` is; or `Parameter(...).to(...)`."""
    return not facts.methods_discarded.isdisjoint(MOVES) or facts.parameter_moved


RULE = Rule(
    code="DEV001",
    name="discarded-tensor-move",
    summary="The result of `tensor.to(...)` / `.cuda()` / `.cpu()` / `.pin_memory()` is thrown away",
    why="""
        Tensor moves are not in place: `x.to(device)` returns a new tensor and leaves `x` where it was.
        The statement does nothing but copy data, and the code after it still runs on the old device,
        failing later with "Expected all tensors to be on the same device" or silently running on the CPU.
        `nn.Module.to()` *is* in place, which is why the mistake is easy to make. The loop variable of
        `for p in model.parameters()` (`buffers()`, `named_parameters()`, `named_buffers()`,
        `state_dict().values()` / `.items()`) is such a tensor: moving it changes nothing, and no
        assignment to `p` can either; only `model.to(device)` moves the module's tensors. The same
        mistake with the opposite outcome is reported too: `self.w = nn.Parameter(t).cuda()` keeps the
        moved copy, which is a plain tensor, no longer a Parameter, so it is not registered with the
        module, not in its `parameters()` or state dict, and never trained. It is reported under this
        code, with its own message, because its cause is the same (a move returns a new tensor). A move
        inside `with pytest.raises(...)` / `self.assertRaises(...)` is made for its error: not reported;
        nor is a `.to(...)` that asks only for the dtype and device a tensor was made with, where the file
        shows it (bound once in the function, by a factory given that `dtype=`/`device=`): it returns the
        tensor itself, so nothing is lost (`attn_bias.to(query.dtype)` in PyTorch's reference attention).
    """,
    example="""
        for images, labels in loader:
            images.to(device)
            labels.to(device)
    """,
    instead="""
        for images, labels in loader:
            images = images.to(device)
            labels = labels.to(device)
    """,
    fix_safety=FixSafety.SAFE,
    fix="""
        Assigns the result back: `x = x.to(device)`, for a name, an attribute or a subscript; for the
        value of `for k, v in batch.items()`, stores it in the dict (`batch[k] = v.to(device)`) when `v` is
        not used again in the loop (otherwise, and for `.values()`, no fix). No fix for a local name that
        is not read again: the assignment would be dead, and what was meant is for the author to say. The
        call is kept as written: its arguments and its line breaks. Safe: the
        statement had no effect, and the value now has the device the code asked for. No fix is offered
        for other receivers, nor for attributes that are or may be an `nn.Parameter` (bound to one, named
        `weight` or `bias`, or an attribute of a module): assigning a plain tensor to a parameter raises
        `TypeError`. No fix for the loop variable over a module's tensors: no rebinding reaches the
        module, and whether to move the whole module is the author's call. No fix for a moved
        Parameter: `nn.Parameter(t.cuda())` is right only where CUDA is certain, and `.to(device)` of a
        tensor already there returns the Parameter itself; what device was meant is for the author to
        say. A `.to(...)` whose arguments are all the `device=` / `dtype=` the wrapped tensor was
        made with moves nothing and is not reported.
    """,
    tokens=("torch", method_call(*MOVES)),
    screen=_screen,
)
