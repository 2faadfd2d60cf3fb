# shipped: https://github.com/argilla-io/biome-text/pull/159
# Classification head (an nn.Module) turned the forward output's probs into numpy with .data.numpy(); maintainers replaced the numpy path with torch ops.
from typing import Dict

import torch


class TaskHead(torch.nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone


class ClassifierHead(TaskHead):
    def __init__(self, backbone, labels):
        super().__init__(backbone)
        self.labels = labels
        self.num_labels = len(labels)
        self._loss = torch.nn.CrossEntropyLoss()

    def process_output(self, output):
        def ranked(probabilities: torch.Tensor) -> Dict[str, float]:
            padded = torch.zeros(
                self.num_labels,
                device=probabilities.get_device() if torch.cuda.is_available() else None,
            )
            padded[: probabilities.size()[0]] = probabilities
            order = torch.argsort(padded, descending=True).tolist()
            return {self.labels[i]: padded[i] for i in order}

        probs_batch = output.probs

        output.classes = [ranked(p) for p in probs_batch]
        return output
