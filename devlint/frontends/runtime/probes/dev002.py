"""DEV002: a factory without `device=` allocates on the CPU, then copies to the device.

Everywhere: an aten op trace (a factory op on `cpu`, then a cross-device `_to_copy`, against one
op on the target) and the host bytes the profiler saw allocated. With CUDA (or mps): the cost.
Each variant's `make_mask` is timed end to end at three sizes (the parent sets bad against fixed:
the saving), and bad.py's child also times the bare host-to-device copy at the two sizes the
project cites, pageable and pinned, blocking and non-blocking: how long the copy takes on the
device (events) and how long the call holds the host.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any, Callable, Optional

from devlint.frontends.runtime.probes.common import ProbeContext, Step, calling, default_steps, evidence, record
from devlint.frontends.runtime.records import BUG, CLEAN

# Published figures for a host-to-device copy over PCIe 4.0 x16, shown beside what was measured.
REFERENCE_MS = {"4 MB": 0.16, "37 MB": 1.5}
SHAPES = {"4 MB": (1000, 1000), "37 MB": (64, 3, 224, 224)}  # float32: 4,000,000 and 38,535,168 bytes
# make_mask(rows, cols) sizes for the saving, float32: 4,000,000, 38,535,168 and 268,435,456 bytes
SAVING_SIZES = {"4 MB": (1000, 1000), "37 MB": (4096, 2352), "256 MiB": (8192, 8192)}
MODES = {"blocking": False, "non-blocking": True}
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
        backend = getattr(torch, ctx.device)
        extra["make_mask_ms"] = mask_timings(backend, module, ctx.device)
        extra["facts"] += [f"make_mask at {size}: {_stats_text(stats)}"
                           for size, stats in extra["make_mask_ms"].items()]
        if ctx.variant == "bad":
            extra["copy_ms"] = copy_costs(torch, backend, ctx.device)
            extra["reference_ms"] = REFERENCE_MS
            extra["facts"] += copy_facts(extra["copy_ms"])
            extra["tables"] = [copy_table(extra["copy_ms"])]
    return evidence(calls, _summary(calls, extra), **extra)


def _stats_text(stats: dict[str, Any]) -> str:
    return f"{stats['median_ms']:.3f} ms median, {stats['min_ms']:.3f} ms min over {stats['runs']} runs"


def copy_facts(copies: dict[str, Any]) -> list[str]:
    """One line per copy: its time on the device, how long the call held the host, the reference for its size."""
    lines = []
    for name, copy in copies.items():
        device, host = copy["device"]["median_ms"], copy["host"]["median_ms"]
        line = (f"{name}: {device:.3f} ms on the device ({_rate(copy['bytes'], device)}), the call holds the host"
                f" {host:.3f} ms (medians of {copy['device']['runs']})")
        if copy["size"] in REFERENCE_MS:
            line += f"; reference ~{REFERENCE_MS[copy['size']]} ms over PCIe 4.0"
        lines.append(line)
    return lines


def _rate(size: int, ms: float) -> str:
    return f"{size / ms / 1e6:.1f} GB/s" if ms > 0 else "too fast to time"


def copy_table(copies: dict[str, Any]) -> dict[str, Any]:
    rows = [[copy["size"], f"{copy['bytes']:,}", copy["memory"], copy["mode"], f"{copy['device']['median_ms']:.3f}",
             _rate(copy["bytes"], copy["device"]["median_ms"]), f"{copy['host']['median_ms']:.3f}",
             f"~{REFERENCE_MS[copy['size']]}" if copy["size"] in REFERENCE_MS else ""]
            for copy in copies.values()]
    return {"title": "Host-to-device copies of float32 tensors (medians)",
            "columns": ["size", "bytes", "host memory", "copy", "on the device (ms)", "rate",
                        "call holds the host (ms)", "PCIe 4.0 reference (ms)"],
            "rows": rows}


def compare(bad: dict[str, Any], fixed: dict[str, Any]) -> dict[str, Any]:
    """Parent side: bad.py's make_mask against fixed.py's at each size, the time a factory on the device saves."""
    before, after = bad.get("make_mask_ms") or {}, fixed.get("make_mask_ms") or {}
    saving: dict[str, Any] = {}
    for size, stats in before.items():
        if size not in after:
            continue
        host_then_copy, on_device = stats["median_ms"], after[size]["median_ms"]
        saving[size] = {"bytes": stats["bytes"], "host_then_copy_ms": host_then_copy, "on_device_ms": on_device,
                        "saved_ms": round(host_then_copy - on_device, 4)}
    if not saving:
        return {}
    facts = [f"make_mask at {size}: on the host then copied {s['host_then_copy_ms']:.3f} ms, on the device"
             f" {s['on_device_ms']:.3f} ms (medians): {s['saved_ms']:.3f} ms saved per call"
             for size, s in saving.items()]
    table = {"title": "DEV002: make_mask on the host then copied (bad.py) against on the device (fixed.py), medians",
             "columns": ["size", "bytes", "host + copy (ms)", "on the device (ms)", "saved (ms)", "ratio"],
             "rows": [[size, f"{s['bytes']:,}", f"{s['host_then_copy_ms']:.3f}", f"{s['on_device_ms']:.3f}",
                       f"{s['saved_ms']:.3f}",
                       f"{s['host_then_copy_ms'] / s['on_device_ms']:.1f}x" if s["on_device_ms"] > 0 else "-"]
                      for size, s in saving.items()]}
    return {"saving_ms": saving, "facts": facts, "tables": [table]}


def _summary(calls: list[dict[str, Any]], extra: dict[str, Any]) -> str:
    copies = sum(1 for c in calls if c["result"] == BUG)
    host = extra["host_bytes"]
    line = (f"{copies}/{len(calls)} calls: a cpu factory op, then _to_copy to {extra['target']}" if copies
            else f"{len(calls)}/{len(calls)} calls: one op on {extra['target']}, no copy")
    line += "; host bytes " + " and ".join(f"{v:,}" for v in host.values())
    timing = extra.get("make_mask_ms", {}).get("4 MB")
    if timing:
        line += f"; make_mask at 4 MB {timing['median_ms']:.3f} ms median"
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


def synced_timer(backend: Any, clock: Callable[[], float] = time.perf_counter) -> Callable[[Callable[[], Any]], float]:
    """Milliseconds from an idle device to the end of the call's work on it, host work included: what a caller
    that then uses the tensor waits."""
    def time_once(fn: Callable[[], Any]) -> float:
        backend.synchronize()
        began = clock()
        fn()
        backend.synchronize()
        return (clock() - began) * 1000.0
    return time_once


def copy_timer(backend: Any, clock: Callable[[], float] = time.perf_counter
               ) -> Callable[[Callable[[], Any]], dict[str, float]]:
    """For one copy: milliseconds on the device (events around it, on an idle stream) and milliseconds the
    call held the host before returning (a non-blocking copy from pinned memory returns before it is done)."""
    def time_once(fn: Callable[[], Any]) -> dict[str, float]:
        start, end = backend.Event(enable_timing=True), backend.Event(enable_timing=True)
        backend.synchronize()
        start.record()
        began = clock()
        fn()
        returned = clock()
        end.record()
        backend.synchronize()
        return {"device": float(start.elapsed_time(end)), "host": (returned - began) * 1000.0}
    return time_once


def _stats(samples: list[float]) -> dict[str, Any]:
    return {"median_ms": round(statistics.median(samples), 4), "min_ms": round(min(samples), 4), "runs": len(samples)}


def measure(time_once: Callable[[Callable[[], Any]], Any], fn: Callable[[], Any],
            warmup: int = WARMUP, repeat: int = REPEAT) -> dict[str, Any]:
    """Median and minimum after warm-ups; a timer giving several clocks per call gets them each."""
    for _ in range(warmup):
        time_once(fn)
    samples = [time_once(fn) for _ in range(repeat)]
    if isinstance(samples[0], dict):
        return {clock: _stats([s[clock] for s in samples]) for clock in samples[0]}
    return _stats(samples)


def mask_timings(backend: Any, module: Any, device: str) -> dict[str, Any]:
    """The variant's own make_mask at each size, end to end."""
    time_once = synced_timer(backend)
    out = {}
    for size, (rows, cols) in SAVING_SIZES.items():
        measured = measure(time_once, lambda r=rows, c=cols: module.make_mask(r, c, device))
        out[size] = {**measured, "bytes": 4 * rows * cols}
    return out


def copy_costs(torch: Any, backend: Any, device: str, clock: Optional[Callable[[], float]] = None) -> dict[str, Any]:
    """Host-to-device copies of float32 ones at the cited sizes: pageable and (CUDA only) pinned memory,
    each blocking and non-blocking."""
    time_once = copy_timer(backend, clock or time.perf_counter)
    out: dict[str, Any] = {}
    for size, shape in SHAPES.items():
        pageable = torch.ones(shape)
        sources = {"pageable": pageable}
        if device == "cuda":
            sources["pinned"] = pageable.pin_memory()
        for memory, host in sources.items():
            for mode, non_blocking in MODES.items():
                measured = measure(time_once, lambda h=host, nb=non_blocking: h.to(device, non_blocking=nb))
                out[f"copy {size} {memory} {mode}"] = {"size": size, "bytes": 4 * math.prod(shape), "memory": memory,
                                                       "mode": mode, **measured}
    return out
