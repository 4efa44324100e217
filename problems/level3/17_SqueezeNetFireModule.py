import torch
import torch.nn as nn


class Model(nn.Module):
    """
    SqueezeNet Fire module: 1x1 squeeze conv + ReLU, then two parallel expand convs (1x1 and
    3x3, each + ReLU) whose outputs are concatenated along channels.
    """

    def __init__(self, in_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        """
        :param in_channels: Number of input channels
        :param squeeze_channels: Number of output channels of the squeeze layer
        :param expand1x1_channels: Number of output channels of the 1x1 expand layer
        :param expand3x3_channels: Number of output channels of the 3x3 expand layer
        """
        super(Model, self).__init__()
        self.squeeze = nn.Conv2d(in_channels, squeeze_channels, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_channels, expand1x1_channels, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_channels, expand3x3_channels, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, in_channels, height, width)
        :return: Output tensor, shape (batch_size, expand1x1_channels + expand3x3_channels, height, width)
        """
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat(
            [self.expand1x1_activation(self.expand1x1(x)), self.expand3x3_activation(self.expand3x3(x))], 1
        )


batch_size = 64
in_channels = 128
squeeze_channels = 32
expand1x1_channels = 128
expand3x3_channels = 128
height = 112
width = 112
REDUCED_SIZES = {"batch_size": 2, "in_channels": 16, "squeeze_channels": 8, "expand1x1_channels": 16, "expand3x3_channels": 16, "height": 16, "width": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, squeeze_channels, expand1x1_channels, expand3x3_channels]
