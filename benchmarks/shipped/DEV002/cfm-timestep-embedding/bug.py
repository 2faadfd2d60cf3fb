# shipped: https://github.com/atong01/conditional-flow-matching/pull/103
# A sinusoidal timestep embedding computed its frequencies from th.arange on the CPU and moved the result with .to(device=timesteps.device); fixed by giving arange device=timesteps.device.
import math

import torch as th


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = th.exp(  # expect: DEV002
        -math.log(max_period) * th.arange(start=0, end=half, dtype=th.float32) / half  # expect: DEV002
    ).to(device=timesteps.device)  # expect: DEV002
    args = timesteps[:, None].float() * freqs[None]
    emb = th.cat([th.cos(args), th.sin(args)], dim=-1)
    if dim % 2:
        emb = th.cat([emb, th.zeros_like(emb[:, :1])], dim=-1)
    return emb
