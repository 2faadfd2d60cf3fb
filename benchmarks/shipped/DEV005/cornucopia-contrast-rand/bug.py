# shipped: https://github.com/balbasty/cornucopia/pull/22
# New lookup centres were drawn with torch.rand on the CPU and scaled by the input's min/max (0-dim tensors on its device); fixed with .to(x).
import torch

from .base import FinalTransform, NonFinalTransform


class RandomLookupContrast(NonFinalTransform):
    def __init__(self, nk=16, **kwargs):
        super().__init__(**kwargs)
        self.nk = nk

    def make_final(self, x, max_depth=float("inf")):
        if max_depth == 0:
            return self
        vmin, vmax = x.min(), x.max()
        edges = torch.linspace(vmin, vmax, self.nk + 1)
        new_mu = torch.rand(self.nk) * (vmax - vmin) + vmin  # expect: DEV005
        return self.ApplyLookup(edges, new_mu, **self.get_prm()).make_final(x, max_depth - 1)

    class ApplyLookup(FinalTransform):
        def __init__(self, edges, mu, **kwargs):
            super().__init__(**kwargs)
            self.edges = edges
            self.mu = mu
