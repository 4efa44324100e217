import torch
import torch.nn as nn


class Model(nn.Module):
    """
    One step of a vanilla RNN cell, returning the new hidden state: h' = tanh(W_ih [x, h] + b).
    The previous hidden state is an explicit input, so the forward pass has no hidden state.
    (The output projection of problem 33 is left out: it does not affect the returned state.)
    """

    def __init__(self, input_size, hidden_size):
        """
        :param input_size: The number of input features
        :param hidden_size: The size of the hidden state
        """
        super(Model, self).__init__()
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.tanh = nn.Tanh()

    def forward(self, x, hidden):
        """
        :param x: Input tensor, shape (batch_size, input_size)
        :param hidden: Previous hidden state, shape (batch_size, hidden_size)
        :return: New hidden state, shape (batch_size, hidden_size)
        """
        combined = torch.cat((x, hidden), dim=1)
        return self.tanh(self.i2h(combined))


batch_size = 256
input_size = 16384
hidden_size = 16384
REDUCED_SIZES = {"batch_size": 8, "input_size": 128, "hidden_size": 128}  # CPU size
# No x100 input variant: at x100 the fp32 reference is itself up to 0.000671 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, input_size), torch.randn(batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size]
