"""DEV004 — `torch.load` without `map_location`."""

from __future__ import annotations

import ast
from typing import Iterator

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate

LOADS = ("load", "serialization.load", "jit.load")


def _candidates(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every call of `torch.load` (any alias) with arguments."""
    wanted = {f"torch.{name}" for name in LOADS}
    return (call for call in facts.calls if (call.args or call.keywords)
            and any(name in wanted for name in facts.torch_names(call)))


RULE = Rule(
    code="DEV004",
    name="load-without-map-location",
    summary="`torch.load` without `map_location` fails on machines without the device the file was saved from",
    why="""
        A checkpoint remembers the device of every tensor in it. Saved from a GPU, it fails to load on a
        CPU-only machine ("Attempting to deserialize object on a CUDA device but
        torch.cuda.is_available() is False"), and on a multi-GPU machine every process loads it onto
        `cuda:0`, filling that GPU's memory. The rule is in preview; selected by its code (`--select
        DEV004`) it reports its default shapes, a load shown to read device state, and the message says what
        shows it (`--preview` reports every load): the value goes into a module's or optimizer's
        `load_state_dict` (directly, through a key, `ckpt["model"]`, or through the dict a state is rebuilt
        into), it is used as a module (`net.eval()`), it is a scripted module (`torch.jit.load`), or the
        path is a checkpoint the user or a download supplies (`torch.load(args.resume)`,
        `torch.load(hf_hub_download(...))`, named as a checkpoint), unless the project saves every module's
        state it saves from host data (`model.cpu()` first, `{k: v.cpu()}`, a full state dict offloaded to the
        CPU) or the file is bound to CUDA (CUDA-only by design, or CUDA written in with no sign of running
        without it: there a checkpoint loads where it was saved). A load that nothing shows the purpose of,
        and a load in a test (it reads what its own run wrote), are preview shapes. Never reported (in
        either tier): a path in a temporary folder (`tmp_path`, `tempfile`, `/tmp/`), and the cases
        below. `weights_only` is a separate question, about what a checkpoint
        may contain rather than where it loads: torch 2.6 and later default it to True, and devlint neither
        reports it nor changes it (a fix adds `map_location=` only); `map_location` is needed either way.
        Not reported where the file cannot hold a tensor of another machine's device: a save and reload
        in the same function, test class or script (`torch.save(x, path)` then `torch.load(path)`, an
        `io.BytesIO` buffer, `torch.jit.save` then `torch.jit.load`; in one function, any `save...` call given
        the path or the directory the load reads: `trainer.save(path="out/")` then `torch.load("out/m.pt")`), or in one class unless it saves a module's state (`model.state_dict()`)
        outside its `__init__` (a library's `save()` and `restore()` run in separate processes, maybe on
        other machines); a load in the CUDA branch of `if torch.cuda.is_available():` whose `else`
        loads with `map_location` (the CPU twin); a file that the project itself writes, by a file name
        or constant in its path (`"vocab.pt"`, `WEIGHTS_NAME`) found in another file, only from host
        data (NumPy, lists and numbers, `.cpu()` values, a state dict moved to the CPU, tensors made
        without `device=`).
    """,
    example="""
        state = torch.load("checkpoint.pt")
        model.load_state_dict(torch.load(path))
    """,
    instead="""
        state = torch.load("checkpoint.pt", map_location=device)
        model.load_state_dict(torch.load(path, map_location="cpu"))
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        Adds `map_location=` as a new keyword placed the way the call is laid out. Safe when the result
        goes straight into `load_state_dict(...)`: the fix then adds `map_location="cpu"`, which always
        loads, and `load_state_dict` copies the values into the module's own tensors wherever they are
        (loading to the CPU first also avoids a second copy of the weights in GPU memory). Elsewhere it
        adds the file's device variable where one is bound at that line and shown to hold a device string
        or a `torch.device` (never a parameter or attribute that may be an int GPU index, which
        `map_location` rejects, nor a name deleted before the line; no fix where a device-named variable
        is not shown to be one), else `"cpu"`, and is unsafe: code that used the loaded
        tensors (or a loaded module) directly may now get them on another device than the one they were
        saved from. No fix when the call passes `*args`, nor `"cpu"` where the loaded value is returned
        as it is, directly or through a name used for nothing else (the caller may use the tensors on the
        device they were saved from), nor where the loaded value is then called (a module run on
        tensors) or compared with tensors (`==`, `torch.equal`, `assert_close`): moved to the CPU, it
        would meet them on another device.
    """,
    tokens=("torch", words("load")),
    screen=any_candidate(_candidates),
    candidates=_candidates,
    preview=True,
    preview_shapes="""
        a load whose value nothing in the file shows to be device state (a dict of tensors, statistics,
        NumPy arrays, an embedding table), and a load in a test file; measured blind, such loads were
        false more often than true (a scheduler's or evaluator's state, files the run itself wrote).
    """,
)
