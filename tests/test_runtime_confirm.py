"""`devlint confirm` end to end on this machine's CPU, plus its command line's errors and exit codes."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil

import pytest

from conftest import FIXTURES, RULE_DIRS, expected_fix, run_devlint
from devlint.engine.line_length import formatter_line_length
from devlint.engine.target_torch import declares_requirements, target_torch
from devlint.frontends.cli import main as devlint_main
from devlint.rules import rule_codes
from devlint.frontends.runtime import launch
from devlint.frontends.runtime.confirm import FIXTURES_LINE_LENGTH, FIXTURES_TARGET_TORCH, autofix_source
from devlint.frontends.runtime.records import BUG, CLEAN, OK, ChildResult, Snippet

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="torch is not installed (pip install 'devlint[runtime]')")


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    """One real run: every rule, every device (CUDA and mps are skipped here when absent)."""
    report = tmp_path_factory.mktemp("confirm") / "confirm.json"
    proc = run_devlint("confirm", "--device", "all", "--json", str(report), "--markdown",
                       str(report.with_suffix(".md")))
    return proc, json.loads(report.read_text())


@needs_torch
def test_the_markdown_page_is_written_from_the_run_with_its_command_table_and_evidence(cpu_run, tmp_path_factory):
    proc, data = cpu_run
    page = next(tmp_path_factory.getbasetemp().glob("confirm*/confirm.md")).read_text()
    assert page.splitlines()[0] == "# `devlint confirm` on a machine without an accelerator"
    assert "    devlint confirm --device all --json " in page
    assert f"- date: {data['date']} (UTC)" in page
    assert "- every call's evidence: [confirm.json](confirm.json)" in page
    assert proc.stdout in page  # the table, as printed
    assert "DEV002 on cpu: confirmed (bad shows the bug; the fixed code does not)" in page
    assert "## Measurements" not in page  # nothing is timed without an accelerator


def _row(data, code, device="cpu"):
    return next(r for r in data["results"] if r["rule"] == code and r["device"] == device)


def _calls(row, variant):
    snippet = next(s for s in row["snippets"] if s["variant"] == variant)
    return {c["call"]: c for c in snippet["evidence"]["calls"]}


@needs_torch
def test_every_rule_is_confirmed_on_cpu_and_the_exit_code_is_0(cpu_run):
    proc, data = cpu_run
    assert proc.returncode == 0, proc.stderr
    # DEV010's stale read, DEV015's CUDA types and DEV016's CUDA items need CUDA, DEV013's invalid ordinal a GPU,
    # DEV017's float64 refusal
    # an MPS device: on a CPU their snippets are shown, not judged;
    # DEV011's host data crosses once in bad.py and fixed.py alike: shown, not judged on any device
    assert {r["rule"]: r["verdict"] for r in data["results"] if r["device"] == "cpu"} == {
        code: "skipped" if code in ("DEV010", "DEV011", "DEV013", "DEV015", "DEV016", "DEV017") else "confirmed" for code in rule_codes()}
    assert {"DEV001", "DEV005", "DEV007"} <= set(rule_codes())
    assert data["machine"]["torch"].startswith("2.")


@needs_torch
def test_the_table_and_a_progress_line_per_snippet(cpu_run):
    proc, _ = cpu_run
    assert proc.stdout.splitlines()[0].split() == ["rule", "device", "bad", "evidence", "fixed", "evidence",
                                                   "verdict"]
    progress = sum(line.startswith("[") for line in proc.stderr.splitlines())
    assert progress == 2 * len(rule_codes())  # every rule: bad, fixed


@needs_torch
def test_on_linux_without_cuda_snippets_are_forked_from_one_torch_import(cpu_run):
    _, data = cpu_run
    launchers = {s["launcher"] for r in data["results"] for s in r["snippets"]}
    expected = {"fork"} if launch.fork_possible() and not data["machine"]["cuda"] else {"spawn"}
    assert launchers == expected


def _without_accelerator(data) -> None:
    if data["machine"]["cuda"] or data["machine"]["mps"]:
        pytest.skip("this machine has an accelerator")


@needs_torch
def test_absent_devices_not_asked_for_get_one_line_not_a_skipped_row_per_rule(cpu_run):
    proc, data = cpu_run
    _without_accelerator(data)
    assert {line.split()[1] for line in proc.stdout.splitlines()[2:-1]} == {"cpu"}
    assert proc.stdout.splitlines()[-1] == ("no CUDA device, no mps device on this machine: no rule was run there"
                                            " (name a device with --device to make its absence an error)")
    assert {r["device"] for r in data["results"]} == {"cpu"}
    assert (data["devices_requested"], data["devices_absent"]) == (["cpu", "cuda", "mps"], ["cuda", "mps"])


@needs_torch
@pytest.mark.parametrize("device, missing", [("cuda", "no CUDA device"), ("mps", "no mps device")])
def test_a_device_asked_for_by_name_and_absent_is_an_error_not_a_pass(cpu_run, device, missing):
    """A GPU job whose GPU went missing must fail, not pass with every rule skipped."""
    _without_accelerator(cpu_run[1])
    proc = run_devlint("confirm", "--device", device, "--rule", "DEV001")
    assert (proc.returncode, proc.stdout) == (2, "")
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("devlint confirm: importing torch")]
    assert errors == [f"devlint: error: confirm: --device {device}, but this machine has {missing}"
                      f" (torch {cpu_run[1]['machine']['torch']} sees only cpu)"]


@needs_torch
def test_dev001_a_bare_tensor_move_leaves_the_tensor_on_cpu_while_module_to_moves(cpu_run):
    row = _row(cpu_run[1], "DEV001")
    assert _calls(row, "bad")["move_batch"]["detail"] == "still on cpu after moving to meta"
    assert _calls(row, "fixed")["move_batch"]["detail"] == "on meta"
    bad = next(s for s in row["snippets"] if s["variant"] == "bad")
    assert bad["evidence"]["contrast"]["result"] == CLEAN  # nn.Module.to() moved the parameters


@needs_torch
def test_dev002_trace_shows_a_cpu_factory_then_a_copy_and_the_host_bytes(cpu_run):
    row = _row(cpu_run[1], "DEV002")
    bad, fixed = (next(s for s in row["snippets"] if s["variant"] == v)["evidence"] for v in ("bad", "fixed"))
    assert bad["calls"][0]["trace"] == ["aten.ones.default() -> cpu", "aten._to_copy.default(cpu) -> meta"]
    assert fixed["calls"][0]["trace"] == ["aten.ones.default() -> meta"]
    assert bad["host_bytes"] == {"make_mask(1000, 1000)": 4_000_000, "make_image_batch()": 38_535_168}
    assert set(fixed["host_bytes"].values()) == {0}
    assert any("no cost was measured" in note for note in row["notes"])


@needs_torch
def test_dev003_bad_fails_for_real_without_cuda(cpu_run):
    calls = _calls(_row(cpu_run[1], "DEV003"), "bad")
    assert calls["main"]["error"] == "AssertionError: Torch not compiled with CUDA enabled"
    assert {c["result"] for c in _calls(_row(cpu_run[1], "DEV003"), "fixed").values()} == {CLEAN}


@needs_torch
def test_dev009_every_simulated_rank_resolves_to_the_same_gpu_and_the_fix_to_its_own(cpu_run):
    row = _row(cpu_run[1], "DEV009")
    bad, fixed = _calls(row, "bad"), _calls(row, "fixed")
    assert bad["rank_device"]["devices"] == {"0": "cuda", "1": "cuda", "2": "cuda", "3": "cuda"}
    assert fixed["rank_device"]["devices"] == {"0": "cuda:0", "1": "cuda:1", "2": "cuda:2", "3": "cuda:3"}
    assert {bad["batch_device"]["result"], fixed["batch_device"]["result"]} == {BUG, CLEAN}


@needs_torch
def test_dev010_on_the_cpu_runs_the_call_shapes_and_confirms_nothing(cpu_run):
    row = _row(cpu_run[1], "DEV010")
    assert row["verdict"] == "skipped"
    assert row["reason"].startswith("shown, not judged: the stale read needs CUDA")
    assert _calls(row, "bad")["total"]["detail"] == _calls(row, "fixed")["total"]["detail"]


@needs_torch
def test_dev004_synthesized_cuda_checkpoint_fails_without_map_location_and_loads_with_it(cpu_run):
    row = _row(cpu_run[1], "DEV004")
    bad = next(s for s in row["snippets"] if s["variant"] == "bad")["evidence"]
    assert bad["checkpoint"]["kind"] == "synthesized"
    assert bad["storage_locations"] == ["cuda:0"]
    assert "Attempting to deserialize object on a CUDA device" in bad["calls"][0]["error"]
    assert _calls(row, "fixed")["restore"]["detail"] == "loads on cpu, values equal"


@needs_torch
def test_dev005_forward_raises_the_device_mismatch_on_meta(cpu_run):
    calls = _calls(_row(cpu_run[1], "DEV005"), "bad")
    assert calls["NoisyLinear"]["result"] == BUG
    assert "is not on the expected device" in calls["NoisyLinear"]["error"]


@needs_torch
def test_dev006_numpy_of_a_stand_in_device_tensor_raises_and_the_fix_returns_arrays_on_cpu(cpu_run):
    row = _row(cpu_run[1], "DEV006")
    bad, fixed = _calls(row, "bad"), _calls(row, "fixed")
    assert {call["result"] for call in bad.values()} == {BUG}
    assert "can't convert meta device type tensor to numpy" in bad["embed"]["error"]
    assert {call["result"] for call in fixed.values()} == {CLEAN}
    assert "tensors on cpu" in fixed["as_array"]["detail"]
    assert any("stands in for a GPU" in note for note in row["notes"])


# --- command line ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["--rule", "DEV042"], "unknown rule 'DEV042'"),
    (["--device", "tpu"], "invalid choice: 'tpu'"),
    (["--timeout", "0"], "--timeout must be a positive number"),
    (["--fixtures", "/nonexistent"], "no fixtures directory at /nonexistent"),
])
def test_usage_errors_exit_2_with_one_line(args, message, capsys):
    assert devlint_main(["confirm", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_without_torch_the_message_gives_the_install_hint(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    assert devlint_main(["confirm", "--device", "cpu"]) == 2
    assert "pip install 'devlint[runtime]'" in capsys.readouterr().err


def _fake_start(timeout, spawn):
    """A CPU-only machine, and no fork server: every snippet goes to `launch.run_snippet`."""
    return launch.Machine({"torch": "2.13.0+cpu", "import_seconds": 1.0, "cuda": [], "mps": False}), None


@pytest.mark.parametrize("fixed_outcome, status", [(CLEAN, 0), (BUG, 1)])
def test_exit_code_is_1_when_evidence_contradicts_a_rule(fixed_outcome, status, monkeypatch, capsys):
    outcome = {"bad": BUG, "fixed": fixed_outcome}
    monkeypatch.setattr(launch, "start", _fake_start)
    monkeypatch.setattr(launch, "run_snippet", lambda snippet, timeout: ChildResult(
        OK, evidence={"outcome": outcome[snippet.variant], "summary": outcome[snippet.variant]}))
    assert devlint_main(["confirm", "--device", "cpu", "--rule", "DEV003"]) == status
    assert ("contradicted" in capsys.readouterr().out) == (status == 1)


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda path: path.name)
def test_the_fix_output_confirm_runs_is_the_checkouts_wherever_the_fixtures_are(rule_dir, tmp_path):
    """A wheel's copy of the fixtures has no project above it, or another one (a virtualenv in a project)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "elsewhere"\nversion = "1"\n'
                                             'dependencies = ["torch>=2.10"]\n[tool.black]\nline-length = 79\n')
    shutil.copytree(rule_dir, tmp_path / rule_dir.name)
    assert autofix_source(tmp_path / rule_dir.name / "bad.py") == expected_fix(rule_dir, preview=True)


def test_the_fixtures_line_length_and_target_torch_are_the_checkouts_own():
    assert {formatter_line_length(str(path / "bad.py")) for path in RULE_DIRS} == {FIXTURES_LINE_LENGTH}
    assert {target_torch(None, str(path / "bad.py")) for path in RULE_DIRS
            if not declares_requirements(str(path))} == {FIXTURES_TARGET_TORCH}


def test_a_fix_output_that_differs_from_fixed_py_is_run_on_its_own(tmp_path, monkeypatch):
    fixtures = tmp_path / "fixtures"
    shutil.copytree(FIXTURES / "DEV004-load-without-map-location", fixtures / "DEV004-load-without-map-location")
    fixed = fixtures / "DEV004-load-without-map-location" / "fixed.py"
    fixed.write_text(fixed.read_text() + "\n# edited by hand\n")
    seen = []
    monkeypatch.setattr(launch, "start", _fake_start)
    monkeypatch.setattr(launch, "run_snippet", lambda snippet, timeout: seen.append(snippet) or ChildResult(
        OK, evidence={"outcome": BUG if snippet.variant == "bad" else CLEAN, "summary": ""}))
    monkeypatch.chdir(tmp_path)
    assert devlint_main(["confirm", "--device", "cpu", "--rule", "DEV004", "--fixtures", "fixtures"]) == 0
    assert sorted(s.variant for s in seen) == ["autofix", "bad", "fixed"]
    assert all(os.path.isabs(s.path) for s in seen)  # children run elsewhere: a relative path would not resolve


def test_in_a_checkout_confirm_runs_its_fixtures_whatever_the_current_folder(tmp_path, monkeypatch):
    (tmp_path / "fixtures").mkdir()  # the current folder's own `fixtures` is not devlint's
    seen = []
    monkeypatch.setattr(launch, "start", _fake_start)
    monkeypatch.setattr(launch, "run_snippet", lambda snippet, timeout: seen.append(snippet) or ChildResult(
        OK, evidence={"outcome": BUG if snippet.variant == "bad" else CLEAN, "summary": ""}))
    monkeypatch.chdir(tmp_path)
    assert devlint_main(["confirm", "--device", "cpu", "--rule", "DEV004"]) == 0
    assert {os.path.dirname(s.path) for s in seen} == {str(FIXTURES / "DEV004-load-without-map-location")}


class _DyingServer:
    def __init__(self) -> None:
        self.runs = 0
        self.closed = False

    def run(self, spec, timeout):
        self.runs += 1
        from devlint.frontends.runtime.forkserver import ServerGone
        raise ServerGone("the fork server exited")

    def close(self) -> None:
        self.closed = True


def test_when_the_fork_server_dies_snippets_are_spawned_from_then_on(monkeypatch):
    spawned = []
    monkeypatch.setattr(launch, "run_snippet", lambda snippet, timeout: spawned.append(snippet) or ChildResult(OK))
    server = _DyingServer()
    runner = launch.ForkingRunner([server])
    snippet = Snippet(code="DEV001", variant="bad", device="cpu", path="bad.py")
    runner(snippet, 60)
    runner(snippet, 60)
    assert (server.runs, server.closed, len(spawned)) == (1, True, 2)


def test_cuda_snippets_are_never_forked(monkeypatch):
    spawned = []
    monkeypatch.setattr(launch, "run_snippet", lambda snippet, timeout: spawned.append(snippet) or ChildResult(OK))
    server = _DyingServer()
    runner = launch.ForkingRunner([server])
    runner(Snippet(code="DEV001", variant="bad", device="cuda", path="bad.py"), 60)
    runner(Snippet(code="DEV003", variant="bad", device="cpu", path="bad.py", hide_cuda=True), 60)
    assert (server.runs, len(spawned)) == (0, 2)


def test_a_machine_with_cuda_gets_no_fork_server(monkeypatch):
    closed = []

    class CudaServer:
        machine = {"torch": "2.13.0+cu128", "cuda": [{"index": 0, "name": "H100"}], "mps": False}

        def __init__(self, start_timeout):
            pass

        def close(self):
            closed.append(True)
    monkeypatch.setattr(launch, "ForkServer", CudaServer)
    monkeypatch.setattr(launch, "fork_possible", lambda: True)
    machine, runner = launch.start(None, spawn=False)
    assert (machine.devices, runner, closed) == (["cpu", "cuda"], None, [True])
