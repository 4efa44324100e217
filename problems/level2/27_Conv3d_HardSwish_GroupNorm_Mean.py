import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 3D convolution, applies HardSwish, group normalization, and takes the mean
    over the spatial dimensions.
    """

    def __init__(self, in_channels, out_channels, kernel_size, num_groups):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels).
        """
        x = self.conv(x)
        x = F.hardswish(x)
        x = self.group_norm(x)
        x = torch.mean(x, dim=[2, 3, 4])
        return x


batch_size = 1024
in_channels = 3
out_channels = 16
depth, height, width = 16, 32, 32
kernel_size = 4
num_groups = 4
REDUCED_SIZES = {"batch_size": 4, "out_channels": 8, "depth": 8, "height": 12, "width": 12}  # CPU size


def get_inputs():
    # A per-sample, per-channel offset keeps the spatial means input-dependent.
    x = torch.randn(batch_size, in_channels, depth, height, width)
    return [x + torch.randn(batch_size, in_channels, 1, 1, 1)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, num_groups]
