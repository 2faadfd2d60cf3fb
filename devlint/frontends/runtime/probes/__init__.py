"""One probe per rule: which snippets to run on a device (parent side) and what to observe (child side).

A probe module holds `steps(device)` (pure, no torch) and `run(torch, module, ctx)` (called in the
child with the fixture variant imported). Probes are found by name: `devlint.frontends.runtime.probes.dev001`.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def probe_for(code: str) -> ModuleType:
    return importlib.import_module(f"devlint.frontends.runtime.probes.{code.lower()}")
