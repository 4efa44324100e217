import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, adds a per-channel bias, adds the convolution
    output back (residual), multiplies by the convolution output, and adds it once more (residual).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, bias_shape):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding
        )
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, 2 * depth, 2 * height, 2 * width).
        """
        x = self.conv_transpose(x)
        original_x = x
        x = x + self.bias
        x = x + original_x
        x = x * original_x
        x = x + original_x
        return x


batch_size = 32
in_channels = 32
out_channels = 64
depth, height, width = 16, 32, 32
kernel_size = 3
stride = 2
padding = 1
output_padding = 1
bias_shape = (out_channels, 1, 1, 1)
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 4,
    "out_channels": 8,
    "depth": 4,
    "height": 8,
    "width": 8,
    "bias_shape": (8, 1, 1, 1),
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, output_padding, bias_shape]
