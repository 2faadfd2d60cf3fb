"""DEV017: float64 to `mps` raises on Apple silicon ("Cannot convert a MPS Tensor to float64 dtype").

Judged on a machine with an MPS device: bad.py's moves raise, fixed.py's convert to float32 on the way. Elsewhere
there is no `mps` to send anything to, and nothing is judged.
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, evidence, expecting_error, record, steps_judged_on,
)
from devlint.frontends.runtime.records import CLEAN

NO_FLOAT64 = (r"Cannot convert a MPS Tensor to float64", r"MPS framework doesn't support float64")


def steps(device: str) -> list[Step]:
    return steps_judged_on(device, "mps", "", "needs an MPS device")


def notes(device: str) -> list[str]:
    return [] if device == "mps" else ["float64's refusal is Apple's Metal backend's: without an MPS device, shown only"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    cases = [("load_weights", module.load_weights), ("noise", module.noise),
             ("precise", lambda: module.precise(torch.ones(3)))]
    if ctx.device != "mps":
        return evidence([record(name, NOT_APPLICABLE, "no MPS device here") for name, _ in cases])

    def ran(name: str) -> Any:
        return lambda out: record(name, CLEAN, f"{out.dtype} on {out.device}")

    return evidence([expecting_error(name, fn, NO_FLOAT64, ran(name)) for name, fn in cases])
