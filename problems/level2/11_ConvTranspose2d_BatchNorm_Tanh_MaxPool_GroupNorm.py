import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 2D transposed convolution, batch normalization, tanh, 2D max pooling,
    and group normalization.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, num_groups):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.batch_norm = nn.BatchNorm2d(out_channels)
        self.tanh = nn.Tanh()
        self.max_pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.group_norm = nn.GroupNorm(num_groups=num_groups, num_channels=out_channels)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height', width').
        """
        x = self.conv_transpose(x)
        x = self.batch_norm(x)
        x = self.tanh(x)
        x = self.max_pool(x)
        x = self.group_norm(x)
        return x


batch_size = 512
in_channels = 64
out_channels = 128
height = width = 32
kernel_size = 5
stride = 1
padding = 1
num_groups = 8
REDUCED_SIZES = {"batch_size": 4, "in_channels": 8, "out_channels": 16, "height": 8, "width": 8}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, num_groups]
