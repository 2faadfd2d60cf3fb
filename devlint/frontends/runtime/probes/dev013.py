"""DEV013: a GPU index written into the code fails on a machine with fewer GPUs (invalid device ordinal).

Judged on a machine with exactly one GPU: the bad code asks for GPU 1 and fails; the fixed code takes the index from
`LOCAL_RANK` (unset: GPU 0) and runs. With two GPUs or more GPU 1 is there, and without CUDA neither variant can
place anything on a GPU: there the calls are shown, not judged.
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, evidence, expecting_error, record, steps_judged_on,
)
from devlint.frontends.runtime.records import CLEAN

INVALID_ORDINAL = (r"invalid device ordinal", r"CUDA error: invalid device", r"Invalid device id",
                   r"device >= 0 && device < num_gpus")


def steps(device: str) -> list[Step]:
    return steps_judged_on(device, "cuda", "one GPU", "needs a GPU")


def notes(device: str) -> list[str]:
    if device == "cuda":
        return ["judged where the machine has exactly one GPU: GPU 1 is not there"]
    return ["an invalid device ordinal needs a machine with a GPU: without one, no index is valid"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    cases = [
        ("place", lambda: module.place(torch.zeros(2))),
        ("pick", lambda: torch.zeros(2, device=module.pick())),
        ("to_gpu", lambda: module.to_gpu(torch.zeros(2))),
        ("use_gpu", module.use_gpu),
    ]
    if count != 1:
        why = "no GPU here" if count == 0 else f"{count} GPUs here: GPU 1 exists"
        return evidence([record(name, NOT_APPLICABLE, why) for name, _ in cases], gpus=count)

    def ran(name: str) -> Any:
        def judge(out: Any) -> dict[str, Any]:
            where = out.device if hasattr(out, "device") else f"GPU {out}"
            return record(name, CLEAN, f"runs (on {where})")
        return judge

    calls = [expecting_error(name, fn, INVALID_ORDINAL, ran(name)) for name, fn in cases]
    return evidence(calls, gpus=count)
