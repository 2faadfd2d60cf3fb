"""DEV010: a host read of a `non_blocking=True` copy to the CPU, before any synchronize.

On a CPU-only machine the call shapes run (bad.py and fixed.py return the same values): a copy
from the CPU to the CPU is no copy at all, so nothing can be stale, and nothing is judged.

With CUDA the copy is real: each function's input is made on the GPU right behind a kernel that
keeps the stream busy for tens of milliseconds, so its non-blocking device-to-host copy (into
pinned memory) is still queued when the host reads. Right after each call returns the probe asks
the stream whether the copy has landed: if not, the read came before the data, which is the bug
(the values read show what was in the buffer instead); fixed.py's reads must come after the copy
and give the right values. How long each call took is shown: a call that held the host for the
length of the busy kernel waited for the GPU (the copy did not run ahead of the read). Each call
has values of its own, so a reused pinned buffer cannot hold the right ones by chance. A direct
`x.to("cpu", non_blocking=True)` is shown beside: pinned, still pending, and its values before and
after a synchronize.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from devlint.frontends.runtime.probes.common import ProbeContext, Step, calling, evidence, record, steps_judged_on
from devlint.frontends.runtime.records import BUG, CLEAN, UNEXPECTED

BUSY_CYCLES = 100_000_000  # torch.cuda._sleep: about 50 ms of GPU clock cycles ahead of each copy

# The functions of the fixture and what they compute from their input, on the host.
READS: dict[str, Callable[[Any], Any]] = {
    "predicted_labels": lambda v: v.softmax(-1).argmax(-1).tolist(),
    "total": lambda v: float(v.sum()),
    "first_row": lambda v: v[0].tolist(),
    "mean_of": lambda v: float(v.mean()),
}


def steps(device: str) -> list[Step]:
    return steps_judged_on(device, "cuda", "", "call shape only")


def notes(device: str) -> list[str]:
    if device == "cuda":
        return ["each input is made behind a GPU kernel that keeps the stream busy (torch.cuda._sleep), so the"
                " copy is still queued at the read; whether it had landed is asked of the stream as each call returns"]
    return ["the stale read needs CUDA: on the CPU the copies are no copies, and only the call shapes run"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    on_gpu = ctx.device == "cuda"
    calls = []
    for offset, (name, compute) in enumerate(READS.items()):
        values = torch.arange(6.0).reshape(2, 3) * (offset + 1) + 10 * offset
        want = compute(values)
        function = getattr(module, name)
        if not on_gpu:
            calls.append(calling(name, lambda f=function, v=values: f(v),
                                 lambda got, n=name: record(n, CLEAN, f"runs on the CPU: {got!r} (no copy happened)")))
            continue
        calls.append(calling(name, lambda f=function, v=values: _read_and_ask(torch, f, v),
                             lambda outcome, n=name, w=want: _judge(n, outcome, w)))
    if not on_gpu:
        return evidence(calls)
    extra: dict[str, Any] = {}
    if ctx.variant == "bad":
        contrast = calling("x.to('cpu', non_blocking=True)", lambda: _bare_copy(torch), lambda c: c)
        extra = {"contrast": contrast, "facts": [f"contrast: {contrast['call']}: {contrast['detail']}"]}
    return evidence(calls, **extra)


def busy_source(torch: Any, values: Any) -> Any:
    """`values` on the GPU, made by a kernel queued behind a long one: copies of it wait on the stream."""
    on_gpu = values.to("cuda")  # a blocking copy: done before the long kernel is queued
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(BUSY_CYCLES)
    else:  # a chain of large products takes as long
        work = torch.ones(4096, 4096, device=on_gpu.device)
        for _ in range(8):
            work = work @ work / 4096
    return on_gpu + 0


def _read_and_ask(torch: Any, function: Callable[[Any], Any], values: Any) -> tuple[Any, bool, float]:
    """What the function read, whether its copy had landed when it returned, and how long the call took."""
    source = busy_source(torch, values)
    began = time.perf_counter()
    got = function(source)
    took_ms = (time.perf_counter() - began) * 1000.0
    landed = bool(torch.cuda.current_stream().query())  # asked as the call returns: its copy is the last work queued
    torch.cuda.synchronize()
    return got, landed, took_ms


def _judge(name: str, outcome: tuple[Any, bool, float], want: Any) -> dict[str, Any]:
    got, landed, took_ms = outcome
    right = _close(got, want)
    seen = {"read": got, "expected": want, "landed": landed, "call_ms": round(took_ms, 3)}
    took = f"the call took {took_ms:.1f} ms"
    if not landed:
        shown = "the buffer held the right values by chance" if right else f"the copy brings {_shown(want)}"
        return record(name, BUG, f"read {_shown(got)} before its copy landed ({shown}); {took}", **seen)
    if right:
        return record(name, CLEAN, f"read {_shown(got)} after its copy landed; {took}", **seen)
    return record(name, UNEXPECTED, f"read {_shown(got)} after its copy landed, expected {_shown(want)}; {took}",
                  **seen)


def _shown(value: Any) -> str:
    """Floats to four decimals (a stale buffer holds long ones)."""
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return f"{value:.4g}" if isinstance(value, float) else repr(value)


def _bare_copy(torch: Any) -> dict[str, Any]:
    source = busy_source(torch, torch.arange(6.0) + 100)
    host = source.to("cpu", non_blocking=True)
    pinned, landed = bool(host.is_pinned()), bool(torch.cuda.current_stream().query())
    before = host.tolist()
    torch.cuda.synchronize()
    after = host.tolist()
    state = "landed" if landed else "still queued"
    detail = (f"returns a {'pinned' if pinned else 'pageable'} tensor, its copy {state};"
              f" read before synchronize {_shown(before)}, after {_shown(after)}")
    stale = not landed and before != after
    return record("x.to('cpu', non_blocking=True)", BUG if stale else CLEAN, detail, pinned=pinned, landed=landed,
                  before=before, after=after)


def _close(got: Any, want: Any) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want))
    try:
        return abs(float(got) - float(want)) < 1e-3
    except (TypeError, ValueError):
        return False
