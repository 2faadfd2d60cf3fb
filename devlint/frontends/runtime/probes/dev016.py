"""DEV016: a loader that pins items already on CUDA raises at its first batch; host items pin and move.

Judged on a CUDA machine: the first batch of each loader is taken (`num_workers=0`, so the pinning runs in this
process); bad.py's raise ("cannot pin ... only dense CPU tensors can be pinned"), fixed.py's arrive pinned and are
moved to the GPU. Without CUDA neither dataset can make its items: shown, not judged.
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, evidence, expecting_error, record, steps_judged_on,
)
from devlint.frontends.runtime.records import CLEAN

CANNOT_PIN = (r"cannot pin", r"only dense CPU tensors can be pinned")


def steps(device: str) -> list[Step]:
    return steps_judged_on(device, "cuda", "", "needs CUDA")


def notes(device: str) -> list[str]:
    if device == "cuda":
        return ["each loader's first batch is taken with num_workers=0: the pinning runs in the probe's process"]
    return ["items on CUDA need CUDA: without it neither dataset can make them"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    names = ("frames_loader", "pairs_loader", "shuffled_loader")
    if not torch.cuda.is_available():
        return evidence([record(name, NOT_APPLICABLE, "no CUDA here") for name in names])

    def first_batch(name: str) -> Any:
        batch = next(iter(getattr(module, name)()))
        return batch[0] if isinstance(batch, (list, tuple)) else batch

    def judge(name: str) -> Any:
        def done(batch: Any) -> dict[str, Any]:
            moved = batch.to("cuda", non_blocking=True)
            return record(name, CLEAN, f"pinned {batch.is_pinned()}, moved to {moved.device}")
        return done

    return evidence([expecting_error(name, lambda n=name: first_batch(n), CANNOT_PIN, judge(name)) for name in names])
