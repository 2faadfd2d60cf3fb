# shipped: https://github.com/stanfordnlp/stanza/pull/1002
# A positional-encoding table built with torch.zeros was "moved" by `pe.to(device=device)` without keeping the result; fixed by `pe = pe.to(...)`.
import math

import torch
from torch import nn


class SineEncoding(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.register_buffer("pe", self.make_table(dim, max_len))

    @staticmethod
    def make_table(dim, max_len, device=None):
        pos = torch.arange(max_len).unsqueeze(1)
        scale = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, dim)
        pe[:, 0::2] = torch.sin(pos * scale)
        pe[:, 1::2] = torch.cos(pos * scale)
        if device is not None:
            pe = pe.to(device=device)
        return pe

    def forward(self, idx):
        if max(idx) >= self.pe.shape[0]:
            self.register_buffer("pe", self.make_table(self.pe.shape[1], max(idx) + 1, device=self.pe.device))
        return self.pe[idx]
