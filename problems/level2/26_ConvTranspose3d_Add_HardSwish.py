import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, adds a second input tensor, and multiplies the
    sum by its HardSwish.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding
        )

    def forward(self, x, add_input):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, D, H, W).
            add_input (torch.Tensor): Tensor added after the transposed convolution, of shape
                (batch_size, out_channels, D * stride, H * stride, W * stride).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, D * stride, H * stride, W * stride).
        """
        x = self.conv_transpose(x)
        x = x + add_input
        x = x * F.hardswish(x)
        return x


batch_size = 128
in_channels = 32
out_channels = 64
D, H, W = 16, 16, 16
kernel_size = 3
stride = 2
padding = 1
output_padding = 1
REDUCED_SIZES = {"batch_size": 2, "in_channels": 4, "out_channels": 8, "D": 4, "H": 8, "W": 8}  # CPU size


def get_inputs():
    x = torch.randn(batch_size, in_channels, D, H, W)
    add_input = torch.randn(batch_size, out_channels, D * stride, H * stride, W * stride)
    return [x, add_input]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, output_padding]
