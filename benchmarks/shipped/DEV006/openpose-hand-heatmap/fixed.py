# shipped: https://github.com/Hzzone/pytorch-openpose/pull/16
# Hand estimator ran its CUDA-placed model and called .numpy() on the output; fixed with .cpu().numpy().
import numpy as np
import torch

from model import handpose_model


class HandEstimator(object):
    def __init__(self, weights_path):
        self.net = handpose_model()
        if torch.cuda.is_available():
            self.net = self.net.cuda()
        self.net.load_state_dict(torch.load(weights_path))
        self.net.eval()

    def __call__(self, image):
        heat_sum = np.zeros((image.shape[0], image.shape[1], 22))
        for scale in (0.5, 1.0, 1.5):
            batch = np.ascontiguousarray(np.float32(image[None]) * scale / 256 - 0.5)
            x = torch.from_numpy(batch).float()
            if torch.cuda.is_available():
                x = x.cuda()
            with torch.no_grad():
                out = self.net(x).cpu().numpy()
            heat_sum += np.transpose(np.squeeze(out), (1, 2, 0)) / 3
        return heat_sum
