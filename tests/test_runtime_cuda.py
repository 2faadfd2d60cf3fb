"""The CUDA and mps branches, with every device call isolated: no GPU is needed to run these.

What a GPU run would do is planned and judged here from canned child results; the child-side
timing and pattern code runs against small fakes of `torch.cuda`.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import FIXTURES
from devlint.frontends.runtime.child import detect
from devlint.frontends.runtime.confirm import confirm, make_plan
from devlint.frontends.runtime.launch import Machine
from devlint.frontends.runtime.probes import dev002, dev003, dev004
from devlint.frontends.runtime.probes.common import ProbeContext, device_available
from devlint.frontends.runtime.records import (
    BUG, CLEAN, CONFIRMED, CONTRADICTED, FAILED, NOT_RUN, OK, TIMEOUT, ChildResult, Snippet,
)

CUDA_MACHINE = Machine({"torch": "2.13.0+cu128", "import_seconds": 2.0, "cuda": [{"index": 0, "name": "H100"}],
                        "mps": False})
CPU_MACHINE = Machine({"torch": "2.13.0+cpu", "import_seconds": 2.0, "cuda": [], "mps": False})


def _canned(outcomes: dict[tuple[str, bool], str], calls: list[Snippet]):
    """A runner answering each snippet with the outcome for (variant, hide_cuda), recording the order."""
    def runner(snippet: Snippet, timeout: float) -> ChildResult:
        calls.append(snippet)
        outcome = outcomes[(snippet.variant, snippet.hide_cuda)]
        if outcome == TIMEOUT:
            return ChildResult(TIMEOUT, f"timed out after {timeout:g} s")
        return ChildResult(OK, evidence={"outcome": outcome, "summary": outcome})
    return runner


def _confirm(code: str, outcomes, calls=None, machine=CUDA_MACHINE, device="cuda"):
    calls = [] if calls is None else calls
    return confirm([code], [device], FIXTURES, machine, 60.0, 2, lambda line: None, _canned(outcomes, calls))[0]


def test_dev003_on_cuda_runs_bad_with_the_gpu_then_hidden_and_fixed_both_ways(tmp_path):
    plan = make_plan("DEV003", "cuda", FIXTURES, CUDA_MACHINE, str(tmp_path))
    assert [(s.variant, s.hide_cuda) for _, s in plan.snippets] == [
        ("bad", False), ("bad", True), ("fixed", False), ("fixed", True)]
    assert [s.require_device for _, s in plan.snippets] == [True, False, True, False]


def test_dev003_on_cuda_is_confirmed_when_bad_fails_only_with_cuda_hidden():
    verdict = _confirm("DEV003", {("bad", False): CLEAN, ("bad", True): BUG, ("fixed", False): CLEAN,
                                  ("fixed", True): CLEAN})
    assert verdict.verdict == CONFIRMED


def test_dev003_on_cuda_is_contradicted_when_bad_runs_with_cuda_hidden():
    verdict = _confirm("DEV003", {("bad", False): CLEAN, ("bad", True): CLEAN, ("fixed", False): CLEAN,
                                  ("fixed", True): CLEAN})
    assert verdict.verdict == CONTRADICTED
    assert "shows no bug" in verdict.reason


def test_dev004_on_cuda_makes_the_checkpoint_with_the_gpu_before_loading_it_hidden():
    calls: list[Snippet] = []
    verdict = _confirm("DEV004", {("bad", False): CLEAN, ("bad", True): BUG, ("fixed", True): CLEAN}, calls)
    assert [(s.variant, s.hide_cuda) for s in calls] == [("bad", False), ("bad", True), ("fixed", True)]
    assert len({s.workdir for s in calls}) == 1  # the hidden children load the checkpoint the first one saved
    assert verdict.verdict == CONFIRMED
    assert not any("synthesized" in note for note in verdict.notes)


def test_a_timeout_on_cuda_fails_the_rule_and_is_never_a_confirmation():
    verdict = _confirm("DEV005", {("bad", False): TIMEOUT, ("fixed", False): CLEAN})
    assert verdict.verdict == FAILED
    assert verdict.reason == "DEV005 bad on cuda: timeout: timed out after 60 s"


def test_cuda_on_a_machine_without_it_is_skipped_without_running_anything():
    calls: list[Snippet] = []
    verdict = _confirm("DEV001", {}, calls, machine=CPU_MACHINE)
    assert (verdict.verdict, verdict.reason, calls) == (NOT_RUN, "skipped: no CUDA device", [])


def test_the_fixed_code_still_showing_the_bug_contradicts_the_rule():
    verdict = _confirm("DEV002", {("bad", False): BUG, ("fixed", False): BUG})
    assert verdict.verdict == CONTRADICTED
    assert "still shows the bug" in verdict.reason


# --- child side, against fakes -------------------------------------------------------------------


class FakeEvent:
    clock = [0.0]

    def __init__(self, enable_timing: bool = False) -> None:
        assert enable_timing
        self.at = None

    def record(self) -> None:
        self.at = FakeEvent.clock[0]

    def elapsed_time(self, end: "FakeEvent") -> float:
        return end.at - self.at


def test_event_timer_times_each_call_between_two_recorded_events_after_synchronizing():
    synced = []
    backend = SimpleNamespace(Event=FakeEvent, synchronize=lambda: synced.append(True))
    durations = iter([5.0, 1.0, 2.0, 3.0, 100.0])

    def work() -> None:
        FakeEvent.clock[0] += next(durations)
    time_once = dev002.event_timer(backend)
    stats = dev002.measure(time_once, work, warmup=1, repeat=4)
    assert stats == {"median_ms": 2.5, "min_ms": 1.0, "runs": 4}  # the 5 ms warm-up is not counted
    assert len(synced) == 5


class FakeHost:
    def __init__(self, shape) -> None:
        self.shape, self.pinned, self.copies = shape, False, []

    def pin_memory(self) -> "FakeHost":
        pinned = FakeHost(self.shape)
        pinned.pinned = True
        return pinned

    def to(self, device, non_blocking=False):
        FakeEvent.clock[0] += 0.5 if self.pinned else 1.0
        return self


def test_cuda_timings_cover_both_sizes_pageable_and_pinned_for_bad_only():
    fake_torch = SimpleNamespace(cuda=SimpleNamespace(Event=FakeEvent, synchronize=lambda: None), ones=FakeHost)
    ctx = ProbeContext("cuda", "bad", "/tmp")
    cases = {"make_mask(1000, 1000)": lambda: None, "make_image_batch()": lambda: None}
    out = dev002.timings(fake_torch, ctx, cases, with_copies=True)
    assert sorted(out) == sorted([
        "make_mask(1000, 1000)", "make_image_batch()", "copy 4 MB pageable", "copy 4 MB pinned",
        "copy 37 MB pageable", "copy 37 MB pinned"])
    assert out["copy 4 MB pinned"]["median_ms"] == 0.5
    assert out["copy 37 MB pageable"]["median_ms"] == 1.0
    assert sorted(dev002.timings(fake_torch, ctx, cases, with_copies=False)) == ["make_image_batch()",
                                                                                 "make_mask(1000, 1000)"]


def test_copy_timings_are_shown_beside_the_pcie_reference_for_their_size():
    lines = dev002.timing_facts({
        "make_mask(1000, 1000)": {"median_ms": 0.05, "min_ms": 0.04, "runs": 30},
        "copy 37 MB pinned": {"median_ms": 1.62, "min_ms": 1.6, "runs": 30},
    })
    assert lines == [
        "make_mask(1000, 1000): 0.050 ms median, 0.040 ms min over 30 runs",
        "copy 37 MB pinned: 1.620 ms median, 1.600 ms min over 30 runs (reference ~1.5 ms over PCIe 4.0)",
    ]


def test_mps_timings_use_mps_events_and_skip_pinned_copies():
    fake_torch = SimpleNamespace(mps=SimpleNamespace(Event=FakeEvent, synchronize=lambda: None), ones=FakeHost)
    out = dev002.timings(fake_torch, ProbeContext("mps", "bad", "/tmp"), {
        "make_mask(1000, 1000)": lambda: None, "make_image_batch()": lambda: None}, with_copies=True)
    assert not any("pinned" in name for name in out)
    assert "copy 37 MB pageable" in out


@pytest.mark.parametrize("message", [
    "No CUDA GPUs are available",
    "Found no NVIDIA driver on your system.",
    "Torch not compiled with CUDA enabled",
])
def test_dev003_counts_each_no_cuda_message_as_the_bug_whatever_the_exception_type(message):
    def fail(*args):
        raise RuntimeError(message)
    module = SimpleNamespace(build_model=fail, main=fail, evaluate=fail, on_apple_silicon=_no_mps)
    evidence = dev003.run(_fake_torch(cuda=False), module, ProbeContext("cuda", "bad", "/tmp", hide_cuda=True))
    assert evidence["outcome"] == BUG


def _no_mps(*args):
    raise NotImplementedError("Could not run 'aten::empty.memory_format' with arguments from the 'MPS' backend.")


def _fake_torch(cuda: bool, mps: bool = False) -> SimpleNamespace:
    return SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: cuda),
                           backends=SimpleNamespace(mps=SimpleNamespace(is_available=lambda: mps)),
                           nn=SimpleNamespace(Linear=lambda *a: SimpleNamespace(to=lambda d: None)),
                           zeros=lambda *a: None)


def test_dev003_counts_the_missing_mps_backend_as_the_bug():
    def ran(*args):
        return SimpleNamespace(device="cpu")
    module = SimpleNamespace(build_model=ran, main=ran, evaluate=ran, on_apple_silicon=_no_mps)
    evidence = dev003.run(_fake_torch(cuda=False), module, ProbeContext("cpu", "bad", "/tmp"))
    assert evidence["outcome"] == BUG
    assert [c["call"] for c in evidence["calls"] if c["result"] == BUG] == ["on_apple_silicon"]


def test_dev003_counts_another_error_as_unexpected_not_as_the_bug():
    def fail(*args):
        raise ValueError("shape mismatch")
    module = SimpleNamespace(build_model=fail, main=fail, evaluate=fail, on_apple_silicon=fail)
    assert dev003.run(_fake_torch(cuda=True), module, ProbeContext("cuda", "bad", "/tmp"))["outcome"] == "unexpected"


def test_dev004_hidden_child_without_the_gpu_checkpoint_says_so(tmp_path):
    with pytest.raises(RuntimeError, match="the run with the GPU did not make one"):
        dev004._real_checkpoint(SimpleNamespace(), str(tmp_path), create=False)


def test_missing_devices_are_named():
    torch = SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: False),
                            backends=SimpleNamespace(mps=SimpleNamespace(is_available=lambda: False)))
    assert device_available(torch, "cuda") == "no CUDA device"
    assert device_available(torch, "mps") == "no mps device"
    assert device_available(torch, "cpu") == ""


def test_detect_names_every_cuda_device():
    props = SimpleNamespace(name="NVIDIA H100 80GB HBM3", total_memory=80 * 2**30)
    torch = SimpleNamespace(
        __version__="2.13.0+cu128", version=SimpleNamespace(cuda="12.8"),
        cuda=SimpleNamespace(is_available=lambda: True, device_count=lambda: 2, get_device_properties=lambda i: props),
        backends=SimpleNamespace(cudnn=SimpleNamespace(version=lambda: 91000),
                                 mps=SimpleNamespace(is_available=lambda: False)),
    )
    info = detect(torch, 1.5)
    assert [d["name"] for d in info["cuda"]] == ["NVIDIA H100 80GB HBM3"] * 2
    assert info["cuda_build"] == "12.8" and info["mps"] is False
    assert Machine(info).devices == ["cpu", "cuda"]


def test_the_default_timeout_is_three_times_the_import_time_plus_ten_seconds_at_least_a_minute():
    assert Machine({"import_seconds": 30.0}).default_timeout() == 100.0
    assert Machine({"import_seconds": 2.0}).default_timeout() == 60.0
