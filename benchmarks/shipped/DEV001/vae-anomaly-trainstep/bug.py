# shipped: https://github.com/Michedev/VAE_anomaly_detection/commit/0a9eb14b7df226e8195c77d145a0f586ecbb6d67
# A training step moved the batch input with `if self.device: x.to(self.device)` and dropped the copy (reported in issue #10); fixed by `x = x.to(self.device)`.
import torch


class Step:
    def __init__(self, model, opt, device=None):
        self.model = model
        self.opt = opt
        self.device = device

    def __call__(self, engine, batch):
        x = batch[0]
        if self.device: x.to(self.device)  # expect: DEV001
        out = self.model(x)
        out["loss"].backward()
        self.opt.step()
        return out
