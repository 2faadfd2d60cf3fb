# shipped: https://github.com/WenjieDu/PyPOTS/pull/794
# NaN padding blocks were made with torch.full on the CPU and concatenated with the caller's array; fixed with device=arr.device, dtype=arr.dtype.
import numpy as np
import torch


def pad_nan(arr, left=0, right=0, dim=0):
    if left > 0:
        pad_shape = list(arr.shape)
        pad_shape[dim] = left
        arr = torch.cat((torch.full(pad_shape, np.nan), arr), dim=dim)  # expect: DEV005
    if right > 0:
        pad_shape = list(arr.shape)
        pad_shape[dim] = right
        arr = torch.cat((arr, torch.full(pad_shape, np.nan)), dim=dim)  # expect: DEV005
    return arr
