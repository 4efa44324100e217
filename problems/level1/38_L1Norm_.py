import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs L1 normalization of each row: x / sum(|x|) along dimension 1.
    """

    def __init__(self):
        """
        Initializes the L1 normalization layer.
        """
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies L1 normalization to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, dim).

        Returns:
            torch.Tensor: Output tensor with L1 normalization applied, same shape as input.
        """
        return x / torch.sum(torch.abs(x), dim=1, keepdim=True)


batch_size = 1048576
# Rows of 512: outputs average 1/dim in magnitude, so much longer rows would make them small enough
# (~1e-5 at dim=65536) that an all-zero output passed a 1e-4 tolerance.
dim = 512
REDUCED_SIZES = {"batch_size": 512, "dim": 512}  # CPU-size variant for the catalogue check


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # No special initialization inputs needed
