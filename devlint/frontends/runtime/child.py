"""The child side of `devlint confirm`: `python -P -m devlint.frontends.runtime.child SPEC_JSON`.

Runs one probe on one fixture variant on one device and writes the evidence as JSON to the file
named in `$DEVLINT_CONFIRM_RESULT`. This is the only place (with the probes it calls) that
imports torch.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
from typing import Any

from devlint.frontends.runtime.probes.common import ProbeContext, device_available
from devlint.frontends.runtime.records import ERROR, OK, SKIPPED
from devlint.frontends.runtime.runner import RESULT_ENV


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    result = _run(spec)
    with open(os.environ[RESULT_ENV], "w", encoding="utf-8") as handle:
        json.dump(result, handle, default=str)
    return 0


def _run(spec: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        import torch
    except ImportError as error:
        return {"status": ERROR, "reason": f"torch cannot be imported: {error}"}
    import_seconds = time.perf_counter() - start
    if spec["probe"] == "detect":
        return {"status": OK, "evidence": detect(torch, import_seconds)}
    ctx = ProbeContext(
        device=spec["device"], variant=spec["variant"], workdir=spec.get("workdir") or os.getcwd(),
        hide_cuda=bool(spec.get("hide_cuda")),
    )
    if spec.get("require_device", True):
        missing = device_available(torch, ctx.device)
        if missing:
            return {"status": SKIPPED, "reason": missing}
    if hasattr(torch, "set_default_device"):  # a fresh state per child, forked or spawned
        torch.set_default_device(None)
    torch.manual_seed(0)
    probe = importlib.import_module(f"devlint.frontends.runtime.probes.{spec['probe'].lower()}")
    if getattr(probe, "IMPORT_IS_JUDGED", False):  # the probe imports the fixture itself: the import is the bug
        module: Any = functools.partial(_load, spec["path"], ctx.variant)
    else:
        try:
            module = _load(spec["path"], ctx.variant)
        except Exception as error:  # the fixture itself does not import: a finding, with its reason
            return {"status": ERROR, "reason": f"importing {spec['path']} failed: {type(error).__name__}: {error}",
                    "evidence": {"traceback": traceback.format_exc(limit=-4)}}
    try:
        evidence = probe.run(torch, module, ctx)
    except Exception as error:
        return {"status": ERROR, "reason": f"the probe failed: {type(error).__name__}: {error}",
                "evidence": {"traceback": traceback.format_exc(limit=-4)}}
    evidence.setdefault("import_seconds", round(import_seconds, 3))
    return {"status": OK, "evidence": evidence}


def detect(torch: Any, import_seconds: float) -> dict[str, Any]:
    """The machine as torch sees it: version, devices and their names, and how long torch took to import."""
    info: dict[str, Any] = {
        "torch": torch.__version__, "python": sys.version.split()[0], "import_seconds": round(import_seconds, 3),
        "cuda_build": torch.version.cuda, "cuda": [], "mps": False,
    }
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            info["cuda"].append({"index": index, "name": props.name,
                                 "memory_gib": round(props.total_memory / 2**30, 1)})
        info["cudnn"] = torch.backends.cudnn.version()
    mps = getattr(torch.backends, "mps", None)
    info["mps"] = bool(mps is not None and mps.is_available())
    return info


def _load(path: str, variant: str) -> Any:
    name = f"devlint_fixture_{variant}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
