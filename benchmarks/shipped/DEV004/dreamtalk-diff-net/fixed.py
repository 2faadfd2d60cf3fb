# shipped: https://github.com/ali-vilab/dreamtalk/pull/10
# The diffusion network's checkpoint was read with torch.load(path) and no map_location, so the demo could not load it without a GPU; fixed by `map_location=device`.
import torch

from core.networks.diffusion_net import DiffusionNet, NoisePredictor


@torch.no_grad()
def build_diff_net(cfg, device):
    net = DiffusionNet(cfg=cfg, net=NoisePredictor(cfg))
    checkpoint = torch.load(cfg.INFERENCE.CHECKPOINT, map_location=device)
    state = checkpoint["model_state_dict"]
    own = {k[9:]: v for k, v in state.items() if k[:9] == "diff_net."}
    net.load_state_dict(own, strict=True)
    net.eval()
    return net
