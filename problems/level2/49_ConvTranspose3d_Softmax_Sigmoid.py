import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a 3D transposed convolution, applies softmax over channels, and then sigmoid.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, bias=True):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding,
            bias=bias,
        )
        self.softmax = nn.Softmax(dim=1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, D, H, W).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, 2 * D, 2 * H, 2 * W).
        """
        x = self.conv_transpose(x)
        x = self.softmax(x)
        x = self.sigmoid(x)
        return x


batch_size = 16
in_channels = 64
out_channels = 16
D, H, W = 32, 64, 64
kernel_size = 3
stride = 2
padding = 1
output_padding = 1
REDUCED_SIZES = {"batch_size": 2, "in_channels": 8, "out_channels": 4, "D": 4, "H": 8, "W": 8}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, D, H, W)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, output_padding]
