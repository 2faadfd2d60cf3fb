# shipped: https://github.com/lucidrains/imagen-pytorch/pull/190
# Rebuilding a model from a training checkpoint used torch.load(path) with no map_location, so every tensor went back to the GPU it was saved from; fixed by `map_location='cpu'`.
from pathlib import Path

import torch

from imagen_pytorch.configs import ImagenConfig


def load_from_checkpoint(checkpoint_path, load_weights=True):
    model_path = Path(checkpoint_path)
    assert model_path.exists(), f"checkpoint not found at {model_path.resolve()}"
    loaded = torch.load(str(model_path), map_location="cpu")

    params = loaded.get("imagen_params")
    imagen = ImagenConfig(**params).create()
    if not load_weights:
        return imagen
    imagen.load_state_dict(loaded["model"])
    return imagen
