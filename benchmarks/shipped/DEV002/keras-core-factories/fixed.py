# shipped: https://github.com/keras-team/keras-core/pull/393
# The torch backend's ones/zeros/eye built the tensor on the CPU and then moved it with `.to(get_device())`; fixed by passing `device=get_device()` to the factory.
import torch

from mybackend.core import get_device, to_torch_dtype


def ones(shape, dtype="float32"):
    dtype = to_torch_dtype(dtype)
    if isinstance(shape, int):
        shape = (shape,)
    return torch.ones(size=shape, dtype=dtype, device=get_device())


def zeros(shape, dtype="float32"):
    dtype = to_torch_dtype(dtype)
    if isinstance(shape, int):
        shape = (shape,)
    return torch.zeros(size=shape, dtype=dtype, device=get_device())


def eye(N, M=None, dtype="float32"):
    dtype = to_torch_dtype(dtype)
    M = N if M is None else M
    return torch.eye(N, M, dtype=dtype, device=get_device())
