# shipped: https://github.com/MIC-DKFZ/nnUNet/pull/2684
# Trainer imported GradScaler from torch.cuda.amp and built it only on CUDA devices; replaced by `from torch import GradScaler` and GradScaler("cuda").
import torch
from torch import autocast, nn
from torch import GradScaler


class SegTrainer(object):
    def __init__(self, plans, device: torch.device = torch.device("cuda")):
        self.device = device
        self.plans = plans
        self.network = None
        self.optimizer = self.lr_scheduler = None
        self.grad_scaler = GradScaler("cuda") if self.device.type == "cuda" else None

    def train_step(self, data, target):
        data = data.to(self.device, non_blocking=True)
        target = target.to(self.device, non_blocking=True)
        self.optimizer.zero_grad(set_to_none=True)
        with autocast(self.device.type, enabled=True):
            loss = self.loss(self.network(data), target)
        if self.grad_scaler is not None:
            self.grad_scaler.scale(loss).backward()
            self.grad_scaler.step(self.optimizer)
            self.grad_scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
        return loss.detach()
