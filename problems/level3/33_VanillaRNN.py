import torch
import torch.nn as nn


class Model(nn.Module):
    """
    One step of a vanilla RNN cell: h' = tanh(W_ih [x, h] + b), output = W_ho h' + b_o.
    The previous hidden state is an explicit input, so the forward pass has no hidden state.
    Returns the output projection.
    """

    def __init__(self, input_size, hidden_size, output_size):
        """
        :param input_size: The number of input features
        :param hidden_size: The size of the hidden state
        :param output_size: The number of output features
        """
        super(Model, self).__init__()
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.tanh = nn.Tanh()

    def forward(self, x, hidden):
        """
        :param x: Input tensor, shape (batch_size, input_size)
        :param hidden: Previous hidden state, shape (batch_size, hidden_size)
        :return: Output tensor, shape (batch_size, output_size)
        """
        combined = torch.cat((x, hidden), dim=1)
        new_hidden = self.tanh(self.i2h(combined))
        return self.h2o(new_hidden)


batch_size = 256
input_size = 16384
hidden_size = 16384
output_size = 8192
REDUCED_SIZES = {"batch_size": 8, "input_size": 128, "hidden_size": 128, "output_size": 64}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, input_size), torch.randn(batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, output_size]
