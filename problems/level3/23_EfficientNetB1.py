import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    EfficientNet-B1 (simplified, on 240x240 images): 3x3 stride-2 conv stem, seven MBConv blocks
    (1x1 expand + BN + ReLU6, 3x3 depthwise + BN + ReLU6, 1x1 project + BN; no residual), a 1x1
    conv to 1280 channels, global average pooling and a Linear classifier.
    BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, num_classes=1000):
        """
        :param num_classes: The number of output classes
        """
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        # (in_channels, out_channels, stride, expand_ratio)
        config = [
            (32, 16, 1, 1),
            (16, 24, 2, 6),
            (24, 40, 2, 6),
            (40, 80, 2, 6),
            (80, 112, 1, 6),
            (112, 192, 2, 6),
            (192, 320, 1, 6),
        ]
        self.mbconvs = nn.ModuleList([self._make_mbconv_block(*c) for c in config])
        self.conv2 = nn.Conv2d(320, 1280, kernel_size=1, bias=False)
        self.bn2 = nn.BatchNorm2d(1280)
        self.fc = nn.Linear(1280, num_classes)

    @staticmethod
    def _make_mbconv_block(in_channels, out_channels, stride, expand_ratio):
        hidden_dim = round(in_channels * expand_ratio)
        return nn.Sequential(
            nn.Conv2d(in_channels, hidden_dim, kernel_size=1, bias=False),
            nn.BatchNorm2d(hidden_dim),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden_dim, hidden_dim, kernel_size=3, stride=stride, padding=1, groups=hidden_dim, bias=False),
            nn.BatchNorm2d(hidden_dim),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden_dim, out_channels, kernel_size=1, bias=False),
            nn.BatchNorm2d(out_channels),
        )

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, 3, 240, 240)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = F.relu(self.bn1(self.conv1(x)))
        for block in self.mbconvs:
            x = block(x)
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1)
        return self.fc(x)


batch_size = 64
image_size = 240
num_classes = 1000
REDUCED_SIZES = {"batch_size": 2, "image_size": 32, "num_classes": 100}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [num_classes]
