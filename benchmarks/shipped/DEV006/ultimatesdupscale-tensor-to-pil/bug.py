# shipped: https://github.com/ssitu/ComfyUI_UltimateSDUpscale/pull/153
# Image-batch helper called .numpy() on a caller's tensor that can live on the GPU; fixed with .cpu().numpy().
import numpy as np
import torch
from PIL import Image


def batch_to_pil(images, index=0):
    # images: [batch, height, width, channels] floats in 0..1
    return Image.fromarray((255 * images[index].numpy()).astype(np.uint8))  # expect: DEV006


def pil_to_batch(picture):
    arr = np.array(picture).astype(np.float32) / 255.0
    out = torch.from_numpy(arr).unsqueeze(0)
    if out.dim() == 3:
        out = out.unsqueeze(-1)
    return out


def hint_to_pil(hint, index=0):
    return batch_to_pil(hint.movedim(1, -1), index)
