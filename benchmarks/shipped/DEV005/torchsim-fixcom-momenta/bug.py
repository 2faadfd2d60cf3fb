# shipped: https://github.com/TorchSim/torch-sim/pull/583
# The centre-of-mass constraint built its per-system sums with torch.zeros on the CPU from the state's indices, masses and the momenta it adjusts; fixed with device=state.device.
import torch


class SystemConstraint:
    def __init__(self, system_idx: torch.Tensor) -> None:
        self.system_idx = system_idx


class FixCenterOfMass(SystemConstraint):
    def adjust_momenta(self, state, momenta: torch.Tensor) -> None:
        if state.system_idx is None:
            raise ValueError("needs a state with system_idx")
        system_idx = state.system_idx
        dtype = momenta.dtype
        total_momenta = torch.zeros((state.n_systems, 3), dtype=dtype).scatter_add_(  # expect: DEV005
            0,
            system_idx.unsqueeze(-1).expand(-1, 3),
            momenta,
        )
        total_mass = torch.zeros(state.n_systems, dtype=dtype).scatter_add_(  # expect: DEV005
            0, system_idx, state.masses
        )
        com_velocity = total_momenta / total_mass.unsqueeze(-1)
        change = torch.zeros(state.n_systems, 3, dtype=dtype)  # expect: DEV005
        change[self.system_idx] = com_velocity[self.system_idx]
        momenta -= change[system_idx] * state.masses.unsqueeze(-1)
