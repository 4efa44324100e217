import torch
import torch.nn as nn


class Model(nn.Module):
    """
    EfficientNet MBConv block: 1x1 expand conv + BN + ReLU6, kxk depthwise conv + BN + ReLU6,
    1x1 projection conv + BN, and a residual add when stride is 1 and channels match.
    BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, expand_ratio):
        """
        :param in_channels: Number of input channels
        :param out_channels: Number of output channels
        :param kernel_size: Kernel size of the depthwise conv
        :param stride: Stride of the depthwise conv
        :param expand_ratio: Expansion factor of the 1x1 expand conv
        """
        super(Model, self).__init__()
        self.use_residual = stride == 1 and in_channels == out_channels
        hidden_dim = in_channels * expand_ratio
        self.expand_conv = None
        if expand_ratio != 1:
            self.expand_conv = nn.Sequential(
                nn.Conv2d(in_channels, hidden_dim, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(hidden_dim),
                nn.ReLU6(inplace=True),
            )
        self.depthwise_conv = nn.Sequential(
            nn.Conv2d(hidden_dim, hidden_dim, kernel_size=kernel_size, stride=stride,
                      padding=(kernel_size - 1) // 2, groups=hidden_dim, bias=False),
            nn.BatchNorm2d(hidden_dim),
            nn.ReLU6(inplace=True),
        )
        self.project_conv = nn.Sequential(
            nn.Conv2d(hidden_dim, out_channels, kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(out_channels),
        )

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, in_channels, H, W)
        :return: Output tensor, shape (batch_size, out_channels, H', W')
        """
        identity = x
        if self.expand_conv is not None:
            x = self.expand_conv(x)
        x = self.depthwise_conv(x)
        x = self.project_conv(x)
        if self.use_residual:
            x += identity
        return x


batch_size = 10
in_channels = 112
out_channels = 192
kernel_size = 5
stride = 2
expand_ratio = 6
height = 224
width = 224
REDUCED_SIZES = {"batch_size": 2, "in_channels": 16, "out_channels": 24, "height": 16, "width": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, expand_ratio]
