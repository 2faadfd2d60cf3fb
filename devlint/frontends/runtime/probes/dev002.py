"""DEV002: a factory without `device=` allocates on the CPU, then copies to the device.

Everywhere: an aten op trace (a factory op on `cpu`, then a cross-device `_to_copy`, against one
op on the target) and the host bytes the profiler saw allocated. With CUDA (or mps): the cost,
timed with device events (warm-ups, medians), and the host-to-device copy alone.
"""

from __future__ import annotations

import statistics
from typing import Any, Callable

from devlint.frontends.runtime.probes.common import ProbeContext, Step, calling, default_steps, evidence, record
from devlint.frontends.runtime.records import BUG, CLEAN

# Published figures for a host-to-device copy over PCIe 4.0 x16, shown beside what was measured.
REFERENCE_MS = {"4 MB": 0.16, "37 MB": 1.5}
SHAPES = {"4 MB": (1000, 1000), "37 MB": (64, 3, 224, 224)}  # float32: 4,000,000 and 38,535,168 bytes
WARMUP, REPEAT = 5, 30


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    if device == "cpu":
        return ["mechanism only: no cost was measured (no CUDA device); `meta` stands in for the target"]
    return []


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    target = torch.device(ctx.target)
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("make_mask(1000, 1000)", lambda: module.make_mask(1000, 1000, ctx.target)),
        ("make_positions(1000)", lambda: module.make_positions(1000, ctx.target)),
        ("make_image_batch()", lambda: module.make_image_batch(ctx.target)),
        ("make_noise((1000, 1000))", lambda: module.make_noise((1000, 1000), ctx.target)),
    ]
    calls = [_traced(torch, name, fn, target) for name, fn in cases]
    extra: dict[str, Any] = {"target": str(target), "host_bytes": {
        name: host_bytes(torch, fn) for name, fn in cases if name in ("make_mask(1000, 1000)", "make_image_batch()")
    }}
    extra["facts"] = [f"host bytes allocated by {name}: {value:,} (torch.profiler, profile_memory)"
                      for name, value in extra["host_bytes"].items()]
    if ctx.device in ("cuda", "mps"):
        extra["timings_ms"] = timings(torch, ctx, dict(cases), ctx.variant == "bad")
        extra["reference_ms"] = REFERENCE_MS
        extra["facts"] += timing_facts(extra["timings_ms"])
    return evidence(calls, _summary(calls, extra), **extra)


def timing_facts(measured: dict[str, Any]) -> list[str]:
    """One line per timing, copies beside the published PCIe 4.0 reference for their size."""
    lines = []
    for name, stats in measured.items():
        line = f"{name}: {stats['median_ms']:.3f} ms median, {stats['min_ms']:.3f} ms min over {stats['runs']} runs"
        size = next((s for s in REFERENCE_MS if name.startswith(f"copy {s}")), None)
        if size:
            line += f" (reference ~{REFERENCE_MS[size]} ms over PCIe 4.0)"
        lines.append(line)
    return lines


def _summary(calls: list[dict[str, Any]], extra: dict[str, Any]) -> str:
    copies = sum(1 for c in calls if c["result"] == BUG)
    host = extra["host_bytes"]
    line = (f"{copies}/{len(calls)} calls: a cpu factory op, then _to_copy to {extra['target']}" if copies
            else f"{len(calls)}/{len(calls)} calls: one op on {extra['target']}, no copy")
    line += "; host bytes " + " and ".join(f"{v:,}" for v in host.values())
    timing = extra.get("timings_ms", {}).get("make_mask(1000, 1000)")
    if timing:
        line += f"; make_mask {timing['median_ms']:.3f} ms median"
    return line


def _traced(torch: Any, name: str, fn: Callable[[], Any], target: Any) -> dict[str, Any]:
    ops: list[dict[str, Any]] = []

    def judge(out: Any) -> dict[str, Any]:
        trace = [_describe(op) for op in ops]
        crossing = [op for op in ops if "cpu" in op["in"] and any(d.startswith(target.type) for d in op["out"])]
        if crossing:
            made = [op for op in ops if not op["in"] and op["out"] == ["cpu"]]
            first = _describe(made[0]) if made else _describe(ops[0])
            return record(name, BUG, f"{first} then {_describe(crossing[0])}", trace=trace)
        if out.device.type == target.type:
            return record(name, CLEAN, f"{len(ops)} op{'s' if len(ops) != 1 else ''} on {target}, no copy", trace=trace)
        return record(name, BUG, f"result left on {out.device}", trace=trace)

    def traced_call() -> Any:
        with _op_trace(torch, ops):
            return fn()
    return calling(name, traced_call, judge)


def _describe(op: dict[str, Any]) -> str:
    return f"{op['op']}({', '.join(op['in'])}) -> {', '.join(op['out'])}"


def _op_trace(torch: Any, ops: list[dict[str, Any]]) -> Any:
    """A dispatch mode recording every aten op with the devices of its tensor inputs and outputs."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    def devices(value: Any) -> list[str]:
        return [str(t.device) for t in tree_leaves(value) if isinstance(t, torch.Tensor)]

    class Trace(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            out = func(*args, **(kwargs or {}))
            ops.append({"op": str(func), "in": devices((args, kwargs or {})), "out": devices(out)})
            return out
    return Trace()


def host_bytes(torch: Any, fn: Callable[[], Any]) -> int:
    """Bytes allocated in host memory while `fn` ran, as `torch.profiler` (profile_memory) records them."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    return sum(max(0, event.self_cpu_memory_usage) for event in prof.key_averages())


def event_timer(backend: Any) -> Callable[[Callable[[], Any]], float]:
    """Milliseconds one call takes on the device, measured with the backend's events (CUDA or mps)."""
    def time_once(fn: Callable[[], Any]) -> float:
        start, end = backend.Event(enable_timing=True), backend.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        backend.synchronize()
        return float(start.elapsed_time(end))
    return time_once


def measure(time_once: Callable[[Callable[[], Any]], float], fn: Callable[[], Any],
            warmup: int = WARMUP, repeat: int = REPEAT) -> dict[str, float]:
    for _ in range(warmup):
        time_once(fn)
    samples = [time_once(fn) for _ in range(repeat)]
    return {"median_ms": round(statistics.median(samples), 4), "min_ms": round(min(samples), 4), "runs": repeat}


def timings(torch: Any, ctx: ProbeContext, cases: dict[str, Callable[[], Any]], with_copies: bool) -> dict[str, Any]:
    """The variant's own calls timed on the device; for bad.py also the bare host-to-device copies."""
    backend = getattr(torch, ctx.device)
    time_once = event_timer(backend)
    timed = ("make_mask(1000, 1000)", "make_image_batch()")
    out: dict[str, Any] = {name: measure(time_once, cases[name]) for name in timed}
    if with_copies:
        for size, shape in SHAPES.items():
            host = torch.ones(shape)
            out[f"copy {size} pageable"] = measure(time_once, lambda h=host: h.to(ctx.device))
            if ctx.device == "cuda":
                pinned = host.pin_memory()
                out[f"copy {size} pinned"] = measure(time_once, lambda p=pinned: p.to(ctx.device, non_blocking=True))
    return out
