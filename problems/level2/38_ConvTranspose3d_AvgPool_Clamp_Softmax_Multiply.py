import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, 3D average pooling, clamping, softmax over
    channels, and multiplication by a learnable per-channel scale.

    The softmax runs over channels: over the flattened spatial positions (as in the original
    KernelBench problem) every value would be ~1e-6, below any useful tolerance.
    """

    def __init__(
        self, in_channels, out_channels, kernel_size, stride, padding, output_padding, pool_kernel_size,
        clamp_min, clamp_max,
    ):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding
        )
        self.avg_pool = nn.AvgPool3d(pool_kernel_size)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max
        self.scale = nn.Parameter(torch.randn(1, out_channels, 1, 1, 1))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, depth, height, width)
            (the transposed convolution doubles each spatial size, the pooling halves it).
        """
        x = self.conv_transpose(x)
        x = self.avg_pool(x)
        x = torch.clamp(x, self.clamp_min, self.clamp_max)
        x = torch.softmax(x, dim=1)
        x = x * self.scale
        return x


# SIZE NOTE: measured 22.66 ms eager on an H200 at 32; reduced to stay within 1-15 ms.
batch_size = 16
in_channels = 64
out_channels = 16
depth, height, width = 32, 64, 64
kernel_size = 3
stride = 2
padding = 1
output_padding = 1
pool_kernel_size = 2
clamp_min = -0.5
clamp_max = 0.5
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 8,
    "out_channels": 4,
    "depth": 4,
    "height": 8,
    "width": 8,
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [
        in_channels, out_channels, kernel_size, stride, padding, output_padding, pool_kernel_size,
        clamp_min, clamp_max,
    ]
