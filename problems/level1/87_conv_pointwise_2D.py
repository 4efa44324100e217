import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs a pointwise 2D convolution: a 1x1 convolution that mixes channels at every pixel.

    Args:
        in_channels (int): Number of channels in the input tensor.
        out_channels (int): Number of channels produced by the convolution.
        bias (bool): If True, adds a learnable bias to the output. Defaults to False.
    """

    def __init__(self, in_channels: int, out_channels: int, bias: bool = False):
        super(Model, self).__init__()
        self.pointwise = nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, padding=0, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Performs the pointwise 2D convolution.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height, width).
        """
        return self.pointwise(x)


batch_size = 16
in_channels = 64
out_channels = 128
height = 512
width = 512
REDUCED_SIZES = {"batch_size": 1, "in_channels": 8, "out_channels": 16, "height": 32, "width": 32}  # CPU size


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels]
