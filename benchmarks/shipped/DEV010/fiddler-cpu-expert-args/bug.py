# shipped: https://github.com/efeslab/fiddler/pull/6
# MoE offloading copied hidden states and routing weights GPU->CPU with non_blocking=True and ran the CPU expert on them at once (non-deterministic outputs); fixed with blocking .to("cpu").
import torch


class OffloadedMixtral:
    def __init__(self, model, dev="cuda:0"):
        self.model = model
        self.dev = torch.device(dev)

    def moe_layer(self, i_layer, inps, routing_weights, top_2s, idxs, cpu_experts, out):
        hidden_dim = inps.shape[-1]
        for i_expert in cpu_experts:
            rows = top_2s[i_expert].tolist()
            slots = idxs[i_expert].tolist()
            state = inps[None, rows].reshape(-1, hidden_dim)
            state = self.run_expert_at_cpu(
                i_layer,
                i_expert,
                state.to("cpu", non_blocking=True),  # expect: DEV010
                routing_weights[rows, slots, None].to("cpu", non_blocking=True),  # expect: DEV010
            )
            out.index_add_(0, top_2s[i_expert].to(self.dev, non_blocking=True), state.to(self.dev, non_blocking=True))
        return out

    def run_expert_at_cpu(self, i_layer, i_expert, inps, weights):
        return self.model.layers[i_layer].block_sparse_moe.experts[i_expert](inps, weights)
