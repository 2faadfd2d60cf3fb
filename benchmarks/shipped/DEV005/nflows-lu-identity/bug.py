# shipped: https://github.com/bayesiains/nflows/pull/38
# weight_inverse solved against a CPU torch.eye while the triangular factors come from the module's parameters; fixed with device=self.lower_entries.device.
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from nflows.transforms.linear import Linear


class LULinear(Linear):
    def __init__(self, features, using_cache=False, eps=1e-3):
        super().__init__(features, using_cache)
        self.eps = eps
        self.lower_indices = np.tril_indices(features, k=-1)
        self.upper_indices = np.triu_indices(features, k=1)
        self.diag_indices = np.diag_indices(features)
        n_entries = ((features - 1) * features) // 2
        self.lower_entries = nn.Parameter(torch.zeros(n_entries))
        self.upper_entries = nn.Parameter(torch.zeros(n_entries))
        self.unconstrained_upper_diag = nn.Parameter(torch.zeros(features))

    def _create_lower_upper(self):
        lower = self.lower_entries.new_zeros(self.features, self.features)
        lower[self.lower_indices[0], self.lower_indices[1]] = self.lower_entries
        lower[self.diag_indices[0], self.diag_indices[1]] = 1.0
        upper = self.upper_entries.new_zeros(self.features, self.features)
        upper[self.upper_indices[0], self.upper_indices[1]] = self.upper_entries
        upper[self.diag_indices[0], self.diag_indices[1]] = self.upper_diag
        return lower, upper

    def weight_inverse(self):
        lower, upper = self._create_lower_upper()
        identity = torch.eye(self.features, self.features)  # expect: DEV005
        lower_inverse, _ = torch.triangular_solve(identity, lower, upper=False, unitriangular=True)
        weight_inverse, _ = torch.triangular_solve(lower_inverse, upper, upper=True, unitriangular=False)
        return weight_inverse

    @property
    def upper_diag(self):
        return F.softplus(self.unconstrained_upper_diag) + self.eps
