"""DEV014: a CUDA query at import time: without CUDA the import itself fails; guarded, the module imports.

The probe imports the fixture itself (`IMPORT_IS_JUDGED`): the import is what the rule is about. On a CPU-only
machine the failure is real; on a CUDA machine both import with the GPU (shown), and bad.py fails in a child
that cannot see the GPU (`CUDA_VISIBLE_DEVICES=""`), where fixed.py imports and its code runs on the CPU.
"""

from __future__ import annotations

from typing import Any, Callable

from devlint.frontends.runtime.probes.common import (
    ProbeContext, Step, evidence, expecting_error, record, steps_hiding_cuda,
)
from devlint.frontends.runtime.probes.dev003 import NO_CUDA
from devlint.frontends.runtime.records import BUG, CLEAN

IMPORT_IS_JUDGED = True


def steps(device: str) -> list[Step]:
    if device == "cuda":
        return steps_hiding_cuda(fixed_with_gpu=None)
    return [Step("bad", BUG), Step("fixed", CLEAN)]


def notes(device: str) -> list[str]:
    return ["the fixture is imported by the probe: a query that fails at import fails `import` itself"]


def run(torch: Any, load: Callable[[], Any], ctx: ProbeContext) -> dict[str, Any]:
    def imported(module: Any) -> dict[str, Any]:
        encoder = module.Encoder()
        return record("import", CLEAN, f"imports; Encoder() on {encoder.proj.weight.device}, dtype for AMP"
                                       f" {module.pick_dtype()}")

    return evidence([expecting_error("import", load, NO_CUDA, imported)], cuda_visible=torch.cuda.is_available())
