import torch
import torch.nn as nn


class Model(nn.Module):
    """
    DenseNet transition layer: BatchNorm -> ReLU -> 1x1 conv (channel reduction) -> 2x2 average
    pool (halves height and width). BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, num_input_features, num_output_features):
        """
        :param num_input_features: The number of input feature maps
        :param num_output_features: The number of output feature maps
        """
        super(Model, self).__init__()
        self.transition = nn.Sequential(
            nn.BatchNorm2d(num_input_features),
            nn.ReLU(inplace=True),
            nn.Conv2d(num_input_features, num_output_features, kernel_size=1, bias=False),
            nn.AvgPool2d(kernel_size=2, stride=2),
        )

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, num_input_features, height, width)
        :return: Output tensor, shape (batch_size, num_output_features, height // 2, width // 2)
        """
        return self.transition(x)


batch_size = 128
num_input_features = 256
num_output_features = 128
height = 112
width = 112
REDUCED_SIZES = {"batch_size": 2, "num_input_features": 32, "num_output_features": 16, "height": 16, "width": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, num_input_features, height, width)]


def get_init_inputs():
    return [num_input_features, num_output_features]
