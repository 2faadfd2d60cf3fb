# shipped: https://github.com/teamtomo/membrain-seg/pull/121
# Sliding-window inference ran under the deprecated torch.cuda.amp.autocast(); replaced by torch.amp.autocast("cuda").
import torch
from monai.inferers import SlidingWindowInferer

from membrain_seg.segmentation.networks.unet import SemanticSegmentationUnet
from membrain_seg.tomo_preprocessing import mirror_volume


def segment(tomogram, ckpt_path, tta=True, window=160):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SemanticSegmentationUnet.load_from_checkpoint(ckpt_path, map_location=device)
    model.to(device).eval()
    inferer = SlidingWindowInferer(roi_size=(window,) * 3, sw_batch_size=4, overlap=0.5)
    volume = torch.from_numpy(tomogram)[None, None].float()
    total = 0
    for m in range(8 if tta else 1):
        with torch.no_grad():
            with torch.cuda.amp.autocast():  # expect: DEV008
                flipped = mirror_volume(volume.clone(), m).to(device)
                total = total + mirror_volume(inferer(flipped, model), m)
    return total
