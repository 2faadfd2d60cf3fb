# shipped: https://github.com/KaidiXu/Beta-CROWN/pull/1
# Model weights were read with torch.load(args.load) even when --device cpu was asked for, failing on CPU-only machines; fixed by passing a map_location (positionally) when the device is the CPU.
import torch
import torch.nn as nn


def load_model(args, weights_loaded=True):
    model = eval(args.model)()
    if not weights_loaded:
        return model

    map_location = None
    if args.device == "cpu":
        map_location = torch.device("cpu")

    if "cnn_4layer" not in args.model:
        model.load_state_dict(torch.load(args.load, map_location)["state_dict"][0])
    else:
        model.load_state_dict(torch.load(args.load, map_location))
    return model
