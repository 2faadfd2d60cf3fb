# shipped: https://github.com/KaidiXu/Beta-CROWN/pull/1
# Model weights were read with torch.load(args.load) even when --device cpu was asked for, failing on CPU-only machines; fixed by passing a map_location (positionally) when the device is the CPU.
import torch
import torch.nn as nn


def load_model(args, weights_loaded=True):
    model = eval(args.model)()
    if not weights_loaded:
        return model

    if "cnn_4layer" not in args.model:
        model.load_state_dict(torch.load(args.load)["state_dict"][0])  # expect: DEV004
    else:
        model.load_state_dict(torch.load(args.load))  # expect: DEV004
    return model
