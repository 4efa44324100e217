import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, LogSumExp over channels, HardSwish, subtracts a
    constant, and clamps to [clamp_min, clamp_max].
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, subtract_value, clamp_min, clamp_max):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.subtract_value = subtract_value
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, 1, depth', height', width').
        """
        x = self.conv_transpose(x)
        x = torch.logsumexp(x, dim=1, keepdim=True)
        x = F.hardswish(x)
        x = x - self.subtract_value
        x = torch.clamp(x, min=self.clamp_min, max=self.clamp_max)
        return x


# SIZE NOTE: measured 26.29 ms eager on an H200 at 32; reduced to stay within 1-15 ms.
batch_size = 12
in_channels = 16
out_channels = 16
depth, height, width = 32, 64, 64
kernel_size = 3
stride = 2
padding = 1
subtract_value = 2.5  # LogSumExp over 16 channels is about log(16) = 2.8
clamp_min = -1.0
clamp_max = 1.0
REDUCED_SIZES = {"batch_size": 2, "in_channels": 4, "depth": 4, "height": 8, "width": 8}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, subtract_value, clamp_min, clamp_max]
