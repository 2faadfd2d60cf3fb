# shipped: https://github.com/PaddlePaddle/PARL/pull/646
# Agent.restore read saved parameters with torch.load(save_path), so a GPU-trained model could not be restored on a CPU machine; fixed by a `map_location` argument passed through to torch.load.
import os

import torch

from parl.core.agent_base import AgentBase


class Agent(AgentBase):
    def save(self, save_path, model=None):
        if model is None:
            model = self.alg.model
        dirname = os.sep.join(save_path.split(os.sep)[:-1])
        if dirname != "" and not os.path.exists(dirname):
            os.makedirs(dirname)
        torch.save(model.state_dict(), save_path)

    def restore(self, save_path, model=None, map_location=None):
        if model is None:
            model = self.alg.model
        checkpoint = torch.load(save_path, map_location=map_location)
        model.load_state_dict(checkpoint)
