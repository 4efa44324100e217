import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 3D convolution, applies Mish, and then tanh.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, D, H, W).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, D', H', W').
        """
        x = self.conv(x)
        x = F.mish(x)
        x = torch.tanh(x)
        return x


batch_size = 8
in_channels = 32
out_channels = 64
D, H, W = 32, 64, 64
kernel_size = 3
REDUCED_SIZES = {"batch_size": 2, "in_channels": 4, "out_channels": 8, "D": 6, "H": 12, "W": 12}  # CPU size
# No x100 input variant: at x100 the fp32 reference is itself up to 0.000118 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_channels, D, H, W)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
