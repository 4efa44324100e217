import torch
import torch.nn as nn


class Bottleneck(nn.Module):
    """1x1 reduce -> 3x3 -> 1x1 expand (x4), each with BN, plus shortcut, then ReLU."""

    expansion = 4

    def __init__(self, in_channels, out_channels, stride=1, downsample=None):
        super(Bottleneck, self).__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.conv3 = nn.Conv2d(out_channels, out_channels * self.expansion, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += identity
        return self.relu(out)


class Model(nn.Module):
    """
    ResNet-101: 7x7 conv stem + max-pool, four stages of bottleneck blocks ([3, 4, 23, 3]),
    global average pooling, and a Linear classifier. BatchNorm runs in training mode
    (batch statistics), as the module is constructed.
    """

    def __init__(self, layers, num_classes=1000, base_width=64):
        """
        :param layers: Number of bottleneck blocks in each of the four stages
        :param num_classes: The number of output classes
        :param base_width: Stem / first-stage width (64 in ResNet-101); stages use 1x, 2x, 4x, 8x
        """
        super(Model, self).__init__()
        w = base_width
        self.in_channels = w
        self.conv1 = nn.Conv2d(3, w, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(w)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(w, layers[0], stride=1)
        self.layer2 = self._make_layer(2 * w, layers[1], stride=2)
        self.layer3 = self._make_layer(4 * w, layers[2], stride=2)
        self.layer4 = self._make_layer(8 * w, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8 * w * Bottleneck.expansion, num_classes)

    def _make_layer(self, out_channels, blocks, stride):
        downsample = None
        if stride != 1 or self.in_channels != out_channels * Bottleneck.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.in_channels, out_channels * Bottleneck.expansion, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels * Bottleneck.expansion),
            )
        layers = [Bottleneck(self.in_channels, out_channels, stride, downsample)]
        self.in_channels = out_channels * Bottleneck.expansion
        for _ in range(1, blocks):
            layers.append(Bottleneck(self.in_channels, out_channels))
        return nn.Sequential(*layers)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, 3, height, width)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


batch_size = 10
image_size = 224
layers = [3, 4, 23, 3]
num_classes = 1000
base_width = 64
REDUCED_SIZES = {"batch_size": 2, "image_size": 32, "base_width": 16}  # CPU size
# fp32 tolerance 1e-3, not the protocol's 1e-4: 101 layers of BatchNorm in training mode amplify rounding, so
# the fp32 reference is itself up to 2.5e-4 from a float64 run on every input scale (norm-wise 9e-5), and
# torch.compile, rounding differently, was up to 3e-4 from it (catalogue check, ill-conditioned filter, and
# bench/compile_disagreement.py, at full size on an H200, 2026-11-24). fp16 or TF32 internals are still
# caught: the precision check's bound here is 10x the reference's own norm-wise error.
TOLERANCES = {"float32": (1e-3, 1e-3)}


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [layers, num_classes, base_width]
