"""DEV005: a factory without `device=` inside `forward` lands on the CPU next to inputs elsewhere.

On a CPU-only machine model and inputs go to `meta`, whose kernels check devices like CUDA's do.
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import ProbeContext, Step, default_steps, evidence, expecting_error, record
from devlint.frontends.runtime.records import CLEAN

MISMATCH = (
    r"Expected all tensors to be on the same device", r"is not on the expected device",
    r"must be on the same device", r"found at least two devices", r"not at the same device",
    r"Placeholder storage has not been allocated on MPS device",
    r"indices should be either on cpu or on the same device",  # a host tensor indexed by a device's index
)


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    if device == "cpu":
        return ["no accelerator: inputs and models are on the `meta` device, which stands in for a GPU;"
                " meta's index_select does not check its index's device, and mean_iou only returns a CPU"
                " tensor, so pad_or_trim and mean_iou run there"]
    return []


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    target = ctx.target
    x = torch.zeros(2, 10, 16, device=target)

    def ran(name: str) -> Any:
        def judge(out: Any) -> dict[str, Any]:
            return record(name, CLEAN, f"runs (output on {out.device})")
        return judge

    def call(name: str, fn: Any) -> dict[str, Any]:
        return expecting_error(name, fn, MISMATCH, ran(name))

    labels = torch.zeros(8, dtype=torch.long, device=target)
    pred = torch.zeros(4, 3, device=target)
    calls = [
        call("pad_or_trim", lambda: module.pad_or_trim(x[0], 4)),
        call("autocorrelation", lambda: module.autocorrelation(x, 3)),
        call("mean_iou", lambda: module.mean_iou(pred, pred)),
        call("total_loss", lambda: module.total_loss(pred, pred, [None, 0])),
        call("CRF", lambda: module.CRF(16).to(target).viterbi(x)),
        call("LabelDrop", lambda: module.LabelDrop(0.5, 0)(labels)),
        call("Encoder", lambda: module.Encoder().to(target)(x)),
        call("NoisyLinear", lambda: module.NoisyLinear(16, 4).to(target)(x)),
    ]
    return evidence(calls, target=target)
