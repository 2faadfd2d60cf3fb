"""DEV009: without `torch.cuda.set_device`, unindexed CUDA resolves to the same GPU in every rank.

What one machine shows: each simulated rank (`LOCAL_RANK` = 0..3, in turn) asks the fixture for its
device. bad.py answers `cuda` without an index in every rank, which is the current device, GPU 0,
as nothing pins it; fixed.py answers `cuda:<local rank>`. On a machine without CUDA the devices are
only built, never used (`torch.device` needs no GPU), with `torch.cuda.is_available` answering True
inside the probe so the fixture takes its CUDA branch. What needs several GPUs is not shown: the
memory of every rank landing on GPU 0, and NCCL failing or hanging between ranks that share a GPU.
"""

from __future__ import annotations

import os
from typing import Any

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, calling, default_steps, evidence, record,
)
from devlint.frontends.runtime.records import BUG, CLEAN

RANKS = range(4)


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    lines = ["ranks are simulated in one process (LOCAL_RANK set in turn); several GPUs, where the"
             " bug's memory pile-up and NCCL hangs show, are not used"]
    if device != "cuda":
        lines.append("no CUDA: torch.cuda.is_available answers True inside the probe; devices are built, not used")
    return lines


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    real_availability = torch.cuda.is_available
    saved_rank = os.environ.get("LOCAL_RANK")
    if not real_availability():
        torch.cuda.is_available = lambda: True
    try:
        calls = [_per_rank(torch, "rank_device", module.rank_device), _per_rank(torch, "batch_device",
                                                                                module.batch_device)]
    finally:
        torch.cuda.is_available = real_availability
        if saved_rank is None:
            os.environ.pop("LOCAL_RANK", None)
        else:
            os.environ["LOCAL_RANK"] = saved_rank
    calls.append(record("build_model", NOT_APPLICABLE, "`.cuda()` and DDP need one GPU per rank and a process group"))
    return evidence(calls)


def _per_rank(torch: Any, name: str, choose: Any) -> dict[str, Any]:
    resolved: dict[int, str] = {}
    for rank in RANKS:
        os.environ["LOCAL_RANK"] = str(rank)
        outcome = calling(name, choose, lambda device: record(name, CLEAN, str(device)))
        if outcome["result"] != CLEAN:
            return outcome
        resolved[rank] = outcome["detail"]
    devices = {rank: torch.device(text) for rank, text in resolved.items()}
    shown = ", ".join(f"rank {rank}: {text}" for rank, text in resolved.items())
    if all(device.type == "cuda" and device.index == rank for rank, device in devices.items()):
        return record(name, CLEAN, f"each rank its own GPU ({shown})", devices=resolved)
    if len({(device.type, device.index) for device in devices.values()}) == 1:
        return record(name, BUG, f"every rank resolves to the same device ({shown}); unindexed means the current"
                                 f" device, GPU 0, as nothing calls set_device", devices=resolved)
    return record(name, "unexpected", f"devices per rank: {shown}", devices=resolved)
