"""DEV001: after a bare `x.to(dev)` the tensor is still where it was; `nn.Module.to()` does move.

On a CPU-only machine the target is `meta`, a real device other than the CPU.
"""

from __future__ import annotations

from typing import Any

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, calling, default_steps, evidence, record,
)
from devlint.frontends.runtime.records import BUG, CLEAN, UNEXPECTED


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    if device == "cpu":
        return ["no accelerator: tensors are sent to the `meta` device, which stands in for a GPU"]
    return []


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    target = torch.device(ctx.target)

    def placed(name: str, *tensors: Any) -> Any:
        def judge(_: Any) -> dict[str, Any]:
            where = sorted({str(t.device) for t in tensors})
            if all(t.device.type == target.type for t in tensors):
                return record(name, CLEAN, f"on {', '.join(where)}")
            return record(name, BUG, f"still on {', '.join(where)} after moving to {target}")
        return judge

    calls = []
    model = module.Classifier()
    calls.append(calling("Classifier.move_offsets", lambda: model.move_offsets(ctx.target),
                         lambda out: placed("Classifier.move_offsets", out)(out)))
    calls.append(calling("move_batch", lambda: module.move_batch((torch.zeros(2, 4), torch.zeros(2)), ctx.target),
                         lambda out: placed("move_batch", *out)(out)))
    calls.append(calling("move_inputs", lambda: module.move_inputs({"pixels": torch.zeros(2, 4)}, ctx.target),
                         lambda out: placed("move_inputs", out["pixels"])(out)))
    calls.append(_pin(torch, module))
    contrast = calling("prepare_model", lambda: module.prepare_model(ctx.target), lambda m: _moved_in_place(m, target))
    facts = [f"contrast: {contrast['call']}: {contrast['detail']}"]
    return evidence(calls, contrast=contrast, target=str(target), facts=facts)


def _pin(torch: Any, module: Any) -> dict[str, Any]:
    if not torch.cuda.is_available():  # pinned host memory needs an accelerator to pin for
        return record("pin", NOT_APPLICABLE, "pin_memory needs CUDA")

    def judge(out: Any) -> dict[str, Any]:
        if out.is_pinned():
            return record("pin", CLEAN, "pinned")
        return record("pin", BUG, "still not pinned after x.pin_memory()")
    return calling("pin", lambda: module.pin(torch.zeros(4)), judge)


def _moved_in_place(model: Any, target: Any) -> dict[str, Any]:
    where = sorted({str(p.device) for p in model.parameters()})
    if all(p.device.type == target.type for p in model.parameters()):
        return record("prepare_model", CLEAN, f"bare model.to() moved the parameters to {', '.join(where)}")
    return record("prepare_model", UNEXPECTED, f"parameters on {', '.join(where)} after model.to({target})")
