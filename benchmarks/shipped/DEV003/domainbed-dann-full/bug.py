# shipped: https://github.com/facebookresearch/DomainBed/pull/30
# DANN's update built its domain labels with torch.full(..., device='cuda') and SagNet drew torch.rand(...).cuda(), so those algorithms failed on CPU; fixed by deriving the device from the input batch.
import torch
import torch.nn.functional as F

from .base import Algorithm


class DANN(Algorithm):
    def update(self, minibatches):
        all_x = torch.cat([x for x, y in minibatches])
        all_z = self.featurizer(all_x)
        disc_out = self.discriminator(all_z)
        disc_labels = torch.cat([
            torch.full((x.shape[0], ), i, dtype=torch.int64, device='cuda')  # expect: DEV003
            for i, (x, y) in enumerate(minibatches)
        ])
        return F.cross_entropy(disc_out, disc_labels)


class SagNet(Algorithm):
    def randomize(self, x, eps=1e-5):
        sizes = x.size()
        alpha = torch.rand(sizes[0], 1).cuda()  # expect: DEV003
        x = x.view(sizes[0], sizes[1], -1)
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True)
        x = (x - mean) / (var + eps).sqrt()
        idx = torch.randperm(sizes[0])
        mean = alpha * mean + (1 - alpha) * mean[idx]
        return (x * (var + eps).sqrt() + mean).view(*sizes)
