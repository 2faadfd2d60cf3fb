"""DEV006: `.numpy()` / `np.asarray` of a tensor on a device raises; with `.cpu()` first it returns an array.

On a CPU-only machine bad.py's tensors go to `meta`, which stands in for a GPU: NumPy cannot read it
either, and torch raises the same TypeError as for CUDA. fixed.py then runs on the CPU, for real (a meta
tensor has no data for `.cpu()` to copy back, so it cannot show the fix working).
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import ProbeContext, Step, default_steps, evidence, expecting_error, record
from devlint.frontends.runtime.records import CLEAN, UNEXPECTED

# torch's message: "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor..."
CONVERSION = (r"can't convert [\w:]+ device type tensor to numpy",)


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    if device == "cpu":
        return ["no accelerator: bad.py's tensors are on the `meta` device, which stands in for a GPU (NumPy cannot"
                " read it either); fixed.py runs on the CPU, since a meta tensor has no data to copy back"]
    return []


def _where(ctx: ProbeContext) -> str:
    """The device the snippet's tensors are placed on."""
    if ctx.device == "cpu" and ctx.variant != "bad":
        return "cpu"
    return ctx.target


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    import numpy

    device = _where(ctx)
    images = torch.zeros(2, 4)

    def call(name: str, fn: Any) -> dict[str, Any]:
        def judge(out: Any) -> dict[str, Any]:
            if isinstance(out, numpy.ndarray):
                return record(name, CLEAN, f"returns a NumPy array of shape {tuple(out.shape)} (tensors on {device})")
            return record(name, UNEXPECTED, f"returns {type(out).__name__}, not a NumPy array")
        return expecting_error(name, fn, CONVERSION, judge)

    calls = [
        call("predict", lambda: module.predict(images, device=device)),
        call("embed", lambda: module.embed(images, device=device)),
        call("as_array", lambda: module.as_array(numpy.ones(3, dtype=numpy.float32), device=device)),
        call("random_mask", lambda: module.random_mask(5, device=device)),
    ]
    return evidence(calls, target=device)
