# shipped: https://github.com/nyu-mll/jiant/pull/776
# A one-hot helper inside the WSC task built an identity matrix and called `.cuda()` on it unconditionally, breaking CPU machines; fixed by moving it only under `if torch.cuda.is_available():`.
import torch

from .span_tasks import SpanClassificationTask


class WinogradTask(SpanClassificationTask):
    def update_metrics(self, logits, labels, tagmask=None):
        logits, labels = logits.detach(), labels.detach()

        def make_one_hot(batch, depth=2):
            ones = torch.sparse.torch.eye(depth)
            if torch.cuda.is_available():
                ones = ones.cuda()
            return ones.index_select(0, batch)

        binary_preds = make_one_hot(logits, depth=2)
        label_ints = torch.argmax(labels, dim=1)
        self.f1_scorer(binary_preds, label_ints)
        self.acc_scorer(binary_preds.long(), labels.long())
