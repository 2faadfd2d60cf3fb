"""A fork server for machines without CUDA: import torch once, fork one child per snippet.

Importing torch costs seconds; a fork costs milliseconds. The server (`python -P -m
devlint.frontends.runtime.forkserver`) imports torch and nothing that starts threads or devices, then for
each request forks a child that becomes its own session (so it can be killed as a group), runs the
snippet exactly as a spawned child would, and exits. The server waits for it and reports its exit
status. Never used where CUDA exists: CUDA does not survive a fork.

Protocol, one JSON object per line: parent -> server {"spec", "cwd", "result", "log"};
server -> parent {"ready": true, "machine"} once, then {"pid"} and {"pid", "returncode"} per request.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Mapping

from devlint.frontends.runtime.records import TIMEOUT, ChildResult
from devlint.frontends.runtime.runner import LIVE_GROUPS, RESULT_ENV, child_env, read_result, read_tail

# Imported by the server so that each fork need not: meta kernels pull in torch._dynamo (~4 s here).
PREIMPORT = ("torch._dynamo", "torch.profiler", "torch.utils._python_dispatch")
_REPLY_SECONDS = 10.0  # a fork and a reply take milliseconds; this only bounds a wedged server


class ServerGone(Exception):
    """The fork server stopped answering; the caller falls back to spawning."""


class ForkServer:
    """The parent's handle on one fork server. Not thread-safe: one snippet at a time."""

    def __init__(self, start_timeout: float) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="devlint-forkserver-")
        self._log = open(os.path.join(self._tmp.name, "server.log"), "wb")
        self._buffer = b""
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "devlint.frontends.runtime.forkserver"], cwd=self._tmp.name, env=child_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, start_new_session=True,
        )
        LIVE_GROUPS.add(self.proc.pid)
        try:
            ready = self._read(time.monotonic() + start_timeout)
        except (TimeoutError, ServerGone) as error:
            self.close()
            raise ServerGone(f"the fork server did not start: {error or 'timed out'}") from None
        if not ready.get("ready"):
            self.close()
            raise ServerGone(ready.get("reason", "the fork server did not start"))
        self.machine: dict[str, Any] = ready["machine"]  # what `child.detect` saw in the server

    def run(self, spec: Mapping[str, Any], timeout: float) -> ChildResult:
        """Run one snippet in a forked child; the same result `run_process` would give."""
        with tempfile.TemporaryDirectory(prefix="devlint-confirm-") as tmp:
            result_path, log_path = os.path.join(tmp, "result.json"), os.path.join(tmp, "output.log")
            start = time.monotonic()
            self._send({"spec": dict(spec), "cwd": tmp, "result": result_path, "log": log_path})
            pid = int(self._read(time.monotonic() + _REPLY_SECONDS)["pid"])
            LIVE_GROUPS.add(pid)
            try:
                try:
                    done = self._read(start + timeout)
                except TimeoutError:
                    _kill(pid)
                    self._read(time.monotonic() + _REPLY_SECONDS)  # its status, now that it is dead
                    return ChildResult(TIMEOUT, f"timed out after {timeout:g} s", seconds=time.monotonic() - start,
                                       stderr_tail=read_tail(log_path), launcher="fork")
            finally:
                _kill(pid)  # grandchildren a finished child left behind
                LIVE_GROUPS.discard(pid)
            result = read_result(result_path, int(done["returncode"]), time.monotonic() - start, read_tail(log_path))
            result.launcher = "fork"
            return result

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        LIVE_GROUPS.discard(self.proc.pid)
        for stream in (self.proc.stdin, self.proc.stdout, self._log):
            if stream is not None:
                stream.close()
        self._tmp.cleanup()

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise ServerGone(f"the fork server is gone: {error}") from None

    def _read(self, deadline: float) -> dict[str, Any]:
        """The next reply line; TimeoutError at `deadline`, ServerGone when the server exits."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                readable, _, _ = select.select([fd], [], [], left)
                if not readable:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    self._log.flush()
                    last = read_tail(self._log.name).strip().splitlines()[-1:] or ["no output"]
                    raise ServerGone(f"the fork server exited ({last[0]})")
                self._buffer += chunk
            line, self._buffer = self._buffer.split(b"\n", 1)
            try:
                message = json.loads(line)
            except ValueError:  # something printed before the server took over its stdout
                continue
            if isinstance(message, dict):
                return message


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):  # the group; the child alone if it had not yet made its group
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# --- the server side --------------------------------------------------------------------------------


def serve() -> int:
    # The protocol gets its own copy of stdout; fd 1 then points at stderr, so nothing torch or a
    # snippet prints can break a reply line.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    def reply(message: Mapping[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    start = time.perf_counter()
    try:
        import torch  # imported once here, inherited by every fork
    except ImportError as error:
        reply({"ready": False, "reason": f"torch cannot be imported: {error}"})
        return 1
    for name in PREIMPORT:  # modules torch imports lazily on first use (seconds each); importing runs no op
        try:
            importlib.import_module(name)
        except Exception:  # an older torch without one: the child imports what it needs itself
            pass
    import_seconds = time.perf_counter() - start
    from devlint.frontends.runtime import child

    reply({"ready": True, "machine": child.detect(torch, import_seconds)})
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(child, request, out.fileno())  # never returns
        reply({"pid": pid})
        _, status = os.waitpid(pid, 0)
        reply({"pid": pid, "returncode": os.waitstatus_to_exitcode(status)})
    return 0


def _child(child: Any, request: Mapping[str, Any], protocol_fd: int) -> None:
    code = 1
    try:
        os.setsid()
        os.close(protocol_fd)  # the server's reply pipe is not the snippet's to write
        os.chdir(request["cwd"])
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.environ[RESULT_ENV] = request["result"]
        code = child.main([json.dumps(request["spec"])])
    except BaseException:  # report and exit: a forked child must never return into the server's loop
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    sys.exit(serve())
