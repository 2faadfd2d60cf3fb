# shipped: https://github.com/balbasty/cornucopia/pull/11
# Per-channel initial means came from torch.linspace on the CPU, were stacked and subtracted from the input; fixed with device=x.device in linspace.
import torch


def fit_mixture(x, nk=5, max_iter=10, tol=1e-4):
    nc, *shape = x.shape
    x = x.reshape([nc, -1])

    x = x[:, (x != 0).all(0)]

    lo, hi = x.min(-1).values, x.max(-1).values
    mu, sigma = [], []
    for c in range(nc):
        edges = torch.linspace(lo[c], hi[c], nk + 1)  # expect: DEV005
        centers = (edges[1:] + edges[:-1]) / 2
        width = (hi[c] - lo[c]) / (nk + 1)
        mu.append(centers)
        sigma.append(width / 2.355)
    mu = torch.stack(mu, -1)
    sigma = torch.stack(sigma).expand([nk, nc])
    sigma = torch.diag_embed(sigma)
    pi = mu.new_ones([nk]).div_(nk)

    z = (x - mu[:, :, None]).div_(sigma.diagonal(0, -1, -2)[:, :, None])
    return z, mu, sigma, pi
