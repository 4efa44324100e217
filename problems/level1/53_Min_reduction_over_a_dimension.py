import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs min reduction over a specific dimension.
    """

    def __init__(self, dim: int):
        """
        Initializes the model with the dimension to reduce over.

        Args:
            dim (int): The dimension to reduce over.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies min reduction over the specified dimension to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, dim2): the reduced dimension is removed.
        """
        return torch.min(x, dim=self.dim)[0]


batch_size = 128
dim1 = 4096
dim2 = 1536
reduce_dim = 1
REDUCED_SIZES = {"batch_size": 4, "dim1": 256, "dim2": 192}  # CPU-size variant for the catalogue check


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
