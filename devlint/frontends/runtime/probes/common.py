"""What the probes share: the child's context, calling a fixture function and classifying what happened."""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

from devlint.frontends.runtime.records import BUG, CLEAN, UNEXPECTED

NOT_APPLICABLE = "n/a"


@dataclass(frozen=True)
class Step:
    """A snippet a probe wants on a device. `expect` is what confirms the rule (None: shown, not judged)."""

    variant: str  # "bad" or "fixed" ("fixed" steps are also run on the autofix output)
    expect: Optional[str]  # BUG or CLEAN
    label: str = ""
    hide_cuda: bool = False


def default_steps() -> list[Step]:
    return [Step("bad", BUG), Step("fixed", CLEAN)]


def steps_judged_on(device: str, judged_on: str, label: str, shown: str) -> list[Step]:
    """On `judged_on` (a device type), bad.py must show the bug and fixed.py must not; elsewhere both are shown, not
    judged (`shown`: why not)."""
    if device == judged_on:
        return [Step("bad", BUG, label), Step("fixed", CLEAN, label)]
    return [Step("bad", None, shown), Step("fixed", None, shown)]


def steps_hiding_cuda(hidden: str = "CUDA hidden", fixed_with_gpu: Optional[str] = CLEAN) -> list[Step]:
    """On a CUDA machine: each variant with the GPU (bad.py shown, not judged) and in a child that cannot see it
    (`CUDA_VISIBLE_DEVICES=""`), where bad.py must show the bug and fixed.py must not."""
    return [
        Step("bad", None, "with the GPU"),
        Step("bad", BUG, hidden, hide_cuda=True),
        Step("fixed", fixed_with_gpu, "with the GPU"),
        Step("fixed", CLEAN, hidden, hide_cuda=True),
    ]


@dataclass(frozen=True)
class ProbeContext:
    device: str  # the machine's device under test: "cpu", "cuda" or "mps"
    variant: str
    workdir: str
    hide_cuda: bool = False

    @property
    def target(self) -> str:
        """Where tensors are sent. On a CPU-only machine `meta` stands in: a real move away from the CPU."""
        return "meta" if self.device == "cpu" else self.device


def device_available(torch: Any, device: str) -> str:
    """'' when `device` can be used here, else the reason it cannot."""
    if device == "cuda" and not torch.cuda.is_available():
        return "no CUDA device"
    if device == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            return "no mps device"
    return ""


def record(name: str, result: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"call": name, "result": result, "detail": detail, **extra}


def expecting_error(name: str, fn: Callable[[], Any], patterns: Iterable[str],
                    on_success: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """Call `fn`: an exception whose message matches a pattern is the bug; another one is unexpected."""
    try:
        value = fn()
    except Exception as error:
        message = f"{type(error).__name__}: {error}".strip()
        first_line = message.splitlines()[0] if message else type(error).__name__
        text = str(error)
        for pattern in patterns:
            found = re.search(pattern, text, re.IGNORECASE)
            if found:  # the detail quotes the message up to the end of what matched; `error` has all of it
                quoted = text[: found.end()] + ("…" if text[found.end():].strip() else "")
                return record(name, BUG, f"raises: {quoted}", error=message)
        return record(name, UNEXPECTED, f"raises {first_line}", error=message,
                      traceback=traceback.format_exc(limit=-3))
    return on_success(value)


def calling(name: str, fn: Callable[[], Any], judge: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """Call `fn` and judge its value; any exception is unexpected."""
    try:
        value = fn()
    except Exception as error:
        return record(name, UNEXPECTED, f"raises {type(error).__name__}: {error}".splitlines()[0],
                      traceback=traceback.format_exc(limit=-3))
    return judge(value)


def aggregate(calls: list[dict[str, Any]]) -> str:
    """A snippet's outcome: unexpected beats bug beats clean; calls that do not apply do not count."""
    results = {c["result"] for c in calls}
    if UNEXPECTED in results:
        return UNEXPECTED
    if BUG in results:
        return BUG
    return CLEAN


def summarize(calls: list[dict[str, Any]]) -> str:
    """'2/3 calls show the bug' style one-liner, naming the first bug or surprise."""
    counted = [c for c in calls if c["result"] != NOT_APPLICABLE]
    bugs = [c for c in counted if c["result"] == BUG]
    odd = [c for c in counted if c["result"] == UNEXPECTED]
    if odd:
        return f"unexpected: {odd[0]['call']} {odd[0]['detail']}"
    if bugs:
        return f"{len(bugs)}/{len(counted)} calls: {bugs[0]['call']} {bugs[0]['detail']}"
    return f"{len(counted)}/{len(counted)} calls clean"


def evidence(calls: list[dict[str, Any]], summary: Optional[str] = None, **extra: Any) -> dict[str, Any]:
    return {"outcome": aggregate(calls), "summary": summary or summarize(calls), "calls": calls, **extra}
