"""DEV008: the deprecated device-specific AMP calls raise a FutureWarning; their torch.amp forms do not.

Shown on any machine: the warning is raised where the call is made (the decorators when they
decorate), whether or not the device it names is there. Without CUDA, CUDA autocast and the CUDA
GradScaler only disable themselves (a UserWarning, raised by the old and the new call alike).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from devlint.frontends.runtime.probes.common import ProbeContext, Step, calling, default_steps, evidence, record
from devlint.frontends.runtime.records import BUG, CLEAN


def steps(device: str) -> list[Step]:
    return default_steps()


def notes(device: str) -> list[str]:
    if device == "cpu":
        return ["no CUDA: CUDA autocast and GradScaler disable themselves (old and new alike); the deprecation"
                " warning does not depend on the device"]
    return []


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    a, b = torch.ones(2, 4), torch.ones(4, 3)
    x = torch.ones(3, requires_grad=True)
    calls = [
        _warned("make_scaler", lambda: module.make_scaler(False), lambda s: f"enabled={s.is_enabled()}"),
        _warned("half_matmul", lambda: module.half_matmul(a, b), lambda y: f"result {y.dtype}"),
        _warned("bf16_matmul", lambda: module.bf16_matmul(a, b), lambda y: f"result {y.dtype}"),
        _warned("amp_matmul", lambda: module.amp_matmul(a, b), lambda y: f"result {y.dtype}"),
        _warned("custom_fwd/custom_bwd", lambda: _backward(module.make_function(), x),
                lambda g: f"gradient {g.tolist()}"),
        _warned("Head.forward", lambda: module.Head()(torch.ones(1, 4)), lambda y: f"result {y.dtype}"),
    ]
    return evidence(calls)


def _backward(function: Any, x: Any) -> Any:
    x.grad = None
    function.apply(x).sum().backward()
    return x.grad


def _warned(name: str, fn: Callable[[], Any], describe: Callable[[Any], str]) -> dict[str, Any]:
    """Call `fn`, recording every warning: a FutureWarning naming `torch.cuda.amp` / `torch.cpu.amp` is the bug."""
    caught: list[warnings.WarningMessage] = []

    def call() -> Any:
        with warnings.catch_warnings(record=True) as found:
            warnings.simplefilter("always")
            value = fn()
        caught.extend(found)
        return value

    def judge(value: Any) -> dict[str, Any]:
        deprecated = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)
                      and ("torch.cuda.amp" in str(w.message) or "torch.cpu.amp" in str(w.message))]
        if deprecated:
            return record(name, BUG, f"FutureWarning: {deprecated[0].splitlines()[0]}")
        return record(name, CLEAN, f"no deprecation warning; {describe(value)}")

    return calling(name, call, judge)
