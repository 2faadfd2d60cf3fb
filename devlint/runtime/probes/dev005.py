"""DEV005: a factory without `device=` inside `forward` lands on the CPU next to inputs elsewhere.

On a CPU-only machine model and inputs go to `meta`, whose kernels check devices like CUDA's do.
"""

from __future__ import annotations

from typing import Any

from devlint.runtime.probes.common import ProbeContext, Step, default_steps, evidence, expecting_error, record
from devlint.runtime.records import CLEAN

MISMATCH = (
    r"Expected all tensors to be on the same device", r"is not on the expected device",
    r"must be on the same device", r"found at least two devices",
    r"Placeholder storage has not been allocated on MPS device",
)


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    if device == "cpu":
        return ["no accelerator: model and inputs are on the `meta` device, which stands in for a GPU;"
                " meta's embedding kernel does not check its index's device, so PositionalEmbedding runs there"]
    return []


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    target = ctx.target
    x = torch.zeros(2, 10, 16, device=target)

    def ran(name: str) -> Any:
        def judge(out: Any) -> dict[str, Any]:
            return record(name, CLEAN, f"forward runs (output on {out.device})")
        return judge

    calls = [
        expecting_error("PositionalEmbedding", lambda: module.PositionalEmbedding(16).to(target)(x), MISMATCH,
                        ran("PositionalEmbedding")),
        expecting_error("MaskedMean", lambda: module.MaskedMean().to(target)(x, torch.tensor([3, 5], device=target)),
                        MISMATCH, ran("MaskedMean")),
        expecting_error("NoisyLinear", lambda: module.NoisyLinear(16, 4).to(target)(x), MISMATCH,
                        ran("NoisyLinear")),
    ]
    return evidence(calls, target=target)
