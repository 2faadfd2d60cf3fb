# shipped: https://github.com/atong01/conditional-flow-matching/pull/103
# A Lightning module picked time indices with torch.zeros(1).to(X.device) and torch.randint(...).to(X.device) on every batch; fixed by passing device=X.device to the factories.
import torch
from pytorch_lightning import LightningModule


class FlowModule(LightningModule):
    def preprocess_batch(self, X, training=False):
        t_select = torch.zeros(1, device=X.device)
        if self.is_trajectory:
            batch_size, times, dim = X.shape
            if training and self.hparams.leaveout_timepoint > 0:
                t_select = torch.randint(times - 2, size=(batch_size,), device=X.device)
                t_select[t_select >= self.hparams.leaveout_timepoint] += 1
            else:
                t_select = torch.randint(times - 1, size=(batch_size,))
            x0 = X[torch.arange(batch_size), t_select]
            x1 = X[torch.arange(batch_size), t_select + 1]
        else:
            x0 = torch.randn_like(X)
            x1 = X
        return x0, x1, t_select
