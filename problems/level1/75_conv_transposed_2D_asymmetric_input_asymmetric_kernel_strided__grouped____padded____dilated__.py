import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs a transposed 2D convolution with an asymmetric input and an asymmetric kernel,
    with asymmetric stride, padding and dilation, and groups.

    Args:
        in_channels (int): Number of channels in the input tensor.
        out_channels (int): Number of channels produced by the convolution.
        kernel_size (tuple): Size of the kernel (kernel_height, kernel_width).
        stride (int | tuple): Stride of the convolution. Defaults to 1.
        padding (int | tuple): Zero padding applied to the input. Defaults to 0.
        output_padding (int | tuple): Additional size added to one side of the output shape. Defaults to 0.
        dilation (int | tuple): Spacing between kernel elements. Defaults to 1.
        groups (int): Number of blocked connections from input channels to output channels. Defaults to 1.
        bias (bool): If True, adds a learnable bias to the output. Defaults to False.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: tuple,
        stride: int | tuple = 1,
        padding: int | tuple = 0,
        output_padding: int | tuple = 0,
        dilation: int | tuple = 1,
        groups: int = 1,
        bias: bool = False,
    ):
        super(Model, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(
            in_channels,
            out_channels,
            kernel_size,
            stride=stride,
            padding=padding,
            output_padding=output_padding,
            dilation=dilation,
            groups=groups,
            bias=bias,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Performs the transposed 2D convolution.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height_out, width_out).
        """
        return self.conv_transpose2d(x)


batch_size = 16
in_channels = 128
out_channels = 128
kernel_size = (3, 5)
height = 128
width = 256
# Stride and dilation share no common factor (per axis), so every output position gets kernel taps;
# with a common factor many outputs would be structural zeros.
stride = (3, 2)
padding = (1, 2)
output_padding = (0, 0)
dilation = (2, 1)
groups = 4
# CPU-size variant for the catalogue check
REDUCED_SIZES = {"batch_size": 1, "in_channels": 8, "out_channels": 16, "height": 8, "width": 16}


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation, groups]
