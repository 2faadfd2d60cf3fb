# shipped: https://github.com/jmclong/random-fourier-features-pytorch/pull/4
# The frequency index j came from torch.arange on the CPU and the coefficients built from it multiplied the caller's input; fixed with device=v.device.
import numpy as np
import torch
from torch import Tensor


@torch.jit.script
def positional_encoding(v: Tensor, sigma: float, m: int) -> Tensor:
    j = torch.arange(m)  # expect: DEV005
    coeffs = 2 * np.pi * sigma ** (j / m)
    vp = coeffs * torch.unsqueeze(v, -1)
    vp_cat = torch.cat((torch.cos(vp), torch.sin(vp)), dim=-1)
    return vp_cat.flatten(-2, -1)
