import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a 2D convolution, takes the elementwise minimum with a constant, adds
    a per-channel bias, and multiplies by a scaling factor.
    """

    def __init__(self, in_channels, out_channels, kernel_size, constant_value, bias_shape, scaling_factor):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.constant_value = constant_value
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height', width').
        """
        x = self.conv(x)
        x = torch.min(x, torch.tensor(self.constant_value, device=x.device))
        x = x + self.bias
        x = x * self.scaling_factor
        return x


batch_size = 64
in_channels = 64
out_channels = 128
height = width = 128
kernel_size = 3
constant_value = 0.5
bias_shape = (out_channels, 1, 1)
scaling_factor = 2.0
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 8,
    "out_channels": 16,
    "height": 32,
    "width": 32,
    "bias_shape": (16, 1, 1),
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, constant_value, bias_shape, scaling_factor]
