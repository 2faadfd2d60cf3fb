"""DEV009 — unindexed CUDA in a distributed script that never pins its rank to a GPU."""

from __future__ import annotations

import ast
import re

from devlint.analysis.prefilter import ACCELERATOR_STRING, ESCAPE, any_of
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule

# The names a distributed start is made of, or a `"LOCAL_RANK"` that may be spelled with escapes or
# split over adjacent literals (a quote, blanks, a quote), as ACCELERATOR_STRING allows for "cuda".
_STARTS_DISTRIBUTED = any_of("init_process_group", "DistributedDataParallel", "LOCAL_RANK", ESCAPE,
                             re.compile(r"""["']\s*["']"""))


# The project's own function that may start the process group, by its name (`init_distributed_mode`, `setup_ddp`,
# `dist_init`, `init_parallel`): only these are asked of the project index (`group_helper`). A plain `init` or `setup`
# is not: it let the screen keep 6% more files of `full`, and a start through one is not told apart by its name.
SETS_UP_DISTRIBUTED = re.compile(r"dist|ddp|parallel|launch", re.IGNORECASE)


# A device string, or the NCCL backend's name (a program that starts NCCL and never pins its rank).
_CUDA_OR_NCCL = any_of(ACCELERATOR_STRING, "nccl")


def _screen(facts: SyntaxFacts) -> bool:
    """A `"cuda"` literal without an index, or a `.cuda(...)` call, in a file that may set a rank up:
    a `"LOCAL_RANK"` literal, a call of `init_process_group` (any receiver, any torch alias), or in a program a
    call of an imported function named as a set-up is (the project index says whether it starts a group); or a
    program (`if __name__ == "__main__":`) that names the `"nccl"` backend; or a file that calls a `barrier` and
    `set_device` and names the `"nccl"` backend (the barrier may run before the pin)."""
    if _nccl_program(facts.tree) or (_calls(facts, "barrier") and _calls(facts, "set_device")
                                     and _names_nccl(facts.tree)):
        return True
    if not (facts.bare_cuda_string or "cuda" in facts.methods_called):
        return False
    if facts.local_rank_string or "init_process_group" in facts.methods_called:
        return True
    imported = _imported_names(facts.tree) if _has_main(facts.tree) else {}
    return any((type(call.func) is ast.Name and call.func.id == "init_process_group")
               or any(name.endswith(".init_process_group") for name in facts.torch_names(call))
               or _calls_a_set_up_helper(call, imported)
               for call in facts.calls)


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """The names the module's top-level imports bind, other than torch's, each with the name it was imported as
    (`setup` of `from utils import init_distributed_mode as setup`: "init_distributed_mode")."""
    found: dict[str, str] = {}
    for statement in tree.body:
        if type(statement) is ast.Import:
            found.update(((alias.asname or alias.name).split(".")[0], alias.name) for alias in statement.names
                         if alias.name.split(".")[0] != "torch")
        elif type(statement) is ast.ImportFrom and (
                statement.level or (statement.module or "").split(".")[0] != "torch"):
            found.update((alias.asname or alias.name, alias.name) for alias in statement.names)
    return found


def _calls_a_set_up_helper(call: ast.Call, imported: dict[str, str]) -> bool:
    """`init_distributed_mode(args)`, `utils.setup_ddp(rank)`: a function imported from the project, named as a
    distributed set-up is (the project index says whether it starts a process group)."""
    func, last = call.func, None
    if type(func) is ast.Attribute:
        last = func.attr
        while type(func) is ast.Attribute:
            func = func.value
    if type(func) is not ast.Name or func.id not in imported:
        return False
    return bool(SETS_UP_DISTRIBUTED.search(last or imported[func.id]))


def _nccl_program(tree: ast.Module) -> bool:
    return _has_main(tree) and _names_nccl(tree)


def _has_main(tree: ast.Module) -> bool:
    """An `if __name__ == ...:` block at the top level: a program."""
    return any(type(statement) is ast.If and type(statement.test) is ast.Compare  # type: ignore[attr-defined]
               and type(statement.test.left) is ast.Name and statement.test.left.id == "__name__"  # type: ignore
               for statement in tree.body)


def _names_nccl(tree: ast.Module) -> bool:
    return any(type(node) is ast.Constant and node.value == "nccl" for node in ast.walk(tree))


def _calls(facts: SyntaxFacts, name: str) -> bool:
    """`name(...)` or `R.name(...)` somewhere in the file."""
    return name in facts.methods_called or any(type(call.func) is ast.Name and call.func.id == name  # type: ignore
                                               for call in facts.calls)


RULE = Rule(
    code="DEV009",
    name="unindexed-cuda-under-ddp",
    summary="`.cuda()`, `torch.device(\"cuda\")` or `\"cuda\"` without an index in a distributed script that never"
            " calls `torch.cuda.set_device`, or that calls it after placing something",
    why="""
        Every process of a multi-GPU run starts with GPU 0 as its current device. `torchrun` and
        `torch.distributed.launch` only set `LOCAL_RANK`; they pin nothing. Until the script calls
        `torch.cuda.set_device(local_rank)`, an unindexed `.cuda()`, `torch.device("cuda")` or `"cuda"`
        means GPU 0 in every rank: all the models and batches pile onto one GPU (out of memory there, the
        others idle), and NCCL collectives between ranks that share a GPU hang or fail. A file is taken
        to set up its rank when it calls `init_process_group` or reads `LOCAL_RANK`, or (a program) calls a
        function of its project, named as a distributed set-up is, that starts a process group
        (`utils.init_distributed_mode(args)`, read in that module: it also pins where the function, what it calls
        there or the module's top level names
        `set_device`, `device_id`, `CUDA_VISIBLE_DEVICES` or a launcher) (wrapping a model in
        `DistributedDataParallel` alone is not enough: libraries wrap in one module and pin the device in
        another, as timm and Lightning do; nor is writing `os.environ["LOCAL_RANK"]`, which hands the rank to
        the helper that starts the group, mmcv's `init_dist`, which pins it); it is taken as pinned when it calls any
        `set_device(...)` or `set_device_index(...)`, uses `torch.cuda.device(...)`, passes `device_id=`
        to `init_process_group`, calls another module's function that sets the device up by its name
        (`utils.get_device(...)`, `setup_device(...)`: it may call `set_device`, and the file cannot show it does
        not), mentions `CUDA_VISIBLE_DEVICES`, or imports a framework that pins the
        device when it launches (accelerate, Lightning, ignite, DeepSpeed, ColossalAI), or Ray, which shows
        each GPU worker only its own GPU. The availability
        guard that DEV003 asks for does not help here: `"cuda" if torch.cuda.is_available() else "cpu"`
        is still GPU 0 in every rank, and is reported. An unguarded `.cuda()` in such a file gets both
        reports: DEV003 (fails without CUDA) and DEV009 (every rank on GPU 0). A file whose every
        `init_process_group` names the `"gloo"` backend is a CPU demo and is left alone. A program (`if
        __name__ == "__main__":`) that starts NCCL (`init_process_group("nccl")`) and never pins is reported at
        that call even where every placement names its GPU (`.to(local_rank)`, `device_ids=[local_rank]`):
        each rank's current device is still GPU 0, where its CUDA context, its pinned memory and NCCL's
        barriers go (PyTorch's DDP examples call `set_device` for this). A module without a `__main__` block
        is left alone there: a library starts the group in one file and pins in another. A library module that
        neither starts a process group nor reads `LOCAL_RANK` at its top level (it reads the rank inside a
        function) is left alone entirely: its caller sets the rank up and may pin it in another file. One that
        starts the group only inside a function (a `dist_init()` helper) has only what runs in that process
        reported: the function that starts it, the file's functions that call that one, and what they call; a
        helper beside it (`sync_tensor`) runs where its caller set up, and maybe pinned. One cause is one
        report: the placements a missing `set_device` leaves on GPU 0 (or a late one lets run first) are
        reported once, at the first, naming the others; its fix indexes one placement, and `--fix` goes on
        to the next until each that can be is indexed.

        Order matters too: where the file pins with `set_device`, what every rank places on the GPU
        before that call runs (`.cuda()`, `.to("cuda")`, `device="cuda"` or `map_location="cuda"` given)
        is already on GPU 0: a module-level `torch.empty(..., device="cuda")`, an import-time warm-up (a
        function of the file called at module level), or a model moved earlier in the function that pins.
        So is a barrier (`dist.barrier()`, or a helper of that name) without `device_ids=` in a file that starts
        NCCL: before the pin, PyTorch has to guess the GPU a barrier runs on (`using GPU 0 to perform barrier as
        devices used by this process are currently unknown`, a warning that a wrong guess may hang), and every
        rank's current device, where its CUDA context goes, is GPU 0.
        The module's statements are read in the order they run, following calls of the file's own
        functions (a branch that depends on the rank is skipped; a call that cannot be followed, or a
        branch that may pin, ends the read). A `torch.device("cuda")` made early places nothing: it
        means the current device when it is used. A default device that each rank's worker replaces with one
        given its index (`opt.device = torch.device("cuda")` in `__main__`, `opt.device =
        torch.device(f"cuda:{index}")` in the worker) is no placement on GPU 0, and a call of the project's own
        function that pins (`make_data_parallel(model, device)` calling `set_device`) pins the file.

        In preview (on where it is selected by its code, `--select DEV009`, or with `--preview`): labelled blind
        on training repositories nobody here had read, its 13 reports of the last seven rounds were 5 true, 2
        harmless and 6 false, each false one a set-up the file does not show (a worker that replaces the device,
        the project's helper that pins, a loss with nothing to place), far above the 5% a default rule may have.
    """,
    example="""
        local_rank = int(os.environ["LOCAL_RANK"])
        dist.init_process_group("nccl")
        model = DDP(model.cuda(), device_ids=[local_rank])
        device = torch.device("cuda")
    """,
    instead="""
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)  # or index every device:
        dist.init_process_group("nccl")
        model = DDP(model.cuda(local_rank), device_ids=[local_rank])
        device = torch.device("cuda", local_rank)
    """,
    fix_safety=FixSafety.UNSAFE,
    fix="""
        Where a name holding the local rank is bound at that line (assigned `int(os.environ["LOCAL_RANK"])`,
        `int(os.environ.get("LOCAL_RANK", ...))`, `int(os.getenv("LOCAL_RANK"))` or
        `torch.distributed.get_node_local_rank()` or `rank % torch.cuda.device_count()` by a statement directly
        in the function's or the module's body, and not rebound since), the fix indexes the device with it: `.cuda()` becomes `.cuda(local_rank)`,
        `torch.device("cuda")` becomes `torch.device("cuda", local_rank)`, and another `"cuda"` becomes
        `f"cuda:{local_rank}"`. `dist.get_rank()` is the global rank, past the last GPU on a second node, and
        is never used. No fix without such a name. Unsafe: where a launcher gives each process only its own
        GPU (`CUDA_VISIBLE_DEVICES` set per rank, which this file does not show), the local rank is not a
        valid index there, and calling `torch.cuda.set_device(local_rank)` once may be the better change.
    """,
    tokens=("torch", _STARTS_DISTRIBUTED, _CUDA_OR_NCCL),  # (the rarer first: the prefilter stops at a missing one)
    screen=_screen,
    preview=True,
)
