"""DEV012: `torch.cuda` calls fail, or are skipped, on a machine whose accelerator is not CUDA.

The bug shows where the machine has an accelerator other than CUDA (Apple silicon, an Intel GPU). Where it has
none (a CPU-only machine, or a CUDA machine whose GPU the child cannot see: `CUDA_VISIBLE_DEVICES=""`), a stand-in
accelerator takes its place: `torch.accelerator`'s `is_available`, `synchronize` and `current_stream` are replaced,
for the length of each call, by functions that say yes, count the synchronisations asked of the accelerator and
give a stream, while `torch.cuda` is left as it is (no CUDA there). The bad code raises (`Torch not compiled with
CUDA enabled`, `No CUDA GPUs are available`) or never synchronises the accelerator; the fixed code synchronises it
once per call and gets its stream. With the GPU visible, both run on CUDA and are shown, not judged.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from devlint.frontends.runtime.probes.common import (
    NOT_APPLICABLE, ProbeContext, Step, calling, evidence, expecting_error, record, steps_hiding_cuda,
)
from devlint.frontends.runtime.records import BUG, CLEAN

NO_CUDA = (
    r"Torch not compiled with CUDA enabled", r"No CUDA GPUs are available", r"Found no NVIDIA driver",
    r"no CUDA-capable device", r"CUDA driver initialization failed", r"CUDA unknown error",
    r"requires CUDA support",
)
STAND_IN = "stand-in accelerator"


def steps(device: str) -> list[Step]:
    if device == "cuda":
        return steps_hiding_cuda(f"CUDA hidden, {STAND_IN}", fixed_with_gpu=None)
    return [Step("bad", BUG, STAND_IN), Step("fixed", CLEAN, STAND_IN)]


def notes(device: str) -> list[str]:
    return [f"where the machine has no accelerator but CUDA, a {STAND_IN} (torch.accelerator's is_available,"
            " synchronize and current_stream replaced for each call) shows what an Apple or Intel GPU would see"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    if torch.cuda.is_available():  # the GPU is visible: both variants run on CUDA, shown, not judged
        calls = [calling(name, fn, lambda out, n=name: record(n, CLEAN, f"runs on CUDA ({type(out).__name__})"))
                 for name, fn in _calls(module, "cuda")]
        return evidence(calls, cuda_visible=True)
    if not hasattr(torch, "accelerator"):  # torch < 2.6: the fixed code's API is not there to call
        return evidence([record(name, NOT_APPLICABLE, f"torch {torch.__version__} has no torch.accelerator")
                         for name, _ in _calls(module, "mps")], cuda_visible=False)
    synchronised: list[object] = []
    calls = []
    for name, fn in _calls(module, "mps"):
        synchronised.clear()

        def call(fn: Callable[[], Any] = fn) -> Any:
            with _stand_in_accelerator(torch, synchronised):
                return fn()

        def judge(out: Any, name: str = name) -> dict[str, Any]:
            if name == "side_stream":
                return record(name, CLEAN, f"gets the accelerator's stream (on {out.device})")
            if synchronised:
                return record(name, CLEAN, f"synchronises the accelerator ({len(synchronised)} call)")
            return record(name, BUG, "never synchronises the accelerator: its queued work is timed as done")

        calls.append(expecting_error(name, call, NO_CUDA, judge))
    return evidence(calls, cuda_visible=False)


def _calls(module: Any, target: str) -> list[tuple[str, Callable[[], Any]]]:
    return [
        ("timed", lambda: module.timed(lambda: 1)),
        ("time_sync", module.time_sync),
        ("wait_for", lambda: module.wait_for(target)),
        ("side_stream", module.side_stream),
    ]


@contextlib.contextmanager
def _stand_in_accelerator(torch: Any, synchronised: list[object]) -> Iterator[None]:
    """`torch.accelerator` answers for an accelerator that is there (a CPU stream stands for its stream)."""
    accelerator = torch.accelerator
    saved = {name: getattr(accelerator, name) for name in ("is_available", "synchronize", "current_stream")}
    accelerator.is_available = lambda: True
    accelerator.synchronize = lambda device=None, /: synchronised.append(device)
    accelerator.current_stream = lambda device=None, /: torch.Stream()
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(accelerator, name, function)
