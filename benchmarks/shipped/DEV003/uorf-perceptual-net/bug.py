# shipped: https://github.com/KovenYu/uORF/pull/17
# The model's __init__ put its perceptual-loss network on `.cuda()` although BaseModel picks self.device from --gpu_ids (CPU with -1); fixed by `.to(self.device)`.
import torch
from torchvision.transforms import Normalize

from .base_model import BaseModel
from .model import get_perceptual_net
from .projection import Projection


class NoGanModel(BaseModel):
    def __init__(self, opt):
        BaseModel.__init__(self, opt)
        self.model_names = ["Encoder", "SlotAttention", "Decoder"]
        self.perceptual_net = get_perceptual_net().cuda()  # expect: DEV003
        self.vgg_norm = Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
        self.projection = Projection(device=self.device, near=opt.near_plane, far=opt.far_plane)
        self.L2_loss = torch.nn.MSELoss()
