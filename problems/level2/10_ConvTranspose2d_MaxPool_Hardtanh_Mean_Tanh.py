import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 2D transposed convolution, 2D max pooling, hardtanh, a mean over the
    spatial dimensions, and tanh.
    """

    def __init__(
        self, in_channels, out_channels, kernel_size, stride, padding, maxpool_kernel_size, maxpool_stride,
        hardtanh_min, hardtanh_max,
    ):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.maxpool = nn.MaxPool2d(kernel_size=maxpool_kernel_size, stride=maxpool_stride)
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, 1, 1).
        """
        x = self.conv_transpose(x)
        x = self.maxpool(x)
        x = self.hardtanh(x)
        x = torch.mean(x, dim=(2, 3), keepdim=True)
        x = torch.tanh(x)
        return x


batch_size = 64
in_channels = 64
out_channels = 64
height = width = 128
kernel_size = 3
stride = 1
padding = 1
maxpool_kernel_size = 2
maxpool_stride = 2
hardtanh_min = -1.0
hardtanh_max = 1.0
REDUCED_SIZES = {"batch_size": 2, "in_channels": 8, "out_channels": 8, "height": 16, "width": 16}  # CPU size


def get_inputs():
    # A per-sample, per-channel offset keeps the spatial mean input-dependent.
    x = torch.randn(batch_size, in_channels, height, width)
    return [x + torch.randn(batch_size, in_channels, 1, 1)]


def get_init_inputs():
    return [
        in_channels, out_channels, kernel_size, stride, padding, maxpool_kernel_size, maxpool_stride,
        hardtanh_min, hardtanh_max,
    ]
