# shipped: https://github.com/KellerJordan/modded-nanogpt/pull/161
# torchrun script ran a module-level warm-up torch.empty(1, device="cuda").backward() before set_device(LOCAL_RANK), so every rank made a context on GPU 0; fixed with device=f"cuda:{LOCAL_RANK}".
import os
import sys

with open(sys.argv[0]) as f:
    code = f.read()

os.environ["PYTORCH_ALLOC_CONF"] = "expandable_segments:True"
import torch

torch.empty(1, device=f"cuda:{os.environ['LOCAL_RANK']}", requires_grad=True).backward()
import torch.distributed as dist
from torch import nn

from model import GPT

rank = int(os.environ["RANK"])
world_size = int(os.environ["WORLD_SIZE"])
assert torch.cuda.is_available()
device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
torch.cuda.set_device(device)
dist.init_process_group(backend="nccl", device_id=device)
dist.barrier()

model: nn.Module = GPT(vocab_size=50257, num_layers=11, model_dim=768).cuda()
for param in model.parameters():
    dist.broadcast(param.detach(), 0)
