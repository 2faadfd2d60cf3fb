"""DEV003: hard-coded CUDA (or MPS) fails where there is none; the guarded device runs everywhere.

On a CPU-only machine the failure is real. On a CUDA machine the bad code runs, and fails in a
child that cannot see the GPU (`CUDA_VISIBLE_DEVICES=""`).
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, evidence, expecting_error, record, steps_hiding_cuda,
)
from devlint.frontends.runtime.records import BUG, CLEAN

NO_CUDA = (
    r"Torch not compiled with CUDA enabled", r"No CUDA GPUs are available", r"Found no NVIDIA driver",
    r"no CUDA-capable device", r"CUDA driver initialization failed", r"CUDA unknown error",
)
# "mps" where there is no Apple GPU: torch built without MPS has no kernels for it; with MPS built in
# but no GPU there, it says so.
NO_MPS = (r"with arguments from the 'MPS' backend", r"MPS backend is not available", r"not compiled with MPS")


def steps(device: str) -> list[Step]:
    if device == "cuda":
        return steps_hiding_cuda()
    return [Step("bad", BUG), Step("fixed", CLEAN)]


def notes(device: str) -> list[str]:
    return []


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    where = "cuda" if torch.cuda.is_available() else "cpu"

    def ran(name: str) -> Any:
        def judge(out: Any) -> dict[str, Any]:
            return record(name, CLEAN, f"runs (output on {out.device})")
        return judge

    calls = [
        expecting_error("build_model", module.build_model, NO_CUDA, ran("build_model")),
        expecting_error("main", module.main, NO_CUDA, ran("main")),
        expecting_error(
            "evaluate", lambda: module.evaluate(torch.nn.Linear(8, 2).to(where), torch.zeros(1, 8)), NO_CUDA,
            ran("evaluate"),
        ),
    ]
    if torch.backends.mps.is_available():
        calls.append(record("on_apple_silicon", NOT_APPLICABLE, "this machine has an MPS device"))
    else:
        calls.append(expecting_error("on_apple_silicon", module.on_apple_silicon, NO_MPS, ran("on_apple_silicon")))
    return evidence(calls, cuda_visible=torch.cuda.is_available())
