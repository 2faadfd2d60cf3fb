# shipped: https://github.com/daniilidis-group/neural_renderer/pull/52
# A tensor `direction` argument was moved with `direction.to(device)` and the copy dropped; fixed by assigning it back.
import numpy as np
import torch
import torch.nn.functional as F


def look_at(verts, eye, direction=[0, 1, 0]):
    device = verts.device

    if isinstance(direction, (list, tuple)):
        direction = torch.tensor(direction, dtype=torch.float32, device=device)
    elif isinstance(direction, np.ndarray):
        direction = torch.from_numpy(direction).to(device)
    elif torch.is_tensor(direction):
        direction = direction.to(device)

    if torch.is_tensor(eye):
        eye = eye.to(device)

    if direction.ndimension() == 1:
        direction = direction[None, :]
    z_axis = F.normalize(direction, eps=1e-5)
    return (verts - eye[:, None, :]) @ z_axis.transpose(0, 1)
