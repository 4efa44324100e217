import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a GEMM (Linear), applies sigmoid, scales the result, and adds the GEMM output
    back (residual).
    """

    def __init__(self, input_size, hidden_size, scaling_factor):
        super(Model, self).__init__()
        self.gemm = nn.Linear(input_size, hidden_size)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, input_size).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, hidden_size).
        """
        x = self.gemm(x)
        original_x = x
        x = torch.sigmoid(x)
        x = x * self.scaling_factor
        x = x + original_x
        return x


batch_size = 1024
input_size = 8192
hidden_size = 8192
scaling_factor = 2.0
REDUCED_SIZES = {"batch_size": 32, "input_size": 256, "hidden_size": 128}  # CPU-size variant


def get_inputs():
    return [torch.randn(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, scaling_factor]
