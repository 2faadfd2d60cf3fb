# shipped: https://github.com/facebookresearch/fairchem/pull/930
# Equivariant layer norm disabled mixed precision with the deprecated @torch.cuda.amp.autocast(enabled=False) decorator; replaced by @torch.autocast("cuda", enabled=False).
from __future__ import annotations

import torch
import torch.nn as nn


class SphericalLayerNorm(nn.Module):
    def __init__(self, lmax: int, channels: int, eps: float = 1e-5):
        super().__init__()
        self.lmax = lmax
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(lmax + 1, channels))
        self.bias = nn.Parameter(torch.zeros(channels))

    @torch.cuda.amp.autocast(enabled=False)  # expect: DEV008
    def forward(self, x):
        parts = []
        for l in range(self.lmax + 1):
            feat = x.narrow(1, l * l, 2 * l + 1)
            if l == 0:
                feat = feat - feat.mean(dim=2, keepdim=True)
            norm = feat.pow(2).mean(dim=1, keepdim=True).mean(dim=2, keepdim=True)
            feat = feat * (norm + self.eps).pow(-0.5) * self.weight.narrow(0, l, 1).view(1, 1, -1)
            if l == 0:
                feat = feat + self.bias.view(1, 1, -1)
            parts.append(feat)
        return torch.cat(parts, dim=1)
