"""Plan, run and judge: every selected rule on every selected device, one child per snippet."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from devlint.frontends.runtime import launch
from devlint.frontends.runtime.launch import Machine
from devlint.frontends.runtime.probes import probe_for
from devlint.frontends.runtime.probes.common import Step
from devlint.frontends.runtime.records import (
    BUG, CONFIRMED, CONTRADICTED, FAILED, NOT_RUN, OK, SKIPPED, UNEXPECTED, ChildResult, RuleVerdict, Snippet,
    SnippetResult, no_device,
)
from devlint.frontends.runtime.runner import kill_all

DEVICES = ("cpu", "cuda", "mps")
# What `devlint --fix` finds above the checkout's fixtures/: setup.cfg's flake8 max-line-length, and the
# oldest torch pyproject.toml's `runtime` extra allows (a fixture folder may declare its own, as DEV008's
# does). A wheel's copy has nothing above it, or another project's: given, they make the same fixes anywhere.
FIXTURES_LINE_LENGTH = 120
FIXTURES_TARGET_TORCH = (2, 1)

Runner = Callable[[Snippet, float], ChildResult]


@dataclass
class Plan:
    """The snippets of one rule on one device, in order, with the step each came from."""

    code: str
    device: str
    snippets: list[tuple[Step, Snippet]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skip_reason: str = ""
    workdir: str = ""


def fixture_dir(fixtures: Path, code: str) -> Optional[Path]:
    matches = sorted(p for p in fixtures.glob(f"{code}-*") if (p / "bad.py").is_file() and (p / "fixed.py").is_file())
    return matches[0] if matches else None


def make_plan(code: str, device: str, fixtures: Path, machine: Machine, scratch: str) -> Plan:
    """What to run for `code` on `device`. The autofix output is written to `scratch` (shared with the children)."""
    plan = Plan(code, device)
    if device not in machine.devices:
        plan.skip_reason = no_device(device)
        return plan
    directory = fixture_dir(fixtures.resolve(), code)  # absolute: children run in their own directories
    assert directory is not None  # the CLI checked
    probe = probe_for(code)
    plan.notes.extend(probe.notes(device))
    plan.workdir = tempfile.mkdtemp(prefix=f"{code}-{device}-", dir=scratch)
    variants = {"bad": str(directory / "bad.py"), "fixed": str(directory / "fixed.py")}
    autofix = autofix_source(directory / "bad.py")
    if not _has_fix(code):
        plan.notes.append("no automatic fix: fixed.py is written by hand")
    elif autofix == (directory / "fixed.py").read_text(encoding="utf-8"):
        plan.notes.append("the --fix --unsafe-fixes output of bad.py is byte-identical to fixed.py: same evidence")
    else:
        variants["autofix"] = os.path.join(plan.workdir, "autofix.py")
        Path(variants["autofix"]).write_text(autofix, encoding="utf-8")
        plan.notes.append("the --fix --unsafe-fixes output of bad.py differs from fixed.py: run on its own")
    for step in probe.steps(device):
        names = [step.variant] + (["autofix"] if step.variant == "fixed" and "autofix" in variants else [])
        for name in names:
            plan.snippets.append((step, Snippet(
                code=code, variant=name, device=device, path=variants[name], label=step.label,
                hide_cuda=step.hide_cuda, require_device=not step.hide_cuda, workdir=plan.workdir,
            )))
    return plan


def _has_fix(code: str) -> bool:
    from devlint.rules import get_rule
    from devlint.rules.rule import FixSafety

    rule = get_rule(code)
    return rule is None or rule.fix_safety is not FixSafety.NONE


def autofix_source(bad: Path) -> str:
    """`devlint --fix --unsafe-fixes --preview` of a fixture's bad.py (a rule in preview is confirmed too),
    as in the checkout wherever the fixtures are."""
    from devlint import fix_source
    from devlint.engine.settings import Settings
    from devlint.engine.target_torch import declares_requirements

    own_target = declares_requirements(str(bad.resolve().parent))
    settings = Settings(preview=True, line_length=FIXTURES_LINE_LENGTH,
                        target_torch=None if own_target else FIXTURES_TARGET_TORCH)
    return fix_source(bad.read_text(encoding="utf-8"), str(bad), settings, unsafe=True).source


def execute(plans: list[Plan], timeout: float, jobs: int, progress: Callable[[str], None],
            runner: Optional[Runner] = None) -> dict[Snippet, ChildResult]:
    """Run every snippet. CUDA snippets run one at a time, in plan order (timings, a checkpoint made
    by an earlier snippet); the others run `jobs` at a time."""
    ordered = [s for plan in plans for _, s in plan.snippets]
    total = len(ordered)
    results: dict[Snippet, ChildResult] = {}
    done = [0]
    lock = threading.Lock()

    run = runner or launch.run_snippet

    def one(snippet: Snippet) -> ChildResult:
        result = run(snippet, timeout)
        shown = result.evidence.get("outcome", "") if result.status == OK else f"{result.status}: {result.reason}"
        with lock:
            done[0] += 1
            progress(f"[{done[0]}/{total}] {snippet.name}: {shown} ({result.seconds:.1f} s, {result.launcher})")
        return result

    serial = [s for s in ordered if s.device == "cuda"]
    parallel = [s for s in ordered if s.device != "cuda"]
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        for snippet, result in zip(parallel, pool.map(one, parallel)):
            results[snippet] = result
        for snippet in serial:
            results[snippet] = one(snippet)
    except KeyboardInterrupt:  # kill the children now rather than wait for the workers' timeouts
        kill_all()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results


def judge(plan: Plan, results: dict[Snippet, ChildResult]) -> RuleVerdict:
    """Confirmed only when every judged snippet shows what the rule predicts; never on a missing result."""
    verdict = RuleVerdict(plan.code, plan.device, NOT_RUN, f"skipped: {plan.skip_reason}", notes=list(plan.notes))
    if plan.skip_reason:
        return verdict
    ran = [(step, SnippetResult(snippet, results[snippet])) for step, snippet in plan.snippets]
    for step, item in ran:
        (verdict.bad if item.snippet.variant == "bad" else verdict.fixed).append(item)
    for step, item in ran:
        if item.result.status == SKIPPED:
            verdict.verdict, verdict.reason = NOT_RUN, f"skipped: {item.result.reason}"
            return verdict
    for step, item in ran:
        if item.result.status != OK:
            verdict.verdict, verdict.reason = FAILED, f"{item.snippet.name}: {item.summary}"
            return verdict
        if item.outcome == UNEXPECTED:
            verdict.verdict, verdict.reason = FAILED, f"{item.snippet.name}: {item.summary}"
            return verdict
    for step, item in ran:
        if step.expect is not None and item.outcome != step.expect:
            what = "shows no bug" if step.expect == BUG else "still shows the bug"
            verdict.verdict = CONTRADICTED
            verdict.reason = f"{item.snippet.variant} ({item.snippet.name}) {what}: {item.summary}"
            return verdict
    if not any(step.expect is not None for step, _ in ran):
        # every snippet was shown, none judged: what this device can run is not evidence of the bug
        verdict.verdict, verdict.reason = NOT_RUN, "shown, not judged: " + (plan.notes[0] if plan.notes else "no check")
        return verdict
    verdict.verdict, verdict.reason = CONFIRMED, "bad shows the bug; the fixed code does not"
    verdict.comparison = compare(plan.code, verdict)
    return verdict


def compare(code: str, verdict: RuleVerdict) -> dict:
    """What the rule's probe makes of bad set against fixed (their evidence side by side), if it compares them."""
    probe = probe_for(code)
    bad = next((i for i in verdict.bad if i.snippet.variant == "bad"), None)
    fixed = next((i for i in verdict.fixed if i.snippet.variant == "fixed"), None)
    if not hasattr(probe, "compare") or bad is None or fixed is None:
        return {}
    return probe.compare(bad.result.evidence, fixed.result.evidence)


def confirm(codes: list[str], devices: list[str], fixtures: Path, machine: Machine, timeout: float, jobs: int,
            progress: Callable[[str], None], runner: Optional[Runner] = None) -> list[RuleVerdict]:
    """Every rule on every device: the verdicts, in (device, rule) order. Spawns a child per snippet
    unless given another runner (a `launch.ForkingRunner`, or a fake in tests)."""
    scratch = tempfile.mkdtemp(prefix="devlint-confirm-")
    try:
        plans = [make_plan(code, device, fixtures, machine, scratch) for device in devices for code in codes]
        results = execute(plans, timeout, jobs, progress, runner)
        return [judge(plan, results) for plan in plans]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
