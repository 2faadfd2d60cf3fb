# shipped: https://github.com/WenjieDu/PyPOTS/pull/837
# The CRPS running sum was torch.tensor(0.0) on the CPU and received in-place additions of losses computed on the inputs' device; fixed with device=predictions.device.
import numpy as np
import torch


def quantile_loss(target, forecast, q, mask):
    return 2 * torch.sum(torch.abs((forecast - target) * mask * ((target <= forecast) * 1.0 - q)))


def quantile_crps(predictions, targets, masks, scaler_mean=0, scaler_stddev=1):
    if isinstance(predictions, np.ndarray):
        predictions = torch.from_numpy(predictions)
    if isinstance(targets, np.ndarray):
        targets = torch.from_numpy(targets)
    if isinstance(masks, np.ndarray):
        masks = torch.from_numpy(masks)

    targets = targets * scaler_stddev + scaler_mean
    predictions = predictions * scaler_stddev + scaler_mean

    levels = np.arange(0.05, 1.0, 0.05)
    denominator = torch.sum(torch.abs(targets * masks))
    total = torch.tensor(0.0, device=predictions.device)
    for i in range(len(levels)):
        per_sample = []
        for j in range(len(predictions)):
            per_sample.append(torch.quantile(predictions[j : j + 1], levels[i], dim=1))
        q_pred = torch.cat(per_sample, 0)
        q_loss = quantile_loss(targets, q_pred, levels[i], masks)
        total += q_loss / denominator
    return total.item() / len(levels)
