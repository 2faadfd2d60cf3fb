# shipped: https://github.com/TorchSim/torch-sim/pull/583
# Per-system accumulators were torch.zeros on the CPU, filled by scatter_add_ with the caller's indices and masses, and returned; fixed with device=positions.device.
import torch


def centers_of_mass(
    positions: torch.Tensor,
    masses: torch.Tensor,
    system_idx: torch.Tensor,
    n_systems: int,
) -> torch.Tensor:
    weighted = torch.zeros(
        (n_systems, 3), dtype=positions.dtype, device=positions.device
    ).scatter_add_(
        0,
        system_idx.unsqueeze(-1).expand(-1, 3),
        masses.unsqueeze(-1) * positions,
    )
    total_mass = torch.zeros(
        (n_systems,), dtype=positions.dtype, device=positions.device
    ).scatter_add_(0, system_idx, masses)
    weighted /= total_mass.unsqueeze(-1)
    return weighted
