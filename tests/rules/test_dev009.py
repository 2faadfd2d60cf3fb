"""DEV009 — unindexed CUDA in a distributed script that never pins its rank to a GPU.

Each case is a snippet and the exact `(line, col, code)` reports DEV009 gives on it, named as users run a
preview rule (`--extend-select DEV009`).
"""

from __future__ import annotations

import pytest

from conftest import lint, lint_messages
from rules.cases import cases_for

case = cases_for("DEV009")


def reports(code: str, snippet: str) -> list[tuple[int, int, str]]:
    """(line, col, code) of rule `code`'s reports on the snippet with the rule named."""
    return [report for report in lint(snippet, extend_select=(code,)) if report[2] == code]


HEAD = "import os\nimport torch\nimport torch.distributed as dist"
# A program that pins its rank, then starts NCCL: what its module places before `main()` runs lands on GPU 0
PINNING_MAIN = """def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
if __name__ == "__main__":
    main()
"""
# The program's default device, `"cuda"` unindexed, handed to each spawned worker, which may `{replace}` it first
SPAWNED_WORKER = """
def main_worker(index, opt):{replace}
    dist.init_process_group("nccl", rank=index, world_size=2)
    model = torch.nn.Linear(2, 2).to(opt.device)
if __name__ == "__main__":
    opt = parse()
    opt.device = torch.device("cpu" if opt.no_cuda else "cuda")
    torch.multiprocessing.spawn(main_worker, nprocs=2, args=(opt,))
"""

FLAGGED = [
    case("nccl_program_that_never_pins_its_rank", HEAD + """
def main():
    dist.init_process_group(backend="nccl")
    gpu = int(os.environ["LOCAL_RANK"])
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2).to(gpu), device_ids=[gpu])
if __name__ == "__main__":
    main()
""", [(5, 5)]),
    # the program's default device is replaced in each rank's worker by one with its index: not every rank's GPU 0,
    # but with nothing pinned each rank's current device is still GPU 0 (the report at the group's start)
    case("default_device_each_worker_replaces_with_its_index",
         HEAD + SPAWNED_WORKER.format(replace='\n    opt.device = torch.device(f"cuda:{index}")'), [(6, 5)]),
    case("default_device_no_worker_replaces", HEAD + SPAWNED_WORKER.format(replace=""), [(9, 57)]),
    case("local_rank_written_and_read", HEAD + """
os.environ["LOCAL_RANK"] = os.environ.get("LOCAL_RANK", "0")
model = torch.nn.Linear(2, 2).cuda()
""", [(5, 9)]),
    case("cuda_method_after_init_process_group", HEAD + """
dist.init_process_group("nccl")
model = torch.nn.Linear(2, 2).cuda()
""", [(5, 9)]),
    case("torch_device_cuda_where_the_process_group_starts", """
import torch
from torch.distributed import init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
init_process_group("nccl")
device = torch.device("cuda")
model = DDP(torch.nn.Linear(2, 2).to(device))
""", [(5, 10)]),
    case("availability_guard_does_not_pick_the_rank", HEAD + """
local_rank = int(os.environ["LOCAL_RANK"])
device = "cuda" if torch.cuda.is_available() else "cpu"
""", [(5, 10)]),
    case("device_keyword_and_to_and_map_location", HEAD + """
dist.init_process_group("nccl")
x = torch.zeros(3, device="cuda")
y = x.to("cuda")
state = torch.load("ckpt.pt", map_location="cuda")
""", [(5, 27)]),  # one cause, one report: at the first placement, naming the others
    case("a_function_that_returns_the_device", HEAD + """
dist.init_process_group("nccl")
def get_device():
    return "cuda" if torch.cuda.is_available() else "cpu"
""", [(6, 12)]),
    case("module_level_allocation_runs_before_set_device_in_main", HEAD + """
workspace = torch.empty(1 << 20, device="cuda")
""" + PINNING_MAIN, [(4, 41)]),
    case("a_loss_given_class_weights_moved_before_set_device", HEAD + """
weighted = torch.nn.CrossEntropyLoss(weight=torch.ones(10)).cuda()
""" + PINNING_MAIN, [(4, 12)]),
    case("import_time_warm_up_before_set_device", HEAD + """
def warm_up():
    torch.ones(8).cuda().sum()
warm_up()
def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
""", [(5, 5)]),
    case("model_moved_in_main_before_its_set_device", HEAD + """
def main():
    dist.init_process_group("nccl")
    model = torch.nn.Linear(2, 2).cuda()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    batch = torch.ones(2, 2).to("cuda")
main()
""", [(6, 13)]),
    case("a_tensors_get_device_pins_nothing", HEAD + """
def main(batch):
    dist.init_process_group("nccl")
    index = batch.get_device()
if __name__ == "__main__":
    main(None)
""", [(5, 5)]),
    case("barrier_before_set_device_under_nccl", HEAD + """
def main():
    dist.init_process_group("nccl")
    dist.barrier()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
if __name__ == "__main__":
    main()
""", [(6, 5)]),
    case("a_helpers_barrier_before_the_set_device_main_calls", HEAD + """
from project.distributed import barrier
def main(cfg):
    barrier()
    torch.cuda.set_device(cfg.local_rank)
if __name__ == "__main__":
    dist.init_process_group(backend="nccl")
    main(None)
""", [(6, 5)]),
    # the look-alikes of the library helper: the function that starts the group places too, or a function of the
    # file runs the start and then the placement
    case("a_library_function_that_starts_the_group_and_places", HEAD + """
def train(model):
    dist.init_process_group("nccl")
    return model.cuda()
""", [(6, 12)]),
    case("a_library_module_that_starts_at_its_top_level_through_an_imported_name", """
import torch
from torch.distributed import init_process_group as start
start("nccl")
def count(n):
    return torch.zeros(n).cuda()
""", [(5, 12)]),
    case("a_library_method_run_after_the_start_by_the_same_caller", HEAD + """
class Trainer:
    def setup(self):
        dist.init_process_group("nccl")
    def build(self, model):
        return model.cuda()
    def fit(self, model):
        self.setup()
        self.build(model)
""", [(8, 16)]),
]

CLEAN = [
    # nanotron's trainer: the rank is read in a method; the caller builds the parallel context (another module)
    # that pins the device. The look-alike that reads it at import is `availability_guard_does_not_pick_the_rank`.
    case("a_library_module_that_reads_the_rank_in_a_function", HEAD + """
def local_rank():
    return int(os.environ["LOCAL_RANK"])
def count(model):
    total = torch.tensor(sum(p.numel() for p in model.parameters()), device="cuda")
    return total
""", []),
    case("a_program_that_sets_its_device_up_through_another_modules_helper", HEAD + """
from project import utils
def main(cfg):
    device = utils.get_device(device=cfg.device)
    dist.init_process_group(backend="nccl")
    return torch.zeros(2, device=device)
if __name__ == "__main__":
    main(None)
""", []),
    # MambaVision's train.py: a loss with no parameters or buffers, moved at import; nothing lands on GPU 0
    case("a_parameter_free_loss_moved_before_set_device", HEAD + """
kl_loss = torch.nn.KLDivLoss(reduction="batchmean").cuda()
ce_loss = torch.nn.CrossEntropyLoss().to("cuda")
""" + PINNING_MAIN, []),
    case("barrier_after_set_device", HEAD + """
def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.barrier()
if __name__ == "__main__":
    main()
""", []),
    case("barrier_given_its_device", HEAD + """
def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")
    dist.barrier(device_ids=[local_rank])
    torch.cuda.set_device(local_rank)
if __name__ == "__main__":
    main()
""", []),
    case("barrier_under_gloo", HEAD + """
def main():
    dist.init_process_group("gloo")
    dist.barrier()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
if __name__ == "__main__":
    main()
""", []),
    case("barrier_in_a_library_module_that_never_pins", HEAD + """
def sync():
    dist.init_process_group("nccl")
    dist.barrier()
""", []),
    case("nccl_program_that_pins_its_rank_after_starting", HEAD + """
def main():
    dist.init_process_group(backend="nccl")
    gpu = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(gpu)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2).to(gpu), device_ids=[gpu])
if __name__ == "__main__":
    main()
""", []),
    case("nccl_started_by_a_library_module_another_file_pins", HEAD + """
def setup(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
""", []),
    # efficientvit's apps/utils/dist.py: a helper module starts NCCL in `dist_init`; `sync_tensor` runs in the
    # process its caller set up, and every caller pins the device in its own file after `dist_init()`
    case("a_library_helper_beside_the_function_that_starts_the_group", HEAD + """
def is_dist_initialized():
    return dist.is_initialized()
def dist_init():
    if is_dist_initialized():
        return
    dist.init_process_group(backend="nccl")
def sync_tensor(value):
    if not is_dist_initialized():
        return value
    return torch.Tensor(1).fill_(value).cuda()
""", []),
    case("nccl_program_whose_launcher_gives_each_rank_one_gpu", HEAD + """
os.environ["CUDA_VISIBLE_DEVICES"] = os.environ["LOCAL_RANK"]
def main():
    dist.init_process_group("nccl")
if __name__ == "__main__":
    main()
""", []),
    case("set_device_pins_the_rank", HEAD + """
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("accelerator_set_device_index_pins_the_rank", HEAD + """
dist.init_process_group("nccl")
torch.accelerator.set_device_index(int(os.environ["LOCAL_RANK"]))
model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("indexed_devices_are_fine", HEAD + """
local_rank = int(os.environ["LOCAL_RANK"])
dist.init_process_group("nccl")
model = torch.nn.Linear(2, 2).cuda(local_rank)
x = torch.zeros(3, device=f"cuda:{local_rank}")
d = torch.device("cuda", local_rank)
""", []),
    case("ddp_wrapping_alone_leaves_the_rank_set_up_elsewhere", """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
def wrap(model):
    return DDP(model.cuda())
""", []),
    case("a_file_that_does_not_start_distributed_training", """
import torch
model = torch.nn.Linear(2, 2).cuda()
device = torch.device("cuda")
""", []),
    case("a_launcher_that_pins_the_device", HEAD + """
from accelerate import Accelerator
dist.init_process_group("nccl")
model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("cuda_visible_devices_per_rank", HEAD + """
os.environ["CUDA_VISIBLE_DEVICES"] = os.environ["LOCAL_RANK"]
dist.init_process_group("nccl")
model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("init_process_group_with_device_id", HEAD + """
dist.init_process_group("nccl", device_id=torch.device("cuda", int(os.environ["LOCAL_RANK"])))
model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("rank_zero_only_code_uses_gpu_zero_rightly", HEAD + """
dist.init_process_group("nccl")
if dist.get_rank() == 0:
    probe = torch.zeros(1).cuda()
""", []),
    case("the_single_process_branch", HEAD + """
def main(args):
    if args.distributed:
        dist.init_process_group("nccl")
    else:
        model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("comparisons_and_device_types_are_not_devices", HEAD + """
dist.init_process_group("nccl")
def f(x):
    same = x.device == torch.device("cuda")
    with torch.autocast("cuda"):
        return same
""", []),
    case("gloo_only_single_host_demo", HEAD + """
dist.init_process_group("gloo", rank=int(os.environ["RANK"]), world_size=2)
model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("a_device_object_made_before_set_device_places_nothing", HEAD + """
device = torch.device("cuda")
DEVICE = "cuda"
def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    model = torch.nn.Linear(2, 2).to(device)
main()
""", []),
    case("set_device_in_a_branch_on_distribution_comes_first", HEAD + """
def main(args):
    if args.distributed:
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        dist.init_process_group("nccl")
    model = torch.nn.Linear(2, 2).cuda()
main(parse())
""", []),
    case("functions_that_call_each_other_are_read_once", HEAD + """
def a(n):
    return b(n - 1) if n else torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
def b(n):
    return a(n)
a(3)
dist.init_process_group("nccl")
model = torch.nn.Linear(2, 2).cuda()
""", []),
    case("work_of_a_function_nobody_calls_at_import", HEAD + """
def build():
    return torch.nn.Linear(2, 2).cuda()
def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    return build()
main()
""", []),
    case("torch_cuda_module_is_not_a_move", HEAD + """
dist.init_process_group("nccl")
n = torch.cuda.device_count()
""", []),
    # mmdetection's scripts hand the launcher's rank to mmcv's `init_dist`, which pins it: a write is no read
    case("local_rank_written_for_a_helper_that_starts_the_group", """
import os
import torch
from mmdet.apis import init_dist
from mmcv.parallel import MMDistributedDataParallel
def main(args):
    if 'LOCAL_RANK' not in os.environ:
        os.environ['LOCAL_RANK'] = str(args.local_rank)
    init_dist(args.launcher)
    model = MMDistributedDataParallel(model.cuda(), device_ids=[args.local_rank])
if __name__ == '__main__':
    main(parse_args())
""", []),
]


@pytest.mark.parametrize("snippet, expected", FLAGGED + CLEAN)
def test_dev009(snippet, expected):
    assert reports("DEV009", snippet) == expected


def test_one_missing_set_device_is_one_report_at_the_first_placement_naming_the_others():
    snippet = HEAD + """
dist.init_process_group("nccl")
def build():
    return torch.nn.Linear(2, 2).cuda()
x = torch.zeros(3, device="cuda")
"""
    assert reports("DEV009", snippet) == [(6, 12, "DEV009")]
    assert lint_messages(snippet, "DEV009", extend_select=("DEV009",))[0].endswith('(also `"cuda"` at module level)')


def test_placements_before_a_late_set_device_are_one_report():
    snippet = HEAD + """
def main():
    dist.init_process_group("nccl")
    model = torch.nn.Linear(2, 2).cuda()
    batch = torch.ones(2, 2).to("cuda")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
main()
"""
    assert reports("DEV009", snippet) == [(6, 13, "DEV009")]
    assert lint_messages(snippet, "DEV009", extend_select=("DEV009",))[0].endswith('(also `"cuda"` in `main`)')
