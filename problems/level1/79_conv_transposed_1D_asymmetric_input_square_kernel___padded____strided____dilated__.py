import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs a transposed 1D convolution with padding, stride and dilation.

    Args:
        in_channels (int): Number of channels in the input tensor.
        out_channels (int): Number of channels produced by the convolution.
        kernel_size (int): Size of the convolution kernel.
        stride (int): Stride of the convolution. Defaults to 1.
        padding (int): Zero padding applied to the input. Defaults to 0.
        output_padding (int): Additional size added to one side of the output shape. Defaults to 0.
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
        output_padding: int = 0,
        dilation: int = 1,
        groups: int = 1,
        bias: bool = False,
    ):
        super(Model, self).__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(
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
        Performs the transposed 1D convolution.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, length).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, length_out).
        """
        return self.conv_transpose1d(x)


batch_size = 16
in_channels = 128
out_channels = 128
kernel_size = 3
length = 65536
# Stride and dilation share no common factor (per axis), so every output position gets kernel taps;
# with a common factor many outputs would be structural zeros.
stride = 2
padding = 1
output_padding = 0
dilation = 3
# CPU-size variant for the catalogue check
REDUCED_SIZES = {"batch_size": 2, "in_channels": 16, "out_channels": 16, "length": 512}


def get_inputs():
    x = torch.randn(batch_size, in_channels, length)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation]
