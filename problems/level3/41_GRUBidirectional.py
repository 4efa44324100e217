import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Multi-layer bidirectional GRU over a sequence (sequence-first layout); returns the output
    sequence (both directions concatenated).
    The initial states are explicit inputs, so the forward pass is deterministic.
    """

    def __init__(self, input_size, hidden_size, num_layers):
        """
        :param input_size: The number of expected features in the input x
        :param hidden_size: The number of features in the hidden state h
        :param num_layers: Number of recurrent layers
        """
        super(Model, self).__init__()
        self.gru = nn.GRU(
            input_size, hidden_size, num_layers, batch_first=False, dropout=0.0, bidirectional=True
        )

    def forward(self, x, h0):
        """
        :param x: Input tensor, shape (sequence_length, batch_size, input_size)
        :param h0: Initial hidden state, shape (num_layers * 2, batch_size, hidden_size)
        :return: Output sequence, shape (sequence_length, batch_size, hidden_size * 2)
        """
        output, _ = self.gru(x, h0)
        return output


# SIZE NOTE: the recurrence is sequential over time steps, so run time is latency-bound;
# 6 layers x 256 steps of small matmuls is roughly 5-15 ms with cuDNN on an H100.
batch_size = 10
# SIZE NOTE: measured 27.84 ms eager on an H200 at 256; reduced to stay within 1-15 ms.
sequence_length = 96
input_size = 128
hidden_size = 256
num_layers = 6
REDUCED_SIZES = {"batch_size": 2, "sequence_length": 16, "input_size": 16, "hidden_size": 32, "num_layers": 2}  # CPU size
# No x100 input variant: at x100 the fp32 reference is itself up to 170 from a float64 run (tolerance scaled
# x58.3 here), more than half the fp32 tolerance, so a kernel that only rounds differently could fail
# against it (catalogue check, ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(sequence_length, batch_size, input_size), torch.randn(num_layers * 2, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
