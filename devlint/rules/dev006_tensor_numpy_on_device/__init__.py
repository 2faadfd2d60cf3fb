"""DEV006 — `.numpy()` / `np.asarray` on a tensor the code put on a device."""

from __future__ import annotations

import ast
import re

from devlint.analysis.prefilter import method_call, words
from devlint.analysis.screen import SyntaxFacts, contains
from devlint.rules.rule import FixSafety, Rule


def _screen(facts: SyntaxFacts) -> bool:
    """A conversion (`.numpy()`, `<numpy>.asarray/array(...)`, an imported `asarray`/`array`) in a function
    that also holds a way onto a device (a `.to(...)`/`.cuda(...)` call or a call given `device=`), or
    outside every function in a file that holds one: a value is followed only in the scope it is in."""
    placing = facts.moves + facts.device_calls
    if not placing:
        return False
    for conversion in facts.numpy_conversions_made():
        if _comes_back_first(conversion):
            continue
        functions = [f for f in facts.functions if contains(f, conversion)]
        if not functions or any(contains(f, call) for f in functions for call in placing):
            return True
    return False


def _comes_back_first(conversion: ast.Call) -> bool:
    """`x.detach().cpu().numpy()`, `np.asarray(y.cpu()[0])`: the converted chain goes through `.cpu()` (or
    `.tolist()`, `.item()`) with no `.to(...)`/`.cuda(...)` after it. Such a value is on the host whatever
    `x` was (a `.to(...)` of any target might move it back, so it ends the walk)."""
    func = conversion.func
    if type(func) is ast.Attribute and func.attr == "numpy":
        value: ast.expr = func.value
    elif conversion.args:
        value = conversion.args[0]
    else:
        return False
    while True:
        if type(value) is ast.Subscript:
            value = value.value  # type: ignore[attr-defined]
        elif type(value) is ast.Call and type(value.func) is ast.Attribute:  # type: ignore[attr-defined]
            method = value.func.attr  # type: ignore[attr-defined]
            if method in ("cpu", "tolist", "item"):
                return True
            if method in ("to", "cuda"):
                return False
            value = value.func.value  # type: ignore[attr-defined]
        else:
            return False


RULE = Rule(
    code="DEV006",
    name="tensor-numpy-on-device",
    summary="`.numpy()` / `np.asarray(...)` of a tensor the code put on a device raises there",
    why="""
        NumPy arrays live in host memory: `x.numpy()`, `np.asarray(x)` and `np.array(x)` of a tensor on a GPU
        raise `TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the
        tensor to host memory first`. On a CPU-only machine the same code runs, so the bug ships and fails on
        the first machine with a GPU. The rule reports only a tensor the code itself placed: moved with
        `.cuda()` or `.to(target)`, made by a torch factory with `device=target`, the output of a model the
        function moved (`model = Net().to(device)`, `model.cuda()`), or what tensor methods, torch functions,
        arithmetic, indexing and unpacking make of one, with no `.cpu()`, `.to("cpu")` or rebinding between.
        The target must be shown to be possibly not the CPU: `"cuda"`, `torch.device("cuda" if
        torch.cuda.is_available() else "cpu")`, or a name (or `self.device`, a parameter's default) bound to
        such. `.to(device)` with a `device` the code does not show (a bare parameter, `args.device`) is not
        reported: it may be the CPU at run time, and the file does not say. `.to(dtype)` is not a move, and
        `.numpy(force=True)` copies to the host itself. Nor is a conversion in a branch of a test that asks
        where things are (`if x.device.type == "cpu":`, `x.is_cuda`, `device != "cpu"`, `use_gpu`), and
        `np.asarray(...)` only of a value shown to be one tensor.
    """,
    example="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        with torch.no_grad():
            logits = model(images.to(device))
        predictions = logits.argmax(1).numpy()
    """,
    instead="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        with torch.no_grad():
            logits = model(images.to(device))
        predictions = logits.argmax(1).cpu().numpy()
    """,
    fix_safety=FixSafety.SAFE,
    fix="""
        Inserts `.cpu()` before the conversion: `x.numpy()` becomes `x.cpu().numpy()`, `np.asarray(x)`
        becomes `np.asarray(x.cpu())` (parenthesised where `x` is an operation). Where the tensor may require
        grad (a model's output outside `torch.no_grad()` / `torch.inference_mode()`, or what is computed from
        one) it inserts `.detach().cpu()`, and a `.detach()` already there is kept once
        (`x.detach().numpy()` becomes `x.detach().cpu().numpy()`). Safe: on the CPU `.cpu()` returns the
        tensor itself and `.detach()` only drops the graph that `.numpy()` refuses anyway, so the array has
        the same values; on a device the call now works. No fix for `np.asarray(...)` of a value that is not
        shown to be one tensor (a model's output object, a list of tensors): `.cpu()` may not exist there.
    """,
    tokens=("torch", words("numpy"), re.compile(r"\bdevice\b|" + method_call("to", "cuda").pattern)),
    screen=_screen,
)
