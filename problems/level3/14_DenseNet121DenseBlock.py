import torch
import torch.nn as nn


class Model(nn.Module):
    """
    DenseNet dense block: each layer (BatchNorm -> ReLU -> 3x3 conv -> Dropout(p=0.0)) sees the
    concatenation of the block input and all previous layers' outputs and adds growth_rate new
    channels. BatchNorm runs in training mode (batch statistics); dropout p=0.0 is deterministic.
    """

    def __init__(self, num_layers, num_input_features, growth_rate):
        """
        :param num_layers: The number of layers in the dense block
        :param num_input_features: The number of input feature maps
        :param growth_rate: The number of new feature maps each layer adds
        """
        super(Model, self).__init__()
        layers = []
        for i in range(num_layers):
            layers.append(self._make_layer(num_input_features + i * growth_rate, growth_rate))
        self.layers = nn.ModuleList(layers)

    def _make_layer(self, in_features, growth_rate):
        return nn.Sequential(
            nn.BatchNorm2d(in_features),
            nn.ReLU(inplace=True),
            nn.Conv2d(in_features, growth_rate, kernel_size=3, padding=1, bias=False),
            nn.Dropout(0.0),
        )

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, num_input_features, height, width)
        :return: Output tensor, shape (batch_size, num_input_features + num_layers * growth_rate, height, width)
        """
        features = [x]
        for layer in self.layers:
            new_feature = layer(x)
            features.append(new_feature)
            x = torch.cat(features, 1)
        return x


batch_size = 10
num_layers = 6
num_input_features = 32
growth_rate = 32
height = 224
width = 224
REDUCED_SIZES = {"batch_size": 2, "num_input_features": 16, "growth_rate": 8, "height": 16, "width": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, num_input_features, height, width)]


def get_init_inputs():
    return [num_layers, num_input_features, growth_rate]
