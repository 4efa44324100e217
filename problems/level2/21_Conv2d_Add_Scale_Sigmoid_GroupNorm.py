import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 2D convolution, adds a per-channel bias, multiplies by a per-channel scale,
    applies sigmoid, and performs group normalization.
    """

    def __init__(self, in_channels, out_channels, kernel_size, num_groups, bias_shape, scale_shape):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height', width').
        """
        x = self.conv(x)
        x = x + self.bias
        x = x * self.scale
        x = torch.sigmoid(x)
        x = self.group_norm(x)
        return x


batch_size = 128
in_channels = 8
out_channels = 32
height = width = 256
kernel_size = 3
num_groups = 8
bias_shape = (out_channels, 1, 1)
scale_shape = (out_channels, 1, 1)
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 4,
    "out_channels": 16,
    "height": 32,
    "width": 32,
    "bias_shape": (16, 1, 1),
    "scale_shape": (16, 1, 1),
}
# No x100 input variant: at x100 the fp32 reference is itself up to 6.53e-05 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, num_groups, bias_shape, scale_shape]
