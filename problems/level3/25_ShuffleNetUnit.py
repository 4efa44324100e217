import torch
import torch.nn as nn
import torch.nn.functional as F


class ChannelShuffle(nn.Module):
    """Interleaves channels across groups: (B, g*c, H, W) -> view (B, g, c) -> transpose -> flatten."""

    def __init__(self, groups):
        super(ChannelShuffle, self).__init__()
        self.groups = groups

    def forward(self, x):
        batch_size, channels, height, width = x.size()
        x = x.view(batch_size, self.groups, channels // self.groups, height, width)
        x = x.transpose(1, 2).contiguous()
        return x.view(batch_size, -1, height, width)


class Model(nn.Module):
    """
    ShuffleNet unit: 1x1 group conv + BN + ReLU, 3x3 depthwise conv + BN, channel shuffle,
    1x1 group conv + BN + ReLU, plus a shortcut (1x1 conv + BN, since the channel count changes).
    BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, in_channels, out_channels, groups=3):
        """
        :param in_channels: Number of input channels
        :param out_channels: Number of output channels
        :param groups: Number of groups of the 1x1 group convs
        """
        super(Model, self).__init__()
        assert out_channels % 4 == 0
        mid_channels = out_channels // 4
        self.conv1 = nn.Conv2d(in_channels, mid_channels, kernel_size=1, groups=groups, bias=False)
        self.bn1 = nn.BatchNorm2d(mid_channels)
        self.conv2 = nn.Conv2d(mid_channels, mid_channels, kernel_size=3, padding=1, groups=mid_channels, bias=False)
        self.bn2 = nn.BatchNorm2d(mid_channels)
        self.conv3 = nn.Conv2d(mid_channels, out_channels, kernel_size=1, groups=groups, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.shuffle = ChannelShuffle(groups)
        if in_channels == out_channels:
            self.shortcut = nn.Sequential()
        else:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, in_channels, height, width)
        :return: Output tensor, shape (batch_size, out_channels, height, width)
        """
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = self.shuffle(out)
        out = F.relu(self.bn3(self.conv3(out)))
        return out + self.shortcut(x)


batch_size = 10
in_channels = 240
out_channels = 480
groups = 3
height = 224
width = 224
REDUCED_SIZES = {"batch_size": 2, "in_channels": 24, "out_channels": 48, "height": 16, "width": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, groups]
