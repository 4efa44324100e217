import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Simple model that performs a LeakyReLU activation.
    """

    def __init__(self, negative_slope: float):
        """
        Args:
            negative_slope (float): The slope for negative inputs.
        """
        super(Model, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies LeakyReLU to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of any shape.

        Returns:
            torch.Tensor: Output tensor with LeakyReLU applied, same shape as input.
        """
        return F.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 4096
dim = 131072
negative_slope = 0.01
REDUCED_SIZES = {"batch_size": 16, "dim": 1024}  # CPU-size variant for the catalogue check


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [negative_slope]
