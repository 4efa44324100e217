import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs a standard 2D convolution with a square input and a square kernel: the first
    convolution of AlexNet (3 -> 96 channels, 11x11 kernel, stride 4) on 224x224 images.

    Args:
        in_channels (int): Number of channels in the input tensor.
        out_channels (int): Number of channels produced by the convolution.
        kernel_size (int): Size of the square convolution kernel.
        stride (int): Stride of the convolution. Defaults to 1.
        padding (int): Zero padding applied to the input. Defaults to 0.
        dilation (int): Spacing between kernel elements. Defaults to 1.
        groups (int): Number of blocked connections from input channels to output channels. Defaults to 1.
        bias (bool): If True, adds a learnable bias to the output. Defaults to False.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        stride: int = 1,
        padding: int = 0,
        dilation: int = 1,
        groups: int = 1,
        bias: bool = False,
    ):
        super(Model, self).__init__()
        self.conv2d = nn.Conv2d(
            in_channels,
            out_channels,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            groups=groups,
            bias=bias,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Performs the 2D convolution.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, image_size, image_size).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height_out, width_out).
        """
        return self.conv2d(x)


batch_size = 256
in_channels = 3
out_channels = 96
image_size = 224
kernel_size = 11
stride = 4
padding = 2
REDUCED_SIZES = {"batch_size": 2, "image_size": 64}  # CPU-size variant for the catalogue check


def get_inputs():
    x = torch.randn(batch_size, in_channels, image_size, image_size)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding]
