import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a 3D convolution, takes the minimum along the depth dimension, and
    applies softmax over channels.
    """

    def __init__(self, in_channels, out_channels, kernel_size, dim):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.dim = dim

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, D, H, W).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, H', W').
        """
        x = self.conv(x)
        x = torch.min(x, dim=self.dim)[0]
        x = torch.softmax(x, dim=1)
        return x


batch_size = 64
in_channels = 8
out_channels = 32
D, H, W = 32, 64, 64
kernel_size = 3
dim = 2  # reduce over depth
REDUCED_SIZES = {"batch_size": 2, "in_channels": 3, "out_channels": 8, "D": 8, "H": 16, "W": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, D, H, W)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, dim]
