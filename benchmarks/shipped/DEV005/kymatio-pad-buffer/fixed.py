# shipped: https://github.com/kymatio/kymatio/commit/daf4a929fdbce320b7653c98169d56c15000e1ea
# The complex output buffer was torch.zeros on the CPU, filled from the padded input and returned, so a GPU input came back on the CPU; fixed with x.new_zeros(...).
import torch
from torch.nn import ReflectionPad2d


class Pad(object):
    def __init__(self, pad_size, pre_pad=False):
        self.pre_pad = pre_pad
        self.pad_size = pad_size
        self.build()

    def build(self):
        self.padding_module = ReflectionPad2d(self.pad_size)

    def __call__(self, x):
        if not self.pre_pad:
            x = self.padding_module(x)
        output = x.new_zeros(x.shape + (2,))
        output[..., 0] = x
        return output
