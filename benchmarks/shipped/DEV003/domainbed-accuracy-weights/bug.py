# shipped: https://github.com/facebookresearch/DomainBed/pull/30
# The evaluation helper received `device` and moved the batch there, but sent the per-example weights to `.cuda()`, failing on CPU; fixed by `.to(device)`.
import torch


def accuracy(network, loader, weights, device):
    correct = 0
    total = 0
    offset = 0
    network.eval()
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device)
            y = y.to(device)
            p = network.predict(x)
            if weights is None:
                batch_weights = torch.ones(len(x))
            else:
                batch_weights = weights[offset: offset + len(x)]
                offset += len(x)
            batch_weights = batch_weights.cuda()  # expect: DEV003
            correct += (p.argmax(1).eq(y).float() * batch_weights).sum().item()
            total += batch_weights.sum().item()
    network.train()
    return correct / total
