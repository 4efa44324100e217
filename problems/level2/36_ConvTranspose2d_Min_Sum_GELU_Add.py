import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 2D transposed convolution, takes the minimum over channels, sums it with a
    learnable per-position offset, applies GELU, and adds a scalar bias.

    "Sum" is an elementwise sum here: summing the channel minimum over the height dimension (as the
    original KernelBench problem does) drives every value far below zero, where GELU returns 0.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, sum_shape, bias_shape):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(
            in_channels, out_channels, kernel_size, stride, padding, output_padding
        )
        self.sum_weight = nn.Parameter(torch.randn(sum_shape))
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, 1, height * stride, width * stride).
        """
        x = self.conv_transpose(x)
        x = torch.min(x, dim=1, keepdim=True)[0]
        x = x + self.sum_weight
        x = F.gelu(x)
        x = x + self.bias
        return x


batch_size = 32
in_channels = 64
out_channels = 128
height, width = 128, 128
kernel_size = 3
stride = 2
padding = 1
output_padding = 1
sum_shape = (1, 2 * height, 2 * width)
bias_shape = (1, 1, 1)
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 8,
    "out_channels": 16,
    "height": 16,
    "width": 16,
    "sum_shape": (1, 32, 32),
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, output_padding, sum_shape, bias_shape]
