# shipped: https://github.com/ali-vilab/dreamtalk/pull/10
# The inference function sent its audio window and style clip to `.cuda()` unconditionally, so the demo could not run on CPU; fixed by threading a `device` argument through and using `.to(device)`.
import numpy as np
import torch

from core.utils import get_video_style_clip, get_wav2vec_audio_window


@torch.no_grad()
def infer_one_video(cfg, audio_path, style_clip_path, diff_net, max_audio_len=None):
    audio_raw = np.load(audio_path)
    if max_audio_len is not None:
        audio_raw = audio_raw[: max_audio_len * 50]
    num_frames = len(audio_raw) // 2

    win = get_wav2vec_audio_window(audio_raw, start_idx=0, num_frames=num_frames, win_size=cfg.WIN_SIZE)
    audio_win = torch.tensor(win).cuda()  # expect: DEV003
    audio = audio_win.unsqueeze(0)

    style_raw, pad_mask_raw = get_video_style_clip(style_clip_path, "", style_max_len=256, start_idx=0)
    style_clip = style_raw.unsqueeze(0).cuda()  # expect: DEV003
    pad_mask = (
        pad_mask_raw.unsqueeze(0).cuda()  # expect: DEV003
        if pad_mask_raw is not None
        else None
    )
    return diff_net.sample(audio, style_clip, pad_mask)
