import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Multi-layer LSTM over a sequence (batch_first); returns the final cell state c_n.
    The initial states are explicit inputs, so the forward pass is deterministic.
    """

    def __init__(self, input_size, hidden_size, num_layers):
        """
        :param input_size: The number of expected features in the input x
        :param hidden_size: The number of features in the hidden state h
        :param num_layers: Number of recurrent layers
        """
        super(Model, self).__init__()
        self.lstm = nn.LSTM(
            input_size, hidden_size, num_layers, batch_first=True, dropout=0.0, bidirectional=False
        )

    def forward(self, x, h0, c0):
        """
        :param x: Input tensor, shape (batch_size, sequence_length, input_size)
        :param h0: Initial hidden state, shape (num_layers, batch_size, hidden_size)
        :param c0: Initial cell state, shape (num_layers, batch_size, hidden_size)
        :return: Final cell state c_n, shape (num_layers, batch_size, hidden_size)
        """
        _, (_, c_n) = self.lstm(x, (h0, c0))
        return c_n


# SIZE NOTE: the recurrence is sequential over time steps, so run time is latency-bound;
# 6 layers x 256 steps of small matmuls is roughly 5-15 ms with cuDNN on an H100.
batch_size = 10
sequence_length = 256
input_size = 128
hidden_size = 256
num_layers = 6
REDUCED_SIZES = {"batch_size": 2, "sequence_length": 16, "input_size": 16, "hidden_size": 32, "num_layers": 2}  # CPU size
CATALOGUE_EXEMPT = {"ignores-input": "the initial hidden state decays through 256 sequential steps, so at full size the final output no longer depends on it at the fp32 tolerance; kept because that is the architecture the problem names (at the reduced size the dependence is checked and holds)"}


def get_inputs():
    return [
        torch.randn(batch_size, sequence_length, input_size),
        torch.randn(num_layers, batch_size, hidden_size),
        torch.randn(num_layers, batch_size, hidden_size),
    ]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
