import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, takes the mean over depth, adds a per-channel
    bias, applies softmax over channels, tanh, and scales the result.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scaling_factor):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.bias = nn.Parameter(torch.randn(1, out_channels, 1, 1, 1))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, 1, height, width).
        """
        x = self.conv_transpose(x)
        x = x.mean(dim=2, keepdim=True)
        x = x + self.bias
        x = torch.softmax(x, dim=1)
        x = torch.tanh(x)
        x = x * self.scaling_factor
        return x


batch_size = 16
in_channels = 16
out_channels = 64
depth, height, width = 32, 64, 64
kernel_size = 3
stride = 1
padding = 1
scaling_factor = 2.0
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 4,
    "out_channels": 8,
    "depth": 6,
    "height": 12,
    "width": 12,
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, scaling_factor]
