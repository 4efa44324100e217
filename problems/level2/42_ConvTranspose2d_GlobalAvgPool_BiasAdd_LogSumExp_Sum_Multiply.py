import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 2D transposed convolution, global average pooling, adds a per-channel bias,
    applies LogSumExp over channels, sums over the spatial dimensions, and multiplies by 10.
    """

    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, 1).
        """
        x = self.conv_transpose(x)
        x = torch.mean(x, dim=(2, 3), keepdim=True)  # global average pooling
        x = x + self.bias
        x = torch.logsumexp(x, dim=1, keepdim=True)
        x = torch.sum(x, dim=(2, 3))
        x = x * 10.0
        return x


batch_size = 16
in_channels = 64
out_channels = 128
height = width = 256
kernel_size = 3
bias_shape = (out_channels, 1, 1)
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 8,
    "out_channels": 16,
    "height": 16,
    "width": 16,
    "bias_shape": (16, 1, 1),
}


def get_inputs():
    # A per-sample, per-channel offset keeps the globally pooled result input-dependent.
    x = torch.randn(batch_size, in_channels, height, width)
    return [x + torch.randn(batch_size, in_channels, 1, 1)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
