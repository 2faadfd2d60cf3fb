"""DEV011 — host data made into a CPU tensor, then moved."""

from __future__ import annotations

from devlint.analysis.prefilter import method_call, words
from devlint.analysis.vocabulary import LEGACY_CONSTRUCTORS
from devlint.rules._factory_moves import moved_factories, moved_host_data
from devlint.rules.rule import FixSafety, Rule, any_candidate

RULE = Rule(
    code="DEV011",
    name="host-data-then-move",
    summary="Host data is made into a CPU tensor and then moved, instead of given `device=`",
    why="""
        `torch.tensor(values).to(device)` makes a CPU tensor of a list, a number or a NumPy array, then
        copies it to the device. The data is on the host either way, so this is the same one copy as
        `torch.tensor(values, device=device)`: no time is lost, but the tensor is made in two steps, and
        code that says where a tensor goes when it makes it is easier to read and to move to another
        device. This is DEV002's pattern where the copy cannot be avoided; DEV002 reports the factories
        that allocate on the host for nothing (`torch.zeros(n).to(device)`). In preview: a matter of
        style more than a bug, and not yet measured on unseen code. Not reported: `torch.tensor(t)` of
        a value shown to be a tensor (it copies `t` where it is), `torch.tensor([])`, code under
        `with torch.device(...)` or after `torch.set_default_device(...)`.
    """,
    example="""
        labels = torch.tensor(label_ids).to(device)
        lengths = torch.LongTensor([len(w) for w in words]).cuda()
    """,
    instead="""
        labels = torch.tensor(label_ids, device=device)
        lengths = torch.tensor([len(w) for w in words], dtype=torch.long, device="cuda")
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        DEV002's fix: the move's target goes into the factory's `device=` and the move goes; `.cuda()`
        becomes `device="cuda"`; a typed legacy constructor of a list becomes `torch.tensor(data,
        dtype=..., device=...)`. Safe when the target is plainly a device (a name or attribute called
        `device`, `x.device`, a string, `torch.device(...)`), unsafe when it only looks like one
        (`dev`). No fix where the move passes more than a device (`non_blocking=`, `copy=`, a dtype the
        values may round in) or the target may be a tensor.
    """,
    tokens=("torch", method_call("to", "cuda"), words("tensor", "as_tensor", *LEGACY_CONSTRUCTORS)),
    screen=any_candidate(moved_host_data),
    candidates=moved_factories,
    preview=True,
)
