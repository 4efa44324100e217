import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a matrix multiplication (Linear), subtracts a constant, multiplies by a
    constant, and applies ReLU.
    """

    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_features).
        """
        x = self.linear(x)
        x = x - self.subtract_value
        x = x * self.multiply_value
        x = torch.relu(x)
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
subtract_value = 0.25
multiply_value = 1.5
REDUCED_SIZES = {"batch_size": 32, "in_features": 256, "out_features": 128}  # CPU-size variant


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, subtract_value, multiply_value]
