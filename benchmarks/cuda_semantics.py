"""PyTorch device semantics the DEV005 flow relies on, asked of a real GPU: each line tries one operation
that mixes a host tensor with a CUDA one and prints what torch did. Run on a machine with CUDA:

    python benchmarks/cuda_semantics.py > docs/cuda-semantics.txt

Its first line says the machine; docs/cuda-semantics.txt is the output of a run (benchmarks/gpu_report.sh runs it).
"""
import datetime
import platform

import torch

d = torch.device("cuda")
print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}, {torch.cuda.get_device_name(d)},"
      f" torch {torch.__version__}, Python {platform.python_version()}")


def attempt(name, fn):  # type: ignore[no-untyped-def]
    try:
        r = fn()
        print(f"{name}: works -> {getattr(r, 'device', r)} shape {tuple(getattr(r, 'shape', ()))}")
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")


x = torch.ones(3, device=d)
attempt("cat([tensor([]), cuda(3)])", lambda: torch.cat([torch.tensor([]), x]))
attempt("cat([empty(0), cuda(3)])", lambda: torch.cat([torch.empty(0), x]))
attempt("cat([cuda(3), empty(0)])", lambda: torch.cat([x, torch.empty(0)]))
attempt("cat([empty(0,3), cuda(2,3)])", lambda: torch.cat([torch.empty(0, 3), torch.ones(2, 3, device=d)]))
attempt("stack([tensor(0.), cuda 0-dim])", lambda: torch.stack([torch.tensor(0.0), x.sum()]))
attempt("host(3) * cuda 0-dim", lambda: torch.rand(3) * x.sum())
attempt("host(3) + cuda 0-dim via min/max", lambda: torch.rand(3) * (x.max() - x.min()) + x.min())
attempt("cuda(3) * host 0-dim", lambda: x * torch.tensor(2.0))
attempt("host(3)[cuda idx]", lambda: torch.arange(5)[torch.tensor([1, 2], device=d)])
attempt("host(5)[cuda mask]", lambda: torch.arange(5)[torch.ones(5, dtype=torch.bool, device=d)])
attempt("linspace(cuda0d, cuda0d)", lambda: torch.linspace(x.min(), x.max(), 4))
attempt("arange(cuda 0-dim)", lambda: torch.arange(x.sum().long()))
attempt("host.add_(cuda)", lambda: torch.zeros(3).add_(x))
attempt("host 0-dim.add_(cuda)", lambda: torch.zeros(()).add_(x.sum()))
