# shipped: https://github.com/madminer-tool/madminer/pull/210
# Ratio model moved to "cuda" returned outputs converted with .detach().numpy(); fixed by .cpu() first when running on the GPU.
import torch
from torch import tensor


def evaluate_ratio(model, thetas, xs, use_gpu=True):
    use_gpu = use_gpu and torch.cuda.is_available()
    device = torch.device("cuda" if use_gpu else "cpu")

    thetas = torch.stack([tensor(t) for t in thetas]).to(device, torch.float)
    xs = torch.stack([tensor(x) for x in xs]).to(device, torch.float)
    model = model.to(device, torch.float)

    with torch.no_grad():
        model.eval()
        score, log_r, _ = model(thetas, xs, track_score=False)
        score = score.detach().numpy().flatten()  # expect: DEV006
        log_r = log_r.detach().numpy().flatten()  # expect: DEV006
    return score, log_r
