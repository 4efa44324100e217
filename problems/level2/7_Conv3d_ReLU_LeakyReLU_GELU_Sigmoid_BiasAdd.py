import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 3D convolution, then applies ReLU, LeakyReLU, GELU and Sigmoid in sequence,
    and adds a per-channel bias.
    """

    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, depth', height', width').
        """
        x = self.conv(x)
        x = torch.relu(x)
        x = F.leaky_relu(x, negative_slope=0.01)
        x = F.gelu(x)
        x = torch.sigmoid(x)
        x = x + self.bias
        return x


batch_size = 64
in_channels = 8
out_channels = 32
depth, height, width = 32, 64, 64
kernel_size = 3
bias_shape = (out_channels, 1, 1, 1)
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 3,
    "out_channels": 8,
    "depth": 8,
    "height": 16,
    "width": 16,
    "bias_shape": (8, 1, 1, 1),
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
