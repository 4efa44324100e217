import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs sum reduction over a specific dimension.
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
        Applies sum reduction over the specified dimension to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, 1, dim2): the reduced dimension is kept with size 1.
        """
        return torch.sum(x, dim=self.dim, keepdim=True)


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
