import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RegNet-style CNN (as in KernelBench): stages of [3x3 conv + BN + ReLU, 3x3 conv + BN + ReLU,
    2x2 max-pool] with the given widths, global average pooling (mean over H, W), and a Linear
    classifier. BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, input_channels, stages, block_widths, output_classes):
        """
        :param input_channels: Number of input channels
        :param stages: Number of stages
        :param block_widths: Output channels of each stage
        :param output_classes: The number of output classes
        """
        super(Model, self).__init__()
        layers = []
        current_channels = input_channels
        for i in range(stages):
            layers.append(self._make_stage(current_channels, block_widths[i]))
            current_channels = block_widths[i]
        self.feature_extractor = nn.Sequential(*layers)
        self.fc = nn.Linear(block_widths[-1], output_classes)

    @staticmethod
    def _make_stage(in_channels, out_channels):
        return nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, input_channels, height, width)
        :return: Output tensor, shape (batch_size, output_classes)
        """
        x = self.feature_extractor(x)
        x = torch.mean(x, dim=[2, 3])
        return self.fc(x)


batch_size = 8
input_channels = 3
image_height = 224
image_width = 224
stages = 3
block_widths = [64, 128, 256]
output_classes = 10
REDUCED_SIZES = {"batch_size": 2, "image_height": 32, "image_width": 32, "block_widths": [16, 32, 64]}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, input_channels, image_height, image_width)]


def get_init_inputs():
    return [input_channels, stages, block_widths, output_classes]
