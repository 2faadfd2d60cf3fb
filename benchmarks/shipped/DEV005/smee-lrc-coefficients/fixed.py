# shipped: https://github.com/openforcefield/smee/pull/100
# The switched Lennard-Jones tail integral built its coefficient and exponent tables with torch.tensor on the CPU and combined them with the caller's sigma and distance; fixed with smee.utils.tensor_like(..., rs) (a tensor on rs's device and dtype).
import torch

import smee.utils


def _integrate_lj_switch(
    r: torch.Tensor,
    rs: torch.Tensor,
    rc: torch.Tensor,
    sig: torch.Tensor,
) -> torch.Tensor:
    b = 1.0 / (rc - rs)

    base = smee.utils.tensor_like([rs**3, rs**2, rs, 1, b, b**2], rs) * (
        smee.utils.tensor_like([rs**2 * b**2, rs * b, 1], rs)
        * smee.utils.tensor_like([[6, 15, 10], [1, 2, 1], [2, 3, 1], [6, 6, 1], [0, 2, 1], [0, 0, 1]], rs)
    ).sum(dim=-1)

    near = sig[:, None] ** 6 * smee.utils.tensor_like([-28, 945, -1080, 420, -756, 378], rs) * base
    far = smee.utils.tensor_like([84, -3780, 7560, 2520, -3780, 756], rs) * base

    powers = torch.pow(r, smee.utils.tensor_like([-9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2], rs))
    powers[-3] = torch.log(r)

    return -(b**3) * sig**6 * (near * powers[:6] + far * powers[6:]).sum(dim=-1) / 252
