import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Deep, narrow multi-layer perceptron: many narrow Linear -> ReLU layers, then a final Linear.
    Weights use He (Kaiming normal) initialisation and zero biases, so the signal keeps its scale
    through the depth (with PyTorch's default Linear init it decays ~6x per layer and the output
    would be nearly independent of the input).
    """

    def __init__(self, input_size, hidden_layer_sizes, output_size):
        """
        :param input_size: The number of input features
        :param hidden_layer_sizes: A list of ints containing the sizes of each hidden layer
        :param output_size: The number of output features
        """
        super(Model, self).__init__()
        layers = []
        current_input_size = input_size
        for hidden_size in hidden_layer_sizes:
            layers.append(nn.Linear(current_input_size, hidden_size))
            layers.append(nn.ReLU())
            current_input_size = hidden_size
        layers.append(nn.Linear(current_input_size, output_size))
        self.network = nn.Sequential(*layers)
        for layer in self.network:
            if isinstance(layer, nn.Linear):
                nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
                nn.init.zeros_(layer.bias)

    def forward(self, x):
        """
        :param x: The input tensor, shape (batch_size, input_size)
        :return: The output tensor, shape (batch_size, output_size)
        """
        return self.network(x)


batch_size = 2048
input_size = 4096
hidden_layer_sizes = [1024] * 16
output_size = 4096
REDUCED_SIZES = {"batch_size": 8, "input_size": 64, "hidden_layer_sizes": [32] * 16, "output_size": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_layer_sizes, output_size]
