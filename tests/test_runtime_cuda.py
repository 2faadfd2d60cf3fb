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
from devlint.frontends.runtime.report import details, markdown, to_json
from devlint.frontends.runtime.probes import dev002, dev003, dev004, dev010
from devlint.frontends.runtime.probes.common import ProbeContext, device_available
from devlint.frontends.runtime.records import (
    BUG, CLEAN, CONFIRMED, CONTRADICTED, FAILED, NOT_RUN, OK, TIMEOUT, UNEXPECTED, ChildResult, Snippet,
)

CUDA_MACHINE = Machine({"torch": "2.13.0+cu128", "import_seconds": 2.0, "python": "3.12.3", "cuda_build": "12.8",
                        "cudnn": 91000, "cuda": [{"index": 0, "name": "H100", "memory_gib": 80.0}], "mps": False})
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


class FakeClock:
    """The device's clock (events) and the host's (perf_counter), moved on by the fake work."""

    def __init__(self) -> None:
        self.device_ms, self.host_s = 0.0, 0.0

    def host(self) -> float:
        return self.host_s


class FakeEvent:
    clock = FakeClock()

    def __init__(self, enable_timing: bool = False) -> None:
        assert enable_timing
        self.at = None

    def record(self) -> None:
        self.at = FakeEvent.clock.device_ms

    def elapsed_time(self, end: "FakeEvent") -> float:
        return end.at - self.at


def _backend(synced=None) -> SimpleNamespace:
    return SimpleNamespace(Event=FakeEvent, synchronize=lambda: synced is not None and synced.append(True))


def test_copy_timer_measures_the_device_between_events_and_the_host_until_the_call_returns():
    clock = FakeEvent.clock = FakeClock()
    synced: list[bool] = []
    durations = iter([(5.0, 0.001), (1.0, 0.002), (2.0, 0.0), (3.0, 0.0), (100.0, 0.004)])

    def work() -> None:
        device_ms, host_s = next(durations)
        clock.device_ms += device_ms
        clock.host_s += host_s
    stats = dev002.measure(dev002.copy_timer(_backend(synced), clock.host), work, warmup=1, repeat=4)
    assert stats == {"device": {"median_ms": 2.5, "min_ms": 1.0, "runs": 4},  # the 5 ms warm-up is not counted
                     "host": {"median_ms": 1.0, "min_ms": 0.0, "runs": 4}}
    assert len(synced) == 10  # before each call (an idle stream) and after it


def test_the_synced_timer_counts_host_work_and_waits_for_the_device():
    clock = FakeClock()
    synced: list[float] = []
    backend = SimpleNamespace(synchronize=lambda: synced.append(clock.host_s))

    def work() -> None:
        clock.host_s += 0.003
    assert dev002.synced_timer(backend, clock.host)(work) == pytest.approx(3.0)
    assert synced == [0.0, 0.003]


class FakeHost:
    """A host tensor whose copies take 1 ms on the device when pageable, 0.5 ms pinned; a non-blocking copy from
    pinned memory returns to the host at once, every other copy holds the host until it is done."""

    def __init__(self, shape) -> None:
        self.shape, self.pinned, self.copies = shape, False, []

    def pin_memory(self) -> "FakeHost":
        pinned = FakeHost(self.shape)
        pinned.pinned = True
        return pinned

    def to(self, device, non_blocking=False):
        took = 0.5 if self.pinned else 1.0
        FakeEvent.clock.device_ms += took
        if not (self.pinned and non_blocking):
            FakeEvent.clock.host_s += took / 1000
        return self


def test_copy_costs_cover_both_sizes_pageable_and_pinned_blocking_and_not():
    clock = FakeEvent.clock = FakeClock()
    out = dev002.copy_costs(SimpleNamespace(ones=FakeHost), _backend(), "cuda", clock.host)
    assert list(out) == [f"copy {size} {memory} {mode}" for size in ("4 MB", "37 MB")
                         for memory in ("pageable", "pinned") for mode in ("blocking", "non-blocking")]
    assert out["copy 37 MB pinned non-blocking"]["device"]["median_ms"] == 0.5
    assert out["copy 37 MB pinned non-blocking"]["host"]["median_ms"] == 0.0
    assert out["copy 4 MB pageable non-blocking"]["host"]["median_ms"] == pytest.approx(1.0)
    assert out["copy 37 MB pinned blocking"]["bytes"] == 38_535_168
    assert out["copy 4 MB pinned blocking"]["bytes"] == 4_000_000


def test_mps_copy_costs_skip_pinned_memory():
    out = dev002.copy_costs(SimpleNamespace(ones=FakeHost), _backend(), "mps", FakeClock().host)
    assert not any("pinned" in name for name in out)
    assert "copy 37 MB pageable non-blocking" in out


def test_copies_are_shown_beside_the_pcie_reference_for_their_size():
    copy = {"size": "37 MB", "bytes": 38_535_168, "memory": "pinned", "mode": "non-blocking",
            "device": {"median_ms": 1.6, "min_ms": 1.5, "runs": 30},
            "host": {"median_ms": 0.01, "min_ms": 0.0, "runs": 30}}
    [line] = dev002.copy_facts({"copy 37 MB pinned non-blocking": copy})
    assert line == ("copy 37 MB pinned non-blocking: 1.600 ms on the device (24.1 GB/s), the call holds the host"
                    " 0.010 ms (medians of 30); reference ~1.5 ms over PCIe 4.0")
    assert dev002.copy_table({"x": copy})["rows"] == [["37 MB", "38,535,168", "pinned", "non-blocking", "1.600",
                                                       "24.1 GB/s", "0.010", "~1.5"]]


def test_make_mask_is_timed_at_three_sizes_with_the_variants_own_function():
    made = []
    module = SimpleNamespace(make_mask=lambda rows, cols, device: made.append((rows, cols, device)))
    out = dev002.mask_timings(SimpleNamespace(synchronize=lambda: None), module, "cuda")
    assert list(out) == ["4 MB", "37 MB", "256 MiB"]
    assert [out[size]["bytes"] for size in out] == [4_000_000, 38_535_168, 268_435_456]
    assert set(made) == {(1000, 1000, "cuda"), (4096, 2352, "cuda"), (8192, 8192, "cuda")}


def _timed(**medians):
    return {size: {"median_ms": ms, "min_ms": ms, "runs": 30, "bytes": 4_000_000} for size, ms in medians.items()}


def test_dev002_sets_the_bad_timings_against_the_fixed_ones_as_the_saving():
    bad = {"outcome": BUG, "summary": BUG, "make_mask_ms": _timed(a=1.25, b=4.0)}
    fixed = {"outcome": CLEAN, "summary": CLEAN, "make_mask_ms": _timed(a=0.25, b=4.5)}

    def runner(snippet: Snippet, timeout: float) -> ChildResult:
        return ChildResult(OK, evidence=bad if snippet.variant == "bad" else fixed)
    verdict = confirm(["DEV002"], ["cuda"], FIXTURES, CUDA_MACHINE, 60.0, 1, lambda line: None, runner)[0]
    assert verdict.verdict == CONFIRMED
    assert verdict.comparison["saving_ms"]["a"] == {"bytes": 4_000_000, "host_then_copy_ms": 1.25,
                                                    "on_device_ms": 0.25, "saved_ms": 1.0}
    assert verdict.comparison["saving_ms"]["b"]["saved_ms"] == -0.5  # measured, whichever way it goes
    assert verdict.comparison["tables"][0]["rows"][0] == ["a", "4,000,000", "1.250", "0.250", "1.000", "5.0x"]
    assert "bad against fixed: make_mask at a: on the host then copied 1.250 ms, on the device 0.250 ms" \
           " (medians): 1.000 ms saved per call" in details([verdict])
    page = markdown([verdict], to_json([verdict], CUDA_MACHINE.info, _META), "devlint confirm --device cuda", [])
    assert "### DEV002 on cuda: DEV002: make_mask on the host then copied" in page
    assert "| a | 4,000,000 | 1.250 | 0.250 | 1.000 | 5.0x |" in page


_META = {"date": "2026-11-26T08:00:00Z", "platform": "Linux", "processor": "x86_64", "cpu_count": 16,
         "devlint": "0.1.0", "devices_requested": ["cuda"], "devices_absent": [], "timeout_s": 60.0, "seconds": 1.0,
         "exit_code": 0}


def test_the_page_names_the_gpu_the_command_and_the_torch_of_the_run():
    verdict = _confirm("DEV001", {("bad", False): BUG, ("fixed", False): CLEAN})
    data = to_json([verdict], CUDA_MACHINE.info, _META)
    page = markdown([verdict], data, "devlint confirm --device cuda", ["[1/2] x"])
    assert page.splitlines()[0] == "# `devlint confirm` on H100 (80.0 GiB)"
    assert "    devlint confirm --device cuda" in page
    assert "- torch 2.13.0+cu128 (CUDA build 12.8, cuDNN 91000), Python 3.12.3" in page
    assert "## Progress lines (stderr)\n\n```\n[1/2] x\n```" in page


# --- DEV010 on CUDA: the stale read ------------------------------------------------------------


def test_dev010_on_cuda_judges_both_variants():
    assert [(s.variant, s.expect) for s in dev010.steps("cuda")] == [("bad", BUG), ("fixed", CLEAN)]
    assert [s.expect for s in dev010.steps("cpu")] == [None, None]


def test_dev010_a_read_before_the_copy_landed_is_the_bug_whatever_values_it_read():
    stale = dev010._judge("total", (0.0, False, 0.04), 15.0)
    assert (stale["result"], stale["detail"]) == (BUG, "read 0 before its copy landed (the copy brings 15); the call"
                                                       " took 0.0 ms")
    assert (stale["read"], stale["expected"], stale["landed"], stale["call_ms"]) == (0.0, 15.0, False, 0.04)
    lucky = dev010._judge("total", (15.0, False, 0.1), 15.0)
    assert (lucky["result"], lucky["detail"]) == (BUG, "read 15 before its copy landed (the buffer held the right"
                                                       " values by chance); the call took 0.1 ms")


def test_dev010_a_read_after_the_copy_landed_must_give_the_right_values():
    waited = dev010._judge("first_row", ([0.0, 1.0, 2.0], True, 50.25), [0.0, 1.0, 2.0])
    assert (waited["result"], waited["detail"]) == (CLEAN, "read [0, 1, 2] after its copy landed; the call took"
                                                           " 50.2 ms")
    assert dev010._judge("first_row", ([0.0, 0.0, 0.0], True, 0.1), [0.0, 1.0, 2.0])["result"] == UNEXPECTED


def test_dev010_shows_stale_floats_to_four_digits():
    assert dev010._shown([0.09003056585788727, 2, 27.5]) == "[0.09003, 2, 27.5]"


def test_dev010_each_call_reads_values_of_its_own():
    torch = pytest.importorskip("torch")
    values = [torch.arange(6.0).reshape(2, 3) * (k + 1) + 10 * k for k in range(len(dev010.READS))]
    results = [compute(v) for compute, v in zip(dev010.READS.values(), values)]
    assert results == [[2, 2], 90.0, [20.0, 23.0, 26.0], 40.0]


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
