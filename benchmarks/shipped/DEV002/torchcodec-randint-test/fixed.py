# shipped: https://github.com/meta-pytorch/torchcodec/pull/1347
# Test frames were drawn with torch.randint on the CPU and then `.to(device)`; fixed by passing `device=device` to randint.
import pytest
import torch

from mycodec.ops import add_frames, make_encoder


@pytest.mark.parametrize("device", ("cpu", pytest.param("cuda", marks=pytest.mark.needs_cuda)))
def test_add_frames_without_stream_errors(tmp_path, device):
    encoder = make_encoder(tmp_path / "out.mp4")
    frames = torch.randint(0, 256, (5, 3, 64, 64), dtype=torch.uint8, device=device)
    with pytest.raises(RuntimeError, match="No video stream"):
        add_frames(encoder, frames)
