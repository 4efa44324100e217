import torch
import torch.nn as nn


class Model(nn.Module):
    """
    MobileNetV2: a 3x3 stride-2 conv stem, 17 inverted-residual blocks (1x1 expand + BN + ReLU6,
    3x3 depthwise + BN + ReLU6, 1x1 linear projection + BN, residual add where shapes match),
    a 1x1 conv to 1280 channels, global average pooling and a Linear classifier.
    BatchNorm runs in training mode; dropout uses p=0.0 (deterministic).
    """

    def __init__(self, num_classes=1000, width_mult=1.0):
        """
        :param num_classes: The number of output classes
        :param width_mult: Width multiplier for every layer's channel count
        """
        super(Model, self).__init__()

        def make_divisible(v, divisor=8):
            new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
            return new_v + divisor if new_v < 0.9 * v else new_v

        # (expand_ratio, out_channels, repeats, first_stride)
        settings = [
            (1, 16, 1, 1),
            (6, 24, 2, 2),
            (6, 32, 3, 2),
            (6, 64, 4, 2),
            (6, 96, 3, 1),
            (6, 160, 3, 2),
            (6, 320, 1, 1),
        ]
        input_channel = make_divisible(32 * width_mult)
        self.last_channel = make_divisible(1280 * max(1.0, width_mult))
        features = [
            nn.Conv2d(3, input_channel, 3, 2, 1, bias=False),
            nn.BatchNorm2d(input_channel),
            nn.ReLU6(inplace=True),
        ]
        self.use_residual = []
        for t, c, n, s in settings:
            output_channel = make_divisible(c * width_mult)
            for i in range(n):
                stride = s if i == 0 else 1
                features.append(self._inverted_residual(input_channel, output_channel, stride, t))
                self.use_residual.append(stride == 1 and input_channel == output_channel)
                input_channel = output_channel
        self.blocks = nn.ModuleList(features[3:])
        self.stem = nn.Sequential(*features[:3])
        self.head = nn.Sequential(
            nn.Conv2d(input_channel, self.last_channel, 1, 1, 0, bias=False),
            nn.BatchNorm2d(self.last_channel),
            nn.ReLU6(inplace=True),
            nn.AdaptiveAvgPool2d((1, 1)),
        )
        self.classifier = nn.Sequential(nn.Dropout(0.0), nn.Linear(self.last_channel, num_classes))

    @staticmethod
    def _inverted_residual(inp, oup, stride, expand_ratio):
        hidden_dim = int(inp * expand_ratio)
        layers = []
        if expand_ratio != 1:
            layers += [nn.Conv2d(inp, hidden_dim, 1, 1, 0, bias=False), nn.BatchNorm2d(hidden_dim), nn.ReLU6(inplace=True)]
        layers += [
            nn.Conv2d(hidden_dim, hidden_dim, 3, stride, 1, groups=hidden_dim, bias=False),
            nn.BatchNorm2d(hidden_dim),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            nn.BatchNorm2d(oup),
        ]
        return nn.Sequential(*layers)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, 3, height, width)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = self.stem(x)
        for block, residual in zip(self.blocks, self.use_residual):
            x = x + block(x) if residual else block(x)
        x = self.head(x)
        return self.classifier(x.view(x.size(0), -1))


batch_size = 64
image_size = 224
num_classes = 1000
width_mult = 1.0
REDUCED_SIZES = {"batch_size": 2, "image_size": 64, "num_classes": 100, "width_mult": 0.25}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [num_classes, width_mult]
