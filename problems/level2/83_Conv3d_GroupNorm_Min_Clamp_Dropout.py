import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D convolution, group normalization, an elementwise minimum with a
    constant, a clamp, and dropout.

    The dropout probability is 0.0, so dropout is the identity in training and in evaluation mode
    and the output is deterministic.
    """

    def __init__(self, in_channels, out_channels, kernel_size, groups, min_value, clamp_min, clamp_max, dropout_p):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.norm = nn.GroupNorm(groups, out_channels)
        self.min_value = min_value
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, depth', height', width').
        """
        x = self.conv(x)
        x = self.norm(x)
        x = torch.min(x, torch.tensor(self.min_value, device=x.device))
        x = torch.clamp(x, min=self.clamp_min, max=self.clamp_max)
        x = self.dropout(x)
        return x


batch_size = 128
in_channels = 3
out_channels = 16
depth, height, width = 32, 64, 64
kernel_size = 3
groups = 8
min_value = 0.5
clamp_min = -1.0
clamp_max = 1.0
dropout_p = 0.0
REDUCED_SIZES = {"batch_size": 2, "depth": 8, "height": 16, "width": 16}  # CPU-size variant


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, groups, min_value, clamp_min, clamp_max, dropout_p]
