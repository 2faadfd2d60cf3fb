"""DEV008 — deprecated device-specific AMP (`torch.cuda.amp`, `torch.cpu.amp`)."""

from __future__ import annotations

import ast

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule

_OLD_MODULES = ("torch.cuda.amp", "torch.cpu.amp")


def _screen(facts: SyntaxFacts) -> bool:
    """A name bound to something in `torch.cuda.amp` / `torch.cpu.amp` (an import of one), or one
    written out anywhere (`torch.cuda.amp.autocast(...)`, `@th.cuda.amp.custom_bwd`, `ctx =
    torch.cuda.amp.autocast`). (Only files whose tokens name AMP get here: the walk is rare.)"""
    if any(name.startswith(_OLD_MODULES) for names in facts.aliases.values() for name in names):
        return True
    return any(type(node) is ast.Attribute and any(name.startswith(_OLD_MODULES) for name in facts.names_of(node))
               for node in ast.walk(facts.tree))


RULE = Rule(
    code="DEV008",
    name="deprecated-device-amp",
    summary="`torch.cuda.amp` / `torch.cpu.amp` are deprecated: use `torch.amp` with a device type",
    why="""
        Since torch 2.4 `torch.cuda.amp.autocast(...)`, `torch.cuda.amp.GradScaler(...)`,
        `torch.cpu.amp.autocast(...)` and the `torch.cuda.amp.custom_fwd` / `custom_bwd` decorators raise a
        `FutureWarning` on every call (once per decorated function, per autocast region, per scaler), and
        they tie mixed precision to one backend: code written with them cannot run its AMP on `mps` or
        `xpu`. `torch.amp` takes the device type as an argument, so the device can come from what the
        machine has. Reported: each call, the import line that brings the names in (`from torch.cuda.amp import
        GradScaler, autocast`, inside a `try:` too), and the symbol passed on as a value (`ctx =
        torch.cuda.amp.autocast if amp else nullcontext`, `partial(torch.cuda.amp.autocast, ...)`), which is
        called later. Calls in a branch that tests the torch version (or, with `hasattr`, that the new API
        is there: `hasattr(torch.cuda.amp, "autocast")` asks for the old one, there in every torch), in an `except`
        fallback, or bound to a name that is bound to something else elsewhere (`custom_fwd = torch.amp.custom_fwd`
        in the other branch) are left alone: that is code kept for an older torch on purpose. Naming the
        class in `isinstance(...)` or an annotation calls nothing and is not reported.
    """,
    example="""
        from torch.cuda.amp import GradScaler, autocast

        scaler = GradScaler()
        with autocast(dtype=torch.bfloat16):
            loss = model(x)

        @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
        def forward(ctx, x): ...
    """,
    instead="""
        scaler = torch.amp.GradScaler("cuda")
        with torch.amp.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x)

        @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
        def forward(ctx, x): ...
    """,
    fix_safety=FixSafety.SAFE,
    fix="""
        Writes the `torch.amp` call with the same device type and the same arguments: positional
        arguments become keywords by the old signature's names (`autocast(enabled, dtype,
        cache_enabled)`, `GradScaler(init_scale, growth_factor, backoff_factor, growth_interval,
        enabled)`), so none is shifted into the new leading device argument; keywords and `**options`
        are kept (the names are the same). It uses the file's alias for torch (adding `import torch`
        when there is none), so a name imported from `torch.cuda.amp` is never needed by the new code;
        the import line's fix then removes the names nothing uses any more where the module uses their
        `torch.amp` replacement (the whole line where none is left; never in an `__init__.py`, nor a
        name listed as a string, as `__all__` does). Only where the target torch version (`target-torch`,
        else what the project declares: `pyproject.toml`, `requirements*.txt`, `setup.py`, `setup.cfg`,
        `environment.yml`) has the new API: `torch.amp.autocast` from 1.12 (`torch.autocast` came in
        1.10, `torch.amp` later), `torch.amp.GradScaler` from 2.3, `torch.amp.custom_fwd` / `custom_bwd`
        from 2.4; with an older or unknown target nothing is rewritten and the reports stand (a project
        pinned to an old torch has no `torch.amp`). No fix for a symbol passed on as a value, `*args`,
        or more positional arguments than the old call
        takes. Safe: the new calls behave exactly as the old ones did (same default dtypes: float16 on
        CUDA, bfloat16 on the CPU), without the warning.
    """,
    tokens=("torch", words("amp"), words("autocast", "GradScaler", "custom_fwd", "custom_bwd")),
    screen=_screen,
)
