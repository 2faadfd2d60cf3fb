# shipped: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/commit/649ca0f3a14fd37779ebf8308ba3270236eff478
# (issue #20) With no hidden state passed, the cell made one with torch.zeros on the CPU and ran it through graph convolutions beside the node features; fixed with .to(X.device).
import torch
from torch_geometric.nn import ChebConv


class GConvGRU(torch.nn.Module):
    def __init__(self, in_channels: int, out_channels: int, K: int, normalization: str = "sym", bias: bool = True):
        super(GConvGRU, self).__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.conv_x_z = ChebConv(in_channels, out_channels, K, normalization=normalization, bias=bias)
        self.conv_h_z = ChebConv(out_channels, out_channels, K, normalization=normalization, bias=bias)
        self.conv_x_r = ChebConv(in_channels, out_channels, K, normalization=normalization, bias=bias)
        self.conv_h_r = ChebConv(out_channels, out_channels, K, normalization=normalization, bias=bias)
        self.conv_x_h = ChebConv(in_channels, out_channels, K, normalization=normalization, bias=bias)
        self.conv_h_h = ChebConv(out_channels, out_channels, K, normalization=normalization, bias=bias)

    def _set_hidden_state(self, X, H):
        if H is None:
            H = torch.zeros(X.shape[0], self.out_channels).to(X.device)
        return H

    def _calculate_update_gate(self, X, edge_index, edge_weight, H):
        Z = self.conv_x_z(X, edge_index, edge_weight)
        Z = Z + self.conv_h_z(H, edge_index, edge_weight)
        return torch.sigmoid(Z)

    def _calculate_reset_gate(self, X, edge_index, edge_weight, H):
        R = self.conv_x_r(X, edge_index, edge_weight)
        R = R + self.conv_h_r(H, edge_index, edge_weight)
        return torch.sigmoid(R)

    def _calculate_candidate_state(self, X, edge_index, edge_weight, H, R):
        H_tilde = self.conv_x_h(X, edge_index, edge_weight)
        H_tilde = H_tilde + self.conv_h_h(H * R, edge_index, edge_weight)
        return torch.tanh(H_tilde)

    def forward(self, X: torch.FloatTensor, edge_index: torch.LongTensor,
                edge_weight: torch.FloatTensor = None, H: torch.FloatTensor = None) -> torch.FloatTensor:
        H = self._set_hidden_state(X, H)
        Z = self._calculate_update_gate(X, edge_index, edge_weight, H)
        R = self._calculate_reset_gate(X, edge_index, edge_weight, H)
        H_tilde = self._calculate_candidate_state(X, edge_index, edge_weight, H, R)
        return Z * H + (1 - Z) * H_tilde
