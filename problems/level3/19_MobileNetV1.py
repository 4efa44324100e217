import torch
import torch.nn as nn


class Model(nn.Module):
    """
    MobileNetV1: a 3x3 stride-2 conv stem, then 13 depthwise-separable blocks (3x3 depthwise
    conv + BN + ReLU, 1x1 pointwise conv + BN + ReLU), global 7x7 average pool and a Linear
    classifier. Channel counts are scaled by alpha. BatchNorm runs in training mode.
    """

    def __init__(self, num_classes=1000, input_channels=3, alpha=1.0):
        """
        :param num_classes: The number of output classes
        :param input_channels: The number of input channels (3 for RGB images)
        :param alpha: Width multiplier
        """
        super(Model, self).__init__()

        def conv_bn(inp, oup, stride):
            return nn.Sequential(
                nn.Conv2d(inp, oup, 3, stride, 1, bias=False),
                nn.BatchNorm2d(oup),
                nn.ReLU(inplace=True),
            )

        def conv_dw(inp, oup, stride):
            return nn.Sequential(
                nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False),
                nn.BatchNorm2d(inp),
                nn.ReLU(inplace=True),
                nn.Conv2d(inp, oup, 1, 1, 0, bias=False),
                nn.BatchNorm2d(oup),
                nn.ReLU(inplace=True),
            )

        def c(n):
            return int(n * alpha)

        self.model = nn.Sequential(
            conv_bn(input_channels, c(32), 2),
            conv_dw(c(32), c(64), 1),
            conv_dw(c(64), c(128), 2),
            conv_dw(c(128), c(128), 1),
            conv_dw(c(128), c(256), 2),
            conv_dw(c(256), c(256), 1),
            conv_dw(c(256), c(512), 2),
            conv_dw(c(512), c(512), 1),
            conv_dw(c(512), c(512), 1),
            conv_dw(c(512), c(512), 1),
            conv_dw(c(512), c(512), 1),
            conv_dw(c(512), c(512), 1),
            conv_dw(c(512), c(1024), 2),
            conv_dw(c(1024), c(1024), 1),
            nn.AdaptiveAvgPool2d((1, 1)),
        )
        self.fc = nn.Linear(c(1024), num_classes)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, input_channels, height, width)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = self.model(x)
        return self.fc(x.view(x.size(0), -1))


batch_size = 64
input_channels = 3
image_size = 224
num_classes = 1000
alpha = 1.0
REDUCED_SIZES = {"batch_size": 2, "image_size": 64, "num_classes": 100, "alpha": 0.25}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, input_channels, image_size, image_size)]


def get_init_inputs():
    return [num_classes, input_channels, alpha]
