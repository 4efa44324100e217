import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a cumulative product along a dimension.

    Args:
        dim (int): The dimension along which to accumulate.
    """

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, *input_shape).

        Returns:
            torch.Tensor: Tensor of the same shape holding the cumulative products along `dim`.
        """
        return torch.cumprod(x, dim=self.dim)


batch_size = 16384
input_shape = (32768,)
dim = 1
REDUCED_SIZES = {"batch_size": 16, "input_shape": (4096,)}  # CPU-size variant for the catalogue check
# Scaled input variants the evaluation may use: scaling each factor by s scales output i by s**i, which
# overflows or underflows after a few dozen steps, so only mild scales keep the comparison meaningful.
INPUT_SCALES = (1.0, 0.999, 1.001)


def get_inputs():
    # Factors in [0.99, 1.01]: a product of 32768 of them stays within about e^-4 .. e^3 instead of
    # underflowing to zero or overflowing, as products of randn or rand values would.
    return [0.99 + 0.02 * torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return [dim]
