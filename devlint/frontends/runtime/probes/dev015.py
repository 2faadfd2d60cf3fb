"""DEV015: `set_default_tensor_type(torch.cuda.FloatTensor)` warns that it is deprecated; its replacement does not.

Judged on a CUDA machine, where both variants run: bad.py's default-type call raises torch's deprecation warning,
fixed.py's `torch.set_default_device("cuda")` none; the constructors and their factories are shown beside (the same
dtype and device). Without CUDA neither variant can make a CUDA tensor: shown, not judged. The default device and
type are put back after each call.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, calling, evidence, record, steps_judged_on,
)
from devlint.frontends.runtime.records import BUG, CLEAN


def steps(device: str) -> list[Step]:
    return steps_judged_on(device, "cuda", "", "needs CUDA")


def notes(device: str) -> list[str]:
    if device == "cuda":
        return ["the deprecation is torch's own warning, raised by set_default_tensor_type since 2.1"]
    return ["a CUDA tensor type needs CUDA: without it, bad.py and fixed.py both fail alike"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    if not torch.cuda.is_available():
        return evidence([record(name, NOT_APPLICABLE, "no CUDA here: a CUDA tensor type cannot be made")
                         for name, _ in _calls(module)])
    return evidence([_warned(torch, name, fn) for name, fn in _calls(module)])


def _calls(module: Any) -> list[tuple[str, Callable[[], Any]]]:
    return [("use_cuda_default", module.use_cuda_default), ("make_mask", lambda: module.make_mask(2, 3)),
            ("make_ids", module.make_ids)]


def _warned(torch: Any, name: str, fn: Callable[[], Any]) -> dict[str, Any]:
    caught: list[warnings.WarningMessage] = []

    def call() -> Any:
        try:
            with warnings.catch_warnings(record=True) as found:
                warnings.simplefilter("always")
                value = fn()
            caught.extend(found)
            return value
        finally:
            torch.set_default_device(None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.set_default_tensor_type(torch.FloatTensor)

    def judge(out: Any) -> dict[str, Any]:
        deprecated = [str(w.message) for w in caught if "deprecated" in str(w.message)]
        if deprecated:
            return record(name, BUG, f"warns: {deprecated[0].splitlines()[0]}")
        return record(name, CLEAN, f"no deprecation warning; {out.dtype} on {out.device}")

    return calling(name, call, judge)
