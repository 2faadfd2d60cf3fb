"""Run one child process safely: own process group, fresh temporary directory, hard timeout.

A child reports by writing JSON to the file named in `$DEVLINT_CONFIRM_RESULT`. Whatever else
happens (a signal, a crash, a hang, garbage output) becomes a `ChildResult` with its reason; this
module never waits longer than the timeout and never raises for something the child did.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Mapping, Optional, Sequence

from devlint.frontends.runtime.records import CRASH, ERROR, OK, SIGNAL, SKIPPED, TIMEOUT, ChildResult

RESULT_ENV = "DEVLINT_CONFIRM_RESULT"
STDERR_TAIL = 2000  # characters of a child's output kept for the report
_GRACE_SECONDS = 5.0  # after SIGKILL, how long to wait for the kernel to reap the group
LIVE_GROUPS: set[int] = set()  # process groups of children still running (killed on interrupt)
STOPPED = threading.Event()  # set on interrupt: no new child starts


def child_command(spec: Mapping[str, object]) -> list[str]:
    """The command line of a probe child: `python -P` so nothing in its directory shadows a module."""
    return [sys.executable, "-P", "-m", "devlint.frontends.runtime.child", json.dumps(spec)]


def child_env(hide_cuda: bool = False, extra: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    """The environment of a child: ours, with this devlint importable and CUDA hidden on request."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[3])  # the directory holding `devlint/`
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env["PYTHONWARNINGS"] = "ignore"  # torch's warnings (no numpy, ...) are not evidence
    env.pop("PYTHONSTARTUP", None)
    if hide_cuda:
        env["CUDA_VISIBLE_DEVICES"] = ""
    env.update(extra or {})
    return env


def run_process(argv: Sequence[str], timeout: float, env: Optional[Mapping[str, str]] = None) -> ChildResult:
    """Run `argv` in a fresh temporary directory and its own session; collect its JSON result."""
    if STOPPED.is_set():
        return ChildResult(ERROR, "interrupted")
    with tempfile.TemporaryDirectory(prefix="devlint-confirm-") as tmp:
        result_path = os.path.join(tmp, "result.json")
        log_path = os.path.join(tmp, "output.log")
        child_environ = dict(os.environ if env is None else env)
        child_environ[RESULT_ENV] = result_path
        start = time.monotonic()
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(
                    list(argv), cwd=tmp, env=child_environ, stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, start_new_session=True,
                )
            except OSError as error:
                return ChildResult(ERROR, f"could not start the child: {error}")
            LIVE_GROUPS.add(proc.pid)
            try:
                returncode: Optional[int] = proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
                returncode = None
            finally:
                _kill_group(proc)  # also reaps grandchildren a finished child left behind
                LIVE_GROUPS.discard(proc.pid)
        seconds = time.monotonic() - start
        tail = read_tail(log_path)
        if timed_out:
            return ChildResult(TIMEOUT, f"timed out after {timeout:g} s", seconds=seconds, stderr_tail=tail)
        return read_result(result_path, returncode, seconds, tail)


def kill_all() -> None:
    """Kill every child still running (the user pressed Ctrl-C; children are in their own sessions)."""
    STOPPED.set()
    for pgid in list(LIVE_GROUPS):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=_GRACE_SECONDS)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process in uninterruptible sleep
        pass


def read_result(result_path: str, returncode: Optional[int], seconds: float, tail: str) -> ChildResult:
    if returncode is not None and returncode < 0:
        name = _signal_name(-returncode)
        return ChildResult(SIGNAL, f"killed by {name}", seconds=seconds, returncode=returncode, stderr_tail=tail)
    try:
        with open(result_path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        last = tail.strip().splitlines()[-1] if tail.strip() else "no output"
        return ChildResult(CRASH, f"exited with status {returncode} without a result ({last})",
                           seconds=seconds, returncode=returncode, stderr_tail=tail)
    except (OSError, ValueError) as error:
        return ChildResult(CRASH, f"unreadable result: {error}", seconds=seconds, returncode=returncode,
                           stderr_tail=tail)
    status = data.get("status") if isinstance(data, dict) else None
    if status not in (OK, SKIPPED, ERROR):
        return ChildResult(CRASH, f"malformed result: {str(data)[:200]}", seconds=seconds,
                           returncode=returncode, stderr_tail=tail)
    evidence = data.get("evidence") or {}
    return ChildResult(status, str(data.get("reason", "")), evidence=evidence, seconds=seconds,
                       returncode=returncode, stderr_tail=tail)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def read_tail(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - STDERR_TAIL))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
