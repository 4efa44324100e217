import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that normalizes a tensor by its Frobenius norm, rescaled to unit root-mean-square.

    x / ||x||_F alone has entries of about 1/sqrt(x.numel()) (~1e-4 here), small enough that an
    all-zero output would pass a 1e-4 tolerance; multiplying by sqrt(x.numel()) keeps the entries
    O(1) without changing the work (one global reduction, then one elementwise scale).
    """

    def __init__(self):
        """
        Initializes the Frobenius norm normalization layer.
        """
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies Frobenius norm normalization to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of arbitrary shape.

        Returns:
            torch.Tensor: x * sqrt(x.numel()) / ||x||_F, same shape as input.
        """
        norm = torch.norm(x, p="fro")
        return x * (math.sqrt(x.numel()) / norm)


batch_size = 128
features = 64
dim1 = 256
dim2 = 256
REDUCED_SIZES = {"batch_size": 4, "features": 8, "dim1": 32, "dim2": 32}  # CPU-size variant


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return []  # No special initialization inputs needed
