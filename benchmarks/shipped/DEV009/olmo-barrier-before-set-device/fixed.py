# shipped: https://github.com/allenai/OLMo/pull/720
# torchrun script initialised NCCL and ran a barrier() before torch.cuda.set_device(local rank), so GPU 0 carried extra memory from every rank; fixed by calling set_device before init_process_group.
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from olmo.config import TrainConfig
from olmo.model import OLMo
from olmo.torch_util import barrier, get_global_rank, get_local_rank
from olmo.train import Trainer


def main(cfg: TrainConfig) -> None:
    if cfg.run_name is None:
        raise ValueError("--run_name is required")

    barrier()

    device = torch.device("cuda")

    if get_global_rank() == 0:
        cfg.save(cfg.save_folder + "/config.yaml")
    barrier()

    model = OLMo(cfg.model).to(device)
    Trainer(cfg=cfg, model=model, device=device).fit()


if __name__ == "__main__":
    mp.set_start_method("spawn", force=True)

    torch.cuda.set_device(f"cuda:{get_local_rank()}")

    dist.init_process_group(backend="nccl", timeout=timedelta(minutes=30))

    cfg = TrainConfig.load(sys.argv[1], sys.argv[2:])
    main(cfg)
