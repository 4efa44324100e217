import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs a depthwise 2D convolution (one filter per channel, groups = in_channels) with an
    asymmetric input and an asymmetric kernel, with separate strides, padding and dilation per axis.

    Args:
        in_channels (int): Number of channels in the input tensor (and in the output).
        kernel_size_h (int): Height of the convolution kernel.
        kernel_size_w (int): Width of the convolution kernel.
        stride_h (int): Stride along the height. Defaults to 1.
        stride_w (int): Stride along the width. Defaults to 1.
        padding_h (int): Zero padding along the height. Defaults to 0.
        padding_w (int): Zero padding along the width. Defaults to 0.
        dilation_h (int): Spacing between kernel elements along the height. Defaults to 1.
        dilation_w (int): Spacing between kernel elements along the width. Defaults to 1.
        bias (bool): If True, adds a learnable bias to the output. Defaults to False.
    """

    def __init__(
        self,
        in_channels: int,
        kernel_size_h: int,
        kernel_size_w: int,
        stride_h: int = 1,
        stride_w: int = 1,
        padding_h: int = 0,
        padding_w: int = 0,
        dilation_h: int = 1,
        dilation_w: int = 1,
        bias: bool = False,
    ):
        super(Model, self).__init__()
        self.conv2d = nn.Conv2d(
            in_channels,
            in_channels,
            kernel_size=(kernel_size_h, kernel_size_w),
            stride=(stride_h, stride_w),
            padding=(padding_h, padding_w),
            dilation=(dilation_h, dilation_w),
            groups=in_channels,
            bias=bias,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Performs the depthwise 2D convolution.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, in_channels, height_out, width_out).
        """
        return self.conv2d(x)


batch_size = 32
in_channels = 64
height = 256
width = 1024
kernel_size_h = 3
kernel_size_w = 7
stride_h = 1
stride_w = 1
padding_h = 1
padding_w = 3
dilation_h = 1
dilation_w = 1
REDUCED_SIZES = {"batch_size": 2, "in_channels": 8, "height": 32, "width": 128}  # CPU-size variant


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [
        in_channels,
        kernel_size_h,
        kernel_size_w,
        stride_h,
        stride_w,
        padding_h,
        padding_w,
        dilation_h,
        dilation_w,
    ]
