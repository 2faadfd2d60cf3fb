"""DEV003 — hard-coded CUDA device."""

from __future__ import annotations

import ast
from typing import Iterator

from devlint.analysis.prefilter import ACCELERATOR_STRING
from devlint.analysis.screen import SyntaxFacts, walk
from devlint.analysis.cuda_evidence import evidence_of
from devlint.analysis.vocabulary import device_backend, is_cuda_runtime_value
from devlint.rules.rule import FixSafety, Rule


def _screen(facts: SyntaxFacts) -> bool:
    """A `"cuda"` / `"mps"` / `"xpu"` literal or a run-time `"cuda:..."` string where a device goes, or a
    `.cuda(...)` call; without preview, in a file shown to be meant to run without CUDA."""
    if not (facts.accelerator_string or "cuda" in facts.methods_called):
        return False
    # (a `.cuda()` of a value computed from an input needs no evidence: the visitor decides)
    return facts.preview or "cuda" in facts.methods_called or evidence_of(facts).reports_by_default


def _candidates(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every accelerator string (written out, or the template of one built at run time) and every `.cuda(...)` call;
    where the file keeps device options in a dict, every call that may pass it on (`**opts`, `run_opts=opts`). By
    default, in a file not shown to be meant to run without CUDA, only the `.cuda(...)` calls (what is computed
    from an input and sent to the default GPU needs no evidence)."""
    everything = facts.preview or evidence_of(facts).reports_by_default
    options = False
    for node in walk(facts.tree):
        kind = type(node)
        if kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and func.attr == "cuda":
                yield node
        elif not everything:
            continue
        elif kind is ast.Constant and type(node.value) is str and (  # type: ignore[attr-defined]
                device_backend(node.value) or is_cuda_runtime_value(node.value)):  # type: ignore[attr-defined]
            yield node
        elif kind is ast.Dict and any(type(key) is ast.Constant and key.value in ("device", "map_location")  # type: ignore[attr-defined]
                                      for key in node.keys):  # type: ignore[attr-defined]
            options = True
    if options:
        yield from (call for call in facts.calls if any(k.arg is None or type(k.value) in (ast.Name, ast.Attribute)
                                                        for k in call.keywords))


RULE = Rule(
    code="DEV003",
    name="hardcoded-cuda",
    summary='`"cuda"` (or `"mps"`, `"xpu"`) is hard-coded, or `.cuda()` called, in code shown to run without CUDA',
    why="""
        Code that names CUDA unconditionally fails on CPU-only machines, in CI, and on Apple silicon
        (`AssertionError: Torch not compiled with CUDA enabled`, or `RuntimeError: No CUDA GPUs are
        available`). Choose the device once, from what the machine has, and pass it around. Reported where
        the code is shown to be meant to run without CUDA and nothing shows it is CUDA-only by design; the
        message names the evidence and its line. Evidence of portability: the file asks whether a backend is
        there to choose a device (`torch.cuda.is_available()`, not `is_available() and flash` to enable a
        feature, nor a check only printed), falls back to the CPU (`"cuda" if ... else "cpu"`, a device set to
        or defaulting to `"cpu"`), offers a CPU option (`--cpu`, `--no_cuda`, a `--device` option with a CPU
        default or choice), has an `mps`/`xpu` branch or uses `torch.accelerator`; or the function itself
        follows its inputs' devices (`device=x.device`). Evidence of CUDA-only by design: Triton, CuPy,
        TensorRT, apex, flash-attn, bitsandbytes or `torch.utils.cpp_extension` imported, a CUDA extension
        built, an NCCL process group, CUDA required (`assert torch.cuda.is_available()`, `if not ...:` then
        `raise`, `sys.exit(...)` or `pytest.skip(...)`, or the check's `else:` doing so), a `torch.cuda` function called or a legacy `torch.cuda.FloatTensor` type used outside any
        test, or a module of the project the file imports that needs CUDA as written (it places data on CUDA
        outside any CUDA check or `try:`, and names no other device and no check of what the machine has: the
        file's pipeline fails without CUDA whatever one literal says). `.cuda()` of a value computed from the
        function's tensor input needs no evidence: it goes to the default GPU, not back to the input's device.
    """,
    details="""
        Silent by default where the evidence is split or absent, inside an `if` (other than `if __name__ ==
        "__main__":`) whose test may be what makes CUDA present (`if model_parallel:`, an imported
        `SUPPORTS_FLASH`) or after an early exit, for a device string built at run time (`f"cuda:{i}"`,
        `"cuda:" + str(k)` over a device map: one GPU of several, multi-GPU by design), and for a module-level
        `device = "cuda"` in a script that rebinds its own names (`exec(open("configurator.py").read())`,
        `globals().update(...)`): a setting's default, as a parameter's default is; and in a function that calls
        a collective (`dist.all_reduce`, `dist.all_gather`, `dist.broadcast_object_list`, `dist.send`: NCCL takes CUDA
        tensors only); and in test code (a
        `test_*.py` or `*_test.py` file, a `conftest.py`, anything under `tests/`): a test that needs CUDA is
        skipped without it in ways its file need not show (a conftest hook, a fixture or helper that calls
        `pytest.skip`, a marker, the CI job), and blind readers labelled such reports false or harmless 70 times
        in 80. Never reported:
        `.cuda()` of a loss module made with no tensor (`nn.CrossEntropyLoss().cuda()`: it has nothing to
        move), a `"cuda"` that names a device type (`torch.autocast("cuda")`, a comparison), and code a
        guard protects. A guard is a test whose outcome says CUDA is there, and only in that branch:
        `torch.cuda.is_available()`, `torch.cuda.device_count() > 0`, a name assigned from one, a CUDA flag
        (`args.cuda`), an equality with a CUDA device (`x.device.type == "cuda"`), `isinstance(device,
        int)` (an int device is a CUDA index), a loop over the GPUs; `if x.device != torch.device("cuda"): x =
        x.to("cuda")` guards nothing. Functions that cannot run without CUDA anyway (they call
        `torch.cuda.synchronize()`, `torch.cuda.Stream()` or `torch.cuda.get_device_properties()`, use
        TensorRT, hand a `data_ptr()` to a CUDA library, start an NCCL process group or build a CUDA
        extension) are not reported, nor is a module that does so at its top level or in its `if __name__
        == "__main__":` block (a GPU timing script). Device options in a dict (`run_opts={"device":
        "cuda"}`, `**opts`) passed to a call count as written devices. Apple's `"mps"` and Intel's `"xpu"`
        (`"xpu:N"`) are the same bug on the other backends (`NotImplementedError: Could not run ... from the
        'MPS' backend`, `AssertionError: Torch not compiled with XPU enabled`), guarded the same way by their
        own checks: `torch.backends.mps.is_available()`, `torch.xpu.is_available()`, `device.type ==
        "mps"`, a flag or test named for the backend (`args.use_mps`, `test_matmul_on_mps`);
        `torch.accelerator.is_available()` and GPU flags guard every backend, and a CUDA check guards no
        other.
    """,
    example="""
        model = Net().cuda()
        x = torch.zeros(3, device="cuda")
        offsets = lengths.cpu().cumsum(0).cuda()
    """,
    instead="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        x = torch.zeros(3, device=device)
        offsets = lengths.cpu().cumsum(0).to(lengths.device)
    """,
    fix_safety=FixSafety.UNSAFE,
    fix="""
        Uses the file's own device variable where one is bound at that line and shown to hold a device
        (`device`, `DEVICE`, `dev`, or `self.device`, given a `torch.device(...)`, a device string, a
        tensor's `.device` or a device the function resolved, or a parameter annotated as a device or
        string; where `map_location=` is written, never one that may be an int GPU index), never a name
        deleted before the line, never the variable the statement itself assigns, and the resolved name
        where the function resolved its `device` argument into another. A device-named variable that is
        not shown to hold a device means no fix. Without one, in a function with exactly one parameter shown
        to be a tensor, that tensor's device (`device=x.device`: the value follows its input, never
        for `map_location=`); else the machine's device, written for the target
        torch version (`target-torch`, else the project's torch requirement; README, "Portability"):
        before 2.6 or unknown, `"cuda" if torch.cuda.is_available() else "cpu"` (`"mps" if
        torch.backends.mps.is_available() else "cpu"`; no fix for `"xpu"`, as `torch.xpu` is not in every
        torch); from 2.6 `torch.accelerator.current_accelerator() if torch.accelerator.is_available() else
        torch.device("cpu")`, from 2.7 `torch.accelerator.current_accelerator(check_available=True) or
        torch.device("cpu")` (replacing a whole `torch.device("cuda")`), and where the code keeps the device
        as a string (a device-named variable, a default, an option dict) the accelerator's type as a
        string. An indexed device (`"cuda:1"`) keeps its backend's own check, which keeps the index. A
        fallback longer than the line limit is wrapped as black wraps it (split before `if` and `else`). All with the file's alias for torch
        (adding `import torch` when the file has none). `.cuda()`
        becomes `.to(...)`, keeping `non_blocking=` and `memory_format=`; `.cuda()` of a value computed from
        input `x` becomes `.to(x.device)`. Unsafe: on a machine without the backend the code now runs on
        the CPU (with `torch.accelerator`, on the accelerator the machine has) instead of failing, which
        changes what it does. In a test (a `test_*` function of a `test_*.py` file or a `Test*` class)
        the fix is a skip marker on the test instead, `@pytest.mark.skipif(not torch.cuda.is_available(),
        reason="needs CUDA")` (`@unittest.skipIf(...)` in a `unittest.TestCase`; no fix where the file
        imports neither): a test that needs CUDA is skipped without it, not run on the CPU. No fix for `.cuda(i)`, a two-argument
        `torch.device("cuda", i)` or a device string built at run time (the index would be kept for a CPU
        device).
    """,
    tokens=("torch", ACCELERATOR_STRING),
    screen=_screen,
    candidates=_candidates,
    preview=True,
    preview_shapes="""
        a hard-coded device in a file that shows no evidence either way, or both (see above), inside an `if`
        whose test devlint cannot read as a guard or not, a device string built at run time, a setting the
        script rebinds, a hard-coded device in test code; and a parameter's `device="cuda"` default (`def __init__(self, device=torch.device("cuda"))`), except
        where every call of the function in the project (its class, for `__init__`) passes the device
        itself, by keyword or by position (the project index; a call with `*args`/`**kwargs` is not shown
        to pass it). Measured blind on code nobody tuned to (`fresh`, 2026-11-26), such defaults were 46
        of 50 reports and none was a bug a maintainer would fix: callers pass their own device, often
        through a factory that looks the class up by name, where the project index cannot see the call.
    """,
)
