# shipped: https://github.com/openforcefield/smee/pull/83
# The Levenberg-Marquardt solver added a CPU torch.eye to the caller's Hessian (twice); fixed with device=hessian.device.
import torch


def _invert_svd(matrix: torch.Tensor, threshold: float = 1e-12) -> torch.Tensor:
    u, s, vh = torch.linalg.svd(matrix)
    keep = s > threshold
    s_inv = torch.zeros_like(s)
    s_inv[keep] = 1.0 / s[keep]
    return vh.T @ torch.diag(s_inv) @ u.T


def _solve(damping: torch.Tensor, gradient: torch.Tensor, hessian: torch.Tensor):
    damped = hessian + (damping - 1) ** 2 * torch.eye(len(hessian))  # expect: DEV005
    damped_inv = _invert_svd(damped)
    dx = -(damped_inv @ gradient)
    expected = 0.5 * dx @ hessian @ dx + (dx * gradient).sum()
    return dx, expected


def _step(gradient: torch.Tensor, hessian: torch.Tensor, trust_radius: float, min_eigenvalue: float = 1.0e-4):
    eigenvalues, _ = torch.linalg.eigh(hessian)
    smallest = eigenvalues.min()
    if smallest < min_eigenvalue:
        shift = max(min_eigenvalue, 0.01 * abs(smallest)) - smallest
        hessian += shift * torch.eye(hessian.shape[0])  # expect: DEV005
    damping = torch.tensor(1.0)
    dx, expected = _solve(damping, gradient, hessian)
    return dx, expected
