import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a matrix multiplication (Linear), scales the result, and adds the unscaled
    result back (residual).
    """

    def __init__(self, in_features, out_features, scaling_factor):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_features).
        """
        x = self.matmul(x)
        original_x = x
        x = x * self.scaling_factor
        x = x + original_x
        return x


batch_size = 8192
in_features = 4096
out_features = 4096
scaling_factor = 0.5
REDUCED_SIZES = {"batch_size": 64, "in_features": 128, "out_features": 128}  # CPU-size variant


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]
