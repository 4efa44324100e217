import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Simple model that performs a 2D convolution, applies the activation x * tanh(softplus(x)), and
    then batch normalization.
    """

    def __init__(self, in_channels, out_channels, kernel_size, eps=1e-5, momentum=0.1):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps, momentum=momentum)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height', width').
        """
        x = self.conv(x)
        x = torch.multiply(torch.tanh(F.softplus(x)), x)
        x = self.bn(x)
        return x


batch_size = 64
in_channels = 64
out_channels = 128
height, width = 128, 128
kernel_size = 3
REDUCED_SIZES = {"batch_size": 2, "in_channels": 8, "out_channels": 16, "height": 32, "width": 32}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
