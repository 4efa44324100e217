import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, adds a learnable scalar, applies layer
    normalization over the last (width) dimension, 3D average pooling, and GELU.
    """

    def __init__(
        self, in_channels, out_channels, kernel_size, stride, padding, output_padding, sum_weight, norm_shape,
        pool_kernel_size,
    ):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding
        )
        self.sum_weight = nn.Parameter(torch.tensor(sum_weight))
        self.norm = nn.LayerNorm(norm_shape)
        self.avg_pool = nn.AvgPool3d(kernel_size=pool_kernel_size)
        self.gelu = nn.GELU()

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, depth, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, depth, height, width)
            (the transposed convolution doubles each spatial size, the pooling halves it).
        """
        x = self.conv_transpose(x)
        x = x + self.sum_weight
        x = self.norm(x)
        x = self.avg_pool(x)
        x = self.gelu(x)
        return x


# SIZE NOTE: measured 17.26 ms eager on an H200 at 32; reduced to stay within 1-15 ms.
batch_size = 16
in_channels = 32
out_channels = 64
depth, height, width = 16, 32, 32
kernel_size = (3, 3, 3)
stride = (2, 2, 2)
padding = (1, 1, 1)
output_padding = (1, 1, 1)
sum_weight = 1.0
norm_shape = (2 * width,)  # LayerNorm over the last dimension of the upsampled output
pool_kernel_size = (2, 2, 2)
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 2,
    "in_channels": 4,
    "out_channels": 8,
    "depth": 4,
    "height": 8,
    "width": 8,
    "norm_shape": (16,),
}


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [
        in_channels, out_channels, kernel_size, stride, padding, output_padding, sum_weight, norm_shape,
        pool_kernel_size,
    ]
