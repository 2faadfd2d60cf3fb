"""How snippets are launched: see the machine first, then spawn a fresh interpreter per snippet, or
fork it from a warm server where that is safe (Linux, no CUDA)."""

from __future__ import annotations

import math
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, Optional

from devlint.frontends.runtime.forkserver import ForkServer, ServerGone
from devlint.frontends.runtime.records import OK, ChildResult, Snippet
from devlint.frontends.runtime.runner import child_command, child_env, run_process

MIN_TIMEOUT = 60.0  # seconds; a loaded machine imports torch slowly
DETECT_TIMEOUT = 120.0


@dataclass
class Machine:
    """The machine as the detection child saw it."""

    info: dict[str, Any]

    @property
    def devices(self) -> list[str]:
        found = ["cpu"]
        if self.info.get("cuda"):
            found.append("cuda")
        if self.info.get("mps"):
            found.append("mps")
        return found

    def default_timeout(self) -> float:
        """Generous: three times what importing torch took here, plus 10 s, and never under a minute."""
        return float(max(MIN_TIMEOUT, math.ceil(3 * float(self.info.get("import_seconds", 0.0)) + 10.0)))


class TorchUnavailable(Exception):
    """torch cannot be imported by a child: `devlint confirm` cannot run at all."""


def detect_machine(timeout: Optional[float] = None) -> Machine:
    result = run_process(child_command({"probe": "detect"}), timeout or DETECT_TIMEOUT, child_env())
    if result.status != OK:
        raise TorchUnavailable(result.reason or result.status)
    return Machine(result.evidence)


def snippet_spec(snippet: Snippet) -> dict[str, Any]:
    return {"probe": snippet.code, "path": snippet.path, "device": snippet.device, "variant": snippet.variant,
            "workdir": snippet.workdir, "hide_cuda": snippet.hide_cuda, "require_device": snippet.require_device}


def run_snippet(snippet: Snippet, timeout: float) -> ChildResult:
    """Spawn a fresh interpreter for the snippet."""
    return run_process(child_command(snippet_spec(snippet)), timeout, child_env(hide_cuda=snippet.hide_cuda))


def fork_possible() -> bool:
    """Fork servers only on Linux (macOS frameworks do not survive a fork of a threaded process)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def start(timeout: Optional[float], spawn: bool) -> "tuple[Machine, Optional[ForkingRunner]]":
    """See the machine, and keep a warm fork server when snippets may be forked (no CUDA here)."""
    if spawn or not fork_possible():
        return detect_machine(timeout), None
    try:
        server = ForkServer(start_timeout=timeout or DETECT_TIMEOUT)
    except (ServerGone, OSError):
        return detect_machine(timeout), None  # says why torch cannot be used, or spawns from now on
    machine = Machine(server.machine)
    if machine.info.get("cuda"):  # never fork where CUDA exists
        server.close()
        return machine, None
    return machine, ForkingRunner([server])


class ForkingRunner:
    """Runs snippets forked from one warm fork server, one at a time (a fork takes milliseconds, so
    one server keeps up with any number of workers). CUDA snippets, snippets with CUDA hidden, and
    everything after the server fails are spawned instead."""

    def __init__(self, servers: Optional[list[ForkServer]] = None) -> None:
        self._servers = list(servers or [])
        self._lock = threading.Lock()  # one request at a time per server
        self._broken = False

    def __call__(self, snippet: Snippet, timeout: float) -> ChildResult:
        if snippet.device == "cuda" or snippet.hide_cuda:
            return run_snippet(snippet, timeout)
        with self._lock:
            server = self._server(timeout)
            if server is not None:
                try:
                    return server.run(snippet_spec(snippet), timeout)
                except ServerGone:
                    server.close()
                    self._servers.remove(server)
                    self._broken = True
        return run_snippet(snippet, timeout)

    def _server(self, timeout: float) -> Optional[ForkServer]:
        if self._broken:
            return None
        if not self._servers:
            try:
                self._servers.append(ForkServer(start_timeout=timeout))
            except (ServerGone, OSError):
                self._broken = True
                return None
        return self._servers[0]

    def close(self) -> None:
        with self._lock:
            servers, self._servers = self._servers, []
        for server in servers:
            server.close()
