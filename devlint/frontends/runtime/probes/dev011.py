"""DEV011: host data made into a CPU tensor, then moved.

Not a bug to refute or confirm: the data is on the host either way, so bad.py and fixed.py both
copy it to the target once. Both are shown, not judged: the aten op trace of each call (DEV002's
tracer) and where its result lands; `meta` stands in for the target on a CPU-only machine.
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import ProbeContext, Step, calling, evidence, record
from devlint.frontends.runtime.probes.dev002 import _describe, _op_trace
from devlint.frontends.runtime.records import CLEAN


def steps(device: str) -> list[Step]:
    return [Step("bad", None, "one copy: shown, not judged"), Step("fixed", None, "one copy: shown, not judged")]


def notes(device: str) -> list[str]:
    return ["the data is on the host in both variants: each copies it to the target once (a matter of style)"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    import numpy as np

    cases = [
        ("make_targets([1, 2, 3])", lambda: module.make_targets([1, 2, 3], ctx.target)),
        ("make_lengths(['a', 'bcd'])", lambda: module.make_lengths(["a", "bcd"], ctx.target)),
        ("make_scale(0.5)", lambda: module.make_scale(0.5, ctx.target)),
        ("make_weights(np.ones(3))", lambda: module.make_weights(np.ones(3), ctx.target)),
    ]
    calls = []
    for name, fn in cases:
        ops: list[dict[str, Any]] = []

        def traced(fn: Any = fn, ops: list[dict[str, Any]] = ops) -> Any:
            with _op_trace(torch, ops):
                return fn()

        def judge(out: Any, name: str = name, ops: list[dict[str, Any]] = ops) -> dict[str, Any]:
            trace = [_describe(op) for op in ops]
            return record(name, CLEAN, f"on {out.device}; {len(ops)} ops", trace=trace)
        calls.append(calling(name, traced, judge))
    return evidence(calls)
