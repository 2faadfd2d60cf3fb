# shipped: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/commit/7283ade6299d317c73b3b922c4cbba222f4a93ca
# The diffusion convolution computed node degrees by multiplying the dense adjacency (built from the caller's edge_index) with CPU torch.ones vectors; fixed with .to(x.device).
import torch
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.utils import to_dense_adj


class DConv(MessagePassing):
    def __init__(self, in_channels, out_channels, K, bias=True):
        super(DConv, self).__init__(aggr="add", flow="source_to_target")
        self.weight = torch.nn.Parameter(torch.Tensor(2, K, in_channels, out_channels))
        self.bias = torch.nn.Parameter(torch.Tensor(out_channels)) if bias else None

    def forward(self, x, edge_index, edge_weight):
        adj = to_dense_adj(edge_index, edge_attr=edge_weight)
        adj = adj.reshape(adj.size(1), adj.size(2))
        deg_out = torch.matmul(adj, torch.ones(size=(adj.size(0), 1)).to(x.device))
        deg_out = deg_out.flatten()
        deg_in = torch.matmul(torch.ones(size=(1, adj.size(0))).to(x.device), adj)
        deg_in = deg_in.flatten()

        row, col = edge_index
        norm_out = torch.reciprocal(deg_out)[row]
        norm_in = torch.reciprocal(deg_in)[row]

        out = torch.matmul(x, self.weight[0][0]) + torch.matmul(x, self.weight[1][0])
        if self.weight.size(1) > 1:
            h_out = self.propagate(edge_index, x=x, norm=norm_out, size=None)
            h_in = self.propagate(edge_index, x=x, norm=norm_in, size=None)
            out = out + torch.matmul(h_out, self.weight[0][1]) + torch.matmul(h_in, self.weight[1][1])
        if self.bias is not None:
            out += self.bias
        return out

    def message(self, x_j, norm):
        return norm.view(-1, 1) * x_j
