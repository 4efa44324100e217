import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, 3D max pooling, softmax over channels,
    subtraction of a learnable per-channel vector, Swish, and a maximum over channels.
    """

    def __init__(
        self, in_channels, out_channels, kernel_size, stride, padding, output_padding, pool_kernel_size, pool_stride,
        pool_padding,
    ):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding
        )
        self.max_pool = nn.MaxPool3d(kernel_size=pool_kernel_size, stride=pool_stride, padding=pool_padding)
        self.subtract = nn.Parameter(torch.randn(out_channels))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, depth, height, width)
            (the transposed convolution doubles each spatial size, the pooling halves it).
        """
        x = self.conv_transpose(x)
        x = self.max_pool(x)
        x = torch.softmax(x, dim=1)
        x = x - self.subtract.view(1, -1, 1, 1, 1)
        x = torch.sigmoid(x) * x  # Swish
        x = torch.max(x, dim=1)[0]
        return x


batch_size = 128
in_channels = 64
out_channels = 8  # few channels keep the softmax values large enough to matter next to the subtraction
depth, height, width = 16, 32, 32
kernel_size = 3
stride = 2
padding = 1
output_padding = 1
pool_kernel_size = 2
pool_stride = 2
pool_padding = 0
REDUCED_SIZES = {"batch_size": 2, "in_channels": 16, "depth": 4, "height": 8, "width": 8}  # CPU-size variant


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [
        in_channels, out_channels, kernel_size, stride, padding, output_padding, pool_kernel_size, pool_stride,
        pool_padding,
    ]
