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


class ShuffleNetUnit(nn.Module):
    """1x1 group conv + BN + ReLU, 3x3 depthwise + BN, shuffle, 1x1 group conv + BN + ReLU, + shortcut."""

    def __init__(self, in_channels, out_channels, groups=3):
        super(ShuffleNetUnit, self).__init__()
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
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.shuffle(self.bn2(self.conv2(out)))
        out = F.relu(self.bn3(self.conv3(out)))
        return out + self.shortcut(x)


class Model(nn.Module):
    """
    ShuffleNet (as in KernelBench): 3x3 stride-2 conv stem + BN + ReLU + max-pool, three stages
    of ShuffleNet units (stride 1 throughout), a 1x1 conv to 1024 channels + BN + ReLU, global
    average pooling and a Linear classifier. BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, num_classes=1000, groups=3, stages_repeats=(3, 7, 3), stages_out_channels=(24, 240, 480, 960)):
        """
        :param num_classes: The number of output classes
        :param groups: Number of groups of the 1x1 group convs
        :param stages_repeats: Number of units in each of the three stages
        :param stages_out_channels: Stem output channels, then each stage's output channels
        """
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(3, stages_out_channels[0], kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(stages_out_channels[0])
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.stage2 = self._make_stage(stages_out_channels[0], stages_out_channels[1], stages_repeats[0], groups)
        self.stage3 = self._make_stage(stages_out_channels[1], stages_out_channels[2], stages_repeats[1], groups)
        self.stage4 = self._make_stage(stages_out_channels[2], stages_out_channels[3], stages_repeats[2], groups)
        self.conv5 = nn.Conv2d(stages_out_channels[3], 1024, kernel_size=1, bias=False)
        self.bn5 = nn.BatchNorm2d(1024)
        self.fc = nn.Linear(1024, num_classes)

    @staticmethod
    def _make_stage(in_channels, out_channels, repeats, groups):
        layers = [ShuffleNetUnit(in_channels, out_channels, groups)]
        layers += [ShuffleNetUnit(out_channels, out_channels, groups) for _ in range(1, repeats)]
        return nn.Sequential(*layers)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, 3, height, width)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.stage2(x)
        x = self.stage3(x)
        x = self.stage4(x)
        x = F.relu(self.bn5(self.conv5(x)))
        x = torch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1)
        return self.fc(x)


batch_size = 10
image_size = 224
num_classes = 1000
groups = 3
stages_repeats = [3, 7, 3]
stages_out_channels = [24, 240, 480, 960]
REDUCED_SIZES = {"batch_size": 2, "image_size": 32, "num_classes": 100, "stages_out_channels": [12, 48, 96, 192]}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [num_classes, groups, stages_repeats, stages_out_channels]
