import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a matrix multiplication (Linear), divides by a scalar, and applies GELU.
    """

    def __init__(self, input_size, output_size, divisor):
        super(Model, self).__init__()
        self.linear = nn.Linear(input_size, output_size)
        self.divisor = divisor

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, input_size).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, output_size).
        """
        x = self.linear(x)
        x = x / self.divisor
        x = F.gelu(x)
        return x


batch_size = 1024
input_size = 8192
output_size = 8192
divisor = 10.0
REDUCED_SIZES = {"batch_size": 32, "input_size": 256, "output_size": 128}  # CPU-size variant


def get_inputs():
    return [torch.randn(batch_size, input_size)]


def get_init_inputs():
    return [input_size, output_size, divisor]
