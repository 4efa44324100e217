import torch
import torch.nn as nn


class Model(nn.Module):
    """
    EfficientNet-B2 (simplified, on 260x260 images): 3x3 stride-2 conv stem, five MBConv blocks
    with squeeze-and-excitation (1x1 expand + BN + ReLU, 3x3 depthwise + BN + ReLU, SE gate
    = sigmoid(conv(relu(conv(avgpool)))) multiplied in, 1x1 project + BN), a 1x1 conv to 1408
    channels, global average pooling and a Linear classifier.
    BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, num_classes=1000):
        """
        :param num_classes: The number of output classes
        """
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        self.relu = nn.ReLU(inplace=True)
        # (in_channels, out_channels, stride, expand_ratio)
        config = [(32, 96, 1, 3), (96, 144, 2, 6), (144, 192, 2, 6), (192, 288, 2, 6), (288, 384, 1, 6)]
        self.expand = nn.ModuleList()
        self.depthwise = nn.ModuleList()
        self.se = nn.ModuleList()
        self.project = nn.ModuleList()
        for in_channels, out_channels, stride, expand_ratio in config:
            hidden = in_channels * expand_ratio
            self.expand.append(nn.Sequential(
                nn.Conv2d(in_channels, hidden, kernel_size=1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU(inplace=True)
            ))
            self.depthwise.append(nn.Sequential(
                nn.Conv2d(hidden, hidden, kernel_size=3, stride=stride, padding=1, groups=hidden, bias=False),
                nn.BatchNorm2d(hidden),
                nn.ReLU(inplace=True),
            ))
            self.se.append(nn.Sequential(
                nn.AdaptiveAvgPool2d((1, 1)),
                nn.Conv2d(hidden, hidden // 4, kernel_size=1, bias=False),
                nn.ReLU(inplace=True),
                nn.Conv2d(hidden // 4, hidden, kernel_size=1, bias=False),
                nn.Sigmoid(),
            ))
            self.project.append(nn.Sequential(
                nn.Conv2d(hidden, out_channels, kernel_size=1, bias=False), nn.BatchNorm2d(out_channels)
            ))
        self.conv_final = nn.Conv2d(384, 1408, kernel_size=1, bias=False)
        self.bn_final = nn.BatchNorm2d(1408)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(1408, num_classes)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, 3, 260, 260)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = self.relu(self.bn1(self.conv1(x)))
        for expand, depthwise, se, project in zip(self.expand, self.depthwise, self.se, self.project):
            x = depthwise(expand(x))
            x = x * se(x)
            x = project(x)
        x = self.relu(self.bn_final(self.conv_final(x)))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


batch_size = 16
image_size = 260
num_classes = 1000
REDUCED_SIZES = {"batch_size": 2, "image_size": 32, "num_classes": 100}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [num_classes]
