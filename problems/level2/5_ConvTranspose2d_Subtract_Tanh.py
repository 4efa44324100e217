import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 2D transposed convolution, subtracts a per-channel bias, and applies tanh.
    """

    def __init__(self, in_channels, out_channels, kernel_size, bias_shape, stride, padding, output_padding):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding
        )
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height', width').
        """
        x = self.conv_transpose(x)
        x = x - self.bias
        x = torch.tanh(x)
        return x


batch_size = 16
in_channels = 64
out_channels = 64
height = width = 256
kernel_size = 4
bias_shape = (out_channels, 1, 1)
stride = 2
padding = 1
output_padding = 1
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 8,
    "out_channels": 8,
    "height": 16,
    "width": 16,
    "bias_shape": (8, 1, 1),
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape, stride, padding, output_padding]
