"""The snippet runner: whatever a child does, the parent gets a result with a reason, and no hang."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time

import pytest

from devlint.frontends.runtime.records import CRASH, OK, SIGNAL, SKIPPED, TIMEOUT
from devlint.frontends.runtime.runner import RESULT_ENV, child_command, child_env, run_process


def _python(code: str) -> list[str]:
    return [sys.executable, "-P", "-c", textwrap.dedent(code)]


def test_a_child_that_writes_its_result_is_ok():
    result = run_process(_python(f"""
        import json, os
        json.dump({{"status": "ok", "evidence": {{"outcome": "bug", "cwd": os.getcwd()}}}},
                  open(os.environ["{RESULT_ENV}"], "w"))
    """), timeout=30)
    assert result.status == OK
    assert result.evidence["outcome"] == "bug"


def test_a_child_runs_in_a_fresh_temporary_directory():
    result = run_process(_python(f"""
        import json, os
        json.dump({{"status": "ok", "evidence": {{"files": os.listdir(".")}}}}, open(os.environ["{RESULT_ENV}"], "w"))
    """), timeout=30)
    assert result.evidence["files"] == ["output.log"]


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads process states from /proc")
def test_a_sleeping_child_and_its_grandchild_are_killed_at_the_timeout(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    result = run_process(_python(f"""
        import subprocess, sys, time
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pid_file)!r}, "w").write(str(grandchild.pid))
        time.sleep(600)
    """), timeout=6)  # long enough for a loaded machine to start both processes
    assert result.status == TIMEOUT
    assert result.reason == "timed out after 6 s"
    grandchild = int(pid_file.read_text())
    assert not _alive(grandchild)


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for init to reap it counts as gone)."""
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state == "Z":
            return False
        time.sleep(0.1)
    return True


@pytest.mark.parametrize("code, name", [
    ("import os; os.abort()", "SIGABRT"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV"),
])
def test_a_child_killed_by_a_signal_is_a_result_with_the_signal_name(code, name):
    result = run_process(_python("import faulthandler; faulthandler.disable()\n" + code), timeout=30)
    assert result.status == SIGNAL
    assert result.reason == f"killed by {name}"
    assert result.returncode == -getattr(signal, name)


def test_a_child_that_exits_without_a_result_is_a_crash_quoting_its_last_line():
    result = run_process(_python("import sys; print('no luck here', file=sys.stderr); sys.exit(3)"), timeout=30)
    assert result.status == CRASH
    assert result.reason == "exited with status 3 without a result (no luck here)"


def test_a_malformed_result_is_a_crash():
    result = run_process(_python(f"""
        import os
        open(os.environ["{RESULT_ENV}"], "w").write('{{"status": "confirmed!"}}')
    """), timeout=30)
    assert result.status == CRASH
    assert result.reason.startswith("malformed result")


def test_a_command_that_cannot_start_is_an_error_result():
    result = run_process(["/nonexistent/python"], timeout=30)
    assert result.status == "error"
    assert "could not start" in result.reason


def test_a_skip_passes_through_with_its_reason():
    result = run_process(_python(f"""
        import json, os
        json.dump({{"status": "skipped", "reason": "no CUDA device"}}, open(os.environ["{RESULT_ENV}"], "w"))
    """), timeout=30)
    assert (result.status, result.reason) == (SKIPPED, "no CUDA device")


def test_child_env_hides_cuda_only_when_asked():
    assert child_env(hide_cuda=True)["CUDA_VISIBLE_DEVICES"] == ""
    assert child_env().get("CUDA_VISIBLE_DEVICES") == os.environ.get("CUDA_VISIBLE_DEVICES")


def test_child_env_makes_this_devlint_importable():
    import devlint

    package_root = os.path.dirname(os.path.dirname(os.path.abspath(devlint.__file__)))
    assert child_env()["PYTHONPATH"].split(os.pathsep)[0] == package_root


def test_probe_children_run_with_python_dash_p_so_their_directory_is_not_on_sys_path():
    assert child_command({"probe": "detect"})[1:4] == ["-P", "-m", "devlint.frontends.runtime.child"]


def test_a_module_in_the_users_directory_cannot_shadow_one_the_child_imports(tmp_path, monkeypatch):
    (tmp_path / "json.py").write_text("raise SystemExit('shadowed')\n")
    monkeypatch.chdir(tmp_path)
    result = run_process(_python(f"""
        import json, os
        json.dump({{"status": "ok", "evidence": {{}}}}, open(os.environ["{RESULT_ENV}"], "w"))
    """), timeout=30)
    assert result.status == OK


def test_the_parent_side_of_confirm_never_imports_torch():
    code = (
        "import sys\n"
        "import devlint.frontends.cli, devlint.frontends.runtime.cli, devlint.frontends.runtime.confirm\n"
        "import devlint.frontends.runtime.report\n"
        "import devlint.frontends.runtime.forkserver, devlint.frontends.runtime.child\n"
        "from devlint.frontends.runtime.probes import probe_for\n"
        "for code in ('DEV001', 'DEV002', 'DEV003', 'DEV004', 'DEV005'):\n"
        "    probe_for(code).steps('cuda'); probe_for(code).notes('cpu')\n"
        "print('torch' in sys.modules)\n"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert out.stdout.strip() == "False", out.stderr
