# shipped: https://github.com/argilla-io/biome-text/pull/159
# A nested helper padded each example's class probabilities with a CPU torch.zeros via torch.cat; fixed by allocating the full buffer on the probabilities' device and copying them in.
from typing import Dict

import torch

from biome.text.vocabulary import vocabulary

from ..defs import TaskHead, TaskOutput


class ClassificationHead(TaskHead):
    def process_output(self, output: TaskOutput) -> TaskOutput:
        def labels_with_probabilities(probabilities: torch.Tensor) -> Dict[str, float]:
            all_probs = torch.zeros(
                self.num_labels,
                device=probabilities.get_device() if torch.cuda.is_available() else None,
            )
            all_probs[: probabilities.size()[0]] = probabilities
            order = torch.argsort(all_probs, descending=True).tolist()
            return {vocabulary.label_for_index(self.backbone.vocab, idx): all_probs[idx] for idx in order}

        output_map_probs = []
        if self.num_labels > 0:
            for probs in output.probs:
                output_map_probs.append(labels_with_probabilities(probs))
        output.labels = output_map_probs
        return output
