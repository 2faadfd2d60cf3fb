# shipped: https://github.com/pytorch/examples/pull/1142
# torchrun DDP example initialised NCCL without ever calling torch.cuda.set_device(LOCAL_RANK) (tensors were indexed by rank, but NCCL/DDP state went to GPU 0); fixed by adding set_device after init_process_group.
import os

import torch
import torch.nn.functional as F
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from datautils import MyTrainDataset


def ddp_setup():
    init_process_group(backend="nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))


class Trainer:
    def __init__(self, model, train_data, optimizer):
        self.gpu_id = int(os.environ["LOCAL_RANK"])
        self.model = DDP(model.to(self.gpu_id), device_ids=[self.gpu_id])
        self.train_data = train_data
        self.optimizer = optimizer

    def _run_batch(self, source, targets):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(source), targets)
        loss.backward()
        self.optimizer.step()

    def train(self, epochs):
        for epoch in range(epochs):
            self.train_data.sampler.set_epoch(epoch)
            for source, targets in self.train_data:
                self._run_batch(source.to(self.gpu_id), targets.to(self.gpu_id))


def main(total_epochs, batch_size):
    ddp_setup()
    dataset = MyTrainDataset(2048)
    model = torch.nn.Linear(20, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    loader = DataLoader(dataset, batch_size=batch_size, pin_memory=True, shuffle=False,
                        sampler=DistributedSampler(dataset))
    Trainer(model, loader, optimizer).train(total_epochs)
    destroy_process_group()


if __name__ == "__main__":
    main(10, 32)
