# shipped: https://github.com/GarrettJenkinson/condor_pytorch/pull/2
# The leading column of ones was made on the CPU and concatenated with the caller's labels; fixed with device=labels.device.
import torch


def ordinal_neg_log_likelihood(logits, labels, reduction="mean"):
    if not logits.shape == labels.shape:
        raise ValueError("logits and labels must have the same shape")
    shifted = torch.cat([torch.ones((labels.shape[0], 1), device=labels.device), labels[:, :-1]], dim=1)

    zeros = torch.zeros_like(logits, dtype=logits.dtype, device=logits.device)
    positive = logits >= zeros
    keep = shifted > zeros
    relu_logits = torch.where(positive, logits, zeros)
    neg_abs_logits = torch.where(positive, -logits, logits)
    per_level = relu_logits - (logits * labels) + torch.log1p(torch.exp(neg_abs_logits))
    per_item = torch.sum(torch.where(keep, per_level, zeros), dim=1)

    if reduction == "mean":
        return torch.mean(per_item)
    if reduction == "sum":
        return torch.sum(per_item)
    return per_item
