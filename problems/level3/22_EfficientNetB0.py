import torch
import torch.nn as nn
import torch.nn.functional as F


class MBConv(nn.Module):
    """1x1 expand + BN + ReLU6, kxk depthwise + BN + ReLU6, 1x1 project + BN, residual if shapes match."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, expand_ratio):
        super(MBConv, self).__init__()
        self.use_residual = stride == 1 and in_channels == out_channels
        hidden_dim = in_channels * expand_ratio
        self.expand_conv = None
        if expand_ratio != 1:
            self.expand_conv = nn.Sequential(
                nn.Conv2d(in_channels, hidden_dim, kernel_size=1, bias=False),
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
            nn.Conv2d(hidden_dim, out_channels, kernel_size=1, bias=False),
            nn.BatchNorm2d(out_channels),
        )

    def forward(self, x):
        identity = x
        if self.expand_conv is not None:
            x = self.expand_conv(x)
        x = self.project_conv(self.depthwise_conv(x))
        if self.use_residual:
            x += identity
        return x


class Model(nn.Module):
    """
    EfficientNet-B0: 3x3 stride-2 conv stem, 13 MBConv blocks (3x3/5x5 depthwise, expansion 1 or
    6), a 1x1 conv to 1280 channels, global average pooling and a Linear classifier. Activations
    are ReLU6 / ReLU. BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, num_classes=1000):
        """
        :param num_classes: The number of output classes
        """
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        # (in_channels, out_channels, kernel_size, stride, expand_ratio)
        config = [
            (32, 16, 3, 1, 1),
            (16, 24, 3, 2, 6),
            (24, 24, 3, 1, 6),
            (24, 40, 5, 2, 6),
            (40, 40, 5, 1, 6),
            (40, 80, 3, 2, 6),
            (80, 80, 3, 1, 6),
            (80, 112, 5, 1, 6),
            (112, 112, 5, 1, 6),
            (112, 192, 5, 2, 6),
            (192, 192, 5, 1, 6),
            (192, 192, 5, 1, 6),
            (192, 320, 3, 1, 6),
        ]
        self.blocks = nn.Sequential(*[MBConv(*c) for c in config])
        self.conv2 = nn.Conv2d(320, 1280, kernel_size=1, bias=False)
        self.bn2 = nn.BatchNorm2d(1280)
        self.fc = nn.Linear(1280, num_classes)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, 3, height, width)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.blocks(x)
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, (1, 1))
        return self.fc(x.view(x.size(0), -1))


batch_size = 64
image_size = 224
num_classes = 1000
REDUCED_SIZES = {"batch_size": 2, "image_size": 32, "num_classes": 100}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [num_classes]
