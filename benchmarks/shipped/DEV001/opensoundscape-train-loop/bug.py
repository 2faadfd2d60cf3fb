# shipped: https://github.com/kitzeslab/opensoundscape/pull/201
# In the training loop the batch tensors were moved with bare `X.to(device)` / `y.to(device)`, so they stayed on the CPU; fixed by `X = X.to(device)`.
import torch


def fit(model, train_loader, optimizer, loss_fn, epochs):
    if torch.cuda.is_available():
        device = torch.device("cuda:0")
    else:
        device = torch.device("cpu")

    model.to(device)

    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            X, y = batch["X"], batch["y"]
            X.to(device)  # expect: DEV001
            y.to(device)  # expect: DEV001
            targets = y.squeeze(1)

            outputs = model(X)
            loss = loss_fn(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
