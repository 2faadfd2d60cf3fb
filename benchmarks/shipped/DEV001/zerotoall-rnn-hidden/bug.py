# shipped: https://github.com/hunkim/PyTorchZeroToAll/pull/6
# Under `if torch.cuda.is_available():` the inputs and the RNN's initial hidden state were moved with bare `.cuda()` calls, so they stayed on the CPU; fixed by assigning the results.
import torch
import torch.nn as nn
from torch.autograd import Variable

one_hot = [[[1, 0, 0], [0, 1, 0], [0, 0, 1]]]
targets = [1, 2, 0]

inputs = Variable(torch.Tensor(one_hot))
labels = Variable(torch.LongTensor(targets))

if torch.cuda.is_available():
    inputs.cuda()  # expect: DEV001
    labels.cuda()  # expect: DEV001


class CharRNN(nn.Module):
    def __init__(self, size, layers):
        super().__init__()
        self.size = size
        self.layers = layers
        self.rnn = nn.RNN(input_size=size, hidden_size=size, batch_first=True)

    def forward(self, x):
        h_0 = Variable(torch.zeros(x.size(0), self.layers, self.size))
        if torch.cuda.is_available():
            h_0.cuda()  # expect: DEV001
        out, _ = self.rnn(x, h_0)
        return out.view(-1, self.size)
