# shipped: https://github.com/ArdalanM/nlp-benchmarks/pull/9
# Training loop handed the argmax of GPU predictions straight to sklearn's confusion_matrix (implicit numpy conversion); fixed with .cpu().numpy().
import numpy as np
import torch.nn.functional as F
from sklearn import metrics


def run_epoch(net, loader, device, criterion, optimizer=None):
    n_classes = len(list(net.parameters())[-1])
    cm = np.zeros((n_classes, n_classes), dtype=int)
    total = 0.0
    for step, (docs, labels, order, doc_lens, sent_lens) in enumerate(loader):
        docs, labels, order = [t.to(device) for t in (docs, labels, order)]
        if optimizer:
            optimizer.zero_grad()
        logits = net(docs, order, doc_lens, sent_lens)
        probs = F.softmax(logits, 1)

        y_true = labels.detach().cpu().numpy()
        y_pred = probs.max(1)[1]
        cm += metrics.confusion_matrix(y_true, y_pred, labels=range(n_classes))  # expect: DEV006

        loss = criterion(logits, labels)
        total += loss.item()
        if optimizer:
            loss.backward()
            optimizer.step()
    return cm, total / (step + 1)
