# shipped: https://github.com/kozistr/pytorch_optimizer/pull/132
# AdaFactor's factored second-moment state was created with torch.zeros on the CPU and then updated from the gradient in the same step; fixed with device=grad.device.
import math
from typing import Tuple

import torch
from torch.optim.optimizer import Optimizer


class AdaFactor(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), decay_rate=-0.8, eps1=1e-30):
        super().__init__(params, {"lr": lr})
        self.betas = betas
        self.decay_rate = decay_rate
        self.eps1 = eps1

    @staticmethod
    def approximate_sq_grad(row: torch.Tensor, col: torch.Tensor, output: torch.Tensor):
        r_factor = (row / row.mean(dim=-1)).rsqrt_().unsqueeze(-1)
        c_factor = col.unsqueeze(-2).rsqrt()
        torch.mul(r_factor, c_factor, out=output)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                grad_shape: Tuple[int, ...] = grad.shape
                factored = len(grad_shape) >= 2

                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    if factored:
                        state["exp_avg_sq_row"] = torch.zeros(grad_shape[:-1], dtype=grad.dtype, device=grad.device)
                        state["exp_avg_sq_col"] = torch.zeros(grad_shape[:-2] + grad_shape[-1:], dtype=grad.dtype, device=grad.device)
                    else:
                        state["exp_avg_sq"] = torch.zeros_like(grad)

                state["step"] += 1
                beta2_t = 1.0 - math.pow(state["step"], self.decay_rate)
                update = torch.mul(grad, grad).add_(self.eps1)

                if factored:
                    row, col = state["exp_avg_sq_row"], state["exp_avg_sq_col"]
                    row.mul_(beta2_t).add_(update.mean(dim=-1), alpha=1.0 - beta2_t)
                    col.mul_(beta2_t).add_(update.mean(dim=-2), alpha=1.0 - beta2_t)
                    self.approximate_sq_grad(row, col, update)
                else:
                    exp_avg_sq = state["exp_avg_sq"]
                    exp_avg_sq.mul_(beta2_t).add_(update, alpha=1.0 - beta2_t)
                    torch.rsqrt(exp_avg_sq, out=update)

                update.mul_(grad).mul_(group["lr"])
                exp_avg = state["exp_avg"]
                exp_avg.mul_(self.betas[0]).add_(update, alpha=1.0 - self.betas[0])
                p.add_(-exp_avg)

        return loss
