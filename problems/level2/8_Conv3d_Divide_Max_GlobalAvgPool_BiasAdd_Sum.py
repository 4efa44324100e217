import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D convolution, divides by a constant, applies 3D max pooling and global
    average pooling, adds a per-channel bias, and sums over the channel dimension.
    """

    def __init__(self, in_channels, out_channels, kernel_size, divisor, pool_size, bias_shape, sum_dim):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.divisor = divisor
        self.max_pool = nn.MaxPool3d(pool_size)
        self.global_avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.sum_dim = sum_dim

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, 1, 1, 1).
        """
        x = self.conv(x)
        x = x / self.divisor
        x = self.max_pool(x)
        x = self.global_avg_pool(x)
        x = x + self.bias
        x = torch.sum(x, dim=self.sum_dim)
        return x


batch_size = 128
in_channels = 8
out_channels = 16
depth, height, width = 16, 64, 64
kernel_size = (3, 3, 3)
divisor = 2.0
pool_size = (2, 2, 2)
bias_shape = (out_channels, 1, 1, 1)
sum_dim = 1
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
    # A per-sample, per-channel offset keeps the globally pooled result input-dependent.
    x = torch.randn(batch_size, in_channels, depth, height, width)
    return [x + torch.randn(batch_size, in_channels, 1, 1, 1)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, divisor, pool_size, bias_shape, sum_dim]
