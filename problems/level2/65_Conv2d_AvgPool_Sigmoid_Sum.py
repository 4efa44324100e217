import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 2D convolution, 2D average pooling, applies sigmoid, and sums over the
    channel and spatial dimensions.
    """

    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel_size):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.avg_pool = nn.AvgPool2d(pool_kernel_size)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size,).
        """
        x = self.conv(x)
        x = self.avg_pool(x)
        x = torch.sigmoid(x)
        x = torch.sum(x, dim=[1, 2, 3])
        return x


batch_size = 64
in_channels = 8
out_channels = 64
height, width = 384, 384
kernel_size = 3
pool_kernel_size = 4
REDUCED_SIZES = {"batch_size": 2, "in_channels": 4, "out_channels": 16, "height": 34, "width": 34}  # CPU size


def get_inputs():
    # A per-sample, per-channel offset keeps the full-image sum input-dependent.
    x = torch.randn(batch_size, in_channels, height, width)
    return [x + torch.randn(batch_size, in_channels, 1, 1)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, pool_kernel_size]
