"""The fork server and the real child: a snippet that hangs, aborts or segfaults is a result, not a hang.

The fixture files here are deliberately broken: importing them is what misbehaves.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import FIXTURES
from devlint.frontends.runtime.launch import run_snippet, snippet_spec
from devlint.frontends.runtime.forkserver import ForkServer
from devlint.frontends.runtime.records import OK, SIGNAL, SKIPPED, TIMEOUT, Snippet

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server is used on Linux only"),
]


@pytest.fixture(scope="module")
def server():
    server = ForkServer(start_timeout=180)
    yield server
    server.close()


def _snippet(path, device="cpu", variant="bad") -> Snippet:
    return Snippet(code="DEV003", variant=variant, device=device, path=str(path))


def test_the_server_reports_the_machine_it_imported_torch_on(server):
    assert server.machine["torch"].startswith("2.")


def test_a_forked_snippet_gives_the_same_evidence_a_spawned_one_would(server):
    result = server.run(snippet_spec(_snippet(FIXTURES / "DEV003-hardcoded-cuda" / "fixed.py", variant="fixed")), 60)
    assert (result.status, result.launcher) == (OK, "fork")
    assert result.evidence["outcome"] == "clean"


def test_a_hanging_snippet_times_out_and_the_server_goes_on(server, tmp_path):
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(600)\n")
    result = server.run(snippet_spec(_snippet(hang)), timeout=2)
    assert (result.status, result.reason) == (TIMEOUT, "timed out after 2 s")
    after = server.run(snippet_spec(_snippet(FIXTURES / "DEV003-hardcoded-cuda" / "bad.py")), 60)
    assert after.evidence["outcome"] == "bug"


@pytest.mark.parametrize("code, name", [
    ("import os\nos.abort()\n", "SIGABRT"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "SIGSEGV"),
])
def test_a_crashing_snippet_is_a_signal_result(server, tmp_path, code, name):
    crash = tmp_path / "crash.py"
    crash.write_text("import faulthandler\nfaulthandler.disable()\n" + code)
    result = server.run(snippet_spec(_snippet(crash)), 60)
    assert (result.status, result.reason) == (SIGNAL, f"killed by {name}")


def test_a_spawned_child_asked_for_a_missing_device_is_skipped_with_the_reason(server):
    if server.machine["cuda"]:
        pytest.skip("this machine has CUDA")
    result = run_snippet(_snippet(FIXTURES / "DEV003-hardcoded-cuda" / "bad.py", device="cuda"), 120)
    assert (result.status, result.reason, result.launcher) == (SKIPPED, "no CUDA device", "spawn")
