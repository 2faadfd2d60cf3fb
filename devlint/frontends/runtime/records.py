"""Records shared by the parent side of `devlint confirm`: what to run, what came back, the verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

# How a child ended. Only OK carries evidence; the others are reasons, never confirmation.
OK, SKIPPED, TIMEOUT, SIGNAL, CRASH, ERROR = "ok", "skipped", "timeout", "signal", "crash", "error"

# Per-snippet evidence outcome, decided inside the child by the rule's probe.
BUG, CLEAN, UNEXPECTED = "bug", "clean", "unexpected"

# Verdicts per rule and device.
CONFIRMED, CONTRADICTED, FAILED, NOT_RUN = "confirmed", "contradicted", "failed", "skipped"


def no_device(device: str) -> str:
    """Why nothing runs on `device` here, as the children say it: "no CUDA device"."""
    return f"no {'CUDA' if device == 'cuda' else device} device"


@dataclass(frozen=True)
class Snippet:
    """One child process: a rule's probe run on one variant of its fixture, on one device."""

    code: str
    variant: str  # "bad", "fixed" or "autofix" (the output of `fix_source(bad, unsafe=True)`)
    device: str  # "cpu", "cuda" or "mps": the device the machine offers
    path: str  # the variant's file
    label: str = ""  # e.g. "CUDA hidden"
    hide_cuda: bool = False  # run with CUDA_VISIBLE_DEVICES="" (the machine has CUDA; the code must not see it)
    require_device: bool = True  # the child checks the device exists before running the probe
    workdir: str = ""  # shared by the snippets of one rule and device (a checkpoint made by an earlier one)

    @property
    def name(self) -> str:
        suffix = f", {self.label}" if self.label else ""
        return f"{self.code} {self.variant} on {self.device}{suffix}"


@dataclass
class ChildResult:
    """What one child left behind: its status, and its evidence when it finished."""

    status: str
    reason: str = ""  # for every status but OK: why there is no evidence
    evidence: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    returncode: Optional[int] = None
    stderr_tail: str = ""
    launcher: str = "spawn"  # "spawn" (a fresh interpreter) or "fork" (from a server that imported torch)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status, "reason": self.reason, "seconds": round(self.seconds, 3),
            "returncode": self.returncode, "launcher": self.launcher, "evidence": self.evidence,
            "stderr_tail": self.stderr_tail,
        }


@dataclass
class SnippetResult:
    snippet: Snippet
    result: ChildResult

    @property
    def outcome(self) -> Optional[str]:
        """BUG, CLEAN or UNEXPECTED when the child finished; None otherwise."""
        return self.result.evidence.get("outcome") if self.result.status == OK else None

    @property
    def summary(self) -> str:
        if self.result.status == OK:
            return str(self.result.evidence.get("summary", ""))
        return f"{self.result.status}: {self.result.reason}"


@dataclass
class RuleVerdict:
    """One row of the table: a rule on a device, its evidence and the verdict drawn from it."""

    code: str
    device: str
    verdict: str
    reason: str  # one line saying why this verdict
    bad: list[SnippetResult] = field(default_factory=list)
    fixed: list[SnippetResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the evidence does not show (e.g. no cost measured)
    comparison: dict[str, Any] = field(default_factory=dict)  # bad set against fixed by the probe (DEV002's saving)
