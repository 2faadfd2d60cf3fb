"""DEV007: after a bare `x.half()` / `.contiguous()` / `.detach()` the tensor is as it was; a module's
`.half()` does convert its parameters.

Conversions do not depend on the device: the evidence is the same on every machine, so the tensors
are made on the device under test (the CPU on a CPU-only machine).
"""

from __future__ import annotations

from typing import Any, Callable

from devlint.frontends.runtime.probes.common import ProbeContext, Step, calling, default_steps, evidence, record
from devlint.frontends.runtime.records import BUG, CLEAN, UNEXPECTED


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    return []


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    device = ctx.device

    def zeros(*shape: int, **kwargs: Any) -> Any:
        return torch.zeros(*shape, device=device, **kwargs)

    def converted(name: str, show: Callable[[Any], str], wanted: str) -> Callable[[Any], dict[str, Any]]:
        """Judge the returned tensor by one property: `wanted` after the conversion, else unchanged."""
        def judge(out: Any) -> dict[str, Any]:
            seen = show(out)
            if seen == wanted:
                return record(name, CLEAN, f"{seen} after the conversion")
            return record(name, BUG, f"still {seen} after converting to {wanted}")
        return judge

    def dtype(t: Any) -> str:
        return str(t.dtype)

    def contiguity(t: Any) -> str:
        return "contiguous" if t.is_contiguous() else "not contiguous"

    def grad(t: Any) -> str:
        return "requiring grad" if t.requires_grad else "not requiring grad"

    calls = [
        calling("to_half", lambda: module.to_half(zeros(2)), converted("to_half", dtype, "torch.float16")),
        calling("labels_as_long", lambda: module.labels_as_long((zeros(2, 4), zeros(2)))[1],
                converted("labels_as_long", dtype, "torch.int64")),
        calling("transposed", lambda: module.transposed(zeros(2, 3)),
                converted("transposed", contiguity, "contiguous")),
        calling("frozen", lambda: module.frozen(zeros(2, requires_grad=True)),
                converted("frozen", grad, "not requiring grad")),
        calling("batch_as_float", lambda: module.batch_as_float({"x": zeros(2, dtype=torch.float64)})["x"],
                converted("batch_as_float", dtype, "torch.float32")),
        calling("as_dtype", lambda: module.as_dtype(zeros(2), torch.float16),
                converted("as_dtype", dtype, "torch.float16")),
        calling("Scaler.offsets_as_float", lambda: module.Scaler().offsets_as_float(),
                converted("Scaler.offsets_as_float", dtype, "torch.float32")),
    ]
    contrast = calling("half_model", module.half_model, _converted_in_place)
    facts = [f"contrast: {contrast['call']}: {contrast['detail']}"]
    return evidence(calls, contrast=contrast, facts=facts)


def _converted_in_place(model: Any) -> dict[str, Any]:
    dtypes = sorted({str(p.dtype) for p in model.parameters()})
    if dtypes == ["torch.float16"]:
        return record("half_model", CLEAN, "bare model.half() converted the parameters to torch.float16")
    return record("half_model", UNEXPECTED, f"parameters are {', '.join(dtypes)} after model.half()")
