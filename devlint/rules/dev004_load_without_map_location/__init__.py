"""DEV004 — `torch.load` without `map_location`."""

from __future__ import annotations

import ast
from itertools import chain
from typing import Iterator

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate

# The loads that take `map_location`, each with the position it may be passed at: `torch.load(f, map_location)`,
# and a download loaded the same way (`torch.hub.load_state_dict_from_url(url, model_dir, map_location)`; torch's
# `model_zoo.load_url` is that function).
MAP_LOCATION_AT = {"load": 1, "serialization.load": 1, "jit.load": 1, "hub.load_state_dict_from_url": 2,
                   "utils.model_zoo.load_url": 2}
LOADS = tuple(MAP_LOCATION_AT)


def _loads(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every call of `torch.load` (any alias) with arguments."""
    wanted = {f"torch.{name}" for name in LOADS}
    return (call for call in facts.calls if (call.args or call.keywords)
            and any(name in wanted for name in facts.torch_names(call)))


def _candidates(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """The loads and, in a file with one, its saves: a load is silent where the file saves to a path written
    the same way (the visitor reads them wherever they are)."""
    loads = list(_loads(facts))
    if not loads:
        return iter(())
    saves = (call for call in facts.calls if any(name in ("torch.save", "torch.jit.save")
                                                  for name in facts.torch_names(call)))
    return chain(loads, saves)


RULE = Rule(
    code="DEV004",
    name="load-without-map-location",
    summary="`torch.load` without `map_location` fails on machines without the device the file was saved from",
    why="""
        A checkpoint remembers the device of every tensor in it. Saved from a GPU, it fails to load on a
        CPU-only machine ("Attempting to deserialize object on a CUDA device but
        torch.cuda.is_available() is False"), and on a multi-GPU machine every process loads it onto
        `cuda:0`, filling that GPU's memory. `torch.hub.load_state_dict_from_url` loads what it downloads
        the same way. Reported where the load is shown to read device state: its value
        goes into a module's or optimizer's `load_state_dict` (directly, through a key, `ckpt["model"]`, or
        through the dict a state is rebuilt into), it is used as a module, it is a scripted module
        (`torch.jit.load`), or the path is a checkpoint the user or a download supplies
        (`torch.load(args.resume)`, `torch.load(hf_hub_download(...))`). Silent where the file is bound to
        CUDA, where the project's nearest savers write host data only, in tests, and where a script resumes
        from the checkpoint it saves itself.
    """,
    details="""
        Bound to CUDA: CUDA-only by design (Triton, a CUDA extension, an NCCL group, asserted CUDA, a
        `torch.cuda` call outside any test, `torch.cuda.FloatTensor` used unconditionally), or CUDA written in
        with no sign of running without it: there a checkpoint loads where it was saved. The nearest savers:
        the `torch.save` calls of a module's state in the load's own folder, else the nearest folder above that
        has one, out to the whole project (a folder of examples saves its own checkpoints); where every one of
        them writes host data (`model.cpu()` first, `{k: v.cpu()}`, a state dict moved to the CPU entry by entry,
        a model loaded with `map_location="cpu"`, a full state dict offloaded to the CPU),
        the checkpoints open on any machine. A resume: the file saves, anywhere in it, to a path written the
        same way as the one it loads (`"saved_models/G_%d.pth" % epoch` ... `"saved_models/G_%d.pth" %
        opt.epoch`), or to the same path (`state_fpath`; not a parameter of the load's function, as a library's
        `load(path)` is): the run that wrote it was on this machine. A load that nothing shows the purpose of, a
        load in a test (it reads what its own run wrote) and a resume are preview shapes. Never reported:
        a path in a temporary folder (`tmp_path`, `tempfile`, `/tmp/`); a save and reload in the same
        function, test class or script (`torch.save(x, path)` then `torch.load(path)`, an `io.BytesIO`
        buffer, `torch.jit.save` then `torch.jit.load`; in one function, any `save...` call given the path
        or the directory the load reads), or in one class unless it saves a module's state outside its
        `__init__` (a library's `save()` and `restore()` run in separate processes, maybe on other
        machines); a load in the CUDA branch of `if torch.cuda.is_available():` whose `else` loads with
        `map_location` (the CPU twin); a file that the project writes, by a file name or constant in its
        path (`"vocab.pt"`, `WEIGHTS_NAME`) found in another file, only from host data (NumPy, lists and
        numbers, `.cpu()` values, a state dict moved to the CPU, tensors made without `device=`); scheduler,
        sampler and gradient-scaler state, which holds no device tensor. `weights_only` is a separate
        question, about what a checkpoint may contain rather than where it loads: torch 2.6 and later
        default it to True, and devlint neither reports it nor changes it; `map_location` is needed either
        way.
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
    tokens=("torch", words("load", "load_state_dict_from_url", "load_url")),
    screen=any_candidate(_loads),
    candidates=_candidates,
    preview=True,
    preview_shapes="""
        a load whose value nothing in the file shows to be device state (a dict of tensors, statistics,
        NumPy arrays, an embedding table), a load in a test file, a load in a file bound to CUDA, and a
        script's resume from what it saves; measured blind, such loads were false or harmless far more often
        than true (a scheduler's or evaluator's state, files the run itself wrote, 36 resumes of one GAN
        repository).
    """,
)
