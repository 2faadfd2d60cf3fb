# shipped: https://github.com/CSAILVision/NetDissect-Lite/pull/5
# Feature extraction passed the max of a GPU model output to np.isnan (implicit numpy conversion); fixed with logit.data.cpu().max().
import numpy as np
import torch
from torch.autograd import Variable as V

import settings

captured = []


def keep_feature(module, inputs, output):
    captured.append(output.data.cpu().numpy())


class FeatureExtractor:
    def __init__(self, prefetcher):
        self.prefetcher = prefetcher

    def extract(self, model=None):
        for batch in self.prefetcher.tensor_batches():
            del captured[:]
            images = torch.from_numpy(batch[0][:, ::-1, :, :].copy())
            images.div_(255.0 * 0.224)
            if settings.GPU:
                images = images.cuda()
            x = V(images, volatile=True)
            logit = model.forward(x)
            while np.isnan(logit.data.max()):  # expect: DEV006
                del captured[:]
                logit = model.forward(x)
        return captured
