import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 2D transposed convolution, applies GELU, and normalizes with GroupNorm.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, num_groups):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride)
        self.group_norm = nn.GroupNorm(num_groups=num_groups, num_channels=out_channels)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height', width').
        """
        x = self.conv_transpose(x)
        x = F.gelu(x)
        x = self.group_norm(x)
        return x


batch_size = 32
in_channels = 64
out_channels = 64
height = width = 256
kernel_size = 3
stride = 1
num_groups = 8
REDUCED_SIZES = {"batch_size": 2, "in_channels": 8, "out_channels": 16, "height": 16, "width": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, num_groups]
