import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a LogSoftmax activation.
    """

    def __init__(self, dim: int = 1):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies LogSoftmax activation to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, dim).

        Returns:
            torch.Tensor: Output tensor with LogSoftmax applied along dimension 1, same shape as input.
        """
        return torch.log_softmax(x, dim=self.dim)


batch_size = 4096
dim = 131072
REDUCED_SIZES = {"batch_size": 16, "dim": 1024}  # CPU-size variant for the catalogue check


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [1]  # the dimension LogSoftmax runs along
