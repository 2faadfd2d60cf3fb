# shipped: https://github.com/PTB-MR/mrpro/pull/985
# Dataclass.cpu() moved every tensor field to the host with non_blocking=True and returned at once; callers read zeros/partial data. Fixed with non_blocking=False.
from __future__ import annotations

from copy import copy as shallowcopy

import torch
from typing_extensions import Self


class Dataclass:
    def _to(self, device=None, dtype=None, non_blocking: bool = False, copy: bool = False) -> Self:
        new = shallowcopy(self) if copy else self
        for name, value in vars(self).items():
            if isinstance(value, torch.Tensor):
                setattr(new, name, value.to(device, dtype, non_blocking=non_blocking, copy=copy))
            elif isinstance(value, Dataclass):
                setattr(new, name, value._to(device, dtype, non_blocking, copy))
        return new

    def cuda(self, device=None, *, non_blocking: bool = False, copy: bool = False) -> Self:
        if device is None:
            device = torch.device(torch.cuda.current_device())
        return self._to(device=device, dtype=None, non_blocking=non_blocking, copy=copy)

    def cpu(self, *, copy: bool = False) -> Self:
        return self._to(device='cpu', dtype=None, non_blocking=True, copy=copy)  # expect: DEV010
