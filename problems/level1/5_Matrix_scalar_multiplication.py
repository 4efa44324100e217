import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a matrix-scalar multiplication (C = A * s).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        """
        Performs matrix-scalar multiplication.

        Args:
            A (torch.Tensor): Input matrix of shape (M, N).
            s (float): Python float scalar.

        Returns:
            torch.Tensor: Resulting matrix of shape (M, N).
        """
        return A * s


M = 16384
N = 32768
REDUCED_SIZES = {"M": 64, "N": 1024}  # CPU-size variant for the catalogue check


def get_inputs():
    A = torch.randn(M, N)
    # The scalar is drawn from the seeded CPU generator so it differs between trials; drawing it on the
    # CPU keeps it a plain float even when inputs are created under another default device.
    s = 0.5 + 3.5 * torch.rand((), device="cpu").item()
    return [A, s]


def get_init_inputs():
    return []  # No special initialization inputs needed
