# shipped: https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/pull/93
# The captioning script picked `device` from torch.cuda.is_available() but loaded the GPU-trained checkpoint (whole modules) with torch.load(args.model), failing on CPU; fixed by `map_location=str(device)`.
import argparse

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def caption(encoder, decoder, image_path):
    ...


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--img")
    parser.add_argument("--model")
    args = parser.parse_args()

    checkpoint = torch.load(args.model, map_location=str(device))
    decoder = checkpoint["decoder"]
    decoder = decoder.to(device)
    decoder.eval()
    encoder = checkpoint["encoder"]
    encoder = encoder.to(device)
    encoder.eval()
    caption(encoder, decoder, args.img)
