"""DEV004: a checkpoint saved from CUDA does not load without CUDA unless `map_location` says where.

Without a GPU, the checkpoint is synthesized honestly: a state dict saved while a location tagger
(registered through `torch.serialization.register_package`) names its storages `cuda:0`, exactly
what `torch.save` writes for CUDA tensors. With a GPU, the checkpoint is saved from real CUDA
tensors and loaded in a child that cannot see the GPU.
"""

from __future__ import annotations

import os
from typing import Any

from devlint.frontends.runtime.probes.common import ProbeContext, Step, default_steps, evidence, expecting_error, record
from devlint.frontends.runtime.records import BUG, CLEAN, UNEXPECTED

CUDA_CHECKPOINT = (r"Attempting to deserialize object on a CUDA device",)
CHECKPOINT, REFERENCE = "checkpoint.pt", "reference.pt"


def steps(device: str) -> list[Step]:
    if device == "cuda":
        return [
            Step("bad", None, "with the GPU"),  # saves the real checkpoint the others load
            Step("bad", BUG, "CUDA hidden", hide_cuda=True),
            Step("fixed", CLEAN, "CUDA hidden", hide_cuda=True),
        ]
    return default_steps()


def notes(device: str) -> list[str]:
    if device == "cuda":
        return []
    return ["synthesized checkpoint: saved on the CPU with its storage locations tagged `cuda:0`"
            " (what torch.save writes for CUDA tensors); no GPU made it"]


def run(torch: Any, module: Any, ctx: ProbeContext) -> dict[str, Any]:
    if ctx.device == "cuda":  # shared with the other snippets: the first one, with the GPU, saved it
        workdir = ctx.workdir
        made = _real_checkpoint(torch, workdir, create=not ctx.hide_cuda)
    else:  # each child makes its own, in its own directory
        workdir = os.getcwd()
        made = _synthesized_checkpoint(torch, workdir)
    path = os.path.join(workdir, CHECKPOINT)
    reference = torch.load(os.path.join(workdir, REFERENCE), map_location="cpu", weights_only=True)

    def loaded(name: str, pick: Any) -> Any:
        def judge(value: Any) -> dict[str, Any]:
            state = pick(value)
            where = sorted({str(t.device) for t in state.values()})
            if all(torch.equal(state[k].cpu(), reference[k]) for k in reference):
                return record(name, CLEAN, f"loads on {', '.join(where)}, values equal")
            return record(name, UNEXPECTED, f"loads on {', '.join(where)}, values differ")
        return judge

    calls = [
        expecting_error("restore", lambda: module.restore(torch.nn.Linear(4, 2), path), CUDA_CHECKPOINT,
                        loaded("restore", lambda model: model.state_dict())),
        expecting_error("load_tensors", lambda: module.load_tensors(path), CUDA_CHECKPOINT,
                        loaded("load_tensors", lambda state: state)),
        expecting_error("load_stats", lambda: module.load_stats(path), CUDA_CHECKPOINT,
                        loaded("load_stats", lambda state: state)),
    ]
    locations = storage_locations(torch, path)
    facts = [f"checkpoint ({made['kind']}): {made['how']}; storage locations in the file: {', '.join(locations)}"]
    return evidence(calls, checkpoint=made, storage_locations=locations, facts=facts)


def storage_locations(torch: Any, path: str) -> list[str]:
    """The locations written in the file, read without restoring anything anywhere."""
    seen: list[str] = []

    def keep(storage: Any, location: str) -> Any:
        seen.append(location)
        return storage
    torch.load(path, map_location=keep, weights_only=True)
    return sorted(set(seen))


def _synthesized_checkpoint(torch: Any, workdir: str) -> dict[str, Any]:
    state = torch.nn.Linear(4, 2).state_dict()
    tagging = {"on": False}

    def tag(storage: Any) -> Any:
        return "cuda:0" if tagging["on"] else None  # None: the next tagger (torch's own) decides

    def restore(storage: Any, location: str) -> Any:
        return None  # never ours to restore: torch's own deserializers handle `cuda:0`
    torch.serialization.register_package(1, tag, restore)
    tagging["on"] = True
    try:
        torch.save(state, os.path.join(workdir, CHECKPOINT))
    finally:
        tagging["on"] = False
    torch.save(state, os.path.join(workdir, REFERENCE))
    return {"kind": "synthesized", "how": "storage locations tagged cuda:0 by a registered tagger; no GPU involved"}


def _real_checkpoint(torch: Any, workdir: str, create: bool) -> dict[str, Any]:
    path = os.path.join(workdir, CHECKPOINT)
    if create and not os.path.exists(path):
        model = torch.nn.Linear(4, 2).cuda()
        torch.save(model.state_dict(), path)
        torch.save({k: v.cpu() for k, v in model.state_dict().items()}, os.path.join(workdir, REFERENCE))
    if not os.path.exists(path):
        raise RuntimeError(f"no checkpoint in {workdir}: the run with the GPU did not make one")
    gpu = torch.cuda.get_device_name(0) if create else "the GPU"
    return {"kind": "real", "how": f"saved from CUDA tensors on {gpu}"}
