# shipped: https://github.com/facebookresearch/fairchem/pull/930
# Base trainer built torch.cuda.amp.GradScaler() and validated under torch.cuda.amp.autocast(...); replaced by torch.GradScaler("cuda") / torch.autocast("cuda", ...).
import torch

from fairchem.core.common import distutils


class Trainer:
    def __init__(self, model, loaders, amp=False, cpu=False):
        self.cpu = cpu
        self.device = torch.device("cpu" if cpu else f"cuda:{distutils.get_local_rank()}")
        self.model = model.to(self.device)
        self.val_loader = loaders["val"]
        self.scaler = torch.GradScaler("cuda") if amp and not self.cpu else None

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total = 0.0
        for batch in self.val_loader:
            with torch.autocast("cuda", enabled=self.scaler is not None):
                batch.to(self.device)
                out = self.model(batch)
            total += self.loss(out, batch).item()
        return total / len(self.val_loader)
