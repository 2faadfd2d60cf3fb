"""Which of DEV005's meetings PyTorch really refuses: each shape run with a CUDA tensor and a CPU one.

    python benchmarks/dev005_device_check.py     # on a machine with a CUDA GPU

Prints one line per shape: `raises` (with PyTorch's message) or `works`. The rule reports exactly
the shapes that raise (and a host buffer that leaves the function, which works but hands the caller
a CPU tensor). Run by hand, never by the tests (they run without a GPU).
"""

from __future__ import annotations

import torch


def shapes(x, cpu_index, cpu_mask, cpu_scalar, cuda_index, cuda_mask, host_table):
    yield "x[cpu_index]", lambda: x[cpu_index]
    yield "x[cpu_mask]", lambda: x[cpu_mask]
    yield "x.index_select(0, cpu_index)", lambda: x.index_select(0, cpu_index)
    yield "x.index_select(0, cpu 0-dim index)", lambda: x.index_select(0, torch.tensor(0))
    yield "x.gather(0, cpu_index)", lambda: x.gather(0, cpu_index)
    yield "x.clone().scatter_(0, cpu_index, 1.0)", lambda: x.clone().scatter_(0, cpu_index, 1.0)
    yield "x.clone().scatter_add_(0, cpu_index, x)", lambda: x.clone().scatter_add_(0, cpu_index, x[:3])
    yield "x.clone().index_add_(0, cpu_index, x)", lambda: x.clone().index_add_(0, cpu_index, x[:3])
    yield "x.clone().index_copy_(0, cpu_index, x)", lambda: x.clone().index_copy_(0, cpu_index, x[:3])
    yield "x.clone().index_fill_(0, cpu_index, 0)", lambda: x.clone().index_fill_(0, cpu_index, 0)
    yield "torch.take_along_dim(x, cpu_index)", lambda: torch.take_along_dim(x, cpu_index)
    yield "x.masked_select(cpu_mask)", lambda: x.masked_select(cpu_mask)
    yield "x.masked_fill(cpu_mask, 0)", lambda: x.masked_fill(cpu_mask, 0)
    yield "x.masked_fill(cpu 0-dim mask, 0)", lambda: x.masked_fill(torch.tensor(True), 0)
    yield "x.clone().masked_fill_(cpu_mask, 0)", lambda: x.clone().masked_fill_(cpu_mask, 0)
    yield "torch.where(cpu_mask, x, 0)", lambda: torch.where(cpu_mask, x, 0)
    yield "torch.where(cpu 0-dim mask, x, 0)", lambda: torch.where(torch.tensor(True), x, 0)
    yield "x.clone().index_put_((cpu_index,), x[:3])", lambda: x.clone().index_put_((cpu_index,), x[:3])
    yield "x.clone().index_put_((cpu_index,), cpu values)", lambda: x.clone().index_put_((cpu_index,), torch.ones(3))
    yield "host_table[cuda_index]", lambda: host_table[cuda_index]
    yield "host_table[cuda_mask]", lambda: host_table[cuda_mask]
    yield "x[cuda_mask] = cpu values", lambda: x.clone().__setitem__(cuda_mask, torch.ones(int(cuda_mask.sum())))
    yield "x[cuda_mask] = cpu 0-dim", lambda: x.clone().__setitem__(cuda_mask, torch.tensor(1.0))
    yield "x[cpu_index] = cpu values", lambda: x.clone().__setitem__(cpu_index, torch.ones(3))
    yield "x[cuda_index] = cpu values", lambda: x.clone().__setitem__(cuda_index, torch.ones(3))
    yield "x[0:3] = cpu values", lambda: x.clone().__setitem__(slice(0, 3), torch.ones(3))
    yield "host_buffer[0:3] = x", lambda: torch.zeros(8).__setitem__(slice(0, 3), x[:3])
    yield "torch.stack([x.sum(), cpu 0-dim])", lambda: torch.stack([x.sum(), cpu_scalar])
    yield "torch.cat([x, cpu 1-elem])", lambda: torch.cat([x, torch.zeros(1)])
    yield "x + cpu 0-dim", lambda: x + cpu_scalar
    yield "x + cpu 1-dim", lambda: x + torch.ones(8)
    yield "x.lerp(cpu, 0.5)", lambda: x.lerp(torch.ones(8), 0.5)
    yield "x.clone().copy_(cpu)", lambda: x.clone().copy_(torch.ones(8))
    yield "torch.searchsorted(x.sort().values, cpu)", lambda: torch.searchsorted(x.sort().values, torch.ones(3))
    yield "x.clone().masked_scatter_(cpu_mask, x)", lambda: x.clone().masked_scatter_(cpu_mask, x)
    yield "x @ cpu 0-dim via matmul", lambda: torch.matmul(x, torch.ones(8))
    yield "torch.sparse_coo_tensor(cpu_i, cpu_v, device=cuda)", lambda: torch.sparse_coo_tensor(
        torch.zeros(1, 2, dtype=torch.long), torch.ones(2), (8,), device=x.device)


def main() -> None:
    x = torch.arange(8.0, device="cuda")
    cpu_index = torch.tensor([0, 1, 2])
    cpu_mask = torch.arange(8) % 2 == 0
    cuda_index = cpu_index.cuda()
    cuda_mask = cpu_mask.cuda()
    for name, run in shapes(x, cpu_index, cpu_mask, torch.tensor(2.0), cuda_index, cuda_mask, torch.arange(8.0)):
        try:
            result = run()
            where = f" (result on {result.device})" if isinstance(result, torch.Tensor) else ""
            print(f"works   {name}{where}")
        except Exception as error:  # what PyTorch says is the point
            print(f"raises  {name}: {str(error).splitlines()[0][:120]}")


if __name__ == "__main__":
    main()
