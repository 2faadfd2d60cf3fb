"""DEV010: a host read of a `non_blocking=True` copy to the CPU, before any synchronize.

On a CPU-only machine the call shapes run (bad.py and fixed.py return the same values): a copy
from the CPU to the CPU is no copy at all, so nothing can be stale, and nothing is judged. The
stale read needs CUDA: there the input is made by a long chain of kernels right before the copy,
so the copy is still queued when the host reads its pinned buffer; bad.py reading values other
than the right ones is the bug, fixed.py reading the right ones is the fix. A stale read is a race:
bad.py reading the right values on a GPU does not refute the rule, and no GPU run has been made
for this rule yet (the rule is confirmed on paper only).
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import ProbeContext, Step, calling, evidence, record
from devlint.frontends.runtime.records import BUG, CLEAN


def steps(device: str) -> list[Step]:
    if device == "cuda":
        return [Step("bad", None, "a race: shown, not judged"), Step("fixed", CLEAN)]
    return [Step("bad", None, "call shape only"), Step("fixed", None, "call shape only")]


def notes(device: str) -> list[str]:
    if device == "cuda":
        return ["the stale read is a race: bad.py is shown, and only fixed.py is judged"]
    return ["the stale read needs CUDA: on the CPU the copies are no copies, and only the call shapes run"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    on_gpu = ctx.device == "cuda"
    values = torch.arange(6.0).reshape(2, 3)
    expected = {
        "predicted_labels": values.softmax(-1).argmax(-1).tolist(),
        "total": float(values.sum()),
        "first_row": values[0].tolist(),
        "mean_of": float(values.mean()),
    }

    def source() -> Any:
        if not on_gpu:
            return values
        slow = values.to("cuda")
        for _ in range(200):  # keep the stream busy, so the copy is still queued at the read
            slow = (slow * 1.0001).sin().asin() / 1.0001
        return slow

    calls = []
    for name, want in expected.items():
        function = getattr(module, name)

        def judge(got: Any, name: str = name, want: Any = want) -> dict[str, Any]:
            close = _close(got, want)
            if not on_gpu:
                return record(name, CLEAN, f"runs on the CPU: {got!r} (no copy happened)")
            return record(name, CLEAN if close else BUG, f"read {got!r}, expected {want!r}")
        calls.append(calling(name, lambda function=function: function(source()), judge))
    return evidence(calls)


def _close(got: Any, want: Any) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want))
    try:
        return abs(float(got) - float(want)) < 1e-3
    except (TypeError, ValueError):
        return False
