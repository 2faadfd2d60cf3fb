# shipped: https://github.com/eth-easl/modyn/pull/525
# The running RHO-loss buffer was reset to an empty CPU torch.tensor([]) and later concatenated with per-sample losses computed on the trainer's device; fixed with .to(self._device).
from typing import Optional, Union

import torch

from .abstract_remote_downsampling_strategy import AbstractRemoteDownsamplingStrategy
from .rho_loss_utils.irreducible_loss_producer import IrreducibleLossProducer


class RemoteRHOLossDownsampling(AbstractRemoteDownsamplingStrategy):
    def __init__(self, pipeline_id, trigger_id, batch_size, params_from_selector, modyn_config, per_sample_loss, device):
        super().__init__(pipeline_id, trigger_id, batch_size, params_from_selector, modyn_config, device)
        self.per_sample_loss_fct = per_sample_loss
        self.irreducible_loss_producer = IrreducibleLossProducer(
            per_sample_loss, modyn_config, params_from_selector["rho_pipeline_id"], params_from_selector["il_model_id"], device
        )
        self.rho_loss: torch.Tensor = torch.tensor([])
        self.number_of_points_seen = 0

    def init_downsampler(self) -> None:
        self.index_sampleid_map: list[int] = []
        self.rho_loss = torch.tensor([])  # expect: DEV005
        self.number_of_points_seen = 0

    def inform_samples(
        self,
        sample_ids: list[int],
        forward_input: Union[dict[str, torch.Tensor], torch.Tensor],
        forward_output: torch.Tensor,
        target: torch.Tensor,
        embedding: Optional[torch.Tensor] = None,
    ) -> None:
        training_loss = self.per_sample_loss_fct(forward_output, target).detach()
        self.index_sampleid_map += sample_ids
        irreducible_loss = self.irreducible_loss_producer.get_irreducible_loss(sample_ids, forward_input, target)
        self.rho_loss = torch.cat([self.rho_loss, training_loss - irreducible_loss]).to(training_loss.dtype)
        self.number_of_points_seen += forward_output.shape[0]

    def select_points(self) -> tuple[list[int], torch.Tensor]:
        target_size = max(int(self.downsampling_ratio * self.number_of_points_seen / 100), 1)
        selected = torch.topk(self.rho_loss, target_size).indices
        ids = [self.index_sampleid_map[i] for i in sorted(selected)]
        return ids, torch.ones(target_size)
